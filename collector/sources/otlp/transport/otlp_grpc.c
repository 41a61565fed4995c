/* OTLP/gRPC transport on the gRPC C core (otlp_grpc.h).
 *
 * Threading. One thread drives one completion queue; every call is a slot
 * whose tags say which step completed. limits.max_calls slots serve the
 * registered Export method; CALLS_ARMED of the idle ones are always
 * requested in advance (re-armed as soon as a call takes one), so that many
 * clients (a fabric of switches exporting every second) are each answered
 * without waiting for a request to be re-armed; CALLS_OTHER slots catch
 * every other method and answer UNIMPLEMENTED (an unregistered call with no
 * request outstanding would otherwise wait in the core until shutdown). Decoding runs on this
 * thread: the ingest serialises requests under one lock anyway, so more
 * threads would only queue on it; the core reads the sockets meanwhile.
 *
 * A slot: request -> NEW -> RECV_MESSAGE -> decode, ingest -> one batch
 * {initial metadata, response message, status, RECV_CLOSE_ON_SERVER} ->
 * REPLY -> unref and request again.
 *
 * Admission (eight calls that never send their message must not hold all
 * eight slots while the ninth, a legitimate Export, waits until its
 * deadline). A call whose message has not come limits.message_timeout after
 * it arrived is cancelled (DEADLINE_EXCEEDED). When a client address has
 * max_calls_per_ip calls in progress, its own call waiting longest for a
 * message is cancelled for the next one (RESOURCE_EXHAUSTED), so a sender
 * behind the same address (NAT) as a client holding silent calls still
 * gets through; with none waiting, the next call is refused at once
 * (RESOURCE_EXHAUSTED). The same number caps concurrent streams per connection
 * (GRPC_ARG_MAX_CONCURRENT_STREAMS). When every slot is taken, the call
 * waiting longest for its message is cancelled, so that a new call always
 * finds an armed slot: callers that send their message promptly are never
 * starved by ones that do not.
 *
 * Sizes and compression. The core is told not to decompress
 * (GRPC_ARG_ENABLE_PER_MESSAGE_DECOMPRESSION = 0): gRPC 1.51 checks the
 * limit on the compressed size and then inflates without a bound, so a small
 * gzip message could expand to gigabytes. We receive the message as it came
 * on the wire, the core caps that at max_body
 * (GRPC_ARG_MAX_RECEIVE_MESSAGE_LENGTH; over it the core fails the call with
 * RESOURCE_EXHAUSTED "Received message larger than max" itself), and
 * otlp_gzip.c inflates gzip messages into at most max_decompressed bytes
 * (over it: RESOURCE_EXHAUSTED from us). Only identity and gzip are enabled
 * (the only ones OTLP requires); a client using deflate is refused by the
 * core with UNIMPLEMENTED before its message reaches us.
 *
 * Security: TLS from the gRPC core (client certificates per tls.client_auth:
 * request = asked for and verified when given, require = handshake fails
 * without one). Credentials (cfg->auth): the call's `authorization`
 * metadata is checked by net/http_auth.h as soon as the call arrives,
 * before its message is read; a failure answers UNAUTHENTICATED.
 *
 * Stop: shutdown_and_notify plus cancel_all_calls from the stopping thread;
 * the server thread sees every slot's tags come back (failed), then the
 * shutdown tag, and exits; the server and queue are destroyed after join. */
#include "net/grpc_log.h"
#include "sources/otlp/transport/otlp_grpc.h"

#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <grpc/byte_buffer.h>
#include <grpc/compression.h>
#include <grpc/grpc.h>
#include <grpc/grpc_security.h>
#include <grpc/slice.h>
#include <grpc/support/alloc.h>
#include <grpc/support/log.h>
#include <grpc/support/time.h>
#include <gnutls/gnutls.h>

#include "base/clock.h"
#include "net/http_auth.h"
#include "base/log.h"

#define CALLS_ARMED 8 /* idle Export slots requested in advance */
#define CALLS_OTHER 2 /* calls of unknown methods requested in advance */
#define PEER_MAX    64
/* Memory the gRPC core may hold for this receiver's connections, and how
 * long an idle connection is kept (docs/SECURITY.md, input bounds). */
#define GRPC_MEMORY_QUOTA_MIN ((size_t)32 << 20)
#define GRPC_MEMORY_QUOTA_MAX ((size_t)256 << 20)
#define GRPC_IDLE_MS          (5 * 60 * 1000)
#define TICK_MS               250
#define DRAIN_NS              ((int64_t)10 * 1000000000)

enum tag_kind { TAG_NEW, TAG_RECV, TAG_REPLY, TAG_SHUTDOWN };

struct gslot;
struct gtag {
    enum tag_kind kind;
    struct gslot *s;
};

struct gslot {
    struct fsc_otlp_grpc *g;
    int export;          /* Export slot (registered) or catch-all slot */
    int busy;            /* a request or batch is outstanding */
    int receiving;       /* RECV_MESSAGE outstanding */
    int reaped;          /* cancelled by us: the message did not come in time */
    int armed;           /* Export slot requested, no call yet */
    char peer[PEER_MAX]; /* the client's address without port ("" until the call) */
    int64_t started_ns;  /* monotonic, when the call arrived */
    grpc_call *call;
    grpc_call_details details; /* catch-all slots */
    gpr_timespec deadline;     /* Export slots */
    grpc_metadata_array md;
    grpc_byte_buffer *payload;
    grpc_byte_buffer *resp;
    grpc_slice status_msg;
    int has_status_msg;
    int cancelled; /* RECV_CLOSE_ON_SERVER output */
    struct gtag t_new, t_recv, t_reply;
};

struct fsc_otlp_grpc {
    const struct fsc_otlp_server_config *cfg;
    grpc_server *server;
    grpc_completion_queue *cq;
    void *export_method;
    pthread_t thread;
    int thread_started;
    int grpc_inited;
    int stuck; /* the drain timed out: the core may still hold our tags */
    atomic_int stopping;
    int shutdown_seen;
    struct gtag t_shutdown;
    uint16_t port;
    struct fsc_otlp_counters ctr;
    struct fsc_http_auth *auth; /* NULL = open */
    struct fsc_listener_limits lim;
    size_t n_slots; /* CALLS_OTHER catch-all slots, then lim.max_calls Export slots */
    size_t armed;   /* Export slots requested and not yet taken by a call */
    /* Admission counters: written by the call thread, read by stats
     * (fabricscope_listener_closed_total) and logged. */
    _Atomic uint64_t peer_refused, reaped, shed;
    struct gslot *slots;
};

/* ---- slots ---------------------------------------------------------------------- */

static void slot_request(struct fsc_otlp_grpc *g, struct gslot *s)
{
    grpc_call_error ce;
    s->call = NULL;
    s->cancelled = 0;
    s->receiving = 0;
    s->reaped = 0;
    grpc_metadata_array_init(&s->md);
    if (s->export) {
        ce =
            grpc_server_request_registered_call(g->server, g->export_method, &s->call, &s->deadline,
                                                &s->md, NULL, g->cq, g->cq, &s->t_new);
    } else {
        grpc_call_details_init(&s->details);
        ce = grpc_server_request_call(g->server, &s->call, &s->details, &s->md, g->cq, g->cq,
                                      &s->t_new);
    }
    if (ce == GRPC_CALL_OK) {
        s->busy = 1;
        if (s->export) {
            s->armed = 1;
            g->armed++;
        }
        return;
    }
    /* Only after shutdown (or on a bug): the slot stays idle for good. */
    grpc_metadata_array_destroy(&s->md);
    if (!s->export)
        grpc_call_details_destroy(&s->details);
}

/* Keeps CALLS_ARMED idle Export slots requested (fewer when the others are
 * all in use). */
static void arm_exports(struct fsc_otlp_grpc *g)
{
    for (size_t i = CALLS_OTHER; i < g->n_slots && g->armed < CALLS_ARMED; i++) {
        if (!g->slots[i].busy)
            slot_request(g, &g->slots[i]);
    }
}

/* A finished slot serves again: a catch-all one is requested at once, an
 * Export one when fewer than CALLS_ARMED are. */
static void slot_recycle(struct fsc_otlp_grpc *g, struct gslot *s)
{
    if (atomic_load(&g->stopping))
        return;
    if (s->export)
        arm_exports(g);
    else
        slot_request(g, s);
}

/* Releases what one call used; the slot can be requested again. */
static void slot_release(struct gslot *s)
{
    if (s->payload)
        grpc_byte_buffer_destroy(s->payload);
    if (s->resp)
        grpc_byte_buffer_destroy(s->resp);
    if (s->has_status_msg)
        grpc_slice_unref(s->status_msg);
    s->payload = NULL;
    s->resp = NULL;
    s->has_status_msg = 0;
    if (s->call)
        grpc_call_unref(s->call);
    s->call = NULL;
    grpc_metadata_array_destroy(&s->md);
    if (!s->export)
        grpc_call_details_destroy(&s->details);
    s->busy = 0;
}

/* Ends the call: initial metadata, the response message when resp_len is
 * not (size_t)-1, the status, and waits for the close. */
static void slot_reply(struct gslot *s, grpc_status_code code, const char *msg, const uint8_t *resp,
                       size_t resp_len)
{
    grpc_op ops[4];
    size_t n = 0;
    memset(ops, 0, sizeof(ops));
    ops[n++].op = GRPC_OP_SEND_INITIAL_METADATA;
    if (resp) {
        grpc_slice sl = grpc_slice_from_copied_buffer((const char *)resp, resp_len);
        s->resp = grpc_raw_byte_buffer_create(&sl, 1);
        grpc_slice_unref(sl);
        ops[n].op = GRPC_OP_SEND_MESSAGE;
        ops[n++].data.send_message.send_message = s->resp;
    }
    s->status_msg = grpc_slice_from_copied_string(msg ? msg : "");
    s->has_status_msg = 1;
    ops[n].op = GRPC_OP_SEND_STATUS_FROM_SERVER;
    ops[n].data.send_status_from_server.status = code;
    ops[n++].data.send_status_from_server.status_details = &s->status_msg;
    ops[n].op = GRPC_OP_RECV_CLOSE_ON_SERVER;
    ops[n++].data.recv_close_on_server.cancelled = &s->cancelled;
    if (grpc_call_start_batch(s->call, ops, n, &s->t_reply, NULL) != GRPC_CALL_OK) {
        /* Cannot happen with a fresh call; recover the slot rather than
         * leak it. */
        grpc_call_cancel(s->call, NULL);
        slot_release(s);
        slot_recycle(s->g, s);
    }
}

static grpc_status_code status_of(enum fsc_otlp_verdict v, const char **name)
{
    switch (v) {
    case FSC_OTLP_OK:
    case FSC_OTLP_PARTIAL:
        *name = "OK";
        return GRPC_STATUS_OK;
    case FSC_OTLP_BAD_REQUEST:
        *name = "INVALID_ARGUMENT";
        return GRPC_STATUS_INVALID_ARGUMENT;
    case FSC_OTLP_TOO_LARGE:
        *name = "RESOURCE_EXHAUSTED";
        return GRPC_STATUS_RESOURCE_EXHAUSTED;
    case FSC_OTLP_UNSUPPORTED:
        *name = "UNIMPLEMENTED";
        return GRPC_STATUS_UNIMPLEMENTED;
    default:
        *name = "INTERNAL";
        return GRPC_STATUS_INTERNAL;
    }
}

/* Answers a call whose outcome is decided; counts it. */
static void slot_finish(struct gslot *s, const struct fsc_otlp_outcome *o, uint64_t wire_bytes)
{
    const char *name;
    grpc_status_code code = status_of(o->verdict, &name);
    fsc_otlp_counters_add(&s->g->ctr, o->verdict, wire_bytes, o, name);
    if (code == GRPC_STATUS_OK) {
        uint8_t resp[FSC_OTLP_RESPONSE_MAX];
        size_t n = fsc_otlp_response_write(FSC_OTLP_FMT_PROTO, o, resp, sizeof(resp));
        slot_reply(s, code, "", resp, n);
    } else {
        slot_reply(s, code, o->message, NULL, 0);
    }
}

/* The Export message arrived (or did not): decode, ingest, answer. */
static void on_recv(struct gslot *s, int ok)
{
    struct fsc_otlp_grpc *g = s->g;
    struct fsc_otlp_outcome o;
    grpc_byte_buffer *bb = s->payload;

    s->receiving = 0;
    memset(&o, 0, sizeof(o));
    if (!ok) {
        /* The core failed the receive: we cancelled the call (no message in
         * time, or shed for a newer call), the message was over max_body
         * (the core has already sent RESOURCE_EXHAUSTED), or the client went
         * away. The status below is then ignored by the core. */
        if (s->reaped) {
            o.verdict = FSC_OTLP_BAD_REQUEST;
            snprintf(o.message, sizeof(o.message),
                     "no request message within message_timeout (%lld ms): call cancelled",
                     (long long)(g->lim.message_timeout_ns / 1000000));
        } else {
            o.verdict = FSC_OTLP_TOO_LARGE;
            snprintf(o.message, sizeof(o.message),
                     "request message not received (over max_body %zu "
                     "bytes, or the client cancelled)",
                     g->cfg->max_body);
        }
        slot_finish(s, &o, 0);
        return;
    }
    if (!bb) {
        o.verdict = FSC_OTLP_BAD_REQUEST;
        snprintf(o.message, sizeof(o.message), "the call carried no request message");
        slot_finish(s, &o, 0);
        return;
    }
    grpc_slice_buffer *sb = &bb->data.raw.slice_buffer;
    grpc_compression_algorithm alg = bb->data.raw.compression;
    size_t len = sb->length;
    if (alg != GRPC_COMPRESS_NONE && alg != GRPC_COMPRESS_GZIP) {
        o.verdict = FSC_OTLP_UNSUPPORTED;
        snprintf(o.message, sizeof(o.message), "message compression %d is not accepted", (int)alg);
        slot_finish(s, &o, len);
        return;
    }
    /* The message as one contiguous block: borrowed when the core has it in
     * one slice, copied when it arrived in several. Borrowing is safe:
     * gRPC messages are protobuf, whose decoder does not write. */
    uint8_t *body = NULL, *copy = NULL;
    if (sb->count == 1) {
        body = GRPC_SLICE_START_PTR(sb->slices[0]);
    } else if (len > 0) {
        copy = malloc(len);
        if (!copy) {
            o.verdict = FSC_OTLP_INTERNAL;
            snprintf(o.message, sizeof(o.message), "out of memory receiving the request");
            slot_finish(s, &o, len);
            return;
        }
        size_t at = 0;
        for (size_t i = 0; i < sb->count; i++) {
            size_t n = GRPC_SLICE_LENGTH(sb->slices[i]);
            memcpy(copy + at, GRPC_SLICE_START_PTR(sb->slices[i]), n);
            at += n;
        }
        body = copy;
    }
    fsc_otlp_export_run(g->cfg->ing, FSC_OTLP_FMT_PROTO, body, len, alg == GRPC_COMPRESS_GZIP,
                        g->cfg->max_decompressed, fsc_now_ns(), &o);
    free(copy);
    slot_finish(s, &o, len);
}

/* 1 when the call's `authorization` metadata passes cfg->auth (or there is
 * no auth). The value is copied into a wiped stack buffer only. */
static int call_authorized(struct fsc_otlp_grpc *g, const grpc_metadata_array *md)
{
    if (!g->auth)
        return 1;
    char value[FSC_HTTP_AUTH_HEADER_MAX + 1];
    const char *found = NULL;
    for (size_t i = 0; i < md->count && !found; i++) {
        const grpc_slice *k = &md->metadata[i].key;
        if (GRPC_SLICE_LENGTH(*k) == 13 &&
            memcmp(GRPC_SLICE_START_PTR(*k), "authorization", 13) == 0) {
            size_t n = GRPC_SLICE_LENGTH(md->metadata[i].value);
            if (n > FSC_HTTP_AUTH_HEADER_MAX)
                n = FSC_HTTP_AUTH_HEADER_MAX; /* still over the limit: refused as malformed */
            memcpy(value, GRPC_SLICE_START_PTR(md->metadata[i].value), n);
            value[n] = '\0';
            found = value;
        }
    }
    int ok = fsc_http_auth_check(g->auth, found) == FSC_AUTH_OK;
    gnutls_memset(value, 0, sizeof(value));
    return ok;
}

/* The call's peer ("ipv4:10.0.0.1:5555", "ipv6:[::1]:5555") without its
 * port into out. */
static void peer_of(grpc_call *call, char out[PEER_MAX])
{
    char *p = grpc_call_get_peer(call);
    out[0] = '\0';
    if (!p)
        return;
    const char *a = strchr(p, ':');
    a = a ? a + 1 : p;
    const char *e = strrchr(a, ':');
    size_t n = e && e > a ? (size_t)(e - a) : strlen(a);
    if (n >= PEER_MAX)
        n = PEER_MAX - 1;
    memcpy(out, a, n);
    out[n] = '\0';
    gpr_free(p);
}

/* Export calls of s's peer in progress, s included (a call already
 * cancelled by us no longer counts: it only waits for its completion). */
static unsigned peer_calls(const struct fsc_otlp_grpc *g, const struct gslot *s)
{
    unsigned n = 0;
    for (size_t i = CALLS_OTHER; i < g->n_slots; i++) {
        const struct gslot *o = &g->slots[i];
        n += o->busy && !o->armed && !o->reaped && strcmp(o->peer, s->peer) == 0;
    }
    return n;
}

/* Cancels the call waiting longest for its message (not `keep`; with
 * `peer`, only one of that address). Returns 1, or 0 when none waits. */
static int shed_oldest(struct fsc_otlp_grpc *g, const struct gslot *keep, const char *peer)
{
    struct gslot *victim = NULL;
    for (size_t i = CALLS_OTHER; i < g->n_slots; i++) {
        struct gslot *o = &g->slots[i];
        if (o != keep && o->busy && o->receiving && !o->reaped &&
            (!peer || strcmp(o->peer, peer) == 0) &&
            (!victim || o->started_ns < victim->started_ns))
            victim = o;
    }
    if (!victim)
        return 0;
    grpc_call_cancel_with_status(victim->call, GRPC_STATUS_RESOURCE_EXHAUSTED,
                                 "server busy: call without a message closed for a newer one",
                                 NULL);
    victim->reaped = 1;
    g->shed++;
    return 1;
}

static void on_new(struct gslot *s, int ok)
{
    struct fsc_otlp_grpc *g = s->g;
    if (s->armed) {
        s->armed = 0;
        g->armed--;
    }
    if (!ok) { /* shutting down: the request is cancelled, the slot retires */
        slot_release(s);
        return;
    }
    s->started_ns = fsc_mono_ns();
    peer_of(s->call, s->peer);
    if (s->export && !atomic_load(&g->stopping)) {
        arm_exports(g);
        /* Every Export slot has a call: the one waiting longest for its
         * message makes room for the next. */
        if (g->armed == 0)
            shed_oldest(g, s, NULL);
        /* The address is at its cap: its own call waiting longest for a
         * message makes room, so a sender that shares an address with a
         * client holding silent calls still gets through (the silent ones
         * go first); only when none of them waits is the new call refused. */
        if (peer_calls(g, s) > g->lim.max_calls_per_ip && !shed_oldest(g, s, s->peer)) {
            g->peer_refused++;
            slot_reply(s, GRPC_STATUS_RESOURCE_EXHAUSTED,
                       "too many calls in progress from this address (max_calls_per_ip)", NULL, 0);
            return;
        }
    }
    if (!call_authorized(g, &s->md)) {
        /* Counted and logged by http_auth, not as a request error. */
        slot_reply(s, GRPC_STATUS_UNAUTHENTICATED, "unauthenticated", NULL, 0);
        return;
    }
    if (!s->export) {
        char path[160], q[200];
        size_t n = GRPC_SLICE_LENGTH(s->details.method);
        if (n >= sizeof(path))
            n = sizeof(path) - 1;
        memcpy(path, GRPC_SLICE_START_PTR(s->details.method), n);
        path[n] = '\0';
        struct fsc_otlp_outcome o;
        memset(&o, 0, sizeof(o));
        o.verdict = FSC_OTLP_UNSUPPORTED;
        snprintf(o.message, sizeof(o.message), "unknown method %s (this server serves %s)",
                 fsc_log_quote(path, q, sizeof(q)), FSC_OTLP_GRPC_METHOD);
        slot_finish(s, &o, 0);
        return;
    }
    grpc_op op;
    memset(&op, 0, sizeof(op));
    op.op = GRPC_OP_RECV_MESSAGE;
    op.data.recv_message.recv_message = &s->payload;
    if (grpc_call_start_batch(s->call, &op, 1, &s->t_recv, NULL) != GRPC_CALL_OK) {
        grpc_call_cancel(s->call, NULL);
        slot_release(s);
        slot_recycle(g, s);
        return;
    }
    s->receiving = 1;
}

static void dispatch(struct fsc_otlp_grpc *g, struct gtag *t, int ok)
{
    struct gslot *s = t->s;
    switch (t->kind) {
    case TAG_SHUTDOWN:
        g->shutdown_seen = 1;
        return;
    case TAG_NEW:
        on_new(s, ok);
        return;
    case TAG_RECV:
        on_recv(s, ok);
        return;
    case TAG_REPLY:
        slot_release(s);
        s->peer[0] = '\0';
        slot_recycle(g, s);
        return;
    }
}

static int slots_busy(const struct fsc_otlp_grpc *g)
{
    for (size_t i = 0; i < g->n_slots; i++) {
        if (g->slots[i].busy)
            return 1;
    }
    return 0;
}

/* Cancels calls whose message is overdue (a slot must not be held for ever
 * by a client that opened a call and went quiet). */
static void reap_stalled(struct fsc_otlp_grpc *g)
{
    int64_t now = fsc_mono_ns();
    for (size_t i = 0; i < g->n_slots; i++) {
        struct gslot *s = &g->slots[i];
        if (s->receiving && !s->reaped && now - s->started_ns > g->lim.message_timeout_ns) {
            grpc_call_cancel_with_status(s->call, GRPC_STATUS_DEADLINE_EXCEEDED,
                                         "no request message within message_timeout", NULL);
            s->reaped = 1;
            g->reaped++;
        }
    }
}

/* Logs the admission counters when they moved, at most once a second. */
static void log_admission(struct fsc_otlp_grpc *g, int64_t now, int64_t *last_ns,
                          uint64_t *last_sum)
{
    uint64_t refused = atomic_load(&g->peer_refused), reaped = atomic_load(&g->reaped),
             shed = atomic_load(&g->shed);
    uint64_t sum = refused + reaped + shed;
    if (sum == *last_sum || now - *last_ns < 1000000000)
        return;
    *last_sum = sum;
    *last_ns = now;
    fsc_log(FSC_LOG_INFO, "otlp_grpc_admission",
            "source=%s refused_per_ip=%llu message_timeout=%llu shed=%llu max_calls=%u "
            "max_calls_per_ip=%u",
            g->cfg->source, (unsigned long long)refused, (unsigned long long)reaped,
            (unsigned long long)shed, g->lim.max_calls, g->lim.max_calls_per_ip);
}

static void *grpc_thread(void *arg)
{
    struct fsc_otlp_grpc *g = arg;
    int64_t drain_end = 0, last_log = 0;
    uint64_t last_sum = 0;
    for (;;) {
        gpr_timespec until =
            gpr_time_add(gpr_now(GPR_CLOCK_MONOTONIC), gpr_time_from_millis(TICK_MS, GPR_TIMESPAN));
        grpc_event ev = grpc_completion_queue_next(g->cq, until, NULL);
        if (ev.type == GRPC_OP_COMPLETE)
            dispatch(g, ev.tag, ev.success);
        else if (ev.type == GRPC_QUEUE_SHUTDOWN)
            break; /* not reached: the queue is shut down after join */
        if (atomic_load(&g->stopping)) {
            if (g->shutdown_seen && !slots_busy(g))
                break;
            int64_t now = fsc_mono_ns();
            if (drain_end == 0)
                drain_end = now + DRAIN_NS;
            if (now > drain_end) {
                g->stuck = 1;
                fsc_log(FSC_LOG_ERROR, "otlp_grpc_stop_stuck",
                        "source=%s reason=\"calls did not drain in 10 s\"", g->cfg->source);
                break;
            }
        } else {
            reap_stalled(g);
            log_admission(g, fsc_mono_ns(), &last_log, &last_sum);
        }
    }
    return NULL;
}

/* ---- lifecycle ------------------------------------------------------------------ */

static grpc_server_credentials *server_creds(const struct fsc_tls_config *tls, const char *source,
                                             char *err, size_t errlen)
{
    /* client_auth none with a CA (a struct built without the loader) meant
     * require before the key existed. */
    int mode = tls ? tls->client_auth : FSC_CLIENT_AUTH_NONE;
    if (tls && mode == FSC_CLIENT_AUTH_NONE && tls->ca_file)
        mode = FSC_CLIENT_AUTH_REQUIRE;
    if (!tls)
        return grpc_insecure_server_credentials_create();
    if (!tls->cert_file || !tls->key_file) {
        snprintf(err, errlen, "tls needs cert_file and key_file");
        return NULL;
    }
    char *cert = fsc_pem_read(tls->cert_file, "certificate", err, errlen);
    char lname[96];
    snprintf(lname, sizeof(lname), "otlp/grpc:%s", source);
    fsc_pem_warn_cert_time(cert, tls->cert_file, lname);
    char *key = cert ? fsc_pem_read(tls->key_file, "key", err, errlen) : NULL;
    int want_ca = mode != FSC_CLIENT_AUTH_NONE;
    if (want_ca && !tls->ca_file) {
        snprintf(err, errlen, "tls.client_auth request or require needs tls.ca_file");
        return NULL;
    }
    char *ca = key && want_ca ? fsc_pem_read(tls->ca_file, "CA file", err, errlen) : NULL;
    grpc_server_credentials *creds = NULL;
    /* gRPC takes any text here and fails only at the port, as if the
     * address were taken: name the bad file now instead. */
    int pair_ok = cert && key &&
                  fsc_pem_check_pair(cert, key, tls->cert_file, tls->key_file, err, errlen) == 0;
    if (pair_ok && (!want_ca || ca)) {
        grpc_ssl_pem_key_cert_pair pair = {.private_key = key, .cert_chain = cert};
        /* require: a client without a certificate signed by the CA fails the
         * handshake; request: one that presents a certificate must have it
         * verify, one without may go on (to its credentials check). */
        creds = grpc_ssl_server_credentials_create_ex(
            ca, &pair, 1,
            mode == FSC_CLIENT_AUTH_REQUIRE
                ? GRPC_SSL_REQUEST_AND_REQUIRE_CLIENT_CERTIFICATE_AND_VERIFY
            : mode == FSC_CLIENT_AUTH_REQUEST ? GRPC_SSL_REQUEST_CLIENT_CERTIFICATE_AND_VERIFY
                                              : GRPC_SSL_DONT_REQUEST_CLIENT_CERTIFICATE,
            NULL);
        if (!creds)
            snprintf(err, errlen, "gRPC refused the TLS certificate, key or CA");
    }
    fsc_pem_free(cert);
    fsc_pem_free(key);
    fsc_pem_free(ca);
    return creds;
}

/* The core's memory quota: 8 x max_body, within [32, 256] MiB. gRPC 1.51
 * checks GRPC_ARG_MAX_RECEIVE_MESSAGE_LENGTH only once a message is complete,
 * and opens the stream's flow-control window to the length the message
 * announces, so without a quota one 100 MiB message is buffered whole
 * (+100 MB peak RSS). The quota bounds what all connections may buffer: when it
 * runs out the core closes the connection that needs more (measured: +17 MB
 * at 16 MiB, the 100 MiB sender cut after 17 MiB). */
static size_t memory_quota(size_t max_body)
{
    size_t q = max_body > GRPC_MEMORY_QUOTA_MAX / 8 ? GRPC_MEMORY_QUOTA_MAX : 8 * max_body;
    return q < GRPC_MEMORY_QUOTA_MIN ? GRPC_MEMORY_QUOTA_MIN : q;
}

static int clamp_int(size_t v)
{
    return v > (size_t)INT_MAX ? INT_MAX : (int)v;
}

/* Frees a server whose thread is not running (never started or joined). */
static void grpc_free(struct fsc_otlp_grpc *g)
{
    if (g->server && !g->stuck) {
        if (!g->thread_started) {
            /* Start failed after the server was created: shut it down here;
             * nothing was requested, so only the shutdown tag comes back. */
            grpc_server_shutdown_and_notify(g->server, g->cq, &g->t_shutdown);
            grpc_server_cancel_all_calls(g->server);
            for (int i = 0; i < 100 && !g->shutdown_seen; i++) {
                grpc_event ev = grpc_completion_queue_next(
                    g->cq,
                    gpr_time_add(gpr_now(GPR_CLOCK_MONOTONIC),
                                 gpr_time_from_millis(100, GPR_TIMESPAN)),
                    NULL);
                if (ev.type == GRPC_OP_COMPLETE && ev.tag == &g->t_shutdown)
                    g->shutdown_seen = 1;
            }
        }
        grpc_server_destroy(g->server);
    }
    if (g->cq && !g->stuck) {
        grpc_completion_queue_shutdown(g->cq);
        for (int i = 0; i < 1000; i++) {
            grpc_event ev =
                grpc_completion_queue_next(g->cq, gpr_inf_future(GPR_CLOCK_REALTIME), NULL);
            if (ev.type == GRPC_QUEUE_SHUTDOWN)
                break;
        }
        grpc_completion_queue_destroy(g->cq);
    }
    if (g->stuck)
        return; /* leak the server, queue and slots rather than free under the core */
    fsc_otlp_counters_fini(&g->ctr);
    fsc_http_auth_destroy(g->auth);
    if (g->grpc_inited)
        grpc_shutdown();
    free(g->slots);
    free(g);
}

struct fsc_otlp_grpc *fsc_otlp_grpc_start(const struct fsc_otlp_server_config *cfg,
                                          const char *listen, char *err, size_t errlen)
{
    struct fsc_otlp_grpc *g = calloc(1, sizeof(*g));
    if (!g) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    g->cfg = cfg;
    atomic_init(&g->stopping, 0);
    g->t_shutdown = (struct gtag){TAG_SHUTDOWN, NULL};
    if (fsc_otlp_counters_init(&g->ctr, "grpc", cfg->source) != 0) {
        free(g);
        snprintf(err, errlen, "cannot create a mutex");
        return NULL;
    }
    fsc_listener_limits_resolve(cfg->limits, &g->lim);
    g->n_slots = CALLS_OTHER + (size_t)g->lim.max_calls;
    g->slots = calloc(g->n_slots, sizeof(*g->slots));
    if (!g->slots) {
        fsc_otlp_counters_fini(&g->ctr);
        free(g);
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    for (size_t i = 0; i < g->n_slots; i++) {
        struct gslot *s = &g->slots[i];
        s->g = g;
        s->export = i >= CALLS_OTHER;
        s->t_new = (struct gtag){TAG_NEW, s};
        s->t_recv = (struct gtag){TAG_RECV, s};
        s->t_reply = (struct gtag){TAG_REPLY, s};
    }
    if (cfg->auth) {
        char lname[96];
        snprintf(lname, sizeof(lname), "otlp/grpc:%s", cfg->source);
        g->auth = fsc_http_auth_create(cfg->auth, lname, err, errlen);
        if (!g->auth) {
            fsc_otlp_counters_fini(&g->ctr);
            free(g->slots);
            free(g);
            return NULL;
        }
    }
    fsc_grpc_log_hook_install(); /* before grpc_init: its messages are routed too */
    grpc_init();
    g->grpc_inited = 1;

    grpc_server_credentials *creds = server_creds(cfg->tls, cfg->source, err, errlen);
    if (!creds)
        goto fail;
    /* The core accepts any number of connections: its resource quota bounds
     * the memory they hold (buffers; under pressure the core sheds), and
     * idle connections are closed after GRPC_IDLE_MS. */
    grpc_resource_quota *quota = grpc_resource_quota_create("fabricscope-otlp");
    if (!quota) {
        grpc_server_credentials_release(creds);
        snprintf(err, errlen, "out of memory creating the gRPC resource quota");
        goto fail;
    }
    grpc_resource_quota_resize(quota, memory_quota(cfg->max_body));
    /* No SO_REUSEPORT (gRPC's default is on): a second collector on the
     * same port must fail to start, not silently take half the exports. */
    grpc_arg args[] = {
        {.type = GRPC_ARG_INTEGER,
         .key = GRPC_ARG_MAX_RECEIVE_MESSAGE_LENGTH,
         .value.integer = clamp_int(cfg->max_body)},
        {.type = GRPC_ARG_INTEGER,
         .key = GRPC_ARG_ENABLE_PER_MESSAGE_DECOMPRESSION,
         .value.integer = 0},
        {.type = GRPC_ARG_INTEGER,
         .key = GRPC_COMPRESSION_CHANNEL_ENABLED_ALGORITHMS_BITSET,
         .value.integer = (1 << GRPC_COMPRESS_NONE) | (1 << GRPC_COMPRESS_GZIP)},
        {.type = GRPC_ARG_INTEGER,
         .key = GRPC_ARG_MAX_CONCURRENT_STREAMS,
         .value.integer = clamp_int(g->lim.max_calls_per_ip)},
        {.type = GRPC_ARG_INTEGER, .key = GRPC_ARG_ALLOW_REUSEPORT, .value.integer = 0},
        {.type = GRPC_ARG_INTEGER,
         .key = GRPC_ARG_MAX_CONNECTION_IDLE_MS,
         .value.integer = GRPC_IDLE_MS},
        {.type = GRPC_ARG_POINTER,
         .key = GRPC_ARG_RESOURCE_QUOTA,
         .value.pointer = {.p = quota, .vtable = grpc_resource_quota_arg_vtable()}},
    };
    grpc_channel_args cargs = {.num_args = sizeof(args) / sizeof(args[0]), .args = args};
    g->server = grpc_server_create(&cargs, NULL);
    grpc_resource_quota_unref(quota); /* the server holds its own reference */
    g->cq = grpc_completion_queue_create_for_next(NULL);
    if (!g->server || !g->cq) {
        grpc_server_credentials_release(creds);
        snprintf(err, errlen, "cannot create the gRPC server");
        goto fail;
    }
    grpc_server_register_completion_queue(g->server, g->cq, NULL);
    g->export_method = grpc_server_register_method(g->server, FSC_OTLP_GRPC_METHOD, NULL,
                                                   GRPC_SRM_PAYLOAD_NONE, 0);
    int port = grpc_server_add_http2_port(g->server, listen, creds);
    grpc_server_credentials_release(creds);
    if (!g->export_method || port <= 0) {
        snprintf(err, errlen,
                 "cannot listen on %s (address in use, or not an address of this host; see "
                 "the grpc log line)",
                 listen);
        goto fail;
    }
    g->port = (uint16_t)port;
    fsc_otlp_counters_set_port(&g->ctr, g->port);
    grpc_server_start(g->server);
    for (size_t i = 0; i < CALLS_OTHER; i++)
        slot_request(g, &g->slots[i]);
    arm_exports(g);
    if (pthread_create(&g->thread, NULL, grpc_thread, g) != 0) {
        snprintf(err, errlen, "cannot start the gRPC server thread");
        /* The requested slots come back failed during the shutdown below;
         * drain them here since no thread will. */
        atomic_store(&g->stopping, 1);
        grpc_server_shutdown_and_notify(g->server, g->cq, &g->t_shutdown);
        grpc_server_cancel_all_calls(g->server);
        g->thread_started = 1; /* the shutdown is done: grpc_free must not redo it */
        grpc_thread(g);
        goto fail;
    }
    g->thread_started = 1;
    char q[160];
    fsc_log(FSC_LOG_INFO, "otlp_listening",
            "transport=grpc port=%u source=%s listen=%s tls=%s client_cert=%s auth=%s "
            "max_body=%zu max_decompressed=%zu max_calls=%u max_calls_per_ip=%u "
            "message_timeout_ms=%lld",
            (unsigned)g->port, cfg->source, fsc_log_quote(listen, q, sizeof(q)),
            cfg->tls ? "on" : "off",
            !cfg->tls                                          ? "no"
            : cfg->tls->client_auth == FSC_CLIENT_AUTH_REQUEST ? "requested"
            : cfg->tls->ca_file                                ? "required"
                                                               : "no",
            g->auth ? "on" : "off", cfg->max_body, cfg->max_decompressed, g->lim.max_calls,
            g->lim.max_calls_per_ip, (long long)(g->lim.message_timeout_ns / 1000000));
    return g;
fail:
    grpc_free(g);
    return NULL;
}

void fsc_otlp_grpc_stop(struct fsc_otlp_grpc *g)
{
    if (!g)
        return;
    atomic_store(&g->stopping, 1);
    /* Both are thread-safe in the core: the server thread sees every
     * outstanding tag complete (failed), then the shutdown tag. */
    grpc_server_shutdown_and_notify(g->server, g->cq, &g->t_shutdown);
    grpc_server_cancel_all_calls(g->server);
    pthread_join(g->thread, NULL);
    grpc_free(g);
}

uint16_t fsc_otlp_grpc_port(const struct fsc_otlp_grpc *g)
{
    return g ? g->port : 0;
}

void fsc_otlp_grpc_stats(struct fsc_otlp_grpc *g, struct fsc_otlp_transport_stats *out)
{
    if (!g) {
        memset(out, 0, sizeof(*out));
        out->transport = "grpc";
        return;
    }
    fsc_otlp_counters_get(&g->ctr, out);
    if (g->auth) {
        out->sec.gated = 1;
        fsc_http_auth_stats(g->auth, &out->sec.auth);
    }
    fsc_admit_stats_init(&out->admit);
    out->admit.shed = atomic_load(&g->shed);
    out->admit.message_timeout = atomic_load(&g->reaped);
    out->admit.refused_per_address = atomic_load(&g->peer_refused);
}
