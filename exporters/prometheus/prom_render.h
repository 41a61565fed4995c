/* Prometheus exposition of everything fabricscope knows (docs/METRICS.md):
 * the canonical counters from the registry and the engine, the engine's
 * derived gauges and histograms, detector counters and fabricscope_ self
 * metrics, in text format 0.0.4 or OpenMetrics 1.0.
 *
 * Rendering never holds the engine lock for long: it copies series views in
 * chunks (fsc_engine_view_ids) and formats outside the lock. Families are
 * contiguous, each with HELP and TYPE, and their order and the order of their
 * series are stable from scrape to scrape. Series whose source has moved on
 * for longer than stale_after are left out, so a removed port disappears.
 *
 * Thread: a renderer is used by one thread at a time (the HTTP layer
 * serialises renders); it reads the registry and engine, which are safe to
 * read while sources ingest. */
#ifndef FSC_PROM_RENDER_H
#define FSC_PROM_RENDER_H

#include <stddef.h>
#include <stdint.h>

#include "base/buf.h"
#include "config/config.h"
#include "model/registry.h"
#include "engine/engine.h"

enum fsc_prom_format {
    FSC_PROM_TEXT = 0,        /* text/plain; version=0.0.4 */
    FSC_PROM_OPENMETRICS = 1, /* application/openmetrics-text; version=1.0.0 */
};

/* One subscription stream of a streaming source (gNMI), for the
 * fabricscope_gnmi_* self-metrics. Strings are borrowed for one render. */
struct fsc_prom_stream_stat {
    const char *source;
    const char *stream;
    int up;                 /* 1 while streaming */
    double last_update_age; /* seconds since the last response; < 0 = never */
    uint64_t messages, updates, decode_errors, seq_gaps, reconnects, resubscribes;
    /* Observed cadence and jitter (seconds) from cadence_intervals device-time
     * intervals; 0 intervals = not known yet, the two gauges are left out. */
    uint64_t cadence_intervals;
    double cadence_s, jitter_s;
};

/* One transport of a push receiver (OTLP gRPC or HTTP), for the
 * fabricscope_otlp_* self-metrics. Strings are borrowed for one render. */
struct fsc_prom_receiver_stat {
    const char *source;
    const char *transport;                                      /* "grpc" or "http" */
    uint64_t ok, partial, bad_request, too_large, other_errors; /* requests by outcome */
    uint64_t bytes, points, rejected;
    uint64_t skipped_other_shard, skipped_no_value; /* points skipped, by reason */
};

/* Failures by reason of a listener that checks credentials or client
 * certificates, for fabricscope_listener_auth_failures_total. `listener` as
 * in the listener_auth_failed log line ("prometheus", "otlp/http:<source>"). */
enum fsc_prom_auth_reason {
    FSC_PROM_AUTH_MISSING = 0, /* no Authorization header */
    FSC_PROM_AUTH_MALFORMED,
    FSC_PROM_AUTH_UNKNOWN_USER,
    FSC_PROM_AUTH_BAD_PASSWORD,
    FSC_PROM_AUTH_BAD_TOKEN,
    FSC_PROM_AUTH_CLIENT_CERT, /* 403: client certificate missing or untrusted */
    FSC_PROM_AUTH__COUNT
};
struct fsc_prom_listener_stat {
    char listener[96];
    uint64_t failures[FSC_PROM_AUTH__COUNT];
};

/* The rollup store's counters (collector/rollup), for fabricscope_rollup_*. */
struct fsc_prom_rollup_stat {
    uint64_t written, dropped; /* records written / refused (over max_bytes, or a write failed) */
    uint64_t write_errors;     /* failed write / sync / open calls */
    uint64_t torn_cut;         /* torn last records cut when a day file was reopened */
    uint64_t series_dropped;   /* series the rollup could not track */
};

/* The Kafka exporter's counters (since start) and gauges (now), for the
 * fabricscope_kafka_* self-metrics: the daemon copies them from
 * exporters/kafka's struct fsc_kafka_stats, so that this library needs no
 * librdkafka. `topic` (the events topic) is borrowed for one render. */
struct fsc_prom_kafka_stat {
    const char *topic;
    uint64_t queued;    /* events taken in (spooled or handed to librdkafka) */
    uint64_t delivered; /* delivery reports without error */
    uint64_t failed;    /* delivery reports with an error, every attempt */
    uint64_t retried;   /* records handed to librdkafka again */
    uint64_t spooled;   /* events that had to wait in the on-disk spool */
    /* events lost, by reason */
    uint64_t dropped_bus, dropped_encode, dropped_full, dropped_error;
    uint64_t spool_corrupt;     /* bad records found in the spool at start */
    uint64_t spool_io_errors;   /* failed spool writes / fsyncs / unlinks */
    uint64_t producer_restarts; /* producer re-created after a fatal error */
    /* gauges */
    uint64_t queue_messages, queue_bytes; /* inside librdkafka, not yet reported */
    uint64_t spool_records, spool_bytes;  /* in the spool, not yet delivered */
    int broker_up;                        /* 1 while a broker connection is up */
};

/* The remote_write exporter's counters and gauges, for the
 * fabricscope_remote_write_* self-metrics: the daemon copies them from
 * exporters/remote_write's struct fsc_remote_write_stats, so that this
 * library needs no libcurl. */
#define FSC_PROM_RW_CODES   17
#define FSC_PROM_RW_BUCKETS 16
struct fsc_prom_remote_write_stat {
    uint64_t sent, failed, dropped, retried; /* samples by result */
    uint64_t queue_samples, queue_capacity;
    double last_success_s; /* Unix time of the last accepted request; 0 = none yet */
    size_t n_codes;        /* requests by HTTP status ("error": no response) */
    struct {
        char code[8];
        uint64_t requests;
    } codes[FSC_PROM_RW_CODES];
    /* request duration histogram: bounds le[0..n_le), per-bucket (not
     * cumulative) counts, bucket[n_le] = +Inf */
    size_t n_le;
    double le[FSC_PROM_RW_BUCKETS];
    uint64_t bucket[FSC_PROM_RW_BUCKETS + 1];
    double sum;
};

/* What the renderer reads; all borrowed and outliving the renderer. */
struct fsc_prom_render_env {
    struct fsc_registry *reg;
    struct fsc_engine *eng;
    const struct fsc_config *cfg; /* engine windows, exporters.prometheus, sources */
    /* Health of cfg->sources[i] for fabricscope_up: 1 running and healthy,
     * 0 not. NULL: every enabled source counts as up. */
    int (*source_up)(void *arg, size_t source_index);
    void *source_up_arg;
    /* Fills up to cap stream stats and returns how many streams exist (may
     * exceed cap; the rest are not shown). NULL: no stream families. */
    size_t (*streams)(void *arg, struct fsc_prom_stream_stat *out, size_t cap);
    void *streams_arg;
    /* Fills up to cap receiver transport stats and returns how many exist.
     * NULL: no fabricscope_otlp_* families. */
    size_t (*receivers)(void *arg, struct fsc_prom_receiver_stat *out, size_t cap);
    void *receivers_arg;
    /* Fills *out and returns 1 while a Kafka exporter runs; returns 0 when
     * none does. NULL or 0: no fabricscope_kafka_* families. */
    int (*kafka)(void *arg, struct fsc_prom_kafka_stat *out);
    void *kafka_arg;
    /* Fills *out and returns 1 while a remote_write exporter runs, else 0.
     * NULL or 0: no fabricscope_remote_write_* families. */
    int (*remote_write)(void *arg, struct fsc_prom_remote_write_stat *out);
    void *remote_write_arg;
    /* Fills up to cap listener stats (gated listeners only) and returns how
     * many exist. NULL: no fabricscope_listener_auth_failures_total. */
    size_t (*listeners)(void *arg, struct fsc_prom_listener_stat *out, size_t cap);
    void *listeners_arg;
    /* Fills *out and returns 1 while the rollup runs, else 0. NULL or 0: no
     * fabricscope_rollup_* families. */
    int (*rollup)(void *arg, struct fsc_prom_rollup_stat *out);
    void *rollup_arg;
};

struct fsc_prom_renderer;

/* Creates a renderer. Returns NULL with a sentence in err on allocation
 * failure. */
struct fsc_prom_renderer *fsc_prom_renderer_create(const struct fsc_prom_render_env *env, char *err,
                                                   size_t errlen);

/* Frees it. NULL is a no-op. */
void fsc_prom_renderer_destroy(struct fsc_prom_renderer *r);

/* Renders the whole exposition into out (reset first; its memory is reused).
 * now_ns is the wall clock (for staleness). Returns 0, or a negative errno
 * (-ENOMEM, -E2BIG when out's limit is hit). */
int fsc_prom_render(struct fsc_prom_renderer *r, enum fsc_prom_format fmt, int64_t now_ns,
                    struct fsc_buf *out);

/* Content-Type header value of a format. */
const char *fsc_prom_content_type(enum fsc_prom_format fmt);

#endif
