/* The exporter's HTTP listener, a route table on the collector's HTTP
 * server (net/http_server.h): GET /metrics with content negotiation (text
 * 0.0.4 by default, OpenMetrics 1.0 when Accept asks for it) and gzip when
 * Accept-Encoding allows, GET /-/healthy, GET /-/ready; 404 for other
 * paths, 405 for other methods.
 *
 * Renders run on the listener's render thread, one at a time, and are
 * streamed to the scrapes that share them in segments (prom_http_stream.h):
 * a slow client holds a cursor, not a body, and never the renderer for
 * long.
 *
 * Security: TLS (optionally verifying client certificates) and basic or
 * bearer authentication, checked by the server before any route -
 * /-/healthy and /-/ready included, as Prometheus does (net/http_sec.h).
 *
 * Extra routes (fsc_prom_http_start_routes): a table of GET/HEAD handlers
 * registered at start, each answering one exact path with a body and a
 * content type (the status page of exporters/web shares this listener).
 * They run on the connection threads, concurrently with each other and with
 * scrapes, without the render lock. */
#ifndef FSC_PROM_HTTP_H
#define FSC_PROM_HTTP_H

#include <stddef.h>
#include <stdint.h>

#include "base/buf.h"
#include "config/config.h"
#include "net/http_route.h"
#include "prometheus/prom_render.h"

/* Renders the exposition into out (empty, with its limit set to max_body),
 * handing pieces to flush as it goes when it can (fsc_prom_render_stream);
 * what is left in out is the last piece. Returns 0 or a negative errno (the
 * request gets a 500, or its body is cut short when pieces were sent).
 * Called on the listener's render thread, never concurrently with itself. */
typedef int (*fsc_prom_render_fn)(void *arg, enum fsc_prom_format fmt, struct fsc_buf *out,
                                  const struct fsc_prom_flush *flush);

/* 1 when the collector is ready (config loaded, sinks up), else 0. */
typedef int (*fsc_prom_ready_fn)(void *arg);

struct fsc_prom_http_config {
    const char *listen;        /* "host:port", "[v6]:port"; port 0 picks a free one (tests) */
    size_t max_body;           /* cap on one exposition, bytes; 0 = 1 GiB */
    int64_t client_timeout_ns; /* idle connection timeout; 0 = 30 s */
    /* Security (net/http_sec.h, docs/SECURITY.md); borrowed, read at start
     * only. NULL (or tls !enabled, auth !present) = plain HTTP, open. */
    const struct fsc_tls_config *tls;
    const struct fsc_listener_auth *auth;
    /* Connection admission (net/http_watch.h); borrowed, read at start.
     * NULL = fsc_listener_limits_defaults. client_timeout_ns, when set,
     * replaces limits->idle_timeout_ns. */
    const struct fsc_listener_limits *limits;
};

struct fsc_prom_http;

/* Binds and starts serving on its own threads. cfg is copied; render/ready
 * and arg are borrowed and must stay valid until fsc_prom_http_stop().
 * Returns NULL with a sentence in err ("cannot listen on 0.0.0.0:9464:
 * Address already in use"). */
struct fsc_prom_http *fsc_prom_http_start(const struct fsc_prom_http_config *cfg,
                                          fsc_prom_render_fn render, fsc_prom_ready_fn ready,
                                          void *arg, char *err, size_t errlen);

/* ---- extra routes -------------------------------------------------------- */

#define FSC_PROM_HTTP_ROUTES_MAX 16

/* As fsc_prom_http_start() with up to FSC_PROM_HTTP_ROUTES_MAX extra routes
 * (the table is copied; paths and args are borrowed until
 * fsc_prom_http_stop()). The built-in paths (/metrics, /-/healthy,
 * /-/ready) take precedence; a path given twice answers with its first
 * entry. Responses of extra routes carry Cache-Control: no-store. Returns
 * NULL with a sentence in err (also for too many routes or a route without
 * path or function). */
struct fsc_prom_http *fsc_prom_http_start_routes(const struct fsc_prom_http_config *cfg,
                                                 const struct fsc_http_route *routes,
                                                 size_t n_routes, fsc_prom_render_fn render,
                                                 fsc_prom_ready_fn ready, void *arg, char *err,
                                                 size_t errlen);

/* The port actually bound (useful with port 0). */
uint16_t fsc_prom_http_port(const struct fsc_prom_http *h);

struct fsc_http_sec_stats; /* net/http_sec.h */
struct fsc_admit_stats;    /* net/admit_stats.h */

/* The listener's refusals (net/http_sec.h; zeros for NULL), for
 * fabricscope_listener_auth_failures_total{listener="prometheus"}.
 * Thread: any, also from inside a render. */
void fsc_prom_http_sec_stats(struct fsc_prom_http *h, struct fsc_http_sec_stats *out);

/* What the listener's admission closed, and its open connections
 * (present 0 for NULL). Thread: any. */
void fsc_prom_http_admit_stats(struct fsc_prom_http *h, struct fsc_admit_stats *out);

/* `shared`: scrapes that joined a render another scrape started;
 * `dropped`: readers cut off for keeping a render's window from moving
 * (prom_http_stream.h); held_bytes: what the segments held now take. Zeros
 * for NULL. Thread: any. */
struct fsc_prom_scrape_stats {
    uint64_t shared, dropped;
    size_t held_bytes;
};
void fsc_prom_http_scrape_stats(struct fsc_prom_http *h, struct fsc_prom_scrape_stats *out);

/* Stops serving, waits for the threads, frees. NULL is a no-op. */
void fsc_prom_http_stop(struct fsc_prom_http *h);

#endif
