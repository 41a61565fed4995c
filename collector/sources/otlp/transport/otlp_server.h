/* What the OTLP transports (otlp_grpc.c, otlp_http.c) share (internal to
 * collector/sources/otlp): the request pipeline from body bytes to an outcome
 * (inflate, decode, ingest; otlp_response.c) and the response and error
 * bodies (otlp_response.c). The outcome's types and the per-transport
 * counters are otlp_transport_stats.h.
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
#include "sources/otlp/transport/otlp_transport_stats.h"

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

#endif
