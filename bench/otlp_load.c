/* otlp_load: an OTLP metrics load generator for the receiver's benchmark.
 *
 * Sends Cumulus-shaped ExportMetricsServiceRequests (one resource per device
 * with host.name, gauge-double interface counters with attribute `interface`,
 * as Cumulus sends them) to an OTLP/gRPC or OTLP/HTTP (protobuf) endpoint,
 * at full speed or at a target rate of data points per second, for a fixed
 * time. With --pid it also reports the receiving process's CPU time over the
 * run and its memory (VmRSS, VmHWM), so the figure that matters, data points
 * per core-second of the receiver, comes out directly.
 *
 * Each device's request is packed once with protobuf-c; every data point
 * carries the same sentinel time and value, and the byte offsets of those
 * fields are recorded, so each send only patches 16 bytes per point (the
 * generator must stay cheaper than the receiver it measures: both share two
 * cores).
 *
 *   otlp_load (--grpc HOST:PORT | --http HOST:PORT) [--devices D] [--interfaces I]
 *             [--metrics M] [--rate POINTS_PER_S] [--duration S] [--inflight N]
 *             [--pid PID]
 */
#define _GNU_SOURCE /* strcasestr, getaddrinfo, clock_gettime */
#include <arpa/inet.h>
#include <errno.h>
#include <grpc/byte_buffer.h>
#include <grpc/grpc.h>
#include <grpc/grpc_security.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "otlp_metrics_service.pb-c.h"

#define SENTINEL_TIME  0x1122334455667788ULL
#define SENTINEL_VALUE 123456789.0

static const char *const metric_names[] = {
    "nvswitch_interface_if_in_octets",          "nvswitch_interface_if_out_octets",
    "nvswitch_interface_if_in_ucast_pkts",      "nvswitch_interface_if_out_ucast_pkts",
    "nvswitch_interface_if_in_discards",        "nvswitch_interface_if_out_discards",
    "nvswitch_interface_if_in_errors",          "nvswitch_interface_if_out_errors",
    "nvswitch_interface_if_in_multicast_pkts",  "nvswitch_interface_if_out_multicast_pkts",
    "nvswitch_interface_dot3_in_pause_frames",  "nvswitch_interface_dot3_out_pause_frames",
    "nvswitch_interface_dot3_stats_fcs_errors", "nvswitch_interface_ether_stats_octets",
    "nvswitch_interface_ether_stats_pkts",      "nvswitch_interface_ether_stats_crc_align_errors",
};
#define N_NAMES (sizeof(metric_names) / sizeof(metric_names[0]))

struct device_req {
    uint8_t *buf;
    size_t len;
    size_t *time_off; /* offsets of the 8 time bytes of each point */
    size_t *value_off;
    size_t n_points;
};

struct opts {
    const char *grpc, *http;
    unsigned devices, interfaces, metrics, inflight;
    double rate, duration;
    int pid;
};

static int64_t now_ns(int clk)
{
    struct timespec ts;
    clock_gettime(clk, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* Packs the request of device d and records the patch offsets. */
static int build_device(const struct opts *o, unsigned d, struct device_req *out)
{
    char host[32];
    snprintf(host, sizeof(host), "spine%u", d);
    unsigned ni = o->interfaces, nm = o->metrics;
    size_t np = (size_t)ni * nm;
    Opentelemetry__Proto__Common__V1__AnyValue host_v =
        OPENTELEMETRY__PROTO__COMMON__V1__ANY_VALUE__INIT;
    host_v.value_case = OPENTELEMETRY__PROTO__COMMON__V1__ANY_VALUE__VALUE_STRING_VALUE;
    host_v.string_value = host;
    Opentelemetry__Proto__Common__V1__KeyValue host_kv =
        OPENTELEMETRY__PROTO__COMMON__V1__KEY_VALUE__INIT;
    host_kv.key = "host.name";
    host_kv.value = &host_v;
    Opentelemetry__Proto__Common__V1__KeyValue *res_attrs[1] = {&host_kv};
    Opentelemetry__Proto__Resource__V1__Resource res =
        OPENTELEMETRY__PROTO__RESOURCE__V1__RESOURCE__INIT;
    res.attributes = res_attrs;
    res.n_attributes = 1;

    char(*ifn)[16] = calloc(ni, sizeof(*ifn));
    Opentelemetry__Proto__Common__V1__AnyValue *ifv = calloc(ni, sizeof(*ifv));
    Opentelemetry__Proto__Common__V1__KeyValue *ifkv = calloc(ni, sizeof(*ifkv));
    Opentelemetry__Proto__Common__V1__KeyValue **ifkvp = calloc(ni, sizeof(*ifkvp));
    Opentelemetry__Proto__Metrics__V1__NumberDataPoint *pts = calloc(np, sizeof(*pts));
    Opentelemetry__Proto__Metrics__V1__NumberDataPoint **ptsp = calloc(np, sizeof(*ptsp));
    Opentelemetry__Proto__Metrics__V1__Gauge *gauges = calloc(nm, sizeof(*gauges));
    Opentelemetry__Proto__Metrics__V1__Metric *mets = calloc(nm, sizeof(*mets));
    Opentelemetry__Proto__Metrics__V1__Metric **metsp = calloc(nm, sizeof(*metsp));
    char(*mname)[64] = calloc(nm, sizeof(*mname));
    int rc = -ENOMEM;
    if (!ifn || !ifv || !ifkv || !ifkvp || !pts || !ptsp || !gauges || !mets || !metsp || !mname)
        goto out;
    for (unsigned i = 0; i < ni; i++) {
        snprintf(ifn[i], sizeof(ifn[i]), "swp%u", i + 1);
        opentelemetry__proto__common__v1__any_value__init(&ifv[i]);
        ifv[i].value_case = OPENTELEMETRY__PROTO__COMMON__V1__ANY_VALUE__VALUE_STRING_VALUE;
        ifv[i].string_value = ifn[i];
        opentelemetry__proto__common__v1__key_value__init(&ifkv[i]);
        ifkv[i].key = "interface";
        ifkv[i].value = &ifv[i];
        ifkvp[i] = &ifkv[i];
    }
    for (unsigned m = 0; m < nm; m++) {
        /* Past the known names: passthrough series (fabric_cumulus_...). */
        if (m < N_NAMES)
            snprintf(mname[m], sizeof(mname[m]), "%s", metric_names[m]);
        else
            snprintf(mname[m], sizeof(mname[m]), "nvswitch_interface_bench_counter_%u", m);
        for (unsigned i = 0; i < ni; i++) {
            Opentelemetry__Proto__Metrics__V1__NumberDataPoint *p = &pts[(size_t)m * ni + i];
            opentelemetry__proto__metrics__v1__number_data_point__init(p);
            p->attributes = &ifkvp[i];
            p->n_attributes = 1;
            p->time_unix_nano = SENTINEL_TIME;
            p->value_case = OPENTELEMETRY__PROTO__METRICS__V1__NUMBER_DATA_POINT__VALUE_AS_DOUBLE;
            p->as_double = SENTINEL_VALUE;
            ptsp[(size_t)m * ni + i] = p;
        }
        opentelemetry__proto__metrics__v1__gauge__init(&gauges[m]);
        gauges[m].data_points = &ptsp[(size_t)m * ni];
        gauges[m].n_data_points = ni;
        opentelemetry__proto__metrics__v1__metric__init(&mets[m]);
        mets[m].name = mname[m];
        mets[m].unit = "";
        mets[m].data_case = OPENTELEMETRY__PROTO__METRICS__V1__METRIC__DATA_GAUGE;
        mets[m].gauge = &gauges[m];
        metsp[m] = &mets[m];
    }
    Opentelemetry__Proto__Metrics__V1__ScopeMetrics sm =
        OPENTELEMETRY__PROTO__METRICS__V1__SCOPE_METRICS__INIT;
    sm.metrics = metsp;
    sm.n_metrics = nm;
    Opentelemetry__Proto__Metrics__V1__ScopeMetrics *smp[1] = {&sm};
    Opentelemetry__Proto__Metrics__V1__ResourceMetrics rm =
        OPENTELEMETRY__PROTO__METRICS__V1__RESOURCE_METRICS__INIT;
    rm.resource = &res;
    rm.scope_metrics = smp;
    rm.n_scope_metrics = 1;
    Opentelemetry__Proto__Metrics__V1__ResourceMetrics *rmp[1] = {&rm};
    Opentelemetry__Proto__Collector__Metrics__V1__ExportMetricsServiceRequest req =
        OPENTELEMETRY__PROTO__COLLECTOR__METRICS__V1__EXPORT_METRICS_SERVICE_REQUEST__INIT;
    req.resource_metrics = rmp;
    req.n_resource_metrics = 1;
    out->len =
        opentelemetry__proto__collector__metrics__v1__export_metrics_service_request__get_packed_size(
            &req);
    out->buf = malloc(out->len);
    out->time_off = calloc(np, sizeof(size_t));
    out->value_off = calloc(np, sizeof(size_t));
    if (!out->buf || !out->time_off || !out->value_off)
        goto out;
    opentelemetry__proto__collector__metrics__v1__export_metrics_service_request__pack(&req,
                                                                                       out->buf);
    /* tag 0x19 = field 3 fixed64 (time), 0x21 = field 4 double (as_double) */
    uint8_t tpat[9] = {0x19}, vpat[9] = {0x21};
    uint64_t t = SENTINEL_TIME;
    double v = SENTINEL_VALUE;
    memcpy(tpat + 1, &t, 8);
    memcpy(vpat + 1, &v, 8);
    size_t nt = 0, nv = 0;
    for (size_t k = 0; k + 9 <= out->len; k++) {
        if (nt < np && memcmp(out->buf + k, tpat, 9) == 0)
            out->time_off[nt++] = k + 1;
        else if (nv < np && memcmp(out->buf + k, vpat, 9) == 0)
            out->value_off[nv++] = k + 1;
    }
    if (nt != np || nv != np) {
        fprintf(stderr, "otlp_load: found %zu time and %zu value fields, expected %zu\n", nt, nv,
                np);
        rc = -EINVAL;
        goto out;
    }
    out->n_points = np;
    rc = 0;
out:
    free(ifn);
    free(ifv);
    free(ifkv);
    free(ifkvp);
    free(pts);
    free(ptsp);
    free(gauges);
    free(mets);
    free(metsp);
    free(mname);
    return rc;
}

/* Sets every point's time to t and value to the counter at t (10 GB/s). */
static void patch(struct device_req *d, int64_t t, int64_t t0)
{
    uint64_t tu = (uint64_t)t;
    double v = (double)(t - t0) * 10.0; /* bytes: 10 per ns */
    for (size_t k = 0; k < d->n_points; k++) {
        memcpy(d->buf + d->time_off[k], &tu, 8);
        memcpy(d->buf + d->value_off[k], &v, 8);
    }
}

/* ---- receiver process figures ----------------------------------------- */

static double proc_cpu_seconds(int pid)
{
    char path[64], line[1024];
    snprintf(path, sizeof(path), "/proc/%d/stat", pid);
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    double r = -1;
    if (fgets(line, sizeof(line), f)) {
        char *p = strrchr(line, ')');
        unsigned long ut = 0, st = 0;
        if (p &&
            sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %lu %lu", &ut, &st) == 2)
            r = (double)(ut + st) / (double)sysconf(_SC_CLK_TCK);
    }
    fclose(f);
    return r;
}

static long proc_status_kb(int pid, const char *key)
{
    char path[64], line[256];
    snprintf(path, sizeof(path), "/proc/%d/status", pid);
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    long kb = -1;
    size_t kl = strlen(key);
    while (fgets(line, sizeof(line), f))
        if (strncmp(line, key, kl) == 0 && line[kl] == ':')
            kb = strtol(line + kl + 1, NULL, 10);
    fclose(f);
    return kb;
}

/* ---- HTTP/1.1 keep-alive over a plain socket -------------------------- */

static int http_connect(const char *hostport)
{
    char host[128];
    snprintf(host, sizeof(host), "%s", hostport);
    char *colon = strrchr(host, ':');
    if (!colon)
        return -1;
    *colon = '\0';
    struct addrinfo hints = {.ai_socktype = SOCK_STREAM}, *ai = NULL;
    if (getaddrinfo(host, colon + 1, &hints, &ai) != 0)
        return -1;
    int fd = socket(ai->ai_family, SOCK_STREAM, 0);
    int one = 1;
    if (fd >= 0)
        setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
    if (fd >= 0 && connect(fd, ai->ai_addr, ai->ai_addrlen) != 0) {
        close(fd);
        fd = -1;
    }
    freeaddrinfo(ai);
    return fd;
}

static int write_all(int fd, const void *p, size_t n)
{
    const uint8_t *b = p;
    while (n) {
        ssize_t w = send(fd, b, n, MSG_NOSIGNAL);
        if (w <= 0)
            return -1;
        b += w;
        n -= (size_t)w;
    }
    return 0;
}

/* One request; returns the HTTP status or -1. */
static int http_post(int fd, const struct device_req *d)
{
    char hdr[256];
    int hn = snprintf(hdr, sizeof(hdr),
                      "POST /v1/metrics HTTP/1.1\r\nHost: bench\r\nContent-Type: "
                      "application/x-protobuf\r\nContent-Length: %zu\r\n\r\n",
                      d->len);
    if (write_all(fd, hdr, (size_t)hn) || write_all(fd, d->buf, d->len))
        return -1;
    char rsp[4096];
    size_t got = 0;
    for (;;) {
        ssize_t r = recv(fd, rsp + got, sizeof(rsp) - 1 - got, 0);
        if (r <= 0)
            return -1;
        got += (size_t)r;
        rsp[got] = '\0';
        char *end = strstr(rsp, "\r\n\r\n");
        if (!end)
            continue;
        const char *cl = strcasestr(rsp, "content-length:");
        size_t body = cl ? strtoul(cl + 15, NULL, 10) : 0;
        size_t need = (size_t)(end + 4 - rsp) + body;
        if (need > sizeof(rsp) - 1)
            return -1;
        while (got < need) {
            r = recv(fd, rsp + got, need - got, 0);
            if (r <= 0)
                return -1;
            got += (size_t)r;
        }
        return atoi(rsp + 9);
    }
}

/* ---- gRPC unary calls over the C core --------------------------------- */

struct grpc_slot {
    grpc_call *call;
    grpc_byte_buffer *send, *recv;
    grpc_metadata_array md_init, md_trail;
    grpc_status_code status;
    grpc_slice details;
    int busy;
};

static int grpc_start(grpc_channel *ch, grpc_completion_queue *cq, struct grpc_slot *s,
                      const struct device_req *d)
{
    grpc_slice method = grpc_slice_from_static_string(
        "/opentelemetry.proto.collector.metrics.v1.MetricsService/Export");
    s->call = grpc_channel_create_call(ch, NULL, GRPC_PROPAGATE_DEFAULTS, cq, method, NULL,
                                       gpr_inf_future(GPR_CLOCK_REALTIME), NULL);
    grpc_slice body = grpc_slice_from_copied_buffer((const char *)d->buf, d->len);
    s->send = grpc_raw_byte_buffer_create(&body, 1);
    grpc_slice_unref(body);
    s->recv = NULL;
    grpc_metadata_array_init(&s->md_init);
    grpc_metadata_array_init(&s->md_trail);
    grpc_op ops[6];
    memset(ops, 0, sizeof(ops));
    ops[0].op = GRPC_OP_SEND_INITIAL_METADATA;
    ops[1].op = GRPC_OP_SEND_MESSAGE;
    ops[1].data.send_message.send_message = s->send;
    ops[2].op = GRPC_OP_SEND_CLOSE_FROM_CLIENT;
    ops[3].op = GRPC_OP_RECV_INITIAL_METADATA;
    ops[3].data.recv_initial_metadata.recv_initial_metadata = &s->md_init;
    ops[4].op = GRPC_OP_RECV_MESSAGE;
    ops[4].data.recv_message.recv_message = &s->recv;
    ops[5].op = GRPC_OP_RECV_STATUS_ON_CLIENT;
    ops[5].data.recv_status_on_client.trailing_metadata = &s->md_trail;
    ops[5].data.recv_status_on_client.status = &s->status;
    ops[5].data.recv_status_on_client.status_details = &s->details;
    s->busy = 1;
    return grpc_call_start_batch(s->call, ops, 6, s, NULL) == GRPC_CALL_OK ? 0 : -1;
}

static void grpc_done(struct grpc_slot *s)
{
    grpc_byte_buffer_destroy(s->send);
    if (s->recv)
        grpc_byte_buffer_destroy(s->recv);
    grpc_metadata_array_destroy(&s->md_init);
    grpc_metadata_array_destroy(&s->md_trail);
    grpc_slice_unref(s->details);
    grpc_call_unref(s->call);
    s->busy = 0;
}

static int usage(void)
{
    fprintf(stderr, "usage: otlp_load (--grpc HOST:PORT | --http HOST:PORT) [--devices D] "
                    "[--interfaces I] [--metrics M] [--rate POINTS_PER_S] [--duration S] "
                    "[--inflight N] [--pid PID]\n");
    return 2;
}

int main(int argc, char **argv)
{
    struct opts o = {.devices = 4, .interfaces = 64, .metrics = 16, .inflight = 4, .duration = 10};
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!v)
            return usage();
        if (!strcmp(a, "--grpc"))
            o.grpc = v;
        else if (!strcmp(a, "--http"))
            o.http = v;
        else if (!strcmp(a, "--devices"))
            o.devices = (unsigned)atoi(v);
        else if (!strcmp(a, "--interfaces"))
            o.interfaces = (unsigned)atoi(v);
        else if (!strcmp(a, "--metrics"))
            o.metrics = (unsigned)atoi(v);
        else if (!strcmp(a, "--rate"))
            o.rate = atof(v);
        else if (!strcmp(a, "--duration"))
            o.duration = atof(v);
        else if (!strcmp(a, "--inflight"))
            o.inflight = (unsigned)atoi(v);
        else if (!strcmp(a, "--pid"))
            o.pid = atoi(v);
        else
            return usage();
        i++;
    }
    if ((!o.grpc) == (!o.http) || !o.devices || !o.interfaces || !o.metrics || !o.inflight ||
        o.inflight > 64 || o.duration <= 0)
        return usage();
    struct device_req *devs = calloc(o.devices, sizeof(*devs));
    if (!devs)
        return 1;
    for (unsigned d = 0; d < o.devices; d++)
        if (build_device(&o, d, &devs[d]) != 0)
            return 1;
    size_t per_req = devs[0].n_points;
    /* Rate limit: requests per second = rate / points per request. */
    double req_gap_ns = o.rate > 0 ? 1e9 * (double)per_req / o.rate : 0;

    double cpu0 = o.pid ? proc_cpu_seconds(o.pid) : 0;
    int64_t t0 = now_ns(CLOCK_REALTIME), m0 = now_ns(CLOCK_MONOTONIC);
    int64_t end = m0 + (int64_t)(o.duration * 1e9);
    uint64_t sent = 0, ok = 0, failed = 0;
    unsigned next_dev = 0;
    int64_t next_send = m0;

    if (o.http) {
        int fd = http_connect(o.http);
        if (fd < 0) {
            fprintf(stderr, "otlp_load: cannot connect to %s\n", o.http);
            return 1;
        }
        while (now_ns(CLOCK_MONOTONIC) < end) {
            if (req_gap_ns > 0) {
                int64_t now = now_ns(CLOCK_MONOTONIC);
                if (now < next_send) {
                    struct timespec ts = {0, next_send - now};
                    nanosleep(&ts, NULL);
                }
                next_send += (int64_t)req_gap_ns;
            }
            struct device_req *d = &devs[next_dev];
            next_dev = (next_dev + 1) % o.devices;
            patch(d, now_ns(CLOCK_REALTIME), t0);
            int st = http_post(fd, d);
            sent++;
            if (st == 200) {
                ok++;
            } else {
                failed++;
                if (st < 0) {
                    close(fd);
                    fd = http_connect(o.http);
                    if (fd < 0)
                        break;
                }
            }
        }
        if (fd >= 0)
            close(fd);
    } else {
        grpc_init();
        grpc_channel_credentials *cr = grpc_insecure_credentials_create();
        grpc_channel *ch = grpc_channel_create(o.grpc, cr, NULL);
        grpc_channel_credentials_release(cr);
        grpc_completion_queue *cq = grpc_completion_queue_create_for_next(NULL);
        struct grpc_slot slots[64];
        memset(slots, 0, sizeof(slots));
        unsigned busy = 0;
        int stopping = 0;
        for (;;) {
            int64_t now = now_ns(CLOCK_MONOTONIC);
            if (now >= end)
                stopping = 1;
            while (!stopping && busy < o.inflight && (req_gap_ns <= 0 || now >= next_send)) {
                unsigned k = 0;
                while (slots[k].busy)
                    k++;
                struct device_req *d = &devs[next_dev];
                next_dev = (next_dev + 1) % o.devices;
                patch(d, now_ns(CLOCK_REALTIME), t0);
                if (grpc_start(ch, cq, &slots[k], d) != 0) {
                    failed++;
                    break;
                }
                busy++;
                sent++;
                if (req_gap_ns > 0)
                    next_send += (int64_t)req_gap_ns;
            }
            if (busy == 0 && stopping)
                break;
            gpr_timespec dl = gpr_time_add(gpr_now(GPR_CLOCK_MONOTONIC),
                                           gpr_time_from_millis(busy ? 100 : 1, GPR_TIMESPAN));
            grpc_event ev = grpc_completion_queue_next(cq, dl, NULL);
            if (ev.type == GRPC_OP_COMPLETE) {
                struct grpc_slot *s = ev.tag;
                if (ev.success && s->status == GRPC_STATUS_OK)
                    ok++;
                else
                    failed++;
                grpc_done(s);
                busy--;
            }
        }
        grpc_completion_queue_shutdown(cq);
        while (grpc_completion_queue_next(cq, gpr_inf_future(GPR_CLOCK_REALTIME), NULL).type !=
               GRPC_QUEUE_SHUTDOWN) {
        }
        grpc_completion_queue_destroy(cq);
        grpc_channel_destroy(ch);
        grpc_shutdown();
    }
    double secs = (double)(now_ns(CLOCK_MONOTONIC) - m0) / 1e9;
    double points = (double)ok * (double)per_req;
    printf("transport=%s points_per_request=%zu request_bytes=%zu requests=%llu ok=%llu "
           "failed=%llu seconds=%.2f points_per_second=%.0f\n",
           o.http ? "http" : "grpc", per_req, devs[0].len, (unsigned long long)sent,
           (unsigned long long)ok, (unsigned long long)failed, secs, points / secs);
    if (o.pid) {
        double cpu = proc_cpu_seconds(o.pid) - cpu0;
        printf("receiver_cpu_seconds=%.2f receiver_cpu_percent=%.1f points_per_core_second=%.0f "
               "receiver_rss_kb=%ld receiver_hwm_kb=%ld\n",
               cpu, 100.0 * cpu / secs, cpu > 0 ? points / cpu : 0.0,
               proc_status_kb(o.pid, "VmRSS"), proc_status_kb(o.pid, "VmHWM"));
    }
    for (unsigned d = 0; d < o.devices; d++) {
        free(devs[d].buf);
        free(devs[d].time_off);
        free(devs[d].value_off);
    }
    free(devs);
    return failed ? 1 : 0;
}
