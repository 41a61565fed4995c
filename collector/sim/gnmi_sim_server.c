/* gRPC C core server of the simulator.
 *
 * One thread, one completion queue. Every call is a small state machine
 * whose tags are `struct tag` members of the call; the loop waits on the
 * queue with a deadline of at most 20 ms so stream ticks, stalls, disconnects
 * and the end of --duration are checked without timers. A stream keeps at
 * most one message in flight and builds the next one when the previous send
 * completes, so memory stays bounded whatever the client's speed: a tick that
 * comes while the previous wrap is still being sent is skipped (counted as
 * an overrun), as a busy device would. */
#include "sim/gnmi_sim.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <grpc/byte_buffer.h>
#include <grpc/byte_buffer_reader.h>
#include <grpc/grpc.h>
#include <grpc/grpc_security.h>
#include <grpc/slice.h>
#include <grpc/support/time.h>

enum tag_kind { TAG_NEW, TAG_RECV, TAG_SEND, TAG_CLOSE, TAG_STATUS, TAG_SHUTDOWN };
enum method { M_UNKNOWN, M_SUBSCRIBE, M_CAPABILITIES };

struct call;
struct tag {
    enum tag_kind kind;
    struct call *c;
};

struct sim_server;

struct call {
    struct sim_server *srv;
    struct call *next;
    grpc_call *call;
    grpc_call_details details;
    grpc_metadata_array md;
    struct tag t_new, t_recv, t_send, t_close, t_status;
    enum method method;
    int pending;          /* batches started and not completed */
    int client_cancelled; /* written by RECV_CLOSE_ON_SERVER */
    int closed;           /* RECV_CLOSE_ON_SERVER completed */
    int dead;             /* nothing more to send (status sent, cancelled, send failed) */
    int sending;
    grpc_byte_buffer *recv_buf;
    grpc_byte_buffer *send_buf;
    grpc_slice status_details;
    int has_status_details;
    /* stream state */
    int streaming;
    struct fsc_sim_request req;
    int64_t interval_ms, start_ms, next_tick_ms;
    int in_wrap, dump_done, sync_pending, sync_sent;
    int64_t wrap_tick_ms;
    uint32_t wrap_port;
    uint32_t batch_start, batch_end; /* ports of this tick's wrap: all, or a Junos batch */
    uint32_t next_batch;             /* --junos-cadence: first port of the next batch */
    unsigned wrap_sensor;            /* FSC_SIM_SENSOR_* being sent */
    uint64_t seq[FSC_SIM_N_SENSORS]; /* next sequence_number, per sensor */
    uint64_t sent, overruns;
    uint64_t updates_built; /* update messages built (--garbage-every counts them) */
    uint64_t garbage;       /* of which replaced by garbage */
    int close_due;          /* --close-after-sync: end the call once the sync is out */
};

struct sim_server {
    const struct fsc_sim_config *cfg;
    grpc_server *server;
    grpc_completion_queue *cq;
    struct call *calls;
    struct call *waiting; /* the call slot of the outstanding request_call */
    int64_t start_ms;
    int64_t first_stream_ms; /* first Subscribe that streams: --fault-for counts from it */
    uint64_t rng;
    int shutting_down, shutdown_done;
    struct tag t_shutdown;
};

static uint64_t rng_next(struct sim_server *srv)
{
    /* xorshift64*: enough for timestamp jitter, reproducible with --seed. */
    uint64_t x = srv->rng;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    srv->rng = x;
    return x * 2685821657736338717ULL;
}

static void vlog(const struct sim_server *srv, const char *what, const struct call *c)
{
    if (srv->cfg->verbose)
        fprintf(stderr, "gnmi_sim: %s call=%p sent=%llu overruns=%llu\n", what, (const void *)c,
                c ? (unsigned long long)c->sent : 0ULL, c ? (unsigned long long)c->overruns : 0ULL);
}

static int request_next(struct sim_server *srv)
{
    struct call *c = calloc(1, sizeof(*c));
    if (!c)
        return -ENOMEM;
    c->srv = srv;
    c->t_new = (struct tag){TAG_NEW, c};
    c->t_recv = (struct tag){TAG_RECV, c};
    c->t_send = (struct tag){TAG_SEND, c};
    c->t_close = (struct tag){TAG_CLOSE, c};
    c->t_status = (struct tag){TAG_STATUS, c};
    grpc_call_details_init(&c->details);
    grpc_metadata_array_init(&c->md);
    if (grpc_server_request_call(srv->server, &c->call, &c->details, &c->md, srv->cq, srv->cq,
                                 &c->t_new) != GRPC_CALL_OK) {
        grpc_call_details_destroy(&c->details);
        grpc_metadata_array_destroy(&c->md);
        free(c);
        return -EIO;
    }
    srv->waiting = c;
    return 0;
}

static void call_free(struct call *c)
{
    if (c->recv_buf)
        grpc_byte_buffer_destroy(c->recv_buf);
    if (c->send_buf)
        grpc_byte_buffer_destroy(c->send_buf);
    if (c->has_status_details)
        grpc_slice_unref(c->status_details);
    grpc_call_details_destroy(&c->details);
    grpc_metadata_array_destroy(&c->md);
    if (c->call)
        grpc_call_unref(c->call);
    free(c);
}

/* Unlinks and frees c once the call is over and no batch is in flight. */
static void call_maybe_free(struct call *c)
{
    if (!c->closed || c->pending > 0)
        return;
    struct sim_server *srv = c->srv;
    for (struct call **pp = &srv->calls; *pp; pp = &(*pp)->next) {
        if (*pp == c) {
            *pp = c->next;
            break;
        }
    }
    vlog(srv, "call done", c);
    call_free(c);
}

static void start_batch(struct call *c, const grpc_op *ops, size_t n, struct tag *t)
{
    if (grpc_call_start_batch(c->call, ops, n, t, NULL) == GRPC_CALL_OK)
        c->pending++;
    else
        c->dead = 1;
}

/* Ends the call with `code`; with_md adds the initial metadata (not sent yet). */
static void send_status(struct call *c, grpc_status_code code, const char *msg, int with_md)
{
    if (c->dead)
        return;
    grpc_op ops[2];
    memset(ops, 0, sizeof(ops));
    size_t n = 0;
    if (with_md)
        ops[n++].op = GRPC_OP_SEND_INITIAL_METADATA;
    if (c->has_status_details)
        grpc_slice_unref(c->status_details);
    c->status_details = grpc_slice_from_copied_string(msg ? msg : "");
    c->has_status_details = 1;
    ops[n].op = GRPC_OP_SEND_STATUS_FROM_SERVER;
    ops[n].data.send_status_from_server.status = code;
    ops[n].data.send_status_from_server.status_details = &c->status_details;
    n++;
    start_batch(c, ops, n, &c->t_status);
    c->dead = 1;
}

/* Sends buf (malloc'd, ownership taken) as the next message. */
static void send_bytes(struct call *c, uint8_t *buf, size_t len)
{
    grpc_slice sl = grpc_slice_new(buf, len, free);
    c->send_buf = grpc_raw_byte_buffer_create(&sl, 1);
    grpc_slice_unref(sl);
    grpc_op op;
    memset(&op, 0, sizeof(op));
    op.op = GRPC_OP_SEND_MESSAGE;
    op.data.send_message.send_message = c->send_buf;
    start_batch(c, &op, 1, &c->t_send);
    if (!c->dead) {
        c->sending = 1;
        c->sent++;
    }
}

static int64_t jittered(struct sim_server *srv, const struct call *c, int64_t tick)
{
    if (srv->cfg->jitter <= 0)
        return tick;
    double span = srv->cfg->jitter * (double)c->interval_ms;
    double u = (double)(rng_next(srv) >> 11) / 9007199254740992.0; /* [0, 1) */
    int64_t t = tick + (int64_t)((2.0 * u - 1.0) * span);
    return t > srv->start_ms ? t : srv->start_ms;
}

/* 1 while the fault modes act: --fault-for from the first Subscribe that
 * streams (not from the start, so a slow client still meets the faults). */
static int faulty(const struct sim_server *srv, int64_t now)
{
    const struct fsc_sim_config *cfg = srv->cfg;
    return cfg->fault_for_ms <= 0 || srv->first_stream_ms == 0 ||
           now - srv->first_stream_ms < cfg->fault_for_ms;
}

/* Replaces the update in *buf (malloc'd, *len bytes) by garbage of kind
 * k % 3: bytes no protobuf reader accepts (field 1 with wire type 7), a
 * CapabilityResponse (a well-formed message of the wrong type), or the
 * update cut in half (a length that runs past the end). The Junos sequence
 * number of the lost update stays used, as on a real lossy target. Returns
 * 0 or -ENOMEM (the update is then left as it was). */
static int make_garbage(struct sim_server *srv, uint64_t k, uint8_t **buf, size_t *len)
{
    uint8_t *g;
    size_t n;
    switch (k % 3) {
    case 0:
        n = 64;
        if (!(g = malloc(n)))
            return -ENOMEM;
        for (size_t i = 0; i < n; i++)
            g[i] = (uint8_t)rng_next(srv);
        g[0] = 0x0f; /* field 1, wire type 7: undecodable whatever follows */
        break;
    case 1:
        if (fsc_sim_msg_capabilities(&g, &n) != 0)
            return -ENOMEM;
        break;
    default:
        *len /= 2;
        return 0;
    }
    free(*buf);
    *buf = g;
    *len = n;
    return 0;
}

/* The wrap is over: after the first one (the initial dump) the
 * sync_response is due. */
static void wrap_done(struct call *c)
{
    c->in_wrap = 0;
    if (c->next_batch != 0)
        return; /* --junos-cadence: the first round of ports is not over */
    if (!c->dump_done) {
        c->dump_done = 1;
        c->sync_pending = 1;
    }
}

/* Builds and sends the next message of the wrap in progress. */
static void send_wrap_message(struct call *c)
{
    struct sim_server *srv = c->srv;
    const struct fsc_sim_config *cfg = srv->cfg;
    /* The epoch follows the tick, not the jittered payload time, so the
     * stream_creation_timestamp of one wrap never flips back and forth around
     * a reset; the payload time is kept at or after the epoch. */
    int64_t epoch = fsc_sim_epoch(cfg, srv->start_ms, c->wrap_tick_ms);
    int64_t payload = jittered(srv, c, c->wrap_tick_ms);
    if (payload < epoch)
        payload = epoch;
    struct fsc_sim_port_values v;
    fsc_sim_port_values(cfg, c->wrap_port, epoch, fsc_sim_value_time(cfg, epoch, payload), &v);
    int si = fsc_sim_sensor_index(c->wrap_sensor);
    int last_port = c->wrap_port + 1 >= c->batch_end;
    /* Junos marks the end of a batch; the default marks each sensor's wrap. */
    int eom = last_port &&
              (!cfg->junos_cadence || fsc_sim_next_sensor(c->req.sensors, c->wrap_sensor) == 0);
    struct fsc_sim_msg_meta meta = {
        .system_id = cfg->system_id,
        .subscribed_path = c->req.path,
        .sensor = c->wrap_sensor,
        .port = c->wrap_port,
        .queues = cfg->queues,
        .sequence = c->seq[si]++,
        .payload_ms = payload,
        .epoch_ms = epoch,
        .export_ms = fsc_sim_now_ms(),
        .eom = eom,
    };
    uint8_t *buf;
    size_t len;
    if (fsc_sim_msg_update(&meta, &v, &buf, &len) != 0) {
        send_status(c, GRPC_STATUS_RESOURCE_EXHAUSTED, "simulator out of memory", 0);
        return;
    }
    c->updates_built++;
    if (cfg->garbage_every > 0 && c->updates_built % cfg->garbage_every == 0 &&
        faulty(srv, meta.export_ms) && make_garbage(srv, c->garbage, &buf, &len) == 0)
        c->garbage++;
    /* Advance: next port, then the next sensor, then the wrap is over. */
    if (!last_port) {
        c->wrap_port++;
    } else if ((c->wrap_sensor = fsc_sim_next_sensor(c->req.sensors, c->wrap_sensor)) != 0) {
        c->wrap_port = c->batch_start;
    } else {
        wrap_done(c);
    }
    send_bytes(c, buf, len);
}

/* Sends whatever the stream owes now: the rest of a wrap, the sync, or a new
 * wrap when its tick is due. */
static void pump(struct call *c, int64_t now)
{
    struct sim_server *srv = c->srv;
    const struct fsc_sim_config *cfg = srv->cfg;
    if (!c->streaming || c->dead || c->closed || c->sending)
        return;
    if (cfg->disconnect_after_ms > 0 && now - c->start_ms >= cfg->disconnect_after_ms) {
        vlog(srv, "disconnect", c);
        grpc_call_cancel_with_status(c->call, GRPC_STATUS_UNAVAILABLE, "simulated link loss", NULL);
        c->dead = 1;
        return;
    }
    if (cfg->stall_after_ms > 0 && now - c->start_ms >= cfg->stall_after_ms)
        return; /* keep the stream open, send nothing */
    if (c->in_wrap) {
        send_wrap_message(c);
        return;
    }
    if (c->sync_pending) {
        uint8_t *buf;
        size_t len;
        c->sync_pending = 0;
        c->sync_sent = 1;
        c->close_due = cfg->close_after_sync && faulty(srv, now);
        if (fsc_sim_msg_sync(&buf, &len) != 0) {
            send_status(c, GRPC_STATUS_RESOURCE_EXHAUSTED, "simulator out of memory", 0);
            return;
        }
        send_bytes(c, buf, len);
        return;
    }
    if (c->close_due) { /* --close-after-sync: the sync is out, end the call */
        vlog(srv, "close after sync", c);
        send_status(c, GRPC_STATUS_OK, "", 0);
        return;
    }
    if (c->req.mode == 1 && c->sync_sent) { /* ONCE: dump, sync, close */
        send_status(c, GRPC_STATUS_OK, "", 0);
        return;
    }
    if (now < c->next_tick_ms)
        return;
    /* --speedup: a target that ignores the subscribed interval. */
    int64_t iv = c->interval_ms;
    if (cfg->speedup > 1 && faulty(srv, now))
        iv = iv / cfg->speedup > 0 ? iv / cfg->speedup : 1;
    c->wrap_tick_ms = c->next_tick_ms;
    c->next_tick_ms += iv;
    if (c->next_tick_ms <= now) { /* the client is slower than the interval */
        int64_t behind = (now - c->next_tick_ms) / iv + 1;
        c->overruns += (uint64_t)behind;
        c->next_tick_ms += behind * iv;
    }
    c->batch_start = 0;
    c->batch_end = cfg->ports;
    if (cfg->junos_cadence) { /* the next batch_ports ports, in turn */
        c->batch_start = c->next_batch;
        c->batch_end = c->batch_start + cfg->batch_ports < cfg->ports
                           ? c->batch_start + cfg->batch_ports
                           : cfg->ports;
        c->next_batch = c->batch_end < cfg->ports ? c->batch_end : 0;
    }
    c->wrap_port = c->batch_start;
    c->wrap_sensor = fsc_sim_next_sensor(c->req.sensors, 0);
    if (!c->wrap_sensor) { /* only paths without data: nothing to send */
        wrap_done(c);
        pump(c, now); /* the sync_response of the (empty) dump */
        return;
    }
    c->in_wrap = 1;
    send_wrap_message(c);
}

static int metadata_equals(const grpc_metadata_array *md, const char *key, const char *want)
{
    for (size_t i = 0; i < md->count; i++) {
        if (grpc_slice_str_cmp(md->metadata[i].key, key) == 0)
            return grpc_slice_str_cmp(md->metadata[i].value, want) == 0;
    }
    return 0;
}

static void on_new(struct sim_server *srv, struct call *c, int ok)
{
    srv->waiting = NULL;
    if (!ok) { /* server shutting down */
        call_free(c);
        return;
    }
    c->next = srv->calls;
    srv->calls = c;
    if (!srv->shutting_down && request_next(srv) != 0)
        fprintf(stderr, "gnmi_sim: cannot request the next call\n");

    if (grpc_slice_str_cmp(c->details.method, "/gnmi.gNMI/Subscribe") == 0)
        c->method = M_SUBSCRIBE;
    else if (grpc_slice_str_cmp(c->details.method, "/gnmi.gNMI/Capabilities") == 0)
        c->method = M_CAPABILITIES;

    grpc_op op;
    memset(&op, 0, sizeof(op));
    op.op = GRPC_OP_RECV_CLOSE_ON_SERVER;
    op.data.recv_close_on_server.cancelled = &c->client_cancelled;
    start_batch(c, &op, 1, &c->t_close);
    if (c->dead) { /* cannot even watch the call: cancel it */
        grpc_call_cancel(c->call, NULL);
        c->closed = 1;
        call_maybe_free(c);
        return;
    }

    const struct fsc_sim_config *cfg = srv->cfg;
    if (c->method == M_UNKNOWN) {
        send_status(c, GRPC_STATUS_UNIMPLEMENTED, "method not served by this target", 1);
        return;
    }
    if (cfg->username &&
        (!metadata_equals(&c->md, "username", cfg->username) ||
         !metadata_equals(&c->md, "password", cfg->password ? cfg->password : ""))) {
        vlog(srv, "auth failed", c);
        send_status(c, GRPC_STATUS_UNAUTHENTICATED, "bad username or password", 1);
        return;
    }
    grpc_op ops[2];
    memset(ops, 0, sizeof(ops));
    ops[0].op = GRPC_OP_SEND_INITIAL_METADATA;
    ops[1].op = GRPC_OP_RECV_MESSAGE;
    ops[1].data.recv_message.recv_message = &c->recv_buf;
    start_batch(c, ops, 2, &c->t_recv);
}

static void on_request(struct call *c, const uint8_t *buf, size_t len, int64_t now)
{
    const struct fsc_sim_config *cfg = c->srv->cfg;
    if (c->method == M_CAPABILITIES) {
        uint8_t *out;
        size_t n;
        if (fsc_sim_msg_capabilities(&out, &n) != 0) {
            send_status(c, GRPC_STATUS_RESOURCE_EXHAUSTED, "simulator out of memory", 0);
            return;
        }
        send_bytes(c, out, n);
        send_status(c, GRPC_STATUS_OK, "", 0);
        return;
    }
    char err[160];
    if (fsc_sim_request_parse(buf, len, &c->req, err, sizeof(err)) != 0) {
        send_status(c, GRPC_STATUS_INVALID_ARGUMENT, err, 0);
        return;
    }
    if (c->req.mode == 2) {
        send_status(c, GRPC_STATUS_UNIMPLEMENTED, "POLL mode is not simulated", 0);
        return;
    }
    if (c->req.encoding != 2) { /* PROTO */
        send_status(c, GRPC_STATUS_UNIMPLEMENTED, "only PROTO encoding is simulated", 0);
        return;
    }
    c->interval_ms = c->req.interval_ms ? c->req.interval_ms : cfg->interval_ms;
    if (cfg->junos_cadence) /* "multiples of 2 seconds": a request is rounded up */
        c->interval_ms = c->interval_ms <= 2000 ? 2000 : (c->interval_ms + 1999) / 2000 * 2000;
    int64_t floor_ms = cfg->min_interval_ms > 0 ? cfg->min_interval_ms : 1;
    if (c->interval_ms < floor_ms) {
        snprintf(err, sizeof(err), "sample_interval %lld ms is below the minimum %lld ms",
                 (long long)c->interval_ms, (long long)floor_ms);
        send_status(c, GRPC_STATUS_INVALID_ARGUMENT, err, 0);
        return;
    }
    c->streaming = 1;
    c->start_ms = now;
    if (c->srv->first_stream_ms == 0)
        c->srv->first_stream_ms = now;
    c->next_tick_ms = now;
    if (c->req.updates_only) { /* no dump: sync first, updates from the next tick */
        c->dump_done = 1;
        c->sync_pending = 1;
        c->next_tick_ms = now + c->interval_ms;
    }
    vlog(c->srv, "subscribe", c);
    pump(c, now);
}

static void on_recv(struct call *c, int ok)
{
    grpc_byte_buffer *bb = c->recv_buf;
    c->recv_buf = NULL;
    if (!ok || !bb) { /* cancelled, or half-closed without a request */
        if (bb)
            grpc_byte_buffer_destroy(bb);
        send_status(c, GRPC_STATUS_INVALID_ARGUMENT, "no request message", 0);
        return;
    }
    grpc_byte_buffer_reader reader;
    if (!grpc_byte_buffer_reader_init(&reader, bb)) {
        grpc_byte_buffer_destroy(bb);
        send_status(c, GRPC_STATUS_INTERNAL, "cannot read the request", 0);
        return;
    }
    grpc_slice sl = grpc_byte_buffer_reader_readall(&reader);
    grpc_byte_buffer_reader_destroy(&reader);
    grpc_byte_buffer_destroy(bb);
    on_request(c, GRPC_SLICE_START_PTR(sl), GRPC_SLICE_LENGTH(sl), fsc_sim_now_ms());
    grpc_slice_unref(sl);
}

static void dispatch(struct sim_server *srv, struct tag *t, int ok)
{
    struct call *c = t->c;
    switch (t->kind) {
    case TAG_SHUTDOWN:
        srv->shutdown_done = 1;
        return;
    case TAG_NEW:
        on_new(srv, c, ok);
        return;
    case TAG_RECV:
        c->pending--;
        on_recv(c, ok);
        break;
    case TAG_SEND:
        c->pending--;
        c->sending = 0;
        grpc_byte_buffer_destroy(c->send_buf);
        c->send_buf = NULL;
        if (!ok)
            c->dead = 1;
        else
            pump(c, fsc_sim_now_ms());
        break;
    case TAG_STATUS:
        c->pending--;
        break;
    case TAG_CLOSE:
        c->pending--;
        c->closed = 1;
        c->dead = 1;
        vlog(srv, c->client_cancelled ? "client cancelled" : "closed", c);
        break;
    }
    call_maybe_free(c);
}

static char *read_file(const char *path, char *err, size_t errlen)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        snprintf(err, errlen, "cannot open %s: %s", path, strerror(errno));
        return NULL;
    }
    char *buf = malloc(65537);
    size_t n = buf ? fread(buf, 1, 65536, f) : 0;
    fclose(f);
    if (!buf) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    buf[n] = '\0';
    return buf;
}

static grpc_server_credentials *make_creds(const struct fsc_sim_config *cfg, char *err,
                                           size_t errlen)
{
    if (!cfg->tls_cert)
        return grpc_insecure_server_credentials_create();
    char *cert = read_file(cfg->tls_cert, err, errlen);
    char *key = cert && cfg->tls_key ? read_file(cfg->tls_key, err, errlen) : NULL;
    char *ca = key && cfg->tls_ca ? read_file(cfg->tls_ca, err, errlen) : NULL;
    grpc_server_credentials *creds = NULL;
    if (cert && key && (!cfg->tls_ca || ca)) {
        grpc_ssl_pem_key_cert_pair pair = {key, cert};
        creds = grpc_ssl_server_credentials_create_ex(
            ca, &pair, 1,
            ca ? GRPC_SSL_REQUEST_AND_REQUIRE_CLIENT_CERTIFICATE_AND_VERIFY
               : GRPC_SSL_DONT_REQUEST_CLIENT_CERTIFICATE,
            NULL);
        if (!creds)
            snprintf(err, errlen, "TLS credentials rejected");
    } else if (cert && !cfg->tls_key) {
        snprintf(err, errlen, "--tls-cert needs --tls-key");
    }
    free(cert);
    free(key);
    free(ca);
    return creds;
}

static gpr_timespec deadline_ms(int64_t ms)
{
    return gpr_time_add(gpr_now(GPR_CLOCK_MONOTONIC), gpr_time_from_millis(ms, GPR_TIMESPAN));
}

int fsc_sim_run(const struct fsc_sim_config *cfg, char *err, size_t errlen)
{
    struct sim_server srv_s;
    struct sim_server *srv = &srv_s;
    memset(srv, 0, sizeof(*srv));
    srv->cfg = cfg;
    srv->rng = cfg->seed ? cfg->seed : 0x9e3779b97f4a7c15ULL;
    srv->t_shutdown = (struct tag){TAG_SHUTDOWN, NULL};
    grpc_server_credentials *creds = make_creds(cfg, err, errlen);
    if (!creds)
        return -1;
    srv->cq = grpc_completion_queue_create_for_next(NULL);
    srv->server = grpc_server_create(NULL, NULL);
    grpc_server_register_completion_queue(srv->server, srv->cq, NULL);
    int port = grpc_server_add_http2_port(srv->server, cfg->listen, creds);
    grpc_server_credentials_release(creds);
    int rc = -1;
    if (port <= 0) {
        snprintf(err, errlen, "cannot listen on %s", cfg->listen);
        grpc_server_destroy(srv->server);
        goto drain_cq;
    }
    grpc_server_start(srv->server);
    srv->start_ms = fsc_sim_now_ms();
    printf("listening port=%d\n", port);
    fflush(stdout);
    if (request_next(srv) != 0) {
        snprintf(err, errlen, "cannot request calls");
        srv->shutting_down = 1;
    } else {
        rc = 0;
    }

    /* Main loop. Bounded: after the duration, shutdown gets 5 s to drain. */
    int64_t end_ms = srv->start_ms + cfg->duration_ms;
    for (;;) {
        int64_t now = fsc_sim_now_ms();
        if (!srv->shutting_down && (now >= end_ms || (cfg->stop && *cfg->stop))) {
            srv->shutting_down = 1;
            end_ms = now; /* the 5 s drain bound starts now */
        }
        if (srv->shutting_down && !srv->t_shutdown.c) {
            /* t_shutdown.c doubles as "shutdown requested" (any non-NULL). */
            srv->t_shutdown.c = (struct call *)srv;
            grpc_server_shutdown_and_notify(srv->server, srv->cq, &srv->t_shutdown);
            grpc_server_cancel_all_calls(srv->server);
        }
        if (srv->shutting_down && srv->shutdown_done && !srv->calls && !srv->waiting)
            break;
        if (srv->shutting_down && now >= end_ms + 5000) {
            snprintf(err, errlen, "shutdown did not drain in 5 s");
            rc = -1;
            break;
        }
        grpc_event ev = grpc_completion_queue_next(srv->cq, deadline_ms(20), NULL);
        if (ev.type == GRPC_OP_COMPLETE)
            dispatch(srv, ev.tag, ev.success);
        now = fsc_sim_now_ms();
        for (struct call *c = srv->calls, *nx; c; c = nx) {
            nx = c->next;
            pump(c, now);
        }
    }
    grpc_server_destroy(srv->server);
    for (struct call *c = srv->calls, *nx; c; c = nx) { /* only after a failed drain */
        nx = c->next;
        call_free(c);
    }
drain_cq:
    grpc_completion_queue_shutdown(srv->cq);
    for (int i = 0; i < 1000; i++) {
        grpc_event ev = grpc_completion_queue_next(srv->cq, deadline_ms(10), NULL);
        if (ev.type == GRPC_QUEUE_SHUTDOWN)
            break;
    }
    grpc_completion_queue_destroy(srv->cq);
    return rc;
}
