/* The wire side of remote_write 1.0 (Prometheus' remote_write_spec.md, the schema in
 * remote_write.proto beside this file): a WriteRequest written field by
 * field into a reused buffer, and its snappy block compression.
 *
 * Why a hand writer and not generated protobuf-c code: the request has four
 * small messages and is only ever written, never read. Writing it directly
 * costs no allocation per sample (generated code would build a tree of
 * structs first and then walk it again), needs no generated sources in the
 * build, and the exact bytes are easy to check by hand (unit test).
 *
 * Thread: none of these functions keeps state; buffers are the caller's. */
#ifndef FSC_RW_ENCODE_H
#define FSC_RW_ENCODE_H

#include <stddef.h>
#include <stdint.h>

#include "base/buf.h"

/* One label; strings need not be NUL-terminated. */
struct fsc_rw_label {
    const char *name;
    size_t name_len;
    const char *value;
    size_t value_len;
};

/* One sample: value and milliseconds since the epoch. */
struct fsc_rw_point {
    double value;
    int64_t t_ms;
};

/* Appends one `TimeSeries timeseries = 1` field of a WriteRequest to b: the
 * labels in the order given (the caller sorts them: __name__ and the rest by
 * name) and the points in the order given (timestamp order). A WriteRequest
 * is the concatenation of such fields, so b is the request body once every
 * series is appended. Zero values and timestamps are left out, as proto3
 * encoders do. Returns 0 or the buffer's negative errno (b unchanged). */
int fsc_rw_encode_series(struct fsc_buf *b, const struct fsc_rw_label *labels, size_t n_labels,
                         const struct fsc_rw_point *pts, size_t n_pts);

/* Compresses in[0..n) into out (reset first) as one snappy block (the raw
 * format remote_write requires, not the framed one). Returns 0, -ENOMEM /
 * -E2BIG (out's limit), or -EIO when libsnappy refuses. */
int fsc_rw_snappy(const void *in, size_t n, struct fsc_buf *out);

/* Decompresses a snappy block into out (reset first); tests and the
 * benchmark check round trips with it. Returns 0, -EINVAL (not a valid
 * block), -ENOMEM / -E2BIG. */
int fsc_rw_unsnappy(const void *in, size_t n, struct fsc_buf *out);

#endif
