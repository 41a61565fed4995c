/* OTLP/HTTP transport (internal to collector/sources/otlp): POST /v1/metrics,
 * a route on the collector's HTTP server (net/http_server.h). See
 * otlp_http.c for the design. */
#ifndef FSC_OTLP_HTTP_H
#define FSC_OTLP_HTTP_H

#include <stddef.h>
#include <stdint.h>

#include "sources/otlp/transport/otlp_server.h"

/* The request path (the OTLP specification, OTLP/HTTP). */
#define FSC_OTLP_HTTP_PATH "/v1/metrics"

struct fsc_otlp_http;

/* Listens on `listen` ("host:port", "[v6]:port"; port 0 = ephemeral), with
 * TLS when cfg->tls is set (client certificates verified per tls.client_auth)
 * and basic/bearer authentication when cfg->auth is set (net/http_sec.h),
 * and serves POST /v1/metrics into cfg->ing from libmicrohttpd's threads.
 * cfg is borrowed and outlives the server. Logs
 * `otlp_listening transport=http port=N`. Returns NULL with a sentence in
 * err. Thread: any. */
struct fsc_otlp_http *fsc_otlp_http_start(const struct fsc_otlp_server_config *cfg,
                                          const char *listen, char *err, size_t errlen);

/* Closes the socket and every connection, joins the threads, frees. NULL is
 * a no-op. Thread: any but the server's own. */
void fsc_otlp_http_stop(struct fsc_otlp_http *h);

/* The bound port (0 for NULL). Thread: any. */
uint16_t fsc_otlp_http_port(const struct fsc_otlp_http *h);

/* Copies the counters. Thread: any. */
void fsc_otlp_http_stats(struct fsc_otlp_http *h, struct fsc_otlp_transport_stats *out);

#endif
