/* Copy groups through the public engine API (engine.h, copy_grid.h): a
 * device whose profile says "copied every 2 s" but whose values are live
 * (they change at every 100 ms sample) is found live within a few samples
 * and then measured on its own timestamps - exact 1 s windows, exact fine
 * rates, the 1 s level as its rate - while a device that really copies every
 * 2 s is never taken for live. Known answers from the generating formula:
 * counters at a constant byte rate, samples every 100 ms with +-25 ms
 * timestamp jitter from a fixed-seed generator. */
#include <math.h>
#include <stdint.h>

#include "engine_fixture.h"

#define P     (2000 * MS)
#define RATE  10e9       /* bytes/s: 20 % of 400G */
#define PHASE (730 * MS) /* batched copies at T0 + 0.73 s + 2k s */
#define PORTS 4

/* Sample k of a 100 ms grid with up to +-25 ms jitter (rng_state's PRNG). */
static int64_t jittered(int k)
{
    return T0 + (int64_t)k * 100 * MS + (int64_t)((rng_unit() * 2.0 - 1.0) * 25.0 * (double)MS);
}

static struct fsc_traits periodic_port(void)
{
    struct fsc_traits tr = port_bytes(400000000000ULL, FSC_DIR_RX);
    tr.refresh = FSC_REFRESH_PERIODIC;
    tr.refresh_ns = P;
    return tr;
}

/* Runs PORTS series of one device for `seconds`, live (value at the sample
 * time) or batched (value at the last copy), and returns the engine stats. */
static void run_device(struct harness *h, bool live, int seconds)
{
    uint16_t g = fsc_engine_copy_group(h->eng, "leaf1", P);
    CHECK(g != 0);
    struct fsc_traits tr = periodic_port();
    tr.copy_group = g;
    for (fsc_series_id id = 0; id < PORTS; id++)
        CHECK_INT(fsc_engine_set_traits(h->eng, id, &tr), 0);
    for (int k = 0; k < seconds * 10; k++) {
        int64_t t = jittered(k);
        int64_t vt = t;
        if (!live) {
            int64_t since = t - (T0 + PHASE);
            int64_t n = since >= 0 ? since / P : -((-since + P - 1) / P);
            vt = T0 + PHASE + n * P;
        }
        uint64_t v = 1000000000ULL + (uint64_t)((double)(vt - T0 + P) * RATE / 1e9);
        struct fsc_sample smp[PORTS];
        for (fsc_series_id id = 0; id < PORTS; id++)
            smp[id] = (struct fsc_sample){.series = id, .t_dev_ns = t, .t_arr_ns = t, .v.u = v};
        CHECK_INT(fsc_engine_ingest(h->eng, smp, PORTS), 0);
    }
}

/* 1. Live values under a periodic profile: found live, exact at 1 s. */
static void live_device_leaves_grid(void)
{
    struct fsc_engine_config cfg;
    struct harness h;
    fsc_engine_config_defaults(&cfg);
    if (harness_open(&h, &cfg) != 0)
        return;
    rng_state = 0x243f6a8885a308d3ull;
    run_device(&h, true, 30);

    struct fsc_engine_stats st;
    fsc_engine_stats_get(h.eng, &st);
    CHECK_INT(st.copy_groups, 1);
    CHECK_INT(st.copy_groups_live, 1);
    CHECK_INT(st.verdicts[FSC_RATE_DEFERRED] <= 2 * PORTS, 1);
    for (fsc_series_id id = 0; id < PORTS; id++) {
        struct fsc_series_view v;
        CHECK_INT(fsc_engine_view(h.eng, id, &v), 0);
        CHECK_INT(v.rate_level, 0); /* the 1 s level: no longer withheld */
        CHECK_INT((v.windows_done & 1) != 0, 1);
        CHECK_NEAR(v.window_rate[0], RATE, RATE * 1e-6);
        CHECK_NEAR(v.window_rate[1], RATE, RATE * 1e-6);
        CHECK_NEAR(v.fine_rate, RATE, RATE * 1e-6);
        CHECK_INT(v.t_value_ns, v.t_last_ns); /* true at its sample, not at a copy */
    }
    /* A series the device adds later starts live: its rate level is 0 before
     * its first sample. */
    struct fsc_traits tr = periodic_port();
    tr.copy_group = fsc_engine_copy_group(h.eng, "leaf1", P);
    CHECK_INT(fsc_engine_set_traits(h.eng, 9, &tr), 0);
    struct fsc_series_view v9;
    CHECK_INT(fsc_engine_view(h.eng, 9, &v9), 0);
    CHECK_INT(v9.rate_level, 0);
    harness_close(&h);
}

/* 2. Real 2 s copies sampled every 100 ms: never live, rated at 10 s. */
static void batched_device_stays_on_grid(void)
{
    struct fsc_engine_config cfg;
    struct harness h;
    fsc_engine_config_defaults(&cfg);
    if (harness_open(&h, &cfg) != 0)
        return;
    rng_state = 0x13198a2e03707344ull;
    run_device(&h, false, 60);

    struct fsc_engine_stats st;
    fsc_engine_stats_get(h.eng, &st);
    CHECK_INT(st.copy_groups, 1);
    CHECK_INT(st.copy_groups_live, 0);
    for (fsc_series_id id = 0; id < PORTS; id++) {
        struct fsc_series_view v;
        CHECK_INT(fsc_engine_view(h.eng, id, &v), 0);
        CHECK_INT(v.rate_level, 1);              /* 1 s windows withheld for 2 s copies */
        CHECK_INT((v.windows_done & 1) != 0, 0); /* no level-0 window ever emitted */
        CHECK_NEAR(v.window_rate[1], RATE, RATE * 0.005);
    }
    harness_close(&h);
}

TEST_MAIN(TEST(live_device_leaves_grid), TEST(batched_device_stays_on_grid))
