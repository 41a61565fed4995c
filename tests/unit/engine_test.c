/* Engine and detectors, through the public API only: a config from
 * fsc_engine_config_defaults(), traits, samples, an event-bus subscriber and an
 * observer. Known-answer cases 1, 6 and 7 of the foundation issue plus PFC,
 * 32-bit wraps, resets, switch/NIC evidence, views, stats and config checks. */
#include <errno.h>
#include <stdint.h>

#include "engine/engine.h"
#include "test.h"

#define NS 1000000000LL
#define MS 1000000LL
/* 2023-11-14T22:13:20Z: a whole second, a whole 10 s. */
#define T0 (1700000000LL * NS)

#define MAX_EVENTS 64

/* ---- helpers ---- */

struct harness {
    struct fsc_event_bus *bus;
    struct fsc_event_sub *sub;
    struct fsc_engine *eng;
    struct fsc_event ev[MAX_EVENTS];
    int64_t seen_at[MAX_EVENTS]; /* device time of the sample after which it was polled */
    size_t n_ev;
    uint64_t lost;
};

static int harness_open(struct harness *h, const struct fsc_engine_config *cfg)
{
    char err[256] = "";
    memset(h, 0, sizeof(*h));
    h->bus = fsc_event_bus_create(256);
    h->sub = h->bus ? fsc_event_subscribe(h->bus) : NULL;
    h->eng = h->sub ? fsc_engine_create(cfg, h->bus, err, sizeof(err)) : NULL;
    if (!h->eng)
        fprintf(stderr, "engine: %s\n", err);
    CHECK(h->eng != NULL);
    return h->eng ? 0 : -1;
}

static void harness_close(struct harness *h)
{
    fsc_engine_destroy(h->eng);
    fsc_event_unsubscribe(h->sub);
    fsc_event_bus_destroy(h->bus);
}

/* Collects what the bus has, stamping each event with `now`. */
static void harness_poll(struct harness *h, int64_t now)
{
    struct fsc_event buf[16];
    uint64_t lost = 0;
    size_t n;
    for (int rounds = 0; rounds < 64; rounds++) {
        n = fsc_event_poll(h->sub, buf, 16, &lost);
        h->lost += lost;
        for (size_t i = 0; i < n; i++) {
            CHECK(h->n_ev < MAX_EVENTS);
            if (h->n_ev < MAX_EVENTS) {
                h->seen_at[h->n_ev] = now;
                h->ev[h->n_ev++] = buf[i];
            }
        }
        if (n < 16)
            break;
    }
}

static void feed_u(struct harness *h, fsc_series_id id, int64_t t, uint64_t v)
{
    struct fsc_sample smp = {.series = id, .t_dev_ns = t, .t_arr_ns = t, .v.u = v};
    CHECK_INT(fsc_engine_ingest(h->eng, &smp, 1), 0);
    harness_poll(h, t);
}

static size_t count_events(const struct harness *h, enum fsc_event_kind kind,
                           enum fsc_event_phase phase)
{
    size_t n = 0;
    for (size_t i = 0; i < h->n_ev; i++)
        n += h->ev[i].kind == kind && h->ev[i].phase == phase;
    return n;
}

/* The first event of kind/phase, or NULL. */
static const struct fsc_event *find_event(const struct harness *h, enum fsc_event_kind kind,
                                          enum fsc_event_phase phase, size_t *at)
{
    for (size_t i = 0; i < h->n_ev; i++) {
        if (h->ev[i].kind == kind && h->ev[i].phase == phase) {
            if (at)
                *at = i;
            return &h->ev[i];
        }
    }
    return NULL;
}

static struct fsc_traits port_bytes(uint64_t speed, uint8_t dir)
{
    return (struct fsc_traits){.kind = FSC_KIND_COUNTER,
                               .width = 64,
                               .unit = FSC_UNIT_BYTES,
                               .signal = FSC_SIG_PORT_BYTES,
                               .direction = dir,
                               .link_speed_bps = speed,
                               .nominal_interval_ns = 100 * MS};
}

static struct fsc_traits event_counter(uint8_t signal, uint8_t width, uint8_t unit)
{
    return (struct fsc_traits){.kind = FSC_KIND_COUNTER,
                               .width = width,
                               .unit = unit,
                               .signal = signal,
                               .nominal_interval_ns = 100 * MS};
}

/* xorshift64*: seeded, so the "noise" is the same on every run. */
static uint64_t rng_state;
static double rng_unit(void)
{
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return (double)((rng_state * 2685821657736338717ULL) >> 11) / 9007199254740992.0;
}

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
        CHECK_REL(end->peak, 1.0, 0.01);
        CHECK_REL(end->amount, 5e9, 0.01);
        /* With windows 100 ms / 500 ms / 1 s, "level 0" (util_1s) is the
         * 100 ms window [1.5 s, 1.6 s), entirely inside the burst: 1.0.
         * "Level 1" (util_10s) is the 500 ms window [1.5 s, 2.0 s), of which
         * the burst filled 100 ms at line rate: 0.2. */
        CHECK_REL(end->util_1s, 1.0, 0.01);
        CHECK_REL(end->util_10s, 0.2, 0.01);
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

/* Samples every 200 ms against 100 ms windows: every sample completes two
 * level-0 windows, and the one that holds the burst's end is the *second* of
 * them, completed one sample before the burst is known to have ended. */
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
        CHECK_REL(end->amount, 1e10, 0.01);
        CHECK_REL(end->util_1s, 1.0, 0.01);  /* [1.1 s, 1.2 s) */
        CHECK_REL(end->util_10s, 0.4, 0.01); /* [1.0 s, 1.5 s): 200 of 500 ms */
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
        CHECK_NEAR(ev->util_1s, want[i].util_1s, 0.01);
        CHECK_NEAR(ev->util_10s, want[i].util_10s, 0.01);
        CHECK_REL(ev->peak, 1.0, 0.01);
    }
    if (h.n_ev >= 3)
        CHECK_REL(h.ev[2].amount, 2.5 * 50e9, 0.01);
    struct fsc_engine_stats st;
    fsc_engine_stats_get(h.eng, &st);
    CHECK_INT(st.events[FSC_EV_BURST], 1);
    CHECK_INT(st.events[FSC_EV_MICROBURST], 2);
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
        CHECK_REL(start->baseline, 1000, 0.1);
        CHECK_NEAR((double)(end->t_end_ns - te), 0, 100 * MS);
        CHECK_INT(end->t_end_ns, te);
        CHECK_INT(end->t_start_ns, ts);
        CHECK(h.seen_at[i_end] <= te + 5 * 100 * MS);
        CHECK(end->peak > 50000 && end->peak <= 60000 * 1.001);
        CHECK_REL(end->amount, 5 * 50000, 0.05);
        CHECK_REL(end->baseline, 1000, 0.1);
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

/* Four 400G uplinks (tx) in group 0 at the given utilizations, 100 ms samples
 * at 50 ms past each 100 ms edge so no sample sits on a window edge. Member
 * `reset_member` has its counter cleared at step `reset_k`; member `silent`
 * never sends a sample (-1: none). Returns the device time of the batch after
 * which the first START was seen (0: none). */
struct group_run {
    double util[4];
    int seconds;
    int reset_member, reset_k;
    int silent;
};

static int64_t run_group(struct harness *h, const struct group_run *r)
{
    int64_t start_seen = 0;
    for (fsc_series_id id = 0; id < 4; id++) {
        struct fsc_traits tr = port_bytes(400000000000ULL, FSC_DIR_TX);
        CHECK_INT(fsc_engine_set_traits(h->eng, id, &tr), 0);
        CHECK_INT(fsc_engine_group_add(h->eng, 0, id), 0);
        CHECK_INT(fsc_engine_group_add(h->eng, 0, id), 0); /* idempotent */
    }
    uint64_t v[4] = {0, 0, 0, 0};
    for (int k = 0; k <= r->seconds * 10; k++) {
        int64_t t = T0 - 50 * MS + k * 100 * MS;
        struct fsc_sample batch[4];
        size_t n = 0;
        for (int m = 0; m < 4; m++) {
            if (k > 0)
                v[m] += (uint64_t)(r->util[m] * 50e9 * 0.1);
            if (m == r->reset_member && k == r->reset_k)
                v[m] = 0;
            if (m != r->silent)
                batch[n++] = (struct fsc_sample){
                    .series = (fsc_series_id)m, .t_dev_ns = t, .t_arr_ns = t, .v.u = v[m]};
        }
        CHECK_INT(fsc_engine_ingest(h->eng, batch, n), 0);
        size_t before = h->n_ev;
        harness_poll(h, t);
        if (!start_seen && count_events(h, FSC_EV_UPLINK_IMBALANCE, FSC_EV_START) > 0 &&
            h->n_ev > before)
            start_seen = t;
    }
    return start_seen;
}

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
        CHECK_REL(start->peak, 2.0, 0.01);
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
    CHECK_INT(h.n_ev, 1);
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
        CHECK_REL(upd->amount, 0.65, 0.001);
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
            CHECK_REL(ev->peak, 0.5, 0.001);   /* paused fraction */
            CHECK_REL(ev->amount, 1.0, 0.001); /* 2 s x 50 % paused */
        } else {
            CHECK_INT(ev->series, 6);
            CHECK_INT(ev->t_start_ns, T0 + 8 * NS);
            CHECK_INT(ev->t_end_ns, T0 + 9 * NS);
            CHECK_REL(ev->peak, 20000, 0.001);   /* frames/s */
            CHECK_REL(ev->amount, 20000, 0.001); /* frames */
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
        CHECK_NEAR(end->amount, 30000, 0.5); /* exact: the wrap lost nothing */
        CHECK_NEAR(end->peak, 10000, 0.01);
        CHECK_NEAR(end->baseline, 20, 0.01);
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
    uint64_t v = 5000000000ULL;
    for (int k = 0; k <= 200; k++) {
        int64_t t = T0 + k * 100 * MS;
        if (k == 100)
            v = 37; /* device reload: the counter starts again near 0 */
        else if (k > 0)
            v += (uint64_t)(100 * (1.0 + 0.2 * (2 * rng_unit() - 1)));
        feed_u(&h, 0, t, v);
    }
    CHECK_INT(h.n_ev, 0);
    struct fsc_engine_stats st;
    fsc_engine_stats_get(h.eng, &st);
    CHECK_INT(st.verdicts[FSC_RATE_RESET], 1);
    CHECK_INT(st.verdicts[FSC_RATE_INTERVAL], 199);
    for (unsigned k = 0; k < FSC_EV__COUNT; k++)
        CHECK_INT(st.events[k], 0);
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
        CHECK_NEAR(h.ev[0].amount, 600000, 0);
        CHECK_NEAR(h.ev[0].peak, 0.6, 1e-9);
        CHECK_INT(h.ev[1].t_start_ns, T0 + 400 * MS);
        CHECK_NEAR(h.ev[1].amount, 800000, 0);
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
        CHECK_NEAR(h.ev[2].amount, 5, 0);
        CHECK_INT(h.ev[3].kind, FSC_EV_BUFFER_THRESHOLD);
        CHECK_INT(h.ev[3].t_start_ns, T0 + 200 * MS);
        CHECK_INT(h.ev[3].t_end_ns, T0 + 1500 * MS);
        CHECK_NEAR(h.ev[3].amount, 5, 0);
    }
    struct fsc_engine_stats st;
    fsc_engine_stats_get(h.eng, &st);
    CHECK_INT(st.events[FSC_EV_QUEUE_PEAK], 2);
    CHECK_INT(st.events[FSC_EV_BUFFER_THRESHOLD], 2);
    CHECK_INT(st.verdicts[FSC_RATE_GAUGE], 6);
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

static void view_and_stats(void)
{
    struct fsc_engine_config cfg;
    struct harness h;
    fsc_engine_config_defaults(&cfg);
    cfg.max_series = 8;
    if (harness_open(&h, &cfg) != 0)
        return;
    struct fsc_engine_observer obs = {.on_interval = count_interval};
    intervals_seen = 0;
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
    fsc_engine_set_observer(h.eng, NULL);
    CHECK_INT(fsc_engine_ingest(
                  h.eng, &(struct fsc_sample){.series = 0, .t_dev_ns = T0 + 3 * NS, .v.u = 900}, 1),
              0);
    CHECK_INT(intervals_seen, 2); /* observer removed */

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

TEST_MAIN(TEST(burst_400g_one_microburst), TEST(long_burst_and_flush),
          TEST(burst_context_coarse_samples), TEST(cnp_spike_storm), TEST(uplink_imbalance),
          TEST(imbalance_member_skips_and_dies), TEST(pfc_storm), TEST(reorder_spike_32bit_wrap),
          TEST(reset_no_spike), TEST(queue_peak_evidence), TEST(view_and_stats),
          TEST(config_validate))
