/* The copy grid's estimate (contract in copy_grid.h).
 *
 * The grid keeps the latest FSC_GRID_KEEP distinct constraints (ta, tb]. To
 * estimate, each is folded onto one period around the current estimate
 * (shifted by whole periods so that its centre lies within half a period of
 * it) and a sweep over their ends finds the phase range covered by the most
 * of them. Its centre is the new estimate, half its width the uncertainty.
 * With consistent constraints that range is their intersection; a constraint
 * that disagrees (a late stream, a copy that slipped by more than the
 * others' width) only lowers the depth elsewhere. Three contradicting
 * constraints in a row mean the device's copies moved (a reboot, a clock
 * step): the grid starts over from the newest.
 *
 * A series that repeats before it changes narrows its constraint from above:
 * the copy after the one its previous value came from happened within one
 * period of the first sample that showed that previous copy (grid->seen),
 * so at a sample interval near the period, where (ta, tb] alone is almost a
 * whole period wide, the repeat pins the copy down. (For a series that was
 * idle at that copy the narrowed constraint is wrong; the vote keeps one
 * such series from moving the grid.)
 *
 * The estimate slews: once locked, the phase moves towards the agreed range
 * by at most P / GRID_SLEW_DIV per new constraint, so a refinement of the
 * estimate by a few milliseconds shortens or lengthens one copy interval by
 * at most that much instead of all at once (a jump of 40 ms in one step made
 * one 2 s interval 2 % off). A move of more than P / 8 is a jump.
 *
 * Intersecting every constraint with the projection of the previous
 * estimate widened by a drift allowance per period would not do: with one
 * constraint per copy the allowance, added each period, keeps the interval
 * about 40 ms wide at 100 ms sampling (measured in copy_grid_test). The
 * sweep over a window of constraints has no allowance to pay: a device
 * timer that drifts moves the window's agreement with it.
 *
 * Cost: one sort of 2 x FSC_GRID_KEEP ends per distinct constraint, that is
 * per copy per stream of a device (the ports of a notification share their
 * timestamps and add one constraint), not per sample. Times are device
 * nanoseconds since the epoch and periods seconds at most: every difference
 * taken here is far inside int64_t. */
#include "engine/copy_grid.h"

#include <stdbool.h>
#include <stddef.h>

#include "base/intdiv.h"

/* A sample must be this far past a copy's upper bound to count as having
 * seen it, for timestamp noise: P / GRID_MARGIN_DIV (20 ms at 2 s). */
#define GRID_MARGIN_DIV 100
/* Consecutive contradicting constraints that make the grid start over. */
#define GRID_CONTRA_MAX 3
/* Slew per constraint: P / 400 (5 ms at 2 s). */
#define GRID_SLEW_DIV 400

static int64_t mid_of(int64_t lo, int64_t hi)
{
    return lo + (hi - lo) / 2;
}

/* d moved by whole periods p into [-p/2, p/2): the signed distance to the
 * nearest instant of a lattice whose step is p. */
static int64_t fold_half(int64_t d, int64_t p)
{
    return d - fsc_floor_div(d + p / 2, p) * p;
}

static int64_t clamp_into(int64_t v, int64_t ta, int64_t tb)
{
    if (v <= ta)
        return ta + 1;
    return v > tb ? tb : v;
}

/* The latest estimated copy at or before t. */
static int64_t copy_at_or_before(const struct fsc_copy_grid *g, int64_t t)
{
    return g->phase + fsc_floor_div(t - g->phase, g->period_ns) * g->period_ns;
}

/* One end of a folded constraint: position relative to the estimate, +1
 * where a constraint opens, -1 where it closes. */
struct grid_end {
    int64_t at;
    int step;
};

/* Insertion sort (at most 2 x FSC_GRID_KEEP ends, nearly sorted as a rule):
 * by position, a close before an open at the same position, since (ta, tb]
 * and (tb, tc] do not overlap. */
static void ends_sort(struct grid_end *e, unsigned n)
{
    for (unsigned i = 1; i < n; i++) {
        struct grid_end x = e[i];
        unsigned j = i;
        while (j > 0 && (e[j - 1].at > x.at || (e[j - 1].at == x.at && e[j - 1].step > x.step))) {
            e[j] = e[j - 1];
            j--;
        }
        e[j] = x;
    }
}

/* The number of the copy nearest the estimated instant t. */
static int64_t copy_number(const struct fsc_copy_grid *g, int64_t t)
{
    return fsc_floor_div(t - g->origin + g->period_ns / 2, g->period_ns);
}

/* The earliest sample known to show copy k, or FSC_GRID_NONE. */
static int64_t seen_first(const struct fsc_copy_grid *g, int64_t k)
{
    const unsigned i = (unsigned)(k & (FSC_GRID_SEEN - 1));
    return g->seen[i].k == k ? g->seen[i].first : FSC_GRID_NONE;
}

static void seen_note(struct fsc_copy_grid *g, int64_t k, int64_t t)
{
    const unsigned i = (unsigned)(k & (FSC_GRID_SEEN - 1));
    if (g->seen[i].k != k || g->seen[i].first == FSC_GRID_NONE) {
        g->seen[i].k = k;
        g->seen[i].first = t;
    } else if (t < g->seen[i].first) {
        g->seen[i].first = t;
    }
}

static void seen_clear(struct fsc_copy_grid *g)
{
    for (unsigned i = 0; i < FSC_GRID_SEEN; i++) {
        g->seen[i].k = INT64_MIN;
        g->seen[i].first = FSC_GRID_NONE;
    }
}

/* Moves phase towards target: a jump when unlocked or far, else a slew. */
static void slew(struct fsc_copy_grid *g, bool was_locked)
{
    const int64_t p = g->period_ns;
    /* The target expressed as the copy nearest the current phase. */
    int64_t d = fold_half(g->target - g->phase, p);
    int64_t step = p / GRID_SLEW_DIV;
    if (!was_locked || d > p / 8 || d < -p / 8) {
        g->phase = g->target;
        if (!was_locked)
            g->origin = g->target;
        return;
    }
    g->phase += d > step ? step : d < -step ? -step : d;
}

/* Re-estimates target / half from the constraints held, folded around ref. */
static void estimate(struct fsc_copy_grid *g, int64_t ref)
{
    const int64_t p = g->period_ns;
    struct grid_end ends[2 * FSC_GRID_KEEP];
    unsigned n = 0;
    for (unsigned i = 0; i < g->n; i++) {
        int64_t a = g->ta[i] - ref, b = g->tb[i] - ref;
        int64_t shift = fsc_floor_div(mid_of(a, b) + p / 2, p) * p;
        ends[n++] = (struct grid_end){a - shift, +1};
        ends[n++] = (struct grid_end){b - shift, -1};
    }
    ends_sort(ends, n);
    /* The deepest range; among equally deep ones, the one nearest the
     * reference, so the estimate does not jump between two clusters. */
    int depth = 0, best = 0;
    int64_t lo = 0, hi = 0;
    for (unsigned i = 0; i + 1 < n; i++) {
        depth += ends[i].step;
        if (ends[i + 1].at <= ends[i].at || depth <= 0)
            continue;
        int64_t x = ends[i].at, y = ends[i + 1].at;
        int64_t dist = mid_of(x, y) < 0 ? -mid_of(x, y) : mid_of(x, y);
        int64_t best_dist = mid_of(lo, hi) < 0 ? -mid_of(lo, hi) : mid_of(lo, hi);
        if (depth > best || (depth == best && dist < best_dist)) {
            best = depth;
            lo = x;
            hi = y;
        }
    }
    if (best == 0)
        return;
    /* The uncertainty: the stretch around that range where all but one of
     * the deepest constraints agree, so one wrong constraint (a sighting
     * whose copy was misjudged) cannot make the grid claim more certainty
     * than it has. */
    int64_t ulo = lo, uhi = hi;
    if (best >= 3) {
        int64_t run_lo = 0;
        bool in_run = false;
        depth = 0;
        for (unsigned i = 0; i + 1 < n; i++) {
            depth += ends[i].step;
            bool deep = depth >= best - 1 && ends[i + 1].at > ends[i].at;
            if (deep && !in_run) {
                run_lo = ends[i].at;
                in_run = true;
            }
            if (in_run && (!deep || i + 2 == n)) {
                int64_t run_hi = deep ? ends[i + 1].at : ends[i].at;
                if (run_lo <= lo && run_hi >= hi) {
                    ulo = run_lo;
                    uhi = run_hi;
                }
                in_run = false;
            }
        }
    }
    bool was_locked = g->locked;
    g->target = ref + mid_of(lo, hi);
    int64_t below = mid_of(lo, hi) - ulo, above = uhi - mid_of(lo, hi);
    g->half = below > above ? below : above;
    g->locked = 1;
    slew(g, was_locked);
}

/* The uncertainty of the phase in use: the agreed range, plus how far the
 * slewing phase still is from its centre. */
static int64_t uncertainty(const struct fsc_copy_grid *g)
{
    int64_t d = fold_half(g->target - g->phase, g->period_ns);
    return g->half + (d < 0 ? -d : d);
}

/* Contract in copy_grid.h. */
void fsc_grid_init(struct fsc_copy_grid *g, int64_t period_ns)
{
    *g = (struct fsc_copy_grid){.period_ns = period_ns > 0 ? period_ns : 1,
                                .lattice_change_t = FSC_GRID_NONE};
    seen_clear(g);
}

/* Does (ta, tb] hold an estimated copy (give or take the uncertainty)? */
static bool agrees(const struct fsc_copy_grid *g, int64_t ta, int64_t tb)
{
    int64_t c = copy_at_or_before(g, tb), u = uncertainty(g);
    return c + u > ta || c + g->period_ns - u <= tb;
}

/* Adds constraint (ta, hi] unless it repeats the last one; re-estimates. */
static void add_constraint(struct fsc_copy_grid *g, int64_t ta, int64_t hi)
{
    unsigned last = (g->next + FSC_GRID_KEEP - 1) % FSC_GRID_KEEP;
    if (g->n != 0 && g->ta[last] == ta && g->tb[last] == hi)
        return;
    if (g->locked && !agrees(g, ta, hi)) {
        if (++g->contra >= GRID_CONTRA_MAX) {
            /* The copies moved: start over from this constraint. */
            g->relocks++;
            g->n = 0;
            g->next = 0;
            g->contra = 0;
            g->locked = 0;
            seen_clear(g);
        }
    } else {
        g->contra = 0;
    }
    g->ta[g->next] = ta;
    g->tb[g->next] = hi;
    g->next = (uint8_t)((g->next + 1) % FSC_GRID_KEEP);
    if (g->n < FSC_GRID_KEEP)
        g->n++;
    estimate(g, g->locked ? g->phase : mid_of(ta, hi));
}

/* Contract in copy_grid.h. Mutates *g; returns a time in (ta, tb]. */
int64_t fsc_grid_change(struct fsc_copy_grid *g, int64_t ta, int64_t tb, int64_t prev, bool learn,
                        bool *placed)
{
    const int64_t p = g->period_ns;
    *placed = false;
    if (learn) {
        g->changes++;
        /* The copy after prev's came within a period of prev's first sighting. */
        int64_t hi = tb;
        if (g->locked && prev != FSC_GRID_NONE) {
            int64_t first = seen_first(g, copy_number(g, prev));
            if (first != FSC_GRID_NONE && first + p < hi)
                hi = first + p;
        }
        if (hi > ta && hi - ta < p)
            add_constraint(g, ta, hi);
    }
    if (!g->locked)
        return tb; /* nothing known: the copy is placed at the sample that showed it */
    /* Which copy did tb show? Copy k may lie anywhere within m of its
     * estimate c_k (the uncertainty, with half again for safety). A change
     * over less than a period saw exactly one copy: the one whose range
     * meets (ta, tb]. Over more, it saw the latest copy at or before tb.
     * When two copies qualify, the sample may or may not have seen one of
     * them - a period either way: the caller waits for the next change
     * instead (its span then holds both). */
    const int64_t u = uncertainty(g), m = u + u / 2;
    int64_t est = copy_at_or_before(g, tb);
    if (tb - ta < p) {
        bool here = est + m > ta;      /* c_k may lie in (ta, tb] */
        bool next = est + p - m <= tb; /* so may c_k+1 */
        if (here && next)
            return FSC_GRID_NONE;
        if (!here && (next || est + p - tb < ta - est))
            est += p; /* the estimate runs early: it is the next copy */
    } else if (tb - est < m || est + p - tb <= m) {
        return FSC_GRID_NONE;
    }
    int64_t c = clamp_into(est, ta, tb);
    int64_t moved = c - est;
    *placed = (moved < 0 ? -moved : moved) <= p / GRID_SLEW_DIV;
    /* Only a sighting sure of its copy may narrow later constraints: a
     * wrong one would exclude the truth from them and lock the grid on it. */
    if (learn && (tb - ta < p || *placed))
        seen_note(g, copy_number(g, c), tb);
    return c;
}

/* Contract in copy_grid.h. Reads *g only. */
int64_t fsc_grid_guess(const struct fsc_copy_grid *g, int64_t ta, int64_t tb)
{
    if (!g->locked)
        return tb;
    int64_t est = copy_at_or_before(g, tb);
    if (est <= ta && est + g->period_ns - tb < ta - est)
        est += g->period_ns;
    return clamp_into(est, ta, tb);
}

/* Contract in copy_grid.h. Reads *g only. */
int64_t fsc_grid_copy_between(const struct fsc_copy_grid *g, int64_t after, int64_t t)
{
    const int64_t p = g->period_ns, u = uncertainty(g);
    const int64_t margin = p / GRID_MARGIN_DIV;
    if (!g->locked || u >= p / 2 - margin)
        return FSC_GRID_NONE;
    int64_t c = copy_at_or_before(g, t - margin - u);
    if (c - u <= after)
        return FSC_GRID_NONE;
    return c;
}

/* Contract in copy_grid.h. Reads *g only. */
int64_t fsc_grid_copy_before(const struct fsc_copy_grid *g, int64_t t)
{
    const int64_t p = g->period_ns, u = uncertainty(g);
    if (!g->locked)
        return FSC_GRID_NONE;
    int64_t c = copy_at_or_before(g, t);
    /* That copy certainly at or before t, the next certainly after it. */
    if (c + u > t || c + p - u <= t)
        return FSC_GRID_NONE;
    return c;
}
