/* Protobuf wire reader for the OTLP decoder (otlp_proto.c): fields of one
 * message, read in place from the request buffer, the error sentence that
 * says what is wrong and where, and the readers of the OTLP common types
 * (KeyValue / AnyValue, in otlp_proto_wire.c).
 *
 * Internal to collector/otlp. Nothing here allocates; every read is bounded
 * by the end of the enclosing message, so a length that overruns its parent
 * is caught at the level where it is declared. */
#ifndef FSC_OTLP_PROTO_WIRE_H
#define FSC_OTLP_PROTO_WIRE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "sources/otlp/otlp_point.h"

enum { PW_VARINT = 0, PW_I64 = 1, PW_LEN = 2, PW_SGROUP = 3, PW_EGROUP = 4, PW_I32 = 5 };

/* Why a field could not be read (pw_next returns the negated value). */
enum pw_error {
    PW_E_VARINT_TRUNC = 1, /* input ends inside a varint */
    PW_E_VARINT_LONG,      /* more than 10 varint bytes */
    PW_E_TAG_FIELD,        /* field number 0 or above 2^29 - 1 */
    PW_E_GROUP,            /* wire type 3 or 4: groups are not proto3 */
    PW_E_WIRE_TYPE,        /* wire type 6 or 7 */
    PW_E_FIXED64_TRUNC,    /* fewer than 8 bytes left for a fixed64 */
    PW_E_FIXED32_TRUNC,    /* fewer than 4 bytes left for a fixed32 */
    PW_E_LEN_OVERFLOW,     /* a length runs past the enclosing message */
};

/* One field as read from the wire. For PW_LEN, p/n is the payload; for the
 * others u holds the value (fixed types little-endian decoded). */
struct pw_field {
    uint32_t num;
    uint32_t wt;
    uint64_t u;
    const uint8_t *p;
    size_t n;
    const uint8_t *at; /* first byte of the tag: for error offsets */
};

/* Little-endian 8 bytes at p (any alignment). */
static inline uint64_t pw_le64(const uint8_t *p)
{
    uint64_t v;
    memcpy(&v, p, 8);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    v = __builtin_bswap64(v);
#endif
    return v;
}

static inline double pw_double(uint64_t bits)
{
    double d;
    memcpy(&d, &bits, sizeof(d));
    return d;
}

/* Reads a varint at *pp (< end). Returns 0 and advances *pp, or a negative
 * pw_error with *pp unchanged. A 10th byte with more than the 64th bit set is
 * accepted and its excess bits dropped, as protobuf's own parsers do. */
#define PW_INLINE static inline __attribute__((always_inline))

PW_INLINE int pw_varint(const uint8_t **pp, const uint8_t *end, uint64_t *v)
{
    const uint8_t *p = *pp;
    if (p < end && *p < 0x80) { /* the common one-byte case */
        *v = *p;
        *pp = p + 1;
        return 0;
    }
    uint64_t r = 0;
    for (unsigned shift = 0; shift < 70; shift += 7) {
        if (p >= end)
            return -PW_E_VARINT_TRUNC;
        uint8_t b = *p++;
        r |= (uint64_t)(b & 0x7f) << shift;
        if (b < 0x80) {
            *v = r;
            *pp = p;
            return 0;
        }
    }
    return -PW_E_VARINT_LONG;
}

/* Reads the next field of the message [*pp, end): its tag and its value by
 * wire type, so an unknown field is skipped simply by ignoring it. Returns 1
 * with f filled and *pp past the field, 0 at the end of the message, or a
 * negative pw_error with *pp at the byte where reading failed. */
PW_INLINE int pw_next(const uint8_t **pp, const uint8_t *end, struct pw_field *f)
{
    const uint8_t *p = *pp;
    uint64_t tag;
    int rc;
    if (p >= end)
        return 0;
    f->at = p;
    if ((rc = pw_varint(&p, end, &tag)) != 0)
        return rc;
    if ((tag >> 3) == 0 || (tag >> 3) > 0x1fffffff)
        return -PW_E_TAG_FIELD;
    f->num = (uint32_t)(tag >> 3);
    f->wt = (uint32_t)(tag & 7);
    switch (f->wt) {
    case PW_VARINT:
        if ((rc = pw_varint(&p, end, &f->u)) != 0) {
            *pp = p;
            return rc;
        }
        break;
    case PW_I64:
        if (end - p < 8) {
            *pp = p;
            return -PW_E_FIXED64_TRUNC;
        }
        f->u = pw_le64(p);
        p += 8;
        break;
    case PW_LEN: {
        uint64_t n;
        const uint8_t *q = p;
        if ((rc = pw_varint(&q, end, &n)) != 0) {
            *pp = p;
            return rc;
        }
        if (n > (uint64_t)(end - q)) {
            *pp = p;
            return -PW_E_LEN_OVERFLOW;
        }
        f->p = q;
        f->n = (size_t)n;
        p = q + n;
        break;
    }
    case PW_I32:
        if (end - p < 4) {
            *pp = p;
            return -PW_E_FIXED32_TRUNC;
        }
        f->u = (uint64_t)p[0] | (uint64_t)p[1] << 8 | (uint64_t)p[2] << 16 | (uint64_t)p[3] << 24;
        p += 4;
        break;
    case PW_SGROUP:
    case PW_EGROUP:
        return -PW_E_GROUP;
    default:
        return -PW_E_WIRE_TYPE;
    }
    *pp = p;
    return 1;
}

/* Where the decoder is, as a chain of frames on the C stack (innermost
 * first): "ResourceMetrics[0].ScopeMetrics[1].Metric[3] (name \"x\")".
 * Kept as locals of the parse functions, so tracking it costs a few stores
 * and an error can still name its place. */
struct pw_where {
    const struct pw_where *up;
    const char *what;
    uint32_t idx;
    bool has_idx;
    struct fsc_otlp_str name; /* Metric.name once known, else len 0 */
};

/* Formats "<where>: <what> at byte <offset>" into err (errlen bytes,
 * NUL-terminated; err may be NULL when errlen is 0). The what is a printf
 * format. Returns -EBADMSG. Thread: any. */
int otlp_pw_fail(char *err, size_t errlen, const struct pw_where *w, size_t offset, const char *fmt,
                 ...) __attribute__((format(printf, 5, 6)));

/* The sentence for a negative pw_next() result. */
const char *otlp_pw_strerror(int rc);

/* ---- decoder state and the helpers shared by otlp_proto.c and
 * otlp_proto_wire.c (KeyValue / AnyValue readers) ---- */

/* One decode call's state: on the caller's stack, about 12 KiB. */
struct pw_dec {
    const uint8_t *base; /* start of the request: error offsets */
    const struct fsc_otlp_visitor *v;
    bool visit; /* second pass: call the visitor, skip validate-only parts */
    char *err;
    size_t errlen;
    /* Scratch for the resource or point being read. One attribute array
     * serves both: resource attributes are dead once resource() returned. */
    uint32_t n_attrs, n_bounds, n_buckets;
    struct fsc_otlp_attr attrs[FSC_OTLP_ATTRS_MAX];
    double bounds[FSC_OTLP_BUCKETS_MAX];
    uint64_t buckets[FSC_OTLP_BUCKETS_MAX];
};

/* The error sentence for d at byte `at` of the request; evaluates to -EBADMSG. */
#define PW_FAIL(d, w, at, ...)                                                                     \
    otlp_pw_fail((d)->err, (d)->errlen, (w), (size_t)((const uint8_t *)(at) - (d)->base),          \
                 __VA_ARGS__)

/* The sentence for a failed pw_next() (rc < 0) at p. Returns -EBADMSG. */
int otlp_pw_next_fail(struct pw_dec *d, const struct pw_where *w, const uint8_t *p,
                      const struct pw_field *f, int rc) __attribute__((cold));

/* pw_next() with the error turned into a sentence at its place. Inlined
 * everywhere: it is most of the decoder's work (see the bench). */
PW_INLINE int pw_get(struct pw_dec *d, const struct pw_where *w, const uint8_t **p,
                     const uint8_t *end, struct pw_field *f)
{
    int rc = pw_next(p, end, f);
    if (rc >= 0)
        return rc;
    return otlp_pw_next_fail(d, w, *p, f, rc);
}

/* "field N (name) has wire type X, expected Y". Returns -EBADMSG. */
int otlp_pw_bad_wt(struct pw_dec *d, const struct pw_where *w, const struct pw_field *f,
                   const char *name, unsigned want) __attribute__((cold));

/* Returns from the calling parse function when f does not have wire type wtype. */
#define PW_WANT(d, w, f, name, wtype)                                                              \
    do {                                                                                           \
        if ((f)->wt != (wtype))                                                                    \
            return otlp_pw_bad_wt((d), (w), (f), (name), (wtype));                                 \
    } while (0)

/* A PW_LEN payload as a string of the request. */
static inline struct fsc_otlp_str pw_str(const struct pw_field *f)
{
    /* The request is at most 4 GiB (checked on entry), so n fits. */
    return (struct fsc_otlp_str){(const char *)f->p, (uint32_t)f->n};
}

/* Appends the KeyValue in f (a repeated `attributes` field) to d->attrs.
 * Returns 0, or -EBADMSG beyond FSC_OTLP_ATTRS_MAX or when malformed. */
int otlp_pw_add_attr(struct pw_dec *d, const struct pw_where *up, const struct pw_field *f);

/* Validates the KeyValue in f (named what[idx] in errors) in the first pass
 * and skips it in the second: for KeyValues we never hand over. */
int otlp_pw_check_kv(struct pw_dec *d, const struct pw_where *up, const char *what, uint32_t idx,
                     const struct pw_field *f);

#endif
