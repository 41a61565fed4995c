/* Replay files: recorded or hand-written samples, one per line, in canonical
 * names:
 *
 *     # t_ms  series                                        value
 *     0       fabric_port_tx_bytes_total{device="leaf1",port="et-0/0/1"} 0
 *     100     fabric_port_tx_bytes_total{device="leaf1",port="et-0/0/1"} 5000000000
 *     100     fabric_port_queue_peak_bytes{device="leaf1",port="et-0/0/1",queue="3"} 1.5e6
 *
 * t_ms: milliseconds since the start of the replay (integer >= 0). The
 * series is a Prometheus-style name with optional labels (values in double
 * quotes, escapes \" \\ \n). The value is an unsigned integer (exact u64) or a
 * decimal / exponent number (a double). '#' starts a comment; blank lines are
 * ignored. A line that ends with the word `reset` after the value marks
 * explicit reset evidence (FSC_SMP_RESET). */
#ifndef FSC_REPLAY_FILE_H
#define FSC_REPLAY_FILE_H

#include <stddef.h>
#include <stdint.h>

#include "model/registry.h"
#include "model/sample.h"

#define FSC_REPLAY_LINE_MAX 4096
#define FSC_REPLAY_FILE_MAX (256u << 20) /* bytes */

/* One parsed line. name and label strings point into the caller's line
 * buffer (which the parser modifies in place) and are valid while it is. */
struct fsc_replay_line {
    int64_t t_ms;
    const char *name;
    struct fsc_label labels[FSC_REGISTRY_MAX_LABELS];
    size_t n_labels;
    union fsc_value v;
    uint32_t flags; /* FSC_SMP_F64, FSC_SMP_RESET */
};

/* Parses one line (NUL-terminated, modified in place). Returns 1 with *out
 * filled, 0 for a blank or comment line, or -1 with a sentence (naming the
 * column) in err. Thread: any. */
int fsc_replay_parse_line(char *line, struct fsc_replay_line *out, char *err, size_t errlen);

#endif
