/* Internal API shared by the engine files (engine.c, engine_config.c,
 * engine_pool.c, engine_view.c) and the detector files (docs/DESIGN.md,
 * "Detectors and events"). Not a public contract: only the engine .c files
 * include it.
 *
 * The engine owns every detector state and calls these functions on the
 * ingest thread with the engine lock held, so none of them locks anything
 * (publishing to the bus takes the bus' own lock). They never allocate,
 * except the group table in imbalance.c, which grows only in
 * fsc_imb_add(). */
#ifndef FSC_DETECT_H
#define FSC_DETECT_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "model/sample.h"
#include "engine/engine.h"
#include "engine/events.h"
#include "engine/copy_grid.h"
#include "engine/rate.h"

struct fsc_xsrc; /* links between ports (xsrc.h) */

/* ---- Interned series traits (engine_config.c) ----
 *
 * A series refers to its traits by a uint16_t index; identical traits are
 * stored once. Index 0 is the default the engine interns at creation. */
#define FSC_TRAITS_MAX 65535u

/* Histogram bucket edges of one traits entry, precomputed when it is
 * interned so that the per-sample path compares instead of dividing: the
 * bucket index then depends only on the rate or the interval, not on a
 * division's latency (measured: bench/engine_bench, docs/PERFORMANCE.md).
 * Each edge is the largest value whose quotient - computed exactly as the
 * definition says, in doubles - is still <= the bucket's bound, so a bucket
 * found by comparing is the bucket the quotient would land in. */
#define FSC_CUT_N 16 /* edges per histogram, padded with +Inf / INT64_MAX */
_Static_assert(FSC_UTIL_BUCKETS < FSC_CUT_N && FSC_INTERVAL_RATIO_BUCKETS < FSC_CUT_N,
               "the bucket search covers at most 15 bounds");

struct fsc_traits_cut {
    /* bytes/s: rate*8/link_speed <= fsc_util_bucket_le[k] iff rate <= util_rate[k]
     * (link speed > 0; otherwise all +Inf) */
    double util_rate[FSC_CUT_N];
    /* ns: dt/nominal_interval <= fsc_interval_ratio_bucket_le[k] iff dt <= ratio_dt[k]
     * (nominal interval > 0; otherwise all INT64_MAX) */
    int64_t ratio_dt[FSC_CUT_N];
};

/* The number of edges below x among FSC_CUT_N ascending edges (the padding
 * never is): the bucket. A branch-free binary search, four steps of a load, a
 * compare and an add: far fewer instructions than comparing all 12 bounds,
 * and no branch to mispredict when neighbouring samples land in different
 * buckets. */
static inline unsigned fsc_cut_index_f64(const double *edge, double x)
{
    unsigned i = 0;
    i += (unsigned)(edge[i + 7] < x) << 3;
    i += (unsigned)(edge[i + 3] < x) << 2;
    i += (unsigned)(edge[i + 1] < x) << 1;
    i += (unsigned)(edge[i] < x);
    return i;
}

static inline unsigned fsc_cut_index_i64(const int64_t *edge, int64_t x)
{
    unsigned i = 0;
    i += (unsigned)(edge[i + 7] < x) << 3;
    i += (unsigned)(edge[i + 3] < x) << 2;
    i += (unsigned)(edge[i + 1] < x) << 1;
    i += (unsigned)(edge[i] < x);
    return i;
}

struct fsc_traits_table {
    struct fsc_traits *traits;   /* n used of cap */
    struct fsc_traits_cut *cuts; /* parallel to traits */
    uint32_t n, cap;
    uint32_t *index; /* open addressing: traits index + 1, 0 = empty */
    uint32_t index_cap;
};

int fsc_traits_intern(struct fsc_traits_table *tt, const struct fsc_traits *tr);
void fsc_traits_table_free(struct fsc_traits_table *tt);
size_t fsc_traits_table_memory(const struct fsc_traits_table *tt);

/* What a detector needs to publish an event. */
struct fsc_det_ctx {
    const struct fsc_engine_config *cfg;
    struct fsc_event_bus *bus; /* NULL: events are only counted */
    uint64_t *events;          /* stats.events[FSC_EV__COUNT] of the engine */
    struct fsc_xsrc *xs;       /* links between ports (xsrc.h); NULL: none */
};

/* Counts the event (START and INSTANT phases, so that a counter means "how
 * many happened") and publishes it when there is a bus. */
static inline void fsc_det_publish(const struct fsc_det_ctx *ctx, const struct fsc_event *ev)
{
    if ((ev->phase == FSC_EV_START || ev->phase == FSC_EV_INSTANT) && ev->kind < FSC_EV__COUNT)
        ctx->events[ev->kind]++;
    if (ctx->bus)
        fsc_event_publish(ctx->bus, ev);
}

/* Returns a zeroed event with the identifying fields set and util_1s /
 * util_10s at -1 (unknown). */
static inline struct fsc_event fsc_det_event(enum fsc_event_kind kind, enum fsc_event_phase phase,
                                             fsc_series_id id, uint8_t direction)
{
    struct fsc_event ev;
    memset(&ev, 0, sizeof(ev));
    ev.kind = (uint8_t)kind;
    ev.phase = (uint8_t)phase;
    ev.direction = direction;
    ev.series = id;
    return ev;
}

/* Bits per second over link speed; -1 when the speed is unknown. Inline: the
 * engine and the microburst detector call it for every port-bytes interval. */
static inline double fsc_det_util(const struct fsc_traits *tr, double bytes_per_second)
{
    if (tr->link_speed_bps == 0)
        return -1;
    return bytes_per_second * 8.0 / (double)tr->link_speed_bps;
}

/* ---- Histograms (bounds in engine_view.c, declared in engine.h) ---- */

/* Bucket of v for the ascending, inclusive ("le") upper bounds le[0..n): the
 * number of bounds strictly below v, n being the +Inf overflow. Exact at the
 * bounds: v == le[k] lands in bucket k (a microburst of exactly 0.1 s is
 * counted under le="0.1"). NaN compares false and lands in bucket 0; no
 * caller passes one. For rare observations (microburst durations); the
 * per-sample histograms compare with precomputed edges instead
 * (struct fsc_traits_cut). */
static inline unsigned fsc_hist_index(const double *le, unsigned n, double v)
{
    unsigned idx = 0;
    for (unsigned k = 0; k < n; k++)
        idx += le[k] < v;
    return idx;
}

/* Fine-utilization histogram of one port-bytes series with a link speed.
 * It is updated on every fine interval, so it is one cache line of its own,
 * in a pool parallel to the microburst states (same index): an idle port
 * touches its slot and this line, and its 160-byte detector state only when
 * a context window completes. Counts
 * are uint32 (widened in the view): at 10 intervals/s a bucket wraps after
 * 13.6 years. */
struct fsc_util_hist {
    uint32_t bucket[FSC_UTIL_BUCKETS + 1]; /* [FSC_UTIL_BUCKETS] = +Inf (u > 1.0) */
    uint32_t pad_;
    double sum;
};

/* ---- Hysteresis shape shared by the spike and PFC detectors (spike.c) ----
 *
 * A run of `rise` consecutive high intervals starts an event (its start is the
 * t0 of the run's first interval); `fall` consecutive low intervals end it
 * (its end is the t1 of the last high interval). Lows inside an event that
 * are followed by a high again belong to the event (their amount counts). */
struct fsc_hyst {
    int64_t t_start;    /* t0 of the first high interval of the current run */
    int64_t t_high_end; /* t1 of the last high interval */
    int64_t t_update;   /* device time of the last START / UPDATE */
    double peak;        /* of the run / event */
    double amount;      /* summed over the run / event */
    double amount_low;  /* summed over the lows since the last high (in an event) */
    uint32_t n_high;    /* consecutive highs before the start */
    uint32_t n_low;     /* consecutive lows inside an event */
    uint8_t active;     /* START published, END not yet */
};

enum fsc_hyst_step {
    FSC_HYST_NONE = 0,
    FSC_HYST_START,  /* publish START (t_start, peak, amount so far) */
    FSC_HYST_UPDATE, /* publish UPDATE (update_every_ns passed since the last) */
    FSC_HYST_END,    /* publish END (t_start .. t_high_end) */
};

/* Feeds one fine interval: `high` is the caller's verdict, `value` what peak
 * tracks, `amount` what the event sums. Returns what to publish. */
enum fsc_hyst_step fsc_hyst_step(struct fsc_hyst *h, bool high, double value, double amount,
                                 const struct fsc_interval *iv, unsigned rise, unsigned fall,
                                 int64_t update_every_ns);

/* Spike (CNP / ECN / reorder) and PFC state: one shape, one pool. */
struct fsc_spike_state {
    struct fsc_hyst h;
    double baseline;   /* EWMA of rates while no event and no run of highs (spike only) */
    uint32_t n_events; /* STARTs published (the view's `events`); fits the padding */
    uint8_t seeded;    /* baseline set by the first fine interval */
};

/* FSC_SIG_CNP / ECN / REORDER: one fine interval (gap intervals are ignored). */
void fsc_spike_interval(const struct fsc_det_ctx *ctx, struct fsc_spike_state *st, fsc_series_id id,
                        const struct fsc_traits *tr, const struct fsc_interval *iv);

/* FSC_SIG_PFC_PAUSE_DURATION / FRAMES: one fine interval (pfc.c). */
void fsc_pfc_interval(const struct fsc_det_ctx *ctx, struct fsc_spike_state *st, fsc_series_id id,
                      const struct fsc_traits *tr, const struct fsc_interval *iv);

/* ---- Microburst (microburst.c) ---- */

/* Context windows used by a burst's END event: levels 0 and 1. */
#define FSC_MB_LEVELS 2

/* Every 400G port-bytes series carries one, so it is packed (160 bytes):
 * floats where 24 bits of mantissa are plenty (utilization, reported bytes),
 * a double only for the running byte sum, UPDATEs counted instead of timed,
 * the flags in one bit-field word. An idle interval never touches it (see
 * fsc_mb_idle_ignores), so its per-series counters live here: they change
 * only when a burst ends or reaches micro_max.
 * Counts are uint32: even a port with a microburst every other interval
 * (5/s) needs 27 years to wrap one. */
struct fsc_mb_state {
    int64_t t_start;              /* t0 of the first high interval of the burst */
    int64_t win_t[FSC_MB_LEVELS]; /* end of the last completed window per level */
    /* A finished burst waiting for the windows around its end. */
    int64_t p_start, p_end;
    double bytes;                  /* bytes of the high intervals so far */
    float peak;                    /* peak utilization so far */
    float win_rate[FSC_MB_LEVELS]; /* rate of win_t's window, bytes/s */
    float p_peak, p_bytes;
    float p_util[FSC_MB_LEVELS];
    uint32_t n_updates; /* UPDATEs published for the current long burst */
    /* The edges of the current burst, to place its start and end inside the
     * intervals that hold them (microburst.c, "Edges"): utilization of the
     * fine interval before the first high one (-1: unknown), of the first
     * and of the latest high interval, their spans (s), and the port's base
     * utilization (the last level-0 window before the burst, -1 unknown). */
    float head_u, first_u, first_span, last_u, last_span, base_u;
    /* Durations of this series' microbursts, observed when one ends (the
     * moment its START is published and counted), so the histogram's count
     * is always the series' microburst count; the END event itself may wait
     * for its context windows. */
    uint64_t dur_sum_ns;
    uint32_t dur[FSC_DURATION_BUCKETS + 1]; /* per fsc_duration_bucket_le, [last] = +Inf */
    uint32_t n_bursts;                      /* FSC_EV_BURST STARTs */
    unsigned p_kind : 4;                    /* FSC_EV_MICROBURST or FSC_EV_BURST */
    unsigned p_resolved : FSC_MB_LEVELS;    /* bit per level: p_util known (or known unknown) */
    unsigned pending : 1;                   /* an END is waiting */
    unsigned active : 1;                    /* a burst is in progress */
    unsigned started : 1;                   /* its START was published */
};

/* True when fsc_mb_interval() would return at once for a state with no burst
 * in progress (active == 0): a gap interval, an unknown link speed, or a
 * utilization under rise (rise > 0 is validated, so -1 is under it). The
 * engine mirrors `active` in the series slot and skips the call, so an idle
 * port - nearly all of them - never touches its microburst state on the
 * interval path. Must stay the exact mirror of the idle test in
 * fsc_mb_interval(), which uses it. The _util form takes u = fsc_det_util()
 * already computed (the engine computes it once, for the histogram too). */
static inline bool fsc_mb_idle_ignores_util(const struct fsc_det_ctx *ctx, bool gap, double u)
{
    return gap || u < ctx->cfg->microburst.rise;
}

static inline bool fsc_mb_idle_ignores(const struct fsc_det_ctx *ctx, const struct fsc_traits *tr,
                                       const struct fsc_interval *iv)
{
    return fsc_mb_idle_ignores_util(ctx, iv->gap, fsc_det_util(tr, iv->rate));
}

/* FSC_SIG_PORT_BYTES with a link speed: one interval (gap intervals are
 * ignored); prev_rate is the series' fine rate before it (bytes/s, the
 * interval just before, for a burst's start edge; < 0 unknown). The engine
 * calls it before fsc_mb_window() for the windows the same sample completed,
 * so an END finds the windows around it in order. Returns st->active
 * afterwards (a burst is in progress), for the engine's mirror of it (see
 * fsc_mb_idle_ignores). */
bool fsc_mb_interval(const struct fsc_det_ctx *ctx, struct fsc_mb_state *st, fsc_series_id id,
                     const struct fsc_traits *tr, const struct fsc_interval *iv, double prev_rate);

/* A completed aligned window of level < FSC_MB_LEVELS, rate in bytes/s. */
void fsc_mb_window(const struct fsc_det_ctx *ctx, struct fsc_mb_state *st, fsc_series_id id,
                   const struct fsc_traits *tr, unsigned level, int64_t t_end_ns, double rate);

/* The highest value of a peak gauge per 5 s slot of device time, for the
 * trailing maxima (engine.h, FSC_PEAK_MAX_WINDOWS; peak_max.c). Slot k
 * (t / FSC_PEAK_SLOT_NS, floored) lives at max[k mod FSC_PEAK_SLOTS]. */
struct fsc_peak_ring {
    int64_t slot; /* the newest slot that has a value */
    double max[FSC_PEAK_SLOTS];
    uint8_t used; /* slot and max[] are set */
};

/* Notes value v of a sample at device time t_ns: slots the newest moved
 * past are cleared; a sample older than the ring is ignored. Thread:
 * ingest, under the engine lock. */
void fsc_peak_ring_add(struct fsc_peak_ring *ring, int64_t t_ns, double v);

/* The highest value of the slots that cover each window of
 * fsc_peak_max_window_ns before the newest slot (that slot included).
 * Returns 0 with out[] set, -1 when the ring holds nothing. */
int fsc_peak_ring_max(const struct fsc_peak_ring *ring, double out[FSC_PEAK_MAX_WINDOWS]);

/* Switch- and NIC-side burst evidence. */
struct fsc_evid_state {
    int64_t t_last;            /* device time of the last event published (0: none yet) */
    int64_t t_carry;           /* t0 of the first increment held back */
    double carry;              /* buffer-threshold increments held back by the rate limit */
    uint32_t n_events;         /* INSTANT events published (the view's `events`) */
    uint8_t above;             /* queue peak currently above the share: disarmed */
    struct fsc_peak_ring ring; /* peak gauges: the trailing maxima */
};

/* FSC_SIG_QUEUE_PEAK gauge sample (value in bytes, scale applied). */
void fsc_evid_queue_peak(const struct fsc_det_ctx *ctx, struct fsc_evid_state *st, fsc_series_id id,
                         const struct fsc_traits *tr, int64_t t_ns, double value);

/* FSC_SIG_LATENCY_PEAK gauge sample (seconds): the same one-event-per-crossing
 * rule, the bar being microburst.latency_peak. */
void fsc_evid_latency_peak(const struct fsc_det_ctx *ctx, struct fsc_evid_state *st,
                           fsc_series_id id, const struct fsc_traits *tr, int64_t t_ns,
                           double value);

/* FSC_SIG_BUFFER_THRESHOLD counter interval. */
void fsc_evid_buffer_threshold(const struct fsc_det_ctx *ctx, struct fsc_evid_state *st,
                               fsc_series_id id, const struct fsc_traits *tr,
                               const struct fsc_interval *iv);

/* ---- Uplink imbalance over port groups (imbalance.c) ---- */

struct fsc_imb;

/* Returns an empty group set for groups 0 .. max_groups-1, or NULL. */
struct fsc_imb *fsc_imb_create(uint32_t max_groups);
void fsc_imb_destroy(struct fsc_imb *imb);

/* Adds series id to group (idempotent). Returns 0, -ERANGE (group beyond
 * max_groups) or -ENOMEM (allocation, or the group is full). */
int fsc_imb_add(struct fsc_imb *imb, uint32_t group, fsc_series_id id);

/* A completed window of cfg->imbalance.level of series id: util is its
 * utilization (0..1), window_ns the window length. */
void fsc_imb_window(struct fsc_imb *imb, const struct fsc_det_ctx *ctx, fsc_series_id id,
                    uint8_t direction, int64_t t_end_ns, int64_t window_ns, double util);

/* Latest max/mean ratio of a group, 0 when unknown or idle. */
double fsc_imb_ratio(const struct fsc_imb *imb, uint32_t group);

/* One past the highest group index with members (0: none; imb may be NULL). */
uint32_t fsc_imb_group_count(const struct fsc_imb *imb);

/* Fills *out for group (zeroed, present = 0, when it has no members).
 * Returns 0 or -ENOENT. imb may be NULL. */
int fsc_imb_group_view(const struct fsc_imb *imb, uint32_t group, struct fsc_group_view *out);

/* Bytes held. */
size_t fsc_imb_memory(const struct fsc_imb *imb);

/* ---- Counter-reset events (reset_event.c) ----
 *
 * A bounded table remembers, per series that published a reset event
 * recently, when it did and how many resets it held back since. Series ids
 * hash to a window of FSC_RESET_PROBE slots; an entry older than
 * reset_event_every_ns is free for another series. */
#define FSC_RESET_SLOTS 1024u /* power of two */
#define FSC_RESET_PROBE 16u

struct fsc_reset_slot {
    uint32_t key;  /* series id + 1; 0 = empty */
    uint32_t held; /* resets held back since the event at t_ns */
    int64_t t_ns;  /* the collector's clock at the series' last reset event */
};

/* The RESET verdict of sample smp on series smp->series: publishes an
 * FSC_EV_COUNTER_RESET (INSTANT) unless the series published one within
 * cfg->reset_event_every_ns, in which case it is counted in *suppressed.
 * prev/prev_f64: the series' value before the sample. tab: FSC_RESET_SLOTS
 * slots (NULL only when reset_event_every_ns is 0). */
void fsc_reset_event(const struct fsc_det_ctx *ctx, struct fsc_reset_slot *tab,
                     uint64_t *suppressed, const struct fsc_traits *tr,
                     const struct fsc_sample *smp, union fsc_value prev, bool prev_f64);

/* ---- Device copy grids (engine_grids.c) ----
 *
 * One fsc_copy_grid per device copy group, found by key (device and period)
 * through an open-addressing index; a series holds its group + 1 in
 * rs.copy_group. Grids are never freed while the engine lives. */
struct fsc_copy_group {
    struct fsc_copy_grid grid;
    uint64_t hash;
    char *key; /* "<period ns>/<device key>", owned */
    /* the group's series by cadence (enum fsc_cadence), kept by the engine
     * as series join, leave or change class (engine_grids.c) */
    uint32_t series[FSC_CADENCE__COUNT];
};

struct fsc_copy_groups {
    struct fsc_copy_group *g; /* n used of cap */
    uint32_t n, cap;
    uint32_t *index; /* group index + 1, 0 = empty; index_cap a power of two */
    uint32_t index_cap;
};

/* The group of (key, period): found, or added. Returns 1 .. n, or 0 when
 * full or out of memory. Caller holds the engine lock. */
uint16_t fsc_copy_groups_get(struct fsc_copy_groups *cg, const char *key, int64_t period_ns);
void fsc_copy_groups_free(struct fsc_copy_groups *cg);
size_t fsc_copy_groups_memory(const struct fsc_copy_groups *cg);

/* The grid of group (1 .. n). */
static inline struct fsc_copy_grid *fsc_copy_groups_grid(const struct fsc_copy_groups *cg,
                                                         uint16_t group)
{
    return &cg->g[group - 1].grid;
}

/* The traits to intern for a series given *tr: *tr itself, or (in
 * *scratch) the live reading of them (refresh 0, no copy group) when the
 * series learned it is live (rate.h rule 5, cadence). Reads nothing else. */
const struct fsc_traits *fsc_cadence_traits(const struct fsc_traits *tr, enum fsc_cadence cadence,
                                            struct fsc_traits *scratch);

/* ---- Engine internals (engine.c, engine_pool.c, engine_view.c) ----
 *
 * The series slots, detector pools and the engine itself, shared by the
 * ingest path (engine.c) and the readers (engine_view.c). Everything here is
 * guarded by fsc_engine.mu; the detectors never see it. */

/* Fixed-size elements in chunks of FSC_POOL_CHUNK, zeroed on hand-out, with
 * a free list for series whose signal changes. A pool may carry a second,
 * parallel array (elem2 > 0, chunks aligned to FSC_POOL_ALIGN2): element i of
 * both is handed out together, so the microburst pool's utilization
 * histograms need no index of their own. */
#define FSC_POOL_CHUNK  1024u
#define FSC_POOL_ALIGN2 64u

struct fsc_pool {
    size_t elem, elem2;
    unsigned char **chunks, **chunks2;
    uint32_t n_chunks, cap_chunks;
    uint32_t used; /* elements handed out from the chunks so far (high-water mark) */
    uint32_t *free_idx;
    uint32_t n_free, cap_free;
};

int fsc_pool_alloc(struct fsc_pool *p, uint32_t *idx);
void fsc_pool_release(struct fsc_pool *p, uint32_t idx);
void fsc_pool_free(struct fsc_pool *p);
size_t fsc_pool_memory(const struct fsc_pool *p);

static inline void *fsc_pool_at(const struct fsc_pool *p, uint32_t idx)
{
    return p->chunks[idx / FSC_POOL_CHUNK] + (size_t)(idx % FSC_POOL_CHUNK) * p->elem;
}

static inline void *fsc_pool_at2(const struct fsc_pool *p, uint32_t idx)
{
    return p->chunks2[idx / FSC_POOL_CHUNK] + (size_t)(idx % FSC_POOL_CHUNK) * p->elem2;
}

enum fsc_det_class {
    FSC_DET_NONE = 0,
    FSC_DET_MB,    /* fsc_mb_state + fsc_util_hist (pool's second array) */
    FSC_DET_SPIKE, /* fsc_spike_state */
    FSC_DET_PFC,   /* fsc_spike_state */
    FSC_DET_EVID,  /* fsc_evid_state */
    FSC_DET__COUNT
};

enum {
    FSC_SER_F_PRESENT = 1u << 0,   /* traits set or a sample seen: fsc_engine_view answers */
    FSC_SER_F_GROUPED = 1u << 1,   /* member of at least one port group */
    FSC_SER_F_MB_ACTIVE = 1u << 2, /* mirror of the microburst state's `active` */
    FSC_SER_F_WIN0 = 1u << 4,      /* FSC_SER_F_WIN0 << L: a window of level L completed
                                    * (bits 4..7, one per FSC_MAX_WINDOWS level) */
};
#define FSC_SER_F_WIN_ALL (0xfu << 4)
_Static_assert(FSC_MAX_WINDOWS <= 4, "one flag bit per window level");

/* One per series, 128 bytes (see engine.c for the memory story). */
struct fsc_eng_series {
    struct fsc_rate_state rs;
    float last_peak[FSC_MAX_WINDOWS]; /* max fine rate of the last completed window */
    uint32_t det;                     /* detector pool index + 1; 0 = none */
    uint16_t traits;                  /* index into eng->tt.traits */
    uint8_t flags;                    /* FSC_SER_F_* */
    uint8_t dc;                       /* enum fsc_det_class of det (FSC_DET_NONE when det == 0) */
};

#define FSC_SER_CHUNK_SHIFT 12
#define FSC_SER_CHUNK       (1u << FSC_SER_CHUNK_SHIFT)

struct fsc_engine {
    pthread_mutex_t mu;
    struct fsc_engine_config cfg;
    struct fsc_event_bus *bus; /* borrowed, may be NULL */
    struct fsc_engine_observer obs;
    struct fsc_engine_stats stats;

    struct fsc_eng_series **chunks; /* cap_chunks slots, NULL until a series in it appears */
    uint32_t cap_chunks;
    size_t series_bytes; /* bytes of the chunks allocated */

    struct fsc_traits_table tt; /* interned; [0] = the default */

    struct fsc_pool pools[FSC_DET__COUNT];
    struct fsc_imb *imb;           /* created on the first fsc_engine_group_add() */
    struct fsc_xsrc *xs;           /* created on the first fsc_engine_peer_add() */
    struct fsc_reset_slot *resets; /* FSC_RESET_SLOTS, the counter-reset event limiter */

    struct fsc_copy_groups groups; /* device copy grids (engine_grids.c) */
    struct {
        fsc_window_listener_fn fn;
        void *arg;
    } listeners[FSC_WINDOW_LISTENERS_MAX];
    unsigned n_listeners;
    struct {
        fsc_fine_listener_fn fn;
        void *arg;
    } fine_listeners[FSC_WINDOW_LISTENERS_MAX];
    unsigned n_fine_listeners;
};

/* The slot of id when its chunk exists, else NULL (the hot path). Caller
 * checked id < max_series and holds eng->mu. */
static inline struct fsc_eng_series *fsc_series_find(const struct fsc_engine *eng, fsc_series_id id)
{
    uint32_t c = id >> FSC_SER_CHUNK_SHIFT;
    if (c >= eng->cap_chunks || !eng->chunks[c])
        return NULL;
    return &eng->chunks[c][id & (FSC_SER_CHUNK - 1)];
}

/* A series of a copy group that learned it is live (rate.h rule 5) leaves
 * the grid: its traits become the live reading (fsc_cadence_traits); it
 * keeps its group for the cadence counts. Returns false, changing nothing,
 * when the traits table is full (rate.c then reads it without the grid,
 * as on-read copies). Caller holds eng->mu. */
bool fsc_series_go_live(struct fsc_engine *eng, struct fsc_eng_series *ser);

/* Moves series ser's count in the copy groups' cadence table from
 * (old_group, old_cadence) to its current (rs.copy_group, cadence); group 0
 * is none. Thread: ingest, engine lock held. */
void fsc_cadence_moved(struct fsc_engine *eng, const struct fsc_eng_series *ser, uint16_t old_group,
                       enum fsc_cadence old_cadence);

#endif
