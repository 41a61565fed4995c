/* The Prometheus remote_write 1.0 exporter (docs/CONFIG.md "remote_write", docs/METRICS.md
 * "remote_write exporter").
 *
 * Two threads per exporter:
 * - the reader, every `resolution`, copies engine views in chunks (the same
 *   fsc_engine_view_ids() the /metrics renderer uses) and queues one sample
 *   per selected series whose time moved since the previous read, stamped
 *   with the sample's own time (device time of the last sample; the end of
 *   the window for window rates);
 * - the sender takes batches of up to max_samples_per_send from the bounded
 *   queue, encodes them (rw_batch.c), snappy-compresses them and POSTs them
 *   with libcurl; 429, 5xx and connection errors are retried with jittered
 *   exponential backoff (Retry-After honoured), other 4xx are counted as
 *   failed and not retried.
 * The queue holds at most queue_max samples; beyond that the oldest are
 * dropped and counted. Up to one more batch is outside it: the one on the
 * wire or waiting for its retry.
 *
 * Thread: start and stop from one thread (the daemon's); stats from any. */
#ifndef FSC_REMOTE_WRITE_H
#define FSC_REMOTE_WRITE_H

#include <stddef.h>
#include <stdint.h>

#include "remote_write/rw_config.h"
#include "model/registry.h"
#include "engine/engine.h"

/* Request duration histogram bounds, seconds (upper, inclusive); +Inf is
 * implied. */
#define FSC_RW_DURATION_BUCKETS 11
extern const double fsc_rw_duration_le[FSC_RW_DURATION_BUCKETS];

/* Distinct HTTP statuses counted one by one; the rest add up under "other". */
#define FSC_RW_MAX_CODES 15

struct fsc_remote_write_options {
    const struct fsc_remote_write_config *cfg; /* borrowed, outlives the exporter */
    struct fsc_registry *reg;                  /* borrowed */
    struct fsc_engine *eng;                    /* borrowed */
    int64_t window_ns; /* width of the engine's first window (0: no window rates) */
    const struct fsc_rate_params *rate; /* the engine's windows (borrowed, copied at start):
                                         * each series' rate level */
};

struct fsc_remote_write_stats {
    /* samples, since start */
    uint64_t sent;    /* in requests the receiver accepted (2xx) */
    uint64_t failed;  /* in requests refused for good (4xx but 429), or not encodable */
    uint64_t dropped; /* pushed out of a full queue, or still unsent at stop */
    uint64_t retried; /* sent again after a 429 / 5xx / connection error (per retry) */
    /* gauges */
    uint64_t queue_samples;  /* in the queue plus the batch on the wire */
    uint64_t queue_capacity; /* queue_max */
    double last_success_s;   /* Unix time of the last 2xx; 0 = none yet */
    /* requests by outcome: HTTP status, "error" (no response), "other" */
    size_t n_codes;
    struct {
        char code[8];
        uint64_t requests;
    } codes[FSC_RW_MAX_CODES + 2];
    /* request duration: per bucket (not cumulative), [FSC_RW_DURATION_BUCKETS] = +Inf */
    uint64_t duration_bucket[FSC_RW_DURATION_BUCKETS + 1];
    double duration_sum;
};

struct fsc_remote_write;

/* Starts the exporter's two threads. Nothing is sent before the first
 * reading; an unreachable receiver is no error (retried, logged). Returns
 * NULL with a sentence in err on a setting libcurl refuses, a TLS option it
 * cannot honour, or allocation failure. Thread: the caller's; calls
 * curl_global_init(), which is thread-safe since libcurl 7.84 (Debian 12 has
 * 7.88), so other libcurl users (librdkafka) may already run. */
struct fsc_remote_write *fsc_remote_write_start(const struct fsc_remote_write_options *opt,
                                                char *err, size_t errlen);

/* Takes a last reading, sends what is queued for at most flush_ns (retries
 * included), stops both threads and frees everything. Samples still unsent
 * then count as dropped (log line remote_write_stopped). NULL is a no-op.
 * The registry and engine must still exist. */
void fsc_remote_write_stop(struct fsc_remote_write *rw, int64_t flush_ns);

/* Copies the counters. Thread: any; takes the exporter's stats lock. */
void fsc_remote_write_stats(struct fsc_remote_write *rw, struct fsc_remote_write_stats *out);

#endif
