/* The collector's HTTP server on libmicrohttpd: one implementation for every
 * HTTP listener (the Prometheus exporter with the status page's routes in
 * exporters/prometheus/prom_http.c, OTLP/HTTP in
 * collector/sources/otlp/transport/otlp_http.c).
 *
 * It owns the daemon and everything a listener has in common: the listening
 * socket (net/listen.h), the threading mode, TLS and credentials
 * (net/http_sec.h), strict framing (net/http_frame.h), connection admission
 * and deadlines (net/http_watch.h), the connection, per-address and idle
 * limits, the request-body caps, the routing of a request to one entry of a
 * route table (404 for an unknown path, 405 with Allow for a method the
 * route does not take) and MHD's log lines, routed into ours with a level.
 * A listener is a route table plus, optionally, a hook that rewrites or
 * counts the answers the server gives by itself.
 *
 * A request's life, in the connection's thread:
 *   1. header complete: framing check, credentials gate (refusals close the
 *      connection, no route sees them), then path, method, the route's
 *      begin() and its body cap decide whether it is refused;
 *   2. a refused request whose body is on its way and may be larger than
 *      drain_max is answered at once (MHD then closes the connection and the
 *      body is never read); a smaller one is read and dropped first, so the
 *      connection stays usable;
 *   3. the body is stored (store_body) or counted, up to the route's
 *      max_body; a chunked body that grows past it is dropped from then on
 *      and answered 413 at its end, or the connection is closed when it goes
 *      on past twice max_body;
 *   4. the route's serve() answers with fsc_http_respond().
 *
 * libmicrohttpd 0.9.75 answers "Connection: close" to a response queued on
 * the first access-handler call (it has not looked for a body yet), so
 * every answer but the refusals of step 2 is queued on a later call. */
#ifndef FSC_HTTP_SERVER_H
#define FSC_HTTP_SERVER_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "config/config.h"

/* Methods a route takes (bits). Any other method gets 405. */
#define FSC_HTTP_GET  1u
#define FSC_HTTP_HEAD 2u
#define FSC_HTTP_POST 4u

/* One request being answered; valid only inside a callback. */
struct fsc_http_call;

/* Extra response headers beyond Content-Type. */
#define FSC_HTTP_RESPONSE_HEADERS 4

/* One answer. body is copied, unless release is set: then the server sends
 * straight from body and calls release(release_cls) exactly once when the
 * response is gone (also when it could not be queued), so the caller hands
 * over its buffer with the call. Strings are borrowed until
 * fsc_http_respond() returns. */
struct fsc_http_response {
    unsigned status;
    const char *content_type; /* NULL: "text/plain; charset=utf-8" */
    const void *body;         /* may be NULL when len is 0 */
    size_t len;
    void (*release)(void *release_cls);
    void *release_cls;
    struct {
        const char *name, *value;
    } headers[FSC_HTTP_RESPONSE_HEADERS];
    size_t n_headers;
    /* A streamed body (body is then ignored): the server calls
     * read(release_cls, buf, max) whenever the client can take more; it
     * writes up to max bytes and returns how many (> 0), FSC_HTTP_READ_END
     * at the end, or FSC_HTTP_READ_ERROR (the connection is closed, so the
     * client sees a body cut short). It may block: servers with a thread
     * per connection only. len is the body's length when stream_len_known
     * (Content-Length), else the body is sent chunked (HTTP/1.1) or until
     * the connection closes (HTTP/1.0). release is required with read. */
    ssize_t (*read)(void *release_cls, char *buf, size_t max);
    int stream_len_known;
};

#define FSC_HTTP_READ_END   ((ssize_t)-1)
#define FSC_HTTP_READ_ERROR ((ssize_t)-2)

/* Queues resp as the answer of call. A 405 gets the route's Allow header.
 * Call it at most once per request, from serve() or the refusal hook.
 * Returns 0, or -1 when it could not be queued (the connection is then
 * closed without an answer; resp->release has been called). */
int fsc_http_respond(struct fsc_http_call *call, const struct fsc_http_response *resp);

/* A text/plain answer (text is copied). Returns as fsc_http_respond(). */
int fsc_http_respond_text(struct fsc_http_call *call, unsigned status, const char *text);

/* ---- what a route sees of its request (thread: the connection's) -------- */

/* The request header `name` (case-insensitive), or NULL. */
const char *fsc_http_call_header(const struct fsc_http_call *call, const char *name);

/* The decoded value of query parameter `key`, or NULL when absent. */
const char *fsc_http_call_query(const struct fsc_http_call *call, const char *key);

/* FSC_HTTP_GET, _HEAD, _POST, or 0 for another method. */
unsigned fsc_http_call_method(const struct fsc_http_call *call);

/* The route's per-request state: state_size zeroed bytes, aligned for any
 * type, freed with the request (so it must own no memory). NULL when no
 * route matched or state_size is 0. */
void *fsc_http_call_state(struct fsc_http_call *call);

/* The stored body (store_body routes) and its length; NULL and 0 when
 * there is none. The bytes may be modified; one spare byte follows them. */
uint8_t *fsc_http_call_body(struct fsc_http_call *call, size_t *len);

/* Body bytes received so far, stored or dropped. */
uint64_t fsc_http_call_wire_bytes(const struct fsc_http_call *call);

/* ---- routes ---------------------------------------------------------------- */

/* One entry of the route table: an exact path (the query is not part of
 * it) and the methods it takes. Of two entries with the same path the
 * first is served. */
struct fsc_http_handler {
    const char *path; /* "/metrics"; borrowed until the server stops */
    unsigned methods; /* FSC_HTTP_* bits */
    size_t max_body;  /* request-body cap: a larger Content-Length gets 413 */
    int store_body;   /* 1: the body is kept for serve(); 0: read and dropped */
    size_t state_size;
    /* Optional. Decides from the request line and headers, after the
     * credentials gate, path and method: 0 to go on, nonzero to refuse
     * without the body: serve() is then called to answer the refusal
     * (its state says so), the body is not stored. */
    int (*begin)(void *arg, struct fsc_http_call *call);
    /* Answers the request with fsc_http_respond() (a request it does not
     * answer gets 500). Thread: a connection's, concurrently with itself. */
    void (*serve)(void *arg, struct fsc_http_call *call);
    void *arg;
};

/* Answers the server gives by itself, each with a default text/plain body. */
enum fsc_http_refusal {
    FSC_HTTP_REFUSED_FRAMING,  /* 400/413 (net/http_frame.h); answered as is */
    FSC_HTTP_REFUSED_PATH,     /* 404 "not found" */
    FSC_HTTP_REFUSED_METHOD,   /* 405 "method not allowed", Allow: the route's methods */
    FSC_HTTP_REFUSED_DECLARED, /* 413: Content-Length over the route's max_body */
    FSC_HTTP_REFUSED_BODY,     /* 413 at the end of a body that grew past max_body */
    FSC_HTTP_CLOSED_BODY,      /* no answer: the body went on past twice max_body */
    FSC_HTTP_CLOSED_NO_MEMORY, /* no answer: out of memory storing the body */
};

/* Called before the server gives one of the answers above; it may answer
 * instead with fsc_http_respond() (not for FRAMING and the CLOSED ones,
 * which have their answer or none). Thread: the connection's. */
typedef void (*fsc_http_refused_fn)(void *arg, struct fsc_http_call *call,
                                    enum fsc_http_refusal why);

/* ---- the server ------------------------------------------------------------- */

struct fsc_http_server_config {
    const char *listen; /* "host:port", "[v6]:port", ":port"; port 0 picks a free one */
    const char *name;   /* the listener in log lines: "prometheus", "otlp/http:NAME" */
    /* TLS and credentials (net/http_sec.h); NULL (or !enabled, !present) =
     * plain HTTP, open. Borrowed, read at start. */
    const struct fsc_tls_config *tls;
    const struct fsc_listener_auth *auth;
    /* Admission (net/http_watch.h); NULL = fsc_listener_limits_defaults.
     * idle_timeout_ns, when set, replaces limits->idle_timeout_ns. */
    const struct fsc_listener_limits *limits;
    int64_t idle_timeout_ns;
    /* 0: a thread per connection (a slow handler delays only its own
     * client); N: N event-loop threads (a stalled client costs a socket). */
    unsigned threads;
    int backlog;      /* listen(2) backlog */
    size_t drain_max; /* a refused request's body up to this is read, see above */
    const struct fsc_http_handler *routes; /* copied */
    size_t n_routes;
    fsc_http_refused_fn refused; /* NULL: the default answers */
    void *arg;                   /* for refused */
};

struct fsc_http_server;

/* Binds cfg->listen and serves on the server's own threads until
 * fsc_http_server_stop(). Route paths and args are borrowed until then.
 * Returns NULL with a sentence in err ("cannot listen on ADDR: REASON").
 * Thread: any. */
struct fsc_http_server *fsc_http_server_start(const struct fsc_http_server_config *cfg, char *err,
                                              size_t errlen);

/* What the server runs with, for the listener's start log line. */
struct fsc_http_server_info {
    uint16_t port;                  /* bound (useful with port 0) */
    unsigned timeout_s;             /* MHD's idle timeout, whole seconds rounded up */
    struct fsc_listener_limits lim; /* resolved, idle timeout included */
    int tls;                        /* 1 when TLS is on */
    const char *client_auth;        /* "none", "request", "require" */
    int auth;                       /* 1 when credentials are checked */
};

/* Fills *out (zeros for NULL). Thread: any. */
void fsc_http_server_info(const struct fsc_http_server *s, struct fsc_http_server_info *out);

struct fsc_http_sec_stats; /* net/http_sec.h */
struct fsc_admit_stats;    /* net/admit_stats.h */

/* The listener's credential refusals and what its admission closed (zeros,
 * present 0, for NULL). Thread: any. */
void fsc_http_server_sec_stats(struct fsc_http_server *s, struct fsc_http_sec_stats *out);
void fsc_http_server_admit_stats(struct fsc_http_server *s, struct fsc_admit_stats *out);

/* Closes the socket and every connection, waits for the threads (and any
 * serve() in progress), frees. NULL is a no-op. Thread: any but the
 * server's own. */
void fsc_http_server_stop(struct fsc_http_server *s);

#endif
