/* Cumulus buffer and latency histograms as queue-peak evidence
 * (collector/sources/otlp/map/otlp_hist_evid.c): the ingest driven with built
 * histogram points against a real registry, engine and event bus; known
 * answers are the bucket bounds NVIDIA's layout gives (Min 864 bytes after
 * rounding to Spectrum-3's 144-byte cells, histogram size 12288, so
 * bounds Min - 1 + k x 1536 for k = 0..8; ASIC-Monitoring.md). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/config.h"
#include "engine/engine.h"
#include "engine/events.h"
#include "model/registry.h"
#include "source_env_fixture.h"
#include "sources/otlp/map/otlp_ingest.h"
#include "sources/otlp/map/otlp_ingest_int.h"
#include "test.h"
#include "config_all.h"

#define NS  1000000000LL
#define T0  1764460800000000000LL /* 2025-11-30 00:00:00 UTC */
#define ARR (T0 + 777)
#define S1  (T0 - 3600 * NS)
#define S2  (T0 + 1500 * NS)
#define SRC "otlp-cumulus"
#define NB  10 /* NVIDIA's 10 bins */

/* Egress buffer bounds (bytes) and the latency example's (ns, NVIDIA's
 * Monitoring-and-Troubleshooting/Open-Telemetry-Export.md "Histogram Data Format"). */
static const double QB[NB - 1] = {863, 2399, 3935, 5471, 7007, 8543, 10079, 11615, 13151};
static const double LBD[NB - 1] = {319, 831, 1343, 1855, 2367, 2879, 3391, 3903, 4415};

#define QPEAK "fabric_port_queue_histogram_peak_bytes"
#define LPEAK "fabric_port_queue_histogram_latency_seconds"

/* buffer 16 KiB: bar 0.5 x 16384 = 8192 bytes; latency bar 2 us */
static const char YAML[] = "engine:\n"
                           "  microburst:\n"
                           "    latency_peak: 2us\n"
                           "topology:\n"
                           "  devices:\n"
                           "    - name: spine1\n"
                           "      role: spine\n"
                           "      buffer: 16KiB\n"
                           "      ports:\n"
                           "        - {name: swp1, speed: 400G}\n";

struct fx {
    struct src_env se; /* the config's topology and engine, a bus with a subscriber */
    struct fsc_otlp_ingest *ing;
    struct fsc_otlp_visitor v;
    /* the peak gauge samples of the requests since the last take */
    fsc_series_id peak_id[64];
    double peak_v[64];
    size_t n_peak;
};

static void tap(void *arg, const struct fsc_sample *smp, size_t n)
{
    struct fx *f = arg;
    for (size_t i = 0; i < n; i++) {
        const char *m = fsc_registry_metric(f->se.reg, smp[i].series);
        if (m && strstr(m, "_histogram_") && !strstr(m, "nvswitch") && f->n_peak < 64) {
            f->peak_id[f->n_peak] = smp[i].series;
            f->peak_v[f->n_peak++] = smp[i].v.d;
        }
    }
}

static int fx_open(struct fx *f, const char *yaml)
{
    char err[256] = "";
    memset(f, 0, sizeof(*f));
    struct src_env_opts o = {.source = SRC, .yaml = yaml, .max_series = 100000, .bus = true};
    if (src_env_open(&f->se, &o) != 0)
        return -1;
    struct fsc_otlp_ingest_config icfg = {
        .source_name = SRC, .sample_tap = tap, .sample_tap_arg = f};
    f->ing = fsc_otlp_ingest_create(&icfg, &f->se.env, err, sizeof(err));
    if (!f->ing)
        fprintf(stderr, "ingest: %s\n", err);
    return f->ing ? 0 : -1;
}

static void fx_close(struct fx *f)
{
    fsc_otlp_ingest_destroy(f->ing);
    src_env_close(&f->se);
}

static struct fsc_otlp_str str(const char *s)
{
    return (struct fsc_otlp_str){s, (uint32_t)strlen(s)};
}

/* One request from spine1: histogram `name` of swp1, class attribute
 * cls = c (an int, as NVIDIA's examples send it), bins b. */
static void send(struct fx *f, const char *name, uint8_t temp, const char *cls, int c,
                 const double *bounds, const uint64_t *b, uint64_t start, int64_t t)
{
    struct fsc_otlp_attr r[1] = {
        {.key = str("host.name"), .type = FSC_OTLP_VAL_STRING, .s = str("spine1")}};
    struct fsc_otlp_attr a[2] = {
        {.key = str("interface"), .type = FSC_OTLP_VAL_STRING, .s = str("swp1")},
        {.key = str(cls), .type = FSC_OTLP_VAL_INT, .i = c}};
    struct fsc_otlp_metric m = {.name = str(name), .type = FSC_OTLP_HISTOGRAM, .temporality = temp};
    uint64_t count = 0;
    for (int i = 0; i < NB; i++)
        count += b[i];
    struct fsc_otlp_point p = {.attrs = a,
                               .n_attrs = 2,
                               .start_ns = start,
                               .time_ns = (uint64_t)t,
                               .count = count,
                               .bounds = bounds,
                               .n_bounds = NB - 1,
                               .buckets = b,
                               .n_buckets = NB};
    fsc_otlp_ingest_begin(f->ing, ARR, &f->v);
    f->v.resource(f->v.ctx, r, 1);
    f->v.metric(f->v.ctx, &m);
    f->v.point(f->v.ctx, &p);
    struct fsc_otlp_ingest_result res;
    CHECK_INT(fsc_otlp_ingest_end(f->ing, &res), 0);
    CHECK_INT(res.accepted, 1);
}

/* The queue-peak events published since the last call, into ev (max 8). */
static size_t events(struct fx *f, struct fsc_event *ev)
{
    struct fsc_event all[64];
    uint64_t lost = 0;
    size_t n = fsc_event_poll(f->se.sub, all, 64, &lost), k = 0;
    CHECK_INT(lost, 0);
    for (size_t i = 0; i < n; i++)
        if (all[i].kind == FSC_EV_QUEUE_PEAK && k < 8)
            ev[k++] = all[i];
    return k;
}

/* The pure rule: lower bound of the highest non-empty bucket. */
static void reached_known_answers(void)
{
    uint64_t empty[NB] = {0}, low[NB] = {5, 5, 5, 5, 5, 5, 5, 5, 5, 5};
    uint64_t bin0[NB] = {7, 7, 7, 7, 7, 7, 7, 7, 7, 7};                    /* all in bucket 0 */
    uint64_t bin3[NB] = {1, 2, 3, 4, 4, 4, 4, 4, 4, 4};                    /* up to bucket 3 */
    uint64_t top[NB] = {900, 900, 900, 900, 900, 900, 900, 900, 900, 901}; /* one in bin 9 */
    CHECK(otlp_hist_evid_reached(empty, QB, NB) == 0);
    CHECK(otlp_hist_evid_reached(bin0, QB, NB) == 0);
    CHECK(otlp_hist_evid_reached(bin3, QB, NB) == 3935);
    CHECK(otlp_hist_evid_reached(top, QB, NB) == 13151);
    low[9] = 6; /* le-cumulative: one sample above the last bound */
    CHECK(otlp_hist_evid_reached(low, QB, NB) == 13151);
    CHECK(otlp_hist_evid_reached(empty, NULL, 0) == 0);
}

/* Delta (the 5.13+ default): quiet exports give their bound and no event; a
 * burst into the top buckets gives one event on swp1 queue 3 with the bound
 * reached, however many exports it spans; quiet re-arms. */
static void egress_delta_burst_once(void)
{
    struct fx f;
    if (fx_open(&f, YAML) != 0) {
        CHECK(0);
        return;
    }
    const char *eb = "nvswitch_histogram_interface_egress_buffer";
    uint64_t quiet[NB] = {1000000, 20, 3, 1, 0, 0, 0, 0, 0, 0};    /* reaches 3935 <= 8192 */
    uint64_t burst[NB] = {990000, 50, 40, 30, 20, 10, 5, 2, 0, 0}; /* reaches 10079 */
    uint64_t top[NB] = {990000, 50, 40, 30, 20, 10, 5, 2, 1, 3};   /* reaches 13151 */
    struct fsc_event ev[8];

    send(&f, eb, FSC_OTLP_TEMP_DELTA, "tc", 3, QB, quiet, (uint64_t)S1, T0);
    send(&f, eb, FSC_OTLP_TEMP_DELTA, "tc", 3, QB, quiet, (uint64_t)S1, T0 + NS);
    CHECK_INT(f.n_peak, 2);
    CHECK(f.peak_v[0] == 3935 && f.peak_v[1] == 3935);
    CHECK_STR(series_text(f.se.reg, f.peak_id[0]),
              QPEAK "{device=\"spine1\",port=\"swp1\",queue=\"3\"}");
    CHECK_INT(events(&f, ev), 0);

    send(&f, eb, FSC_OTLP_TEMP_DELTA, "tc", 3, QB, burst, (uint64_t)S1, T0 + 2 * NS);
    send(&f, eb, FSC_OTLP_TEMP_DELTA, "tc", 3, QB, top, (uint64_t)S1, T0 + 3 * NS);
    CHECK_INT(events(&f, ev), 1);
    CHECK_INT(ev[0].phase, FSC_EV_INSTANT);
    CHECK_INT(ev[0].direction, FSC_DIR_TX);
    CHECK(ev[0].series == f.peak_id[0]);
    CHECK(ev[0].t_start_ns == T0 + 2 * NS);
    double v = 0;
    CHECK(fsc_event_get(&ev[0], FSC_EF_QUEUE_PEAK_BYTES, &v) && v == 10079);
    CHECK(fsc_event_get(&ev[0], FSC_EF_BUFFER_SHARE, &v) && fabs(v - 10079.0 / 16384) < 1e-12);
    CHECK(f.peak_v[3] == 13151);

    /* quiet, then a second burst: a second episode */
    send(&f, eb, FSC_OTLP_TEMP_DELTA, "tc", 3, QB, quiet, (uint64_t)S1, T0 + 4 * NS);
    CHECK_INT(events(&f, ev), 0);
    send(&f, eb, FSC_OTLP_TEMP_DELTA, "tc", 3, QB, top, (uint64_t)S1, T0 + 5 * NS);
    CHECK_INT(events(&f, ev), 1);
    CHECK(fsc_event_get(&ev[0], FSC_EF_QUEUE_PEAK_BYTES, &v) && v == 13151);
    struct fsc_series_view view;
    CHECK_INT(fsc_engine_view(f.se.eng, f.peak_id[0], &view), 0);
    CHECK_INT(view.events, 2);
    CHECK_INT(view.signal, FSC_SIG_QUEUE_PEAK);
    struct fsc_otlp_ingest_stats st;
    fsc_otlp_ingest_stats(f.ing, &st);
    CHECK_INT(st.hist_evid_samples, 6);
    fx_close(&f);
}

/* Cumulative: the interval is the difference to the previous export, so the
 * same traffic gives the same values and events as delta; the first export
 * and a restart (new start time) give none. */
static void egress_cumulative_same_answers(void)
{
    struct fx f;
    if (fx_open(&f, YAML) != 0) {
        CHECK(0);
        return;
    }
    const char *eb = "nvswitch_histogram_interface_egress_buffer";
    uint64_t c[NB] = {1000000, 20, 3, 1, 0, 0, 0, 0, 0, 0};
    uint64_t quiet[NB] = {1000000, 20, 3, 1, 0, 0, 0, 0, 0, 0};
    uint64_t burst[NB] = {990000, 50, 40, 30, 20, 10, 5, 2, 0, 0};
    struct fsc_event ev[8];

    send(&f, eb, FSC_OTLP_TEMP_CUMULATIVE, "tc", 3, QB, c, (uint64_t)S1, T0);
    CHECK_INT(f.n_peak, 0); /* no interval known yet */
    for (int i = 0; i < NB; i++)
        c[i] += quiet[i];
    send(&f, eb, FSC_OTLP_TEMP_CUMULATIVE, "tc", 3, QB, c, (uint64_t)S1, T0 + NS);
    CHECK_INT(f.n_peak, 1);
    CHECK(f.peak_v[0] == 3935);
    CHECK_INT(events(&f, ev), 0);
    for (int i = 0; i < NB; i++)
        c[i] += burst[i];
    send(&f, eb, FSC_OTLP_TEMP_CUMULATIVE, "tc", 3, QB, c, (uint64_t)S1, T0 + 2 * NS);
    CHECK_INT(f.n_peak, 2);
    CHECK(f.peak_v[1] == 10079);
    CHECK_INT(events(&f, ev), 1);
    double v = 0;
    CHECK(fsc_event_get(&ev[0], FSC_EF_QUEUE_PEAK_BYTES, &v) && v == 10079);
    /* the cumulative totals stay put: an empty interval, nothing reached */
    send(&f, eb, FSC_OTLP_TEMP_CUMULATIVE, "tc", 3, QB, c, (uint64_t)S1, T0 + 3 * NS);
    CHECK_INT(f.n_peak, 3);
    CHECK(f.peak_v[2] == 0);
    /* restart: the counts since S2 are not an interval of ours */
    send(&f, eb, FSC_OTLP_TEMP_CUMULATIVE, "tc", 3, QB, burst, (uint64_t)S2, T0 + 4 * NS);
    CHECK_INT(f.n_peak, 3);
    CHECK_INT(events(&f, ev), 0);
    fx_close(&f);
}

/* Latency {tc}: bounds in ns, the gauge in seconds, bar latency_peak (2 us
 * here); the event carries the latency reached. Ingress {pg} is rx. */
static void latency_and_ingress(void)
{
    struct fx f;
    if (fx_open(&f, YAML) != 0) {
        CHECK(0);
        return;
    }
    const char *lh = "nvswitch_histogram_interface_latency";
    uint64_t ok[NB] = {500, 40, 3, 1, 0, 0, 0, 0, 0, 0};   /* reaches 1343 ns */
    uint64_t slow[NB] = {500, 40, 3, 1, 1, 1, 0, 0, 0, 0}; /* reaches 2367 ns */
    struct fsc_event ev[8];
    send(&f, lh, FSC_OTLP_TEMP_DELTA, "tc", 0, LBD, ok, (uint64_t)S1, T0);
    CHECK_INT(events(&f, ev), 0);
    send(&f, lh, FSC_OTLP_TEMP_DELTA, "tc", 0, LBD, slow, (uint64_t)S1, T0 + NS);
    CHECK_INT(f.n_peak, 2);
    CHECK(fabs(f.peak_v[0] - 1343e-9) < 1e-18);
    CHECK_STR(series_text(f.se.reg, f.peak_id[1]),
              LPEAK "{device=\"spine1\",port=\"swp1\",queue=\"0\"}");
    CHECK_INT(events(&f, ev), 1);
    double v = 0;
    CHECK(fsc_event_get(&ev[0], FSC_EF_QUEUE_LATENCY, &v) && fabs(v - 2367e-9) < 1e-18);
    CHECK(!fsc_event_get(&ev[0], FSC_EF_QUEUE_PEAK_BYTES, &v));

    uint64_t full[NB] = {10, 0, 0, 0, 0, 0, 0, 0, 0, 1};
    send(&f, "nvswitch_histogram_interface_ingress_buffer", FSC_OTLP_TEMP_DELTA, "pg", 1, QB, full,
         (uint64_t)S1, T0 + 2 * NS);
    CHECK_INT(f.n_peak, 3);
    CHECK_STR(series_text(f.se.reg, f.peak_id[2]),
              "fabric_port_pg_histogram_peak_bytes{device=\"spine1\",port=\"swp1\","
              "priority_group=\"1\"}");
    CHECK_INT(events(&f, ev), 1);
    CHECK_INT(ev[0].direction, FSC_DIR_RX);
    CHECK(fsc_event_get(&ev[0], FSC_EF_QUEUE_PEAK_BYTES, &v) && v == 13151);
    /* the counter histogram is no evidence */
    send(&f, "nvswitch_histogram_interface_counter", FSC_OTLP_TEMP_DELTA, "tc", 0, QB, full,
         (uint64_t)S1, T0 + 3 * NS);
    CHECK_INT(f.n_peak, 3);
    fx_close(&f);
}

/* The default bar is 10 us: the example's latency range (to 4415 ns) never
 * reaches it. */
static void latency_default_bar(void)
{
    struct fsc_engine_config ecfg;
    fsc_engine_config_defaults(&ecfg);
    CHECK_INT(ecfg.microburst.latency_peak_ns, 10000);
    struct fx f;
    static const char plain[] = "topology:\n"
                                "  devices:\n"
                                "    - name: spine1\n"
                                "      role: spine\n";
    if (fx_open(&f, plain) != 0) {
        CHECK(0);
        return;
    }
    uint64_t top[NB] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 9};
    struct fsc_event ev[8];
    send(&f, "nvswitch_histogram_interface_latency", FSC_OTLP_TEMP_DELTA, "tc", 0, LBD, top,
         (uint64_t)S1, T0);
    CHECK_INT(f.n_peak, 1);
    CHECK_INT(events(&f, ev), 0);
    fx_close(&f);
}

TEST_MAIN(TEST(reached_known_answers), TEST(egress_delta_burst_once),
          TEST(egress_cumulative_same_answers), TEST(latency_and_ingress),
          TEST(latency_default_bar))
