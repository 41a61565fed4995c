/* Strict JSON pull reader (json_reader.h). */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sources/otlp/json_reader.h"

#define NUM_TEXT_MAX 128 /* longest number text parsed as a double */

void fsc_json_init(struct fsc_json_reader *r, char *buf, size_t len, bool validate)
{
    memset(r, 0, sizeof(*r));
    r->buf = buf;
    r->len = len;
    r->validate = validate;
}

int fsc_json_fail(struct fsc_json_reader *r, const char *msg)
{
    r->err_msg = msg;
    r->err_pos = r->pos;
    return -EBADMSG;
}

static inline void skip_ws(struct fsc_json_reader *r)
{
    while (r->pos < r->len) {
        char c = r->buf[r->pos];
        if (c != ' ' && c != '\n' && c != '\r' && c != '\t')
            return;
        r->pos++;
    }
}

/* A truncated document is the common malformation: say so rather than
 * naming the byte that was expected. */
static int fail_at(struct fsc_json_reader *r, const char *msg)
{
    return fsc_json_fail(r, r->pos >= r->len ? "unexpected end of input" : msg);
}

enum fsc_json_type fsc_json_peek(struct fsc_json_reader *r)
{
    skip_ws(r);
    if (r->pos >= r->len)
        return FSC_JSON_END;
    /* what each byte starts; 0: nothing */
    static const unsigned char starts[256] = {
        ['{'] = FSC_JSON_OBJECT, ['['] = FSC_JSON_ARRAY,  ['"'] = FSC_JSON_STRING,
        ['t'] = FSC_JSON_TRUE,   ['f'] = FSC_JSON_FALSE,  ['n'] = FSC_JSON_NULL,
        ['-'] = FSC_JSON_NUMBER, ['0'] = FSC_JSON_NUMBER, ['1'] = FSC_JSON_NUMBER,
        ['2'] = FSC_JSON_NUMBER, ['3'] = FSC_JSON_NUMBER, ['4'] = FSC_JSON_NUMBER,
        ['5'] = FSC_JSON_NUMBER, ['6'] = FSC_JSON_NUMBER, ['7'] = FSC_JSON_NUMBER,
        ['8'] = FSC_JSON_NUMBER, ['9'] = FSC_JSON_NUMBER,
    };
    unsigned char t = starts[(unsigned char)r->buf[r->pos]];
    return t ? (enum fsc_json_type)t : FSC_JSON_INVALID;
}

/* ---- nesting ------------------------------------------------------------------- */

static int push(struct fsc_json_reader *r, bool object)
{
    if (r->depth >= FSC_JSON_DEPTH_MAX)
        return fsc_json_fail(r, "nesting deeper than 128 levels");
    uint64_t bit = 1ull << (r->depth % 64);
    if (object)
        r->kinds[r->depth / 64] |= bit;
    else
        r->kinds[r->depth / 64] &= ~bit;
    r->depth++;
    r->pos++;
    return 0;
}

/* Kind of the innermost open container (depth > 0). */
static bool top_is_object(const struct fsc_json_reader *r)
{
    unsigned d = r->depth - 1;
    return (r->kinds[d / 64] >> (d % 64)) & 1u;
}

static int begin(struct fsc_json_reader *r, char open, const char *msg)
{
    skip_ws(r);
    if (r->pos >= r->len || r->buf[r->pos] != open)
        return fail_at(r, msg);
    return push(r, open == '{');
}

int fsc_json_object_begin(struct fsc_json_reader *r)
{
    return begin(r, '{', "expected an object");
}

int fsc_json_array_begin(struct fsc_json_reader *r)
{
    return begin(r, '[', "expected an array");
}

/* After a member key: the ':' that separates it from the value. */
static int key_colon(struct fsc_json_reader *r, struct fsc_json_tok *key)
{
    skip_ws(r);
    if (r->pos >= r->len || r->buf[r->pos] != '"')
        return fail_at(r, "expected a string key");
    int rc = fsc_json_string(r, key);
    if (rc < 0)
        return rc;
    skip_ws(r);
    if (r->pos >= r->len || r->buf[r->pos] != ':')
        return fail_at(r, "expected ':' after a key");
    r->pos++;
    return 0;
}

/* Shared by objects and arrays: the separator or the closing bracket. */
static int next_member(struct fsc_json_reader *r, size_t *n, char close, const char *msg)
{
    skip_ws(r);
    if (r->pos >= r->len)
        return fail_at(r, msg);
    if (r->buf[r->pos] == close) {
        r->pos++;
        r->depth--;
        return 0;
    }
    if (*n > 0) {
        if (r->buf[r->pos] != ',')
            return fsc_json_fail(r, msg);
        r->pos++;
    }
    (*n)++;
    return 1;
}

int fsc_json_object_next(struct fsc_json_reader *r, size_t *n, struct fsc_json_tok *key)
{
    int rc = next_member(r, n, '}', "expected ',' or '}' in an object");
    if (rc <= 0)
        return rc;
    rc = key_colon(r, key);
    return rc < 0 ? rc : 1;
}

int fsc_json_array_next(struct fsc_json_reader *r, size_t *n)
{
    return next_member(r, n, ']', "expected ',' or ']' in an array");
}

/* ---- strings ---------------------------------------------------------------------- */

/* Four hex digits at p (bounds checked by the caller), or -1. */
static long hex4(const char *p)
{
    long v = 0;
    for (int i = 0; i < 4; i++) {
        char c = p[i];
        int h = c >= '0' && c <= '9'   ? c - '0'
                : c >= 'a' && c <= 'f' ? c - 'a' + 10
                : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                       : -1;
        if (h < 0)
            return -1;
        v = v << 4 | h;
    }
    return v;
}

/* Validates one escape at r->pos (the backslash) and moves past it. */
static int escape(struct fsc_json_reader *r)
{
    const char *b = r->buf;
    if (r->len - r->pos < 2)
        return fail_at(r, "unexpected end of input");
    char e = b[r->pos + 1];
    if (e != '\0' && strchr("\"\\/bfnrt", e)) {
        r->pos += 2;
        return 0;
    }
    if (e != 'u')
        return fsc_json_fail(r, "invalid escape in a string");
    if (r->len - r->pos < 6)
        return fsc_json_fail(r, "unexpected end of input");
    long u = hex4(b + r->pos + 2);
    if (u < 0)
        return fsc_json_fail(r, "invalid \\u escape in a string");
    if (u >= 0xDC00 && u <= 0xDFFF)
        return fsc_json_fail(r, "unpaired surrogate in a string");
    if (u >= 0xD800 && u <= 0xDBFF) {
        long lo = -1;
        if (r->len - r->pos >= 12 && b[r->pos + 6] == '\\' && b[r->pos + 7] == 'u')
            lo = hex4(b + r->pos + 8);
        if (lo < 0xDC00 || lo > 0xDFFF)
            return fsc_json_fail(r, "unpaired surrogate in a string");
        r->pos += 6;
    }
    r->pos += 6;
    return 0;
}

/* Validates one multibyte UTF-8 sequence at r->pos (RFC 3629 table). */
static int utf8_seq(struct fsc_json_reader *r)
{
    const unsigned char *p = (const unsigned char *)r->buf + r->pos;
    size_t left = r->len - r->pos;
    unsigned char c = p[0], lo = 0x80, hi = 0xBF;
    size_t n;
    if (c >= 0xC2 && c <= 0xDF) {
        n = 2;
    } else if (c >= 0xE0 && c <= 0xEF) {
        n = 3;
        if (c == 0xE0)
            lo = 0xA0; /* overlong */
        else if (c == 0xED)
            hi = 0x9F; /* UTF-16 surrogates */
    } else if (c >= 0xF0 && c <= 0xF4) {
        n = 4;
        if (c == 0xF0)
            lo = 0x90; /* overlong */
        else if (c == 0xF4)
            hi = 0x8F; /* above U+10FFFF */
    } else {
        return fsc_json_fail(r, "invalid UTF-8 in a string");
    }
    if (left < n)
        return fsc_json_fail(r, "unexpected end of input");
    if (p[1] < lo || p[1] > hi)
        return fsc_json_fail(r, "invalid UTF-8 in a string");
    for (size_t i = 2; i < n; i++)
        if ((p[i] & 0xC0) != 0x80)
            return fsc_json_fail(r, "invalid UTF-8 in a string");
    r->pos += n;
    return 0;
}

int fsc_json_string(struct fsc_json_reader *r, struct fsc_json_tok *t)
{
    skip_ws(r);
    if (r->pos >= r->len || r->buf[r->pos] != '"')
        return fail_at(r, "expected a string");
    size_t start = ++r->pos;
    t->escaped = false;
    t->integer = false;
    const unsigned char *b = (const unsigned char *)r->buf;
    while (r->pos < r->len) {
        unsigned char c = b[r->pos];
        if (c >= 0x20 && c < 0x80 && c != '"' && c != '\\') { /* the common case first */
            r->pos++;
            continue;
        }
        if (c == '"') {
            t->off = start;
            t->len = r->pos - start;
            r->pos++;
            return 0;
        }
        if (c == '\\') {
            t->escaped = true;
            if (!r->validate) {
                r->pos += 2; /* valid: the escaped byte is never the closing quote */
                continue;
            }
            int rc = escape(r);
            if (rc < 0)
                return rc;
        } else if (c >= 0x80 && r->validate) {
            int rc = utf8_seq(r);
            if (rc < 0)
                return rc;
        } else if (c < 0x20 && r->validate) {
            return fsc_json_fail(r, "control character in a string");
        } else {
            r->pos++;
        }
    }
    return fsc_json_fail(r, "unexpected end of input");
}

static void put_utf8(char *dst, size_t *o, unsigned long cp)
{
    static const unsigned char lead[] = {0, 0, 0xC0, 0xE0, 0xF0};
    unsigned char *d = (unsigned char *)dst + *o;
    int n = cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4;
    for (int i = n - 1; i > 0; i--, cp >>= 6)
        d[i] = (unsigned char)(0x80 | (cp & 0x3F));
    d[0] = (unsigned char)(lead[n] | cp);
    *o += (size_t)n;
}

/* The output never overtakes the input: every escape is at least as long as
 * the UTF-8 it becomes (\n 2 -> 1, \uXXXX 6 -> <= 3, a pair 12 -> 4). */
size_t fsc_json_unescape(const char *src, size_t len, char *dst)
{
    size_t i = 0, o = 0;
    while (i < len) {
        if (src[i] != '\\') {
            dst[o++] = src[i++];
            continue;
        }
        char e = src[i + 1];
        i += 2;
        if (e != 'u') { /* " \ / or one of the control escapes */
            static const char names[] = "bfnrt", bytes[] = "\b\f\n\r\t";
            const char *ctl = strchr(names, e);
            dst[o++] = ctl ? bytes[ctl - names] : e;
            continue;
        }
        unsigned long cp = (unsigned long)hex4(src + i);
        i += 4;
        if (cp >= 0xD800 && cp <= 0xDBFF) {
            unsigned long lo = (unsigned long)hex4(src + i + 2);
            cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
            i += 6;
        }
        put_utf8(dst, &o, cp);
    }
    return o;
}

/* ---- numbers and literals ---------------------------------------------------------- */

static size_t digits(const char *p, size_t i, size_t len)
{
    while (i < len && p[i] >= '0' && p[i] <= '9')
        i++;
    return i;
}

/* Length of the JSON number at p[0..len) (0: not a number); *integer says
 * whether it has neither fraction nor exponent. */
static size_t number_len(const char *p, size_t len, bool *integer)
{
    size_t i = 0, j;
    *integer = true;
    if (i < len && p[i] == '-')
        i++;
    if (i < len && p[i] == '0')
        i++;
    else if ((j = digits(p, i, len)) > i)
        i = j;
    else
        return 0;
    if (i < len && p[i] == '.') {
        *integer = false;
        if ((j = digits(p, i + 1, len)) == i + 1)
            return 0;
        i = j;
    }
    if (i < len && (p[i] == 'e' || p[i] == 'E')) {
        *integer = false;
        i++;
        if (i < len && (p[i] == '+' || p[i] == '-'))
            i++;
        if ((j = digits(p, i, len)) == i)
            return 0;
        i = j;
    }
    return i;
}

int fsc_json_number(struct fsc_json_reader *r, struct fsc_json_tok *t)
{
    skip_ws(r);
    size_t n = number_len(r->buf + r->pos, r->len - r->pos, &t->integer);
    if (n == 0)
        return fail_at(r, "invalid number");
    t->off = r->pos;
    t->len = n;
    t->escaped = false;
    r->pos += n;
    return 0;
}

int fsc_json_literal(struct fsc_json_reader *r, enum fsc_json_type *type)
{
    static const struct {
        const char *text;
        size_t len;
        enum fsc_json_type type;
    } lits[] = {
        {"true", 4, FSC_JSON_TRUE}, {"false", 5, FSC_JSON_FALSE}, {"null", 4, FSC_JSON_NULL}};
    skip_ws(r);
    for (size_t i = 0; i < sizeof(lits) / sizeof(lits[0]); i++) {
        if (r->len - r->pos >= lits[i].len &&
            memcmp(r->buf + r->pos, lits[i].text, lits[i].len) == 0) {
            r->pos += lits[i].len;
            *type = lits[i].type;
            return 0;
        }
    }
    return fail_at(r, "invalid literal (expected true, false or null)");
}

/* ---- skipping ---------------------------------------------------------------------- */

/* Trusting mode: the value is known to be valid, so brackets only need
 * counting and a scalar ends at a delimiter. A string ends at the first '"'
 * not escaped, i.e. not preceded by an odd run of backslashes. */
static int skip_fast(struct fsc_json_reader *r)
{
    skip_ws(r);
    const char *b = r->buf, *end = b + r->len;
    size_t level = 0;
    do {
        if (r->pos >= r->len)
            break;
        char c = b[r->pos];
        if (c == '"') {
            const char *p = b + r->pos + 1, *qt;
            for (;;) {
                qt = memchr(p, '"', (size_t)(end - p));
                if (qt == NULL)
                    return 0; /* unreachable on valid input */
                const char *s = qt;
                while (s > p && s[-1] == '\\')
                    s--;
                if ((qt - s) % 2 == 0)
                    break;
                p = qt + 1;
            }
            r->pos = (size_t)(qt - b) + 1;
        } else if (c == '{' || c == '[') {
            level++;
            r->pos++;
        } else if (c == '}' || c == ']') {
            if (level == 0)
                break;
            level--;
            r->pos++;
        } else if (level == 0) {
            while (r->pos < r->len && b[r->pos] != ',' && b[r->pos] != '}' && b[r->pos] != ']' &&
                   b[r->pos] != ' ' && b[r->pos] != '\n' && b[r->pos] != '\r' && b[r->pos] != '\t')
                r->pos++;
        } else {
            r->pos++;
        }
    } while (level > 0);
    return 0;
}

static int scalar(struct fsc_json_reader *r)
{
    struct fsc_json_tok t;
    enum fsc_json_type lit;
    switch (fsc_json_peek(r)) {
    case FSC_JSON_STRING:
        return fsc_json_string(r, &t);
    case FSC_JSON_NUMBER:
        return fsc_json_number(r, &t);
    case FSC_JSON_TRUE:
    case FSC_JSON_FALSE:
    case FSC_JSON_NULL:
        return fsc_json_literal(r, &lit);
    default:
        return fail_at(r, "expected a value");
    }
}

/* Validating mode, iterative: the bit stack holds the open containers, so
 * depth costs no C stack. Every turn of either loop consumes input. */
int fsc_json_skip(struct fsc_json_reader *r)
{
    if (!r->validate)
        return skip_fast(r);
    unsigned base = r->depth;
    struct fsc_json_tok key;
    int rc;
    for (;;) {
        /* at a value */
        enum fsc_json_type t = fsc_json_peek(r);
        if (t == FSC_JSON_OBJECT || t == FSC_JSON_ARRAY) {
            if ((rc = push(r, t == FSC_JSON_OBJECT)) < 0)
                return rc;
            skip_ws(r);
            char close = t == FSC_JSON_OBJECT ? '}' : ']';
            if (r->pos < r->len && r->buf[r->pos] == close) {
                r->pos++;
                r->depth--;
            } else {
                if (t == FSC_JSON_OBJECT && (rc = key_colon(r, &key)) < 0)
                    return rc;
                continue;
            }
        } else if ((rc = scalar(r)) < 0) {
            return rc;
        }
        /* after a value: close containers until a ',' asks for another */
        for (;;) {
            if (r->depth == base)
                return 0;
            bool obj = top_is_object(r);
            skip_ws(r);
            char c = r->pos < r->len ? r->buf[r->pos] : '\0';
            if (c == (obj ? '}' : ']')) {
                r->pos++;
                r->depth--;
                continue;
            }
            if (c != ',')
                return fail_at(r, obj ? "expected ',' or '}' in an object"
                                      : "expected ',' or ']' in an array");
            r->pos++;
            if (obj && (rc = key_colon(r, &key)) < 0)
                return rc;
            break;
        }
    }
}

int fsc_json_finish(struct fsc_json_reader *r)
{
    skip_ws(r);
    if (r->pos != r->len)
        return fsc_json_fail(r, "unexpected characters after the document");
    return 0;
}

/* ---- number conversion --------------------------------------------------------------- */

static int parse_u64(const char *p, size_t len, uint64_t *out)
{
    bool integer;
    if (len == 0 || p[0] == '-' || number_len(p, len, &integer) != len || !integer)
        return -EINVAL;
    uint64_t v = 0;
    for (size_t i = 0; i < len; i++) {
        unsigned d = (unsigned)(p[i] - '0');
        if (v > (UINT64_MAX - d) / 10)
            return -ERANGE;
        v = v * 10 + d;
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

/* Clinger's fast path: up to 15 significant digits and a decimal exponent
 * within +-22 make both operands exact doubles and the result one correctly
 * rounded operation, so it equals strtod's. Anything else returns false. */
static bool fast_double(const char *p, size_t len, double *out)
{
    static const double pow10[] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                   1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
                                   1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};
    size_t i = p[0] == '-';
    uint64_t m = 0;
    int digits = 0, exp = 0, e = 0, esign = 1;
    bool frac = false;
    for (; i < len && ((p[i] >= '0' && p[i] <= '9') || (p[i] == '.' && !frac)); i++) {
        if (p[i] == '.') {
            frac = true;
            continue;
        }
        if ((digits += m != 0 || p[i] != '0') > 15)
            return false;
        m = m * 10 + (uint64_t)(p[i] - '0');
        exp -= frac;
    }
    if (i < len) { /* exponent (the grammar was checked) */
        i++;
        if (p[i] == '+' || p[i] == '-')
            esign = p[i++] == '-' ? -1 : 1;
        for (; i < len && e < 1000; i++)
            e = e * 10 + (p[i] - '0');
        if (i < len)
            return false;
        exp += esign * e;
    }
    if (exp < -22 || exp > 22)
        return false;
    double d = exp < 0 ? (double)m / pow10[-exp] : (double)m * pow10[exp];
    *out = p[0] == '-' ? -d : d;
    return true;
}

static int parse_double(const char *p, size_t len, bool special, double *out)
{
    if (special) {
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
    }
    bool integer;
    if (len == 0 || len >= NUM_TEXT_MAX || number_len(p, len, &integer) != len)
        return -EINVAL;
    if (fast_double(p, len, out))
        return 0;
    /* strtod needs a terminator the request buffer does not have */
    char text[NUM_TEXT_MAX];
    memcpy(text, p, len);
    text[len] = '\0';
    errno = 0;
    double d = strtod(text, NULL);
    if (errno == ERANGE && isinf(d))
        return -ERANGE;
    *out = d;
    return 0;
}

/* ---- protobuf JSON mapping scalars ------------------------------------------------------ */

#define MSG_U64  "expected an unsigned integer (a number without fraction or exponent, or a string)"
#define MSG_I64  "expected an integer (a number without fraction or exponent, or a string)"
#define MSG_DBL  "expected a number (or a string: a number, NaN, Infinity or -Infinity)"
#define MSG_ENUM "expected an integer enum value"

/* An error about a token already consumed: point at its start. */
static int fail_tok(struct fsc_json_reader *r, size_t off, const char *msg)
{
    int rc = fsc_json_fail(r, msg);
    r->err_pos = off;
    return rc;
}

/* kind: 'u' u64, 'i' i64, 'd' double, 'e' enum (a JSON integer, int32).
 * The text is a number token or (except enums) a string's content, decoded
 * into a copy if it has escapes. */
static int read_num(struct fsc_json_reader *r, int kind, void *out)
{
    const char *msg = kind == 'u'   ? MSG_U64
                      : kind == 'i' ? MSG_I64
                      : kind == 'd' ? MSG_DBL
                                    : MSG_ENUM;
    enum fsc_json_type ty = fsc_json_peek(r);
    struct fsc_json_tok t;
    char tmp[NUM_TEXT_MAX];
    int64_t e = 0;
    int rc;
    if (ty == FSC_JSON_NUMBER)
        rc = fsc_json_number(r, &t);
    else if (ty == FSC_JSON_STRING && kind != 'e')
        rc = fsc_json_string(r, &t);
    else
        return fail_at(r, msg);
    if (rc < 0)
        return rc;
    const char *p = r->buf + t.off;
    size_t len = t.len;
    if (t.escaped) {
        if (len > sizeof(tmp))
            return fail_tok(r, t.off, msg);
        len = fsc_json_unescape(p, len, tmp);
        p = tmp;
    }
    if (kind == 'u')
        rc = parse_u64(p, len, out);
    else if (kind == 'i')
        rc = parse_i64(p, len, out);
    else if (kind == 'd')
        rc = parse_double(p, len, ty == FSC_JSON_STRING, out);
    else if ((rc = parse_i64(p, len, &e)) == 0 && (e < INT32_MIN || e > INT32_MAX))
        rc = -ERANGE;
    else
        *(int32_t *)out = (int32_t)e;
    if (rc < 0)
        return fail_tok(r, t.off, rc == -ERANGE ? "number out of range" : msg);
    return 0;
}

int fsc_json_read_u64(struct fsc_json_reader *r, uint64_t *out)
{
    return read_num(r, 'u', out);
}

int fsc_json_read_u32(struct fsc_json_reader *r, uint32_t *out)
{
    size_t off = (fsc_json_peek(r), r->pos);
    uint64_t v = 0;
    int rc = read_num(r, 'u', &v);
    if (rc == 0 && v > UINT32_MAX)
        return fail_tok(r, off, "number out of range");
    *out = (uint32_t)v;
    return rc;
}

int fsc_json_read_i64(struct fsc_json_reader *r, int64_t *out)
{
    return read_num(r, 'i', out);
}

int fsc_json_read_double(struct fsc_json_reader *r, double *out)
{
    return read_num(r, 'd', out);
}

int fsc_json_read_enum(struct fsc_json_reader *r, int32_t *out)
{
    return read_num(r, 'e', out);
}

int fsc_json_read_bool(struct fsc_json_reader *r, bool *out)
{
    enum fsc_json_type t = fsc_json_peek(r);
    if (t != FSC_JSON_TRUE && t != FSC_JSON_FALSE)
        return fail_at(r, "expected true or false");
    *out = t == FSC_JSON_TRUE;
    return fsc_json_literal(r, &t);
}

void fsc_json_position(const char *buf, size_t len, size_t off, unsigned *line, unsigned *col)
{
    unsigned l = 1;
    size_t bol = 0;
    if (off > len)
        off = len;
    for (size_t i = 0; i < off; i++) {
        if (buf[i] == '\n') {
            l++;
            bol = i + 1;
        }
    }
    *line = l;
    *col = (unsigned)(off - bol + 1);
}
