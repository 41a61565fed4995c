/* Request-header deadline for the libmicrohttpd listeners (Prometheus and
 * status page, OTLP/HTTP).
 *
 * Why: MHD's connection timeout is an idle timeout, so a client that sends
 * one header byte a second (slowloris) holds a connection slot forever; a
 * few hundred such clients fill the connection limit and scrapes are
 * refused (tests/integration/faults_net_prom.sh). The watch gives every
 * connection `deadline` from its start, and from the end of each request on
 * a kept-alive connection, to deliver a complete request header; past it the
 * socket is shut down (shutdown(2), not close: the descriptor stays MHD's),
 * which makes MHD end the connection. Once a request's header is complete
 * (the access handler runs) the connection is not watched until that request
 * completes: a slow scrape body is bounded by the idle timeout as before.
 *
 * Use: pass fsc_http_watch_notify with the watch as MHD_OPTION_NOTIFY_CONNECTION,
 * call fsc_http_watch_request_begin() on the first access-handler call of a
 * request and fsc_http_watch_request_end() from MHD_OPTION_NOTIFY_COMPLETED. */
#ifndef FSC_HTTP_WATCH_H
#define FSC_HTTP_WATCH_H

#include <sys/socket.h> /* microhttpd.h needs the socket types first */

#include <stdint.h>

#include <microhttpd.h>

struct fsc_http_watch;

/* Starts the watch thread (it wakes once a second). deadline_ns > 0.
 * `listener` names the server in log lines (copied). Returns NULL with a
 * sentence in err. */
struct fsc_http_watch *fsc_http_watch_create(int64_t deadline_ns, const char *listener, char *err,
                                             size_t errlen);

/* Stops the thread and frees the watch. Call after MHD_stop_daemon (every
 * connection has been reported closed by then). NULL is a no-op. */
void fsc_http_watch_destroy(struct fsc_http_watch *w);

/* MHD_NotifyConnectionCallback; cls is the watch. Owns the per-connection
 * record it keeps in *socket_context (freed on MHD_CONNECTION_NOTIFY_CLOSED). */
void fsc_http_watch_notify(void *cls, struct MHD_Connection *conn, void **socket_context,
                           enum MHD_ConnectionNotificationCode toe);

/* A request's header is complete / a request completed. Thread: the
 * connection's. No-op when the connection is not watched. */
void fsc_http_watch_request_begin(struct MHD_Connection *conn);
void fsc_http_watch_request_end(struct MHD_Connection *conn);

#endif
