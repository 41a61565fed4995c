/* The OTLP/gRPC receiver's defence against HTTP/2 stream abuse, "rapid
 * reset" (CVE-2023-44487) among it (internal to the transport, otlp_grpc.c;
 * docs/SECURITY.md, "HTTP/2 stream abuse on OTLP/gRPC").
 *
 * gRPC 1.51 bounds the streams open at once on a connection but not how
 * fast a client opens and resets them, and while it parses such a flood it
 * hands no call over for seconds. Two counts per connection, each with the
 * budget of otlp_grpc_resets.h:
 *   calls   - Export calls that ended without their request message and not
 *             by our doing (reset by the client, its connection broken), or
 *             were refused at once (credentials, method, max_calls_per_ip):
 *             seen as soon as the core hands the calls over;
 *   streams - streams the transport saw open without a message, from
 *             channelz every 100 ms (net/grpc_channelz.h): seen while the
 *             core hands nothing over.
 * A connection over either budget has its client address blocked for
 * FSC_OTLP_GRPC_FLOOD_BLOCK_S (net/grpc_peer.h: new connections refused in
 * the kernel, the address's connections closed at once); calls of it the
 * core had queued before are dropped on arrival.
 *
 * Thread: the transport's call thread owns it; the counters are read from
 * any thread. */
#ifndef FSC_OTLP_GRPC_FLOOD_H
#define FSC_OTLP_GRPC_FLOOD_H

#include <stddef.h>
#include <stdint.h>

#define FSC_OTLP_GRPC_FLOOD_BLOCK_S 10

struct fsc_otlp_grpc_flood;

/* What the defence did since start (self-monitoring). */
struct fsc_otlp_grpc_flood_stats {
    uint64_t closed;  /* connections closed */
    uint64_t blocks;  /* addresses blocked (a block renewed counts again) */
    uint64_t dropped; /* queued calls of closed connections dropped on arrival */
};

/* The defence of the server listening on port, for source `source`
 * (borrowed; log lines), with a budget of per_s a second per connection
 * and count. Call once the port is bound. Returns NULL when out of memory.
 * A channelz whose answers cannot be read is logged once (the streams
 * count is off from then on). */
struct fsc_otlp_grpc_flood *fsc_otlp_grpc_flood_create(const char *source, uint16_t port,
                                                       unsigned per_s);

/* Removes the blocks (the listening socket's filter) and frees; NULL is a
 * no-op. */
void fsc_otlp_grpc_flood_destroy(struct fsc_otlp_grpc_flood *f);

/* 1 when conn (the call's peer string) is a connection closed for a flood:
 * the caller drops the call without serving it (counted here). */
int fsc_otlp_grpc_flood_drop(struct fsc_otlp_grpc_flood *f, const char *conn, int64_t now_ns);

/* A call of conn ended without its message, or was refused at once. */
void fsc_otlp_grpc_flood_call(struct fsc_otlp_grpc_flood *f, const char *conn, int64_t now_ns);

/* Polls channelz when due and ends blocks whose time is up; call at least
 * every 100 ms. */
void fsc_otlp_grpc_flood_tick(struct fsc_otlp_grpc_flood *f, int64_t now_ns);

/* The counters (zeros for NULL). Thread: any. */
void fsc_otlp_grpc_flood_stats(const struct fsc_otlp_grpc_flood *f,
                               struct fsc_otlp_grpc_flood_stats *out);

/* The budget per connection and count, a second. */
unsigned fsc_otlp_grpc_flood_budget(const struct fsc_otlp_grpc_flood *f);

#endif
