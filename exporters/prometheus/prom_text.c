/* Exposition text primitives (see prom_text.h).
 *
 * Speed matters here: a 1 M series scrape writes a few million lines, so the
 * common line (name, preformatted labels, integer value) is built with memcpy
 * and base/numfmt's table-driven integer conversion, never with printf. */
#include "prometheus/prom_text.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

size_t fsc_prom_fmt_double(char *buf, double v)
{
    if (isnan(v)) {
        memcpy(buf, "NaN", 3);
        return 3;
    }
    if (isinf(v)) {
        memcpy(buf, v > 0 ? "+Inf" : "-Inf", 4);
        return 4;
    }
    return fsc_fmt_double(buf, v);
}

char *fsc_prom_escape_label(char *dst, const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        if (c == '\\' || c == '"') {
            *dst++ = '\\';
            *dst++ = c;
        } else if (c == '\n') {
            *dst++ = '\\';
            *dst++ = 'n';
        } else {
            *dst++ = c;
        }
    }
    return dst;
}

char *fsc_prom_escape_help(char *dst, const char *s, size_t n, int om)
{
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        if (c == '\\' || (om && c == '"')) {
            *dst++ = '\\';
            *dst++ = c;
        } else if (c == '\n') {
            *dst++ = '\\';
            *dst++ = 'n';
        } else {
            *dst++ = c;
        }
    }
    return dst;
}

void fsc_prom_writer_free(struct fsc_prom_writer *w)
{
    fsc_buf_free(&w->scratch);
    fsc_buf_free(&w->labels);
}

/* Writes ,name="value" (or without the comma at the start of a label set). */
static char *put_label(char *p, int first, const struct fsc_prom_label *l)
{
    if (!first)
        *p++ = ',';
    memcpy(p, l->name, l->name_len);
    p += l->name_len;
    *p++ = '=';
    *p++ = '"';
    p = fsc_prom_escape_label(p, l->value, l->value_len);
    *p++ = '"';
    return p;
}

/* Returns where a line of at most `bound` bytes may be written for b, or
 * NULL (w->err set). *direct tells whether it is b itself or the scratch. */
static char *line_begin(struct fsc_prom_writer *w, struct fsc_buf *b, size_t bound, int *direct)
{
    int rc;

    if (w->err)
        return NULL;
    if (!b->limit || (bound <= b->limit && b->len <= b->limit - bound)) {
        rc = fsc_buf_reserve(b, bound);
        if (rc == 0) {
            *direct = 1;
            return b->data + b->len;
        }
    } else {
        /* Near the cap: the bound may not fit although the line would. */
        fsc_buf_reset(&w->scratch);
        rc = fsc_buf_reserve(&w->scratch, bound);
        if (rc == 0) {
            *direct = 0;
            return w->scratch.data;
        }
    }
    w->err = rc;
    return NULL;
}

/* Hands b's bytes to the writer's flush when b is the streamed buffer and
 * holds a segment's worth. Returns 0 or w->err. */
static int flush_check(struct fsc_prom_writer *w, struct fsc_buf *b)
{
    if (!w->flush || b != w->flush_buf || b->len < w->flush_at || w->err)
        return w->err;
    int rc = w->flush(w->flush_arg, b);
    if (rc != 0)
        w->err = rc;
    return rc;
}

static int line_end(struct fsc_prom_writer *w, struct fsc_buf *b, char *start, char *end,
                    int direct)
{
    size_t n = (size_t)(end - start);
    if (direct) {
        b->len += n;
        b->data[b->len] = '\0';
        return flush_check(w, b);
    }
    int rc = fsc_buf_append(b, start, n);
    if (rc != 0) {
        w->err = rc;
        return rc;
    }
    return flush_check(w, b);
}

int fsc_prom_sample(struct fsc_prom_writer *w, struct fsc_buf *b, const char *name, size_t name_len,
                    const char *suffix, size_t suffix_len, const char *block, size_t block_len,
                    const struct fsc_prom_label *ex, size_t n_ex, const char *value,
                    size_t value_len)
{
    size_t bound = name_len + suffix_len + block_len + value_len + 4; /* {} space \n */
    for (size_t i = 0; i < n_ex; i++)
        bound += ex[i].name_len + 2 * ex[i].value_len + 4; /* , = "" */
    int direct;
    char *start = line_begin(w, b, bound, &direct);
    if (!start)
        return w->err;

    char *p = start;
    memcpy(p, name, name_len);
    p += name_len;
    memcpy(p, suffix, suffix_len);
    p += suffix_len;
    if (block_len || n_ex) {
        *p++ = '{';
        memcpy(p, block, block_len);
        p += block_len;
        for (size_t i = 0; i < n_ex; i++)
            p = put_label(p, i == 0 && !block_len, &ex[i]);
        *p++ = '}';
    }
    *p++ = ' ';
    memcpy(p, value, value_len);
    p += value_len;
    *p++ = '\n';
    w->samples++;
    return line_end(w, b, start, p, direct);
}

int fsc_prom_histogram(struct fsc_prom_writer *w, struct fsc_buf *b, const char *name,
                       size_t name_len, const char *block, size_t block_len,
                       const struct fsc_prom_label *ex, size_t n_ex, const uint64_t *bucket,
                       const struct fsc_prom_str *le, size_t n_le, double sum)
{
    if (w->err)
        return w->err;

    /* Every bucket line starts alike: build `<name>_bucket{<labels>,le="`
     * once (the labels are the block, then the extra labels). */
    size_t pre_bound = name_len + 8 + block_len + 5;
    for (size_t i = 0; i < n_ex; i++)
        pre_bound += ex[i].name_len + 2 * ex[i].value_len + 4;
    fsc_buf_reset(&w->labels);
    int rc = fsc_buf_reserve(&w->labels, pre_bound);
    if (rc != 0) {
        w->err = rc;
        return rc;
    }
    char *pre = w->labels.data, *lp = pre;
    memcpy(lp, name, name_len);
    lp += name_len;
    memcpy(lp, "_bucket{", 8);
    lp += 8;
    const char *lab = lp; /* the label text, also used by _sum and _count */
    memcpy(lp, block, block_len);
    lp += block_len;
    for (size_t i = 0; i < n_ex; i++)
        lp = put_label(lp, lp == lab, &ex[i]);
    size_t lab_len = (size_t)(lp - lab);
    if (lab_len)
        *lp++ = ',';
    memcpy(lp, "le=\"", 4);
    lp += 4;
    size_t pre_len = (size_t)(lp - pre);

    /* pre + bound + `"} ` + count + newline per bucket; _sum and _count. */
    size_t bound =
        (n_le + 1) * (pre_len + 2 * FSC_NUM_MAX + 4) + 2 * (name_len + lab_len + 10 + FSC_NUM_MAX);
    int direct;
    char *start = line_begin(w, b, bound, &direct);
    if (!start)
        return w->err;

    char *p = start;
    uint64_t cum = 0;
    for (size_t i = 0; i <= n_le; i++) {
        cum += bucket[i];
        memcpy(p, pre, pre_len);
        p += pre_len;
        if (i < n_le) {
            memcpy(p, le[i].s, le[i].len);
            p += le[i].len;
        } else {
            memcpy(p, "+Inf", 4);
            p += 4;
        }
        memcpy(p, "\"} ", 3);
        p += 3;
        p += fsc_fmt_u64(p, cum);
        *p++ = '\n';
    }
    for (int k = 0; k < 2; k++) {
        memcpy(p, name, name_len);
        p += name_len;
        memcpy(p, k ? "_count" : "_sum", k ? 6 : 4);
        p += k ? 6 : 4;
        if (lab_len) {
            *p++ = '{';
            memcpy(p, lab, lab_len);
            p += lab_len;
            *p++ = '}';
        }
        *p++ = ' ';
        p += k ? fsc_fmt_u64(p, cum) : fsc_prom_fmt_double(p, sum);
        *p++ = '\n';
    }
    w->samples += n_le + 3;
    return line_end(w, b, start, p, direct);
}

int fsc_prom_header(struct fsc_prom_writer *w, struct fsc_buf *b, const char *name, size_t name_len,
                    const char *type, const char *help, int om)
{
    size_t help_len = strlen(help), type_len = strlen(type);
    size_t bound = 2 * name_len + 2 * help_len + type_len + 20;
    int direct;
    char *start = line_begin(w, b, bound, &direct);
    if (!start)
        return w->err;

    char *p = start;
    memcpy(p, "# HELP ", 7);
    p += 7;
    memcpy(p, name, name_len);
    p += name_len;
    *p++ = ' ';
    p = fsc_prom_escape_help(p, help, help_len, om);
    memcpy(p, "\n# TYPE ", 8);
    p += 8;
    memcpy(p, name, name_len);
    p += name_len;
    *p++ = ' ';
    memcpy(p, type, type_len);
    p += type_len;
    *p++ = '\n';
    return line_end(w, b, start, p, direct);
}

int fsc_prom_append(struct fsc_prom_writer *w, struct fsc_buf *b, const char *p, size_t n)
{
    if (w->err)
        return w->err;
    int rc = fsc_buf_append(b, p, n);
    if (rc != 0) {
        w->err = rc;
        return rc;
    }
    return flush_check(w, b);
}
