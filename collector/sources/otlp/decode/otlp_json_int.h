/* Private to the OTLP/JSON decoder (otlp_point.h is its contract,
 * fsc_otlp_decode_json): what its two files share.
 *
 * - otlp_json.c: the design and its decisions, the message schema walked
 *   twice over jansson's tree (checking, then visiting) and the entry point.
 * - otlp_json_read.c: the text's bounds before jansson parses it, the parse,
 *   an object's known members, the scalar readers and the error sentence. */
#ifndef FSC_OTLP_JSON_INT_H
#define FSC_OTLP_JSON_INT_H

#include <errno.h>
#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sources/otlp/decode/otlp_point.h"

/* clang-format off */
enum key_id {
    K_RESOURCE_METRICS, K_RESOURCE, K_SCOPE_METRICS, K_METRICS, K_ATTRIBUTES, K_NAME, K_UNIT,
    K_GAUGE, K_SUM, K_HISTOGRAM, K_EXP_HISTOGRAM, K_SUMMARY, K_DATA_POINTS, K_TEMPORALITY,
    K_MONOTONIC, K_KEY, K_VALUE, K_STRING_VALUE, K_BOOL_VALUE, K_INT_VALUE, K_DOUBLE_VALUE,
    K_ARRAY_VALUE, K_KVLIST_VALUE, K_BYTES_VALUE, K_VALUES, K_START_TIME, K_TIME, K_AS_DOUBLE,
    K_AS_INT, K_FLAGS, K_COUNT, K_BUCKET_COUNTS, K_EXPLICIT_BOUNDS, K_MIN, K_MAX, K_IDS
};
/* clang-format on */

#define BIT(k) (1ull << (k))

#define JSON_DEPTH_MAX 128 /* object/array nesting anywhere in the text */
/* Path segments an error can name: the schema's ~12, and 4 per level of
 * AnyValue nesting (value.arrayValue.values[i]). */
#define PATH_SEGS (12 + 4 * (FSC_OTLP_DEPTH_MAX + 1))

/* camelCase names, in enum order (otlp_json_read.c): the names errors show. */
extern const char *const otlp_json_key_names[K_IDS];

/* One step of an error's path: a key (its camelCase name), or an index. */
struct seg {
    const char *key; /* NULL: idx */
    size_t idx;
};

/* Decoder state for one call: the walk (checking or visiting), the error
 * (its path is built innermost first as the walk unwinds), and the bounded
 * scratch of the metric being visited. */
struct jdec {
    const struct fsc_otlp_visitor *v;
    bool visit;         /* the visiting walk: callbacks */
    bool ints_as_reals; /* the tree holds every JSON integer as a double */
    const char *err_msg;
    unsigned line, col; /* where in the text (0: a schema error, no position) */
    unsigned nseg;
    struct seg path[PATH_SEGS];
    char jmsg[JSON_ERROR_TEXT_LENGTH + 16]; /* "invalid JSON: " and jansson's sentence */
    struct fsc_otlp_metric m;
    uint32_t n_attrs;
    struct fsc_otlp_attr attrs[FSC_OTLP_ATTRS_MAX];
    double bounds[FSC_OTLP_BUCKETS_MAX];
    uint64_t buckets[FSC_OTLP_BUCKETS_MAX];
};

/* A schema error: msg (a static sentence); the callers add the path. */
static inline int otlp_json_fail(struct jdec *d, const char *msg)
{
    d->err_msg = msg;
    d->nseg = 0;
    return -EBADMSG;
}

/* rc, with index i added to the error's path when rc is an error. */
static inline int otlp_json_in_index(struct jdec *d, size_t i, int rc)
{
    if (rc < 0 && d->nseg < PATH_SEGS)
        d->path[d->nseg++] = (struct seg){NULL, i};
    return rc;
}

/* rc, with key k added to the error's path when rc is an error. */
static inline int otlp_json_in_key(struct jdec *d, enum key_id k, int rc)
{
    if (rc < 0 && d->nseg < PATH_SEGS)
        d->path[d->nseg++] = (struct seg){otlp_json_key_names[k], 0};
    return rc;
}

/* ---- otlp_json_read.c ---- */

/* jansson's tree of text[0..len) into *root (the caller owns it,
 * json_decref), after the bounds are checked: 0, -EBADMSG with d's error
 * set, or -ENOMEM. Sets d->ints_as_reals. */
int otlp_json_load(struct jdec *d, const char *text, size_t len, json_t **root);

/* The members of obj whose keys are in mask, in either spelling: vals[k]
 * the value of key k, NULL if absent or null. At most one key of `oneof`
 * may have a value (oneof_msg otherwise). 0 or -EBADMSG. */
int otlp_json_members(struct jdec *d, json_t *obj, uint64_t mask, uint64_t oneof,
                      const char *oneof_msg, json_t **vals);

/* Scalars of the OTLP messages, each 0 or -EBADMSG (otlp_json_read.c has
 * what each accepts). A string points into the tree. */
int otlp_json_str(struct jdec *d, json_t *val, struct fsc_otlp_str *out);
int otlp_json_bool(struct jdec *d, json_t *val, bool *out);
int otlp_json_u64(struct jdec *d, json_t *val, uint64_t *out);
int otlp_json_i64(struct jdec *d, json_t *val, int64_t *out);
int otlp_json_u32(struct jdec *d, json_t *val, uint32_t *out);
int otlp_json_enum(struct jdec *d, json_t *val, int32_t *out);
int otlp_json_double(struct jdec *d, json_t *val, double *out);

/* Writes d's error as "[prefix][path: ]what[ (line L, column C)]" into
 * err[0..errlen). */
void otlp_json_format_error(const struct jdec *d, const char *prefix, char *err, size_t errlen);

#endif
