/* Connection admission for the collector's HTTP server (net/http_server.c:
 * Prometheus and status page, OTLP/HTTP): deadlines, a minimum body rate, and a reserve of
 * free connection slots (docs/SECURITY.md "Connection admission").
 *
 * Why: MHD's connection timeout is an idle timeout, so a client that sends
 * one byte a second (slowloris, or a body trickled at 1 byte / 2 s) holds a
 * connection slot for ever, and idle connections that never send anything
 * hold one for the whole timeout; a few hundred of either fill the
 * connection limit and scrapes or exports are refused. The watch
 * tracks every connection of a listener and shuts down (shutdown(2), not
 * close: the descriptor stays MHD's, which then ends the connection):
 *   - a connection whose request header is not complete `header_timeout`
 *     after it was accepted (TLS handshake included), or after the end of
 *     the previous request when that request was refused or never passed
 *     the credentials check; a connection whose last request was admitted
 *     (passed the gate) gets `idle_timeout` instead, for keep-alive;
 *   - a request whose body brings fewer than body_min_rate x window bytes
 *     in any window of `body_rate_window` (0 rate: no such rule);
 *   - when a new connection makes more than max_connections - reserve open
 *     connections, the connection waiting longest between requests (never
 *     admitted ones first): idle connections give way, so a scrape or an
 *     export always finds a slot while the busy ones are bounded by the
 *     deadlines above.
 *   - Per address: past max_connections_per_ip live connections from one
 *     client address, that address's connection waiting longest for a
 *     request header (never admitted ones first) is shut down, so a client
 *     behind the same address (NAT) as one holding idle connections still
 *     gets in; when all of them are busy with requests, the new one is
 *     shut down instead. MHD's own per-address cap
 *     (MHD_OPTION_PER_IP_CONNECTION_LIMIT) is set to twice that
 *     (fsc_http_watch_mhd_per_ip_limit) so it does not refuse first: a
 *     shut-down connection counts until MHD has closed it.
 *
 * It also carries one request flag for the framing check (net/http_frame.h):
 * a target that decoded to a NUL byte.
 *
 * Use: pass fsc_http_watch_notify with the watch as
 * MHD_OPTION_NOTIFY_CONNECTION; call fsc_http_watch_request_begin() on the
 * first access-handler call of a request, fsc_http_watch_admitted() when it
 * passed the credentials gate, fsc_http_watch_body() for every piece of
 * body, fsc_http_watch_body_done() on the final call, and
 * fsc_http_watch_request_end() from MHD_OPTION_NOTIFY_COMPLETED. */
#ifndef FSC_HTTP_WATCH_H
#define FSC_HTTP_WATCH_H

#include <sys/socket.h> /* microhttpd.h needs the socket types first */

#include <stddef.h>
#include <stdint.h>

#include <microhttpd.h>

#include "config/config.h"

struct fsc_http_watch;

/* What the watch closed so far. */
struct fsc_http_watch_stats {
    uint64_t header_timeout;      /* no complete request header in time */
    uint64_t body_rate;           /* a body slower than body_min_rate */
    uint64_t shed;                /* idle connections closed to keep the reserve free, or for a
                                   * newer connection of their address */
    uint64_t refused_per_address; /* new connections over the per-address cap shut down */
    uint64_t open;                /* connections open now */
};

/* Starts the watch thread (it wakes every 250 ms). lim is copied (NULL:
 * the defaults of fsc_listener_limits_defaults). `listener` names the
 * server in log lines (copied). Returns NULL with a sentence in err. */
struct fsc_http_watch *fsc_http_watch_create(const struct fsc_listener_limits *lim,
                                             const char *listener, char *err, size_t errlen);

/* Stops the thread and frees the watch. Call after MHD_stop_daemon (every
 * connection has been reported closed by then). NULL is a no-op. */
void fsc_http_watch_destroy(struct fsc_http_watch *w);

/* MHD_NotifyConnectionCallback; cls is the watch. Owns the per-connection
 * record it keeps in *socket_context (freed on MHD_CONNECTION_NOTIFY_CLOSED).
 * On STARTED it may shed an idle connection (see above). */
void fsc_http_watch_notify(void *cls, struct MHD_Connection *conn, void **socket_context,
                           enum MHD_ConnectionNotificationCode toe);

/* A request's header is complete / it passed the credentials gate / n more
 * body bytes arrived / its body is complete / it completed. Thread: the
 * connection's. No-ops when the connection is not watched.
 * request_begin and body_done return 0 when the watch has shut the
 * connection down (shed, or a deadline): its request may have been read
 * from the socket buffer, but no answer can reach the client, which will
 * send it again - the caller must drop it unprocessed (return MHD_NO), or
 * an OTLP post would be ingested twice. 1 otherwise. */
int fsc_http_watch_request_begin(struct MHD_Connection *conn);
void fsc_http_watch_admitted(struct MHD_Connection *conn);
void fsc_http_watch_body(struct MHD_Connection *conn, size_t n);
int fsc_http_watch_body_done(struct MHD_Connection *conn);
void fsc_http_watch_request_end(struct MHD_Connection *conn);

/* The framing flag of the request being parsed: set by the URI unescape
 * callback (net/http_frame.h), read by the framing check; cleared at
 * request end. Thread: the connection's. */
void fsc_http_watch_set_bad_target(struct MHD_Connection *conn);
int fsc_http_watch_bad_target(struct MHD_Connection *conn);

/* The connection limit to give MHD: max_connections plus a quarter. The
 * watch keeps the connections that are not being torn down under
 * max_connections - reserve; MHD counts a shut-down connection until its
 * thread has ended it, so under churn (an attacker reconnecting at once)
 * the headroom keeps MHD from refusing new connections itself. */
unsigned fsc_http_watch_mhd_limit(const struct fsc_listener_limits *lim);

/* The per-address limit to give MHD: twice max_connections_per_ip (the
 * watch enforces the cap itself, see above). */
unsigned fsc_http_watch_mhd_per_ip_limit(const struct fsc_listener_limits *lim);

/* Copies the counters (zeros for NULL). Thread: any. */
void fsc_http_watch_stats(struct fsc_http_watch *w, struct fsc_http_watch_stats *out);

struct fsc_admit_stats; /* net/admit_stats.h */

/* The same counters as a listener's admission row (net/admit_stats.h):
 * every HTTP reason filled, message_timeout not applicable. Thread: any. */
void fsc_http_watch_admit_stats(struct fsc_http_watch *w, struct fsc_admit_stats *out);

#endif
