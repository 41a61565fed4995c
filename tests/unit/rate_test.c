/* Known-answer tests for the rate engine (collector/engine/rate.c;
 * docs/DESIGN.md, "The rate rules"): timestamp jitter, batched counter copies,
 * a 32-bit wrap and a 64-bit reset, duplicates and clock steps, and a 400G
 * burst through the windows.
 *
 * Every case drives fsc_rate_update() directly with synthetic counters whose
 * true value is known at every device time, and a small collector
 * (rate_fixture.h) records the aligned windows it emits. The individual rules
 * (glitches, gaps, gauges, partial and capped windows, doubles, extreme
 * times, names) are tested in rate_rules_test.c. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "rate_fixture.h"

/* 1. Constant 200 Gb/s (25e9 B/s) on 400G, sampled every 100 ms with +-30 %
 * jitter; the counter follows device time exactly (25 bytes per ns). */
static void jitter_200g(void)
{
    struct fsc_traits tr = bytes_traits(400000000000ULL, 100 * MS);
    struct fsc_rate_params p;
    fsc_rate_params_defaults(&p);
    struct fsc_rate_state st = {0};
    struct wins *ws = wins_new();
    uint64_t seed = 42;
    double worst_naive = 0.0;
    int intervals = 0;
    for (int k = 0; k <= 300; k++) {
        int64_t jitter = (int64_t)(splitmix_next(&seed) % (uint64_t)(60 * MS + 1)) - 30 * MS;
        int64_t t = T0 + 37 * MS + k * 100 * MS + jitter;
        uint64_t v = 1000 + 25 * (uint64_t)(t - T0);
        struct fsc_rate_result res = feed(&st, &tr, &p, t, v, 0, ws);
        if (k == 0) {
            CHECK_INT(res.verdict, FSC_RATE_BASELINE);
            continue;
        }
        CHECK_INT(res.verdict, FSC_RATE_INTERVAL);
        CHECK(!res.iv.gap);
        /* Device-time division is exact; the naive "delta / nominal" is not. */
        CHECK_REL(res.iv.rate, 25e9, 1e-9);
        double naive = res.iv.delta / 0.1;
        double err = fabs(naive - 25e9) / 25e9;
        worst_naive = err > worst_naive ? err : worst_naive;
        intervals++;
    }
    CHECK_INT(intervals, 300);
    CHECK(worst_naive > 0.10);
    size_t n1 = check_level_rates(ws, 0, 25e9, 0.001);
    CHECK(n1 >= 20);
    CHECK(check_level_rates(ws, 1, 25e9, 0.001) >= 2);
    CHECK_INT(ws->overflow, 0);
    free(ws);
}

/* Junos-style batching: the ASIC counter (10e9 B/s) is copied at 0.3 s + 2k s,
 * exported every 1 s stamped with the export time. Returns the exported value
 * at export time t; the counter stops at `stop` (INT64_MAX: never). */
static uint64_t batched_value(int64_t t, int64_t stop)
{
    int64_t copy = T0 + 300 * MS + ((t - T0 - 300 * MS) / (2 * SEC)) * 2 * SEC;
    int64_t moving = copy < stop ? copy : stop;
    return 5000 + 10 * (uint64_t)(moving - T0);
}

/* 2. A counter copied every 2 s but exported every 1 s reads flat. */
static void batched_copies_flat(void)
{
    struct fsc_traits tr = bytes_traits(400000000000ULL, SEC);
    tr.refresh_ns = 2 * SEC;
    struct fsc_rate_params p;
    fsc_rate_params_defaults(&p);
    /* The series updates every 2 s: 1 s windows would not be determined
     * (rule 9, checked at the end); 2 s windows are. */
    p.window_ns[0] = 2 * SEC;
    struct fsc_rate_state st = {0};
    struct wins *ws = wins_new();
    int zeros = 0, doubles = 0, stale = 0;
    uint64_t prev = 0;
    for (int k = 1; k <= 40; k++) {
        int64_t t = T0 + k * SEC;
        uint64_t v = batched_value(t, INT64_MAX);
        struct fsc_rate_result res = feed(&st, &tr, &p, t, v, 0, ws);
        if (k == 1) {
            CHECK_INT(res.verdict, FSC_RATE_BASELINE);
        } else {
            /* The naive per-sample rate alternates 0 and 2x. */
            double naive = (double)(v - prev) / 1.0;
            if (naive == 0.0)
                zeros++;
            else if (fabs(naive - 20e9) < 1.0)
                doubles++;
            if (res.verdict == FSC_RATE_STALE_REPEAT)
                stale++;
            else
                CHECK_REL(res.iv.rate, 10e9, 1e-9);
        }
        prev = v;
    }
    CHECK(zeros >= 15 && doubles >= 15 && zeros + doubles == 39);
    CHECK_INT(stale, 20);
    size_t n = 0;
    for (size_t i = 0; i < ws->n; i++) {
        if (ws->w[i].level != 0)
            continue;
        n++;
        CHECK_REL(ws->w[i].rate, 10e9, 0.01);
        CHECK(ws->w[i].rate > 5e9 && ws->w[i].rate < 15e9);
    }
    CHECK(n >= 19);

    /* Variant: the counter stops at T0 + 21 s (true idleness). Repeats within
     * 1.5 x refresh stay pending; the one at 3 s past the anchor becomes a
     * zero-delta anchor and the windows fall to 0. */
    struct fsc_rate_state idle = {0};
    struct wins *wi = wins_new();
    const int64_t stop = T0 + 21 * SEC;
    for (int k = 1; k <= 40; k++) {
        int64_t t = T0 + k * SEC;
        struct fsc_rate_result res = feed(&idle, &tr, &p, t, batched_value(t, stop), 0, wi);
        if (k == 24 || k == 25)
            CHECK_INT(res.verdict, FSC_RATE_STALE_REPEAT);
        if (k == 26) {
            CHECK_INT(res.verdict, FSC_RATE_INTERVAL);
            CHECK_INT(res.iv.t0_ns, T0 + 23 * SEC);
            CHECK(res.iv.delta == 0.0 && res.iv.rate == 0.0);
        }
    }
    size_t busy = 0, quiet = 0;
    for (size_t i = 0; i < wi->n; i++) {
        if (wi->w[i].level != 0)
            continue;
        if (wi->w[i].t_end <= stop) {
            busy++;
            CHECK_REL(wi->w[i].rate, 10e9, 0.01);
        } else if (wi->w[i].t_end >= T0 + 26 * SEC) {
            quiet++;
            CHECK(wi->w[i].rate == 0.0);
        }
    }
    CHECK_INT(busy, 10);
    CHECK(quiet >= 5);

    /* With the default 1 s windows nothing of level 0 is emitted: each one
     * the intervals complete is counted as withheld instead. */
    struct fsc_rate_params p1;
    fsc_rate_params_defaults(&p1);
    struct fsc_rate_state s1 = {0};
    struct wins *w1 = wins_new();
    unsigned withheld = 0;
    for (int k = 1; k <= 40; k++) {
        int64_t t = T0 + k * SEC;
        struct fsc_rate_result res = feed(&s1, &tr, &p1, t, batched_value(t, INT64_MAX), 0, w1);
        withheld += res.withheld[0];
        CHECK_INT(res.withheld[1], 0);
    }
    size_t level0 = 0;
    for (size_t i = 0; i < w1->n; i++)
        level0 += w1->w[i].level == 0;
    CHECK_INT(level0, 0);
    CHECK_INT(withheld, 38); /* 1 s edges T0+2 s .. T0+39 s, each reached once */
    free(w1);

    /* refresh_ns 0: the device refreshes on every read, a repeat is idleness. */
    struct fsc_traits fresh = bytes_traits(400000000000ULL, SEC);
    struct fsc_rate_state st0 = {0};
    feed(&st0, &fresh, &p, T0 + SEC, 777, 0, wi);
    struct fsc_rate_result res = feed(&st0, &fresh, &p, T0 + 2 * SEC, 777, 0, wi);
    CHECK_INT(res.verdict, FSC_RATE_INTERVAL);
    CHECK(res.iv.rate == 0.0);
    free(ws);
    free(wi);
}

/* 3. 32-bit wraps are unwound when plausible; 64-bit decreases and explicit
 * evidence are resets with no interval and no spike. */
static void wrap32_and_reset64(void)
{
    struct fsc_rate_params p;
    fsc_rate_params_defaults(&p);
    struct wins *ws = wins_new();

    /* out_of_sequence: unit NONE, width 32, no link speed. */
    struct fsc_traits oos = {.kind = FSC_KIND_COUNTER, .width = 32, .unit = FSC_UNIT_NONE};
    struct fsc_rate_state st = {0};
    feed(&st, &oos, &p, T0, (UINT64_C(1) << 32) - 1000, 0, ws);
    struct fsc_rate_result res = feed(&st, &oos, &p, T0 + 100 * MS, 500, 0, ws);
    CHECK_INT(res.verdict, FSC_RATE_INTERVAL);
    CHECK(res.iv.wrapped);
    CHECK(res.iv.delta == 1500.0);
    CHECK_REL(res.iv.rate, 15000.0, 1e-12);
    /* Without a line-rate bound a wrapped delta of 2^31 or more is a reset:
     * 500 -> 100 would be 2^32 - 400 events. */
    res = feed(&st, &oos, &p, T0 + 200 * MS, 100, 0, ws);
    CHECK_INT(res.verdict, FSC_RATE_RESET);
    CHECK(!res.iv.wrapped);
    res = feed(&st, &oos, &p, T0 + 300 * MS, 130, 0, ws);
    CHECK_INT(res.verdict, FSC_RATE_INTERVAL);
    CHECK(res.iv.delta == 30.0);

    /* 64-bit byte counter: device reload at T0 + 5.5 s, 9e12 -> 1000. */
    struct fsc_traits tr = bytes_traits(400000000000ULL, 100 * MS);
    st = (struct fsc_rate_state){0};
    ws->n = 0;
    int resets = 0;
    for (int k = 0; k <= 100; k++) {
        int64_t t = T0 + k * 100 * MS;
        uint64_t v = k <= 54 ? 9000000000000ULL - 10 * (uint64_t)(T0 + 5400 * MS - t)
                             : 1000 + 10 * (uint64_t)(t - (T0 + 5500 * MS));
        size_t before = ws->n;
        res = feed(&st, &tr, &p, t, v, 0, ws);
        if (res.verdict == FSC_RATE_RESET) {
            resets++;
            CHECK_INT(k, 55);
            CHECK_INT(ws->n, before);
            CHECK(res.iv.delta == 0.0 && res.iv.t1_ns == 0);
        } else if (k == 56) {
            CHECK_INT(res.verdict, FSC_RATE_INTERVAL);
            CHECK_REL(res.iv.rate, 10e9, 1e-12);
        }
    }
    CHECK_INT(resets, 1);
    /* Every window is the true rate: no negative, no spike. The 1 s window
     * [5, 6) is rated over its half after the reset; the 10 s window [0, 10)
     * is not emitted (only 4.5 s of it after the reset). */
    size_t n1 = check_level_rates(ws, 0, 10e9, 0.001);
    CHECK_INT(n1, 10);
    int w56 = 0, w10 = 0;
    for (size_t i = 0; i < ws->n; i++) {
        CHECK(ws->w[i].rate >= 0.0);
        w56 += ws->w[i].level == 0 && ws->w[i].t_end == T0 + 6 * SEC;
        w10 += ws->w[i].level == 1 && ws->w[i].t_end == T0 + 10 * SEC;
    }
    CHECK_INT(w56, 1);
    CHECK_INT(w10, 0);

    /* Explicit reset evidence with an increasing value. */
    uint64_t v = 1000 + 10 * (uint64_t)(4600 * MS);
    res = feed(&st, &tr, &p, T0 + 10100 * MS, v + 123, FSC_SMP_RESET, ws);
    CHECK_INT(res.verdict, FSC_RATE_RESET);
    res = feed(&st, &tr, &p, T0 + 10200 * MS, v + 123 + 1000000000ULL, 0, ws);
    CHECK_INT(res.verdict, FSC_RATE_INTERVAL);
    CHECK_REL(res.iv.rate, 10e9, 1e-12);

    /* Implausible 32-bit "wraps" on 400G are resets. Bytes in 100 ms can not
     * show it (2^32 B < 5.25e9 B at 1.05 x line rate), so: packets in 100 ms,
     * and bytes in 10 ms. A plausible byte wrap is still a wrap. */
    struct fsc_traits pk = {.kind = FSC_KIND_COUNTER,
                            .width = 32,
                            .unit = FSC_UNIT_PACKETS,
                            .link_speed_bps = 400000000000ULL};
    st = (struct fsc_rate_state){0};
    feed(&st, &pk, &p, T0, 4000000000ULL, 0, ws);
    res = feed(&st, &pk, &p, T0 + 100 * MS, 2000000000ULL, 0, ws);
    CHECK_INT(res.verdict, FSC_RATE_RESET);
    struct fsc_traits b32 = bytes_traits(400000000000ULL, 10 * MS);
    b32.width = 32;
    st = (struct fsc_rate_state){0};
    feed(&st, &b32, &p, T0, 3000000000ULL, 0, ws);
    res = feed(&st, &b32, &p, T0 + 10 * MS, 2000000000ULL, 0, ws);
    CHECK_INT(res.verdict, FSC_RATE_RESET);
    st = (struct fsc_rate_state){0};
    feed(&st, &b32, &p, T0, (UINT64_C(1) << 32) - 1000000000ULL, 0, ws);
    res = feed(&st, &b32, &p, T0 + 100 * MS, 1000000000ULL, 0, ws);
    CHECK_INT(res.verdict, FSC_RATE_INTERVAL);
    CHECK(res.iv.wrapped && res.iv.delta == 2e9);
    free(ws);
}

/* 4. Duplicates and out-of-order samples are dropped without touching the
 * state; a clock step back restarts the baseline; the series goes on right. */
static void duplicates_order_clock_step(void)
{
    struct fsc_traits tr = bytes_traits(400000000000ULL, 100 * MS);
    struct fsc_rate_params p;
    fsc_rate_params_defaults(&p);
    struct fsc_rate_state st = {0};
    struct wins *ws = wins_new();
    /* 1e9 B/s: one byte per ns of device time. */
    int64_t t = 0;
    uint64_t v = 0;
    for (int k = 0; k <= 20; k++) {
        t = T0 + k * 100 * MS;
        v = 777 + (uint64_t)(t - T0);
        feed(&st, &tr, &p, t, v, 0, ws);
    }
    struct {
        int64_t t;
        uint64_t v;
        enum fsc_rate_verdict want;
    } drops[] = {
        {t, v, FSC_RATE_DUPLICATE},
        {t, v + 5, FSC_RATE_OUT_OF_ORDER},
        {t - 50 * MS, v - 50 * MS, FSC_RATE_OUT_OF_ORDER},
        {t - SEC, v - SEC, FSC_RATE_OUT_OF_ORDER}, /* exactly the bound */
    };
    for (size_t i = 0; i < sizeof(drops) / sizeof(drops[0]); i++) {
        struct fsc_rate_state before = st;
        size_t nwin = ws->n;
        struct fsc_rate_result res = feed(&st, &tr, &p, drops[i].t, drops[i].v, 0, ws);
        CHECK_INT(res.verdict, drops[i].want);
        CHECK(memcmp(&before, &st, sizeof(st)) == 0);
        CHECK_INT(ws->n, nwin);
    }
    /* Older by 5 s: the device clock stepped back. */
    size_t nwin = ws->n;
    int64_t ts = t - 5 * SEC;
    uint64_t vs = v + 100;
    struct fsc_rate_result res = feed(&st, &tr, &p, ts, vs, 0, ws);
    CHECK_INT(res.verdict, FSC_RATE_CLOCK_STEP);
    CHECK_INT(ws->n, nwin);
    CHECK_INT(st.t_anchor, ts);
    CHECK_INT(st.t_base, ts);
    CHECK_INT(st.v_anchor.u, vs);
    /* The series continues on the stepped clock at the same true rate. */
    for (int k = 1; k <= 30; k++) {
        int64_t tk = ts + k * 100 * MS;
        res = feed(&st, &tr, &p, tk, vs + (uint64_t)(tk - ts), 0, ws);
        CHECK_INT(res.verdict, FSC_RATE_INTERVAL);
        CHECK_REL(res.iv.rate, 1e9, 1e-12);
    }
    for (size_t i = 0; i < ws->n; i++)
        CHECK(ws->w[i].rate >= 0.0);
    CHECK(check_level_rates(ws, 0, 1e9, 0.001) >= 4);
    free(ws);
}

/* A 400G link idle except one 100 ms line-rate burst: 400 / 80 / 40 Gb/s at
 * 100 ms / 500 ms / 1 s, i.e. 50e9 / 10e9 / 5e9 B/s. */
static void burst_windows_400g(void)
{
    struct fsc_traits tr = bytes_traits(400000000000ULL, 100 * MS);
    struct fsc_rate_params p;
    fsc_rate_params_defaults(&p);
    p.window_ns[0] = 100 * MS;
    p.window_ns[1] = 500 * MS;
    p.window_ns[2] = SEC;
    p.n_windows = 3;
    const double want[3] = {50e9, 10e9, 5e9};
    for (int offset = 0; offset <= 37; offset += 37) {
        struct fsc_rate_state st = {0};
        struct wins *ws = wins_new();
        uint64_t v = 1000;
        for (int k = 0; k <= 50; k++) {
            int64_t t = T0 + offset * MS + k * 100 * MS;
            if (k == 24) /* the interval ending here carries the burst */
                v += 5000000000ULL;
            struct fsc_rate_result res = feed(&st, &tr, &p, t, v, 0, ws);
            CHECK_INT(res.verdict, k == 0 ? FSC_RATE_BASELINE : FSC_RATE_INTERVAL);
        }
        int busy[3] = {0, 0, 0};
        double sum[3] = {0, 0, 0};
        for (size_t i = 0; i < ws->n; i++) {
            const struct win *w = &ws->w[i];
            CHECK(w->rate >= 0.0);
            if (w->rate > 0.0)
                busy[w->level]++;
            sum[w->level] += w->rate * (double)p.window_ns[w->level] / 1e9;
            if (w->rate > 0.0 && offset == 0) {
                CHECK_REL(w->rate, want[w->level], 0.01);
                CHECK_REL(w->peak, 50e9, 0.01);
            }
            /* The burst interval ends exactly on the edge 2.4 s: it does not
             * overlap [2.4, 2.5), so that window has no peak either. */
            if (w->rate == 0.0 && offset == 0)
                CHECK(w->peak == 0.0);
        }
        if (offset == 0) {
            for (unsigned l = 0; l < 3; l++)
                CHECK_INT(busy[l], 1);
        } else {
            /* Samples 37 ms off the edges: the burst interval [2.337, 2.437]
             * is spread over two 100 ms windows (63 % / 37 %), one 500 ms
             * and one 1 s window; no byte is lost or invented. */
            CHECK_INT(busy[0], 2);
            CHECK_INT(busy[1], 1);
            CHECK_INT(busy[2], 1);
            for (size_t i = 0; i < ws->n; i++) {
                const struct win *w = &ws->w[i];
                if (w->level == 0 && w->t_end == T0 + 2400 * MS)
                    CHECK_REL(w->rate, 0.63 * 50e9, 1e-9);
                if (w->level == 0 && w->t_end == T0 + 2500 * MS)
                    CHECK_REL(w->rate, 0.37 * 50e9, 1e-9);
                if (w->level == 2 && w->t_end == T0 + 3 * SEC)
                    CHECK_REL(w->rate, 5e9, 1e-9);
            }
        }
        for (unsigned l = 0; l < 3; l++)
            CHECK_REL(sum[l], 5e9, 1e-9);
        free(ws);
    }
}

TEST_MAIN(TEST(jitter_200g), TEST(batched_copies_flat), TEST(wrap32_and_reset64),
          TEST(duplicates_order_clock_step), TEST(burst_windows_400g))
