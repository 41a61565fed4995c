/* fabricscope_ self-metrics of the engine and the registry (docs/METRICS.md,
 * in its order): build, source health, the engine's counters, the
 * registry's per-source counts, the previous scrape's cost. The plugins'
 * families follow from their stats tables (prom_plugins.c). A few dozen
 * lines per scrape, so clarity wins over speed here. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/build_info.h"
#include "prometheus/prom_render_int.h"

enum self_family {
    S_BUILD = 0,
    S_UP,
    S_SAMPLES,
    S_VERDICTS,
    S_WRAPS,
    S_GAPS,
    S_ARRIVAL,
    S_UNKNOWN_SERIES,
    S_INTERVAL,
    S_SERIES,
    S_LIMIT,
    S_DROPPED,
    S_REJECTED,
    S_EVENTS,
    S_RESETS_SUPPRESSED,
    S_WITHHELD,
    S_COPY_GROUPS,
    S_COPY_CHANGES,
    S_COPY_RELOCKS,
    S_SCRAPE_DURATION,
    S_SCRAPE_SERIES,
    S_SCRAPE_BYTES,
    S__COUNT
};

/* Sources shown per scrape at most (the config's bound). */
#define MAX_SOURCES FSC_CONFIG_MAX_SOURCES

static const struct fsc_prom_fdesc self_desc[S__COUNT] = {
    [S_BUILD] = {"fabricscope_build_info", "fabricscope_build_info", "gauge"},
    [S_UP] = {"fabricscope_up", "fabricscope_up", "gauge"},
    [S_SAMPLES] = {"fabricscope_samples", "fabricscope_samples_total", "counter"},
    [S_VERDICTS] = {"fabricscope_sample_verdicts", "fabricscope_sample_verdicts_total", "counter"},
    [S_WRAPS] = {"fabricscope_wraps", "fabricscope_wraps_total", "counter"},
    [S_GAPS] = {"fabricscope_gaps", "fabricscope_gaps_total", "counter"},
    [S_ARRIVAL] = {"fabricscope_arrival_time_samples", "fabricscope_arrival_time_samples_total",
                   "counter"},
    [S_UNKNOWN_SERIES] = {"fabricscope_unknown_series_samples",
                          "fabricscope_unknown_series_samples_total", "counter"},
    [S_INTERVAL] = {"fabricscope_sample_interval_ratio", "fabricscope_sample_interval_ratio",
                    "histogram"},
    [S_SERIES] = {"fabricscope_series", "fabricscope_series", "gauge"},
    [S_LIMIT] = {"fabricscope_series_limit", "fabricscope_series_limit", "gauge"},
    [S_DROPPED] = {"fabricscope_series_dropped", "fabricscope_series_dropped_total", "counter"},
    [S_REJECTED] = {"fabricscope_series_rejected", "fabricscope_series_rejected_total", "counter"},
    [S_EVENTS] = {"fabricscope_events", "fabricscope_events_total", "counter"},
    [S_RESETS_SUPPRESSED] = {"fabricscope_reset_events_suppressed",
                             "fabricscope_reset_events_suppressed_total", "counter"},
    [S_WITHHELD] = {"fabricscope_windows_withheld", "fabricscope_windows_withheld_total",
                    "counter"},
    [S_COPY_GROUPS] = {"fabricscope_copy_groups", "fabricscope_copy_groups", "gauge"},
    [S_COPY_CHANGES] = {"fabricscope_copy_changes", "fabricscope_copy_changes_total", "counter"},
    [S_COPY_RELOCKS] = {"fabricscope_copy_relocks", "fabricscope_copy_relocks_total", "counter"},
    [S_SCRAPE_DURATION] = {"fabricscope_scrape_duration_seconds",
                           "fabricscope_scrape_duration_seconds", "gauge"},
    [S_SCRAPE_SERIES] = {"fabricscope_scrape_series", "fabricscope_scrape_series", "gauge"},
    [S_SCRAPE_BYTES] = {"fabricscope_scrape_bytes", "fabricscope_scrape_bytes", "gauge"},
};

static void line_num(struct fsc_prom_renderer *r, struct fsc_buf *out, enum self_family s,
                     const struct fsc_prom_label *ex, size_t n_ex, const char *num, size_t len)
{
    const char *name = self_desc[s].sample;
    fsc_prom_sample(&r->w, out, name, strlen(name), "", 0, "", 0, ex, n_ex, num, len);
}

static void line_u64(struct fsc_prom_renderer *r, struct fsc_buf *out, enum self_family s,
                     const struct fsc_prom_label *ex, size_t n_ex, uint64_t v)
{
    char num[FSC_NUM_MAX];
    line_num(r, out, s, ex, n_ex, num, fsc_fmt_u64(num, v));
}

static void line_f64(struct fsc_prom_renderer *r, struct fsc_buf *out, enum self_family s,
                     const struct fsc_prom_label *ex, size_t n_ex, double v)
{
    char num[FSC_NUM_MAX];
    line_num(r, out, s, ex, n_ex, num, fsc_prom_fmt_double(num, v));
}

static struct fsc_prom_label lbl(const char *name, const char *value)
{
    return (struct fsc_prom_label){name, strlen(name), value, strlen(value)};
}

static void header(struct fsc_prom_renderer *r, struct fsc_buf *out, enum self_family s)
{
    fsc_prom_family_header(r, out, &self_desc[s]);
}

/* Without a daemon view (tests, benchmarks): the config's sources, every
 * enabled one up. */
static size_t config_sources(const struct fsc_config *cfg, struct fsc_source_status *out,
                             size_t cap)
{
    for (size_t i = 0; i < cfg->n_sources && i < cap; i++) {
        const struct fsc_source_config *sc = &cfg->sources[i];
        memset(&out[i], 0, sizeof(out[i]));
        snprintf(out[i].name, sizeof(out[i].name), "%s", sc->name);
        snprintf(out[i].type, sizeof(out[i].type), "%s", sc->kind->name);
        out[i].up = sc->enabled;
    }
    return cfg->n_sources;
}

/* Health of every configured source, disabled ones as 0 (the view's
 * sources). */
static void self_up(struct fsc_prom_renderer *r, struct fsc_buf *out)
{
    const struct fsc_daemon_view *view = r->env.view;
    struct fsc_source_status *st = calloc(MAX_SOURCES, sizeof(*st));
    if (!st) {
        r->w.err = -ENOMEM;
        return;
    }
    size_t n = view && view->sources ? view->sources(view->arg, st, MAX_SOURCES)
                                     : config_sources(r->env.cfg, st, MAX_SOURCES);
    if (n > MAX_SOURCES)
        n = MAX_SOURCES;
    if (n > 0)
        header(r, out, S_UP);
    for (size_t i = 0; i < n; i++) {
        struct fsc_prom_label ex[2] = {lbl("source", st[i].name), lbl("type", st[i].type)};
        line_u64(r, out, S_UP, ex, 2, (uint64_t)(st[i].up != 0));
    }
    free(st);
}

/* Registry counts per source: one family at a time, so each stays
 * contiguous. */
static void self_sources(struct fsc_prom_renderer *r, struct fsc_buf *out)
{
    uint16_t n = fsc_registry_source_count(r->env.reg);
    if (n == 0)
        return;
    for (enum self_family s = S_SERIES; s <= S_REJECTED; s++) {
        int headed = 0;
        for (uint16_t i = 0; i < n; i++) {
            struct fsc_registry_source_stats st;
            if (fsc_registry_source_stats(r->env.reg, i, &st) != 0)
                continue;
            if (s == S_LIMIT && st.limit == 0)
                continue; /* no limit: nothing to show */
            if (!headed) {
                header(r, out, s);
                headed = 1;
            }
            struct fsc_prom_label ex[1] = {lbl("source", st.name)};
            uint64_t v = s == S_SERIES    ? st.series
                         : s == S_LIMIT   ? st.limit
                         : s == S_DROPPED ? st.dropped
                                          : st.rejected;
            line_u64(r, out, s, ex, 1, v);
        }
    }
}

void fsc_prom_self(struct fsc_prom_renderer *r, struct fsc_buf *out)
{
    struct fsc_engine_stats st;
    fsc_engine_stats_get(r->env.eng, &st);

    header(r, out, S_BUILD);
    struct fsc_prom_label ver[2] = {lbl("commit", fsc_build_commit), lbl("version", FSC_VERSION)};
    line_u64(r, out, S_BUILD, ver, 2, 1);

    self_up(r, out);

    header(r, out, S_SAMPLES);
    line_u64(r, out, S_SAMPLES, NULL, 0, st.samples);

    header(r, out, S_VERDICTS);
    for (unsigned k = 0; k < FSC_RATE__COUNT; k++) {
        struct fsc_prom_label ex[1] = {lbl("verdict", fsc_rate_verdict_name(k))};
        line_u64(r, out, S_VERDICTS, ex, 1, st.verdicts[k]);
    }

    header(r, out, S_WRAPS);
    line_u64(r, out, S_WRAPS, NULL, 0, st.wraps);
    header(r, out, S_GAPS);
    line_u64(r, out, S_GAPS, NULL, 0, st.gaps);
    header(r, out, S_ARRIVAL);
    line_u64(r, out, S_ARRIVAL, NULL, 0, st.arrival_time_samples);
    header(r, out, S_UNKNOWN_SERIES);
    line_u64(r, out, S_UNKNOWN_SERIES, NULL, 0, st.unknown_series);

    header(r, out, S_INTERVAL);
    const char *hname = self_desc[S_INTERVAL].sample;
    fsc_prom_histogram(&r->w, out, hname, strlen(hname), "", 0, NULL, 0, st.interval_ratio.bucket,
                       r->ratio_le, FSC_INTERVAL_RATIO_BUCKETS, st.interval_ratio.sum);

    self_sources(r, out);

    header(r, out, S_EVENTS);
    for (unsigned k = 0; k < FSC_EV__COUNT; k++) {
        struct fsc_prom_label ex[1] = {lbl("kind", fsc_event_kind_name(k))};
        line_u64(r, out, S_EVENTS, ex, 1, st.events[k]);
    }
    header(r, out, S_RESETS_SUPPRESSED);
    line_u64(r, out, S_RESETS_SUPPRESSED, NULL, 0, st.reset_events_suppressed);
    header(r, out, S_WITHHELD);
    for (unsigned l = 0; l < r->n_windows; l++) {
        struct fsc_prom_label ex[2] = {lbl("window", r->window[l].s), lbl("reason", "resolution")};
        line_u64(r, out, S_WITHHELD, ex, 2, st.windows_withheld[l]);
    }
    header(r, out, S_COPY_GROUPS);
    line_u64(r, out, S_COPY_GROUPS, NULL, 0, st.copy_groups);
    header(r, out, S_COPY_CHANGES);
    line_u64(r, out, S_COPY_CHANGES, NULL, 0, st.copy_changes);
    header(r, out, S_COPY_RELOCKS);
    line_u64(r, out, S_COPY_RELOCKS, NULL, 0, st.copy_relocks);

    header(r, out, S_SCRAPE_DURATION);
    line_f64(r, out, S_SCRAPE_DURATION, NULL, 0, r->last_duration_s);
    header(r, out, S_SCRAPE_SERIES);
    line_u64(r, out, S_SCRAPE_SERIES, NULL, 0, r->last_samples);
    header(r, out, S_SCRAPE_BYTES);
    line_u64(r, out, S_SCRAPE_BYTES, NULL, 0, r->last_bytes);
}
