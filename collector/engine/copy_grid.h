/* A device's counter-copy grid: when a value was true (rate.h rule 5).
 *
 * Some devices do not read their counters when asked. Junos copies the ASIC
 * counters into the telemetry agent's store on a timer, about every 2 s, and
 * streams whatever the last copy held (Juniper, "Guidelines for Specifying
 * Data Reporting Intervals"); every counter of the device then
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
 * Only series sampled faster than the copies feed and read a grid; a series
 * sampled no faster than P places its copies on its own reading lattice
 * (rate_copies.c), since one reading per copy says nothing about where in
 * the period the copy fell.
 *
 * Functions over one grid; no locks, no allocation. The engine owns one
 * grid per device copy group (fsc_engine_copy_group) and calls these under
 * its lock from rate_copies.c. */
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
    /* The stamp of the last reading at which a series sampled no faster
     * than the copies changed (rate_copies.c: a repeat in the same
     * notification is a stop, not a read that came before its copy). */
    int64_t lattice_change_t;
};

/* A fresh, unlocked grid for copies every period_ns (> 0). */
void fsc_grid_init(struct fsc_copy_grid *g, int64_t period_ns);

/* A series of the group changed value between its samples at ta and tb
 * (ta < tb); prev is the copy instant its previous value was placed at
 * (FSC_GRID_NONE: unknown). The next copy after prev lies in (ta, tb], and
 * also within one period of the first sample that showed prev's copy (so a
 * series that repeated for a while narrows it from both sides). With learn,
 * adds that constraint when it is narrower than one period (and not the
 * one just added: the ports of one notification share their timestamps)
 * and re-estimates the phase; without, only reads the estimate (a series
 * that may be live must not move the grid). Returns the estimated instant
 * of the latest copy at or before tb, always in (ta, tb] - or FSC_GRID_NONE
 * when tb lies so close to an estimated copy that the sample may or may
 * not have seen it (only over a change longer than a period): the caller
 * should not use the sample and let the next change, whose span covers
 * both, decide. Unlocked, the copy is placed at tb (the sample that showed
 * it). *placed says whether the instant is the grid's (locked, not forced
 * into (ta, tb] by more than the slew). */
int64_t fsc_grid_change(struct fsc_copy_grid *g, int64_t ta, int64_t tb, int64_t prev, bool learn,
                        bool *placed);

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
