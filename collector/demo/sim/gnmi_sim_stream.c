/* The stream of a Subscribe: one wrap per tick (every port, or with
 * --junos-cadence the next batch of ports), each wrap sensor by sensor and
 * port by port, one message in flight; the sync_response after the first
 * wrap; timestamp jitter and the fault modes (--disconnect-after,
 * --stall-after, --close-after-sync, --speedup, --garbage-every). The call
 * plumbing is gnmi_sim_server.c, the sending gnmi_sim_send.c. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "demo/sim/gnmi_sim_server_int.h"

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
    int64_t vt = fsc_sim_value_time(cfg, epoch, payload);
    fsc_sim_port_values(cfg, c->wrap_port, epoch, vt, &v);
    if (c->wrap_sensor == FSC_SIM_SENSOR_QOS || c->wrap_sensor == FSC_SIM_SENSOR_QMON) {
        /* The peak since the port's last report of this sensor. */
        uint32_t p = c->wrap_port;
        int qos = c->wrap_sensor == FSC_SIM_SENSOR_QOS;
        int64_t *from = qos ? &c->qos_from[p] : &c->qmon_from[p];
        int64_t *to = qos ? &c->qos_to[p] : &c->qmon_to[p];
        fsc_sim_peak_window(from, to, epoch, vt, c->interval_ms);
        fsc_sim_queue_levels(cfg, p, epoch, *from, *to, &v);
    }
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
        .clock_ahead_ms = cfg->clock_ahead_ms,
        .eom = eom,
        /* Junos sends zeros in the initial sync dump ("gNMI Subscription",
         * Junos telemetry guide) and suppresses them afterwards. */
        .zero_suppress = cfg->zero_suppress && c->sync_sent,
    };
    uint8_t *buf;
    size_t len;
    if (fsc_sim_msg_update(&meta, &v, &buf, &len) != 0) {
        sim_send_status(c, GRPC_STATUS_RESOURCE_EXHAUSTED, "simulator out of memory", 0);
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
    sim_send_bytes(c, buf, len);
}

/* Sends whatever the stream owes now (gnmi_sim_server_int.h). */
void sim_stream_pump(struct call *c, int64_t now)
{
    struct sim_server *srv = c->srv;
    const struct fsc_sim_config *cfg = srv->cfg;
    if (!c->streaming || c->dead || c->closed || c->sending)
        return;
    if (cfg->disconnect_after_ms > 0 && now - c->start_ms >= cfg->disconnect_after_ms) {
        sim_vlog(srv, "disconnect", c);
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
            sim_send_status(c, GRPC_STATUS_RESOURCE_EXHAUSTED, "simulator out of memory", 0);
            return;
        }
        sim_send_bytes(c, buf, len);
        return;
    }
    if (c->close_due) { /* --close-after-sync: the sync is out, end the call */
        sim_vlog(srv, "close after sync", c);
        sim_send_status(c, GRPC_STATUS_OK, "", 0);
        return;
    }
    if (c->req.mode == 1 && c->sync_sent) { /* ONCE: dump, sync, close */
        sim_send_status(c, GRPC_STATUS_OK, "", 0);
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
        /* Tests match holes in the client's fine rates to these: no sample
         * was taken between this tick and the next one sent. */
        if (cfg->verbose)
            fprintf(stderr, "gnmi_sim: overrun tick_ms=%lld next_ms=%lld skipped=%lld\n",
                    (long long)c->wrap_tick_ms, (long long)c->next_tick_ms, (long long)behind);
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
        sim_stream_pump(c, now); /* the sync_response of the (empty) dump */
        return;
    }
    c->in_wrap = 1;
    send_wrap_message(c);
}

/* Starts the stream of a parsed Subscribe (gnmi_sim_server_int.h). */
void sim_stream_start(struct call *c, int64_t now)
{
    const struct fsc_sim_config *cfg = c->srv->cfg;
    char err[160];
    c->interval_ms = c->req.interval_ms ? c->req.interval_ms : cfg->interval_ms;
    if (cfg->junos_cadence) /* "multiples of 2 seconds": a request is rounded up */
        c->interval_ms = c->interval_ms <= 2000 ? 2000 : (c->interval_ms + 1999) / 2000 * 2000;
    int64_t floor_ms = cfg->min_interval_ms > 0 ? cfg->min_interval_ms : 1;
    if (c->interval_ms < floor_ms) {
        snprintf(err, sizeof(err), "sample_interval %lld ms is below the minimum %lld ms",
                 (long long)c->interval_ms, (long long)floor_ms);
        sim_send_status(c, GRPC_STATUS_INVALID_ARGUMENT, err, 0);
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
    sim_vlog(c->srv, "subscribe", c);
    sim_stream_pump(c, now);
}
