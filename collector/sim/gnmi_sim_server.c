/* gRPC C core server of the simulator.
 *
 * One thread, one completion queue. Every call is a small state machine
 * whose tags are `struct tag` members of the call; the loop waits on the
 * queue with a deadline of at most 20 ms so stream ticks, stalls, disconnects
 * and the end of --duration are checked without timers. A stream keeps at
 * most one message in flight and builds the next one when the previous send
 * completes, so memory stays bounded whatever the client's speed: a tick that
 * comes while the previous wrap is still being sent is skipped (counted as
 * an overrun), as a busy device would. This file is the call plumbing;
 * what a stream sends and when is gnmi_sim_stream.c. */
#include "sim/gnmi_sim_server_int.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <grpc/byte_buffer.h>
#include <grpc/byte_buffer_reader.h>
#include <grpc/grpc.h>
#include <grpc/grpc_security.h>
#include <grpc/support/time.h>

/* Logs with --verbose (gnmi_sim_server_int.h). */
void sim_vlog(const struct sim_server *srv, const char *what, const struct call *c)
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
    sim_vlog(srv, "call done", c);
    call_free(c);
}

static void start_batch(struct call *c, const grpc_op *ops, size_t n, struct tag *t)
{
    if (grpc_call_start_batch(c->call, ops, n, t, NULL) == GRPC_CALL_OK)
        c->pending++;
    else
        c->dead = 1;
}

/* Ends the call with `code`; with_md adds the initial metadata (not sent yet)
 * (gnmi_sim_server_int.h). */
void sim_send_status(struct call *c, grpc_status_code code, const char *msg, int with_md)
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

/* Sends buf (malloc'd, ownership taken) as the next message
 * (gnmi_sim_server_int.h). */
void sim_send_bytes(struct call *c, uint8_t *buf, size_t len)
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
        sim_send_status(c, GRPC_STATUS_UNIMPLEMENTED, "method not served by this target", 1);
        return;
    }
    if (cfg->username &&
        (!metadata_equals(&c->md, "username", cfg->username) ||
         !metadata_equals(&c->md, "password", cfg->password ? cfg->password : ""))) {
        sim_vlog(srv, "auth failed", c);
        sim_send_status(c, GRPC_STATUS_UNAUTHENTICATED, "bad username or password", 1);
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
    if (c->method == M_CAPABILITIES) {
        uint8_t *out;
        size_t n;
        if (fsc_sim_msg_capabilities(&out, &n) != 0) {
            sim_send_status(c, GRPC_STATUS_RESOURCE_EXHAUSTED, "simulator out of memory", 0);
            return;
        }
        sim_send_bytes(c, out, n);
        sim_send_status(c, GRPC_STATUS_OK, "", 0);
        return;
    }
    char err[160];
    if (fsc_sim_request_parse(buf, len, &c->req, err, sizeof(err)) != 0) {
        sim_send_status(c, GRPC_STATUS_INVALID_ARGUMENT, err, 0);
        return;
    }
    if (c->req.mode == 2) {
        sim_send_status(c, GRPC_STATUS_UNIMPLEMENTED, "POLL mode is not simulated", 0);
        return;
    }
    if (c->req.encoding != 2) { /* PROTO */
        sim_send_status(c, GRPC_STATUS_UNIMPLEMENTED, "only PROTO encoding is simulated", 0);
        return;
    }
    sim_stream_start(c, now);
}

static void on_recv(struct call *c, int ok)
{
    grpc_byte_buffer *bb = c->recv_buf;
    c->recv_buf = NULL;
    if (!ok || !bb) { /* cancelled, or half-closed without a request */
        if (bb)
            grpc_byte_buffer_destroy(bb);
        sim_send_status(c, GRPC_STATUS_INVALID_ARGUMENT, "no request message", 0);
        return;
    }
    grpc_byte_buffer_reader reader;
    if (!grpc_byte_buffer_reader_init(&reader, bb)) {
        grpc_byte_buffer_destroy(bb);
        sim_send_status(c, GRPC_STATUS_INTERNAL, "cannot read the request", 0);
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
            sim_stream_pump(c, fsc_sim_now_ms());
        break;
    case TAG_STATUS:
        c->pending--;
        break;
    case TAG_CLOSE:
        c->pending--;
        c->closed = 1;
        c->dead = 1;
        sim_vlog(srv, c->client_cancelled ? "client cancelled" : "closed", c);
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
            sim_stream_pump(c, now);
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
