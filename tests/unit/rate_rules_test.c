/* Rate engine rules (collector/engine/rate.c; docs/DESIGN.md,
 * "The rate rules"), one case each:
 * implausible-rate glitches, gaps that are not fine-grained, gauges, the
 * first partial window, the per-interval window cap, double counters and
 * scale, extreme and negative times, names and defaults. The known-answer
 * cases are in rate_test.c; the shared collector is in rate_fixture.h. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "rate_fixture.h"

/* Rule 7: a rate above 1.05 x line rate is a glitch: dropped, the anchor
 * moves on, and no window ever shows it. */
static void implausible_glitch(void)
{
    struct fsc_traits tr = bytes_traits(400000000000ULL, 100 * MS);
    struct fsc_rate_params p;
    fsc_rate_params_defaults(&p);
    struct fsc_rate_state st = {0};
    struct wins *ws = wins_new();
    uint64_t offset = 0;
    for (int k = 0; k <= 60; k++) {
        int64_t t = T0 + k * 100 * MS;
        if (k == 23) /* the counter jumps by 100e9 B (2x line rate in 100 ms) */
            offset = 100000000000ULL;
        uint64_t v = 10 * (uint64_t)(t - T0) + offset; /* 10e9 B/s */
        if (k == 45)                                   /* one bogus sample */
            v += 200000000000ULL;
        struct fsc_rate_result res = feed(&st, &tr, &p, t, v, 0, ws);
        if (k == 23 || k == 45) {
            CHECK_INT(res.verdict, FSC_RATE_IMPLAUSIBLE);
            CHECK_INT(st.t_anchor, t);
            CHECK_INT(st.v_anchor.u, v);
        } else if (k == 46) {
            CHECK_INT(res.verdict, FSC_RATE_RESET); /* back down from the bogus value */
        } else if (k > 0) {
            CHECK_INT(res.verdict, FSC_RATE_INTERVAL);
            CHECK_REL(res.iv.rate, 10e9, 1e-12);
        }
    }
    /* Window [2, 3) restarts at the glitch (2.3 s) and is rated over its
     * trusted 0.7 s; [4, 5) restarts at the reset (4.6 s), only 0.4 s is
     * trusted, so it is not emitted. Every emitted window reads the truth. */
    CHECK_INT(check_level_rates(ws, 0, 10e9, 0.001), 5);

    /* Packets: 84-byte minimum frames bound a 400G link to 625e6 pps x 1.05. */
    struct fsc_traits pk = tr;
    pk.unit = FSC_UNIT_PACKETS;
    st = (struct fsc_rate_state){0};
    feed(&st, &pk, &p, T0, 0, 0, ws);
    struct fsc_rate_result res = feed(&st, &pk, &p, T0 + 100 * MS, 60000000, 0, ws);
    CHECK_INT(res.verdict, FSC_RATE_INTERVAL); /* 600e6 pps */
    res = feed(&st, &pk, &p, T0 + 200 * MS, 60000000 + 65000000, 0, ws);
    CHECK_INT(res.verdict, FSC_RATE_IMPLAUSIBLE); /* 650e6 pps */
    /* Unknown link speed: no bound. */
    struct fsc_traits nolink = bytes_traits(0, 100 * MS);
    st = (struct fsc_rate_state){0};
    feed(&st, &nolink, &p, T0, 0, 0, ws);
    res = feed(&st, &nolink, &p, T0 + 100 * MS, 100000000000ULL, 0, ws);
    CHECK_INT(res.verdict, FSC_RATE_INTERVAL);
    free(ws);
}

/* Rule 8: an interval over 5 x nominal feeds the windows but is no
 * fine-grained evidence: flagged, no window peak, fine_rate -1 (nothing
 * current to show) until the next fine interval. */
static void gap_not_fine(void)
{
    struct fsc_traits tr = bytes_traits(400000000000ULL, 100 * MS);
    struct fsc_rate_params p;
    fsc_rate_params_defaults(&p);
    struct fsc_rate_state st = {0};
    struct wins *ws = wins_new();
    /* 1e9 B/s up to T0 + 10.5 s, then silence until 12.5 s carrying 4e9 B/s
     * on average, then 1e9 B/s again; a 500 ms interval (= 5 x) first. */
    feed(&st, &tr, &p, T0 + 9 * SEC, 0, 0, ws);
    struct fsc_rate_result res = feed(&st, &tr, &p, T0 + 9500 * MS, 500000000, 0, ws);
    CHECK(res.verdict == FSC_RATE_INTERVAL && !res.iv.gap);
    uint64_t v = 500000000;
    for (int64_t t = T0 + 9600 * MS; t <= T0 + 10500 * MS; t += 100 * MS) {
        v += 100000000;
        res = feed(&st, &tr, &p, t, v, 0, ws);
        CHECK(res.verdict == FSC_RATE_INTERVAL && !res.iv.gap);
    }
    v += 8000000000ULL;
    res = feed(&st, &tr, &p, T0 + 12500 * MS, v, 0, ws);
    CHECK_INT(res.verdict, FSC_RATE_INTERVAL);
    CHECK(res.iv.gap);
    CHECK_REL(res.iv.rate, 4e9, 1e-12);
    CHECK(st.fine_rate == -1.0f);
    for (int64_t t = T0 + 12600 * MS; t <= T0 + 14 * SEC; t += 100 * MS) {
        v += 100000000;
        feed(&st, &tr, &p, t, v, 0, ws);
    }
    int seen = 0;
    for (size_t i = 0; i < ws->n; i++) {
        const struct win *w = &ws->w[i];
        if (w->level != 0)
            continue;
        seen++;
        if (w->t_end == T0 + 10 * SEC)
            CHECK(w->rate == 1e9 && w->peak == 1e9);
        if (w->t_end == T0 + 11 * SEC) { /* half at 1e9, half of the gap at 4e9 */
            CHECK_REL(w->rate, 2.5e9, 1e-12);
            CHECK_REL(w->peak, 2.5e9, 1e-12); /* not 4e9: the gap is no evidence */
        }
        if (w->t_end == T0 + 12 * SEC)
            CHECK_REL(w->rate, 4e9, 1e-12);
        if (w->t_end == T0 + 13 * SEC) {
            CHECK_REL(w->rate, 2.5e9, 1e-12);
            CHECK_REL(w->peak, 2.5e9, 1e-12);
        }
        if (w->t_end == T0 + 14 * SEC)
            CHECK(w->rate == 1e9 && w->peak == 1e9);
    }
    CHECK_INT(seen, 5);
    free(ws);
}

/* Gauges keep the last value; order rules apply by timestamp. */
static void gauge_last_value(void)
{
    struct fsc_traits tr = {.kind = FSC_KIND_GAUGE, .unit = FSC_UNIT_BYTES};
    struct fsc_rate_params p;
    fsc_rate_params_defaults(&p);
    struct fsc_rate_state st = {0};
    struct wins *ws = wins_new();
    CHECK_INT(feed(&st, &tr, &p, T0, 500, 0, ws).verdict, FSC_RATE_GAUGE);
    CHECK_INT(feed(&st, &tr, &p, T0 + SEC, 200, 0, ws).verdict, FSC_RATE_GAUGE);
    CHECK_INT(st.v_anchor.u, 200);
    CHECK_INT(feed(&st, &tr, &p, T0 + SEC, 200, 0, ws).verdict, FSC_RATE_DUPLICATE);
    CHECK_INT(feed(&st, &tr, &p, T0 + SEC, 300, 0, ws).verdict, FSC_RATE_OUT_OF_ORDER);
    CHECK_INT(feed(&st, &tr, &p, T0 + 950 * MS, 400, 0, ws).verdict, FSC_RATE_OUT_OF_ORDER);
    CHECK_INT(st.v_anchor.u, 200);
    CHECK_INT(st.t_last, T0 + SEC);
    CHECK_INT(feed(&st, &tr, &p, T0 - 10 * SEC, 900, 0, ws).verdict, FSC_RATE_CLOCK_STEP);
    CHECK_INT(st.v_anchor.u, 900);
    CHECK_INT(st.t_last, T0 - 10 * SEC);
    CHECK_INT(feed_d(&st, &tr, &p, T0 + 2 * SEC, 0.25, ws).verdict, FSC_RATE_GAUGE);
    CHECK(st.v_anchor.d == 0.25 && (st.flags & FSC_RATE_F_F64));
    CHECK_INT(ws->n, 0);
    free(ws);
}

/* The first window after a baseline is rated over its covered part when at
 * least half is covered, and not emitted otherwise. */
static void window_partial_first(void)
{
    struct fsc_traits tr = bytes_traits(400000000000ULL, 100 * MS);
    struct fsc_rate_params p;
    fsc_rate_params_defaults(&p);
    const int64_t starts[3] = {300 * MS, 500 * MS, 600 * MS};
    const int64_t first_end[3] = {T0 + SEC, T0 + SEC, T0 + 2 * SEC};
    for (int i = 0; i < 3; i++) {
        struct fsc_rate_state st = {0};
        struct wins *ws = wins_new();
        for (int64_t t = T0 + starts[i]; t <= T0 + 3 * SEC; t += 100 * MS)
            feed(&st, &tr, &p, t, 3 * (uint64_t)(t - T0), 0, ws);
        CHECK(ws->n >= 2);
        CHECK_INT(ws->w[0].level, 0);
        CHECK_INT(ws->w[0].t_end, first_end[i]);
        CHECK_INT(check_level_rates(ws, 0, 3e9, 1e-12), first_end[i] == T0 + SEC ? 3 : 2);
        CHECK(st.last_window_rate[0] == 3e9f);
        free(ws);
    }
}

/* An interval completing more than 1024 windows of a level emits the first
 * 1024 and continues with the window holding its end. */
static void long_gap_window_cap(void)
{
    struct fsc_traits tr = bytes_traits(400000000000ULL, 200 * MS); /* gap > 1 s */
    struct fsc_rate_params p;
    fsc_rate_params_defaults(&p);
    struct fsc_rate_state st = {0};
    struct wins *ws = wins_new();
    feed(&st, &tr, &p, T0 + 500 * MS, 0, 0, ws);
    /* 2e9 B/s for 2999.75 s */
    uint64_t v = 2 * (uint64_t)(2999750 * MS);
    struct fsc_rate_result res = feed(&st, &tr, &p, T0 + 3000250 * MS, v, 0, ws);
    CHECK(res.verdict == FSC_RATE_INTERVAL && res.iv.gap);
    size_t n[3] = {0, 0, 0};
    int64_t last0 = 0;
    for (size_t i = 0; i < ws->n; i++) {
        n[ws->w[i].level]++;
        CHECK_REL(ws->w[i].rate, 2e9, 1e-9);
        if (ws->w[i].level == 0)
            last0 = ws->w[i].t_end;
    }
    CHECK_INT(n[0], 1024);
    CHECK_INT(last0, T0 + 1024 * SEC);
    CHECK_INT(n[1], 300);
    CHECK_INT(n[2], 50);
    /* The window holding the end, [3000, 3001), has 0.25 s at 2e9 so far;
     * 0.75 s more at 6e9 B/s completes it at (0.5e9 + 4.5e9) / 1 s. */
    ws->n = 0;
    v += 4500000000ULL;
    res = feed(&st, &tr, &p, T0 + 3001 * SEC, v, 0, ws);
    CHECK(res.verdict == FSC_RATE_INTERVAL && !res.iv.gap);
    CHECK_INT(ws->n, 1);
    CHECK_INT(ws->w[0].t_end, T0 + 3001 * SEC);
    CHECK_REL(ws->w[0].rate, 5e9, 1e-9);
    CHECK_REL(ws->w[0].peak, 6e9, 1e-6);
    free(ws);
}

/* Cumulus-style double counters (width 53), scale, and bad doubles. */
static void double_counters_and_scale(void)
{
    struct fsc_traits tr = bytes_traits(400000000000ULL, 100 * MS);
    tr.width = 53;
    struct fsc_rate_params p;
    fsc_rate_params_defaults(&p);
    struct fsc_rate_state st = {0};
    struct wins *ws = wins_new();
    CHECK_INT(feed_d(&st, &tr, &p, T0, 1.5e12, ws).verdict, FSC_RATE_BASELINE);
    struct fsc_rate_result res = feed_d(&st, &tr, &p, T0 + 100 * MS, 1.5e12 + 1e9, ws);
    CHECK_INT(res.verdict, FSC_RATE_INTERVAL);
    CHECK(res.iv.delta == 1e9 && res.iv.rate == 1e10);
    struct fsc_rate_state before = st;
    CHECK_INT(feed_d(&st, &tr, &p, T0 + 200 * MS, NAN, ws).verdict, FSC_RATE_IMPLAUSIBLE);
    CHECK_INT(feed_d(&st, &tr, &p, T0 + 200 * MS, INFINITY, ws).verdict, FSC_RATE_IMPLAUSIBLE);
    CHECK(memcmp(&before, &st, sizeof(st)) == 0);
    res = feed_d(&st, &tr, &p, T0 + 300 * MS, 1.5e12 + 3e9, ws);
    CHECK_INT(res.verdict, FSC_RATE_INTERVAL);
    CHECK(res.iv.rate == 1e10);
    /* Any decrease of a double counter is a reset. */
    CHECK_INT(feed_d(&st, &tr, &p, T0 + 400 * MS, 5.0, ws).verdict, FSC_RATE_RESET);
    /* An integer sample on a double series: the value type changed. */
    CHECK_INT(feed(&st, &tr, &p, T0 + 500 * MS, 10, 0, ws).verdict, FSC_RATE_RESET);
    CHECK(!(st.flags & FSC_RATE_F_F64));
    res = feed(&st, &tr, &p, T0 + 600 * MS, 10 + 1000000000ULL, 0, ws);
    CHECK(res.verdict == FSC_RATE_INTERVAL && res.iv.rate == 1e10);

    /* A 32-bit counter carried as double wraps like an integer one. */
    struct fsc_traits d32 = {.kind = FSC_KIND_COUNTER, .width = 32};
    st = (struct fsc_rate_state){0};
    feed_d(&st, &d32, &p, T0, 4294967000.0, ws);
    res = feed_d(&st, &d32, &p, T0 + SEC, 200.0, ws);
    CHECK(res.verdict == FSC_RATE_INTERVAL && res.iv.wrapped && res.iv.delta == 496.0);

    /* Scale: InfiniBand port_xmit_data counts 4-byte words. */
    struct fsc_traits ib = bytes_traits(400000000000ULL, 100 * MS);
    ib.scale = 4;
    st = (struct fsc_rate_state){0};
    feed(&st, &ib, &p, T0, 1000, 0, ws);
    res = feed(&st, &ib, &p, T0 + 100 * MS, 1000 + 250000000ULL, 0, ws);
    CHECK(res.verdict == FSC_RATE_INTERVAL && res.iv.delta == 1e9 && res.iv.rate == 1e10);
    /* 12.5e9 raw words/s is 50e9 B/s: at line rate, fine; 15e9 is not. */
    res = feed(&st, &ib, &p, T0 + 200 * MS, 1000 + 250000000ULL + 1250000000ULL, 0, ws);
    CHECK_INT(res.verdict, FSC_RATE_INTERVAL);
    res = feed(&st, &ib, &p, T0 + 300 * MS, 1000 + 1500000000ULL + 1500000000ULL, 0, ws);
    CHECK_INT(res.verdict, FSC_RATE_IMPLAUSIBLE);
    free(ws);
}

/* Window edges by floor division: right around 0, for negative times, and
 * with no overflow at both ends of the int64_t range (run under UBSan). */
static void extreme_times(void)
{
    struct fsc_traits tr = bytes_traits(400000000000ULL, 100 * MS);
    struct fsc_rate_params p;
    fsc_rate_params_defaults(&p);
    struct fsc_rate_state st = {0};
    struct wins *ws = wins_new();
    for (int64_t t = -1550 * MS; t <= 1450 * MS; t += 100 * MS)
        feed(&st, &tr, &p, t, 5 * (uint64_t)(t + 2 * SEC), 0, ws);
    CHECK_INT(ws->n, 3);
    for (size_t i = 0; i < ws->n && i < 3; i++) {
        CHECK_INT(ws->w[i].t_end, ((int64_t)i - 1) * SEC);
        CHECK_REL(ws->w[i].rate, 5e9, 1e-12);
    }

    const int64_t ends[2] = {INT64_MIN + 50 * MS, INT64_MAX - 3050 * MS};
    for (int e = 0; e < 2; e++) {
        st = (struct fsc_rate_state){0};
        ws->n = 0;
        uint64_t v = 0;
        for (int k = 0; k <= 30; k++) {
            struct fsc_rate_result res = feed(&st, &tr, &p, ends[e] + k * 100 * MS, v, 0, ws);
            CHECK_INT(res.verdict, k == 0 ? FSC_RATE_BASELINE : FSC_RATE_INTERVAL);
            v += 500000000;
        }
        CHECK(ws->n >= 2);
        for (size_t i = 0; i < ws->n; i++) {
            CHECK_INT(ws->w[i].t_end % SEC, 0);
            CHECK_REL(ws->w[i].rate, 5e9, 1e-9);
        }
    }
    free(ws);
}

static void names_and_defaults(void)
{
    static const char *const want[FSC_RATE__COUNT] = {
        "baseline",   "interval", "stale_repeat", "duplicate", "out_of_order",
        "clock_step", "reset",    "implausible",  "gauge",     "deferred",
    };
    for (int v = 0; v < FSC_RATE__COUNT; v++)
        CHECK_STR(fsc_rate_verdict_name((enum fsc_rate_verdict)v), want[v]);
    CHECK_STR(fsc_rate_verdict_name(FSC_RATE__COUNT), "unknown");
    struct fsc_rate_params p;
    memset(&p, 0xff, sizeof(p));
    fsc_rate_params_defaults(&p);
    CHECK_INT(p.n_windows, 3);
    CHECK_INT(p.window_ns[0], SEC);
    CHECK_INT(p.window_ns[1], 10 * SEC);
    CHECK_INT(p.window_ns[2], 60 * SEC);
    CHECK(p.max_gap_factor == 5.0 && p.plausibility_factor == 1.05 && p.stale_factor == 1.5);
    CHECK_INT(p.clock_step_ns, SEC);
}

/* Reset evidence on a sample rule 3 drops (a re-sent value with the
 * notification's clear flag, an out-of-order one) is not lost: the next
 * accepted sample restarts the baseline instead of rating across the clear
 * (1100 -> 5000 would read 3900 units of traffic that never were). */
static void reset_evidence_on_dropped_sample(void)
{
    struct fsc_rate_params p;
    fsc_rate_params_defaults(&p);
    struct fsc_traits tr = bytes_traits(0, 100 * MS);
    struct fsc_rate_state st;
    memset(&st, 0, sizeof(st));
    struct wins *ws = wins_new();
    CHECK_INT(feed(&st, &tr, &p, T0, 1000, 0, ws).verdict, FSC_RATE_BASELINE);
    CHECK_INT(feed(&st, &tr, &p, T0 + 100 * MS, 1100, 0, ws).verdict, FSC_RATE_INTERVAL);
    CHECK_INT(feed(&st, &tr, &p, T0 + 100 * MS, 1100, FSC_SMP_RESET, ws).verdict,
              FSC_RATE_DUPLICATE);
    CHECK_INT(feed(&st, &tr, &p, T0 + 50 * MS, 7, FSC_SMP_RESET, ws).verdict,
              FSC_RATE_OUT_OF_ORDER);
    CHECK_INT(feed(&st, &tr, &p, T0 + 200 * MS, 5000, 0, ws).verdict, FSC_RATE_RESET);
    struct fsc_rate_result res = feed(&st, &tr, &p, T0 + 300 * MS, 5100, 0, ws);
    CHECK_INT(res.verdict, FSC_RATE_INTERVAL);
    CHECK_REL(res.iv.rate, 1000.0, 1e-12); /* 100 units in 100 ms */
    free(ws);
}

TEST_MAIN(TEST(implausible_glitch), TEST(gap_not_fine), TEST(gauge_last_value),
          TEST(window_partial_first), TEST(long_gap_window_cap), TEST(double_counters_and_scale),
          TEST(extreme_times), TEST(names_and_defaults), TEST(reset_evidence_on_dropped_sample))
