/* The collector's HTTP server (contract and a request's life in
 * http_server.h).
 *
 * Threading is the listener's choice. A thread per connection (MHD's
 * THREAD_PER_CONNECTION with poll) suits a route that may work long in the
 * request's thread, a scrape rendering a large fabric: only its own client
 * waits. A small pool of event-loop threads suits short requests from many
 * senders (an OTLP export decodes under one ingest lock anyway): idle
 * keep-alive connections and stalled senders then cost a socket, not a
 * thread.
 *
 * Memory per request: the call record, the route's state, and a stored body
 * that grows with the bytes actually received, never past max_body. */
#include <sys/socket.h> /* microhttpd.h needs the socket types first */

#include <limits.h>
#include <stdalign.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <microhttpd.h>

#include "base/log.h"
#include "net/admit_stats.h"
#include "net/http_frame.h"
#include "net/http_sec.h"
#include "net/http_server.h"
#include "net/http_watch.h"
#include "net/listen.h"

#define TEXT_PLAIN "text/plain; charset=utf-8"
/* First allocation of a chunked body (a declared one gets its length). */
#define BODY_FIRST_ALLOC ((size_t)64 * 1024)

struct fsc_http_server {
    struct MHD_Daemon *daemon;
    struct fsc_http_handler *routes; /* copy of the table */
    size_t n_routes;
    fsc_http_refused_fn refused;
    void *arg;
    size_t drain_max;
    int body_allowed;             /* some route stores bodies: chunked ones are allowed */
    struct fsc_http_sec *sec;     /* TLS material and credential check */
    struct fsc_http_watch *watch; /* admission and deadlines */
    struct fsc_http_server_info info;
};

/* Per-request state (MHD's con_cls), freed by call_completed. */
struct fsc_http_call {
    struct fsc_http_server *server;
    const struct fsc_http_handler *route; /* NULL: no route has the path */
    struct MHD_Connection *conn;
    unsigned method;    /* FSC_HTTP_* bit, 0 for other methods */
    int refused;        /* answered without the body, which is dropped */
    int server_answers; /* refused by the server (why), not by the route */
    enum fsc_http_refusal why;
    int answered;        /* fsc_http_respond was called (or no answer may come) */
    enum MHD_Result ret; /* what the handler call that answered returns */
    int over;            /* the body passed max_body: the rest is dropped */
    uint8_t *body;       /* stored body (store_body), at most max_body bytes */
    size_t len, cap;     /* len also counts dropped bytes of a store_body 0 route */
    uint64_t wire;       /* body bytes received, kept or not */
    alignas(max_align_t) unsigned char state[]; /* the route's state_size bytes */
};

/* ---- responses ---------------------------------------------------------------- */

/* The text of the Allow header for a set of methods (FSC_HTTP_* bits). */
static const char *allow_text(unsigned methods)
{
    static const char *const texts[8] = {
        "", "GET", "HEAD", "GET, HEAD", "POST", "GET, POST", "HEAD, POST", "GET, HEAD, POST",
    };
    return texts[methods & 7u];
}

/* A streamed body as MHD calls it. */
struct stream_body {
    ssize_t (*read)(void *cls, char *buf, size_t max);
    void (*release)(void *cls);
    void *cls;
};

static ssize_t stream_read(void *cls, uint64_t pos, char *buf, size_t max)
{
    struct stream_body *sb = cls;
    (void)pos;
    ssize_t n = sb->read(sb->cls, buf, max);
    if (n == FSC_HTTP_READ_END)
        return MHD_CONTENT_READER_END_OF_STREAM;
    if (n <= 0)
        return MHD_CONTENT_READER_END_WITH_ERROR;
    return n;
}

static void stream_free(void *cls)
{
    struct stream_body *sb = cls;
    sb->release(sb->cls);
    free(sb);
}

/* MHD's buffer per streamed response: what one read() may write. */
#define STREAM_BLOCK ((size_t)128 << 10)

/* A response that calls resp->read; NULL (release called) on failure. */
static struct MHD_Response *stream_response(const struct fsc_http_response *resp)
{
    struct stream_body *sb = malloc(sizeof(*sb));
    if (!sb) {
        resp->release(resp->release_cls);
        return NULL;
    }
    *sb = (struct stream_body){resp->read, resp->release, resp->release_cls};
    struct MHD_Response *mr = MHD_create_response_from_callback(
        resp->stream_len_known ? (uint64_t)resp->len : MHD_SIZE_UNKNOWN, STREAM_BLOCK, stream_read,
        sb, stream_free);
    if (!mr)
        stream_free(sb);
    return mr;
}

int fsc_http_respond(struct fsc_http_call *call, const struct fsc_http_response *resp)
{
    struct MHD_Response *mr;
    void *body = (void *)(uintptr_t)(resp->body ? resp->body : "");
    enum MHD_Result ok = MHD_YES;

    if (call->answered) {
        if (resp->release)
            resp->release(resp->release_cls);
        return -1;
    }
    call->answered = 1;
    call->ret = MHD_NO;
    if (resp->read && resp->release) {
        if (!(mr = stream_response(resp)))
            return -1;
    } else {
        if (resp->release)
            mr = MHD_create_response_from_buffer_with_free_callback_cls(
                resp->len, body, resp->release, resp->release_cls);
        else
            mr = MHD_create_response_from_buffer(resp->len, body, MHD_RESPMEM_MUST_COPY);
        if (!mr) {
            if (resp->release)
                resp->release(resp->release_cls);
            return -1;
        }
    }
    /* From here the response owns what release frees. */
    ok = MHD_add_response_header(mr, MHD_HTTP_HEADER_CONTENT_TYPE,
                                 resp->content_type ? resp->content_type : TEXT_PLAIN);
    for (size_t i = 0; ok == MHD_YES && i < resp->n_headers && i < FSC_HTTP_RESPONSE_HEADERS; i++)
        ok = MHD_add_response_header(mr, resp->headers[i].name, resp->headers[i].value);
    if (ok == MHD_YES && resp->status == MHD_HTTP_METHOD_NOT_ALLOWED && call->route)
        ok = MHD_add_response_header(mr, MHD_HTTP_HEADER_ALLOW, allow_text(call->route->methods));
    if (ok == MHD_YES)
        call->ret = MHD_queue_response(call->conn, resp->status, mr);
    MHD_destroy_response(mr);
    return call->ret == MHD_YES ? 0 : -1;
}

int fsc_http_respond_text(struct fsc_http_call *call, unsigned status, const char *text)
{
    const struct fsc_http_response resp = {.status = status, .body = text, .len = strlen(text)};
    return fsc_http_respond(call, &resp);
}

/* ---- what a route sees ------------------------------------------------------------ */

const char *fsc_http_call_header(const struct fsc_http_call *call, const char *name)
{
    return MHD_lookup_connection_value(call->conn, MHD_HEADER_KIND, name);
}

const char *fsc_http_call_query(const struct fsc_http_call *call, const char *key)
{
    return MHD_lookup_connection_value(call->conn, MHD_GET_ARGUMENT_KIND, key);
}

unsigned fsc_http_call_method(const struct fsc_http_call *call)
{
    return call->method;
}

void *fsc_http_call_state(struct fsc_http_call *call)
{
    return call->route && call->route->state_size > 0 ? call->state : NULL;
}

uint8_t *fsc_http_call_body(struct fsc_http_call *call, size_t *len)
{
    *len = call->body ? call->len : 0;
    return call->body;
}

uint64_t fsc_http_call_wire_bytes(const struct fsc_http_call *call)
{
    return call->wire;
}

/* ---- routing and refusals ----------------------------------------------------------- */

static const struct fsc_http_handler *route_find(const struct fsc_http_server *s, const char *path)
{
    for (size_t i = 0; i < s->n_routes; i++)
        if (strcmp(path, s->routes[i].path) == 0)
            return &s->routes[i];
    return NULL;
}

static unsigned method_bit(const char *method)
{
    if (strcmp(method, MHD_HTTP_METHOD_GET) == 0)
        return FSC_HTTP_GET;
    if (strcmp(method, MHD_HTTP_METHOD_HEAD) == 0)
        return FSC_HTTP_HEAD;
    if (strcmp(method, MHD_HTTP_METHOD_POST) == 0)
        return FSC_HTTP_POST;
    return 0;
}

/* Content-Length as a number; -1 when absent or not a plain decimal (MHD
 * rejects malformed values itself). Saturates instead of overflowing. */
static int64_t content_length(struct MHD_Connection *conn)
{
    const char *v =
        MHD_lookup_connection_value(conn, MHD_HEADER_KIND, MHD_HTTP_HEADER_CONTENT_LENGTH);
    int64_t n = 0;
    if (!v || !*v)
        return -1;
    for (; *v; v++) {
        if (*v < '0' || *v > '9')
            return -1;
        if (n > (INT64_MAX - 9) / 10)
            return INT64_MAX;
        n = n * 10 + (*v - '0');
    }
    return n;
}

/* The server's own answers (enum fsc_http_refusal order). */
static const struct {
    unsigned status;
    const char *text;
} refusal_answer[] = {
    [FSC_HTTP_REFUSED_PATH] = {MHD_HTTP_NOT_FOUND, "not found\n"},
    [FSC_HTTP_REFUSED_METHOD] = {MHD_HTTP_METHOD_NOT_ALLOWED, "method not allowed\n"},
    [FSC_HTTP_REFUSED_DECLARED] = {MHD_HTTP_CONTENT_TOO_LARGE, "request body not accepted\n"},
    [FSC_HTTP_REFUSED_BODY] = {MHD_HTTP_CONTENT_TOO_LARGE, "request body not accepted\n"},
};

/* Tells the hook about an outcome that has its answer already or gets none. */
static void refusal_seen(struct fsc_http_call *call, enum fsc_http_refusal why)
{
    call->answered = 1;
    if (call->server->refused)
        call->server->refused(call->server->arg, call, why);
}

/* Answers the request: the route's serve(), or the server's refusal (which
 * the hook may answer instead). Returns what the handler call returns. */
static enum MHD_Result call_answer(struct fsc_http_call *call)
{
    struct fsc_http_server *s = call->server;

    if (!call->server_answers) {
        call->route->serve(call->route->arg, call);
    } else {
        if (s->refused)
            s->refused(s->arg, call, call->why);
        if (!call->answered)
            fsc_http_respond_text(call, refusal_answer[call->why].status,
                                  refusal_answer[call->why].text);
    }
    if (!call->answered)
        fsc_http_respond_text(call, MHD_HTTP_INTERNAL_SERVER_ERROR, "no answer\n");
    free(call->body); /* the answer is queued: it needs none of it */
    call->body = NULL;
    call->len = call->cap = 0;
    return call->ret;
}

static void server_refuses(struct fsc_http_call *call, enum fsc_http_refusal why)
{
    call->refused = 1;
    call->server_answers = 1;
    call->why = why;
}

/* Decides from the request line and headers whether the request is refused. */
static void call_decide(struct fsc_http_call *call)
{
    const struct fsc_http_handler *route = call->route;

    if (!route) {
        server_refuses(call, FSC_HTTP_REFUSED_PATH);
        return;
    }
    if (!(route->methods & call->method)) {
        server_refuses(call, FSC_HTTP_REFUSED_METHOD);
        return;
    }
    if (route->begin && route->begin(route->arg, call) != 0) {
        call->refused = 1;
        return;
    }
    int64_t cl = content_length(call->conn);
    if (cl > 0 && (uint64_t)cl > route->max_body)
        server_refuses(call, FSC_HTTP_REFUSED_DECLARED);
}

/* 1 when a body is announced that may be larger than drain_max. */
static int body_beyond(struct fsc_http_call *call, size_t drain_max)
{
    int64_t cl = content_length(call->conn);
    return (cl > 0 && (uint64_t)cl > drain_max) ||
           MHD_lookup_connection_value(call->conn, MHD_HEADER_KIND,
                                       MHD_HTTP_HEADER_TRANSFER_ENCODING) != NULL;
}

/* ---- the access handler ------------------------------------------------------------- */

/* First call of a request: its header is complete. */
static enum MHD_Result call_begin(struct fsc_http_server *s, struct MHD_Connection *conn,
                                  const char *url, const char *method, const char *version,
                                  void **con_cls)
{
    const struct fsc_http_handler *route = route_find(s, url);
    struct fsc_http_call *call = calloc(1, sizeof(*call) + (route ? route->state_size : 0));
    const char *why;
    enum MHD_Result gate_ret;

    if (!call)
        return MHD_NO; /* MHD closes the connection */
    *con_cls = call;
    call->server = s;
    call->route = route;
    call->conn = conn;
    call->method = method_bit(method);
    if (!fsc_http_watch_request_begin(conn))
        return MHD_NO; /* shut down by the watch: no answer could arrive */
    /* Ambiguous framing first: refused at once, the connection closed after
     * the answer, nothing of the body read. */
    unsigned bad = fsc_http_frame_check(conn, version, s->body_allowed, &why);
    if (bad) {
        refusal_seen(call, FSC_HTTP_REFUSED_FRAMING);
        return fsc_http_frame_refuse(conn, bad, why);
    }
    /* Client certificate and credentials before anything else: an
     * unauthenticated client learns nothing, not even which paths exist,
     * and its refusal (queued now) closes the connection. */
    if (!fsc_http_sec_gate(s->sec, conn, &gate_ret)) {
        call->answered = 1; /* by the gate: no route may see this request */
        return gate_ret;
    }
    fsc_http_watch_admitted(conn);
    call_decide(call);
    /* Refused with a body on its way that may be large: answer now, so MHD
     * closes the connection after the answer and the body is never read. */
    if (call->refused && body_beyond(call, s->drain_max))
        return call_answer(call);
    return MHD_YES;
}

/* Stores (or counts) n more body bytes. Returns MHD_NO to close the
 * connection without an answer. */
static enum MHD_Result call_body(struct fsc_http_call *call, const char *data, size_t n)
{
    const struct fsc_http_handler *route = call->route;
    size_t max = route->max_body;

    call->wire += n;
    if (call->over) {
        if (call->wire <= 2 * (uint64_t)max)
            return MHD_YES;
        refusal_seen(call, FSC_HTTP_CLOSED_BODY);
        return MHD_NO;
    }
    if (n > max - call->len) {
        call->over = 1; /* drop what we have: the answer is 413 whatever follows */
        free(call->body);
        call->body = NULL;
        call->len = call->cap = 0;
        return MHD_YES;
    }
    if (route->store_body && call->len + n > call->cap) {
        int64_t cl = content_length(call->conn);
        size_t want = call->cap ? call->cap * 2 : (cl > 0 ? (size_t)cl : BODY_FIRST_ALLOC);
        if (want < call->len + n)
            want = call->len + n;
        if (want > max)
            want = max;
        uint8_t *nb = realloc(call->body, want + 1); /* a spare byte for a terminator */
        if (!nb) {
            refusal_seen(call, FSC_HTTP_CLOSED_NO_MEMORY);
            return MHD_NO;
        }
        call->body = nb;
        call->cap = want;
    }
    if (route->store_body)
        memcpy(call->body + call->len, data, n);
    call->len += n;
    return MHD_YES;
}

/* MHD access handler. Thread: the connection's (one of the pool's, or its
 * own). */
static enum MHD_Result http_access(void *cls, struct MHD_Connection *conn, const char *url,
                                   const char *method, const char *version, const char *upload_data,
                                   size_t *upload_data_size, void **con_cls)
{
    struct fsc_http_server *s = cls;
    struct fsc_http_call *call = *con_cls;

    if (!call)
        return call_begin(s, conn, url, method, version, con_cls);
    if (call->answered) { /* answered at once: nothing more is read or sent */
        *upload_data_size = 0;
        return MHD_YES;
    }
    if (*upload_data_size > 0) {
        size_t n = *upload_data_size;
        *upload_data_size = 0;
        fsc_http_watch_body(conn, n);
        if (call->refused) /* read and dropped */
            return MHD_YES;
        return call_body(call, upload_data, n);
    }
    if (!fsc_http_watch_body_done(conn))
        return MHD_NO; /* shut down meanwhile: the client sends it again */
    if (!call->refused && call->over)
        server_refuses(call, FSC_HTTP_REFUSED_BODY);
    return call_answer(call);
}

/* MHD request-completed notifier: frees the per-request state. */
static void call_completed(void *cls, struct MHD_Connection *conn, void **con_cls,
                           enum MHD_RequestTerminationCode toe)
{
    struct fsc_http_call *call = *con_cls;
    (void)cls;
    (void)toe;
    fsc_http_watch_request_end(conn);
    if (call)
        free(call->body);
    free(call);
    *con_cls = NULL;
}

/* ---- MHD's log lines ------------------------------------------------------------------ */

/* Messages about one client going away or sending garbage are routine for a
 * server on a network (info); everything else (threads, accept, the
 * connection limit, sockets) concerns the server itself (warn). MHD gives
 * no level, only text, hence the prefixes (libmicrohttpd 0.9.75). */
static const char *const mhd_client_msgs[] = {
    "The connection was forcibly closed",
    "Connection socket is closed",
    "Connection was closed by remote side",
    "Application reported internal error", /* our MHD_NO, logged or counted by us */
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

/* ---- lifecycle ----------------------------------------------------------------------- */

static void server_free(struct fsc_http_server *s)
{
    fsc_http_watch_destroy(s->watch); /* after MHD_stop_daemon: every connection reported closed */
    fsc_http_sec_destroy(s->sec);     /* after MHD_stop_daemon: MHD holds its PEM strings */
    free(s->routes);
    free(s);
}

/* Checks the table and copies it into s. Returns 0 or -1 with err. */
static int routes_copy(struct fsc_http_server *s, const struct fsc_http_server_config *cfg,
                       char *err, size_t errlen)
{
    for (size_t i = 0; i < cfg->n_routes; i++) {
        const struct fsc_http_handler *r = &cfg->routes[i];
        if (!r->path || r->path[0] != '/' || !r->serve || !(r->methods & 7u)) {
            snprintf(err, errlen, "route %zu needs a path, a method and a serve function", i);
            return -1;
        }
        s->body_allowed |= r->store_body;
    }
    s->routes = calloc(cfg->n_routes ? cfg->n_routes : 1, sizeof(*s->routes));
    if (!s->routes) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    if (cfg->n_routes > 0)
        memcpy(s->routes, cfg->routes, cfg->n_routes * sizeof(*s->routes));
    s->n_routes = cfg->n_routes;
    return 0;
}

/* Starts MHD on fd with the server's options. fd is MHD's from here, even
 * on failure. */
static struct MHD_Daemon *daemon_start(struct fsc_http_server *s, int fd, int family,
                                       unsigned threads)
{
    const struct fsc_listener_limits *lim = &s->info.lim;
    unsigned flags =
        MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_ERROR_LOG | fsc_http_sec_mhd_flags(s->sec);
    struct MHD_OptionItem opts[1 + FSC_HTTP_SEC_OPTIONS];
    size_t k = 0;

    if (threads == 0) {
        flags |= MHD_USE_THREAD_PER_CONNECTION | MHD_USE_POLL;
    } else {
        flags |= MHD_USE_AUTO;
        opts[k++] = (struct MHD_OptionItem){MHD_OPTION_THREAD_POOL_SIZE, (intptr_t)threads, NULL};
    }
    if (family == AF_INET6)
        flags |= MHD_USE_IPv6;
    fsc_http_sec_mhd_options(s->sec, opts + k);
    return MHD_start_daemon(
        flags, 0, NULL, NULL, http_access, s, MHD_OPTION_EXTERNAL_LOGGER, http_mhd_log, s,
        MHD_OPTION_LISTEN_SOCKET, (MHD_socket)fd, MHD_OPTION_CONNECTION_LIMIT,
        fsc_http_watch_mhd_limit(lim), MHD_OPTION_PER_IP_CONNECTION_LIMIT,
        fsc_http_watch_mhd_per_ip_limit(lim), MHD_OPTION_CONNECTION_TIMEOUT, s->info.timeout_s,
        MHD_OPTION_UNESCAPE_CALLBACK, fsc_http_frame_unescape, NULL, MHD_OPTION_URI_LOG_CALLBACK,
        fsc_http_frame_uri_log, NULL, MHD_OPTION_NOTIFY_COMPLETED, call_completed, s,
        MHD_OPTION_NOTIFY_CONNECTION, fsc_http_watch_notify, s->watch, MHD_OPTION_ARRAY, opts,
        MHD_OPTION_END);
}

struct fsc_http_server *fsc_http_server_start(const struct fsc_http_server_config *cfg, char *err,
                                              size_t errlen)
{
    struct fsc_http_server *s;
    int fd, family = AF_INET;

    if (!cfg->listen || !cfg->name || cfg->idle_timeout_ns < 0) {
        snprintf(err, errlen, "http server: a listen address, a name and a timeout >= 0 needed");
        return NULL;
    }
    s = calloc(1, sizeof(*s));
    if (!s) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    s->refused = cfg->refused;
    s->arg = cfg->arg;
    s->drain_max = cfg->drain_max;
    if (routes_copy(s, cfg, err, errlen) != 0) {
        server_free(s);
        return NULL;
    }
    fsc_listener_limits_resolve(cfg->limits, &s->info.lim);
    if (cfg->idle_timeout_ns > 0)
        s->info.lim.idle_timeout_ns = cfg->idle_timeout_ns;
    /* MHD counts whole seconds: round up so a timeout is never shortened. */
    int64_t timeout_ns = s->info.lim.idle_timeout_ns;
    s->info.timeout_s = timeout_ns / 1000000000 >= UINT_MAX
                            ? UINT_MAX
                            : (unsigned)((timeout_ns + 999999999) / 1000000000);
    s->sec = fsc_http_sec_create(cfg->tls, cfg->auth, cfg->name, err, errlen);
    if (!s->sec) {
        server_free(s);
        return NULL;
    }
    s->watch = fsc_http_watch_create(&s->info.lim, cfg->name, err, errlen);
    if (!s->watch) {
        server_free(s);
        return NULL;
    }
    fd = fsc_listen_tcp(cfg->listen, cfg->backlog, &family, err, errlen);
    if (fd == -1) {
        server_free(s);
        return NULL;
    }
    s->daemon = daemon_start(s, fd, family, cfg->threads);
    if (!s->daemon) {
        /* fd is not closed here: MHD 0.9.75 closes a listen socket it had
         * adopted when it fails later (threads, TLS), and a second close
         * could hit another thread's new descriptor. */
        snprintf(err, errlen, "cannot start the HTTP server on %s%s (see the microhttpd log line)",
                 cfg->listen, fsc_http_sec_tls(s->sec) ? " with TLS" : "");
        server_free(s);
        return NULL;
    }
    const union MHD_DaemonInfo *di = MHD_get_daemon_info(s->daemon, MHD_DAEMON_INFO_BIND_PORT);
    s->info.port = di ? di->port : 0;
    s->info.tls = fsc_http_sec_tls(s->sec);
    s->info.client_auth = fsc_http_sec_client_auth(s->sec);
    s->info.auth = fsc_http_sec_auth(s->sec);
    return s;
}

void fsc_http_server_info(const struct fsc_http_server *s, struct fsc_http_server_info *out)
{
    if (!s) {
        memset(out, 0, sizeof(*out));
        return;
    }
    *out = s->info;
}

void fsc_http_server_sec_stats(struct fsc_http_server *s, struct fsc_http_sec_stats *out)
{
    fsc_http_sec_stats(s ? s->sec : NULL, out);
}

void fsc_http_server_admit_stats(struct fsc_http_server *s, struct fsc_admit_stats *out)
{
    if (!s) {
        memset(out, 0, sizeof(*out));
        return;
    }
    fsc_http_watch_admit_stats(s->watch, out);
}

void fsc_http_server_stop(struct fsc_http_server *s)
{
    if (!s)
        return;
    /* Closes the listen socket and every connection and joins the threads
     * (waiting for a serve() in progress); every request's state and every
     * response is freed on the way. */
    MHD_stop_daemon(s->daemon);
    server_free(s);
}
