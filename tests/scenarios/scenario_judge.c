/* The judges of a variant (contract in scenario_run.h): what the engine
 * emitted against the truth of the generating formula, by the bounds of
 * docs/ACCURACY.md. */
#include <math.h>
#include <stdlib.h>

#include "engine/rate.h"
#include "scenario_run.h"

/* Sorted doubles' quantile q. */
static int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static void dist_add(struct dist *d, double x)
{
    if (d->n == d->cap)
        d->v = scn_grow(d->v, &d->cap, sizeof(double), &d->oom);
    if (d->n < d->cap)
        d->v[d->n++] = x;
}

double scn_dist_q(struct dist *d, double q)
{
    if (d->n == 0)
        return 0;
    qsort(d->v, d->n, sizeof(double), cmp_d);
    size_t i = (size_t)ceil(q * (double)d->n) - 1;
    return d->v[i < d->n ? i : d->n - 1];
}

/* A window or interval of a port over true times [a, b): its truth. */
static double truth_bytes_rate(const struct scn_case *c, unsigned port, int64_t a, int64_t b)
{
    return (scn_bytes(c, port, b) - scn_bytes(c, port, a)) / ((double)(b - a) / 1e9);
}

/* True spans after a discontinuity (reset, clock step) where windows are
 * rated over their covered part: not judged against whole-window truth. */
static bool near_restart(const struct scn_case *c, unsigned port, int64_t a, int64_t b, int64_t u)
{
    if (c->reset_port == (int)port) {
        int64_t t = SCN_T0 + c->reset_at_ns;
        if (b >= t - u && a <= t + 2 * u)
            return true;
    }
    if (c->step_ns != 0) {
        int64_t t = SCN_T0 + c->step_at_ns;
        if (b >= t - u && a <= t + 2 * u + (c->step_ns < 0 ? -c->step_ns : 0))
            return true;
    }
    return false;
}

/* True spans around a stream restart (readings at a new phase) where the
 * placement bound applies. */
static bool near_stream_restart(const struct scn_case *c, int64_t a, int64_t b, int64_t u)
{
    if (!c->restart)
        return false;
    int64_t t = SCN_T0 + c->restart_at_ns;
    return b >= t - 2 * u && a <= t + 2 * u;
}

/* What a window or fine interval of port p over true [a, e) may be off by
 * (B/s) beyond the 1 % (2 % for fine) of the truth, and whether it is
 * judged at all: the placement bound where the data place values only to
 * within a copy period (straddling copies, a stream restart: one update
 * period of the rate at each edge), a ramp's slope over one update period
 * (the copies lie up to a period before the readings that show them). */
static double placement_allowance(const struct scn_case *c, unsigned p, int64_t a, int64_t e,
                                  int64_t u, double truth)
{
    const double w = (double)(e - a);
    double extra = 0;
    if (c->straddle || near_stream_restart(c, a, e, u))
        extra += 2.0 * (double)u / w * truth;
    if (c->ramp[p])
        extra += fabs(c->truth_slope[p]) * (double)u / 1e9 * 1.25;
    return extra;
}

/* The windows port p can complete after its start (three update periods
 * in, one lost at each end) at width w. */
static size_t possible_windows(const struct scn_case *c, unsigned p, int64_t w)
{
    const int64_t u = scn_update_period(c, p);
    double span = (double)(c->duration_ns - c->offset_ns - 4 * u) / (double)w;
    size_t n = span > 2 ? (size_t)span - 2 : 0;
    /* A stream restart that moves the readings starts a lattice over: the
     * windows it begins in its first learning periods (FSC_RATE_COPY_LEARN)
     * are not emitted, nor the one the restart lies in. */
    if (c->restart && c->copy == SCN_PERIODIC) {
        size_t lost = (size_t)ceil((double)((FSC_RATE_COPY_LEARN + 2) * u) / (double)w) + 1;
        n = n > lost ? n - lost : 0;
    }
    return n;
}

void scn_judge_windows(struct run *r, struct figures *f)
{
    const struct scn_case *c = r->c;
    const double line = scn_line_bytes(c);
    static const int64_t width[2] = {SCN_SEC, 10 * SCN_SEC};
    size_t emitted[2][SCN_MAX_PORTS] = {{0}};
    for (size_t i = 0; i < r->nw; i++) {
        const struct win_rec *w = &r->w[i];
        if (w->level > 1 || w->id >= c->n_ports)
            continue;
        const int64_t u = scn_update_period(c, w->id);
        if (w->rate < 0)
            scn_miss(r, "negative window rate %.6g", w->rate);
        emitted[w->level][w->id]++;
        int64_t e = w->t_end - w->offset, a = e - width[w->level];
        if (a < SCN_T0 + c->offset_ns + 3 * u || near_restart(c, w->id, a, e, u))
            continue;
        double truth = truth_bytes_rate(c, w->id, a, e);
        bool edge = scn_rate_changes(c, w->id, a - 2 * u, a + 2 * u) ||
                    scn_rate_changes(c, w->id, e - 2 * u, e + 2 * u);
        if (!edge && truth > 0.02 * line && !(w->rate > 0))
            scn_miss(r, "port %u window ending %.3f s reads %.6g while it moves (%.6g B/s)", w->id,
                     (double)(e - SCN_T0) / 1e9, w->rate, truth);
        double err = fabs(w->rate - truth);
        if (!edge) {
            double extra = placement_allowance(c, w->id, a, e, u, truth);
            double rel = err / fmax(truth, 0.001 * line);
            dist_add(&f->werr[w->level], rel);
            f->judged[w->level]++;
            if (err > 0.01 * fmax(truth, 0.001 * line) + extra)
                scn_miss(r, "port %u %s window ending %.3f s: %.6g B/s, truth %.6g (%.2f %%)",
                         w->id, w->level ? "10s" : "1s", (double)(e - SCN_T0) / 1e9, w->rate, truth,
                         100 * rel);
        } else {
            /* A rate change within two update periods of an edge: the data
             * cannot place it inside the interval that spans the edge. */
            double pts = err / line;
            f->edge[w->level]++;
            f->edge_max[w->level] = fmax(f->edge_max[w->level], pts);
            double allowed = 0.01 * truth / line + 2.0 * (double)u / (double)width[w->level];
            if (pts > allowed)
                scn_miss(r,
                         "port %u window ending %.3f s at a rate change: off by %.4f of line rate "
                         "(allowed %.4f)",
                         w->id, (double)(e - SCN_T0) / 1e9, pts, allowed);
        }
    }
    struct fsc_engine_stats st;
    fsc_engine_stats_get(r->eng, &st);
    f->relocks = (unsigned)st.copy_relocks;
    for (unsigned l = 0; l < 2; l++) {
        f->withheld[l] = st.windows_withheld[l];
        bool some_withheld = false;
        for (unsigned p = 0; p < c->n_ports; p++) {
            f->emitted[l] += emitted[l][p];
            if (c->expect_withheld[l] && (!scn_port_live(c, p) || c->sample_ns > width[l])) {
                /* Windows shorter than the port's copies or samples. */
                some_withheld = true;
                if (emitted[l][p] != 0)
                    scn_miss(r, "port %u %s windows: expected withheld, %zu emitted", p,
                             l ? "10s" : "1s", emitted[l][p]);
                continue;
            }
            size_t possible = possible_windows(c, p, width[l]);
            size_t want = (size_t)floor(c->min_emitted[l] * (double)possible);
            f->possible[l] += possible;
            if (emitted[l][p] < want)
                scn_miss(r, "port %u %s windows: %zu emitted, at least %zu expected", p,
                         l ? "10s" : "1s", emitted[l][p], want);
        }
        if (some_withheld && st.windows_withheld[l] == 0)
            scn_miss(r, "%s windows: expected withheld, none counted", l ? "10s" : "1s");
        if (!some_withheld && st.windows_withheld[l] != 0)
            scn_miss(r, "%s windows: %llu withheld", l ? "10s" : "1s",
                     (unsigned long long)st.windows_withheld[l]);
    }
}

void scn_judge_fine(struct run *r, struct figures *f)
{
    const struct scn_case *c = r->c;
    const double line = scn_line_bytes(c);
    size_t present[SCN_MAX_PORTS] = {0};
    for (size_t i = 0; i < r->niv; i++) {
        const struct iv_rec *iv = &r->iv[i];
        if (iv->rate < 0)
            scn_miss(r, "negative interval rate %.6g", iv->rate);
        if (iv->id >= c->n_ports || iv->gap)
            continue;
        const int64_t u = scn_update_period(c, iv->id);
        int64_t a = iv->t0 - iv->offset, b = iv->t1 - iv->offset;
        if (a < SCN_T0 + c->offset_ns + 3 * u || near_restart(c, iv->id, a, b, u))
            continue;
        present[iv->id]++;
        double truth = truth_bytes_rate(c, iv->id, a, b);
        if (scn_rate_changes(c, iv->id, a - u, b + u))
            continue; /* the copy a reading shows may lie a period before it */
        if (truth > 0.02 * line && !(iv->rate > 0))
            scn_miss(r, "port %u fine interval %.3f..%.3f s reads %.6g while it moves (%.6g B/s)",
                     iv->id, (double)(a - SCN_T0) / 1e9, (double)(b - SCN_T0) / 1e9, iv->rate,
                     truth);
        if (c->straddle || near_stream_restart(c, a, b, u))
            continue;
        double rel = fabs(iv->rate - truth) / fmax(truth, 0.001 * line);
        double extra = c->ramp[iv->id] ? fabs(c->truth_slope[iv->id]) * (double)u / 1e9 * 1.25 : 0;
        dist_add(&f->ferr, rel);
        if (fabs(iv->rate - truth) > 0.02 * fmax(truth, 0.001 * line) + extra)
            scn_miss(r, "port %u fine interval %.3f..%.3f s: %.6g B/s, truth %.6g (%.2f %%)",
                     iv->id, (double)(a - SCN_T0) / 1e9, (double)(b - SCN_T0) / 1e9, iv->rate,
                     truth, 100 * rel);
    }
    /* A fine rate for (nearly) every update period of a moving port: what
     * is lost is bounded by the case's faults and discontinuities. */
    if (c->straddle)
        return;
    for (unsigned p = 0; p < c->n_ports; p++) {
        if (c->load[p] == 0 && !c->ramp[p])
            continue;
        const int64_t u = scn_update_period(c, p);
        double expected = (double)(c->duration_ns - c->offset_ns - 4 * u) / (double)u;
        size_t allowed_lost = 2 + 3 * (c->n_faults + c->n_flaps + (c->restart ? 1 : 0) +
                                       (c->reset_port == (int)p ? 1 : 0) + (c->step_ns ? 1 : 0));
        if ((double)present[p] + (double)allowed_lost < 0.95 * expected)
            scn_miss(r, "port %u: %zu fine intervals, about %.0f update periods", p, present[p],
                     expected);
    }
}

static double field(const struct fsc_event *ev, enum fsc_event_field_id id)
{
    double v;
    return fsc_event_get(ev, id, &v) ? v : NAN;
}

void scn_judge_bursts(struct run *r, struct figures *f)
{
    const struct scn_case *c = r->c;
    const double u = (double)scn_update_period(c, 0);
    bool matched[SCN_MAX_BURSTS] = {false};
    unsigned found = 0;
    for (size_t i = 0; i < r->nev; i++) {
        const struct fsc_event *ev = &r->ev[i].ev;
        if ((ev->kind != FSC_EV_MICROBURST && ev->kind != FSC_EV_BURST) || ev->phase != FSC_EV_END)
            continue;
        int64_t s = ev->t_start_ns - r->ev[i].offset, e = ev->t_end_ns - r->ev[i].offset;
        size_t hit = SIZE_MAX;
        for (size_t b = 0; b < c->n_bursts && hit == SIZE_MAX; b++) {
            int64_t bs = SCN_T0 + c->bursts[b].at_ns, be = bs + c->bursts[b].len_ns;
            if (c->bursts[b].port == ev->series && s < be + (int64_t)u && e > bs - (int64_t)u)
                hit = b;
        }
        if (c->bursts_invisible || hit == SIZE_MAX) {
            scn_miss(r, "false %s on port %u at %.3f s for %.3f s",
                     ev->kind == FSC_EV_BURST ? "burst" : "microburst", ev->series,
                     (double)(s - SCN_T0) / 1e9, (double)(e - s) / 1e9);
            continue;
        }
        if (matched[hit]) {
            scn_miss(r, "burst %zu reported twice", hit);
            continue;
        }
        matched[hit] = true;
        found++;
        const struct scn_burst *b = &c->bursts[hit];
        double ds = fabs((double)(s - (SCN_T0 + b->at_ns)));
        double dd = fabs((double)(e - s) - (double)b->len_ns);
        double dp = fabs(field(ev, FSC_EF_PEAK_UTILIZATION) - b->util) / b->util;
        double db = fabs(field(ev, FSC_EF_BYTES) - b->truth_bytes) / b->truth_bytes;
        f->burst_start_ms = fmax(f->burst_start_ms, ds / 1e6);
        f->burst_dur_ms = fmax(f->burst_dur_ms, dd / 1e6);
        f->burst_peak = fmax(f->burst_peak, dp);
        f->burst_bytes = fmax(f->burst_bytes, db);
        if (ev->kind != FSC_EV_MICROBURST && b->len_ns < SCN_SEC)
            scn_miss(r, "burst %zu reported as a long burst", hit);
        if (ds > u || dd > u)
            scn_miss(r,
                     "burst %zu: start off by %.1f ms, duration by %.1f ms (update period %.1f ms)",
                     hit, ds / 1e6, dd / 1e6, u / 1e6);
        if (!(dp <= 0.05) || !(db <= 0.05))
            scn_miss(r, "burst %zu: peak %.4f (truth %.4f), bytes %.6g (truth %.6g)", hit,
                     field(ev, FSC_EF_PEAK_UTILIZATION), b->util, field(ev, FSC_EF_BYTES),
                     b->truth_bytes);
    }
    f->bursts_found = found;
    unsigned want = c->bursts_invisible ? 0 : c->expect_microbursts;
    if (found != want)
        scn_miss(r, "%u bursts found, %u expected", found, want);
}

void scn_judge_storms(struct run *r, struct figures *f)
{
    const struct scn_case *c = r->c;
    if (!c->cnp)
        return;
    const double u = (double)scn_update_period(c, 0);
    bool matched[SCN_MAX_STORMS] = {false};
    unsigned found = 0;
    for (size_t i = 0; i < r->nev; i++) {
        const struct fsc_event *ev = &r->ev[i].ev;
        if (ev->kind != FSC_EV_CNP_SPIKE || ev->phase != FSC_EV_END)
            continue;
        int64_t s = ev->t_start_ns - r->ev[i].offset, e = ev->t_end_ns - r->ev[i].offset;
        size_t hit = SIZE_MAX;
        for (size_t k = 0; k < c->n_storms && hit == SIZE_MAX; k++) {
            int64_t bs = SCN_T0 + c->storms[k].at_ns, be = bs + c->storms[k].len_ns;
            if (s < be + (int64_t)u && e > bs - (int64_t)u)
                hit = k;
        }
        if (hit == SIZE_MAX || matched[hit]) {
            scn_miss(r, "false or repeated CNP spike at %.3f s", (double)(s - SCN_T0) / 1e9);
            continue;
        }
        matched[hit] = true;
        found++;
        const struct scn_storm *st = &c->storms[hit];
        double dd = fabs((double)(e - s) - (double)st->len_ns);
        double dp = fabs(field(ev, FSC_EF_PEAK_RATE) - st->rate) / st->rate;
        double dc = fabs(field(ev, FSC_EF_COUNT) - st->truth_count) / st->truth_count;
        double dbase =
            c->cnp_base > 0 ? fabs(field(ev, FSC_EF_BASELINE_RATE) - c->cnp_base) / c->cnp_base : 0;
        f->storm_dur_ms = fmax(f->storm_dur_ms, dd / 1e6);
        f->storm_peak = fmax(f->storm_peak, dp);
        f->storm_count = fmax(f->storm_count, dc);
        f->storm_base = fmax(f->storm_base, dbase);
        if (dd > u)
            scn_miss(r, "storm %zu: duration off by %.1f ms", hit, dd / 1e6);
        if (!(dp <= 0.05) || !(dc <= 0.05) || !(dbase <= 0.05))
            scn_miss(r,
                     "storm %zu: peak %.6g (truth %.6g), count %.6g (truth %.6g), baseline %.6g "
                     "(truth %.6g)",
                     hit, field(ev, FSC_EF_PEAK_RATE), st->rate, field(ev, FSC_EF_COUNT),
                     st->truth_count, field(ev, FSC_EF_BASELINE_RATE), c->cnp_base);
    }
    f->storms_found = found;
    if (found != c->n_storms)
        scn_miss(r, "%u CNP storms found, %zu injected", found, c->n_storms);
}

void scn_judge_counters(struct run *r)
{
    const struct scn_case *c = r->c;
    struct fsc_engine_stats st;
    fsc_engine_stats_get(r->eng, &st);
    if (c->reset_port >= 0 && st.verdicts[FSC_RATE_RESET] != 1)
        scn_miss(r, "%llu resets seen, 1 injected",
                 (unsigned long long)st.verdicts[FSC_RATE_RESET]);
    if (c->reset_port < 0 && st.verdicts[FSC_RATE_RESET] != 0)
        scn_miss(r, "%llu resets seen, none injected",
                 (unsigned long long)st.verdicts[FSC_RATE_RESET]);
    if (c->width == 32 && st.wraps == 0)
        scn_miss(r, "32-bit counters but no wrap unwound");
    if (st.verdicts[FSC_RATE_IMPLAUSIBLE] != 0)
        scn_miss(r, "%llu implausible intervals",
                 (unsigned long long)st.verdicts[FSC_RATE_IMPLAUSIBLE]);
    if (r->lost_events)
        scn_miss(r, "%llu events lost on the bus", (unsigned long long)r->lost_events);
}
