/* The demo's SN4700 spine: one thread that exports Cumulus-shaped OTLP
 * metrics over gRPC (the gRPC C core as a client, protobuf-c for the
 * message) to the collector's own receiver, about once a second.
 *
 * Shape, as Cumulus sends it (docs/vendors/cumulus.md, profile_cumulus.c): one
 * resource with host.name = spine1; interface counters as *Gauge* points
 * with double values although they are cumulative (attribute `interface`);
 * per traffic class (attribute `tc`, an int) the tc_* counters, also gauge
 * doubles, and the shared-buffer watermark, a real gauge.
 *
 * Timing: tick k is due at k s of the demo clock plus a jitter of up to
 * +-150 ms (seeded), and each point's time is the moment the values were
 * computed, so device time and value agree exactly and the rate engine's
 * window rates must come out flat whatever the jitter.
 *
 * Values: exact integrals of per-second rates over the demo clock in
 * microseconds (no drift, no float accumulation); swp3 tc 3 adds
 * DEMO_ECN_STORM_PER_S ECN marks inside the DEMO_F_ECN windows, with its
 * watermark at 18 MiB (under half of the 64 MiB buffer the topology gives
 * the spine, so it is no queue-peak evidence: the ECN spike is the one
 * event this fault must raise). swp5 (DEMO_SPINE_BURST_PORT) carries
 * DEMO_SPINE_LOAD_PCT % of line rate each way and sends at line rate inside
 * the DEMO_F_SPINE_BURST windows: its out octets (and the tc counters that
 * share them) add the difference over the time spent inside them. Its
 * watermarks stay at their baseline (an egress port at line rate does not
 * queue by itself), so the burst is the one event this fault raises.
 *
 * The request's protobuf-c structs are built once; each tick only rewrites
 * times and values, packs into a reused buffer and makes one unary call,
 * waiting for its answer (2 s deadline) before the next. */
#include <errno.h>
#include <grpc/byte_buffer.h>
#include <grpc/grpc.h>
#include <grpc/grpc_security.h>
#include <grpc/support/time.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/log.h"
#include "demo/demo_int.h"
#include "otlp_metrics_service.pb-c.h"

#define CALL_DEADLINE_MS 2000
#define JITTER_NS        (150 * DEMO_MS)
#define PACKET_BYTES     4096
#define ROCE_TC          3

typedef Opentelemetry__Proto__Common__V1__AnyValue AnyValue;
typedef Opentelemetry__Proto__Common__V1__KeyValue KeyValue;
typedef Opentelemetry__Proto__Metrics__V1__NumberDataPoint Point;
typedef Opentelemetry__Proto__Metrics__V1__Gauge Gauge;
typedef Opentelemetry__Proto__Metrics__V1__Metric Metric;

/* What one metric counts, per port (and per tc for the tc_* ones, per
 * switch priority for the sp_* ones). */
enum series_kind {
    K_IN_BYTES,
    K_OUT_BYTES,
    K_IN_PKTS,
    K_OUT_PKTS,
    K_MCAST, /* 10/s */
    K_BCAST, /* 1/s */
    K_ZERO,
    K_CARRIER, /* 2: the link came up once */
    K_TC_FRAMES,
    K_TC_OCTETS,
    K_TC_ECN,
    K_TC_WATERMARK,
};

/* The attribute beside `interface`: none, `tc` (traffic class) or `sp`
 * (switch priority; Cumulus documents no key for it, the receiver reads `sp`,
 * docs/vendors/cumulus.md). Both run 0 .. DEMO_SPINE_TCS - 1. */
enum sub_attr { SUB_NONE, SUB_TC, SUB_SP };

/* The names of Cumulus Linux 5.15 (docs/vendors/cumulus.md, from NVIDIA's
 * content/cumulus-linux-515/Monitoring-and-Troubleshooting/Open-Telemetry-Export.md
 * and the 5.15 release notes): rx bytes and rx multicast / broadcast come
 * from the ether_stats_* counters, since 5.15 deprecates if_in_octets and
 * if_in_{multicast,broadcast}_pkts as their duplicates; tx keeps if_out_*.
 * PFC per switch priority (sp_*_pause, 5.11+) stays 0: no fault pauses the
 * spine, and the congestion dashboard's PFC panels show the zeros. */
static const struct {
    const char *name;
    enum series_kind kind;
    enum sub_attr sub;
} metrics[] = {
    {"nvswitch_interface_ether_stats_octets", K_IN_BYTES, SUB_NONE},
    {"nvswitch_interface_if_out_octets", K_OUT_BYTES, SUB_NONE},
    {"nvswitch_interface_if_in_ucast_pkts", K_IN_PKTS, SUB_NONE},
    {"nvswitch_interface_if_out_ucast_pkts", K_OUT_PKTS, SUB_NONE},
    {"nvswitch_interface_ether_stats_multicast_pkts", K_MCAST, SUB_NONE},
    {"nvswitch_interface_if_out_multicast_pkts", K_MCAST, SUB_NONE},
    {"nvswitch_interface_ether_stats_broadcast_pkts", K_BCAST, SUB_NONE},
    {"nvswitch_interface_if_out_broadcast_pkts", K_BCAST, SUB_NONE},
    {"nvswitch_interface_if_in_discards", K_ZERO, SUB_NONE},
    {"nvswitch_interface_if_out_discards", K_ZERO, SUB_NONE},
    {"nvswitch_interface_if_in_errors", K_ZERO, SUB_NONE},
    {"nvswitch_interface_if_out_errors", K_ZERO, SUB_NONE},
    {"nvswitch_interface_dot3_in_pause_frames", K_ZERO, SUB_NONE},
    {"nvswitch_interface_dot3_out_pause_frames", K_ZERO, SUB_NONE},
    {"nvswitch_interface_carrier_changes_total", K_CARRIER, SUB_NONE},
    {"nvswitch_interface_tc_tx_frames", K_TC_FRAMES, SUB_TC},
    {"nvswitch_interface_tc_tx_octet", K_TC_OCTETS, SUB_TC},
    {"nvswitch_interface_tc_tx_ecn_marked_tc", K_TC_ECN, SUB_TC},
    {"nvswitch_interface_tc_tx_no_buffer_discard_uc", K_ZERO, SUB_TC},
    {"nvswitch_interface_tc_tx_wred_discard", K_ZERO, SUB_TC},
    {"nvswitch_interface_shared_buffer_port_tc_watermark", K_TC_WATERMARK, SUB_TC},
    {"nvswitch_interface_sp_rx_pause", K_ZERO, SUB_SP},
    {"nvswitch_interface_sp_tx_pause", K_ZERO, SUB_SP},
    {"nvswitch_interface_sp_rx_pause_duration", K_ZERO, SUB_SP},
    {"nvswitch_interface_sp_tx_pause_duration", K_ZERO, SUB_SP},
};
#define N_METRICS  (sizeof(metrics) / sizeof(metrics[0]))
#define MAX_POINTS (N_METRICS * DEMO_SPINE_PORTS * DEMO_SPINE_TCS)

struct demo_spine {
    struct demo_run *run;
    pthread_t thread;
    bool started;
    uint64_t rng;
    uint64_t in_rate[DEMO_SPINE_PORTS], out_rate[DEMO_SPINE_PORTS]; /* bytes/s */

    /* the message, built once */
    char port_name[DEMO_SPINE_PORTS][8];
    AnyValue host_v, port_v[DEMO_SPINE_PORTS], tc_v[DEMO_SPINE_TCS];
    KeyValue host_kv, port_kv[DEMO_SPINE_PORTS], tc_kv[DEMO_SPINE_TCS], sp_kv[DEMO_SPINE_TCS];
    KeyValue *host_kvp[1];
    KeyValue *attrs[MAX_POINTS][2];
    Point pts[MAX_POINTS];
    Point *ptsp[MAX_POINTS];
    Gauge gauges[N_METRICS];
    Metric mets[N_METRICS];
    Metric *metsp[N_METRICS];
    Opentelemetry__Proto__Resource__V1__Resource res;
    Opentelemetry__Proto__Metrics__V1__ScopeMetrics sm, *smp[1];
    Opentelemetry__Proto__Metrics__V1__ResourceMetrics rm, *rmp[1];
    Opentelemetry__Proto__Collector__Metrics__V1__ExportMetricsServiceRequest req;
    uint8_t *buf;
    size_t buf_cap;

    uint64_t sent, ok, failed;
    int last_status; /* of the previous call, for logging changes only */
};

static uint64_t rng_next(struct demo_spine *sp)
{
    uint64_t x = sp->rng; /* xorshift64*: jitter only */
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    sp->rng = x;
    return x * 2685821657736338717ULL;
}

static uint64_t tc_share(uint64_t bytes, unsigned tc)
{
    /* RoCE in tc 3 (80 %), everything else in tc 0; the rest idle. */
    if (tc == ROCE_TC)
        return bytes - bytes / 5;
    return tc == 0 ? bytes / 5 : 0;
}

/* Octets port p sent by e_ns: its rate, plus the line-rate remainder inside
 * the DEMO_F_SPINE_BURST windows on the burst port. */
static uint64_t out_bytes(const struct demo_spine *sp, unsigned p, int64_t e_ns)
{
    uint64_t v = demo_integral_us(sp->out_rate[p], e_ns / 1000);
    if (p + 1 == DEMO_SPINE_BURST_PORT)
        v += demo_integral_us(DEMO_LINE_BYTES_PER_S - sp->out_rate[p],
                              demo_fault_overlap(DEMO_F_SPINE_BURST, e_ns) / 1000);
    return v;
}

static double value_at(struct demo_spine *sp, enum series_kind kind, unsigned p, unsigned tc,
                       int64_t e_ns)
{
    int64_t us = e_ns / 1000;
    bool storm_port = p + 1 == 3 && tc == ROCE_TC; /* swp3 tc 3: DEMO_F_ECN */
    switch (kind) {
    case K_IN_BYTES:
        return (double)demo_integral_us(sp->in_rate[p], us);
    case K_OUT_BYTES:
        return (double)out_bytes(sp, p, e_ns);
    case K_IN_PKTS:
        return (double)(demo_integral_us(sp->in_rate[p], us) / PACKET_BYTES);
    case K_OUT_PKTS:
        return (double)(out_bytes(sp, p, e_ns) / PACKET_BYTES);
    case K_MCAST:
        return (double)demo_integral_us(10, us);
    case K_BCAST:
        return (double)demo_integral_us(1, us);
    case K_ZERO:
        return 0;
    case K_CARRIER:
        return 2;
    case K_TC_OCTETS:
        return (double)tc_share(out_bytes(sp, p, e_ns), tc);
    case K_TC_FRAMES:
        return (double)(tc_share(out_bytes(sp, p, e_ns), tc) / PACKET_BYTES);
    case K_TC_ECN: {
        if (tc != ROCE_TC)
            return 0;
        uint64_t v = demo_integral_us(20, us);
        if (storm_port)
            v +=
                demo_integral_us(DEMO_ECN_STORM_PER_S, demo_fault_overlap(DEMO_F_ECN, e_ns) / 1000);
        return (double)v;
    }
    case K_TC_WATERMARK:
        if (storm_port && demo_fault_active(DEMO_F_ECN, e_ns))
            return (double)(18u << 20) + (double)(rng_next(sp) % 65536);
        if (tc == ROCE_TC)
            return 150000.0 + (double)(rng_next(sp) % 50000);
        return tc == 0 ? 20000.0 : 0.0;
    }
    return 0;
}

/* Wires the protobuf-c structs of the request once. */
static void build(struct demo_spine *sp)
{
    opentelemetry__proto__common__v1__any_value__init(&sp->host_v);
    sp->host_v.value_case = OPENTELEMETRY__PROTO__COMMON__V1__ANY_VALUE__VALUE_STRING_VALUE;
    sp->host_v.string_value = DEMO_SPINE_NAME;
    opentelemetry__proto__common__v1__key_value__init(&sp->host_kv);
    sp->host_kv.key = "host.name";
    sp->host_kv.value = &sp->host_v;
    sp->host_kvp[0] = &sp->host_kv;
    for (unsigned p = 0; p < DEMO_SPINE_PORTS; p++) {
        snprintf(sp->port_name[p], sizeof(sp->port_name[p]), "swp%u", p + 1);
        opentelemetry__proto__common__v1__any_value__init(&sp->port_v[p]);
        sp->port_v[p].value_case = OPENTELEMETRY__PROTO__COMMON__V1__ANY_VALUE__VALUE_STRING_VALUE;
        sp->port_v[p].string_value = sp->port_name[p];
        opentelemetry__proto__common__v1__key_value__init(&sp->port_kv[p]);
        sp->port_kv[p].key = "interface";
        sp->port_kv[p].value = &sp->port_v[p];
    }
    for (unsigned t = 0; t < DEMO_SPINE_TCS; t++) {
        opentelemetry__proto__common__v1__any_value__init(&sp->tc_v[t]);
        sp->tc_v[t].value_case = OPENTELEMETRY__PROTO__COMMON__V1__ANY_VALUE__VALUE_INT_VALUE;
        sp->tc_v[t].int_value = t;
        opentelemetry__proto__common__v1__key_value__init(&sp->tc_kv[t]);
        sp->tc_kv[t].key = "tc";
        sp->tc_kv[t].value = &sp->tc_v[t];
        opentelemetry__proto__common__v1__key_value__init(&sp->sp_kv[t]);
        sp->sp_kv[t].key = "sp";
        sp->sp_kv[t].value = &sp->tc_v[t];
    }
    size_t k = 0;
    for (size_t m = 0; m < N_METRICS; m++) {
        size_t first = k;
        unsigned ntc = metrics[m].sub != SUB_NONE ? DEMO_SPINE_TCS : 1;
        for (unsigned p = 0; p < DEMO_SPINE_PORTS; p++)
            for (unsigned t = 0; t < ntc; t++, k++) {
                Point *pt = &sp->pts[k];
                opentelemetry__proto__metrics__v1__number_data_point__init(pt);
                sp->attrs[k][0] = &sp->port_kv[p];
                sp->attrs[k][1] = metrics[m].sub == SUB_SP ? &sp->sp_kv[t] : &sp->tc_kv[t];
                pt->attributes = sp->attrs[k];
                pt->n_attributes = metrics[m].sub != SUB_NONE ? 2 : 1;
                pt->value_case =
                    OPENTELEMETRY__PROTO__METRICS__V1__NUMBER_DATA_POINT__VALUE_AS_DOUBLE;
                sp->ptsp[k] = pt;
            }
        opentelemetry__proto__metrics__v1__gauge__init(&sp->gauges[m]);
        sp->gauges[m].data_points = &sp->ptsp[first];
        sp->gauges[m].n_data_points = k - first;
        opentelemetry__proto__metrics__v1__metric__init(&sp->mets[m]);
        sp->mets[m].name = (char *)metrics[m].name;
        sp->mets[m].unit = "";
        sp->mets[m].data_case = OPENTELEMETRY__PROTO__METRICS__V1__METRIC__DATA_GAUGE;
        sp->mets[m].gauge = &sp->gauges[m];
        sp->metsp[m] = &sp->mets[m];
    }
    opentelemetry__proto__resource__v1__resource__init(&sp->res);
    sp->res.attributes = sp->host_kvp;
    sp->res.n_attributes = 1;
    opentelemetry__proto__metrics__v1__scope_metrics__init(&sp->sm);
    sp->sm.metrics = sp->metsp;
    sp->sm.n_metrics = N_METRICS;
    sp->smp[0] = &sp->sm;
    opentelemetry__proto__metrics__v1__resource_metrics__init(&sp->rm);
    sp->rm.resource = &sp->res;
    sp->rm.scope_metrics = sp->smp;
    sp->rm.n_scope_metrics = 1;
    sp->rmp[0] = &sp->rm;
    opentelemetry__proto__collector__metrics__v1__export_metrics_service_request__init(&sp->req);
    sp->req.resource_metrics = sp->rmp;
    sp->req.n_resource_metrics = 1;
}

/* Times and values at e_ns, then packs. Returns the packed length or 0. */
static size_t fill(struct demo_spine *sp, int64_t e_ns)
{
    uint64_t t = (uint64_t)demo_wall_ns(sp->run, e_ns);
    size_t k = 0;
    for (size_t m = 0; m < N_METRICS; m++) {
        unsigned ntc = metrics[m].sub != SUB_NONE ? DEMO_SPINE_TCS : 1;
        for (unsigned p = 0; p < DEMO_SPINE_PORTS; p++)
            for (unsigned tc = 0; tc < ntc; tc++, k++) {
                sp->pts[k].time_unix_nano = t;
                sp->pts[k].as_double = value_at(sp, metrics[m].kind, p, tc, e_ns);
            }
    }
    size_t len =
        opentelemetry__proto__collector__metrics__v1__export_metrics_service_request__get_packed_size(
            &sp->req);
    if (len > sp->buf_cap) {
        uint8_t *nb = realloc(sp->buf, len);
        if (!nb)
            return 0;
        sp->buf = nb;
        sp->buf_cap = len;
    }
    return opentelemetry__proto__collector__metrics__v1__export_metrics_service_request__pack(
        &sp->req, sp->buf);
}

static gpr_timespec in_ms(int64_t ms)
{
    return gpr_time_add(gpr_now(GPR_CLOCK_MONOTONIC), gpr_time_from_millis(ms, GPR_TIMESPAN));
}

/* One unary Export; returns the gRPC status (or -1 when it could not start). */
static int export_once(grpc_channel *ch, grpc_completion_queue *cq, const uint8_t *body, size_t len)
{
    grpc_slice method = grpc_slice_from_static_string(
        "/opentelemetry.proto.collector.metrics.v1.MetricsService/Export");
    grpc_call *call = grpc_channel_create_call(ch, NULL, GRPC_PROPAGATE_DEFAULTS, cq, method, NULL,
                                               in_ms(CALL_DEADLINE_MS), NULL);
    if (!call)
        return -1;
    grpc_slice sl = grpc_slice_from_copied_buffer((const char *)body, len);
    grpc_byte_buffer *send = grpc_raw_byte_buffer_create(&sl, 1);
    grpc_slice_unref(sl);
    grpc_byte_buffer *recv = NULL;
    grpc_metadata_array md_init, md_trail;
    grpc_metadata_array_init(&md_init);
    grpc_metadata_array_init(&md_trail);
    grpc_status_code status = GRPC_STATUS_UNKNOWN;
    grpc_slice details = grpc_empty_slice();
    grpc_op ops[6];
    memset(ops, 0, sizeof(ops));
    ops[0].op = GRPC_OP_SEND_INITIAL_METADATA;
    ops[1].op = GRPC_OP_SEND_MESSAGE;
    ops[1].data.send_message.send_message = send;
    ops[2].op = GRPC_OP_SEND_CLOSE_FROM_CLIENT;
    ops[3].op = GRPC_OP_RECV_INITIAL_METADATA;
    ops[3].data.recv_initial_metadata.recv_initial_metadata = &md_init;
    ops[4].op = GRPC_OP_RECV_MESSAGE;
    ops[4].data.recv_message.recv_message = &recv;
    ops[5].op = GRPC_OP_RECV_STATUS_ON_CLIENT;
    ops[5].data.recv_status_on_client.trailing_metadata = &md_trail;
    ops[5].data.recv_status_on_client.status = &status;
    ops[5].data.recv_status_on_client.status_details = &details;
    int rc = -1;
    if (grpc_call_start_batch(call, ops, 6, call, NULL) == GRPC_CALL_OK) {
        /* The call's deadline ends it; the extra second covers the wakeup. */
        for (int i = 0; i < 10; i++) {
            grpc_event ev = grpc_completion_queue_next(cq, in_ms(CALL_DEADLINE_MS / 2 + 500), NULL);
            if (ev.type == GRPC_OP_COMPLETE && ev.tag == call) {
                rc = (int)status;
                break;
            }
        }
        if (rc == -1) /* never completed (cannot happen with a deadline): cancel and drain */
            grpc_call_cancel(call, NULL);
    }
    grpc_byte_buffer_destroy(send);
    if (recv)
        grpc_byte_buffer_destroy(recv);
    grpc_metadata_array_destroy(&md_init);
    grpc_metadata_array_destroy(&md_trail);
    grpc_slice_unref(details);
    grpc_call_unref(call);
    return rc;
}

static void note_status(struct demo_spine *sp, int status)
{
    if (status == GRPC_STATUS_OK)
        sp->ok++;
    else
        sp->failed++;
    if (status == sp->last_status)
        return;
    if (status == GRPC_STATUS_OK)
        fsc_log(FSC_LOG_INFO, "demo_spine_exporting", "device=%s port=%u", DEMO_SPINE_NAME,
                (unsigned)sp->run->otlp_port);
    else
        fsc_log(FSC_LOG_WARN, "demo_spine_export_failed", "device=%s port=%u grpc_status=%d",
                DEMO_SPINE_NAME, (unsigned)sp->run->otlp_port, status);
    sp->last_status = status;
}

static void *spine_main(void *arg)
{
    struct demo_spine *sp = arg;
    struct demo_run *run = sp->run;
    char target[32];
    snprintf(target, sizeof(target), "ipv4:127.0.0.1:%u", (unsigned)run->otlp_port);
    /* Reconnect quickly: the receiver comes up a moment after this thread. */
    grpc_arg args[] = {
        {.type = GRPC_ARG_INTEGER,
         .key = GRPC_ARG_INITIAL_RECONNECT_BACKOFF_MS,
         .value.integer = 100},
        {.type = GRPC_ARG_INTEGER, .key = GRPC_ARG_MAX_RECONNECT_BACKOFF_MS, .value.integer = 1000},
    };
    grpc_channel_args cargs = {.num_args = sizeof(args) / sizeof(args[0]), .args = args};
    grpc_channel_credentials *creds = grpc_insecure_credentials_create();
    grpc_channel *ch = grpc_channel_create(target, creds, &cargs);
    grpc_channel_credentials_release(creds);
    grpc_completion_queue *cq = grpc_completion_queue_create_for_next(NULL);

    for (int64_t k = 1; !atomic_load(&run->stop); k++) {
        int64_t jitter = (int64_t)(rng_next(sp) % (2 * JITTER_NS + 1)) - JITTER_NS;
        if (!demo_sleep_until(run, k * DEMO_S + jitter))
            break;
        if (!atomic_load(&run->ready))
            continue; /* the collector is not up yet: nothing would listen */
        /* Whole microseconds: the values are integrals to the microsecond
         * (demo_integral_us), and their time must be exactly theirs. */
        int64_t e = demo_elapsed_ns(run) / 1000 * 1000;
        size_t len = fill(sp, e);
        if (len == 0) {
            note_status(sp, GRPC_STATUS_RESOURCE_EXHAUSTED);
            continue;
        }
        sp->sent++;
        note_status(sp, export_once(ch, cq, sp->buf, len));
    }

    grpc_channel_destroy(ch);
    grpc_completion_queue_shutdown(cq);
    for (int i = 0; i < 100; i++)
        if (grpc_completion_queue_next(cq, in_ms(50), NULL).type == GRPC_QUEUE_SHUTDOWN)
            break;
    grpc_completion_queue_destroy(cq);
    return NULL;
}

struct demo_spine *demo_spine_start(struct demo_run *run, char *err, size_t errlen)
{
    struct demo_spine *sp = calloc(1, sizeof(*sp));
    if (!sp) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    sp->run = run;
    sp->rng = run->opt.seed * 0x9e3779b97f4a7c15ULL + 0x5eed;
    sp->last_status = -2; /* none yet: the first answer is logged */
    for (unsigned p = 0; p < DEMO_SPINE_PORTS; p++) {
        /* 8 to 12 % of 400G: spine traffic is the exception in a rail-optimized
         * fabric (NCCL_CROSS_NIC=0), so the spine runs well below the leaves;
         * the burst port is a loaded one, under the microburst detector's
         * fall line (engine.microburst.fall, 0.5) so that its bursts end. */
        uint64_t base = DEMO_LINE_BYTES_PER_S / 100;
        sp->in_rate[p] = base * (8 + (run->opt.seed + p * 3) % 5);
        sp->out_rate[p] = base * (8 + (run->opt.seed + p * 7 + 2) % 5);
        if (p + 1 == DEMO_SPINE_BURST_PORT)
            sp->in_rate[p] = sp->out_rate[p] = base * DEMO_SPINE_LOAD_PCT;
    }
    build(sp);
    if (pthread_create(&sp->thread, NULL, spine_main, sp) != 0) {
        snprintf(err, errlen, "cannot start the spine's OTLP sender thread");
        free(sp);
        return NULL;
    }
    sp->started = true;
    return sp;
}

void demo_spine_stop(struct demo_spine *sp)
{
    if (!sp)
        return;
    if (sp->started)
        pthread_join(sp->thread, NULL);
    fsc_log(FSC_LOG_INFO, "demo_spine_stopped", "device=%s exports=%llu ok=%llu failed=%llu",
            DEMO_SPINE_NAME, (unsigned long long)sp->sent, (unsigned long long)sp->ok,
            (unsigned long long)sp->failed);
    free(sp->buf);
    free(sp);
}
