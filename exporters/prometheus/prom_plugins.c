/* The fabricscope_ families of the plugins and of the daemon: every row of
 * every stats table (base/stats.h) the daemon view writes, rendered
 * without knowing any plugin.
 *
 * Rows are copied first (their strings live only for the callback), then
 * each family is written once, in the order its first column appears in
 * the view's tables: HELP and TYPE, then for every row (in the order they
 * came) the samples of its columns of that family. A sample's labels are
 * its table's keys with the row's values, then the column's own label
 * ("result" = "ok"). Values that are NAN are left out (a gauge not known
 * yet). Bounded: at most MAX_ROWS rows and MAX_FAMILIES families; the rest
 * is not shown. Once per scrape, a few hundred lines: clarity over speed. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "prometheus/prom_render_int.h"

#define MAX_ROWS     4096
#define MAX_FAMILIES 128
#define MAX_COLS     32
#define MAX_LE       32

struct prow {
    const struct fsc_stat_table *t;
    size_t key_off[FSC_STAT_KEYS_MAX]; /* into the strings buffer */
    size_t key_len[FSC_STAT_KEYS_MAX];
    double v[MAX_COLS];
    int has_hist;
    size_t n_le;
    double le[MAX_LE];
    uint64_t bucket[MAX_LE + 1];
    double sum;
};

struct collect {
    struct fsc_prom_renderer *r;
    struct prow *rows;
    size_t n, cap;
    struct fsc_buf *strs;
    int err;
};

static void collect_row(void *arg, const struct fsc_stat_table *t, const char *const *keys,
                        const double *values, const struct fsc_stat_hist *hist)
{
    struct collect *c = arg;
    if (c->err || c->n >= MAX_ROWS)
        return;
    if (c->n == c->cap) {
        size_t cap = c->cap ? 2 * c->cap : 64;
        struct prow *p = realloc(c->rows, cap * sizeof(*p));
        if (!p) {
            c->err = -ENOMEM;
            return;
        }
        c->rows = p;
        c->cap = cap;
    }
    struct prow *row = &c->rows[c->n++];
    memset(row, 0, sizeof(*row));
    row->t = t;
    for (size_t k = 0; k < FSC_STAT_KEYS_MAX && t->keys[k]; k++) {
        const char *s = keys && keys[k] ? keys[k] : "";
        row->key_off[k] = c->strs->len;
        row->key_len[k] = strlen(s);
        fsc_buf_append(c->strs, s, row->key_len[k]);
    }
    for (size_t i = 0; i < t->n_cols && i < MAX_COLS; i++)
        row->v[i] = values ? values[i] : NAN;
    if (hist && hist->n <= MAX_LE) {
        row->has_hist = 1;
        row->n_le = hist->n;
        memcpy(row->le, hist->le, hist->n * sizeof(row->le[0]));
        memcpy(row->bucket, hist->bucket, (hist->n + 1) * sizeof(row->bucket[0]));
        row->sum = hist->sum;
    }
}

struct family {
    const char *name;
    const char *help;
    uint8_t type;
};

/* Families in the order their first column appears in the tables. */
static size_t families(const struct fsc_stat_table *const *tables, struct family *out)
{
    size_t n = 0;
    for (size_t t = 0; tables && tables[t]; t++) {
        for (size_t i = 0; i < tables[t]->n_cols && i < MAX_COLS; i++) {
            const struct fsc_stat_col *col = &tables[t]->cols[i];
            if (!col->family)
                continue;
            size_t f = 0;
            while (f < n && strcmp(out[f].name, col->family) != 0)
                f++;
            if (f == n) {
                if (n == MAX_FAMILIES)
                    continue;
                out[n++] = (struct family){col->family, col->help, col->type};
            } else if (!out[f].help) {
                out[f].help = col->help;
            }
        }
    }
    return n;
}

static void write_family(struct fsc_prom_renderer *r, struct fsc_buf *out, const struct family *fam,
                         const struct collect *c)
{
    static const char *const type_name[] = {"counter", "gauge", "histogram"};
    char sample[160];
    size_t blen = strlen(fam->name);
    if (blen + 7 > sizeof(sample))
        return;
    memcpy(sample, fam->name, blen + 1);
    size_t slen = blen;
    if (fam->type == FSC_STAT_COUNTER) {
        memcpy(sample + blen, "_total", 7);
        slen += 6;
    }
    const char *hname = r->om ? fam->name : sample;
    fsc_prom_header(&r->w, out, hname, strlen(hname), type_name[fam->type <= 2 ? fam->type : 1],
                    fam->help ? fam->help : fam->name, r->om);
    for (size_t i = 0; i < c->n; i++) {
        const struct prow *row = &c->rows[i];
        const struct fsc_stat_table *t = row->t;
        for (size_t k = 0; k < t->n_cols && k < MAX_COLS; k++) {
            const struct fsc_stat_col *col = &t->cols[k];
            if (!col->family || strcmp(col->family, fam->name) != 0)
                continue;
            struct fsc_prom_label ex[FSC_STAT_KEYS_MAX + 1];
            size_t n_ex = 0;
            const char *strs = c->strs->data ? c->strs->data : "";
            for (size_t j = 0; j < FSC_STAT_KEYS_MAX && t->keys[j]; j++)
                ex[n_ex++] = (struct fsc_prom_label){t->keys[j], strlen(t->keys[j]),
                                                     strs + row->key_off[j], row->key_len[j]};
            if (col->label)
                ex[n_ex++] = (struct fsc_prom_label){col->label, strlen(col->label),
                                                     col->label_value, strlen(col->label_value)};
            if (col->type == FSC_STAT_HISTOGRAM) {
                if (!row->has_hist)
                    continue;
                struct fsc_prom_str le[MAX_LE];
                for (size_t b = 0; b < row->n_le; b++) {
                    le[b].len = fsc_prom_fmt_double(le[b].s, row->le[b]);
                    le[b].s[le[b].len] = '\0';
                }
                fsc_prom_histogram(&r->w, out, fam->name, blen, "", 0, ex, n_ex, row->bucket, le,
                                   row->n_le, row->sum);
                continue;
            }
            double v = row->v[k];
            if (isnan(v))
                continue;
            char num[FSC_NUM_MAX];
            size_t len = v >= 0 && v < 18446744073709551616.0 && v == (double)(uint64_t)v
                             ? fsc_fmt_u64(num, (uint64_t)v)
                             : fsc_prom_fmt_double(num, v);
            fsc_prom_sample(&r->w, out, sample, slen, "", 0, "", 0, ex, n_ex, num, len);
        }
    }
}

void fsc_prom_plugins(struct fsc_prom_renderer *r, struct fsc_buf *out)
{
    const struct fsc_daemon_view *view = r->env.view;
    if (!view || !view->stats)
        return;
    struct collect c = {.r = r, .strs = &r->stat_strs};
    fsc_buf_reset(c.strs);
    c.rows = r->stat_rows;
    c.cap = r->cap_stat_rows;
    const struct fsc_stats_out sink = {.row = collect_row, .arg = &c};
    view->stats(view->arg, &sink);
    r->stat_rows = c.rows; /* kept for the next scrape */
    r->cap_stat_rows = c.cap;
    if (c.err || c.strs->failed) {
        r->w.err = c.err ? c.err : -ENOMEM;
        return;
    }
    struct family fam[MAX_FAMILIES];
    size_t n = families(view->tables, fam);
    for (size_t f = 0; f < n; f++) {
        /* A family without rows is left out, as before a plugin runs. */
        int any = 0;
        for (size_t i = 0; i < c.n && !any; i++)
            for (size_t k = 0; k < c.rows[i].t->n_cols && k < MAX_COLS && !any; k++)
                any = c.rows[i].t->cols[k].family &&
                      strcmp(c.rows[i].t->cols[k].family, fam[f].name) == 0;
        if (any)
            write_family(r, out, &fam[f], &c);
    }
}
