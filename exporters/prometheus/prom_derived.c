/* The derived families of docs/METRICS.md, written after the raw families
 * from the records the raw pass kept (prom_series.c), straight into the
 * output: one family at a time, so each is contiguous, with its header
 * before its first line and no header when it has no line.
 *
 * - topology records (model/topo_info.h) a shown series refers to: fabric_port_info,
 *   fabric_nic_info, fabric_node_info, value 1;
 * - port records: bytes_per_second, and with a link speed utilization_ratio
 *   and utilization_peak_ratio{window} (once a window completed); with a
 *   microburst detector (has_util) the fine-utilization histogram,
 *   microbursts_total, bursts_total and the microburst duration histogram;
 * - detector records: per counter its own rate family (`rate` of its row in
 *   model/metric_families.h, once a window completed: one unit per family,
 *   no metric name in a label), per peak gauge its trailing maxima
 *   (`max`{window="15s"|"60s"}), and their detector's counter{signal};
 * - port groups: imbalance ratio and events{group}.
 * A series that already has a label the renderer would add (direction,
 * window, signal, le) keeps its own and does not get ours; for `le` its
 * histograms are left out (they would be ambiguous). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "prometheus/prom_render_int.h"

#define LBL(n, v, vl) ((struct fsc_prom_label){(n), sizeof(n) - 1, (v), (vl)})

static const char *const dir_name[3] = {"", "rx", "tx"};

/* One derived family being written: its header goes out before the first
 * line. */
struct dfam {
    struct fsc_prom_renderer *r;
    struct fsc_buf *out;
    const struct fsc_prom_fdesc *desc;
    size_t name_len;
    int headed;
    const char *help; /* NULL: the table's HELP of desc->sample */
};

static void dfam_open(struct dfam *d, struct fsc_prom_renderer *r, struct fsc_buf *out,
                      enum fsc_prom_derived which)
{
    d->r = r;
    d->out = out;
    d->desc = &fsc_prom_derived_desc[which];
    d->name_len = strlen(d->desc->sample);
    d->headed = 0;
    d->help = NULL;
}

static void dfam_head(struct dfam *d)
{
    if (d->headed)
        return;
    if (d->help) {
        const char *name = d->r->om ? d->desc->base : d->desc->sample;
        fsc_prom_header(&d->r->w, d->out, name, strlen(name), d->desc->type, d->help, d->r->om);
    } else {
        fsc_prom_family_header(d->r, d->out, d->desc);
    }
    d->headed = 1;
}

static void dline(struct dfam *d, const struct fsc_prom_block *blk, const struct fsc_prom_label *ex,
                  size_t n_ex, const char *num, size_t num_len)
{
    dfam_head(d);
    const char *block = blk ? d->r->ix.text + blk->off : "";
    fsc_prom_sample(&d->r->w, d->out, d->desc->sample, d->name_len, "", 0, block,
                    blk ? blk->len : 0, ex, n_ex, num, num_len);
}

static void dline_u64(struct dfam *d, const struct fsc_prom_block *blk,
                      const struct fsc_prom_label *ex, size_t n_ex, uint64_t v)
{
    char num[FSC_NUM_MAX];
    dline(d, blk, ex, n_ex, num, fsc_fmt_u64(num, v));
}

static void dline_f64(struct dfam *d, const struct fsc_prom_block *blk,
                      const struct fsc_prom_label *ex, size_t n_ex, double v)
{
    char num[FSC_NUM_MAX];
    dline(d, blk, ex, n_ex, num, fsc_prom_fmt_double(num, v));
}

/* The direction label of a port record, unless the series has its own. */
static size_t port_labels(const struct fsc_prom_port_rec *p, const struct fsc_prom_block *blk,
                          struct fsc_prom_label *ex)
{
    if (blk->reserved & FSC_PROM_RES_DIRECTION)
        return 0;
    ex[0] = LBL("direction", dir_name[p->dir], 2);
    return 1;
}

static void port_families(struct fsc_prom_renderer *r, struct fsc_buf *out)
{
    const struct fsc_prom_block *blocks = r->ix.blocks;
    struct fsc_prom_label ex[2];
    struct dfam d;

    dfam_open(&d, r, out, FSC_PD_PORT_RATE);
    for (size_t i = 0; i < r->n_ports && !r->w.err; i++) {
        const struct fsc_prom_port_rec *p = &r->ports[i];
        const struct fsc_prom_block *blk = &blocks[p->block];
        if (p->rate)
            dline_f64(&d, blk, ex, port_labels(p, blk, ex), fsc_round_float(p->bytes_per_s));
    }
    dfam_open(&d, r, out, FSC_PD_UTIL);
    for (size_t i = 0; i < r->n_ports && !r->w.err; i++) {
        const struct fsc_prom_port_rec *p = &r->ports[i];
        const struct fsc_prom_block *blk = &blocks[p->block];
        if (p->rate && p->speed > 0)
            dline_f64(&d, blk, ex, port_labels(p, blk, ex),
                      fsc_round_float(p->bytes_per_s * 8.0 / p->speed));
    }
    dfam_open(&d, r, out, FSC_PD_UTIL_PEAK);
    for (size_t i = 0; i < r->n_ports && !r->w.err; i++) {
        const struct fsc_prom_port_rec *p = &r->ports[i];
        const struct fsc_prom_block *blk = &blocks[p->block];
        if (!p->rate || p->speed <= 0 || (blk->reserved & FSC_PROM_RES_WINDOW))
            continue;
        size_t n = port_labels(p, blk, ex);
        for (unsigned l = 0; l < r->n_windows; l++) {
            if (!(p->done & (1u << l)))
                continue; /* no window of that width has completed yet */
            ex[n] = LBL("window", r->window[l].s, r->window[l].len);
            dline_f64(&d, blk, ex, n + 1, fsc_round_float(p->peak[l] * 8.0 / p->speed));
        }
    }
    dfam_open(&d, r, out, FSC_PD_FINE_UTIL);
    for (size_t i = 0; i < r->n_ports && !r->w.err; i++) {
        const struct fsc_prom_port_rec *p = &r->ports[i];
        const struct fsc_prom_block *blk = &blocks[p->block];
        if (!p->util || (blk->reserved & FSC_PROM_RES_LE))
            continue;
        dfam_head(&d);
        fsc_prom_histogram(&r->w, out, d.desc->sample, d.name_len, r->ix.text + blk->off, blk->len,
                           ex, port_labels(p, blk, ex), p->hu.bucket, r->util_le, FSC_UTIL_BUCKETS,
                           p->hu.sum);
    }
}

/* ---- topology ---------------------------------------------------------- */

/* Formats record i's three label texts into the arena. Returns 0 or
 * -ENOMEM. */
static int info_text_make(struct fsc_prom_renderer *r, uint32_t i)
{
    static const enum fsc_info_family fam[3] = {FSC_INFO_PORT, FSC_INFO_NIC, FSC_INFO_NODE};
    const struct fsc_topo_info *rec = &r->ix.infos.rec[i];
    struct fsc_prom_info_text *it = &r->info_text[i];
    struct fsc_topo_label tl[FSC_TOPO_LABELS_MAX];
    for (int f = 0; f < 3; f++) {
        size_t n = fsc_topo_info_labels(rec, fam[f], tl), bound = 0;
        for (size_t k = 0; k < n; k++)
            bound += strlen(tl[k].name) + 2 * tl[k].value_len + 4;
        if (fsc_buf_reserve(&r->info_arena, bound + 1) != 0)
            return -ENOMEM;
        char *start = r->info_arena.data + r->info_arena.len, *p = start;
        for (size_t k = 0; k < n; k++) {
            size_t nl = strlen(tl[k].name);
            if (k > 0)
                *p++ = ',';
            memcpy(p, tl[k].name, nl);
            p += nl;
            *p++ = '=';
            *p++ = '"';
            p = fsc_prom_escape_label(p, tl[k].value, tl[k].value_len);
            *p++ = '"';
        }
        it->off[f] = (uint32_t)r->info_arena.len;
        it->len[f] = (uint32_t)(p - start);
        r->info_arena.len += it->len[f];
        r->info_arena.data[r->info_arena.len] = '\0';
    }
    it->version = rec->version;
    it->valid = 1;
    return 0;
}

/* Makes every shown record's text current. The arena only grows when a
 * record changes (a re-cabling); once it holds more than twice the live
 * text it is rebuilt, so it stays bounded. Returns 0 or -ENOMEM. */
static int info_texts(struct fsc_prom_renderer *r)
{
    const struct fsc_topo_infos *t = &r->ix.infos;
    if (t->n > r->cap_info_text) {
        void *p = realloc(r->info_text, (size_t)t->n * sizeof(*r->info_text));
        if (!p)
            return -ENOMEM;
        r->info_text = p;
        memset(r->info_text + r->cap_info_text, 0,
               (size_t)(t->n - r->cap_info_text) * sizeof(*r->info_text));
        r->cap_info_text = t->n;
    }
    size_t live = 0;
    for (uint32_t i = 0; i < t->n; i++)
        if (r->info_text[i].valid)
            live +=
                (size_t)r->info_text[i].len[0] + r->info_text[i].len[1] + r->info_text[i].len[2];
    if (r->info_arena.len > 2 * live + 65536) {
        fsc_buf_reset(&r->info_arena);
        for (uint32_t i = 0; i < t->n; i++)
            r->info_text[i].valid = 0;
    }
    for (uint32_t i = 0; i < t->n; i++) {
        const struct fsc_prom_info_text *it = &r->info_text[i];
        if (t->shown[i] == r->gen && (!it->valid || it->version != t->rec[i].version) &&
            info_text_make(r, i) != 0)
            return -ENOMEM;
    }
    return 0;
}

static void info_families(struct fsc_prom_renderer *r, struct fsc_buf *out)
{
    const struct fsc_topo_infos *t = &r->ix.infos;
    if (t->n == 0)
        return;
    if (info_texts(r) != 0) {
        r->w.err = -ENOMEM;
        return;
    }
    struct dfam d;
    for (int which = FSC_PD_PORT_INFO; which <= FSC_PD_NODE_INFO; which++) {
        int f = which - FSC_PD_PORT_INFO;
        dfam_open(&d, r, out, (enum fsc_prom_derived)which);
        for (uint32_t i = 0; i < t->n && !r->w.err; i++) {
            const struct fsc_prom_info_text *it = &r->info_text[i];
            if (t->shown[i] != r->gen || it->len[f] == 0)
                continue;
            dfam_head(&d);
            fsc_prom_sample(&r->w, out, d.desc->sample, d.name_len, "", 0,
                            r->info_arena.data + it->off[f], it->len[f], NULL, 0, "1", 1);
        }
    }
}

/* ---- detector records -------------------------------------------------- */

/* The `signal` label of a detector counter: its exposed name without
 * "fabric_", the scope word ("port_", "nic_") and "_total": a short name of
 * a closed set (docs/METRICS.md), not a metric name. */
static struct fsc_prom_label signal_label(const struct fsc_prom_family *f)
{
    const char *s = f->om_name;
    size_t n = f->om_len;
    static const char *const cut[] = {"fabric_", "port_", "nic_"};
    for (size_t i = 0; i < sizeof(cut) / sizeof(cut[0]); i++) {
        size_t k = strlen(cut[i]);
        if (n > k && strncmp(s, cut[i], k) == 0) {
            s += k;
            n -= k;
        }
    }
    return (struct fsc_prom_label){"signal", 6, s, n};
}

/* Opens the family a detector record's rate (max: 0) or trailing maximum
 * (max: 1) goes to: its table row's `rate` / `max`, else a name built from
 * the counter's (a family the table does not list; the tests' only). */
static void derived_open(struct dfam *d, struct fsc_prom_fdesc *desc, char *name, size_t cap,
                         struct fsc_prom_renderer *r, struct fsc_buf *out,
                         const struct fsc_prom_family *f, int max)
{
    const char *listed = f->mf ? (max ? f->mf->max : f->mf->rate) : NULL;
    if (listed)
        snprintf(name, cap, "%s", listed);
    else
        snprintf(name, cap, "%s_%s", f->om_name, max ? "max" : "per_second");
    *desc = (struct fsc_prom_fdesc){name, name, "gauge"};
    d->r = r;
    d->out = out;
    d->desc = desc;
    d->name_len = strlen(name);
    d->headed = 0;
    d->help = listed ? NULL
                     : (max ? "Trailing maximum of a peak gauge the family table does not list."
                            : "Window rate of a detector counter the family table does not "
                              "list, per second.");
}

/* One rate family per detector counter (its records are adjacent: the raw
 * pass wrote them family by family). */
static void rate_families(struct fsc_prom_renderer *r, struct fsc_buf *out, int max)
{
    char name[FSC_REGISTRY_NAME_MAX + 16];
    struct fsc_prom_fdesc desc;
    struct fsc_prom_label ex[1];
    struct dfam d = {0};
    const struct fsc_prom_family *cur = NULL;
    for (size_t i = 0; i < r->n_dets && !r->w.err; i++) {
        const struct fsc_prom_det_rec *p = &r->dets[i];
        if (max ? !p->max : !p->rate)
            continue;
        if (p->fam != cur) {
            cur = p->fam;
            derived_open(&d, &desc, name, sizeof(name), r, out, cur, max);
        }
        const struct fsc_prom_block *blk = &r->ix.blocks[p->block];
        if (!max) {
            dline_f64(&d, blk, NULL, 0, fsc_round_float(p->per_s));
            continue;
        }
        if (blk->reserved & FSC_PROM_RES_WINDOW)
            continue;
        for (unsigned w = 0; w < FSC_PEAK_MAX_WINDOWS; w++) {
            ex[0] = LBL("window", r->peak_window[w].s, r->peak_window[w].len);
            dline_f64(&d, blk, ex, 1, p->peak_max[w]);
        }
    }
}

/* A detector's event counters, one line per record of that detector. */
static void detector_families(struct fsc_prom_renderer *r, struct fsc_buf *out,
                              enum fsc_prom_derived which)
{
    struct fsc_prom_label ex[1];
    struct dfam d;

    dfam_open(&d, r, out, which);
    for (size_t i = 0; i < r->n_dets && !r->w.err; i++) {
        const struct fsc_prom_det_rec *p = &r->dets[i];
        if (p->family != which)
            continue;
        const struct fsc_prom_block *blk = &r->ix.blocks[p->block];
        size_t n = 0;
        if (!(blk->reserved & FSC_PROM_RES_SIGNAL))
            ex[n++] = signal_label(p->fam);
        dline_u64(&d, blk, ex, n, p->events);
    }
}

/* Burst counters and the duration histogram of port records. */
static void burst_families(struct fsc_prom_renderer *r, struct fsc_buf *out)
{
    const struct fsc_prom_block *blocks = r->ix.blocks;
    struct fsc_prom_label ex[1];
    struct dfam d;

    for (int which = FSC_PD_MICROBURST; which <= FSC_PD_BURST; which++) {
        dfam_open(&d, r, out, (enum fsc_prom_derived)which);
        for (size_t i = 0; i < r->n_ports && !r->w.err; i++) {
            const struct fsc_prom_port_rec *p = &r->ports[i];
            const struct fsc_prom_block *blk = &blocks[p->block];
            if (p->util)
                dline_u64(&d, blk, ex, port_labels(p, blk, ex),
                          which == FSC_PD_MICROBURST ? p->events : p->bursts);
        }
    }
    dfam_open(&d, r, out, FSC_PD_MB_DUR);
    for (size_t i = 0; i < r->n_ports && !r->w.err; i++) {
        const struct fsc_prom_port_rec *p = &r->ports[i];
        const struct fsc_prom_block *blk = &blocks[p->block];
        if (!p->util || (blk->reserved & FSC_PROM_RES_LE))
            continue;
        dfam_head(&d);
        fsc_prom_histogram(&r->w, out, d.desc->sample, d.name_len, r->ix.text + blk->off, blk->len,
                           ex, port_labels(p, blk, ex), p->hd.bucket, r->dur_le,
                           FSC_DURATION_BUCKETS, p->hd.sum);
    }
}

/* The port groups' imbalance ratio and events, named as topology.groups
 * (the daemon adds groups in that order); a group beyond the topology is
 * named by its number. */
static void group_families(struct fsc_prom_renderer *r, struct fsc_buf *out)
{
    const struct fsc_topology *topo = fsc_topology_of(r->env.cfg);
    uint32_t n = fsc_engine_group_count(r->env.eng);

    for (int which = FSC_PD_IMB_RATIO; which <= FSC_PD_IMB_EVENTS; which++) {
        struct dfam d;
        dfam_open(&d, r, out, (enum fsc_prom_derived)which);
        for (uint32_t g = 0; g < n && !r->w.err; g++) {
            struct fsc_group_view gv;
            if (fsc_engine_group_view(r->env.eng, g, &gv) != 0 || !gv.present)
                continue;
            char numname[FSC_NUM_MAX];
            struct fsc_prom_label ex[1];
            if (g < topo->n_groups)
                ex[0] = (struct fsc_prom_label){"group", 5, topo->groups[g].name,
                                                strlen(topo->groups[g].name)};
            else
                ex[0] = (struct fsc_prom_label){"group", 5, numname, fsc_fmt_u64(numname, g)};
            if (which == FSC_PD_IMB_RATIO)
                dline_f64(&d, NULL, ex, 1, gv.ratio);
            else
                dline_u64(&d, NULL, ex, 1, gv.events);
        }
    }
}

void fsc_prom_derived(struct fsc_prom_renderer *r, struct fsc_buf *out)
{
    info_families(r, out);    /* fabric_port_info, fabric_nic_info, fabric_node_info */
    port_families(r, out);    /* bytes/s .. fine utilization */
    rate_families(r, out, 0); /* <counter>_per_second */
    rate_families(r, out, 1); /* <peak>_max{window} */
    burst_families(r, out);   /* microbursts, bursts, durations */
    for (int d = FSC_PD_CNP; d <= FSC_PD_EVIDENCE; d++)
        detector_families(r, out, (enum fsc_prom_derived)d);
    group_families(r, out);
}
