/* Listening TCP sockets for our HTTP servers (net/listen.h). */
#include "net/listen.h"

#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

int fsc_listen_split(const char *addr, char *host, size_t hostlen, char *port, size_t portlen)
{
    const char *hs, *he, *ps;

    if (addr[0] == '[') {
        hs = addr + 1;
        he = strchr(hs, ']');
        if (!he || he[1] != ':')
            return -1;
        ps = he + 2;
    } else {
        hs = addr;
        he = strrchr(addr, ':');
        if (!he || memchr(hs, ':', (size_t)(he - hs)) != NULL) /* bare v6 needs [] */
            return -1;
        ps = he + 1;
    }
    size_t hn = (size_t)(he - hs), pn = strlen(ps);
    if (hn >= hostlen || pn == 0 || pn >= portlen || pn > 5)
        return -1;
    unsigned long v = 0;
    for (size_t i = 0; i < pn; i++) {
        if (ps[i] < '0' || ps[i] > '9')
            return -1;
        v = v * 10 + (unsigned long)(ps[i] - '0');
    }
    if (v > 65535)
        return -1;
    memcpy(host, hs, hn);
    host[hn] = '\0';
    memcpy(port, ps, pn + 1);
    return 0;
}

int fsc_listen_tcp(const char *addr, int backlog, int *family, char *err, size_t errlen)
{
    char host[256], port[8], eb[128];
    struct addrinfo hints, *res = NULL, *ai;
    int fd = -1, e = 0, grc;

    if (fsc_listen_split(addr, host, sizeof(host), port, sizeof(port)) != 0) {
        snprintf(err, errlen,
                 "invalid listen address \"%s\": expected host:port, [ipv6]:port or :port", addr);
        return -1;
    }
    memset(&hints, 0, sizeof(hints));
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    hints.ai_flags = AI_NUMERICSERV | AI_PASSIVE;
    /* ":port" means every IPv4 address, like "0.0.0.0:port". */
    grc = getaddrinfo(host[0] ? host : "0.0.0.0", port, &hints, &res);
    if (grc != 0) {
        snprintf(err, errlen, "cannot listen on %s: cannot resolve \"%s\": %s", addr, host,
                 gai_strerror(grc));
        return -1;
    }
    /* The first address that binds wins (a name may resolve to several). */
    for (ai = res; ai; ai = ai->ai_next) {
        const int one = 1;
        fd = socket(ai->ai_family, ai->ai_socktype, ai->ai_protocol);
        if (fd == -1) {
            e = errno;
            continue;
        }
        if (fcntl(fd, F_SETFD, FD_CLOEXEC) == -1 ||
            fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK) == -1 ||
            setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) == -1 ||
            bind(fd, ai->ai_addr, ai->ai_addrlen) == -1 || listen(fd, backlog) == -1) {
            e = errno;
            close(fd);
            fd = -1;
            continue;
        }
        *family = ai->ai_family;
        break;
    }
    freeaddrinfo(res);
    if (fd == -1)
        snprintf(err, errlen, "cannot listen on %s: %s", addr,
                 (strerror_r(e, eb, sizeof(eb)) == 0 ? eb : "unknown error"));
    return fd;
}
