/* OTLP/JSON decoder, the text beside jansson (otlp_json.c has the design,
 * otlp_json_int.h what the files share): the token skips of the checking
 * walk's cursor, the bounds checked before jansson parses, jansson's errors
 * in the decoder's words, and where an error stands.
 *
 * Steps 1 and 2 of otlp_json.c:
 *  1. Before jansson: the top level must be an object, and one scan of the
 *     brackets outside strings bounds the nesting to 128 levels and the tree
 *     jansson would build to JSON_TREE_MAX bytes (otlp_json_check_text).
 *     jansson's own depth bound is 2048, compiled in, and its parser recurses
 *     once per level; the tree it builds takes up to ~80 times the text ("{},"
 *     is 3 bytes of text and 232 of tree), and the text of a gzip'd body may
 *     be a thousand times its bytes on the wire.
 *  2. jansson parses the text (json_loadb): RFC 8259 syntax, UTF-8 (no
 *     overlongs, surrogates or code points above U+10FFFF), escapes and
 *     surrogate pairs, and any key repeated in an object is refused
 *     (JSON_REJECT_DUPLICATES); \u0000 is allowed in strings (JSON_ALLOW_NUL;
 *     jansson refuses it in keys). jansson holds integers as long long and
 *     refuses others ("too big integer"), but OTLP/JSON sends uint64 as
 *     numbers too: such a text is parsed again with JSON_DECODE_INT_AS_REAL,
 *     and the exact integers come from the text (step 3, otlp_json_read.c).
 *     Its errors become the decoder's sentences (parse_fail), placed by a
 *     scan of the text before the error (scan_to), which also gives the path
 *     of keys (as written) and indexes that leads there. */
#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <string.h>

#include "sources/otlp/decode/otlp_json_int.h"

/* Bytes the tree may take, as otlp_json_check_text counts them. OTLP/JSON as
 * exporters write it takes about 12 bytes of tree per byte of text, so this
 * admits ~10 MiB of such JSON per request; larger batches belong in
 * protobuf (32 MiB by default, decoded without a tree). Several requests
 * may parse at once (one per HTTP connection thread): a bound per request
 * that is a fraction of a collector's memory, not its whole. */
#define JSON_TREE_MAX ((size_t)128 << 20) /* the refusal below names it */
#define PATH_KEY_MAX  64                  /* bytes of a key as written shown in a path */

/* ---- the text (valid JSON, or a prefix jansson read without complaint) ---------------- */

/* A byte that ends a number or literal token. */
static bool is_delim(char c)
{
    return is_ws(c) || c == ',' || c == ':' || c == '{' || c == '}' || c == '[' || c == ']' ||
           c == '"';
}

/* Offset past the closing quote of the string whose opening quote is at q:
 * the first '"' not preceded by an odd run of backslashes; len + 1 if the
 * string does not close (no string of the text ends there). */
size_t otlp_json_string_end(const char *b, size_t len, size_t q)
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
size_t otlp_json_token_end(const char *b, size_t end, size_t i)
{
    while (i < end && !is_delim(b[i]))
        i++;
    return i;
}

/* Moves the cursor past the value at it, counting brackets. */
void otlp_json_skip_value(struct jdec *d)
{
    size_t level = 0;
    do {
        skip_ws(d);
        if (d->pos >= d->len)
            return;
        char c = d->text[d->pos];
        if (c == '"') {
            d->pos = otlp_json_string_end(d->text, d->len, d->pos);
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
            d->pos = otlp_json_token_end(d->text, d->len, d->pos);
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
 * otlp_json_check_text found no deeper than 128). */
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
            size_t e = otlp_json_string_end(b, d->len, i);
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
            i = otlp_json_token_end(b, at, i);
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
int otlp_json_check_text(struct jdec *d)
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
            size_t e = otlp_json_string_end(b, d->len, i);
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
            i = otlp_json_token_end(b, d->len, i);
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
        otlp_json_skip_value(d);
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
int otlp_json_parse(struct jdec *d, json_t **root)
{
    json_error_t e;
    *root = json_loadb(d->text, d->len, parse_flags, &e);
    if (!*root && json_error_code(&e) == json_error_numeric_overflow && TEXT_IS(e.text, "too big"))
        *root = json_loadb(d->text, d->len, parse_flags | JSON_DECODE_INT_AS_REAL, &e);
    return *root ? 0 : parse_fail(d, &e);
}

/* "<path>: <what> (line L, column C)"; the path is where the walk stood. A
 * deep path keeps its first and last steps, so the sentence stays short. */
void otlp_json_format_error(const struct jdec *d, const char *prefix, char *err, size_t errlen)
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
