/* Cadence per series through the public engine API (engine.h, rate.h rule
 * 5): series whose profile says "copied every 2 s" but whose values are
 * live (they change at every 100 ms sample) are found live within a few
 * samples and then measured on their own timestamps - exact 1 s windows,
 * exact fine rates, the 1 s level as their rate - while series that really
 * copy every 2 s are never taken for live, and one device may hold both (a
 * live port beside a copied one: the copied port is never read as 0).
 * Known answers from the generating formula: counters at a constant byte
 * rate, samples every 100 ms with +-25 ms timestamp jitter from a
 * fixed-seed generator. */
#include <errno.h>
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

/* The value port `id` shows at sample time t: live (the counter at t) or
 * copied (the counter at the last copy). */
static uint64_t port_value(int64_t t, bool live)
{
    int64_t vt = t;
    if (!live) {
        int64_t since = t - (T0 + PHASE);
        int64_t n = since >= 0 ? since / P : -((-since + P - 1) / P);
        vt = T0 + PHASE + n * P;
    }
    return 1000000000ULL + (uint64_t)((double)(vt - T0 + P) * RATE / 1e9);
}

/* Runs PORTS series of one device for `seconds`; ports below n_live are
 * live (value at the sample time), the others batched (value at the last
 * copy). */
static void run_device(struct harness *h, int n_live, int seconds)
{
    uint16_t g = fsc_engine_copy_group(h->eng, "leaf1", P);
    CHECK(g != 0);
    struct fsc_traits tr = periodic_port();
    tr.copy_group = g;
    for (fsc_series_id id = 0; id < PORTS; id++)
        CHECK_INT(fsc_engine_set_traits(h->eng, id, &tr), 0);
    for (int k = 0; k < seconds * 10; k++) {
        int64_t t = jittered(k);
        struct fsc_sample smp[PORTS];
        for (fsc_series_id id = 0; id < PORTS; id++)
            smp[id] = (struct fsc_sample){
                .series = id, .t_dev_ns = t, .t_arr_ns = t, .v.u = port_value(t, (int)id < n_live)};
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
    run_device(&h, PORTS, 30);

    struct fsc_engine_stats st;
    fsc_engine_stats_get(h.eng, &st);
    CHECK_INT(st.copy_groups, 1);
    CHECK_INT(st.cadence_series[FSC_CADENCE_LIVE], PORTS);
    CHECK_INT(st.cadence_series[FSC_CADENCE_LEARNING], 0);
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
    /* A series the device adds later learns on its own: it starts learning
     * (read as copied, rated at 10 s), and setting its traits again keeps
     * a live series live. */
    struct fsc_traits tr = periodic_port();
    tr.copy_group = fsc_engine_copy_group(h.eng, "leaf1", P);
    CHECK_INT(fsc_engine_set_traits(h.eng, 9, &tr), 0);
    CHECK_INT(fsc_engine_set_traits(h.eng, 0, &tr), 0);
    struct fsc_series_view v;
    CHECK_INT(fsc_engine_view(h.eng, 9, &v), 0);
    CHECK_INT(v.rate_level, 1);
    CHECK_INT(fsc_engine_view(h.eng, 0, &v), 0);
    CHECK_INT(v.rate_level, 0);
    fsc_engine_stats_get(h.eng, &st);
    CHECK_INT(st.cadence_series[FSC_CADENCE_LIVE], PORTS);
    CHECK_INT(st.cadence_series[FSC_CADENCE_LEARNING], 1);
    struct fsc_copy_group_view gv;
    CHECK_INT(fsc_engine_copy_group_count(h.eng), 1);
    CHECK_INT(fsc_engine_copy_group_view(h.eng, 0, &gv), 0);
    CHECK_STR(gv.device, "leaf1");
    CHECK_INT(gv.period_ns, P);
    CHECK_INT(gv.series[FSC_CADENCE_LIVE], PORTS);
    CHECK_INT(gv.series[FSC_CADENCE_LEARNING], 1);
    CHECK_INT(fsc_engine_copy_group_view(h.eng, 1, &gv), -ENOENT);
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
    run_device(&h, 0, 60);

    struct fsc_engine_stats st;
    fsc_engine_stats_get(h.eng, &st);
    CHECK_INT(st.copy_groups, 1);
    CHECK_INT(st.cadence_series[FSC_CADENCE_LIVE], 0);
    CHECK_INT(st.cadence_series[FSC_CADENCE_COPIED], PORTS);
    for (fsc_series_id id = 0; id < PORTS; id++) {
        struct fsc_series_view v;
        CHECK_INT(fsc_engine_view(h.eng, id, &v), 0);
        CHECK_INT(v.rate_level, 1);              /* 1 s windows withheld for 2 s copies */
        CHECK_INT((v.windows_done & 1) != 0, 0); /* no level-0 window ever emitted */
        CHECK_NEAR(v.window_rate[1], RATE, RATE * 0.005);
    }
    harness_close(&h);
}

/* Fine intervals of the copied ports (ids >= 2) after the first 6 s that
 * read a rate far off RATE (a zero among them), and those seen. */
struct fine_watch {
    unsigned off, seen;
};

static void watch_interval(void *arg, fsc_series_id id, const struct fsc_interval *iv)
{
    struct fine_watch *fw = arg;
    if (id < 2 || iv->gap || iv->t0_ns < T0 + 6 * 1000 * MS)
        return;
    fw->seen++;
    if (!(iv->rate > RATE * 0.99 && iv->rate < RATE * 1.01))
        fw->off++;
}

/* 3. One device, two live ports and two copied ones (a mixed-cadence device:
 * counter groups on different cadences): each series learns its own. The
 * live ports are exact at 1 s; the copied ports are exact at 10 s, their
 * 1 s windows withheld (resolution), and no fine rate of theirs is ever 0
 * while they carry 10 GB/s. */
static void mixed_device_per_series(void)
{
    struct fsc_engine_config cfg;
    struct harness h;
    fsc_engine_config_defaults(&cfg);
    if (harness_open(&h, &cfg) != 0)
        return;
    rng_state = 0x452821e638d01377ull;
    struct fine_watch fw = {0};
    struct fsc_engine_observer obs = {.on_interval = watch_interval, .arg = &fw};
    fsc_engine_set_observer(h.eng, &obs);
    run_device(&h, 2, 60);

    struct fsc_engine_stats st;
    fsc_engine_stats_get(h.eng, &st);
    CHECK_INT(st.cadence_series[FSC_CADENCE_LIVE], 2);
    CHECK_INT(st.cadence_series[FSC_CADENCE_COPIED], 2);
    for (fsc_series_id id = 0; id < PORTS; id++) {
        struct fsc_series_view v;
        CHECK_INT(fsc_engine_view(h.eng, id, &v), 0);
        if (id < 2) {
            CHECK_INT(v.rate_level, 0);
            CHECK_NEAR(v.window_rate[0], RATE, RATE * 1e-6);
            CHECK_NEAR(v.fine_rate, RATE, RATE * 1e-6);
        } else {
            CHECK_INT(v.rate_level, 1);
            CHECK_INT((v.windows_done & 1) != 0, 0);
            CHECK_NEAR(v.window_rate[1], RATE, RATE * 0.005);
            CHECK_NEAR(v.fine_rate, RATE, RATE * 0.005);
        }
    }
    /* Every copy interval of the copied ports after the warm-up, 2 x 27. */
    CHECK(fw.seen >= 2 * 26);
    CHECK_INT(fw.off, 0);
    harness_close(&h);
}

TEST_MAIN(TEST(live_device_leaves_grid), TEST(batched_device_stays_on_grid),
          TEST(mixed_device_per_series))
