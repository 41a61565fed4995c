/* WriteRequest writer and snappy wrapper (contract in rw_encode.h). Sizes
 * are computed before anything is written, so each message's length prefix
 * is written once, in front, and the buffer grows at most once per series. */
#include "remote_write/rw_encode.h"

#include <errno.h>
#include <snappy-c.h>
#include <string.h>

#include "base/pbwire.h"

/* Field tags: (number << 3) | wire type; 0 varint, 1 fixed64, 2 bytes. */
#define TAG_WR_TIMESERIES 0x0a /* WriteRequest.timeseries = 1, bytes */
#define TAG_TS_LABEL      0x0a /* TimeSeries.labels = 1, bytes */
#define TAG_TS_SAMPLE     0x12 /* TimeSeries.samples = 2, bytes */
#define TAG_LABEL_NAME    0x0a /* Label.name = 1, bytes */
#define TAG_LABEL_VALUE   0x12 /* Label.value = 2, bytes */
#define TAG_SAMPLE_VALUE  0x09 /* Sample.value = 1, fixed64 */
#define TAG_SAMPLE_TS     0x10 /* Sample.timestamp = 2, varint */

static uint8_t *put_bytes(uint8_t *p, uint8_t tag, const char *s, size_t n)
{
    *p++ = tag;
    p = fsc_pb_put_varint(p, n);
    memcpy(p, s, n);
    return p + n;
}

static uint64_t double_bits(double v)
{
    uint64_t u;
    memcpy(&u, &v, sizeof(u));
    return u;
}

static size_t label_len(const struct fsc_rw_label *l)
{
    return 1 + fsc_pb_varint_len(l->name_len) + l->name_len + 1 + fsc_pb_varint_len(l->value_len) +
           l->value_len;
}

/* A +0.0 value or a zero timestamp is the proto3 default: left out. A
 * negative timestamp is a 10-byte varint (int64, two's complement). */
static size_t point_len(const struct fsc_rw_point *pt)
{
    return (double_bits(pt->value) != 0 ? 9 : 0) +
           (pt->t_ms != 0 ? 1 + fsc_pb_varint_len((uint64_t)pt->t_ms) : 0);
}

int fsc_rw_encode_series(struct fsc_buf *b, const struct fsc_rw_label *labels, size_t n_labels,
                         const struct fsc_rw_point *pts, size_t n_pts)
{
    size_t body = 0;
    for (size_t i = 0; i < n_labels; i++) {
        size_t l = label_len(&labels[i]);
        body += 1 + fsc_pb_varint_len(l) + l;
    }
    for (size_t i = 0; i < n_pts; i++) {
        size_t l = point_len(&pts[i]);
        body += 1 + fsc_pb_varint_len(l) + l;
    }
    size_t total = 1 + fsc_pb_varint_len(body) + body;
    int rc = fsc_buf_reserve(b, total);
    if (rc != 0)
        return rc;
    uint8_t *const start = (uint8_t *)b->data;
    uint8_t *p = start + b->len;
    *p++ = TAG_WR_TIMESERIES;
    p = fsc_pb_put_varint(p, body);
    for (size_t i = 0; i < n_labels; i++) {
        *p++ = TAG_TS_LABEL;
        p = fsc_pb_put_varint(p, label_len(&labels[i]));
        p = put_bytes(p, TAG_LABEL_NAME, labels[i].name, labels[i].name_len);
        p = put_bytes(p, TAG_LABEL_VALUE, labels[i].value, labels[i].value_len);
    }
    for (size_t i = 0; i < n_pts; i++) {
        *p++ = TAG_TS_SAMPLE;
        p = fsc_pb_put_varint(p, point_len(&pts[i]));
        uint64_t u = double_bits(pts[i].value);
        if (u != 0) {
            *p++ = TAG_SAMPLE_VALUE;
            p = fsc_pb_put_le64(p, u);
        }
        if (pts[i].t_ms != 0) {
            *p++ = TAG_SAMPLE_TS;
            p = fsc_pb_put_varint(p, (uint64_t)pts[i].t_ms);
        }
    }
    b->len = (size_t)(p - start);
    b->data[b->len] = '\0'; /* fsc_buf's promise; reserve left room for it */
    return 0;
}

int fsc_rw_snappy(const void *in, size_t n, struct fsc_buf *out)
{
    fsc_buf_reset(out);
    size_t cap = snappy_max_compressed_length(n);
    int rc = fsc_buf_reserve(out, cap);
    if (rc != 0)
        return rc;
    size_t len = cap;
    if (snappy_compress(in, n, out->data, &len) != SNAPPY_OK)
        return -EIO;
    out->len = len;
    out->data[len] = '\0';
    return 0;
}

int fsc_rw_unsnappy(const void *in, size_t n, struct fsc_buf *out)
{
    fsc_buf_reset(out);
    size_t len;
    if (snappy_uncompressed_length(in, n, &len) != SNAPPY_OK ||
        snappy_validate_compressed_buffer(in, n) != SNAPPY_OK)
        return -EINVAL;
    int rc = fsc_buf_reserve(out, len);
    if (rc != 0)
        return rc;
    if (snappy_uncompress(in, n, out->data, &len) != SNAPPY_OK)
        return -EINVAL;
    out->len = len;
    out->data[len] = '\0';
    return 0;
}
