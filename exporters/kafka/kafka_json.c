/* The Kafka exporter's JSON writer (contract in kafka_json.h). */
#include "kafka/kafka_json.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/utf8.h"

/* Appends n bytes; the first that does not fit (with room left for the
 * final NUL) stops the document for good. */
static void put(struct fsc_kjson *w, const char *s, size_t n)
{
    if (w->err)
        return;
    if (n >= w->cap - w->len) {
        w->err = -E2BIG;
        return;
    }
    memcpy(w->buf + w->len, s, n);
    w->len += n;
}

static void put_c(struct fsc_kjson *w, char c)
{
    put(w, &c, 1);
}

void fsc_kjson_init(struct fsc_kjson *w, char *buf, size_t cap)
{
    memset(w, 0, sizeof(*w));
    w->buf = buf;
    w->cap = cap;
    if (cap == 0)
        w->err = -E2BIG;
    else
        buf[0] = '\0';
}

/* A JSON string: quotes, escapes, U+FFFD for invalid bytes. Runs of bytes
 * that need nothing are copied at once. */
static void put_string(struct fsc_kjson *w, const char *str, size_t n)
{
    static const char hex[] = "0123456789abcdef";
    const unsigned char *s = (const unsigned char *)str;
    size_t i = 0, run = 0;

    put_c(w, '"');
    while (i < n) {
        unsigned char c = s[i];
        size_t len = 1;
        const char *esc = NULL;
        char u[7];
        if (c == '"')
            esc = "\\\"";
        else if (c == '\\')
            esc = "\\\\";
        else if (c < 0x20) {
            switch (c) {
            case '\b':
                esc = "\\b";
                break;
            case '\f':
                esc = "\\f";
                break;
            case '\n':
                esc = "\\n";
                break;
            case '\r':
                esc = "\\r";
                break;
            case '\t':
                esc = "\\t";
                break;
            default:
                memcpy(u, "\\u00", 4);
                u[4] = hex[c >> 4];
                u[5] = hex[c & 15];
                u[6] = '\0';
                esc = u;
            }
        } else if (c >= 0x80) {
            len = fsc_utf8_seq(s + i, n - i);
            if (len == 0) {
                esc = "\\ufffd";
                len = 1;
            } else if (len == 3 && c == 0xE2 && s[i + 1] == 0x80 &&
                       (s[i + 2] == 0xA8 || s[i + 2] == 0xA9)) {
                esc = s[i + 2] == 0xA8 ? "\\u2028" : "\\u2029";
            }
        }
        if (esc) {
            put(w, str + i - run, run);
            run = 0;
            put(w, esc, strlen(esc));
        } else {
            run += len;
        }
        i += len;
    }
    put(w, str + n - run, run);
    put_c(w, '"');
}

/* The separator and the key of a new member (none for the top object). */
static void member(struct fsc_kjson *w, const char *key)
{
    if (w->depth == 0) {
        if (key != NULL || w->len != 0) /* only one top-level value, no key */
            w->err = w->err ? w->err : -EINVAL;
        return;
    }
    uint32_t bit = 1u << (w->depth - 1);
    if (w->members & bit)
        put_c(w, ',');
    w->members |= bit;
    put_string(w, key ? key : "", key ? strlen(key) : 0);
    put_c(w, ':');
}

void fsc_kjson_begin(struct fsc_kjson *w, const char *key)
{
    if (w->depth >= FSC_KJSON_DEPTH) {
        w->err = w->err ? w->err : -EINVAL;
        return;
    }
    member(w, key);
    put_c(w, '{');
    w->depth++;
    w->members &= ~(1u << (w->depth - 1));
}

void fsc_kjson_end(struct fsc_kjson *w)
{
    if (w->depth == 0) {
        w->err = w->err ? w->err : -EINVAL;
        return;
    }
    w->depth--;
    put_c(w, '}');
}

void fsc_kjson_strn(struct fsc_kjson *w, const char *key, const char *s, size_t n)
{
    member(w, key);
    put_string(w, s, n);
}

void fsc_kjson_str(struct fsc_kjson *w, const char *key, const char *s)
{
    fsc_kjson_strn(w, key, s, strlen(s));
}

size_t fsc_kjson_fmt_double(char *buf, size_t size, double v)
{
    int n = 0;
    /* 15 digits round-trip most values the detectors produce (and print
     * 0.1 as 0.1); 17 always do. */
    for (int prec = 15; prec <= 17; prec++) {
        n = snprintf(buf, size, "%.*g", prec, v);
        if (n < 0 || (size_t)n >= size)
            return 0;
        if (strtod(buf, NULL) == v)
            break;
    }
    return (size_t)n;
}

void fsc_kjson_num(struct fsc_kjson *w, const char *key, double v)
{
    char num[40];
    member(w, key);
    if (!isfinite(v)) {
        put(w, "null", 4);
        return;
    }
    put(w, num, fsc_kjson_fmt_double(num, sizeof(num), v));
}

void fsc_kjson_int(struct fsc_kjson *w, const char *key, int64_t v)
{
    char num[24];
    member(w, key);
    int n = snprintf(num, sizeof(num), "%" PRId64, v);
    put(w, num, n > 0 ? (size_t)n : 0);
}

void fsc_kjson_null(struct fsc_kjson *w, const char *key)
{
    member(w, key);
    put(w, "null", 4);
}

int fsc_kjson_finish(struct fsc_kjson *w)
{
    if (!w->err && (w->depth != 0 || w->len == 0))
        w->err = -EINVAL;
    if (w->err) {
        if (w->cap > 0)
            w->buf[w->len < w->cap ? w->len : w->cap - 1] = '\0';
        return w->err;
    }
    w->buf[w->len] = '\0'; /* put() always left room for it */
    return (int)w->len;
}
