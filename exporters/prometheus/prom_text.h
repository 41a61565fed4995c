/* Exposition text primitives shared by the renderer's files: number
 * formatting, escaping and a line writer that appends to an fsc_buf without
 * a printf per line.
 *
 * Internal to exporters/prometheus (not part of the exporter's interface).
 * All functions are pure or touch only the buffers they are given; any thread
 * may call them on buffers it owns. */
#ifndef FSC_PROM_TEXT_H
#define FSC_PROM_TEXT_H

#include <stddef.h>
#include <stdint.h>

#include "base/buf.h"
#include "base/numfmt.h"

/* Writes v as a Go/Prometheus float into buf (>= FSC_NUM_MAX bytes, not
 * terminated) and returns the length: "NaN", "+Inf", "-Inf", else
 * fsc_fmt_double's text (integral values below 2^53 as exact integers, the
 * rest the shortest text that reads back as the same double). */
size_t fsc_prom_fmt_double(char *buf, double v);

/* Copies s[0..n) into dst escaping a label value (\ -> \\, " -> \", newline
 * -> \n). dst needs room for 2n bytes. Returns the end of what was written. */
char *fsc_prom_escape_label(char *dst, const char *s, size_t n);

/* Copies s[0..n) into dst escaping HELP text: \ -> \\ and newline -> \n,
 * and with om also " -> \" (OpenMetrics escapes quotes in HELP, text 0.0.4
 * does not). dst needs 2n bytes. Returns the end. */
char *fsc_prom_escape_help(char *dst, const char *s, size_t n, int om);

/* An extra label written after a series' own labels (direction, window,
 * counter, le, group). The value is escaped on output. */
struct fsc_prom_label {
    const char *name;
    size_t name_len;
    const char *value;
    size_t value_len;
};

/* Writes lines into fsc_bufs. Lines are formatted straight into the target
 * buffer after one reserve of an upper bound; only when that bound would
 * cross the buffer's limit does a line go through `scratch` and an exact
 * append, so the limit (-E2BIG) is honoured byte for byte. The first error is
 * kept in err and every later line is skipped. `samples` counts sample lines. */
struct fsc_prom_writer {
    struct fsc_buf scratch; /* owned; reused */
    struct fsc_buf labels;  /* owned; a histogram's shared label text */
    int err;                /* 0 or the first negative errno */
    uint64_t samples;       /* sample lines written since the last reset */
    /* Streaming (NULL flush: none): after a line that leaves flush_buf
     * holding flush_at bytes or more, flush(flush_arg, flush_buf) hands its
     * bytes on and resets it; a nonzero return becomes err. Lines written
     * to other buffers (a side buffer) never flush. */
    int (*flush)(void *flush_arg, struct fsc_buf *b);
    void *flush_arg;
    struct fsc_buf *flush_buf;
    size_t flush_at;
};

/* Frees the writer's scratch memory. */
void fsc_prom_writer_free(struct fsc_prom_writer *w);

/* Writes one sample line into b:
 *   <name><suffix>{<block>,<ex...>} <value>\n
 * `block` is a series' preformatted label text (already escaped, no braces,
 * may be empty); the extra labels ex[0..n_ex) follow it. `value` is the
 * formatted number. Returns 0 or w->err. */
int fsc_prom_sample(struct fsc_prom_writer *w, struct fsc_buf *b, const char *name, size_t name_len,
                    const char *suffix, size_t suffix_len, const char *block, size_t block_len,
                    const struct fsc_prom_label *ex, size_t n_ex, const char *value,
                    size_t value_len);

/* Writes the "# HELP" and "# TYPE" lines of a family named `name` (the
 * OpenMetrics family name or the text sample name, chosen by the caller).
 * Returns 0 or w->err. */
int fsc_prom_header(struct fsc_prom_writer *w, struct fsc_buf *b, const char *name, size_t name_len,
                    const char *type, const char *help, int om);

/* A short preformatted string (a bucket bound, a window name). */
struct fsc_prom_str {
    char s[FSC_NUM_MAX + 1];
    size_t len;
};

/* Writes a histogram's lines into b: <name>_bucket{<block>,<ex...>,le="x"}
 * for each bound le[0..n_le) and "+Inf" with cumulative counts (bucket[] is
 * per bucket, bucket[n_le] the overflow), then <name>_sum and <name>_count
 * (= the +Inf bucket). The label text is built once for all lines and the
 * lines are written after one reserve. Returns 0 or w->err. */
int fsc_prom_histogram(struct fsc_prom_writer *w, struct fsc_buf *b, const char *name,
                       size_t name_len, const char *block, size_t block_len,
                       const struct fsc_prom_label *ex, size_t n_ex, const uint64_t *bucket,
                       const struct fsc_prom_str *le, size_t n_le, double sum);

/* Appends raw bytes (concatenating family buffers, "# EOF"). Returns 0 or
 * w->err. */
int fsc_prom_append(struct fsc_prom_writer *w, struct fsc_buf *b, const char *p, size_t n);

#endif
