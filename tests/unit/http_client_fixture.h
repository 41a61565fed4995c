/* A tiny HTTP/1.1 client over raw sockets on 127.0.0.1 for the tests of
 * the HTTP listeners (net/http_server.h, the Prometheus exporter, the status
 * page), so they depend on nothing but libc.
 *
 * Every socket gets 10 s send/receive timeouts: a server that stalls makes a
 * check fail after 10 s instead of hanging the test. That is the only time
 * bound the tests use. Functions are static inline so a test file that does
 * not call one gets no unused-function warning. */
#ifndef FSC_HTTP_CLIENT_FIXTURE_H
#define FSC_HTTP_CLIENT_FIXTURE_H

#include <sys/socket.h>
#include <sys/time.h>

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define FX_IO_TIMEOUT_S 10

/* Connects to 127.0.0.1:port; rcvbuf > 0 sets the receive buffer first (so
 * the window follows it). Returns the fd or -1. */
static inline int fx_connect_rcvbuf(uint16_t port, int rcvbuf)
{
    struct sockaddr_in sa;
    struct timeval tv = {FX_IO_TIMEOUT_S, 0};
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    if (fd == -1)
        return -1;
    if (rcvbuf > 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof(rcvbuf));
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
    memset(&sa, 0, sizeof(sa));
    sa.sin_family = AF_INET;
    sa.sin_port = htons(port);
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) == -1) {
        close(fd);
        return -1;
    }
    return fd;
}

static inline int fx_connect(uint16_t port)
{
    return fx_connect_rcvbuf(port, 0);
}

/* Shrinks the receive buffer so a client that stops reading stalls the
 * server's sends early. */
static inline int fx_connect_small_rcvbuf(uint16_t port)
{
    return fx_connect_rcvbuf(port, 4096);
}

/* Sends n bytes of p whole. Returns 0 or -1. */
static inline int fx_send_bytes(int fd, const void *p, size_t n)
{
    const char *c = p;
    for (size_t off = 0; off < n;) {
        ssize_t k = send(fd, c + off, n - off, MSG_NOSIGNAL);
        if (k <= 0)
            return -1;
        off += (size_t)k;
    }
    return 0;
}

static inline int fx_send(int fd, const char *req)
{
    return fx_send_bytes(fd, req, strlen(req));
}

struct fx_resp {
    int status; /* 0 when no valid status line arrived */
    char status_line[128];
    char head[8192]; /* header lines, NUL-terminated, "\r\n" separated */
    char *body;      /* malloc'd (NUL-terminated), NULL for HEAD */
    size_t body_len;
    int chunked; /* the body came chunked (no Content-Length) */
};

static inline void fx_resp_free(struct fx_resp *r)
{
    free(r->body);
    memset(r, 0, sizeof(*r));
}

/* Value of header `name` (case-insensitive) copied into out; the n-th (0 =
 * first) occurrence. Returns 1 when found. */
static inline int fx_header_nth(const struct fx_resp *r, const char *name, int nth, char *out,
                                size_t outlen)
{
    size_t nl = strlen(name);
    const char *p = r->head;
    while (*p) {
        const char *eol = strstr(p, "\r\n");
        size_t ll = eol ? (size_t)(eol - p) : strlen(p);
        if (ll > nl && p[nl] == ':') {
            int eq = 1;
            for (size_t i = 0; i < nl && eq; i++) {
                char a = p[i], b = name[i];
                if (a >= 'A' && a <= 'Z')
                    a = (char)(a - 'A' + 'a');
                if (b >= 'A' && b <= 'Z')
                    b = (char)(b - 'A' + 'a');
                eq = a == b;
            }
            if (eq && nth-- == 0) {
                const char *v = p + nl + 1;
                while (*v == ' ')
                    v++;
                size_t vl = ll - (size_t)(v - p);
                if (vl >= outlen)
                    vl = outlen - 1;
                memcpy(out, v, vl);
                out[vl] = '\0';
                return 1;
            }
        }
        if (!eol)
            break;
        p = eol + 2;
    }
    return 0;
}

static inline int fx_header(const struct fx_resp *r, const char *name, char *out, size_t outlen)
{
    return fx_header_nth(r, name, 0, out, outlen);
}

/* Reads one CRLF-ended line (at most n - 1 bytes) byte by byte. Returns 0
 * or -1. */
static inline int fx_read_line(int fd, char *line, size_t n)
{
    size_t l = 0;
    while (l + 1 < n) {
        ssize_t k = recv(fd, line + l, 1, 0);
        if (k <= 0)
            return -1;
        l++;
        if (l >= 2 && line[l - 2] == '\r' && line[l - 1] == '\n') {
            line[l - 2] = '\0';
            return 0;
        }
    }
    return -1;
}

/* Reads a chunked body (RFC 9112 "Chunked Transfer Coding": hex size
 * lines, data, a last chunk of size 0, no trailer fields) into r. Returns 0
 * or -1 (also when the connection ends before the last chunk: a body cut
 * short). */
static inline int fx_read_chunked(int fd, struct fx_resp *r)
{
    char line[64];
    size_t cap = 0;
    for (;;) {
        if (fx_read_line(fd, line, sizeof(line)) != 0)
            return -1;
        size_t n = (size_t)strtoull(line, NULL, 16);
        if (n == 0) {
            if (!r->body && !(r->body = calloc(1, 1)))
                return -1;
            return fx_read_line(fd, line, sizeof(line)) == 0 && line[0] == '\0' ? 0 : -1;
        }
        if (r->body_len + n + 1 > cap) {
            size_t want = cap ? cap : 65536;
            while (want < r->body_len + n + 1)
                want *= 2;
            char *b = realloc(r->body, want);
            if (!b)
                return -1;
            r->body = b;
            cap = want;
        }
        for (size_t off = 0; off < n;) {
            ssize_t k = recv(fd, r->body + r->body_len + off, n - off, 0);
            if (k <= 0)
                return -1;
            off += (size_t)k;
        }
        r->body_len += n;
        r->body[r->body_len] = '\0';
        if (fx_read_line(fd, line, sizeof(line)) != 0 || line[0] != '\0')
            return -1;
    }
}

/* Reads one response. head_only: the request was HEAD (no body follows).
 * The body is read by Content-Length, or chunked (a streamed body).
 * Returns 0, or -1 when the connection ended or timed out early. Bytes
 * past the response are not read, so keep-alive requests can follow. */
static inline int fx_read_resp(int fd, int head_only, struct fx_resp *r)
{
    size_t hl = 0;
    char cl[32];
    memset(r, 0, sizeof(*r));
    /* Byte by byte up to the blank line: simple, and never over-reads. */
    while (hl + 1 < sizeof(r->head)) {
        ssize_t k = recv(fd, r->head + hl, 1, 0);
        if (k <= 0)
            return -1;
        hl++;
        r->head[hl] = '\0';
        if (hl >= 4 && memcmp(r->head + hl - 4, "\r\n\r\n", 4) == 0)
            break;
    }
    if (hl < 4 || memcmp(r->head + hl - 4, "\r\n\r\n", 4) != 0)
        return -1;
    char *eol = strstr(r->head, "\r\n");
    size_t sl = (size_t)(eol - r->head);
    if (sl >= sizeof(r->status_line))
        return -1;
    memcpy(r->status_line, r->head, sl);
    r->status_line[sl] = '\0';
    if (sscanf(r->status_line, "HTTP/1.1 %d", &r->status) != 1)
        return -1;
    memmove(r->head, eol + 2, strlen(eol + 2) + 1);
    if (head_only)
        return 0;
    r->chunked = fx_header(r, "Transfer-Encoding", cl, sizeof(cl)) && strcmp(cl, "chunked") == 0;
    if (r->chunked)
        return fx_read_chunked(fd, r);
    if (!fx_header(r, "Content-Length", cl, sizeof(cl)))
        return -1;
    r->body_len = (size_t)strtoull(cl, NULL, 10);
    r->body = malloc(r->body_len + 1);
    if (!r->body)
        return -1;
    for (size_t off = 0; off < r->body_len;) {
        ssize_t k = recv(fd, r->body + off, r->body_len - off, 0);
        if (k <= 0)
            return -1;
        off += (size_t)k;
    }
    r->body[r->body_len] = '\0';
    return 0;
}

/* One request on a fresh connection. extra: more header lines, each ending
 * in "\r\n" (or ""). Returns 0 or -1. */
static inline int fx_request(uint16_t port, const char *method, const char *path, const char *extra,
                             struct fx_resp *r)
{
    char req[1024];
    int fd = fx_connect(port), rc = -1;
    memset(r, 0, sizeof(*r));
    if (fd == -1)
        return -1;
    snprintf(req, sizeof(req), "%s %s HTTP/1.1\r\nHost: 127.0.0.1\r\n%s\r\n", method, path, extra);
    if (fx_send(fd, req) == 0)
        rc = fx_read_resp(fd, strcmp(method, "HEAD") == 0, r);
    close(fd);
    return rc;
}

/* 1 when the peer closes the connection (EOF or reset) before the 10 s
 * receive timeout, discarding whatever it still sends. Bounded. */
static inline int fx_wait_closed(int fd)
{
    char sink[4096];
    for (int i = 0; i < 100000; i++) {
        ssize_t k = recv(fd, sink, sizeof(sink), 0);
        if (k == 0)
            return 1;
        if (k < 0)
            return errno == ECONNRESET;
    }
    return 0;
}

#endif
