/* OTLP/gRPC transport end to end: a real `otlp` source on 127.0.0.1 port 0
 * and a gRPC C-core client in the test calling the Export method path.
 * Known answers: status codes and details, the exact response bytes, the
 * series value in the engine, the transport counters. Every call has a 10 s
 * deadline; nothing asserts on durations. */
#include <grpc/byte_buffer.h>
#include <grpc/byte_buffer_reader.h>
#include <grpc/compression.h>
#include <grpc/grpc.h>
#include <grpc/grpc_security.h>
#include <grpc/slice.h>
#include <grpc/support/time.h>

#include "sources/otlp/transport/otlp_grpc.h"
#include "otlp_server_fixture.h"

#define DEADLINE_S 10

struct gres {
    grpc_status_code status;
    int completed; /* the batch completed before the deadline */
    char details[512];
    int has_msg;
    uint8_t msg[4096];
    size_t len;
};

static gpr_timespec in_seconds(int s)
{
    return gpr_time_add(gpr_now(GPR_CLOCK_MONOTONIC), gpr_time_from_seconds(s, GPR_TIMESPAN));
}

/* A channel to the source's gRPC port; gzip: compress every message;
 * creds (taken over) NULL: plaintext, else TLS checking the name localhost. */
static grpc_channel *chan_open(struct fx *f, int gzip, grpc_channel_credentials *creds)
{
    char target[64];
    grpc_arg args[2];
    size_t n = 0;
    snprintf(target, sizeof(target), "127.0.0.1:%u", fsc_otlp_source_port(f->ctx, "grpc"));
    if (gzip)
        args[n++] = (grpc_arg){.type = GRPC_ARG_INTEGER,
                               .key = GRPC_COMPRESSION_CHANNEL_DEFAULT_ALGORITHM,
                               .value.integer = GRPC_COMPRESS_GZIP};
    if (creds)
        args[n++] = (grpc_arg){.type = GRPC_ARG_STRING,
                               .key = GRPC_SSL_TARGET_NAME_OVERRIDE_ARG,
                               .value.string = (char *)"localhost"};
    grpc_channel_args cargs = {.num_args = n, .args = args};
    grpc_channel_credentials *c = creds ? creds : grpc_insecure_credentials_create();
    grpc_channel *ch = grpc_channel_create(target, c, &cargs);
    grpc_channel_credentials_release(c); /* the channel holds its own reference */
    return ch;
}

static void cq_drain(grpc_completion_queue *cq)
{
    grpc_completion_queue_shutdown(cq);
    for (int i = 0; i < 1000; i++) {
        if (grpc_completion_queue_next(cq, in_seconds(DEADLINE_S), NULL).type ==
            GRPC_QUEUE_SHUTDOWN)
            break;
    }
    grpc_completion_queue_destroy(cq);
}

/* A call in progress (the concurrency and stop cases drive it in steps). */
struct gcall {
    grpc_completion_queue *cq;
    grpc_call *call;
    grpc_metadata_array init_md, trail_md;
    grpc_byte_buffer *resp;
    grpc_slice details;
    grpc_status_code status;
};

static void gcall_open(struct gcall *c, grpc_channel *ch, const char *method, int deadline_s)
{
    memset(c, 0, sizeof(*c));
    c->cq = grpc_completion_queue_create_for_next(NULL);
    grpc_slice m = grpc_slice_from_static_string(method);
    c->call = grpc_channel_create_call(
        ch, NULL, GRPC_PROPAGATE_DEFAULTS, c->cq, m, NULL,
        gpr_time_add(gpr_now(GPR_CLOCK_REALTIME), gpr_time_from_seconds(deadline_s, GPR_TIMESPAN)),
        NULL);
    grpc_metadata_array_init(&c->init_md);
    grpc_metadata_array_init(&c->trail_md);
}

/* Waits for `tag` on the call's queue (other tags are ignored). 1 = success. */
static int gcall_wait(struct gcall *c, void *tag)
{
    for (int i = 0; i < 100; i++) {
        grpc_event ev = grpc_completion_queue_next(c->cq, in_seconds(DEADLINE_S), NULL);
        if (ev.type != GRPC_OP_COMPLETE)
            return -1;
        if (ev.tag == tag)
            return ev.success;
    }
    return -1;
}

/* Sends only the initial metadata: the server has the call, not its message. */
static int gcall_start(struct gcall *c)
{
    grpc_op op;
    memset(&op, 0, sizeof(op));
    op.op = GRPC_OP_SEND_INITIAL_METADATA;
    if (grpc_call_start_batch(c->call, &op, 1, (void *)1, NULL) != GRPC_CALL_OK)
        return -1;
    return gcall_wait(c, (void *)1) == 1 ? 0 : -1;
}

/* Sends the message (unless NULL), half-closes and collects the answer. */
static void gcall_finish(struct gcall *c, int metadata_sent, grpc_byte_buffer *req, struct gres *r)
{
    grpc_op ops[6];
    size_t n = 0;
    memset(ops, 0, sizeof(ops));
    memset(r, 0, sizeof(*r));
    r->status = GRPC_STATUS_UNKNOWN;
    if (!metadata_sent)
        ops[n++].op = GRPC_OP_SEND_INITIAL_METADATA;
    if (req) {
        ops[n].op = GRPC_OP_SEND_MESSAGE;
        ops[n++].data.send_message.send_message = req;
    }
    ops[n++].op = GRPC_OP_SEND_CLOSE_FROM_CLIENT;
    ops[n].op = GRPC_OP_RECV_INITIAL_METADATA;
    ops[n++].data.recv_initial_metadata.recv_initial_metadata = &c->init_md;
    ops[n].op = GRPC_OP_RECV_MESSAGE;
    ops[n++].data.recv_message.recv_message = &c->resp;
    ops[n].op = GRPC_OP_RECV_STATUS_ON_CLIENT;
    ops[n].data.recv_status_on_client.trailing_metadata = &c->trail_md;
    ops[n].data.recv_status_on_client.status = &c->status;
    ops[n++].data.recv_status_on_client.status_details = &c->details;
    if (grpc_call_start_batch(c->call, ops, n, (void *)2, NULL) != GRPC_CALL_OK)
        return;
    if (gcall_wait(c, (void *)2) < 0)
        return;
    r->completed = 1;
    r->status = c->status;
    size_t dl = GRPC_SLICE_LENGTH(c->details);
    if (dl >= sizeof(r->details))
        dl = sizeof(r->details) - 1;
    memcpy(r->details, GRPC_SLICE_START_PTR(c->details), dl);
    r->details[dl] = '\0';
    if (c->resp) {
        grpc_byte_buffer_reader rd;
        r->has_msg = 1;
        if (grpc_byte_buffer_reader_init(&rd, c->resp)) {
            grpc_slice all = grpc_byte_buffer_reader_readall(&rd);
            r->len = GRPC_SLICE_LENGTH(all) < sizeof(r->msg) ? GRPC_SLICE_LENGTH(all) : 0;
            memcpy(r->msg, GRPC_SLICE_START_PTR(all), r->len);
            grpc_slice_unref(all);
            grpc_byte_buffer_reader_destroy(&rd);
        }
    }
}

static void gcall_close(struct gcall *c)
{
    if (c->resp)
        grpc_byte_buffer_destroy(c->resp);
    grpc_slice_unref(c->details);
    grpc_metadata_array_destroy(&c->init_md);
    grpc_metadata_array_destroy(&c->trail_md);
    if (c->call)
        grpc_call_unref(c->call);
    cq_drain(c->cq);
}

/* One unary call with `body` (compression: the message is already gzip and
 * marked so, when precompressed). */
static void unary(grpc_channel *ch, const char *method, const void *body, size_t len,
                  int precompressed, struct gres *r)
{
    struct gcall c;
    grpc_slice sl = grpc_slice_from_copied_buffer(body, len);
    grpc_byte_buffer *req = precompressed
                                ? grpc_raw_compressed_byte_buffer_create(&sl, 1, GRPC_COMPRESS_GZIP)
                                : grpc_raw_byte_buffer_create(&sl, 1);
    grpc_slice_unref(sl);
    gcall_open(&c, ch, method, DEADLINE_S);
    gcall_finish(&c, 0, req, r);
    grpc_byte_buffer_destroy(req);
    gcall_close(&c);
}

static int start(struct fx *f, struct fx_opts *o)
{
    grpc_init();
    o->grpc = 1;
    if (fx_start(f, o) != 0) {
        grpc_shutdown();
        return -1;
    }
    return 0;
}

static void finish(struct fx *f)
{
    fx_stop(f);
    grpc_shutdown();
}

/* ---- cases -------------------------------------------------------------------------- */

static void export_ok_exact(void)
{
    struct fx f;
    struct fx_opts o = {0};
    struct gres r;
    if (start(&f, &o) != 0)
        return;
    uint16_t port = fsc_otlp_source_port(f.ctx, "grpc");
    CHECK(port != 0);
    CHECK_INT(fx_log_port(&f, "grpc"), port);
    CHECK_INT(fsc_otlp_source_port(f.ctx, "http"), 0);

    uint64_t t = fx_time();
    struct fx_point pts[3] = {{"swp1", t, 10.0}, {"swp2", t, 20.5}, {"swp3", t, 4e15}};
    size_t len;
    uint8_t *req = fx_export_request("spine1", pts, 3, &len);
    grpc_channel *ch = chan_open(&f, 0, NULL);
    unary(ch, FSC_OTLP_GRPC_METHOD, req, len, 0, &r);
    CHECK(r.completed);
    CHECK_INT(r.status, GRPC_STATUS_OK);
    CHECK(r.has_msg);
    CHECK_INT(r.len, 0); /* ExportMetricsServiceResponse without partial_success */
    double v = 0;
    CHECK_INT(fx_value(&f, FX_CANON, "spine1", "swp1", &v), 0);
    CHECK(v == 10.0);
    CHECK_INT(fx_value(&f, FX_CANON, "spine1", "swp2", &v), 0);
    CHECK(v == 20.5);
    CHECK_INT(fx_value(&f, FX_CANON, "spine1", "swp3", &v), 0);
    CHECK(v == 4e15);

    /* an empty request is a success too */
    unary(ch, FSC_OTLP_GRPC_METHOD, "", 0, 0, &r);
    CHECK_INT(r.status, GRPC_STATUS_OK);
    CHECK_INT(r.len, 0);

    struct fsc_otlp_transport_stats st = fx_stats(&f, "grpc");
    CHECK_STR(st.transport, "grpc");
    CHECK_INT(st.port, port);
    CHECK_INT(st.requests, 2);
    CHECK_INT(st.ok, 2);
    CHECK_INT(st.points, 3);
    CHECK_INT(st.bytes_received, len);
    grpc_channel_destroy(ch);
    free(req);
    finish(&f);
}

static void partial_success_bytes(void)
{
    struct fx f;
    struct fx_opts o = {0};
    struct gres r;
    if (start(&f, &o) != 0)
        return;
    uint64_t t = fx_time();
    struct fx_point pts[3] = {{"swp1", FX_NO_TIME, 1.0}, {"swp2", t, 2.0}, {"swp3", 0, 3.0}};
    size_t len;
    uint8_t *req = fx_export_request("spine2", pts, 3, &len);
    grpc_channel *ch = chan_open(&f, 0, NULL);
    unary(ch, FSC_OTLP_GRPC_METHOD, req, len, 0, &r);
    CHECK_INT(r.status, GRPC_STATUS_OK);
    /* partial_success {rejected_data_points: 2, error_message: <first reason>} */
    const char *msg = FX_REJ_TIME;
    size_t ml = strlen(msg);
    uint8_t want[256];
    size_t wl = 0;
    want[wl++] = 0x0a;
    want[wl++] = (uint8_t)(2 + 2 + ml);
    want[wl++] = 0x08;
    want[wl++] = 2;
    want[wl++] = 0x12;
    want[wl++] = (uint8_t)ml;
    memcpy(want + wl, msg, ml);
    wl += ml;
    CHECK(ml < 120);
    CHECK_INT(r.len, wl);
    CHECK(r.len == wl && memcmp(r.msg, want, wl) == 0);
    /* and protobuf-c reads the same */
    Opentelemetry__Proto__Collector__Metrics__V1__ExportMetricsServiceResponse *resp =
        opentelemetry__proto__collector__metrics__v1__export_metrics_service_response__unpack(
            NULL, r.len, r.msg);
    CHECK(resp && resp->partial_success && resp->partial_success->rejected_data_points == 2);
    opentelemetry__proto__collector__metrics__v1__export_metrics_service_response__free_unpacked(
        resp, NULL);
    double v = 0;
    CHECK_INT(fx_value(&f, FX_CANON, "spine2", "swp2", &v), 0);
    CHECK(v == 2.0);
    struct fsc_otlp_transport_stats st = fx_stats(&f, "grpc");
    CHECK_INT(st.partial, 1);
    CHECK_INT(st.rejected, 2);
    CHECK_INT(st.points, 3);
    grpc_channel_destroy(ch);
    free(req);
    finish(&f);
}

static void invalid_argument_garbage(void)
{
    struct fx f;
    struct fx_opts o = {0};
    struct gres r;
    char sentence[256];
    if (start(&f, &o) != 0)
        return;
    const uint8_t garbage[] = {0x0a, 0x05, 0x0a, 0x03, 0xff, 0xff};
    fx_decoder_sentence(0, garbage, sizeof(garbage), sentence, sizeof(sentence));
    CHECK(sentence[0] != '\0');
    grpc_channel *ch = chan_open(&f, 0, NULL);
    unary(ch, FSC_OTLP_GRPC_METHOD, garbage, sizeof(garbage), 0, &r);
    CHECK_INT(r.status, GRPC_STATUS_INVALID_ARGUMENT);
    CHECK_STR(r.details, sentence);
    CHECK(!r.has_msg);
    CHECK_INT(fx_stats(&f, "grpc").bad_request, 1);
    CHECK(strstr(fx_log_text(&f), "transport=grpc kind=bad_request status=INVALID_ARGUMENT") !=
          NULL);
    grpc_channel_destroy(ch);
    finish(&f);
}

static void gzip_compressed_request(void)
{
    struct fx f;
    struct fx_opts o = {0};
    struct gres r;
    if (start(&f, &o) != 0)
        return;
    uint64_t t = fx_time();
    struct fx_point pts[8];
    char names[8][16];
    for (int i = 0; i < 8; i++) {
        snprintf(names[i], sizeof(names[i]), "swp%d", i + 1);
        pts[i] = (struct fx_point){names[i], t, 1000.0 * (i + 1)};
    }
    size_t len;
    uint8_t *req = fx_export_request("spine3", pts, 8, &len);
    /* the client's gRPC core compresses the message */
    grpc_channel *ch = chan_open(&f, 1, NULL);
    unary(ch, FSC_OTLP_GRPC_METHOD, req, len, 0, &r);
    CHECK_INT(r.status, GRPC_STATUS_OK);
    double v = 0;
    CHECK_INT(fx_value(&f, FX_CANON, "spine3", "swp8", &v), 0);
    CHECK(v == 8000.0);
    struct fsc_otlp_transport_stats st = fx_stats(&f, "grpc");
    CHECK_INT(st.ok, 1);
    CHECK_INT(st.points, 8);
    /* it arrived compressed: fewer bytes on the wire than the message */
    CHECK(st.bytes_received > 0 && st.bytes_received < len);
    grpc_channel_destroy(ch);

    /* a message we compressed ourselves, marked gzip */
    size_t zlen = 0;
    pts[0].value = 1234.0;
    pts[0].time_ns = t + 1000000000; /* a later sample of swp1 */
    free(req);
    req = fx_export_request("spine3", pts, 1, &len);
    uint8_t *z = fx_gzip(req, len, 0, &zlen);
    ch = chan_open(&f, 1, NULL);
    unary(ch, FSC_OTLP_GRPC_METHOD, z, zlen, 1, &r);
    CHECK_INT(r.status, GRPC_STATUS_OK);
    CHECK_INT(fx_value(&f, FX_CANON, "spine3", "swp1", &v), 0);
    CHECK(v == 1234.0);
    CHECK_INT(fx_stats(&f, "grpc").bytes_received, st.bytes_received + zlen);
    grpc_channel_destroy(ch);
    free(z);
    free(req);
    finish(&f);
}

/* A message over the wire cap: the core refuses it. */
static void resource_exhausted_over_cap(void)
{
    struct fx f;
    struct fx_opts o = {.max_body = 64 * 1024, .max_decompressed = 64 * 1024};
    struct gres r;
    if (start(&f, &o) != 0)
        return;
    static uint8_t big[100 * 1024];
    memset(big, 0x55, sizeof(big));
    grpc_channel *ch = chan_open(&f, 0, NULL);
    unary(ch, FSC_OTLP_GRPC_METHOD, big, sizeof(big), 0, &r);
    CHECK(r.completed);
    CHECK_INT(r.status, GRPC_STATUS_RESOURCE_EXHAUSTED);
    CHECK(strstr(r.details, "Received message larger than max (102400 vs. 65536)") != NULL);
    /* the server is still fine */
    struct fx_point pts[1] = {{"swp1", fx_time(), 3.0}};
    size_t len;
    uint8_t *req = fx_export_request("spine4", pts, 1, &len);
    unary(ch, FSC_OTLP_GRPC_METHOD, req, len, 0, &r);
    CHECK_INT(r.status, GRPC_STATUS_OK);
    struct fsc_otlp_transport_stats st = fx_stats(&f, "grpc");
    CHECK_INT(st.too_large, 1);
    CHECK_INT(st.ok, 1);
    grpc_channel_destroy(ch);
    free(req);
    finish(&f);
}

/* A gzip message that inflates past max_decompressed: stopped at the cap. */
static void gzip_bomb_resource_exhausted(void)
{
    struct fx f;
    struct fx_opts o = {.max_body = 1 << 20, .max_decompressed = 64 * 1024};
    struct gres r;
    size_t zlen;
    uint8_t *z = fx_gzip(NULL, 0, (size_t)256 << 20, &zlen); /* 256 MiB of zeros */
    CHECK(z != NULL && zlen < (size_t)1 << 20);
    if (!z || start(&f, &o) != 0) {
        free(z);
        return;
    }
    grpc_channel *ch = chan_open(&f, 1, NULL);
    long before = fx_peak_rss_kb();
    for (int i = 0; i < 3; i++) {
        unary(ch, FSC_OTLP_GRPC_METHOD, z, zlen, 1, &r);
        CHECK_INT(r.status, GRPC_STATUS_RESOURCE_EXHAUSTED);
    }
    CHECK_STR(r.details, "request body is larger than max_decompressed (65536 bytes) after gzip");
    long after = fx_peak_rss_kb();
    CHECK(before > 0 && after - before < 32 * 1024);
    struct fsc_otlp_transport_stats st = fx_stats(&f, "grpc");
    CHECK_INT(st.too_large, 3);
    CHECK_INT(st.bytes_received, 3 * zlen);
    CHECK_INT(fx_log_count(&f, "kind=too_large"), 1);
    grpc_channel_destroy(ch);
    free(z);
    finish(&f);
}

static void unimplemented_unknown_method(void)
{
    struct fx f;
    struct fx_opts o = {0};
    struct gres r;
    if (start(&f, &o) != 0)
        return;
    grpc_channel *ch = chan_open(&f, 0, NULL);
    for (int i = 0; i < 4; i++) { /* more calls than catch-all slots: they re-arm */
        unary(ch, "/opentelemetry.proto.collector.trace.v1.TraceService/Export", "", 0, 0, &r);
        CHECK_INT(r.status, GRPC_STATUS_UNIMPLEMENTED);
    }
    CHECK_STR(r.details, "unknown method /opentelemetry.proto.collector.trace.v1.TraceService/"
                         "Export (this server serves " FSC_OTLP_GRPC_METHOD ")");
    struct fsc_otlp_transport_stats st = fx_stats(&f, "grpc");
    CHECK_INT(st.other_errors, 4);
    CHECK_INT(st.requests, 4);
    grpc_channel_destroy(ch);
    finish(&f);
}

/* Seven clients hold calls open without sending their message; an eighth
 * is answered meanwhile, then the seven complete. */
static void concurrent_calls(void)
{
    struct fx f;
    struct fx_opts o = {0};
    struct gres r;
    enum { HELD = 7 };
    struct gcall held[HELD];
    if (start(&f, &o) != 0)
        return;
    grpc_channel *ch = chan_open(&f, 0, NULL);
    for (int i = 0; i < HELD; i++) {
        gcall_open(&held[i], ch, FSC_OTLP_GRPC_METHOD, DEADLINE_S);
        CHECK_INT(gcall_start(&held[i]), 0);
    }
    uint64_t t = fx_time();
    struct fx_point pts[1] = {{"swp100", t, 100.0}};
    size_t len;
    uint8_t *req = fx_export_request("spine5", pts, 1, &len);
    unary(ch, FSC_OTLP_GRPC_METHOD, req, len, 0, &r);
    CHECK_INT(r.status, GRPC_STATUS_OK);
    free(req);
    int ok = 0;
    for (int i = 0; i < HELD; i++) {
        char iface[16];
        snprintf(iface, sizeof(iface), "swp%d", i + 1);
        pts[0] = (struct fx_point){iface, t, (double)(i + 1)};
        req = fx_export_request("spine5", pts, 1, &len);
        grpc_slice sl = grpc_slice_from_copied_buffer((const char *)req, len);
        grpc_byte_buffer *bb = grpc_raw_byte_buffer_create(&sl, 1);
        grpc_slice_unref(sl);
        gcall_finish(&held[i], 1, bb, &r);
        ok += r.status == GRPC_STATUS_OK;
        grpc_byte_buffer_destroy(bb);
        gcall_close(&held[i]);
        free(req);
    }
    CHECK_INT(ok, HELD);
    double v = 0;
    CHECK_INT(fx_value(&f, FX_CANON, "spine5", "swp7", &v), 0);
    CHECK(v == 7.0);
    CHECK_INT(fx_stats(&f, "grpc").ok, HELD + 1);
    grpc_channel_destroy(ch);
    finish(&f);
}

/* Stopping with a call open: the stop returns, the client is told. */
static void stop_with_call_in_flight(void)
{
    struct fx f;
    struct fx_opts o = {0};
    struct gres r;
    struct gcall c;
    if (start(&f, &o) != 0)
        return;
    grpc_channel *ch = chan_open(&f, 0, NULL);
    gcall_open(&c, ch, FSC_OTLP_GRPC_METHOD, DEADLINE_S);
    CHECK_INT(gcall_start(&c), 0);
    fx_stop(&f);
    gcall_finish(&c, 1, NULL, &r);
    CHECK(r.completed);
    CHECK(r.status != GRPC_STATUS_OK);
    gcall_close(&c);
    grpc_channel_destroy(ch);
    grpc_shutdown();
}

/* Server TLS, then mutual TLS: a client without a certificate is refused. */
static void tls_and_mutual_tls(void)
{
    char dir[64], ca_p[256], cert_p[256], key_p[256], ccert_p[256], ckey_p[256], err[256];
    struct gres r;
    if (fx_make_certs(dir) != 0) {
        CHECK(!"openssl could not make the test certificates");
        return;
    }
    fx_path(ca_p, dir, "ca.pem");
    char *ca = fsc_pem_read(ca_p, "CA", err, sizeof(err));
    char *ccert = fsc_pem_read(fx_path(ccert_p, dir, "client.pem"), "cert", err, sizeof(err));
    char *ckey = fsc_pem_read(fx_path(ckey_p, dir, "client.key"), "key", err, sizeof(err));
    CHECK(ca && ccert && ckey);
    struct fsc_tls_config tls = {.present = true,
                                 .enabled = true,
                                 .cert_file = fx_path(cert_p, dir, "server.pem"),
                                 .key_file = fx_path(key_p, dir, "server.key")};
    struct fx_opts o = {.tls = &tls};
    struct fx f;
    uint8_t *req;
    size_t len;
    struct fx_point pts[1] = {{"swp1", fx_time(), 42.0}};
    req = fx_export_request("spine6", pts, 1, &len);

    if (ca && ccert && ckey && start(&f, &o) == 0) {
        CHECK(strstr(fx_log_text(&f), "transport=grpc") && strstr(fx_log_text(&f), "tls=on"));
        grpc_channel *ch = chan_open(&f, 0, grpc_ssl_credentials_create(ca, NULL, NULL, NULL));
        unary(ch, FSC_OTLP_GRPC_METHOD, req, len, 0, &r);
        CHECK_INT(r.status, GRPC_STATUS_OK);
        grpc_channel_destroy(ch);
        ch = chan_open(&f, 0, NULL); /* plaintext against TLS */
        unary(ch, FSC_OTLP_GRPC_METHOD, req, len, 0, &r);
        CHECK_INT(r.status, GRPC_STATUS_UNAVAILABLE);
        grpc_channel_destroy(ch);
        double v = 0;
        CHECK_INT(fx_value(&f, FX_CANON, "spine6", "swp1", &v), 0);
        CHECK(v == 42.0);
        finish(&f);
    }
    tls.ca_file = ca_p;
    if (ca && ccert && ckey && start(&f, &o) == 0) {
        CHECK(strstr(fx_log_text(&f), "client_cert=required") != NULL);
        grpc_channel *ch = chan_open(&f, 0, grpc_ssl_credentials_create(ca, NULL, NULL, NULL));
        unary(ch, FSC_OTLP_GRPC_METHOD, req, len, 0, &r);
        CHECK_INT(r.status, GRPC_STATUS_UNAVAILABLE);
        grpc_channel_destroy(ch);
        grpc_ssl_pem_key_cert_pair pair = {.private_key = ckey, .cert_chain = ccert};
        ch = chan_open(&f, 0, grpc_ssl_credentials_create(ca, &pair, NULL, NULL));
        unary(ch, FSC_OTLP_GRPC_METHOD, req, len, 0, &r);
        CHECK_INT(r.status, GRPC_STATUS_OK);
        grpc_channel_destroy(ch);
        CHECK_INT(fx_stats(&f, "grpc").ok, 1);
        finish(&f);
    }
    free(req);
    fsc_pem_free(ca);
    fsc_pem_free(ccert);
    fsc_pem_free(ckey);
    fx_remove_certs(dir);
}

/* A port in use (gRPC must not share it through SO_REUSEPORT); and a gRPC
 * transport already started is stopped again when HTTP then fails. */
static void listen_errors(void)
{
    struct fx f;
    char addr[64], want[200], err[512] = "";
    int fd;
    grpc_init();
    uint16_t port = fx_busy_port(&fd);
    CHECK(port != 0);
    snprintf(addr, sizeof(addr), "127.0.0.1:%u", port);
    struct fx_opts o = {.grpc = 1, .grpc_listen = addr};
    CHECK_INT(fx_start_err(&f, &o, err, sizeof(err)), -1);
    snprintf(want, sizeof(want), "source otlp-test: OTLP/gRPC: cannot listen on %s (address in use",
             addr);
    CHECK(strncmp(err, want, strlen(want)) == 0);
    fx_stop(&f);
    o = (struct fx_opts){.grpc = 1, .http = 1, .http_listen = addr};
    CHECK_INT(fx_start_err(&f, &o, err, sizeof(err)), -1);
    snprintf(want, sizeof(want),
             "source otlp-test: OTLP/HTTP: cannot listen on %s: Address already in use", addr);
    CHECK_STR(err, want);
    CHECK(fx_log_port(&f, "grpc") > 0); /* it had started */
    fx_stop(&f);
    close(fd);
    grpc_shutdown();
}

TEST_MAIN(TEST(export_ok_exact), TEST(partial_success_bytes), TEST(invalid_argument_garbage),
          TEST(gzip_compressed_request), TEST(resource_exhausted_over_cap),
          TEST(gzip_bomb_resource_exhausted), TEST(unimplemented_unknown_method),
          TEST(concurrent_calls), TEST(stop_with_call_in_flight), TEST(tls_and_mutual_tls),
          TEST(listen_errors))
