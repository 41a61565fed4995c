/* Rate rule 5 for periodic copies, series by series (rate.h, rate_copies.c):
 * the reading lattice of a series sampled no faster than its copies, the
 * straddle rule, a reading phase that moves, and the cadence a series
 * learns from its values. Known answers from the generating formula:
 * counters at a constant byte rate R copied every 2 s from a fixed phase,
 * read on a fixed schedule, stamps jittered by a fixed-seed generator. */
#include <stdint.h>
#include <string.h>

#include "engine/copy_grid.h"
#include "rate_fixture.h"

#define P      (2 * SEC)
#define R      10e9 /* bytes/s */
#define COPY   (480 * MS)
#define READ   (350 * MS)
#define BASE_V 1000000000000ULL

static uint64_t rng_state = 0x2545f4914f6cdd1dull;

/* Uniform in [-1, 1), the file's fixed sequence. */
static double rng_sym(void)
{
    return splitmix_sym(&rng_state);
}

/* The copy at or before true time t, and the value it holds. */
static int64_t copy_before(int64_t t)
{
    int64_t since = t - (T0 + COPY);
    int64_t k = since >= 0 ? since / P : -((-since + P - 1) / P);
    return T0 + COPY + k * P;
}

static uint64_t copied_value(int64_t read)
{
    return BASE_V + (uint64_t)((double)(copy_before(read) - T0 + 100 * P) * R / 1e9);
}

static struct fsc_traits lattice_traits(void)
{
    struct fsc_traits tr = bytes_traits(400000000000ULL, P);
    tr.refresh = FSC_REFRESH_PERIODIC;
    tr.refresh_ns = P;
    return tr;
}

static struct fsc_rate_result feed_grid(struct fsc_rate_state *st, const struct fsc_traits *tr,
                                        const struct fsc_rate_params *p, struct fsc_copy_grid *g,
                                        int64_t t, uint64_t v, struct wins *ws)
{
    struct fsc_sample smp = {.series = 1, .t_dev_ns = t, .t_arr_ns = t, .v.u = v};
    struct fsc_rate_result res;
    fsc_rate_update_grid(st, tr, p, g, &smp, on_win, ws, &res);
    return res;
}

/* One lattice series with its device's grid and a window collector. */
struct lat {
    struct fsc_rate_params p;
    struct fsc_traits tr;
    struct fsc_copy_grid g;
    struct fsc_rate_state st;
    struct wins *ws;
};

static void lat_open(struct lat *l)
{
    fsc_rate_params_defaults(&l->p);
    l->tr = lattice_traits();
    fsc_grid_init(&l->g, P);
    memset(&l->st, 0, sizeof(l->st));
    l->ws = wins_new();
}

static struct fsc_rate_result lat_feed(struct lat *l, int64_t t, uint64_t v)
{
    return feed_grid(&l->st, &l->tr, &l->p, &l->g, t, v, l->ws);
}

/* 1. Reads every 2 s at +350 ms, copies at +480 ms, stamps +-50 ms: every
 * interval is one copy at exactly R, placed within 10 ms of 2 s long once
 * the lattice has 8 readings, and every 10 s window from then on within
 * 0.2 %; 1 s windows withheld. */
static void lattice_stamp_jitter_exact(void)
{
    struct lat L;
    lat_open(&L);
    unsigned intervals = 0, withheld = 0;
    for (int k = 0; k < 60; k++) {
        int64_t read = T0 + READ + (int64_t)k * P;
        int64_t stamp = read + (int64_t)(rng_sym() * 50.0 * (double)MS);
        struct fsc_rate_result res = lat_feed(&L, stamp, copied_value(read));
        withheld += res.withheld[0];
        if (k == 0) {
            CHECK_INT(res.verdict, FSC_RATE_BASELINE);
            continue;
        }
        CHECK_INT(res.verdict, FSC_RATE_INTERVAL);
        CHECK_INT(res.iv.gap, 0);
        CHECK_REL(res.iv.rate, R, 1e-12);
        if (k >= 8) {
            int64_t len = res.iv.t1_ns - res.iv.t0_ns;
            CHECK(len > P - 10 * MS && len < P + 10 * MS);
        }
        intervals++;
    }
    CHECK_INT(intervals, 59);
    CHECK(withheld > 100);
    CHECK_INT(check_level_rates(L.ws, 0, R, 0.002), 0);
    /* 10 s windows once the lattice has 8 readings: within 0.2 %. */
    unsigned judged = 0;
    for (size_t i = 0; i < L.ws->n; i++) {
        if (L.ws->w[i].level != 1 || L.ws->w[i].t_end < T0 + 30 * SEC)
            continue;
        CHECK_REL(L.ws->w[i].rate, R, 0.002);
        judged++;
    }
    CHECK(judged >= 9);
    CHECK_INT(L.g.changes, 0); /* lattice series never move the device grid */
    free(L.ws);
}

/* 2. A busy series whose reads straddle the copy: a repeat one step on is
 * pending (no zero), the next change covers both copies and is not counted
 * (no fine rate), nor are the 7 after it; a series that stops shows a zero
 * at its second repeat. */
static void lattice_straddle_and_stop(void)
{
    struct lat L;
    lat_open(&L);
    const uint64_t per_copy = (uint64_t)(R * 2.0);
    uint64_t v = BASE_V;
    int64_t t = T0 + READ;
    CHECK_INT(lat_feed(&L, t, v).verdict, FSC_RATE_BASELINE);
    for (int k = 0; k < 4; k++) {
        t += P;
        v += per_copy;
        struct fsc_rate_result res = lat_feed(&L, t, v);
        CHECK_INT(res.verdict, FSC_RATE_INTERVAL);
        CHECK_REL(res.iv.rate, R, 1e-12);
    }
    t += P; /* read just before its copy: the same value again */
    struct fsc_rate_result res = lat_feed(&L, t, v);
    CHECK_INT(res.verdict, FSC_RATE_STALE_REPEAT);
    t += P;
    v += 2 * per_copy;
    res = lat_feed(&L, t, v);
    CHECK_INT(res.verdict, FSC_RATE_INTERVAL);
    CHECK_INT(res.iv.uncounted, 1);
    CHECK_INT(res.iv.gap, 1);
    CHECK_REL(res.iv.rate, R, 1e-12); /* over the span: two periods, two copies */
    CHECK_INT(res.iv.t1_ns - res.iv.t0_ns, 2 * P);
    CHECK_INT(L.st.fine_rate < 0, 1);
    for (int k = 0; k < 8; k++) {
        t += P;
        v += per_copy;
        res = lat_feed(&L, t, v);
        CHECK_INT(res.verdict, FSC_RATE_INTERVAL);
        CHECK_INT(res.iv.uncounted, k < 6); /* the double and 6 more: 7 */
    }
    CHECK_REL(L.st.fine_rate, R, 1e-6);
    /* The port stops: a repeat is pending once, then idleness. */
    t += P;
    CHECK_INT(lat_feed(&L, t, v).verdict, FSC_RATE_STALE_REPEAT);
    t += P;
    res = lat_feed(&L, t, v);
    CHECK_INT(res.verdict, FSC_RATE_INTERVAL);
    CHECK_INT(res.iv.gap, 0);
    CHECK(res.iv.rate == 0.0);
    free(L.ws);
}

/* 3. The reading phase moves (a stream restart): by 370 ms, past the copy
 * at +480 ms - the first reading at the new phase shows two copies in one
 * period's span. More than P/6 off its lattice point, it is placed at its
 * stamp, its copies not counted (no doubled fine rate), and the lattice
 * starts over there: exact from the next reading on. The same for a move
 * by 900 ms. A re-sent reading 100 ms after the last one is no news. */
static void lattice_phase_moves(void)
{
    struct lat L;
    lat_open(&L);
    int64_t read = T0 + READ;
    for (int k = 0; k < 10; k++, read += P)
        (void)lat_feed(&L, read, copied_value(read));
    read -= P;
    /* The restarted stream re-sends the last value 100 ms later. */
    struct fsc_rate_result res = lat_feed(&L, read + 100 * MS, copied_value(read + 100 * MS));
    CHECK_INT(res.verdict, FSC_RATE_STALE_REPEAT);
    for (int move = 0; move < 2; move++) {
        read += P + (move ? 900 : 370) * MS;
        res = lat_feed(&L, read, copied_value(read));
        CHECK_INT(res.verdict, FSC_RATE_INTERVAL);
        CHECK_INT(res.iv.uncounted, 1);
        CHECK_INT(res.iv.t1_ns, read);
        for (int k = 0; k < 4; k++) {
            read += P;
            res = lat_feed(&L, read, copied_value(read));
            CHECK_INT(res.verdict, FSC_RATE_INTERVAL);
            CHECK_INT(res.iv.uncounted, 0);
            CHECK_REL(res.iv.rate, R, 1e-12);
        }
    }
    free(L.ws);
}

/* 4. Sampled every 100 ms: a series changing at every sample is learning,
 * then live at its fourth change (three votes); a copied series is copied
 * at its first change after repeats; a series that only repeats stays
 * learning. */
static void cadence_learned_from_values(void)
{
    struct fsc_rate_params p;
    fsc_rate_params_defaults(&p);
    struct fsc_traits tr = lattice_traits();
    tr.nominal_interval_ns = 100 * MS;
    struct fsc_copy_grid g;
    fsc_grid_init(&g, P);
    struct fsc_rate_state live, copied, idle;
    memset(&live, 0, sizeof(live));
    memset(&copied, 0, sizeof(copied));
    memset(&idle, 0, sizeof(idle));
    struct wins *ws = wins_new();
    for (int k = 0; k < 60; k++) {
        int64_t t = T0 + READ + (int64_t)k * 100 * MS;
        uint64_t lv = BASE_V + (uint64_t)((double)(t - T0) * R / 1e9);
        (void)feed_grid(&live, &tr, &p, &g, t, lv, ws);
        (void)feed_grid(&copied, &tr, &p, &g, t, copied_value(t), ws);
        (void)feed_grid(&idle, &tr, &p, &g, t, BASE_V, ws);
        if (k < 3)
            CHECK_INT(fsc_rate_cadence(&live), FSC_CADENCE_LEARNING);
        if (k == 3)
            CHECK_INT(fsc_rate_cadence(&live), FSC_CADENCE_LIVE);
        if (k == 1) /* no change yet: 0.35 s and 0.45 s show the copy at -1.52 s */
            CHECK_INT(fsc_rate_cadence(&copied), FSC_CADENCE_LEARNING);
    }
    CHECK_INT(fsc_rate_cadence(&live), FSC_CADENCE_LIVE);
    CHECK_INT(fsc_rate_cadence(&copied), FSC_CADENCE_COPIED);
    CHECK_INT(fsc_rate_cadence(&idle), FSC_CADENCE_LEARNING);
    CHECK_STR(fsc_cadence_name(FSC_CADENCE_COPIED), "copied");
    free(ws);
}

TEST_MAIN(TEST(lattice_stamp_jitter_exact), TEST(lattice_straddle_and_stop),
          TEST(lattice_phase_moves), TEST(cadence_learned_from_values))
