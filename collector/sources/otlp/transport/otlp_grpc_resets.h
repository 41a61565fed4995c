/* Per-connection budget of calls or streams that end without their
 * request message (internal to the OTLP gRPC transport; used by
 * otlp_grpc_flood.h, the HTTP/2 "rapid reset" defence the gRPC 1.51 core
 * lacks: docs/SECURITY.md, "HTTP/2 stream abuse on OTLP/gRPC").
 *
 * Each connection (the core's peer string, with its port) has a budget of
 * `per_s` such ends a second, with a burst of as many: a generic cell rate
 * check, where every one moves the connection's theoretical arrival time
 * on by 1/per_s seconds, and one that would put it more than one second
 * ahead of now is over the budget. An honest client ends that way only its
 * own calls in flight (at most max_calls_per_ip of them) when it gives up
 * or stops; a flood opens and resets thousands a second.
 *
 * A connection over budget is marked closed (the caller closes it); calls
 * of it that the core still hands over afterwards are recognised and
 * dropped on arrival. The table has a fixed number of rows; a new
 * connection takes a free row or the one seen least recently. Not locked:
 * the transport's call thread owns it. */
#ifndef FSC_OTLP_GRPC_RESETS_H
#define FSC_OTLP_GRPC_RESETS_H

#include <stddef.h>
#include <stdint.h>

/* Longest connection name kept ("ipv6:[....]:port" fits); longer ones are
 * cut, which may merge two connections' budgets but never splits one. */
#define FSC_GRPC_CONN_NAME_MAX 64

struct fsc_grpc_resets;

/* A table of `rows` connections, each with `per_s` ends a second. Returns
 * NULL when out of memory or either is 0. */
struct fsc_grpc_resets *fsc_grpc_resets_create(unsigned per_s, size_t rows);

/* Frees the table; NULL is a no-op. */
void fsc_grpc_resets_destroy(struct fsc_grpc_resets *r);

/* Counts one end without a message of connection `conn` at monotonic time
 * now_ns. Returns 1 when it takes the connection over its budget for the
 * first time: it is now marked closed and the caller closes it; 0
 * otherwise (within budget, already closed, or conn "": no peer). */
int fsc_grpc_resets_note(struct fsc_grpc_resets *r, const char *conn, int64_t now_ns);

/* The same for n ends at once (counted by another layer: the streams
 * the transport saw without a message, net/grpc_channelz.h). */
int fsc_grpc_resets_note_n(struct fsc_grpc_resets *r, const char *conn, uint64_t n, int64_t now_ns);

/* 1 when `conn` was marked closed (its calls are to be dropped; its row
 * counts as seen at now_ns), 0 otherwise. Does not add a row. */
int fsc_grpc_resets_closed(struct fsc_grpc_resets *r, const char *conn, int64_t now_ns);

#endif
