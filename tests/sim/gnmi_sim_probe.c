/* gnmi_sim_probe: the minimal gNMI client of the simulator's smoke test.
 *
 * Subscribes (STREAM, SAMPLE, PROTO), receives the initial dump, the
 * sync_response and N more updates, decodes every message with the
 * collector's decoder (fsc_gnmi_decode) and, independently, with protobuf-c,
 * and checks:
 *   - the dump has exactly ports x sensors messages, then one sync_response;
 *   - every message decodes, carries the Junos header, has no sequence gap,
 *     and yields one sample per update;
 *   - for --port K: rx/tx bytes and rx packets equal the expected integral
 *     rate * (value time - stream_creation_timestamp), computed here from the
 *     CLI (--rate, --packet-size, --batch-copy) rather than from the
 *     simulator's model code, and the sample time is the header's
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

#include "core/registry.h"
#include "gnmi/gnmi_decode.h"
#include "gnmi.pb-c.h"
#include "gnmi_ext.pb-c.h"
#include "junos_telemetry_header.pb-c.h"

struct probe_opts {
    const char *target, *path, *username, *password, *tls_ca, *tls_cert, *tls_key;
    unsigned ports, sensors, port, packet_size, updates;
    unsigned long long rate; /* bytes/s outside bursts */
    long long interval_ms, batch_copy_ms, timeout_ms;
    long long burst_every_ms, burst_length_ms; /* bursts on --port (line rate) */
    int expect_status;                         /* -1: expect a healthy stream */
    int expect_reset;                          /* at least one FSC_SMP_RESET sample */
    int capabilities;
    int once; /* mode ONCE: dump, sync_response, then status OK from the target */
};

struct probe {
    struct probe_opts o;
    struct fsc_registry *reg;
    struct fsc_gnmi_decoder *dec;
    struct fsc_sample smp[128];
    unsigned dump, updates, checked, resets, sync_seen;
    unsigned qmon_mapped; /* qmon-sw samples the junos profile mapped, with port + queue */
    int failed;
};

static int64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

#define FAIL(p, ...)                                                                               \
    do {                                                                                           \
        fprintf(stderr, "probe: FAIL: " __VA_ARGS__);                                              \
        fputc('\n', stderr);                                                                       \
        (p)->failed = 1;                                                                           \
    } while (0)

static gpr_timespec deadline_ms(long long ms)
{
    return gpr_time_add(gpr_now(GPR_CLOCK_MONOTONIC), gpr_time_from_millis(ms, GPR_TIMESPAN));
}

static uint64_t integral(uint64_t rate, uint64_t ms)
{
    return rate * (ms / 1000) + rate * (ms % 1000) / 1000;
}

static const char *label(const struct fsc_registry *reg, fsc_series_id id, const char *name)
{
    struct fsc_label lb[FSC_REGISTRY_MAX_LABELS];
    size_t n = fsc_registry_labels(reg, id, lb, FSC_REGISTRY_MAX_LABELS);
    for (size_t i = 0; i < n && i < FSC_REGISTRY_MAX_LABELS; i++) {
        if (strcmp(lb[i].name, name) == 0)
            return lb[i].value;
    }
    return "";
}

/* The known-answer check of one interface message of --port. */
static void check_port(struct probe *p, const struct fsc_gnmi_result *res, int64_t payload_ms,
                       int64_t epoch_ms)
{
    int64_t vt = payload_ms;
    if (p->o.batch_copy_ms > 0)
        vt = epoch_ms + (payload_ms - epoch_ms) / p->o.batch_copy_ms * p->o.batch_copy_ms;
    uint64_t e = (uint64_t)(vt - epoch_ms);
    uint64_t octets = integral(p->o.rate, e);
    if (p->o.burst_every_ms > 0) {
        /* Bursts fill [k*every, k*every + length), k >= 1, at 400G = 5e10 B/s. */
        uint64_t every = (uint64_t)p->o.burst_every_ms, blen = (uint64_t)p->o.burst_length_ms;
        uint64_t n = e / every, r = e % every;
        uint64_t in_bursts = n ? (n - 1) * blen + (r < blen ? r : blen) : 0;
        octets += integral(50000000000ULL - p->o.rate, in_bursts);
    }
    uint64_t pkts = octets / p->o.packet_size;
    unsigned hits = 0;
    for (uint32_t i = 0; i < res->n_samples; i++) {
        const struct fsc_sample *s = &p->smp[i];
        const char *m = fsc_registry_metric(p->reg, s->series);
        uint64_t want;
        if (!m)
            continue;
        if (strcmp(m, "fabric_port_rx_bytes_total") == 0 ||
            strcmp(m, "fabric_port_tx_bytes_total") == 0)
            want = octets;
        else if (strcmp(m, "fabric_port_rx_packets_total") == 0)
            want = pkts;
        else
            continue;
        hits++;
        if (s->v.u != want)
            FAIL(p, "%s port=%s value=%llu want=%llu (payload=%lld epoch=%lld)", m,
                 label(p->reg, s->series, "port"), (unsigned long long)s->v.u,
                 (unsigned long long)want, (long long)payload_ms, (long long)epoch_ms);
        if (s->t_dev_ns != payload_ms * 1000000)
            FAIL(p, "%s t_dev_ns=%lld, header payload ms=%lld", m, (long long)s->t_dev_ns,
                 (long long)payload_ms);
    }
    if (hits != 3)
        FAIL(p, "port message gave %u of the 3 checked series", hits);
    p->checked++;
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
        if (p->dump != p->o.ports * p->o.sensors)
            FAIL(p, "dump had %u messages, want %u", p->dump, p->o.ports * p->o.sensors);
        return 0;
    }
    if (!res.has_header || !res.header_time || res.seq_gaps || res.overflow ||
        res.n_samples != res.updates || res.updates < 16)
        FAIL(p, "message: header=%u header_time=%u gaps=%u overflow=%u samples=%u updates=%u",
             res.has_header, res.header_time, res.seq_gaps, res.overflow, res.n_samples,
             res.updates);
    for (uint32_t i = 0; i < res.n_samples; i++) {
        fsc_series_id id = p->smp[i].series;
        const char *m = fsc_registry_metric(p->reg, id);
        p->resets += (p->smp[i].flags & FSC_SMP_RESET) != 0;
        if (m && strcmp(m, "fabric_port_queue_tail_drop_packets_total") == 0 &&
            label(p->reg, id, "port")[0] && label(p->reg, id, "queue")[0])
            p->qmon_mapped++;
    }
    if (p->sync_seen)
        p->updates++;
    else
        p->dump++;

    /* Independent view through protobuf-c: port, payload and epoch. */
    Gnmi__SubscribeResponse *rsp = gnmi__subscribe_response__unpack(NULL, len, buf);
    if (!rsp || rsp->response_case != GNMI__SUBSCRIBE_RESPONSE__RESPONSE_UPDATE ||
        rsp->n_extension != 1 || !rsp->extension[0]->registered_ext) {
        FAIL(p, "protobuf-c: not an update with one registered extension");
        gnmi__subscribe_response__free_unpacked(rsp, NULL);
        return 1;
    }
    const ProtobufCBinaryData *hb = &rsp->extension[0]->registered_ext->msg;
    JunosTelemetry__GnmiJuniperTelemetryHeaderExtension *hdr =
        junos_telemetry__gnmi_juniper_telemetry_header_extension__unpack(NULL, hb->len, hb->data);
    const Gnmi__Path *pre = rsp->update->prefix;
    char want_if[32];
    snprintf(want_if, sizeof(want_if), "et-0/0/%u", p->o.port);
    if (hdr && pre && pre->n_elem >= 2 && strcmp(pre->elem[0]->name, "interfaces") == 0 &&
        pre->elem[1]->n_key == 1 && strcmp(pre->elem[1]->key[0]->value, want_if) == 0) {
        if (rsp->update->timestamp != hdr->payload_get_timestamp * 1000000)
            FAIL(p, "Notification.timestamp %lld != header %lld ms",
                 (long long)rsp->update->timestamp, (long long)hdr->payload_get_timestamp);
        check_port(p, &res, hdr->payload_get_timestamp, hdr->stream_creation_timestamp);
    }
    junos_telemetry__gnmi_juniper_telemetry_header_extension__free_unpacked(hdr, NULL);
    gnmi__subscribe_response__free_unpacked(rsp, NULL);
    /* ONCE reads on to the end of the stream: the target must close it. */
    return !p->o.once && p->sync_seen && p->updates >= p->o.updates;
}

static size_t add_elems(Gnmi__PathElem *pe, Gnmi__PathElem **pp, char *buf, size_t cap)
{
    size_t n = 0;
    for (char *tok = strtok(buf, "/"); tok && n < cap; tok = strtok(NULL, "/")) {
        gnmi__path_elem__init(&pe[n]);
        pe[n].name = tok;
        pp[n] = &pe[n];
        n++;
    }
    return n;
}

static grpc_byte_buffer *subscribe_request(const struct probe_opts *o)
{
    char text[256];
    snprintf(text, sizeof(text), "%s", o->path);
    Gnmi__PathElem pe[16];
    Gnmi__PathElem *pp[16];
    Gnmi__Path path = GNMI__PATH__INIT;
    path.elem = pp;
    path.n_elem = add_elems(pe, pp, text, 16);
    Gnmi__Subscription sub = GNMI__SUBSCRIPTION__INIT;
    sub.path = &path;
    sub.mode = GNMI__SUBSCRIPTION_MODE__SAMPLE;
    sub.sample_interval = (uint64_t)o->interval_ms * 1000000;
    Gnmi__Subscription *subs[1] = {&sub};
    Gnmi__SubscriptionList sl = GNMI__SUBSCRIPTION_LIST__INIT;
    sl.subscription = subs;
    sl.n_subscription = 1;
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
    printf("usage: gnmi_sim_probe --target HOST:PORT [--path /interfaces] [--interval-ms N]\n"
           "  [--updates N] [--ports N] [--sensors N] [--port K] [--rate BYTES_PER_S]\n"
           "  [--packet-size B] [--batch-copy-ms N] [--burst-every-ms N --burst-length-ms N]\n"
           "  [--timeout-ms N] [--username U]\n"
           "  [--password P] [--tls-ca F [--tls-cert F --tls-key F]] [--capabilities]\n"
           "  [--expect-status CODE] [--expect-reset] [--once]\n");
}

static int parse(int argc, char **argv, struct probe_opts *o)
{
    *o = (struct probe_opts){.path = "/interfaces",
                             .ports = 4,
                             .sensors = 1,
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
        else if (strcmp(a, "--sensors") == 0)
            o->sensors = (unsigned)strtoul(v, NULL, 10);
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
            if (st != GRPC_STATUS_OK || !p.sync_seen || p.updates != 0 || p.checked != 1)
                FAIL(&p, "ONCE: status=%d sync=%u updates after sync=%u checked=%u", (int)st,
                     p.sync_seen, p.updates, p.checked);
        } else if (p.o.expect_status >= 0) {
            if ((int)st != p.o.expect_status)
                FAIL(&p, "Subscribe ended with status %d, want %d", (int)st, p.o.expect_status);
        } else {
            if (!p.sync_seen || p.updates < p.o.updates)
                FAIL(&p, "stream ended early: dump=%u sync=%u updates=%u", p.dump, p.sync_seen,
                     p.updates);
            if (p.checked == 0)
                FAIL(&p, "port et-0/0/%u was never checked", p.o.port);
        }
        if (p.o.sensors >= 2 && p.qmon_mapped == 0)
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
