/* One series during the raw pass: its raw sample line, and a record of what
 * its derived lines need (prom_derived.c writes those after the raw
 * families).
 *
 * What feeds what (from the series' traits, as the engine's view reports
 * them):
 * - port bytes (signal PORT_BYTES, direction rx/tx): a port record;
 * - counters feeding a spike, storm or evidence detector (CNP, ECN, reorder,
 *   PFC pause frames / duration, buffer threshold) and queue-peak gauges: a
 *   detector record.
 * The raw line needs an accepted sample; records are kept for every present
 * series (detector counters and histograms show 0 before the first sample). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "prometheus/prom_render_int.h"

/* What a raw value is multiplied by to be shown: the table's scale of a
 * family renamed to a base unit (bits as bytes), and a time kept in
 * microseconds or nanoseconds shown in seconds as the name promises (a
 * division, so 2250000 us is exactly 2.25 s: fsc_unit_divisor). */
static double family_scale(const struct fsc_prom_family *f)
{
    return f->mf && f->mf->scale != 0 ? f->mf->scale : 1.0;
}

static size_t raw_value(const struct fsc_prom_family *f, const struct fsc_series_view *v, char *num)
{
    double div = fsc_unit_divisor(v->unit), scale = family_scale(f);
    if (div != 1.0 || scale != 1.0)
        return fsc_prom_fmt_double(num,
                                   (v->is_f64 ? v->value.d : (double)v->value.u) / div * scale);
    return v->is_f64 ? fsc_prom_fmt_double(num, v->value.d) : fsc_fmt_u64(num, v->value.u);
}

/* Makes room for one more record in *arr (capacity *cap, doubling); the
 * arrays are kept across renders, so this allocates only while they grow. */
static void *rec_slot(struct fsc_prom_renderer *r, void **arr, size_t *n, size_t *cap, size_t elem)
{
    if (*n == *cap) {
        size_t c = *cap ? *cap * 2 : 256;
        void *p = c <= SIZE_MAX / elem ? realloc(*arr, c * elem) : NULL;
        if (!p) {
            r->w.err = -ENOMEM;
            return NULL;
        }
        *arr = p;
        *cap = c;
    }
    return (char *)*arr + (*n)++ * elem;
}

static void port_record(struct fsc_prom_renderer *r, uint32_t block,
                        const struct fsc_series_view *v)
{
    if (v->direction != FSC_DIR_RX && v->direction != FSC_DIR_TX)
        return; /* rx and tx of one port would be indistinguishable */
    struct fsc_prom_port_rec *p =
        rec_slot(r, (void **)&r->ports, &r->n_ports, &r->cap_ports, sizeof(*p));
    if (!p)
        return;
    p->block = block;
    p->dir = v->direction;
    /* "The" rate: the shortest window the series emits (a 2 s copy has no
     * 1 s window; its 10 s one stands in). */
    p->rate = v->has_value && (v->windows_done & (1u << v->rate_level));
    p->done = v->has_value ? v->windows_done : 0;
    p->util = v->has_util;
    p->speed = (double)v->link_speed_bps;
    p->bytes_per_s = v->window_rate[v->rate_level];
    for (unsigned l = 0; l < r->n_windows; l++)
        p->peak[l] = v->window_peak[l];
    p->events = v->events;
    p->bursts = v->bursts;
    if (v->has_util) {
        p->hu = v->util;
        p->hd = v->microburst_duration;
    }
}

/* The detector family of a signal, or -1. */
static int detector_family(uint8_t signal)
{
    switch (signal) {
    case FSC_SIG_CNP:
        return FSC_PD_CNP;
    case FSC_SIG_ECN:
        return FSC_PD_ECN;
    case FSC_SIG_REORDER:
        return FSC_PD_REORDER;
    case FSC_SIG_PFC_PAUSE_DURATION:
    case FSC_SIG_PFC_PAUSE_FRAMES:
        return FSC_PD_PFC;
    case FSC_SIG_QUEUE_PEAK:
    case FSC_SIG_LATENCY_PEAK:
    case FSC_SIG_BUFFER_THRESHOLD:
        return FSC_PD_EVIDENCE;
    default:
        return -1;
    }
}

static void det_record(struct fsc_prom_renderer *r, const struct fsc_prom_family *f, uint32_t block,
                       const struct fsc_series_view *v)
{
    int d = detector_family(v->signal);
    if (d < 0)
        return;
    struct fsc_prom_det_rec *p =
        rec_slot(r, (void **)&r->dets, &r->n_dets, &r->cap_dets, sizeof(*p));
    if (!p)
        return;
    p->block = block;
    p->family = (uint8_t)d;
    /* Only counters have a rate (a queue peak is a gauge); only peak gauges
     * a trailing maximum. */
    p->rate = v->signal != FSC_SIG_QUEUE_PEAK && v->kind == FSC_KIND_COUNTER && v->has_value &&
              (v->windows_done & (1u << v->rate_level));
    p->max = v->has_value && v->has_peak_max;
    for (unsigned w = 0; p->max && w < FSC_PEAK_MAX_WINDOWS; w++)
        p->peak_max[w] = v->peak_max[w] / fsc_unit_divisor(v->unit) * family_scale(f);
    p->fam = f;
    p->per_s = v->window_rate[v->rate_level] / fsc_unit_divisor(v->unit) * family_scale(f);
    p->events = v->events;
}

void fsc_prom_series(struct fsc_prom_renderer *r, struct fsc_prom_family *f, fsc_series_id id,
                     const struct fsc_series_view *v, struct fsc_prom_rawctx *raw,
                     struct fsc_buf *out)
{
    uint32_t block = r->ix.ser[id].block;

    if (f->type == FSC_PROM_PENDING && fsc_prom_family_resolve(&r->ix, f, v->kind, v->expo) != 0) {
        r->w.err = -ENOMEM;
        return;
    }
    if (f->type == FSC_PROM_HISTOGRAM)
        return; /* got its hint after this render sorted: shown from the next */
    fsc_topo_info_show(&r->ix.infos, r->ix.ser[id].info, r->gen);
    if (v->has_value) {
        /* A family that shares its exposition name with the one that opened
         * the header joins it only when it exposes alike. */
        int ok = 1;
        if (!raw->hdr) {
            const char *name = r->om ? f->om_name : f->sample_name;
            size_t name_len = r->om ? f->om_len : f->sample_len;
            uint8_t type = f->type == FSC_PROM_COUNTER ? FSC_MF_COUNTER : FSC_MF_GAUGE;
            const char *help = f->mf ? f->mf->help : fsc_metric_unlisted_help(f->metric, type);
            fsc_prom_header(&r->w, out, name, name_len,
                            f->type == FSC_PROM_COUNTER ? "counter" : "gauge", help, r->om);
            raw->hdr = f;
        } else if (raw->hdr != f) {
            ok = raw->hdr->type == f->type && strcmp(raw->hdr->sample_name, f->sample_name) == 0;
        }
        if (ok) {
            const struct fsc_prom_block *blk = &r->ix.blocks[block];
            char num[FSC_NUM_MAX];
            size_t nl = raw_value(f, v, num);
            fsc_prom_sample(&r->w, out, f->sample_name, f->sample_len, "", 0, r->ix.text + blk->off,
                            blk->len, NULL, 0, num, nl);
        }
    }
    if (v->signal == FSC_SIG_PORT_BYTES)
        port_record(r, block, v);
    else if (v->signal != FSC_SIG_NONE)
        det_record(r, f, block, v);
}
