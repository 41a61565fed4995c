/* Per-series rate math (docs/DESIGN.md, "The rate rules"): the heart of fabricscope.
 *
 * Pure functions over one series' state, no locks, no allocation, no I/O. The
 * engine (engine.c) owns an array of these states and calls fsc_rate_update()
 * for each sample on the ingest thread.
 *
 * The rules, in the order fsc_rate_update() applies them:
 *
 * 1. Device time. All spans are differences of sample device times (t_dev_ns).
 *    The source decides which timestamp is best (Junos payload_get_timestamp
 *    ms beats Notification.timestamp); samples flagged FSC_SMP_ARRIVAL_TIME are
 *    used the same way but counted by the engine.
 *
 * 2. Baseline. The first sample of a series (and the sample after a reset or
 *    clock step) only sets the baseline: no rate.
 *
 * 3. Duplicates and order. Same timestamp and same value as the last accepted
 *    sample: DUPLICATE, dropped. Same timestamp with another value, or older
 *    than the last accepted sample by at most clock_step_ns: OUT_OF_ORDER,
 *    dropped. Older by more than clock_step_ns: CLOCK_STEP, the baseline
 *    restarts at this sample. None of them ever yields a rate.
 *
 * 4. Explicit reset evidence (FSC_SMP_RESET): RESET, the baseline restarts.
 *    Evidence on a sample rule 3 drops is kept for the next accepted one.
 *
 * 5. When a value was true. Live counters (refresh_ns 0) are read when
 *    sampled: the value was true at the sample. Behind refresh_ns > 0 a
 *    device serves copies, and traits.refresh says how:
 *    - FSC_REFRESH_ON_READ (mlx5 hw_counters `lifespan`): a read older than
 *      refresh_ns refreshes the copy, so a new value is true from the first
 *      sample that shows it (the *anchor*). A sample repeating the anchor's
 *      value within stale_factor x refresh_ns of it carries no news:
 *      STALE_REPEAT (only t_last moves); a repeat beyond that is idleness,
 *      an anchor with a zero delta.
 *    - FSC_REFRESH_PERIODIC (Junos' line-card copy every P = refresh_ns):
 *      the profile only says the device *may* copy. Each series learns its
 *      own cadence from its values (rate_copies.c; st->cadence):
 *      LEARNING until it shows which, LIVE once it changed at two samples
 *      less than P/4 apart three times in a row (impossible behind copies
 *      every P; the engine then reads it as refresh 0), COPIED once it
 *      changed after a repeat at least P/2 after its previous change. A
 *      learning series is read as copied, so a repeat is never a zero
 *      before the series has shown it is live. One device may hold all
 *      three (a live port beside copied ones, sensors on other timers).
 *      Where a copied value was true depends on how often it is sampled:
 *      * sampled faster than P (nominal interval < P): the device's copy
 *        grid (copy_grid.h, one per device) places the copy a change shows
 *        inside (last sample with the old value, first with the new], from
 *        all its copied series, and each delta spans copy to copy; a repeat
 *        is STALE_REPEAT until a copy surely passed since the anchor's,
 *        then idleness up to that copy. A change the grid cannot place (the
 *        sample lies on a copy) is DEFERRED once: the next change covers
 *        both. Until the grid knows the copy a first sample showed, its
 *        anchor is provisional: the next change starts the baseline.
 *      * sampled no faster than P (Junos' 2 s reporting), each series has
 *        its own reading lattice (its mean reading phase, learned from its
 *        own samples: ports reported in batches at different offsets have
 *        different lattices), and each interval is placed between lattice
 *        points, whatever the stamps' jitter. A busy series that repeats
 *        one step on straddles a copy: STALE_REPEAT, the next change
 *        covers both (its copies, and the next intervals', not counted). A
 *        reading more than P/6 off its point (a stream restart, a new
 *        phase) is placed at its stamp, not counted, and the lattice starts
 *        over there.
 *      Either way a copied interval spans n = round(span / P) copies when
 *      the span is within P/4 of n x P: its rate (the fine rate) is delta
 *      / (n x P), exact whatever the placement; its delta is spread over
 *      its placed span. When the copy count is not determined (the span is
 *      not near a whole number of periods) the delta still feeds the
 *      windows but the interval is no fine evidence. No window is ever
 *      withheld for placement: an unknown copy phase shifts an interval by
 *      less than one copy period, which bounds the error at each window
 *      edge by one period of the rate's change and is exact for steady
 *      traffic. Where a series' reading lattice starts over (its first
 *      sample, a clock step, a moved phase at a restart), a window that
 *      begins in its first FSC_RATE_COPY_LEARN update periods is not
 *      emitted: the lattice is still a first reading's jitter there. A periodic series
 *      without a copy group (grid NULL) is read as on-read copies.
 * 6. Wraps and resets. A decrease on a 32-bit counter is a wrap when the
 *    wrapped delta (2^32 - old + new) is plausible: at or under line rate for
 *    the elapsed span when the unit is bytes or packets and the link speed is
 *    known, under 2^31 otherwise (so a cleared 32-bit error counter is a reset,
 *    not a 1e9-event spike). A wrap sets iv.wrapped (the engine counts it) and
 *    the interval is used. Any other decrease (64-bit
 *    counters, doubles) is a RESET: the interval is dropped, the baseline
 *    restarts, no spike and never a negative rate.
 *
 * 7. Plausibility. A byte rate above link_speed x plausibility_factor (or a
 *    packet rate above what minimum-size frames allow) is a glitch, not a
 *    burst: IMPLAUSIBLE, the interval is dropped and the anchor moves on. The
 *    aligned windows restart at the sample as after a reset (the dropped
 *    interval's true delta is unknown). A non-finite double value is
 *    IMPLAUSIBLE and changes nothing.
 *
 * 8. Gaps. The series' update period U is the larger of its sampling
 *    interval and its refresh period (a 2 s copy sampled every 100 ms
 *    updates every 2 s). An interval longer than max_gap_factor x U still
 *    feeds the aligned windows (averages stay right) but is flagged `gap`
 *    and is never fine-grained evidence: it updates no window peak and
 *    detectors ignore it.
 *
 * 9. Aligned windows. The counter is a monotone function of device time. Each
 *    interval's delta is spread linearly over its span and added to the
 *    aligned windows [kW, (k+1)W) it overlaps (W per level, aligned to the
 *    epoch). That is exactly "interpolate the counter at the window edges and
 *    divide the difference by W", without keeping the edge values. A window is
 *    complete when an interval reaches its end edge; its rate is acc / W, or
 *    acc / covered when the baseline started inside it (a window covered less
 *    than half is not emitted). These rates are immune to timestamp jitter.
 *    A window shorter than the series' update period U is never emitted:
 *    no data can say how a 2 s copy's bytes fell into the two seconds it
 *    spans, and an interpolated 1 s rate would only look measured. Such
 *    windows are counted (result.withheld) instead.
 *
 * Gauges (kind FSC_KIND_GAUGE) only keep their last value: verdict GAUGE, also
 * for the first sample. Duplicate and order rules apply by timestamp; a clock
 * step stores the value (CLOCK_STEP). */
#ifndef FSC_RATE_H
#define FSC_RATE_H

#include <stdbool.h>
#include <stdint.h>

#include "model/sample.h"

#define FSC_MAX_WINDOWS 4

/* Update periods after a copied series' baseline before a window that
 * begins there is emitted (rule 5: its placement is still learning). */
#define FSC_RATE_COPY_LEARN 7

/* Engine-wide rate parameters (engine: section of the config). */
struct fsc_rate_params {
    int64_t window_ns[FSC_MAX_WINDOWS]; /* ascending, e.g. 1 s, 10 s, 60 s */
    unsigned n_windows;                 /* 1..FSC_MAX_WINDOWS */
    double max_gap_factor;              /* default 5 */
    double plausibility_factor;         /* default 1.05 */
    double stale_factor;                /* default 1.5 */
    int64_t clock_step_ns;              /* default 1 s */
};

/* Fills the defaults listed above (windows 1 s, 10 s, 60 s). */
void fsc_rate_params_defaults(struct fsc_rate_params *params);

/* Per-series state. Zero-initialised memory is a valid "no baseline yet"
 * state. Kept small on purpose: the engine holds one per series (1 M series
 * must fit in well under 256 MB). */
struct fsc_rate_state {
    int64_t t_last;                          /* device time of the last accepted sample */
    int64_t t_anchor;                        /* device time of the last value change (anchor) */
    int64_t t_base;                          /* device time the current baseline started */
    union fsc_value v_anchor;                /* raw value at the anchor (== last accepted value) */
    double win_acc[FSC_MAX_WINDOWS];         /* units accumulated in the window holding t_anchor */
    float win_peak[FSC_MAX_WINDOWS];         /* max fine rate (units/s) inside that window */
    float last_window_rate[FSC_MAX_WINDOWS]; /* units/s of the last completed window */
    float fine_rate;                         /* units/s of the latest interval; -1 when it was
                                              * no fine evidence (a gap, copies not counted) */
    uint8_t flags;                           /* FSC_RATE_F_* */
    uint8_t cadence;                         /* periodic copies (rule 5): the FSC_CADENCE_* class
                                              * in bits 0-1, the rest rate_copies.c's */
    uint16_t copy_group;                     /* the engine's copy grid of this series + 1 (0: none);
                                              * kept here by the engine, unused by the rate math */
};

enum {
    FSC_RATE_F_BASELINE = 1u << 0, /* a baseline exists */
    FSC_RATE_F_F64 = 1u << 1,      /* values are doubles */
    /* Periodic copies sampled faster than P: t_anchor is a sample time, not
     * yet the copy instant (rule 5); the next change or known copy starts
     * the baseline. */
    FSC_RATE_F_PROVISIONAL = 1u << 2,
    /* Periodic copies: the last accepted sample changed the value (a busy
     * series' repeat one lattice step on straddles a copy, rule 5). */
    FSC_RATE_F_BUSY = 1u << 3,
    /* A sample dropped by rule 3 carried reset evidence: the next accepted
     * one restarts the baseline (rule 4). */
    FSC_RATE_F_RESET_PENDING = 1u << 4,
    /* Periodic copies sampled no faster than P: the reading lattice started
     * over at the baseline (rule 5: windows it began are not emitted for
     * FSC_RATE_COPY_LEARN update periods). */
    FSC_RATE_F_LEARNING = 1u << 5,
};

/* A periodic series' cadence (rule 5), st->cadence & FSC_CADENCE_MASK. */
enum fsc_cadence {
    FSC_CADENCE_LEARNING = 0, /* not yet shown: read as copied */
    FSC_CADENCE_LIVE = 1,     /* changes faster than copies allow: true at its samples */
    FSC_CADENCE_COPIED = 2,   /* repeats between changes P apart: true at copy instants */
    FSC_CADENCE__COUNT = 3
};
#define FSC_CADENCE_MASK 0x3u

static inline enum fsc_cadence fsc_rate_cadence(const struct fsc_rate_state *st)
{
    return (enum fsc_cadence)(st->cadence & FSC_CADENCE_MASK);
}

/* Name of a cadence ("learning", "live", "copied"), for metrics and pages. */
const char *fsc_cadence_name(enum fsc_cadence c);

enum fsc_rate_verdict {
    FSC_RATE_BASELINE = 0, /* first sample or restart after reset/clock step */
    FSC_RATE_INTERVAL,     /* an interval was produced (see result.iv) */
    FSC_RATE_STALE_REPEAT, /* repeat within the refresh bound: pending */
    FSC_RATE_DUPLICATE,    /* dropped */
    FSC_RATE_OUT_OF_ORDER, /* dropped */
    FSC_RATE_CLOCK_STEP,   /* baseline restarted */
    FSC_RATE_RESET,        /* baseline restarted (decrease or explicit evidence) */
    FSC_RATE_IMPLAUSIBLE,  /* interval dropped */
    FSC_RATE_GAUGE,        /* gauge value stored */
    FSC_RATE_DEFERRED,     /* periodic copies: a change the copy grid cannot place yet
                            * (the sample lies on a copy); the next change takes it */
    FSC_RATE__COUNT
};

/* One interval between two anchors. */
struct fsc_interval {
    int64_t t0_ns, t1_ns; /* device times of the two anchors */
    double delta;         /* counter units (after wrap handling and scale) */
    double rate;          /* delta per second */
    bool gap;             /* longer than max_gap: not fine-grained evidence */
    bool wrapped;         /* a 32-bit wrap was unwound */
    bool uncounted;       /* periodic copies whose number in the span is not determined
                           * (rule 5): also flagged `gap`, rate is delta over the span */
};

struct fsc_rate_result {
    enum fsc_rate_verdict verdict;
    struct fsc_interval iv; /* valid when verdict == FSC_RATE_INTERVAL */
    /* Windows per level that this update completed but did not emit because
     * they are shorter than the series' update period (rule 9). */
    uint16_t withheld[FSC_MAX_WINDOWS];
};

/* Called for every aligned window that an interval completes, in time order
 * (level by level, each level in ascending t_end). rate is units/s over the
 * window; peak is the largest fine rate seen in it (never below rate). */
typedef void (*fsc_window_fn)(void *arg, unsigned level, int64_t t_end_ns, double rate,
                              double peak);

/* Applies one sample to one series' state.
 * st: the series' state (owned by the caller, mutated).
 * tr: its traits (borrowed). params: engine-wide (borrowed).
 * on_window/arg: called synchronously for each completed window (may be NULL).
 * Returns the verdict in *res. Never allocates; O(1) plus one call per
 * completed window (at most 1024 windows per level per interval are emitted
 * one by one; windows in the middle of a longer interval are skipped). */
void fsc_rate_update(struct fsc_rate_state *st, const struct fsc_traits *tr,
                     const struct fsc_rate_params *params, const struct fsc_sample *smp,
                     fsc_window_fn on_window, void *arg, struct fsc_rate_result *res);

struct fsc_copy_grid;

/* fsc_rate_update() for a series whose device copies its counters on a
 * timer (tr->refresh == FSC_REFRESH_PERIODIC, refresh_ns > 0): grid is that
 * device's copy grid (borrowed, mutated: every value change refines it), or
 * NULL, which is fsc_rate_update(). */
void fsc_rate_update_grid(struct fsc_rate_state *st, const struct fsc_traits *tr,
                          const struct fsc_rate_params *params, struct fsc_copy_grid *grid,
                          const struct fsc_sample *smp, fsc_window_fn on_window, void *arg,
                          struct fsc_rate_result *res);

/* The shortest window level a series emits (the first whose width is at
 * least its update period, rule 9): the one exporters show as its rate. 0
 * when none is that long (they are then all withheld). */
static inline unsigned fsc_rate_base_level(const struct fsc_rate_params *p,
                                           const struct fsc_traits *tr);

/* The update period U of rule 8 (ns; 0 when the series has neither a
 * sampling interval nor a refresh period). */
static inline int64_t fsc_rate_update_period(const struct fsc_traits *tr)
{
    return tr->refresh_ns > tr->nominal_interval_ns ? tr->refresh_ns : tr->nominal_interval_ns;
}

static inline unsigned fsc_rate_base_level(const struct fsc_rate_params *p,
                                           const struct fsc_traits *tr)
{
    const int64_t u = fsc_rate_update_period(tr);
    for (unsigned l = 0; l < p->n_windows && l < FSC_MAX_WINDOWS; l++)
        if (p->window_ns[l] >= u)
            return l;
    return 0;
}

/* Name of a verdict ("interval", "stale_repeat", ...), for logs and metrics. */
const char *fsc_rate_verdict_name(enum fsc_rate_verdict verdict);

#endif
