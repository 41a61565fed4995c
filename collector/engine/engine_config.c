/* The engine-wide settings: the defaults engine.h lists, and the range checks
 * fsc_engine_create() runs before it allocates anything. Kept apart from
 * engine.c, which holds the series state and the ingest hot path. */
#include "engine/engine.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/engine_int.h"

/* ---- engine-wide settings ---- */

/* Fills every default listed in engine.h. Thread: any. */
void fsc_engine_config_defaults(struct fsc_engine_config *cfg)
{
    const struct fsc_spike_config spike = {
        .floor = 5000, .factor = 5, .rise_intervals = 3, .fall_intervals = 5, .ewma_alpha = 0.05};

    memset(cfg, 0, sizeof(*cfg));
    fsc_rate_params_defaults(&cfg->rate);
    cfg->microburst = (struct fsc_microburst_config){.rise = 0.7,
                                                     .fall = 0.5,
                                                     .micro_max_ns = 1000000000LL,
                                                     .update_every_ns = 10000000000LL,
                                                     .queue_peak_share = 0.5,
                                                     .latency_peak_ns = 10000};
    cfg->cnp = spike;
    cfg->ecn = spike;
    cfg->reorder = spike;
    cfg->reorder.floor = 100;
    cfg->pfc = (struct fsc_pfc_config){.paused_fraction = 0.2,
                                       .frames_per_second = 10000,
                                       .rise_intervals = 3,
                                       .fall_intervals = 5};
    cfg->imbalance = (struct fsc_imbalance_config){
        .ratio = 1.5, .windows = 3, .level = 0, .min_mean_utilization = 0.05};
    cfg->max_series = 4u << 20;
    cfg->max_groups = 4096;
    cfg->reset_event_every_ns = 60000000000LL;
}

/* Interval counts beyond this are a typo, not a wish (and keep counters small). */
#define INTERVALS_MAX 100000u

#define BAD(...)                                                                                   \
    do {                                                                                           \
        snprintf(err, errlen, __VA_ARGS__);                                                        \
        return -EINVAL;                                                                            \
    } while (0)

static int validate_intervals(const char *name, unsigned rise, unsigned fall, char *err,
                              size_t errlen)
{
    if (rise < 1 || rise > INTERVALS_MAX)
        BAD("engine.%s.rise_intervals (%u) must be between 1 and %u", name, rise, INTERVALS_MAX);
    if (fall < 1 || fall > INTERVALS_MAX)
        BAD("engine.%s.fall_intervals (%u) must be between 1 and %u", name, fall, INTERVALS_MAX);
    return 0;
}

static int validate_spike(const char *name, const struct fsc_spike_config *sc, char *err,
                          size_t errlen)
{
    /* Written as !(x ok) so that NaN is rejected too. */
    if (!(sc->floor >= 0))
        BAD("engine.%s.floor (%g) must not be negative", name, sc->floor);
    if (!(sc->factor > 0))
        BAD("engine.%s.factor (%g) must be above 0", name, sc->factor);
    if (!(sc->ewma_alpha > 0 && sc->ewma_alpha <= 1))
        BAD("engine.%s.ewma_alpha (%g) must be in (0, 1]", name, sc->ewma_alpha);
    return validate_intervals(name, sc->rise_intervals, sc->fall_intervals, err, errlen);
}

static int validate_rate(const struct fsc_rate_params *rp, char *err, size_t errlen)
{
    if (rp->n_windows < 1 || rp->n_windows > FSC_MAX_WINDOWS)
        BAD("engine.windows (%u given) must list 1 to %d windows", rp->n_windows, FSC_MAX_WINDOWS);
    for (unsigned l = 0; l < rp->n_windows; l++) {
        if (rp->window_ns[l] <= 0)
            BAD("engine.windows (window %u: %lld ns) must be above 0", l + 1,
                (long long)rp->window_ns[l]);
        if (l > 0 && rp->window_ns[l] <= rp->window_ns[l - 1])
            BAD("engine.windows (window %u: %lld ns) must be longer than window %u (%lld ns)",
                l + 1, (long long)rp->window_ns[l], l, (long long)rp->window_ns[l - 1]);
    }
    if (!(rp->max_gap_factor >= 1))
        BAD("engine.max_gap_factor (%g) must be at least 1", rp->max_gap_factor);
    if (!(rp->plausibility_factor >= 1))
        BAD("engine.plausibility_factor (%g) must be at least 1", rp->plausibility_factor);
    if (!(rp->stale_factor >= 1))
        BAD("engine.stale_factor (%g) must be at least 1", rp->stale_factor);
    if (rp->clock_step_ns < 0)
        BAD("engine.clock_step (%lld ns) must not be negative", (long long)rp->clock_step_ns);
    return 0;
}

/* Returns 0, or -EINVAL with one sentence naming the first bad setting. The
 * sentence starts with the setting's path in the config file ("engine.pfc.
 * rise_intervals (0) ..."): engine_keys.c uses it to point at the line.
 * Thread: any. */
int fsc_engine_config_validate(const struct fsc_engine_config *cfg, char *err, size_t errlen)
{
    const struct fsc_microburst_config *mc = &cfg->microburst;
    const struct fsc_pfc_config *pc = &cfg->pfc;
    const struct fsc_imbalance_config *ic = &cfg->imbalance;
    int rc;

    if ((rc = validate_rate(&cfg->rate, err, errlen)) != 0)
        return rc;
    if (!(mc->rise > 0))
        BAD("engine.microburst.rise (%g) must be above 0", mc->rise);
    if (!(mc->fall > 0))
        BAD("engine.microburst.fall (%g) must be above 0", mc->fall);
    if (!(mc->fall < mc->rise))
        BAD("engine.microburst.fall (%g) must be below rise (%g)", mc->fall, mc->rise);
    if (mc->micro_max_ns <= 0)
        BAD("engine.microburst.micro_max (%lld ns) must be above 0", (long long)mc->micro_max_ns);
    if (mc->update_every_ns <= 0)
        BAD("engine.microburst.update_every (%lld ns) must be above 0",
            (long long)mc->update_every_ns);
    if (!(mc->queue_peak_share > 0 && mc->queue_peak_share <= 1))
        BAD("engine.microburst.queue_peak_share (%g) must be in (0, 1]", mc->queue_peak_share);
    if (mc->latency_peak_ns <= 0)
        BAD("engine.microburst.latency_peak (%lld ns) must be above 0",
            (long long)mc->latency_peak_ns);
    if ((rc = validate_spike("cnp", &cfg->cnp, err, errlen)) != 0 ||
        (rc = validate_spike("ecn", &cfg->ecn, err, errlen)) != 0 ||
        (rc = validate_spike("reorder", &cfg->reorder, err, errlen)) != 0)
        return rc;
    if (!(pc->paused_fraction > 0 && pc->paused_fraction <= 1))
        BAD("engine.pfc.paused_fraction (%g) must be in (0, 1]", pc->paused_fraction);
    if (!(pc->frames_per_second > 0))
        BAD("engine.pfc.frames_per_second (%g) must be above 0", pc->frames_per_second);
    if ((rc = validate_intervals("pfc", pc->rise_intervals, pc->fall_intervals, err, errlen)))
        return rc;
    /* max/mean is never below 1: a threshold at or below 1 would always fire. */
    if (!(ic->ratio > 1))
        BAD("engine.imbalance.ratio (%g) must be above 1", ic->ratio);
    if (ic->windows < 1 || ic->windows > INTERVALS_MAX)
        BAD("engine.imbalance.windows (%u) must be between 1 and %u", ic->windows, INTERVALS_MAX);
    if (ic->level >= cfg->rate.n_windows)
        BAD("engine.imbalance.window (level %u) must be one of the %u engine.windows", ic->level,
            cfg->rate.n_windows);
    if (!(ic->min_mean_utilization >= 0 && ic->min_mean_utilization <= 1))
        BAD("engine.imbalance.min_mean_utilization (%g) must be in [0, 1]",
            ic->min_mean_utilization);
    if (cfg->max_series < 1)
        BAD("engine.max_series must be at least 1");
    if (cfg->reset_event_every_ns < 0)
        BAD("engine.reset_event_every (%lld ns) must not be negative",
            (long long)cfg->reset_event_every_ns);
    return 0;
}
