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
 * yet).
 *
 * Size: a thousand gNMI devices write ~6 000 rows, so a row is small (its
 * keys, values and histogram go into one byte buffer) and a family finds
 * its columns through a per-table bit mask, not by comparing names.
 * Bounded: at most MAX_ROWS rows (a million: beyond 65 535 sources of 16
 * streams) and MAX_FAMILIES families; rows of a table the view does not
 * declare are not shown. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "prometheus/prom_render_int.h"

#define MAX_ROWS     (1u << 20)
#define MAX_FAMILIES 128
#define MAX_COLS     32
#define MAX_LE       32
#define MAX_TABLES   64
#define NO_HIST      UINT32_MAX

/* One row: offsets into the collect's byte buffer. */
struct prow {
    uint16_t table;                      /* index in the view's tables */
    uint32_t key_off[FSC_STAT_KEYS_MAX]; /* key strings */
    uint32_t key_len[FSC_STAT_KEYS_MAX];
    uint32_t val_off;  /* the table's n_cols doubles (at most MAX_COLS) */
    uint32_t hist_off; /* a struct row_hist, or NO_HIST */
};

struct row_hist {
    size_t n_le;
    double le[MAX_LE];
    uint64_t bucket[MAX_LE + 1];
    double sum;
};

struct collect {
    const struct fsc_stat_table *const *tables;
    size_t n_tables;
    struct prow *rows;
    size_t n, cap;
    struct fsc_buf *bytes; /* keys, values, histograms of every row */
    int err;
};

static uint32_t append(struct collect *c, const void *p, size_t len)
{
    size_t off = c->bytes->len;
    if (off > UINT32_MAX - len) {
        c->err = -E2BIG;
        return 0;
    }
    fsc_buf_append(c->bytes, p, len);
    return (uint32_t)off;
}

static int table_index(const struct collect *c, const struct fsc_stat_table *t)
{
    for (size_t i = 0; i < c->n_tables; i++)
        if (c->tables[i] == t)
            return (int)i;
    return -1;
}

static void collect_row(void *arg, const struct fsc_stat_table *t, const char *const *keys,
                        const double *values, const struct fsc_stat_hist *hist)
{
    struct collect *c = arg;
    int ti = table_index(c, t);
    if (c->err || c->n >= MAX_ROWS || ti < 0)
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
    row->table = (uint16_t)ti;
    for (size_t k = 0; k < FSC_STAT_KEYS_MAX && t->keys[k]; k++) {
        const char *s = keys && keys[k] ? keys[k] : "";
        size_t len = strlen(s);
        row->key_len[k] = (uint32_t)(len < UINT32_MAX ? len : 0);
        row->key_off[k] = append(c, s, row->key_len[k]);
    }
    double v[MAX_COLS];
    size_t n_cols = t->n_cols < MAX_COLS ? t->n_cols : MAX_COLS;
    for (size_t i = 0; i < n_cols; i++)
        v[i] = values ? values[i] : NAN;
    row->val_off = append(c, v, n_cols * sizeof(v[0]));
    row->hist_off = NO_HIST;
    if (hist && hist->n <= MAX_LE) {
        struct row_hist h;
        memset(&h, 0, sizeof(h));
        h.n_le = hist->n;
        memcpy(h.le, hist->le, hist->n * sizeof(h.le[0]));
        memcpy(h.bucket, hist->bucket, (hist->n + 1) * sizeof(h.bucket[0]));
        h.sum = hist->sum;
        row->hist_off = append(c, &h, sizeof(h));
    }
}

struct family {
    const char *name;
    const char *help;
    uint8_t type;
    uint32_t cols[MAX_TABLES]; /* per table: the columns of this family (bit k: column k) */
};

/* Families in the order their first column appears in the tables. */
static size_t families(const struct fsc_stat_table *const *tables, size_t n_tables,
                       struct family *out)
{
    size_t n = 0;
    for (size_t t = 0; t < n_tables; t++) {
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
                memset(&out[n], 0, sizeof(out[n]));
                out[n++] =
                    (struct family){.name = col->family, .help = col->help, .type = col->type};
            } else if (!out[f].help) {
                out[f].help = col->help;
            }
            out[f].cols[t] |= 1u << i;
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
    const char *bytes = c->bytes->data ? c->bytes->data : "";
    for (size_t i = 0; i < c->n; i++) {
        const struct prow *row = &c->rows[i];
        const struct fsc_stat_table *t = c->tables[row->table];
        for (uint32_t mask = fam->cols[row->table]; mask; mask &= mask - 1) {
            size_t k = (size_t)__builtin_ctz(mask);
            const struct fsc_stat_col *col = &t->cols[k];
            struct fsc_prom_label ex[FSC_STAT_KEYS_MAX + 1];
            size_t n_ex = 0;
            for (size_t j = 0; j < FSC_STAT_KEYS_MAX && t->keys[j]; j++)
                ex[n_ex++] = (struct fsc_prom_label){t->keys[j], strlen(t->keys[j]),
                                                     bytes + row->key_off[j], row->key_len[j]};
            if (col->label)
                ex[n_ex++] = (struct fsc_prom_label){col->label, strlen(col->label),
                                                     col->label_value, strlen(col->label_value)};
            if (col->type == FSC_STAT_HISTOGRAM) {
                if (row->hist_off == NO_HIST)
                    continue;
                struct row_hist h;
                memcpy(&h, bytes + row->hist_off, sizeof(h));
                struct fsc_prom_str le[MAX_LE];
                for (size_t b = 0; b < h.n_le; b++) {
                    le[b].len = fsc_prom_fmt_double(le[b].s, h.le[b]);
                    le[b].s[le[b].len] = '\0';
                }
                fsc_prom_histogram(&r->w, out, fam->name, blen, "", 0, ex, n_ex, h.bucket, le,
                                   h.n_le, h.sum);
                continue;
            }
            double v;
            memcpy(&v, bytes + row->val_off + k * sizeof(v), sizeof(v));
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
    struct collect c = {.tables = view->tables, .bytes = &r->stat_strs};
    while (c.tables && c.n_tables < MAX_TABLES && c.tables[c.n_tables])
        c.n_tables++;
    fsc_buf_reset(c.bytes);
    c.rows = r->stat_rows;
    c.cap = r->cap_stat_rows;
    const struct fsc_stats_out sink = {.row = collect_row, .arg = &c};
    view->stats(view->arg, &sink);
    r->stat_rows = c.rows; /* kept for the next scrape */
    r->cap_stat_rows = c.cap;
    if (c.err || c.bytes->failed) {
        r->w.err = c.err ? c.err : -ENOMEM;
        return;
    }
    struct family *fam = calloc(MAX_FAMILIES, sizeof(*fam));
    if (!fam) {
        r->w.err = -ENOMEM;
        return;
    }
    size_t n = families(c.tables, c.n_tables, fam);
    for (size_t f = 0; f < n; f++) {
        /* A family without rows is left out, as before a plugin runs. */
        int any = 0;
        for (size_t i = 0; i < c.n && !any; i++)
            any = fam[f].cols[c.rows[i].table] != 0;
        if (any)
            write_family(r, out, &fam[f], &c);
    }
    free(fam);
}
