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
 * Staleness, per series on the local clock, is prom_stale.c. */
#include "base/clock.h"
#include "prometheus/prom_render_int.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

const struct fsc_prom_fdesc fsc_prom_derived_desc[FSC_PD__COUNT] = {
    [FSC_PD_PORT_INFO] = {"fabric_port_info", "fabric_port_info", "gauge"},
    [FSC_PD_NIC_INFO] = {"fabric_nic_info", "fabric_nic_info", "gauge"},
    [FSC_PD_NODE_INFO] = {"fabric_node_info", "fabric_node_info", "gauge"},
    [FSC_PD_PORT_RATE] = {"fabric_port_bytes_per_second", "fabric_port_bytes_per_second", "gauge"},
    [FSC_PD_UTIL] = {"fabric_port_utilization_ratio", "fabric_port_utilization_ratio", "gauge"},
    [FSC_PD_UTIL_PEAK] = {"fabric_port_utilization_peak_ratio",
                          "fabric_port_utilization_peak_ratio", "gauge"},
    [FSC_PD_FINE_UTIL] = {"fabric_port_fine_utilization_ratio",
                          "fabric_port_fine_utilization_ratio", "histogram"},
    [FSC_PD_RATE] = {NULL, NULL, "gauge"}, /* one family per counter: its table row */
    [FSC_PD_MICROBURST] = {"fabric_microbursts", "fabric_microbursts_total", "counter"},
    [FSC_PD_BURST] = {"fabric_bursts", "fabric_bursts_total", "counter"},
    [FSC_PD_MB_DUR] = {"fabric_microburst_duration_seconds", "fabric_microburst_duration_seconds",
                       "histogram"},
    [FSC_PD_CNP] = {"fabric_cnp_spikes", "fabric_cnp_spikes_total", "counter"},
    [FSC_PD_ECN] = {"fabric_ecn_spikes", "fabric_ecn_spikes_total", "counter"},
    [FSC_PD_REORDER] = {"fabric_reorder_spikes", "fabric_reorder_spikes_total", "counter"},
    [FSC_PD_PFC] = {"fabric_pfc_storms", "fabric_pfc_storms_total", "counter"},
    [FSC_PD_EVIDENCE] = {"fabric_congestion_evidence", "fabric_congestion_evidence_total",
                         "counter"},
    [FSC_PD_IMB_RATIO] = {"fabric_uplink_imbalance_ratio", "fabric_uplink_imbalance_ratio",
                          "gauge"},
    [FSC_PD_IMB_EVENTS] = {"fabric_uplink_imbalance_events", "fabric_uplink_imbalance_events_total",
                           "counter"},
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
    for (unsigned w = 0; w < FSC_PEAK_MAX_WINDOWS; w++) {
        char buf[32];
        snprintf(buf, sizeof(buf), "%llds", (long long)(fsc_peak_max_window_ns[w] / 1000000000));
        set_str(&r->peak_window[w], buf);
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
    free(r->info_text);
    fsc_buf_free(&r->info_arena);
    free(r);
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
            if (!v->present || r->ix.ser[ids[k]].superseded)
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

/* The writer's flush: counts what the caller's flush takes. */
static int render_flush(void *arg, struct fsc_buf *out)
{
    struct fsc_prom_renderer *r = arg;
    size_t n = out->len;
    int rc = r->flush->fn(r->flush->arg, out);
    if (rc == 0)
        r->flushed += n;
    return rc;
}

int fsc_prom_render(struct fsc_prom_renderer *r, enum fsc_prom_format fmt, int64_t now_ns,
                    struct fsc_buf *out)
{
    return fsc_prom_render_stream(r, fmt, now_ns, out, NULL);
}

int fsc_prom_render_stream(struct fsc_prom_renderer *r, enum fsc_prom_format fmt, int64_t now_ns,
                           struct fsc_buf *out, const struct fsc_prom_flush *flush)
{
    int64_t t0 = fsc_mono_ns();
    int rc;

    fsc_buf_reset(out);
    /* One allocation of about the size it will reach (the previous body,
     * or a segment and a line when streamed) instead of a dozen doubling
     * reallocs (each a copy) when the caller hands a fresh buffer. */
    size_t want = flush ? flush->segment + flush->segment / 8
                        : (size_t)r->last_bytes + (size_t)r->last_bytes / 8;
    if (want > out->cap && (!out->limit || want <= out->limit))
        (void)fsc_buf_reserve(out, want); /* a failure here only costs speed */
    out->failed = 0;
    r->flush = flush;
    r->flushed = 0;
    r->w.flush = flush ? render_flush : NULL;
    r->w.flush_arg = r;
    r->w.flush_buf = out;
    r->w.flush_at = flush ? flush->segment : 0;
    r->w.err = 0;
    r->w.samples = 0;
    r->om = fmt == FSC_PROM_OPENMETRICS;
    r->now_ns = now_ns;
    r->gen++;
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

    fsc_prom_stale_settle(r);
    r->last_duration_s = (double)(fsc_mono_ns() - t0) / 1e9;
    r->last_samples = r->w.samples;
    r->last_bytes = r->flushed + out->len;
    r->w.flush = NULL;
    r->flush = NULL;
    return r->w.err;
}
