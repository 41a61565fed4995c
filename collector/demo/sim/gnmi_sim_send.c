/* The outgoing side of a simulator call: batches, messages, the status,
 * and the --verbose log line; used by the call plumbing
 * (gnmi_sim_server.c) and the streams (gnmi_sim_stream.c), calling neither. */
#include "demo/sim/gnmi_sim_server_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <grpc/byte_buffer.h>
#include <grpc/grpc.h>

/* Logs with --verbose (gnmi_sim_server_int.h). */
void sim_vlog(const struct sim_server *srv, const char *what, const struct call *c)
{
    if (!srv->cfg->verbose)
        return;
    /* The one-target form is what tests grep (reload_test.sh); the target
     * index is appended only when there are several. */
    char tgt[32] = "";
    if (srv->cfg->targets > 1)
        snprintf(tgt, sizeof(tgt), " target=%u", srv->index);
    fprintf(stderr, "gnmi_sim: %s call=%p sent=%llu overruns=%llu%s\n", what, (const void *)c,
            c ? (unsigned long long)c->sent : 0ULL, c ? (unsigned long long)c->overruns : 0ULL,
            tgt);
}

/* Starts a batch (gnmi_sim_server_int.h). */
void sim_start_batch(struct call *c, const grpc_op *ops, size_t n, struct tag *t)
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
    sim_start_batch(c, ops, n, &c->t_status);
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
    sim_start_batch(c, &op, 1, &c->t_send);
    if (!c->dead) {
        c->sending = 1;
        c->sent++;
    }
}
