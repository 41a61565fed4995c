/* Internal API shared by engine.c, engine_config.c and the detector files
 * (DESIGN §5). Not a public contract: only the engine .c files include it.
 *
 * The engine owns every detector state and calls these functions on the
 * ingest thread with the engine lock held, so none of them locks anything
 * (publishing to the bus takes the bus' own lock). They never allocate,
 * except the group table in imbalance.c, which grows only in
 * fsc_imb_add(). */
#ifndef FSC_DETECT_H
#define FSC_DETECT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "core/sample.h"
#include "engine/engine.h"
#include "engine/events.h"
#include "engine/rate.h"

/* ---- Interned series traits (engine_config.c) ----
 *
 * A series refers to its traits by a uint16_t index; identical traits are
 * stored once. Index 0 is the default the engine interns at creation. */
#define FSC_TRAITS_MAX 65535u

struct fsc_traits_table {
    struct fsc_traits *traits; /* n used of cap */
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
    ev.util_1s = -1;
    ev.util_10s = -1;
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
    double baseline; /* EWMA of rates while no event and no run of highs (spike only) */
    uint8_t seeded;  /* baseline set by the first fine interval */
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

/* Every 400G port-bytes series carries one, so it is packed (88 bytes):
 * floats where 24 bits of mantissa are plenty (utilization, reported bytes),
 * a double only for the running byte sum, UPDATEs counted instead of timed. */
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
    uint8_t p_kind;     /* FSC_EV_MICROBURST or FSC_EV_BURST */
    uint8_t p_resolved; /* bit per level: p_util known (or known to be unknown) */
    uint8_t pending;    /* an END is waiting */
    uint8_t active;     /* a burst is in progress */
    uint8_t started;    /* its START was published */
};

/* True when fsc_mb_interval() would return at once for a state with no burst
 * in progress (active == 0): a gap interval, an unknown link speed, or a
 * utilization under rise (rise > 0 is validated, so -1 is under it). The
 * engine mirrors `active` in the series slot and skips the call, so an idle
 * port - nearly all of them - never touches its microburst state on the
 * interval path. Must stay the exact mirror of the idle test in
 * fsc_mb_interval(), which uses it. */
static inline bool fsc_mb_idle_ignores(const struct fsc_det_ctx *ctx, const struct fsc_traits *tr,
                                       const struct fsc_interval *iv)
{
    return iv->gap || fsc_det_util(tr, iv->rate) < ctx->cfg->microburst.rise;
}

/* FSC_SIG_PORT_BYTES with a link speed: one interval (gap intervals are
 * ignored). The engine calls it before fsc_mb_window() for the windows the
 * same sample completed, so an END finds the windows around it in order.
 * Returns st->active afterwards (a burst is in progress), for the engine's
 * mirror of it (see fsc_mb_idle_ignores). */
bool fsc_mb_interval(const struct fsc_det_ctx *ctx, struct fsc_mb_state *st, fsc_series_id id,
                     const struct fsc_traits *tr, const struct fsc_interval *iv);

/* A completed aligned window of level < FSC_MB_LEVELS, rate in bytes/s. */
void fsc_mb_window(const struct fsc_det_ctx *ctx, struct fsc_mb_state *st, fsc_series_id id,
                   const struct fsc_traits *tr, unsigned level, int64_t t_end_ns, double rate);

/* Switch- and NIC-side burst evidence. */
struct fsc_evid_state {
    int64_t t_last;  /* device time of the last event published (0: none yet) */
    int64_t t_carry; /* t0 of the first increment held back */
    double carry;    /* buffer-threshold increments held back by the rate limit */
    uint8_t above;   /* queue peak currently above the share: disarmed */
};

/* FSC_SIG_QUEUE_PEAK gauge sample (value in bytes, scale applied). */
void fsc_evid_queue_peak(const struct fsc_det_ctx *ctx, struct fsc_evid_state *st, fsc_series_id id,
                         const struct fsc_traits *tr, int64_t t_ns, double value);

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

/* Bytes held. */
size_t fsc_imb_memory(const struct fsc_imb *imb);

#endif
