/* The exporter's HTTP server on libmicrohttpd (see prom_http.h).
 *
 * Threading: MHD's internal listen thread plus one thread per connection
 * (MHD_USE_THREAD_PER_CONNECTION, poll). A scrape renders synchronously in
 * its connection's thread, which may take a while on a large fabric; with a
 * thread per connection that wait only delays that one client, while health
 * checks and other scrapes are served by their own threads. A small pool of
 * event-loop threads would instead park every connection of a thread behind
 * a render (or need suspend/resume plus a worker, more moving parts). Scrape
 * clients are few (a couple of Prometheus servers with keep-alive), so the
 * thread count stays tiny; limits.max_connections caps it, the idle timeout
 * drops clients that stop reading, and net/http_watch.h bounds the time to a
 * complete request header (slowloris) and the body rate.
 *
 * A scrape: negotiate the format and encoding, take a buffer from the pool,
 * render into it under render_mu (only the render itself is serialised), gzip
 * it outside the lock if asked (reusing the compressed bytes of the chunks
 * equal to the previous scrape's: prom_gzip_chunks.h), and hand the buffer to MHD as the response
 * body. MHD sends straight from that buffer and gives it back to the pool
 * when the response is destroyed, so a slow reader holds only its own buffer
 * and its own thread, never the renderer.
 *
 * Extra routes (the status page): after the built-in paths, the request's
 * path is looked up in the table given at start; the route function writes
 * into a pool buffer, sent exactly like a scrape's body.
 *
 * libmicrohttpd 0.9.75 answers with "Connection: close" when a response is
 * queued on the first access-handler call (it has not looked for a body
 * yet), so the handler answers on the second call; the first only allocates
 * the per-request state. */
#include <sys/socket.h> /* microhttpd.h needs the socket types first */

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <netdb.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <microhttpd.h>

#include "base/clock.h"
#include "net/http_sec.h"
#include "base/log.h"
#include "prometheus/prom_http.h"

#include "net/admit_stats.h"
#include "net/http_frame.h"
#include "net/http_watch.h"
#include "net/listen.h"
#include "prometheus/prom_http_body.h"
#include "prometheus/prom_negotiate.h"

/* Concurrent connections (each one thread) come from limits.max_connections
 * (default 256: threads cost little; each connection holds at most one body
 * buffer while it sends), per address from max_connections_per_ip; the
 * watch (net/http_watch.h) keeps `reserve` of them free by closing idle
 * ones, and cuts slow headers and bodies. */
/* Requests have no business carrying a body; up to this much is read and
 * discarded so the connection stays usable, more is refused. */
#define HTTP_REQ_BODY_MAX ((size_t)64 * 1024)
/* zlib level for gzip bodies; level 1 measured fastest for a small ratio cost
 * on exposition text (see the exporter's report). */
#define HTTP_GZIP_LEVEL       1
#define HTTP_DEFAULT_MAX_BODY ((size_t)1 << 30)
/* Room for a burst of connections while the accept loop closes the ones
 * over a per-address cap (2 000 at once in tests/integration/faults_admit.sh).
 * The listen thread creates a thread per accepted connection, so under a
 * connect flood (those 2 000 from 100 addresses, reopened as soon as they
 * are shed) it accepts more slowly than they arrive: with 1024 the kernel's
 * accept queue overflowed, a scrape's SYN was dropped and its connect
 * retried after 1 s or 3 s (answered after 1.4-4.6 s, sanitizer build);
 * with 4096 (Linux's default somaxconn, which caps it) it waits in the
 * queue instead: 0.13-0.39 s. */
#define HTTP_BACKLOG 4096

#define TEXT_PLAIN "text/plain; charset=utf-8"

struct fsc_prom_http {
    struct MHD_Daemon *daemon;
    fsc_prom_render_fn render;
    fsc_prom_ready_fn ready;
    void *arg;
    size_t max_body;
    uint16_t port;
    pthread_mutex_t render_mu; /* held only around render() */
    struct fsc_prom_bufpool pool;
    struct fsc_prom_gzshare gz; /* gzip reusing unchanged chunks of the last scrape */
    char listen[128];           /* as configured, quoted for log lines */
    struct fsc_http_route routes[FSC_PROM_HTTP_ROUTES_MAX]; /* extra routes; immutable */
    size_t n_routes;
    struct fsc_http_sec *sec;     /* TLS material and credential check; NULL = plain, open */
    struct fsc_http_watch *watch; /* request-header deadline (slowloris) */
};

/* What an extra route sees of its request. */

/* Per-request state (MHD's con_cls), freed by http_completed. */
struct http_req {
    size_t body_bytes; /* request body read and discarded so far */
};

/* One /metrics response body: the buffer goes back to the pool when MHD
 * destroys the response. */
struct http_body {
    struct fsc_prom_http *h;
    struct fsc_buf *buf;
};

enum http_route { ROUTE_NONE, ROUTE_METRICS, ROUTE_HEALTHY, ROUTE_READY, ROUTE_EXTRA };

/* strerror is not thread-safe; this is the XSI strerror_r (we build with
 * _POSIX_C_SOURCE, not _GNU_SOURCE). */
static const char *err_text(int e, char *buf, size_t n)
{
    if (strerror_r(e, buf, n) != 0)
        snprintf(buf, n, "error %d", e);
    return buf;
}

/* ---- responses ------------------------------------------------------------ */

/* Queues a short text/plain response. Persistent bodies are string literals;
 * others are copied. allow: an Allow header value or NULL. */
static enum MHD_Result reply_text(struct MHD_Connection *conn, unsigned int status,
                                  const char *text, int persistent, const char *allow)
{
    struct MHD_Response *resp;
    enum MHD_Result ret = MHD_NO;

    resp = MHD_create_response_from_buffer(strlen(text), (void *)(uintptr_t)text,
                                           persistent ? MHD_RESPMEM_PERSISTENT
                                                      : MHD_RESPMEM_MUST_COPY);
    if (!resp)
        return MHD_NO;
    if (MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_TYPE, TEXT_PLAIN) == MHD_YES &&
        (!allow || MHD_add_response_header(resp, MHD_HTTP_HEADER_ALLOW, allow) == MHD_YES))
        ret = MHD_queue_response(conn, status, resp);
    MHD_destroy_response(resp);
    return ret;
}

static enum MHD_Result reply_render_error(struct fsc_prom_http *h, struct MHD_Connection *conn,
                                          int rc)
{
    char text[160], eb[96];

    if (rc == -E2BIG)
        snprintf(text, sizeof(text), "render failed: exposition larger than max_body (%zu bytes)\n",
                 h->max_body);
    else
        snprintf(text, sizeof(text), "render failed: %s\n", err_text(-rc, eb, sizeof(eb)));
    fsc_log(FSC_LOG_WARN, "prom_render_failed", "listen=%s err=%d max_body=%zu", h->listen, -rc,
            h->max_body);
    return reply_text(conn, MHD_HTTP_INTERNAL_SERVER_ERROR, text, 0, NULL);
}

static void http_body_free(void *cls)
{
    struct http_body *hb = cls;
    fsc_prom_bufpool_put(&hb->h->pool, hb->buf);
    free(hb);
}

/* Queues buf (owned; given back to the pool in every case) as a 200 body. */
static enum MHD_Result reply_body(struct fsc_prom_http *h, struct MHD_Connection *conn,
                                  struct fsc_buf *buf, enum fsc_prom_format fmt, int gzip)
{
    struct MHD_Response *resp;
    struct http_body *hb;
    enum MHD_Result ret = MHD_NO;

    hb = malloc(sizeof(*hb));
    if (!hb) {
        fsc_prom_bufpool_put(&h->pool, buf);
        return reply_text(conn, MHD_HTTP_INTERNAL_SERVER_ERROR, "out of memory\n", 1, NULL);
    }
    hb->h = h;
    hb->buf = buf;
    resp = MHD_create_response_from_buffer_with_free_callback_cls(
        buf->len, buf->data ? buf->data : (void *)(uintptr_t) "", http_body_free, hb);
    if (!resp) {
        http_body_free(hb);
        return MHD_NO;
    }
    /* hb and buf are owned by resp now: destroying it frees them. The body
     * depends on both Accept and Accept-Encoding, so caches must key on both
     * (two Vary lines are equivalent to one comma-joined line). */
    if (MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_TYPE, fsc_prom_content_type(fmt)) ==
            MHD_YES &&
        MHD_add_response_header(resp, MHD_HTTP_HEADER_VARY, "Accept-Encoding") == MHD_YES &&
        MHD_add_response_header(resp, MHD_HTTP_HEADER_VARY, "Accept") == MHD_YES &&
        (!gzip ||
         MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_ENCODING, "gzip") == MHD_YES))
        ret = MHD_queue_response(conn, MHD_HTTP_OK, resp);
    MHD_destroy_response(resp);
    return ret;
}

/* GET/HEAD /metrics. HEAD renders too, so its Content-Length is the real
 * one; MHD leaves the body out. */
static enum MHD_Result serve_metrics(struct fsc_prom_http *h, struct MHD_Connection *conn)
{
    const char *accept = MHD_lookup_connection_value(conn, MHD_HEADER_KIND, MHD_HTTP_HEADER_ACCEPT);
    const char *ae =
        MHD_lookup_connection_value(conn, MHD_HEADER_KIND, MHD_HTTP_HEADER_ACCEPT_ENCODING);
    enum fsc_prom_format fmt = fsc_prom_negotiate_format(accept);
    int gzip = fsc_prom_negotiate_gzip(ae);
    struct fsc_buf *raw, *zbuf;
    struct fsc_prom_gz_stats gz_st = {0};
    int64_t t0, t1, t2;
    int rc;

    raw = fsc_prom_bufpool_get(&h->pool, h->max_body);
    if (!raw)
        return reply_text(conn, MHD_HTTP_INTERNAL_SERVER_ERROR, "out of memory\n", 1, NULL);
    t0 = fsc_mono_ns();
    pthread_mutex_lock(&h->render_mu);
    rc = h->render(h->arg, fmt, raw);
    pthread_mutex_unlock(&h->render_mu);
    t1 = fsc_mono_ns();
    /* A renderer that ignored a failed append would otherwise ship a
     * truncated exposition with a 200. */
    if (rc == 0 && raw->len > h->max_body)
        rc = -E2BIG;
    else if (rc == 0 && raw->failed)
        rc = -EIO;
    if (rc != 0) {
        fsc_prom_bufpool_put(&h->pool, raw);
        return reply_render_error(h, conn, rc);
    }
    size_t plain_len = raw->len;
    if (gzip) {
        zbuf = fsc_prom_bufpool_get(&h->pool, 0);
        rc = zbuf ? fsc_prom_gzip_scrape(&h->gz, HTTP_GZIP_LEVEL, &raw, zbuf, &gz_st) : -ENOMEM;
        if (rc == 0) {
            fsc_prom_bufpool_put(&h->pool, raw); /* NULL or the body the compressor let go */
            raw = zbuf;
        } else {
            /* Identity is always acceptable unless the client said
             * identity;q=0, and a scrape is better than none. */
            fsc_prom_bufpool_put(&h->pool, zbuf);
            fsc_log(FSC_LOG_WARN, "prom_gzip_failed", "listen=%s err=%d bytes=%zu", h->listen, -rc,
                    plain_len);
            gzip = 0;
        }
    }
    t2 = fsc_mono_ns();
    fsc_log(FSC_LOG_DEBUG, "prom_scrape",
            "listen=%s format=%s gzip=%d bytes=%zu wire_bytes=%zu render_us=%lld gzip_us=%lld "
            "gzip_chunks=%zu gzip_chunks_reused=%zu",
            h->listen, fmt == FSC_PROM_OPENMETRICS ? "openmetrics" : "text", gzip, plain_len,
            raw->len, (long long)((t1 - t0) / 1000), (long long)((t2 - t1) / 1000), gz_st.chunks,
            gz_st.chunks_reused);
    return reply_body(h, conn, raw, fmt, gzip);
}

/* The route of url; for ROUTE_EXTRA its index in h->routes goes to *extra. */
static enum http_route route_of(const struct fsc_prom_http *h, const char *url, size_t *extra)
{
    if (strcmp(url, "/metrics") == 0)
        return ROUTE_METRICS;
    if (strcmp(url, "/-/healthy") == 0)
        return ROUTE_HEALTHY;
    if (strcmp(url, "/-/ready") == 0)
        return ROUTE_READY;
    for (size_t i = 0; i < h->n_routes; i++) {
        if (strcmp(url, h->routes[i].path) == 0) {
            *extra = i;
            return ROUTE_EXTRA;
        }
    }
    return ROUTE_NONE;
}

static const char *req_query(const struct fsc_http_req *req, const char *key)
{
    return MHD_lookup_connection_value(req->impl, MHD_GET_ARGUMENT_KIND, key);
}

/* GET/HEAD of an extra route: the route writes into a pool buffer that MHD
 * then sends (and gives back to the pool) like a scrape's body. */
static enum MHD_Result serve_extra(struct fsc_prom_http *h, struct MHD_Connection *conn,
                                   const struct fsc_http_route *route)
{
    struct fsc_http_req req = {.query = req_query, .impl = conn};
    const char *ctype = TEXT_PLAIN;
    struct MHD_Response *resp;
    struct http_body *hb;
    struct fsc_buf *buf;
    enum MHD_Result ret = MHD_NO;
    int status;

    buf = fsc_prom_bufpool_get(&h->pool, h->max_body);
    hb = buf ? malloc(sizeof(*hb)) : NULL;
    if (!hb) {
        fsc_prom_bufpool_put(&h->pool, buf);
        return reply_text(conn, MHD_HTTP_INTERNAL_SERVER_ERROR, "out of memory\n", 1, NULL);
    }
    status = route->fn(route->arg, &req, buf, &ctype);
    /* A route that ignored a failed append would otherwise ship a truncated
     * body with a 200. */
    if (status >= 0 && buf->failed)
        status = -EIO;
    if (status < 100 || status > 599) {
        fsc_prom_bufpool_put(&h->pool, buf);
        free(hb);
        return reply_render_error(h, conn, status < 0 ? status : -EINVAL);
    }
    hb->h = h;
    hb->buf = buf;
    resp = MHD_create_response_from_buffer_with_free_callback_cls(
        buf->len, buf->data ? buf->data : (void *)(uintptr_t) "", http_body_free, hb);
    if (!resp) {
        http_body_free(hb);
        return MHD_NO;
    }
    /* hb and buf are owned by resp now. Live data: never cached. */
    if (MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_TYPE, ctype) == MHD_YES &&
        MHD_add_response_header(resp, MHD_HTTP_HEADER_CACHE_CONTROL, "no-store") == MHD_YES)
        ret = MHD_queue_response(conn, (unsigned int)status, resp);
    MHD_destroy_response(resp);
    return ret;
}

static int method_ok(const char *method)
{
    return strcmp(method, MHD_HTTP_METHOD_GET) == 0 || strcmp(method, MHD_HTTP_METHOD_HEAD) == 0;
}

/* The answer to a complete request. */
static enum MHD_Result http_route(struct fsc_prom_http *h, struct MHD_Connection *conn,
                                  const char *url, const char *method)
{
    size_t extra = 0;
    enum http_route route = route_of(h, url, &extra);

    if (route == ROUTE_NONE)
        return reply_text(conn, MHD_HTTP_NOT_FOUND, "not found\n", 1, NULL);
    if (!method_ok(method))
        return reply_text(conn, MHD_HTTP_METHOD_NOT_ALLOWED, "method not allowed\n", 1,
                          "GET, HEAD");
    switch (route) {
    case ROUTE_METRICS:
        return serve_metrics(h, conn);
    case ROUTE_EXTRA:
        return serve_extra(h, conn, &h->routes[extra]);
    case ROUTE_READY:
        if (h->ready && h->ready(h->arg) != 1)
            return reply_text(conn, MHD_HTTP_SERVICE_UNAVAILABLE, "not ready\n", 1, NULL);
        return reply_text(conn, MHD_HTTP_OK, "OK\n", 1, NULL);
    default:
        return reply_text(conn, MHD_HTTP_OK, "OK\n", 1, NULL);
    }
}

/* 1 when a Content-Length value announces more than HTTP_REQ_BODY_MAX. A
 * malformed value is left to MHD, which rejects it itself. */
static int body_too_large(const char *content_length)
{
    size_t v = 0;

    for (const char *p = content_length; *p; p++) {
        if (*p < '0' || *p > '9')
            return 0;
        v = v * 10 + (size_t)(*p - '0');
        if (v > HTTP_REQ_BODY_MAX)
            return 1;
    }
    return 0;
}

/* MHD access handler. Thread: the connection's thread. */
static enum MHD_Result http_access(void *cls, struct MHD_Connection *conn, const char *url,
                                   const char *method, const char *version, const char *upload_data,
                                   size_t *upload_data_size, void **con_cls)
{
    struct fsc_prom_http *h = cls;
    struct http_req *req = *con_cls;
    (void)upload_data;

    if (!req) {
        req = calloc(1, sizeof(*req));
        if (!req)
            return MHD_NO; /* MHD closes the connection */
        *con_cls = req;
        if (!fsc_http_watch_request_begin(conn))
            return MHD_NO; /* shut down by the watch: no answer could arrive */
        /* Ambiguous framing first (net/http_frame.h): refused at once, the
         * connection closed after the answer. This listener takes no body,
         * so a chunked one is refused here too. */
        const char *why;
        unsigned bad = fsc_http_frame_check(conn, version, 0, &why);
        if (bad)
            return fsc_http_frame_refuse(conn, bad, why);
        /* Client certificate and credentials before anything else: an
         * unauthenticated client learns nothing, not even which paths exist,
         * and its refusal (queued now) closes the connection. */
        enum MHD_Result gate_ret;
        if (!fsc_http_sec_gate(h->sec, conn, &gate_ret))
            return gate_ret;
        fsc_http_watch_admitted(conn);
        /* A large declared body is refused before any of it is read; the
         * response queued now makes MHD close the connection after it, so
         * the unread body never has to be drained. */
        const char *cl =
            MHD_lookup_connection_value(conn, MHD_HEADER_KIND, MHD_HTTP_HEADER_CONTENT_LENGTH);
        if (cl && body_too_large(cl)) {
            size_t extra = 0;
            enum http_route route = route_of(h, url, &extra);
            if (route == ROUTE_NONE)
                return reply_text(conn, MHD_HTTP_NOT_FOUND, "not found\n", 1, NULL);
            if (!method_ok(method))
                return reply_text(conn, MHD_HTTP_METHOD_NOT_ALLOWED, "method not allowed\n", 1,
                                  "GET, HEAD");
            return reply_text(conn, MHD_HTTP_CONTENT_TOO_LARGE, "request body not accepted\n", 1,
                              NULL);
        }
        return MHD_YES;
    }
    if (*upload_data_size > 0) {
        /* Discard. A chunked body that outgrows the bound cannot be answered
         * (MHD 0.9.75 refuses to queue a response mid-body): drop it. */
        req->body_bytes += *upload_data_size;
        fsc_http_watch_body(conn, *upload_data_size);
        *upload_data_size = 0;
        if (req->body_bytes > HTTP_REQ_BODY_MAX) {
            fsc_log(FSC_LOG_INFO, "prom_http_body_refused", "listen=%s bytes=%zu", h->listen,
                    req->body_bytes);
            return MHD_NO;
        }
        return MHD_YES;
    }
    if (!fsc_http_watch_body_done(conn))
        return MHD_NO;
    return http_route(h, conn, url, method);
}

/* MHD request-completed notifier: frees the per-request state. */
static void http_completed(void *cls, struct MHD_Connection *conn, void **con_cls,
                           enum MHD_RequestTerminationCode toe)
{
    (void)cls;
    (void)toe;
    fsc_http_watch_request_end(conn);
    free(*con_cls);
    *con_cls = NULL;
}

/* MHD messages about one client going away or sending garbage: routine for
 * a server on a network, so info; everything else (threads, accept, the
 * connection limit, sockets) is about the server itself, so warn. MHD
 * gives no level, only text, hence the prefixes (libmicrohttpd 0.9.75). */
static const char *const mhd_client_msgs[] = {
    "The connection was forcibly closed",
    "Connection socket is closed",
    "Connection was closed by remote side",
    "Application reported internal error", /* our MHD_NO, logged by us */
    "Error processing request",            /* MHD answered 4xx itself */
    "Too large value of 'Content-Length'",
    "Failed to parse `Content-Length'",
    "Error: received handshake message out of context", /* TLS clients */
    "Error: TLS handshake",
};

/* MHD's log callback: formats the message and hands it to fsc_log_lib. */
__attribute__((format(printf, 2, 0))) static void http_mhd_log(void *cls, const char *fmt,
                                                               va_list ap)
{
    char msg[512];
    enum fsc_log_level level = FSC_LOG_WARN;
    (void)cls;
    vsnprintf(msg, sizeof(msg), fmt, ap);
    size_t n = strlen(msg);
    while (n > 0 && (msg[n - 1] == '\n' || msg[n - 1] == '\r'))
        msg[--n] = '\0';
    for (size_t i = 0; i < sizeof(mhd_client_msgs) / sizeof(mhd_client_msgs[0]); i++) {
        if (strncmp(msg, mhd_client_msgs[i], strlen(mhd_client_msgs[i])) == 0)
            level = FSC_LOG_INFO;
    }
    fsc_log_lib(level, "microhttpd", msg);
}

/* ---- lifecycle ------------------------------------------------------------ */

struct fsc_prom_http *fsc_prom_http_start(const struct fsc_prom_http_config *cfg,
                                          fsc_prom_render_fn render, fsc_prom_ready_fn ready,
                                          void *arg, char *err, size_t errlen)
{
    return fsc_prom_http_start_routes(cfg, NULL, 0, render, ready, arg, err, errlen);
}

struct fsc_prom_http *fsc_prom_http_start_routes(const struct fsc_prom_http_config *cfg,
                                                 const struct fsc_http_route *routes,
                                                 size_t n_routes, fsc_prom_render_fn render,
                                                 fsc_prom_ready_fn ready, void *arg, char *err,
                                                 size_t errlen)
{
    struct fsc_prom_http *h;
    const union MHD_DaemonInfo *info;
    int64_t timeout_ns;
    unsigned int timeout_s, flags;
    struct fsc_listener_limits lim;
    int fd, family = AF_INET;

    if (!cfg || !cfg->listen || !render) {
        snprintf(err, errlen, "prometheus http: listen address and render function are required");
        return NULL;
    }
    if (cfg->client_timeout_ns < 0) {
        snprintf(err, errlen, "prometheus http: client timeout must not be negative");
        return NULL;
    }
    if (n_routes > FSC_PROM_HTTP_ROUTES_MAX) {
        snprintf(err, errlen, "prometheus http: %zu extra routes, at most %u", n_routes,
                 FSC_PROM_HTTP_ROUTES_MAX);
        return NULL;
    }
    for (size_t i = 0; i < n_routes; i++) {
        if (!routes[i].path || routes[i].path[0] != '/' || !routes[i].fn) {
            snprintf(err, errlen, "prometheus http: extra route %zu needs a path and a function",
                     i);
            return NULL;
        }
    }
    h = calloc(1, sizeof(*h));
    if (!h) {
        snprintf(err, errlen, "prometheus http: out of memory");
        return NULL;
    }
    h->render = render;
    h->ready = ready;
    h->arg = arg;
    if (n_routes > 0)
        memcpy(h->routes, routes, n_routes * sizeof(*routes));
    h->n_routes = n_routes;
    h->max_body = cfg->max_body ? cfg->max_body : HTTP_DEFAULT_MAX_BODY;
    fsc_log_quote(cfg->listen, h->listen, sizeof(h->listen));
    fsc_listener_limits_resolve(cfg->limits, &lim);
    /* MHD counts whole seconds: round up so a timeout is never shortened. */
    timeout_ns = cfg->client_timeout_ns ? cfg->client_timeout_ns : lim.idle_timeout_ns;
    lim.idle_timeout_ns = timeout_ns;
    timeout_s = timeout_ns / 1000000000 >= UINT_MAX
                    ? UINT_MAX
                    : (unsigned int)((timeout_ns + 999999999) / 1000000000);
    if (pthread_mutex_init(&h->render_mu, NULL) != 0) {
        free(h);
        snprintf(err, errlen, "prometheus http: cannot create a mutex");
        return NULL;
    }
    if (fsc_prom_bufpool_init(&h->pool) != 0) {
        snprintf(err, errlen, "prometheus http: cannot create a mutex");
        goto fail_pool;
    }
    if (fsc_prom_gzshare_init(&h->gz, HTTP_GZIP_LEVEL) != 0) {
        snprintf(err, errlen, "prometheus http: out of memory");
        fsc_prom_bufpool_fini(&h->pool);
        goto fail_pool;
    }
    h->sec = fsc_http_sec_create(cfg->tls, cfg->auth, "prometheus", err, errlen);
    if (!h->sec)
        goto fail_listen;
    h->watch = fsc_http_watch_create(&lim, "prometheus", err, errlen);
    if (!h->watch)
        goto fail_listen;
    fd = fsc_listen_tcp(cfg->listen, HTTP_BACKLOG, &family, err, errlen);
    if (fd == -1)
        goto fail_listen;
    flags = MHD_USE_THREAD_PER_CONNECTION | MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_POLL |
            MHD_USE_ERROR_LOG | fsc_http_sec_mhd_flags(h->sec);
    if (family == AF_INET6)
        flags |= MHD_USE_IPv6;
    struct MHD_OptionItem sec_opts[FSC_HTTP_SEC_OPTIONS];
    fsc_http_sec_mhd_options(h->sec, sec_opts);
    h->daemon = MHD_start_daemon(
        flags, 0, NULL, NULL, http_access, h, MHD_OPTION_EXTERNAL_LOGGER, http_mhd_log, h,
        MHD_OPTION_LISTEN_SOCKET, (MHD_socket)fd, MHD_OPTION_CONNECTION_LIMIT,
        fsc_http_watch_mhd_limit(&lim), MHD_OPTION_PER_IP_CONNECTION_LIMIT,
        fsc_http_watch_mhd_per_ip_limit(&lim), MHD_OPTION_CONNECTION_TIMEOUT, timeout_s,
        MHD_OPTION_UNESCAPE_CALLBACK, fsc_http_frame_unescape, NULL, MHD_OPTION_NOTIFY_COMPLETED,
        http_completed, h, MHD_OPTION_NOTIFY_CONNECTION, fsc_http_watch_notify, h->watch,
        MHD_OPTION_ARRAY, sec_opts, MHD_OPTION_END);
    if (!h->daemon) {
        /* fd is not closed here: MHD 0.9.75 closes a listen socket it was
         * given when it fails after adopting it (thread creation), and
         * closing it again could close another thread's new descriptor.
         * With our fixed options no earlier failure is possible. */
        snprintf(err, errlen, "cannot start the HTTP server on %s (see the microhttpd log)",
                 cfg->listen);
        goto fail_listen;
    }
    info = MHD_get_daemon_info(h->daemon, MHD_DAEMON_INFO_BIND_PORT);
    h->port = info ? info->port : 0;
    fsc_log(FSC_LOG_INFO, "prom_http_listening",
            "listen=%s port=%u timeout_s=%u max_body=%zu max_connections=%u "
            "max_connections_per_ip=%u reserve=%u header_timeout_ms=%lld tls=%s client_auth=%s "
            "auth=%s",
            h->listen, (unsigned)h->port, timeout_s, h->max_body, lim.max_connections,
            lim.max_connections_per_ip, lim.reserve, (long long)(lim.header_timeout_ns / 1000000),
            fsc_http_sec_tls(h->sec) ? "on" : "off", fsc_http_sec_client_auth(h->sec),
            fsc_http_sec_auth(h->sec) ? "on" : "off");
    return h;

fail_listen:
    fsc_http_watch_destroy(h->watch);
    fsc_http_sec_destroy(h->sec);
    fsc_prom_gzshare_fini(&h->gz);
    fsc_prom_bufpool_fini(&h->pool);
fail_pool:
    pthread_mutex_destroy(&h->render_mu);
    free(h);
    return NULL;
}

uint16_t fsc_prom_http_port(const struct fsc_prom_http *h)
{
    return h ? h->port : 0;
}

void fsc_prom_http_sec_stats(struct fsc_prom_http *h, struct fsc_http_sec_stats *out)
{
    fsc_http_sec_stats(h ? h->sec : NULL, out);
}

void fsc_prom_http_admit_stats(struct fsc_prom_http *h, struct fsc_admit_stats *out)
{
    if (!h) {
        *out = (struct fsc_admit_stats){0};
        return;
    }
    fsc_http_watch_admit_stats(h->watch, out);
}

void fsc_prom_http_stop(struct fsc_prom_http *h)
{
    if (!h)
        return;
    /* Closes the listen socket and every connection and joins their threads
     * (waiting for a render in progress); every response is destroyed on the
     * way, so every body buffer is back in the pool before it is freed. */
    MHD_stop_daemon(h->daemon);
    fsc_http_watch_destroy(h->watch); /* after the daemon: every connection reported closed */
    fsc_http_sec_destroy(h->sec);     /* after the daemon: MHD holds its PEM strings */
    fsc_prom_gzshare_fini(&h->gz);
    fsc_prom_bufpool_fini(&h->pool);
    pthread_mutex_destroy(&h->render_mu);
    free(h);
}
