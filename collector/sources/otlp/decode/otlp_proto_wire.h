/* The OTLP decoder's side of the protobuf wire (otlp_proto.c): fields of one
 * message are read in place from the request buffer by the shared reader
 * (base/pbwire.h); here are the error sentence that says what is wrong and
 * where, and the readers of the OTLP common types (KeyValue / AnyValue, in
 * otlp_proto_wire.c).
 *
 * Internal to the OTLP source. Nothing here allocates; every read is bounded
 * by the end of the enclosing message, so a length that overruns its parent
 * is caught at the level where it is declared. */
#ifndef FSC_OTLP_PROTO_WIRE_H
#define FSC_OTLP_PROTO_WIRE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "base/pbwire.h"
#include "sources/otlp/decode/otlp_point.h"

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

/* The sentence for a negative fsc_pb_next() result. */
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

/* The sentence for a failed fsc_pb_next() (rc < 0) at p. Returns -EBADMSG. */
int otlp_pw_next_fail(struct pw_dec *d, const struct pw_where *w, const uint8_t *p,
                      const struct fsc_pb_field *f, int rc) __attribute__((cold));

/* fsc_pb_next() with the error turned into a sentence at its place. Inlined
 * everywhere: it is most of the decoder's work (see the bench). */
static inline __attribute__((always_inline)) int pw_get(struct pw_dec *d, const struct pw_where *w,
                                                        const uint8_t **p, const uint8_t *end,
                                                        struct fsc_pb_field *f)
{
    int rc = fsc_pb_next(p, end, f);
    if (rc >= 0)
        return rc;
    return otlp_pw_next_fail(d, w, *p, f, rc);
}

/* "field N (name) has wire type X, expected Y". Returns -EBADMSG. */
int otlp_pw_bad_wt(struct pw_dec *d, const struct pw_where *w, const struct fsc_pb_field *f,
                   const char *name, unsigned want) __attribute__((cold));

/* Returns from the calling parse function when f does not have wire type wtype. */
#define PW_WANT(d, w, f, name, wtype)                                                              \
    do {                                                                                           \
        if ((f)->wt != (wtype))                                                                    \
            return otlp_pw_bad_wt((d), (w), (f), (name), (wtype));                                 \
    } while (0)

/* A FSC_PB_LEN payload as a string of the request. */
static inline struct fsc_otlp_str pw_str(const struct fsc_pb_field *f)
{
    /* The request is at most 4 GiB (checked on entry), so n fits. */
    return (struct fsc_otlp_str){(const char *)f->p, (uint32_t)f->n};
}

/* Appends the KeyValue in f (a repeated `attributes` field) to d->attrs.
 * Returns 0, or -EBADMSG beyond FSC_OTLP_ATTRS_MAX or when malformed. */
int otlp_pw_add_attr(struct pw_dec *d, const struct pw_where *up, const struct fsc_pb_field *f);

/* Validates the KeyValue in f (named what[idx] in errors) in the first pass
 * and skips it in the second: for KeyValues we never hand over. */
int otlp_pw_check_kv(struct pw_dec *d, const struct pw_where *up, const char *what, uint32_t idx,
                     const struct fsc_pb_field *f);

#endif
