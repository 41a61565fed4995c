/* OTLP protobuf decode benchmark: ns per data point for fsc_otlp_decode_proto
 * with a no-op visitor, on requests shaped like a Cumulus (SN4700) export:
 * one resource (host.name), one scope, 60 metrics over 128 interfaces:
 * 50 Gauges of doubles, 6 cumulative monotonic Sums, 4 Histograms with 9
 * bounds, every point with the attribute interface=swpN. A second request of
 * Gauges only gives the cost of the common NumberDataPoint with one
 * attribute. Requests are packed once with the generated protobuf-c code;
 * only the decoder is timed (thread CPU time). "validate" runs the decoder with no visitor
 * (the first pass alone), so full - validate is the visiting pass.
 *
 * The same two requests are then written as OTLP/JSON, as the OpenTelemetry
 * Collector's exporters write it (64-bit integers as strings, doubles as
 * numbers, each message's fields in proto order, so a Sum's dataPoints come
 * before its aggregationTemporality), and decoded with fsc_otlp_decode_json,
 * each run from a fresh copy of the text; only the decode call is timed.
 * "no visitor" passes a NULL visitor (what that skips depends on the
 * decoder's version). JSON runs a tenth of the points.
 *
 *   otlp_decode_bench [total_points]        (default 20 000 000 per run) */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#if !__has_include("otlp_metrics_service.pb-c.h")
/* bench/CMakeLists.txt builds every *_bench.c; without bench/otlp.cmake
 * included there, fsc_otlp and the generated code are not linked. */
int main(void)
{
    fprintf(stderr, "otlp_decode_bench: built without bench/otlp.cmake\n");
    return 1;
}
#else

#include "sources/otlp/decode/otlp_point.h"
#include "otlp_metrics_service.pb-c.h"

#define N_IF     128
#define N_GAUGE  50
#define N_SUM    6
#define N_HIST   4
#define N_BOUNDS 9

typedef Opentelemetry__Proto__Common__V1__KeyValue KV;
typedef Opentelemetry__Proto__Common__V1__AnyValue AV;
typedef Opentelemetry__Proto__Metrics__V1__NumberDataPoint NDP;
typedef Opentelemetry__Proto__Metrics__V1__HistogramDataPoint HDP;
typedef Opentelemetry__Proto__Metrics__V1__Metric MET;

struct sink {
    uint64_t points, resources, metrics, x;
};

static void on_resource(void *ctx, const struct fsc_otlp_attr *attrs, uint32_t n)
{
    struct sink *s = ctx;
    s->resources++;
    s->x += n ? attrs[0].key.len : 0;
}

static void on_metric(void *ctx, const struct fsc_otlp_metric *m)
{
    struct sink *s = ctx;
    s->metrics++;
    s->x += m->name.len;
}

static void on_point(void *ctx, const struct fsc_otlp_point *p)
{
    struct sink *s = ctx;
    s->points++;
    s->x ^= p->time_ns + p->n_attrs;
}

/* CPU time of this thread: the decoder is single-threaded, and on a shared
 * build machine wall time mostly measures the neighbours. */
static int64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static void *xcalloc(size_t n, size_t size)
{
    void *p = calloc(n ? n : 1, size);
    if (!p) {
        fprintf(stderr, "out of memory\n");
        exit(1);
    }
    return p;
}

/* Packs the request (gauges_only: 60 Gauges). Returns malloc'd bytes. */
static uint8_t *build(int gauges_only, size_t *len, size_t *n_points)
{
    static double bounds[N_BOUNDS] = {128, 256, 512, 1024, 2048, 4096, 8192, 16384, 32768};
    static uint64_t counts[N_BOUNDS + 1] = {900, 50, 20, 10, 8, 5, 3, 2, 1, 1};
    const uint64_t t0 = 1700000000000000000ULL, start = 1690000000000000000ULL;
    char ifname[N_IF][16], mname[60][64];
    AV ifv[N_IF], hostv;
    KV ifkv[N_IF], *ifkvp[N_IF], hostkv, *hostkvp = &hostkv;
    const int n_metrics = N_GAUGE + N_SUM + N_HIST;
    NDP *ndp = xcalloc((size_t)n_metrics * N_IF, sizeof(*ndp));
    NDP **ndpp = xcalloc((size_t)n_metrics * N_IF, sizeof(*ndpp));
    HDP *hdp = xcalloc((size_t)N_HIST * N_IF, sizeof(*hdp));
    HDP **hdpp = xcalloc((size_t)N_HIST * N_IF, sizeof(*hdpp));
    MET met[60], *metp[60];
    Opentelemetry__Proto__Metrics__V1__Gauge gauge[60];
    Opentelemetry__Proto__Metrics__V1__Sum sum[60];
    Opentelemetry__Proto__Metrics__V1__Histogram hist[60];

    for (int i = 0; i < N_IF; i++) {
        snprintf(ifname[i], sizeof(ifname[i]), "swp%d", i + 1);
        opentelemetry__proto__common__v1__any_value__init(&ifv[i]);
        ifv[i].value_case = OPENTELEMETRY__PROTO__COMMON__V1__ANY_VALUE__VALUE_STRING_VALUE;
        ifv[i].string_value = ifname[i];
        opentelemetry__proto__common__v1__key_value__init(&ifkv[i]);
        ifkv[i].key = "interface";
        ifkv[i].value = &ifv[i];
        ifkvp[i] = &ifkv[i];
    }
    size_t np = 0;
    for (int m = 0; m < n_metrics; m++) {
        int kind = gauges_only || m < N_GAUGE ? 0 : m < N_GAUGE + N_SUM ? 1 : 2;
        snprintf(mname[m], sizeof(mname[m]), "nvswitch_interface_%s_%d",
                 kind == 0   ? "if_in_octets"
                 : kind == 1 ? "ai_eth_counter"
                             : "buffer_histogram",
                 m);
        opentelemetry__proto__metrics__v1__metric__init(&met[m]);
        met[m].name = mname[m];
        met[m].unit = kind == 2 ? "bytes" : "1";
        metp[m] = &met[m];
        for (int i = 0; i < N_IF; i++, np++) {
            if (kind == 2) {
                HDP *h = &hdp[(size_t)(m - N_GAUGE - N_SUM) * N_IF + (size_t)i];
                opentelemetry__proto__metrics__v1__histogram_data_point__init(h);
                h->n_attributes = 1;
                h->attributes = &ifkvp[i];
                h->start_time_unix_nano = start;
                h->time_unix_nano = t0 + (uint64_t)i;
                h->count = 1000;
                h->sum = 512000.5;
                h->n_explicit_bounds = N_BOUNDS;
                h->explicit_bounds = bounds;
                h->n_bucket_counts = N_BOUNDS + 1;
                h->bucket_counts = counts;
                hdpp[(size_t)(m - N_GAUGE - N_SUM) * N_IF + (size_t)i] = h;
                continue;
            }
            NDP *p = &ndp[(size_t)m * N_IF + (size_t)i];
            opentelemetry__proto__metrics__v1__number_data_point__init(p);
            p->n_attributes = 1;
            p->attributes = &ifkvp[i];
            p->time_unix_nano = t0 + (uint64_t)i;
            p->value_case = OPENTELEMETRY__PROTO__METRICS__V1__NUMBER_DATA_POINT__VALUE_AS_DOUBLE;
            p->as_double = 1e12 + (double)(m * N_IF + i);
            if (kind == 1)
                p->start_time_unix_nano = start;
            ndpp[(size_t)m * N_IF + (size_t)i] = p;
        }
        if (kind == 0) {
            opentelemetry__proto__metrics__v1__gauge__init(&gauge[m]);
            gauge[m].n_data_points = N_IF;
            gauge[m].data_points = &ndpp[(size_t)m * N_IF];
            met[m].data_case = OPENTELEMETRY__PROTO__METRICS__V1__METRIC__DATA_GAUGE;
            met[m].gauge = &gauge[m];
        } else if (kind == 1) {
            opentelemetry__proto__metrics__v1__sum__init(&sum[m]);
            sum[m].n_data_points = N_IF;
            sum[m].data_points = &ndpp[(size_t)m * N_IF];
            sum[m].aggregation_temporality =
                OPENTELEMETRY__PROTO__METRICS__V1__AGGREGATION_TEMPORALITY__AGGREGATION_TEMPORALITY_CUMULATIVE;
            sum[m].is_monotonic = 1;
            met[m].data_case = OPENTELEMETRY__PROTO__METRICS__V1__METRIC__DATA_SUM;
            met[m].sum = &sum[m];
        } else {
            opentelemetry__proto__metrics__v1__histogram__init(&hist[m]);
            hist[m].n_data_points = N_IF;
            hist[m].data_points = &hdpp[(size_t)(m - N_GAUGE - N_SUM) * N_IF];
            hist[m].aggregation_temporality =
                OPENTELEMETRY__PROTO__METRICS__V1__AGGREGATION_TEMPORALITY__AGGREGATION_TEMPORALITY_DELTA;
            met[m].data_case = OPENTELEMETRY__PROTO__METRICS__V1__METRIC__DATA_HISTOGRAM;
            met[m].histogram = &hist[m];
        }
    }

    opentelemetry__proto__common__v1__any_value__init(&hostv);
    hostv.value_case = OPENTELEMETRY__PROTO__COMMON__V1__ANY_VALUE__VALUE_STRING_VALUE;
    hostv.string_value = "leaf01";
    opentelemetry__proto__common__v1__key_value__init(&hostkv);
    hostkv.key = "host.name";
    hostkv.value = &hostv;
    Opentelemetry__Proto__Resource__V1__Resource res;
    opentelemetry__proto__resource__v1__resource__init(&res);
    res.n_attributes = 1;
    res.attributes = &hostkvp;
    Opentelemetry__Proto__Common__V1__InstrumentationScope scope;
    opentelemetry__proto__common__v1__instrumentation_scope__init(&scope);
    scope.name = "nvue";
    Opentelemetry__Proto__Metrics__V1__ScopeMetrics sm, *smp = &sm;
    opentelemetry__proto__metrics__v1__scope_metrics__init(&sm);
    sm.scope = &scope;
    sm.n_metrics = (size_t)n_metrics;
    sm.metrics = metp;
    Opentelemetry__Proto__Metrics__V1__ResourceMetrics rm, *rmp = &rm;
    opentelemetry__proto__metrics__v1__resource_metrics__init(&rm);
    rm.resource = &res;
    rm.n_scope_metrics = 1;
    rm.scope_metrics = &smp;
    Opentelemetry__Proto__Collector__Metrics__V1__ExportMetricsServiceRequest req;
    opentelemetry__proto__collector__metrics__v1__export_metrics_service_request__init(&req);
    req.n_resource_metrics = 1;
    req.resource_metrics = &rmp;

    *len =
        opentelemetry__proto__collector__metrics__v1__export_metrics_service_request__get_packed_size(
            &req);
    uint8_t *buf = xcalloc(1, *len);
    opentelemetry__proto__collector__metrics__v1__export_metrics_service_request__pack(&req, buf);
    *n_points = np;
    free(ndp);
    free(ndpp);
    free(hdp);
    free(hdpp);
    return buf;
}

/* Decodes buf `iters` times; returns ns per data point. */
static double run(const uint8_t *buf, size_t len, size_t n_points, long iters, int visit,
                  struct sink *s)
{
    struct fsc_otlp_visitor v = {s, on_resource, on_metric, on_point};
    char err[256];
    int64_t t = now_ns();
    for (long i = 0; i < iters; i++) {
        if (fsc_otlp_decode_proto(buf, len, visit ? &v : NULL, err, sizeof(err)) != 0) {
            fprintf(stderr, "decode failed: %s\n", err);
            exit(1);
        }
    }
    return (double)(now_ns() - t) / ((double)iters * (double)n_points);
}

/* ---- OTLP/JSON -------------------------------------------------------------- */

struct text {
    char *p;
    size_t len, cap;
};

static void put(struct text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void put(struct text *t, const char *fmt, ...)
{
    for (;;) {
        va_list ap;
        va_start(ap, fmt);
        int n = vsnprintf(t->p + t->len, t->cap - t->len, fmt, ap);
        va_end(ap);
        if (n < 0) {
            fprintf(stderr, "vsnprintf failed\n");
            exit(1);
        }
        if ((size_t)n < t->cap - t->len) {
            t->len += (size_t)n;
            return;
        }
        t->cap = (t->cap + (size_t)n) * 2;
        t->p = realloc(t->p, t->cap);
        if (!t->p) {
            fprintf(stderr, "out of memory\n");
            exit(1);
        }
    }
}

/* The request of build() as OTLP/JSON text. Returns malloc'd bytes. */
static char *build_json(int gauges_only, size_t *len, size_t *n_points)
{
    static const double bounds[N_BOUNDS] = {128, 256, 512, 1024, 2048, 4096, 8192, 16384, 32768};
    static const uint64_t counts[N_BOUNDS + 1] = {900, 50, 20, 10, 8, 5, 3, 2, 1, 1};
    const uint64_t t0 = 1700000000000000000ULL, start = 1690000000000000000ULL;
    const int n_metrics = N_GAUGE + N_SUM + N_HIST;
    struct text t = {xcalloc(1, 1 << 16), 0, 1 << 16};
    size_t np = 0;
    put(&t, "{\"resourceMetrics\":[{\"resource\":{\"attributes\":[{\"key\":\"host.name\","
            "\"value\":{\"stringValue\":\"leaf01\"}}]},\"scopeMetrics\":[{\"scope\":"
            "{\"name\":\"nvue\"},\"metrics\":[");
    for (int m = 0; m < n_metrics; m++) {
        int kind = gauges_only || m < N_GAUGE ? 0 : m < N_GAUGE + N_SUM ? 1 : 2;
        put(&t, "%s{\"name\":\"nvswitch_interface_%s_%d\",\"unit\":\"%s\",\"%s\":{\"dataPoints\":[",
            m ? "," : "",
            kind == 0   ? "if_in_octets"
            : kind == 1 ? "ai_eth_counter"
                        : "buffer_histogram",
            m, kind == 2 ? "bytes" : "1",
            kind == 0   ? "gauge"
            : kind == 1 ? "sum"
                        : "histogram");
        for (int i = 0; i < N_IF; i++, np++) {
            put(&t,
                "%s{\"attributes\":[{\"key\":\"interface\",\"value\":{\"stringValue\":"
                "\"swp%d\"}}],",
                i ? "," : "", i + 1);
            if (kind != 0)
                put(&t, "\"startTimeUnixNano\":\"%llu\",", (unsigned long long)start);
            put(&t, "\"timeUnixNano\":\"%llu\"", (unsigned long long)(t0 + (uint64_t)i));
            if (kind != 2) {
                put(&t, ",\"asDouble\":%.17g}", 1e12 + (double)(m * N_IF + i));
                continue;
            }
            put(&t, ",\"count\":\"1000\",\"sum\":512000.5,\"bucketCounts\":[");
            for (int b = 0; b <= N_BOUNDS; b++)
                put(&t, "%s\"%llu\"", b ? "," : "", (unsigned long long)counts[b]);
            put(&t, "],\"explicitBounds\":[");
            for (int b = 0; b < N_BOUNDS; b++)
                put(&t, "%s%.17g", b ? "," : "", bounds[b]);
            put(&t, "]}");
        }
        put(&t, "]%s}}",
            kind == 0   ? ""
            : kind == 1 ? ",\"aggregationTemporality\":2,\"isMonotonic\":true"
                        : ",\"aggregationTemporality\":1");
    }
    put(&t, "]}]}]}");
    *len = t.len;
    *n_points = np;
    return t.p;
}

/* Decodes a fresh copy of text `iters` times; returns ns per data point. */
static double run_json(const char *text, size_t len, size_t n_points, long iters, int visit,
                       struct sink *s)
{
    struct fsc_otlp_visitor v = {s, on_resource, on_metric, on_point};
    char err[256];
    char *work = xcalloc(1, len);
    int64_t spent = 0;
    for (long i = 0; i < iters; i++) {
        memcpy(work, text, len);
        int64_t t = now_ns();
        int rc = fsc_otlp_decode_json(work, len, visit ? &v : NULL, err, sizeof(err));
        spent += now_ns() - t;
        if (rc != 0) {
            fprintf(stderr, "JSON decode failed: %s\n", err);
            exit(1);
        }
    }
    free(work);
    return (double)spent / ((double)iters * (double)n_points);
}

static void bench_json(long total)
{
    for (int gauges_only = 0; gauges_only < 2; gauges_only++) {
        size_t len, n_points;
        char *text = build_json(gauges_only, &len, &n_points);
        long iters = total / 10 / (long)n_points + 1;
        struct sink s = {0, 0, 0, 0};
        run_json(text, len, n_points, iters / 10 + 1, 1, &s); /* warm up */
        memset(&s, 0, sizeof(s));
        double full = run_json(text, len, n_points, iters, 1, &s);
        double bare = run_json(text, len, n_points, iters, 0, &s);
        if (s.points != (uint64_t)iters * n_points || s.metrics != (uint64_t)iters * 60) {
            fprintf(stderr, "JSON: visited %llu points, %llu metrics: wrong\n",
                    (unsigned long long)s.points, (unsigned long long)s.metrics);
            exit(1);
        }
        const char *name = gauges_only ? "json 60 gauges x 128 if" : "json cumulus 50g+6s+4h";
        printf("%-28s %9zu %8zu %9s %12.1f %9.1f\n", name, len, n_points, "full", full, 1e3 / full);
        printf("%-28s %9s %8s %9s %12.1f %9.1f\n", "", "", "", "no visitor", bare, 1e3 / bare);
        free(text);
        fprintf(stderr, "(sink %llx)\n", (unsigned long long)s.x);
    }
}

int main(int argc, char **argv)
{
    long total = argc > 1 ? atol(argv[1]) : 20000000L;
    if (total <= 0) {
        fprintf(stderr, "usage: %s [total_points]\n", argv[0]);
        return 2;
    }
    printf("%-28s %9s %8s %9s %12s %9s\n", "request", "bytes", "points", "pass", "ns/point",
           "Mpoints/s");
    for (int gauges_only = 0; gauges_only < 2; gauges_only++) {
        size_t len, n_points;
        uint8_t *buf = build(gauges_only, &len, &n_points);
        long iters = total / (long)n_points + 1;
        struct sink s = {0, 0, 0, 0};
        run(buf, len, n_points, iters / 10 + 1, 1, &s); /* warm up */
        memset(&s, 0, sizeof(s));
        double full = run(buf, len, n_points, iters, 1, &s);
        double validate = run(buf, len, n_points, iters, 0, &s);
        if (s.points != (uint64_t)iters * n_points || s.metrics != (uint64_t)iters * 60) {
            fprintf(stderr, "visited %llu points, %llu metrics: wrong\n",
                    (unsigned long long)s.points, (unsigned long long)s.metrics);
            return 1;
        }
        const char *name = gauges_only ? "60 gauges x 128 if" : "cumulus 50g+6s+4h x 128 if";
        printf("%-28s %9zu %8zu %9s %12.1f %9.1f\n", name, len, n_points, "full", full, 1e3 / full);
        printf("%-28s %9s %8s %9s %12.1f %9.1f\n", "", "", "", "validate", validate,
               1e3 / validate);
        printf("%-28s %9s %8s %9s %12.1f %9s\n", "", "", "", "visit", full - validate, "");
        free(buf);
        fprintf(stderr, "(sink %llx)\n", (unsigned long long)s.x);
    }
    bench_json(total);
    return 0;
}

#endif
