/* gnmi_sim_probe: the minimal gNMI client of the simulator's smoke test.
 *
 * Subscribes (STREAM, SAMPLE, PROTO), receives the initial dump, the
 * sync_response and N more updates, decodes every message with the
 * collector's decoder (fsc_gnmi_decode) and, independently, with protobuf-c,
 * and checks:
 *   - the dump has exactly ports x sensors messages of exactly the --sensors
 *     asked for, then one sync_response;
 *   - every message decodes, carries the Junos header with its sensor's
 *     streamed_path, has no sequence gap (numbered per sensor), and yields
 *     one sample per update, as many updates as its sensor has leaves;
 *   - for --port K: the interfaces, ethernet and qos counters equal the
 *     formulas of gnmi_sim.h evaluated at (value time - stream_creation_
 *     timestamp), computed from the CLI (--rate, --packet-size, --queues,
 *     --batch-copy, --burst-*) rather than from the simulator's model code
 *     (gnmi_sim_probe_check.c), and the sample time is the header's
 *     payload_get_timestamp.
 * Or, with --expect-status CODE, that the call ends with that gRPC status.
 * Every wait is bounded by --timeout. Exit 0 = all checks passed. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <grpc/byte_buffer.h>
#include <grpc/byte_buffer_reader.h>
#include <grpc/grpc.h>
#include <grpc/grpc_security.h>
#include <grpc/slice.h>
#include <grpc/support/alloc.h>
#include <grpc/support/time.h>

#include "gnmi_ext.pb-c.h"
#include "gnmi_sim_probe.h"
#include "junos_telemetry_header.pb-c.h"

static int64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static gpr_timespec deadline_ms(long long ms)
{
    return gpr_time_add(gpr_now(GPR_CLOCK_MONOTONIC), gpr_time_from_millis(ms, GPR_TIMESPAN));
}

static unsigned popcount(unsigned v)
{
    unsigned n = 0;
    for (; v; v &= v - 1)
        n++;
    return n;
}

/* Checks one update message through the independent protobuf-c view: its
 * sensor, header and update count; the known-answer values for --port. */
static void check_update(struct probe *p, const struct fsc_gnmi_result *res, const uint8_t *buf,
                         size_t len)
{
    Gnmi__SubscribeResponse *rsp = gnmi__subscribe_response__unpack(NULL, len, buf);
    if (!rsp || rsp->response_case != GNMI__SUBSCRIBE_RESPONSE__RESPONSE_UPDATE ||
        rsp->n_extension != 1 || !rsp->extension[0]->registered_ext) {
        FAIL(p, "protobuf-c: not an update with one registered extension");
        gnmi__subscribe_response__free_unpacked(rsp, NULL);
        return;
    }
    const ProtobufCBinaryData *hb = &rsp->extension[0]->registered_ext->msg;
    JunosTelemetry__GnmiJuniperTelemetryHeaderExtension *hdr =
        junos_telemetry__gnmi_juniper_telemetry_header_extension__unpack(NULL, hb->len, hb->data);
    const char *port;
    unsigned sensor = probe_sensor_of(rsp->update->prefix, &port);
    if (!sensor || !port || !hdr) {
        FAIL(p, "message of an unknown sensor, without a port key or without a header");
    } else {
        if (!p->sync_seen)
            p->dump_sensors |= sensor;
        if (!hdr->streamed_path || strcmp(hdr->streamed_path, probe_streamed_path(sensor)) != 0)
            FAIL(p, "header streamed_path %s, want %s",
                 hdr->streamed_path ? hdr->streamed_path : "", probe_streamed_path(sensor));
        if ((sensor & PROBE_NUMERIC) && res->n_samples != res->updates)
            FAIL(p, "%s message: %u samples of %u updates", probe_streamed_path(sensor),
                 res->n_samples, res->updates);
        if (res->updates != probe_sensor_updates(sensor, p->o.queues))
            FAIL(p, "%s message has %u updates, want %u", probe_streamed_path(sensor), res->updates,
                 probe_sensor_updates(sensor, p->o.queues));
        if (rsp->update->timestamp != hdr->payload_get_timestamp * 1000000)
            FAIL(p, "Notification.timestamp %lld != header %lld ms",
                 (long long)rsp->update->timestamp, (long long)hdr->payload_get_timestamp);
        char want_if[32];
        snprintf(want_if, sizeof(want_if), "et-0/0/%u", p->o.port);
        if (strcmp(port, want_if) == 0)
            probe_check_port(p, sensor, res, hdr->payload_get_timestamp,
                             hdr->stream_creation_timestamp);
    }
    junos_telemetry__gnmi_juniper_telemetry_header_extension__free_unpacked(hdr, NULL);
    gnmi__subscribe_response__free_unpacked(rsp, NULL);
}

/* One SubscribeResponse. Returns 1 when the probe has seen enough. */
static int on_message(struct probe *p, const uint8_t *buf, size_t len)
{
    struct fsc_gnmi_result res;
    if (fsc_gnmi_decode(p->dec, buf, len, now_ns(), p->smp, 128, &res) != 0) {
        FAIL(p, "fsc_gnmi_decode rejected a message of %zu bytes", len);
        return 1;
    }
    if (res.sync_response) {
        if (p->sync_seen++)
            FAIL(p, "second sync_response");
        unsigned want = p->o.ports * popcount(p->o.sensors);
        if (p->dump != want || p->dump_sensors != p->o.sensors)
            FAIL(p, "dump had %u messages of sensors 0x%x, want %u of 0x%x", p->dump,
                 p->dump_sensors, want, p->o.sensors);
        return !p->o.once && p->updates >= p->o.updates;
    }
    if (!res.has_header || !res.header_time || res.seq_skipped || res.overflow || res.updates == 0)
        FAIL(p, "message: header=%u header_time=%u skipped=%u overflow=%u updates=%u",
             res.has_header, res.header_time, (unsigned)res.seq_skipped, res.overflow, res.updates);
    for (uint32_t i = 0; i < res.n_samples; i++) {
        fsc_series_id id = p->smp[i].series;
        const char *m = fsc_registry_metric(p->reg, id);
        p->resets += (p->smp[i].flags & FSC_SMP_RESET) != 0;
        if (m && strcmp(m, "fabric_port_queue_tail_drop_packets_total") == 0) {
            struct fsc_label lb[FSC_REGISTRY_MAX_LABELS];
            size_t n = fsc_registry_labels(p->reg, id, lb, FSC_REGISTRY_MAX_LABELS);
            unsigned have = 0;
            for (size_t k = 0; k < n && k < FSC_REGISTRY_MAX_LABELS; k++)
                have += strcmp(lb[k].name, "port") == 0 || strcmp(lb[k].name, "queue") == 0;
            p->qmon_mapped += have == 2;
        }
    }
    if (p->sync_seen)
        p->updates++;
    else
        p->dump++;
    check_update(p, &res, buf, len);
    /* ONCE reads on to the end of the stream: the target must close it. */
    return !p->o.once && p->sync_seen && p->updates >= p->o.updates;
}

static size_t add_elems(Gnmi__PathElem *pe, Gnmi__PathElem **pp, char *buf, size_t cap)
{
    size_t n = 0;
    char *save = NULL;
    for (char *tok = strtok_r(buf, "/", &save); tok && n < cap; tok = strtok_r(NULL, "/", &save)) {
        gnmi__path_elem__init(&pe[n]);
        pe[n].name = tok;
        pp[n] = &pe[n];
        n++;
    }
    return n;
}

#define MAX_PATHS 4 /* --path A,B,...: one subscription each (a planned stream) */

static grpc_byte_buffer *subscribe_request(const struct probe_opts *o)
{
    char text[MAX_PATHS][256];
    Gnmi__PathElem pe[MAX_PATHS][16];
    Gnmi__PathElem *pp[MAX_PATHS][16];
    Gnmi__Path path[MAX_PATHS];
    Gnmi__Subscription sub[MAX_PATHS];
    Gnmi__Subscription *subs[MAX_PATHS];
    char all[1024];
    snprintf(all, sizeof(all), "%s", o->path);
    size_t np = 0;
    char *save = NULL;
    for (char *tok = strtok_r(all, ",", &save); tok && np < MAX_PATHS;
         tok = strtok_r(NULL, ",", &save), np++) {
        snprintf(text[np], sizeof(text[np]), "%s", tok);
        gnmi__path__init(&path[np]);
        path[np].elem = pp[np];
        path[np].n_elem = add_elems(pe[np], pp[np], text[np], 16);
        gnmi__subscription__init(&sub[np]);
        sub[np].path = &path[np];
        sub[np].mode = GNMI__SUBSCRIPTION_MODE__SAMPLE;
        sub[np].sample_interval = (uint64_t)o->interval_ms * 1000000;
        subs[np] = &sub[np];
    }
    Gnmi__SubscriptionList sl = GNMI__SUBSCRIPTION_LIST__INIT;
    sl.subscription = subs;
    sl.n_subscription = np;
    sl.mode = o->once ? GNMI__SUBSCRIPTION_LIST__MODE__ONCE : GNMI__SUBSCRIPTION_LIST__MODE__STREAM;
    sl.encoding = GNMI__ENCODING__PROTO;
    Gnmi__SubscribeRequest req = GNMI__SUBSCRIBE_REQUEST__INIT;
    req.request_case = GNMI__SUBSCRIBE_REQUEST__REQUEST_SUBSCRIBE;
    req.subscribe = &sl;
    size_t n = gnmi__subscribe_request__get_packed_size(&req);
    uint8_t *buf = malloc(n ? n : 1);
    if (!buf)
        return NULL;
    n = gnmi__subscribe_request__pack(&req, buf);
    grpc_slice sl_bytes = grpc_slice_new(buf, n, free);
    grpc_byte_buffer *bb = grpc_raw_byte_buffer_create(&sl_bytes, 1);
    grpc_slice_unref(sl_bytes);
    return bb;
}

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    char *buf = malloc(65537);
    size_t n = buf ? fread(buf, 1, 65536, f) : 0;
    fclose(f);
    if (buf)
        buf[n] = '\0';
    return buf;
}

static grpc_channel *open_channel(const struct probe_opts *o)
{
    grpc_channel_credentials *creds;
    if (o->tls_ca) {
        char *ca = slurp(o->tls_ca);
        char *cert = o->tls_cert ? slurp(o->tls_cert) : NULL;
        char *key = o->tls_key ? slurp(o->tls_key) : NULL;
        grpc_ssl_pem_key_cert_pair pair = {key, cert};
        creds = grpc_ssl_credentials_create(ca, cert && key ? &pair : NULL, NULL, NULL);
        free(ca);
        free(cert);
        free(key);
    } else {
        creds = grpc_insecure_credentials_create();
    }
    if (!creds)
        return NULL;
    grpc_channel *ch = grpc_channel_create(o->target, creds, NULL);
    grpc_channel_credentials_release(creds);
    return ch;
}

/* Runs one call; *status_out gets its final status. */
static int run_call(struct probe *p, grpc_channel *ch, grpc_completion_queue *cq,
                    const char *method, grpc_byte_buffer *req, grpc_status_code *status_out)
{
    const struct probe_opts *o = &p->o;
    grpc_call *call = grpc_channel_create_call(
        ch, NULL, GRPC_PROPAGATE_DEFAULTS, cq, grpc_slice_from_static_string(method), NULL,
        gpr_time_add(gpr_now(GPR_CLOCK_REALTIME),
                     gpr_time_from_millis(o->timeout_ms, GPR_TIMESPAN)),
        NULL);
    grpc_metadata md[2];
    memset(md, 0, sizeof(md));
    size_t nmd = 0;
    if (o->username) {
        md[0].key = grpc_slice_from_static_string("username");
        md[0].value = grpc_slice_from_static_string(o->username);
        md[1].key = grpc_slice_from_static_string("password");
        md[1].value = grpc_slice_from_static_string(o->password ? o->password : "");
        nmd = 2;
    }
    grpc_metadata_array initial, trailing;
    grpc_metadata_array_init(&initial);
    grpc_metadata_array_init(&trailing);
    grpc_status_code status = GRPC_STATUS_UNKNOWN;
    grpc_slice details = grpc_empty_slice();
    grpc_op ops[4];
    memset(ops, 0, sizeof(ops));
    ops[0].op = GRPC_OP_SEND_INITIAL_METADATA;
    ops[0].data.send_initial_metadata.count = nmd;
    ops[0].data.send_initial_metadata.metadata = md;
    ops[1].op = GRPC_OP_SEND_MESSAGE;
    ops[1].data.send_message.send_message = req;
    ops[2].op = GRPC_OP_RECV_INITIAL_METADATA;
    ops[2].data.recv_initial_metadata.recv_initial_metadata = &initial;
    int tag_start, tag_status, tag_recv;
    grpc_call_start_batch(call, ops, 3, &tag_start, NULL);
    memset(ops, 0, sizeof(ops));
    ops[0].op = GRPC_OP_RECV_STATUS_ON_CLIENT;
    ops[0].data.recv_status_on_client.trailing_metadata = &trailing;
    ops[0].data.recv_status_on_client.status = &status;
    ops[0].data.recv_status_on_client.status_details = &details;
    grpc_call_start_batch(call, ops, 1, &tag_status, NULL);
    grpc_completion_queue_pluck(cq, &tag_start, deadline_ms(o->timeout_ms + 1000), NULL);

    int caps = strcmp(method, "/gnmi.gNMI/Capabilities") == 0;
    unsigned max_msgs = 100000; /* bound on the loop whatever the server does */
    for (unsigned i = 0; i < max_msgs; i++) {
        grpc_byte_buffer *bb = NULL;
        memset(ops, 0, sizeof(ops));
        ops[0].op = GRPC_OP_RECV_MESSAGE;
        ops[0].data.recv_message.recv_message = &bb;
        grpc_call_start_batch(call, ops, 1, &tag_recv, NULL);
        grpc_event ev =
            grpc_completion_queue_pluck(cq, &tag_recv, deadline_ms(o->timeout_ms + 1000), NULL);
        if (ev.type != GRPC_OP_COMPLETE || !bb)
            break; /* stream over: the status tells why */
        grpc_byte_buffer_reader rd;
        grpc_byte_buffer_reader_init(&rd, bb);
        grpc_slice s = grpc_byte_buffer_reader_readall(&rd);
        grpc_byte_buffer_reader_destroy(&rd);
        grpc_byte_buffer_destroy(bb);
        int done;
        if (caps) {
            Gnmi__CapabilityResponse *cr = gnmi__capability_response__unpack(
                NULL, GRPC_SLICE_LENGTH(s), GRPC_SLICE_START_PTR(s));
            int proto = 0;
            for (size_t k = 0; cr && k < cr->n_supported_encodings; k++)
                proto |= cr->supported_encodings[k] == GNMI__ENCODING__PROTO;
            if (!cr || !proto || cr->n_supported_models == 0)
                FAIL(p, "CapabilityResponse without PROTO or models");
            else
                printf("probe: capabilities models=%zu gnmi_version=%s\n", cr->n_supported_models,
                       cr->gnmi_version);
            gnmi__capability_response__free_unpacked(cr, NULL);
            done = 0; /* unary: read on to the end of the stream and its status */
        } else {
            done = on_message(p, GRPC_SLICE_START_PTR(s), GRPC_SLICE_LENGTH(s));
        }
        grpc_slice_unref(s);
        if (done)
            break;
    }
    grpc_call_cancel(call, NULL); /* no-op when the call is already over */
    grpc_completion_queue_pluck(cq, &tag_status, deadline_ms(o->timeout_ms + 2000), NULL);
    *status_out = status;
    if (status != GRPC_STATUS_OK && status != GRPC_STATUS_CANCELLED) {
        char *d = grpc_slice_to_c_string(details);
        fprintf(stderr, "probe: %s status=%d details=%s\n", method, (int)status, d);
        gpr_free(d);
    }
    grpc_slice_unref(details);
    grpc_metadata_array_destroy(&initial);
    grpc_metadata_array_destroy(&trailing);
    grpc_call_unref(call);
    return 0;
}

static void usage(void)
{
    printf("usage: gnmi_sim_probe --target HOST:PORT [--path /a/b[,/c/d]] [--interval-ms N]\n"
           "  [--updates N] [--ports N] [--queues N]\n"
           "  [--sensors if,eth,qos,qmon,fec,speed|all|none]\n"
           "  [--port K] [--rate BYTES_PER_S]\n"
           "  [--packet-size B] [--batch-copy-ms N] [--burst-every-ms N --burst-length-ms N]\n"
           "  [--timeout-ms N] [--username U]\n"
           "  [--password P] [--tls-ca F [--tls-cert F --tls-key F]] [--capabilities]\n"
           "  [--expect-status CODE] [--expect-reset] [--once]\n");
}

static int parse(int argc, char **argv, struct probe_opts *o)
{
    *o = (struct probe_opts){.path = "/interfaces",
                             .ports = 4,
                             .sensors = PROBE_IF | PROBE_ETH | PROBE_SPEED, /* /interfaces */
                             .queues = 4,
                             .packet_size = 4096,
                             .updates = 5,
                             .interval_ms = 100,
                             .timeout_ms = 15000,
                             .expect_status = -1};
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--capabilities") == 0) {
            o->capabilities = 1;
            continue;
        }
        if (strcmp(a, "--expect-reset") == 0) {
            o->expect_reset = 1;
            continue;
        }
        if (strcmp(a, "--once") == 0) {
            o->once = 1;
            continue;
        }
        if (strcmp(a, "--help") == 0 || i + 1 >= argc) {
            usage();
            return -1;
        }
        const char *v = argv[++i];
        if (strcmp(a, "--target") == 0)
            o->target = v;
        else if (strcmp(a, "--path") == 0)
            o->path = v;
        else if (strcmp(a, "--username") == 0)
            o->username = v;
        else if (strcmp(a, "--password") == 0)
            o->password = v;
        else if (strcmp(a, "--tls-ca") == 0)
            o->tls_ca = v;
        else if (strcmp(a, "--tls-cert") == 0)
            o->tls_cert = v;
        else if (strcmp(a, "--tls-key") == 0)
            o->tls_key = v;
        else if (strcmp(a, "--ports") == 0)
            o->ports = (unsigned)strtoul(v, NULL, 10);
        else if (strcmp(a, "--sensors") == 0) {
            if (probe_sensors_parse(v, &o->sensors) != 0) {
                usage();
                return -1;
            }
        } else if (strcmp(a, "--queues") == 0)
            o->queues = (unsigned)strtoul(v, NULL, 10);
        else if (strcmp(a, "--port") == 0)
            o->port = (unsigned)strtoul(v, NULL, 10);
        else if (strcmp(a, "--updates") == 0)
            o->updates = (unsigned)strtoul(v, NULL, 10);
        else if (strcmp(a, "--packet-size") == 0)
            o->packet_size = (unsigned)strtoul(v, NULL, 10);
        else if (strcmp(a, "--rate") == 0)
            o->rate = strtoull(v, NULL, 10);
        else if (strcmp(a, "--interval-ms") == 0)
            o->interval_ms = strtoll(v, NULL, 10);
        else if (strcmp(a, "--batch-copy-ms") == 0)
            o->batch_copy_ms = strtoll(v, NULL, 10);
        else if (strcmp(a, "--burst-every-ms") == 0)
            o->burst_every_ms = strtoll(v, NULL, 10);
        else if (strcmp(a, "--burst-length-ms") == 0)
            o->burst_length_ms = strtoll(v, NULL, 10);
        else if (strcmp(a, "--timeout-ms") == 0)
            o->timeout_ms = strtoll(v, NULL, 10);
        else if (strcmp(a, "--expect-status") == 0)
            o->expect_status = atoi(v);
        else {
            usage();
            return -1;
        }
    }
    if (!o->target || o->packet_size == 0 || o->timeout_ms <= 0) {
        usage();
        return -1;
    }
    return 0;
}

int main(int argc, char **argv)
{
    struct probe p;
    memset(&p, 0, sizeof(p));
    if (parse(argc, argv, &p.o) != 0)
        return 2;
    char err[256];
    p.reg = fsc_registry_create(100000);
    struct fsc_source_env env = {.reg = p.reg};
    if (!p.reg || fsc_registry_source_add(p.reg, "sim", 0, &env.source_id) != 0)
        return 1;
    struct fsc_gnmi_decode_config dcfg = {.device = "sim",
                                          .sample_interval_ns = p.o.interval_ms * 1000000};
    p.dec = fsc_gnmi_decoder_create(&dcfg, &env, err, sizeof(err));
    if (!p.dec) {
        fprintf(stderr, "probe: %s\n", err);
        return 1;
    }
    grpc_init();
    grpc_channel *ch = open_channel(&p.o);
    grpc_completion_queue *cq = grpc_completion_queue_create_for_pluck(NULL);
    grpc_status_code st = GRPC_STATUS_UNKNOWN;
    if (!ch) {
        FAIL(&p, "cannot create the channel");
    } else {
        if (p.o.capabilities) {
            Gnmi__CapabilityRequest cr = GNMI__CAPABILITY_REQUEST__INIT;
            uint8_t cbuf[16];
            size_t n = gnmi__capability_request__pack(&cr, cbuf);
            grpc_slice s = grpc_slice_from_copied_buffer((const char *)cbuf, n);
            grpc_byte_buffer *bb = grpc_raw_byte_buffer_create(&s, 1);
            grpc_slice_unref(s);
            run_call(&p, ch, cq, "/gnmi.gNMI/Capabilities", bb, &st);
            grpc_byte_buffer_destroy(bb);
            if (st != GRPC_STATUS_OK && p.o.expect_status < 0)
                FAIL(&p, "Capabilities status %d", (int)st);
        }
        grpc_byte_buffer *req = subscribe_request(&p.o);
        run_call(&p, ch, cq, "/gnmi.gNMI/Subscribe", req, &st);
        grpc_byte_buffer_destroy(req);
        if (p.o.once) {
            if (st != GRPC_STATUS_OK || !p.sync_seen || p.updates != 0 ||
                p.checked != popcount(p.o.sensors & PROBE_CHECKED))
                FAIL(&p, "ONCE: status=%d sync=%u updates after sync=%u checked=%u", (int)st,
                     p.sync_seen, p.updates, p.checked);
        } else if (p.o.expect_status >= 0) {
            if ((int)st != p.o.expect_status)
                FAIL(&p, "Subscribe ended with status %d, want %d", (int)st, p.o.expect_status);
        } else {
            if (!p.sync_seen || p.updates < p.o.updates)
                FAIL(&p, "stream ended early: dump=%u sync=%u updates=%u", p.dump, p.sync_seen,
                     p.updates);
            for (int k = 0; k < PROBE_SENSORS; k++) {
                unsigned bit = 1u << k;
                if ((p.o.sensors & bit & PROBE_CHECKED) && p.checked_by[k] == 0)
                    FAIL(&p, "port et-0/0/%u was never checked for %s", p.o.port,
                         probe_streamed_path(bit));
            }
        }
        if ((p.o.sensors & PROBE_QMON) && p.qmon_mapped == 0)
            FAIL(&p, "no qmon-sw tail drop sample with port and queue labels");
        if (p.o.expect_reset && p.resets == 0)
            FAIL(&p, "no sample was flagged as a reset");
        grpc_channel_destroy(ch);
    }
    grpc_completion_queue_shutdown(cq);
    for (int i = 0; i < 100; i++) {
        if (grpc_completion_queue_pluck(cq, NULL, deadline_ms(10), NULL).type ==
            GRPC_QUEUE_SHUTDOWN)
            break;
    }
    grpc_completion_queue_destroy(cq);
    grpc_shutdown();
    printf("probe: %s dump=%u sync=%u updates=%u checked=%u resets=%u status=%d\n",
           p.failed ? "FAIL" : "ok", p.dump, p.sync_seen, p.updates, p.checked, p.resets, (int)st);
    fsc_gnmi_decoder_destroy(p.dec);
    fsc_registry_destroy(p.reg);
    return p.failed ? 1 : 0;
}
