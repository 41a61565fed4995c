/* The rate math's private interface between rate.c (rules 1-4 and the hot
 * path) and rate_copies.c (rule 5 for periodic copies). Not for use outside
 * collector/engine.
 *
 * Rules 6-9 (an interval from the anchor to where its value is placed) are
 * defined here, static, so that both files compile the same body: rate.c
 * inlines it into the hot path, rate_copies.c keeps one copy out of line for
 * the values rule 5 places. The two files call one way: rate.c calls rule 5,
 * and rule 5 calls nothing back. Both files use every function below. */
#ifndef FSC_RATE_INT_H
#define FSC_RATE_INT_H

#include <stdbool.h>
#include <stdint.h>

#include "engine/copy_grid.h"
#include "engine/rate.h"

#if defined(__GNUC__)
#define RATE_COLD      __attribute__((cold, noinline))
#define RATE_NOINLINE  __attribute__((noinline))
#define RATE_INLINE    inline __attribute__((always_inline))
#define RATE_LIKELY(x) __builtin_expect(!!(x), 1)
#else
#define RATE_COLD
#define RATE_NOINLINE
#define RATE_INLINE    inline
#define RATE_LIKELY(x) (x)
#endif

#define NS_PER_S   1e9
#define TWO_POW_31 2147483648.0

/* Wire bits a minimum-size Ethernet frame occupies: 64 B frame + 8 B
 * preamble/SFD + 12 B inter-frame gap = 84 B. A packet rate above
 * link_speed / (84 * 8) cannot be real. */
#define PACKET_WIRE_BITS (84.0 * 8.0)

/* An interval that completes more windows than this (a series silent for
 * hours, a forward clock jump) emits the first WINDOW_EMIT_MAX windows one by
 * one and then jumps straight to the window holding the interval's end. The
 * skipped windows would all read the same spread-out average, and the bound
 * keeps the cost of one sample bounded. */
#define WINDOW_EMIT_MAX 1024u

/* Starts a new baseline at this sample's value, true from t_anchor (the
 * sample's time, or for periodic copies the copy instant it shows) (first
 * sample, reset, clock step, implausible glitch, gauge value). Windows in
 * progress are dropped: their data came from before a discontinuity.
 * last_window_rate and fine_rate are kept so exporters show the last
 * trustworthy values until new ones exist. */
static RATE_NOINLINE void rate_restart_at(struct fsc_rate_state *st, const struct fsc_sample *smp,
                                          int64_t t_anchor, bool provisional)
{
    st->t_last = smp->t_dev_ns;
    st->t_anchor = st->t_base = t_anchor;
    st->v_anchor = smp->v;
    for (unsigned l = 0; l < FSC_MAX_WINDOWS; l++) {
        st->win_acc[l] = 0.0;
        st->win_peak[l] = 0.0f;
    }
    st->flags = (uint8_t)(FSC_RATE_F_BASELINE | ((smp->flags & FSC_SMP_F64) ? FSC_RATE_F_F64 : 0) |
                          (provisional ? FSC_RATE_F_PROVISIONAL : 0));
}

/* Position of time t inside its aligned window of width w > 0: t mod w in
 * [0, w), also for negative t (C's % truncates toward zero). */
static inline int64_t rate_floor_mod(int64_t t, int64_t w)
{
    int64_t r = t % w;
    return r < 0 ? r + w : r;
}

/* Where completed windows go, and what decides whether they are emitted. */
struct rate_emit_ctx {
    fsc_window_fn on_window;
    void *arg;
    int64_t update_ns; /* fsc_rate_update_period() */
    struct fsc_rate_result *res;
    bool copied; /* placed as copies (rule 5): the baseline's instant is the least sure */
};

/* Emits the window of level l ending at edge; acc holds its units. A window
 * that the current baseline started inside of is rated over its covered part,
 * and not emitted at all when less than half of it is covered: one interval
 * after a restart must not pass for a whole window. */
static void rate_emit(struct fsc_rate_state *st, unsigned l, int64_t w, int64_t edge, double acc,
                      float peak, const struct rate_emit_ctx *ec)
{
    if (ec->update_ns > w) {
        /* Rule 9: shorter than the update period, not determined. */
        if (ec->res->withheld[l] < UINT16_MAX)
            ec->res->withheld[l]++;
        return;
    }
    double covered = (double)w;
    /* edge > t_base always (t_base <= t_anchor < edge): exact. */
    uint64_t since_base = (uint64_t)edge - (uint64_t)st->t_base;
    /* A copied series whose reading lattice started over at its baseline
     * places its values by what it learned since: a window that began in
     * its first FSC_RATE_COPY_LEARN update periods has an edge placed by a
     * first reading's jitter alone (0.5-0.9 % off at +-50 ms over 10 s,
     * measured end to end). */
    if (ec->copied && (st->flags & FSC_RATE_F_LEARNING) &&
        since_base < (uint64_t)w + (uint64_t)ec->update_ns * FSC_RATE_COPY_LEARN)
        return;
    if (since_base < (uint64_t)w) {
        if (2 * since_base < (uint64_t)w)
            return;
        covered = (double)since_base;
    }
    double rate = acc * NS_PER_S / covered;
    double top = (double)peak > rate ? (double)peak : rate;
    st->last_window_rate[l] = (float)rate;
    if (ec->on_window != NULL)
        ec->on_window(ec->arg, l, edge, rate, top);
}

/* Rule 9 for one level whose current window ends at or before t: to_edge
 * (<= span) is the distance from t_anchor to that end. The delta is spread at
 * a constant rate per ns, so a window wholly inside the interval gets
 * delta * w / span, and the first one its share plus what it already had. */
static void rate_cross(struct fsc_rate_state *st, unsigned l, int64_t w, int64_t t, uint64_t span,
                       uint64_t to_edge, double delta, float frate, const struct rate_emit_ctx *ec)
{
    const double per_ns = delta / (double)span;
    double acc = st->win_acc[l] + per_ns * (double)to_edge;
    float peak = st->win_peak[l] > frate ? st->win_peak[l] : frate;
    int64_t edge = (int64_t)((uint64_t)st->t_anchor + to_edge); /* <= t: representable */
    uint64_t left = span - to_edge;                             /* t - edge */
    for (unsigned n = 1;; n++) {
        rate_emit(st, l, w, edge, acc, peak, ec);
        if (left < (uint64_t)w)
            break;
        if (n == WINDOW_EMIT_MAX) {
            /* Skip the middle windows: go on with the window holding t. */
            uint64_t into = left % (uint64_t)w;
            edge = (int64_t)((uint64_t)t - into);
            left = into;
            break;
        }
        edge += w;
        left -= (uint64_t)w;
        acc = per_ns * (double)w;
        peak = frate;
    }
    /* [edge, edge + w) now holds t and left = t - edge. An interval ending
     * exactly on the edge does not overlap the next window: no peak there. */
    st->win_acc[l] = per_ns * (double)left;
    st->win_peak[l] = left > 0 ? frate : 0.0f;
}

/* Rule 9 from level `from` on, for an interval that reached an edge of that
 * level: the general path, one level at a time. */
static RATE_COLD void rate_spread_slow(struct fsc_rate_state *st,
                                       const struct fsc_rate_params *params, unsigned from,
                                       unsigned n, int64_t t, uint64_t span, double delta,
                                       float frate, const struct rate_emit_ctx *ec)
{
    for (unsigned l = from; l < n; l++) {
        const int64_t w = params->window_ns[l];
        if (w <= 0)
            continue;
        uint64_t to_edge = (uint64_t)(w - rate_floor_mod(st->t_anchor, w));
        if (span >= to_edge) {
            rate_cross(st, l, w, t, span, to_edge, delta, frate, ec);
        } else {
            st->win_acc[l] += delta;
            st->win_peak[l] = st->win_peak[l] > frate ? st->win_peak[l] : frate;
        }
    }
}

/* Rules 6 (wrap plausibility), 7, 8 and 9 for an interval from the anchor to
 * t_end (the sample's time, or where rule 5 placed the value it shows), raw
 * counter units (before scale) apart. copies_ns is the time the delta
 * accrued over when that is not the placed span (n copy periods, rule 5), 0
 * when it is the span, negative when it is not determined (no fine
 * evidence). Ends by moving the anchor to t_end and t_last to the sample.
 * Forced inline: as a call it costs the hot path ~7 %. */
static RATE_INLINE void rate_interval(struct fsc_rate_state *st, const struct fsc_traits *tr,
                                      const struct fsc_rate_params *params,
                                      const struct fsc_sample *smp, int64_t t_end, double raw,
                                      bool wrapped, int64_t copies_ns, fsc_window_fn on_window,
                                      void *arg, struct fsc_rate_result *res)
{
    const int64_t t = t_end;
    const uint64_t span = (uint64_t)t - (uint64_t)st->t_anchor;
    const double span_ns = (double)span;
    const double delta = tr->scale > 1 ? raw * (double)tr->scale : raw;
    const bool uncounted = copies_ns < 0;
    const double rate = delta * NS_PER_S / (copies_ns > 0 ? (double)copies_ns : span_ns);
    const int64_t update_ns = fsc_rate_update_period(tr);

    if (uncounted && !wrapped) {
        /* Rule 7 judges rates; an interval whose copies are not counted may
         * hold two copies in one period's span, so its rate proves no
         * glitch. Its delta is real and goes to the windows. */
    } else if (tr->link_speed_bps != 0 &&
               (tr->unit == FSC_UNIT_BYTES || tr->unit == FSC_UNIT_PACKETS)) {
        /* Rules 6 and 7 with a line-rate bound. */
        double wire_bits = tr->unit == FSC_UNIT_BYTES ? 8.0 : PACKET_WIRE_BITS;
        if (rate * wire_bits > (double)tr->link_speed_bps * params->plausibility_factor) {
            /* A wrap beyond line rate was a reset; an increase beyond it is
             * a glitch, not a burst: drop it and measure on from here. */
            rate_restart_at(st, smp, t, false);
            res->verdict = wrapped ? FSC_RATE_RESET : FSC_RATE_IMPLAUSIBLE;
            res->iv = (struct fsc_interval){0};
            return;
        }
    } else if (wrapped && raw >= TWO_POW_31) {
        /* Rule 6 without a bound: a "wrap" over half the range is a reset. */
        rate_restart_at(st, smp, t, false);
        res->verdict = FSC_RATE_RESET;
        res->iv = (struct fsc_interval){0};
        return;
    }

    /* Rule 8 (and rule 5: an interval whose copies are not counted is no
     * fine evidence either). */
    const bool gap =
        uncounted || (update_ns > 0 && span_ns > params->max_gap_factor * (double)update_ns);
    /* Fine rate for window peaks; rates are >= 0, so 0 leaves a peak as is. */
    const float frate = gap ? 0.0f : (float)rate;

    res->verdict = FSC_RATE_INTERVAL;
    res->iv.t0_ns = st->t_anchor;
    res->iv.t1_ns = t;
    res->iv.delta = delta;
    res->iv.rate = rate;
    res->iv.gap = gap;
    res->iv.wrapped = wrapped;
    res->iv.uncounted = uncounted;

    /* Rule 9, common case: the interval stays inside the current window of
     * every level; the first level it leaves goes to the general path. */
    const unsigned n = params->n_windows < FSC_MAX_WINDOWS ? params->n_windows : FSC_MAX_WINDOWS;
    for (unsigned l = 0; l < n; l++) {
        const int64_t w = params->window_ns[l];
        if (w <= 0)
            continue;
        if (span >= (uint64_t)(w - rate_floor_mod(st->t_anchor, w))) {
            const struct rate_emit_ctx ec = {on_window, arg, update_ns, res, copies_ns != 0};
            rate_spread_slow(st, params, l, n, t, span, delta, frate, &ec);
            break;
        }
        st->win_acc[l] += delta;
        st->win_peak[l] = st->win_peak[l] > frate ? st->win_peak[l] : frate;
    }

    /* -1: the latest interval is no fine evidence (a gap, uncounted copies):
     * readers must not show the one before it as if it were current. */
    st->fine_rate = gap ? -1.0f : frate;
    st->t_anchor = t;
    st->t_last = smp->t_dev_ns;
    st->v_anchor = smp->v;
}

/* Rule 5 for a periodic series with its device's copy grid (rate_copies.c):
 * a sample that moved the counter by raw units (wrapped as above) or
 * repeated it (raw 0), after rules 1-4 and the reset test passed. Learns
 * the series' cadence (st->cadence), places the value, and produces the
 * interval, a stale repeat or a deferral in *res. */
void fsc_rate__copies(struct fsc_rate_state *st, const struct fsc_traits *tr,
                      const struct fsc_rate_params *params, struct fsc_copy_grid *grid,
                      const struct fsc_sample *smp, double raw, bool wrapped,
                      fsc_window_fn on_window, void *arg, struct fsc_rate_result *res);

/* Rule 5 for a restart of a periodic series at smp (first sample, clock
 * step, reset): where its new baseline is anchored. changed: the value
 * changed since the last accepted sample (reset evidence, a decrease). */
void fsc_rate__copies_restart(struct fsc_rate_state *st, const struct fsc_traits *tr,
                              struct fsc_copy_grid *grid, const struct fsc_sample *smp,
                              bool changed);

#endif
