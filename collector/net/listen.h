/* Listening TCP sockets for the HTTP server (net/http_server.c): it binds
 * the socket itself and hands it to libmicrohttpd, so a failure reports the
 * real errno ("Address already in use") rather than a library log line. */
#ifndef FSC_LISTEN_H
#define FSC_LISTEN_H

#include <stddef.h>

/* Splits "host:port", "[v6]:port" or ":port" into host (may be empty) and
 * port (digits, 0..65535). Returns 0 or -1. Thread: any. */
int fsc_listen_split(const char *addr, char *host, size_t hostlen, char *port, size_t portlen);

/* Opens, binds (SO_REUSEADDR: a restart may reuse a port whose old
 * connections are in TIME_WAIT; it never allows two listeners) and listens
 * with `backlog` on addr; ":port" means every IPv4 address. The socket is
 * non-blocking and close-on-exec; *family is its address family. Returns
 * the fd (owned by the caller), or -1 with a sentence in err ("invalid
 * listen address ...", "cannot listen on ADDR: REASON"). Thread: any. */
int fsc_listen_tcp(const char *addr, int backlog, int *family, char *err, size_t errlen);

#endif
