/* OTLP/HTTP transport (otlp_http.h): one route, POST /v1/metrics, on the
 * collector's HTTP server (net/http_server.h).
 *
 * Threading: a pool of HTTP_THREADS event-loop threads, not a thread per
 * connection. A request costs a short burst of CPU (inflate, decode) under
 * the ingest's single lock, so extra threads would only queue on that lock;
 * an event loop instead keeps idle keep-alive connections of many senders
 * for free, and a slow or stalled sender costs a socket, not a thread. Two
 * threads so that one request being decoded does not stop another thread's
 * connections from being read. Responses are a few bytes (copied), so a
 * slow reader cannot hold anything of ours.
 *
 * Memory is bounded per connection: the server stores the body as it
 * arrives, never beyond max_body (max_connections x max_body in the worst
 * case), and the inflated copy exists only while a pool thread handles the
 * request (HTTP_THREADS x max_decompressed).
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
 * JSON {"code":3,"message":"..."} - as OTLP/HTTP specifies. Every answer,
 * the server's own refusals included (refused()), is counted here.
 *
 * TLS and authentication: net/http_sec.h, checked by the server before the
 * route sees the request, so an unauthenticated client gets 401/403 and its
 * body is never read. A refusal of a request that carries a body is answered
 * at once, which closes the connection: the body is never read. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/clock.h"
#include "base/log.h"
#include "net/http_server.h"
#include "sources/otlp/transport/otlp_http.h"

/* Connections: limits.max_connections in all, max_connections_per_ip per
 * address; net/http_watch.h keeps `reserve` of them free by closing idle
 * ones and cuts slow headers (header_timeout) and slow bodies
 * (body_min_rate); idle_timeout is MHD's connection timeout. */
#define HTTP_THREADS 2
/* Room for a burst of connections while the accept loop closes the ones
 * over a per-address cap (2 000 at once in tests/integration/faults_admit.sh). */
#define HTTP_BACKLOG      1024
#define CT_PROTOBUF       "application/x-protobuf"
#define CT_JSON           "application/json"
#define GRPC_INVALID_ARG  3
#define GRPC_RESOURCE_EXH 8
#define GRPC_INTERNAL     13

struct fsc_otlp_http {
    const struct fsc_otlp_server_config *cfg;
    struct fsc_http_server *server;
    struct fsc_otlp_counters ctr;
};

/* Per-request state of the route (the server's, zeroed, freed with the
 * request). */
struct hreq {
    const char *refuse_text; /* 415 decided from the headers: its text (static); NULL = none */
    enum fsc_otlp_format fmt;
    int gzip;
    int64_t arrival_ns;
};

/* ---- responses ------------------------------------------------------------------ */

static const char *ctype_of(enum fsc_otlp_format fmt)
{
    return fmt == FSC_OTLP_FMT_JSON ? CT_JSON : CT_PROTOBUF;
}

static void reply(struct fsc_http_call *call, unsigned status, enum fsc_otlp_format fmt,
                  const uint8_t *body, size_t len)
{
    const struct fsc_http_response resp = {
        .status = status, .content_type = ctype_of(fmt), .body = body, .len = len};
    fsc_http_respond(call, &resp);
}

/* Answers a refusal decided from the request line and headers (404, 405,
 * 415: text/plain; 413: a Status in the request's type) and counts it. */
static void reply_refusal(struct fsc_otlp_http *h, struct fsc_http_call *call, unsigned status,
                          const char *text, enum fsc_otlp_format fmt)
{
    char detail[8];
    struct fsc_otlp_outcome o;

    snprintf(detail, sizeof(detail), "%u", status);
    memset(&o, 0, sizeof(o));
    snprintf(o.message, sizeof(o.message), "%s", text);
    size_t n = strlen(o.message);
    if (n > 0 && o.message[n - 1] == '\n')
        o.message[n - 1] = '\0';
    if (status == 413) {
        uint8_t body[FSC_OTLP_RESPONSE_MAX];
        o.verdict = FSC_OTLP_TOO_LARGE;
        fsc_otlp_counters_add(&h->ctr, o.verdict, fsc_http_call_wire_bytes(call), &o, detail);
        reply(call, status, fmt, body,
              fsc_otlp_status_write(fmt, GRPC_RESOURCE_EXH, o.message, body, sizeof(body)));
        return;
    }
    o.verdict = FSC_OTLP_UNSUPPORTED;
    fsc_otlp_counters_add(&h->ctr, o.verdict, fsc_http_call_wire_bytes(call), &o, detail);
    fsc_http_respond_text(call, status, text);
}

/* Answers a request whose body is complete. */
static void reply_outcome(struct fsc_otlp_http *h, struct fsc_http_call *call,
                          enum fsc_otlp_format fmt, const struct fsc_otlp_outcome *o)
{
    uint8_t body[FSC_OTLP_RESPONSE_MAX];
    size_t len;
    unsigned status;
    int code = 0;

    switch (o->verdict) {
    case FSC_OTLP_OK:
    case FSC_OTLP_PARTIAL:
        status = 200;
        break;
    case FSC_OTLP_BAD_REQUEST:
        status = 400;
        code = GRPC_INVALID_ARG;
        break;
    case FSC_OTLP_TOO_LARGE:
        status = 413;
        code = GRPC_RESOURCE_EXH;
        break;
    default:
        status = 500;
        code = GRPC_INTERNAL;
        break;
    }
    char st[8];
    snprintf(st, sizeof(st), "%u", status);
    fsc_otlp_counters_add(&h->ctr, o->verdict, fsc_http_call_wire_bytes(call), o, st);
    if (status == 200)
        len = fsc_otlp_response_write(fmt, o, body, sizeof(body));
    else
        len = fsc_otlp_status_write(fmt, code, o->message, body, sizeof(body));
    reply(call, status, fmt, body, len);
}

/* Counts a request the server closed without an answer. */
static void count_closed(struct fsc_otlp_http *h, struct fsc_http_call *call,
                         enum fsc_otlp_verdict verdict, const char *message)
{
    struct fsc_otlp_outcome o;
    memset(&o, 0, sizeof(o));
    o.verdict = verdict;
    snprintf(o.message, sizeof(o.message), "%s", message);
    fsc_otlp_counters_add(&h->ctr, o.verdict, fsc_http_call_wire_bytes(call), &o, "closed");
}

/* The server's refusals (net/http_server.h), answered and counted the OTLP
 * way. */
static void http_refused(void *arg, struct fsc_http_call *call, enum fsc_http_refusal why)
{
    struct fsc_otlp_http *h = arg;
    const struct hreq *r = fsc_http_call_state(call);
    enum fsc_otlp_format fmt = r ? r->fmt : FSC_OTLP_FMT_PROTO;
    struct fsc_otlp_outcome o;

    switch (why) {
    case FSC_HTTP_REFUSED_FRAMING:
        fsc_otlp_counters_add(&h->ctr, FSC_OTLP_BAD_REQUEST, 0, NULL, "400 framing");
        break;
    case FSC_HTTP_REFUSED_PATH:
        reply_refusal(h, call, 404, "not found: OTLP metrics are accepted at POST /v1/metrics\n",
                      fmt);
        break;
    case FSC_HTTP_REFUSED_METHOD:
        reply_refusal(h, call, 405, "method not allowed: use POST\n", fmt);
        break;
    case FSC_HTTP_REFUSED_DECLARED:
        reply_refusal(h, call, 413, "request body is larger than max_body\n", fmt);
        break;
    case FSC_HTTP_REFUSED_BODY:
        memset(&o, 0, sizeof(o));
        o.verdict = FSC_OTLP_TOO_LARGE;
        snprintf(o.message, sizeof(o.message), "request body is larger than max_body (%zu bytes)",
                 h->cfg->max_body);
        reply_outcome(h, call, fmt, &o);
        break;
    case FSC_HTTP_CLOSED_BODY:
        count_closed(h, call, FSC_OTLP_TOO_LARGE,
                     "chunked body went on past twice max_body: connection closed");
        break;
    case FSC_HTTP_CLOSED_NO_MEMORY:
        count_closed(h, call, FSC_OTLP_INTERNAL, "out of memory receiving the body");
        break;
    }
}

/* ---- the route ---------------------------------------------------------------------- */

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

/* The route's begin(): the format and encoding from the headers, or a 415.
 * Path, method and the declared size are the server's. */
static int export_begin(void *arg, struct fsc_http_call *call)
{
    struct hreq *r = fsc_http_call_state(call);
    const char *ct = fsc_http_call_header(call, "Content-Type");
    (void)arg;

    r->arrival_ns = fsc_now_ns();
    if (ct && media_is(ct, CT_PROTOBUF)) {
        r->fmt = FSC_OTLP_FMT_PROTO;
    } else if (ct && media_is(ct, CT_JSON)) {
        r->fmt = FSC_OTLP_FMT_JSON;
    } else {
        r->refuse_text = "unsupported Content-Type: use application/x-protobuf or "
                         "application/json\n";
        return 1;
    }
    r->gzip = encoding_of(fsc_http_call_header(call, "Content-Encoding"));
    if (r->gzip < 0) {
        r->refuse_text = "unsupported Content-Encoding: use gzip or identity\n";
        return 1;
    }
    return 0;
}

/* The route's serve(): the 415 decided by export_begin, or the export. */
static void export_serve(void *arg, struct fsc_http_call *call)
{
    struct fsc_otlp_http *h = arg;
    const struct hreq *r = fsc_http_call_state(call);
    struct fsc_otlp_outcome o;
    size_t len;
    uint8_t *body = fsc_http_call_body(call, &len);

    if (r->refuse_text) {
        reply_refusal(h, call, 415, r->refuse_text, r->fmt);
        return;
    }
    fsc_otlp_export_run(h->cfg->ing, r->fmt, body, len, r->gzip, h->cfg->max_decompressed,
                        r->arrival_ns, &o);
    reply_outcome(h, call, r->fmt, &o);
}

/* ---- lifecycle ------------------------------------------------------------------ */

static void http_free(struct fsc_otlp_http *h)
{
    fsc_otlp_counters_fini(&h->ctr);
    free(h);
}

struct fsc_otlp_http *fsc_otlp_http_start(const struct fsc_otlp_server_config *cfg,
                                          const char *listen, char *err, size_t errlen)
{
    struct fsc_otlp_http *h = calloc(1, sizeof(*h));
    struct fsc_http_server_info info;
    char lname[96];

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
    snprintf(lname, sizeof(lname), "otlp/http:%s", cfg->source);
    const struct fsc_http_handler route = {
        .path = FSC_OTLP_HTTP_PATH,
        .methods = FSC_HTTP_POST,
        .max_body = cfg->max_body,
        .store_body = 1,
        .state_size = sizeof(struct hreq),
        .begin = export_begin,
        .serve = export_serve,
        .arg = h,
    };
    const struct fsc_http_server_config sc = {
        .listen = listen,
        .name = lname,
        .tls = cfg->tls,
        .auth = cfg->auth,
        .limits = cfg->limits,
        .threads = HTTP_THREADS,
        .backlog = HTTP_BACKLOG,
        .drain_max = 0,
        .routes = &route,
        .n_routes = 1,
        .refused = http_refused,
        .arg = h,
    };
    h->server = fsc_http_server_start(&sc, err, errlen);
    if (!h->server) {
        http_free(h);
        return NULL;
    }
    fsc_http_server_info(h->server, &info);
    fsc_otlp_counters_set_port(&h->ctr, info.port);
    char q[160];
    fsc_log(FSC_LOG_INFO, "otlp_listening",
            "transport=http port=%u source=%s listen=%s tls=%s client_auth=%s auth=%s "
            "max_body=%zu max_decompressed=%zu max_connections=%u max_connections_per_ip=%u "
            "header_timeout_ms=%lld body_min_rate=%llu",
            (unsigned)info.port, cfg->source, fsc_log_quote(listen, q, sizeof(q)),
            info.tls ? "on" : "off", info.client_auth, info.auth ? "on" : "off", cfg->max_body,
            cfg->max_decompressed, info.lim.max_connections, info.lim.max_connections_per_ip,
            (long long)(info.lim.header_timeout_ns / 1000000),
            (unsigned long long)info.lim.body_min_rate);
    return h;
}

void fsc_otlp_http_stop(struct fsc_otlp_http *h)
{
    if (!h)
        return;
    /* Closes the socket and every connection and joins the pool; every
     * request is counted or dropped by then. */
    fsc_http_server_stop(h->server);
    http_free(h);
}

uint16_t fsc_otlp_http_port(const struct fsc_otlp_http *h)
{
    struct fsc_http_server_info info;
    fsc_http_server_info(h ? h->server : NULL, &info);
    return info.port;
}

void fsc_otlp_http_stats(struct fsc_otlp_http *h, struct fsc_otlp_transport_stats *out)
{
    if (!h) {
        memset(out, 0, sizeof(*out));
        out->transport = "http";
        return;
    }
    fsc_otlp_counters_get(&h->ctr, out);
    fsc_http_server_sec_stats(h->server, &out->sec);
    fsc_http_server_admit_stats(h->server, &out->admit);
}
