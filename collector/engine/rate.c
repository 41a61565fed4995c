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

static void rate_restart(struct fsc_rate_state *st, const struct fsc_sample *smp)
{
    rate_restart_at(st, smp, smp->t_dev_ns, false);
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
    int64_t unc; /* how far the interval's end may be off (rule 5); 0: placed */
};

/* Emits the window of level l ending at edge; acc holds its units. A window
 * that the current baseline started inside of is rated over its covered part,
 * and not emitted at all when less than half of it is covered: one interval
 * after a restart must not pass for a whole window. */
static void rate_emit(struct fsc_rate_state *st, unsigned l, int64_t w, int64_t edge, double acc,
                      float peak, bool tainted, const struct rate_emit_ctx *ec)
{
    if (ec->update_ns > w) {
        /* Rule 9: shorter than the update period, not determined. */
        if (ec->res->withheld[l] < UINT16_MAX)
            ec->res->withheld[l]++;
        return;
    }
    if (tainted) {
        /* Rule 5: an unplaced interval overlaps it. */
        if (ec->res->unplaced[l] < UINT16_MAX)
            ec->res->unplaced[l]++;
        return;
    }
    double covered = (double)w;
    /* edge > t_base always (t_base <= t_anchor < edge): exact. */
    uint64_t since_base = (uint64_t)edge - (uint64_t)st->t_base;
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
    const uint8_t taint = (uint8_t)(FSC_RATE_F_TAINT0 << l);
    /* Rule 5: a window is not emitted when an edge of it lies within `unc`
     * of this interval's uncertain end (its bytes near the edge may belong
     * to the other side). */
    bool tainted = (st->flags & taint) != 0;
    for (unsigned n = 1;; n++) {
        bool edge_bad = ec->unc > 0 && left < (uint64_t)ec->unc;
        rate_emit(st, l, w, edge, acc, peak, tainted || edge_bad, ec);
        tainted = edge_bad;
        if (left < (uint64_t)w)
            break;
        if (n == WINDOW_EMIT_MAX) {
            /* Skip the middle windows: go on with the window holding t. */
            uint64_t into = left % (uint64_t)w;
            edge = (int64_t)((uint64_t)t - into);
            left = into;
            tainted = ec->unc > 0 && left < (uint64_t)ec->unc;
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
    if (tainted || (ec->unc > 0 && (uint64_t)w - left < (uint64_t)ec->unc))
        st->flags |= taint;
    else
        st->flags &= (uint8_t)~taint;
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
            if (ec->unc > 0 && w - rate_floor_mod(t, w) < ec->unc)
                st->flags |= (uint8_t)(FSC_RATE_F_TAINT0 << l);
        }
    }
}

/* Rules 6 (wrap plausibility), 7, 8 and 9 for an interval from the anchor to
 * t_end (the sample's time, or the copy instant its value was true from),
 * raw counter units (before scale) apart. Ends by moving the anchor to t_end
 * and t_last to the sample. Forced inline: as a call it costs the hot path
 * ~7 %. */
static RATE_INLINE void rate_interval(struct fsc_rate_state *st, const struct fsc_traits *tr,
                                      const struct fsc_rate_params *params,
                                      const struct fsc_sample *smp, int64_t t_end, double raw,
                                      bool wrapped, bool unplaced, int64_t unc,
                                      fsc_window_fn on_window, void *arg,
                                      struct fsc_rate_result *res)
{
    const int64_t t = t_end;
    const uint64_t span = (uint64_t)t - (uint64_t)st->t_anchor;
    const double span_ns = (double)span;
    const double delta = tr->scale > 1 ? raw * (double)tr->scale : raw;
    const double rate = delta * NS_PER_S / span_ns;
    const int64_t update_ns = fsc_rate_update_period(tr);

    if (unplaced && !wrapped) {
        /* Rule 7 judges rates; an unplaced interval's span is not its
         * copies' distance (two copies may have arrived in it), so its rate
         * proves no glitch. Its delta is real and goes to the windows. */
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

    /* Rule 8 (and rule 5: an unplaced interval is no fine evidence either). */
    const bool gap =
        unplaced || (update_ns > 0 && span_ns > params->max_gap_factor * (double)update_ns);
    /* Fine rate for window peaks; rates are >= 0, so 0 leaves a peak as is. */
    const float frate = gap ? 0.0f : (float)rate;

    res->verdict = FSC_RATE_INTERVAL;
    res->iv.t0_ns = st->t_anchor;
    res->iv.t1_ns = t;
    res->iv.delta = delta;
    res->iv.rate = rate;
    res->iv.gap = gap;
    res->iv.wrapped = wrapped;
    res->iv.unplaced = unplaced;

    /* Rule 9, common case: the interval stays inside the current window of
     * every level; the first level it leaves goes to the general path. */
    const unsigned n = params->n_windows < FSC_MAX_WINDOWS ? params->n_windows : FSC_MAX_WINDOWS;
    for (unsigned l = 0; l < n; l++) {
        const int64_t w = params->window_ns[l];
        if (w <= 0)
            continue;
        if (span >= (uint64_t)(w - rate_floor_mod(st->t_anchor, w))) {
            const struct rate_emit_ctx ec = {on_window, arg, update_ns, res, unc};
            rate_spread_slow(st, params, l, n, t, span, delta, frate, &ec);
            break;
        }
        st->win_acc[l] += delta;
        st->win_peak[l] = st->win_peak[l] > frate ? st->win_peak[l] : frate;
        if (unc > 0 && w - rate_floor_mod(t, w) < unc)
            st->flags |= (uint8_t)(FSC_RATE_F_TAINT0 << l);
    }

    /* -1: the latest interval is no fine evidence (a gap, an unplaced copy):
     * readers must not show the one before it as if it were current. */
    st->fine_rate = gap ? -1.0f : frate;
    st->t_anchor = t;
    st->t_last = smp->t_dev_ns;
    st->v_anchor = smp->v;
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

/* All taint bits: every window level begins at an unplaced anchor. */
#define RATE_F_TAINT_ALL ((uint8_t)(((1u << FSC_MAX_WINDOWS) - 1) << 4))
_Static_assert(FSC_RATE_F_TAINT0 == 1u << 4 && FSC_MAX_WINDOWS <= 4, "taint bits 4..7");

/* Marks whether the anchor's instant is uncertain (rule 5): an interval from
 * it is then no fine-grained evidence. */
static void rate_mark_uncertain(struct fsc_rate_state *st, bool uncertain)
{
    if (uncertain)
        st->flags |= FSC_RATE_F_UNPLACED;
    else
        st->flags &= (uint8_t)~FSC_RATE_F_UNPLACED;
}

/* Rule 5, periodic copies: where a restart at this sample anchors. A
 * changed value (reset evidence, a decrease) was true from the copy the grid
 * places in (t_last, t]; a sample whose copy is not known (a first sample, a
 * clock step) gives a provisional anchor at its own time. */
static void rate_restart_periodic(struct fsc_rate_state *st, struct fsc_copy_grid *grid,
                                  const struct fsc_sample *smp, bool changed)
{
    const int64_t t = smp->t_dev_ns;
    uint8_t epoch = st->copy_epoch;
    if (changed && t > st->t_last) {
        int64_t unc;
        int64_t c = fsc_grid_change(grid, st->t_last, t, FSC_GRID_NONE, &epoch, &unc);
        if (c == FSC_GRID_NONE) {
            c = t; /* a restart cannot wait: anchored at the sample, unplaced */
            unc = grid->period_ns;
        }
        rate_restart_at(st, smp, c, false);
        st->copy_epoch = epoch;
        if (grid->locked && unc > 0)
            st->flags |= (uint8_t)(FSC_RATE_F_UNPLACED | RATE_F_TAINT_ALL);
        return;
    }
    int64_t c = fsc_grid_copy_before(grid, t);
    if (c == FSC_GRID_NONE)
        rate_restart_at(st, smp, t, true);
    else
        rate_restart_at(st, smp, c, false);
    st->copy_epoch = grid->epoch;
}

/* Rule 5 for a periodic series with its device's copy grid: a change (raw
 * units up, or a plausible wrap) or a repeat (raw 0) at sample smp. */
static RATE_NOINLINE void rate_periodic(struct fsc_rate_state *st, const struct fsc_traits *tr,
                                        const struct fsc_rate_params *params,
                                        struct fsc_copy_grid *grid, const struct fsc_sample *smp,
                                        double raw, bool wrapped, fsc_window_fn on_window,
                                        void *arg, struct fsc_rate_result *res)
{
    const int64_t t = smp->t_dev_ns;
    const int64_t p = tr->refresh_ns;
    const bool provisional = (st->flags & FSC_RATE_F_PROVISIONAL) != 0;
    const bool from_uncertain = (st->flags & FSC_RATE_F_UNPLACED) != 0;

    if (raw == 0.0 && !wrapped) {
        /* Idle up to the latest copy that surely came after the anchor's own
         * copy (half a period on: the anchor is an estimate) and before this
         * sample. When the grid cannot tell, after stale_factor periods at
         * the latest, with the copy guessed half a period before the sample. */
        int64_t unc = 0;
        int64_t after = provisional ? st->t_anchor : st->t_anchor + p / 2;
        int64_t c = fsc_grid_copy_between(grid, after, t);
        if (c == FSC_GRID_NONE && !grid->locked) {
            /* Unlocked, copies sit at the samples that show them: a repeat a
             * period or more after the anchor surely saw a newer copy, and
             * one a whole number of periods after it keeps that placement. */
            int64_t span = t - st->t_anchor, off = span % p;
            if (span >= p && off <= p / 100)
                c = t;
        }
        if (c == FSC_GRID_NONE &&
            (double)((uint64_t)t - (uint64_t)st->t_anchor) >= params->stale_factor * (double)p) {
            c = t - p / 2;
            unc = p / 2;
        }
        if (c == FSC_GRID_NONE || c <= st->t_anchor) {
            st->t_last = t;
            res->verdict = FSC_RATE_STALE_REPEAT;
            return;
        }
        if (provisional) {
            rate_restart_at(st, smp, c, false);
            rate_mark_uncertain(st, unc > 0);
            if (unc > 0)
                st->flags |= RATE_F_TAINT_ALL;
            st->copy_epoch = grid->epoch;
            res->verdict = FSC_RATE_BASELINE;
            return;
        }
        bool jumped = st->copy_epoch != grid->epoch;
        if (jumped)
            st->flags |= RATE_F_TAINT_ALL;
        rate_interval(st, tr, params, smp, c, 0.0, false, from_uncertain || jumped || unc > 0, unc,
                      on_window, arg, res);
        rate_mark_uncertain(st, unc > 0);
        st->copy_epoch = grid->epoch;
        return;
    }

    /* Two changes closer than copies every p allow: evidence that the
     * device's values are live (copy_grid.h, fsc_grid_note_fast). */
    if (!provisional && t - st->t_last < p / FSC_GRID_FAST_DIV &&
        t - st->t_anchor < p / FSC_GRID_FAST_DIV)
        fsc_grid_note_fast(grid);
    int64_t unc;
    uint8_t epoch = st->copy_epoch;
    int64_t c = fsc_grid_change(grid, st->t_last, t, provisional ? FSC_GRID_NONE : st->t_anchor,
                                &epoch, &unc);
    if (c == FSC_GRID_NONE) {
        /* Not used: the next change's span covers this one's copy too -
         * once; a series already waiting one sample (t_last older than
         * 1.5 sample intervals) takes the grid's best guess, unplaced. */
        if ((double)(t - st->t_last) <= 1.5 * (double)tr->nominal_interval_ns) {
            res->verdict = FSC_RATE_DEFERRED;
            return;
        }
        c = fsc_grid_guess(grid, st->t_last, t);
        unc = p;
    }
    if (provisional) {
        /* The copy the baseline sample showed, now that the grid may know
         * it; else the baseline starts at this change. */
        int64_t c0 = fsc_grid_copy_before(grid, st->t_anchor);
        if (c0 == FSC_GRID_NONE || c0 >= c) {
            rate_restart_at(st, smp, c, false);
            st->copy_epoch = epoch;
            if (unc > 0)
                st->flags |= (uint8_t)(FSC_RATE_F_UNPLACED | RATE_F_TAINT_ALL);
            res->verdict = FSC_RATE_BASELINE;
            return;
        }
        st->t_anchor = st->t_base = c0;
        st->flags &= (uint8_t)~FSC_RATE_F_PROVISIONAL;
        st->copy_epoch = epoch; /* both placed by the grid as it is now */
    }
    /* Placed before a jump of the grid: the anchor is off by the jump. */
    bool jumped = st->copy_epoch != epoch;
    if (jumped)
        st->flags |= RATE_F_TAINT_ALL;
    rate_interval(st, tr, params, smp, c, raw, wrapped, from_uncertain || jumped || unc > 0, unc,
                  on_window, arg, res);
    rate_mark_uncertain(st, unc > 0);
    st->copy_epoch = epoch;
}

/* A whole number (>= 1) of periods p, to 0.1 %: samples that far apart,
 * each at the same offset after its copy, saw as many copies as periods
 * passed. A looser tolerance lets jittered samples that straddle a copy
 * (one just before it, the next just after the following one: two copies
 * in one period's span) pass for placed. */
static bool rate_whole_periods(int64_t span, int64_t p)
{
    int64_t k = (span + p / 2) / p, off = span - k * p;
    return k >= 1 && (off < 0 ? -off : off) <= p / 1000;
}

/* Rule 5 for a periodic series sampled no faster than its copies (nominal
 * interval >= refresh). Samples that sparse cannot tell which copy each one
 * saw when the copies fall within the samples' jitter: a sample near a copy
 * may or may not have seen it, one copy's delta shows up a sample late and
 * two arrive in one span (measured with the copy grid: 10 s windows 5-20 %
 * off, fine rates 50-100 % off, tests/scenarios junos_2s_sampled). So the
 * copies are placed at the samples that show them: an interval whose span
 * is a whole number of periods (to 0.1 %) covers whole copy intervals and
 * is placed. A device whose copies fall well between its samples shows it:
 * no busy series ever repeats one lattice step on (copy_grid.h,
 * fsc_grid_lattice_ok); then each sample shows the copies up to its own
 * point of the device's sample lattice (its mean sample phase + kP, the
 * sample within P/4 of it), and the interval is placed between lattice
 * points: k copy-to-copy periods, whatever the jitter. Any other interval is unplaced - no fine
 * evidence, and the windows near its end are withheld. Without jitter every interval is placed. In
 * this mode st->copy_epoch (the grid's epoch only where copies are placed by the grid) says whether
 * the last sample changed value: a busy series' repeat one period on is a straddle. */
static RATE_NOINLINE void
rate_periodic_coarse(struct fsc_rate_state *st, const struct fsc_traits *tr,
                     const struct fsc_rate_params *params, struct fsc_copy_grid *grid,
                     const struct fsc_sample *smp, double raw, bool wrapped,
                     fsc_window_fn on_window, void *arg, struct fsc_rate_result *res)
{
    const int64_t t = smp->t_dev_ns;
    const int64_t p = tr->refresh_ns;
    const int64_t span = t - st->t_anchor;
    const bool from_uncertain = (st->flags & FSC_RATE_F_UNPLACED) != 0;
    const bool changed = raw != 0.0 || wrapped;
    const bool busy = st->copy_epoch != 0;
    int64_t lt = FSC_GRID_NONE, steps = -1;
    if (grid) {
        fsc_grid_note_sample(grid, t);
        lt = fsc_grid_sample_lattice(grid, t);
        int64_t lp = fsc_grid_sample_lattice(grid, st->t_last);
        if (lt != FSC_GRID_NONE && (t - lt < 0 ? lt - t : t - lt) > p / 4)
            lt = FSC_GRID_NONE; /* this sample is far off its lattice point */
        if (lt != FSC_GRID_NONE && lp != FSC_GRID_NONE)
            steps = (lt - lp) / p;
    }
    const bool lattice = lt != FSC_GRID_NONE && lt > st->t_anchor && fsc_grid_lattice_ok(grid, t);
    int64_t end = t, unc = 0;
    if (!changed) {
        /* A repeat a period or more on surely saw a newer copy; at a whole
         * number of periods it keeps the placement. A busy series that
         * repeats one lattice step on straddles its copy (or stopped: the
         * next sample tells). Else idle is only assumed after stale_factor
         * periods, up to a guessed copy. */
        if (span >= p && rate_whole_periods(span, p)) {
            end = t;
        } else if (steps == 1 && busy) {
            fsc_grid_note_straddle(grid, t);
            st->copy_epoch = 0;
            st->t_last = t;
            res->verdict = FSC_RATE_STALE_REPEAT;
            return;
        } else if (lattice) {
            end = lt;
        } else if ((double)span >= params->stale_factor * (double)p) {
            end = t - p / 2;
            unc = p / 2;
        } else {
            st->copy_epoch = 0;
            st->t_last = t;
            res->verdict = FSC_RATE_STALE_REPEAT;
            return;
        }
    } else if (rate_whole_periods(span, p)) {
        end = t;
    } else if (lattice) {
        end = lt;
    } else {
        unc = p;
    }
    if (changed && steps == 1)
        fsc_grid_note_calm(grid, t);
    /* Between two lattice points the interval is k copy-to-copy periods;
     * from an anchor off the lattice (a sample, an older lattice) it holds
     * the right copies over the wrong span: unplaced, but it ends on the
     * lattice, so the next one is placed. */
    const bool on_grid = lattice && end == lt;
    if (on_grid && !rate_whole_periods(end - st->t_anchor, p))
        unc = unc > 0 ? unc : p / 4;
    rate_interval(st, tr, params, smp, end, raw, wrapped, unc > 0 || from_uncertain, unc, on_window,
                  arg, res);
    rate_mark_uncertain(st, unc > 0 && !on_grid);
    st->copy_epoch = changed ? 1 : 0;
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
    /* Sampled no faster than the copies: copies sit at the samples
     * (rate_periodic_coarse), restarts too. */
    const bool coarse =
        grid && tr->nominal_interval_ns > 0 && tr->nominal_interval_ns >= tr->refresh_ns;
    struct fsc_copy_grid *placing = coarse ? NULL : grid;

    /* Rule 2: the first sample only sets the baseline. */
    if (!(st->flags & FSC_RATE_F_BASELINE)) {
        if (!gauge && !rate_value_ok(smp)) {
            res->verdict = FSC_RATE_IMPLAUSIBLE;
            return;
        }
        if (placing)
            rate_restart_periodic(st, placing, smp, false);
        else
            rate_restart(st, smp);
        res->verdict = gauge ? FSC_RATE_GAUGE : FSC_RATE_BASELINE;
        return;
    }

    /* Rule 3: duplicates, order, clock step. Differences in uint64_t are
     * exact because t <= t_last here. */
    if (t <= st->t_last) {
        if (t == st->t_last) {
            res->verdict = rate_same_value(st, smp) ? FSC_RATE_DUPLICATE : FSC_RATE_OUT_OF_ORDER;
            return;
        }
        uint64_t back = (uint64_t)st->t_last - (uint64_t)t;
        uint64_t bound = params->clock_step_ns > 0 ? (uint64_t)params->clock_step_ns : 0;
        if (back <= bound) {
            res->verdict = FSC_RATE_OUT_OF_ORDER;
            return;
        }
        if (!gauge && !rate_value_ok(smp)) {
            res->verdict = FSC_RATE_IMPLAUSIBLE;
            return;
        }
        if (placing)
            rate_restart_periodic(st, placing, smp, false);
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
    if ((smp->flags & FSC_SMP_RESET) || f64 != ((st->flags & FSC_RATE_F_F64) != 0)) {
        if (placing)
            rate_restart_periodic(st, placing, smp, true);
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
        if (placing)
            rate_restart_periodic(st, placing, smp, true);
        else
            rate_restart(st, smp);
        res->verdict = FSC_RATE_RESET;
        return;
    }

    if (coarse) {
        rate_periodic_coarse(st, tr, params, grid, smp, raw, wrapped, on_window, arg, res);
        return;
    }
    if (grid) {
        rate_periodic(st, tr, params, grid, smp, raw, wrapped, on_window, arg, res);
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

    rate_interval(st, tr, params, smp, t, raw, wrapped, false, 0, on_window, arg, res);
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
    memset(res->unplaced, 0, sizeof(res->unplaced));
    /* A device found live (the engine moves its series off the grid; this
     * covers a caller that could not): samples at their own times. */
    if (grid && grid->live)
        grid = NULL;
    /* Hot path: an integer counter with a baseline and no copy grid, a later
     * sample, a larger value, no reset evidence. Rules 2-6 have nothing to
     * say about it. */
    if (RATE_LIKELY(grid == NULL && st->flags == FSC_RATE_F_BASELINE &&
                    tr->kind == FSC_KIND_COUNTER &&
                    (smp->flags & (FSC_SMP_F64 | FSC_SMP_RESET)) == 0 &&
                    smp->t_dev_ns > st->t_last && smp->v.u > st->v_anchor.u)) {
        rate_interval(st, tr, params, smp, smp->t_dev_ns, (double)(smp->v.u - st->v_anchor.u),
                      false, false, 0, on_window, arg, res);
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
