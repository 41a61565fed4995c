/* What one OTLP transport counts (internal to collector/sources/otlp): the
 * outcome of a request as the pipeline hands it over (otlp_server.h), and
 * the per-transport counters with their rate-limited error log, which the
 * transports fill and the instance reads (fsc_otlp_source_stats). Depends on
 * no other file of the source, so the transports and the instance both use
 * it without knowing each other. */
#ifndef FSC_OTLP_TRANSPORT_STATS_H
#define FSC_OTLP_TRANSPORT_STATS_H

#include <pthread.h>
#include <stdint.h>

#include "net/admit_stats.h"
#include "net/http_sec.h"

/* Counters of one transport since start (self-monitoring). */
struct fsc_otlp_transport_stats {
    const char *transport;   /* "grpc" or "http" (static string) */
    uint16_t port;           /* bound port (0 when off) */
    uint64_t requests;       /* requests answered, any status */
    uint64_t ok;             /* full success */
    uint64_t partial;        /* partial success (some points rejected) */
    uint64_t bad_request;    /* malformed body: HTTP 400 / INVALID_ARGUMENT */
    uint64_t too_large;      /* over a size cap: HTTP 413 / RESOURCE_EXHAUSTED */
    uint64_t other_errors;   /* wrong method/path/type, internal errors */
    uint64_t bytes_received; /* request bytes on the wire (before decompression) */
    uint64_t points;         /* data points in decoded requests */
    uint64_t rejected;       /* points rejected by the ingest */
    /* points skipped (neither accepted nor rejected): of a device another
     * shard owns, or NO_RECORDED_VALUE staleness markers */
    uint64_t skipped_other_shard, skipped_no_value;
    struct fsc_http_sec_stats sec; /* listener refusals (HTTP only; gated 0 otherwise) */
    struct fsc_admit_stats admit;  /* what admission closed or refused (present 0: none) */
};

/* What a request came to (the pipeline's answer, otlp_server.h). */
enum fsc_otlp_verdict {
    FSC_OTLP_OK = 0,      /* every point accepted (or skipped) */
    FSC_OTLP_PARTIAL,     /* some points rejected: partial_success */
    FSC_OTLP_BAD_REQUEST, /* malformed body: HTTP 400 / INVALID_ARGUMENT */
    FSC_OTLP_TOO_LARGE,   /* over a size cap: HTTP 413 / RESOURCE_EXHAUSTED */
    FSC_OTLP_UNSUPPORTED, /* method, path, content type or encoding: 404/405/415 */
    FSC_OTLP_INTERNAL,    /* out of memory, engine failure: HTTP 500 / INTERNAL */
    FSC_OTLP_VERDICT__COUNT
};

/* The outcome of one request. */
struct fsc_otlp_outcome {
    enum fsc_otlp_verdict verdict;
    uint64_t points;                                /* data points visited */
    uint64_t rejected;                              /* points refused by the ingest */
    uint64_t skipped_other_shard, skipped_no_value; /* points skipped, neither of the above */
    char message[256]; /* decoder sentence, cap, or first rejection reason; "" */
    char warning[256]; /* the ingest's one-time note about the sender (logged); "" */
};

/* Error kinds, each logged at most once a minute per transport. */
enum fsc_otlp_errkind {
    FSC_OTLP_ERR_BAD_REQUEST = 0,
    FSC_OTLP_ERR_TOO_LARGE,
    FSC_OTLP_ERR_UNSUPPORTED,
    FSC_OTLP_ERR_INTERNAL,
    FSC_OTLP_ERR_REJECTED, /* partial success: points refused */
    FSC_OTLP_ERR__COUNT
};

struct fsc_otlp_counters {
    pthread_mutex_t mu;
    struct fsc_otlp_transport_stats st;
    const char *source;
    int64_t last_log_ns[FSC_OTLP_ERR__COUNT]; /* monotonic; 0 = never */
    uint64_t suppressed[FSC_OTLP_ERR__COUNT]; /* errors not logged since the last line */
};

/* Initialises counters for `transport` ("grpc" / "http", static) of
 * instance `source` (borrowed). Returns 0 or -ENOMEM. Thread: one. */
int fsc_otlp_counters_init(struct fsc_otlp_counters *c, const char *transport, const char *source);
void fsc_otlp_counters_fini(struct fsc_otlp_counters *c);

/* Counts one answered request: wire bytes, its outcome (points, rejected,
 * verdict) and, for every verdict but OK, logs `otlp_request_error` with
 * `detail` (a short reason, e.g. the status it got) at most once a minute per
 * kind, with the number of errors of that kind not logged since. o may be
 * NULL for requests refused before any body (counted by `verdict` only).
 * Thread: any; takes c->mu (and the log lock). */
void fsc_otlp_counters_add(struct fsc_otlp_counters *c, enum fsc_otlp_verdict verdict,
                           uint64_t wire_bytes, const struct fsc_otlp_outcome *o,
                           const char *detail);

/* Sets the bound port. Thread: any. */
void fsc_otlp_counters_set_port(struct fsc_otlp_counters *c, uint16_t port);

/* Copies the counters. Thread: any; takes c->mu. */
void fsc_otlp_counters_get(struct fsc_otlp_counters *c, struct fsc_otlp_transport_stats *out);

#endif
