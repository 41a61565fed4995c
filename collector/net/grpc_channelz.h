/* HTTP/2 streams each client connection of a gRPC C core server opened,
 * read from the core's channelz (the per-socket counters the transport
 * keeps as it parses), so stream abuse is seen even while the core hands
 * no call over.
 *
 * Why: under a flood of streams opened and reset at once, gRPC 1.51 keeps
 * parsing the attacker's connection for as long as it sends and creates no
 * call for anyone meanwhile (measured: 7 s without a single call while
 * 30 000 streams a second were parsed); a defence that waits for calls
 * sees nothing. channelz's socket counters (streamsStarted,
 * messagesReceived) move during that time.
 *
 * The channelz API is marked experimental in 1.51 (grpc/grpc.h); when its
 * answers cannot be read (another layout), the watch reports so once and
 * then sees nothing. Not locked: one thread owns a watch. */
#ifndef FSC_GRPC_CHANNELZ_H
#define FSC_GRPC_CHANNELZ_H

#include <stddef.h>
#include <stdint.h>

/* Connections tracked (the first ones listed; more are not seen). */
#define FSC_GRPC_CHANNELZ_SOCKETS 4096

struct fsc_grpc_channelz;

/* Called per connection at each poll where its streams that carried no
 * request message (streamsStarted - messagesReceived) rose past their
 * highest yet: `peer` as the core names it ("ipv4:10.0.0.1:5555"), and by
 * how many. Streams in flight whose message is on its way count in that
 * difference too, but only its growth is reported, so they are counted
 * once at most. */
typedef void (*fsc_grpc_channelz_fn)(void *arg, const char *peer, uint64_t streams_without_message);

/* A watch of the server listening on local_port, found among the
 * process's channelz servers at a poll: by its listening socket's port,
 * or, when port 0 was asked (channelz keeps the port asked, not the one
 * bound), by its first connection's. Returns NULL when out of memory.
 * Thread: any. */
struct fsc_grpc_channelz *fsc_grpc_channelz_create(uint16_t local_port);

/* Reads every connection's counters and calls fn for each whose count
 * moved. Returns the connections seen (0 while the server is not found),
 * or -1 when channelz's answer could not be read. Cost: one channelz query per connection (about 5
 * us each in gRPC 1.51). */
int fsc_grpc_channelz_poll(struct fsc_grpc_channelz *cz, fsc_grpc_channelz_fn fn, void *arg);

/* Frees the watch; NULL is a no-op. */
void fsc_grpc_channelz_destroy(struct fsc_grpc_channelz *cz);

#endif
