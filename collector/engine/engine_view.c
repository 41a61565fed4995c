/* The engine's read side (contract in engine.h): series views for the
 * exporters, one at a time or many under one lock hold, group views, the
 * self-metric counters, the histogram bounds and the memory account. Every
 * function takes the engine lock and copies; nothing here allocates, so a
 * scrape can never fail for memory or stall ingest for longer than the copy of
 * the views it asked for. */
#include "engine/engine.h"

#include <errno.h>
#include <pthread.h>
#include <string.h>

#include "engine/engine_int.h"
#include "engine/xsrc.h"

/* Upper bounds, inclusive (Prometheus "le"); +Inf is implied. The exposition
 * prints these same doubles, so a boundary value and its bucket agree. */
const double fsc_util_bucket_le[FSC_UTIL_BUCKETS] = {0.1, 0.2, 0.3, 0.4,  0.5,  0.6,
                                                     0.7, 0.8, 0.9, 0.95, 0.99, 1.0};
const double fsc_duration_bucket_le[FSC_DURATION_BUCKETS] = {0.001, 0.005, 0.01, 0.025, 0.05,
                                                             0.1,   0.25,  0.5,  1};
const double fsc_interval_ratio_bucket_le[FSC_INTERVAL_RATIO_BUCKETS] = {0.5, 0.8, 0.9, 0.95, 1.05,
                                                                         1.1, 1.2, 1.5, 2,    5};

/* Detector counters and histograms of a present series. */
static void view_detector(const struct fsc_engine *eng, const struct fsc_eng_series *ser,
                          struct fsc_series_view *out)
{
    if (ser->det == 0)
        return;
    const struct fsc_pool *pool = &eng->pools[ser->dc];
    switch (ser->dc) {
    case FSC_DET_MB: {
        const struct fsc_util_hist *uh = fsc_pool_at2(pool, ser->det - 1);
        const struct fsc_mb_state *mb = fsc_pool_at(pool, ser->det - 1);
        out->has_util = 1;
        for (unsigned b = 0; b <= FSC_UTIL_BUCKETS; b++)
            out->util.bucket[b] = uh->bucket[b];
        out->util.sum = uh->sum;
        /* Each microburst is observed once, when it ends (microburst.c):
         * the histogram's count is the microburst count. */
        for (unsigned b = 0; b <= FSC_DURATION_BUCKETS; b++) {
            out->microburst_duration.bucket[b] = mb->dur[b];
            out->events += mb->dur[b];
        }
        out->microburst_duration.sum = (double)mb->dur_sum_ns / 1e9;
        out->bursts = mb->n_bursts;
        break;
    }
    case FSC_DET_SPIKE:
    case FSC_DET_PFC: {
        const struct fsc_spike_state *sp = fsc_pool_at(pool, ser->det - 1);
        out->events = sp->n_events;
        break;
    }
    case FSC_DET_EVID: {
        const struct fsc_evid_state *ev = fsc_pool_at(pool, ser->det - 1);
        out->events = ev->n_events;
        out->has_peak_max = fsc_peak_ring_max(&ev->ring, out->peak_max) == 0;
        break;
    }
    default:
        break;
    }
}

/* Fills *out (zeroed first) for id; false when the engine has no state for it.
 * Caller holds eng->mu. Shared by fsc_engine_view and fsc_engine_view_ids, so
 * both fill exactly the same fields. */
static bool view_fill(const struct fsc_engine *eng, fsc_series_id id, struct fsc_series_view *out)
{
    memset(out, 0, sizeof(*out));
    const struct fsc_eng_series *ser = id < eng->cfg.max_series ? fsc_series_find(eng, id) : NULL;
    if (!ser || !(ser->flags & FSC_SER_F_PRESENT))
        return false;
    const struct fsc_traits *tr = &eng->tt.traits[ser->traits];
    const struct fsc_rate_state *rs = &ser->rs;
    out->present = 1;
    out->kind = tr->kind;
    out->has_value = (rs->flags & FSC_RATE_F_BASELINE) != 0;
    out->is_f64 = (rs->flags & FSC_RATE_F_F64) != 0;
    out->signal = tr->signal;
    out->direction = tr->direction;
    out->unit = tr->unit;
    out->expo = tr->expo;
    out->windows_done = (uint8_t)((ser->flags & FSC_SER_F_WIN_ALL) >> 4);
    out->has_windows = out->windows_done != 0;
    out->link_speed_bps = tr->link_speed_bps;
    out->t_last_ns = rs->t_last;
    out->t_value_ns = rs->t_anchor;
    out->rate_level = (uint8_t)fsc_rate_base_level(&eng->cfg.rate, tr);
    out->value = rs->v_anchor;
    out->fine_rate = rs->fine_rate;
    out->update_period_ns = fsc_rate_update_period(tr);
    for (unsigned l = 0; l < FSC_MAX_WINDOWS; l++) {
        out->window_rate[l] = rs->last_window_rate[l];
        out->window_peak[l] = ser->last_peak[l];
    }
    view_detector(eng, ser, out);
    return true;
}

/* Returns 0, or -ENOENT (out zeroed) when neither traits nor a sample were
 * ever given for id. Thread: any; takes eng->mu. */
int fsc_engine_view(struct fsc_engine *eng, fsc_series_id id, struct fsc_series_view *out)
{
    pthread_mutex_lock(&eng->mu);
    bool present = view_fill(eng, id, out);
    pthread_mutex_unlock(&eng->mu);
    return present ? 0 : -ENOENT;
}

/* Owns nothing; out[0..n) is the caller's. Returns 0. Thread: any; takes
 * eng->mu once for all n (the caller picks n to bound the hold). */
int fsc_engine_view_ids(struct fsc_engine *eng, const fsc_series_id *ids, size_t n,
                        struct fsc_series_view *out)
{
    pthread_mutex_lock(&eng->mu);
    for (size_t i = 0; i < n; i++)
        (void)view_fill(eng, ids[i], &out[i]);
    pthread_mutex_unlock(&eng->mu);
    return 0;
}

/* Thread: any; takes eng->mu. */
uint32_t fsc_engine_group_count(struct fsc_engine *eng)
{
    pthread_mutex_lock(&eng->mu);
    uint32_t n = fsc_imb_group_count(eng->imb);
    pthread_mutex_unlock(&eng->mu);
    return n;
}

/* Returns 0, or -ENOENT (out zeroed) for a group without members. Thread:
 * any; takes eng->mu. */
int fsc_engine_group_view(struct fsc_engine *eng, uint32_t group, struct fsc_group_view *out)
{
    pthread_mutex_lock(&eng->mu);
    int rc = fsc_imb_group_view(eng->imb, group, out);
    pthread_mutex_unlock(&eng->mu);
    return rc;
}

/* Copies *obs (NULL removes the hooks). Thread: any; takes eng->mu. */
void fsc_engine_set_observer(struct fsc_engine *eng, const struct fsc_engine_observer *obs)
{
    pthread_mutex_lock(&eng->mu);
    if (obs)
        eng->obs = *obs;
    else
        memset(&eng->obs, 0, sizeof(eng->obs));
    pthread_mutex_unlock(&eng->mu);
}

/* Thread: any; takes eng->mu. */
void fsc_engine_stats_get(struct fsc_engine *eng, struct fsc_engine_stats *out)
{
    pthread_mutex_lock(&eng->mu);
    *out = eng->stats;
    out->copy_groups = eng->groups.n;
    for (uint32_t k = 0; k < eng->groups.n; k++) {
        out->copy_changes += eng->groups.g[k].grid.changes;
        out->copy_relocks += eng->groups.g[k].grid.relocks;
        for (unsigned c = 0; c < FSC_CADENCE__COUNT; c++)
            out->cadence_series[c] += eng->groups.g[k].series[c];
    }
    pthread_mutex_unlock(&eng->mu);
}

/* Thread: any; takes eng->mu. */
double fsc_engine_group_ratio(struct fsc_engine *eng, uint32_t group)
{
    pthread_mutex_lock(&eng->mu);
    double ratio = fsc_imb_ratio(eng->imb, group);
    pthread_mutex_unlock(&eng->mu);
    return ratio;
}

/* Total bytes the engine holds (slots, tables, detector pools, groups);
 * divide by the number of series for the per-series cost. Thread: any;
 * takes eng->mu. */
size_t fsc_engine_memory_bytes(struct fsc_engine *eng)
{
    pthread_mutex_lock(&eng->mu);
    size_t bytes = sizeof(*eng) + eng->series_bytes +
                   (size_t)eng->cap_chunks * sizeof(*eng->chunks) +
                   fsc_traits_table_memory(&eng->tt) + fsc_copy_groups_memory(&eng->groups);
    for (unsigned k = 0; k < FSC_DET__COUNT; k++)
        bytes += fsc_pool_memory(&eng->pools[k]);
    bytes += fsc_imb_memory(eng->imb);
    bytes += fsc_xsrc_memory(eng->xs);
    if (eng->resets)
        bytes += FSC_RESET_SLOTS * sizeof(*eng->resets);
    pthread_mutex_unlock(&eng->mu);
    return bytes;
}
