/* OTLP/JSON decoder, what the walks read (otlp_json.c has the design and
 * its decisions, otlp_json_int.h what the files share): the text's bounds
 * and jansson's parse, an object's known members, the scalars and the
 * error sentence.
 *
 * Scalars (protobuf's JSON mapping, as otlp_json.c decides it):
 * - uint64 / int64 / uint32: a JSON string of decimal digits,
 *   `0|[1-9][0-9]*` with '-' in front for the signed ones, read here digit
 *   by digit (overflow refused); or a JSON number without fraction or
 *   exponent that jansson holds exactly (its json_integer, int64).
 * - Doubles: any JSON number, or a string holding one (RFC 8259 grammar,
 *   read with strtod: LC_NUMERIC must be "C", the default) or "NaN",
 *   "Infinity", "-Infinity"; beyond a double's range is refused.
 * - Enums: a JSON integer in int32 range (no strings). Bools: true, false. */
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sources/otlp/decode/otlp_json_int.h"

/* Bytes the tree may take, as check_text counts them. OTLP/JSON as
 * exporters write it takes about 12 bytes of tree per byte of text, so this
 * admits ~10 MiB of such JSON per request; larger batches belong in
 * protobuf (decoded without a tree). Several requests may parse at once (one
 * per HTTP connection thread): a bound per request that is a fraction of a
 * collector's memory, not its whole. */
#define JSON_TREE_MAX ((size_t)128 << 20) /* the refusal below names it */

/* clang-format off */
const char *const otlp_json_key_names[K_IDS] = {
    "resourceMetrics", "resource", "scopeMetrics", "metrics", "attributes", "name", "unit",
    "gauge", "sum", "histogram", "exponentialHistogram", "summary", "dataPoints",
    "aggregationTemporality", "isMonotonic", "key", "value", "stringValue", "boolValue",
    "intValue", "doubleValue", "arrayValue", "kvlistValue", "bytesValue", "values",
    "startTimeUnixNano", "timeUnixNano", "asDouble", "asInt", "flags", "count", "bucketCounts",
    "explicitBounds", "min", "max",
};

/* The proto field names, where they differ from the camelCase ones. */
static const char *const snake_names[K_IDS] = {
    [K_RESOURCE_METRICS] = "resource_metrics", [K_SCOPE_METRICS] = "scope_metrics",
    [K_EXP_HISTOGRAM] = "exponential_histogram", [K_DATA_POINTS] = "data_points",
    [K_TEMPORALITY] = "aggregation_temporality", [K_MONOTONIC] = "is_monotonic",
    [K_STRING_VALUE] = "string_value", [K_BOOL_VALUE] = "bool_value",
    [K_INT_VALUE] = "int_value", [K_DOUBLE_VALUE] = "double_value",
    [K_ARRAY_VALUE] = "array_value", [K_KVLIST_VALUE] = "kvlist_value",
    [K_BYTES_VALUE] = "bytes_value", [K_START_TIME] = "start_time_unix_nano",
    [K_TIME] = "time_unix_nano", [K_AS_DOUBLE] = "as_double", [K_AS_INT] = "as_int",
    [K_BUCKET_COUNTS] = "bucket_counts", [K_EXPLICIT_BOUNDS] = "explicit_bounds",
};
/* clang-format on */

/* ---- before and during jansson's parse ------------------------------------------------- */

static bool is_ws(char c)
{
    return c == ' ' || c == '\n' || c == '\r' || c == '\t';
}

static bool is_number_char(char c)
{
    return (c >= '0' && c <= '9') || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E';
}

/* A text error at byte `at`: line and column counted as jansson counts them
 * (1-based; the column in characters, UTF-8 continuation bytes not counted). */
static int fail_text(struct jdec *d, const char *b, size_t at, const char *msg)
{
    unsigned line = 1, col = 1;
    for (size_t i = 0; i < at; i++) {
        if (b[i] == '\n') {
            line++;
            col = 1;
        } else if (((unsigned char)b[i] & 0xc0) != 0x80) {
            col++;
        }
    }
    otlp_json_fail(d, msg);
    d->line = line;
    d->col = col;
    return -EBADMSG;
}

/* Offset past the closing quote of the string whose opening quote is at q
 * (the first '"' after an even run of backslashes); len if it does not close. */
static size_t string_end(const char *b, size_t len, size_t q)
{
    for (size_t i = q + 1; i < len;) {
        const char *p = memchr(b + i, '"', len - i);
        if (!p)
            break;
        size_t k = (size_t)(p - b), s = k;
        while (s > q + 1 && b[s - 1] == '\\')
            s--;
        if ((k - s) % 2 == 0)
            return k + 1;
        i = k + 1;
    }
    return len;
}

/* One scan of the text before jansson sees it: the top level is an object,
 * nested at most JSON_DEPTH_MAX deep, and the tree jansson would build takes
 * at most JSON_TREE_MAX bytes. jansson's own depth bound is 2048 (compiled
 * in; its parser recurses once per level) and its tree takes up to ~80
 * times the text ("{}," is 3 bytes of text and 232 of tree), while the
 * text of a gzip'd body may be a thousand times its bytes on the wire. The
 * sizes are jansson 2.14's on 64-bit glibc, measured: an object 232 bytes
 * with its first hash buckets, an array 136, a string 88 plus its bytes (a
 * key is less: counted as a string), a number 40; true, false and null are
 * shared. On text that is not JSON the counts are wrong and jansson says
 * why: up to where jansson stops, the text is valid and counted right. */
static int check_text(struct jdec *d, const char *b, size_t len)
{
    size_t i = 0, tree = 0;
    unsigned depth = 0;
    while (i < len && is_ws(b[i]))
        i++;
    if (i == len)
        return fail_text(d, b, len, "empty document");
    if (b[i] != '{')
        return fail_text(d, b, i, "expected an object (ExportMetricsServiceRequest)");
    for (; i < len; i++) {
        char c = b[i];
        if (c == '"') {
            size_t e = string_end(b, len, i);
            tree += 88 + (e - i);
            i = e - 1;
        } else if (c == '{' || c == '[') {
            if (++depth > JSON_DEPTH_MAX)
                return fail_text(d, b, i, "nesting deeper than 128 levels");
            tree += c == '{' ? 232 : 136;
        } else if (c == '}' || c == ']') {
            depth -= depth > 0;
        } else if ((c >= '0' && c <= '9') || c == '-') {
            tree += 40;
            while (i + 1 < len && is_number_char(b[i + 1]))
                i++;
        }
    }
    if (tree > JSON_TREE_MAX)
        return fail_text(d, b, 0,
                         "the document would take more than 128 MiB to decode (send large "
                         "batches as protobuf)");
    return 0;
}

/* Whether jansson's refusal is an allocation failure: it reports one with
 * no sentence, or, when it could not store a string it had read whole, as
 * a syntax error about that token (the text before the position it gives
 * ends with the string's closing quote; no invalid token ends so). */
static bool out_of_memory(const json_error_t *e, const char *text, size_t len)
{
    if (e->text[0] == '\0' || json_error_code(e) == json_error_out_of_memory)
        return true;
    if (json_error_code(e) != json_error_invalid_syntax || e->position <= 0 ||
        (size_t)e->position > len || text[e->position - 1] != '"')
        return false;
    return strncmp(e->text, "invalid token", 13) == 0 ||
           strncmp(e->text, "string or '}' expected", 22) == 0;
}

int otlp_json_load(struct jdec *d, const char *text, size_t len, json_t **root)
{
    /* repeated keys refused (last-wins would guess); \u0000 allowed in strings */
    const size_t flags = JSON_REJECT_DUPLICATES | JSON_ALLOW_NUL;
    json_error_t e;
    int rc = check_text(d, text, len);
    if (rc < 0)
        return rc;
    *root = json_loadb(text, len, flags, &e);
    if (!*root && json_error_code(&e) == json_error_numeric_overflow &&
        strncmp(e.text, "too big", 7) == 0) {
        /* an integer beyond int64: again, every integer a double (otlp_json.c) */
        d->ints_as_reals = true;
        *root = json_loadb(text, len, flags | JSON_DECODE_INT_AS_REAL, &e);
    }
    if (*root)
        return 0;
    if (out_of_memory(&e, text, len))
        return -ENOMEM;
    snprintf(d->jmsg, sizeof(d->jmsg), "invalid JSON: %s", e.text);
    otlp_json_fail(d, d->jmsg);
    d->line = e.line > 0 ? (unsigned)e.line : 0;
    d->col = e.column > 0 ? (unsigned)e.column : 0;
    return -EBADMSG;
}

/* ---- an object's members ------------------------------------------------------------ */

static enum key_id classify(const char *key, uint64_t mask)
{
    for (uint64_t m = mask; m; m &= m - 1) {
        int k = __builtin_ctzll(m);
        if (strcmp(key, otlp_json_key_names[k]) == 0 ||
            (snake_names[k] && strcmp(key, snake_names[k]) == 0))
            return (enum key_id)k;
    }
    return K_IDS;
}

int otlp_json_members(struct jdec *d, json_t *obj, uint64_t mask, uint64_t oneof,
                      const char *oneof_msg, json_t **vals)
{
    uint64_t seen = 0, set = 0;
    if (!json_is_object(obj))
        return otlp_json_fail(d, "expected an object");
    memset(vals, 0, K_IDS * sizeof(*vals));
    for (void *it = json_object_iter(obj); it; it = json_object_iter_next(obj, it)) {
        json_t *val = json_object_iter_value(it);
        enum key_id k = classify(json_object_iter_key(it), mask);
        if (k == K_IDS)
            continue;
        /* both spellings of one key (jansson refuses one spelling twice) */
        if (seen & BIT(k))
            return otlp_json_in_key(d, k, otlp_json_fail(d, "duplicate key"));
        seen |= BIT(k);
        if (json_is_null(val))
            continue; /* null = absent (protobuf JSON mapping) */
        if ((BIT(k) & oneof) && (set & oneof))
            return otlp_json_in_key(d, k, otlp_json_fail(d, oneof_msg));
        set |= BIT(k);
        vals[k] = val;
    }
    return 0;
}

/* ---- scalars ----------------------------------------------------------------------------- */

#define MSG_U64  "expected an unsigned integer (a number without fraction or exponent, or a string)"
#define MSG_I64  "expected an integer (a number without fraction or exponent, or a string)"
#define MSG_DBL  "expected a number (or a string: a number, NaN, Infinity or -Infinity)"
#define MSG_ENUM "expected an integer enum value"
#define MSG_BIG                                                                                    \
    "bare JSON number above 9223372036854775807: send uint64 values as strings (protobuf JSON "    \
    "mapping)"
#define MSG_INEXACT                                                                                \
    "bare JSON number of 2^53 or more in a request holding one beyond int64: send 64-bit "         \
    "integers as strings"

int otlp_json_str(struct jdec *d, json_t *val, struct fsc_otlp_str *out)
{
    if (!json_is_string(val))
        return otlp_json_fail(d, "expected a string");
    /* under 4 GiB: the tree bound keeps every string under 128 MiB */
    out->p = json_string_value(val);
    out->len = (uint32_t)json_string_length(val);
    return 0;
}

int otlp_json_bool(struct jdec *d, json_t *val, bool *out)
{
    if (!json_is_boolean(val))
        return otlp_json_fail(d, "expected true or false");
    *out = json_is_true(val);
    return 0;
}

/* `0|[1-9][0-9]*` into *out: -EINVAL if it is not that, -ERANGE above
 * UINT64_MAX. */
static int parse_u64(const char *p, size_t len, uint64_t *out)
{
    uint64_t v = 0;
    if (len == 0 || (p[0] == '0' && len > 1))
        return -EINVAL;
    for (size_t i = 0; i < len; i++) {
        if (p[i] < '0' || p[i] > '9')
            return -EINVAL;
        unsigned dg = (unsigned)(p[i] - '0');
        if (v > (UINT64_MAX - dg) / 10)
            return -ERANGE;
        v = v * 10 + dg;
    }
    *out = v;
    return 0;
}

/* A JSON number jansson holds as a double, in an integer field: it had a
 * fraction or exponent, or the tree holds every integer as a double
 * (d->ints_as_reals): then one of magnitude below 2^53 is exact, and a
 * larger one is refused (its digits may be lost). 0 with the value in *x. */
static int integral_real(struct jdec *d, json_t *val, bool is_unsigned, const char *msg, double *x)
{
    double v = json_real_value(val);
    if (!d->ints_as_reals || v != floor(v) || (is_unsigned && v < 0))
        return otlp_json_fail(d, msg);
    if (is_unsigned && v >= 0x1p63)
        return otlp_json_fail(d, MSG_BIG);
    if (fabs(v) >= 0x1p53) /* 2^53 + 1 rounds to 2^53 */
        return otlp_json_fail(d, MSG_INEXACT);
    *x = v;
    return 0;
}

int otlp_json_u64(struct jdec *d, json_t *val, uint64_t *out)
{
    double x;
    int rc;
    if (json_is_integer(val)) {
        if (json_integer_value(val) < 0)
            return otlp_json_fail(d, MSG_U64);
        *out = (uint64_t)json_integer_value(val);
    } else if (json_is_string(val)) {
        rc = parse_u64(json_string_value(val), json_string_length(val), out);
        if (rc < 0)
            return otlp_json_fail(d, rc == -ERANGE ? "number out of range" : MSG_U64);
    } else if (json_is_real(val)) {
        if ((rc = integral_real(d, val, true, MSG_U64, &x)) < 0)
            return rc;
        *out = (uint64_t)x;
    } else {
        return otlp_json_fail(d, MSG_U64);
    }
    return 0;
}

int otlp_json_i64(struct jdec *d, json_t *val, int64_t *out)
{
    double x;
    int rc;
    if (json_is_integer(val)) {
        *out = json_integer_value(val);
    } else if (json_is_string(val)) {
        const char *p = json_string_value(val);
        bool neg = p[0] == '-';
        uint64_t mag = 0;
        rc = parse_u64(p + neg, json_string_length(val) - neg, &mag);
        /* -9223372036854775808 has no positive counterpart */
        if (rc == 0 && mag > (uint64_t)INT64_MAX + neg)
            rc = -ERANGE;
        if (rc < 0)
            return otlp_json_fail(d, rc == -ERANGE ? "number out of range" : MSG_I64);
        *out = neg ? (int64_t)(0 - mag) : (int64_t)mag;
    } else if (json_is_real(val)) {
        if ((rc = integral_real(d, val, false, MSG_I64, &x)) < 0)
            return rc;
        *out = (int64_t)x;
    } else {
        return otlp_json_fail(d, MSG_I64);
    }
    return 0;
}

int otlp_json_u32(struct jdec *d, json_t *val, uint32_t *out)
{
    uint64_t v = 0;
    int rc = otlp_json_u64(d, val, &v);
    if (rc == 0 && v > UINT32_MAX)
        return otlp_json_fail(d, "number out of range");
    *out = (uint32_t)v;
    return rc;
}

int otlp_json_enum(struct jdec *d, json_t *val, int32_t *out)
{
    double x;
    int64_t v;
    int rc;
    if (json_is_integer(val)) {
        v = json_integer_value(val);
    } else if (json_is_real(val)) {
        if ((rc = integral_real(d, val, false, MSG_ENUM, &x)) < 0)
            return rc;
        v = (int64_t)x;
    } else {
        return otlp_json_fail(d, MSG_ENUM);
    }
    if (v < INT32_MIN || v > INT32_MAX)
        return otlp_json_fail(d, "number out of range");
    *out = (int32_t)v;
    return 0;
}

/* Whether p[0..len) is one JSON number (RFC 8259): the strings read as
 * doubles hold one. */
static bool is_number(const char *p, size_t len)
{
    size_t i = p[0] == '-', j;
    if (i < len && p[i] == '0') {
        i++;
    } else {
        for (j = i; i < len && p[i] >= '0' && p[i] <= '9'; i++)
            ;
        if (i == j)
            return false;
    }
    if (i < len && p[i] == '.') {
        for (j = ++i; i < len && p[i] >= '0' && p[i] <= '9'; i++)
            ;
        if (i == j)
            return false;
    }
    if (i < len && (p[i] == 'e' || p[i] == 'E')) {
        i++;
        i += i < len && (p[i] == '+' || p[i] == '-');
        for (j = i; i < len && p[i] >= '0' && p[i] <= '9'; i++)
            ;
        if (i == j)
            return false;
    }
    return i == len;
}

int otlp_json_double(struct jdec *d, json_t *val, double *out)
{
    if (json_is_number(val)) {
        *out = json_number_value(val);
        return 0;
    }
    if (!json_is_string(val))
        return otlp_json_fail(d, MSG_DBL);
    const char *p = json_string_value(val); /* NUL-terminated; may hold a NUL before */
    size_t len = json_string_length(val);
    if (len == 3 && memcmp(p, "NaN", 3) == 0) {
        *out = NAN;
        return 0;
    }
    if ((len == 8 && memcmp(p, "Infinity", 8) == 0) ||
        (len == 9 && memcmp(p, "-Infinity", 9) == 0)) {
        *out = p[0] == '-' ? -INFINITY : INFINITY;
        return 0;
    }
    if (!is_number(p, len))
        return otlp_json_fail(d, MSG_DBL);
    errno = 0;
    *out = strtod(p, NULL);
    if (errno == ERANGE && isinf(*out))
        return otlp_json_fail(d, "number out of range");
    return 0;
}

/* ---- the sentence ------------------------------------------------------------------------ */

/* A deep path keeps its first and last steps, so the sentence stays short. */
void otlp_json_format_error(const struct jdec *d, const char *prefix, char *err, size_t errlen)
{
    enum { HEAD = 12, TAIL = 8 };
    char path[512], where[64] = "";
    size_t o = 0;
    path[0] = '\0';
    for (unsigned i = 0; i < d->nseg && o < sizeof(path); i++) {
        if (d->nseg > HEAD + TAIL && i >= HEAD && i < d->nseg - TAIL) {
            if (i == HEAD)
                o += (size_t)snprintf(path + o, sizeof(path) - o, "...");
            continue;
        }
        const struct seg *s = &d->path[d->nseg - 1 - i]; /* innermost first */
        int w = s->key ? snprintf(path + o, sizeof(path) - o, "%s%s", i ? "." : "", s->key)
                       : snprintf(path + o, sizeof(path) - o, "[%zu]", s->idx);
        o += w > 0 ? (size_t)w : 0;
    }
    if (d->line)
        snprintf(where, sizeof(where), " (line %u, column %u)", d->line, d->col);
    snprintf(err, errlen, "%s%s%s%s%s", prefix, path, path[0] ? ": " : "",
             d->err_msg ? d->err_msg : "malformed", where);
}
