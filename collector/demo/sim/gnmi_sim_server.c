/* gRPC C core call plumbing of the simulator (gnmi_sim_run.c runs the loop).
 *
 * Every call is a small state machine whose tags are `struct tag` members of
 * the call; each call belongs to one target (c->srv). This file accepts
 * calls, reads the request and dispatches completions; what a stream sends
 * and when is gnmi_sim_stream.c, how a call sends gnmi_sim_send.c. */
#include "demo/sim/gnmi_sim_server_int.h"

#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <grpc/byte_buffer.h>
#include <grpc/byte_buffer_reader.h>
#include <grpc/grpc.h>

/* Posts the next request_call of srv (gnmi_sim_server_int.h). */
int sim_request_next(struct sim_server *srv)
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

/* Frees a call (gnmi_sim_server_int.h). */
void sim_call_free(struct call *c)
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
    sim_call_free(c);
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
        sim_call_free(c);
        return;
    }
    c->next = srv->calls;
    srv->calls = c;
    if (!srv->shutting_down && sim_request_next(srv) != 0)
        fprintf(stderr, "gnmi_sim: cannot request the next call\n");

    if (grpc_slice_str_cmp(c->details.method, "/gnmi.gNMI/Subscribe") == 0)
        c->method = M_SUBSCRIBE;
    else if (grpc_slice_str_cmp(c->details.method, "/gnmi.gNMI/Capabilities") == 0)
        c->method = M_CAPABILITIES;

    grpc_op op;
    memset(&op, 0, sizeof(op));
    op.op = GRPC_OP_RECV_CLOSE_ON_SERVER;
    op.data.recv_close_on_server.cancelled = &c->client_cancelled;
    sim_start_batch(c, &op, 1, &c->t_close);
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
    sim_start_batch(c, ops, 2, &c->t_recv);
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
    if (fsc_sim_request_parse(buf, len, FSC_SIM_SENSORS_SERVED(c->srv->cfg), &c->req, err,
                              sizeof(err)) != 0) {
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

/* Handles one completion (gnmi_sim_server_int.h). */
void sim_dispatch(struct tag *t, int ok)
{
    struct call *c = t->c;
    switch (t->kind) {
    case TAG_SHUTDOWN: /* the tag is the t_shutdown member of its server */
        ((struct sim_server *)(void *)((char *)t - offsetof(struct sim_server, t_shutdown)))
            ->shutdown_done = 1;
        return;
    case TAG_NEW:
        on_new(c->srv, c, ok);
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
        sim_vlog(c->srv, c->client_cancelled ? "client cancelled" : "closed", c);
        break;
    }
    call_maybe_free(c);
}
