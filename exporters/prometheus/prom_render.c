/* The Prometheus renderer: one pass over every indexed series, family by
 * family (see prom_render.h for the contract, prom_render_int.h for the
 * files).
 *
 * Order of the exposition, stable from scrape to scrape:
 *   1. raw families (one per registry metric name) sorted by name; inside a
 *      family, series in creation order (a new series comes last); the
 *      parts of a histogram a source keeps as counters (traits.expo) make
 *      one histogram family, label set by label set (prom_hist.c);
 *   2. derived families in docs/METRICS.md order; inside each, series in the
 *      order of the raw families they come from, then creation order;
 *   3. fabricscope_ self-metrics in docs/METRICS.md order;
 *   4. "# EOF" (OpenMetrics only).
 * Families without a sample are left out. At most
 * exporters.prometheus.max_series series are indexed, the first created:
 * later ids are never exposed (per-source limits are the registry's).
 *
 * Locking: views are copied FSC_PROM_CHUNK ids at a time with
 * fsc_engine_view_ids() (one lock hold each) and formatted outside the lock;
 * the registry is read lock-free. Every view is copied exactly once: raw
 * lines go straight into `out`, and what the derived lines need is recorded
 * during the same pass (prom_series.c) and written after the raw families
 * (prom_derived.c), also straight into `out`. Nothing is written twice.
 *
 * Staleness (decided here, per series), on the local clock only:
 * - value lines need an accepted sample (has_value);
 * - a series whose device time t_last has not moved for stale_after of
 *   local time (now_ns, compared only with earlier now_ns: the renderer
 *   notes when it saw each series' t_last change) is left out entirely,
 *   until its time moves again. Device times are never compared with
 *   anything but the same series' earlier ones, so no series can hide
 *   another: neither a device clock off by any amount nor one point dated
 *   2200 (were the source's newest device time the reference, one future
 *   point would hide every other series of its source);
 * - a series with engine state but no accepted sample yet (traits set by
 *   its source) shows only its detector counters and histograms, at 0, so
 *   rate() sees a port's first microburst as an increase; it is left out
 *   once no series of its source has moved for stale_after (the source is
 *   gone). */
#include "base/clock.h"
#include "prometheus/prom_render_int.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

const struct fsc_prom_fdesc fsc_prom_derived_desc[FSC_PD__COUNT] = {
    [FSC_PD_PORT_RATE] =
        {"fabric_port_bytes_per_second", "fabric_port_bytes_per_second", "gauge",
         "Port rate over the last completed aligned window of the first configured "
         "width, bytes per second."},
    [FSC_PD_UTIL] = {"fabric_port_utilization_ratio", "fabric_port_utilization_ratio", "gauge",
                     "Port rate over the last completed aligned window of the first width divided "
                     "by the link speed (0..1)."},
    [FSC_PD_UTIL_PEAK] = {"fabric_port_utilization_peak_ratio",
                          "fabric_port_utilization_peak_ratio", "gauge",
                          "Largest fine-interval utilization inside the last completed window of "
                          "each configured width."},
    [FSC_PD_FINE_UTIL] = {"fabric_port_fine_utilization_ratio",
                          "fabric_port_fine_utilization_ratio", "histogram",
                          "Utilization of every fine (sample to sample) interval."},
    [FSC_PD_RATE] = {"fabric_rate_per_second", "fabric_rate_per_second", "gauge",
                     "Per-second rate over the last completed window of the first width, for "
                     "counters that feed a detector."},
    [FSC_PD_MICROBURST] = {"fabric_microbursts", "fabric_microbursts_total", "counter",
                           "Bursts shorter than engine.microburst.micro_max."},
    [FSC_PD_BURST] = {"fabric_bursts", "fabric_bursts_total", "counter",
                      "Bursts lasting engine.microburst.micro_max or longer."},
    [FSC_PD_MB_DUR] = {"fabric_microburst_duration_seconds", "fabric_microburst_duration_seconds",
                       "histogram", "Durations of microbursts, seconds."},
    [FSC_PD_CNP] = {"fabric_cnp_spikes", "fabric_cnp_spikes_total", "counter",
                    "CNP spikes (np_cnp_sent, rp_cnp_handled)."},
    [FSC_PD_ECN] = {"fabric_ecn_spikes", "fabric_ecn_spikes_total", "counter",
                    "ECN-mark spikes (NIC or switch queue)."},
    [FSC_PD_REORDER] = {"fabric_reorder_spikes", "fabric_reorder_spikes_total", "counter",
                        "Reorder spikes (out_of_sequence, packet_seq_err)."},
    [FSC_PD_PFC] = {"fabric_pfc_storms", "fabric_pfc_storms_total", "counter", "PFC pause storms."},
    [FSC_PD_EVIDENCE] = {"fabric_congestion_evidence", "fabric_congestion_evidence_total",
                         "counter", "Queue-peak and NIC buffer-threshold evidence events."},
    [FSC_PD_IMB_RATIO] = {"fabric_uplink_imbalance_ratio", "fabric_uplink_imbalance_ratio", "gauge",
                          "Max over mean utilization of the port group in the last "
                          "window."},
    [FSC_PD_IMB_EVENTS] = {"fabric_uplink_imbalance_events", "fabric_uplink_imbalance_events_total",
                           "counter", "Uplink imbalance events of the port group."},
};

static void set_str(struct fsc_prom_str *s, const char *text)
{
    size_t n = strlen(text);
    if (n > FSC_NUM_MAX)
        n = FSC_NUM_MAX;
    memcpy(s->s, text, n);
    s->s[n] = '\0';
    s->len = n;
}

static void set_num(struct fsc_prom_str *s, double v)
{
    s->len = fsc_prom_fmt_double(s->s, v);
    s->s[s->len] = '\0';
}

struct fsc_prom_renderer *fsc_prom_renderer_create(const struct fsc_prom_render_env *env, char *err,
                                                   size_t errlen)
{
    if (!env || !env->reg || !env->eng || !env->cfg) {
        snprintf(err, errlen, "the Prometheus renderer needs a registry, an engine and a config");
        return NULL;
    }
    struct fsc_prom_renderer *r = calloc(1, sizeof(*r));
    if (r)
        r->views = calloc(FSC_PROM_CHUNK, sizeof(*r->views));
    if (!r || !r->views) {
        free(r);
        snprintf(err, errlen, "out of memory creating the Prometheus renderer");
        return NULL;
    }
    r->env = *env;
    const struct fsc_prometheus_config *pc = fsc_prometheus_config_of(env->cfg);
    const struct fsc_rate_params *rate = &fsc_engine_config_of(env->cfg)->rate;
    r->stale_after_ns = pc->stale_after_ns;
    r->max_series = pc->max_series;
    if (r->max_series == 0)
        r->max_series = UINT32_MAX;
    r->n_windows = rate->n_windows;
    if (r->n_windows > FSC_MAX_WINDOWS)
        r->n_windows = FSC_MAX_WINDOWS;
    for (unsigned l = 0; l < r->n_windows; l++) {
        char buf[64];
        set_str(&r->window[l], fsc_duration_format(rate->window_ns[l], buf, sizeof(buf)));
    }
    for (size_t i = 0; i < FSC_UTIL_BUCKETS; i++)
        set_num(&r->util_le[i], fsc_util_bucket_le[i]);
    for (size_t i = 0; i < FSC_DURATION_BUCKETS; i++)
        set_num(&r->dur_le[i], fsc_duration_bucket_le[i]);
    for (size_t i = 0; i < FSC_INTERVAL_RATIO_BUCKETS; i++)
        set_num(&r->ratio_le[i], fsc_interval_ratio_bucket_le[i]);
    return r;
}

void fsc_prom_renderer_destroy(struct fsc_prom_renderer *r)
{
    if (!r)
        return;
    fsc_prom_index_free(&r->ix);
    fsc_prom_writer_free(&r->w);
    free(r->views);
    free(r->ports);
    free(r->dets);
    free(r->hvals);
    free(r->src);
    free(r->stat_rows);
    fsc_buf_free(&r->stat_strs);
    free(r);
}

void fsc_prom_family_header(struct fsc_prom_renderer *r, struct fsc_buf *b,
                            const struct fsc_prom_fdesc *d)
{
    /* Text 0.0.4 names a counter family after its samples (x_total);
     * OpenMetrics names the family x and its samples x_total. */
    const char *name = r->om ? d->base : d->sample;
    fsc_prom_header(&r->w, b, name, strlen(name), d->type, d->help, r->om);
}

/* Makes sure r->src covers every registry source. */
static int sources_grow(struct fsc_prom_renderer *r)
{
    size_t n = fsc_registry_source_count(r->env.reg);
    if (n <= r->n_src)
        return 0;
    struct fsc_prom_src *p = realloc(r->src, n * sizeof(*p));
    if (!p)
        return -ENOMEM;
    memset(p + r->n_src, 0, (n - r->n_src) * sizeof(*p));
    r->src = p;
    r->n_src = n;
    return 0;
}

/* t_last folded to 32 bits: a change of t_last keeps the fold unless it is
 * a multiple of 2^32 ns in the low word that the high word's change
 * cancels, which no device clock moving forward in real steps does. */
static uint32_t fold_time(int64_t t)
{
    uint64_t u = (uint64_t)t;
    return (uint32_t)u ^ (uint32_t)(u >> 32) * 0x9e3779b1u;
}

int fsc_prom_stale(struct fsc_prom_renderer *r, fsc_series_id id, const struct fsc_series_view *v)
{
    struct fsc_prom_series *ps = &r->ix.ser[id];
    struct fsc_prom_src *s = ps->source < r->n_src ? &r->src[ps->source] : NULL;
    if (!v->has_value) /* no time of its own: it goes with its source */
        return s && s->seen && r->now_ns - s->moved_at > r->stale_after_ns;
    uint32_t f = fold_time(v->t_last_ns);
    if (!ps->seen || ps->t_fold != f) {
        ps->seen = 1;
        ps->t_fold = f;
        ps->moved_at = r->now_ns;
        if (s) {
            s->moved_at = r->now_ns;
            s->seen = 1;
        }
        return 0;
    }
    return r->now_ns - ps->moved_at > r->stale_after_ns;
}

/* After a render: a source seen for the first time counts as moved now. */
static void sources_settle(struct fsc_prom_renderer *r)
{
    for (size_t i = 0; i < r->n_src; i++) {
        struct fsc_prom_src *s = &r->src[i];
        if (!s->seen) {
            s->moved_at = r->now_ns;
            s->seen = 1;
        }
    }
}

/* Renders one raw family's series (and their derived lines). */
static void render_family(struct fsc_prom_renderer *r, struct fsc_prom_family *f,
                          struct fsc_prom_rawctx *raw, struct fsc_buf *out)
{
    for (uint32_t i = 0; i < f->n_ids && !r->w.err; i += FSC_PROM_CHUNK) {
        size_t n = f->n_ids - i < FSC_PROM_CHUNK ? f->n_ids - i : FSC_PROM_CHUNK;
        const fsc_series_id *ids = f->ids + i;
        fsc_engine_view_ids(r->env.eng, ids, n, r->views);
        for (size_t k = 0; k < n; k++) {
            const struct fsc_series_view *v = &r->views[k];
            if (!v->present)
                continue;
            if (fsc_prom_stale(r, ids[k], v))
                continue;
            fsc_prom_series(r, f, ids[k], v, raw, out);
        }
    }
}

/* A pending family whose series carry a histogram hint (traits.expo) is
 * resolved before the families are sorted: its lines go under the
 * histogram's base name, beside its sibling parts, from the first render
 * on. Other pending families are left to the raw pass, which resolves them
 * from their first present series. Returns 0 or -ENOMEM. */
static int resolve_histograms(struct fsc_prom_renderer *r)
{
    for (uint32_t i = 0; i < r->ix.n_fams; i++) {
        struct fsc_prom_family *f = r->ix.fams[i];
        for (uint32_t k = 0; f->type == FSC_PROM_PENDING && k < f->n_ids; k += FSC_PROM_CHUNK) {
            size_t n = f->n_ids - k < FSC_PROM_CHUNK ? f->n_ids - k : FSC_PROM_CHUNK;
            fsc_engine_view_ids(r->env.eng, f->ids + k, n, r->views);
            size_t j = 0;
            while (j < n && !r->views[j].present)
                j++;
            if (j == n)
                continue;
            const struct fsc_series_view *v = &r->views[j];
            if (v->expo != FSC_EXPO_DEFAULT &&
                fsc_prom_family_resolve(&r->ix, f, v->kind, v->expo) != 0)
                return -ENOMEM;
            break;
        }
    }
    return 0;
}

int fsc_prom_render(struct fsc_prom_renderer *r, enum fsc_prom_format fmt, int64_t now_ns,
                    struct fsc_buf *out)
{
    int64_t t0 = fsc_mono_ns();
    int rc;

    fsc_buf_reset(out);
    /* One allocation of about the previous size instead of a dozen doubling
     * reallocs (each a copy) when the caller hands a fresh buffer. */
    size_t want = (size_t)r->last_bytes + (size_t)r->last_bytes / 8;
    if (want > out->cap && (!out->limit || want <= out->limit))
        (void)fsc_buf_reserve(out, want); /* a failure here only costs speed */
    out->failed = 0;
    r->w.err = 0;
    r->w.samples = 0;
    r->om = fmt == FSC_PROM_OPENMETRICS;
    r->now_ns = now_ns;
    r->n_ports = 0;
    r->n_dets = 0;
    /* Index what is new; on ENOMEM render what is indexed (the rest is
     * retried next time) rather than fail the scrape. */
    rc = fsc_prom_index_update(&r->ix, r->env.reg, r->max_series);
    if (rc != 0 && rc != -ENOMEM)
        return rc;
    if ((rc = resolve_histograms(r)) != 0 || (rc = fsc_prom_index_sort(&r->ix)) != 0 ||
        (rc = sources_grow(r)) != 0)
        return rc;

    /* 1. Raw families; families sharing one exposition name share one
     * header (prom_index.c sorts them next to each other). The parts of a
     * histogram (sorted last among families of their base name) make one
     * histogram family, unless a counter or gauge took the name first. */
    struct fsc_prom_rawctx raw = {NULL};
    const struct fsc_prom_family *prev = NULL;
    for (uint32_t i = 0; i < r->ix.n_fams && !r->w.err; i++) {
        struct fsc_prom_family *f = r->ix.order[i];
        if (!prev || strcmp(prev->om_name, f->om_name) != 0)
            raw.hdr = NULL;
        if (f->type == FSC_PROM_HISTOGRAM) {
            uint32_t n = 1;
            while (i + n < r->ix.n_fams && r->ix.order[i + n]->type == FSC_PROM_HISTOGRAM &&
                   strcmp(r->ix.order[i + n]->om_name, f->om_name) == 0)
                n++;
            if (!raw.hdr)
                fsc_prom_hist_family(r, &r->ix.order[i], n, out);
            i += n - 1;
            prev = r->ix.order[i];
            continue;
        }
        render_family(r, f, &raw, out);
        prev = f;
    }

    /* 2. Derived families, from what the raw pass recorded. */
    fsc_prom_derived(r, out);

    /* 3. Self-metrics (they report the previous render). */
    fsc_prom_self(r, out);
    fsc_prom_plugins(r, out);
    if (r->om)
        fsc_prom_append(&r->w, out, "# EOF\n", 6);

    sources_settle(r);
    r->last_duration_s = (double)(fsc_mono_ns() - t0) / 1e9;
    r->last_samples = r->w.samples;
    r->last_bytes = out->len;
    return r->w.err;
}
