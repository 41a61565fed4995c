/* Runs accuracy cases through the real engine and detectors and judges what
 * they emit against the truth of the generating formula (scenario.h).
 *
 *   scenario_run [--report] CASE.scn...
 *
 * Exit 0 when every variant of every case meets the bounds of
 * tests/scenarios/README.md, 1 when one does not (each miss is printed), 2
 * on a bad case file. --report prints one line of error figures per variant
 * (the numbers docs/ACCURACY.md records). */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/engine.h"
#include "scenario.h"

#define MAX_MISSES 12

struct win_rec {
    fsc_series_id id;
    unsigned level;
    int64_t t_end;  /* device time */
    int64_t offset; /* device minus true time when it was emitted */
    double rate;
};

struct iv_rec {
    fsc_series_id id;
    int64_t t0, t1, offset;
    double rate;
    bool gap;
};

struct ev_rec {
    struct fsc_event ev;
    int64_t offset;
};

struct run {
    const struct scn_case *c;
    struct fsc_engine *eng;
    struct fsc_event_bus *bus;
    struct fsc_event_sub *sub;
    int64_t offset; /* of the samples being ingested */
    struct win_rec *w;
    size_t nw, capw;
    struct iv_rec *iv;
    size_t niv, capiv;
    struct ev_rec *ev;
    size_t nev, capev;
    uint64_t lost_events;
    int oom;
    /* verdict */
    unsigned misses;
    char miss[MAX_MISSES][200];
};

static void *grow(void *p, size_t *cap, size_t elem, int *oom)
{
    size_t ncap = *cap ? *cap * 2 : 1024;
    void *q = realloc(p, ncap * elem);
    if (!q) {
        *oom = 1;
        return p;
    }
    *cap = ncap;
    return q;
}

static void on_window(void *arg, fsc_series_id id, unsigned level, int64_t t_end, double rate,
                      double peak)
{
    struct run *r = arg;
    (void)peak;
    if (r->nw == r->capw)
        r->w = grow(r->w, &r->capw, sizeof(*r->w), &r->oom);
    if (r->nw < r->capw)
        r->w[r->nw++] = (struct win_rec){id, level, t_end, r->offset, rate};
}

static void on_interval(void *arg, fsc_series_id id, const struct fsc_interval *iv)
{
    struct run *r = arg;
    if (getenv("SCN_TRACE") && id == 0)
        fprintf(stderr, "iv %.3f..%.3f rate %.6g gap %d\n", (double)(iv->t0_ns - SCN_T0) / 1e9,
                (double)(iv->t1_ns - SCN_T0) / 1e9, iv->rate, iv->gap);
    if (r->niv == r->capiv)
        r->iv = grow(r->iv, &r->capiv, sizeof(*r->iv), &r->oom);
    if (r->niv < r->capiv)
        r->iv[r->niv++] = (struct iv_rec){id, iv->t0_ns, iv->t1_ns, r->offset, iv->rate, iv->gap};
}

static void poll_events(struct run *r)
{
    struct fsc_event buf[64];
    uint64_t lost = 0;
    size_t n;
    while ((n = fsc_event_poll(r->sub, buf, 64, &lost)) > 0) {
        r->lost_events += lost;
        for (size_t i = 0; i < n; i++) {
            if (r->nev == r->capev)
                r->ev = grow(r->ev, &r->capev, sizeof(*r->ev), &r->oom);
            if (r->nev < r->capev)
                r->ev[r->nev++] = (struct ev_rec){buf[i], r->offset};
        }
    }
    r->lost_events += lost;
}

static void miss(struct run *r, const char *fmt, ...)
{
    if (r->misses < MAX_MISSES) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(r->miss[r->misses], sizeof(r->miss[0]), fmt, ap);
        va_end(ap);
    }
    r->misses++;
}

static double line_bytes(const struct scn_case *c)
{
    return (double)c->speed_bps / 8.0;
}

/* The series' update period as the model makes it (what "one update
 * period" means for the event bounds): the sample interval stretched by
 * its jitter, the copy period, or the refresh the lifespan allows. */
static int64_t update_period(const struct scn_case *c, unsigned port)
{
    double s = (double)c->sample_ns * (1.0 + 2.0 * c->jitter);
    if (c->copy == SCN_PERIODIC && !scn_port_live(c, port) && (double)c->period_ns > s)
        s = (double)c->period_ns;
    if (c->copy == SCN_ON_READ) {
        double need = (double)(c->period_ns + c->jiffy_ns);
        s = ceil(need / (double)c->sample_ns) * (double)c->sample_ns +
            2.0 * c->jitter * (double)c->sample_ns;
    }
    return (int64_t)s;
}

/* The truth written in the case file must be what the formula gives. */
static int check_truth_lines(struct run *r)
{
    const struct scn_case *c = r->c;
    const double line = line_bytes(c);
    int bad = 0;
    for (unsigned p = 0; p < c->n_ports; p++) {
        double want = c->load[p] * line;
        if (fabs(c->truth_rate[p] - want) > 1e-9 * want + 1e-9) {
            miss(r, "case: port %u truth rate %.17g but load x speed / 8 = %.17g", p,
                 c->truth_rate[p], want);
            bad = 1;
        }
    }
    for (unsigned p = 0; p < c->n_ports; p++) {
        if (!c->ramp[p])
            continue;
        double want = (c->ramp_to[p] - c->load[p]) * line / ((double)c->duration_ns / 1e9);
        if (fabs(c->truth_slope[p] - want) > 1e-9 * fabs(want) + 1e-9) {
            miss(r,
                 "case: port %u truth slope %.17g but (to - load) x speed / 8 / duration = %.17g",
                 p, c->truth_slope[p], want);
            bad = 1;
        }
    }
    for (size_t i = 0; i < c->n_bursts; i++) {
        const struct scn_burst *b = &c->bursts[i];
        double want = b->util * line * (double)b->len_ns / 1e9;
        if (fabs(b->truth_bytes - want) > 1e-9 * want) {
            miss(r, "case: burst %zu truth bytes %.17g but util x speed / 8 x length = %.17g", i,
                 b->truth_bytes, want);
            bad = 1;
        }
    }
    for (size_t i = 0; i < c->n_storms; i++) {
        const struct scn_storm *s = &c->storms[i];
        double want = s->rate * (double)s->len_ns / 1e9;
        if (fabs(s->truth_count - want) > 1e-9 * want) {
            miss(r, "case: storm %zu truth count %.17g but rate x length = %.17g", i,
                 s->truth_count, want);
            bad = 1;
        }
    }
    if (c->cnp && fabs(c->truth_cnp_base - c->cnp_base) > 1e-9 * c->cnp_base) {
        miss(r, "case: cnp base truth differs from its rate");
        bad = 1;
    }
    return bad;
}

static struct fsc_traits port_traits(const struct scn_case *c)
{
    struct fsc_traits tr = {.kind = FSC_KIND_COUNTER,
                            .width = (uint8_t)c->width,
                            .unit = FSC_UNIT_BYTES,
                            .signal = FSC_SIG_PORT_BYTES,
                            .direction = FSC_DIR_RX,
                            .scale = 1,
                            .link_speed_bps = c->speed_bps,
                            .nominal_interval_ns = c->sample_ns};
    if (c->copy == SCN_PERIODIC) {
        tr.refresh = FSC_REFRESH_PERIODIC;
        tr.refresh_ns = c->period_ns;
    } else if (c->copy == SCN_ON_READ) {
        tr.refresh = FSC_REFRESH_ON_READ;
        tr.refresh_ns = c->period_ns;
    }
    return tr;
}

/* Generates the samples and feeds them; returns 0 or -1 (engine setup). */
static int drive(struct run *r)
{
    const struct scn_case *c = r->c;
    char err[256];
    struct fsc_engine_config cfg;
    fsc_engine_config_defaults(&cfg);
    r->bus = fsc_event_bus_create(8192);
    r->sub = r->bus ? fsc_event_subscribe(r->bus) : NULL;
    r->eng = r->sub ? fsc_engine_create(&cfg, r->bus, err, sizeof(err)) : NULL;
    if (!r->eng) {
        miss(r, "engine: %s", r->sub ? err : "out of memory");
        return -1;
    }
    struct fsc_engine_observer obs = {.on_interval = on_interval, .on_window = on_window, .arg = r};
    fsc_engine_set_observer(r->eng, &obs);
    struct fsc_traits tp = port_traits(c);
    if (tp.refresh == FSC_REFRESH_PERIODIC)
        tp.copy_group = fsc_engine_copy_group(r->eng, "device", tp.refresh_ns);
    for (unsigned p = 0; p < c->n_ports; p++)
        fsc_engine_set_traits(r->eng, p, &tp);
    if (c->cnp) {
        struct fsc_traits tc = tp;
        tc.unit = FSC_UNIT_NONE;
        tc.signal = FSC_SIG_CNP;
        tc.direction = FSC_DIR_NONE;
        tc.width = 64;
        tc.link_speed_bps = 0;
        fsc_engine_set_traits(r->eng, c->n_ports, &tc);
    }

    struct scn_read *rd;
    size_t n_rd;
    if (scn_feed_build(c, &rd, &n_rd) != 0) {
        miss(r, "feed: out of memory");
        return -1;
    }
    for (size_t i = 0; i < n_rd; i++) {
        r->offset = rd[i].offset;
        if (getenv("SCN_TRACE") && rd[i].n > 0)
            fprintf(stderr, "read %.3f stamp %.3f series %u.. v %llu\n",
                    (double)(rd[i].read - SCN_T0) / 1e9,
                    (double)(rd[i].smp[0].t_dev_ns - SCN_T0) / 1e9, rd[i].smp[0].series,
                    (unsigned long long)rd[i].smp[0].v.u);
        fsc_engine_ingest(r->eng, rd[i].smp, rd[i].n);
        poll_events(r);
    }
    free(rd);
    return 0;
}

/* Sorted doubles' quantile q. */
static int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

struct dist {
    double *v;
    size_t n, cap;
    int oom;
};

static void dist_add(struct dist *d, double x)
{
    if (d->n == d->cap)
        d->v = grow(d->v, &d->cap, sizeof(double), &d->oom);
    if (d->n < d->cap)
        d->v[d->n++] = x;
}

static double dist_q(struct dist *d, double q)
{
    if (d->n == 0)
        return 0;
    qsort(d->v, d->n, sizeof(double), cmp_d);
    size_t i = (size_t)ceil(q * (double)d->n) - 1;
    return d->v[i < d->n ? i : d->n - 1];
}

struct figures {
    size_t judged[2], edge[2];
    struct dist werr[2]; /* relative, steady windows */
    double edge_max[2];  /* edge windows, utilization points */
    size_t emitted[2], possible[2];
    uint64_t withheld[2];
    struct dist ferr; /* fine, steady, relative */
    unsigned bursts_found, storms_found;
    double burst_start_ms, burst_dur_ms, burst_peak, burst_bytes;
    double storm_dur_ms, storm_peak, storm_count, storm_base;
    unsigned relocks;
};

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
    double span = (double)(c->duration_ns - c->offset_ns - 4 * update_period(c, p)) / (double)w;
    return span > 2 ? (size_t)span - 2 : 0;
}

static void judge_windows(struct run *r, struct figures *f)
{
    const struct scn_case *c = r->c;
    const double line = line_bytes(c);
    static const int64_t width[2] = {SCN_SEC, 10 * SCN_SEC};
    size_t emitted[2][SCN_MAX_PORTS] = {{0}};
    for (size_t i = 0; i < r->nw; i++) {
        const struct win_rec *w = &r->w[i];
        if (w->level > 1 || w->id >= c->n_ports)
            continue;
        const int64_t u = update_period(c, w->id);
        if (w->rate < 0)
            miss(r, "negative window rate %.6g", w->rate);
        emitted[w->level][w->id]++;
        int64_t e = w->t_end - w->offset, a = e - width[w->level];
        if (a < SCN_T0 + c->offset_ns + 3 * u || near_restart(c, w->id, a, e, u))
            continue;
        double truth = truth_bytes_rate(c, w->id, a, e);
        bool edge = scn_rate_changes(c, w->id, a - 2 * u, a + 2 * u) ||
                    scn_rate_changes(c, w->id, e - 2 * u, e + 2 * u);
        if (!edge && truth > 0.02 * line && !(w->rate > 0))
            miss(r, "port %u window ending %.3f s reads %.6g while it moves (%.6g B/s)", w->id,
                 (double)(e - SCN_T0) / 1e9, w->rate, truth);
        double err = fabs(w->rate - truth);
        if (!edge) {
            double extra = placement_allowance(c, w->id, a, e, u, truth);
            double rel = err / fmax(truth, 0.001 * line);
            dist_add(&f->werr[w->level], rel);
            f->judged[w->level]++;
            if (err > 0.01 * fmax(truth, 0.001 * line) + extra)
                miss(r, "port %u %s window ending %.3f s: %.6g B/s, truth %.6g (%.2f %%)", w->id,
                     w->level ? "10s" : "1s", (double)(e - SCN_T0) / 1e9, w->rate, truth,
                     100 * rel);
        } else {
            /* A rate change within two update periods of an edge: the data
             * cannot place it inside the interval that spans the edge. */
            double pts = err / line;
            f->edge[w->level]++;
            f->edge_max[w->level] = fmax(f->edge_max[w->level], pts);
            double allowed = 0.01 * truth / line + 2.0 * (double)u / (double)width[w->level];
            if (pts > allowed)
                miss(r,
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
                    miss(r, "port %u %s windows: expected withheld, %zu emitted", p,
                         l ? "10s" : "1s", emitted[l][p]);
                continue;
            }
            size_t possible = possible_windows(c, p, width[l]);
            size_t want = (size_t)floor(c->min_emitted[l] * (double)possible);
            f->possible[l] += possible;
            if (emitted[l][p] < want)
                miss(r, "port %u %s windows: %zu emitted, at least %zu expected", p,
                     l ? "10s" : "1s", emitted[l][p], want);
        }
        if (some_withheld && st.windows_withheld[l] == 0)
            miss(r, "%s windows: expected withheld, none counted", l ? "10s" : "1s");
        if (!some_withheld && st.windows_withheld[l] != 0)
            miss(r, "%s windows: %llu withheld", l ? "10s" : "1s",
                 (unsigned long long)st.windows_withheld[l]);
    }
}

static void judge_fine(struct run *r, struct figures *f)
{
    const struct scn_case *c = r->c;
    const double line = line_bytes(c);
    size_t present[SCN_MAX_PORTS] = {0};
    for (size_t i = 0; i < r->niv; i++) {
        const struct iv_rec *iv = &r->iv[i];
        if (iv->rate < 0)
            miss(r, "negative interval rate %.6g", iv->rate);
        if (iv->id >= c->n_ports || iv->gap)
            continue;
        const int64_t u = update_period(c, iv->id);
        int64_t a = iv->t0 - iv->offset, b = iv->t1 - iv->offset;
        if (a < SCN_T0 + c->offset_ns + 3 * u || near_restart(c, iv->id, a, b, u))
            continue;
        present[iv->id]++;
        double truth = truth_bytes_rate(c, iv->id, a, b);
        if (scn_rate_changes(c, iv->id, a - u, b + u))
            continue; /* the copy a reading shows may lie a period before it */
        if (truth > 0.02 * line && !(iv->rate > 0))
            miss(r, "port %u fine interval %.3f..%.3f s reads %.6g while it moves (%.6g B/s)",
                 iv->id, (double)(a - SCN_T0) / 1e9, (double)(b - SCN_T0) / 1e9, iv->rate, truth);
        if (c->straddle || near_stream_restart(c, a, b, u))
            continue;
        double rel = fabs(iv->rate - truth) / fmax(truth, 0.001 * line);
        double extra = c->ramp[iv->id] ? fabs(c->truth_slope[iv->id]) * (double)u / 1e9 * 1.25 : 0;
        dist_add(&f->ferr, rel);
        if (fabs(iv->rate - truth) > 0.02 * fmax(truth, 0.001 * line) + extra)
            miss(r, "port %u fine interval %.3f..%.3f s: %.6g B/s, truth %.6g (%.2f %%)", iv->id,
                 (double)(a - SCN_T0) / 1e9, (double)(b - SCN_T0) / 1e9, iv->rate, truth,
                 100 * rel);
    }
    /* A fine rate for (nearly) every update period of a moving port: what
     * is lost is bounded by the case's faults and discontinuities. */
    if (c->straddle)
        return;
    for (unsigned p = 0; p < c->n_ports; p++) {
        if (c->load[p] == 0 && !c->ramp[p])
            continue;
        const int64_t u = update_period(c, p);
        double expected = (double)(c->duration_ns - c->offset_ns - 4 * u) / (double)u;
        size_t allowed_lost = 2 + 3 * (c->n_faults + c->n_flaps + (c->restart ? 1 : 0) +
                                       (c->reset_port == (int)p ? 1 : 0) + (c->step_ns ? 1 : 0));
        if ((double)present[p] + (double)allowed_lost < 0.95 * expected)
            miss(r, "port %u: %zu fine intervals, about %.0f update periods", p, present[p],
                 expected);
    }
}

static double field(const struct fsc_event *ev, enum fsc_event_field_id id)
{
    double v;
    return fsc_event_get(ev, id, &v) ? v : NAN;
}

static void judge_bursts(struct run *r, struct figures *f)
{
    const struct scn_case *c = r->c;
    const double u = (double)update_period(c, 0);
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
            miss(r, "false %s on port %u at %.3f s for %.3f s",
                 ev->kind == FSC_EV_BURST ? "burst" : "microburst", ev->series,
                 (double)(s - SCN_T0) / 1e9, (double)(e - s) / 1e9);
            continue;
        }
        if (matched[hit]) {
            miss(r, "burst %zu reported twice", hit);
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
            miss(r, "burst %zu reported as a long burst", hit);
        if (ds > u || dd > u)
            miss(r, "burst %zu: start off by %.1f ms, duration by %.1f ms (update period %.1f ms)",
                 hit, ds / 1e6, dd / 1e6, u / 1e6);
        if (!(dp <= 0.05) || !(db <= 0.05))
            miss(r, "burst %zu: peak %.4f (truth %.4f), bytes %.6g (truth %.6g)", hit,
                 field(ev, FSC_EF_PEAK_UTILIZATION), b->util, field(ev, FSC_EF_BYTES),
                 b->truth_bytes);
    }
    f->bursts_found = found;
    unsigned want = c->bursts_invisible ? 0 : c->expect_microbursts;
    if (found != want)
        miss(r, "%u bursts found, %u expected", found, want);
}

static void judge_storms(struct run *r, struct figures *f)
{
    const struct scn_case *c = r->c;
    if (!c->cnp)
        return;
    const double u = (double)update_period(c, 0);
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
            miss(r, "false or repeated CNP spike at %.3f s", (double)(s - SCN_T0) / 1e9);
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
            miss(r, "storm %zu: duration off by %.1f ms", hit, dd / 1e6);
        if (!(dp <= 0.05) || !(dc <= 0.05) || !(dbase <= 0.05))
            miss(r,
                 "storm %zu: peak %.6g (truth %.6g), count %.6g (truth %.6g), baseline %.6g "
                 "(truth %.6g)",
                 hit, field(ev, FSC_EF_PEAK_RATE), st->rate, field(ev, FSC_EF_COUNT),
                 st->truth_count, field(ev, FSC_EF_BASELINE_RATE), c->cnp_base);
    }
    f->storms_found = found;
    if (found != c->n_storms)
        miss(r, "%u CNP storms found, %zu injected", found, c->n_storms);
}

static void judge_counters(struct run *r)
{
    const struct scn_case *c = r->c;
    struct fsc_engine_stats st;
    fsc_engine_stats_get(r->eng, &st);
    if (c->reset_port >= 0 && st.verdicts[FSC_RATE_RESET] != 1)
        miss(r, "%llu resets seen, 1 injected", (unsigned long long)st.verdicts[FSC_RATE_RESET]);
    if (c->reset_port < 0 && st.verdicts[FSC_RATE_RESET] != 0)
        miss(r, "%llu resets seen, none injected", (unsigned long long)st.verdicts[FSC_RATE_RESET]);
    if (c->width == 32 && st.wraps == 0)
        miss(r, "32-bit counters but no wrap unwound");
    if (st.verdicts[FSC_RATE_IMPLAUSIBLE] != 0)
        miss(r, "%llu implausible intervals",
             (unsigned long long)st.verdicts[FSC_RATE_IMPLAUSIBLE]);
    if (r->lost_events)
        miss(r, "%llu events lost on the bus", (unsigned long long)r->lost_events);
}

static void report_line(const struct scn_case *c, struct figures *f, const struct run *r)
{
    printf("%-58s", c->name);
    for (unsigned l = 0; l < 2; l++) {
        if (c->expect_withheld[l])
            printf(" | %3s withheld %5llu      ", l ? "10s" : "1s",
                   (unsigned long long)f->withheld[l]);
        else
            printf(" | %3s %4zu/%-4zu max %6.3f%% p99 %6.3f%%", l ? "10s" : "1s", f->emitted[l],
                   f->possible[l], 100 * dist_q(&f->werr[l], 1.0), 100 * dist_q(&f->werr[l], 0.99));
    }
    printf(" | fine n=%-6zu max %6.3f%% p99 %6.3f%%", f->ferr.n, 100 * dist_q(&f->ferr, 1.0),
           100 * dist_q(&f->ferr, 0.99));
    if (c->n_bursts)
        printf(" | bursts %u/%u start %.1fms dur %.1fms peak %.2f%% bytes %.2f%%", f->bursts_found,
               c->bursts_invisible ? 0 : c->expect_microbursts, f->burst_start_ms, f->burst_dur_ms,
               100 * f->burst_peak, 100 * f->burst_bytes);
    if (c->n_storms)
        printf(" | storms %u/%zu dur %.1fms peak %.2f%% count %.2f%% base %.2f%%", f->storms_found,
               c->n_storms, f->storm_dur_ms, 100 * f->storm_peak, 100 * f->storm_count,
               100 * f->storm_base);
    printf(" | relocks %u | %s\n", f->relocks, r->misses ? "MISS" : "ok");
}

static void run_free(struct run *r)
{
    fsc_engine_destroy(r->eng);
    fsc_event_unsubscribe(r->sub);
    fsc_event_bus_destroy(r->bus);
    free(r->w);
    free(r->iv);
    free(r->ev);
}

/* One variant: 0 met every bound, 1 not. */
static int run_variant(const struct scn_case *c, bool report)
{
    struct run *r = calloc(1, sizeof(*r));
    struct figures *f = calloc(1, sizeof(*f));
    if (!r || !f) {
        fprintf(stderr, "%s: out of memory\n", c->name);
        free(r);
        free(f);
        return 1;
    }
    r->c = c;
    if (check_truth_lines(r) == 0 && drive(r) == 0) {
        judge_windows(r, f);
        judge_fine(r, f);
        judge_bursts(r, f);
        judge_storms(r, f);
        judge_counters(r);
        if (r->oom || f->ferr.oom || f->werr[0].oom || f->werr[1].oom)
            miss(r, "out of memory while recording");
    }
    if (report)
        report_line(c, f, r);
    for (unsigned i = 0; i < r->misses && i < MAX_MISSES; i++)
        fprintf(report ? stdout : stderr, "  %s: %s\n", c->name, r->miss[i]);
    if (r->misses > MAX_MISSES)
        fprintf(report ? stdout : stderr, "  %s: ... %u more\n", c->name, r->misses - MAX_MISSES);
    int bad = r->misses != 0;
    free(f->werr[0].v);
    free(f->werr[1].v);
    free(f->ferr.v);
    free(f);
    run_free(r);
    free(r);
    return bad;
}

int main(int argc, char **argv)
{
    bool report = false;
    int first = 1;
    if (argc > 1 && strcmp(argv[1], "--report") == 0) {
        report = true;
        first = 2;
    }
    if (first >= argc) {
        fprintf(stderr, "usage: scenario_run [--report] CASE.scn...\n");
        return 2;
    }
    static struct scn_variants vs;
    unsigned variants = 0, failed = 0;
    for (int a = first; a < argc; a++) {
        char err[300];
        if (scn_case_load(argv[a], &vs, err, sizeof(err)) != 0) {
            fprintf(stderr, "%s\n", err);
            return 2;
        }
        for (size_t i = 0; i < vs.n; i++) {
            variants++;
            failed += (unsigned)run_variant(&vs.v[i], report);
        }
    }
    printf("%u variants, %u within bounds, %u missed\n", variants, variants - failed, failed);
    return failed ? 1 : 0;
}
