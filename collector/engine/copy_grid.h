/* A device's counter-copy grid: when a value was true (rate.h rule 5).
 *
 * Some devices do not read their counters when asked. Junos copies the ASIC
 * counters into the telemetry agent's store on a timer, about every 2 s, and
 * streams whatever the last copy held (Juniper, "Guidelines for Specifying
 * Data Reporting Intervals"; PROTOCOLS §2); every counter of the device then
 * changes at the same instants c_k = c_0 + k * P. A sample shows the last copy
 * before it, so a series whose value changed between two of its samples t_a
 * and t_b says: a copy happened in (t_a, t_b]. One such constraint is as wide
 * as the sample interval; the phases that the latest constraints of all the
 * device's series agree on narrow to a few milliseconds (sample jitter moves
 * the constraints around the copy instant), and the engine can put each
 * copy's delta where it belongs: between copy instants, not between the
 * samples that happened to show them. Taking the phase most constraints
 * agree on, rather than the intersection of all, keeps one odd constraint (a
 * late stream, a copy that slipped) from unlocking the grid.
 *
 * Functions over one grid; no locks, no allocation. The engine owns one
 * grid per device copy group (fsc_engine_copy_group) and calls these under
 * its lock from rate.c. */
#ifndef FSC_COPY_GRID_H
#define FSC_COPY_GRID_H

#include <stdbool.h>
#include <stdint.h>

/* No copy known (the grid cannot say). */
#define FSC_GRID_NONE INT64_MIN

/* Distinct constraints the grid keeps: the estimate is the phase most of the
 * latest FSC_GRID_KEEP agree on. */
#define FSC_GRID_KEEP 32
/* Recent copies whose first sighting the grid remembers. */
#define FSC_GRID_SEEN 8

struct fsc_copy_grid {
    int64_t period_ns; /* P, from the series' traits (refresh_ns) */
    int64_t phase;     /* a copy instant (the estimate); copies at phase + kP */
    int64_t target;    /* where the constraints put it; phase slews towards it */
    int64_t half;      /* half the width of the phase range the constraints agree on */
    int64_t origin;    /* copy numbers count periods from here (set when locking) */
    int64_t ta[FSC_GRID_KEEP], tb[FSC_GRID_KEEP]; /* ring of constraints (ta, tb] */
    struct {
        int64_t k;     /* copy number */
        int64_t first; /* the earliest sample of the group that showed it */
    } seen[FSC_GRID_SEEN];
    uint64_t changes; /* constraints offered (value changes of the group's series) */
    uint64_t relocks; /* times the latest constraints contradicted the estimate and
                       * the grid started over from them (a reboot, a new phase) */
    uint8_t n, next;  /* constraints held, next slot of the ring */
    uint8_t contra;   /* consecutive constraints that contradicted the estimate */
    uint8_t locked;   /* phase / half hold an estimate */
    uint8_t epoch;    /* counts the phase's jumps (lock, relock, a move beyond the slew):
                       * copies placed in different epochs are not comparable */
    uint8_t fast;     /* changes seen closer together than copies every P allow */
    uint8_t live;     /* latched: the device's values are live, not copied every P */
    /* Sampled no faster than the copies (rate.c, rate_periodic_coarse): changes
     * one period on since the last straddle (a busy series repeating a period
     * on: a sample just before its copy), and since when. */
    uint32_t calm;
    int64_t calm_from;    /* FSC_GRID_NONE before the first change */
    int64_t sample_phase; /* the device's mean sample instant modulo P (coarse mode) */
    uint32_t samples;     /* samples folded into sample_phase (saturates) */
    uint8_t far;          /* consecutive samples beyond P/4 of the learned lattice */
};

/* Calm changes, and periods, before a coarse device's copies are placed on
 * the lattice of whole periods (fsc_grid_lattice_ok). */
#define FSC_GRID_CALM_CHANGES 64
#define FSC_GRID_CALM_PERIODS 8

/* Changes of one series closer than P / FSC_GRID_FAST_DIV apart (both to
 * the previous sample and to the previous change) that make the grid
 * declare its device live. */
#define FSC_GRID_FAST_DIV   4
#define FSC_GRID_FAST_VOTES 3

/* A fresh, unlocked grid for copies every period_ns (> 0). */
void fsc_grid_init(struct fsc_copy_grid *g, int64_t period_ns);

/* A series of the group changed value between its samples at ta and tb
 * (ta < tb); prev is the copy instant its previous value was placed at
 * (FSC_GRID_NONE: unknown). The next copy after prev lies in (ta, tb], and
 * also within one period of the first sample that showed prev's copy (so a
 * series that repeated for a while narrows it from both sides). Adds that
 * constraint when it is narrower than one period (and not the one just
 * added: the ports of one notification share their timestamps),
 * re-estimates the phase, and returns the estimated instant of the latest
 * copy at or before tb, always in (ta, tb] - or FSC_GRID_NONE when tb lies so
 * close to an estimated copy that the sample may or may not have seen it
 * (only over a change longer than a period): the caller should not use the
 * sample and let the next change, whose span covers both, decide.
 * *unc is how far that instant may be from the truth on top of the grid's
 * steady offset: 0 when the grid placed it (locked and moving by its slew
 * at most, or unlocked with tb - prev a whole number of periods, to 1 %), a
 * period when unlocked otherwise, the width of (ta, tb] when the estimate had
 * to be forced inside it. *epoch gets the grid's epoch: a
 * series whose previous instant has another epoch was placed before a jump.
 * An interval between two instants placed in one epoch has the true
 * copy-to-copy length. */
int64_t fsc_grid_change(struct fsc_copy_grid *g, int64_t ta, int64_t tb, int64_t prev,
                        uint8_t *epoch, int64_t *unc);

/* A series of the group changed at two samples less than P /
 * FSC_GRID_FAST_DIV apart. With copies every P, and samples no sparser than
 * 0.6 P, that cannot happen: a change at t shows a copy at least P after
 * the one its previous value was placed at (within 1.25 sample intervals,
 * the worst jitter of a sample that first showed it). A device whose values
 * are live - a Junos release or a gNMI target that reads counters when it
 * exports them, the simulator without --batch-copy - does it at every
 * sample. After FSC_GRID_FAST_VOTES such changes the grid latches live:
 * its series then take their samples' own timestamps (fsc_rate_update_grid
 * bypasses the grid) and a repeat is idleness, not a stale copy. The latch
 * stays until the engine is rebuilt: a device that starts copying on a
 * timer after that is an upgrade, and a restart takes it. */
void fsc_grid_note_fast(struct fsc_copy_grid *g);

/* Sampled no faster than the copies (nominal interval >= P), a sample shows
 * the copy before it, and jitter decides which one when the copies fall
 * within the jitter of the samples: a busy series then repeats (its sample
 * came just before its copy) and shows two copies at the next sample. When
 * the copies fall well between the samples, every sample of a busy series
 * shows exactly one new copy, and an interval of k periods give or take the
 * jitter is exactly k copy-to-copy periods. fsc_grid_note_calm() counts a
 * change one period (give or take P/4) on, fsc_grid_note_straddle() a busy
 * series' repeat one period on (the calm starts over), and
 * fsc_grid_lattice_ok() says whether FSC_GRID_CALM_CHANGES changes over
 * FSC_GRID_CALM_PERIODS periods have passed since without a straddle: only
 * then are jittered spans placed as whole periods. A straddle-free device
 * cannot turn a copy into two (every double follows a repeat, except from
 * the first sample: the calm's periods cover that). */
void fsc_grid_note_calm(struct fsc_copy_grid *g, int64_t t);
/* Folds a coarse sample at t into the device's mean sample phase (a running
 * circular mean of its first 64 samples, then held: a lattice that moved
 * would move the placed intervals' ends; four samples in a row beyond P/4
 * of it start the learning over). fsc_grid_sample_lattice() returns the
 * lattice point phase + kP nearest to t, or FSC_GRID_NONE before 64 samples
 * (the lattice the copies are placed on: each sample shows the copies of
 * the period before its own lattice point, its jitter aside). */
void fsc_grid_note_sample(struct fsc_copy_grid *g, int64_t t);
int64_t fsc_grid_sample_lattice(const struct fsc_copy_grid *g, int64_t t);
void fsc_grid_note_straddle(struct fsc_copy_grid *g, int64_t t);
bool fsc_grid_lattice_ok(const struct fsc_copy_grid *g, int64_t t);

/* The grid's best guess of the copy a change over (ta, tb] saw, in (ta, tb]
 * (tb when unlocked), for a change fsc_grid_change() could not place but
 * that cannot wait. Reads *g only. */
int64_t fsc_grid_guess(const struct fsc_copy_grid *g, int64_t ta, int64_t tb);

/* The estimated instant of the latest copy that certainly happened after
 * `after` and certainly before a sample taken at t (with a margin for
 * timestamp noise), or FSC_GRID_NONE. A series whose sample at t repeats the
 * value it had at `after` was idle up to that copy. */
int64_t fsc_grid_copy_between(const struct fsc_copy_grid *g, int64_t after, int64_t t);

/* The estimated instant of the copy a sample taken at t shows (the latest
 * copy at or before t), or FSC_GRID_NONE when the grid is not locked or t
 * lies too close to a copy to tell which one. */
int64_t fsc_grid_copy_before(const struct fsc_copy_grid *g, int64_t t);

#endif
