/* What the engine is configured with: the engine-wide settings (the defaults
 * engine.h lists, and the range checks fsc_engine_create() runs before it
 * allocates anything) and the per-series traits, interned so that identical
 * traits (every 400G tx-bytes series of a profile) are stored once and a
 * series refers to them by a 16-bit index. Kept apart from engine.c, which
 * holds the series state and the ingest hot path. */
#include "engine/engine.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/detect.h"

/* ---- interned traits ---- */

/* A copy with the padding zeroed, so identical traits compare and hash equal. */
static struct fsc_traits traits_norm(const struct fsc_traits *tr)
{
    struct fsc_traits t;
    memset(&t, 0, sizeof(t));
    t.kind = tr->kind;
    t.width = tr->width;
    t.unit = tr->unit;
    t.signal = tr->signal;
    t.direction = tr->direction;
    t.scale = tr->scale;
    t.link_speed_bps = tr->link_speed_bps;
    t.buffer_bytes = tr->buffer_bytes;
    t.nominal_interval_ns = tr->nominal_interval_ns;
    t.refresh_ns = tr->refresh_ns;
    return t;
}

static uint32_t traits_hash(const struct fsc_traits *t)
{
    const unsigned char *b = (const unsigned char *)t;
    uint32_t h = 2166136261u; /* FNV-1a */
    for (size_t i = 0; i < sizeof(*t); i++)
        h = (h ^ b[i]) * 16777619u;
    return h;
}

static void traits_index_put(uint32_t *index, uint32_t cap, const struct fsc_traits *traits,
                             uint32_t idx)
{
    uint32_t mask = cap - 1;
    uint32_t i = traits_hash(&traits[idx]) & mask;
    while (index[i] != 0)
        i = (i + 1) & mask; /* terminates: the index is kept at most half full */
    index[i] = idx + 1;
}

/* Returns the index of traits equal to *tr, adding them if new; -ENOMEM on
 * allocation failure or when FSC_FSC_TRAITS_MAX distinct traits exist. Thread:
 * the caller holds the engine lock. */
int fsc_traits_intern(struct fsc_traits_table *tt, const struct fsc_traits *tr)
{
    struct fsc_traits t = traits_norm(tr);
    if (tt->index_cap) {
        uint32_t mask = tt->index_cap - 1;
        for (uint32_t i = traits_hash(&t) & mask; tt->index[i]; i = (i + 1) & mask) {
            uint32_t idx = tt->index[i] - 1;
            if (memcmp(&tt->traits[idx], &t, sizeof(t)) == 0)
                return (int)idx;
        }
    }
    if (tt->n >= FSC_TRAITS_MAX)
        return -ENOMEM;
    if (tt->n == tt->cap) {
        uint32_t cap = tt->cap ? tt->cap * 2 : 16;
        struct fsc_traits *traits = realloc(tt->traits, (size_t)cap * sizeof(*traits));
        if (!traits)
            return -ENOMEM;
        tt->traits = traits;
        tt->cap = cap;
    }
    if ((tt->n + 1) * 2 > tt->index_cap) {
        uint32_t cap = tt->index_cap ? tt->index_cap * 2 : 64;
        uint32_t *index = calloc(cap, sizeof(*index));
        if (!index)
            return -ENOMEM;
        for (uint32_t k = 0; k < tt->n; k++)
            traits_index_put(index, cap, tt->traits, k);
        free(tt->index);
        tt->index = index;
        tt->index_cap = cap;
    }
    uint32_t idx = tt->n++;
    tt->traits[idx] = t;
    traits_index_put(tt->index, tt->index_cap, tt->traits, idx);
    return (int)idx;
}

/* Frees the table's arrays (the table itself is the caller's). */
void fsc_traits_table_free(struct fsc_traits_table *tt)
{
    free(tt->traits);
    free(tt->index);
}

/* Bytes held by the table's arrays. */
size_t fsc_traits_table_memory(const struct fsc_traits_table *tt)
{
    return (size_t)tt->cap * sizeof(*tt->traits) + (size_t)tt->index_cap * sizeof(*tt->index);
}

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
                                                     .queue_peak_share = 0.5};
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
 * rise_intervals (0) ..."): config_engine.c uses it to point at the line.
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
    return 0;
}
