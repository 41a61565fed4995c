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
 * a non-inlined function so the hot path carries no spills for it. Rules
 * 6-9 (the interval) are in rate_int.h, whose body rate_copies.c compiles
 * too, out of line.
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

#define TWO_POW_32 4294967296.0

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

static void rate_restart(struct fsc_rate_state *st, const struct fsc_sample *smp)
{
    rate_restart_at(st, smp, smp->t_dev_ns, false);
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
