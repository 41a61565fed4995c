/* Detectors beyond the known-answer cases of engine_test.c, through the
 * public API only: microburst context with coarse samples, long bursts and
 * flushing, imbalance members that skip or die, PFC storms, a 32-bit wrap
 * inside a spike, a counter reset, switch/NIC queue evidence, and the
 * engine's configuration sentences. */
#include <errno.h>
#include <stdint.h>

#include "engine_fixture.h"
#include "event_fixture.h"

/* ---- microburst context with samples coarser than the windows ---- */

/* Samples every 200 ms against 100 ms and 500 ms windows: the 100 ms
 * windows are shorter than the update period, so the engine never emits them
 * (rate.h rule 9) and the END carries no level-0 context instead of waiting
 * for it; the 500 ms window that holds the burst's end completes after it. */
static void burst_context_coarse_samples(void)
{
    struct fsc_engine_config cfg;
    struct harness h;
    fsc_engine_config_defaults(&cfg);
    cfg.rate.window_ns[0] = 100 * MS;
    cfg.rate.window_ns[1] = 500 * MS;
    cfg.rate.window_ns[2] = 1000 * MS;
    if (harness_open(&h, &cfg) != 0)
        return;
    struct fsc_traits tr = port_bytes(400000000000ULL, FSC_DIR_TX);
    tr.nominal_interval_ns = 200 * MS;
    CHECK_INT(fsc_engine_set_traits(h.eng, 0, &tr), 0);
    /* Line rate during [1.0 s, 1.2 s): 1e10 bytes. */
    for (int k = 0; k <= 15; k++) {
        int64_t t = T0 + k * 200 * MS;
        feed_u(&h, 0, t, t >= T0 + 1200 * MS ? 10000000000ULL : 0);
    }
    CHECK_INT(h.n_ev, 2);
    size_t i_end = 0;
    const struct fsc_event *end = find_event(&h, FSC_EV_MICROBURST, FSC_EV_END, &i_end);
    CHECK(end != NULL);
    if (end) {
        CHECK_INT(end->t_start_ns, T0 + 1000 * MS);
        CHECK_INT(end->t_end_ns, T0 + 1200 * MS);
        CHECK_REL(EVF(end, FSC_EF_BYTES), 1e10, 0.01);
        CHECK(EVW(end, 0) == -1);          /* withheld: no level-0 field */
        CHECK_REL(EVW(end, 1), 0.4, 0.01); /* [1.0 s, 1.5 s): 200 of 500 ms */
        CHECK_INT(h.seen_at[i_end], T0 + 1600 * MS);
    }
    harness_close(&h);
}

/* ---- long burst, UPDATE, and flushing an END whose windows are late ---- */

static void long_burst_and_flush(void)
{
    struct fsc_engine_config cfg;
    struct harness h;
    fsc_engine_config_defaults(&cfg); /* windows 1 s, 10 s, 60 s */
    cfg.microburst.update_every_ns = 1 * NS;
    if (harness_open(&h, &cfg) != 0)
        return;
    struct fsc_traits tr = port_bytes(400000000000ULL, FSC_DIR_RX);
    CHECK_INT(fsc_engine_set_traits(h.eng, 3, &tr), 0);

    /* Line rate during [1.0, 3.5), [5.0, 5.2) and [6.0, 6.3) s. */
    const uint64_t per_tick = 5000000000ULL; /* 100 ms at 400G */
    uint64_t v = 0;
    for (int k = 0; k <= 105; k++) {
        int64_t t = T0 + k * 100 * MS;
        if (k > 0) {
            int prev = k - 1; /* the interval [prev, k] x 100 ms */
            if ((prev >= 10 && prev < 35) || (prev >= 50 && prev < 52) || (prev >= 60 && prev < 63))
                v += per_tick;
        }
        feed_u(&h, 3, t, v);
    }
    CHECK_INT(h.n_ev, 7);
    static const struct {
        uint8_t kind, phase;
        int64_t start_ms, end_ms, seen_ms;
        double util_1s, util_10s;
    } want[] = {
        {FSC_EV_BURST, FSC_EV_START, 1000, 0, 2000, -1, -1},
        {FSC_EV_BURST, FSC_EV_UPDATE, 1000, 0, 3000, -1, -1},
        /* The long burst's 10 s window is not complete when the next burst
         * ends: flushed with util_10s unknown. util_1s: [3 s, 4 s) ran 0.5 s. */
        {FSC_EV_BURST, FSC_EV_END, 1000, 3500, 5300, 0.5, -1},
        {FSC_EV_MICROBURST, FSC_EV_START, 5000, 0, 5300, -1, -1},
        {FSC_EV_MICROBURST, FSC_EV_END, 5000, 5200, 6400, 0.2, -1},
        {FSC_EV_MICROBURST, FSC_EV_START, 6000, 0, 6400, -1, -1},
        /* [0, 10 s) carried 2.5 + 0.2 + 0.3 s at line rate: 0.3. */
        {FSC_EV_MICROBURST, FSC_EV_END, 6000, 6300, 10000, 0.3, 0.3},
    };
    for (size_t i = 0; i < h.n_ev && i < sizeof(want) / sizeof(want[0]); i++) {
        const struct fsc_event *ev = &h.ev[i];
        CHECK_INT(ev->kind, want[i].kind);
        CHECK_INT(ev->phase, want[i].phase);
        CHECK_INT(ev->series, 3);
        CHECK_INT(ev->direction, FSC_DIR_RX);
        CHECK_INT(ev->t_start_ns, T0 + want[i].start_ms * MS);
        CHECK_INT(ev->t_end_ns, want[i].end_ms ? T0 + want[i].end_ms * MS : 0);
        CHECK_INT(h.seen_at[i], T0 + want[i].seen_ms * MS);
        CHECK_NEAR(EVW(ev, 0), want[i].util_1s, 0.01);
        CHECK_NEAR(EVW(ev, 1), want[i].util_10s, 0.01);
        CHECK_REL(EVF(ev, FSC_EF_PEAK_UTILIZATION), 1.0, 0.01);
    }
    if (h.n_ev >= 3)
        CHECK_REL(EVF(&h.ev[2], FSC_EF_BYTES), 2.5 * 50e9, 0.01);
    struct fsc_engine_stats st;
    fsc_engine_stats_get(h.eng, &st);
    CHECK_INT(st.events[FSC_EV_BURST], 1);
    CHECK_INT(st.events[FSC_EV_MICROBURST], 2);
    harness_close(&h);
}

/* ---- uplink imbalance: members that skip a window or die ---- */

/* A member that skips a window, and one that never reports, wedge nothing. */
static void imbalance_member_skips_and_dies(void)
{
    struct fsc_engine_config cfg;
    struct harness h;
    fsc_engine_config_defaults(&cfg);
    if (harness_open(&h, &cfg) != 0)
        return;
    /* Member 1's counter is cleared at T0+2.55 s: its baseline restarts and
     * it never reports the window [2 s, 3 s). That window is judged over the
     * other three (0.6 / mean(0.6, 0.2, 0.2) = 1.8, still above 1.5) as soon
     * as member 1 reports [3 s, 4 s), so the run of three windows is
     * unbroken and START comes with the batch at 4.05 s, starting at T0. */
    const struct group_run skip = {{0.6, 0.2, 0.2, 0.2}, 8, 1, 26, -1};
    int64_t seen = run_group(&h, &skip);
    CHECK_INT(seen, T0 + 4 * NS + 50 * MS);
    const struct fsc_event *start = find_event(&h, FSC_EV_UPLINK_IMBALANCE, FSC_EV_START, NULL);
    if (start)
        CHECK_INT(start->t_start_ns, T0);
    /* The START, and the counter_reset of member 1's cleared counter. */
    CHECK_INT(h.n_ev, 2);
    CHECK(find_event(&h, FSC_EV_COUNTER_RESET, FSC_EV_INSTANT, NULL) != NULL);
    CHECK_REL(fsc_engine_group_ratio(h.eng, 0), 2.0, 0.01);
    struct fsc_engine_stats st;
    fsc_engine_stats_get(h.eng, &st);
    CHECK_INT(st.verdicts[FSC_RATE_RESET], 1);
    harness_close(&h);

    /* Member 3 never sends anything. The group waits for it for 8 windows
     * (a late member may be batched), then judges without it: the first
     * window judged is [9 s, 10 s), the third ends at 12 s. */
    if (harness_open(&h, &cfg) != 0)
        return;
    const struct group_run dead = {{0.6, 0.2, 0.2, 0.0}, 20, -1, -1, 3};
    seen = run_group(&h, &dead);
    CHECK_INT(seen, T0 + 12 * NS + 50 * MS);
    start = find_event(&h, FSC_EV_UPLINK_IMBALANCE, FSC_EV_START, NULL);
    if (start)
        CHECK_INT(start->t_start_ns, T0 + 9 * NS);
    CHECK_REL(fsc_engine_group_ratio(h.eng, 0), 1.8, 0.01);
    harness_close(&h);
}

/* ---- PFC storms: paused fraction and frame rate ---- */

static void pfc_storm(void)
{
    struct fsc_engine_config cfg;
    struct harness h;
    fsc_engine_config_defaults(&cfg);
    cfg.microburst.update_every_ns = 1 * NS; /* the period of UPDATEs of every detector */
    if (harness_open(&h, &cfg) != 0)
        return;
    struct fsc_traits dur = event_counter(FSC_SIG_PFC_PAUSE_DURATION, 64, FSC_UNIT_MICROSECONDS);
    struct fsc_traits frames = event_counter(FSC_SIG_PFC_PAUSE_FRAMES, 64, FSC_UNIT_PACKETS);
    dur.direction = frames.direction = FSC_DIR_RX;
    CHECK_INT(fsc_engine_set_traits(h.eng, 5, &dur), 0);
    CHECK_INT(fsc_engine_set_traits(h.eng, 6, &frames), 0);

    /* Duration: paused 1 % of the time, 50 % during [5 s, 7 s).
     * Frames: 100/s, 20000/s during [8 s, 9 s). */
    uint64_t paused_us = 0, nframes = 0;
    for (int k = 0; k <= 150; k++) {
        int64_t t = T0 + k * 100 * MS;
        if (k > 0) {
            int prev = k - 1;
            paused_us += prev >= 50 && prev < 70 ? 50000 : 1000;
            nframes += prev >= 80 && prev < 90 ? 2000 : 10;
        }
        struct fsc_sample batch[2] = {
            {.series = 5, .t_dev_ns = t, .t_arr_ns = t, .v.u = paused_us},
            {.series = 6, .t_dev_ns = t, .t_arr_ns = t, .v.u = nframes},
        };
        CHECK_INT(fsc_engine_ingest(h.eng, batch, 2), 0);
        harness_poll(&h, t);
    }
    CHECK_INT(h.n_ev, 5);
    CHECK_INT(count_events(&h, FSC_EV_PFC_STORM, FSC_EV_START), 2);
    /* The 2 s storm started (3rd high interval) at 5.3 s: one UPDATE 1 s later
     * with 13 intervals x 50 ms paused so far; the 1 s storm gets none. */
    size_t i_upd = 0;
    const struct fsc_event *upd = find_event(&h, FSC_EV_PFC_STORM, FSC_EV_UPDATE, &i_upd);
    CHECK_INT(count_events(&h, FSC_EV_PFC_STORM, FSC_EV_UPDATE), 1);
    if (upd) {
        CHECK_INT(upd->series, 5);
        CHECK_INT(upd->t_start_ns, T0 + 5 * NS);
        CHECK_INT(upd->t_end_ns, 0);
        CHECK_REL(EVF(upd, FSC_EF_PAUSED_SECONDS), 0.65, 0.001);
        CHECK_INT(h.seen_at[i_upd], T0 + 6300 * MS);
    }
    CHECK_INT(count_events(&h, FSC_EV_PFC_STORM, FSC_EV_END), 2);
    for (size_t i = 0; i < h.n_ev; i++) {
        const struct fsc_event *ev = &h.ev[i];
        CHECK_INT(ev->direction, FSC_DIR_RX);
        if (ev->phase != FSC_EV_END)
            continue;
        if (ev->series == 5) {
            CHECK_INT(ev->t_start_ns, T0 + 5 * NS);
            CHECK_INT(ev->t_end_ns, T0 + 7 * NS);
            CHECK_REL(EVF(ev, FSC_EF_PEAK_PAUSED_FRACTION), 0.5, 0.001); /* paused fraction */
            CHECK_REL(EVF(ev, FSC_EF_PAUSED_SECONDS), 1.0, 0.001);       /* 2 s x 50 % paused */
        } else {
            CHECK_INT(ev->series, 6);
            CHECK_INT(ev->t_start_ns, T0 + 8 * NS);
            CHECK_INT(ev->t_end_ns, T0 + 9 * NS);
            CHECK_REL(EVF(ev, FSC_EF_PEAK_PAUSE_FRAMES_RATE), 20000, 0.001); /* frames/s */
            CHECK_REL(EVF(ev, FSC_EF_PAUSE_FRAMES), 20000, 0.001);           /* frames */
        }
    }
    struct fsc_engine_stats st;
    fsc_engine_stats_get(h.eng, &st);
    CHECK_INT(st.events[FSC_EV_PFC_STORM], 2);
    harness_close(&h);
}

/* ---- a 32-bit out_of_sequence counter wrapping inside a spike ---- */

static void reorder_spike_32bit_wrap(void)
{
    struct fsc_engine_config cfg;
    struct harness h;
    fsc_engine_config_defaults(&cfg); /* reorder floor 100/s */
    if (harness_open(&h, &cfg) != 0)
        return;
    struct fsc_traits tr = event_counter(FSC_SIG_REORDER, 32, FSC_UNIT_NONE);
    CHECK_INT(fsc_engine_set_traits(h.eng, 2, &tr), 0);

    /* 20/s, then 10000/s during [10 s, 13 s), then 20/s; the counter starts
     * 12345 below 2^32 and wraps in the middle of the spike. */
    uint64_t v = 4294967296ULL - 12345;
    for (int k = 0; k <= 230; k++) {
        int64_t t = T0 + k * 100 * MS;
        if (k > 0) {
            int prev = k - 1;
            v = (v + (prev >= 100 && prev < 130 ? 1000 : 2)) & 0xffffffffULL;
        }
        feed_u(&h, 2, t, v);
    }
    CHECK_INT(h.n_ev, 2);
    CHECK_INT(count_events(&h, FSC_EV_REORDER_SPIKE, FSC_EV_START), 1);
    const struct fsc_event *end = find_event(&h, FSC_EV_REORDER_SPIKE, FSC_EV_END, NULL);
    CHECK(end != NULL);
    if (end) {
        CHECK_INT(end->t_start_ns, T0 + 10 * NS);
        CHECK_INT(end->t_end_ns, T0 + 13 * NS);
        CHECK_NEAR(EVF(end, FSC_EF_COUNT), 30000, 0.5); /* exact: the wrap lost nothing */
        CHECK_NEAR(EVF(end, FSC_EF_PEAK_RATE), 10000, 0.01);
        CHECK_NEAR(EVF(end, FSC_EF_BASELINE_RATE), 20, 0.01);
    }
    struct fsc_engine_stats st;
    fsc_engine_stats_get(h.eng, &st);
    CHECK_INT(st.wraps, 1);
    CHECK_INT(st.verdicts[FSC_RATE_RESET], 0);
    CHECK_INT(st.events[FSC_EV_REORDER_SPIKE], 1);
    harness_close(&h);
}

/* ---- a 64-bit CNP counter reset mid-run ---- */

static void reset_no_spike(void)
{
    struct fsc_engine_config cfg;
    struct harness h;
    fsc_engine_config_defaults(&cfg);
    if (harness_open(&h, &cfg) != 0)
        return;
    struct fsc_traits tr = event_counter(FSC_SIG_CNP, 64, FSC_UNIT_NONE);
    CHECK_INT(fsc_engine_set_traits(h.eng, 0, &tr), 0);
    rng_state = 42;
    uint64_t v = 5000000000ULL, before = 0;
    for (int k = 0; k <= 200; k++) {
        int64_t t = T0 + k * 100 * MS;
        if (k == 100) {
            before = v;
            v = 37; /* device reload: the counter starts again near 0 */
        } else if (k > 0) {
            v += (uint64_t)(100 * (1.0 + 0.2 * (2 * rng_unit() - 1)));
        }
        feed_u(&h, 0, t, v);
    }
    /* No spike: the only event is the reset itself, with both values. */
    CHECK_INT(h.n_ev, 1);
    if (h.n_ev == 1) {
        CHECK_INT(h.ev[0].kind, FSC_EV_COUNTER_RESET);
        CHECK_INT(h.ev[0].phase, FSC_EV_INSTANT);
        CHECK_INT(h.ev[0].series, 0);
        CHECK_INT(h.ev[0].t_start_ns, T0 + 10 * NS);
        CHECK_INT(h.ev[0].t_end_ns, T0 + 10 * NS);
        CHECK_NEAR(EVF(&h.ev[0], FSC_EF_VALUE_BEFORE), (double)before, 0.5);
        CHECK_NEAR(EVF(&h.ev[0], FSC_EF_VALUE_AFTER), 37, 0);
        CHECK_NEAR(EVF(&h.ev[0], FSC_EF_HELD_BACK_RESETS), 0, 0);
        CHECK_NEAR(EVF(&h.ev[0], FSC_EF_CAUSE), 0, 0); /* a decrease, not reset evidence */
    }
    struct fsc_engine_stats st;
    fsc_engine_stats_get(h.eng, &st);
    CHECK_INT(st.verdicts[FSC_RATE_RESET], 1);
    CHECK_INT(st.verdicts[FSC_RATE_INTERVAL], 199);
    for (unsigned k = 0; k < FSC_EV__COUNT; k++)
        CHECK_INT(st.events[k], k == FSC_EV_COUNTER_RESET ? 1 : 0);
    CHECK_INT(st.reset_events_suppressed, 0);
    harness_close(&h);
}

/* ---- queue watermark and NIC buffer-threshold evidence ---- */

static void queue_peak_evidence(void)
{
    struct fsc_engine_config cfg;
    struct harness h;
    fsc_engine_config_defaults(&cfg); /* share 0.5 */
    if (harness_open(&h, &cfg) != 0)
        return;
    struct fsc_traits q = {.kind = FSC_KIND_GAUGE,
                           .width = 64,
                           .unit = FSC_UNIT_BYTES,
                           .signal = FSC_SIG_QUEUE_PEAK,
                           .buffer_bytes = 1000000};
    struct fsc_traits thr = event_counter(FSC_SIG_BUFFER_THRESHOLD, 64, FSC_UNIT_NONE);
    CHECK_INT(fsc_engine_set_traits(h.eng, 0, &q), 0);
    CHECK_INT(fsc_engine_set_traits(h.eng, 1, &thr), 0);

    /* Crossing at 600 kB (event), still high at 700 kB (no event), back
     * below at 400 kB (re-armed), crossing again at 800 kB (event). */
    static const uint64_t peaks[] = {100000, 600000, 700000, 400000, 800000, 900000};
    for (unsigned k = 0; k < 6; k++)
        feed_u(&h, 0, T0 + k * 100 * MS, peaks[k]);
    CHECK_INT(h.n_ev, 2);
    for (size_t i = 0; i < h.n_ev && i < 2; i++) {
        CHECK_INT(h.ev[i].kind, FSC_EV_QUEUE_PEAK);
        CHECK_INT(h.ev[i].phase, FSC_EV_INSTANT);
        CHECK_INT(h.ev[i].series, 0);
    }
    if (h.n_ev == 2) {
        CHECK_INT(h.ev[0].t_start_ns, T0 + 100 * MS);
        CHECK_NEAR(EVF(&h.ev[0], FSC_EF_QUEUE_PEAK_BYTES), 600000, 0);
        CHECK_NEAR(EVF(&h.ev[0], FSC_EF_BUFFER_SHARE), 0.6, 1e-9);
        CHECK_INT(h.ev[1].t_start_ns, T0 + 400 * MS);
        CHECK_NEAR(EVF(&h.ev[1], FSC_EF_QUEUE_PEAK_BYTES), 800000, 0);
    }

    /* rx_buffer_passed_thres_phy: +5 in [0.1, 0.2] s, +3 in [0.2, 0.3] s
     * (held: less than 1 s after the first event), +2 in [1.4, 1.5] s (goes
     * out with the 3 held back). */
    uint64_t v = 1000;
    for (int k = 0; k <= 20; k++) {
        v += k == 2 ? 5 : k == 3 ? 3 : k == 15 ? 2 : 0;
        feed_u(&h, 1, T0 + k * 100 * MS, v);
    }
    CHECK_INT(h.n_ev, 4);
    if (h.n_ev == 4) {
        CHECK_INT(h.ev[2].kind, FSC_EV_BUFFER_THRESHOLD);
        CHECK_INT(h.ev[2].phase, FSC_EV_INSTANT);
        CHECK_INT(h.ev[2].series, 1);
        CHECK_INT(h.ev[2].t_start_ns, T0 + 100 * MS);
        CHECK_INT(h.ev[2].t_end_ns, T0 + 200 * MS);
        CHECK_NEAR(EVF(&h.ev[2], FSC_EF_CROSSINGS), 5, 0);
        CHECK_INT(h.ev[3].kind, FSC_EV_BUFFER_THRESHOLD);
        CHECK_INT(h.ev[3].t_start_ns, T0 + 200 * MS);
        CHECK_INT(h.ev[3].t_end_ns, T0 + 1500 * MS);
        CHECK_NEAR(EVF(&h.ev[3], FSC_EF_CROSSINGS), 5, 0);
    }
    struct fsc_engine_stats st;
    fsc_engine_stats_get(h.eng, &st);
    CHECK_INT(st.events[FSC_EV_QUEUE_PEAK], 2);
    CHECK_INT(st.events[FSC_EV_BUFFER_THRESHOLD], 2);
    CHECK_INT(st.verdicts[FSC_RATE_GAUGE], 6);
    harness_close(&h);
}

/* ---- configuration sentences ---- */

static void expect_invalid(const struct fsc_engine_config *cfg, const char *sentence)
{
    char err[256] = "";
    CHECK_INT(fsc_engine_config_validate(cfg, err, sizeof(err)), -EINVAL);
    CHECK_STR(err, sentence);
}

static void config_validate(void)
{
    struct fsc_engine_config cfg, bad;
    char err[256] = "";
    fsc_engine_config_defaults(&cfg);
    CHECK_INT(fsc_engine_config_validate(&cfg, err, sizeof(err)), 0);
    CHECK_INT(cfg.rate.n_windows, 3);
    CHECK_INT(cfg.rate.window_ns[0], NS);
    CHECK_NEAR(cfg.microburst.rise, 0.7, 0);
    CHECK_NEAR(cfg.reorder.floor, 100, 0);
    CHECK_NEAR(cfg.cnp.floor, 5000, 0);
    CHECK_INT(cfg.max_series, 4u << 20);

    bad = cfg;
    bad.microburst.fall = 0.8;
    expect_invalid(&bad, "engine.microburst.fall (0.8) must be below rise (0.7)");
    bad = cfg;
    bad.rate.window_ns[2] = 5 * NS;
    expect_invalid(&bad, "engine.windows (window 3: 5000000000 ns) must be longer than window 2 "
                         "(10000000000 ns)");
    bad = cfg;
    bad.rate.n_windows = 0;
    expect_invalid(&bad, "engine.windows (0 given) must list 1 to 4 windows");
    bad = cfg;
    bad.imbalance.level = 3;
    expect_invalid(&bad, "engine.imbalance.window (level 3) must be one of the 3 engine.windows");
    bad = cfg;
    bad.ecn.factor = 0;
    expect_invalid(&bad, "engine.ecn.factor (0) must be above 0");
    bad = cfg;
    bad.pfc.rise_intervals = 0;
    expect_invalid(&bad, "engine.pfc.rise_intervals (0) must be between 1 and 100000");
    bad = cfg;
    bad.imbalance.ratio = 1.0;
    expect_invalid(&bad, "engine.imbalance.ratio (1) must be above 1");
    bad = cfg;
    bad.microburst.rise = NAN;
    CHECK_INT(fsc_engine_config_validate(&bad, err, sizeof(err)), -EINVAL);

    /* create refuses a bad config with the same sentence. */
    bad = cfg;
    bad.microburst.fall = 0.8;
    err[0] = '\0';
    CHECK(fsc_engine_create(&bad, NULL, err, sizeof(err)) == NULL);
    CHECK_STR(err, "engine.microburst.fall (0.8) must be below rise (0.7)");
}

TEST_MAIN(TEST(long_burst_and_flush), TEST(burst_context_coarse_samples),
          TEST(imbalance_member_skips_and_dies), TEST(pfc_storm), TEST(reorder_spike_32bit_wrap),
          TEST(reset_no_spike), TEST(queue_peak_evidence), TEST(config_validate))
