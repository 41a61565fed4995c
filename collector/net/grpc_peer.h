/* Client connections of a gRPC C core server, named by the peer string the
 * core gives each call (grpc_call_get_peer), closed from outside the core;
 * and a guard that blocks client addresses at the listening socket.
 *
 * Why: gRPC 1.51 (Debian 12) has no call to close one connection of a
 * server, and none of the HTTP/2 stream-reset limits later versions have
 * (docs/SECURITY.md, "HTTP/2 stream abuse on OTLP/gRPC"). A connection's
 * socket is found by its address pair among this process's descriptors and
 * swapped for a dead one (dup3 of a socket pair's end whose other end is
 * closed): the kernel closes the TCP connection at once, with a reset when
 * the client's data was left unread, so nothing more of it is parsed; the
 * core reads end-of-file on the descriptor, tears the transport down and
 * closes the descriptor itself. Between finding the descriptor and the swap
 * the core could close it and reuse the number for a new connection: a
 * window of a few system calls, taken only for connections being closed
 * for abuse. */
#ifndef FSC_GRPC_PEER_H
#define FSC_GRPC_PEER_H

#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

/* Parses a peer string: "ipv4:10.0.0.1:5555", "ipv6:[::1]:5555" (the
 * brackets may be %-escaped, "ipv6:%5B::1%5D:5555"); an IPv4-mapped IPv6
 * address becomes the IPv4 one. Fills sa and len. Returns 0, or -EINVAL
 * (another scheme, no port, not an address). Thread: any. */
int fsc_grpc_peer_parse(const char *peer, struct sockaddr_storage *sa, socklen_t *len);

/* Closes (as above) this process's TCP connection whose local port is
 * local_port and whose remote end is `peer`. Scans /proc/self/fd: O(open
 * descriptors). Returns 0 when one was closed, -ENOENT when none matches
 * (the core already closed it), -EINVAL for a peer that does not parse, or
 * -errno. Thread: any. */
int fsc_grpc_peer_close(const char *peer, uint16_t local_port);

/* The guard of one listening port: client addresses blocked for a while
 * whose connections are closed and whose new ones are refused. Refused in
 * the kernel: a classic BPF socket filter on the core's listening sockets
 * drops their packets, so the handshake of a blocked address never
 * completes (its SYN is dropped; the client retries, at 1, 3, 7 s ...)
 * and a client that reconnects as soon as it is closed gets nothing more.
 * Connections established before the block are closed by
 * fsc_grpc_guard_block. Not locked: one thread (the caller's) owns it. */
#define FSC_GRPC_GUARD_ADDRESSES 64 /* blocked at once; the block ending first gives way */

struct fsc_grpc_guard;

/* A guard of local_port whose blocks last block_ns. Returns NULL when out
 * of memory. */
struct fsc_grpc_guard *fsc_grpc_guard_create(uint16_t local_port, int64_t block_ns);

/* Blocks the address of `peer` until now_ns + block_ns (a longer block
 * when it already was): the listeners' filter drops it, and every
 * connection it has is closed. Returns how many connections were closed,
 * or -EINVAL for a peer that does not parse, or -errno when the
 * descriptors cannot be listed. A filter that could not be set is seen in
 * fsc_grpc_guard_filter_errno. */
int fsc_grpc_guard_block(struct fsc_grpc_guard *gd, const char *peer, int64_t now_ns);

/* Ends the blocks whose time is up at now_ns (the filter loses them). */
void fsc_grpc_guard_expire(struct fsc_grpc_guard *gd, int64_t now_ns);

/* Addresses blocked now (0 for NULL). */
size_t fsc_grpc_guard_blocked(const struct fsc_grpc_guard *gd);

/* errno of the last failed filter change (SO_ATTACH_FILTER), 0 when the
 * last one was applied. */
int fsc_grpc_guard_filter_errno(const struct fsc_grpc_guard *gd);

/* Removes the filter and frees the guard; NULL is a no-op. */
void fsc_grpc_guard_destroy(struct fsc_grpc_guard *gd);

#endif
