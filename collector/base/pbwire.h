/* The protobuf wire format (proto3), read and written by hand: the one field
 * reader the gNMI and OTLP decoders walk messages with, and the varint and
 * fixed-width writers of the OTLP response bodies and the remote_write
 * encoder.
 *
 * Reading is in place: a field's payload is a slice of the input, nothing is
 * allocated or copied, and every read is bounded by the end of the enclosing
 * message, so a length that overruns its parent is caught at the level where
 * it is declared. What each decoder does with a field (which numbers it
 * knows, which wire type it wants, what an error says) is the decoder's.
 *
 * Header-only: the reader is most of a decoder's work, so it is inlined into
 * every field loop (see bench/gnmi_decode_bench.c, bench/otlp_decode_bench.c).
 * Thread: any; nothing here holds state. */
#ifndef FSC_BASE_PBWIRE_H
#define FSC_BASE_PBWIRE_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* Forced inlining for the reader: it is most of a decoder's work, and a plain
 * `static inline` may be left out of line in a large field loop. */
#define FSC_PB_INLINE static inline __attribute__((always_inline))

/* Wire types: the low 3 bits of a tag. */
enum {
    FSC_PB_VARINT = 0,
    FSC_PB_I64 = 1,
    FSC_PB_LEN = 2,
    FSC_PB_SGROUP = 3,
    FSC_PB_EGROUP = 4,
    FSC_PB_I32 = 5,
};

/* Bytes of the longest varint (a 64-bit value). */
#define FSC_PB_VARINT_MAX 10

/* Why a field could not be read (fsc_pb_varint and fsc_pb_next return the
 * negated value). */
enum fsc_pb_error {
    FSC_PB_E_VARINT_TRUNC = 1, /* input ends inside a varint */
    FSC_PB_E_VARINT_LONG,      /* more than 10 varint bytes */
    FSC_PB_E_TAG_FIELD,        /* field number 0 or above 2^29 - 1 */
    FSC_PB_E_GROUP,            /* wire type 3 or 4: groups are not proto3 */
    FSC_PB_E_WIRE_TYPE,        /* wire type 6 or 7 */
    FSC_PB_E_FIXED64_TRUNC,    /* fewer than 8 bytes left for a fixed64 */
    FSC_PB_E_FIXED32_TRUNC,    /* fewer than 4 bytes left for a fixed32 */
    FSC_PB_E_LEN_OVERFLOW,     /* a length runs past the enclosing message */
};

/* A run of input bytes: a length-delimited payload. */
struct fsc_pb_slice {
    const uint8_t *p;
    size_t n;
};

/* An absent field: empty, but never a NULL pointer, because `p + n` and
 * memcpy(dst, p, 0) on NULL are undefined behaviour (found by fuzzing,
 * tests/fuzz/regressions/gnmi/). Initialise optional slices with it. */
#define FSC_PB_NONE ((struct fsc_pb_slice){(const uint8_t *)"", 0})

/* One field as read from the wire. For FSC_PB_LEN, p/n is the payload (a
 * slice of the input) and u is not set; for the other wire types u holds the
 * value (fixed types decoded little-endian) and p/n are not set. Check wt
 * before reading a value. (Setting every member costs ~5 % of an OTLP
 * decode; where GCC cannot see that a read follows a wire-type check and
 * warns -Wmaybe-uninitialized, test f.wt first.) */
struct fsc_pb_field {
    uint32_t num; /* field number, 1 .. 2^29 - 1 */
    uint32_t wt;  /* wire type: FSC_PB_VARINT, _I64, _LEN or _I32 */
    uint64_t u;
    const uint8_t *p;
    size_t n;
    const uint8_t *at; /* first byte of the tag: for error offsets */
};

/* The payload of a FSC_PB_LEN field as a slice. */
static inline struct fsc_pb_slice fsc_pb_bytes(const struct fsc_pb_field *f)
{
    return (struct fsc_pb_slice){f->p, f->n};
}

/* ---- reading ---------------------------------------------------------------- */

/* The little-endian 8 / 4 bytes at p (any alignment, any host order). */
static inline uint64_t fsc_pb_le64(const uint8_t *p)
{
    uint64_t v;
    memcpy(&v, p, 8);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    v = __builtin_bswap64(v);
#endif
    return v;
}

static inline uint32_t fsc_pb_le32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* The value of a `double` (fixed64 bits) / `float` (fixed32 bits) field. */
static inline double fsc_pb_double(uint64_t bits)
{
    double d;
    memcpy(&d, &bits, sizeof(d));
    return d;
}

static inline float fsc_pb_float(uint32_t bits)
{
    float f;
    memcpy(&f, &bits, sizeof(f));
    return f;
}

/* Reads a varint at *pp (< end). Returns 0 and advances *pp, or a negative
 * fsc_pb_error with *pp unchanged. A 10th byte with more than the 64th bit
 * set is accepted and its excess bits dropped, as protobuf's own parsers do. */
FSC_PB_INLINE int fsc_pb_varint(const uint8_t **pp, const uint8_t *end, uint64_t *v)
{
    const uint8_t *p = *pp;
    if (p < end && *p < 0x80) { /* the common one-byte case */
        *v = *p;
        *pp = p + 1;
        return 0;
    }
    uint64_t r = 0;
    for (unsigned shift = 0; shift < 7 * FSC_PB_VARINT_MAX; shift += 7) {
        if (p >= end)
            return -FSC_PB_E_VARINT_TRUNC;
        uint8_t b = *p++;
        r |= (uint64_t)(b & 0x7f) << shift;
        if (b < 0x80) {
            *v = r;
            *pp = p;
            return 0;
        }
    }
    return -FSC_PB_E_VARINT_LONG;
}

/* Reads the next field of the message [*pp, end): its tag and its value by
 * wire type, so an unknown field is skipped simply by ignoring it. Returns 1
 * with f filled and *pp past the field, 0 at the end of the message, or a
 * negative fsc_pb_error. On an error *pp is left where reading failed: at
 * the tag for a bad tag, a group or wire type 6/7 (then *pp == f->at), just
 * past the tag for a bad value (f->num and f->wt are then set). Typical use:
 *     while ((rc = fsc_pb_next(&p, end, &f)) > 0) { switch (f.num) ... }
 *     if (rc < 0) ... malformed */
FSC_PB_INLINE int fsc_pb_next(const uint8_t **pp, const uint8_t *end, struct fsc_pb_field *f)
{
    const uint8_t *p = *pp;
    uint64_t tag;
    int rc;
    if (p >= end)
        return 0;
    f->at = p;
    if ((rc = fsc_pb_varint(&p, end, &tag)) != 0)
        return rc;
    if ((tag >> 3) == 0 || (tag >> 3) > 0x1fffffff)
        return -FSC_PB_E_TAG_FIELD;
    f->num = (uint32_t)(tag >> 3);
    f->wt = (uint32_t)(tag & 7);
    /* Tested in order of frequency (LEN, then VARINT), not as a switch: the
     * jump table of a switch was ~5 % slower on one-update gNMI messages and
     * ~3 % on OTLP requests (bench/), and callers that test wt again in the
     * same order get their test merged with this one. */
    if (f->wt == FSC_PB_LEN) {
        uint64_t n;
        const uint8_t *q = p;
        if ((rc = fsc_pb_varint(&q, end, &n)) != 0) {
            *pp = p;
            return rc;
        }
        if (n > (uint64_t)(end - q)) {
            *pp = p;
            return -FSC_PB_E_LEN_OVERFLOW;
        }
        f->p = q;
        f->n = (size_t)n;
        p = q + n;
    } else if (f->wt == FSC_PB_VARINT) {
        if ((rc = fsc_pb_varint(&p, end, &f->u)) != 0) {
            *pp = p;
            return rc;
        }
    } else if (f->wt == FSC_PB_I64) {
        if (end - p < 8) {
            *pp = p;
            return -FSC_PB_E_FIXED64_TRUNC;
        }
        f->u = fsc_pb_le64(p);
        p += 8;
    } else if (f->wt == FSC_PB_I32) {
        if (end - p < 4) {
            *pp = p;
            return -FSC_PB_E_FIXED32_TRUNC;
        }
        f->u = fsc_pb_le32(p);
        p += 4;
    } else if (f->wt == FSC_PB_SGROUP || f->wt == FSC_PB_EGROUP) {
        return -FSC_PB_E_GROUP;
    } else {
        return -FSC_PB_E_WIRE_TYPE;
    }
    *pp = p;
    return 1;
}

/* ---- writing ---------------------------------------------------------------- */

/* Bytes the varint of v takes (1 .. FSC_PB_VARINT_MAX). */
static inline size_t fsc_pb_varint_len(uint64_t v)
{
    size_t n = 1;
    while (v >= 0x80) {
        v >>= 7;
        n++;
    }
    return n;
}

/* Writes the varint of v at out (room for fsc_pb_varint_len(v) bytes: the
 * caller's to check). Returns the byte after it. An int32/int64 that is
 * negative goes as its 64-bit two's complement: 10 bytes. */
static inline uint8_t *fsc_pb_put_varint(uint8_t *out, uint64_t v)
{
    while (v >= 0x80) {
        *out++ = (uint8_t)(v | 0x80);
        v >>= 7;
    }
    *out++ = (uint8_t)v;
    return out;
}

/* Writes v as 8 little-endian bytes at out (a fixed64 / double value).
 * Returns the byte after them. */
static inline uint8_t *fsc_pb_put_le64(uint8_t *out, uint64_t v)
{
    for (int k = 0; k < 8; k++)
        *out++ = (uint8_t)(v >> (8 * k));
    return out;
}

#endif
