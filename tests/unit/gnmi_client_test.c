/* gNMI client end to end against a minimal in-test gRPC server (C core):
 * the Subscribe request on the wire equals the planner's bytes and carries
 * the credentials; responses reach the registry and the stream counters; a
 * failed call is retried after backoff; a silent stream is resubscribed;
 * Capabilities without PROTO is logged as an error naming the device; the
 * observed cadence follows device time per series (the estimator's own
 * known answers are in gnmi_cadence_test.c). The server is driven step by
 * step from the test thread; every wait is bounded (10 s per step) and
 * nothing asserts on durations (cadence is device time from the messages). */
#define _GNU_SOURCE /* setenv */
#include <grpc/byte_buffer.h>
#include <grpc/byte_buffer_reader.h>
#include <grpc/grpc.h>
#include <grpc/grpc_security.h>
#include <grpc/support/time.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "config/config.h"
#include "base/log.h"
#include "model/registry.h"
#include "engine/engine.h"
#include "gnmi.pb-c.h"
#include "sources/gnmi/gnmi_client.h"
#include "sources/gnmi/gnmi_plan.h"
#include "sources/gnmi/gnmi_source.h"
#include "test.h"

#define STEP_S 10

/* ---- the server ----------------------------------------------------------- */

struct srv {
    grpc_server *server;
    grpc_completion_queue *cq;
    int port;
};

struct srv_call {
    grpc_call *call;
    grpc_call_details details;
    grpc_metadata_array md;
    int done; /* tag flag */
};

static int tag_shutdown;
static int caps_served; /* Capabilities calls answered so far */

/* Waits until *flag is set by its tag (other tags' flags are set as they
 * come). Returns 0, or -1 after STEP_S seconds. */
static int srv_wait(struct srv *s, int *flag)
{
    gpr_timespec end =
        gpr_time_add(gpr_now(GPR_CLOCK_MONOTONIC), gpr_time_from_seconds(STEP_S, GPR_TIMESPAN));
    while (!*flag) {
        grpc_event ev = grpc_completion_queue_next(s->cq, end, NULL);
        if (ev.type != GRPC_OP_COMPLETE)
            return -1;
        *(int *)ev.tag = 1;
    }
    return 0;
}

static int srv_start(struct srv *s)
{
    memset(s, 0, sizeof(*s));
    grpc_init();
    s->server = grpc_server_create(NULL, NULL);
    s->cq = grpc_completion_queue_create_for_next(NULL);
    grpc_server_register_completion_queue(s->server, s->cq, NULL);
    grpc_server_credentials *creds = grpc_insecure_server_credentials_create();
    s->port = grpc_server_add_http2_port(s->server, "127.0.0.1:0", creds);
    grpc_server_credentials_release(creds);
    if (s->port <= 0)
        return -1;
    grpc_server_start(s->server);
    return 0;
}

static void srv_call_free(struct srv_call *c)
{
    if (c->call)
        grpc_call_unref(c->call);
    grpc_call_details_destroy(&c->details);
    grpc_metadata_array_destroy(&c->md);
    free(c);
}

/* Accepts the next call whose method is `method` (other calls are answered
 * UNIMPLEMENTED; Capabilities is answered with `caps` when given). With
 * method NULL, answers one call that way and returns NULL. */
static struct srv_call *srv_accept(struct srv *s, const char *method, const uint8_t *caps,
                                   size_t caps_len)
{
    for (int round = 0; round < 8; round++) {
        struct srv_call *c = calloc(1, sizeof(*c));
        if (!c)
            return NULL;
        grpc_call_details_init(&c->details);
        grpc_metadata_array_init(&c->md);
        if (grpc_server_request_call(s->server, &c->call, &c->details, &c->md, s->cq, s->cq,
                                     &c->done) != GRPC_CALL_OK ||
            srv_wait(s, &c->done) != 0) {
            srv_call_free(c);
            return NULL;
        }
        if (method && grpc_slice_str_cmp(c->details.method, method) == 0)
            return c;
        /* Capabilities (or anything else): read the request, answer, close */
        int is_caps = grpc_slice_str_cmp(c->details.method, "/gnmi.gNMI/Capabilities") == 0;
        grpc_byte_buffer *in = NULL, *out = NULL;
        int cancelled = 0, flag = 0;
        grpc_op ops[5];
        memset(ops, 0, sizeof(ops));
        size_t n = 0;
        ops[n++].op = GRPC_OP_SEND_INITIAL_METADATA;
        ops[n].op = GRPC_OP_RECV_MESSAGE;
        ops[n++].data.recv_message.recv_message = &in;
        if (is_caps && caps) {
            grpc_slice sl = grpc_slice_from_copied_buffer((const char *)caps, caps_len);
            out = grpc_raw_byte_buffer_create(&sl, 1);
            grpc_slice_unref(sl);
            ops[n].op = GRPC_OP_SEND_MESSAGE;
            ops[n++].data.send_message.send_message = out;
        }
        ops[n].op = GRPC_OP_RECV_CLOSE_ON_SERVER;
        ops[n++].data.recv_close_on_server.cancelled = &cancelled;
        ops[n].op = GRPC_OP_SEND_STATUS_FROM_SERVER;
        ops[n++].data.send_status_from_server.status =
            is_caps && caps ? GRPC_STATUS_OK : GRPC_STATUS_UNIMPLEMENTED;
        if (grpc_call_start_batch(c->call, ops, n, &flag, NULL) == GRPC_CALL_OK)
            srv_wait(s, &flag);
        if (in)
            grpc_byte_buffer_destroy(in);
        if (out)
            grpc_byte_buffer_destroy(out);
        srv_call_free(c);
        caps_served += is_caps;
        if (!method)
            return NULL;
    }
    return NULL;
}

static const char *md_get(const grpc_metadata_array *md, const char *key, char *buf, size_t size)
{
    for (size_t i = 0; i < md->count; i++)
        if (grpc_slice_str_cmp(md->metadata[i].key, key) == 0) {
            size_t n = GRPC_SLICE_LENGTH(md->metadata[i].value);
            if (n >= size)
                n = size - 1;
            memcpy(buf, GRPC_SLICE_START_PTR(md->metadata[i].value), n);
            buf[n] = '\0';
            return buf;
        }
    return NULL;
}

/* Sends initial metadata and reads the first message into buf. Returns its
 * length or -1. */
static long srv_read_request(struct srv *s, struct srv_call *c, uint8_t *buf, size_t size)
{
    grpc_byte_buffer *in = NULL;
    int flag = 0;
    grpc_op ops[2];
    memset(ops, 0, sizeof(ops));
    ops[0].op = GRPC_OP_SEND_INITIAL_METADATA;
    ops[1].op = GRPC_OP_RECV_MESSAGE;
    ops[1].data.recv_message.recv_message = &in;
    if (grpc_call_start_batch(c->call, ops, 2, &flag, NULL) != GRPC_CALL_OK ||
        srv_wait(s, &flag) != 0 || !in)
        return -1;
    grpc_byte_buffer_reader rd;
    long n = -1;
    if (grpc_byte_buffer_reader_init(&rd, in)) {
        grpc_slice sl = grpc_byte_buffer_reader_readall(&rd);
        grpc_byte_buffer_reader_destroy(&rd);
        if (GRPC_SLICE_LENGTH(sl) <= size) {
            n = (long)GRPC_SLICE_LENGTH(sl);
            memcpy(buf, GRPC_SLICE_START_PTR(sl), (size_t)n);
        }
        grpc_slice_unref(sl);
    }
    grpc_byte_buffer_destroy(in);
    return n;
}

static int srv_send(struct srv *s, struct srv_call *c, const uint8_t *msg, size_t len)
{
    grpc_slice sl = grpc_slice_from_copied_buffer((const char *)msg, len);
    grpc_byte_buffer *bb = grpc_raw_byte_buffer_create(&sl, 1);
    grpc_slice_unref(sl);
    int flag = 0;
    grpc_op op;
    memset(&op, 0, sizeof(op));
    op.op = GRPC_OP_SEND_MESSAGE;
    op.data.send_message.send_message = bb;
    int rc = grpc_call_start_batch(c->call, &op, 1, &flag, NULL) == GRPC_CALL_OK
                 ? srv_wait(s, &flag)
                 : -1;
    grpc_byte_buffer_destroy(bb);
    return rc;
}

/* Ends the call with `code` (or waits for the client's cancel). */
static void srv_end(struct srv *s, struct srv_call *c, grpc_status_code code)
{
    int cancelled = 0, flag = 0;
    grpc_op ops[2];
    memset(ops, 0, sizeof(ops));
    ops[0].op = GRPC_OP_RECV_CLOSE_ON_SERVER;
    ops[0].data.recv_close_on_server.cancelled = &cancelled;
    ops[1].op = GRPC_OP_SEND_STATUS_FROM_SERVER;
    ops[1].data.send_status_from_server.status = code;
    if (grpc_call_start_batch(c->call, ops, 2, &flag, NULL) == GRPC_CALL_OK)
        srv_wait(s, &flag);
    srv_call_free(c);
}

static void srv_stop(struct srv *s)
{
    grpc_server_shutdown_and_notify(s->server, s->cq, &tag_shutdown);
    grpc_server_cancel_all_calls(s->server);
    srv_wait(s, &tag_shutdown);
    grpc_server_destroy(s->server);
    grpc_completion_queue_shutdown(s->cq);
    for (int i = 0; i < 1000; i++) {
        grpc_event ev = grpc_completion_queue_next(s->cq, gpr_inf_future(GPR_CLOCK_REALTIME), NULL);
        if (ev.type == GRPC_QUEUE_SHUTDOWN)
            break;
    }
    grpc_completion_queue_destroy(s->cq);
    grpc_shutdown();
}

/* ---- messages ------------------------------------------------------------- */

/* One in-octets update of `port` stamped ts_ns (Notification.timestamp). */
static size_t pack_update_at(uint8_t *buf, const char *port, int64_t ts_ns, uint64_t v)
{
    Gnmi__PathElem e[5];
    Gnmi__PathElem *ep[5];
    Gnmi__PathElem__KeyEntry ke = GNMI__PATH_ELEM__KEY_ENTRY__INIT, *kp = &ke;
    static const char *names[] = {"interfaces", "interface", "state", "counters", "in-octets"};
    for (int i = 0; i < 5; i++) {
        gnmi__path_elem__init(&e[i]);
        e[i].name = (char *)names[i];
        ep[i] = &e[i];
    }
    ke.key = "name";
    ke.value = (char *)port;
    e[1].n_key = 1;
    e[1].key = &kp;
    Gnmi__Path path = GNMI__PATH__INIT;
    path.n_elem = 5;
    path.elem = ep;
    Gnmi__TypedValue tv = GNMI__TYPED_VALUE__INIT;
    tv.value_case = GNMI__TYPED_VALUE__VALUE_UINT_VAL;
    tv.uint_val = v;
    Gnmi__Update u = GNMI__UPDATE__INIT, *up = &u;
    u.path = &path;
    u.val = &tv;
    Gnmi__Notification nt = GNMI__NOTIFICATION__INIT;
    nt.timestamp = ts_ns;
    nt.n_update = 1;
    nt.update = &up;
    Gnmi__SubscribeResponse r = GNMI__SUBSCRIBE_RESPONSE__INIT;
    r.response_case = GNMI__SUBSCRIBE_RESPONSE__RESPONSE_UPDATE;
    r.update = &nt;
    return gnmi__subscribe_response__pack(&r, buf);
}

static size_t pack_update(uint8_t *buf, uint64_t v)
{
    return pack_update_at(buf, "et-0/0/1", 1700000000000000000LL, v);
}

static size_t pack_sync(uint8_t *buf)
{
    Gnmi__SubscribeResponse r = GNMI__SUBSCRIBE_RESPONSE__INIT;
    r.response_case = GNMI__SUBSCRIBE_RESPONSE__RESPONSE_SYNC_RESPONSE;
    r.sync_response = 1;
    return gnmi__subscribe_response__pack(&r, buf);
}

static size_t pack_caps_json_only(uint8_t *buf)
{
    Gnmi__Encoding enc[1] = {GNMI__ENCODING__JSON};
    Gnmi__ModelData md = GNMI__MODEL_DATA__INIT, *mdp[2] = {&md, &md};
    md.name = "openconfig-interfaces";
    Gnmi__CapabilityResponse cr = GNMI__CAPABILITY_RESPONSE__INIT;
    cr.n_supported_models = 2;
    cr.supported_models = mdp;
    cr.n_supported_encodings = 1;
    cr.supported_encodings = enc;
    cr.gnmi_version = "0.10.0";
    return gnmi__capability_response__pack(&cr, buf);
}

/* ---- fixture -------------------------------------------------------------- */

struct fx {
    struct srv s;
    struct fsc_registry *reg;
    struct fsc_engine *eng;
    struct fsc_source_config sc;
    struct fsc_gnmi_config gc; /* sc's settings */
    struct fsc_gnmi_stream st;
    const char *paths[1];
    char addr[64];
    void *ctx;
    FILE *log;
};

static int fx_start(struct fx *f, int64_t interval_ns, uint32_t stall)
{
    memset(f, 0, sizeof(*f));
    char err[256] = "";
    if (srv_start(&f->s) != 0)
        return -1;
    struct fsc_engine_config ecfg;
    fsc_engine_config_defaults(&ecfg);
    f->reg = fsc_registry_create(1000);
    f->eng = fsc_engine_create(&ecfg, NULL, err, sizeof(err));
    struct fsc_source_env env = {.reg = f->reg, .eng = f->eng};
    if (!f->reg || !f->eng || fsc_registry_source_add(f->reg, "leaf1", 0, &env.source_id) != 0)
        return -1;
    snprintf(f->addr, sizeof(f->addr), "127.0.0.1:%d", f->s.port);
    f->paths[0] = "/interfaces/interface[name=et-0/0/1]/state/counters";
    f->st = (struct fsc_gnmi_stream){.name = "ifc",
                                     .paths = f->paths,
                                     .n_paths = 1,
                                     .mode = FSC_GNMI_SAMPLE,
                                     .sample_interval_ns = interval_ns};
    f->sc.name = "leaf1";
    f->sc.kind = &fsc_gnmi_kind;
    f->sc.settings = &f->gc;
    f->sc.enabled = true;
    struct fsc_gnmi_config *gc = &f->gc;
    gc->address = f->addr;
    gc->device = "leaf1";
    gc->username = "telemetry";
    gc->password.value = "s3cret";
    gc->encoding = FSC_GNMI_PROTO;
    gc->sample_interval_ns = interval_ns;
    gc->streams = &f->st;
    gc->n_streams = 1;
    gc->stall_intervals = stall;
    gc->keepalive_ns = 30000000000LL;
    gc->connect_timeout_ns = 10000000000LL;
    gc->backoff.initial_ns = 50000000; /* 50 ms: the retry comes quickly */
    gc->backoff.max_ns = 1000000000;
    f->log = tmpfile();
    fsc_log_set_stream(f->log);
    f->ctx = fsc_gnmi_source_ops.start(&f->sc, &env, err, sizeof(err));
    if (!f->ctx)
        fprintf(stderr, "start: %s\n", err);
    return f->ctx ? 0 : -1;
}

static void fx_stop(struct fx *f)
{
    fsc_gnmi_source_ops.stop(f->ctx);
    srv_stop(&f->s);
    fsc_engine_destroy(f->eng);
    fsc_registry_destroy(f->reg);
    fsc_log_set_stream(NULL);
    if (f->log)
        fclose(f->log);
}

static bool log_has(struct fx *f, const char *needle)
{
    char line[1024];
    bool found = false;
    fflush(f->log);
    rewind(f->log);
    while (!found && fgets(line, sizeof(line), f->log))
        found = strstr(line, needle) != NULL;
    fseek(f->log, 0, SEEK_END);
    return found;
}

static int log_count(struct fx *f, const char *needle)
{
    char line[1024];
    int n = 0;
    fflush(f->log);
    rewind(f->log);
    while (fgets(line, sizeof(line), f->log))
        n += strstr(line, needle) != NULL;
    fseek(f->log, 0, SEEK_END);
    return n;
}

static struct fsc_gnmi_stream_stats stats_of(struct fx *f)
{
    struct fsc_gnmi_stream_stats ss;
    memset(&ss, 0, sizeof(ss));
    CHECK_INT(fsc_gnmi_source_stats(f->ctx, &ss, 1), 1);
    return ss;
}

/* Polls (bounded: 10 s in 10 ms steps) until the stream has `messages`. */
static struct fsc_gnmi_stream_stats wait_messages(struct fx *f, uint64_t messages)
{
    struct fsc_gnmi_stream_stats ss = stats_of(f);
    for (int i = 0; i < 1000 && ss.messages < messages; i++) {
        nanosleep(&(struct timespec){0, 10000000}, NULL);
        ss = stats_of(f);
    }
    return ss;
}

/* ---- cases ---------------------------------------------------------------- */

static void subscribe_ingest_and_credentials(void)
{
    struct fx f;
    uint8_t caps[256], buf[4096];
    size_t caps_len = pack_caps_json_only(caps);
    CHECK_INT(fx_start(&f, 2000000000, 3), 0);
    if (!f.ctx) {
        fx_stop(&f);
        return;
    }
    struct srv_call *c = srv_accept(&f.s, "/gnmi.gNMI/Subscribe", caps, caps_len);
    CHECK(c != NULL);
    if (c) {
        char v[64];
        CHECK_STR(md_get(&c->md, "username", v, sizeof(v)), "telemetry");
        CHECK_STR(md_get(&c->md, "password", v, sizeof(v)), "s3cret");
        long n = srv_read_request(&f.s, c, buf, sizeof(buf));
        uint8_t *want = NULL;
        size_t want_len = 0;
        char err[256];
        CHECK_INT(fsc_gnmi_plan_request(&f.gc, 0, &want, &want_len, err, sizeof(err)), 0);
        CHECK_INT(n, (long)want_len);
        CHECK(n == (long)want_len && memcmp(buf, want, want_len) == 0);
        free(want);
        CHECK_INT(srv_send(&f.s, c, buf, pack_update(buf, 1000)), 0);
        CHECK_INT(srv_send(&f.s, c, buf, pack_sync(buf)), 0);
        struct fsc_gnmi_stream_stats ss = wait_messages(&f, 2);
        CHECK_INT(ss.messages, 2);
        CHECK_INT(ss.updates, 1);
        CHECK_INT(ss.samples, 1);
        CHECK_INT(ss.decode_errors, 0);
        CHECK(ss.sync_seen);
        CHECK_INT(ss.state, FSC_GNMI_STATE_STREAMING);
        CHECK_INT(ss.reconnects, 0);
        CHECK_STR(ss.name, "ifc");
        CHECK_INT(fsc_registry_count(f.reg), 1);
        CHECK_STR(fsc_registry_metric(f.reg, 0), "fabric_port_rx_bytes_total");
    }
    /* Capabilities answered without PROTO: an error naming the device (the
     * client sends it in parallel with Subscribe, so it may still wait) */
    if (!caps_served)
        srv_accept(&f.s, NULL, caps, caps_len);
    CHECK_INT(caps_served, 1);
    for (int i = 0; i < 1000 && !log_has(&f, "gnmi_capabilities "); i++)
        nanosleep(&(struct timespec){0, 10000000}, NULL);
    CHECK(log_has(&f, "event=gnmi_capabilities source=leaf1 device=leaf1 models=2 encodings=0"));
    CHECK(log_has(&f, "level=error event=gnmi_proto_not_offered source=leaf1 device=leaf1"));
    fsc_gnmi_source_ops.stop(f.ctx); /* cancels the open call */
    f.ctx = NULL;
    if (c)
        srv_end(&f.s, c, GRPC_STATUS_OK);
    fx_stop(&f);
}

static void failed_call_retried(void)
{
    struct fx f;
    uint8_t buf[4096];
    CHECK_INT(fx_start(&f, 2000000000, 3), 0);
    struct srv_call *c = f.ctx ? srv_accept(&f.s, "/gnmi.gNMI/Subscribe", NULL, 0) : NULL;
    CHECK(c != NULL);
    if (c) {
        CHECK(srv_read_request(&f.s, c, buf, sizeof(buf)) > 0);
        CHECK_INT(srv_send(&f.s, c, buf, pack_update(buf, 5)), 0);
        wait_messages(&f, 1);
        srv_end(&f.s, c, GRPC_STATUS_UNAVAILABLE);
        /* the client comes back on its own after backoff */
        c = srv_accept(&f.s, "/gnmi.gNMI/Subscribe", NULL, 0);
        CHECK(c != NULL);
    }
    if (c) {
        CHECK(srv_read_request(&f.s, c, buf, sizeof(buf)) > 0);
        CHECK_INT(srv_send(&f.s, c, buf, pack_update(buf, 6)), 0);
        struct fsc_gnmi_stream_stats ss = wait_messages(&f, 2);
        CHECK_INT(ss.messages, 2);
        CHECK_INT(ss.reconnects, 1);
        CHECK_INT(ss.resubscribes, 0);
        CHECK_INT(ss.state, FSC_GNMI_STATE_STREAMING);
        CHECK(log_has(&f, "event=gnmi_stream_retry source=leaf1 device=leaf1 stream=ifc "
                          "reason=call_ended grpc_status=14"));
    }
    fsc_gnmi_source_ops.stop(f.ctx);
    f.ctx = NULL;
    if (c)
        srv_end(&f.s, c, GRPC_STATUS_OK);
    fx_stop(&f);
}

static void silent_stream_resubscribed(void)
{
    struct fx f;
    uint8_t buf[4096];
    /* 20 ms interval x 2: the stream is silent after one message */
    CHECK_INT(fx_start(&f, 20000000, 2), 0);
    struct srv_call *c = f.ctx ? srv_accept(&f.s, "/gnmi.gNMI/Subscribe", NULL, 0) : NULL;
    struct srv_call *c2 = NULL;
    CHECK(c != NULL);
    if (c) {
        CHECK(srv_read_request(&f.s, c, buf, sizeof(buf)) > 0);
        CHECK_INT(srv_send(&f.s, c, buf, pack_update(buf, 5)), 0);
        c2 = srv_accept(&f.s, "/gnmi.gNMI/Subscribe", NULL, 0);
        CHECK(c2 != NULL);
        srv_end(&f.s, c, GRPC_STATUS_OK); /* completes: the client cancelled it */
    }
    if (c2) {
        CHECK(srv_read_request(&f.s, c2, buf, sizeof(buf)) > 0);
        struct fsc_gnmi_stream_stats ss = stats_of(&f);
        CHECK_INT(ss.resubscribes, 1);
        CHECK_INT(ss.reconnects, 0);
        CHECK_INT(ss.messages, 1);
        CHECK(log_has(&f, "event=gnmi_stream_resubscribe source=leaf1 device=leaf1 stream=ifc"));
    }
    fsc_gnmi_source_ops.stop(f.ctx);
    f.ctx = NULL;
    if (c2)
        srv_end(&f.s, c2, GRPC_STATUS_OK);
    fx_stop(&f);
}

/* The device thread itself is late (here: blocked for 1 s in its log write,
 * the test holding the log FILE's lock; in the field a starved host or a
 * slow ingest) while the target keeps streaming: that is no silence of the
 * target, and the stream (stall after 2 x 100 ms) is not resubscribed. */
static void late_thread_not_stalled(void)
{
    struct fx f;
    uint8_t buf[4096];
    CHECK_INT(fx_start(&f, 100000000, 2), 0);
    struct srv_call *c = f.ctx ? srv_accept(&f.s, "/gnmi.gNMI/Subscribe", NULL, 0) : NULL;
    CHECK(c != NULL);
    if (c) {
        CHECK(srv_read_request(&f.s, c, buf, sizeof(buf)) > 0);
        flockfile(f.log); /* the first message's gnmi_stream_up log line waits for it */
        CHECK_INT(srv_send(&f.s, c, buf, pack_update(buf, 5)), 0);
        nanosleep(&(struct timespec){1, 0}, NULL);
        CHECK_INT(srv_send(&f.s, c, buf, pack_update(buf, 6)), 0);
        funlockfile(f.log);
        for (uint64_t v = 7; v < 17; v++) { /* every 20 ms: well inside 200 ms */
            CHECK_INT(srv_send(&f.s, c, buf, pack_update(buf, v)), 0);
            nanosleep(&(struct timespec){0, 20000000}, NULL);
        }
        struct fsc_gnmi_stream_stats ss = wait_messages(&f, 12);
        CHECK_INT(ss.messages, 12);
        CHECK_INT(ss.resubscribes, 0);
        CHECK_INT(ss.reconnects, 0);
        CHECK(!log_has(&f, "event=gnmi_stream_resubscribe"));
    }
    fsc_gnmi_source_ops.stop(f.ctx);
    f.ctx = NULL;
    if (c)
        srv_end(&f.s, c, GRPC_STATUS_OK);
    fx_stop(&f);
}

/* Nobody listens: the stream backs off and counts reconnects; stop() still
 * returns and frees everything. */
static void unreachable_target_backs_off(void)
{
    struct fx f;
    CHECK_INT(fx_start(&f, 2000000000, 3), 0);
    srv_stop(&f.s); /* the port closes before the client connects */
    grpc_init();    /* balance fx_stop's srv_stop below */
    struct fsc_gnmi_stream_stats ss = stats_of(&f);
    for (int i = 0; i < 1000 && ss.reconnects < 4; i++) {
        nanosleep(&(struct timespec){0, 10000000}, NULL);
        ss = stats_of(&f);
    }
    CHECK(ss.reconnects >= 4);
    CHECK_INT(ss.messages, 0);
    /* Every retry failed the same way within FSC_GNMI_RETRY_LOG_EVERY_NS:
     * one line for the device, the rest counted (1 000 unreachable devices
     * logged 23 000 lines in 8 s before). */
    CHECK_INT(log_count(&f, "event=gnmi_stream_retry source=leaf1 device=leaf1 stream=ifc "
                            "reason=call_ended grpc_status=14 "),
              1);
    CHECK(log_has(&f, " suppressed=0"));
    fsc_gnmi_source_ops.stop(f.ctx);
    fsc_engine_destroy(f.eng);
    fsc_registry_destroy(f.reg);
    fsc_log_set_stream(NULL);
    fclose(f.log);
    grpc_shutdown();
}

#define MS_NS 1000000LL
#define T0_NS 1700000000000000000LL

/* Through a stream: two ports (two series, full paths without a prefix)
 * each sampled every 100 ms of device time, the second 50 ms after the
 * first. Per series the cadence is exactly 0.1 s with no jitter; an estimate
 * over consecutive messages would say 0.05 s. The stats carry it. */
static void stream_cadence_per_series(void)
{
    struct fx f;
    uint8_t buf[4096];
    CHECK_INT(fx_start(&f, 2000000000, 3), 0);
    struct srv_call *c = f.ctx ? srv_accept(&f.s, "/gnmi.gNMI/Subscribe", NULL, 0) : NULL;
    CHECK(c != NULL);
    if (c) {
        CHECK(srv_read_request(&f.s, c, buf, sizeof(buf)) > 0);
        struct fsc_gnmi_stream_stats ss = stats_of(&f);
        CHECK_INT(ss.cadence_intervals, 0);
        for (int i = 0; i < 40; i++) {
            int64_t t = T0_NS + i * 100 * MS_NS;
            CHECK_INT(srv_send(&f.s, c, buf, pack_update_at(buf, "et-0/0/1", t, 1000u * i)), 0);
            CHECK_INT(
                srv_send(&f.s, c, buf, pack_update_at(buf, "et-0/0/2", t + 50 * MS_NS, 1000u * i)),
                0);
        }
        ss = wait_messages(&f, 80);
        CHECK_INT(ss.messages, 80);
        CHECK_INT(ss.cadence_intervals, 78);
        CHECK_NEAR(ss.cadence_s, 0.1, 1e-12);
        CHECK_NEAR(ss.jitter_s, 0.0, 1e-12);
    }
    fsc_gnmi_source_ops.stop(f.ctx);
    f.ctx = NULL;
    if (c)
        srv_end(&f.s, c, GRPC_STATUS_OK);
    fx_stop(&f);
}

/* Two devices on one worker (FABRICSCOPE_GNMI_WORKERS=1: a pool of one): B
 * streams every 20 ms, then the worker is held
 * up by device A (blocked for 1.5 s in the log write of A's first message)
 * while B keeps streaming. B's responses wait in the shared queue; the
 * worker takes them all before its next tick judges B's silence (stall
 * after 5 x 100 ms), so B is not resubscribed. */
static void busy_neighbour_not_stalled(void)
{
    struct fx a, b;
    uint8_t buf[4096];
    CHECK_INT(setenv("FABRICSCOPE_GNMI_WORKERS", "1", 1), 0); /* read when the pool starts */
    CHECK_INT(fx_start(&a, 100000000, 0), 0); /* A sends once: no stall check for it */
    CHECK_INT(fx_start(&b, 100000000, 5), 0); /* b.log is the log from here */
    CHECK_INT(fsc_gnmi_pool_threads(), 1);
    struct srv_call *ca = a.ctx ? srv_accept(&a.s, "/gnmi.gNMI/Subscribe", NULL, 0) : NULL;
    struct srv_call *cb = b.ctx ? srv_accept(&b.s, "/gnmi.gNMI/Subscribe", NULL, 0) : NULL;
    CHECK(ca != NULL && cb != NULL);
    if (ca && cb) {
        CHECK(srv_read_request(&a.s, ca, buf, sizeof(buf)) > 0);
        CHECK(srv_read_request(&b.s, cb, buf, sizeof(buf)) > 0);
        CHECK_INT(srv_send(&b.s, cb, buf, pack_update(buf, 1)), 0);
        CHECK_INT(wait_messages(&b, 1).messages, 1);
        uint64_t v = 2;
        for (; v < 12; v++) { /* B streaming */
            CHECK_INT(srv_send(&b.s, cb, buf, pack_update(buf, v)), 0);
            nanosleep(&(struct timespec){0, 20000000}, NULL);
        }
        flockfile(b.log); /* A's gnmi_stream_up line holds the worker */
        CHECK_INT(srv_send(&a.s, ca, buf, pack_update(buf, 5)), 0);
        for (; v < 87; v++) { /* 1.5 s of B, every 20 ms */
            CHECK_INT(srv_send(&b.s, cb, buf, pack_update(buf, v)), 0);
            nanosleep(&(struct timespec){0, 20000000}, NULL);
        }
        funlockfile(b.log);
        for (; v < 97; v++) {
            CHECK_INT(srv_send(&b.s, cb, buf, pack_update(buf, v)), 0);
            nanosleep(&(struct timespec){0, 20000000}, NULL);
        }
        struct fsc_gnmi_stream_stats ss = wait_messages(&b, 96);
        CHECK_INT(ss.messages, 96);
        CHECK_INT(ss.resubscribes, 0);
        CHECK_INT(ss.reconnects, 0);
        CHECK_INT(wait_messages(&a, 1).messages, 1);
        CHECK(!log_has(&b, "event=gnmi_stream_resubscribe"));
    }
    fsc_gnmi_source_ops.stop(a.ctx);
    a.ctx = NULL;
    fsc_gnmi_source_ops.stop(b.ctx);
    b.ctx = NULL;
    CHECK_INT(fsc_gnmi_pool_threads(), 0); /* the pool ends with its last client */
    if (ca)
        srv_end(&a.s, ca, GRPC_STATUS_OK);
    if (cb)
        srv_end(&b.s, cb, GRPC_STATUS_OK);
    fx_stop(&b);
    fx_stop(&a);
    grpc_shutdown();
}

TEST_MAIN(TEST(subscribe_ingest_and_credentials), TEST(failed_call_retried),
          TEST(silent_stream_resubscribed), TEST(unreachable_target_backs_off),
          TEST(stream_cadence_per_series), TEST(late_thread_not_stalled),
          TEST(busy_neighbour_not_stalled))
