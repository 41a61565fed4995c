/* What the OTLP transports (otlp_grpc.c, otlp_http.c) share (internal to
 * collector/sources/otlp): the request pipeline from body bytes to an outcome
 * (inflate, decode, ingest; otlp_response.c), the response and error bodies
 * (otlp_response.c), and the per-transport counters with their rate-limited
 * error log and the PEM reader (otlp_source.c).
 *
 * One pipeline for both transports so that HTTP and gRPC give the same
 * answer to the same bytes: only the mapping of an outcome to a status code
 * differs (HTTP 400/413 vs INVALID_ARGUMENT/RESOURCE_EXHAUSTED). */
#ifndef FSC_OTLP_SERVER_H
#define FSC_OTLP_SERVER_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include "config/config.h"
#include "net/pem.h"
#include "sources/otlp/map/otlp_ingest.h"
#include "sources/otlp/otlp_source.h"

/* What a transport needs from its instance; borrowed, outlives the transport. */
struct fsc_otlp_server_config {
    const char *source;                       /* instance name, for log lines */
    struct fsc_otlp_ingest *ing;              /* shared by both transports */
    size_t max_body;                          /* bytes on the wire */
    size_t max_decompressed;                  /* bytes after gzip */
    const struct fsc_tls_config *tls;         /* server side; NULL or !enabled = plaintext */
    const struct fsc_listener_auth *auth;     /* basic/bearer; NULL = open (docs/SECURITY.md) */
    const struct fsc_listener_limits *limits; /* admission; NULL = fsc_listener_limits_defaults */
};

/* ---- request pipeline (otlp_response.c) ----------------------------------- */

enum fsc_otlp_format {
    FSC_OTLP_FMT_PROTO = 0, /* application/x-protobuf, and every gRPC message */
    FSC_OTLP_FMT_JSON = 1,  /* application/json (OTLP/JSON) */
};

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

/* Runs one export request: inflates body when gzip (at most
 * max_decompressed bytes), decodes it in `fmt` and feeds the ingest between
 * begin and end/abort. body is borrowed and may be modified (the JSON
 * decoder unescapes in place); len 0 is an empty request (success, nothing
 * visited, the ingest is not called). arrival_ns is the receive time.
 * Fills *out completely. Thread: any (the ingest serialises requests). */
void fsc_otlp_export_run(struct fsc_otlp_ingest *ing, enum fsc_otlp_format fmt, uint8_t *body,
                         size_t len, int gzip, size_t max_decompressed, int64_t arrival_ns,
                         struct fsc_otlp_outcome *out);

/* Bytes enough for any response or error body written below. */
#define FSC_OTLP_RESPONSE_MAX 2048

/* Writes the ExportMetricsServiceResponse for o into out (cap bytes; at
 * least FSC_OTLP_RESPONSE_MAX suffices) and returns its length. Protobuf:
 * empty (0 bytes) on full success, partial_success {rejected_data_points,
 * error_message} when points were rejected. JSON: `{}` or
 * `{"partialSuccess":{"rejectedDataPoints":"N","errorMessage":"..."}}`
 * (int64 as a decimal string, as OTLP/JSON writes 64-bit integers).
 * Thread: any. */
size_t fsc_otlp_response_write(enum fsc_otlp_format fmt, const struct fsc_otlp_outcome *o,
                               uint8_t *out, size_t cap);

/* Writes an OTLP/HTTP error body: a google.rpc.Status {code, message} in
 * protobuf, or `{"code":N,"message":"..."}` in JSON. code is a gRPC status
 * code (3 = INVALID_ARGUMENT, 8 = RESOURCE_EXHAUSTED, 13 = INTERNAL).
 * Returns the length. Thread: any. */
size_t fsc_otlp_status_write(enum fsc_otlp_format fmt, int code, const char *message, uint8_t *out,
                             size_t cap);

/* ---- counters and error log (otlp_source.c) ------------------------------- */

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
