/* Rule 5 for periodic copies (rate.h): when a copied value was true, and
 * whether a series is copied at all.
 *
 * The profile says a device copies its counters every P (Junos' line-card
 * copy); the values say what each series really does. Three facts decide:
 * - A series whose value changes at two consecutive samples less than P/4
 *   apart cannot be behind copies every P: three such changes in a row make
 *   it LIVE (the engine then gives it refresh 0, engine_grids.c).
 * - A series that repeated and then changed at least P/2 after its previous
 *   change behaves as a copy: COPIED (a live series changing at every sample
 *   never repeats while it carries traffic).
 * - Until either shows, the series is LEARNING and read as copied: reading
 *   a copied series as live turns every repeat into a zero and every change
 *   into a spike (the worst outcome: a moving port shown as 0), while reading
 *   a live series as copied only smears a sparse counter's changes over at
 *   most a period.
 *
 * A copied value is placed in one of two ways, by how often it is sampled:
 * - faster than P: the device's copy grid (copy_grid.c) places the copy a
 *   change shows inside (last sample with the old value, first with the
 *   new]; only series that may be copied feed it.
 * - no faster than P: one reading per copy says nothing about where in the
 *   period the copy fell, and a device reporting its ports in batches at
 *   different offsets gives each batch its own reading phase. So each series
 *   keeps its own reading lattice: its anchor is the last lattice point, and
 *   a reading within P/4 of anchor + nP moves it to that point, corrected by
 *   a share of the reading's offset (1/2, 1/3, ... 1/7, then 1/16: a running
 *   mean of the phase, then a slow follower of a drifting export timer). The
 *   jitter of the stamps never reaches the intervals; the copy the readings
 *   show lies at a fixed distance before their lattice, which shifts every
 *   interval alike (exact for steady traffic, within one period of the
 *   rate's change at a window edge otherwise).
 * Either way the interval's rate is its delta over the whole number of
 * copy periods its span is near (copies_span), not over the span.
 *
 * Cadence state lives in st->cadence (rate.h): the class, the live votes
 * and, for lattice series, the readings folded into the lattice so far. */
#include <math.h>
#include <stddef.h>

#include "base/intdiv.h"
#include "engine/rate_int.h"

/* Changes at consecutive samples closer than P / FAST_DIV, this many in a
 * row, make a series live. */
#define FAST_DIV   4
#define LIVE_VOTES 3
/* The lattice's running mean grows to LATTICE_MAX readings; from then on
 * each reading moves it by 1/LATTICE_GAIN_DIV of its offset (a drifting
 * export timer is followed, lagging 16 x its drift per reading; at +-50 ms
 * of uniform stamp noise the lattice point wanders by about 5 ms, 0.07 % of
 * a 10 s window at its two edges). */
#define LATTICE_MAX      7u
#define LATTICE_GAIN_DIV 16
/* A reading more than P / LATTICE_TOL_DIV off its learned lattice point (P/4
 * while the lattice learns its first LATTICE_MAX readings) is no stamping
 * noise (that is tens of ms) but a reading phase that moved (a stream
 * restart), perhaps past a copy: one copy more or less than its span says.
 * It is placed at its stamp, its copies not counted, and the lattice starts
 * over there. */
#define LATTICE_TOL_DIV 6

/* Lattice intervals after a straddling repeat whose copies are not counted
 * (the straddle count shares the live votes' bits: a lattice series never
 * votes). */
#define STRADDLE_SPAN 7u

/* st->cadence: class in bits 0-1, live votes or straddle count in 2-4, the
 * lattice's readings in 5-7. */
#define CAD_CLASS_SHIFT 0
#define CAD_VOTES_SHIFT 2
#define CAD_LAT_SHIFT   5

/* Rules 6-9 (rate_int.h) for a value placed by rule 5, out of line: the
 * body is inlined only into rate.c's hot path. */
static RATE_NOINLINE void copies_interval(struct fsc_rate_state *st, const struct fsc_traits *tr,
                                          const struct fsc_rate_params *params,
                                          const struct fsc_sample *smp, int64_t t_end, double raw,
                                          bool wrapped, int64_t copies_ns, fsc_window_fn on_window,
                                          void *arg, struct fsc_rate_result *res)
{
    rate_interval(st, tr, params, smp, t_end, raw, wrapped, copies_ns, on_window, arg, res);
}

static unsigned cad_votes(const struct fsc_rate_state *st)
{
    return (st->cadence >> CAD_VOTES_SHIFT) & 0x7u;
}

static unsigned cad_lattice(const struct fsc_rate_state *st)
{
    return (st->cadence >> CAD_LAT_SHIFT) & 0x7u;
}

static void cad_set(struct fsc_rate_state *st, enum fsc_cadence cls, unsigned votes,
                    unsigned lattice)
{
    st->cadence =
        (uint8_t)(((unsigned)cls << CAD_CLASS_SHIFT) | ((votes & 0x7u) << CAD_VOTES_SHIFT) |
                  ((lattice & 0x7u) << CAD_LAT_SHIFT));
}

/* Contract in rate.h. */
const char *fsc_cadence_name(enum fsc_cadence c)
{
    switch (c) {
    case FSC_CADENCE_LEARNING:
        return "learning";
    case FSC_CADENCE_LIVE:
        return "live";
    case FSC_CADENCE_COPIED:
        return "copied";
    case FSC_CADENCE__COUNT:
        break;
    }
    return "unknown";
}

/* The time n whole copy periods take when span is within P/4 of n x P
 * (n >= 1): what the delta of a copied interval accrued over. -1 when the
 * span is not near a whole number of periods (how many copies it holds is
 * not determined). */
static int64_t copies_span(int64_t span, int64_t p)
{
    int64_t n = fsc_floor_div(span + p / 2, p);
    int64_t off = span - n * p;
    if (n < 1 || off > p / 4 || off < -p / 4)
        return -1;
    return n * p;
}

/* Sampled no faster than the copies: the series' own reading lattice. */
static bool copies_coarse(const struct fsc_traits *tr)
{
    return tr->nominal_interval_ns > 0 && tr->nominal_interval_ns >= tr->refresh_ns;
}

/* Where a reading at t lies on the series' lattice: the point anchor + nP
 * nearest it, moved by the lattice's share of the reading's offset; *n
 * gets the periods from the anchor. FSC_GRID_NONE when the reading is
 * more than P/6 (P/4 while the lattice learns) off every point at least
 * one period on (a new phase, a re-send, a lattice not yet started). */
static int64_t lattice_place(const struct fsc_rate_state *st, int64_t t, int64_t p, int64_t *n)
{
    const unsigned lat = cad_lattice(st);
    int64_t span = t - st->t_anchor;
    int64_t k = fsc_floor_div(span + p / 2, p);
    int64_t off = span - k * p;
    *n = k;
    /* A young lattice may still be off by a first reading's jitter. */
    const int64_t tol = lat < LATTICE_MAX ? p / 4 : p / LATTICE_TOL_DIV;
    if (lat == 0 || k < 1 || off > tol || off < -tol)
        return FSC_GRID_NONE;
    /* A running mean of the first readings' offsets, then 1/16 of each. */
    return st->t_anchor + k * p + off / (lat < LATTICE_MAX ? (int64_t)(lat + 1) : LATTICE_GAIN_DIV);
}

/* One more reading folded into the lattice (saturating). */
static void lattice_grow(struct fsc_rate_state *st)
{
    unsigned lat = cad_lattice(st);
    cad_set(st, fsc_rate_cadence(st), cad_votes(st), lat < LATTICE_MAX ? lat + 1 : lat);
}

/* The lattice starts over at this reading (anchored at its stamp). */
static void lattice_restart(struct fsc_rate_state *st)
{
    cad_set(st, fsc_rate_cadence(st), cad_votes(st), 1);
}

static void set_busy(struct fsc_rate_state *st, bool busy)
{
    if (busy)
        st->flags |= FSC_RATE_F_BUSY;
    else
        st->flags &= (uint8_t)~FSC_RATE_F_BUSY;
}

static void stale(struct fsc_rate_state *st, int64_t t, enum fsc_rate_verdict v,
                  struct fsc_rate_result *res)
{
    st->t_last = t;
    res->verdict = v;
}

/* Rule 5 for a series sampled no faster than P (nominal interval >= P). */
static void copies_lattice(struct fsc_rate_state *st, const struct fsc_traits *tr,
                           const struct fsc_rate_params *params, struct fsc_copy_grid *grid,
                           const struct fsc_sample *smp, double raw, bool wrapped,
                           fsc_window_fn on_window, void *arg, struct fsc_rate_result *res)
{
    const int64_t t = smp->t_dev_ns, p = tr->refresh_ns;
    const bool changed = raw != 0.0 || wrapped;
    /* A reading that some other series of the device changed at, with the
     * same stamp, was one notification read at one instant: whatever copy
     * it saw, this series saw too, so its repeat is no straddle but a stop. */
    const bool busy = (st->flags & FSC_RATE_F_BUSY) != 0 && grid->lattice_change_t != t;
    if (changed)
        grid->lattice_change_t = t;
    int64_t n;
    int64_t end = lattice_place(st, t, p, &n);
    int64_t copies_ns;
    if (n < 1) {
        /* Under half a period after the anchor: a re-send, a reading of the
         * same copy by a restarted stream. The next reading on the lattice
         * takes its change, if any. */
        stale(st, t, changed ? FSC_RATE_DEFERRED : FSC_RATE_STALE_REPEAT, res);
        return;
    }
    if (!changed && busy && (end == FSC_GRID_NONE || n == 1)) {
        /* A busy series repeating one step on read just before its copy
         * (the copy lies within the readings' jitter): the next change holds
         * two copies - or one, when the next reading is early too. Which,
         * the data cannot say: the next STRADDLE_SPAN intervals are not
         * counted. A series that stopped shows it at the next reading. */
        st->flags &= (uint8_t)~FSC_RATE_F_BUSY;
        cad_set(st, fsc_rate_cadence(st), STRADDLE_SPAN, cad_lattice(st));
        stale(st, t, FSC_RATE_STALE_REPEAT, res);
        return;
    }
    const unsigned straddle = cad_votes(st);
    if (end != FSC_GRID_NONE) {
        copies_ns = straddle > 0 && changed ? -1 : n * p;
        lattice_grow(st);
        if (straddle > 0)
            cad_set(st, fsc_rate_cadence(st), straddle - 1, cad_lattice(st));
    } else {
        /* Off the lattice: placed at its stamp, its copies not counted; the
         * lattice starts over here (a new reading phase persists). */
        end = t;
        copies_ns = changed ? -1 : 0;
        lattice_restart(st);
    }
    copies_interval(st, tr, params, smp, end, raw, wrapped, copies_ns, on_window, arg, res);
    set_busy(st, changed && res->verdict == FSC_RATE_INTERVAL);
}

/* A change of a series sampled faster than P: counts towards LIVE (changed
 * at consecutive samples under P/4 apart) or shows COPIED (changed after a
 * repeat, at least P/2 after the previous change). Returns the new class. */
static enum fsc_cadence learn_change(struct fsc_rate_state *st, int64_t t, int64_t p)
{
    enum fsc_cadence cls = fsc_rate_cadence(st);
    unsigned votes = cad_votes(st);
    const bool busy = (st->flags & FSC_RATE_F_BUSY) != 0;
    if (busy && t - st->t_last < p / FAST_DIV) {
        if (++votes >= LIVE_VOTES)
            cls = FSC_CADENCE_LIVE;
    } else {
        votes = 0;
        if (!busy && t - st->t_anchor >= p / 2 && cls == FSC_CADENCE_LEARNING)
            cls = FSC_CADENCE_COPIED;
    }
    cad_set(st, cls, votes, cad_lattice(st));
    return cls;
}

/* Rule 5 for a repeat of a series sampled faster than P: idle up to the
 * latest copy that surely came after the anchor's own copy (half a period
 * on: the anchor is an estimate) and before this sample; when the grid
 * cannot tell, after stale_factor periods, up to half a period before the
 * sample. */
static void copies_fast_repeat(struct fsc_rate_state *st, const struct fsc_traits *tr,
                               const struct fsc_rate_params *params, struct fsc_copy_grid *grid,
                               const struct fsc_sample *smp, fsc_window_fn on_window, void *arg,
                               struct fsc_rate_result *res)
{
    const int64_t t = smp->t_dev_ns, p = tr->refresh_ns;
    const bool provisional = (st->flags & FSC_RATE_F_PROVISIONAL) != 0;
    int64_t after = provisional ? st->t_anchor : st->t_anchor + p / 2;
    int64_t c = fsc_grid_copy_between(grid, after, t);
    if (c == FSC_GRID_NONE && !grid->locked) {
        /* Unlocked, copies sit at the samples that show them: a repeat a
         * period or more after the anchor surely saw a newer copy, and one
         * a whole number of periods after it keeps that placement. */
        int64_t span = t - st->t_anchor, off = span % p;
        if (span >= p && off <= p / 100)
            c = t;
    }
    if (c == FSC_GRID_NONE &&
        (double)((uint64_t)t - (uint64_t)st->t_anchor) >= params->stale_factor * (double)p)
        c = t - p / 2;
    st->flags &= (uint8_t)~FSC_RATE_F_BUSY;
    if (c == FSC_GRID_NONE || c <= st->t_anchor) {
        stale(st, t, FSC_RATE_STALE_REPEAT, res);
        return;
    }
    if (provisional) {
        rate_restart_at(st, smp, c, false);
        res->verdict = FSC_RATE_BASELINE;
        return;
    }
    /* No change: rate 0 over whatever the span, fine evidence of idleness. */
    copies_interval(st, tr, params, smp, c, 0.0, false, 0, on_window, arg, res);
}

/* Rule 5 for a series sampled faster than P, with its device's grid. */
static void copies_fast(struct fsc_rate_state *st, const struct fsc_traits *tr,
                        const struct fsc_rate_params *params, struct fsc_copy_grid *grid,
                        const struct fsc_sample *smp, double raw, bool wrapped,
                        fsc_window_fn on_window, void *arg, struct fsc_rate_result *res)
{
    const int64_t t = smp->t_dev_ns, p = tr->refresh_ns;
    const bool provisional = (st->flags & FSC_RATE_F_PROVISIONAL) != 0;
    if (raw == 0.0 && !wrapped) {
        copies_fast_repeat(st, tr, params, grid, smp, on_window, arg, res);
        return;
    }
    const bool busy = (st->flags & FSC_RATE_F_BUSY) != 0;
    const enum fsc_cadence cls = learn_change(st, t, p);
    if (cls == FSC_CADENCE_LIVE) {
        /* Live from here: true at this sample. The anchor was placed as a
         * copy; the windows restart rather than mix the two readings. */
        rate_restart_at(st, smp, t, false);
        res->verdict = FSC_RATE_BASELINE;
        return;
    }
    /* Only a series that may be copied moves the grid: one that changes at
     * every sample would place constraints at its own sample phase. */
    const bool learn = cls == FSC_CADENCE_COPIED || !busy;
    bool placed;
    int64_t c = fsc_grid_change(grid, st->t_last, t, provisional ? FSC_GRID_NONE : st->t_anchor,
                                learn, &placed);
    if (c == FSC_GRID_NONE) {
        /* Not used: the next change's span covers this one's copy too -
         * once; a series already waiting one sample (t_last older than 1.5
         * sample intervals) takes the grid's best guess. */
        if ((double)(t - st->t_last) <= 1.5 * (double)tr->nominal_interval_ns) {
            res->verdict = FSC_RATE_DEFERRED;
            return;
        }
        c = fsc_grid_guess(grid, st->t_last, t);
    }
    if (provisional) {
        /* The copy the baseline sample showed, now that the grid may know
         * it; else the baseline starts at this change. */
        int64_t c0 = fsc_grid_copy_before(grid, st->t_anchor);
        if (c0 == FSC_GRID_NONE || c0 >= c) {
            rate_restart_at(st, smp, c, false);
            st->flags |= FSC_RATE_F_BUSY;
            res->verdict = FSC_RATE_BASELINE;
            return;
        }
        st->t_anchor = st->t_base = c0;
        st->flags &= (uint8_t)~FSC_RATE_F_PROVISIONAL;
    }
    copies_interval(st, tr, params, smp, c, raw, wrapped, copies_span(c - st->t_anchor, p),
                    on_window, arg, res);
    set_busy(st, res->verdict == FSC_RATE_INTERVAL);
}

/* Contract in rate_int.h. */
void fsc_rate__copies(struct fsc_rate_state *st, const struct fsc_traits *tr,
                      const struct fsc_rate_params *params, struct fsc_copy_grid *grid,
                      const struct fsc_sample *smp, double raw, bool wrapped,
                      fsc_window_fn on_window, void *arg, struct fsc_rate_result *res)
{
    if (copies_coarse(tr))
        copies_lattice(st, tr, params, grid, smp, raw, wrapped, on_window, arg, res);
    else
        copies_fast(st, tr, params, grid, smp, raw, wrapped, on_window, arg, res);
}

/* Where a restart of a periodic series anchors (below). */
static void copies_restart_at(struct fsc_rate_state *st, const struct fsc_traits *tr,
                              struct fsc_copy_grid *grid, const struct fsc_sample *smp,
                              bool changed)
{
    const int64_t t = smp->t_dev_ns;
    if (copies_coarse(tr)) {
        int64_t n;
        int64_t at = (st->flags & FSC_RATE_F_BASELINE) && changed
                         ? lattice_place(st, t, tr->refresh_ns, &n)
                         : FSC_GRID_NONE;
        if (at != FSC_GRID_NONE) {
            rate_restart_at(st, smp, at, false);
            lattice_grow(st);
        } else {
            rate_restart_at(st, smp, t, false);
            lattice_restart(st);
            st->flags |= FSC_RATE_F_LEARNING;
        }
        return;
    }
    if (changed && t > st->t_last) {
        bool placed;
        int64_t c = fsc_grid_change(grid, st->t_last, t, FSC_GRID_NONE,
                                    fsc_rate_cadence(st) == FSC_CADENCE_COPIED, &placed);
        rate_restart_at(st, smp, c == FSC_GRID_NONE ? t : c, false);
        return;
    }
    int64_t c = fsc_grid_copy_before(grid, t);
    if (c == FSC_GRID_NONE)
        rate_restart_at(st, smp, t, true);
    else
        rate_restart_at(st, smp, c, false);
}

/* Contract in rate_int.h. A lattice series restarts on its lattice when the
 * sample lies on it (a reset does not move the readings), else at its
 * stamp with the lattice started over; a fast series at the copy the grid
 * places, or provisionally at the sample. There the restart sample counts
 * as a change (BUSY): whether the series moves at every sample is not known
 * yet, so its first change neither moves the grid nor shows a copy. (A
 * lattice series' repeat after a busy change is a straddle: its restart is
 * not taken for one.) */
void fsc_rate__copies_restart(struct fsc_rate_state *st, const struct fsc_traits *tr,
                              struct fsc_copy_grid *grid, const struct fsc_sample *smp,
                              bool changed)
{
    copies_restart_at(st, tr, grid, smp, changed);
    if (!copies_coarse(tr))
        st->flags |= FSC_RATE_F_BUSY;
}
