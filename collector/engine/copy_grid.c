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
 * An earlier version intersected every constraint with the projection of the
 * previous estimate widened by a drift allowance per period; with one
 * constraint per copy the allowance, added each period, kept the interval
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

/* A phase range wider than P / GRID_VAGUE_DIV says too little about which
 * copy a sample saw: copy_between / copy_before answer FSC_GRID_NONE. */
#define GRID_VAGUE_DIV 8
/* A sample must be this far past a copy's upper bound to count as having
 * seen it, for timestamp noise: P / GRID_MARGIN_DIV (20 ms at 2 s). */
#define GRID_MARGIN_DIV 100
/* Consecutive contradicting constraints that make the grid start over. */
#define GRID_CONTRA_MAX 3

static int64_t mid_of(int64_t lo, int64_t hi)
{
    return lo + (hi - lo) / 2;
}

/* Floor of a / b for b > 0, also for negative a. */
static int64_t floor_div(int64_t a, int64_t b)
{
    int64_t q = a / b;
    return (a % b != 0 && a < 0) ? q - 1 : q;
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
    return g->phase + floor_div(t - g->phase, g->period_ns) * g->period_ns;
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

/* Re-estimates phase / half from the constraints held, folded around ref. */
static void estimate(struct fsc_copy_grid *g, int64_t ref)
{
    const int64_t p = g->period_ns;
    struct grid_end ends[2 * FSC_GRID_KEEP];
    unsigned n = 0;
    for (unsigned i = 0; i < g->n; i++) {
        int64_t a = g->ta[i] - ref, b = g->tb[i] - ref;
        int64_t shift = floor_div(mid_of(a, b) + p / 2, p) * p;
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
    g->phase = ref + mid_of(lo, hi);
    g->half = (hi - lo) / 2;
    g->locked = 1;
}

/* Contract in copy_grid.h. */
void fsc_grid_init(struct fsc_copy_grid *g, int64_t period_ns)
{
    *g = (struct fsc_copy_grid){.period_ns = period_ns > 0 ? period_ns : 1};
}

/* Does (ta, tb] hold an estimated copy (give or take the uncertainty)? */
static bool agrees(const struct fsc_copy_grid *g, int64_t ta, int64_t tb)
{
    int64_t c = copy_at_or_before(g, tb);
    return c + g->half > ta || c + g->period_ns - g->half <= tb;
}

/* Contract in copy_grid.h. Mutates *g; returns a time in (ta, tb]. */
int64_t fsc_grid_change(struct fsc_copy_grid *g, int64_t ta, int64_t tb)
{
    const int64_t p = g->period_ns;
    g->changes++;
    if (tb - ta < p) {
        unsigned last = (g->next + FSC_GRID_KEEP - 1) % FSC_GRID_KEEP;
        if (g->n == 0 || g->ta[last] != ta || g->tb[last] != tb) {
            if (g->locked && !agrees(g, ta, tb)) {
                if (++g->contra >= GRID_CONTRA_MAX) {
                    /* The copies moved: start over from this constraint. */
                    g->relocks++;
                    g->n = 0;
                    g->next = 0;
                    g->contra = 0;
                }
            } else {
                g->contra = 0;
            }
            g->ta[g->next] = ta;
            g->tb[g->next] = tb;
            g->next = (uint8_t)((g->next + 1) % FSC_GRID_KEEP);
            if (g->n < FSC_GRID_KEEP)
                g->n++;
            estimate(g, g->locked ? g->phase : mid_of(ta, tb));
        }
    }
    if (g->locked)
        return clamp_into(copy_at_or_before(g, tb), ta, tb);
    /* Nothing known: the copy shown at tb lies within one period before it. */
    int64_t from = tb - p > ta ? tb - p : ta;
    return clamp_into(mid_of(from, tb), ta, tb);
}

/* Contract in copy_grid.h. Reads *g only. */
int64_t fsc_grid_copy_between(const struct fsc_copy_grid *g, int64_t after, int64_t t)
{
    const int64_t p = g->period_ns;
    if (!g->locked || g->half >= p / GRID_VAGUE_DIV / 2)
        return FSC_GRID_NONE;
    const int64_t margin = p / GRID_MARGIN_DIV;
    int64_t c = copy_at_or_before(g, t - margin - g->half);
    if (c - g->half <= after)
        return FSC_GRID_NONE;
    return c;
}

/* Contract in copy_grid.h. Reads *g only. */
int64_t fsc_grid_copy_before(const struct fsc_copy_grid *g, int64_t t)
{
    const int64_t p = g->period_ns;
    if (!g->locked || g->half >= p / GRID_VAGUE_DIV / 2)
        return FSC_GRID_NONE;
    int64_t c = copy_at_or_before(g, t);
    /* That copy certainly at or before t, the next certainly after it. */
    if (c + g->half > t || c + p - g->half <= t)
        return FSC_GRID_NONE;
    return c;
}
