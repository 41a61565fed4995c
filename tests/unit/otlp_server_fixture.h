/* Shared fixture of otlp_http_test.c and otlp_grpc_test.c: a real `otlp`
 * source instance (fsc_otlp_source_ops) on 127.0.0.1 port 0 with its own
 * registry and engine, requests built with protobuf-c (an encoder that is
 * not ours), gzip through zlib, the series value as the engine holds it,
 * the log captured to a file, and the process's peak RSS. Functions are
 * static inline: each test executable is one translation unit. */
#ifndef FSC_OTLP_SERVER_FIXTURE_H
#define FSC_OTLP_SERVER_FIXTURE_H

#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include <zlib.h>

#include "base/clock.h"
#include "config/config.h"
#include "base/log.h"
#include "model/registry.h"
#include "engine/engine.h"
#include "sources/otlp/decode/otlp_point.h"
#include "sources/otlp/otlp_source.h"
#include "otlp_metrics_service.pb-c.h"
#include "test.h"

#define FX_SOURCE   "otlp-test"
#define FX_METRIC   "nvswitch_interface_if_in_octets" /* Cumulus gauge, a counter for us */
#define FX_CANON    "fabric_port_rx_bytes_total"
#define FX_LOG_MAX  (1u << 20)
#define FX_NO_TIME  0 /* a point the ingest rejects */
#define FX_REJ_TIME "data point without a valid time_unix_nano (metric " FX_METRIC ")"

struct fx {
    struct fsc_registry *reg;
    struct fsc_engine *eng;
    struct fsc_source_config sc;
    struct fsc_otlp_config oc; /* sc's settings */
    struct fsc_source_env env;
    void *ctx;
    FILE *log;
};

struct fx_opts {
    int grpc, http;          /* transports on */
    size_t max_body;         /* 0 = 4 MiB */
    size_t max_decompressed; /* 0 = 32 MiB */
    const struct fsc_tls_config *tls;
    const char *grpc_listen, *http_listen; /* override 127.0.0.1:0 */
};

/* Starts an instance; returns 0, or -1 with err filled (and nothing left
 * running). */
static inline int fx_start_err(struct fx *f, const struct fx_opts *o, char *err, size_t errlen)
{
    struct fsc_engine_config ec;
    char eerr[256];
    memset(f, 0, sizeof(*f));
    f->log = tmpfile();
    if (f->log)
        fsc_log_set_stream(f->log);
    f->reg = fsc_registry_create(100000);
    fsc_engine_config_defaults(&ec);
    f->eng = fsc_engine_create(&ec, NULL, eerr, sizeof(eerr));
    if (!f->reg || !f->eng ||
        fsc_registry_source_add(f->reg, FX_SOURCE, 1000, &f->env.source_id) != 0) {
        snprintf(err, errlen, "fixture: registry or engine failed");
        return -1;
    }
    f->env.reg = f->reg;
    f->env.eng = f->eng;
    f->sc.name = FX_SOURCE;
    f->sc.kind = &fsc_otlp_kind;
    f->sc.settings = &f->oc;
    f->sc.enabled = true;
    f->sc.max_series = 1000;
    f->sc.profile = "cumulus";
    f->oc.grpc_listen = o->grpc ? (o->grpc_listen ? o->grpc_listen : "127.0.0.1:0") : "";
    f->oc.http_listen = o->http ? (o->http_listen ? o->http_listen : "127.0.0.1:0") : "";
    f->oc.max_body = o->max_body ? o->max_body : 4u << 20;
    f->oc.max_decompressed = o->max_decompressed ? o->max_decompressed : 32u << 20;
    f->oc.device_attribute = "host.name";
    if (o->tls)
        f->oc.tls = *o->tls;
    f->ctx = fsc_otlp_source_ops.start(&f->sc, &f->env, err, errlen);
    return f->ctx ? 0 : -1;
}

static inline void fx_stop(struct fx *f)
{
    fsc_otlp_source_ops.stop(f->ctx);
    f->ctx = NULL;
    fsc_engine_destroy(f->eng);
    fsc_registry_destroy(f->reg);
    fsc_log_set_stream(NULL);
    if (f->log)
        fclose(f->log);
    memset(f, 0, sizeof(*f));
}

static inline int fx_start(struct fx *f, const struct fx_opts *o)
{
    char err[512] = "";
    int rc = fx_start_err(f, o, err, sizeof(err));
    if (rc != 0) {
        fprintf(stderr, "fixture start: %s\n", err);
        fx_stop(f);
    }
    CHECK_INT(rc, 0);
    return rc;
}

/* The whole captured log as a NUL-terminated string (static buffer). */
static inline const char *fx_log_text(struct fx *f)
{
    static char text[FX_LOG_MAX + 1];
    size_t n = 0;
    text[0] = '\0';
    if (!f->log)
        return text;
    fflush(f->log);
    long end = ftell(f->log);
    rewind(f->log);
    n = fread(text, 1, FX_LOG_MAX, f->log);
    text[n] = '\0';
    fseek(f->log, end, SEEK_SET);
    return text;
}

/* Occurrences of `needle` in the captured log. */
static inline int fx_log_count(struct fx *f, const char *needle)
{
    const char *t = fx_log_text(f);
    int n = 0;
    for (const char *p = strstr(t, needle); p && n < 100000; p = strstr(p + 1, needle))
        n++;
    return n;
}

/* The port named by the `otlp_listening transport=<t> port=N` line, or -1. */
static inline long fx_log_port(struct fx *f, const char *transport)
{
    char key[96];
    snprintf(key, sizeof(key), "event=otlp_listening transport=%s port=", transport);
    const char *p = strstr(fx_log_text(f), key);
    return p ? strtol(p + strlen(key), NULL, 10) : -1;
}

/* The value the engine holds for metric{device, port}; 0, or -1 when the
 * series does not exist, -2 when it has no value. */
static inline int fx_value(struct fx *f, const char *metric, const char *device, const char *port,
                           double *out)
{
    struct fsc_label lb[2] = {{"device", device}, {"port", port}};
    fsc_series_id id = fsc_registry_lookup(f->reg, f->env.source_id, metric, lb, 2);
    struct fsc_series_view v;
    if (id == FSC_SERIES_NONE)
        return -1;
    if (fsc_engine_view(f->eng, id, &v) != 0 || !v.has_value)
        return -2;
    *out = v.is_f64 ? v.value.d : (double)v.value.u;
    return 0;
}

/* Stats of one transport ("grpc" / "http"); zeroed when absent. */
static inline struct fsc_otlp_transport_stats fx_stats(struct fx *f, const char *transport)
{
    struct fsc_otlp_transport_stats st[2], none;
    memset(&none, 0, sizeof(none));
    size_t n = fsc_otlp_source_stats(f->ctx, st, 2);
    for (size_t i = 0; i < n; i++) {
        if (strcmp(st[i].transport, transport) == 0)
            return st[i];
    }
    return none;
}

/* ---- requests ------------------------------------------------------------------ */

struct fx_point {
    const char *iface;
    uint64_t time_ns;
    double value;
};

typedef Opentelemetry__Proto__Common__V1__KeyValue fx_kv;
typedef Opentelemetry__Proto__Common__V1__AnyValue fx_any;

/* An ExportMetricsServiceRequest (protobuf-c): one resource (host.name =
 * host), one Gauge metric with n <= 8 double points, each with `interface`.
 * Returns malloc'd bytes and their length in *len. */
static inline uint8_t *fx_export_request(const char *host, const struct fx_point *pts, size_t n,
                                         size_t *len)
{
    fx_kv host_kv = OPENTELEMETRY__PROTO__COMMON__V1__KEY_VALUE__INIT;
    fx_any host_v = OPENTELEMETRY__PROTO__COMMON__V1__ANY_VALUE__INIT;
    fx_kv *res_attrs[1] = {&host_kv};
    Opentelemetry__Proto__Resource__V1__Resource res =
        OPENTELEMETRY__PROTO__RESOURCE__V1__RESOURCE__INIT;
    fx_kv if_kv[8];
    fx_any if_v[8];
    fx_kv *if_attrs[8][1];
    Opentelemetry__Proto__Metrics__V1__NumberDataPoint dp[8];
    Opentelemetry__Proto__Metrics__V1__NumberDataPoint *dps[8];
    Opentelemetry__Proto__Metrics__V1__Gauge gauge = OPENTELEMETRY__PROTO__METRICS__V1__GAUGE__INIT;
    Opentelemetry__Proto__Metrics__V1__Metric metric =
        OPENTELEMETRY__PROTO__METRICS__V1__METRIC__INIT;
    Opentelemetry__Proto__Metrics__V1__Metric *metrics[1] = {&metric};
    Opentelemetry__Proto__Metrics__V1__ScopeMetrics sm =
        OPENTELEMETRY__PROTO__METRICS__V1__SCOPE_METRICS__INIT;
    Opentelemetry__Proto__Metrics__V1__ScopeMetrics *sms[1] = {&sm};
    Opentelemetry__Proto__Metrics__V1__ResourceMetrics rm =
        OPENTELEMETRY__PROTO__METRICS__V1__RESOURCE_METRICS__INIT;
    Opentelemetry__Proto__Metrics__V1__ResourceMetrics *rms[1] = {&rm};
    Opentelemetry__Proto__Collector__Metrics__V1__ExportMetricsServiceRequest req =
        OPENTELEMETRY__PROTO__COLLECTOR__METRICS__V1__EXPORT_METRICS_SERVICE_REQUEST__INIT;

    if (n > 8)
        n = 8;
    host_kv.key = (char *)"host.name";
    host_v.value_case = OPENTELEMETRY__PROTO__COMMON__V1__ANY_VALUE__VALUE_STRING_VALUE;
    host_v.string_value = (char *)host;
    host_kv.value = &host_v;
    res.n_attributes = 1;
    res.attributes = res_attrs;
    for (size_t i = 0; i < n; i++) {
        fx_kv kv = OPENTELEMETRY__PROTO__COMMON__V1__KEY_VALUE__INIT;
        fx_any av = OPENTELEMETRY__PROTO__COMMON__V1__ANY_VALUE__INIT;
        Opentelemetry__Proto__Metrics__V1__NumberDataPoint p =
            OPENTELEMETRY__PROTO__METRICS__V1__NUMBER_DATA_POINT__INIT;
        if_kv[i] = kv;
        if_v[i] = av;
        dp[i] = p;
        if_kv[i].key = (char *)"interface";
        if_v[i].value_case = OPENTELEMETRY__PROTO__COMMON__V1__ANY_VALUE__VALUE_STRING_VALUE;
        if_v[i].string_value = (char *)pts[i].iface;
        if_kv[i].value = &if_v[i];
        if_attrs[i][0] = &if_kv[i];
        dp[i].n_attributes = 1;
        dp[i].attributes = if_attrs[i];
        dp[i].time_unix_nano = pts[i].time_ns;
        dp[i].value_case = OPENTELEMETRY__PROTO__METRICS__V1__NUMBER_DATA_POINT__VALUE_AS_DOUBLE;
        dp[i].as_double = pts[i].value;
        dps[i] = &dp[i];
    }
    gauge.n_data_points = n;
    gauge.data_points = dps;
    metric.name = (char *)FX_METRIC;
    metric.data_case = OPENTELEMETRY__PROTO__METRICS__V1__METRIC__DATA_GAUGE;
    metric.gauge = &gauge;
    sm.n_metrics = 1;
    sm.metrics = metrics;
    rm.resource = &res;
    rm.n_scope_metrics = 1;
    rm.scope_metrics = sms;
    req.n_resource_metrics = 1;
    req.resource_metrics = rms;

    *len =
        opentelemetry__proto__collector__metrics__v1__export_metrics_service_request__get_packed_size(
            &req);
    uint8_t *buf = malloc(*len ? *len : 1);
    if (buf)
        opentelemetry__proto__collector__metrics__v1__export_metrics_service_request__pack(&req,
                                                                                           buf);
    return buf;
}

/* The same request in OTLP/JSON (one point). Returns the length. */
static inline size_t fx_export_request_json(char *out, size_t cap, const char *host,
                                            const char *iface, uint64_t time_ns, double value)
{
    int n = snprintf(out, cap,
                     "{\"resourceMetrics\":[{\"resource\":{\"attributes\":[{\"key\":\"host.name\","
                     "\"value\":{\"stringValue\":\"%s\"}}]},\"scopeMetrics\":[{\"metrics\":[{"
                     "\"name\":\"" FX_METRIC "\",\"gauge\":{\"dataPoints\":[{\"attributes\":[{"
                     "\"key\":\"interface\",\"value\":{\"stringValue\":\"%s\"}}],"
                     "\"timeUnixNano\":\"%llu\",\"asDouble\":%.17g}]}}]}]}]}",
                     host, iface, (unsigned long long)time_ns, value);
    return n < 0 ? 0 : (size_t)n;
}

/* A device time the engine accepts: now, on a whole millisecond. */
static inline uint64_t fx_time(void)
{
    return (uint64_t)(fsc_now_ns() / 1000000) * 1000000;
}

/* ---- gzip ------------------------------------------------------------------------- */

/* gzip of in[0..len), or of `zeros` zero bytes when in is NULL (a bomb made
 * without holding its plain text). malloc'd; length in *out_len. */
static inline uint8_t *fx_gzip(const void *in, size_t len, size_t zeros, size_t *out_len)
{
    static const uint8_t zero_block[64 * 1024];
    z_stream zs;
    memset(&zs, 0, sizeof(zs));
    if (deflateInit2(&zs, 9, Z_DEFLATED, 16 + 15, 9, Z_DEFAULT_STRATEGY) != Z_OK)
        return NULL;
    size_t total = in ? len : zeros;
    size_t cap = deflateBound(&zs, (uLong)total) + 64, done = 0;
    uint8_t *out = malloc(cap);
    if (!out) {
        deflateEnd(&zs);
        return NULL;
    }
    zs.next_out = out;
    zs.avail_out = (uInt)cap;
    int zrc = Z_OK;
    for (int guard = 0; guard < 1 << 20 && zrc != Z_STREAM_END; guard++) {
        if (zs.avail_in == 0 && done < total) {
            size_t chunk = total - done < sizeof(zero_block) ? total - done : sizeof(zero_block);
            zs.next_in = (Bytef *)(in ? (const uint8_t *)in + done : zero_block);
            zs.avail_in = (uInt)chunk;
            done += chunk;
        }
        zrc = deflate(&zs, done == total ? Z_FINISH : Z_NO_FLUSH);
        if (zrc == Z_STREAM_ERROR)
            break;
    }
    *out_len = cap - zs.avail_out;
    deflateEnd(&zs);
    if (zrc != Z_STREAM_END) {
        free(out);
        return NULL;
    }
    return out;
}

/* ---- memory ------------------------------------------------------------------------ */

/* Peak resident set size of the process (VmHWM), in KiB; -1 if unknown. */
static inline long fx_peak_rss_kb(void)
{
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    long kb = -1;
    if (!f)
        return -1;
    while (fgets(line, sizeof(line), f)) {
        if (strncmp(line, "VmHWM:", 6) == 0) {
            kb = strtol(line + 6, NULL, 10);
            break;
        }
    }
    fclose(f);
    return kb;
}

/* ---- decoder sentences -------------------------------------------------------------- */

static inline void fx_nop_resource(void *ctx, const struct fsc_otlp_attr *a, uint32_t n)
{
    (void)ctx;
    (void)a;
    (void)n;
}
static inline void fx_nop_metric(void *ctx, const struct fsc_otlp_metric *m)
{
    (void)ctx;
    (void)m;
}
static inline void fx_nop_point(void *ctx, const struct fsc_otlp_point *p)
{
    (void)ctx;
    (void)p;
}

/* The sentence the protobuf (json = 0) or JSON decoder gives for these
 * bytes: what the server must pass on. */
static inline void fx_decoder_sentence(int json, const void *body, size_t len, char *out,
                                       size_t cap)
{
    struct fsc_otlp_visitor v = {NULL, fx_nop_resource, fx_nop_metric, fx_nop_point};
    char *copy = malloc(len + 1);
    out[0] = '\0';
    if (!copy)
        return;
    memcpy(copy, body, len);
    if (json)
        fsc_otlp_decode_json(copy, len, &v, out, cap);
    else
        fsc_otlp_decode_proto((const uint8_t *)copy, len, &v, out, cap);
    free(copy);
}

/* ---- ports ------------------------------------------------------------------------- */

/* Listens on 127.0.0.1 port 0 (no SO_REUSEPORT) and returns the port; the
 * socket is left in *fd for the caller to close. 0 on failure. */
static inline uint16_t fx_busy_port(int *fd)
{
    struct sockaddr_in sa;
    socklen_t sl = sizeof(sa);
    *fd = socket(AF_INET, SOCK_STREAM, 0);
    memset(&sa, 0, sizeof(sa));
    sa.sin_family = AF_INET;
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (*fd == -1 || bind(*fd, (struct sockaddr *)&sa, sizeof(sa)) == -1 || listen(*fd, 1) == -1 ||
        getsockname(*fd, (struct sockaddr *)&sa, &sl) == -1)
        return 0;
    return ntohs(sa.sin_port);
}

/* ---- TLS material -------------------------------------------------------------------- */

/* Makes a CA, a server certificate for localhost / 127.0.0.1 and a client
 * certificate in a new temporary directory (path written to dir, 64 bytes)
 * with the openssl command. Returns 0 or -1. */
static inline int fx_make_certs(char *dir)
{
    char cmd[2048];
    snprintf(dir, 64, "/tmp/fsc-otlp-tls-XXXXXX");
    if (!mkdtemp(dir))
        return -1;
    snprintf(cmd, sizeof(cmd),
             "cd %s && K='-newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes' && "
             "openssl req -x509 $K -keyout ca.key -out ca.pem -days 2 -subj /CN=fsc-test-ca && "
             "openssl req $K -keyout server.key -out server.csr -subj /CN=localhost && "
             "printf 'subjectAltName=DNS:localhost,IP:127.0.0.1\\n' > san.ext && "
             "openssl x509 -req -in server.csr -CA ca.pem -CAkey ca.key -CAcreateserial "
             "-out server.pem -days 2 -extfile san.ext && "
             "openssl req $K -keyout client.key -out client.csr -subj /CN=fsc-client && "
             "openssl x509 -req -in client.csr -CA ca.pem -CAkey ca.key -CAcreateserial "
             "-out client.pem -days 2",
             dir);
    char quiet[2200];
    snprintf(quiet, sizeof(quiet), "(%s) >/dev/null 2>&1", cmd);
    return system(quiet) == 0 ? 0 : -1;
}

/* Removes what fx_make_certs made. */
static inline void fx_remove_certs(const char *dir)
{
    char cmd[256];
    if (strncmp(dir, "/tmp/fsc-otlp-tls-", 18) != 0)
        return;
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
    if (system(cmd) != 0)
        fprintf(stderr, "cannot remove %s\n", dir);
}

/* dir/name into out (256 bytes). */
static inline const char *fx_path(char *out, const char *dir, const char *name)
{
    snprintf(out, 256, "%s/%s", dir, name);
    return out;
}

#endif
