/* OTLP/gRPC transport (internal to collector/sources/otlp): a gRPC C core server
 * for the unary /opentelemetry.proto.collector.metrics.v1.MetricsService/Export
 * on its own thread and completion queue. See otlp_grpc.c for the design. */
#ifndef FSC_OTLP_GRPC_H
#define FSC_OTLP_GRPC_H

#include <stddef.h>
#include <stdint.h>

#include "sources/otlp/transport/otlp_server.h"

/* The Export method path (proto/otlp_metrics_service.proto). */
#define FSC_OTLP_GRPC_METHOD "/opentelemetry.proto.collector.metrics.v1.MetricsService/Export"

struct fsc_otlp_grpc;

/* Listens on `listen` ("host:port"; port 0 = ephemeral), with TLS when
 * cfg->tls is set (cert and key; with a CA, clients must present a
 * certificate it signed), and serves Export into cfg->ing from a thread of
 * its own. cfg is borrowed and outlives the server. Logs
 * `otlp_listening transport=grpc port=N`. Returns NULL with a sentence in err.
 * Thread: any. */
struct fsc_otlp_grpc *fsc_otlp_grpc_start(const struct fsc_otlp_server_config *cfg,
                                          const char *listen, char *err, size_t errlen);

/* Stops serving: shuts the server down, cancels calls in progress, joins
 * the thread and frees everything. NULL is a no-op. Thread: any but the
 * server's own. */
void fsc_otlp_grpc_stop(struct fsc_otlp_grpc *g);

/* The bound port (0 for NULL). Thread: any. */
uint16_t fsc_otlp_grpc_port(const struct fsc_otlp_grpc *g);

/* Copies the counters. Thread: any. */
void fsc_otlp_grpc_stats(struct fsc_otlp_grpc *g, struct fsc_otlp_transport_stats *out);

#endif
