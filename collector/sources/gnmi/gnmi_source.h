/* The `gnmi` source: a dial-in gNMI client for one device (docs/DESIGN.md, "Plugins").
 *
 * One instance per `sources:` entry of type gnmi. start() plans one
 * SubscribeRequest per configured stream (gnmi_plan.h), opens a gRPC channel
 * to the device (plaintext or TLS) and starts one thread with its own
 * completion queue; that thread runs one bidirectional Subscribe call per
 * stream, decodes every SubscribeResponse (gnmi_decode.h) and feeds the
 * engine. A stream that fails is retried with jittered exponential backoff; a
 * stream silent for stall_intervals x its interval is cancelled and
 * resubscribed. Devices never share a thread, a channel or a queue, so one
 * failing device cannot affect another.
 *
 * gRPC's own log lines are routed through fsc_log_lib("grpc", ...): the
 * first start() in the process installs the hook with gpr_set_log_function
 * (a process-wide setting of gRPC, installed once, never removed). */
#ifndef FSC_GNMI_SOURCE_H
#define FSC_GNMI_SOURCE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "plugin/source.h"
#include "sources/gnmi/gnmi_config.h"

extern const struct fsc_source_ops fsc_gnmi_source_ops;

/* Streams of one instance its stats report at most. */
#define GNMI_STATS_MAX 64

enum fsc_gnmi_stream_state {
    FSC_GNMI_STATE_CONNECTING = 0, /* call started, nothing received yet */
    FSC_GNMI_STATE_STREAMING = 1,  /* at least one response received on this call */
    FSC_GNMI_STATE_BACKOFF = 2,    /* waiting to retry after a failure */
};

/* Counters of one stream since start (for self-monitoring exporters). */
struct fsc_gnmi_stream_stats {
    char name[64];                    /* the stream's configured name */
    enum fsc_gnmi_stream_state state; /* now */
    bool sync_seen;                   /* sync_response seen on the current call */
    int64_t last_update_ns;           /* wall time of the last response; 0 = never */
    uint64_t messages;                /* SubscribeResponses received */
    uint64_t updates;                 /* Update entries in them */
    uint64_t samples;                 /* samples fed to the engine */
    uint64_t decode_errors;           /* malformed responses */
    uint64_t seq_lost;                /* Junos messages lost (sequence numbers never seen) */
    uint64_t seq_late;                /* Junos messages that arrived after a higher number */
    uint64_t reconnects;              /* calls that failed and were retried after backoff */
    uint64_t resubscribes;            /* calls cancelled for silence and restarted */
    uint64_t names_hashed;            /* updates of series with a list-key label name hashed */
    uint64_t zero_filled; /* samples of 0 given to zero-suppressed counters (gnmi_zero.c) */
    /* Observed cadence (gnmi_client.h, struct fsc_gnmi_cadence): device-time
     * interval between messages that start with the same series, EWMA over ~64 intervals,
     * and the mean absolute deviation of the intervals from it; both in
     * seconds and meaningful once cadence_intervals > 0. */
    uint64_t cadence_intervals;
    double cadence_s;
    double jitter_s;
};

/* Copies the stats of up to `cap` streams of a running gnmi instance (the
 * ctx returned by fsc_gnmi_source_ops.start) into out[], in config order.
 * Returns the instance's number of streams (may exceed cap). Thread: any;
 * takes the instance's stats mutex briefly. */
size_t fsc_gnmi_source_stats(void *ctx, struct fsc_gnmi_stream_stats *out, size_t cap);

#endif
