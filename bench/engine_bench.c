/* engine_bench: what one counter update costs in the rate engine.
 *
 * For each series count (default 65536 and 1048576) it interns the series in
 * a registry the way a source would (20 counters per port, labels device /
 * port), sets their traits, then feeds rounds of samples (one per series per
 * round, 100 ms apart with +-30 % timestamp jitter, each counter following
 * device time at its own rate) through fsc_engine_ingest in batches of 1024,
 * in series order and in a shuffled order. Only the ingest calls are timed.
 * Prints ns per update, updates per second and bytes of memory per series
 * (registry + engine, as they account for it, and the process RSS growth as
 * a cross-check).
 *
 * Two mixes of traits:
 *   worst      every series a 400G port-bytes counter at 0..60 % of line
 *              rate: each carries microburst state and a utilization
 *              histogram (the default; the older figures in docs/PERFORMANCE.md)
 *   realistic  per port of 20 counters: rx and tx bytes (400G, 0..60 %),
 *              2 CNP counters (500..1500/s), 1 reorder counter (32-bit,
 *              0..20/s), 1 PFC pause duration (us, 0..2 % paused) and 14
 *              plain counters (errors and discards 0..1/s, packets up to
 *              4e6/s)
 *   junos      the realistic mix as a Junos leaf delivers it: every series
 *              copied every 2 s (traits periodic, one copy group per device
 *              of 64 ports), read every 2 s with +-30 ms stamp jitter: the
 *              copy path (rate_copies.c, the series' reading lattice)
 *
 *   engine_bench [--mix worst|realistic|junos] [SERIES ...]
 *
 * Numbers, not pass/fail: record them in docs/PERFORMANCE.md. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "model/registry.h"
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

enum mix { MIX_WORST, MIX_REALISTIC, MIX_JUNOS };

/* The junos mix: copies every COPY_NS, read every COPY_NS (copy phase 480 ms
 * after T_START, reads 350 ms after it, stamps +-30 ms). */
#define COPY_NS 2000000000LL
static int64_t round_ns = INTERVAL_NS, jitter_ns = 30000000LL;
static int copied;

/* The value a read at t shows: the counter at t, or at the last copy. */
static int64_t value_time(int64_t t)
{
    if (!copied)
        return t;
    int64_t since = t - (T_START + 480000000LL);
    return T_START + 480000000LL + (since / COPY_NS) * COPY_NS;
}

/* The traits of series i and the rate its counter follows, in units per ns. */
static struct fsc_traits series_traits(enum mix mix, uint32_t i, double *per_ns)
{
    struct fsc_traits tr = {
        .kind = FSC_KIND_COUNTER,
        .width = 64,
        .unit = FSC_UNIT_NONE,
        .signal = FSC_SIG_NONE,
        .nominal_interval_ns = INTERVAL_NS,
    };
    const double line_bytes_per_ns = 400e9 / 8 / 1e9;
    double r = (double)(rng_next() % 1000) / 1000.0;          /* 0 .. 1 */
    unsigned m = mix == MIX_WORST ? 0 : i % METRICS_PER_PORT; /* junos: as realistic */

    switch (m) {
    case 0:
    case 1: /* rx / tx bytes */
        tr.unit = FSC_UNIT_BYTES;
        tr.signal = FSC_SIG_PORT_BYTES;
        tr.direction = m == 0 ? FSC_DIR_RX : FSC_DIR_TX;
        tr.link_speed_bps = 400000000000ULL;
        *per_ns = line_bytes_per_ns * 0.6 * r;
        break;
    case 2:
    case 3: /* CNP sent / handled */
        tr.signal = FSC_SIG_CNP;
        *per_ns = (500 + 1000 * r) * 1e-9;
        break;
    case 4: /* out_of_sequence, a 32-bit counter */
        tr.signal = FSC_SIG_REORDER;
        tr.width = 32;
        *per_ns = 20 * r * 1e-9;
        break;
    case 5: /* pause duration in us */
        tr.signal = FSC_SIG_PFC_PAUSE_DURATION;
        tr.unit = FSC_UNIT_MICROSECONDS;
        tr.direction = FSC_DIR_RX;
        *per_ns = 0.02 * r * 1e-3;
        break;
    default:
        if (m < 10) { /* errors, discards */
            *per_ns = r * 1e-9;
        } else { /* packets */
            tr.unit = FSC_UNIT_PACKETS;
            *per_ns = 4e6 * r * 1e-9;
        }
        break;
    }
    return tr;
}

struct run_result {
    double ns_per_update;
    double updates_per_s;
};

/* Feeds `rounds` rounds through the engine; `order` gives the series order. */
static int feed(struct fsc_engine *eng, const uint32_t *order, uint32_t n, const double *per_ns,
                const uint8_t *wrap32, int64_t *t_round, int rounds, struct fsc_sample *buf,
                struct run_result *res)
{
    double timed = 0;
    uint64_t updates = 0;

    for (int r = 0; r < rounds; r++) {
        *t_round += round_ns;
        for (uint32_t base = 0; base < n; base += BATCH) {
            uint32_t m = n - base < BATCH ? n - base : BATCH;
            for (uint32_t k = 0; k < m; k++) {
                uint32_t id = order[base + k];
                int64_t jitter = (int64_t)(rng_next() % (uint64_t)(2 * jitter_ns)) - jitter_ns;
                int64_t t = *t_round + jitter;
                buf[k].series = id;
                buf[k].flags = 0;
                buf[k].t_dev_ns = t;
                buf[k].t_arr_ns = *t_round;
                /* the counter follows device time at the series' rate (the
                 * junos mix: as of its last copy before the read) */
                buf[k].v.u =
                    (uint64_t)((double)(value_time(copied ? *t_round : t) - T_START) * per_ns[id]);
                if (wrap32[id])
                    buf[k].v.u &= 0xffffffffu;
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

static int bench_one(uint32_t n_series, enum mix mix)
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
    double *per_ns = malloc(n_series * sizeof(*per_ns));
    uint8_t *wrap32 = malloc(n_series);
    uint32_t *order = malloc(n_series * sizeof(*order));
    struct fsc_sample *buf = malloc(BATCH * sizeof(*buf));
    uint16_t src;
    if (!reg || !eng || !per_ns || !wrap32 || !order || !buf ||
        fsc_registry_source_add(reg, "bench", n_series, &src) != 0) {
        fprintf(stderr, "engine_bench: setup failed: %s\n", eng ? "allocation" : err);
        goto out;
    }

    for (uint32_t i = 0; i < n_series; i++) {
        struct fsc_traits tr = series_traits(mix, i, &per_ns[i]);
        wrap32[i] = tr.width == 32;
        uint32_t p = i / METRICS_PER_PORT;
        snprintf(device, sizeof(device), "leaf%u", p / 64);
        snprintf(port, sizeof(port), "et-0/0/%u", p % 64);
        if (mix == MIX_JUNOS) {
            tr.refresh = FSC_REFRESH_PERIODIC;
            tr.refresh_ns = COPY_NS;
            tr.nominal_interval_ns = COPY_NS;
            tr.copy_group = fsc_engine_copy_group(eng, device, COPY_NS);
        }
        struct fsc_label labels[] = {{"device", device}, {"port", port}};
        fsc_series_id id = fsc_registry_intern(reg, src, metrics[i % METRICS_PER_PORT], labels, 2);
        if (id != i || fsc_engine_set_traits(eng, id, &tr) != 0) {
            fprintf(stderr, "engine_bench: intern/traits failed at %u\n", i);
            goto out;
        }
        order[i] = i;
    }

    int64_t t_round = T_START;
    if (mix == MIX_JUNOS) {
        round_ns = COPY_NS;
        t_round = T_START + 350000000LL - COPY_NS;
        copied = 1;
    }
    int rounds = n_series >= 1000000 ? 12 : 120;
    struct run_result warm, seq, shuffled;
    /* Two warm-up rounds: baselines and first windows. */
    if (feed(eng, order, n_series, per_ns, wrap32, &t_round, 2, buf, &warm) != 0)
        goto out;
    if (feed(eng, order, n_series, per_ns, wrap32, &t_round, rounds, buf, &seq) != 0)
        goto out;
    for (uint32_t i = n_series - 1; i > 0; i--) {
        uint32_t j = (uint32_t)(rng_next() % (i + 1));
        uint32_t tmp = order[i];
        order[i] = order[j];
        order[j] = tmp;
    }
    if (feed(eng, order, n_series, per_ns, wrap32, &t_round, rounds, buf, &shuffled) != 0)
        goto out;

    long rss1 = rss_bytes();
    struct fsc_engine_stats st;
    fsc_engine_stats_get(eng, &st);
    double reg_b = (double)fsc_registry_memory_bytes(reg) / n_series;
    double eng_b = (double)fsc_engine_memory_bytes(eng) / n_series;
    /* per_ns[], wrap32[] and order[] are the benchmark's own: not in RSS. */
    double rss_b = (double)(rss1 - rss0) / n_series - sizeof(*per_ns) - 1 - sizeof(*order);
    uint64_t events = 0;
    for (unsigned k = 0; k < FSC_EV__COUNT; k++)
        events += st.events[k];
    printf("series=%u rounds=%d order=sequential ns_per_update=%.2f updates_per_s=%.3g\n", n_series,
           rounds, seq.ns_per_update, seq.updates_per_s);
    printf("series=%u rounds=%d order=shuffled   ns_per_update=%.2f updates_per_s=%.3g\n", n_series,
           rounds, shuffled.ns_per_update, shuffled.updates_per_s);
    printf("series=%u bytes_per_series: registry=%.1f engine=%.1f total=%.1f rss_growth=%.1f\n",
           n_series, reg_b, eng_b, reg_b + eng_b, rss_b);
    printf("series=%u intervals=%llu implausible=%llu out_of_order=%llu wraps=%llu events=%llu\n",
           n_series, (unsigned long long)st.verdicts[FSC_RATE_INTERVAL],
           (unsigned long long)st.verdicts[FSC_RATE_IMPLAUSIBLE],
           (unsigned long long)st.verdicts[FSC_RATE_OUT_OF_ORDER], (unsigned long long)st.wraps,
           (unsigned long long)events);
    rc = 0;
out:
    free(buf);
    free(order);
    free(wrap32);
    free(per_ns);
    fsc_engine_destroy(eng);
    fsc_registry_destroy(reg);
    return rc;
}

int main(int argc, char **argv)
{
    static const uint32_t defaults[] = {65536, 1048576};
    enum mix mix = MIX_WORST;
    int first = 1;

    if (argc > 1 && (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0)) {
        printf("Usage: engine_bench [--mix worst|realistic|junos] [SERIES ...]   (default: worst, "
               "65536 1048576)\n");
        return 0;
    }
    if (argc > 2 && strcmp(argv[1], "--mix") == 0) {
        if (strcmp(argv[2], "worst") == 0) {
            mix = MIX_WORST;
        } else if (strcmp(argv[2], "realistic") == 0) {
            mix = MIX_REALISTIC;
        } else if (strcmp(argv[2], "junos") == 0) {
            mix = MIX_JUNOS;
        } else {
            fprintf(stderr, "engine_bench: unknown mix '%s' (worst, realistic, junos)\n", argv[2]);
            return 2;
        }
        first = 3;
    }
    printf("mode=%s\n", mix == MIX_WORST ? "worst (every series a 400G port-bytes counter)"
                        : mix == MIX_REALISTIC
                            ? "realistic (per port of 20: 2 port bytes 400G, 2 CNP, 1 reorder "
                              "32-bit, 1 PFC pause duration, 14 plain)"
                            : "junos (the realistic mix copied every 2 s, read every 2 s, "
                              "stamps +-30 ms)");
    if (argc > first) {
        for (int i = first; i < argc; i++) {
            char *end;
            unsigned long n = strtoul(argv[i], &end, 10);
            if (*end || n == 0 || n > 16000000UL) {
                fprintf(stderr, "engine_bench: bad series count '%s'\n", argv[i]);
                return 2;
            }
            if (bench_one((uint32_t)n, mix) != 0)
                return 1;
        }
        return 0;
    }
    for (size_t i = 0; i < sizeof(defaults) / sizeof(defaults[0]); i++)
        if (bench_one(defaults[i], mix) != 0)
            return 1;
    return 0;
}
