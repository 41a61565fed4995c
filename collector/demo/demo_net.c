/* Loopback ports of the demo (demo_int.h).
 *
 * Why reservations: the demo must know every port before it writes the
 * config (the OTLP sender needs the receiver's port, the banner the status
 * page's), but the servers bind inside the simulator and the collector. A
 * socket bound with SO_REUSEADDR that never listens holds the port against
 * every other bind and ephemeral connect, while a server that also sets
 * SO_REUSEADDR (gRPC always does; the Prometheus exporter does) may still
 * bind and listen on it: Linux refuses a second bind only when the holder is
 * listening or one side lacks the option. The demo closes its reservation
 * once the server is up. */
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "demo/demo_int.h"

#define CONNECT_TIMEOUT_MS 1000

/* getaddrinfo for host (brackets of "[::1]" removed) and port. */
static int resolve(const char *host, uint16_t port, int passive, struct addrinfo **out)
{
    char h[DEMO_HOST], p[8];
    size_t n = strlen(host);
    if (n >= sizeof(h))
        return -ENAMETOOLONG;
    if (n >= 2 && host[0] == '[' && host[n - 1] == ']') {
        memcpy(h, host + 1, n - 2);
        h[n - 2] = '\0';
    } else {
        memcpy(h, host, n + 1);
    }
    snprintf(p, sizeof(p), "%u", (unsigned)port);
    struct addrinfo hints;
    memset(&hints, 0, sizeof(hints));
    hints.ai_socktype = SOCK_STREAM;
    hints.ai_flags = AI_NUMERICSERV | (passive ? AI_PASSIVE : 0);
    return getaddrinfo(h[0] ? h : NULL, p, &hints, out) == 0 ? 0 : -EADDRNOTAVAIL;
}

int demo_port_reserve(const char *host, uint16_t *port)
{
    struct addrinfo *ai = NULL;
    int rc = resolve(host, *port, 1, &ai);
    if (rc != 0)
        return rc;
    rc = -EADDRNOTAVAIL;
    for (const struct addrinfo *a = ai; a; a = a->ai_next) {
        int fd = socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, a->ai_protocol);
        if (fd == -1) {
            rc = -errno;
            continue;
        }
        int one = 1;
        struct sockaddr_storage ss;
        socklen_t sl = sizeof(ss);
        if (setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) == -1 ||
            bind(fd, a->ai_addr, a->ai_addrlen) == -1 ||
            getsockname(fd, (struct sockaddr *)&ss, &sl) == -1) {
            rc = -errno;
            close(fd);
            continue;
        }
        *port = ntohs(ss.ss_family == AF_INET6 ? ((struct sockaddr_in6 *)&ss)->sin6_port
                                               : ((struct sockaddr_in *)&ss)->sin_port);
        freeaddrinfo(ai);
        return fd;
    }
    freeaddrinfo(ai);
    return rc;
}

void demo_port_release(int fd)
{
    if (fd >= 0)
        close(fd);
}

/* A connected socket to host:port within CONNECT_TIMEOUT_MS, or -1. */
static int connect_to(const char *host, uint16_t port)
{
    struct addrinfo *ai = NULL;
    if (resolve(host, port, 0, &ai) != 0)
        return -1;
    int fd = -1;
    for (const struct addrinfo *a = ai; a && fd < 0; a = a->ai_next) {
        fd = socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC | SOCK_NONBLOCK, a->ai_protocol);
        if (fd == -1)
            continue;
        int ok = connect(fd, a->ai_addr, a->ai_addrlen) == 0;
        if (!ok && errno == EINPROGRESS) {
            struct pollfd pf = {.fd = fd, .events = POLLOUT};
            int err = 0;
            socklen_t el = sizeof(err);
            ok = poll(&pf, 1, CONNECT_TIMEOUT_MS) == 1 &&
                 getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &el) == 0 && err == 0;
        }
        if (!ok) {
            close(fd);
            fd = -1;
        }
    }
    freeaddrinfo(ai);
    return fd;
}

int demo_port_listening(const char *host, uint16_t port)
{
    int fd = connect_to(host, port);
    if (fd < 0)
        return 0;
    close(fd);
    return 1;
}

int demo_http_ready(const char *host, uint16_t port)
{
    int fd = connect_to(host, port);
    if (fd < 0)
        return 0;
    static const char req[] = "GET /-/ready HTTP/1.0\r\nHost: demo\r\n\r\n";
    char rsp[64];
    size_t got = 0;
    int ok = send(fd, req, sizeof(req) - 1, MSG_NOSIGNAL) == (ssize_t)(sizeof(req) - 1);
    /* The status line is all we need: "HTTP/1.x 200". */
    for (int tries = 0; ok && got < 12 && tries < 16; tries++) {
        struct pollfd pf = {.fd = fd, .events = POLLIN};
        if (poll(&pf, 1, CONNECT_TIMEOUT_MS) != 1)
            break;
        ssize_t r = recv(fd, rsp + got, sizeof(rsp) - 1 - got, 0);
        if (r <= 0)
            break;
        got += (size_t)r;
    }
    close(fd);
    rsp[got] = '\0';
    return got >= 12 && strncmp(rsp, "HTTP/1.", 7) == 0 && strncmp(rsp + 9, "200", 3) == 0;
}
