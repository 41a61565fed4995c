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

#include "scenario_run.h"

void *scn_grow(void *p, size_t *cap, size_t elem, int *oom)
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
        r->w = scn_grow(r->w, &r->capw, sizeof(*r->w), &r->oom);
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
        r->iv = scn_grow(r->iv, &r->capiv, sizeof(*r->iv), &r->oom);
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
                r->ev = scn_grow(r->ev, &r->capev, sizeof(*r->ev), &r->oom);
            if (r->nev < r->capev)
                r->ev[r->nev++] = (struct ev_rec){buf[i], r->offset};
        }
    }
    r->lost_events += lost;
}

void scn_miss(struct run *r, const char *fmt, ...)
{
    if (r->misses < MAX_MISSES) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(r->miss[r->misses], sizeof(r->miss[0]), fmt, ap);
        va_end(ap);
    }
    r->misses++;
}

/* The series' update period as the model makes it (what "one update
 * period" means for the event bounds): the sample interval stretched by
 * its jitter, the copy period, or the refresh the lifespan allows. */
int64_t scn_update_period(const struct scn_case *c, unsigned port)
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
    const double line = scn_line_bytes(c);
    int bad = 0;
    for (unsigned p = 0; p < c->n_ports; p++) {
        double want = c->load[p] * line;
        if (fabs(c->truth_rate[p] - want) > 1e-9 * want + 1e-9) {
            scn_miss(r, "case: port %u truth rate %.17g but load x speed / 8 = %.17g", p,
                     c->truth_rate[p], want);
            bad = 1;
        }
    }
    for (unsigned p = 0; p < c->n_ports; p++) {
        if (!c->ramp[p])
            continue;
        double want = (c->ramp_to[p] - c->load[p]) * line / ((double)c->duration_ns / 1e9);
        if (fabs(c->truth_slope[p] - want) > 1e-9 * fabs(want) + 1e-9) {
            scn_miss(
                r, "case: port %u truth slope %.17g but (to - load) x speed / 8 / duration = %.17g",
                p, c->truth_slope[p], want);
            bad = 1;
        }
    }
    for (size_t i = 0; i < c->n_bursts; i++) {
        const struct scn_burst *b = &c->bursts[i];
        double want = b->util * line * (double)b->len_ns / 1e9;
        if (fabs(b->truth_bytes - want) > 1e-9 * want) {
            scn_miss(r, "case: burst %zu truth bytes %.17g but util x speed / 8 x length = %.17g",
                     i, b->truth_bytes, want);
            bad = 1;
        }
    }
    for (size_t i = 0; i < c->n_storms; i++) {
        const struct scn_storm *s = &c->storms[i];
        double want = s->rate * (double)s->len_ns / 1e9;
        if (fabs(s->truth_count - want) > 1e-9 * want) {
            scn_miss(r, "case: storm %zu truth count %.17g but rate x length = %.17g", i,
                     s->truth_count, want);
            bad = 1;
        }
    }
    if (c->cnp && fabs(c->truth_cnp_base - c->cnp_base) > 1e-9 * c->cnp_base) {
        scn_miss(r, "case: cnp base truth differs from its rate");
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
        scn_miss(r, "engine: %s", r->sub ? err : "out of memory");
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
        scn_miss(r, "feed: out of memory");
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

static void report_line(const struct scn_case *c, struct figures *f, const struct run *r)
{
    printf("%-58s", c->name);
    for (unsigned l = 0; l < 2; l++) {
        if (c->expect_withheld[l])
            printf(" | %3s withheld %5llu      ", l ? "10s" : "1s",
                   (unsigned long long)f->withheld[l]);
        else
            printf(" | %3s %4zu/%-4zu max %6.3f%% p99 %6.3f%%", l ? "10s" : "1s", f->emitted[l],
                   f->possible[l], 100 * scn_dist_q(&f->werr[l], 1.0),
                   100 * scn_dist_q(&f->werr[l], 0.99));
    }
    printf(" | fine n=%-6zu max %6.3f%% p99 %6.3f%%", f->ferr.n, 100 * scn_dist_q(&f->ferr, 1.0),
           100 * scn_dist_q(&f->ferr, 0.99));
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
        scn_judge_windows(r, f);
        scn_judge_fine(r, f);
        scn_judge_bursts(r, f);
        scn_judge_storms(r, f);
        scn_judge_counters(r);
        if (r->oom || f->ferr.oom || f->werr[0].oom || f->werr[1].oom)
            scn_miss(r, "out of memory while recording");
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
