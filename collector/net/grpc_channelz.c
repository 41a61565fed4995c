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

struct sock_row {
    int64_t id;
    uint64_t started, msgs; /* streamsStarted, messagesReceived at the last poll */
};

struct fsc_grpc_channelz {
    intptr_t server_id;
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

/* 1 when a channelz socket name ("chttp2 listener ipv4:127.0.0.1:4317")
 * ends in ":port". */
static int name_has_port(const char *name, uint16_t port)
{
    char want[8];
    snprintf(want, sizeof(want), ":%u", (unsigned)port);
    size_t n = strlen(name), w = strlen(want);
    return n > w && strcmp(name + n - w, want) == 0;
}

/* The channelz id of the server with a listening socket on port, or 0. */
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
            size_t j;
            const json_t *ls;
            json_array_foreach(json_object_get(srv, "listenSocket"), j, ls)
            {
                const char *name = json_string_value(json_object_get(ls, "name"));
                if (name && name_has_port(name, port))
                    found = id;
            }
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

struct fsc_grpc_channelz *fsc_grpc_channelz_create(uint16_t local_port, char *err, size_t errlen)
{
    struct fsc_grpc_channelz *cz = calloc(1, sizeof(*cz));
    if (cz) {
        cz->rows = calloc(FSC_GRPC_CHANNELZ_SOCKETS, sizeof(*cz->rows));
        cz->next = calloc(FSC_GRPC_CHANNELZ_SOCKETS, sizeof(*cz->next));
    }
    if (!cz || !cz->rows || !cz->next) {
        fsc_grpc_channelz_destroy(cz);
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    cz->server_id = find_server(local_port);
    if (cz->server_id == 0) {
        fsc_grpc_channelz_destroy(cz);
        snprintf(err, errlen, "gRPC channelz lists no server on port %u", (unsigned)local_port);
        return NULL;
    }
    return cz;
}

static int by_id(const void *a, const void *b)
{
    const struct sock_row *x = a, *y = b;
    return x->id < y->id ? -1 : x->id > y->id;
}

/* Reads one connection's counters into *out; calls fn when streams came
 * without a message since the last poll. Returns 1, 0 when the connection
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
    *out = (struct sock_row){.id = id,
                             .started = num(json_object_get(data, "streamsStarted")),
                             .msgs = num(json_object_get(data, "messagesReceived"))};
    const struct sock_row *was = bsearch(out, cz->rows, cz->n, sizeof(*out), by_id);
    uint64_t opened = out->started - (was ? was->started : 0);
    uint64_t carried = out->msgs - (was ? was->msgs : 0);
    if (opened > carried)
        fn(arg, peer + 1, opened - carried);
    json_decref(doc);
    return 1;
}

int fsc_grpc_channelz_poll(struct fsc_grpc_channelz *cz, fsc_grpc_channelz_fn fn, void *arg)
{
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
