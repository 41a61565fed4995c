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

/* Called per connection at each poll: `peer` as the core names it
 * ("ipv4:10.0.0.1:5555"), and the streams it opened since the previous poll
 * (since it was opened, the first time) that carried no request message. */
typedef void (*fsc_grpc_channelz_fn)(void *arg, const char *peer, uint64_t streams_without_message);

/* A watch of the server listening on local_port (found among the
 * process's channelz servers by its listening socket's name). Returns
 * NULL with a sentence in err when out of memory or when no such server is
 * listed. Call after the port was added. */
struct fsc_grpc_channelz *fsc_grpc_channelz_create(uint16_t local_port, char *err, size_t errlen);

/* Reads every connection's counters and calls fn for each whose count
 * moved. Returns the connections seen, or -1 when channelz's answer could
 * not be read. Cost: one channelz query per connection (about 5 us each in
 * gRPC 1.51). */
int fsc_grpc_channelz_poll(struct fsc_grpc_channelz *cz, fsc_grpc_channelz_fn fn, void *arg);

/* Frees the watch; NULL is a no-op. */
void fsc_grpc_channelz_destroy(struct fsc_grpc_channelz *cz);

#endif
