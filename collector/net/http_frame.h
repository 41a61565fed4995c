/* Strict request framing for the collector's HTTP server (net/http_server.c:
 * Prometheus and status page, OTLP/HTTP; docs/SECURITY.md "Request
 * framing").
 *
 * libmicrohttpd 0.9.75 accepts a few ambiguous requests that a proxy in
 * front of us could read differently (request smuggling) or that hide what
 * they ask for: two Content-Length headers, Content-Length with
 * Transfer-Encoding, a target with %00 (the decoded path was cut at the
 * NUL, so /metrics%00.html was served as /metrics), HTTP/1.1 without Host.
 * The check runs on the first access-handler call, before the credentials
 * gate, and its refusal (400) is queued at once, so MHD closes the
 * connection after it and no body is read.
 *
 * Chunk sizes: MHD does not show them to the application. A server none of
 * whose routes stores a body (Prometheus) refuses Transfer-Encoding at once
 * (413); on OTLP/HTTP an absurd chunk size (2^64-1) is bounded by max_body
 * (twice max_body of it, then the connection is closed) and by the body rate
 * (net/http_watch.h): a sender that announces it and sends little is cut
 * within body_rate_window. */
#ifndef FSC_HTTP_FRAME_H
#define FSC_HTTP_FRAME_H

#include <sys/socket.h> /* microhttpd.h needs the socket types first */

#include <stddef.h>

#include <microhttpd.h>

/* MHD_UnescapeCallback (MHD_OPTION_UNESCAPE_CALLBACK, cls unused): decodes
 * %XX in place like MHD's own, except that %00 stays as the three
 * characters and marks the request (fsc_http_watch_set_bad_target), so a
 * NUL never cuts a path or argument. Returns the new length. */
size_t fsc_http_frame_unescape(void *cls, struct MHD_Connection *conn, char *s);

/* MHD_LogCallback (MHD_OPTION_URI_LOG_CALLBACK, cls unused): sees the raw
 * target before MHD decodes or splits it, and marks the request
 * (fsc_http_watch_set_bad_target) when it holds a raw control byte: below
 * 0x20, 0x7f, or a NUL, which would cut the target MHD hands on
 * (GET /metrics<NUL>.html served as /metrics). Returns NULL (no per-request
 * context of its own). */
void *fsc_http_frame_uri_log(void *cls, const char *uri, struct MHD_Connection *conn);

/* Checks the request's framing. body_allowed 0: any Transfer-Encoding is
 * refused with 413 (the listener takes no request bodies). Returns 0 when
 * it may proceed, else the HTTP status (400, 413) with a sentence in *why
 * (static, ends in a newline). Thread: the connection's. */
unsigned fsc_http_frame_check(struct MHD_Connection *conn, const char *version, int body_allowed,
                              const char **why);

/* Queues status with why as a text/plain body (Connection: close follows,
 * the request being on its first handler call). Returns MHD's answer. */
enum MHD_Result fsc_http_frame_refuse(struct MHD_Connection *conn, unsigned status,
                                      const char *why);

#endif
