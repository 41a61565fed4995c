/* The engine: per-series state, rate math and detector dispatch behind one
 * lock (see engine.h for the threading contract).
 *
 * Memory. A collector carries up to millions of series, most of them plain
 * counters that only need rate math. Per series the engine keeps one 128-byte
 * slot (the rate state, the peaks of the last completed windows, a 16-bit
 * index into the interned traits (engine_config.c), a 32-bit index into a
 * detector pool and that pool's class). Slots live in cache-line aligned
 * chunks of SER_CHUNK, reached through a pointer table that grows as ids
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
 * Speed (measured with bench/engine_bench.c). With many series in random
 * order each sample is a cache and TLB miss, so: the batch loop prefetches
 * the slot INGEST_PREFETCH samples ahead; the slot caches the detector class
 * (no traits switch per sample) and mirrors the microburst detector's
 * `active` flag, so an idle port below the rise threshold - nearly every
 * port-bytes sample - never touches its 88-byte detector state, which lives
 * in another pool and would be a second miss. */
#include "engine/engine.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/detect.h"

#define SER_CHUNK_SHIFT 12
#define SER_CHUNK       (1u << SER_CHUNK_SHIFT)
#define POOL_CHUNK      1024u
/* Samples ahead whose slot fsc_engine_ingest() prefetches (measured: 4 and
 * 16 were no better at 64 k and worse at 1 M series, 24 worse everywhere). */
#define INGEST_PREFETCH 8
#if defined(__GNUC__)
#define PREFETCH_W(p) __builtin_prefetch((p), 1)
#else
#define PREFETCH_W(p) ((void)(p))
#endif

enum {
    SER_F_PRESENT = 1u << 0,   /* traits set or a sample seen: fsc_engine_view answers */
    SER_F_GROUPED = 1u << 1,   /* member of at least one port group */
    SER_F_MB_ACTIVE = 1u << 2, /* mirror of the microburst state's `active` */
};

struct eng_series {
    struct fsc_rate_state rs;
    float last_peak[FSC_MAX_WINDOWS]; /* max fine rate of the last completed window */
    uint32_t det;                     /* detector pool index + 1; 0 = none */
    uint16_t traits;                  /* index into eng->tt.traits */
    uint8_t flags;                    /* SER_F_* */
    uint8_t dc;                       /* enum det_class of det (DET_NONE when det == 0) */
};
_Static_assert(sizeof(struct eng_series) <= 128, "per-series engine state must stay <= 128 B");
/* Slot chunks are aligned to a cache line; a slot size that divides 128 keeps
 * every slot inside two lines (and aligned_alloc's size a multiple of it). */
#define SER_ALIGN 64
_Static_assert(128 % sizeof(struct eng_series) == 0, "slots must not straddle extra cache lines");
/* A 400G port-bytes series also carries one of these: 128 + 88 engine bytes
 * plus the registry stays under the 256 B per series budget. */
_Static_assert(sizeof(struct fsc_mb_state) <= 88, "microburst state must stay <= 88 B");

enum det_class { DET_NONE = 0, DET_MB, DET_SPIKE, DET_PFC, DET_EVID, DET__COUNT };

/* Fixed-size elements in chunks; zeroed on hand-out. */
struct pool {
    size_t elem;
    unsigned char **chunks;
    uint32_t n_chunks, cap_chunks;
    uint32_t used; /* elements handed out from the chunks so far (high-water mark) */
    uint32_t *free_idx;
    uint32_t n_free, cap_free;
};

struct fsc_engine {
    pthread_mutex_t mu;
    struct fsc_engine_config cfg;
    struct fsc_event_bus *bus; /* borrowed, may be NULL */
    struct fsc_engine_observer obs;
    struct fsc_engine_stats stats;

    struct eng_series **chunks; /* cap_chunks slots, NULL until a series in it appears */
    uint32_t cap_chunks;
    size_t series_bytes; /* bytes of the chunks allocated */

    struct fsc_traits_table tt; /* interned; [0] = the default */

    struct pool pools[DET__COUNT];
    struct fsc_imb *imb; /* created on the first fsc_engine_group_add() */
};

static enum det_class det_class_of(const struct fsc_traits *tr)
{
    switch (tr->signal) {
    case FSC_SIG_PORT_BYTES:
        return tr->link_speed_bps > 0 ? DET_MB : DET_NONE;
    case FSC_SIG_CNP:
    case FSC_SIG_ECN:
    case FSC_SIG_REORDER:
        return DET_SPIKE;
    case FSC_SIG_PFC_PAUSE_DURATION:
    case FSC_SIG_PFC_PAUSE_FRAMES:
        return DET_PFC;
    case FSC_SIG_QUEUE_PEAK:
    case FSC_SIG_BUFFER_THRESHOLD:
        return DET_EVID;
    default:
        return DET_NONE;
    }
}

/* ---- pools ---- */

static void *pool_at(const struct pool *p, uint32_t idx)
{
    return p->chunks[idx / POOL_CHUNK] + (size_t)(idx % POOL_CHUNK) * p->elem;
}

static int pool_alloc(struct pool *p, uint32_t *idx)
{
    if (p->n_free > 0) {
        *idx = p->free_idx[--p->n_free];
        memset(pool_at(p, *idx), 0, p->elem);
        return 0;
    }
    if (p->used == p->n_chunks * POOL_CHUNK) {
        if (p->n_chunks == p->cap_chunks) {
            uint32_t cap = p->cap_chunks ? p->cap_chunks * 2 : 8;
            unsigned char **chunks = realloc(p->chunks, (size_t)cap * sizeof(*chunks));
            if (!chunks)
                return -ENOMEM;
            p->chunks = chunks;
            p->cap_chunks = cap;
        }
        p->chunks[p->n_chunks] = calloc(POOL_CHUNK, p->elem);
        if (!p->chunks[p->n_chunks])
            return -ENOMEM;
        p->n_chunks++;
    }
    *idx = p->used++;
    return 0;
}

/* A slot that cannot be put on the free list is simply not reused: it stays
 * inside memory already counted, so nothing grows without bound. */
static void pool_release(struct pool *p, uint32_t idx)
{
    if (p->n_free == p->cap_free) {
        uint32_t cap = p->cap_free ? p->cap_free * 2 : 64;
        uint32_t *f = realloc(p->free_idx, (size_t)cap * sizeof(*f));
        if (!f)
            return;
        p->free_idx = f;
        p->cap_free = cap;
    }
    p->free_idx[p->n_free++] = idx;
}

static void pool_free(struct pool *p)
{
    for (uint32_t c = 0; c < p->n_chunks; c++)
        free(p->chunks[c]);
    free(p->chunks);
    free(p->free_idx);
}

static size_t pool_memory(const struct pool *p)
{
    return (size_t)p->n_chunks * POOL_CHUNK * p->elem + (size_t)p->cap_chunks * sizeof(void *) +
           (size_t)p->cap_free * sizeof(uint32_t);
}

/* ---- series slots ---- */

/* The slot of id when its chunk exists, else NULL (the hot path). Caller
 * checked id < max_series; holds eng->mu. */
static inline struct eng_series *series_find(const struct fsc_engine *eng, fsc_series_id id)
{
    uint32_t c = id >> SER_CHUNK_SHIFT;
    if (c >= eng->cap_chunks || !eng->chunks[c])
        return NULL;
    return &eng->chunks[c][id & (SER_CHUNK - 1)];
}

/* The slot of id, allocating its chunk when `create`. NULL when absent or on
 * allocation failure. Caller checked id < max_series; holds eng->mu. */
static struct eng_series *series_get(struct fsc_engine *eng, fsc_series_id id, bool create)
{
    uint32_t c = id >> SER_CHUNK_SHIFT;
    if (c >= eng->cap_chunks) {
        if (!create)
            return NULL;
        uint32_t max_chunks =
            (uint32_t)(((uint64_t)eng->cfg.max_series + SER_CHUNK - 1) >> SER_CHUNK_SHIFT);
        uint32_t cap = eng->cap_chunks ? eng->cap_chunks : 16;
        while (cap <= c)
            cap = cap > max_chunks / 2 ? max_chunks : cap * 2;
        if (cap > max_chunks)
            cap = max_chunks; /* still > c since id < max_series */
        struct eng_series **chunks = realloc(eng->chunks, (size_t)cap * sizeof(*chunks));
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
        uint64_t len = (uint64_t)eng->cfg.max_series - ((uint64_t)c << SER_CHUNK_SHIFT);
        if (len > SER_CHUNK)
            len = SER_CHUNK;
        /* Cache-line aligned: a slot then spans exactly two lines (calloc's
         * 16-byte alignment made it three, one more miss per shuffled sample). */
        size_t bytes = (size_t)len * sizeof(struct eng_series);
        eng->chunks[c] = aligned_alloc(SER_ALIGN, bytes);
        if (!eng->chunks[c])
            return NULL;
        memset(eng->chunks[c], 0, bytes);
        eng->series_bytes += (size_t)len * sizeof(struct eng_series);
    }
    return &eng->chunks[c][id & (SER_CHUNK - 1)];
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
    eng->pools[DET_MB].elem = sizeof(struct fsc_mb_state);
    eng->pools[DET_SPIKE].elem = sizeof(struct fsc_spike_state);
    eng->pools[DET_PFC].elem = sizeof(struct fsc_spike_state);
    eng->pools[DET_EVID].elem = sizeof(struct fsc_evid_state);
    if (fsc_traits_intern(&eng->tt, &plain) != 0) /* index 0: series without traits */
        goto oom;
    if (pthread_mutex_init(&eng->mu, NULL) != 0)
        goto oom;
    return eng;

oom:
    if (eng) {
        fsc_traits_table_free(&eng->tt);
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
    for (unsigned k = 0; k < DET__COUNT; k++)
        pool_free(&eng->pools[k]);
    fsc_imb_destroy(eng->imb);
    pthread_mutex_destroy(&eng->mu);
    free(eng);
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
    struct eng_series *ser = series_get(eng, id, true);
    if (!ser) {
        rc = -ENOMEM;
        goto out;
    }
    int idx = fsc_traits_intern(&eng->tt, tr);
    if (idx < 0) {
        rc = idx;
        goto out;
    }
    const struct fsc_traits *old = &eng->tt.traits[ser->traits];
    const struct fsc_traits *cur = &eng->tt.traits[idx];
    enum det_class old_dc = (enum det_class)ser->dc;
    enum det_class new_dc = det_class_of(cur);
    if (old_dc != new_dc || old->signal != cur->signal) {
        uint32_t det = 0;
        if (new_dc != DET_NONE) {
            uint32_t slot;
            if (pool_alloc(&eng->pools[new_dc], &slot) != 0) {
                rc = -ENOMEM; /* nothing changed */
                goto out;
            }
            det = slot + 1;
        }
        if (ser->det)
            pool_release(&eng->pools[old_dc], ser->det - 1);
        ser->det = det;
        ser->dc = (uint8_t)new_dc;
        ser->flags &= (uint8_t)~SER_F_MB_ACTIVE; /* the new state is zeroed */
    }
    if (old->kind != cur->kind || old->width != cur->width || old->unit != cur->unit ||
        old->scale != cur->scale)
        memset(&ser->rs, 0, sizeof(ser->rs));
    ser->traits = (uint16_t)idx;
    ser->flags |= SER_F_PRESENT;
out:
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
    struct eng_series *ser = series_get(eng, id, true);
    if (!eng->imb)
        eng->imb = fsc_imb_create(eng->cfg.max_groups);
    if (!ser || !eng->imb) {
        rc = -ENOMEM;
        goto out;
    }
    rc = fsc_imb_add(eng->imb, group, id);
    if (rc == 0)
        ser->flags |= SER_F_GROUPED;
out:
    pthread_mutex_unlock(&eng->mu);
    return rc;
}

/* ---- ingest ---- */

/* Everything the window callback needs. Set up once per batch; the per-sample
 * fields are rewritten before each fsc_rate_update(). */
struct win_ctx {
    struct fsc_engine *eng;
    const struct fsc_det_ctx *ctx;
    fsc_series_id id;
    struct eng_series *ser;
    const struct fsc_traits *tr;
    /* First and last window completed per microburst level, replayed to the
     * microburst detector after the interval (recorded when ser->dc is
     * DET_MB). */
    unsigned n_win[FSC_MB_LEVELS];
    int64_t first_t[FSC_MB_LEVELS], last_t[FSC_MB_LEVELS];
    double first_rate[FSC_MB_LEVELS], last_rate[FSC_MB_LEVELS];
};

static void engine_on_window(void *arg, unsigned level, int64_t t_end_ns, double rate, double peak)
{
    struct win_ctx *w = arg;
    struct fsc_engine *eng = w->eng;

    if (level >= FSC_MAX_WINDOWS)
        return;
    w->ser->last_peak[level] = (float)peak;
    if (eng->obs.on_window)
        eng->obs.on_window(eng->obs.arg, w->id, level, t_end_ns, rate, peak);
    if ((w->ser->flags & SER_F_GROUPED) && level == eng->cfg.imbalance.level) {
        double util = fsc_det_util(w->tr, rate);
        if (util >= 0)
            fsc_imb_window(eng->imb, w->ctx, w->id, w->tr->direction, t_end_ns,
                           eng->cfg.rate.window_ns[level], util);
    }
    if (w->ser->dc == DET_MB && level < FSC_MB_LEVELS) {
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

/* The detector of a non-microburst class for one accepted sample. */
static void ingest_detect(struct fsc_engine *eng, const struct fsc_det_ctx *ctx,
                          const struct fsc_sample *smp, struct eng_series *ser,
                          const struct fsc_traits *tr, const struct fsc_rate_result *res)
{
    void *det = pool_at(&eng->pools[ser->dc], ser->det - 1);

    if (res->verdict == FSC_RATE_INTERVAL) {
        switch (ser->dc) {
        case DET_SPIKE:
            fsc_spike_interval(ctx, det, smp->series, tr, &res->iv);
            break;
        case DET_PFC:
            fsc_pfc_interval(ctx, det, smp->series, tr, &res->iv);
            break;
        case DET_EVID:
            if (tr->signal == FSC_SIG_BUFFER_THRESHOLD)
                fsc_evid_buffer_threshold(ctx, det, smp->series, tr, &res->iv);
            break;
        default:
            break;
        }
    } else if (res->verdict == FSC_RATE_GAUGE && ser->dc == DET_EVID &&
               tr->signal == FSC_SIG_QUEUE_PEAK) {
        fsc_evid_queue_peak(ctx, det, smp->series, tr, smp->t_dev_ns, sample_value(smp, tr));
    }
}

/* The microburst detector: the interval (unless the slot's mirror says the
 * detector is idle and would ignore it), then the windows this sample
 * completed. The common case - an idle port below rise, no window completed -
 * never touches the detector state. */
static void ingest_mb(struct fsc_engine *eng, const struct win_ctx *w, const struct fsc_sample *smp,
                      struct eng_series *ser, const struct fsc_traits *tr,
                      const struct fsc_rate_result *res)
{
    const struct fsc_det_ctx *ctx = w->ctx;
    bool interval = res->verdict == FSC_RATE_INTERVAL &&
                    ((ser->flags & SER_F_MB_ACTIVE) || !fsc_mb_idle_ignores(ctx, tr, &res->iv));

    if (!interval && w->n_win[0] == 0 && w->n_win[1] == 0)
        return;
    struct fsc_mb_state *mb = pool_at(&eng->pools[DET_MB], ser->det - 1);
    if (interval) {
        if (fsc_mb_interval(ctx, mb, smp->series, tr, &res->iv))
            ser->flags |= SER_F_MB_ACTIVE;
        else
            ser->flags &= (uint8_t)~SER_F_MB_ACTIVE;
    }
    for (unsigned l = 0; l < FSC_MB_LEVELS; l++) {
        if (w->n_win[l] >= 1)
            fsc_mb_window(ctx, mb, smp->series, tr, l, w->first_t[l], w->first_rate[l]);
        if (w->n_win[l] >= 2)
            fsc_mb_window(ctx, mb, smp->series, tr, l, w->last_t[l], w->last_rate[l]);
    }
}

static void ingest_one(struct fsc_engine *eng, struct win_ctx *w, const struct fsc_sample *smp,
                       struct eng_series *ser)
{
    const struct fsc_traits *tr = &eng->tt.traits[ser->traits];
    struct fsc_rate_result res;

    w->id = smp->series;
    w->ser = ser;
    w->tr = tr;
    w->n_win[0] = 0;
    w->n_win[1] = 0;
    fsc_rate_update(&ser->rs, tr, &eng->cfg.rate, smp, engine_on_window, w, &res);
    if ((unsigned)res.verdict < FSC_RATE__COUNT)
        eng->stats.verdicts[res.verdict]++;

    if (res.verdict == FSC_RATE_INTERVAL) {
        if (res.iv.wrapped)
            eng->stats.wraps++;
        if (res.iv.gap)
            eng->stats.gaps++;
        if (eng->obs.on_interval)
            eng->obs.on_interval(eng->obs.arg, smp->series, &res.iv);
    }
    if (ser->dc == DET_MB)
        ingest_mb(eng, w, smp, ser, tr, &res);
    else if (ser->dc != DET_NONE)
        ingest_detect(eng, w->ctx, smp, ser, tr, &res);
}

/* Applies n samples in order under one lock. Returns 0, or -ENOMEM when a
 * chunk could not be allocated (those samples count as unknown_series).
 * Thread: any source thread; takes eng->mu, and the bus lock per event. */
int fsc_engine_ingest(struct fsc_engine *eng, const struct fsc_sample *smp, size_t n)
{
    int rc = 0;

    pthread_mutex_lock(&eng->mu);
    const struct fsc_det_ctx ctx = {.cfg = &eng->cfg, .bus = eng->bus, .events = eng->stats.events};
    struct win_ctx w = {.eng = eng, .ctx = &ctx};
    eng->stats.samples += n;
    for (size_t i = 0; i < n; i++) {
        /* In a shuffled batch every slot is a cache (and TLB) miss: start
         * the load of a slot a few samples ahead so the misses overlap. */
        if (i + INGEST_PREFETCH < n && smp[i + INGEST_PREFETCH].series < eng->cfg.max_series) {
            const struct eng_series *next = series_find(eng, smp[i + INGEST_PREFETCH].series);
            if (next) {
                PREFETCH_W(next);
                PREFETCH_W((const char *)next + SER_ALIGN);
            }
        }
        if (smp[i].series >= eng->cfg.max_series) {
            eng->stats.unknown_series++;
            continue;
        }
        struct eng_series *ser = series_find(eng, smp[i].series);
        if (!ser)
            ser = series_get(eng, smp[i].series, true);
        if (!ser) {
            eng->stats.unknown_series++;
            rc = -ENOMEM;
            continue;
        }
        ser->flags |= SER_F_PRESENT;
        if (smp[i].flags & FSC_SMP_ARRIVAL_TIME)
            eng->stats.arrival_time_samples++;
        ingest_one(eng, &w, &smp[i], ser);
    }
    pthread_mutex_unlock(&eng->mu);
    return rc;
}

/* ---- readers ---- */

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
    pthread_mutex_unlock(&eng->mu);
}

/* Returns 0, or -ENOENT when neither traits nor a sample were ever given for
 * id. Thread: any; takes eng->mu. */
int fsc_engine_view(struct fsc_engine *eng, fsc_series_id id, struct fsc_series_view *out)
{
    int rc = 0;

    pthread_mutex_lock(&eng->mu);
    struct eng_series *ser = id < eng->cfg.max_series ? series_get(eng, id, false) : NULL;
    if (!ser || !(ser->flags & SER_F_PRESENT)) {
        rc = -ENOENT;
        goto out;
    }
    const struct fsc_rate_state *rs = &ser->rs;
    memset(out, 0, sizeof(*out));
    out->kind = eng->tt.traits[ser->traits].kind;
    out->has_value = (rs->flags & FSC_RATE_F_BASELINE) != 0;
    out->is_f64 = (rs->flags & FSC_RATE_F_F64) != 0;
    out->t_last_ns = rs->t_last;
    out->value = rs->v_anchor;
    out->fine_rate = rs->fine_rate;
    for (unsigned l = 0; l < FSC_MAX_WINDOWS; l++) {
        out->window_rate[l] = rs->last_window_rate[l];
        out->window_peak[l] = ser->last_peak[l];
    }
out:
    pthread_mutex_unlock(&eng->mu);
    return rc;
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
                   fsc_traits_table_memory(&eng->tt);
    for (unsigned k = 0; k < DET__COUNT; k++)
        bytes += pool_memory(&eng->pools[k]);
    bytes += fsc_imb_memory(eng->imb);
    pthread_mutex_unlock(&eng->mu);
    return bytes;
}
