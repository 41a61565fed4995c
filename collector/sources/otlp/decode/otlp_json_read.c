/* OTLP/JSON decoder, the walks' steps (otlp_json.c has the design and the
 * walks, otlp_json_int.h what the files share): an object's members and an
 * array's elements in document order, the checking walk's cursor moving
 * over the text beside them (step 3 of otlp_json.c), and the readers of
 * strings and numbers.
 *
 * Numbers:
 * - Integers are exact (no double round trip): a JSON number without
 *   fraction or exponent, or a string holding `-?(0|[1-9][0-9]*)` ('-' only
 *   for the signed forms), in range. The checking walk reads their digits
 *   from the text, so 64-bit fields are exact whatever jansson made of them
 *   (above INT64_MAX, "-0", 1.0 against 1); an integer the tree does not
 *   hold exactly is replaced in the tree by one holding its 64 bits (stash)
 *   for the visiting walk.
 * - Doubles: any JSON number (jansson's strtod), or a string holding one or
 *   "NaN", "Infinity", "-Infinity"; a magnitude beyond a double is out of
 *   range, a text over 127 bytes is refused (LC_NUMERIC must be "C", the
 *   default).
 * - Enums: a JSON integer in int32 range (no strings). Bools: true / false. */
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sources/otlp/decode/otlp_json_int.h"

#define NUM_TEXT_MAX 128 /* longest text read as a double */

/* clang-format off */
/* The snake_case proto spelling is derived (key_matches). */
const char *const otlp_json_key_names[K_IDS] = {
    "?", "resourceMetrics", "resource", "scopeMetrics", "metrics", "attributes", "name",
    "unit", "gauge", "sum", "histogram", "exponentialHistogram", "summary", "dataPoints",
    "aggregationTemporality", "isMonotonic", "key", "value", "stringValue", "boolValue",
    "intValue", "doubleValue", "arrayValue", "kvlistValue", "bytesValue", "values",
    "startTimeUnixNano", "timeUnixNano", "asDouble", "asInt", "flags", "count", "bucketCounts",
    "explicitBounds", "min", "max",
};
/* clang-format on */

/* The checking walk's cursor and jansson's tree went apart: a decoder bug. */
static int desync(struct jdec *d)
{
    return fail(d, "internal error: the text and the parsed tree disagree");
}

/* ---- walking the tree -------------------------------------------------------------------- */

/* The checking walk stands at the value (whitespace skipped); both walks:
 * it has the type. */
static int expect(struct jdec *d, json_t *val, json_type type, const char *msg)
{
    if (!d->visit)
        skip_ws(d);
    return json_typeof(val) == type ? 0 : fail(d, msg);
}

/* raw is camel itself or its snake_case form (fooBar -> foo_bar). */
static bool key_matches(const char *raw, size_t len, const char *camel)
{
    size_t i = 0;
    while (i < len && camel[i] != '\0' && camel[i] == raw[i])
        i++;
    if (camel[i] == '\0')
        return i == len;
    i = 0; /* snake_case: each capital of camel is '_' and its lower case */
    for (const char *c = camel; *c; c++) {
        if (*c >= 'A' && *c <= 'Z') {
            if (len - i < 2 || raw[i] != '_' || raw[i + 1] != *c - 'A' + 'a')
                return false;
            i += 2;
        } else if (i >= len || raw[i++] != *c) {
            return false;
        }
    }
    return i == len;
}

/* Which of the keys in mask the key (as jansson decoded it) is (K_UNKNOWN:
 * none). */
static enum key_id classify(const char *key, size_t len, uint64_t mask)
{
    for (uint64_t m = mask; m; m &= m - 1) {
        int k = __builtin_ctzll(m);
        if (key_matches(key, len, otlp_json_key_names[k]))
            return (enum key_id)k;
    }
    return K_UNKNOWN;
}

/* The next member of obj in document order (1) or the end (0); the checking
 * walk's cursor moves along (it stands after the ':', as errors about the
 * member as a whole point there). */
static int step_member(struct jdec *d, struct iter *it, json_t *obj)
{
    if (!d->visit) {
        skip_ws(d);
        if (d->pos < d->len && d->text[d->pos] == '}') {
            d->pos++;
            return it->n == json_object_size(obj) ? 0 : desync(d);
        }
        if (it->n > 0) { /* ',' */
            d->pos++;
            skip_ws(d);
        }
        it->key_at = d->pos;
        d->pos = otlp_json_string_end(d->text, d->len, d->pos);
        skip_ws(d);
        d->pos++; /* ':' */
    }
    it->it = it->n ? json_object_iter_next(obj, it->it) : json_object_iter(obj);
    if (!it->it)
        return d->visit ? 0 : desync(d);
    it->n++;
    it->val = json_object_iter_value(it->it);
    return 1;
}

/* Next member (1, it->val its value, key in it->k) or 0 at the end. Other
 * keys are skipped; a known key repeated is malformed; a null value is an
 * absent member. */
int otlp_json_next_member(struct jdec *d, struct iter *it, json_t *obj, uint64_t mask)
{
    int rc;
    if (!it->open) {
        it->open = true;
        if ((rc = expect(d, obj, JSON_OBJECT, "expected an object")) < 0)
            return rc;
        d->pos += !d->visit; /* '{' */
    }
    for (;;) {
        if (it->pushed)
            d->nseg--;
        it->pushed = false;
        if ((rc = step_member(d, it, obj)) <= 0)
            return rc;
        const char *key = json_object_iter_key(it->it); /* jansson refuses a NUL in keys */
        it->k = classify(key, strlen(key), mask);
        if (it->k == K_UNKNOWN) {
            if (!d->visit)
                otlp_json_skip_value(d);
            continue;
        }
        push_key(d, it->k);
        it->pushed = true;
        if (it->seen & BIT(it->k))
            return fail_at(d, it->key_at, "duplicate key");
        it->seen |= BIT(it->k);
        if (!json_is_null(it->val)) {
            d->slot_obj = obj;
            d->slot_iter = it->it;
            d->slot_arr = NULL;
            return 1;
        }
        if (!d->visit)
            otlp_json_skip_value(d);
    }
}

/* Next element (1, it->val, index it->n - 1 on the path) or 0 at the end;
 * more than max elements is malformed (too_many says so). */
int otlp_json_next_elem(struct jdec *d, struct iter *it, json_t *arr, size_t max,
                        const char *too_many)
{
    int rc;
    if (!it->open) {
        it->open = true;
        if ((rc = expect(d, arr, JSON_ARRAY, "expected an array")) < 0)
            return rc;
        d->pos += !d->visit; /* '[' */
    }
    if (it->pushed)
        d->nseg--;
    it->pushed = false;
    if (!d->visit) {
        skip_ws(d);
        if (d->pos < d->len && d->text[d->pos] == ']') {
            d->pos++;
            return it->n == json_array_size(arr) ? 0 : desync(d);
        }
        d->pos += it->n > 0; /* ',' */
    }
    if (it->n >= json_array_size(arr))
        return d->visit ? 0 : desync(d);
    it->val = json_array_get(arr, it->n);
    d->slot_obj = NULL;
    d->slot_arr = arr;
    d->slot_idx = it->n;
    it->n++;
    if (it->n > max)
        return fail(d, too_many);
    push(d, NULL, 0, it->n - 1);
    it->pushed = true;
    return 1;
}

/* Visiting walk: walks the value val of key k with fn. */
int otlp_json_revisit(struct jdec *d, enum key_id k, int (*fn)(struct jdec *, json_t *),
                      json_t *val)
{
    push_key(d, k);
    int rc = fn(d, val);
    if (rc < 0)
        return rc;
    d->nseg--;
    return 0;
}

/* ---- scalars ------------------------------------------------------------------------- */

/* A string for the visitor (out NULL: checked only), copied into the
 * request buffer in the visiting walk. */
int otlp_json_get_str(struct jdec *d, json_t *val, struct fsc_otlp_str *out)
{
    int rc = expect(d, val, JSON_STRING, "expected a string");
    if (rc < 0)
        return rc;
    size_t n = json_string_length(val);
    if (n > UINT32_MAX)
        return fail(d, "string longer than 4 GiB");
    if (!d->visit) {
        d->pos = otlp_json_string_end(d->text, d->len, d->pos);
        return 0;
    }
    if (out) {
        if (n > d->len - d->out_len) /* cannot happen: see otlp_json.c, step 4 */
            return fail(d, "internal error: decoded strings longer than the text");
        memcpy(d->out + d->out_len, json_string_value(val), n);
        out->p = d->out + d->out_len;
        out->len = (uint32_t)n;
        d->out_len += n;
    }
    return 0;
}

/* `0|[1-9][0-9]*` into *out: -EINVAL if it is not that, -ERANGE if above
 * UINT64_MAX. */
static int parse_u64(const char *p, size_t len, uint64_t *out)
{
    if (len == 0 || (p[0] == '0' && len > 1))
        return -EINVAL;
    for (size_t i = 0; i < len; i++)
        if (p[i] < '0' || p[i] > '9')
            return -EINVAL;
    uint64_t v = 0;
    for (size_t i = 0; i < len; i++) {
        unsigned dg = (unsigned)(p[i] - '0');
        if (v > (UINT64_MAX - dg) / 10)
            return -ERANGE;
        v = v * 10 + dg;
    }
    *out = v;
    return 0;
}

static int parse_i64(const char *p, size_t len, int64_t *out)
{
    bool neg = len > 0 && p[0] == '-';
    uint64_t mag;
    int rc = parse_u64(p + neg, len - neg, &mag);
    if (rc < 0)
        return rc;
    /* exact: -9223372036854775808 has no positive counterpart */
    if (mag > (uint64_t)INT64_MAX + (neg ? 1u : 0u))
        return -ERANGE;
    *out = neg ? (int64_t)(0 - mag) : (int64_t)mag;
    return 0;
}

static size_t digits(const char *p, size_t i, size_t len)
{
    while (i < len && p[i] >= '0' && p[i] <= '9')
        i++;
    return i;
}

/* Whether p[0..len) is exactly one JSON number (RFC 8259 grammar): for the
 * numbers inside strings, which jansson does not look into. */
static bool is_number(const char *p, size_t len)
{
    size_t i = 0, j;
    if (i < len && p[i] == '-')
        i++;
    if (i < len && p[i] == '0')
        i++;
    else if ((j = digits(p, i, len)) > i)
        i = j;
    else
        return false;
    if (i < len && p[i] == '.') {
        if ((j = digits(p, i + 1, len)) == i + 1)
            return false;
        i = j;
    }
    if (i < len && (p[i] == 'e' || p[i] == 'E')) {
        i++;
        if (i < len && (p[i] == '+' || p[i] == '-'))
            i++;
        if ((j = digits(p, i, len)) == i)
            return false;
        i = j;
    }
    return i == len;
}

/* A double in a string: a JSON number, NaN, Infinity or -Infinity. */
static int parse_double(const char *p, size_t len, double *out)
{
    if (len == 3 && memcmp(p, "NaN", 3) == 0) {
        *out = NAN;
        return 0;
    }
    if (len == 8 && memcmp(p, "Infinity", 8) == 0) {
        *out = INFINITY;
        return 0;
    }
    if (len == 9 && memcmp(p, "-Infinity", 9) == 0) {
        *out = -INFINITY;
        return 0;
    }
    if (len >= NUM_TEXT_MAX || !is_number(p, len))
        return -EINVAL;
    char text[NUM_TEXT_MAX]; /* strtod needs a terminator; jansson's string may hold a NUL */
    memcpy(text, p, len);
    text[len] = '\0';
    errno = 0;
    double v = strtod(text, NULL);
    if (errno == ERANGE && isinf(v))
        return -ERANGE;
    *out = v;
    return 0;
}

/* The checking walk read an integer from the text; the visiting walk reads
 * it from the tree, which must therefore hold it exactly: if it does not
 * (above INT64_MAX, or parsed as a double), the value in its slot is
 * replaced by an integer holding the 64 bits. */
static int stash(struct jdec *d, json_t *val, json_int_t bits)
{
    if (json_is_integer(val) && json_integer_value(val) == bits)
        return 0;
    json_t *n = json_integer(bits);
    if (!n)
        return -ENOMEM;
    int rc = d->slot_arr ? json_array_set_new(d->slot_arr, d->slot_idx, n)
                         : json_object_iter_set_new(d->slot_obj, d->slot_iter, n);
    return rc == 0 ? 0 : -ENOMEM;
}

#define MSG_U64  "expected an unsigned integer (a number without fraction or exponent, or a string)"
#define MSG_I64  "expected an integer (a number without fraction or exponent, or a string)"
#define MSG_DBL  "expected a number (or a string: a number, NaN, Infinity or -Infinity)"
#define MSG_ENUM "expected an integer enum value"

/* kind: 'u' u64, 'i' i64, 'd' double, 'e' enum (a JSON integer, int32).
 * Integers: from the text (checking walk) or the tree (visiting walk; the
 * checking walk made it exact). Doubles: jansson's for a number, parsed
 * from a string. A string's content is the tree's (escapes decoded).
 * Errors point at the number, or at a string's first content byte. */
int otlp_json_read_num(struct jdec *d, json_t *val, int kind, void *out)
{
    const char *msg = kind == 'u'   ? MSG_U64
                      : kind == 'i' ? MSG_I64
                      : kind == 'd' ? MSG_DBL
                                    : MSG_ENUM;
    if (!d->visit)
        skip_ws(d);
    size_t at = d->pos;
    const char *p;
    size_t len;
    bool str = json_is_string(val) && kind != 'e';
    if (str) {
        p = json_string_value(val);
        len = json_string_length(val);
        if (!d->visit)
            d->pos = otlp_json_string_end(d->text, d->len, at);
        at++;
    } else if (json_is_number(val)) {
        if (kind == 'd') {
            if (!d->visit)
                d->pos = otlp_json_token_end(d->text, d->len, at);
            if (d->pos - at >= NUM_TEXT_MAX)
                return fail_at(d, at, msg);
            *(double *)out = json_number_value(val);
            return 0;
        }
        if (d->visit) { /* the checking walk left an exact integer */
            json_int_t v = json_integer_value(val);
            if (kind == 'u')
                *(uint64_t *)out = (uint64_t)v;
            else if (kind == 'i')
                *(int64_t *)out = v;
            else
                *(int32_t *)out = (int32_t)v;
            return json_is_integer(val) ? 0 : fail(d, "internal error: an inexact integer");
        }
        p = d->text + at;
        d->pos = otlp_json_token_end(d->text, d->len, at);
        len = d->pos - at;
    } else {
        return fail_at(d, at, msg);
    }
    int64_t e = 0;
    int rc;
    if (kind == 'u')
        rc = parse_u64(p, len, out);
    else if (kind == 'i')
        rc = parse_i64(p, len, out);
    else if (kind == 'd')
        rc = parse_double(p, len, out);
    else if ((rc = parse_i64(p, len, &e)) == 0 && (e < INT32_MIN || e > INT32_MAX))
        rc = -ERANGE;
    else
        *(int32_t *)out = (int32_t)e;
    if (rc < 0)
        return fail_at(d, at, rc == -ERANGE ? "number out of range" : msg);
    if (str || d->visit)
        return 0;
    const uint64_t *u = out;
    const int64_t *v = out;
    json_int_t bits = kind == 'u' ? (json_int_t)u[0] : kind == 'i' ? v[0] : e;
    return stash(d, val, bits);
}

int otlp_json_read_u32(struct jdec *d, json_t *val, uint32_t *out)
{
    if (!d->visit)
        skip_ws(d);
    size_t at = d->pos;
    uint64_t v = 0;
    int rc = otlp_json_read_num(d, val, 'u', &v);
    if (rc == 0 && v > UINT32_MAX)
        return fail_at(d, at, "number out of range");
    *out = (uint32_t)v;
    return rc;
}

int otlp_json_read_bool(struct jdec *d, json_t *val, bool *out)
{
    if (!d->visit)
        skip_ws(d);
    if (!json_is_boolean(val))
        return fail(d, "expected true or false");
    *out = json_is_true(val);
    if (!d->visit)
        d->pos = otlp_json_token_end(d->text, d->len, d->pos);
    return 0;
}

/* bucketCounts ('u') or explicitBounds ('d') into the scratch. */
int otlp_json_get_numbers(struct jdec *d, json_t *arr, int kind, void *out, uint32_t *count)
{
    struct iter it = {0};
    int rc;
    while ((rc = otlp_json_next_elem(d, &it, arr, FSC_OTLP_BUCKETS_MAX, "more than 512 entries")) >
           0) {
        void *slot =
            kind == 'd' ? (void *)((double *)out + it.n - 1) : (void *)((uint64_t *)out + it.n - 1);
        if ((rc = otlp_json_read_num(d, it.val, kind, slot)) < 0)
            return rc;
    }
    *count = (uint32_t)it.n;
    return rc;
}
