/* engine_bench: what one counter update costs in the rate engine.
 *
 * For each series count (default 65536 and 1048576) it interns the series in
 * a registry the way a source would (20 counters per port, labels device /
 * port), sets 400G port traits, then feeds rounds of samples (one per series
 * per round, 100 ms apart with +-30 % timestamp jitter, each counter following
 * device time at its own utilization of 0..90 % of line rate) through fsc_engine_ingest in batches
 * of 1024, in series order and in a shuffled order. Only the ingest calls are timed. Prints ns per
 * update, updates per second and bytes of memory per series (registry + engine, as they account for
 * it, and the process RSS growth as a cross-check).
 *
 *   engine_bench [SERIES ...]            e.g. engine_bench 65536 1048576
 *
 * Numbers, not pass/fail: record them in docs/PERFORMANCE.md. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/registry.h"
#include "engine/engine.h"

#define BATCH            1024
#define METRICS_PER_PORT 20
#define INTERVAL_NS      100000000LL
#define T_START          1700000000000000000LL

static uint64_t rng_state = 0x9e3779b97f4a7c15ULL;

static uint64_t rng_next(void)
{
    /* splitmix64: deterministic, good enough for load generation */
    uint64_t z = (rng_state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static long rss_bytes(void)
{
    long pages = 0, resident = 0;
    FILE *f = fopen("/proc/self/statm", "r");
    if (!f)
        return 0;
    if (fscanf(f, "%ld %ld", &pages, &resident) != 2)
        resident = 0;
    fclose(f);
    return resident * 4096L;
}

struct run_result {
    double ns_per_update;
    double updates_per_s;
};

/* Feeds `rounds` rounds through the engine; `order` gives the series order. */
static int feed(struct fsc_engine *eng, const uint32_t *order, uint32_t n, const float *util,
                int64_t *t_round, int rounds, struct fsc_sample *buf, struct run_result *res)
{
    double timed = 0;
    uint64_t updates = 0;
    const double line_bytes_per_ns = 400e9 / 8 / 1e9;

    for (int r = 0; r < rounds; r++) {
        *t_round += INTERVAL_NS;
        for (uint32_t base = 0; base < n; base += BATCH) {
            uint32_t m = n - base < BATCH ? n - base : BATCH;
            for (uint32_t k = 0; k < m; k++) {
                uint32_t id = order[base + k];
                int64_t jitter = (int64_t)(rng_next() % 60000000ULL) - 30000000LL;
                int64_t t = *t_round + jitter;
                buf[k].series = id;
                buf[k].flags = 0;
                buf[k].t_dev_ns = t;
                buf[k].t_arr_ns = *t_round;
                /* the counter follows device time at the series' utilization */
                buf[k].v.u = (uint64_t)((double)(t - T_START) * line_bytes_per_ns * util[id]);
            }
            double t0 = now_s();
            if (fsc_engine_ingest(eng, buf, m) != 0)
                return -1;
            timed += now_s() - t0;
            updates += m;
        }
    }
    res->ns_per_update = timed * 1e9 / (double)updates;
    res->updates_per_s = (double)updates / timed;
    return 0;
}

static int bench_one(uint32_t n_series)
{
    char err[256];
    char port[32], device[32];
    const char *metrics[METRICS_PER_PORT];
    char metric_names[METRICS_PER_PORT][48];
    int rc = -1;

    for (int m = 0; m < METRICS_PER_PORT; m++) {
        snprintf(metric_names[m], sizeof(metric_names[m]), "fabric_bench_counter_%d_total", m);
        metrics[m] = metric_names[m];
    }

    long rss0 = rss_bytes();
    struct fsc_engine_config cfg;
    fsc_engine_config_defaults(&cfg);
    if (cfg.max_series < n_series)
        cfg.max_series = n_series;
    struct fsc_registry *reg = fsc_registry_create(n_series);
    struct fsc_engine *eng = fsc_engine_create(&cfg, NULL, err, sizeof(err));
    float *util = malloc(n_series * sizeof(*util));
    uint32_t *order = malloc(n_series * sizeof(*order));
    struct fsc_sample *buf = malloc(BATCH * sizeof(*buf));
    uint16_t src;
    if (!reg || !eng || !util || !order || !buf ||
        fsc_registry_source_add(reg, "bench", n_series, &src) != 0) {
        fprintf(stderr, "engine_bench: setup failed: %s\n", eng ? "allocation" : err);
        goto out;
    }

    struct fsc_traits tr = {
        .kind = FSC_KIND_COUNTER,
        .width = 64,
        .unit = FSC_UNIT_BYTES,
        .signal = FSC_SIG_PORT_BYTES,
        .direction = FSC_DIR_RX,
        .link_speed_bps = 400000000000ULL,
        .nominal_interval_ns = INTERVAL_NS,
    };
    for (uint32_t i = 0; i < n_series; i++) {
        uint32_t p = i / METRICS_PER_PORT;
        snprintf(device, sizeof(device), "leaf%u", p / 64);
        snprintf(port, sizeof(port), "et-0/0/%u", p % 64);
        struct fsc_label labels[] = {{"device", device}, {"port", port}};
        fsc_series_id id = fsc_registry_intern(reg, src, metrics[i % METRICS_PER_PORT], labels, 2);
        if (id != i || fsc_engine_set_traits(eng, id, &tr) != 0) {
            fprintf(stderr, "engine_bench: intern/traits failed at %u\n", i);
            goto out;
        }
        order[i] = i;
        util[i] = (float)(rng_next() % 600) / 1000.0f; /* 0 .. 60 % */
    }

    int64_t t_round = T_START;
    int rounds = n_series >= 1000000 ? 12 : 120;
    struct run_result warm, seq, shuffled;
    /* Two warm-up rounds: baselines and first windows. */
    if (feed(eng, order, n_series, util, &t_round, 2, buf, &warm) != 0)
        goto out;
    if (feed(eng, order, n_series, util, &t_round, rounds, buf, &seq) != 0)
        goto out;
    for (uint32_t i = n_series - 1; i > 0; i--) {
        uint32_t j = (uint32_t)(rng_next() % (i + 1));
        uint32_t tmp = order[i];
        order[i] = order[j];
        order[j] = tmp;
    }
    if (feed(eng, order, n_series, util, &t_round, rounds, buf, &shuffled) != 0)
        goto out;

    long rss1 = rss_bytes();
    struct fsc_engine_stats st;
    fsc_engine_stats_get(eng, &st);
    double reg_b = (double)fsc_registry_memory_bytes(reg) / n_series;
    double eng_b = (double)fsc_engine_memory_bytes(eng) / n_series;
    /* util[] and order[] are the benchmark's own: subtract them from RSS. */
    double rss_b = (double)(rss1 - rss0) / n_series - sizeof(*util) - sizeof(*order);
    printf("series=%u rounds=%d order=sequential ns_per_update=%.2f updates_per_s=%.3g\n", n_series,
           rounds, seq.ns_per_update, seq.updates_per_s);
    printf("series=%u rounds=%d order=shuffled   ns_per_update=%.2f updates_per_s=%.3g\n", n_series,
           rounds, shuffled.ns_per_update, shuffled.updates_per_s);
    printf("series=%u bytes_per_series: registry=%.1f engine=%.1f total=%.1f rss_growth=%.1f\n",
           n_series, reg_b, eng_b, reg_b + eng_b, rss_b);
    printf("series=%u intervals=%llu implausible=%llu out_of_order=%llu\n", n_series,
           (unsigned long long)st.verdicts[FSC_RATE_INTERVAL],
           (unsigned long long)st.verdicts[FSC_RATE_IMPLAUSIBLE],
           (unsigned long long)st.verdicts[FSC_RATE_OUT_OF_ORDER]);
    rc = 0;
out:
    free(buf);
    free(order);
    free(util);
    fsc_engine_destroy(eng);
    fsc_registry_destroy(reg);
    return rc;
}

int main(int argc, char **argv)
{
    static const uint32_t defaults[] = {65536, 1048576};

    if (argc > 1 && (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0)) {
        printf("Usage: engine_bench [SERIES ...]   (default: 65536 1048576)\n");
        return 0;
    }
    if (argc > 1) {
        for (int i = 1; i < argc; i++) {
            char *end;
            unsigned long n = strtoul(argv[i], &end, 10);
            if (*end || n == 0 || n > 16000000UL) {
                fprintf(stderr, "engine_bench: bad series count '%s'\n", argv[i]);
                return 2;
            }
            if (bench_one((uint32_t)n) != 0)
                return 1;
        }
        return 0;
    }
    for (size_t i = 0; i < sizeof(defaults) / sizeof(defaults[0]); i++)
        if (bench_one(defaults[i]) != 0)
            return 1;
    return 0;
}
