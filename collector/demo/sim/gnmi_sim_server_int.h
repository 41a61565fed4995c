/* Private to the simulator's server (gnmi_sim_run.c, gnmi_sim_server.c,
 * gnmi_sim_stream.c, gnmi_sim_send.c): a call, a target's server, and what
 * the files share. gnmi_sim_run.c binds the targets and runs the one loop
 * that serves them all; gnmi_sim_server.c is the gRPC call plumbing
 * (accepting calls, the request, completions); gnmi_sim_stream.c the stream
 * of a Subscribe (ticks, wraps, Junos batches, the sync, the fault modes);
 * gnmi_sim_send.c what a call sends (batches, messages, the status). */
#ifndef FSC_GNMI_SIM_SERVER_INT_H
#define FSC_GNMI_SIM_SERVER_INT_H

#include <stddef.h>
#include <stdint.h>

#include <grpc/grpc.h>
#include <grpc/slice.h>

#include "demo/sim/gnmi_sim.h"

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
    /* Per port and queue sensor (qos, qmon-sw): the value-time window
     * [from, to) of its last report (to 0 = none yet), so each report's peak
     * covers the time since the previous one of that sensor, however many
     * intervals a batch cadence put between. */
    int64_t qos_from[FSC_SIM_MAX_PORTS], qos_to[FSC_SIM_MAX_PORTS];
    int64_t qmon_from[FSC_SIM_MAX_PORTS], qmon_to[FSC_SIM_MAX_PORTS];
    uint64_t sent, overruns;
    uint64_t updates_built; /* update messages built (--garbage-every counts them) */
    uint64_t garbage;       /* of which replaced by garbage */
    int close_due;          /* --close-after-sync: end the call once the sync is out */
};

/* One simulated target: its own gRPC server (listening port), calls,
 * counter epoch and random state. Every target of a process shares the one
 * completion queue and the one thread of fsc_sim_run. */
struct sim_server {
    const struct fsc_sim_config *cfg; /* &own */
    struct fsc_sim_config own; /* the run's config with this target's system_id, utilization */
    char system_id[128];
    uint32_t index; /* 0 .. targets-1 */
    grpc_server *server;
    grpc_completion_queue *cq; /* shared by every target */
    struct call *calls;
    struct call *waiting; /* the call slot of the outstanding request_call */
    int64_t start_ms;
    int64_t first_stream_ms; /* first Subscribe that streams: --fault-for counts from it */
    uint64_t rng;
    int shutting_down, shutdown_requested, shutdown_done;
    struct tag t_shutdown;
};

/* ---- gnmi_sim_server.c ---- */

/* Posts the next grpc_server_request_call of srv (the call slot becomes
 * srv->waiting). Returns 0, -ENOMEM or -EIO. */
int sim_request_next(struct sim_server *srv);

/* Frees a call that is over (or, after a failed drain, still listed). */
void sim_call_free(struct call *c);

/* Handles one completion of the shared queue: `t` is a tag of a call or the
 * t_shutdown of a server; the call is freed once it is over. */
void sim_dispatch(struct tag *t, int ok);

/* ---- gnmi_sim_send.c ---- */

/* With --verbose, logs `what` about call c (NULL: none) with its counts. */
void sim_vlog(const struct sim_server *srv, const char *what, const struct call *c);

/* Ends the call with `code` and msg (copied); with_md adds the initial
 * metadata (not sent yet). Marks the call dead; a no-op on a dead call. */
void sim_send_status(struct call *c, grpc_status_code code, const char *msg, int with_md);

/* Sends buf (malloc'd, ownership taken) as the next message of the call;
 * c->sending is set until its TAG_SEND completes (the call is marked dead
 * when the batch cannot start). */
void sim_send_bytes(struct call *c, uint8_t *buf, size_t len);

/* Starts a batch of n ops on the call with tag t (counted in c->pending);
 * marks the call dead when gRPC refuses it. */
void sim_start_batch(struct call *c, const grpc_op *ops, size_t n, struct tag *t);

/* ---- gnmi_sim_stream.c ---- */

/* Starts the stream of a parsed Subscribe (c->req) at `now`: picks and
 * checks the interval (InvalidArgument below the minimum ends the call),
 * then sends what is due. */
void sim_stream_start(struct call *c, int64_t now);

/* Sends whatever the stream owes now: the rest of a wrap, the sync, or a new
 * wrap when its tick is due. A no-op for a call that is not streaming, is
 * dead or closed, or has a message in flight. */
void sim_stream_pump(struct call *c, int64_t now);

#endif
