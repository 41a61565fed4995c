/* The engine: per-series state, rate math and detector dispatch behind one
 * lock (see engine.h for the threading contract).
 *
 * Memory. A collector carries up to millions of series, most of them plain
 * counters that only need rate math. Per series the engine keeps one 128-byte
 * slot (the rate state, the peaks of the last completed windows, a 16-bit
 * index into the interned traits (engine_traits.c), a 32-bit index into a
 * detector pool and that pool's class). Slots live in cache-line aligned
 * chunks of FSC_SER_CHUNK, reached through a pointer table that grows as ids
 * appear, so 1 M series never need one giant realloc and a sparse id space
 * only costs the chunks it touches. Detector state is allocated only for
 * series whose signal has a detector, from pools of fixed size elements (one
 * pool per detector class) with a free list for series whose signal changes.
 *
 * Dispatch. For each sample: bounds check, fsc_rate_update() with a window
 * callback (observer, group imbalance, microburst context), verdict counting,
 * observer, then the detector of the series' signal. The microburst detector
 * gets the windows a sample completed *after* that sample's interval, so a
 * burst that ends in this interval finds the windows around its end in order
 * (see microburst.c); only the first and the last window per level matter to
 * it, so two slots per level are enough.
 *
 * Histograms. Every accepted counter sample of a series with a nominal
 * interval feeds the engine-wide interval-ratio histogram; every fine
 * interval of a port with a link speed feeds that port's utilization
 * histogram, one cache line in a pool parallel to the microburst states.
 * Buckets are found by comparing with edges precomputed per traits
 * (engine_traits.c), so no bucket waits for a division.
 *
 * Speed (measured with bench/engine_bench.c). With many series in random
 * order each sample is a cache and TLB miss, so: the batch loop prefetches
 * the slot INGEST_PREFETCH samples ahead and, once that slot is in, the
 * port's utilization line; the slot caches the detector class (no traits
 * switch per sample) and mirrors the microburst detector's `active` flag, so
 * an idle port below the rise threshold - nearly every port-bytes sample -
 * never touches its 160-byte detector state, which lives in another pool and
 * would be one more miss. */
#include "engine/engine.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/engine_int.h"
#include "engine/xsrc.h"

/* Samples ahead whose slot fsc_engine_ingest() prefetches (measured: 4 and
 * 16 were no better at 64 k and worse at 1 M series, 24 worse everywhere). */
#define INGEST_PREFETCH 8
/* Samples ahead whose utilization-histogram line it prefetches, reading the
 * slot prefetched INGEST_PREFETCH - INGEST_PREFETCH2 samples earlier. */
#define INGEST_PREFETCH2 4
/* Ring of looked-up slots: a power of two above INGEST_PREFETCH. */
#define INGEST_RING 16
_Static_assert(INGEST_RING > INGEST_PREFETCH && INGEST_PREFETCH > INGEST_PREFETCH2,
               "prefetch distances");
#if defined(__GNUC__)
#define PREFETCH_W(p) __builtin_prefetch((p), 1)
#else
#define PREFETCH_W(p) ((void)(p))
#endif

_Static_assert(sizeof(struct fsc_eng_series) <= 128, "per-series engine state must stay <= 128 B");
_Static_assert(sizeof(((struct fsc_rate_result *)0)->withheld) == sizeof(uint64_t),
               "ingest_one tests the withheld counts as one word");
/* Slot chunks are aligned to a cache line; a slot size that divides 128 keeps
 * every slot inside two lines (and aligned_alloc's size a multiple of it). */
#define SER_ALIGN 64
_Static_assert(128 % sizeof(struct fsc_eng_series) == 0,
               "slots must not straddle extra cache lines");
_Static_assert(sizeof(struct fsc_mb_state) <= 160, "microburst state must stay <= 160 B");
_Static_assert(sizeof(struct fsc_util_hist) == FSC_POOL_ALIGN2,
               "the utilization histogram is exactly one cache line");

static enum fsc_det_class det_class_of(const struct fsc_traits *tr)
{
    switch (tr->signal) {
    case FSC_SIG_PORT_BYTES:
        return tr->link_speed_bps > 0 ? FSC_DET_MB : FSC_DET_NONE;
    case FSC_SIG_CNP:
    case FSC_SIG_ECN:
    case FSC_SIG_REORDER:
        return FSC_DET_SPIKE;
    case FSC_SIG_PFC_PAUSE_DURATION:
    case FSC_SIG_PFC_PAUSE_FRAMES:
        return FSC_DET_PFC;
    case FSC_SIG_QUEUE_PEAK:
    case FSC_SIG_LATENCY_PEAK:
    case FSC_SIG_BUFFER_THRESHOLD:
        return FSC_DET_EVID;
    default:
        return FSC_DET_NONE;
    }
}

/* ---- series slots ---- */

/* The slot of id, allocating its chunk when `create`. NULL when absent or on
 * allocation failure. Caller checked id < max_series; holds eng->mu. */
static struct fsc_eng_series *series_get(struct fsc_engine *eng, fsc_series_id id, bool create)
{
    uint32_t c = id >> FSC_SER_CHUNK_SHIFT;
    if (c >= eng->cap_chunks) {
        if (!create)
            return NULL;
        uint32_t max_chunks =
            (uint32_t)(((uint64_t)eng->cfg.max_series + FSC_SER_CHUNK - 1) >> FSC_SER_CHUNK_SHIFT);
        uint32_t cap = eng->cap_chunks ? eng->cap_chunks : 16;
        while (cap <= c)
            cap = cap > max_chunks / 2 ? max_chunks : cap * 2;
        if (cap > max_chunks)
            cap = max_chunks; /* still > c since id < max_series */
        struct fsc_eng_series **chunks = realloc(eng->chunks, (size_t)cap * sizeof(*chunks));
        if (!chunks)
            return NULL;
        memset(chunks + eng->cap_chunks, 0, (size_t)(cap - eng->cap_chunks) * sizeof(*chunks));
        eng->chunks = chunks;
        eng->cap_chunks = cap;
    }
    if (!eng->chunks[c]) {
        if (!create)
            return NULL;
        /* The last chunk only needs to reach max_series (small test engines). */
        uint64_t len = (uint64_t)eng->cfg.max_series - ((uint64_t)c << FSC_SER_CHUNK_SHIFT);
        if (len > FSC_SER_CHUNK)
            len = FSC_SER_CHUNK;
        /* Cache-line aligned: a slot then spans exactly two lines (calloc's
         * 16-byte alignment made it three, one more miss per shuffled sample). */
        size_t bytes = (size_t)len * sizeof(struct fsc_eng_series);
        eng->chunks[c] = aligned_alloc(SER_ALIGN, bytes);
        if (!eng->chunks[c])
            return NULL;
        memset(eng->chunks[c], 0, bytes);
        eng->series_bytes += (size_t)len * sizeof(struct fsc_eng_series);
    }
    return &eng->chunks[c][id & (FSC_SER_CHUNK - 1)];
}

/* ---- lifecycle ---- */

/* Owns: the returned engine; cfg copied, bus borrowed. Returns NULL with a
 * sentence in err. Thread: any (setup). */
struct fsc_engine *fsc_engine_create(const struct fsc_engine_config *cfg, struct fsc_event_bus *bus,
                                     char *err, size_t errlen)
{
    static const struct fsc_traits plain = {.kind = FSC_KIND_COUNTER, .width = 64};
    struct fsc_engine *eng;

    if (fsc_engine_config_validate(cfg, err, errlen) != 0)
        return NULL;
    eng = calloc(1, sizeof(*eng));
    if (!eng)
        goto oom;
    eng->cfg = *cfg;
    eng->bus = bus;
    eng->pools[FSC_DET_MB].elem = sizeof(struct fsc_mb_state);
    eng->pools[FSC_DET_MB].elem2 = sizeof(struct fsc_util_hist);
    eng->pools[FSC_DET_SPIKE].elem = sizeof(struct fsc_spike_state);
    eng->pools[FSC_DET_PFC].elem = sizeof(struct fsc_spike_state);
    eng->pools[FSC_DET_EVID].elem = sizeof(struct fsc_evid_state);
    if (fsc_traits_intern(&eng->tt, &plain) != 0) /* index 0: series without traits */
        goto oom;
    if (cfg->reset_event_every_ns > 0) {
        eng->resets = calloc(FSC_RESET_SLOTS, sizeof(*eng->resets));
        if (!eng->resets)
            goto oom;
    }
    if (pthread_mutex_init(&eng->mu, NULL) != 0)
        goto oom;
    return eng;

oom:
    if (eng) {
        fsc_traits_table_free(&eng->tt);
        free(eng->resets);
        free(eng);
    }
    snprintf(err, errlen, "engine: out of memory");
    return NULL;
}

/* Frees everything the engine owns. NULL is a no-op. Thread: any, once
 * nothing else uses the engine. */
void fsc_engine_destroy(struct fsc_engine *eng)
{
    if (!eng)
        return;
    for (uint32_t c = 0; c < eng->cap_chunks; c++)
        free(eng->chunks[c]);
    free(eng->chunks);
    fsc_traits_table_free(&eng->tt);
    for (unsigned k = 0; k < FSC_DET__COUNT; k++)
        fsc_pool_free(&eng->pools[k]);
    fsc_imb_destroy(eng->imb);
    fsc_xsrc_destroy(eng->xs);
    free(eng->resets);
    fsc_copy_groups_free(&eng->groups);
    pthread_mutex_destroy(&eng->mu);
    free(eng);
}

/* Moves ser to interned traits idx: a change of detector class (or of
 * signal) swaps its detector state for a zeroed one. Returns 0, or -ENOMEM
 * with nothing changed. Caller holds eng->mu. */
static int series_use_traits(struct fsc_engine *eng, struct fsc_eng_series *ser, int idx)
{
    const struct fsc_traits *old = &eng->tt.traits[ser->traits];
    const struct fsc_traits *cur = &eng->tt.traits[idx];
    enum fsc_det_class old_dc = (enum fsc_det_class)ser->dc;
    enum fsc_det_class new_dc = det_class_of(cur);
    if (old_dc != new_dc || old->signal != cur->signal) {
        uint32_t det = 0;
        if (new_dc != FSC_DET_NONE) {
            uint32_t slot;
            if (fsc_pool_alloc(&eng->pools[new_dc], &slot) != 0)
                return -ENOMEM;
            det = slot + 1;
        }
        if (ser->det)
            fsc_pool_release(&eng->pools[old_dc], ser->det - 1);
        ser->det = det;
        ser->dc = (uint8_t)new_dc;
        ser->flags &= (uint8_t)~FSC_SER_F_MB_ACTIVE; /* the new state is zeroed */
    }
    ser->traits = (uint16_t)idx;
    return 0;
}

/* Copies *tr (interned). A change of unit, width, scale or kind restarts the
 * series' rate baseline (old and new values are not comparable); a change of
 * detector class swaps its detector state; a link speed learned later keeps
 * everything. Returns 0, -ERANGE or -ENOMEM. Thread: any; takes eng->mu. */
int fsc_engine_set_traits(struct fsc_engine *eng, fsc_series_id id, const struct fsc_traits *tr)
{
    int rc = 0;

    pthread_mutex_lock(&eng->mu);
    if (id >= eng->cfg.max_series) {
        rc = -ERANGE;
        goto out;
    }
    struct fsc_eng_series *ser = series_get(eng, id, true);
    if (!ser) {
        rc = -ENOMEM;
        goto out;
    }
    const struct fsc_traits *old = &eng->tt.traits[ser->traits];
    /* Old and new values are not comparable: the rate state starts over. */
    const bool restart = old->kind != tr->kind || old->width != tr->width ||
                         old->unit != tr->unit || old->scale != tr->scale;
    /* The copy group is per series, not part of the interned traits: only a
     * periodic copy with a group the engine handed out uses a grid. A
     * series keeps its learned cadence (rate.h rule 5) while it stays in
     * its group: a live one is interned with its live reading. */
    const uint16_t old_group = ser->rs.copy_group;
    const enum fsc_cadence old_cadence = fsc_rate_cadence(&ser->rs);
    const uint16_t group = tr->refresh == FSC_REFRESH_PERIODIC && tr->refresh_ns > 0 &&
                                   tr->copy_group != 0 && tr->copy_group <= eng->groups.n
                               ? tr->copy_group
                               : 0;
    const bool relearn = restart || group != old_group;
    struct fsc_traits scratch;
    const struct fsc_traits *eff =
        fsc_cadence_traits(tr, relearn ? FSC_CADENCE_LEARNING : old_cadence, &scratch);
    int idx = fsc_traits_intern(&eng->tt, eff);
    if (idx < 0 || (rc = series_use_traits(eng, ser, idx)) != 0) {
        rc = idx < 0 ? idx : rc; /* nothing changed */
        goto out;
    }
    if (restart) {
        memset(&ser->rs, 0, sizeof(ser->rs));
        ser->flags &= (uint8_t)~FSC_SER_F_WIN_ALL;
    } else if (relearn) {
        ser->rs.cadence = 0;
    }
    ser->rs.copy_group = group;
    fsc_cadence_moved(eng, ser, old_group, old_cadence);
    ser->flags |= FSC_SER_F_PRESENT;
out:
    pthread_mutex_unlock(&eng->mu);
    return rc;
}

/* Contract in engine.h. The traits in use are the effective ones (a live
 * series' live reading, rate.h rule 5), so only the speed moves: the rate
 * state, the copy group and the learned cadence stay. */
int fsc_engine_set_link_speed(struct fsc_engine *eng, fsc_series_id id, uint64_t bps)
{
    int rc = 0;

    pthread_mutex_lock(&eng->mu);
    struct fsc_eng_series *ser = id < eng->cfg.max_series ? fsc_series_find(eng, id) : NULL;
    if (id >= eng->cfg.max_series) {
        rc = -ERANGE;
    } else if (!ser || !(ser->flags & FSC_SER_F_PRESENT)) {
        rc = -ENOENT;
    } else if (eng->tt.traits[ser->traits].link_speed_bps != bps) {
        struct fsc_traits t = eng->tt.traits[ser->traits];
        t.link_speed_bps = bps;
        int idx = fsc_traits_intern(&eng->tt, &t);
        rc = idx < 0 ? idx : series_use_traits(eng, ser, idx);
    }
    pthread_mutex_unlock(&eng->mu);
    return rc;
}

/* Returns 0, -ERANGE (group >= max_groups or id >= max_series) or -ENOMEM.
 * Thread: any; takes eng->mu. */
int fsc_engine_group_add(struct fsc_engine *eng, uint32_t group, fsc_series_id id)
{
    int rc;

    pthread_mutex_lock(&eng->mu);
    if (group >= eng->cfg.max_groups || id >= eng->cfg.max_series) {
        rc = -ERANGE;
        goto out;
    }
    struct fsc_eng_series *ser = series_get(eng, id, true);
    if (!eng->imb)
        eng->imb = fsc_imb_create(eng->cfg.max_groups);
    if (!ser || !eng->imb) {
        rc = -ENOMEM;
        goto out;
    }
    rc = fsc_imb_add(eng->imb, group, id);
    if (rc == 0)
        ser->flags |= FSC_SER_F_GROUPED;
out:
    pthread_mutex_unlock(&eng->mu);
    return rc;
}

/* How far series id has reported, for the cross-source table (xsrc.h):
 * its update period and last device time once it has a rate baseline.
 * Called with the engine lock held. */
static bool xsrc_reported(const void *arg, fsc_series_id id, int64_t *period_ns, int64_t *t_last)
{
    const struct fsc_engine *eng = arg;
    const struct fsc_eng_series *ser = id < eng->cfg.max_series ? fsc_series_find(eng, id) : NULL;
    if (!ser || !(ser->rs.flags & FSC_RATE_F_BASELINE))
        return false;
    *period_ns = fsc_rate_update_period(&eng->tt.traits[ser->traits]);
    *t_last = ser->rs.t_last;
    return true;
}

/* Contract in engine.h. */
int fsc_engine_peer_add(struct fsc_engine *eng, fsc_series_id id, const char *self,
                        const char *peer)
{
    int rc;

    pthread_mutex_lock(&eng->mu);
    if (id >= eng->cfg.max_series) {
        rc = -ERANGE;
        goto out;
    }
    const struct fsc_eng_series *ser = fsc_series_find(eng, id);
    if (!eng->xs)
        eng->xs = fsc_xsrc_create(xsrc_reported, eng);
    if (!eng->xs) {
        rc = -ENOMEM;
        goto out;
    }
    /* Without a slot the series has no traits yet, so no direction. */
    rc = fsc_xsrc_link(eng->xs, id, ser ? eng->tt.traits[ser->traits].direction : FSC_DIR_NONE,
                       self, peer);
out:
    pthread_mutex_unlock(&eng->mu);
    return rc;
}

/* ---- ingest ---- */

#define OBS_DEFER 32

struct util_obs {
    struct fsc_util_hist *h;
    const double *edge; /* the traits' util_rate edges */
    double rate, u;
};

/* Everything the window callback needs. Set up once per batch; the per-sample
 * fields are rewritten before each fsc_rate_update(). */
struct win_ctx {
    struct fsc_engine *eng;
    const struct fsc_det_ctx *ctx;
    fsc_series_id id;
    struct fsc_eng_series *ser;
    const struct fsc_traits *tr;
    /* First and last window completed per microburst level, replayed to the
     * microburst detector after the interval (recorded when ser->dc is
     * FSC_DET_MB). */
    unsigned n_win[FSC_MB_LEVELS];
    int64_t first_t[FSC_MB_LEVELS], last_t[FSC_MB_LEVELS];
    double first_rate[FSC_MB_LEVELS], last_rate[FSC_MB_LEVELS];
    /* The series' fine rate before this sample's interval (a burst's start
     * edge, fsc_mb_interval). */
    double prev_fine;
    /* Utilization observations deferred to a tight loop (obs_flush). */
    unsigned n_uobs;
    struct util_obs uobs[OBS_DEFER];
};

/* Utilization observations are collected and applied OBS_DEFER at a time, in
 * a loop of independent updates, instead of at the end of each sample's long
 * dependent chain (rate, bucket search, then an increment whose address is
 * known only after both), where they held up the following samples
 * (bench/engine_bench: 64 k series, ~6 ns per update less; see
 * docs/PERFORMANCE.md). All are applied before the lock is released, so no
 * reader ever sees a histogram behind the rest of the series' state. */
static void obs_flush(struct win_ctx *w)
{
    unsigned char idx[OBS_DEFER];

    /* Bucket searches first, then the counter updates: a search's loads
     * never wait behind a counter store whose address is not known yet. */
    for (unsigned k = 0; k < w->n_uobs; k++)
        idx[k] = (unsigned char)fsc_cut_index_f64(w->uobs[k].edge, w->uobs[k].rate);
    for (unsigned k = 0; k < w->n_uobs; k++) {
        w->uobs[k].h->bucket[idx[k]]++;
        w->uobs[k].h->sum += w->uobs[k].u;
    }
    w->n_uobs = 0;
}

static void engine_on_window(void *arg, unsigned level, int64_t t_end_ns, double rate, double peak)
{
    struct win_ctx *w = arg;
    struct fsc_engine *eng = w->eng;

    if (level >= FSC_MAX_WINDOWS)
        return;
    w->ser->last_peak[level] = (float)peak;
    w->ser->flags |= (uint8_t)(FSC_SER_F_WIN0 << level);
    for (unsigned k = 0; k < eng->n_listeners; k++)
        eng->listeners[k].fn(eng->listeners[k].arg, w->id, w->tr, level, t_end_ns, rate);
    if (eng->obs.on_window)
        eng->obs.on_window(eng->obs.arg, w->id, level, t_end_ns, rate, peak);
    if ((w->ser->flags & FSC_SER_F_GROUPED) && level == eng->cfg.imbalance.level) {
        double util = fsc_det_util(w->tr, rate);
        if (util >= 0)
            fsc_imb_window(eng->imb, w->ctx, w->id, w->tr->direction, t_end_ns,
                           eng->cfg.rate.window_ns[level], util);
    }
    if (w->ser->dc == FSC_DET_MB && level < FSC_MB_LEVELS) {
        if (w->n_win[level]++ == 0) {
            w->first_t[level] = t_end_ns;
            w->first_rate[level] = rate;
        }
        w->last_t[level] = t_end_ns;
        w->last_rate[level] = rate;
    }
}

static double sample_value(const struct fsc_sample *smp, const struct fsc_traits *tr)
{
    double v = (smp->flags & FSC_SMP_F64) ? smp->v.d : (double)smp->v.u;
    return tr->scale ? v * (double)tr->scale : v;
}

/* The utilization histogram of a FSC_DET_MB series (the microburst pool's
 * parallel array; its element size is a constant here, which saves the
 * generic fsc_pool_at2() multiply on the hot path). */
static inline struct fsc_util_hist *util_hist_at(const struct fsc_engine *eng,
                                                 const struct fsc_eng_series *ser)
{
    uint32_t idx = ser->det - 1;
    struct fsc_util_hist *chunk =
        (struct fsc_util_hist *)(void *)eng->pools[FSC_DET_MB].chunks2[idx / FSC_POOL_CHUNK];
    return chunk + idx % FSC_POOL_CHUNK;
}

/* The detector of a non-microburst class for one accepted sample. */
static void ingest_detect(struct fsc_engine *eng, const struct fsc_det_ctx *ctx,
                          const struct fsc_sample *smp, struct fsc_eng_series *ser,
                          const struct fsc_traits *tr, const struct fsc_rate_result *res)
{
    void *det = fsc_pool_at(&eng->pools[ser->dc], ser->det - 1);

    if (res->verdict == FSC_RATE_INTERVAL) {
        switch (ser->dc) {
        case FSC_DET_SPIKE:
            fsc_spike_interval(ctx, det, smp->series, tr, &res->iv);
            break;
        case FSC_DET_PFC:
            fsc_pfc_interval(ctx, det, smp->series, tr, &res->iv);
            break;
        case FSC_DET_EVID:
            if (tr->signal == FSC_SIG_BUFFER_THRESHOLD)
                fsc_evid_buffer_threshold(ctx, det, smp->series, tr, &res->iv);
            break;
        default:
            break;
        }
    } else if (res->verdict == FSC_RATE_GAUGE && ser->dc == FSC_DET_EVID &&
               (tr->signal == FSC_SIG_QUEUE_PEAK || tr->signal == FSC_SIG_LATENCY_PEAK)) {
        struct fsc_evid_state *ev = det;
        double v = sample_value(smp, tr);
        fsc_peak_ring_add(&ev->ring, smp->t_dev_ns, v);
        if (tr->signal == FSC_SIG_QUEUE_PEAK)
            fsc_evid_queue_peak(ctx, ev, smp->series, tr, smp->t_dev_ns, v);
        else
            fsc_evid_latency_peak(ctx, ev, smp->series, tr, smp->t_dev_ns, v);
    }
}

/* A port-bytes series with a link speed: the utilization histogram (one
 * line, every fine interval), then the microburst detector: the interval
 * (unless the slot's mirror says the detector is idle and would ignore it)
 * and the windows this sample completed. The common case - an idle port below
 * rise, no window completed - never touches the detector state. */
static void ingest_mb(struct fsc_engine *eng, struct win_ctx *w, const struct fsc_sample *smp,
                      struct fsc_eng_series *ser, const struct fsc_traits *tr,
                      const struct fsc_rate_result *res)
{
    const struct fsc_det_ctx *ctx = w->ctx;
    bool interval = false;

    if (res->verdict == FSC_RATE_INTERVAL) {
        /* Computed once for both: the class guarantees a link speed. */
        double u = fsc_det_util(tr, res->iv.rate);
        if (!res->iv.gap) {
            if (w->n_uobs == OBS_DEFER)
                obs_flush(w);
            w->uobs[w->n_uobs++] = (struct util_obs){.h = util_hist_at(eng, ser),
                                                     .edge = eng->tt.cuts[ser->traits].util_rate,
                                                     .rate = res->iv.rate,
                                                     .u = u};
        }
        interval =
            (ser->flags & FSC_SER_F_MB_ACTIVE) || !fsc_mb_idle_ignores_util(ctx, res->iv.gap, u);
    }
    if (!interval && w->n_win[0] == 0 && w->n_win[1] == 0)
        return;
    struct fsc_mb_state *mb = fsc_pool_at(&eng->pools[FSC_DET_MB], ser->det - 1);
    if (interval) {
        if (fsc_mb_interval(ctx, mb, smp->series, tr, &res->iv, w->prev_fine))
            ser->flags |= FSC_SER_F_MB_ACTIVE;
        else
            ser->flags &= (uint8_t)~FSC_SER_F_MB_ACTIVE;
    }
    for (unsigned l = 0; l < FSC_MB_LEVELS; l++) {
        if (w->n_win[l] >= 1)
            fsc_mb_window(ctx, mb, smp->series, tr, l, w->first_t[l], w->first_rate[l]);
        if (w->n_win[l] >= 2)
            fsc_mb_window(ctx, mb, smp->series, tr, l, w->last_t[l], w->last_rate[l]);
    }
}

static void ingest_one(struct fsc_engine *eng, struct win_ctx *w, const struct fsc_sample *smp,
                       struct fsc_eng_series *ser)
{
    /* A periodic series not found live is placed by its device's grid
     * (rate.h rule 5); its cadence may change with this sample. */
    const uint16_t group = ser->rs.copy_group;
    const enum fsc_cadence cadence = fsc_rate_cadence(&ser->rs);
    struct fsc_copy_grid *grid = group != 0 && cadence != FSC_CADENCE_LIVE
                                     ? fsc_copy_groups_grid(&eng->groups, group)
                                     : NULL;
    const struct fsc_traits *tr = &eng->tt.traits[ser->traits];
    const struct fsc_traits_cut *cut = &eng->tt.cuts[ser->traits];
    /* The interval ratio's bucket is computed before the rate update, from
     * what is known already (this sample's time and the last accepted one),
     * so its counter's address is known long before the verdict that decides
     * whether to count it: an increment whose address comes late made the
     * following samples wait (bench/engine_bench). Unused when the verdict
     * says no. */
    const int64_t dt = smp->t_dev_ns - ser->rs.t_last;
    const unsigned ratio_idx = fsc_cut_index_i64(cut->ratio_dt, dt);
    /* The value before this sample, for a counter-reset event (the slot's
     * line is already in cache: nearly free). */
    const union fsc_value prev = ser->rs.v_anchor;
    const bool prev_f64 = (ser->rs.flags & FSC_RATE_F_F64) != 0;
    struct fsc_rate_result res;

    w->id = smp->series;
    w->ser = ser;
    w->tr = tr;
    w->prev_fine = (ser->rs.flags & FSC_RATE_F_BASELINE) ? (double)ser->rs.fine_rate : -1.0;
    w->n_win[0] = 0;
    w->n_win[1] = 0;
    fsc_rate_update_grid(&ser->rs, tr, &eng->cfg.rate, grid, smp, engine_on_window, w, &res);
    if ((unsigned)res.verdict < FSC_RATE__COUNT)
        eng->stats.verdicts[res.verdict]++;
    if (grid && fsc_rate_cadence(&ser->rs) != cadence) {
        fsc_cadence_moved(eng, ser, group, cadence);
        if (fsc_rate_cadence(&ser->rs) == FSC_CADENCE_LIVE)
            (void)fsc_series_go_live(eng, ser); /* full table: read as on-read copies */
    }
    uint64_t withheld;
    memcpy(&withheld, res.withheld, sizeof(withheld));
    if (withheld != 0)
        for (unsigned l = 0; l < FSC_MAX_WINDOWS; l++)
            eng->stats.windows_withheld[l] += res.withheld[l];
    /* Both verdicts mean a previous accepted sample existed (t_prev). */
    if ((res.verdict == FSC_RATE_INTERVAL || res.verdict == FSC_RATE_STALE_REPEAT) &&
        tr->nominal_interval_ns > 0) {
        eng->stats.interval_ratio.bucket[ratio_idx]++;
        eng->stats.interval_ratio.sum += (double)dt / (double)tr->nominal_interval_ns;
    }

    if (res.verdict == FSC_RATE_RESET)
        fsc_reset_event(w->ctx, eng->resets, &eng->stats.reset_events_suppressed, tr, smp, prev,
                        prev_f64);
    if (res.verdict == FSC_RATE_INTERVAL) {
        if (res.iv.wrapped)
            eng->stats.wraps++;
        if (res.iv.gap)
            eng->stats.gaps++;
        if (eng->obs.on_interval)
            eng->obs.on_interval(eng->obs.arg, smp->series, &res.iv);
        if (ser->rs.fine_rate >= 0)
            for (unsigned k = 0; k < eng->n_fine_listeners; k++)
                eng->fine_listeners[k].fn(eng->fine_listeners[k].arg, smp->series, tr,
                                          ser->rs.t_anchor, ser->rs.fine_rate);
    }
    if (ser->dc == FSC_DET_MB)
        ingest_mb(eng, w, smp, ser, tr, &res);
    else if (ser->dc != FSC_DET_NONE)
        ingest_detect(eng, w->ctx, smp, ser, tr, &res);
}

/* The slot of id if it exists (NULL otherwise), its two lines prefetched. */
static inline struct fsc_eng_series *slot_ahead(const struct fsc_engine *eng, fsc_series_id id)
{
    struct fsc_eng_series *ser = id < eng->cfg.max_series ? fsc_series_find(eng, id) : NULL;
    if (ser) {
        PREFETCH_W(ser);
        PREFETCH_W((const char *)ser + SER_ALIGN);
    }
    return ser;
}

/* Applies n samples in order under one lock. Returns 0, or -ENOMEM when a
 * chunk could not be allocated (those samples count as unknown_series).
 * Thread: any source thread; takes eng->mu, and the bus lock per event. */
int fsc_engine_ingest(struct fsc_engine *eng, const struct fsc_sample *smp, size_t n)
{
    /* Slots looked up INGEST_PREFETCH samples ahead, kept for the second
     * prefetch stage and for the sample itself: one lookup per sample. A
     * slot pointer stays valid for the whole batch (chunks are never freed
     * or moved while the engine lives); NULL (id out of range, chunk not yet
     * there) sends the sample down the slow path. */
    struct fsc_eng_series *ahead[INGEST_RING];
    int rc = 0;

    pthread_mutex_lock(&eng->mu);
    const struct fsc_det_ctx ctx = {
        .cfg = &eng->cfg, .bus = eng->bus, .events = eng->stats.events, .xs = eng->xs};
    struct win_ctx w; /* not zeroed as a whole: the observation buffers are large */
    w.eng = eng;
    w.ctx = &ctx;
    w.n_uobs = 0;
    eng->stats.samples += n;
    if (eng->obs.on_samples)
        eng->obs.on_samples(eng->obs.arg, smp, n);
    for (size_t i = 0; i < n && i < INGEST_PREFETCH; i++)
        ahead[i % INGEST_RING] = slot_ahead(eng, smp[i].series);
    for (size_t i = 0; i < n; i++) {
        /* In a shuffled batch every slot is a cache (and TLB) miss: start
         * the load of a slot a few samples ahead so the misses overlap. */
        if (i + INGEST_PREFETCH < n)
            ahead[(i + INGEST_PREFETCH) % INGEST_RING] =
                slot_ahead(eng, smp[i + INGEST_PREFETCH].series);
        /* Second stage: the slot of a sample nearer ahead has (mostly)
         * arrived; if it is a port with a utilization histogram, start the
         * load of that line too (every interval of such a port updates it). */
        if (i + INGEST_PREFETCH2 < n) {
            const struct fsc_eng_series *near = ahead[(i + INGEST_PREFETCH2) % INGEST_RING];
            if (near && near->dc == FSC_DET_MB)
                PREFETCH_W(util_hist_at(eng, near));
        }
        struct fsc_eng_series *ser = ahead[i % INGEST_RING];
        if (!ser) {
            if (smp[i].series >= eng->cfg.max_series) {
                eng->stats.unknown_series++;
                continue;
            }
            ser = series_get(eng, smp[i].series, true);
            if (!ser) {
                eng->stats.unknown_series++;
                rc = -ENOMEM;
                continue;
            }
        }
        ser->flags |= FSC_SER_F_PRESENT;
        if (smp[i].flags & FSC_SMP_ARRIVAL_TIME)
            eng->stats.arrival_time_samples++;
        ingest_one(eng, &w, &smp[i], ser);
    }
    obs_flush(&w);
    pthread_mutex_unlock(&eng->mu);
    return rc;
}

/* A source's own event, published and counted as a detector's. Under the
 * engine lock, as the detectors publish: stats.events is the engine's, and
 * one lock order (engine, then bus) holds everywhere. */
void fsc_engine_publish(struct fsc_engine *eng, const struct fsc_event *ev)
{
    pthread_mutex_lock(&eng->mu);
    const struct fsc_det_ctx ctx = {.cfg = &eng->cfg, .bus = eng->bus, .events = eng->stats.events};
    fsc_det_publish(&ctx, ev);
    pthread_mutex_unlock(&eng->mu);
}
