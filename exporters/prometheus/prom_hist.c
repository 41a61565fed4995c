/* A histogram a source keeps as separate counters, exposed as one histogram
 * family (see fsc_prom_hist_family in prom_render_int.h).
 *
 * The OTLP receiver keeps a histogram point as counter series
 * `<base>_bucket{...,le}` (cumulative over buckets), `<base>_count{...}` and
 * `<base>_sum{...}`, each marked with its part in traits.expo. They are
 * three registry metrics, so three raw families (prom_index.c names them
 * after <base> and sorts them next to each other, _bucket, _count, _sum);
 * here they become
 *
 *   # TYPE <base> histogram
 *   <base>_bucket{<labels>,le="<bound>"} ...   increasing le, +Inf last
 *   <base>_count{<labels>} ...
 *   <base>_sum{<labels>} ...
 *
 * label set by label set, as both formats want (OpenMetrics: the samples of
 * one label set together, buckets sorted by le). The values are the raw
 * counters as the device reported them, like every raw family.
 *
 * Two passes: the views of the parts' series are copied in chunks (one
 * engine lock hold each, staleness decided as for any series) into
 * r->hvals, then the parts' id lists, each ordered once by label set and
 * le (fsc_prom_family_hist_order), are merged by label set and written.
 * OpenMetrics allows _count only together with _sum (and the strict parsers
 * insist), so there a label set without a sum shows its buckets only. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "prometheus/prom_render_int.h"

/* Makes room for n values in r->hvals (kept across renders). */
static int hvals_reserve(struct fsc_prom_renderer *r, size_t n)
{
    if (n <= r->cap_hvals)
        return 0;
    size_t c = r->cap_hvals ? r->cap_hvals : 256;
    while (c < n)
        c *= 2;
    void *p = c <= SIZE_MAX / sizeof(*r->hvals) ? realloc(r->hvals, c * sizeof(*r->hvals)) : NULL;
    if (!p)
        return -ENOMEM;
    r->hvals = p;
    r->cap_hvals = c;
    return 0;
}

/* Copies what the lines of f's series need into val[0 .. f->n_ids). */
static void hist_values(struct fsc_prom_renderer *r, const struct fsc_prom_family *f,
                        struct fsc_prom_hval *val)
{
    for (uint32_t i = 0; i < f->n_ids; i += FSC_PROM_CHUNK) {
        size_t n = f->n_ids - i < FSC_PROM_CHUNK ? f->n_ids - i : FSC_PROM_CHUNK;
        const fsc_series_id *ids = f->ids + i;
        fsc_engine_view_ids(r->env.eng, ids, n, r->views);
        for (size_t k = 0; k < n; k++) {
            const struct fsc_series_view *v = &r->views[k];
            struct fsc_prom_hval *h = &val[i + k];
            h->ok = v->present && !r->ix.ser[ids[k]].superseded && !fsc_prom_stale(r, ids[k], v) &&
                    v->has_value;
            if (h->ok)
                fsc_topo_info_show(&r->ix.infos, r->ix.ser[ids[k]].info, r->gen);
            h->f64 = v->is_f64;
            h->v = v->value;
        }
    }
}

/* The family being written: its header goes out before its first line. */
struct hist_out {
    struct fsc_prom_renderer *r;
    struct fsc_buf *out;
    const struct fsc_prom_family *name; /* any part: om_name is the base */
    int headed;
};

static void hist_line(struct hist_out *h, const char *suffix, size_t suffix_len, uint32_t base,
                      const char *le, const struct fsc_prom_hval *val)
{
    struct fsc_prom_renderer *r = h->r;
    const struct fsc_prom_family *f = h->name;
    if (!h->headed) {
        const char *help =
            f->mf ? f->mf->help : fsc_metric_unlisted_help(f->metric, FSC_MF_HISTOGRAM);
        fsc_prom_header(&r->w, h->out, f->om_name, f->om_len, "histogram", help, r->om);
        h->headed = 1;
    }
    char num[FSC_NUM_MAX];
    size_t nl = val->f64 ? fsc_prom_fmt_double(num, val->v.d) : fsc_fmt_u64(num, val->v.u);
    const struct fsc_prom_block *blk = &r->ix.blocks[base];
    const struct fsc_prom_label ex = {"le", 2, le, le ? strlen(le) : 0};
    fsc_prom_sample(&r->w, h->out, f->om_name, f->om_len, suffix, suffix_len, r->ix.text + blk->off,
                    blk->len, &ex, le ? 1 : 0, num, nl);
}

void fsc_prom_hist_family(struct fsc_prom_renderer *r, struct fsc_prom_family *const *fams,
                          size_t n, struct fsc_buf *out)
{
    /* The parts by kind; one raw family each (their metric names differ by
     * exactly the suffix). */
    struct fsc_prom_family *part[FSC_EXPO_HIST_SUM + 1] = {NULL};
    size_t total = 0;
    for (size_t k = 0; k < n; k++) {
        struct fsc_prom_family *f = fams[k];
        if (f->part < FSC_EXPO_HIST_BUCKET || f->part > FSC_EXPO_HIST_SUM || part[f->part])
            continue;
        if (fsc_prom_family_hist_order(&r->ix, f) != 0) {
            r->w.err = -ENOMEM;
            return;
        }
        part[f->part] = f;
        total += f->n_ids;
    }
    if (hvals_reserve(r, total) != 0) {
        r->w.err = -ENOMEM;
        return;
    }
    struct fsc_prom_hval *val[FSC_EXPO_HIST_SUM + 1] = {NULL};
    size_t off = 0;
    for (int p = FSC_EXPO_HIST_BUCKET; p <= FSC_EXPO_HIST_SUM; p++) {
        if (!part[p])
            continue;
        val[p] = r->hvals + off;
        hist_values(r, part[p], val[p]);
        off += part[p]->n_ids;
    }

    /* Merge by label set: each part's ids are ordered by base block. */
    struct hist_out h = {r, out, fams[0], 0};
    uint32_t pos[FSC_EXPO_HIST_SUM + 1] = {0}, end[FSC_EXPO_HIST_SUM + 1] = {0};
    while (!r->w.err) {
        uint32_t base = UINT32_MAX;
        for (int p = FSC_EXPO_HIST_BUCKET; p <= FSC_EXPO_HIST_SUM; p++)
            if (part[p] && pos[p] < part[p]->n_ids && part[p]->hist[pos[p]].base < base)
                base = part[p]->hist[pos[p]].base;
        if (base == UINT32_MAX)
            break; /* every part consumed */
        for (int p = FSC_EXPO_HIST_BUCKET; p <= FSC_EXPO_HIST_SUM; p++) {
            end[p] = pos[p];
            while (part[p] && end[p] < part[p]->n_ids && part[p]->hist[end[p]].base == base)
                end[p]++;
        }
        /* A label set has one _count and one _sum series (same labels, same
         * metric: one series); the last with a value stands for each. */
        const struct fsc_prom_hval *count = NULL, *sum = NULL;
        for (uint32_t i = pos[FSC_EXPO_HIST_COUNT]; i < end[FSC_EXPO_HIST_COUNT]; i++)
            if (val[FSC_EXPO_HIST_COUNT][i].ok)
                count = &val[FSC_EXPO_HIST_COUNT][i];
        for (uint32_t i = pos[FSC_EXPO_HIST_SUM]; i < end[FSC_EXPO_HIST_SUM]; i++)
            if (val[FSC_EXPO_HIST_SUM][i].ok)
                sum = &val[FSC_EXPO_HIST_SUM][i];

        for (uint32_t i = pos[FSC_EXPO_HIST_BUCKET]; i < end[FSC_EXPO_HIST_BUCKET]; i++) {
            const struct fsc_prom_hpos *hp = &part[FSC_EXPO_HIST_BUCKET]->hist[i];
            if (val[FSC_EXPO_HIST_BUCKET][i].ok && hp->le) /* no le: not a bucket */
                hist_line(&h, "_bucket", 7, base, hp->le, &val[FSC_EXPO_HIST_BUCKET][i]);
        }
        if (count && (sum || !r->om))
            hist_line(&h, "_count", 6, base, NULL, count);
        if (sum && (count || !r->om))
            hist_line(&h, "_sum", 4, base, NULL, sum);
        for (int p = FSC_EXPO_HIST_BUCKET; p <= FSC_EXPO_HIST_SUM; p++)
            pos[p] = end[p];
    }
}
