/* Engine and detectors, known-answer cases (a 400G microburst, a CNP storm
 * against noise, uplink imbalance) plus views and stats, through the public
 * API only: a config from fsc_engine_config_defaults(), traits, samples, an
 * event-bus subscriber and an observer. The other detector cases are in
 * detect_test.c. */
#include <errno.h>
#include <stdint.h>

#include "engine_fixture.h"
#include "event_fixture.h"

/* ---- 1. a 100 ms line-rate burst on 400G ---- */

struct burst_obs {
    int64_t want_end[3];
    double rate[3]; /* units/s of the window of level l ending at want_end[l] */
    double peak[3];
    unsigned windows[3];
    unsigned intervals;
};

static void burst_on_window(void *arg, fsc_series_id id, unsigned level, int64_t t_end, double rate,
                            double peak)
{
    struct burst_obs *o = arg;
    CHECK_INT(id, 0);
    if (level >= 3)
        return;
    o->windows[level]++;
    if (t_end == o->want_end[level]) {
        o->rate[level] = rate;
        o->peak[level] = peak;
    }
}

static void burst_on_interval(void *arg, fsc_series_id id, const struct fsc_interval *iv)
{
    struct burst_obs *o = arg;
    (void)id;
    (void)iv;
    o->intervals++;
}

static void burst_400g_one_microburst(void)
{
    struct fsc_engine_config cfg;
    struct harness h;
    fsc_engine_config_defaults(&cfg);
    cfg.rate.window_ns[0] = 100 * MS;
    cfg.rate.window_ns[1] = 500 * MS;
    cfg.rate.window_ns[2] = 1000 * MS;
    cfg.rate.n_windows = 3;
    if (harness_open(&h, &cfg) != 0)
        return;
    struct fsc_traits tr = port_bytes(400000000000ULL, FSC_DIR_TX);
    CHECK_INT(fsc_engine_set_traits(h.eng, 0, &tr), 0);

    /* Idle except [T0+1.5 s, T0+1.6 s) at line rate: 50e9 B/s x 0.1 s. */
    const int64_t b0 = T0 + 1500 * MS, b1 = T0 + 1600 * MS;
    const uint64_t burst_bytes = 5000000000ULL;
    struct burst_obs o = {.want_end = {b1, T0 + 2000 * MS, T0 + 2000 * MS}};
    struct fsc_engine_observer obs = {
        .on_interval = burst_on_interval, .on_window = burst_on_window, .arg = &o};
    fsc_engine_set_observer(h.eng, &obs);

    const uint64_t base = 1000000000000ULL;
    struct fsc_series_view view;
    for (int k = 0; k <= 30; k++) {
        int64_t t = T0 + k * 100 * MS;
        feed_u(&h, 0, t, t >= b1 ? base + burst_bytes : base);
        if (t == b1) {
            /* The 100 ms window holding the burst just completed. */
            CHECK_INT(fsc_engine_view(h.eng, 0, &view), 0);
            CHECK_REL(view.window_rate[0] * 8, 400e9, 0.01);
            CHECK_REL(view.window_peak[0] * 8, 400e9, 0.01);
            CHECK_REL(view.fine_rate * 8, 400e9, 0.01);
        }
        if (t == T0 + 2000 * MS) {
            /* The same traffic at 500 ms and 1 s: the average hides the burst,
             * the window peak does not. */
            CHECK_INT(fsc_engine_view(h.eng, 0, &view), 0);
            CHECK_REL(view.window_rate[1] * 8, 80e9, 0.01);
            CHECK_REL(view.window_rate[2] * 8, 40e9, 0.01);
            CHECK_REL(view.window_peak[1] * 8, 400e9, 0.01);
            CHECK_REL(view.window_peak[2] * 8, 400e9, 0.01);
        }
    }
    CHECK_REL(o.rate[0] * 8, 400e9, 0.01);
    CHECK_REL(o.rate[1] * 8, 80e9, 0.01);
    CHECK_REL(o.rate[2] * 8, 40e9, 0.01);
    CHECK_REL(o.peak[2] * 8, 400e9, 0.01);
    CHECK_INT(o.intervals, 30);
    CHECK_INT(o.windows[0], 30); /* 3 s of 100 ms windows */
    CHECK_INT(o.windows[1], 6);
    CHECK_INT(o.windows[2], 3);

    /* Exactly one microburst: START and END, nothing else. */
    CHECK_INT(h.n_ev, 2);
    CHECK_INT(h.lost, 0);
    CHECK_INT(count_events(&h, FSC_EV_MICROBURST, FSC_EV_START), 1);
    CHECK_INT(count_events(&h, FSC_EV_MICROBURST, FSC_EV_END), 1);
    size_t i_start = 0, i_end = 0;
    const struct fsc_event *start = find_event(&h, FSC_EV_MICROBURST, FSC_EV_START, &i_start);
    const struct fsc_event *end = find_event(&h, FSC_EV_MICROBURST, FSC_EV_END, &i_end);
    if (start && end) {
        CHECK(i_start < i_end);
        CHECK_INT(start->series, 0);
        CHECK_INT(start->direction, FSC_DIR_TX);
        CHECK_INT(start->t_start_ns, b0);
        CHECK_INT(start->t_end_ns, 0);
        CHECK_INT(end->t_start_ns, b0);
        CHECK_NEAR((double)(end->t_end_ns - end->t_start_ns), 100 * MS, 100 * MS);
        CHECK_INT(end->t_end_ns, b1);
        CHECK_REL(EVF(end, FSC_EF_PEAK_UTILIZATION), 1.0, 0.01);
        CHECK_REL(EVF(end, FSC_EF_BYTES), 5e9, 0.01);
        /* With windows 100 ms / 500 ms / 1 s, "level 0" (util_1s) is the
         * 100 ms window [1.5 s, 1.6 s), entirely inside the burst: 1.0.
         * "Level 1" (util_10s) is the 500 ms window [1.5 s, 2.0 s), of which
         * the burst filled 100 ms at line rate: 0.2. */
        CHECK_REL(EVW(end, 0), 1.0, 0.01);
        CHECK_REL(EVW(end, 1), 0.2, 0.01);
        /* The END waits for its level-1 window, which completes at 2.0 s. */
        CHECK_INT(h.seen_at[i_end], T0 + 2000 * MS);
    }
    struct fsc_engine_stats st;
    fsc_engine_stats_get(h.eng, &st);
    CHECK_INT(st.events[FSC_EV_MICROBURST], 1);
    CHECK_INT(st.events[FSC_EV_BURST], 0);
    CHECK_INT(st.samples, 31);
    CHECK_INT(st.verdicts[FSC_RATE_INTERVAL], 30);
    harness_close(&h);
}

/* ---- 6. CNP storm against a noisy baseline ---- */

/* 100 ms samples of a CNP counter: 1000/s +-20 % noise, and when storm_s > 0
 * a storm of 50000/s (same noise) during [storm_at, storm_at + storm_s). */
static void run_cnp(struct harness *h, int seconds, int storm_at, int storm_s)
{
    struct fsc_traits tr = event_counter(FSC_SIG_CNP, 64, FSC_UNIT_NONE);
    CHECK_INT(fsc_engine_set_traits(h->eng, 1, &tr), 0);
    rng_state = 0x9e3779b97f4a7c15ULL;
    uint64_t v = 123456789;
    for (int k = 0; k <= seconds * 10; k++) {
        int64_t t = T0 + k * 100 * MS;
        if (k > 0) {
            int prev = k - 1;
            bool storm = storm_s > 0 && prev >= storm_at * 10 && prev < (storm_at + storm_s) * 10;
            double per_s = storm ? 50000 : 1000;
            v += (uint64_t)(per_s * 0.1 * (1.0 + 0.2 * (2 * rng_unit() - 1)) + 0.5);
        }
        feed_u(h, 1, t, v);
    }
}

static void cnp_spike_storm(void)
{
    struct fsc_engine_config cfg;
    struct harness h;
    fsc_engine_config_defaults(&cfg);
    if (harness_open(&h, &cfg) != 0)
        return;
    const int64_t ts = T0 + 20 * NS, te = T0 + 25 * NS;
    run_cnp(&h, 45, 20, 5);
    CHECK_INT(h.n_ev, 2);
    CHECK_INT(count_events(&h, FSC_EV_CNP_SPIKE, FSC_EV_START), 1);
    CHECK_INT(count_events(&h, FSC_EV_CNP_SPIKE, FSC_EV_END), 1);
    size_t i_start = 0, i_end = 0;
    const struct fsc_event *start = find_event(&h, FSC_EV_CNP_SPIKE, FSC_EV_START, &i_start);
    const struct fsc_event *end = find_event(&h, FSC_EV_CNP_SPIKE, FSC_EV_END, &i_end);
    if (start && end) {
        CHECK_NEAR((double)(start->t_start_ns - ts), 0, 100 * MS);
        CHECK_INT(start->t_start_ns, ts); /* t0 of the first storm interval */
        /* Published once rise_intervals (3) storm intervals were seen. */
        CHECK(h.seen_at[i_start] <= ts + 3 * 100 * MS);
        CHECK_INT(start->series, 1);
        CHECK_REL(EVF(start, FSC_EF_BASELINE_RATE), 1000, 0.1);
        CHECK_NEAR((double)(end->t_end_ns - te), 0, 100 * MS);
        CHECK_INT(end->t_end_ns, te);
        CHECK_INT(end->t_start_ns, ts);
        CHECK(h.seen_at[i_end] <= te + 5 * 100 * MS);
        CHECK(EVF(end, FSC_EF_PEAK_RATE) > 50000 && EVF(end, FSC_EF_PEAK_RATE) <= 60000 * 1.001);
        CHECK_REL(EVF(end, FSC_EF_COUNT), 5 * 50000, 0.05);
        CHECK_REL(EVF(end, FSC_EF_BASELINE_RATE), 1000, 0.1);
    }
    struct fsc_engine_stats st;
    fsc_engine_stats_get(h.eng, &st);
    CHECK_INT(st.events[FSC_EV_CNP_SPIKE], 1);
    harness_close(&h);

    /* The same noise for 60 s and no storm: nothing at all. */
    if (harness_open(&h, &cfg) != 0)
        return;
    run_cnp(&h, 60, 0, 0);
    CHECK_INT(h.n_ev, 0);
    fsc_engine_stats_get(h.eng, &st);
    for (unsigned k = 0; k < FSC_EV__COUNT; k++)
        CHECK_INT(st.events[k], 0);
    CHECK_INT(st.verdicts[FSC_RATE_INTERVAL], 600);
    CHECK_INT(fsc_event_bus_published(h.bus), 0);
    harness_close(&h);
}

/* ---- 7. uplink imbalance ---- */

static void uplink_imbalance(void)
{
    struct fsc_engine_config cfg;
    struct harness h;
    fsc_engine_config_defaults(&cfg); /* level 0 = 1 s windows, 3 windows above 1.5 */
    if (harness_open(&h, &cfg) != 0)
        return;
    CHECK_NEAR(fsc_engine_group_ratio(h.eng, 0), 0, 0); /* unknown yet */
    const struct group_run skewed = {{0.6, 0.2, 0.2, 0.2}, 8, -1, -1, -1};
    int64_t seen = run_group(&h, &skewed);
    CHECK_REL(fsc_engine_group_ratio(h.eng, 0), 2.0, 0.01);
    /* The first full window is [T0, T0+1 s) (the one before was covered only
     * 50 ms). The 3rd window above the ratio ends at T0+3 s and completes with
     * the batch at T0+3.05 s: START exactly then, not one window earlier. */
    CHECK_INT(seen, T0 + 3 * NS + 50 * MS);
    CHECK_INT(h.n_ev, 1);
    const struct fsc_event *start = find_event(&h, FSC_EV_UPLINK_IMBALANCE, FSC_EV_START, NULL);
    if (start) {
        CHECK_INT(start->t_start_ns, T0);
        CHECK_INT(start->t_end_ns, 0);
        CHECK_INT(start->series, FSC_SERIES_NONE);
        CHECK_INT(start->group, 0);
        CHECK_INT(start->direction, FSC_DIR_TX);
        CHECK_REL(EVF(start, FSC_EF_PEAK_IMBALANCE), 2.0, 0.01);
    }
    struct fsc_engine_stats st;
    fsc_engine_stats_get(h.eng, &st);
    CHECK_INT(st.events[FSC_EV_UPLINK_IMBALANCE], 1);
    CHECK_INT(st.events[FSC_EV_MICROBURST], 0); /* 60 % is below rise */
    harness_close(&h);

    if (harness_open(&h, &cfg) != 0)
        return;
    const struct group_run even = {{0.3, 0.3, 0.3, 0.3}, 8, -1, -1, -1};
    CHECK_INT(run_group(&h, &even), 0);
    CHECK_REL(fsc_engine_group_ratio(h.eng, 0), 1.0, 0.01);
    CHECK_INT(h.n_ev, 0);
    CHECK_NEAR(fsc_engine_group_ratio(h.eng, 1), 0, 0); /* no such group */
    CHECK_INT(fsc_engine_group_add(h.eng, cfg.max_groups, 0), -ERANGE);
    harness_close(&h);
}

/* ---- views, verdict counters, limits, memory ---- */

static unsigned intervals_seen;
static void count_interval(void *arg, fsc_series_id id, const struct fsc_interval *iv)
{
    (void)arg;
    (void)id;
    (void)iv;
    intervals_seen++;
}

/* on_samples sees every sample of a batch as it came, whatever its verdict. */
static size_t batches_seen, samples_seen;
static uint64_t last_seen_value;
static void count_samples(void *arg, const struct fsc_sample *smp, size_t n)
{
    (void)arg;
    batches_seen++;
    samples_seen += n;
    last_seen_value = n ? smp[n - 1].v.u : 0;
}

static void view_and_stats(void)
{
    struct fsc_engine_config cfg;
    struct harness h;
    fsc_engine_config_defaults(&cfg);
    cfg.max_series = 8;
    if (harness_open(&h, &cfg) != 0)
        return;
    struct fsc_engine_observer obs = {.on_interval = count_interval, .on_samples = count_samples};
    intervals_seen = 0;
    batches_seen = samples_seen = 0;
    fsc_engine_set_observer(h.eng, &obs);
    struct fsc_traits gauge = {.kind = FSC_KIND_GAUGE, .width = 64, .unit = FSC_UNIT_RATIO};
    CHECK_INT(fsc_engine_set_traits(h.eng, 1, &gauge), 0);
    CHECK_INT(fsc_engine_set_traits(h.eng, 8, &gauge), -ERANGE);

    /* Series 0 has no traits: a plain 64-bit counter. */
    const struct fsc_sample smp[] = {
        {.series = 0, .t_dev_ns = T0, .v.u = 100},            /* baseline */
        {.series = 0, .t_dev_ns = T0 + 1 * NS, .v.u = 300},   /* 200/s */
        {.series = 0, .t_dev_ns = T0 + 1 * NS, .v.u = 300},   /* duplicate */
        {.series = 0, .t_dev_ns = T0 + 500 * MS, .v.u = 200}, /* out of order */
        {.series = 0, .t_dev_ns = T0 + 2 * NS, .v.u = 500, .flags = FSC_SMP_ARRIVAL_TIME},
        {.series = 8, .t_dev_ns = T0, .v.u = 1},               /* beyond max_series */
        {.series = FSC_SERIES_NONE, .t_dev_ns = T0, .v.u = 1}, /* never valid */
        {.series = 1, .t_dev_ns = T0, .v.d = 0.25, .flags = FSC_SMP_F64},
    };
    CHECK_INT(fsc_engine_ingest(h.eng, smp, sizeof(smp) / sizeof(smp[0])), 0);
    CHECK_INT(intervals_seen, 2);
    CHECK_INT(batches_seen, 1);
    CHECK_INT(samples_seen, 8); /* the duplicate, the late and the unknown ones too */
    CHECK_INT(last_seen_value, smp[7].v.u);
    fsc_engine_set_observer(h.eng, NULL);
    CHECK_INT(fsc_engine_ingest(
                  h.eng, &(struct fsc_sample){.series = 0, .t_dev_ns = T0 + 3 * NS, .v.u = 900}, 1),
              0);
    CHECK_INT(intervals_seen, 2); /* observer removed */
    CHECK_INT(samples_seen, 8);

    struct fsc_engine_stats st;
    fsc_engine_stats_get(h.eng, &st);
    CHECK_INT(st.samples, 9);
    CHECK_INT(st.verdicts[FSC_RATE_BASELINE], 1);
    CHECK_INT(st.verdicts[FSC_RATE_INTERVAL], 3);
    CHECK_INT(st.verdicts[FSC_RATE_DUPLICATE], 1);
    CHECK_INT(st.verdicts[FSC_RATE_OUT_OF_ORDER], 1);
    CHECK_INT(st.verdicts[FSC_RATE_GAUGE], 1);
    CHECK_INT(st.unknown_series, 2);
    CHECK_INT(st.arrival_time_samples, 1);
    CHECK_INT(st.wraps, 0);

    struct fsc_series_view view;
    CHECK_INT(fsc_engine_view(h.eng, 0, &view), 0);
    CHECK_INT(view.kind, FSC_KIND_COUNTER);
    CHECK_INT(view.has_value, 1);
    CHECK_INT(view.is_f64, 0);
    CHECK_INT(view.t_last_ns, T0 + 3 * NS);
    CHECK_INT(view.value.u, 900);
    CHECK_NEAR(view.fine_rate, 400, 1e-3);
    CHECK_NEAR(view.window_rate[0], 400, 1e-3); /* [T0+2 s, T0+3 s): 500 -> 900 */
    CHECK_INT(fsc_engine_view(h.eng, 1, &view), 0);
    CHECK_INT(view.kind, FSC_KIND_GAUGE);
    CHECK_INT(view.is_f64, 1);
    CHECK_INT(view.has_value, 1);
    CHECK_NEAR(view.value.d, 0.25, 0);
    CHECK_INT(fsc_engine_view(h.eng, 2, &view), -ENOENT); /* never seen */
    CHECK_INT(fsc_engine_view(h.eng, 8, &view), -ENOENT); /* beyond max_series */
    CHECK(fsc_engine_memory_bytes(h.eng) >= 8 * 128);
    harness_close(&h);

    /* Memory: 8192 series sharing one set of traits cost their slots and
     * nothing per series beyond them (traits are interned). */
    fsc_engine_config_defaults(&cfg);
    char err[256];
    struct fsc_engine *eng = fsc_engine_create(&cfg, NULL, err, sizeof(err));
    CHECK(eng != NULL);
    if (!eng)
        return;
    size_t empty = fsc_engine_memory_bytes(eng);
    struct fsc_traits plain = event_counter(FSC_SIG_NONE, 64, FSC_UNIT_PACKETS);
    for (fsc_series_id id = 0; id < 8192; id++)
        CHECK_INT(fsc_engine_set_traits(eng, id, &plain), 0);
    size_t full = fsc_engine_memory_bytes(eng);
    CHECK(full - empty <= 8192 * 128 + 4096);
    CHECK(full - empty >= 8192 * 128);
    fsc_engine_destroy(eng);
    fsc_engine_destroy(NULL);
}

TEST_MAIN(TEST(burst_400g_one_microburst), TEST(cnp_spike_storm), TEST(uplink_imbalance),
          TEST(view_and_stats))
