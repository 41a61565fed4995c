/* OTLP/HTTP transport on libmicrohttpd (otlp_http.h).
 *
 * Threading: MHD's internal event loop on a pool of HTTP_THREADS threads
 * (epoll), not a thread per connection. A request costs a short burst of CPU
 * (inflate, decode) under the ingest's single lock, so extra threads would
 * only queue on that lock; an event loop instead keeps idle keep-alive
 * connections of many senders for free, and a slow or stalled sender costs
 * a socket, not a thread. Two threads so that one request being decoded does
 * not stop another thread's connections from being read. Responses are a few
 * bytes (copied into MHD), so a slow reader cannot hold anything of ours.
 *
 * Memory is bounded per connection: the body buffer grows with the bytes
 * actually received, never beyond max_body (HTTP_CONN_LIMIT connections x
 * max_body in the worst case), and the inflated copy exists only while a
 * pool thread handles the request (HTTP_THREADS x max_decompressed).
 *
 * Size caps. A Content-Length over max_body is refused with 413 before any
 * of the body is read. A chunked body that grows past max_body is no longer
 * stored; libmicrohttpd 0.9.75 cannot answer in the middle of a body, so the
 * rest is read and dropped (counted) and the 413 goes out at its end, unless
 * the sender keeps going past twice max_body: then the connection is closed
 * without an answer. After gzip, max_decompressed applies (otlp_gzip.c).
 *
 * Errors: 404 (path), 405 + Allow: POST (method), 415 (content type or
 * encoding) as text/plain; 400 (malformed), 413 (caps) and 500 carry a
 * google.rpc.Status in the request's own type - protobuf {code, message} or
 * JSON {"code":3,"message":"..."} - as OTLP/HTTP specifies.
 *
 * TLS and authentication: net/http_sec.h, shared with the Prometheus
 * listener - TLS 1.2+, client certificates verified against tls.ca_file
 * (client_auth request/require), basic or bearer credentials; all checked
 * on the first handler call, before classification, so an unauthenticated
 * client gets 401/403 and its body is never read.
 *
 * libmicrohttpd 0.9.75 answers with "Connection: close" when a response is
 * queued on the first access-handler call, so answers are queued on a later
 * call - except refusals of a request that carries a body: there closing
 * the connection is what we want (the body is never read). */
#include <sys/socket.h> /* microhttpd.h needs the socket types first */

#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include <microhttpd.h>

#include "base/clock.h"
#include "net/http_frame.h"
#include "net/http_sec.h"
#include "net/http_watch.h"
#include "base/log.h"
#include "net/listen.h"
#include "sources/otlp/transport/otlp_http.h"

/* Connections: limits.max_connections in all, max_connections_per_ip per
 * address; net/http_watch.h keeps `reserve` of them free by closing idle
 * ones and cuts slow headers (header_timeout) and slow bodies
 * (body_min_rate); idle_timeout is MHD's connection timeout. */
#define HTTP_THREADS 2
/* Room for a burst of connections while the accept loop closes the ones
 * over a per-address cap (2 000 at once in tests/integration/faults_admit.sh). */
#define HTTP_BACKLOG      1024
#define HTTP_FIRST_ALLOC  ((size_t)64 * 1024)
#define CT_PROTOBUF       "application/x-protobuf"
#define CT_JSON           "application/json"
#define CT_TEXT           "text/plain; charset=utf-8"
#define GRPC_INVALID_ARG  3
#define GRPC_RESOURCE_EXH 8
#define GRPC_INTERNAL     13

struct fsc_otlp_http {
    const struct fsc_otlp_server_config *cfg;
    struct MHD_Daemon *daemon;
    uint16_t port;
    struct fsc_otlp_counters ctr;
    struct fsc_http_sec *sec;     /* TLS material and credential check; NULL = plain, open */
    struct fsc_http_watch *watch; /* request-header deadline (slowloris) */
};

/* Per-request state (MHD's con_cls), freed by http_completed. */
struct hreq {
    unsigned refuse;         /* HTTP status decided from the headers, 0 = none */
    const char *refuse_text; /* its text/plain body (static) */
    enum fsc_otlp_format fmt;
    int gzip;
    uint8_t *body; /* received body, at most max_body bytes */
    size_t len, cap;
    uint64_t wire; /* body bytes received, stored or not */
    int over;      /* the body passed max_body: the rest is dropped */
    int64_t arrival_ns;
};

/* ---- listening socket --------------------------------------------------------- */

/* ---- responses ------------------------------------------------------------------ */

static enum MHD_Result reply(struct MHD_Connection *conn, unsigned status, const char *ctype,
                             const void *body, size_t len, const char *allow)
{
    struct MHD_Response *resp = MHD_create_response_from_buffer(
        len, (void *)(uintptr_t)(body ? body : ""), MHD_RESPMEM_MUST_COPY);
    enum MHD_Result ret = MHD_NO;
    if (!resp)
        return MHD_NO;
    if (MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_TYPE, ctype) == MHD_YES &&
        (!allow || MHD_add_response_header(resp, MHD_HTTP_HEADER_ALLOW, allow) == MHD_YES))
        ret = MHD_queue_response(conn, status, resp);
    MHD_destroy_response(resp);
    return ret;
}

static const char *ctype_of(enum fsc_otlp_format fmt)
{
    return fmt == FSC_OTLP_FMT_JSON ? CT_JSON : CT_PROTOBUF;
}

/* Answers a refusal decided from the headers and counts it. */
static enum MHD_Result reply_refusal(struct fsc_otlp_http *h, struct MHD_Connection *conn,
                                     struct hreq *r)
{
    char status[8];
    snprintf(status, sizeof(status), "%u", r->refuse);
    struct fsc_otlp_outcome o;
    memset(&o, 0, sizeof(o));
    snprintf(o.message, sizeof(o.message), "%s", r->refuse_text);
    size_t n = strlen(o.message);
    if (n > 0 && o.message[n - 1] == '\n')
        o.message[n - 1] = '\0';
    if (r->refuse == MHD_HTTP_CONTENT_TOO_LARGE) {
        /* the content type is known here: a Status body, like a late 413 */
        uint8_t body[FSC_OTLP_RESPONSE_MAX];
        o.verdict = FSC_OTLP_TOO_LARGE;
        fsc_otlp_counters_add(&h->ctr, o.verdict, r->wire, &o, status);
        size_t len =
            fsc_otlp_status_write(r->fmt, GRPC_RESOURCE_EXH, o.message, body, sizeof(body));
        return reply(conn, r->refuse, ctype_of(r->fmt), body, len, NULL);
    }
    o.verdict = FSC_OTLP_UNSUPPORTED;
    fsc_otlp_counters_add(&h->ctr, o.verdict, r->wire, &o, status);
    return reply(conn, r->refuse, CT_TEXT, r->refuse_text, strlen(r->refuse_text),
                 r->refuse == MHD_HTTP_METHOD_NOT_ALLOWED ? "POST" : NULL);
}

/* Answers a request whose body is complete. */
static enum MHD_Result reply_outcome(struct fsc_otlp_http *h, struct MHD_Connection *conn,
                                     struct hreq *r, const struct fsc_otlp_outcome *o)
{
    uint8_t body[FSC_OTLP_RESPONSE_MAX];
    size_t len;
    unsigned status;
    int code = 0;

    switch (o->verdict) {
    case FSC_OTLP_OK:
    case FSC_OTLP_PARTIAL:
        status = MHD_HTTP_OK;
        break;
    case FSC_OTLP_BAD_REQUEST:
        status = MHD_HTTP_BAD_REQUEST;
        code = GRPC_INVALID_ARG;
        break;
    case FSC_OTLP_TOO_LARGE:
        status = MHD_HTTP_CONTENT_TOO_LARGE;
        code = GRPC_RESOURCE_EXH;
        break;
    default:
        status = MHD_HTTP_INTERNAL_SERVER_ERROR;
        code = GRPC_INTERNAL;
        break;
    }
    char st[8];
    snprintf(st, sizeof(st), "%u", status);
    fsc_otlp_counters_add(&h->ctr, o->verdict, r->wire, o, st);
    if (status == MHD_HTTP_OK)
        len = fsc_otlp_response_write(r->fmt, o, body, sizeof(body));
    else
        len = fsc_otlp_status_write(r->fmt, code, o->message, body, sizeof(body));
    return reply(conn, status, ctype_of(r->fmt), body, len, NULL);
}

/* ---- request classification -------------------------------------------------------- */

/* Matches a media type against `want`, ignoring case, surrounding blanks
 * and parameters (`application/json; charset=utf-8`). */
static int media_is(const char *v, const char *want)
{
    size_t n = strlen(want);
    while (*v == ' ' || *v == '\t')
        v++;
    if (strncasecmp(v, want, n) != 0)
        return 0;
    v += n;
    while (*v == ' ' || *v == '\t')
        v++;
    return *v == '\0' || *v == ';';
}

/* 1 for gzip, 0 for identity or none, -1 for anything else. */
static int encoding_of(const char *v)
{
    if (!v)
        return 0;
    while (*v == ' ' || *v == '\t')
        v++;
    size_t n = strlen(v);
    while (n > 0 && (v[n - 1] == ' ' || v[n - 1] == '\t'))
        n--;
    if (n == 0 || (n == 8 && strncasecmp(v, "identity", 8) == 0))
        return 0;
    if ((n == 4 && strncasecmp(v, "gzip", 4) == 0) || (n == 6 && strncasecmp(v, "x-gzip", 6) == 0))
        return 1;
    return -1;
}

/* Content-Length as a number; -1 when absent or not a plain decimal (MHD
 * rejects malformed values itself). Saturates instead of overflowing. */
static int64_t content_length(struct MHD_Connection *conn)
{
    const char *v =
        MHD_lookup_connection_value(conn, MHD_HEADER_KIND, MHD_HTTP_HEADER_CONTENT_LENGTH);
    if (!v || !*v)
        return -1;
    int64_t n = 0;
    for (; *v; v++) {
        if (*v < '0' || *v > '9')
            return -1;
        if (n > (INT64_MAX - 9) / 10)
            return INT64_MAX;
        n = n * 10 + (*v - '0');
    }
    return n;
}

/* Decides from the request line and headers whether the request is refused
 * (r->refuse) and, if not, its format and encoding. */
static void classify(struct fsc_otlp_http *h, struct MHD_Connection *conn, const char *url,
                     const char *method, struct hreq *r)
{
    if (strcmp(url, FSC_OTLP_HTTP_PATH) != 0) {
        r->refuse = MHD_HTTP_NOT_FOUND;
        r->refuse_text = "not found: OTLP metrics are accepted at POST /v1/metrics\n";
        return;
    }
    if (strcmp(method, MHD_HTTP_METHOD_POST) != 0) {
        r->refuse = MHD_HTTP_METHOD_NOT_ALLOWED;
        r->refuse_text = "method not allowed: use POST\n";
        return;
    }
    const char *ct =
        MHD_lookup_connection_value(conn, MHD_HEADER_KIND, MHD_HTTP_HEADER_CONTENT_TYPE);
    if (ct && media_is(ct, CT_PROTOBUF)) {
        r->fmt = FSC_OTLP_FMT_PROTO;
    } else if (ct && media_is(ct, CT_JSON)) {
        r->fmt = FSC_OTLP_FMT_JSON;
    } else {
        r->refuse = MHD_HTTP_UNSUPPORTED_MEDIA_TYPE;
        r->refuse_text = "unsupported Content-Type: use application/x-protobuf or "
                         "application/json\n";
        return;
    }
    r->gzip = encoding_of(
        MHD_lookup_connection_value(conn, MHD_HEADER_KIND, MHD_HTTP_HEADER_CONTENT_ENCODING));
    if (r->gzip < 0) {
        r->refuse = MHD_HTTP_UNSUPPORTED_MEDIA_TYPE;
        r->refuse_text = "unsupported Content-Encoding: use gzip or identity\n";
        return;
    }
    int64_t cl = content_length(conn);
    if (cl > 0 && (uint64_t)cl > h->cfg->max_body) {
        r->refuse = MHD_HTTP_CONTENT_TOO_LARGE;
        r->refuse_text = "request body is larger than max_body\n";
    }
}

/* 1 when the request announces a body (length or chunked). */
static int has_body(struct MHD_Connection *conn)
{
    return content_length(conn) > 0 ||
           MHD_lookup_connection_value(conn, MHD_HEADER_KIND, MHD_HTTP_HEADER_TRANSFER_ENCODING) !=
               NULL;
}

/* Stores n more body bytes, or starts dropping them past max_body. */
static int body_add(struct fsc_otlp_http *h, struct MHD_Connection *conn, struct hreq *r,
                    const char *data, size_t n)
{
    size_t max = h->cfg->max_body;
    r->wire += n;
    if (r->over)
        return r->wire > 2 * (uint64_t)max ? -1 : 0;
    if (n > max - r->len) {
        r->over = 1; /* drop what we have: the answer is 413 whatever follows */
        free(r->body);
        r->body = NULL;
        r->len = r->cap = 0;
        return 0;
    }
    if (r->len + n > r->cap) {
        int64_t cl = content_length(conn);
        size_t want = r->cap ? r->cap * 2 : (cl > 0 ? (size_t)cl : HTTP_FIRST_ALLOC);
        if (want < r->len + n)
            want = r->len + n;
        if (want > max)
            want = max;
        uint8_t *nb = realloc(r->body, want + 1);
        if (!nb)
            return -1;
        r->body = nb;
        r->cap = want;
    }
    memcpy(r->body + r->len, data, n);
    r->len += n;
    return 0;
}

/* MHD access handler. Thread: one of the pool's. */
static enum MHD_Result http_access(void *cls, struct MHD_Connection *conn, const char *url,
                                   const char *method, const char *version, const char *upload_data,
                                   size_t *upload_data_size, void **con_cls)
{
    struct fsc_otlp_http *h = cls;
    struct hreq *r = *con_cls;

    if (!r) {
        r = calloc(1, sizeof(*r));
        if (!r)
            return MHD_NO; /* MHD closes the connection */
        *con_cls = r;
        if (!fsc_http_watch_request_begin(conn))
            return MHD_NO; /* shut down by the watch: no answer could arrive */
        r->arrival_ns = fsc_now_ns();
        /* Ambiguous framing (net/http_frame.h): refused at once, the
         * connection closed after the answer, nothing of the body read. */
        const char *why;
        unsigned bad = fsc_http_frame_check(conn, version, 1, &why);
        if (bad) {
            fsc_otlp_counters_add(&h->ctr, FSC_OTLP_BAD_REQUEST, 0, NULL, "400 framing");
            return fsc_http_frame_refuse(conn, bad, why);
        }
        /* Refused here, the answer closes the connection unread. Not counted
         * as a request error: http_auth counts and logs it. */
        enum MHD_Result gate_ret;
        if (!fsc_http_sec_gate(h->sec, conn, &gate_ret))
            return gate_ret;
        fsc_http_watch_admitted(conn);
        classify(h, conn, url, method, r);
        /* Refused with a body on its way: answer now, so MHD closes the
         * connection after the answer and the body is never read. */
        if (r->refuse && has_body(conn))
            return reply_refusal(h, conn, r);
        return MHD_YES;
    }
    if (*upload_data_size > 0) {
        size_t n = *upload_data_size;
        *upload_data_size = 0;
        fsc_http_watch_body(conn, n);
        if (r->refuse) /* no body was announced, yet one came: drop it */
            return MHD_YES;
        if (body_add(h, conn, r, upload_data, n) != 0) {
            struct fsc_otlp_outcome o;
            memset(&o, 0, sizeof(o));
            o.verdict = r->over ? FSC_OTLP_TOO_LARGE : FSC_OTLP_INTERNAL;
            snprintf(o.message, sizeof(o.message), "%s",
                     r->over ? "chunked body went on past twice max_body: connection closed"
                             : "out of memory receiving the body");
            fsc_otlp_counters_add(&h->ctr, o.verdict, r->wire, &o, "closed");
            return MHD_NO;
        }
        return MHD_YES;
    }
    if (!fsc_http_watch_body_done(conn))
        return MHD_NO; /* shut down meanwhile: the client sends it again */
    if (r->refuse)
        return reply_refusal(h, conn, r);
    struct fsc_otlp_outcome o;
    if (r->over) {
        memset(&o, 0, sizeof(o));
        o.verdict = FSC_OTLP_TOO_LARGE;
        snprintf(o.message, sizeof(o.message), "request body is larger than max_body (%zu bytes)",
                 h->cfg->max_body);
    } else {
        fsc_otlp_export_run(h->cfg->ing, r->fmt, r->body, r->len, r->gzip, h->cfg->max_decompressed,
                            r->arrival_ns, &o);
    }
    free(r->body); /* the answer needs none of it */
    r->body = NULL;
    r->len = r->cap = 0;
    return reply_outcome(h, conn, r, &o);
}

/* MHD request-completed notifier: frees the per-request state. */
static void http_completed(void *cls, struct MHD_Connection *conn, void **con_cls,
                           enum MHD_RequestTerminationCode toe)
{
    struct hreq *r = *con_cls;
    (void)cls;
    (void)toe;
    fsc_http_watch_request_end(conn);
    if (r)
        free(r->body);
    free(r);
    *con_cls = NULL;
}

/* Messages about one client going away or misbehaving are routine for a
 * server on a network (info); the rest concern the server itself (warn).
 * MHD gives text only, hence the prefixes (libmicrohttpd 0.9.75). */
static const char *const mhd_client_msgs[] = {
    "The connection was forcibly closed",
    "Connection socket is closed",
    "Connection was closed by remote side",
    "Application reported internal error", /* our MHD_NO, counted by us */
    "Error processing request",
    "Too large value of 'Content-Length'",
    "Failed to parse `Content-Length'",
    "Error: received handshake message out of context",
    "Error: TLS handshake",
};

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

/* ---- lifecycle ------------------------------------------------------------------ */

static void http_free(struct fsc_otlp_http *h)
{
    fsc_http_watch_destroy(h->watch); /* after MHD_stop_daemon, or before any start */
    fsc_http_sec_destroy(h->sec);
    fsc_otlp_counters_fini(&h->ctr);
    free(h);
}

struct fsc_otlp_http *fsc_otlp_http_start(const struct fsc_otlp_server_config *cfg,
                                          const char *listen, char *err, size_t errlen)
{
    struct fsc_otlp_http *h = calloc(1, sizeof(*h));
    int family = AF_INET;
    if (!h) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    h->cfg = cfg;
    if (fsc_otlp_counters_init(&h->ctr, "http", cfg->source) != 0) {
        free(h);
        snprintf(err, errlen, "cannot create a mutex");
        return NULL;
    }
    char lname[96];
    snprintf(lname, sizeof(lname), "otlp/http:%s", cfg->source);
    h->sec = fsc_http_sec_create(cfg->tls, cfg->auth, lname, err, errlen);
    if (!h->sec) {
        http_free(h);
        return NULL;
    }
    struct fsc_listener_limits lim;
    fsc_listener_limits_resolve(cfg->limits, &lim);
    h->watch = fsc_http_watch_create(&lim, lname, err, errlen);
    if (!h->watch) {
        http_free(h);
        return NULL;
    }
    int fd = fsc_listen_tcp(listen, HTTP_BACKLOG, &family, err, errlen);
    if (fd == -1) {
        http_free(h);
        return NULL;
    }
    unsigned flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_AUTO | MHD_USE_ERROR_LOG |
                     fsc_http_sec_mhd_flags(h->sec);
    if (family == AF_INET6)
        flags |= MHD_USE_IPv6;
    struct MHD_OptionItem tls_opts[FSC_HTTP_SEC_OPTIONS];
    fsc_http_sec_mhd_options(h->sec, tls_opts);
    h->daemon = MHD_start_daemon(
        flags, 0, NULL, NULL, http_access, h, MHD_OPTION_EXTERNAL_LOGGER, http_mhd_log, h,
        MHD_OPTION_LISTEN_SOCKET, (MHD_socket)fd, MHD_OPTION_THREAD_POOL_SIZE,
        (unsigned)HTTP_THREADS, MHD_OPTION_CONNECTION_LIMIT, fsc_http_watch_mhd_limit(&lim),
        MHD_OPTION_PER_IP_CONNECTION_LIMIT, fsc_http_watch_mhd_per_ip_limit(&lim),
        MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)((lim.idle_timeout_ns + 999999999) / 1000000000),
        MHD_OPTION_UNESCAPE_CALLBACK, fsc_http_frame_unescape, NULL, MHD_OPTION_NOTIFY_COMPLETED,
        http_completed, h, MHD_OPTION_NOTIFY_CONNECTION, fsc_http_watch_notify, h->watch,
        MHD_OPTION_ARRAY, tls_opts, MHD_OPTION_END);
    if (!h->daemon) {
        /* fd is not closed here: MHD 0.9.75 closes a listen socket it had
         * adopted when it fails later (threads, TLS), and a second close
         * could hit another thread's new descriptor. */
        snprintf(err, errlen, "cannot start the HTTP server on %s%s (see the microhttpd log line)",
                 listen, cfg->tls ? " with TLS" : "");
        http_free(h);
        return NULL;
    }
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(h->daemon, MHD_DAEMON_INFO_BIND_PORT);
    h->port = info ? info->port : 0;
    fsc_otlp_counters_set_port(&h->ctr, h->port);
    char q[160];
    fsc_log(FSC_LOG_INFO, "otlp_listening",
            "transport=http port=%u source=%s listen=%s tls=%s client_auth=%s auth=%s "
            "max_body=%zu max_decompressed=%zu max_connections=%u max_connections_per_ip=%u "
            "header_timeout_ms=%lld body_min_rate=%llu",
            (unsigned)h->port, cfg->source, fsc_log_quote(listen, q, sizeof(q)),
            fsc_http_sec_tls(h->sec) ? "on" : "off", fsc_http_sec_client_auth(h->sec),
            fsc_http_sec_auth(h->sec) ? "on" : "off", cfg->max_body, cfg->max_decompressed,
            lim.max_connections, lim.max_connections_per_ip,
            (long long)(lim.header_timeout_ns / 1000000), (unsigned long long)lim.body_min_rate);
    return h;
}

void fsc_otlp_http_stop(struct fsc_otlp_http *h)
{
    if (!h)
        return;
    /* Closes the listen socket and every connection and joins the pool;
     * every request's state is freed on the way (http_completed). */
    MHD_stop_daemon(h->daemon);
    http_free(h);
}

uint16_t fsc_otlp_http_port(const struct fsc_otlp_http *h)
{
    return h ? h->port : 0;
}

void fsc_otlp_http_stats(struct fsc_otlp_http *h, struct fsc_otlp_transport_stats *out)
{
    if (!h) {
        memset(out, 0, sizeof(*out));
        out->transport = "http";
        return;
    }
    fsc_otlp_counters_get(&h->ctr, out);
    fsc_http_sec_stats(h->sec, &out->sec);
    fsc_http_watch_admit_stats(h->watch, &out->admit);
}
