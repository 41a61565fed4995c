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

#include "plugin/source.h"
#include "sources/otlp/otlp_config.h"
#include "sources/otlp/transport/otlp_transport_stats.h"

extern const struct fsc_source_ops fsc_otlp_source_ops;

/* Copies the stats of a running otlp instance (the ctx returned by start) for
 * its transports into out[] (grpc first, then http; absent ones left out).
 * Returns the number written (<= cap). Thread: any. */
size_t fsc_otlp_source_stats(void *ctx, struct fsc_otlp_transport_stats *out, size_t cap);

/* The bound port of a transport ("grpc" or "http") of a running instance, or
 * 0 when off: tests listen on port 0 and read the real one here (and from the
 * `otlp_listening` log line). Thread: any. */
uint16_t fsc_otlp_source_port(void *ctx, const char *transport);

#endif
