/* The JSON writer of the web API (see web_json.h). */
#include "web/web_json.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "base/numfmt.h"
#include "base/utf8.h"

int fsc_json_quote(struct fsc_buf *out, const char *s, size_t n)
{
    const unsigned char *p = (const unsigned char *)s;
    size_t run = 0; /* bytes p[i - run .. i) copied verbatim when the run ends */
    char esc[8];
    int rc = fsc_buf_append(out, "\"", 1);

    for (size_t i = 0; i < n && rc == 0;) {
        unsigned char c = p[i];
        const char *rep = NULL;
        size_t replen = 0, adv = 1;

        if (c >= 0x80) {
            adv = fsc_utf8_seq(p + i, n - i);
            if (adv == 0) {
                rep = "\\ufffd";
                adv = 1;
            } else if (adv == 3 && c == 0xE2 && p[i + 1] == 0x80 &&
                       (p[i + 2] == 0xA8 || p[i + 2] == 0xA9)) {
                rep = p[i + 2] == 0xA8 ? "\\u2028" : "\\u2029";
            }
        } else if (c == '"') {
            rep = "\\\"";
        } else if (c == '\\') {
            rep = "\\\\";
        } else if (c == '\n') {
            rep = "\\n";
        } else if (c == '\r') {
            rep = "\\r";
        } else if (c == '\t') {
            rep = "\\t";
        } else if (c == '\b') {
            rep = "\\b";
        } else if (c == '\f') {
            rep = "\\f";
        } else if (c < 0x20 || c == 0x7F || c == '<' || c == '>' || c == '&') {
            snprintf(esc, sizeof(esc), "\\u%04x", c);
            rep = esc;
        }
        if (rep) {
            replen = strlen(rep);
            if (run)
                rc = fsc_buf_append(out, p + i - run, run);
            if (rc == 0)
                rc = fsc_buf_append(out, rep, replen);
            run = 0;
        } else {
            run += adv;
        }
        i += adv;
    }
    if (rc == 0 && run)
        rc = fsc_buf_append(out, p + n - run, run);
    if (rc == 0)
        rc = fsc_buf_append(out, "\"", 1);
    return rc;
}

void fsc_jw_init(struct fsc_jw *w, struct fsc_buf *out)
{
    memset(w, 0, sizeof(*w));
    w->out = out;
}

static void jw_put(struct fsc_jw *w, const char *s, size_t n)
{
    if (w->err == 0)
        w->err = fsc_buf_append(w->out, s, n);
}

/* Writes the separator and key that precede a value; 0 if the value may
 * follow, else the error is recorded. */
static int jw_prefix(struct fsc_jw *w, const char *key)
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
        jw_put(w, ",", 1);
    w->has_member[d] = 1;
    if (key) {
        if (w->err == 0)
            w->err = fsc_json_quote(w->out, key, strlen(key));
        jw_put(w, ":", 1);
    }
    return w->err;
}

/* A scalar is complete as soon as it is written. */
static void jw_scalar_done(struct fsc_jw *w)
{
    if (w->depth == 0)
        w->done = 1;
}

static void jw_open(struct fsc_jw *w, const char *key, int obj)
{
    if (jw_prefix(w, key) != 0)
        return;
    if (w->depth >= FSC_JW_DEPTH) {
        w->err = -EINVAL;
        return;
    }
    w->is_obj[w->depth] = (uint8_t)obj;
    w->has_member[w->depth] = 0;
    w->depth++;
    jw_put(w, obj ? "{" : "[", 1);
}

void fsc_jw_object(struct fsc_jw *w, const char *key)
{
    jw_open(w, key, 1);
}

void fsc_jw_array(struct fsc_jw *w, const char *key)
{
    jw_open(w, key, 0);
}

void fsc_jw_end(struct fsc_jw *w)
{
    if (w->err)
        return;
    if (w->depth == 0) {
        w->err = -EINVAL;
        return;
    }
    w->depth--;
    jw_put(w, w->is_obj[w->depth] ? "}" : "]", 1);
    if (w->depth == 0)
        w->done = 1;
}

void fsc_jw_strn(struct fsc_jw *w, const char *key, const char *s, size_t n)
{
    if (jw_prefix(w, key) != 0)
        return;
    w->err = s ? fsc_json_quote(w->out, s, n) : fsc_buf_append(w->out, "null", 4);
    jw_scalar_done(w);
}

void fsc_jw_str(struct fsc_jw *w, const char *key, const char *s)
{
    fsc_jw_strn(w, key, s, s ? strlen(s) : 0);
}

void fsc_jw_int(struct fsc_jw *w, const char *key, int64_t v)
{
    char num[24];
    if (jw_prefix(w, key) != 0)
        return;
    int n = snprintf(num, sizeof(num), "%lld", (long long)v);
    jw_put(w, num, (size_t)n);
    jw_scalar_done(w);
}

void fsc_jw_uint(struct fsc_jw *w, const char *key, uint64_t v)
{
    char num[FSC_NUM_MAX];
    if (jw_prefix(w, key) != 0)
        return;
    jw_put(w, num, fsc_fmt_u64(num, v));
    jw_scalar_done(w);
}

void fsc_jw_num(struct fsc_jw *w, const char *key, double v)
{
    char num[FSC_NUM_MAX];
    if (jw_prefix(w, key) != 0)
        return;
    /* The exposition's number text (so the API and /metrics print the same
     * value identically); JSON has no NaN or Inf. */
    if (isfinite(v))
        jw_put(w, num, fsc_fmt_double(num, v));
    else
        jw_put(w, "null", 4);
    jw_scalar_done(w);
}

void fsc_jw_bool(struct fsc_jw *w, const char *key, int v)
{
    if (jw_prefix(w, key) != 0)
        return;
    jw_put(w, v ? "true" : "false", v ? 4 : 5);
    jw_scalar_done(w);
}

void fsc_jw_null(struct fsc_jw *w, const char *key)
{
    if (jw_prefix(w, key) != 0)
        return;
    jw_put(w, "null", 4);
    jw_scalar_done(w);
}

int fsc_jw_finish(const struct fsc_jw *w)
{
    if (w->err)
        return w->err;
    return w->depth == 0 && w->done ? 0 : -EINVAL;
}
