/* The JSON writer (see json_write.h). */
#include "base/json_write.h"

#include <errno.h>
#include <math.h>
#include <string.h>

#include "base/numfmt.h"
#include "base/utf8.h"

/* The JSON text of one character (an fsc_utf8_escape_fn): \ufffd for an
 * invalid byte, \u2028 / \u2029 for the JavaScript line ends, the escapes
 * of json_write.h for ASCII, NULL (copied) for everything else. */
static const char *json_escape(const unsigned char *seq, size_t len, char u[8])
{
    static const char hex[] = "0123456789abcdef";
    unsigned char c = seq[0];
    if (len == 0)
        return "\\ufffd";
    if (len == 3 && c == 0xE2 && seq[1] == 0x80 && (seq[2] == 0xA8 || seq[2] == 0xA9))
        return seq[2] == 0xA8 ? "\\u2028" : "\\u2029";
    if (len > 1)
        return NULL;
    switch (c) {
    case '"':
        return "\\\"";
    case '\\':
        return "\\\\";
    case '\b':
        return "\\b";
    case '\f':
        return "\\f";
    case '\n':
        return "\\n";
    case '\r':
        return "\\r";
    case '\t':
        return "\\t";
    default:
        break;
    }
    if (c >= 0x20 && c != 0x7F && c != '<' && c != '>' && c != '&')
        return NULL;
    memcpy(u, "\\u00", 4);
    u[4] = hex[c >> 4];
    u[5] = hex[c & 15];
    u[6] = '\0';
    return u;
}

int fsc_json_quote(struct fsc_buf *out, const char *s, size_t n)
{
    int rc = fsc_buf_append(out, "\"", 1);
    if (rc == 0)
        rc = fsc_utf8_escape(out, s, n, json_escape);
    if (rc == 0)
        rc = fsc_buf_append(out, "\"", 1);
    return rc;
}

void fsc_json_start(struct fsc_json *w, struct fsc_buf *out)
{
    memset(w, 0, sizeof(*w));
    w->out = out;
}

void fsc_json_start_pretty(struct fsc_json *w, struct fsc_buf *out)
{
    fsc_json_start(w, out);
    w->pretty = 1;
}

static void put(struct fsc_json *w, const char *s, size_t n)
{
    if (w->err == 0)
        w->err = fsc_buf_append(w->out, s, n);
}

/* A line break and the indent of nesting level `level` (pretty writers). */
static void newline(struct fsc_json *w, unsigned level)
{
    static const char spaces[] = "                                "; /* 2 * FSC_JSON_DEPTH */
    put(w, "\n", 1);
    put(w, spaces, 2 * (size_t)level);
}

/* Writes the separator and key that precede a value; 0 if the value may
 * follow, else the error is recorded. */
static int prefix(struct fsc_json *w, const char *key)
{
    if (w->err)
        return w->err;
    if (w->depth == 0) {
        if (key || w->done)
            w->err = -EINVAL; /* a key at top level, or a second value */
        return w->err;
    }
    unsigned d = w->depth - 1;
    if ((key != NULL) != (w->is_obj[d] != 0)) {
        w->err = -EINVAL;
        return w->err;
    }
    if (w->has_member[d])
        put(w, w->pretty && w->one_line[d] ? ", " : ",", w->pretty && w->one_line[d] ? 2 : 1);
    if (w->pretty && !w->one_line[d])
        newline(w, w->depth);
    w->has_member[d] = 1;
    if (key) {
        if (w->err == 0)
            w->err = fsc_json_quote(w->out, key, strlen(key));
        put(w, ": ", w->pretty ? 2 : 1);
    }
    return w->err;
}

/* A scalar is complete as soon as it is written. */
static void scalar_done(struct fsc_json *w)
{
    if (w->depth == 0)
        w->done = 1;
}

static void open_container(struct fsc_json *w, const char *key, int obj)
{
    if (prefix(w, key) != 0)
        return;
    if (w->depth >= FSC_JSON_DEPTH) {
        w->err = -EINVAL;
        return;
    }
    w->is_obj[w->depth] = (uint8_t)obj;
    w->has_member[w->depth] = 0;
    w->one_line[w->depth] = w->depth > 0 && w->one_line[w->depth - 1];
    w->depth++;
    put(w, obj ? "{" : "[", 1);
}

void fsc_json_object(struct fsc_json *w, const char *key)
{
    open_container(w, key, 1);
}

void fsc_json_array(struct fsc_json *w, const char *key)
{
    open_container(w, key, 0);
}

void fsc_json_one_line(struct fsc_json *w)
{
    if (w->depth > 0)
        w->one_line[w->depth - 1] = 1;
}

void fsc_json_end(struct fsc_json *w)
{
    if (w->err)
        return;
    if (w->depth == 0) {
        w->err = -EINVAL;
        return;
    }
    w->depth--;
    if (w->pretty && !w->one_line[w->depth] && w->has_member[w->depth])
        newline(w, w->depth);
    put(w, w->is_obj[w->depth] ? "}" : "]", 1);
    if (w->depth == 0)
        w->done = 1;
}

void fsc_json_strn(struct fsc_json *w, const char *key, const char *s, size_t n)
{
    if (prefix(w, key) != 0)
        return;
    w->err = s ? fsc_json_quote(w->out, s, n) : fsc_buf_append(w->out, "null", 4);
    scalar_done(w);
}

void fsc_json_str(struct fsc_json *w, const char *key, const char *s)
{
    fsc_json_strn(w, key, s, s ? strlen(s) : 0);
}

/* A scalar member or element whose text is text[0..n). */
static void scalar(struct fsc_json *w, const char *key, const char *text, size_t n)
{
    if (prefix(w, key) != 0)
        return;
    put(w, text, n);
    scalar_done(w);
}

void fsc_json_int(struct fsc_json *w, const char *key, int64_t v)
{
    char num[FSC_NUM_MAX];
    scalar(w, key, num, fsc_fmt_i64(num, v));
}

void fsc_json_uint(struct fsc_json *w, const char *key, uint64_t v)
{
    char num[FSC_NUM_MAX];
    scalar(w, key, num, fsc_fmt_u64(num, v));
}

void fsc_json_num(struct fsc_json *w, const char *key, double v)
{
    char num[FSC_NUM_MAX];
    if (isfinite(v))
        scalar(w, key, num, fsc_fmt_double(num, v));
    else
        scalar(w, key, "null", 4);
}

void fsc_json_bool(struct fsc_json *w, const char *key, int v)
{
    scalar(w, key, v ? "true" : "false", v ? 4 : 5);
}

void fsc_json_null(struct fsc_json *w, const char *key)
{
    scalar(w, key, "null", 4);
}

int fsc_json_done(const struct fsc_json *w)
{
    if (w->err)
        return w->err;
    return w->depth == 0 && w->done ? 0 : -EINVAL;
}
