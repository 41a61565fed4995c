/* Per-series rate math. The rules are stated in rate.h; this file explains the
 * choices the header leaves open and how the hot path stays cheap.
 *
 * Hot path. fsc_rate_update() runs for every sample of every series, and at
 * that rate it is bound by instruction count, not by memory. The common case
 * (an integer counter that moved forward, an interval that stays inside the
 * current aligned windows) is therefore kept in one small leaf function: a few
 * compares, one double division for the rate, and per window level one 64-bit
 * remainder to find where the anchor sits in its window (the state struct has
 * no room to cache the window end; the divider is pipelined and measured to be
 * cheap next to everything else). Anything unusual - first sample, repeats,
 * decreases, doubles, gauges, order problems, an edge crossed - leaves through
 * a non-inlined function so the hot path carries no spills for it.
 *
 * Time arithmetic. Differences of device times are taken in uint64_t, which is
 * exact for any two int64_t times when the later one is known to be later;
 * window edges are built as "anchor + distance to the edge" and only for edges
 * at or before the sample, so nothing overflows even at the ends of the
 * int64_t range, and the window position uses a floor remainder that is right
 * for negative times too.
 *
 * Decisions beyond the header (reported to the lead):
 * - IMPLAUSIBLE restarts the aligned-window accumulation at the sample, like a
 *   reset: the true delta of the glitch interval is unknown, so the windows it
 *   overlaps are rated over their trusted part only (or not emitted when that
 *   part is under half a window) instead of showing a fake dip.
 * - The wrap test uses the line-rate bound only for units that have one (bytes,
 *   packets) on a link of known speed. Any other 32-bit counter (out_of_sequence
 *   and friends) uses "wrapped delta < 2^31" even when the port's speed is
 *   known, so a driver reload that clears an event counter from 3e9 to 0 is a
 *   reset rather than a 1.3-billion-event spike.
 * - A non-finite double counter value (NaN, inf) cannot be an anchor: verdict
 *   IMPLAUSIBLE and the state is left untouched.
 * - Gauges follow the duplicate / order / clock-step rules by timestamp; a
 *   clock step on a gauge stores the new value (verdict CLOCK_STEP), so a gauge
 *   whose device clock went back is not stuck until the clock catches up. The
 *   first sample of a gauge reports GAUGE: there is no baseline to wait for. */
#include "engine/rate.h"

#include <math.h>
#include <stddef.h>
#include <string.h>

#include "engine/copy_grid.h"
#include "engine/rate_int.h"

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
#define TWO_POW_32 4294967296.0
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

/* Contract in rate.h. Fills every field of *params (caller-owned); any thread. */
void fsc_rate_params_defaults(struct fsc_rate_params *params)
{
    *params = (struct fsc_rate_params){
        .window_ns = {1000000000LL, 10000000000LL, 60000000000LL, 0},
        .n_windows = 3,
        .max_gap_factor = 5.0,
        .plausibility_factor = 1.05,
        .stale_factor = 1.5,
        .clock_step_ns = 1000000000LL,
    };
}

/* Contract in rate.h. Returns a static string, "unknown" for out-of-range
 * values; any thread. */
const char *fsc_rate_verdict_name(enum fsc_rate_verdict verdict)
{
    switch (verdict) {
    case FSC_RATE_BASELINE:
        return "baseline";
    case FSC_RATE_INTERVAL:
        return "interval";
    case FSC_RATE_STALE_REPEAT:
        return "stale_repeat";
    case FSC_RATE_DUPLICATE:
        return "duplicate";
    case FSC_RATE_OUT_OF_ORDER:
        return "out_of_order";
    case FSC_RATE_CLOCK_STEP:
        return "clock_step";
    case FSC_RATE_RESET:
        return "reset";
    case FSC_RATE_IMPLAUSIBLE:
        return "implausible";
    case FSC_RATE_GAUGE:
        return "gauge";
    case FSC_RATE_DEFERRED:
        return "deferred";
    case FSC_RATE__COUNT:
        break;
    }
    return "unknown";
}

/* Starts a new baseline at this sample's value, true from t_anchor (the
 * sample's time, or for periodic copies the copy instant it shows) (first
 * sample, reset, clock step, implausible glitch, gauge value). Windows in
 * progress are dropped: their data came from before a discontinuity.
 * last_window_rate and fine_rate are kept so exporters show the last
 * trustworthy values until new ones exist. */
RATE_NOINLINE void fsc_rate__restart_at(struct fsc_rate_state *st, const struct fsc_sample *smp,
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

static void rate_restart(struct fsc_rate_state *st, const struct fsc_sample *smp)
{
    fsc_rate__restart_at(st, smp, smp->t_dev_ns, false);
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
            fsc_rate__restart_at(st, smp, t, false);
            res->verdict = wrapped ? FSC_RATE_RESET : FSC_RATE_IMPLAUSIBLE;
            res->iv = (struct fsc_interval){0};
            return;
        }
    } else if (wrapped && raw >= TWO_POW_31) {
        /* Rule 6 without a bound: a "wrap" over half the range is a reset. */
        fsc_rate__restart_at(st, smp, t, false);
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

/* Contract in rate_int.h: rate_interval() for rule 5's periodic paths, out
 * of line (the hot path keeps its inlined copy). */
void fsc_rate__interval(struct fsc_rate_state *st, const struct fsc_traits *tr,
                        const struct fsc_rate_params *params, const struct fsc_sample *smp,
                        int64_t t_end, double raw, bool wrapped, int64_t copies_ns,
                        fsc_window_fn on_window, void *arg, struct fsc_rate_result *res)
{
    rate_interval(st, tr, params, smp, t_end, raw, wrapped, copies_ns, on_window, arg, res);
}

/* Same value as the last accepted sample, for the duplicate rule. Bitwise
 * equality also catches a repeated NaN gauge. */
static bool rate_same_value(const struct fsc_rate_state *st, const struct fsc_sample *smp)
{
    bool st_f64 = (st->flags & FSC_RATE_F_F64) != 0;
    bool smp_f64 = (smp->flags & FSC_SMP_F64) != 0;
    if (st_f64 != smp_f64)
        return false;
    if (st->v_anchor.u == smp->v.u)
        return true;
    return smp_f64 && st->v_anchor.d == smp->v.d;
}

/* A value that may become a counter's anchor: any integer, a finite double. */
static bool rate_value_ok(const struct fsc_sample *smp)
{
    return !(smp->flags & FSC_SMP_F64) || isfinite(smp->v.d);
}

/* Every sample the hot path does not take: first sample, gauges, order
 * problems, explicit resets, doubles, repeats and decreases, and every sample
 * of a series with a copy grid (grid non-NULL). */
static RATE_NOINLINE void rate_update_slow(struct fsc_rate_state *st, const struct fsc_traits *tr,
                                           const struct fsc_rate_params *params,
                                           struct fsc_copy_grid *grid, const struct fsc_sample *smp,
                                           fsc_window_fn on_window, void *arg,
                                           struct fsc_rate_result *res)
{
    const int64_t t = smp->t_dev_ns;
    const bool f64 = (smp->flags & FSC_SMP_F64) != 0;
    const bool gauge = tr->kind == FSC_KIND_GAUGE;

    res->iv = (struct fsc_interval){0};
    if (gauge)
        grid = NULL; /* gauges have no copies to place */

    /* Rule 2: the first sample only sets the baseline. */
    if (!(st->flags & FSC_RATE_F_BASELINE)) {
        if (!gauge && !rate_value_ok(smp)) {
            res->verdict = FSC_RATE_IMPLAUSIBLE;
            return;
        }
        if (grid)
            fsc_rate__copies_restart(st, tr, grid, smp, false);
        else
            rate_restart(st, smp);
        res->verdict = gauge ? FSC_RATE_GAUGE : FSC_RATE_BASELINE;
        return;
    }

    /* Rule 3: duplicates, order, clock step. Differences in uint64_t are
     * exact because t <= t_last here. */
    if (t <= st->t_last) {
        uint64_t back = (uint64_t)st->t_last - (uint64_t)t;
        uint64_t bound = params->clock_step_ns > 0 ? (uint64_t)params->clock_step_ns : 0;
        if (t == st->t_last || back <= bound) {
            /* Reset evidence on a dropped sample is kept for the next one
             * (rule 4): the counters it speaks of were cleared all the same. */
            if (smp->flags & FSC_SMP_RESET)
                st->flags |= FSC_RATE_F_RESET_PENDING;
            res->verdict = t == st->t_last && rate_same_value(st, smp) ? FSC_RATE_DUPLICATE
                                                                       : FSC_RATE_OUT_OF_ORDER;
            return;
        }
        if (!gauge && !rate_value_ok(smp)) {
            res->verdict = FSC_RATE_IMPLAUSIBLE;
            return;
        }
        if (grid)
            fsc_rate__copies_restart(st, tr, grid, smp, false);
        else
            rate_restart(st, smp);
        res->verdict = FSC_RATE_CLOCK_STEP;
        return;
    }

    if (gauge) {
        rate_restart(st, smp);
        res->verdict = FSC_RATE_GAUGE;
        return;
    }

    if (!rate_value_ok(smp)) {
        res->verdict = FSC_RATE_IMPLAUSIBLE;
        return;
    }

    /* Rule 4: explicit reset evidence, or the value type changed under us (a
     * profile switched the series between integer and double). */
    if ((smp->flags & FSC_SMP_RESET) || (st->flags & FSC_RATE_F_RESET_PENDING) ||
        f64 != ((st->flags & FSC_RATE_F_F64) != 0)) {
        if (grid)
            fsc_rate__copies_restart(st, tr, grid, smp, true);
        else
            rate_restart(st, smp);
        res->verdict = FSC_RATE_RESET;
        return;
    }

    /* Classify the move of the value: up, repeat, 32-bit wrap, or reset. */
    double raw;
    bool wrapped = false;
    bool reset = false;
    if (!f64) {
        const uint64_t old = st->v_anchor.u, cur = smp->v.u;
        if (cur > old) {
            raw = (double)(cur - old);
        } else if (cur == old) {
            raw = 0.0;
        } else if (tr->width == 32 && old <= UINT32_MAX) {
            /* cur < old < 2^32: exact, 2^32 - old + cur. */
            raw = (double)((UINT64_C(1) << 32) - old + cur);
            wrapped = true;
        } else {
            reset = true;
        }
    } else {
        const double old = st->v_anchor.d, cur = smp->v.d;
        if (cur > old) {
            raw = cur - old;
        } else if (cur == old) {
            raw = 0.0;
        } else if (tr->width == 32 && old < TWO_POW_32 && cur >= 0.0) {
            raw = TWO_POW_32 - old + cur;
            wrapped = true;
        } else {
            /* Any decrease of a 53/64-bit counter (and NaN history). */
            reset = true;
        }
    }
    if (reset) {
        if (grid)
            fsc_rate__copies_restart(st, tr, grid, smp, true);
        else
            rate_restart(st, smp);
        res->verdict = FSC_RATE_RESET;
        return;
    }

    if (grid) {
        fsc_rate__copies(st, tr, params, grid, smp, raw, wrapped, on_window, arg, res);
        return;
    }

    /* Rule 5 (live or on-read copies): a repeat inside the device's refresh
     * bound is no news (only t_last moves). Beyond the bound, or with
     * refresh_ns 0, a repeat is real idleness and falls through as a
     * zero-delta interval. */
    if (raw == 0.0 && !wrapped && tr->refresh_ns > 0) {
        uint64_t since = (uint64_t)t - (uint64_t)st->t_anchor;
        if ((double)since < params->stale_factor * (double)tr->refresh_ns) {
            st->t_last = t;
            res->verdict = FSC_RATE_STALE_REPEAT;
            return;
        }
    }

    rate_interval(st, tr, params, smp, t, raw, wrapped, 0, on_window, arg, res);
}

/* Contract in rate.h. Mutates only *st, *grid and *res; no allocation, no
 * locks: the caller serialises updates of one state and its grid (the
 * engine does, under its lock). */
void fsc_rate_update_grid(struct fsc_rate_state *st, const struct fsc_traits *tr,
                          const struct fsc_rate_params *params, struct fsc_copy_grid *grid,
                          const struct fsc_sample *smp, fsc_window_fn on_window, void *arg,
                          struct fsc_rate_result *res)
{
    memset(res->withheld, 0, sizeof(res->withheld));
    /* A series found live (the engine moves it off the grid; this covers a
     * caller that could not): samples at their own times. */
    if (grid && fsc_rate_cadence(st) == FSC_CADENCE_LIVE)
        grid = NULL;
    /* Hot path: an integer counter with a baseline and no copy grid, a later
     * sample, a larger value, no reset evidence. Rules 2-6 have nothing to
     * say about it. */
    if (RATE_LIKELY(grid == NULL && st->flags == FSC_RATE_F_BASELINE &&
                    tr->kind == FSC_KIND_COUNTER &&
                    (smp->flags & (FSC_SMP_F64 | FSC_SMP_RESET)) == 0 &&
                    smp->t_dev_ns > st->t_last && smp->v.u > st->v_anchor.u)) {
        rate_interval(st, tr, params, smp, smp->t_dev_ns, (double)(smp->v.u - st->v_anchor.u),
                      false, 0, on_window, arg, res);
        return;
    }
    rate_update_slow(st, tr, params, grid, smp, on_window, arg, res);
}

/* Contract in rate.h: fsc_rate_update_grid() without a grid. */
void fsc_rate_update(struct fsc_rate_state *st, const struct fsc_traits *tr,
                     const struct fsc_rate_params *params, const struct fsc_sample *smp,
                     fsc_window_fn on_window, void *arg, struct fsc_rate_result *res)
{
    fsc_rate_update_grid(st, tr, params, NULL, smp, on_window, arg, res);
}
