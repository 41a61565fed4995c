/* The exporter's HTTP listener: routes on the collector's HTTP server
 * (net/http_server.h; see prom_http.h).
 *
 * Threading: a thread per connection. A scrape renders synchronously in its
 * connection's thread, which may take a while on a large fabric; with a
 * thread per connection that wait only delays that one client, while health
 * checks and other scrapes are served by their own threads. A small pool of
 * event-loop threads would instead park every connection of a thread behind
 * a render (or need suspend/resume plus a worker, more moving parts). Scrape
 * clients are few (a couple of Prometheus servers with keep-alive), so the
 * thread count stays tiny; limits.max_connections caps it, the idle timeout
 * drops clients that stop reading, and net/http_watch.h bounds the time to a
 * complete request header (slowloris) and the body rate.
 *
 * A scrape: negotiate the format and encoding, become a reader of a render
 * of that format (the pending one, the running one while its first segment
 * is held, or a new one: prom_http_stream.h), wait for its first segment,
 * and answer with a response that copies the render's segments into the
 * connection as the client takes them. No body is ever whole in memory: a
 * render runs at most a window of segments ahead of its slowest reader, and
 * a reader that keeps that window from moving too long is dropped. A render
 * that ended before its first segment was taken is answered with its
 * Content-Length (small expositions, HEAD included); a longer one is sent
 * chunked (HTTP/1.1) or until close (HTTP/1.0). A render that fails before
 * its first segment is a 500; after it, the connection is closed and the
 * client sees a body cut short (its scrape fails, as it should).
 *
 * Extra routes (the status page): entries of the same route table after the
 * built-in paths; the route function writes into a pool buffer that is sent
 * and then given back to the pool. */
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/clock.h"
#include "base/log.h"
#include "net/http_server.h"
#include "prometheus/prom_http.h"
#include "prometheus/prom_http_body.h"
#include "prometheus/prom_http_stream.h"
#include "prometheus/prom_negotiate.h"

/* Requests have no business carrying a body; up to this much is read and
 * dropped so the connection stays usable, a larger one is refused (413, or
 * 404/405 at once) and the connection closed after the answer. */
#define HTTP_REQ_BODY_MAX     ((size_t)64 * 1024)
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
/* /metrics, /-/healthy, /-/ready */
#define HTTP_BUILTIN_ROUTES 3

/* An extra route as the server calls it: the table entry and its listener. */
struct prom_extra {
    struct fsc_prom_http *h;
    struct fsc_http_route route;
};

struct fsc_prom_http {
    struct fsc_http_server *server;
    fsc_prom_render_fn render;
    fsc_prom_ready_fn ready;
    void *arg;
    size_t max_body;
    struct fsc_prom_bufpool pool;                      /* extra routes' bodies */
    struct fsc_prom_streams streams;                   /* renders, streamed to their scrapes */
    char listen[128];                                  /* as configured, quoted for log lines */
    struct prom_extra extra[FSC_PROM_HTTP_ROUTES_MAX]; /* immutable while serving */
    size_t n_extra;
};

/* One response body: the buffer goes back to the pool when the server
 * destroys the response. */
struct http_body {
    struct fsc_prom_http *h;
    struct fsc_buf *buf;
};

/* strerror is not thread-safe; this is the XSI strerror_r (we build with
 * _POSIX_C_SOURCE, not _GNU_SOURCE). */
static const char *err_text(int e, char *buf, size_t n)
{
    if (strerror_r(e, buf, n) != 0)
        snprintf(buf, n, "error %d", e);
    return buf;
}

/* ---- responses ------------------------------------------------------------ */

static void reply_render_error(struct fsc_prom_http *h, struct fsc_http_call *call, int rc)
{
    char text[160], eb[96];

    if (rc == -E2BIG)
        snprintf(text, sizeof(text), "render failed: exposition larger than max_body (%zu bytes)\n",
                 h->max_body);
    else
        snprintf(text, sizeof(text), "render failed: %s\n", err_text(-rc, eb, sizeof(eb)));
    fsc_log(FSC_LOG_WARN, "prom_render_failed", "listen=%s err=%d max_body=%zu", h->listen, -rc,
            h->max_body);
    fsc_http_respond_text(call, 500, text);
}

static void http_body_free(void *cls)
{
    struct http_body *hb = cls;
    fsc_prom_bufpool_put(&hb->h->pool, hb->buf);
    free(hb);
}

/* Answers with buf (owned; given back to the pool in every case) as the
 * body, with the status and headers already in resp. */
static void reply_buf(struct fsc_prom_http *h, struct fsc_http_call *call, struct fsc_buf *buf,
                      struct fsc_http_response *resp)
{
    struct http_body *hb = malloc(sizeof(*hb));

    if (!hb) {
        fsc_prom_bufpool_put(&h->pool, buf);
        fsc_http_respond_text(call, 500, "out of memory\n");
        return;
    }
    hb->h = h;
    hb->buf = buf;
    resp->body = buf->data;
    resp->len = buf->len;
    resp->release = http_body_free;
    resp->release_cls = hb;
    fsc_http_respond(call, resp); /* hb and buf are the response's now */
}

/* GET/HEAD /metrics: a reader of a render (see the top comment). */
static void serve_metrics(void *arg, struct fsc_http_call *call)
{
    struct fsc_prom_http *h = arg;
    enum fsc_prom_format fmt = fsc_prom_negotiate_format(fsc_http_call_header(call, "Accept"));
    int gzip = fsc_prom_negotiate_gzip(fsc_http_call_header(call, "Accept-Encoding"));
    uint64_t len;
    int len_known;

    struct fsc_prom_reader *rd = fsc_prom_reader_open(&h->streams, fmt, gzip);
    if (!rd) {
        fsc_http_respond_text(call, 503, "scrape refused: out of memory or stopping\n");
        return;
    }
    int rc = fsc_prom_reader_first(rd, &len, &len_known);
    if (rc != 0) {
        fsc_prom_reader_close(rd);
        reply_render_error(h, call, rc);
        return;
    }
    int head = fsc_http_call_method(call) == FSC_HTTP_HEAD;
    if (head)
        fsc_prom_reader_detach(rd); /* reads nothing: must not hold the render */
    /* The body depends on both Accept and Accept-Encoding, so caches must
     * key on both (two Vary lines are equivalent to one comma-joined line). */
    struct fsc_http_response resp = {
        .status = 200,
        .content_type = fsc_prom_content_type(fmt),
        .headers = {{"Vary", "Accept-Encoding"}, {"Vary", "Accept"}},
        .n_headers = 2,
        .len = (size_t)len,
        .stream_len_known = len_known,
        .read = fsc_prom_reader_read,
        .release = fsc_prom_reader_close,
        .release_cls = rd,
    };
    if (gzip) {
        resp.headers[resp.n_headers].name = "Content-Encoding";
        resp.headers[resp.n_headers++].value = "gzip";
    }
    /* libmicrohttpd 0.9.75 ends a HEAD answer of unknown length with a last
     * chunk the client does not expect: such an answer closes the
     * connection instead. */
    if (head && !len_known) {
        resp.headers[resp.n_headers].name = "Connection";
        resp.headers[resp.n_headers++].value = "close";
    }
    fsc_http_respond(call, &resp); /* the reader is the response's now */
}

static void serve_healthy(void *arg, struct fsc_http_call *call)
{
    (void)arg;
    fsc_http_respond_text(call, 200, "OK\n");
}

static void serve_ready(void *arg, struct fsc_http_call *call)
{
    struct fsc_prom_http *h = arg;
    if (h->ready && h->ready(h->arg) != 1)
        fsc_http_respond_text(call, 503, "not ready\n");
    else
        fsc_http_respond_text(call, 200, "OK\n");
}

static const char *req_query(const struct fsc_http_req *req, const char *key)
{
    return fsc_http_call_query(req->impl, key);
}

/* GET/HEAD of an extra route: the route writes into a pool buffer that is
 * then sent (and given back to the pool) like a scrape's body. */
static void serve_extra(void *arg, struct fsc_http_call *call)
{
    const struct prom_extra *x = arg;
    struct fsc_prom_http *h = x->h;
    struct fsc_http_req req = {.query = req_query, .impl = call};
    const char *ctype = "text/plain; charset=utf-8";
    struct fsc_buf *buf;
    int status;

    buf = fsc_prom_bufpool_get(&h->pool, h->max_body);
    if (!buf) {
        fsc_http_respond_text(call, 500, "out of memory\n");
        return;
    }
    status = x->route.fn(x->route.arg, &req, buf, &ctype);
    /* A route that ignored a failed append would otherwise ship a truncated
     * body with a 200. */
    if (status >= 0 && buf->failed)
        status = -EIO;
    if (status < 100 || status > 599) {
        fsc_prom_bufpool_put(&h->pool, buf);
        reply_render_error(h, call, status < 0 ? status : -EINVAL);
        return;
    }
    /* Live data: never cached. */
    struct fsc_http_response resp = {
        .status = (unsigned)status,
        .content_type = ctype,
        .headers = {{"Cache-Control", "no-store"}},
        .n_headers = 1,
    };
    reply_buf(h, call, buf, &resp);
}

/* ---- lifecycle ------------------------------------------------------------ */

/* The route table: the built-in paths first (they take precedence), then
 * the extra routes. Writes at most HTTP_BUILTIN_ROUTES + n_extra entries. */
static size_t route_table(struct fsc_prom_http *h, struct fsc_http_handler *out)
{
    static const struct {
        const char *path;
        void (*serve)(void *arg, struct fsc_http_call *call);
    } builtin[HTTP_BUILTIN_ROUTES] = {
        {"/metrics", serve_metrics}, {"/-/healthy", serve_healthy}, {"/-/ready", serve_ready}};
    const struct fsc_http_handler get = {.methods = FSC_HTTP_GET | FSC_HTTP_HEAD,
                                         .max_body = HTTP_REQ_BODY_MAX};
    size_t n = 0;

    for (size_t i = 0; i < HTTP_BUILTIN_ROUTES; i++, n++) {
        out[n] = get;
        out[n].path = builtin[i].path;
        out[n].serve = builtin[i].serve;
        out[n].arg = h;
    }
    for (size_t i = 0; i < h->n_extra; i++, n++) {
        out[n] = get;
        out[n].path = h->extra[i].route.path;
        out[n].serve = serve_extra;
        out[n].arg = &h->extra[i];
    }
    return n;
}

static void prom_http_free(struct fsc_prom_http *h)
{
    fsc_prom_streams_fini(&h->streams);
    fsc_prom_bufpool_fini(&h->pool);
    free(h);
}

/* Checks the arguments of fsc_prom_http_start_routes. Returns 0 or -1 with
 * err. */
static int start_args_check(const struct fsc_prom_http_config *cfg,
                            const struct fsc_http_route *routes, size_t n_routes,
                            fsc_prom_render_fn render, char *err, size_t errlen)
{
    if (!cfg || !cfg->listen || !render) {
        snprintf(err, errlen, "prometheus http: listen address and render function are required");
        return -1;
    }
    if (cfg->client_timeout_ns < 0) {
        snprintf(err, errlen, "prometheus http: client timeout must not be negative");
        return -1;
    }
    if (n_routes > FSC_PROM_HTTP_ROUTES_MAX) {
        snprintf(err, errlen, "prometheus http: %zu extra routes, at most %u", n_routes,
                 FSC_PROM_HTTP_ROUTES_MAX);
        return -1;
    }
    for (size_t i = 0; i < n_routes; i++) {
        if (!routes[i].path || routes[i].path[0] != '/' || !routes[i].fn) {
            snprintf(err, errlen, "prometheus http: extra route %zu needs a path and a function",
                     i);
            return -1;
        }
    }
    return 0;
}

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
    struct fsc_http_handler table[HTTP_BUILTIN_ROUTES + FSC_PROM_HTTP_ROUTES_MAX];
    struct fsc_http_server_info info;
    struct fsc_prom_http *h;

    if (start_args_check(cfg, routes, n_routes, render, err, errlen) != 0)
        return NULL;
    h = calloc(1, sizeof(*h));
    if (!h) {
        snprintf(err, errlen, "prometheus http: out of memory");
        return NULL;
    }
    h->render = render;
    h->ready = ready;
    h->arg = arg;
    for (size_t i = 0; i < n_routes; i++)
        h->extra[i] = (struct prom_extra){h, routes[i]};
    h->n_extra = n_routes;
    h->max_body = cfg->max_body ? cfg->max_body : HTTP_DEFAULT_MAX_BODY;
    fsc_log_quote(cfg->listen, h->listen, sizeof(h->listen));
    if (fsc_prom_bufpool_init(&h->pool) != 0) {
        free(h);
        snprintf(err, errlen, "prometheus http: cannot create a mutex");
        return NULL;
    }
    int rc = fsc_prom_streams_init(&h->streams, render, arg, h->max_body, h->listen);
    if (rc != 0) {
        fsc_prom_bufpool_fini(&h->pool);
        free(h);
        snprintf(err, errlen, "prometheus http: cannot start the render thread (error %d)", -rc);
        return NULL;
    }
    const struct fsc_http_server_config sc = {
        .listen = cfg->listen,
        .name = "prometheus",
        .tls = cfg->tls,
        .auth = cfg->auth,
        .limits = cfg->limits,
        .idle_timeout_ns = cfg->client_timeout_ns,
        .threads = 0,
        .backlog = HTTP_BACKLOG,
        .drain_max = HTTP_REQ_BODY_MAX,
        .routes = table,
        .n_routes = route_table(h, table),
    };
    h->server = fsc_http_server_start(&sc, err, errlen);
    if (!h->server) {
        prom_http_free(h);
        return NULL;
    }
    fsc_http_server_info(h->server, &info);
    fsc_log(FSC_LOG_INFO, "prom_http_listening",
            "listen=%s port=%u timeout_s=%u max_body=%zu max_connections=%u "
            "max_connections_per_ip=%u reserve=%u header_timeout_ms=%lld tls=%s client_auth=%s "
            "auth=%s",
            h->listen, (unsigned)info.port, info.timeout_s, h->max_body, info.lim.max_connections,
            info.lim.max_connections_per_ip, info.lim.reserve,
            (long long)(info.lim.header_timeout_ns / 1000000), info.tls ? "on" : "off",
            info.client_auth, info.auth ? "on" : "off");
    return h;
}

uint16_t fsc_prom_http_port(const struct fsc_prom_http *h)
{
    struct fsc_http_server_info info;
    fsc_http_server_info(h ? h->server : NULL, &info);
    return info.port;
}

void fsc_prom_http_sec_stats(struct fsc_prom_http *h, struct fsc_http_sec_stats *out)
{
    fsc_http_server_sec_stats(h ? h->server : NULL, out);
}

void fsc_prom_http_admit_stats(struct fsc_prom_http *h, struct fsc_admit_stats *out)
{
    fsc_http_server_admit_stats(h ? h->server : NULL, out);
}

void fsc_prom_http_scrape_stats(struct fsc_prom_http *h, struct fsc_prom_scrape_stats *out)
{
    memset(out, 0, sizeof(*out));
    if (!h)
        return;
    pthread_mutex_lock(&h->streams.mu);
    out->shared = h->streams.shared;
    out->dropped = h->streams.dropped;
    out->held_bytes = h->streams.held;
    pthread_mutex_unlock(&h->streams.mu);
}

void fsc_prom_http_stop(struct fsc_prom_http *h)
{
    if (!h)
        return;
    /* Readers waiting for a render give up first, so the server can join
     * their connection threads; every response is destroyed on the way
     * (every reader closed) before the render thread is joined. */
    fsc_prom_streams_stop(&h->streams);
    fsc_http_server_stop(h->server);
    prom_http_free(h);
}
