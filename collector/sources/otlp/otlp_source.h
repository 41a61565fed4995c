/* The `otlp` source: an OTLP metrics receiver for Cumulus switches (docs/DESIGN.md, "Plugins").
 *
 * One instance per `sources:` entry of type otlp. start() creates the ingest
 * (otlp_ingest.h) and the configured transports: an OTLP/gRPC server on the
 * gRPC C core (grpc_listen; unary
 * /opentelemetry.proto.collector.metrics.v1.MetricsService/Export, gzip
 * accepted, TLS optional) and an OTLP/HTTP server on libmicrohttpd
 * (http_listen; POST /v1/metrics, application/x-protobuf or application/json,
 * Content-Encoding gzip, bodies capped before and after decompression).
 * Devices are learnt from resource attributes, so one instance serves many
 * switches. */
#ifndef FSC_OTLP_SOURCE_H
#define FSC_OTLP_SOURCE_H

#include <stddef.h>
#include <stdint.h>

#include "net/admit_stats.h"
#include "net/http_sec.h"
#include "plugin/source.h"
#include "sources/otlp/otlp_config.h"

extern const struct fsc_source_ops fsc_otlp_source_ops;

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

/* Copies the stats of a running otlp instance (the ctx returned by start) for
 * its transports into out[] (grpc first, then http; absent ones left out).
 * Returns the number written (<= cap). Thread: any. */
size_t fsc_otlp_source_stats(void *ctx, struct fsc_otlp_transport_stats *out, size_t cap);

/* The bound port of a transport ("grpc" or "http") of a running instance, or
 * 0 when off: tests listen on port 0 and read the real one here (and from the
 * `otlp_listening` log line). Thread: any. */
uint16_t fsc_otlp_source_port(void *ctx, const char *transport);

#endif
