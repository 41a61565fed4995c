/* The engine's read API for exporters, through the public API only:
 * fine-utilization and microburst-duration histograms with exact bucket
 * answers (boundary values land in their own `le` bucket), detector
 * counters in the view, the engine-wide interval-ratio histogram of a
 * jittered series, fsc_engine_view_ids on mixed ids and under concurrent
 * ingest, and group views. */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>

#include "engine_fixture.h"

static uint64_t util_count(const struct fsc_series_view *v)
{
    uint64_t n = 0;
    for (unsigned b = 0; b <= FSC_UTIL_BUCKETS; b++)
        n += v->util.bucket[b];
    return n;
}

static uint64_t duration_count(const struct fsc_series_view *v)
{
    uint64_t n = 0;
    for (unsigned b = 0; b <= FSC_DURATION_BUCKETS; b++)
        n += v->microburst_duration.bucket[b];
    return n;
}

/* ---- fine utilization: exact buckets on 400G and 100G ---- */

/* Feeds series id with 100 ms intervals at the utilizations u[] (fractions
 * of `speed`), starting with a baseline at t0. Byte deltas are exact. */
static int64_t feed_utils(struct harness *h, fsc_series_id id, uint64_t speed, int64_t t0,
                          uint64_t *v, const double *u, size_t n)
{
    int64_t t = t0;
    feed_u(h, id, t, *v);
    for (size_t k = 0; k < n; k++) {
        t += 100 * MS;
        *v += (uint64_t)(u[k] * (double)speed / 8.0 * 0.1 + 0.5);
        feed_u(h, id, t, *v);
    }
    return t;
}

static void util_buckets_exact(void)
{
    struct fsc_engine_config cfg;
    struct harness h;
    fsc_engine_config_defaults(&cfg);
    if (harness_open(&h, &cfg) != 0)
        return;
    const uint64_t g400 = 400000000000ULL, g100 = 100000000000ULL;
    struct fsc_traits tr400 = port_bytes(g400, FSC_DIR_TX);
    struct fsc_traits tr100 = port_bytes(g100, FSC_DIR_RX);
    CHECK_INT(fsc_engine_set_traits(h.eng, 0, &tr400), 0);
    CHECK_INT(fsc_engine_set_traits(h.eng, 1, &tr100), 0);

    struct fsc_series_view view;
    CHECK_INT(fsc_engine_view(h.eng, 0, &view), 0); /* traits only: present, no value */
    CHECK_INT(view.present, 1);
    CHECK_INT(view.has_value, 0);
    CHECK_INT(view.has_util, 1);
    CHECK_INT(util_count(&view), 0);

    /* Boundary values (0.1, 0.3, 0.5, 0.95, 0.99, 1.0) land in their own
     * bucket; 1.02 (plausible up to 1.05) overflows to +Inf. */
    static const double u[] = {0.05, 0.1, 0.3, 0.5, 0.55, 0.95, 0.96, 0.99, 1.0, 1.02};
    /* bucket:                  0     0    2    4    5     9     10    10    11   12 */
    static const unsigned want[FSC_UTIL_BUCKETS + 1] = {2, 0, 1, 0, 1, 1, 0, 0, 0, 1, 2, 1, 1};
    const size_t n = sizeof(u) / sizeof(u[0]);
    double want_sum = 0;
    for (size_t k = 0; k < n; k++)
        want_sum += u[k];

    uint64_t v0 = 1000000000000ULL, v1 = 0;
    int64_t t_end = feed_utils(&h, 0, g400, T0, &v0, u, n);
    feed_utils(&h, 1, g100, T0 + 50 * MS, &v1, u, n);
    for (unsigned id = 0; id < 2; id++) {
        CHECK_INT(fsc_engine_view(h.eng, id, &view), 0);
        for (unsigned b = 0; b <= FSC_UTIL_BUCKETS; b++) {
            if (view.util.bucket[b] != want[b])
                fprintf(stderr, "series %u bucket %u (le %g): %llu, want %u\n", id, b,
                        b < FSC_UTIL_BUCKETS ? fsc_util_bucket_le[b] : 1e300,
                        (unsigned long long)view.util.bucket[b], want[b]);
            CHECK_INT(view.util.bucket[b], want[b]);
        }
        CHECK_NEAR(view.util.sum, want_sum, 1e-9);
        CHECK_INT(view.has_util, 1);
        CHECK_INT(view.signal, FSC_SIG_PORT_BYTES);
        CHECK_INT(view.unit, FSC_UNIT_BYTES);
        CHECK_INT(view.direction, id == 0 ? FSC_DIR_TX : FSC_DIR_RX);
        CHECK_INT(view.link_speed_bps, id == 0 ? g400 : g100);
        CHECK_INT(view.kind, FSC_KIND_COUNTER);
        CHECK_INT(view.has_value, 1);
        CHECK_INT(view.has_windows, 1); /* [T0, T0 + 1 s) closed */
    }

    /* A gap interval (1 s > 5 x 100 ms) is no fine observation; the next
     * 100 ms interval is. Its sample closes the first 1 s window. */
    v0 += 5000000000ULL; /* 5e9 B in 1 s: 0.1 */
    feed_u(&h, 0, t_end + 1 * NS, v0);
    v0 += 1250000000ULL; /* 1.25e9 B in 100 ms: 0.25 */
    feed_u(&h, 0, t_end + 1 * NS + 100 * MS, v0);
    CHECK_INT(fsc_engine_view(h.eng, 0, &view), 0);
    CHECK_INT(util_count(&view), n + 1);
    CHECK_INT(view.util.bucket[2], want[2] + 1); /* 0.25 -> le 0.3 */
    CHECK_INT(view.util.bucket[0], want[0]);     /* the gap's 0.1 was not counted */
    CHECK_NEAR(view.util.sum, want_sum + 0.25, 1e-9);
    CHECK_INT(view.has_windows, 1);

    /* A port without a link speed has no histogram. */
    struct fsc_traits nospeed = port_bytes(0, FSC_DIR_TX);
    CHECK_INT(fsc_engine_set_traits(h.eng, 2, &nospeed), 0);
    feed_u(&h, 2, T0, 0);
    feed_u(&h, 2, T0 + 100 * MS, 1000);
    CHECK_INT(fsc_engine_view(h.eng, 2, &view), 0);
    CHECK_INT(view.has_windows, 0); /* 100 ms of data: no 1 s window closed yet */
    CHECK_INT(view.has_util, 0);
    CHECK_INT(util_count(&view), 0);
    CHECK_INT(view.link_speed_bps, 0);
    harness_close(&h);
}

/* ---- microburst durations, long bursts, detector counters ---- */

static void microburst_durations(void)
{
    struct fsc_engine_config cfg;
    struct harness h;
    fsc_engine_config_defaults(&cfg);
    if (harness_open(&h, &cfg) != 0)
        return;
    const uint64_t g400 = 400000000000ULL;
    struct fsc_traits tr = port_bytes(g400, FSC_DIR_RX);
    CHECK_INT(fsc_engine_set_traits(h.eng, 7, &tr), 0);

    /* 10 % idle, a 100 ms microburst, a 300 ms one, then a 1.5 s burst
     * (micro_max is 1 s: a long burst, not a microburst). */
    double u[80];
    size_t n = 0;
    for (int k = 0; k < 5; k++)
        u[n++] = 0.1;
    u[n++] = 1.0; /* microburst 1: one interval */
    for (int k = 0; k < 5; k++)
        u[n++] = 0.1;
    for (int k = 0; k < 3; k++)
        u[n++] = 0.9; /* microburst 2: three intervals */
    for (int k = 0; k < 5; k++)
        u[n++] = 0.1;
    for (int k = 0; k < 15; k++)
        u[n++] = 0.8; /* long burst: 1.5 s */
    for (int k = 0; k < 30; k++)
        u[n++] = 0.1;
    uint64_t v = 0;
    feed_utils(&h, 7, g400, T0, &v, u, n);

    struct fsc_series_view view;
    CHECK_INT(fsc_engine_view(h.eng, 7, &view), 0);
    CHECK_INT(view.events, 2);
    CHECK_INT(view.bursts, 1);
    CHECK_INT(duration_count(&view), 2);
    /* 0.1 s is a bound: le 0.1 (bucket 5); 0.3 s lands in le 0.5 (bucket 7). */
    for (unsigned b = 0; b <= FSC_DURATION_BUCKETS; b++)
        CHECK_INT(view.microburst_duration.bucket[b], b == 5 || b == 7 ? 1 : 0);
    CHECK_NEAR(view.microburst_duration.sum, 0.4, 1e-12);
    CHECK_INT(util_count(&view), n);

    /* The engine-wide counters agree with the series' own. */
    struct fsc_engine_stats st;
    fsc_engine_stats_get(h.eng, &st);
    CHECK_INT(st.events[FSC_EV_MICROBURST], 2);
    CHECK_INT(st.events[FSC_EV_BURST], 1);
    CHECK_INT(count_events(&h, FSC_EV_MICROBURST, FSC_EV_END), 2);
    CHECK_INT(count_events(&h, FSC_EV_BURST, FSC_EV_START), 1);
    harness_close(&h);
}

/* A CNP storm gives its series one event; a PFC storm its own; a plain
 * counter none. */
static void detector_events_in_view(void)
{
    struct fsc_engine_config cfg;
    struct harness h;
    fsc_engine_config_defaults(&cfg);
    if (harness_open(&h, &cfg) != 0)
        return;
    struct fsc_traits cnp = event_counter(FSC_SIG_CNP, 64, FSC_UNIT_NONE);
    struct fsc_traits pfc = event_counter(FSC_SIG_PFC_PAUSE_DURATION, 64, FSC_UNIT_MICROSECONDS);
    struct fsc_traits plain = event_counter(FSC_SIG_NONE, 64, FSC_UNIT_PACKETS);
    CHECK_INT(fsc_engine_set_traits(h.eng, 1, &cnp), 0);
    CHECK_INT(fsc_engine_set_traits(h.eng, 2, &pfc), 0);
    CHECK_INT(fsc_engine_set_traits(h.eng, 3, &plain), 0);
    /* 20 s of 100 ms samples: CNP 1000/s with 50000/s during [10 s, 12 s);
     * PFC paused 1 % with 50 % during [5 s, 7 s); plain 1e6 packets/s. */
    uint64_t c = 0, p = 0, q = 0;
    for (int k = 0; k <= 200; k++) {
        int64_t t = T0 + k * 100 * MS;
        if (k > 0) {
            int prev = k - 1;
            c += prev >= 100 && prev < 120 ? 5000 : 100;
            p += prev >= 50 && prev < 70 ? 50000 : 1000;
            q += 100000;
        }
        struct fsc_sample batch[3] = {
            {.series = 1, .t_dev_ns = t, .t_arr_ns = t, .v.u = c},
            {.series = 2, .t_dev_ns = t, .t_arr_ns = t, .v.u = p},
            {.series = 3, .t_dev_ns = t, .t_arr_ns = t, .v.u = q},
        };
        CHECK_INT(fsc_engine_ingest(h.eng, batch, 3), 0);
        harness_poll(&h, t);
    }
    CHECK_INT(count_events(&h, FSC_EV_CNP_SPIKE, FSC_EV_START), 1);
    CHECK_INT(count_events(&h, FSC_EV_PFC_STORM, FSC_EV_START), 1);
    struct fsc_series_view view;
    CHECK_INT(fsc_engine_view(h.eng, 1, &view), 0);
    CHECK_INT(view.events, 1);
    CHECK_INT(view.bursts, 0);
    CHECK_INT(view.has_util, 0);
    CHECK_INT(view.signal, FSC_SIG_CNP);
    CHECK_INT(view.has_windows, 1);
    CHECK_NEAR(view.window_rate[0], 1000, 1e-6); /* [19 s, 20 s) */
    CHECK_INT(fsc_engine_view(h.eng, 2, &view), 0);
    CHECK_INT(view.events, 1);
    CHECK_INT(view.signal, FSC_SIG_PFC_PAUSE_DURATION);
    CHECK_INT(view.unit, FSC_UNIT_MICROSECONDS);
    CHECK_INT(fsc_engine_view(h.eng, 3, &view), 0);
    CHECK_INT(view.events, 0);
    CHECK_INT(view.has_util, 0);
    CHECK_NEAR(view.fine_rate, 1e6, 1e-3);
    harness_close(&h);
}

/* ---- the interval-ratio histogram of a jittered series ---- */

static void interval_ratio_jitter(void)
{
    struct fsc_engine_config cfg;
    struct harness h;
    fsc_engine_config_defaults(&cfg);
    if (harness_open(&h, &cfg) != 0)
        return;
    struct fsc_traits tr = event_counter(FSC_SIG_NONE, 64, FSC_UNIT_PACKETS); /* nominal 100 ms */
    /* So that a repeat soon after a change is a STALE_REPEAT; no longer than
     * the nominal interval, so the update period and the gap bound stay
     * 100 ms / 500 ms (rate.h rule 8). */
    tr.refresh_ns = 100 * MS;
    CHECK_INT(fsc_engine_set_traits(h.eng, 0, &tr), 0);
    struct fsc_traits none = event_counter(FSC_SIG_NONE, 64, FSC_UNIT_PACKETS);
    none.nominal_interval_ns = 0; /* no nominal interval: not observed */
    CHECK_INT(fsc_engine_set_traits(h.eng, 1, &none), 0);

    /* Intervals in ms, their ratio to 100 ms and bucket (bounds 0.5 0.8 0.9
     * 0.95 1.05 1.1 1.2 1.5 2 5): bounds themselves land in their bucket. */
    static const int gaps_ms[] = {100, 105, 95, 150, 50, 300, 600, 80, 90, 110, 120, 200, 40};
    /* bucket:                    4    4    3   7    0   9    10   1   2   5    6    8    0 */
    unsigned want[FSC_INTERVAL_RATIO_BUCKETS + 1] = {2, 1, 1, 1, 2, 1, 1, 1, 1, 1, 1};
    const size_t n = sizeof(gaps_ms) / sizeof(gaps_ms[0]);
    double want_sum = 0;
    int64_t t = T0;
    uint64_t v = 1000;
    feed_u(&h, 0, t, v); /* baseline: no previous sample, not observed */
    feed_u(&h, 0, t, v); /* duplicate: not observed */
    feed_u(&h, 1, t, 5); /* no nominal interval */
    for (size_t k = 0; k < n; k++) {
        t += gaps_ms[k] * MS;
        v += 1000;
        feed_u(&h, 0, t, v);
        feed_u(&h, 1, t, v);
        want_sum += gaps_ms[k] / 100.0;
    }
    feed_u(&h, 0, t - 10 * MS, v - 1); /* out of order: not observed */
    t += 100 * MS;
    feed_u(&h, 0, t, v); /* the same value 100 ms later: STALE_REPEAT, ratio 1.0 */
    want[4]++;
    want_sum += 1.0;

    struct fsc_engine_stats st;
    fsc_engine_stats_get(h.eng, &st);
    CHECK_INT(st.verdicts[FSC_RATE_STALE_REPEAT], 1);
    CHECK_INT(st.verdicts[FSC_RATE_DUPLICATE], 1);
    CHECK_INT(st.verdicts[FSC_RATE_OUT_OF_ORDER], 1);
    CHECK_INT(st.gaps, 1); /* the 600 ms interval; series 1 has no gap rule */
    for (unsigned b = 0; b <= FSC_INTERVAL_RATIO_BUCKETS; b++)
        CHECK_INT(st.interval_ratio.bucket[b], want[b]);
    CHECK_NEAR(st.interval_ratio.sum, want_sum, 1e-9);
    harness_close(&h);
}

/* ---- view_ids: mixed ids, the same answers as fsc_engine_view ---- */

static void view_ids_mixed(void)
{
    struct fsc_engine_config cfg;
    struct harness h;
    fsc_engine_config_defaults(&cfg);
    cfg.max_series = 64;
    if (harness_open(&h, &cfg) != 0)
        return;
    struct fsc_traits port = port_bytes(400000000000ULL, FSC_DIR_TX);
    struct fsc_traits cnp = event_counter(FSC_SIG_CNP, 64, FSC_UNIT_NONE);
    CHECK_INT(fsc_engine_set_traits(h.eng, 0, &port), 0);
    CHECK_INT(fsc_engine_set_traits(h.eng, 1, &cnp), 0);
    CHECK_INT(fsc_engine_set_traits(h.eng, 5, &port), 0); /* traits, never a sample */
    for (int k = 0; k <= 12; k++) {
        int64_t t = T0 + k * 100 * MS;
        struct fsc_sample batch[3] = {
            {.series = 0, .t_dev_ns = t, .v.u = (uint64_t)k * 2500000000ULL}, /* 0.5 */
            {.series = 1, .t_dev_ns = t, .v.u = (uint64_t)k * 100},
            {.series = 2, .t_dev_ns = t, .v.u = (uint64_t)k * 7}, /* no traits: plain */
        };
        CHECK_INT(fsc_engine_ingest(h.eng, batch, 3), 0);
    }
    const fsc_series_id ids[] = {2, 0, 63, 1000, 0, FSC_SERIES_NONE, 5, 1};
    const size_t n = sizeof(ids) / sizeof(ids[0]);
    struct fsc_series_view out[8], one, zero;
    memset(out, 0xa5, sizeof(out)); /* every byte must be written */
    memset(&zero, 0, sizeof(zero));
    CHECK_INT(fsc_engine_view_ids(h.eng, ids, n, out), 0);
    for (size_t i = 0; i < n; i++) {
        int rc = fsc_engine_view(h.eng, ids[i], &one);
        bool known = ids[i] == 0 || ids[i] == 1 || ids[i] == 2 || ids[i] == 5;
        CHECK_INT(rc, known ? 0 : -ENOENT);
        CHECK_INT(out[i].present, known);
        CHECK(memcmp(&out[i], &one, sizeof(one)) == 0);
        if (!known)
            CHECK(memcmp(&out[i], &zero, sizeof(zero)) == 0);
    }
    CHECK(memcmp(&out[1], &out[4], sizeof(out[1])) == 0); /* the duplicate */
    CHECK_INT(out[1].has_util, 1);
    CHECK_INT(util_count(&out[1]), 12);
    CHECK_INT(out[1].util.bucket[4], 12); /* 0.5 exactly: le 0.5 */
    CHECK_NEAR(out[1].util.sum, 6.0, 1e-12);
    CHECK_INT(out[1].has_windows, 1);
    CHECK_INT(out[0].signal, FSC_SIG_NONE);
    CHECK_INT(out[0].value.u, 12 * 7);
    CHECK_INT(out[6].present, 1);
    CHECK_INT(out[6].has_value, 0);
    CHECK_INT(out[6].has_util, 1);
    CHECK_INT(util_count(&out[6]), 0);
    CHECK_INT(out[7].signal, FSC_SIG_CNP);
    CHECK_INT(out[7].value.u, 1200);
    CHECK_INT(fsc_engine_view_ids(h.eng, ids, 0, out), 0); /* nothing asked, nothing done */
    harness_close(&h);
}

/* ---- view_ids under concurrent ingest ---- */

#define CC_SERIES 256
#define CC_ROUNDS 300

struct cc_feed {
    struct fsc_engine *eng;
    atomic_int viewing; /* the reader took its first view: start feeding */
    atomic_int done;
    int failures;
};

static double cc_util(unsigned s)
{
    return 0.05 + 0.6 * (double)(s % 7) / 7.0; /* below rise: no bursts */
}

/* One batch per round holding every series: a view taken under the engine
 * lock sees every series at the same round. */
static void *cc_feeder(void *arg)
{
    struct cc_feed *f = arg;
    static struct fsc_sample batch[CC_SERIES];
    uint64_t v[CC_SERIES] = {0};
    for (int spin = 0; spin < 1000000 && !atomic_load(&f->viewing); spin++)
        sched_yield();
    for (int k = 0; k <= CC_ROUNDS; k++) {
        int64_t t = T0 + k * 100 * MS;
        for (unsigned s = 0; s < CC_SERIES; s++) {
            if (k > 0)
                v[s] += (uint64_t)(cc_util(s) * 5e9);
            batch[s] = (struct fsc_sample){.series = s, .t_dev_ns = t, .t_arr_ns = t, .v.u = v[s]};
        }
        if (fsc_engine_ingest(f->eng, batch, CC_SERIES) != 0)
            f->failures++;
    }
    atomic_store(&f->done, 1);
    return NULL;
}

/* Returns the number of intervals every view agreed on, or -1 when the
 * views disagree (a torn read). */
static long cc_check(const struct fsc_series_view *out, const fsc_series_id *ids, size_t n)
{
    long rounds = -1;
    for (size_t i = 0; i < n; i++) {
        const struct fsc_series_view *w = &out[i];
        if (!w->present)
            return -1;
        long k = w->has_value ? (long)((w->t_last_ns - T0) / (100 * MS)) : 0;
        if (i == 0)
            rounds = k;
        if (k != rounds || util_count(w) != (uint64_t)k)
            return -1;
        /* Every interval of a series has the same utilization. */
        double u = (double)(uint64_t)(cc_util(ids[i]) * 5e9) / 5e9;
        if (!(fabs(w->util.sum - u * (double)k) <= 1e-9 * (double)(k + 1)))
            return -1;
    }
    return rounds;
}

static void view_ids_concurrent(void)
{
    struct fsc_engine_config cfg;
    char err[256];
    fsc_engine_config_defaults(&cfg);
    struct fsc_engine *eng = fsc_engine_create(&cfg, NULL, err, sizeof(err));
    CHECK(eng != NULL);
    if (!eng)
        return;
    static fsc_series_id ids[CC_SERIES];
    static struct fsc_series_view out[CC_SERIES];
    for (unsigned s = 0; s < CC_SERIES; s++) {
        struct fsc_traits tr = port_bytes(400000000000ULL, FSC_DIR_TX);
        CHECK_INT(fsc_engine_set_traits(eng, s, &tr), 0);
        ids[s] = (s * 37u) % CC_SERIES; /* a permutation: any order works */
    }
    struct cc_feed f = {.eng = eng};
    atomic_init(&f.done, 0);
    atomic_init(&f.viewing, 0);
    pthread_t th;
    CHECK_INT(pthread_create(&th, NULL, cc_feeder, &f), 0);
    long last = 0, torn = 0, views = 0, went_back = 0;
    /* At least one view, at most 200000 (the feeder may outrun us). */
    for (int it = 0; it < 200000; it++) {
        CHECK_INT(fsc_engine_view_ids(eng, ids, CC_SERIES, out), 0);
        atomic_store(&f.viewing, 1);
        long k = cc_check(out, ids, CC_SERIES);
        views++;
        if (k < 0)
            torn++;
        else if (k < last)
            went_back++;
        else
            last = k;
        if (atomic_load(&f.done))
            break;
    }
    atomic_store(&f.viewing, 1);
    pthread_join(th, NULL);
    CHECK_INT(f.failures, 0);
    CHECK_INT(torn, 0);
    CHECK_INT(went_back, 0);
    CHECK(views > 0);
    /* Once the feeder is done: every series at the last round. */
    CHECK_INT(fsc_engine_view_ids(eng, ids, CC_SERIES, out), 0);
    CHECK_INT(cc_check(out, ids, CC_SERIES), CC_ROUNDS);
    fsc_engine_destroy(eng);
}

/* ---- group views ---- */

static void group_views(void)
{
    struct fsc_engine_config cfg;
    struct harness h;
    struct fsc_group_view gv;
    fsc_engine_config_defaults(&cfg);
    if (harness_open(&h, &cfg) != 0)
        return;
    CHECK_INT(fsc_engine_group_count(h.eng), 0);
    CHECK_INT(fsc_engine_group_view(h.eng, 0, &gv), -ENOENT);
    CHECK_INT(gv.present, 0);
    const struct group_run skewed = {{0.6, 0.2, 0.2, 0.2}, 8, -1, -1, -1};
    run_group(&h, &skewed);
    CHECK_INT(fsc_engine_group_count(h.eng), 1);
    CHECK_INT(fsc_engine_group_view(h.eng, 0, &gv), 0);
    CHECK_INT(gv.present, 1);
    CHECK_INT(gv.members, 4);
    CHECK_REL(gv.ratio, 2.0, 0.01);
    CHECK_NEAR(gv.ratio, fsc_engine_group_ratio(h.eng, 0), 0);
    CHECK_INT(gv.events, 1);
    CHECK_INT(gv.active, 1);
    /* A sparse index: the count reaches it, the hole has no state. */
    CHECK_INT(fsc_engine_group_add(h.eng, 5, 9), 0);
    CHECK_INT(fsc_engine_group_count(h.eng), 6);
    CHECK_INT(fsc_engine_group_view(h.eng, 3, &gv), -ENOENT);
    CHECK_INT(gv.present, 0);
    CHECK_INT(fsc_engine_group_view(h.eng, 5, &gv), 0);
    CHECK_INT(gv.members, 1);
    CHECK_INT(gv.events, 0);
    CHECK_INT(gv.active, 0);
    CHECK_NEAR(gv.ratio, 0, 0);
    CHECK_INT(fsc_engine_group_view(h.eng, cfg.max_groups, &gv), -ENOENT);
    harness_close(&h);

    /* Balanced members: a ratio of 1, no event, nothing open. */
    if (harness_open(&h, &cfg) != 0)
        return;
    const struct group_run even = {{0.3, 0.3, 0.3, 0.3}, 8, -1, -1, -1};
    run_group(&h, &even);
    CHECK_INT(fsc_engine_group_view(h.eng, 0, &gv), 0);
    CHECK_REL(gv.ratio, 1.0, 0.01);
    CHECK_INT(gv.events, 0);
    CHECK_INT(gv.active, 0);
    harness_close(&h);
}

TEST_MAIN(TEST(util_buckets_exact), TEST(microburst_durations), TEST(detector_events_in_view),
          TEST(interval_ratio_jitter), TEST(view_ids_mixed), TEST(view_ids_concurrent),
          TEST(group_views))
