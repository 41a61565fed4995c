/* The rate math's private interface between rate.c (rules 1-4 and 6-9, the
 * hot path) and rate_copies.c (rule 5 for periodic copies). Not for use
 * outside collector/engine. */
#ifndef FSC_RATE_INT_H
#define FSC_RATE_INT_H

#include <stdbool.h>
#include <stdint.h>

#include "engine/copy_grid.h"
#include "engine/rate.h"

/* Starts a new baseline at smp's value, true from t_anchor; provisional
 * marks an anchor that is a sample time standing in for an unknown copy
 * instant (rule 5). Drops the windows in progress; keeps st->cadence and
 * the last window and fine rates. */
void fsc_rate__restart_at(struct fsc_rate_state *st, const struct fsc_sample *smp, int64_t t_anchor,
                          bool provisional);

/* Rules 6-9 for an interval from st->t_anchor to t_end, raw units apart
 * (wrapped: a 32-bit wrap was unwound). copies_ns: the time the delta
 * accrued over when it is not the placed span (n copy periods), 0 when it
 * is the span, negative when it is not determined (the interval is then no
 * fine evidence). Fills *res; moves the anchor to t_end, t_last to smp. */
void fsc_rate__interval(struct fsc_rate_state *st, const struct fsc_traits *tr,
                        const struct fsc_rate_params *params, const struct fsc_sample *smp,
                        int64_t t_end, double raw, bool wrapped, int64_t copies_ns,
                        fsc_window_fn on_window, void *arg, struct fsc_rate_result *res);

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
