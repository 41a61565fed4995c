/* OTLP/JSON decoder (otlp_point.h): ExportMetricsServiceRequest text ->
 * visitor calls, parsed by jansson.
 *
 * Every step below may refuse the request; a refused request got no
 * callback, and its buffer is left as it came.
 *  1. Before jansson: the top level must be an object, and one scan of the
 *     brackets outside strings bounds the nesting to 128 levels and the tree
 *     jansson would build to JSON_TREE_MAX bytes (check_text). jansson's
 *     own depth bound is 2048, compiled in, and its parser recurses once per
 *     level; the tree it builds takes up to ~80 times the text ("{}," is 3
 *     bytes of text and 232 of tree), and the text of a gzip'd body may be
 *     a thousand times its bytes on the wire.
 *  2. jansson parses the text (json_loadb): RFC 8259 syntax, UTF-8 (no
 *     overlongs, surrogates or code points above U+10FFFF), escapes and
 *     surrogate pairs, and any key repeated in an object is refused
 *     (JSON_REJECT_DUPLICATES); \u0000 is allowed in strings (JSON_ALLOW_NUL;
 *     jansson refuses it in keys). jansson holds integers as long long and
 *     refuses others ("too big integer"), but OTLP/JSON sends uint64 as
 *     numbers too: such a text is parsed again with JSON_DECODE_INT_AS_REAL,
 *     and the exact integers come from the text (step 3). Its errors become
 *     the decoder's sentences (parse_fail), placed by a scan of the text
 *     before the error (scan_to), which also gives the path of keys (as
 *     written) and indexes that leads there.
 *  3. The checking walk goes through the tree in document order (jansson
 *     keeps an object's members in insertion order, and with duplicates
 *     refused its tree holds every member of the text) with a cursor over
 *     the text beside it. The text is known valid, so the cursor only skips
 *     whitespace, strings and brackets. It gives each error its line and
 *     column (the tree holds no positions) and each integer its digits, so
 *     64-bit fields are exact whatever jansson made of them (above
 *     INT64_MAX, "-0", 1.0 against 1); an integer the tree does not hold
 *     exactly is replaced in the tree by one holding its 64 bits (stash).
 *     This walk checks the shape and types of every key it knows and the
 *     bounds, and calls nothing.
 *  4. The visiting walk goes through the tree alone, with the same code,
 *     and calls the visitor in the order it wants: a resource before its
 *     metrics, a metric's name, unit and temporality before its points,
 *     wherever those keys sit. It cannot meet an error the checking walk did
 *     not. Strings handed to the visitor are copied from the tree into the
 *     request buffer, front to back: the text is no longer needed, and the
 *     strings, each copied once, are never longer than their text.
 *
 * Decisions:
 * - A duplicate key the decoder uses (camelCase and snake_case spellings are
 *   the same key) is malformed, as is more than one member of a oneof (two
 *   data containers in a Metric, asDouble and asInt, two AnyValue kinds).
 *   Last-wins would make the result depend on which duplicate a sender meant.
 *   jansson refuses a repeated spelling in any object, unknown ones included.
 * - A known key whose value is null counts as absent (protobuf JSON mapping).
 * - Keys the decoder does not use (description, metadata, scope, schemaUrl,
 *   exemplars, quantileValues, the exponential buckets, ...) are skipped like
 *   unknown keys: only their JSON syntax is checked (by jansson; a number
 *   beyond a double's range is refused there too). min and max are checked
 *   as doubles but not delivered.
 * - Integers are exact (no double round trip): a JSON number without
 *   fraction or exponent, or a string holding `-?(0|[1-9][0-9]*)` ('-' only
 *   for the signed forms), in range. Doubles: any JSON number (jansson's
 *   strtod), or a string holding one or "NaN", "Infinity", "-Infinity"; a
 *   magnitude beyond a double is out of range, a text over 127 bytes is
 *   refused (LC_NUMERIC must be "C", the default). Enums: a JSON integer in
 *   int32 range (no strings). Bools: true / false.
 * - aggregationTemporality must be an integer; values other than 1 and 2 are
 *   delivered as UNSPECIFIED (open enum: the ingest decides).
 * - has_sum is true when a sum key was present (also for Summary points).
 * - Nesting: an attribute's own value is level 0; each arrayValue or
 *   kvlistValue inside goes one deeper; the 17th is malformed. JSON nesting
 *   beyond 128 is malformed anywhere, unknown keys included (step 1, so a
 *   document too deep for both bounds gets this one).
 * - bucketCounts and explicitBounds: at most 512 entries each; their
 *   relation (buckets = bounds + 1) is the ingest's to judge.
 * - Errors of the checking walk name the path of known keys (camelCase);
 *   syntax errors name the keys as the text spells them. */
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sources/otlp/otlp_point.h"

/* clang-format off */
enum key_id {
    K_UNKNOWN, K_RESOURCE_METRICS, K_RESOURCE, K_SCOPE_METRICS, K_METRICS, K_ATTRIBUTES, K_NAME,
    K_UNIT, K_GAUGE, K_SUM, K_HISTOGRAM, K_EXP_HISTOGRAM, K_SUMMARY, K_DATA_POINTS, K_TEMPORALITY,
    K_MONOTONIC, K_KEY, K_VALUE, K_STRING_VALUE, K_BOOL_VALUE, K_INT_VALUE, K_DOUBLE_VALUE,
    K_ARRAY_VALUE, K_KVLIST_VALUE, K_BYTES_VALUE, K_VALUES, K_START_TIME, K_TIME, K_AS_DOUBLE,
    K_AS_INT, K_FLAGS, K_COUNT, K_BUCKET_COUNTS, K_EXPLICIT_BOUNDS, K_MIN, K_MAX, K_IDS
};

/* lowerCamelCase names, in enum order; the snake_case proto spelling is
 * derived (key_matches). Also the names shown in error paths. */
static const char *const key_names[K_IDS] = {
    "?", "resourceMetrics", "resource", "scopeMetrics", "metrics", "attributes", "name",
    "unit", "gauge", "sum", "histogram", "exponentialHistogram", "summary", "dataPoints",
    "aggregationTemporality", "isMonotonic", "key", "value", "stringValue", "boolValue",
    "intValue", "doubleValue", "arrayValue", "kvlistValue", "bytesValue", "values",
    "startTimeUnixNano", "timeUnixNano", "asDouble", "asInt", "flags", "count", "bucketCounts",
    "explicitBounds", "min", "max",
};
/* clang-format on */

#define BIT(k) (1ull << (k))
#define CONTAINERS                                                                                 \
    (BIT(K_GAUGE) | BIT(K_SUM) | BIT(K_HISTOGRAM) | BIT(K_EXP_HISTOGRAM) | BIT(K_SUMMARY))
#define ANY_VALUES                                                                                 \
    (BIT(K_STRING_VALUE) | BIT(K_BOOL_VALUE) | BIT(K_INT_VALUE) | BIT(K_DOUBLE_VALUE) |            \
     BIT(K_ARRAY_VALUE) | BIT(K_KVLIST_VALUE) | BIT(K_BYTES_VALUE))
#define NUMBER_VALUES (BIT(K_AS_DOUBLE) | BIT(K_AS_INT))

#define JSON_DEPTH_MAX 128 /* object/array nesting; deeper is malformed */
#define NUM_TEXT_MAX   128 /* longest text read as a double */
/* Bytes the tree may take, as check_text counts them. OTLP/JSON as
 * exporters write it takes about 12 bytes of tree per byte of text, so this
 * admits ~10 MiB of such JSON per request; larger batches belong in
 * protobuf (32 MiB by default, decoded without a tree). Several requests
 * may parse at once (one per HTTP connection thread): a bound per request
 * that is a fraction of a collector's memory, not its whole. */
#define JSON_TREE_MAX ((size_t)128 << 20) /* the refusal below names it */
/* The deepest path: one step per open container (syntax errors), or the
 * schema's, ~12 + 4 per nested AnyValue level (the walks). */
#define PATH_SEGS    (JSON_DEPTH_MAX + 8)
#define PATH_KEY_MAX 64 /* bytes of a key as written shown in a path */

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

static void push(struct jdec *d, const char *key, size_t klen, size_t idx)
{
    if (d->nseg < PATH_SEGS) {
        d->path[d->nseg].key = key;
        d->path[d->nseg].klen = klen;
        d->path[d->nseg].idx = idx;
    }
    d->nseg++;
}

static void push_key(struct jdec *d, enum key_id k)
{
    push(d, key_names[k], strlen(key_names[k]), 0);
}

static int fail_at(struct jdec *d, size_t pos, const char *msg)
{
    d->err_msg = msg;
    d->err_pos = pos;
    return -EBADMSG;
}

/* At the cursor: where the checking walk stands (the visiting walk cannot
 * fail but for a decoder bug, and then the position is of no use). */
static int fail(struct jdec *d, const char *msg)
{
    return fail_at(d, d->pos, msg);
}

/* The checking walk's cursor and jansson's tree went apart: a decoder bug. */
static int desync(struct jdec *d)
{
    return fail(d, "internal error: the text and the parsed tree disagree");
}

/* ---- the text (valid JSON, or a prefix jansson read without complaint) ---------------- */

static bool is_ws(char c)
{
    return c == ' ' || c == '\n' || c == '\r' || c == '\t';
}

/* A byte that ends a number or literal token. */
static bool is_delim(char c)
{
    return is_ws(c) || c == ',' || c == ':' || c == '{' || c == '}' || c == '[' || c == ']' ||
           c == '"';
}

static void skip_ws(struct jdec *d)
{
    while (d->pos < d->len && is_ws(d->text[d->pos]))
        d->pos++;
}

/* Offset past the closing quote of the string whose opening quote is at q:
 * the first '"' not preceded by an odd run of backslashes; len + 1 if the
 * string does not close (no string of the text ends there). */
static size_t string_end(const char *b, size_t len, size_t q)
{
    size_t i = q + 1;
    while (i < len) {
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
    return len + 1;
}

/* Offset past the number or literal token at i (at most end). */
static size_t token_end(const char *b, size_t end, size_t i)
{
    while (i < end && !is_delim(b[i]))
        i++;
    return i;
}

/* Moves the cursor past the value at it, counting brackets. */
static void skip_value(struct jdec *d)
{
    size_t level = 0;
    do {
        skip_ws(d);
        if (d->pos >= d->len)
            return;
        char c = d->text[d->pos];
        if (c == '"') {
            d->pos = string_end(d->text, d->len, d->pos);
        } else if (c == '{' || c == '[') {
            level++;
            d->pos++;
        } else if (c == '}' || c == ']') {
            if (level == 0)
                return; /* not ours: the value was missing (cannot happen) */
            level--;
            d->pos++;
        } else if (c == ',' || c == ':') {
            d->pos++;
        } else {
            d->pos = token_end(d->text, d->len, d->pos);
        }
    } while (level > 0);
}

/* 1-based line and column (in bytes) of offset off. */
static void position(const char *b, size_t len, size_t off, unsigned *line, unsigned *col)
{
    unsigned l = 1;
    size_t bol = 0;
    if (off > len)
        off = len;
    for (size_t i = 0; i < off; i++) {
        if (b[i] == '\n') {
            l++;
            bol = i + 1;
        }
    }
    *line = l;
    *col = (unsigned)(off - bol + 1);
}

/* ---- where an error stands ------------------------------------------------------------- */

/* What the text before `at` holds: at stands in a string or not, the last
 * token, string and key there, the innermost container; d->path gets the
 * keys (as written) and indexes of the containers open at `at`. The text
 * before an error is one jansson read without complaint (or text that
 * check_text found no deeper than 128). */
struct scan {
    size_t tok, str, key; /* offsets of the last token, string and key before at */
    bool in_string;       /* at is inside a string */
    bool in_object;       /* the innermost open container is an object */
};

static void scan_to(struct jdec *d, size_t at, struct scan *s)
{
    struct level {
        bool obj, want_key, has_key;
        size_t idx, key, klen;
    } st[JSON_DEPTH_MAX];
    const char *b = d->text;
    unsigned depth = 0;
    memset(s, 0, sizeof(*s));
    for (size_t i = 0; i < at;) {
        char c = b[i];
        if (is_ws(c)) {
            i++;
            continue;
        }
        struct level *top = depth > 0 && depth <= JSON_DEPTH_MAX ? &st[depth - 1] : NULL;
        s->tok = i;
        if (c == '"') {
            size_t e = string_end(b, d->len, i);
            s->str = i;
            if (e > at) {
                s->in_string = true;
                break;
            }
            if (top && top->obj && top->want_key) {
                top->want_key = false;
                top->has_key = true;
                top->key = i + 1;
                top->klen = e - i - 2;
                s->key = i;
            }
            i = e;
        } else if (c == '{' || c == '[') {
            if (depth < JSON_DEPTH_MAX)
                st[depth] = (struct level){c == '{', c == '{', false, 0, 0, 0};
            depth++;
            i++;
        } else if (c == '}' || c == ']') {
            depth -= depth > 0;
            i++;
        } else if (c == ',') {
            if (top && top->obj) {
                top->want_key = true;
                top->has_key = false;
            } else if (top) {
                top->idx++;
            }
            i++;
        } else if (c == ':') {
            i++;
        } else {
            i = token_end(b, at, i);
        }
    }
    unsigned n = depth < JSON_DEPTH_MAX ? depth : JSON_DEPTH_MAX;
    s->in_object = n > 0 && st[n - 1].obj;
    d->nseg = 0;
    for (unsigned k = 0; k < n; k++) {
        if (!st[k].obj)
            push(d, NULL, 0, st[k].idx);
        else if (st[k].has_key)
            push(d, b + st[k].key, st[k].klen < PATH_KEY_MAX ? st[k].klen : PATH_KEY_MAX, 0);
    }
}

/* ---- before jansson ----------------------------------------------------------------- */

/* The top level is an object; its nesting is at most 128 levels; the tree of
 * the whole text would take at most JSON_TREE_MAX bytes (jansson 2.14 on
 * 64-bit glibc, measured: an object 232 bytes with its first hash buckets,
 * a member 72 more, an array 136, a string 88 plus its bytes, a number 40;
 * true, false and null are shared). Runs on text not yet known to be JSON:
 * if it is not, the counts are wrong and jansson says why. */
static int check_text(struct jdec *d)
{
    skip_ws(d);
    if (d->pos >= d->len)
        return fail(d, "empty document");
    if (d->text[d->pos] != '{')
        return fail(d, "expected an object (ExportMetricsServiceRequest)");
    d->top = d->pos;
    const char *b = d->text;
    size_t tree = 0;
    unsigned depth = 0;
    for (size_t i = d->top; i < d->len;) {
        char c = b[i];
        if (c == '"') {
            size_t e = string_end(b, d->len, i);
            size_t j = e;
            while (j < d->len && is_ws(b[j]))
                j++;
            tree += (j < d->len && b[j] == ':' ? 72 : 88) + (e - i);
            i = e;
            continue;
        }
        if (c == '{' || c == '[') {
            if (depth == JSON_DEPTH_MAX) {
                struct scan s;
                scan_to(d, i, &s);
                return fail_at(d, i, "nesting deeper than 128 levels");
            }
            depth++;
            tree += c == '{' ? 232 : 136;
        } else if ((c == '}' || c == ']') && depth > 0) {
            depth--;
        } else if ((c >= '0' && c <= '9') || c == '-') {
            tree += 40;
            i = token_end(b, d->len, i);
            continue;
        }
        i++;
    }
    if (tree > JSON_TREE_MAX)
        return fail_at(d, d->top,
                       "the document would take more than 128 MiB to decode (send large "
                       "batches as protobuf)");
    return 0;
}

/* ---- jansson ------------------------------------------------------------------------------ */

#define TEXT_IS(t, prefix) (strncmp((t), (prefix), sizeof(prefix) - 1) == 0)

/* jansson refused the text: its error in the decoder's words, at the byte
 * the decoder's sentence is about, with the path that leads there. jansson
 * reports an allocation failure with no sentence, or as a syntax error at a
 * string it could not store (an invalid token, or a missing key): -ENOMEM. */
static int parse_fail(struct jdec *d, const json_error_t *e)
{
    const char *t = e->text;
    if (t[0] == '\0' || json_error_code(e) == json_error_out_of_memory)
        return -ENOMEM;
    size_t at = e->position < 0 ? 0 : (size_t)e->position;
    if (at > d->len)
        at = d->len;
    struct scan s;
    scan_to(d, at, &s);
    const char *msg = NULL;
    size_t where = s.tok;
    char c = s.tok < d->len ? d->text[s.tok] : '\0';
    switch (json_error_code(e)) {
    case json_error_premature_end_of_input:
        msg = "unexpected end of input";
        where = d->len;
        break;
    case json_error_invalid_utf8:
        msg = s.in_string ? "invalid UTF-8 in a string" : "invalid UTF-8";
        where = at;
        break;
    case json_error_duplicate_key:
        msg = "duplicate key";
        where = s.key;
        break;
    case json_error_null_byte_in_key:
        msg = "\\u0000 in a key (not supported)";
        where = s.key;
        break;
    case json_error_end_of_input_expected:
        d->pos = d->top;
        skip_value(d);
        skip_ws(d);
        d->nseg = 0;
        msg = "unexpected characters after the document";
        where = d->pos;
        break;
    case json_error_numeric_overflow:
        msg = "number out of range";
        break;
    case json_error_stack_overflow:
        msg = "nesting deeper than 128 levels";
        break;
    case json_error_invalid_syntax:
        if (TEXT_IS(t, "string or '}' expected")) {
            if (c == '"')
                return -ENOMEM; /* there is one: jansson could not store it */
            msg = "expected a string key";
        } else if (TEXT_IS(t, "':' expected")) {
            msg = "expected ':' after a key";
        } else if (TEXT_IS(t, "'}' expected")) {
            msg = "expected ',' or '}' in an object";
        } else if (TEXT_IS(t, "']' expected")) {
            msg = "expected ',' or ']' in an array";
        } else if (TEXT_IS(t, "unexpected token")) {
            msg = "expected a value";
        } else if (TEXT_IS(t, "invalid token")) {
            size_t i = s.tok + (c == '-');
            if (c == '"')
                return -ENOMEM;
            if (c != '-' && (c < '0' || c > '9')) {
                msg = c == 't' || c == 'f' || c == 'n'
                          ? "invalid literal (expected true, false or null)"
                          : "expected a value";
            } else if (i + 1 < d->len && d->text[i] == '0' && d->text[i + 1] >= '0' &&
                       d->text[i + 1] <= '9') { /* 01: the number 0, then no separator */
                msg = s.in_object ? "expected ',' or '}' in an object"
                                  : "expected ',' or ']' in an array";
                where = i + 1;
            } else {
                msg = "invalid number";
            }
        } else if (TEXT_IS(t, "invalid escape")) {
            where = at > s.str ? at - 1 : s.str;
            while (where > s.str && d->text[where] != '\\')
                where--;
            msg = where + 1 < d->len && d->text[where + 1] == 'u' ? "invalid \\u escape in a string"
                                                                  : "invalid escape in a string";
        } else if (TEXT_IS(t, "invalid Unicode")) {
            msg = "unpaired surrogate in a string";
            where = s.str;
        } else if (TEXT_IS(t, "control character") || TEXT_IS(t, "unexpected newline")) {
            msg = "control character in a string";
            where = at;
        }
        break;
    default:
        break;
    }
    if (!msg) {
        snprintf(d->jmsg, sizeof(d->jmsg), "%s", t);
        msg = d->jmsg;
        where = at;
    }
    return fail_at(d, where, msg);
}

static const size_t parse_flags = JSON_REJECT_DUPLICATES | JSON_ALLOW_NUL;

/* jansson's tree of the text into *root; a second parse with integers as
 * doubles when the first met an integer jansson cannot hold (step 2). */
static int parse(struct jdec *d, json_t **root)
{
    json_error_t e;
    *root = json_loadb(d->text, d->len, parse_flags, &e);
    if (!*root && json_error_code(&e) == json_error_numeric_overflow && TEXT_IS(e.text, "too big"))
        *root = json_loadb(d->text, d->len, parse_flags | JSON_DECODE_INT_AS_REAL, &e);
    return *root ? 0 : parse_fail(d, &e);
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
        if (key_matches(key, len, key_names[k]))
            return (enum key_id)k;
    }
    return K_UNKNOWN;
}

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
        d->pos = string_end(d->text, d->len, d->pos);
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
static int next_member(struct jdec *d, struct iter *it, json_t *obj, uint64_t mask)
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
                skip_value(d);
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
            skip_value(d);
    }
}

/* Next element (1, it->val, index it->n - 1 on the path) or 0 at the end;
 * more than max elements is malformed (too_many says so). */
static int next_elem(struct jdec *d, struct iter *it, json_t *arr, size_t max, const char *too_many)
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
static int revisit(struct jdec *d, enum key_id k, int (*fn)(struct jdec *, json_t *), json_t *val)
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
static int get_str(struct jdec *d, json_t *val, struct fsc_otlp_str *out)
{
    int rc = expect(d, val, JSON_STRING, "expected a string");
    if (rc < 0)
        return rc;
    size_t n = json_string_length(val);
    if (n > UINT32_MAX)
        return fail(d, "string longer than 4 GiB");
    if (!d->visit) {
        d->pos = string_end(d->text, d->len, d->pos);
        return 0;
    }
    if (out) {
        if (n > d->len - d->out_len) /* cannot happen: see step 4 */
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
static int read_num(struct jdec *d, json_t *val, int kind, void *out)
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
            d->pos = string_end(d->text, d->len, at);
        at++;
    } else if (json_is_number(val)) {
        if (kind == 'd') {
            if (!d->visit)
                d->pos = token_end(d->text, d->len, at);
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
        d->pos = token_end(d->text, d->len, at);
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

static int read_u32(struct jdec *d, json_t *val, uint32_t *out)
{
    if (!d->visit)
        skip_ws(d);
    size_t at = d->pos;
    uint64_t v = 0;
    int rc = read_num(d, val, 'u', &v);
    if (rc == 0 && v > UINT32_MAX)
        return fail_at(d, at, "number out of range");
    *out = (uint32_t)v;
    return rc;
}

static int read_bool(struct jdec *d, json_t *val, bool *out)
{
    if (!d->visit)
        skip_ws(d);
    if (!json_is_boolean(val))
        return fail(d, "expected true or false");
    *out = json_is_true(val);
    if (!d->visit)
        d->pos = token_end(d->text, d->len, d->pos);
    return 0;
}

/* bucketCounts ('u') or explicitBounds ('d') into the scratch. */
static int get_numbers(struct jdec *d, json_t *arr, int kind, void *out, uint32_t *count)
{
    struct iter it = {0};
    int rc;
    while ((rc = next_elem(d, &it, arr, FSC_OTLP_BUCKETS_MAX, "more than 512 entries")) > 0) {
        void *slot =
            kind == 'd' ? (void *)((double *)out + it.n - 1) : (void *)((uint64_t *)out + it.n - 1);
        if ((rc = read_num(d, it.val, kind, slot)) < 0)
            return rc;
    }
    *count = (uint32_t)it.n;
    return rc;
}

/* ---- attributes ------------------------------------------------------------------------ */

static int walk_keyvalue(struct jdec *d, json_t *kv, unsigned depth, struct fsc_otlp_attr *a);

/* arrayValue {values: [AnyValue]} or kvlistValue {values: [KeyValue]}:
 * checked to the depth bound, not delivered. */
static int walk_nested(struct jdec *d, json_t *obj, unsigned depth, bool kvlist);

/* An AnyValue at nesting depth (0: an attribute's own value). */
static int walk_anyvalue(struct jdec *d, json_t *obj, unsigned depth, struct fsc_otlp_attr *a)
{
    struct iter it = {0};
    bool b = false;
    int rc;
    while ((rc = next_member(d, &it, obj, ANY_VALUES)) > 0) {
        if (it.seen & ANY_VALUES & ~BIT(it.k))
            return fail(d, "more than one value kind in an AnyValue");
        a->type = FSC_OTLP_VAL_OTHER;
        switch (it.k) {
        case K_STRING_VALUE:
            a->type = FSC_OTLP_VAL_STRING;
            rc = get_str(d, it.val, &a->s);
            break;
        case K_BOOL_VALUE:
            a->type = FSC_OTLP_VAL_BOOL;
            rc = read_bool(d, it.val, &b);
            a->i = b;
            break;
        case K_INT_VALUE:
            a->type = FSC_OTLP_VAL_INT;
            rc = read_num(d, it.val, 'i', &a->i);
            break;
        case K_DOUBLE_VALUE:
            a->type = FSC_OTLP_VAL_DOUBLE;
            rc = read_num(d, it.val, 'd', &a->d);
            break;
        case K_BYTES_VALUE:
            rc = get_str(d, it.val, NULL);
            break;
        default:
            if (depth >= FSC_OTLP_DEPTH_MAX)
                return fail(d, "values nested deeper than 16 levels");
            rc = walk_nested(d, it.val, depth + 1, it.k == K_KVLIST_VALUE);
            break;
        }
        if (rc < 0)
            return rc;
    }
    return rc;
}

static int walk_nested(struct jdec *d, json_t *obj, unsigned depth, bool kvlist)
{
    struct iter it = {0}, el;
    struct fsc_otlp_attr inner;
    int rc;
    while ((rc = next_member(d, &it, obj, BIT(K_VALUES))) > 0) {
        memset(&el, 0, sizeof(el));
        while ((rc = next_elem(d, &el, it.val, SIZE_MAX, NULL)) > 0) {
            memset(&inner, 0, sizeof(inner));
            rc = kvlist ? walk_keyvalue(d, el.val, depth, &inner)
                        : walk_anyvalue(d, el.val, depth, &inner);
            if (rc < 0)
                return rc;
        }
        if (rc < 0)
            return rc;
    }
    return rc;
}

static int walk_keyvalue(struct jdec *d, json_t *kv, unsigned depth, struct fsc_otlp_attr *a)
{
    struct iter it = {0};
    int rc;
    memset(a, 0, sizeof(*a));
    while ((rc = next_member(d, &it, kv, BIT(K_KEY) | BIT(K_VALUE))) > 0) {
        rc = it.k == K_KEY ? get_str(d, it.val, &a->key) : walk_anyvalue(d, it.val, depth, a);
        if (rc < 0)
            return rc;
    }
    return rc;
}

/* The attributes of a resource or point, kept in d->attrs (bounded). */
static int walk_attrs(struct jdec *d, json_t *arr, uint32_t *count)
{
    struct iter it = {0};
    int rc;
    while ((rc = next_elem(d, &it, arr, FSC_OTLP_ATTRS_MAX, "more than 64 attributes")) > 0)
        if ((rc = walk_keyvalue(d, it.val, 0, &d->attrs[it.n - 1])) < 0)
            return rc;
    *count = (uint32_t)it.n;
    return rc;
}

/* ---- the message tree -------------------------------------------------------------------- */

/* Calls elem once per element of an array. */
static int walk_array(struct jdec *d, json_t *arr, int (*elem)(struct jdec *, json_t *))
{
    struct iter it = {0};
    int rc;
    while ((rc = next_elem(d, &it, arr, SIZE_MAX, NULL)) > 0)
        if ((rc = elem(d, it.val)) < 0)
            return rc;
    return rc;
}

static int walk_point(struct jdec *d, json_t *obj)
{
#define STATS (BIT(K_COUNT) | BIT(K_SUM))
    static const uint64_t extra[] = {
        [FSC_OTLP_GAUGE] = NUMBER_VALUES,
        [FSC_OTLP_SUM] = NUMBER_VALUES,
        [FSC_OTLP_HISTOGRAM] =
            STATS | BIT(K_BUCKET_COUNTS) | BIT(K_EXPLICIT_BOUNDS) | BIT(K_MIN) | BIT(K_MAX),
        [FSC_OTLP_EXP_HISTOGRAM] = STATS | BIT(K_MIN) | BIT(K_MAX),
        [FSC_OTLP_SUMMARY] = STATS,
    };
#undef STATS
    const uint64_t mask =
        BIT(K_ATTRIBUTES) | BIT(K_START_TIME) | BIT(K_TIME) | BIT(K_FLAGS) | extra[d->m.type];
    struct fsc_otlp_point p;
    struct iter it = {0};
    double ignored;
    int rc;
    memset(&p, 0, sizeof(p));
    while ((rc = next_member(d, &it, obj, mask)) > 0) {
        if ((BIT(it.k) & NUMBER_VALUES) && (it.seen & NUMBER_VALUES & ~BIT(it.k)))
            return fail(d, "both asDouble and asInt in a data point");
        switch (it.k) {
        case K_ATTRIBUTES:
            rc = walk_attrs(d, it.val, &p.n_attrs);
            break;
        case K_START_TIME:
            rc = read_num(d, it.val, 'u', &p.start_ns);
            break;
        case K_TIME:
            rc = read_num(d, it.val, 'u', &p.time_ns);
            break;
        case K_FLAGS:
            rc = read_u32(d, it.val, &p.flags);
            break;
        case K_AS_DOUBLE:
            p.value_kind = FSC_OTLP_VALUE_DOUBLE;
            rc = read_num(d, it.val, 'd', &p.as_double);
            break;
        case K_AS_INT:
            p.value_kind = FSC_OTLP_VALUE_INT;
            rc = read_num(d, it.val, 'i', &p.as_int);
            break;
        case K_COUNT:
            rc = read_num(d, it.val, 'u', &p.count);
            break;
        case K_SUM:
            p.has_sum = true;
            rc = read_num(d, it.val, 'd', &p.sum);
            break;
        case K_BUCKET_COUNTS:
            rc = get_numbers(d, it.val, 'u', d->buckets, &p.n_buckets);
            break;
        case K_EXPLICIT_BOUNDS:
            rc = get_numbers(d, it.val, 'd', d->bounds, &p.n_bounds);
            break;
        default: /* min, max: checked, not delivered */
            rc = read_num(d, it.val, 'd', &ignored);
            break;
        }
        if (rc < 0)
            return rc;
    }
    if (rc < 0 || !d->visit || !d->v->point)
        return rc;
    p.attrs = p.n_attrs ? d->attrs : NULL;
    p.bounds = p.n_bounds ? d->bounds : NULL;
    p.buckets = p.n_buckets ? d->buckets : NULL;
    d->v->point(d->v->ctx, &p);
    return 0;
}

static int walk_points(struct jdec *d, json_t *arr)
{
    return walk_array(d, arr, walk_point);
}

/* A data container (gauge, sum, ...) of d->m: temporality and monotonicity,
 * then (visiting walk) the metric callback, then the points. */
static int walk_data(struct jdec *d, json_t *obj)
{
    struct fsc_otlp_metric *m = &d->m;
    uint64_t mask = BIT(K_DATA_POINTS);
    if (m->type == FSC_OTLP_SUM || m->type == FSC_OTLP_HISTOGRAM ||
        m->type == FSC_OTLP_EXP_HISTOGRAM)
        mask |= BIT(K_TEMPORALITY);
    if (m->type == FSC_OTLP_SUM)
        mask |= BIT(K_MONOTONIC);
    json_t *points = NULL;
    struct iter it = {0};
    int32_t temp = 0;
    int rc;
    while ((rc = next_member(d, &it, obj, mask)) > 0) {
        if (it.k == K_TEMPORALITY) {
            rc = read_num(d, it.val, 'e', &temp);
            m->temporality = temp == FSC_OTLP_TEMP_DELTA || temp == FSC_OTLP_TEMP_CUMULATIVE
                                 ? (uint8_t)temp
                                 : FSC_OTLP_TEMP_UNSPECIFIED;
        } else if (it.k == K_MONOTONIC) {
            rc = read_bool(d, it.val, &m->monotonic);
        } else if (d->visit) {
            points = it.val;
        } else {
            rc = walk_points(d, it.val);
        }
        if (rc < 0)
            return rc;
    }
    if (rc < 0 || !d->visit)
        return rc;
    if (d->v->metric)
        d->v->metric(d->v->ctx, m);
    return points ? revisit(d, K_DATA_POINTS, walk_points, points) : 0;
}

static int walk_metric(struct jdec *d, json_t *obj)
{
    static const uint8_t types[K_IDS] = {
        [K_GAUGE] = FSC_OTLP_GAUGE,         [K_SUM] = FSC_OTLP_SUM,
        [K_HISTOGRAM] = FSC_OTLP_HISTOGRAM, [K_EXP_HISTOGRAM] = FSC_OTLP_EXP_HISTOGRAM,
        [K_SUMMARY] = FSC_OTLP_SUMMARY,
    };
    json_t *data = NULL;
    enum key_id data_key = K_UNKNOWN;
    struct iter it = {0};
    int rc;
    memset(&d->m, 0, sizeof(d->m));
    while ((rc = next_member(d, &it, obj, BIT(K_NAME) | BIT(K_UNIT) | CONTAINERS)) > 0) {
        if (it.k == K_NAME || it.k == K_UNIT) {
            rc = get_str(d, it.val, it.k == K_NAME ? &d->m.name : &d->m.unit);
        } else if (it.seen & CONTAINERS & ~BIT(it.k)) {
            return fail(d, "more than one of gauge, sum, histogram, exponentialHistogram and "
                           "summary");
        } else {
            data_key = it.k;
            d->m.type = types[it.k];
            if (d->visit)
                data = it.val;
            else
                rc = walk_data(d, it.val);
        }
        if (rc < 0)
            return rc;
    }
    if (rc < 0 || !d->visit)
        return rc;
    if (data)
        return revisit(d, data_key, walk_data, data);
    if (d->v->metric) /* no container: a metric without points */
        d->v->metric(d->v->ctx, &d->m);
    return 0;
}

/* An object of which only key k matters: fn walks its value. */
static int walk_only(struct jdec *d, json_t *obj, enum key_id k, int (*fn)(struct jdec *, json_t *))
{
    struct iter it = {0};
    int rc;
    while ((rc = next_member(d, &it, obj, BIT(k))) > 0)
        if ((rc = fn(d, it.val)) < 0)
            return rc;
    return rc;
}

static int walk_metrics(struct jdec *d, json_t *arr)
{
    return walk_array(d, arr, walk_metric);
}

static int walk_scope_metrics(struct jdec *d, json_t *obj)
{
    return walk_only(d, obj, K_METRICS, walk_metrics);
}

static int walk_scopes(struct jdec *d, json_t *arr)
{
    return walk_array(d, arr, walk_scope_metrics);
}

static int walk_resource_attrs(struct jdec *d, json_t *arr)
{
    return walk_attrs(d, arr, &d->n_attrs);
}

static int walk_resource(struct jdec *d, json_t *obj)
{
    return walk_only(d, obj, K_ATTRIBUTES, walk_resource_attrs);
}

/* ResourceMetrics: the resource callback comes first, wherever the resource
 * sits among the keys. */
static int walk_resource_metrics(struct jdec *d, json_t *obj)
{
    json_t *scopes = NULL;
    struct iter it = {0};
    int rc;
    d->n_attrs = 0;
    while ((rc = next_member(d, &it, obj, BIT(K_RESOURCE) | BIT(K_SCOPE_METRICS))) > 0) {
        if (it.k == K_RESOURCE)
            rc = walk_resource(d, it.val);
        else if (d->visit)
            scopes = it.val;
        else
            rc = walk_scopes(d, it.val);
        if (rc < 0)
            return rc;
    }
    if (rc < 0 || !d->visit)
        return rc;
    if (d->v->resource)
        d->v->resource(d->v->ctx, d->n_attrs ? d->attrs : NULL, d->n_attrs);
    return scopes ? revisit(d, K_SCOPE_METRICS, walk_scopes, scopes) : 0;
}

static int walk_resource_metrics_array(struct jdec *d, json_t *arr)
{
    return walk_array(d, arr, walk_resource_metrics);
}

/* "<path>: <what> (line L, column C)"; the path is where the walk stood. A
 * deep path keeps its first and last steps, so the sentence stays short. */
static void format_error(const struct jdec *d, const char *prefix, char *err, size_t errlen)
{
    enum { HEAD = 12, TAIL = 8 };
    char path[512];
    size_t o = 0;
    unsigned n = d->nseg < PATH_SEGS ? d->nseg : PATH_SEGS;
    path[0] = '\0';
    for (unsigned i = 0; i < n && o < sizeof(path); i++) {
        if (n > HEAD + TAIL && i >= HEAD && i < n - TAIL) {
            if (i == HEAD)
                o += (size_t)snprintf(path + o, sizeof(path) - o, "...");
            continue;
        }
        const struct seg *s = &d->path[i];
        int w = s->key ? snprintf(path + o, sizeof(path) - o, "%s%.*s", i ? "." : "", (int)s->klen,
                                  s->key)
                       : snprintf(path + o, sizeof(path) - o, "[%zu]", s->idx);
        o += w > 0 ? (size_t)w : 0;
    }
    unsigned line, col;
    position(d->text, d->len, d->err_pos, &line, &col);
    snprintf(err, errlen, "%s%s%s%s (line %u, column %u)", prefix, path, path[0] ? ": " : "",
             d->err_msg ? d->err_msg : "malformed", line, col);
}

int fsc_otlp_decode_json(char *buf, size_t len, const struct fsc_otlp_visitor *v, char *err,
                         size_t errlen)
{
    static const struct fsc_otlp_visitor none = {NULL, NULL, NULL, NULL};
    struct jdec d; /* ~16 KiB of bounded scratch; jansson's tree on the heap */
    const char *prefix = "";
    json_t *root = NULL;
    int rc;
    if (err && errlen)
        err[0] = '\0';
    memset(&d, 0, offsetof(struct jdec, m));
    d.text = buf ? buf : "";
    d.len = buf ? len : 0;
    d.v = v ? v : &none;
    if ((rc = check_text(&d)) == 0 && (rc = parse(&d, &root)) == 0) {
        d.pos = d.top;
        rc = walk_only(&d, root, K_RESOURCE_METRICS, walk_resource_metrics_array);
    }
    if (rc == 0 && (d.v->resource || d.v->metric || d.v->point)) {
        d.visit = true;
        d.out = buf;
        d.nseg = 0;
        /* an error here would be a decoder bug: callbacks were made */
        if ((rc = walk_only(&d, root, K_RESOURCE_METRICS, walk_resource_metrics_array)) < 0)
            prefix = "internal error after callbacks: ";
    }
    json_decref(root);
    if (rc < 0 && err && errlen) {
        if (rc == -ENOMEM)
            snprintf(err, errlen, "out of memory decoding the request");
        else
            format_error(&d, prefix, err, errlen);
    }
    return rc;
}
