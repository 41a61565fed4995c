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
 * A scrape: negotiate the format and encoding; under render_mu, take the
 * newest body of that format when its render ended after the scrape arrived
 * (scrapes that waited for one render share it), else render a new one into
 * a pool buffer and publish
 * it (prom_http_body.h, "shared scrape bodies"); gzip it outside the lock if
 * asked, once per body (reusing the compressed bytes of the chunks equal to
 * the previous scrape's: prom_gzip_chunks.h), and hand it to the server as
 * the response body. It is sent straight from the body and released when the
 * response is destroyed, so a slow reader holds a reference and its own
 * thread, never the renderer; readers that never read cannot grow memory
 * past the bodies' budget (then scrapes are answered from the newest body).
 *
 * Extra routes (the status page): entries of the same route table after the
 * built-in paths; the route function writes into a pool buffer, sent exactly
 * like a scrape's body. */
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
#include "prometheus/prom_negotiate.h"

/* Requests have no business carrying a body; up to this much is read and
 * dropped so the connection stays usable, a larger one is refused (413, or
 * 404/405 at once) and the connection closed after the answer. */
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
/* /metrics, /-/healthy, /-/ready */
#define HTTP_BUILTIN_ROUTES 3
/* Bodies held only by responses (slow readers) may take this much, or
 * FSC_PROM_HELD_BODIES x the newest body if larger, before scrapes are
 * answered from the newest body instead of a new render. */
#define SCRAPE_HELD_MIN ((size_t)64 << 20)
/* At most one warning per this long about answering from a held body. */
#define STALE_LOG_NS (10 * 1000000000LL)

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
    pthread_mutex_t render_mu; /* held only around render() */
    struct fsc_prom_bufpool pool;
    struct fsc_prom_bodies bodies; /* rendered bodies, shared by scrapes */
    struct fsc_prom_gzshare gz;    /* gzip reusing unchanged chunks of the last scrape */
    int64_t stale_logged_ns;       /* under render_mu */
    char listen[128];              /* as configured, quoted for log lines */
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

static void body_release(void *cls)
{
    fsc_prom_body_unref(cls);
}

/* Under render_mu: the body that answers a scrape of format fmt that
 * arrived at `arrived`: shared, or rendered now. NULL with *rc on failure. */
static struct fsc_prom_body *scrape_body(struct fsc_prom_http *h, enum fsc_prom_format fmt,
                                         int64_t arrived, int *rc, int64_t *render_ns)
{
    bool stale;
    struct fsc_prom_body *body = fsc_prom_bodies_take(&h->bodies, (int)fmt, arrived, &stale);
    *render_ns = 0;
    if (body) {
        if (stale && arrived - h->stale_logged_ns >= STALE_LOG_NS) {
            h->stale_logged_ns = arrived;
            fsc_log(FSC_LOG_WARN, "prom_scrape_held_body",
                    "listen=%s held_bytes=%zu age_ms=%lld reason=slow_readers", h->listen,
                    h->bodies.held, (long long)((arrived - body->started_ns) / 1000000));
        }
        return body;
    }
    struct fsc_buf *raw = fsc_prom_bufpool_get(&h->pool, h->max_body);
    if (!raw) {
        *rc = -ENOMEM;
        return NULL;
    }
    int64_t t0 = fsc_mono_ns();
    *rc = h->render(h->arg, fmt, raw);
    *render_ns = fsc_mono_ns() - t0;
    /* A renderer that ignored a failed append would otherwise ship a
     * truncated exposition with a 200. */
    if (*rc == 0 && raw->len > h->max_body)
        *rc = -E2BIG;
    else if (*rc == 0 && raw->failed)
        *rc = -EIO;
    if (*rc != 0) {
        fsc_prom_bufpool_put(&h->pool, raw);
        return NULL;
    }
    body = fsc_prom_bodies_publish(&h->bodies, (int)fmt, raw, t0);
    if (!body)
        *rc = -ENOMEM;
    return body;
}

/* GET/HEAD /metrics. HEAD renders too, so its Content-Length is the real
 * one; the server leaves the body out. */
static void serve_metrics(void *arg, struct fsc_http_call *call)
{
    struct fsc_prom_http *h = arg;
    enum fsc_prom_format fmt = fsc_prom_negotiate_format(fsc_http_call_header(call, "Accept"));
    int gzip = fsc_prom_negotiate_gzip(fsc_http_call_header(call, "Accept-Encoding"));
    struct fsc_prom_gz_stats gz_st = {0};
    int64_t render_ns;
    int rc = 0;

    int64_t arrived = fsc_mono_ns();
    pthread_mutex_lock(&h->render_mu);
    struct fsc_prom_body *body = scrape_body(h, fmt, arrived, &rc, &render_ns);
    pthread_mutex_unlock(&h->render_mu);
    if (!body) {
        reply_render_error(h, call, rc);
        return;
    }
    int64_t t1 = fsc_mono_ns();
    const struct fsc_buf *wire = body->plain;
    if (gzip) {
        const struct fsc_buf *z = fsc_prom_body_gzip(body, &h->gz, HTTP_GZIP_LEVEL, &gz_st, &rc);
        if (z) {
            wire = z;
        } else {
            /* Identity is always acceptable unless the client said
             * identity;q=0, and a scrape is better than none. */
            fsc_log(FSC_LOG_WARN, "prom_gzip_failed", "listen=%s err=%d bytes=%zu", h->listen, -rc,
                    body->plain->len);
            gzip = 0;
        }
    }
    int64_t t2 = fsc_mono_ns();
    fsc_log(FSC_LOG_DEBUG, "prom_scrape",
            "listen=%s format=%s gzip=%d bytes=%zu wire_bytes=%zu shared=%d render_us=%lld "
            "gzip_us=%lld gzip_chunks=%zu gzip_chunks_reused=%zu",
            h->listen, fmt == FSC_PROM_OPENMETRICS ? "openmetrics" : "text", gzip, body->plain->len,
            wire->len, render_ns == 0, (long long)(render_ns / 1000), (long long)((t2 - t1) / 1000),
            gz_st.chunks, gz_st.chunks_reused);
    /* The body depends on both Accept and Accept-Encoding, so caches must
     * key on both (two Vary lines are equivalent to one comma-joined line). */
    struct fsc_http_response resp = {
        .status = 200,
        .content_type = fsc_prom_content_type(fmt),
        .headers = {{"Vary", "Accept-Encoding"}, {"Vary", "Accept"}, {"Content-Encoding", "gzip"}},
        .n_headers = gzip ? 3 : 2,
        .body = wire->data,
        .len = wire->len,
        .release = body_release,
        .release_cls = body,
    };
    fsc_http_respond(call, &resp); /* the reference is the response's now */
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
    fsc_prom_bodies_fini(&h->bodies);
    fsc_prom_gzshare_fini(&h->gz);
    fsc_prom_bufpool_fini(&h->pool);
    pthread_mutex_destroy(&h->render_mu);
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
    if (pthread_mutex_init(&h->render_mu, NULL) != 0) {
        free(h);
        snprintf(err, errlen, "prometheus http: cannot create a mutex");
        return NULL;
    }
    if (fsc_prom_bufpool_init(&h->pool) != 0) {
        pthread_mutex_destroy(&h->render_mu);
        free(h);
        snprintf(err, errlen, "prometheus http: cannot create a mutex");
        return NULL;
    }
    if (fsc_prom_bodies_init(&h->bodies, &h->pool, SCRAPE_HELD_MIN) != 0) {
        fsc_prom_bufpool_fini(&h->pool);
        pthread_mutex_destroy(&h->render_mu);
        free(h);
        snprintf(err, errlen, "prometheus http: cannot create a mutex");
        return NULL;
    }
    if (fsc_prom_gzshare_init(&h->gz, HTTP_GZIP_LEVEL) != 0) {
        fsc_prom_bodies_fini(&h->bodies);
        fsc_prom_bufpool_fini(&h->pool);
        pthread_mutex_destroy(&h->render_mu);
        free(h);
        snprintf(err, errlen, "prometheus http: out of memory");
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
    pthread_mutex_lock(&h->bodies.mu);
    out->shared = h->bodies.shared;
    out->held_body = h->bodies.stale;
    out->held_bytes = h->bodies.held;
    pthread_mutex_unlock(&h->bodies.mu);
}

void fsc_prom_http_stop(struct fsc_prom_http *h)
{
    if (!h)
        return;
    /* Joins every connection thread (waiting for a render in progress);
     * every response is destroyed on the way, so every body buffer is back
     * in the pool before it is freed. */
    fsc_http_server_stop(h->server);
    prom_http_free(h);
}
