/* prom_bench: what a Prometheus scrape costs, and what it costs ingest.
 *
 * For each series count (default 10000, 100000 and 1000000) and two mixes it
 * builds a registry and an engine the way sources do: ports of 20 counters
 * each (labels device / port / role).
 *  - "mix": 2 of the 20 are the port's rx / tx bytes on a 400G link (each
 *    also feeds bits/s, utilization, 3 peaks, two histograms and two burst
 *    counters: ~34 lines), 18 are plain 64-bit counters;
 *  - "plain": all 20 are plain counters (one line each).
 * It feeds two rounds of samples 1 s apart so every window and histogram has
 * data, then
 *  - renders once to build the renderer's index (reported separately),
 *  - times RENDERS text renders and reports the fastest and the median
 *    (ms, ns per series, bytes of exposition per series), and one
 *    OpenMetrics render;
 *  - times a render into a fresh buffer (as the HTTP layer does per
 *    request) and one chunk of 1024 views copied under the engine lock;
 *  - runs an ingest thread that feeds batches of BATCH samples without pause
 *    and records how long each fsc_engine_ingest() call took, first for a
 *    stretch with no render (3 renders, at least 100 ms), then while renders
 *    run for as long: the
 *    difference is the stall a scrape adds to ingest. Percentiles matter
 *    more than the maximum on a shared 2-core machine, where the scheduler
 *    alone can stall a thread for milliseconds.
 *
 * With --gzip it also measures what a gzip scrape costs (render plus
 * compression, CPU time of the scraping thread, median of GZ_SCRAPES
 * scrapes), the body compressed in one piece (fsc_prom_gzip) and by the
 * exporter's chunk-reusing compressor (prom_gzip_chunks.h), for three
 * amounts of change between two scrapes:
 *  - "static": no sample in between (what back-to-back scrapes of a replay
 *    see, as bench/scrape_compare.sh does);
 *  - "bytes": a new round in which only the ports' rx/tx bytes moved, the
 *    plain counters (errors, discards, pauses on a healthy port) did not;
 *  - "all": every counter moved (the worst case).
 *
 *   prom_bench [--gzip] [SERIES ...]    e.g. prom_bench 10000 100000 1000000
 *
 * Numbers, not pass/fail: record them in docs/PERFORMANCE.md.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/buf.h"
#include "config/config.h"
#include "model/registry.h"
#include "engine/engine.h"
#include "prometheus/prom_gzip_chunks.h"
#include "prometheus/prom_http_body.h"
#include "prometheus/prom_render.h"
#include "../tests/config_all.h"

#define PER_PORT   20
#define BATCH      1024
#define RENDERS    5
#define GZ_SCRAPES 7
#define T_START    1700000000000000000LL
#define NS         1000000000LL
#define SPEED_BPS  400000000000ULL

static int64_t mono_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * NS + ts.tv_nsec;
}

struct bench {
    unsigned port_bytes; /* of the PER_PORT counters of a port, how many are rx/tx bytes */
    struct fsc_config *cfg;
    struct fsc_registry *reg;
    struct fsc_engine *eng;
    struct fsc_prom_renderer *r;
    uint32_t n;
    uint64_t *value; /* per series, the counter's current value */
    int64_t t;       /* device time of the last round fed */
};

static int build(struct bench *b, uint32_t n, char *err, size_t errlen)
{
    static const char yaml[] = "sources:\n"
                               "  - name: bench\n"
                               "    type: synthetic\n"
                               "    max_series: 16777216\n"
                               "exporters:\n"
                               "  prometheus:\n"
                               "    stale_after: 5m\n";
    b->n = n;
    b->cfg =
        fsc_config_parse(yaml, sizeof(yaml) - 1, "prom_bench.yaml", fsc_app_schema(), err, errlen);
    if (!b->cfg)
        return -1;
    b->reg = fsc_registry_create(n + 16);
    uint16_t src;
    if (!b->reg || fsc_registry_source_add(b->reg, "bench", 0, &src) != 0) {
        snprintf(err, errlen, "registry");
        return -1;
    }
    struct fsc_engine_config ecfg = *fsc_engine_config_of(b->cfg);
    ecfg.max_series = n + 16;
    b->eng = fsc_engine_create(&ecfg, NULL, err, errlen);
    b->value = calloc(n, sizeof(*b->value));
    if (!b->eng || !b->value)
        return -1;

    const struct fsc_traits plain = {.kind = FSC_KIND_COUNTER, .width = 64, .scale = 1};
    struct fsc_traits bytes = {.kind = FSC_KIND_COUNTER,
                               .width = 64,
                               .unit = FSC_UNIT_BYTES,
                               .signal = FSC_SIG_PORT_BYTES,
                               .scale = 1,
                               .link_speed_bps = SPEED_BPS,
                               .nominal_interval_ns = NS};
    char metric[64], dev[32], port[32];
    for (uint32_t i = 0; i < n; i++) {
        uint32_t p = i / PER_PORT, k = i % PER_PORT;
        snprintf(dev, sizeof(dev), "leaf%u", p / 64);
        snprintf(port, sizeof(port), "et-0/0/%u", p % 64);
        const struct fsc_traits *tr = &plain;
        if (k < b->port_bytes) {
            snprintf(metric, sizeof(metric), "fabric_port_%s_bytes_total", k ? "tx" : "rx");
            bytes.direction = k ? FSC_DIR_TX : FSC_DIR_RX;
            tr = &bytes;
        } else {
            snprintf(metric, sizeof(metric), "fabric_bench_counter_%02u_total", k);
        }
        struct fsc_label lab[3] = {
            {"device", dev}, {"port", port}, {"role", p % 64 < 48 ? "downlink" : "uplink"}};
        fsc_series_id id = fsc_registry_intern(b->reg, 0, metric, lab, 3);
        if (id != i || fsc_engine_set_traits(b->eng, id, tr) != 0) {
            snprintf(err, errlen, "intern/traits failed at %u", i);
            return -1;
        }
        b->value[i] = (uint64_t)i * 1000;
    }
    struct fsc_prom_render_env env = {.reg = b->reg, .eng = b->eng, .cfg = b->cfg};
    b->r = fsc_prom_renderer_create(&env, err, errlen);
    return b->r ? 0 : -1;
}

/* Feeds one round (every series once) at device time t. Port bytes move at
 * ~30 % of line rate per second, plain counters by a few units. */
static void feed_round(struct bench *b, int64_t t, int64_t dt_ns)
{
    struct fsc_sample smp[BATCH];
    size_t m = 0;
    for (uint32_t i = 0; i < b->n; i++) {
        uint32_t k = i % PER_PORT;
        b->value[i] += k < b->port_bytes ? (uint64_t)(0.3 * 50e9 * (double)dt_ns / 1e9) : 3 + k;
        smp[m++] =
            (struct fsc_sample){.series = i, .t_dev_ns = t, .t_arr_ns = t, .v.u = b->value[i]};
        if (m == BATCH || i + 1 == b->n) {
            fsc_engine_ingest(b->eng, smp, m);
            m = 0;
        }
    }
    b->t = t;
}

/* One round at device time t in which only the port byte counters move
 * (all_move: every counter), by amounts that vary per series and round as
 * real traffic does (20-40 % of line rate; plain counters 1..64): constant
 * steps would give constant rates and flatter the reuse of unchanged lines. */
static void feed_change(struct bench *b, int64_t t, int all_move)
{
    struct fsc_sample smp[BATCH];
    size_t m = 0;
    static uint64_t lcg = 88172645463325252ull;
    for (uint32_t i = 0; i < b->n; i++) {
        uint32_t k = i % PER_PORT;
        lcg = lcg * 6364136223846793005ull + 1442695040888963407ull;
        uint32_t r = (uint32_t)(lcg >> 33);
        if (k < b->port_bytes)
            b->value[i] += (uint64_t)((0.2 + 0.2 * (double)(r & 0xffff) / 65536.0) * 50e9);
        else if (all_move)
            b->value[i] += 1 + (r & 63);
        smp[m++] =
            (struct fsc_sample){.series = i, .t_dev_ns = t, .t_arr_ns = t, .v.u = b->value[i]};
        if (m == BATCH || i + 1 == b->n) {
            fsc_engine_ingest(b->eng, smp, m);
            m = 0;
        }
    }
    b->t = t;
}

static int64_t thread_cpu_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (int64_t)ts.tv_sec * NS + ts.tv_nsec;
}

static int cmp_i64(const void *a, const void *b);

static double median_ns(int64_t *v, int n)
{
    qsort(v, (size_t)n, sizeof(*v), cmp_i64);
    return (double)v[n / 2];
}

/* gzip scrapes (see the header): for each kind of change, GZ_SCRAPES scrapes
 * each preceded by that change; CPU of render, of one-piece gzip and of
 * chunked gzip, per series, and the chunks reused. */
static int gzip_section(struct bench *b)
{
    static const char *const kinds[] = {"static", "bytes", "all"};
    struct fsc_prom_gzchunks *gz;
    struct fsc_buf one = {0}, chunked = {0};
    struct fsc_buf *body = calloc(1, sizeof(*body));
    if (!body || fsc_prom_gzchunks_new(1, &gz) != 0) {
        free(body);
        return -1;
    }
    for (int kind = 0; kind < 3; kind++) {
        int64_t t_render[GZ_SCRAPES], t_one[GZ_SCRAPES], t_chunk[GZ_SCRAPES];
        size_t reused = 0, chunks = 0, bytes = 0, exposed = 0, bytes_reused = 0, bytes_all = 0;
        for (int i = -1; i < GZ_SCRAPES; i++) { /* scrape -1 primes the compressor */
            if (kind > 0)
                feed_change(b, b->t + NS, kind == 2);
            fsc_buf_reset(body);
            int64_t c0 = thread_cpu_ns();
            if (fsc_prom_render(b->r, FSC_PROM_TEXT, b->t, body) != 0)
                goto fail;
            int64_t c1 = thread_cpu_ns();
            if (fsc_prom_gzip(body, 1, &one) != 0)
                goto fail;
            int64_t c2 = thread_cpu_ns();
            struct fsc_prom_gz_stats st;
            bytes = body->len;
            exposed = 0; /* sample lines, as bench/scrape_compare.sh counts series */
            for (const char *p = body->data, *e = body->data + body->len; p < e;) {
                const char *nl = memchr(p, '\n', (size_t)(e - p));
                exposed += *p != '#';
                p = nl ? nl + 1 : e;
            }
            if (fsc_prom_gzchunks_compress(gz, body, &chunked, &st) != 0)
                goto fail;
            int64_t c3 = thread_cpu_ns();
            if (i < 0)
                continue;
            t_render[i] = c1 - c0;
            t_one[i] = c2 - c1;
            t_chunk[i] = c3 - c2;
            reused += st.chunks_reused;
            chunks += st.chunks;
            bytes_reused += st.bytes_reused;
            bytes_all += bytes;
        }
        double ns = (double)exposed;
        double r = median_ns(t_render, GZ_SCRAPES) / ns, o = median_ns(t_one, GZ_SCRAPES) / ns,
               c = median_ns(t_chunk, GZ_SCRAPES) / ns;
        if (kind == 0)
            printf("%8s         gzip, CPU per exposed series (%zu exposed, %.0f bytes each):\n", "",
                   exposed, (double)bytes / ns);
        printf("%8s         gzip %-6s: render %5.1f + one piece %6.1f = %6.1f ns/series "
               "(%.1fx smaller); chunked %6.1f = %6.1f ns/series (%.1fx smaller, %.0f %% of "
               "chunks, %.0f %% of bytes reused)\n",
               "", kinds[kind], r, o, r + o, (double)bytes / (double)one.len, c, r + c,
               (double)bytes / (double)chunked.len,
               chunks ? 100.0 * (double)reused / (double)chunks : 0.0,
               bytes_all ? 100.0 * (double)bytes_reused / (double)bytes_all : 0.0);
    }
    int rc = 0;
    if (0) {
    fail:
        rc = -1;
    }
    fsc_buf_free(body);
    free(body);
    fsc_buf_free(&one);
    fsc_buf_free(&chunked);
    fsc_prom_gzchunks_free(gz);
    return rc;
}

static void destroy(struct bench *b)
{
    fsc_prom_renderer_destroy(b->r);
    fsc_engine_destroy(b->eng);
    fsc_registry_destroy(b->reg);
    fsc_config_destroy(b->cfg);
    free(b->value);
}

/* ---- the ingest thread -------------------------------------------------- */

#define MAX_OBS (1u << 20)

struct ingest {
    struct bench *b;
    atomic_int phase; /* 0 idle, 1 baseline, 2 during renders, 3 stop */
    int64_t *obs[3];  /* duration of each batch per phase (first MAX_OBS) */
    size_t n_obs[3];
};

static void *ingest_main(void *arg)
{
    struct ingest *in = arg;
    struct bench *b = in->b;
    struct fsc_sample smp[BATCH];
    uint32_t next = 0;
    int64_t t = b->t;

    for (;;) {
        int phase = atomic_load(&in->phase);
        if (phase == 3)
            break;
        /* One batch of consecutive series; a new round (device time +1 s)
         * each time the ids wrap. */
        size_t m = 0;
        while (m < BATCH) {
            if (next == 0)
                t += NS;
            b->value[next] += 7;
            smp[m++] = (struct fsc_sample){
                .series = next, .t_dev_ns = t, .t_arr_ns = t, .v.u = b->value[next]};
            next = next + 1 == b->n ? 0 : next + 1;
        }
        int64_t t0 = mono_ns();
        fsc_engine_ingest(b->eng, smp, m);
        int64_t dt = mono_ns() - t0;
        if (phase >= 0 && phase <= 2 && in->n_obs[phase] < MAX_OBS)
            in->obs[phase][in->n_obs[phase]++] = dt;
    }
    return NULL;
}

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return x < y ? -1 : x > y;
}

/* p-th percentile (0..100) of v[0..n), sorted in place; 0 when empty. */
static double pct_us(int64_t *v, size_t n, double p)
{
    if (n == 0)
        return 0;
    qsort(v, n, sizeof(*v), cmp_i64);
    size_t i = (size_t)(p / 100.0 * (double)(n - 1) + 0.5);
    return (double)v[i] / 1e3;
}

static void sleep_ns(int64_t ns)
{
    struct timespec ts = {(time_t)(ns / NS), (long)(ns % NS)};
    nanosleep(&ts, NULL);
}

static int want_gzip;

static int run(uint32_t n, unsigned port_bytes)
{
    struct bench b = {.port_bytes = port_bytes};
    char err[512] = "";
    struct fsc_buf out = {0};
    int64_t t_build = mono_ns();
    if (build(&b, n, err, sizeof(err)) != 0) {
        fprintf(stderr, "prom_bench: %u series: %s\n", n, err);
        destroy(&b);
        return -1;
    }
    feed_round(&b, T_START, NS);
    feed_round(&b, T_START + NS, NS);
    double build_s = (double)(mono_ns() - t_build) / 1e9;

    int64_t t0 = mono_ns();
    int rc = fsc_prom_render(b.r, FSC_PROM_TEXT, T_START + NS, &out);
    double first_ms = (double)(mono_ns() - t0) / 1e6;
    if (rc != 0) {
        fprintf(stderr, "prom_bench: render failed: %d\n", rc);
        destroy(&b);
        return -1;
    }

    int64_t times[RENDERS];
    for (int i = 0; i < RENDERS; i++) {
        t0 = mono_ns();
        fsc_prom_render(b.r, FSC_PROM_TEXT, T_START + NS, &out);
        times[i] = mono_ns() - t0;
    }
    size_t bytes = out.len;
    qsort(times, RENDERS, sizeof(times[0]), cmp_i64);
    t0 = mono_ns();
    fsc_prom_render(b.r, FSC_PROM_OPENMETRICS, T_START + NS, &out);
    double om_ms = (double)(mono_ns() - t0) / 1e6;

    /* A scrape whose buffer is new (the HTTP layer renders into a buffer
     * per request): the renderer reserves the previous size at once. */
    struct fsc_buf fresh = {0};
    t0 = mono_ns();
    fsc_prom_render(b.r, FSC_PROM_TEXT, T_START + NS, &fresh);
    double fresh_ms = (double)(mono_ns() - t0) / 1e6;
    fsc_buf_free(&fresh);

    /* What one chunk of views costs under the engine lock: the longest a
     * render makes an ingest wait (the renderer copies 1024 at a time). */
    static fsc_series_id ids[1024];
    static struct fsc_series_view views[1024];
    uint32_t chunk = n < 1024 ? n : 1024;
    for (uint32_t i = 0; i < chunk; i++)
        ids[i] = i;
    int64_t hold = INT64_MAX;
    for (int i = 0; i < 20; i++) {
        t0 = mono_ns();
        fsc_engine_view_ids(b.eng, ids, chunk, views);
        int64_t dt = mono_ns() - t0;
        if (dt < hold)
            hold = dt;
    }

    /* Ingest stall: the same stretch of time without and with renders. */
    struct ingest in = {.b = &b};
    atomic_init(&in.phase, 0);
    pthread_t th;
    for (int i = 0; i < 3; i++)
        in.obs[i] = malloc(MAX_OBS * sizeof(int64_t));
    if (!in.obs[0] || !in.obs[1] || !in.obs[2] ||
        pthread_create(&th, NULL, ingest_main, &in) != 0) {
        fprintf(stderr, "prom_bench: cannot start the ingest thread\n");
        for (int i = 0; i < 3; i++)
            free(in.obs[i]);
        fsc_buf_free(&out);
        destroy(&b);
        return -1;
    }
    /* At least 3 renders and 100 ms each way, so short renders still meet
     * many ingest batches. */
    int64_t stretch = times[RENDERS / 2] * 3;
    if (stretch < 100000000)
        stretch = 100000000;
    sleep_ns(20000000); /* warm up */
    atomic_store(&in.phase, 1);
    sleep_ns(stretch);
    atomic_store(&in.phase, 2);
    int64_t t_end = mono_ns() + stretch;
    for (int i = 0; i < 3 || mono_ns() < t_end; i++)
        fsc_prom_render(b.r, FSC_PROM_TEXT, b.t, &out);
    atomic_store(&in.phase, 3);
    pthread_join(th, NULL);

    double med_ms = (double)times[RENDERS / 2] / 1e6, best_ms = (double)times[0] / 1e6;
    printf("%8u series, %s: render best %8.2f ms (%5.1f ns/series), median %8.2f ms "
           "(%5.1f ns/series); OpenMetrics %8.2f ms; first render (index build) %8.2f ms\n",
           n, port_bytes ? "mix" : "plain", best_ms, best_ms * 1e6 / n, med_ms, med_ms * 1e6 / n,
           om_ms, first_ms);
    printf("%8s         exposition %zu bytes (%.1f bytes/series); into a fresh buffer %.2f ms; "
           "%u views under the lock %.1f us; setup %.1f s\n",
           "", bytes, (double)bytes / n, fresh_ms, chunk, (double)hold / 1e3, build_s);
    for (int ph = 1; ph <= 2; ph++) {
        size_t cnt = in.n_obs[ph];
        double p50 = pct_us(in.obs[ph], cnt, 50), p99 = pct_us(in.obs[ph], cnt, 99),
               p999 = pct_us(in.obs[ph], cnt, 99.9), max = pct_us(in.obs[ph], cnt, 100);
        printf("%8s         ingest %s: %d-sample fsc_engine_ingest p50 %.0f us, p99 %.0f us, "
               "p99.9 %.0f us, max %.0f us (%zu batches)\n",
               "", ph == 1 ? "without render" : "during renders", BATCH, p50, p99, p999, max, cnt);
    }
    if (want_gzip && gzip_section(&b) != 0)
        fprintf(stderr, "prom_bench: the gzip measurement failed\n");
    fflush(stdout);
    for (int i = 0; i < 3; i++)
        free(in.obs[i]);
    fsc_buf_free(&out);
    destroy(&b);
    return 0;
}

int main(int argc, char **argv)
{
    uint32_t counts[16];
    int n = 0;
    for (int i = 1; i < argc && n < 16; i++) {
        if (strcmp(argv[i], "--gzip") == 0) {
            want_gzip = 1;
            continue;
        }
        long v = strtol(argv[i], NULL, 10);
        if (v < PER_PORT || v > 16000000) {
            fprintf(stderr, "usage: prom_bench [--gzip] [SERIES ...] (each %d..16000000)\n",
                    PER_PORT);
            return 2;
        }
        counts[n++] = (uint32_t)v;
    }
    if (n == 0) {
        counts[n++] = 10000;
        counts[n++] = 100000;
        counts[n++] = 1000000;
    }
    for (int i = 0; i < n; i++)
        if (run(counts[i], 2) != 0 || run(counts[i], 0) != 0)
            return 1;
    return 0;
}
