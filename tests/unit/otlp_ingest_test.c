/* OTLP ingest: the visitor driven directly with hand-built points against a
 * real registry and engine; exact series (name and labels), sample values
 * and flags (seen through the sample tap), rejections, limits, memory. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "config/config.h"
#include "model/registry.h"
#include "engine/engine.h"
#include "source_env_fixture.h"
#include "sources/otlp/map/otlp_ingest.h"
#include "sources/otlp/map/otlp_series.h"
#include "test.h"
#include "config_all.h"

#define NS    1000000000LL
#define T0    1764460800000000000LL /* 2025-11-30 00:00:00 UTC */
#define ARR   (T0 + 777)
#define S1    (T0 - 3600 * NS) /* start times */
#define S2    (T0 + 1500000000LL)
#define SRC   "otlp-cumulus"
#define TAP_N 1024

/* ---- fixture ------------------------------------------------------------------ */

struct fx {
    struct src_env se; /* with the topology of fx_opts.yaml */
    struct fsc_otlp_ingest *ing;
    struct fsc_sample smp[TAP_N]; /* samples of the requests since tap_clear */
    size_t n_smp;
    size_t taps; /* tap calls since tap_clear */
    struct fsc_otlp_visitor v;
};

static void tap(void *arg, const struct fsc_sample *smp, size_t n)
{
    struct fx *f = arg;
    f->taps++;
    for (size_t i = 0; i < n && f->n_smp < TAP_N; i++)
        f->smp[f->n_smp++] = smp[i];
}

static void tap_clear(struct fx *f)
{
    f->n_smp = 0;
    f->taps = 0;
}

struct fx_opts {
    uint32_t max_series;
    uint32_t max_batch;
    const char *device_attribute;
    const char *yaml; /* topology */
};

static int fx_open(struct fx *f, const struct fx_opts *o)
{
    char err[256] = "";
    memset(f, 0, sizeof(*f));
    struct src_env_opts so = {.source = SRC, .yaml = o ? o->yaml : NULL, .max_series = 100000};
    if (src_env_open(&f->se, &so) != 0)
        return -1;
    struct fsc_otlp_ingest_config icfg = {
        .source_name = SRC,
        .device_attribute = o ? o->device_attribute : NULL,
        .max_series = o ? o->max_series : 0,
        .max_batch = o ? o->max_batch : 0,
        .sample_tap = tap,
        .sample_tap_arg = f,
    };
    f->ing = fsc_otlp_ingest_create(&icfg, &f->se.env, err, sizeof(err));
    if (!f->ing) {
        fprintf(stderr, "ingest: %s\n", err);
        return -1;
    }
    return 0;
}

static void fx_close(struct fx *f)
{
    fsc_otlp_ingest_destroy(f->ing);
    src_env_close(&f->se);
}

/* ---- builders ------------------------------------------------------------------ */

static struct fsc_otlp_str str(const char *s)
{
    return (struct fsc_otlp_str){s, (uint32_t)strlen(s)};
}

static struct fsc_otlp_attr as(const char *k, const char *v)
{
    return (struct fsc_otlp_attr){.key = str(k), .type = FSC_OTLP_VAL_STRING, .s = str(v)};
}

static struct fsc_otlp_attr ai(const char *k, int64_t i)
{
    return (struct fsc_otlp_attr){.key = str(k), .type = FSC_OTLP_VAL_INT, .i = i};
}

static struct fsc_otlp_metric metric(const char *name, uint8_t type, uint8_t temp, bool mono)
{
    return (struct fsc_otlp_metric){
        .name = str(name), .type = type, .temporality = temp, .monotonic = mono};
}

static struct fsc_otlp_point pd(const struct fsc_otlp_attr *a, uint32_t n, int64_t t, double v)
{
    return (struct fsc_otlp_point){.attrs = a,
                                   .n_attrs = n,
                                   .time_ns = (uint64_t)t,
                                   .value_kind = FSC_OTLP_VALUE_DOUBLE,
                                   .as_double = v};
}

static struct fsc_otlp_point pi(const struct fsc_otlp_attr *a, uint32_t n, int64_t t, int64_t v)
{
    return (struct fsc_otlp_point){.attrs = a,
                                   .n_attrs = n,
                                   .time_ns = (uint64_t)t,
                                   .value_kind = FSC_OTLP_VALUE_INT,
                                   .as_int = v};
}

static void begin(struct fx *f, const char *host)
{
    fsc_otlp_ingest_begin(f->ing, ARR, &f->v);
    struct fsc_otlp_attr r[2] = {as("service.name", "nvswitch"), as("host.name", host ? host : "")};
    f->v.resource(f->v.ctx, r, host ? 2 : 1);
}

static void visit_metric(struct fx *f, const struct fsc_otlp_metric *m)
{
    f->v.metric(f->v.ctx, m);
}

static void visit(struct fx *f, const struct fsc_otlp_point *p)
{
    f->v.point(f->v.ctx, p);
}

static struct fsc_otlp_ingest_result end(struct fx *f)
{
    struct fsc_otlp_ingest_result res;
    CHECK_INT(fsc_otlp_ingest_end(f->ing, &res), 0);
    return res;
}

/* One request: device leaf1, one metric, one point. */
static struct fsc_otlp_ingest_result one(struct fx *f, const struct fsc_otlp_metric *m,
                                         const struct fsc_otlp_point *p)
{
    begin(f, "leaf1");
    visit_metric(f, m);
    visit(f, p);
    return end(f);
}

/* ---- cases ------------------------------------------------------------------------ */

/* Cumulus interface counters arrive as Gauge doubles: canonical name, device
 * from host.name, port from `interface`, a counter of width 53, device time. */
static void cumulus_gauge_counter(void)
{
    struct fx f;
    if (fx_open(&f, NULL) != 0)
        return;
    struct fsc_otlp_metric m =
        metric("nvswitch_interface_if_in_octets", FSC_OTLP_GAUGE, FSC_OTLP_TEMP_UNSPECIFIED, 0);
    struct fsc_otlp_attr a[] = {as("interface", "swp1")};
    struct fsc_otlp_point p = pd(a, 1, T0 + 5, 123456789.0);
    struct fsc_otlp_ingest_result res = one(&f, &m, &p);
    CHECK_INT(res.points, 1);
    CHECK_INT(res.accepted, 1);
    CHECK_INT(res.rejected, 0);
    CHECK_STR(res.message, "");
    CHECK_INT(f.n_smp, 1);
    CHECK_INT(f.smp[0].flags, FSC_SMP_F64);
    CHECK(f.smp[0].v.d == 123456789.0);
    CHECK_INT(f.smp[0].t_dev_ns, T0 + 5);
    CHECK_INT(f.smp[0].t_arr_ns, ARR);
    CHECK_STR(series_text(f.se.reg, f.smp[0].series),
              "fabric_port_rx_bytes_total{device=\"leaf1\",port=\"swp1\"}");
    struct fsc_series_view view;
    CHECK_INT(fsc_engine_view(f.se.eng, f.smp[0].series, &view), 0);
    CHECK_INT(view.kind, FSC_KIND_COUNTER);
    CHECK_INT(view.signal, FSC_SIG_PORT_BYTES);
    CHECK_INT(view.direction, FSC_DIR_RX);
    CHECK_INT(view.unit, FSC_UNIT_BYTES);
    CHECK_INT(view.is_f64, 1);
    CHECK(view.value.d == 123456789.0);
    struct fsc_otlp_ingest_stats st;
    fsc_otlp_ingest_stats(f.ing, &st);
    CHECK_INT(st.requests, 1);
    CHECK_INT(st.points, 1);
    CHECK_INT(st.accepted, 1);
    CHECK_INT(st.samples, 1);
    CHECK_INT(st.series, 1);
    CHECK_INT(st.cache_entries, 1);
    fx_close(&f);
}

/* The profile's extra label: tc -> queue (int attribute), sp -> priority
 * (string), the watermark gauge stays a gauge, the per-class transmit queue
 * depth is a gauge in cells, and a name the profile does not know keeps `tc`
 * as it is. */
static void profile_labels_queue_priority(void)
{
    struct fx f;
    if (fx_open(&f, NULL) != 0)
        return;
    struct fsc_otlp_attr a1[] = {as("interface", "swp2"), ai("tc", 3)};
    struct fsc_otlp_attr a2[] = {as("sp", "5"), as("interface", "swp2")};
    struct fsc_otlp_attr a3[] = {ai("tc", 0), as("interface", "swp2")};
    struct fsc_otlp_metric m1 =
        metric("nvswitch_interface_tc_tx_ecn_marked_tc", FSC_OTLP_GAUGE, 0, 0);
    struct fsc_otlp_metric m2 = metric("nvswitch_interface_sp_rx_pause", FSC_OTLP_GAUGE, 0, 0);
    struct fsc_otlp_metric m3 =
        metric("nvswitch_interface_shared_buffer_port_tc_watermark", FSC_OTLP_GAUGE, 0, 0);
    struct fsc_otlp_metric m4 = metric("nvswitch_interface_tc_tx_uc_frames", FSC_OTLP_GAUGE, 0, 0);
    struct fsc_otlp_metric m5 = metric("nvswitch_interface_tc_tx_queue", FSC_OTLP_GAUGE, 0, 0);
    struct fsc_otlp_point p1 = pd(a1, 2, T0, 10), p2 = pd(a2, 2, T0, 20), p3 = pd(a3, 2, T0, 4096),
                          p4 = pd(a1, 2, T0, 1), p5 = pd(a1, 2, T0, 7);
    begin(&f, "leaf1");
    visit_metric(&f, &m1);
    visit(&f, &p1);
    visit_metric(&f, &m2);
    visit(&f, &p2);
    visit_metric(&f, &m3);
    visit(&f, &p3);
    visit_metric(&f, &m4);
    visit(&f, &p4);
    visit_metric(&f, &m5);
    visit(&f, &p5);
    struct fsc_otlp_ingest_result res = end(&f);
    CHECK_INT(res.accepted, 5);
    CHECK_INT(f.n_smp, 5);
    if (f.n_smp == 5) {
        CHECK_STR(
            series_text(f.se.reg, f.smp[0].series),
            "fabric_port_ecn_marked_packets_total{device=\"leaf1\",port=\"swp2\",queue=\"3\"}");
        CHECK_STR(
            series_text(f.se.reg, f.smp[1].series),
            "fabric_port_pfc_rx_pause_frames_total{device=\"leaf1\",port=\"swp2\",priority=\"5\"}");
        CHECK_STR(series_text(f.se.reg, f.smp[2].series),
                  "fabric_port_queue_peak_bytes{device=\"leaf1\",port=\"swp2\",queue=\"0\"}");
        CHECK_STR(series_text(f.se.reg, f.smp[3].series),
                  "fabric_cumulus_nvswitch_interface_tc_tx_uc_frames{device=\"leaf1\","
                  "port=\"swp2\",queue=\"3\"}");
        CHECK_STR(series_text(f.se.reg, f.smp[4].series),
                  "fabric_port_queue_current_cells{device=\"leaf1\",port=\"swp2\",queue=\"3\"}");
        struct fsc_series_view view;
        CHECK_INT(fsc_engine_view(f.se.eng, f.smp[0].series, &view), 0);
        CHECK_INT(view.kind, FSC_KIND_COUNTER);
        CHECK_INT(view.signal, FSC_SIG_ECN);
        CHECK_INT(fsc_engine_view(f.se.eng, f.smp[2].series, &view), 0);
        CHECK_INT(view.kind, FSC_KIND_GAUGE);
        CHECK_INT(view.signal, FSC_SIG_QUEUE_PEAK);
        CHECK(view.value.d == 4096.0);
        CHECK_INT(fsc_engine_view(f.se.eng, f.smp[3].series, &view), 0);
        CHECK_INT(view.kind, FSC_KIND_GAUGE); /* an unknown gauge stays a gauge */
        CHECK_INT(fsc_engine_view(f.se.eng, f.smp[4].series, &view), 0);
        CHECK_INT(view.kind, FSC_KIND_GAUGE);
        CHECK_INT(view.signal, FSC_SIG_NONE);
        CHECK(view.value.d == 7.0);
    }
    fx_close(&f);
}

/* Unknown names pass through as fabric_cumulus_<name>; attributes become
 * sanitized labels (leading digit, "__", clash with device), arrays and
 * empty values do not. */
static void unknown_name_passthrough(void)
{
    struct fx f;
    if (fx_open(&f, NULL) != 0)
        return;
    struct fsc_otlp_attr a[] = {
        as("name", "sensor 1"),
        as("1st.key", "a"),
        as("__private", "b"),
        as("device", "x"),
        as("role", "uplink"), /* reserved even without a topology */
        {.key = str("arr"), .type = FSC_OTLP_VAL_OTHER},
        as("empty", ""),
        {.key = str("up"), .type = FSC_OTLP_VAL_BOOL, .i = 1},
        {.key = str("ratio"), .type = FSC_OTLP_VAL_DOUBLE, .d = 0.25},
    };
    struct fsc_otlp_metric m = metric("nvswitch_platform_environment.temp-c", FSC_OTLP_GAUGE,
                                      FSC_OTLP_TEMP_UNSPECIFIED, 0);
    struct fsc_otlp_point p = pd(a, 9, T0, 41.5);
    struct fsc_otlp_ingest_result res = one(&f, &m, &p);
    CHECK_INT(res.accepted, 1);
    CHECK_INT(f.n_smp, 1);
    CHECK_STR(series_text(f.se.reg, f.smp[0].series),
              "fabric_cumulus_nvswitch_platform_environment_temp_c{_1st_key=\"a\",_private=\"b\","
              "device=\"leaf1\",exported_device=\"x\",exported_role=\"uplink\",name=\"sensor "
              "1\",ratio=\"0.25\",up=\"true\"}");
    struct fsc_series_view view;
    CHECK_INT(fsc_engine_view(f.se.eng, f.smp[0].series, &view), 0);
    CHECK_INT(view.kind, FSC_KIND_GAUGE);
    fx_close(&f);
}

/* Counter or gauge, int or double, and the values each refuses. */
static void kinds_and_values(void)
{
    struct fx f;
    if (fx_open(&f, NULL) != 0)
        return;
    struct fsc_otlp_attr a[] = {as("interface", "swp1")};
    struct fsc_otlp_metric cum_sum =
        metric("nvswitch_control_plane_rx_packets", FSC_OTLP_SUM, FSC_OTLP_TEMP_CUMULATIVE, 1);
    struct fsc_otlp_metric updown =
        metric("nvswitch_updown", FSC_OTLP_SUM, FSC_OTLP_TEMP_CUMULATIVE, 0);
    struct fsc_otlp_metric gauge = metric("node_memory_free", FSC_OTLP_GAUGE, 0, 0);
    struct fsc_otlp_metric in_oct = metric("nvswitch_interface_if_in_octets", FSC_OTLP_GAUGE, 0, 0);
    struct fsc_otlp_metric out_oct =
        metric("nvswitch_interface_if_out_octets", FSC_OTLP_GAUGE, 0, 0);
    struct fsc_otlp_metric load = metric("node_load1", FSC_OTLP_GAUGE, 0, 0);
    struct fsc_otlp_point p[] = {
        pi(NULL, 0, T0, 42), pi(NULL, 0, T0, -5),  pi(NULL, 0, T0, 7),
        pi(a, 1, T0, 9),     pd(a, 1, T0, -1.0),   pd(a, 1, T0 + NS, NAN),
        pi(NULL, 0, T0, -3), pd(NULL, 0, T0, NAN), pd(a, 1, T0 + 2 * NS, INFINITY),
    };
    uint32_t before = fsc_registry_count(f.se.reg);
    begin(&f, "leaf1");
    visit_metric(&f, &cum_sum);
    visit(&f, &p[0]); /* counter, u64 */
    visit_metric(&f, &updown);
    visit(&f, &p[1]); /* gauge, double */
    visit_metric(&f, &gauge);
    visit(&f, &p[2]); /* gauge, double */
    visit_metric(&f, &in_oct);
    visit(&f, &p[3]); /* an int on a counter: u64 */
    visit(&f, &p[5]); /* NaN counter: refused (known series) */
    visit(&f, &p[8]); /* +Inf counter: refused */
    visit_metric(&f, &out_oct);
    visit(&f, &p[4]); /* negative counter: refused before any series exists */
    visit_metric(&f, &cum_sum);
    visit(&f, &p[6]); /* negative int counter: refused */
    visit_metric(&f, &load);
    visit(&f, &p[7]); /* a NaN gauge is kept */
    struct fsc_otlp_ingest_result res = end(&f);
    CHECK_INT(res.points, 9);
    CHECK_INT(res.accepted, 5);
    CHECK_INT(res.rejected, 4);
    CHECK_STR(res.message, "negative, NaN or infinite counter value (metric "
                           "nvswitch_interface_if_in_octets)");
    CHECK_INT(fsc_registry_count(f.se.reg), before + 5); /* no series for out_octets */
    CHECK_INT(f.n_smp, 5);
    if (f.n_smp == 5) {
        CHECK_INT(f.smp[0].flags, 0);
        CHECK_INT(f.smp[0].v.u, 42);
        CHECK_STR(series_text(f.se.reg, f.smp[0].series),
                  "fabric_cumulus_nvswitch_control_plane_rx_packets{device=\"leaf1\"}");
        CHECK_INT(f.smp[1].flags, FSC_SMP_F64);
        CHECK(f.smp[1].v.d == -5.0);
        CHECK_INT(f.smp[2].flags, FSC_SMP_F64);
        CHECK(f.smp[2].v.d == 7.0);
        CHECK_INT(f.smp[3].flags, 0);
        CHECK_INT(f.smp[3].v.u, 9);
        CHECK_INT(f.smp[4].flags, FSC_SMP_F64);
        CHECK(isnan(f.smp[4].v.d));
        struct fsc_series_view view;
        CHECK_INT(fsc_engine_view(f.se.eng, f.smp[0].series, &view), 0);
        CHECK_INT(view.kind, FSC_KIND_COUNTER);
        CHECK_INT(fsc_engine_view(f.se.eng, f.smp[1].series, &view), 0);
        CHECK_INT(view.kind, FSC_KIND_GAUGE);
    }
    struct fsc_otlp_ingest_stats st;
    fsc_otlp_ingest_stats(f.ing, &st);
    CHECK_INT(st.rej_bad_value, 4);
    CHECK_INT(st.rejected, 4);
    CHECK_INT(st.series, 5);
    fx_close(&f);
}

/* CUMULATIVE: a changed start time flags exactly that sample; an absent
 * start time changes nothing. */
static void cumulative_reset_start_time(void)
{
    struct fx f;
    if (fx_open(&f, NULL) != 0)
        return;
    struct fsc_otlp_attr a[] = {as("interface", "swp1")};
    struct fsc_otlp_metric m =
        metric("nvswitch_ai_ethernet_x", FSC_OTLP_SUM, FSC_OTLP_TEMP_CUMULATIVE, 1);
    static const struct {
        int64_t start;
        int64_t v;
        uint32_t flags;
    } steps[] = {{S1, 10, 0}, {S1, 20, 0}, {S2, 5, FSC_SMP_RESET},
                 {S2, 7, 0},  {0, 9, 0},   {S2, 11, 0}};
    for (size_t i = 0; i < sizeof(steps) / sizeof(steps[0]); i++) {
        tap_clear(&f);
        struct fsc_otlp_point p = pi(a, 1, T0 + (int64_t)i * NS, steps[i].v);
        p.start_ns = (uint64_t)steps[i].start;
        struct fsc_otlp_ingest_result res = one(&f, &m, &p);
        CHECK_INT(res.accepted, 1);
        CHECK_INT(f.n_smp, 1);
        CHECK_INT(f.smp[0].flags, steps[i].flags);
        CHECK_INT(f.smp[0].v.u, steps[i].v);
    }
    struct fsc_otlp_ingest_stats st;
    fsc_otlp_ingest_stats(f.ing, &st);
    CHECK_INT(st.resets, 1);
    struct fsc_engine_stats es;
    fsc_engine_stats_get(f.se.eng, &es);
    CHECK_INT(es.verdicts[FSC_RATE_RESET], 1);
    fx_close(&f);
}

/* DELTA: the running total is fed (1+2+3 -> 1, 3, 6), integers stay u64
 * until a double delta arrives; start times never reset; a non-monotonic
 * delta sum is a gauge of its running total. */
static void delta_sum_accumulates(void)
{
    struct fx f;
    if (fx_open(&f, NULL) != 0)
        return;
    struct fsc_otlp_attr a[] = {as("interface", "swp1")};
    struct fsc_otlp_metric m = metric("nvswitch_delta_x", FSC_OTLP_SUM, FSC_OTLP_TEMP_DELTA, 1);
    struct fsc_otlp_metric g = metric("nvswitch_delta_g", FSC_OTLP_SUM, FSC_OTLP_TEMP_DELTA, 0);
    begin(&f, "leaf1");
    visit_metric(&f, &m);
    for (int i = 0; i < 3; i++) {
        struct fsc_otlp_point p = pi(a, 1, T0 + i * NS, i + 1);
        p.start_ns = (uint64_t)(T0 + (i - 1) * NS); /* delta: start = previous time */
        visit(&f, &p);
    }
    struct fsc_otlp_point pdbl = pd(a, 1, T0 + 3 * NS, 0.5);
    visit(&f, &pdbl);
    struct fsc_otlp_point bad = pi(a, 1, T0 + 4 * NS, -1);
    visit(&f, &bad);
    visit_metric(&f, &g);
    struct fsc_otlp_point g1 = pi(NULL, 0, T0, -2), g2 = pd(NULL, 0, T0 + NS, 5.0),
                          g3 = pd(NULL, 0, T0 + 2 * NS, INFINITY);
    visit(&f, &g1);
    visit(&f, &g2);
    visit(&f, &g3);
    struct fsc_otlp_ingest_result res = end(&f);
    CHECK_INT(res.accepted, 6);
    CHECK_INT(res.rejected, 2);
    CHECK_INT(f.n_smp, 6);
    if (f.n_smp == 6) {
        CHECK_INT(f.smp[0].v.u, 1);
        CHECK_INT(f.smp[1].v.u, 3);
        CHECK_INT(f.smp[2].v.u, 6);
        for (int i = 0; i < 3; i++)
            CHECK_INT(f.smp[i].flags, 0);
        CHECK_INT(f.smp[3].flags, FSC_SMP_F64);
        CHECK(f.smp[3].v.d == 6.5);
        CHECK_INT(f.smp[3].series, f.smp[0].series);
        CHECK_INT(f.smp[4].flags, FSC_SMP_F64);
        CHECK(f.smp[4].v.d == -2.0);
        CHECK(f.smp[5].v.d == 3.0);
    }
    struct fsc_otlp_ingest_stats st;
    fsc_otlp_ingest_stats(f.ing, &st);
    CHECK_INT(st.resets, 0);
    CHECK_INT(st.rej_bad_value, 2);
    fx_close(&f);
}

struct hist_expect {
    const char *series;
    uint32_t flags;
    double v; /* u64 samples compared as double (small values) */
};

static void check_hist(struct fx *f, const struct hist_expect *e, size_t n)
{
    CHECK_INT(f->n_smp, n);
    for (size_t i = 0; i < n && i < f->n_smp; i++) {
        if (e[i].series)
            CHECK_STR(series_text(f->se.reg, f->smp[i].series), e[i].series);
        CHECK_INT(f->smp[i].flags, e[i].flags);
        double got = (f->smp[i].flags & FSC_SMP_F64) ? f->smp[i].v.d : (double)f->smp[i].v.u;
        CHECK(got == e[i].v);
    }
}

#define HB "fabric_cumulus_nvswitch_interface_egress_buffer"
#define HL "device=\"leaf1\",port=\"swp1\",queue=\"2\""

/* A cumulative histogram: _bucket{le} cumulative over buckets, _count,
 * _sum (double), Prometheus `le` texts; a start-time change resets every
 * series of the point, counted once. */
static void histogram_cumulative(void)
{
    struct fx f;
    if (fx_open(&f, NULL) != 0)
        return;
    struct fsc_otlp_attr a[] = {ai("tc", 2), as("interface", "swp1")};
    struct fsc_otlp_metric m = metric("nvswitch_histogram_interface_egress_buffer",
                                      FSC_OTLP_HISTOGRAM, FSC_OTLP_TEMP_CUMULATIVE, 0);
    static const double bounds[] = {1e-5, 0.005, 1, 1e6};
    uint64_t b1[] = {1, 2, 3, 4, 5};
    struct fsc_otlp_point p = {.attrs = a,
                               .n_attrs = 2,
                               .start_ns = (uint64_t)S1,
                               .time_ns = (uint64_t)T0,
                               .count = 15,
                               .has_sum = true,
                               .sum = 12.5,
                               .bounds = bounds,
                               .n_bounds = 4,
                               .buckets = b1,
                               .n_buckets = 5};
    struct fsc_otlp_ingest_result res = one(&f, &m, &p);
    CHECK_INT(res.accepted, 1);
    const struct hist_expect e1[] = {
        {HB "_bucket{device=\"leaf1\",le=\"1e-05\",port=\"swp1\",queue=\"2\"}", 0, 1},
        {HB "_bucket{device=\"leaf1\",le=\"0.005\",port=\"swp1\",queue=\"2\"}", 0, 3},
        {HB "_bucket{device=\"leaf1\",le=\"1\",port=\"swp1\",queue=\"2\"}", 0, 6},
        {HB "_bucket{device=\"leaf1\",le=\"1e+06\",port=\"swp1\",queue=\"2\"}", 0, 10},
        {HB "_bucket{device=\"leaf1\",le=\"+Inf\",port=\"swp1\",queue=\"2\"}", 0, 15},
        {HB "_count{" HL "}", 0, 15},
        {HB "_sum{" HL "}", FSC_SMP_F64, 12.5},
    };
    check_hist(&f, e1, 7);
    struct fsc_series_view view;
    CHECK_INT(fsc_engine_view(f.se.eng, f.smp[6].series, &view), 0);
    CHECK_INT(view.kind, FSC_KIND_COUNTER);

    /* the device restarted its histogram */
    tap_clear(&f);
    uint64_t b2[] = {0, 0, 0, 0, 1};
    p.start_ns = (uint64_t)S2;
    p.time_ns = (uint64_t)(T0 + 2 * NS);
    p.buckets = b2;
    p.count = 1;
    p.sum = 0.5;
    one(&f, &m, &p);
    const struct hist_expect e2[] = {
        {NULL, FSC_SMP_RESET, 0},
        {NULL, FSC_SMP_RESET, 0},
        {NULL, FSC_SMP_RESET, 0},
        {NULL, FSC_SMP_RESET, 0},
        {NULL, FSC_SMP_RESET, 1},
        {NULL, FSC_SMP_RESET, 1},
        {NULL, FSC_SMP_RESET | FSC_SMP_F64, 0.5},
    };
    check_hist(&f, e2, 7);
    tap_clear(&f);
    p.time_ns = (uint64_t)(T0 + 3 * NS);
    p.sum = 0.75;
    one(&f, &m, &p);
    /* and, with an interval known at last (the same totals: nothing in it),
     * the queue's peak gauge at 0 (otlp_hist_evid.c) */
    CHECK_INT(f.n_smp, 8);
    for (size_t i = 0; i < f.n_smp; i++)
        CHECK_INT(f.smp[i].flags & FSC_SMP_RESET, 0);
    CHECK_STR(series_text(f.se.reg, f.smp[7].series),
              "fabric_port_queue_histogram_peak_bytes{device=\"leaf1\",port=\"swp1\",queue=\"2\"}");
    CHECK(f.smp[7].v.d == 0);
    struct fsc_otlp_ingest_stats st;
    fsc_otlp_ingest_stats(f.ing, &st);
    CHECK_INT(st.resets, 1);
    CHECK_INT(st.series, 8);
    fx_close(&f);
}

/* A delta histogram accumulates per bucket; badly shaped points are
 * refused; a histogram without buckets has the +Inf bucket alone. */
static void histogram_delta(void)
{
    struct fx f;
    if (fx_open(&f, NULL) != 0)
        return;
    struct fsc_otlp_attr a[] = {ai("tc", 0)};
    struct fsc_otlp_metric m =
        metric("nvswitch_histogram_interface_latency", FSC_OTLP_HISTOGRAM, FSC_OTLP_TEMP_DELTA, 0);
    static const double bounds[] = {10, 100};
    uint64_t b1[] = {1, 0, 2}, b2[] = {0, 4, 1};
    struct fsc_otlp_point p = {.attrs = a,
                               .n_attrs = 1,
                               .start_ns = (uint64_t)S1,
                               .time_ns = (uint64_t)T0,
                               .count = 3,
                               .has_sum = true,
                               .sum = 250,
                               .bounds = bounds,
                               .n_bounds = 2,
                               .buckets = b1,
                               .n_buckets = 3};
    one(&f, &m, &p);
    tap_clear(&f);
    p.start_ns = (uint64_t)T0;
    p.time_ns = (uint64_t)(T0 + NS);
    p.buckets = b2;
    p.count = 5;
    p.sum = 100;
    one(&f, &m, &p);
#define LB "fabric_cumulus_nvswitch_interface_latency"
    const struct hist_expect e[] = {
        {LB "_bucket{device=\"leaf1\",le=\"10\",queue=\"0\"}", 0, 1},
        {LB "_bucket{device=\"leaf1\",le=\"100\",queue=\"0\"}", 0, 5},
        {LB "_bucket{device=\"leaf1\",le=\"+Inf\",queue=\"0\"}", 0, 8},
        {LB "_count{device=\"leaf1\",queue=\"0\"}", 0, 8},
        {LB "_sum{device=\"leaf1\",queue=\"0\"}", FSC_SMP_F64, 350},
    };
    check_hist(&f, e, 5);

    /* refused shapes and values */
    tap_clear(&f);
    static const double same[] = {5, 5};
    uint64_t two[] = {1, 1}, three[] = {1, 1, 1};
    struct fsc_otlp_point bad = p;
    begin(&f, "leaf1");
    visit_metric(&f, &m);
    bad.buckets = two; /* 2 buckets for 2 bounds */
    bad.n_buckets = 2;
    bad.count = 2;
    visit(&f, &bad);
    bad = p;
    bad.bounds = same; /* not ascending */
    bad.buckets = three;
    bad.count = 3;
    visit(&f, &bad);
    bad = p;
    bad.count = 6; /* buckets add up to 5 */
    visit(&f, &bad);
    bad = p;
    bad.sum = NAN;
    visit(&f, &bad);
    struct fsc_otlp_point none = {.attrs = a,
                                  .n_attrs = 1,
                                  .time_ns = (uint64_t)(T0 + 2 * NS),
                                  .count = 7,
                                  .has_sum = true,
                                  .sum = 1};
    visit(&f, &none);
    struct fsc_otlp_ingest_result res = end(&f);
    CHECK_INT(res.points, 5);
    CHECK_INT(res.accepted, 1);
    CHECK_INT(res.rejected, 4);
    CHECK_STR(res.message, "histogram bucket count is not bounds + 1 (metric "
                           "nvswitch_histogram_interface_latency)");
    const struct hist_expect e0[] = {
        /* the +Inf bucket is the same series as above: its total continues */
        {LB "_bucket{device=\"leaf1\",le=\"+Inf\",queue=\"0\"}", 0, 15},
        {LB "_count{device=\"leaf1\",queue=\"0\"}", 0, 15}, /* the running count continues */
        {LB "_sum{device=\"leaf1\",queue=\"0\"}", FSC_SMP_F64, 351},
    };
    check_hist(&f, e0, 3);
    struct fsc_otlp_ingest_stats st;
    fsc_otlp_ingest_stats(f.ing, &st);
    CHECK_INT(st.rej_bad_histogram, 3);
    CHECK_INT(st.rej_bad_value, 1);
    CHECK_INT(st.resets, 0);
    fx_close(&f);
}

/* Attribute order does not matter (one cache entry); `pg` as int 0 or
 * string "0" is one key; an extra empty attribute is another key of the same
 * series, whose state (the delta total) continues. */
static void attribute_order_independent(void)
{
    struct fx f;
    if (fx_open(&f, NULL) != 0)
        return;
    struct fsc_otlp_attr x[] = {as("interface", "swp1"), as("a", "1"), as("b", "2")};
    struct fsc_otlp_attr y[] = {as("b", "2"), as("interface", "swp1"), as("a", "1")};
    struct fsc_otlp_attr pg_i[] = {as("interface", "swp1"), ai("pg", 0)};
    struct fsc_otlp_attr pg_s[] = {as("pg", "0"), as("interface", "swp1")};
    struct fsc_otlp_attr pg_e[] = {as("pg", "0"), as("interface", "swp1"), as("empty", "")};
    struct fsc_otlp_metric m = metric("nvswitch_x", FSC_OTLP_GAUGE, 0, 0);
    struct fsc_otlp_metric d = metric("nvswitch_pg_delta", FSC_OTLP_SUM, FSC_OTLP_TEMP_DELTA, 1);
    struct fsc_otlp_point p1 = pd(x, 3, T0, 1), p2 = pd(y, 3, T0 + NS, 2);
    struct fsc_otlp_point q1 = pi(pg_i, 2, T0, 4), q2 = pi(pg_s, 2, T0 + NS, 6),
                          q3 = pi(pg_e, 3, T0 + 2 * NS, 1);
    begin(&f, "leaf1");
    visit_metric(&f, &m);
    visit(&f, &p1);
    visit(&f, &p2);
    visit_metric(&f, &d);
    visit(&f, &q1);
    visit(&f, &q2);
    visit(&f, &q3);
    end(&f);
    CHECK_INT(f.n_smp, 5);
    if (f.n_smp == 5) {
        CHECK_INT(f.smp[1].series, f.smp[0].series);
        CHECK_STR(series_text(f.se.reg, f.smp[0].series),
                  "fabric_cumulus_nvswitch_x{a=\"1\",b=\"2\",device=\"leaf1\",port=\"swp1\"}");
        CHECK_INT(f.smp[3].series, f.smp[2].series);
        CHECK_INT(f.smp[3].v.u, 10);
        CHECK_INT(f.smp[4].series, f.smp[2].series);
        CHECK_INT(f.smp[4].v.u, 11);
        CHECK_STR(series_text(f.se.reg, f.smp[4].series),
                  "fabric_cumulus_nvswitch_pg_delta{device=\"leaf1\",port=\"swp1\",priority_group="
                  "\"0\"}");
    }
    struct fsc_otlp_ingest_stats st;
    fsc_otlp_ingest_stats(f.ing, &st);
    CHECK_INT(st.cache_entries, 3);
    CHECK_INT(st.series, 2);
    fx_close(&f);
}

/* max_series = 3: the 4th series is refused with a message; known series
 * keep working; a histogram that needs more is refused whole. */
static void series_limit(void)
{
    struct fx f;
    struct fx_opts o = {.max_series = 3};
    if (fx_open(&f, &o) != 0)
        return;
    struct fsc_otlp_metric m = metric("nvswitch_interface_if_in_octets", FSC_OTLP_GAUGE, 0, 0);
    static const char *ports[] = {"swp1", "swp2", "swp3", "swp4"};
    struct fsc_otlp_attr a[4][1];
    begin(&f, "leaf1");
    visit_metric(&f, &m);
    for (int i = 0; i < 4; i++) {
        a[i][0] = as("interface", ports[i]);
        struct fsc_otlp_point p = pd(a[i], 1, T0, 100 + i);
        visit(&f, &p);
    }
    struct fsc_otlp_ingest_result res = end(&f);
    CHECK_INT(res.accepted, 3);
    CHECK_INT(res.rejected, 1);
    CHECK_STR(res.message, "series limit reached (metric nvswitch_interface_if_in_octets)");
    CHECK_INT(fsc_registry_count(f.se.reg), 3);

    tap_clear(&f);
    struct fsc_otlp_point known = pd(a[1], 1, T0 + NS, 200);
    res = one(&f, &m, &known);
    CHECK_INT(res.accepted, 1);
    CHECK_STR(res.message, "");
    struct fsc_otlp_metric h =
        metric("nvswitch_histogram_x", FSC_OTLP_HISTOGRAM, FSC_OTLP_TEMP_CUMULATIVE, 0);
    struct fsc_otlp_point hp = {.time_ns = (uint64_t)T0, .count = 1};
    res = one(&f, &h, &hp);
    CHECK_INT(res.rejected, 1);
    CHECK_INT(fsc_registry_count(f.se.reg), 3);
    struct fsc_otlp_ingest_stats st;
    fsc_otlp_ingest_stats(f.ing, &st);
    CHECK_INT(st.rej_limit, 2);
    CHECK_INT(st.series, 3);
    CHECK_INT(st.accepted, 4);
    CHECK_INT(st.rejected, 2);
    fx_close(&f);
}

/* Staleness markers are skipped; no time, no value, unsupported types and
 * a Sum without temporality are refused, each counted. */
static void skipped_and_rejected(void)
{
    struct fx f;
    if (fx_open(&f, NULL) != 0)
        return;
    struct fsc_otlp_metric g = metric("nvswitch_interface_if_in_octets", FSC_OTLP_GAUGE, 0, 0);
    struct fsc_otlp_metric eh =
        metric("x_exp", FSC_OTLP_EXP_HISTOGRAM, FSC_OTLP_TEMP_CUMULATIVE, 0);
    struct fsc_otlp_metric su = metric("x_summary", FSC_OTLP_SUMMARY, 0, 0);
    struct fsc_otlp_metric un = metric("x_sum", FSC_OTLP_SUM, FSC_OTLP_TEMP_UNSPECIFIED, 1);
    struct fsc_otlp_attr a[] = {as("interface", "swp1")};
    struct fsc_otlp_point stale = pd(a, 1, T0, 1), no_time = pd(a, 1, 0, 1),
                          no_val = pd(a, 1, T0, 1), other = {.time_ns = (uint64_t)T0, .count = 1},
                          sum = pi(NULL, 0, T0, 1);
    stale.flags = FSC_OTLP_FLAG_NO_RECORDED_VALUE;
    no_val.value_kind = FSC_OTLP_VALUE_NONE;
    begin(&f, "leaf1");
    visit_metric(&f, &g);
    visit(&f, &stale);
    visit(&f, &no_time);
    visit(&f, &no_val);
    visit_metric(&f, &eh);
    visit(&f, &other);
    visit_metric(&f, &su);
    visit(&f, &other);
    visit_metric(&f, &un);
    visit(&f, &sum);
    struct fsc_otlp_ingest_result res = end(&f);
    CHECK_INT(res.points, 6);
    CHECK_INT(res.accepted, 0);
    CHECK_INT(res.rejected, 5);
    CHECK_INT(res.skipped, 1);
    CHECK_STR(res.message, "data point without a valid time_unix_nano (metric "
                           "nvswitch_interface_if_in_octets)");
    CHECK_INT(f.n_smp, 0);
    CHECK_INT(fsc_registry_count(f.se.reg), 0);
    struct fsc_otlp_ingest_stats st;
    fsc_otlp_ingest_stats(f.ing, &st);
    CHECK_INT(st.skipped, 1);
    CHECK_INT(st.rej_no_time, 1);
    CHECK_INT(st.rej_no_value, 1);
    CHECK_INT(st.rej_unsupported_type, 3);
    CHECK_INT(st.samples, 0);
    fx_close(&f);
}

/* Devices come from host.name per resource; a resource without it is the
 * source's; another device attribute can be configured. */
static void devices_from_resource(void)
{
    struct fx f;
    if (fx_open(&f, NULL) != 0)
        return;
    struct fsc_otlp_metric m = metric("nvswitch_interface_if_in_octets", FSC_OTLP_GAUGE, 0, 0);
    struct fsc_otlp_attr a[] = {as("interface", "swp1")};
    struct fsc_otlp_point p = pd(a, 1, T0, 1);
    begin(&f, "leaf1");
    visit_metric(&f, &m);
    visit(&f, &p);
    struct fsc_otlp_attr r2[] = {as("host.name", "leaf2")};
    f.v.resource(f.v.ctx, r2, 1);
    visit_metric(&f, &m);
    visit(&f, &p);
    f.v.resource(f.v.ctx, NULL, 0);
    visit_metric(&f, &m);
    visit(&f, &p);
    end(&f);
    CHECK_INT(f.n_smp, 3);
    if (f.n_smp == 3) {
        CHECK_STR(series_text(f.se.reg, f.smp[0].series),
                  "fabric_port_rx_bytes_total{device=\"leaf1\",port=\"swp1\"}");
        CHECK_STR(series_text(f.se.reg, f.smp[1].series),
                  "fabric_port_rx_bytes_total{device=\"leaf2\",port=\"swp1\"}");
        CHECK_STR(series_text(f.se.reg, f.smp[2].series),
                  "fabric_port_rx_bytes_total{device=\"" SRC "\",port=\"swp1\"}");
    }
    fx_close(&f);

    struct fx_opts o = {.device_attribute = "switch.name"};
    if (fx_open(&f, &o) != 0)
        return;
    fsc_otlp_ingest_begin(f.ing, ARR, &f.v);
    struct fsc_otlp_attr r3[] = {as("host.name", "leaf1"), as("switch.name", "spine7")};
    f.v.resource(f.v.ctx, r3, 2);
    visit_metric(&f, &m);
    visit(&f, &p);
    end(&f);
    CHECK_INT(f.n_smp, 1);
    CHECK_STR(series_text(f.se.reg, f.smp[0].series),
              "fabric_port_rx_bytes_total{device=\"spine7\",port=\"swp1\"}");
    fx_close(&f);
}

/* A request of 64 gauge ports + a histogram, repeated: no allocation, no
 * memory growth, no new series; prints ns per point (not asserted). */
static void send_known(struct fx *f, int64_t t, double v)
{
    static char names[64][16];
    struct fsc_otlp_attr a[64][1];
    struct fsc_otlp_metric m = metric("nvswitch_interface_if_in_octets", FSC_OTLP_GAUGE, 0, 0);
    struct fsc_otlp_metric h = metric("nvswitch_histogram_interface_ingress_buffer",
                                      FSC_OTLP_HISTOGRAM, FSC_OTLP_TEMP_DELTA, 0);
    static const double bounds[] = {1024, 4096, 16384};
    uint64_t b[] = {1, 2, 3, 4};
    struct fsc_otlp_attr ha[] = {as("interface", "swp1"), ai("pg", 0)};
    struct fsc_otlp_point hp = {.attrs = ha,
                                .n_attrs = 2,
                                .time_ns = (uint64_t)t,
                                .count = 10,
                                .has_sum = true,
                                .sum = 9000,
                                .bounds = bounds,
                                .n_bounds = 3,
                                .buckets = b,
                                .n_buckets = 4};
    begin(f, "leaf1");
    visit_metric(f, &m);
    for (int i = 0; i < 64; i++) {
        snprintf(names[i], sizeof(names[i]), "swp%d", i + 1);
        a[i][0] = as("interface", names[i]);
        struct fsc_otlp_point p = pd(a[i], 1, t, v + i);
        visit(f, &p);
    }
    visit_metric(f, &h);
    visit(f, &hp);
    struct fsc_otlp_ingest_result res = end(f);
    CHECK_INT(res.accepted, 65);
}

static void known_request_no_alloc(void)
{
    struct fx f;
    if (fx_open(&f, NULL) != 0)
        return;
    send_known(&f, T0, 1e6);
    struct fsc_otlp_ingest_stats st1, st2;
    fsc_otlp_ingest_stats(f.ing, &st1);
    /* 64 ports, the histogram's 4 buckets + _count + _sum, and its peak
     * gauge (fabric_port_pg_histogram_peak_bytes, otlp_hist_evid.c) */
    CHECK_INT(st1.series, 64 + 6 + 1);
    uint32_t count = fsc_registry_count(f.se.reg);
    size_t reg_mem = fsc_registry_memory_bytes(f.se.reg);
    struct timespec a, b;
    clock_gettime(CLOCK_MONOTONIC, &a);
    const int rounds = 200;
    for (int r = 1; r <= rounds; r++)
        send_known(&f, T0 + r * NS, 1e6 + r * 1e5);
    clock_gettime(CLOCK_MONOTONIC, &b);
    fsc_otlp_ingest_stats(f.ing, &st2);
    CHECK_INT(st2.heap_allocs, st1.heap_allocs);
    CHECK(st2.memory_bytes == st1.memory_bytes);
    CHECK_INT(st2.series, st1.series);
    CHECK_INT(st2.cache_entries, st1.cache_entries);
    CHECK_INT(fsc_registry_count(f.se.reg), count);
    CHECK(fsc_registry_memory_bytes(f.se.reg) == reg_mem);
    CHECK_INT(st2.accepted, 65 * (rounds + 1));
    double ns = (double)(b.tv_sec - a.tv_sec) * 1e9 + (double)(b.tv_nsec - a.tv_nsec);
    printf("known series: %.0f ns per point incl. engine (%d points)\n", ns / (rounds * 65.0),
           rounds * 65);
    fx_close(&f);
}

/* Two requests 1 s apart through the engine: the rate comes back. */
static void rates_through_engine(void)
{
    struct fx f;
    if (fx_open(&f, NULL) != 0)
        return;
    struct fsc_otlp_attr a[] = {as("interface", "swp1")};
    struct fsc_otlp_metric g = metric("nvswitch_interface_if_out_octets", FSC_OTLP_GAUGE, 0, 0);
    struct fsc_otlp_metric s =
        metric("nvswitch_control_plane_tx_packets", FSC_OTLP_SUM, FSC_OTLP_TEMP_CUMULATIVE, 1);
    struct fsc_otlp_metric d = metric("nvswitch_delta_tx", FSC_OTLP_SUM, FSC_OTLP_TEMP_DELTA, 1);
    for (int k = 0; k < 2; k++) {
        int64_t t = T0 + 250000000LL + k * NS;
        struct fsc_otlp_point pg = pd(a, 1, t, 1e9 + k * 5e9);
        struct fsc_otlp_point ps = pi(NULL, 0, t, 100 + k * 1000);
        ps.start_ns = (uint64_t)S1;
        struct fsc_otlp_point pdl = pi(NULL, 0, t, 500);
        begin(&f, "leaf1");
        visit_metric(&f, &g);
        visit(&f, &pg);
        visit_metric(&f, &s);
        visit(&f, &ps);
        visit_metric(&f, &d);
        visit(&f, &pdl);
        end(&f);
    }
    CHECK_INT(f.n_smp, 6);
    struct fsc_series_view view;
    CHECK_INT(fsc_engine_view(f.se.eng, f.smp[0].series, &view), 0);
    CHECK_REL(view.fine_rate, 5e9, 1e-6);
    CHECK_INT(fsc_engine_view(f.se.eng, f.smp[1].series, &view), 0);
    CHECK_REL(view.fine_rate, 1000.0, 1e-6);
    CHECK_INT(fsc_engine_view(f.se.eng, f.smp[2].series, &view), 0);
    CHECK_REL(view.fine_rate, 500.0, 1e-6);
    CHECK_INT(view.value.u, 1000);
    struct fsc_engine_stats es;
    fsc_engine_stats_get(f.se.eng, &es);
    CHECK_INT(es.verdicts[FSC_RATE_INTERVAL], 3);
    fx_close(&f);
}

/* Past max_batch the engine is fed in chunks inside the request. */
static void batch_chunks(void)
{
    struct fx f;
    struct fx_opts o = {.max_batch = 4};
    if (fx_open(&f, &o) != 0)
        return;
    struct fsc_otlp_metric m = metric("nvswitch_interface_if_in_octets", FSC_OTLP_GAUGE, 0, 0);
    char names[10][16];
    struct fsc_otlp_attr a[10][1];
    begin(&f, "leaf1");
    visit_metric(&f, &m);
    for (int i = 0; i < 10; i++) {
        snprintf(names[i], sizeof(names[i]), "swp%d", i);
        a[i][0] = as("interface", names[i]);
        struct fsc_otlp_point p = pd(a[i], 1, T0, i);
        visit(&f, &p);
    }
    CHECK_INT(f.taps, 2); /* two chunks of 4 fed before the end */
    end(&f);
    CHECK_INT(f.taps, 3);
    CHECK_INT(f.n_smp, 10);
    for (size_t i = 0; i < f.n_smp; i++)
        CHECK(f.smp[i].v.d == (double)i);
    struct fsc_engine_stats es;
    fsc_engine_stats_get(f.se.eng, &es);
    CHECK_INT(es.samples, 10);
    struct fsc_otlp_ingest_stats st;
    fsc_otlp_ingest_stats(f.ing, &st);
    CHECK_INT(st.samples, 10);
    fx_close(&f);
}

/* Label bounds: values cut at 128 bytes on a character boundary, invalid
 * UTF-8 bytes become '?', more attributes than 16 labels hold are refused. */
/* FNV-1a 64 of s[0..n): the hash suffix's formula (otlp_series.h). */
static uint64_t fnv1a(const char *s, size_t n)
{
    uint64_t h = 14695981039346656037ull;
    for (size_t i = 0; i < n; i++)
        h = (h ^ (unsigned char)s[i]) * 1099511628211ull;
    return h;
}

/* Two interfaces whose names differ only after byte 128: cut to one label
 * value they would be one series (with a spurious counter reset). They are
 * two series, each value ending in its own hash; a value of
 * exactly 128 bytes is kept as it is; the hashed values are counted. */
static void long_values_never_merge(void)
{
    struct fx f;
    if (fx_open(&f, NULL) != 0)
        return;
    char v1[201], v2[201], v128[129];
    memset(v1, 'p', 200);
    v1[200] = '\0';
    memcpy(v2, v1, sizeof(v1));
    v2[150] = 'q';
    memset(v128, 'r', 128);
    v128[128] = '\0';
    struct fsc_otlp_attr a1[] = {as("interface", v1)}, a2[] = {as("interface", v2)},
                         a3[] = {as("interface", v128)};
    struct fsc_otlp_metric m = metric("nvswitch_long", FSC_OTLP_GAUGE, 0, 0);
    struct fsc_otlp_point p1 = pd(a1, 1, T0, 1), p2 = pd(a2, 1, T0, 2), p3 = pd(a3, 1, T0, 3);
    begin(&f, "leaf1");
    visit_metric(&f, &m);
    visit(&f, &p1);
    visit(&f, &p2);
    visit(&f, &p3);
    visit(&f, &p1);
    struct fsc_otlp_ingest_result res = end(&f);
    CHECK_INT(res.accepted, 4);
    CHECK_INT(f.n_smp, 4);
    if (f.n_smp == 4) {
        CHECK(f.smp[0].series != f.smp[1].series);
        CHECK(f.smp[0].series == f.smp[3].series);
        CHECK(f.smp[2].series != f.smp[0].series && f.smp[2].series != f.smp[1].series);
        struct fsc_label lb[FSC_REGISTRY_MAX_LABELS];
        char want[140];
        const char *src[] = {v1, v2};
        for (int k = 0; k < 2; k++) {
            size_t n = fsc_registry_labels(f.se.reg, f.smp[k].series, lb, FSC_REGISTRY_MAX_LABELS);
            memset(want, 'p', 110);
            snprintf(want + 110, sizeof(want) - 110, "~h%016llx",
                     (unsigned long long)fnv1a(src[k], 200));
            CHECK_INT(n, 2);
            if (n == 2)
                CHECK_STR(lb[1].value, want); /* device, port */
        }
        size_t n = fsc_registry_labels(f.se.reg, f.smp[2].series, lb, FSC_REGISTRY_MAX_LABELS);
        CHECK_INT(n, 2);
        if (n == 2)
            CHECK_STR(lb[1].value, v128);
    }
    struct fsc_otlp_ingest_stats st;
    fsc_otlp_ingest_stats(f.ing, &st);
    CHECK_INT(st.values_hashed, 3);
    CHECK_INT(st.series, 3);
    fx_close(&f);
}

static void label_bounds(void)
{
    struct fx f;
    if (fx_open(&f, NULL) != 0)
        return;
    char longv[201], utf[140], want_utf[140];
    memset(longv, 'x', 200);
    longv[200] = '\0';
    memset(utf, 'a', 109);
    memcpy(utf + 109, "\xc3\xa9zz", 5); /* an e-acute straddles byte 110, the cut */
    memset(utf + 113, 'b', 20);         /* 133 bytes: over the bound */
    utf[133] = '\0';
    memcpy(want_utf, utf, 109);
    snprintf(want_utf + 109, sizeof(want_utf) - 109, "~h%016llx",
             (unsigned long long)fnv1a(utf, 133));
    struct fsc_otlp_attr a[] = {as("long", longv), as("utf", utf),
                                as("bad", "a\xff"
                                          "b")};
    struct fsc_otlp_metric m = metric("nvswitch_labels", FSC_OTLP_GAUGE, 0, 0);
    struct fsc_otlp_point p = pd(a, 3, T0, 1);
    struct fsc_otlp_ingest_result res = one(&f, &m, &p);
    CHECK_INT(res.accepted, 1);
    CHECK_INT(f.n_smp, 1);
    struct fsc_label lb[FSC_REGISTRY_MAX_LABELS];
    size_t n = fsc_registry_labels(f.se.reg, f.smp[0].series, lb, FSC_REGISTRY_MAX_LABELS);
    CHECK_INT(n, 4);
    if (n == 4) {
        CHECK_STR(lb[0].name, "bad");
        CHECK_STR(lb[0].value, "a?b");
        CHECK_STR(lb[2].name, "long");
        char want_long[140];
        memset(want_long, 'x', 110);
        snprintf(want_long + 110, sizeof(want_long) - 110, "~h%016llx",
                 (unsigned long long)fnv1a(longv, 200));
        CHECK_STR(lb[2].value, want_long);
        CHECK_INT(strlen(lb[2].value), FSC_OTLP_LABEL_VALUE_MAX);
        CHECK_STR(lb[3].name, "utf");
        CHECK_STR(lb[3].value, want_utf);
    }

    /* device + 15 attributes = 16 labels fit; 16 attributes do not */
    char keys[16][16];
    struct fsc_otlp_attr many[16];
    for (int i = 0; i < 16; i++) {
        snprintf(keys[i], sizeof(keys[i]), "k%02d", i);
        many[i] = as(keys[i], "v");
    }
    tap_clear(&f);
    struct fsc_otlp_point p15 = pd(many, 15, T0, 1), p16 = pd(many, 16, T0, 1);
    begin(&f, "leaf1");
    visit_metric(&f, &m);
    visit(&f, &p15);
    visit(&f, &p16);
    res = end(&f);
    CHECK_INT(res.accepted, 1);
    CHECK_INT(res.rejected, 1);
    CHECK_STR(res.message, "more attributes than labels fit (metric nvswitch_labels)");
    struct fsc_otlp_ingest_stats st;
    fsc_otlp_ingest_stats(f.ing, &st);
    CHECK_INT(st.rej_labels, 1);
    fx_close(&f);
}

/* `le` texts as Prometheus' client libraries write them (Go %g shortest). */
static void le_format(void)
{
    static const struct {
        double v;
        const char *s;
    } cases[] = {
        {0.005, "0.005"},
        {1, "1"},
        {2.5, "2.5"},
        {100000, "100000"},
        {1e6, "1e+06"},
        {1e-5, "1e-05"},
        {0.0001, "0.0001"},
        {0.1, "0.1"},
        {123456789, "1.23456789e+08"},
        {-2, "-2"},
        {0, "0"},
        {INFINITY, "+Inf"},
        {1.0 / 3, "0.3333333333333333"},
        {1024, "1024"},
        {65536, "65536"},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        char buf[40];
        size_t n = otlp_le_format(cases[i].v, buf, sizeof(buf));
        CHECK_STR(buf, cases[i].s);
        CHECK_INT(n, strlen(cases[i].s));
    }
}

/* Topology labels and link speed for a port the cable plan knows. */
static void topology_labels_and_speed(void)
{
    static const char yaml[] = "topology:\n"
                               "  rails: 4\n"
                               "  devices:\n"
                               "    - name: spine1\n"
                               "      role: spine\n"
                               "      ports:\n"
                               "        - {name: swp3, speed: 400G, role: downlink, peer: "
                               "\"leaf1:et-0/0/32\"}\n"
                               "    - name: leaf1\n"
                               "      role: leaf\n"
                               "      rail: 2\n"
                               "      ports:\n"
                               "        - {name: et-0/0/32, speed: 400G, role: uplink}\n";
    struct fx f;
    struct fx_opts o = {.yaml = yaml};
    if (fx_open(&f, &o) != 0) {
        CHECK(0);
        return;
    }
    struct fsc_otlp_metric m = metric("nvswitch_interface_if_out_octets", FSC_OTLP_GAUGE, 0, 0);
    struct fsc_otlp_attr a[] = {as("interface", "swp3")};
    struct fsc_otlp_point p = pd(a, 1, T0, 1);
    begin(&f, "spine1");
    visit_metric(&f, &m);
    visit(&f, &p);
    end(&f);
    CHECK_INT(f.n_smp, 1);
    CHECK_STR(series_text(f.se.reg, f.smp[0].series),
              "fabric_port_tx_bytes_total{device=\"spine1\",peer=\"leaf1:et-0/0/32\",port=\"swp3\","
              "role=\"downlink\"}");
    struct fsc_series_view view;
    CHECK_INT(fsc_engine_view(f.se.eng, f.smp[0].series, &view), 0);
    CHECK(view.link_speed_bps == 400000000000ULL);
    fx_close(&f);
}

/* abort releases the lock and counts; the next request works. */
static void abort_releases(void)
{
    struct fx f;
    if (fx_open(&f, NULL) != 0)
        return;
    struct fsc_otlp_visitor v;
    fsc_otlp_ingest_begin(f.ing, ARR, &v);
    fsc_otlp_ingest_abort(f.ing);
    struct fsc_otlp_metric m = metric("nvswitch_interface_if_in_octets", FSC_OTLP_GAUGE, 0, 0);
    struct fsc_otlp_attr a[] = {as("interface", "swp1")};
    struct fsc_otlp_point p = pd(a, 1, T0, 1);
    struct fsc_otlp_ingest_result res = one(&f, &m, &p);
    CHECK_INT(res.accepted, 1);
    struct fsc_otlp_ingest_stats st;
    fsc_otlp_ingest_stats(f.ing, &st);
    CHECK_INT(st.aborted, 1);
    CHECK_INT(st.requests, 1);
    fx_close(&f);
    char err[128] = "";
    CHECK(fsc_otlp_ingest_create(NULL, NULL, err, sizeof(err)) == NULL);
    CHECK(err[0] != '\0');
    fsc_otlp_ingest_destroy(NULL);
}

TEST_MAIN(TEST(cumulus_gauge_counter), TEST(profile_labels_queue_priority),
          TEST(unknown_name_passthrough), TEST(kinds_and_values), TEST(cumulative_reset_start_time),
          TEST(delta_sum_accumulates), TEST(histogram_cumulative), TEST(histogram_delta),
          TEST(attribute_order_independent), TEST(series_limit), TEST(skipped_and_rejected),
          TEST(devices_from_resource), TEST(known_request_no_alloc), TEST(rates_through_engine),
          TEST(batch_chunks), TEST(label_bounds), TEST(long_values_never_merge), TEST(le_format),
          TEST(topology_labels_and_speed), TEST(abort_releases))
