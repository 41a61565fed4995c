/* Private to the OTLP/JSON decoder (otlp_point.h is its contract,
 * fsc_otlp_decode_json): the decoder's state and what its files share.
 *
 * - otlp_json.c: the design, the message schema walked twice (checking,
 *   then visiting) and the entry point.
 * - otlp_json_text.c: the text beside jansson: the cursor's token skips, the
 *   bounds checked before jansson parses, jansson's errors in the decoder's
 *   words, and where an error stands (line, column, path).
 * - otlp_json_read.c: the walks' steps: an object's members and an array's
 *   elements in document order with the cursor over the text, and the
 *   string and number readers. */
#ifndef FSC_OTLP_JSON_INT_H
#define FSC_OTLP_JSON_INT_H

#include <errno.h>
#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "sources/otlp/decode/otlp_point.h"

/* clang-format off */
enum key_id {
    K_UNKNOWN, K_RESOURCE_METRICS, K_RESOURCE, K_SCOPE_METRICS, K_METRICS, K_ATTRIBUTES, K_NAME,
    K_UNIT, K_GAUGE, K_SUM, K_HISTOGRAM, K_EXP_HISTOGRAM, K_SUMMARY, K_DATA_POINTS, K_TEMPORALITY,
    K_MONOTONIC, K_KEY, K_VALUE, K_STRING_VALUE, K_BOOL_VALUE, K_INT_VALUE, K_DOUBLE_VALUE,
    K_ARRAY_VALUE, K_KVLIST_VALUE, K_BYTES_VALUE, K_VALUES, K_START_TIME, K_TIME, K_AS_DOUBLE,
    K_AS_INT, K_FLAGS, K_COUNT, K_BUCKET_COUNTS, K_EXPLICIT_BOUNDS, K_MIN, K_MAX, K_IDS
};
/* clang-format on */

/* lowerCamelCase names, in enum order (otlp_json_read.c); the snake_case
 * proto spelling is derived there. Also the names shown in error paths. */
extern const char *const otlp_json_key_names[K_IDS];

#define BIT(k) (1ull << (k))

#define JSON_DEPTH_MAX 128 /* object/array nesting; deeper is malformed */
/* The deepest path: one step per open container (syntax errors), or the
 * schema's, ~12 + 4 per nested AnyValue level (the walks). */
#define PATH_SEGS (JSON_DEPTH_MAX + 8)

/* One step of the path shown in error messages: a key, or an index. */
struct seg {
    const char *key; /* NULL: idx */
    size_t klen;
    size_t idx;
};

/* Decoder state for one call: the text and the checking walk's cursor, the
 * error, the path, the tree slot of the value being read (for stash), and
 * the metric being visited with the bounded scratch that points hand out. */
struct jdec {
    const char *text;
    size_t len;
    size_t top; /* offset of the top-level '{' */
    size_t pos; /* checking walk: the cursor */
    const struct fsc_otlp_visitor *v;
    bool visit;          /* the visiting walk (tree only, callbacks) */
    const char *err_msg; /* static sentence, or jmsg */
    size_t err_pos;
    char jmsg[JSON_ERROR_TEXT_LENGTH]; /* a jansson sentence with no translation */
    unsigned nseg;
    struct seg path[PATH_SEGS];
    json_t *slot_obj; /* the member (slot_obj, slot_iter) or element (slot_arr, slot_idx) */
    void *slot_iter;  /* holding the value being read */
    json_t *slot_arr;
    size_t slot_idx;
    char *out; /* visiting walk: the request buffer, strings copied front to back */
    size_t out_len;
    struct fsc_otlp_metric m;
    uint32_t n_attrs;
    struct fsc_otlp_attr attrs[FSC_OTLP_ATTRS_MAX];
    double bounds[FSC_OTLP_BUCKETS_MAX];
    uint64_t buckets[FSC_OTLP_BUCKETS_MAX];
};

/* Iteration over an object's members whose key is in a mask, or over an
 * array's elements, keeping the error path: each call pops what the last one
 * pushed; an error return leaves the path where the error is. */
struct iter {
    size_t n;
    uint64_t seen; /* objects: keys met so far */
    enum key_id k; /* objects: the current member's key */
    bool open, pushed;
    void *it;      /* objects: jansson's iterator at the current member */
    json_t *val;   /* the current member's or element's value */
    size_t key_at; /* checking walk: the current member's opening quote */
};

/* ---- small helpers of every file (inline: they sit in the cursor's loops) ---- */

static inline void push(struct jdec *d, const char *key, size_t klen, size_t idx)
{
    if (d->nseg < PATH_SEGS) {
        d->path[d->nseg].key = key;
        d->path[d->nseg].klen = klen;
        d->path[d->nseg].idx = idx;
    }
    d->nseg++;
}

static inline void push_key(struct jdec *d, enum key_id k)
{
    push(d, otlp_json_key_names[k], strlen(otlp_json_key_names[k]), 0);
}

static inline int fail_at(struct jdec *d, size_t pos, const char *msg)
{
    d->err_msg = msg;
    d->err_pos = pos;
    return -EBADMSG;
}

/* At the cursor: where the checking walk stands (the visiting walk cannot
 * fail but for a decoder bug, and then the position is of no use). */
static inline int fail(struct jdec *d, const char *msg)
{
    return fail_at(d, d->pos, msg);
}

static inline bool is_ws(char c)
{
    return c == ' ' || c == '\n' || c == '\r' || c == '\t';
}

static inline void skip_ws(struct jdec *d)
{
    while (d->pos < d->len && is_ws(d->text[d->pos]))
        d->pos++;
}

/* ---- otlp_json_text.c ---- */

/* Offset past the closing quote of the string whose opening quote is at q
 * in b[0..len); len + 1 if the string does not close. */
size_t otlp_json_string_end(const char *b, size_t len, size_t q);

/* Offset past the number or literal token of b at i (at most end). */
size_t otlp_json_token_end(const char *b, size_t end, size_t i);

/* Moves d's cursor past the JSON value at it, counting brackets. */
void otlp_json_skip_value(struct jdec *d);

/* Before jansson: 0, or -EBADMSG with d's error set if the text is not an
 * object, nests deeper than JSON_DEPTH_MAX or would make too big a tree;
 * sets d->top. */
int otlp_json_check_text(struct jdec *d);

/* jansson's tree of d's text into *root (the caller owns it, json_decref):
 * 0, -EBADMSG with d's error and path set, or -ENOMEM. */
int otlp_json_parse(struct jdec *d, json_t **root);

/* Writes d's error as "<prefix><path>: <what> (line L, column C)" into
 * err[0..errlen). */
void otlp_json_format_error(const struct jdec *d, const char *prefix, char *err, size_t errlen);

/* ---- otlp_json_read.c ---- */

/* Next member of obj whose key is in mask: 1 (it->val, it->k, the key on
 * the path), 0 at the end, or a negative errno with d's error set. */
int otlp_json_next_member(struct jdec *d, struct iter *it, json_t *obj, uint64_t mask);

/* Next element of arr: 1 (it->val, its index on the path), 0 at the end,
 * or a negative errno; more than max elements fails with too_many. */
int otlp_json_next_elem(struct jdec *d, struct iter *it, json_t *arr, size_t max,
                        const char *too_many);

/* Visiting walk: fn walks val, the value of key k (on the path meanwhile);
 * fn's result. */
int otlp_json_revisit(struct jdec *d, enum key_id k, int (*fn)(struct jdec *, json_t *),
                      json_t *val);

/* A string into *out (NULL: checked only), pointing into the request buffer
 * in the visiting walk; 0 or a negative errno. */
int otlp_json_get_str(struct jdec *d, json_t *val, struct fsc_otlp_str *out);

/* A number into *out as kind says ('u' uint64_t, 'i' int64_t, 'd' double,
 * 'e' int32_t enum); 0 or a negative errno (-ENOMEM from the tree). */
int otlp_json_read_num(struct jdec *d, json_t *val, int kind, void *out);

/* A uint32 (as 'u', range-checked) into *out; 0 or a negative errno. */
int otlp_json_read_u32(struct jdec *d, json_t *val, uint32_t *out);

/* true or false into *out; 0 or -EBADMSG. */
int otlp_json_read_bool(struct jdec *d, json_t *val, bool *out);

/* An array of at most FSC_OTLP_BUCKETS_MAX numbers of kind ('u' or 'd')
 * into out[], their number into *count; 0 or a negative errno. */
int otlp_json_get_numbers(struct jdec *d, json_t *arr, int kind, void *out, uint32_t *count);

#endif
