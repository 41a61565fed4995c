/* The device copy grid (engine/copy_grid.h) and the periodic-copy rule it
 * serves (rate.h rule 5), with known answers from the generating formula:
 * copies at PHASE + k * 2 s, counters moving at constant rates, samples every
 * 100 ms with +-25 % timestamp jitter from a fixed-seed generator. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "engine/copy_grid.h"
#include "rate_fixture.h"

#define P     (2 * SEC)
#define PHASE (730 * MS) /* copies at T0 + 0.73 s + 2k s */

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;

/* Uniform in [-1, 1), the file's fixed sequence. */
static double rng_sym(void)
{
    return splitmix_sym(&rng_state);
}

/* A change without a previous copy to narrow it. */
static int64_t change(struct fsc_copy_grid *g, int64_t ta, int64_t tb)
{
    bool placed;
    return fsc_grid_change(g, ta, tb, FSC_GRID_NONE, true, &placed);
}

/* The copy at or before device time t. */
static int64_t copy_at(int64_t t)
{
    int64_t since = t - (T0 + PHASE);
    int64_t k = since >= 0 ? since / P : -((-since + P - 1) / P);
    return T0 + PHASE + k * P;
}

/* Sample k of a 100 ms grid with +-25 % jitter. The grid divides the copy
 * period, so the samples around each copy sit at the same offsets give or
 * take the jitter: the data place a copy only within about 50 ms (the last
 * tick before it plus 25 ms, the first after it minus 25 ms). */
static int64_t sample_time(int k)
{
    return T0 + (int64_t)k * 100 * MS + (int64_t)(rng_sym() * 25.0 * (double)MS);
}

/* Sample k of a 97 ms grid with +-25 % jitter: its ticks drift past the
 * copies, so over many copies the data pin them down. */
static int64_t sample_time_97(int k)
{
    return T0 + (int64_t)k * 97 * MS + (int64_t)(rng_sym() * 24.0 * (double)MS);
}

/* 1. Constraints from many samples narrow the grid to a few ms around the
 * true copy instants, and the estimates say where each copy was. */
static void grid_converges(void)
{
    struct fsc_copy_grid g;
    fsc_grid_init(&g, P);
    CHECK_INT(fsc_grid_copy_before(&g, T0), FSC_GRID_NONE);
    int64_t prev = sample_time_97(0);
    double worst_late = 0;
    for (int k = 1; k < 619; k++) {
        int64_t t = sample_time_97(k);
        if (copy_at(t) != copy_at(prev)) {
            int64_t c = change(&g, prev, t);
            CHECK(c > prev && c <= t);
            if (k > 200) { /* after 20 copies */
                double err = fabs((double)(c - copy_at(t)));
                worst_late = err > worst_late ? err : worst_late;
            }
        }
        prev = t;
    }
    CHECK(g.locked);
    CHECK(worst_late <= 5.0 * MS);
    /* The uncertainty counts the stretch where all but one constraint
     * agree, so it stays above the intersection's half width. */
    CHECK(g.half <= 15 * MS);
    CHECK_INT(g.relocks, 0);
    CHECK_INT(g.changes, 30); /* one per copy in 60 s */

    /* Ticks that divide the period: the estimate stays inside what the
     * data allow, the same offset at every copy. */
    struct fsc_copy_grid ga;
    fsc_grid_init(&ga, P);
    int64_t lo_max = INT64_MIN, hi_min = INT64_MAX, first = 0;
    prev = sample_time(0);
    for (int k = 1; k < 600; k++) {
        int64_t t = sample_time(k);
        if (copy_at(t) != copy_at(prev)) {
            int64_t c = change(&ga, prev, t);
            int64_t off_lo = prev - copy_at(t), off_hi = t - copy_at(t);
            lo_max = off_lo > lo_max ? off_lo : lo_max;
            hi_min = off_hi < hi_min ? off_hi : hi_min;
            CHECK(c - copy_at(t) > lo_max && c - copy_at(t) <= hi_min);
            if (first == 0 && k > 200)
                first = c - copy_at(t);
            if (k > 200)
                CHECK(llabs(c - copy_at(t) - first) <= 5 * MS);
        }
        prev = t;
    }
    CHECK(hi_min - lo_max <= 60 * MS);

    /* The copy a sample at T0 + 40.9 s shows is the one at 40.73 s; inside
     * the estimate's uncertainty it is too close to a copy to tell. */
    int64_t c = fsc_grid_copy_before(&g, T0 + 40900 * MS);
    CHECK(llabs(c - (T0 + 40730 * MS)) <= 5 * MS);
    if (g.half > 1)
        CHECK_INT(fsc_grid_copy_before(&g, c + g.half / 2), FSC_GRID_NONE);
    /* A copy surely between 40.0 s and 43.0 s: 42.73 s (P / 100 = 20 ms of
     * margin before the sample); none between 42.0 s and 42.75 s. */
    c = fsc_grid_copy_between(&g, T0 + 40 * SEC, T0 + 43 * SEC);
    CHECK(llabs(c - (T0 + 42730 * MS)) <= 5 * MS);
    CHECK_INT(fsc_grid_copy_between(&g, T0 + 42 * SEC, T0 + 42750 * MS), FSC_GRID_NONE);
    /* Nothing after the latest surely-passed copy. */
    CHECK_INT(fsc_grid_copy_between(&g, T0 + 42740 * MS, T0 + 43 * SEC), FSC_GRID_NONE);
}

/* 2. A device whose copies move (a reboot, a new phase) is followed: three
 * contradicting changes in a row start the grid over, one alone does not. */
static void grid_relocks(void)
{
    struct fsc_copy_grid g;
    fsc_grid_init(&g, P);
    /* Locked at 0.73 s + 2k, 100 ms constraints at different offsets. */
    for (int k = 0; k < 10; k++) {
        int64_t c = T0 + PHASE + k * P;
        change(&g, c - (10 + 9 * k) * MS, c + (90 - 9 * k) * MS);
    }
    CHECK_INT(g.relocks, 0);
    CHECK(llabs(g.phase - (T0 + PHASE)) % P <= 2 * MS);
    /* One odd constraint (a late stream) changes nothing. */
    int64_t c = change(&g, T0 + 21300 * MS, T0 + 21400 * MS);
    CHECK(c > T0 + 21300 * MS && c <= T0 + 21400 * MS);
    c = change(&g, T0 + 22700 * MS, T0 + 22800 * MS);
    CHECK(llabs(c - (T0 + 22730 * MS)) <= 2 * MS);
    CHECK_INT(g.relocks, 0);
    /* From 24 s on the copies are at 1.53 s + 2k (the phase moved 0.8 s). */
    for (int k = 12; k < 15; k++) {
        int64_t cn = T0 + 1530 * MS + k * P;
        c = change(&g, cn - 50 * MS, cn + 50 * MS);
        CHECK(c > cn - 50 * MS && c <= cn + 50 * MS);
    }
    CHECK_INT(g.relocks, 1);
    for (int k = 15; k < 25; k++) {
        int64_t cn = T0 + 1530 * MS + k * P;
        c = change(&g, cn - (10 + 8 * (k - 15)) * MS, cn + (90 - 8 * (k - 15)) * MS);
    }
    CHECK(llabs(c - (T0 + 1530 * MS + 24 * P)) <= 5 * MS); /* (cn - 10, cn + 18] */
    CHECK_INT(g.relocks, 1);
    /* A change wider than a period teaches nothing and is placed inside. */
    struct fsc_copy_grid g2;
    fsc_grid_init(&g2, P);
    c = change(&g2, T0, T0 + 3 * SEC);
    CHECK(!g2.locked);
    CHECK(c > T0 + SEC && c <= T0 + 3 * SEC); /* the copy shown lies in (tb - P, tb] */
}

/* 3. Two ports of one device (one moving at 10 GB/s, one idle), sampled at
 * 100 ms with +-25 % jitter against 2 s copies: every interval spans copy to
 * copy, its rate within 0.5 % of the truth once the grid is locked; the
 * idle port gets a zero interval at each copy; 10 s windows within 0.2 %;
 * 1 s windows are withheld. */
static void periodic_rates_exact(void)
{
    struct fsc_traits tr = bytes_traits(400000000000ULL, 100 * MS);
    tr.refresh = FSC_REFRESH_PERIODIC;
    tr.refresh_ns = P;
    struct fsc_rate_params p;
    fsc_rate_params_defaults(&p);
    struct fsc_copy_grid g;
    fsc_grid_init(&g, P);
    struct fsc_rate_state busy = {0}, idle = {0};
    struct wins *wb = wins_new(), *wi = wins_new();
    const double rate = 10e9;
    unsigned busy_iv = 0, idle_iv = 0, withheld = 0;
    double worst = 0;
    for (int k = 0; k < 1200; k++) {
        int64_t t = sample_time(k);
        int64_t c = copy_at(t);
        struct fsc_sample s = {.series = 1, .t_dev_ns = t, .t_arr_ns = t};
        s.v.u = 1000000 + (uint64_t)((double)(c - T0 + P) * rate / 1e9);
        struct fsc_rate_result res;
        fsc_rate_update_grid(&busy, &tr, &p, &g, &s, on_win, wb, &res);
        withheld += res.withheld[0];
        if (res.verdict == FSC_RATE_INTERVAL) {
            CHECK(!res.iv.gap);
            CHECK(res.iv.t1_ns > res.iv.t0_ns);
            if (k > 200) {
                double err = fabs(res.iv.rate - rate) / rate;
                worst = err > worst ? err : worst;
                CHECK(llabs(res.iv.t1_ns - c) <= 26 * MS); /* see sample_time */
            }
            busy_iv++;
        }
        s.series = 2;
        s.v.u = 42;
        fsc_rate_update_grid(&idle, &tr, &p, &g, &s, on_win, wi, &res);
        if (res.verdict == FSC_RATE_INTERVAL) {
            CHECK(res.iv.delta == 0.0);
            /* Seen at the first sample at least 40 ms after the copy. */
            CHECK(t - res.iv.t1_ns <= 200 * MS);
            if (k > 200)
                CHECK(llabs(res.iv.t1_ns - c) <= 26 * MS);
            idle_iv++;
        }
    }
    CHECK(worst <= 0.005);
    CHECK(busy_iv >= 58 && busy_iv <= 60);
    CHECK(idle_iv >= 57 && idle_iv <= 60);
    CHECK(withheld >= 110);
    size_t n10 = 0;
    for (size_t i = 0; i < wb->n; i++) {
        CHECK(wb->w[i].level != 0);
        if (wb->w[i].level == 1 && wb->w[i].t_end > T0 + 20 * SEC) {
            CHECK_REL(wb->w[i].rate, rate, 0.002);
            n10++;
        }
    }
    CHECK_INT(n10, 9); /* ends 30 s .. 110 s: the last copy, 118.73 s, stops short of 120 s */
    for (size_t i = 0; i < wi->n; i++)
        CHECK(wi->w[i].rate == 0.0);
    free(wb);
    free(wi);
}

/* 4. A 32-bit counter that wraps every other copy, and a 64-bit one reset
 * to 0 by the copy at 30.73 s, sampled every 100 ms (3 ms after the ticks):
 * wraps are unwound over copy-to-copy time, the reset restarts the baseline
 * at the copy that showed it, and every interval has the true rate. */
static void periodic_wrap_and_reset(void)
{
    struct fsc_traits t32 = bytes_traits(400000000000ULL, 100 * MS);
    t32.width = 32;
    t32.refresh = FSC_REFRESH_PERIODIC;
    t32.refresh_ns = P;
    struct fsc_traits t64 = t32;
    t64.width = 64;
    struct fsc_rate_params p;
    fsc_rate_params_defaults(&p);
    struct fsc_copy_grid g;
    fsc_grid_init(&g, P);
    struct fsc_rate_state s32 = {0}, s64 = {0};
    struct wins *ws = wins_new();
    const double rate = 1e9; /* 2e9 per copy: a 32-bit wrap every ~2 copies */
    const int64_t reset_at = T0 + 30730 * MS;
    unsigned resets = 0, wraps = 0, intervals = 0;
    for (int k = 0; k < 600; k++) {
        int64_t t = T0 + (int64_t)k * 100 * MS + 3 * MS;
        int64_t c = copy_at(t);
        struct fsc_sample s = {.series = 1, .t_dev_ns = t, .t_arr_ns = t};
        struct fsc_rate_result res;
        /* Counted from one period before T0: the copy before the first
         * samples (at T0 - 1.27 s) must not give a negative count (its
         * conversion to uint64_t is undefined; UBSan builds saw a reset). */
        s.v.u = (uint64_t)((double)(c - T0 + P) * rate / 1e9) & UINT32_MAX;
        fsc_rate_update_grid(&s32, &t32, &p, &g, &s, on_win, ws, &res);
        if (res.verdict == FSC_RATE_INTERVAL && k > 30) {
            intervals++;
            wraps += res.iv.wrapped;
            CHECK_REL(res.iv.rate, rate, 0.001);
        }
        s.series = 2;
        s.v.u = (uint64_t)((double)(c >= reset_at ? c - reset_at : c - T0 + P) * rate / 1e9);
        fsc_rate_update_grid(&s64, &t64, &p, &g, &s, on_win, ws, &res);
        if (res.verdict == FSC_RATE_RESET) {
            resets++;
            /* Anchored at the copy (the data place it in (30.703, 30.803]). */
            CHECK(s64.t_anchor > T0 + 30703 * MS && s64.t_anchor <= T0 + 30803 * MS);
        }
        if (res.verdict == FSC_RATE_INTERVAL && k > 30)
            CHECK_REL(res.iv.rate, rate, 0.001);
    }
    CHECK_INT(resets, 1);
    CHECK(wraps >= 12);
    CHECK(intervals >= 27);
    free(ws);
}

TEST_MAIN(TEST(grid_converges), TEST(grid_relocks), TEST(periodic_rates_exact),
          TEST(periodic_wrap_and_reset))
