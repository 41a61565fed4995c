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

#include <stddef.h>

#include "plugin/source.h"
#include "sources/gnmi/gnmi_config.h"
#include "sources/gnmi/gnmi_stream_stats.h"

extern const struct fsc_source_ops fsc_gnmi_source_ops;

/* Streams of one instance its stats report at most. */
#define GNMI_STATS_MAX 64

/* Copies the stats of up to `cap` streams of a running gnmi instance (the
 * ctx returned by fsc_gnmi_source_ops.start) into out[], in config order.
 * Returns the instance's number of streams (may exceed cap). Thread: any;
 * takes the instance's stats mutex briefly. */
size_t fsc_gnmi_source_stats(void *ctx, struct fsc_gnmi_stream_stats *out, size_t cap);

#endif
