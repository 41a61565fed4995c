/* Per-connection stream counters from gRPC's channelz (contract in
 * grpc_channelz.h). */
#include "net/grpc_channelz.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <grpc/grpc.h>
#include <grpc/support/alloc.h>
#include <jansson.h>

#define PAGE 100 /* sockets asked for per channelz query */

/* A connection's streams without a message so far: streamsStarted minus
 * messagesReceived. It also holds the streams in flight whose message has
 * not come yet (a handful, at most the concurrent-stream cap), so only its
 * growth past its highest value yet is reported: a busy honest client's
 * in-flight streams are never counted twice, a flood's resets all are. */
struct sock_row {
    int64_t id;
    uint64_t most; /* the highest streams-without-message seen */
};

struct fsc_grpc_channelz {
    uint16_t port;
    intptr_t server_id;           /* 0 until found */
    struct sock_row *rows, *next; /* sorted by id: last poll's, and this poll's */
    size_t n;
};

/* channelz writes 64-bit counters and ids as JSON strings. */
static uint64_t num(const json_t *v)
{
    if (json_is_string(v))
        return strtoull(json_string_value(v), NULL, 10);
    if (json_is_integer(v))
        return (uint64_t)json_integer_value(v);
    return 0;
}

/* The local port of channelz socket `id` (0 when unknown). A listening
 * socket's is the port asked for (0 for an ephemeral one), a connection's
 * the port it came in on. */
static uint16_t socket_port(intptr_t id)
{
    char *text = grpc_channelz_get_socket(id);
    json_t *doc = text ? json_loads(text, 0, NULL) : NULL;
    gpr_free(text);
    const json_t *tcp =
        json_object_get(json_object_get(json_object_get(doc, "socket"), "local"), "tcpip_address");
    uint64_t port = num(json_object_get(tcp, "port"));
    json_decref(doc);
    return port <= 65535 ? (uint16_t)port : 0;
}

/* 1 when server `id` listens on port: its listening socket was asked for
 * that port, or (port 0 asked, so channelz never learns the bound one) its
 * first connection came in on it. */
static int server_on_port(intptr_t id, const json_t *srv, uint16_t port)
{
    size_t j;
    const json_t *ls;
    json_array_foreach(json_object_get(srv, "listenSocket"), j, ls)
    {
        if (socket_port((intptr_t)num(json_object_get(ls, "socketId"))) == port)
            return 1;
    }
    char *text = grpc_channelz_get_server_sockets(id, 0, 1);
    json_t *doc = text ? json_loads(text, 0, NULL) : NULL;
    gpr_free(text);
    const json_t *first = json_array_get(json_object_get(doc, "socketRef"), 0);
    int on = first && socket_port((intptr_t)num(json_object_get(first, "socketId"))) == port;
    json_decref(doc);
    return on;
}

/* The channelz id of the server listening on port, or 0 (none yet seen). */
static intptr_t find_server(uint16_t port)
{
    intptr_t start = 0, found = 0;
    for (int page = 0; page < 64 && !found; page++) {
        char *text = grpc_channelz_get_servers(start);
        json_t *doc = text ? json_loads(text, 0, NULL) : NULL;
        gpr_free(text);
        const json_t *servers = json_object_get(doc, "server");
        size_t i;
        const json_t *srv;
        json_array_foreach(servers, i, srv)
        {
            intptr_t id = (intptr_t)num(json_object_get(json_object_get(srv, "ref"), "serverId"));
            if (!found && server_on_port(id, srv, port))
                found = id;
            if (id >= start)
                start = id + 1;
        }
        int end = json_is_true(json_object_get(doc, "end")) || json_array_size(servers) == 0;
        json_decref(doc);
        if (end)
            break;
    }
    return found;
}

struct fsc_grpc_channelz *fsc_grpc_channelz_create(uint16_t local_port)
{
    struct fsc_grpc_channelz *cz = calloc(1, sizeof(*cz));
    if (cz) {
        cz->port = local_port;
        cz->rows = calloc(FSC_GRPC_CHANNELZ_SOCKETS, sizeof(*cz->rows));
        cz->next = calloc(FSC_GRPC_CHANNELZ_SOCKETS, sizeof(*cz->next));
    }
    if (!cz || !cz->rows || !cz->next) {
        fsc_grpc_channelz_destroy(cz);
        return NULL;
    }
    return cz;
}

static int by_id(const void *a, const void *b)
{
    const struct sock_row *x = a, *y = b;
    return x->id < y->id ? -1 : x->id > y->id;
}

/* Reads one connection's counters into *out; calls fn when its streams
 * without a message rose past their highest yet. Returns 1, 0 when the connection
 * closed since it was listed, or -1 when the answer is unreadable. */
static int poll_socket(const struct fsc_grpc_channelz *cz, int64_t id, fsc_grpc_channelz_fn fn,
                       void *arg, struct sock_row *out)
{
    char *text = grpc_channelz_get_socket((intptr_t)id);
    json_t *doc = text ? json_loads(text, 0, NULL) : NULL;
    gpr_free(text);
    const json_t *sock = json_object_get(doc, "socket");
    if (!sock) {
        json_decref(doc);
        return 0;
    }
    const json_t *data = json_object_get(sock, "data");
    const char *name = json_string_value(json_object_get(json_object_get(sock, "ref"), "name"));
    const char *peer = name ? strchr(name, ' ') : NULL; /* "chttp2 ipv4:..." */
    if (!peer) {
        json_decref(doc);
        return -1;
    }
    uint64_t started = num(json_object_get(data, "streamsStarted")),
             msgs = num(json_object_get(data, "messagesReceived"));
    uint64_t without = started > msgs ? started - msgs : 0;
    *out = (struct sock_row){.id = id};
    const struct sock_row *was = bsearch(out, cz->rows, cz->n, sizeof(*out), by_id);
    out->most = was ? was->most : 0;
    if (without > out->most) {
        fn(arg, peer + 1, without - out->most);
        out->most = without;
    }
    json_decref(doc);
    return 1;
}

int fsc_grpc_channelz_poll(struct fsc_grpc_channelz *cz, fsc_grpc_channelz_fn fn, void *arg)
{
    if (cz->server_id == 0)
        cz->server_id = find_server(cz->port);
    if (cz->server_id == 0)
        return 0; /* no connection yet to tell which server is ours */
    size_t seen = 0;
    intptr_t start = 0;
    int bad = 0;
    for (;;) {
        char *text = grpc_channelz_get_server_sockets(cz->server_id, start, PAGE);
        json_t *doc = text ? json_loads(text, 0, NULL) : NULL;
        gpr_free(text);
        const json_t *refs = json_object_get(doc, "socketRef");
        if (!doc || (!refs && !json_object_get(doc, "end"))) {
            json_decref(doc);
            return -1;
        }
        size_t i;
        const json_t *ref;
        json_array_foreach(refs, i, ref)
        {
            int64_t id = (int64_t)num(json_object_get(ref, "socketId"));
            if (id >= (int64_t)start)
                start = (intptr_t)id + 1;
            if (seen >= FSC_GRPC_CHANNELZ_SOCKETS)
                continue;
            int rc = poll_socket(cz, id, fn, arg, &cz->next[seen]);
            bad |= rc < 0;
            seen += rc > 0;
        }
        int end = json_is_true(json_object_get(doc, "end")) || json_array_size(refs) == 0;
        json_decref(doc);
        if (end || seen >= FSC_GRPC_CHANNELZ_SOCKETS)
            break;
    }
    /* This poll's counters become the reference of the next one. */
    qsort(cz->next, seen, sizeof(cz->next[0]), by_id);
    struct sock_row *t = cz->rows;
    cz->rows = cz->next;
    cz->next = t;
    cz->n = seen;
    return bad && seen == 0 ? -1 : (int)seen;
}

void fsc_grpc_channelz_destroy(struct fsc_grpc_channelz *cz)
{
    if (!cz)
        return;
    free(cz->rows);
    free(cz->next);
    free(cz);
}
