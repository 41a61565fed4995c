/* The OTLP/gRPC stream-abuse defence's parts: the per-connection budget
 * (otlp_grpc_resets.h, known answers from its cell-rate rule), gRPC peer
 * strings (net/grpc_peer.h), and the guard against real loopback sockets:
 * a blocked address's connection closed and its new handshakes dropped by
 * the listener's filter, other addresses untouched, the block ending. */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <grpc/grpc.h>
#include <grpc/grpc_security.h>

#include "net/grpc_channelz.h"
#include "net/grpc_peer.h"
#include "sources/otlp/transport/otlp_grpc_resets.h"
#include "test.h"

#define MS ((int64_t)1000000)
#define S  ((int64_t)1000000000)

/* per_s 128: a burst of 128 at one instant is within (the 128th puts the
 * next arrival exactly 1 s ahead), the 129th is over; once closed the
 * connection stays closed and is not reported again; another connection
 * has its own budget. */
static void budget_burst(void)
{
    struct fsc_grpc_resets *r = fsc_grpc_resets_create(128, 16);
    CHECK(r != NULL);
    int over = 0;
    for (int i = 0; i < 128; i++)
        over += fsc_grpc_resets_note(r, "ipv4:10.0.0.1:1000", 5 * S);
    CHECK_INT(over, 0);
    CHECK_INT(fsc_grpc_resets_closed(r, "ipv4:10.0.0.1:1000", 5 * S), 0);
    CHECK_INT(fsc_grpc_resets_note(r, "ipv4:10.0.0.1:1000", 5 * S), 1);
    CHECK_INT(fsc_grpc_resets_note(r, "ipv4:10.0.0.1:1000", 5 * S), 0);
    CHECK_INT(fsc_grpc_resets_closed(r, "ipv4:10.0.0.1:1000", 6 * S), 1);
    CHECK_INT(fsc_grpc_resets_closed(r, "ipv4:10.0.0.1:1001", 6 * S), 0);
    CHECK_INT(fsc_grpc_resets_note(r, "ipv4:10.0.0.1:1001", 6 * S), 0);
    CHECK_INT(fsc_grpc_resets_note(r, "", 6 * S), 0); /* no peer: never closed */
    fsc_grpc_resets_destroy(r);
}

/* per_s 4 (one every 250 ms): a steady 4 a second never goes over, however
 * long; after a quiet second a burst of 4 is within and a 5th is over.
 * per_s 3 (333 333 333 ns each): 3 at once within, the 4th over. n at once
 * (the transport's count): n = per_s within, per_s + 1 over. */
static void budget_rate(void)
{
    struct fsc_grpc_resets *r = fsc_grpc_resets_create(4, 16);
    int over = 0;
    for (int i = 0; i < 400; i++)
        over += fsc_grpc_resets_note(r, "c", (int64_t)i * 250 * MS);
    CHECK_INT(over, 0);
    int64_t t = 400 * 250 * MS + S;
    for (int i = 0; i < 4; i++)
        over += fsc_grpc_resets_note(r, "c", t);
    CHECK_INT(over, 0);
    CHECK_INT(fsc_grpc_resets_note(r, "c", t), 1);
    CHECK_INT(fsc_grpc_resets_note_n(r, "d", 4, t), 0);
    CHECK_INT(fsc_grpc_resets_note_n(r, "e", 5, t), 1);
    CHECK_INT(fsc_grpc_resets_note_n(r, "f", 2, t), 0);
    CHECK_INT(fsc_grpc_resets_note_n(r, "f", 2, t + 1), 0); /* 4 within 1 ns: at the edge */
    CHECK_INT(fsc_grpc_resets_note_n(r, "f", 1, t + 2), 1);
    fsc_grpc_resets_destroy(r);
    r = fsc_grpc_resets_create(3, 4);
    for (int i = 0; i < 3; i++)
        CHECK_INT(fsc_grpc_resets_note(r, "g", S), 0);
    CHECK_INT(fsc_grpc_resets_note(r, "g", S), 1);
    fsc_grpc_resets_destroy(r);
}

/* Two rows: a third connection takes the row seen least recently, whose
 * count and closed mark are forgotten; the other row keeps its count. */
static void budget_eviction(void)
{
    struct fsc_grpc_resets *r = fsc_grpc_resets_create(1, 2);
    CHECK_INT(fsc_grpc_resets_note(r, "a", 1 * S), 0);
    CHECK_INT(fsc_grpc_resets_note(r, "a", 1 * S), 1);
    CHECK_INT(fsc_grpc_resets_note(r, "b", 2 * S), 0); /* b: next arrival due at 3 s */
    CHECK_INT(fsc_grpc_resets_note(r, "c", 3 * S), 0); /* takes a's row */
    CHECK_INT(fsc_grpc_resets_closed(r, "a", 3 * S), 0);
    CHECK_INT(fsc_grpc_resets_note(r, "b", 3 * S + 100 * MS), 0); /* due at 4.1 s */
    CHECK_INT(fsc_grpc_resets_note(r, "b", 3 * S + 100 * MS), 1); /* 5.1 s: over */
    fsc_grpc_resets_destroy(r);
}

static void parse_ok(const char *peer, int family, const char *addr, unsigned port)
{
    struct sockaddr_storage sa;
    socklen_t len = 0;
    char text[INET6_ADDRSTRLEN] = "";
    CHECK_INT(fsc_grpc_peer_parse(peer, &sa, &len), 0);
    CHECK_INT(sa.ss_family, family);
    if (family == AF_INET) {
        const struct sockaddr_in *in = (const void *)&sa;
        inet_ntop(AF_INET, &in->sin_addr, text, sizeof(text));
        CHECK_INT(ntohs(in->sin_port), port);
        CHECK_INT(len, sizeof(struct sockaddr_in));
    } else {
        const struct sockaddr_in6 *in6 = (const void *)&sa;
        inet_ntop(AF_INET6, &in6->sin6_addr, text, sizeof(text));
        CHECK_INT(ntohs(in6->sin6_port), port);
        CHECK_INT(len, sizeof(struct sockaddr_in6));
    }
    CHECK_STR(text, addr);
}

static void peer_strings(void)
{
    struct sockaddr_storage sa;
    socklen_t len;
    parse_ok("ipv4:10.0.0.1:5555", AF_INET, "10.0.0.1", 5555);
    parse_ok("ipv6:[::1]:443", AF_INET6, "::1", 443);
    parse_ok("ipv6:%5B2001:db8::7%5D:80", AF_INET6, "2001:db8::7", 80);
    parse_ok("ipv6:[::ffff:192.0.2.9]:8080", AF_INET, "192.0.2.9", 8080);
    parse_ok("ipv6:[fe80::1%25eth0]:4317", AF_INET6, "fe80::1", 4317);
    parse_ok("ipv6:%5Bfe80::2%eth1%5D:4317", AF_INET6, "fe80::2", 4317);
    const char *bad[] = {"unix:/tmp/x",         "ipv4:10.0.0.1",     "ipv4:10.0.0.1:0",
                         "ipv4:10.0.0.1:70000", "ipv4:10.0.0.256:1", "ipv6:::1:80",
                         "ipv6:[::1:80",        "ipv4::80",          ""};
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
        CHECK_INT(fsc_grpc_peer_parse(bad[i], &sa, &len), -EINVAL);
}

/* ---- the guard against loopback sockets ------------------------------------------- */

static int listen_on(int family, const char *addr, uint16_t *port)
{
    struct sockaddr_storage sa;
    memset(&sa, 0, sizeof(sa));
    socklen_t len;
    int fd = socket(family, SOCK_STREAM, 0);
    if (family == AF_INET) {
        struct sockaddr_in *in = (void *)&sa;
        in->sin_family = AF_INET;
        inet_pton(AF_INET, addr, &in->sin_addr);
        len = sizeof(*in);
    } else {
        struct sockaddr_in6 *in6 = (void *)&sa;
        int off = 0;
        setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &off, sizeof(off));
        in6->sin6_family = AF_INET6;
        inet_pton(AF_INET6, addr, &in6->sin6_addr);
        len = sizeof(*in6);
    }
    if (fd < 0 || bind(fd, (struct sockaddr *)&sa, len) != 0 || listen(fd, 16) != 0 ||
        getsockname(fd, (struct sockaddr *)&sa, &len) != 0) {
        if (fd >= 0)
            close(fd);
        return -1;
    }
    *port = ntohs(family == AF_INET ? ((struct sockaddr_in *)(void *)&sa)->sin_port
                                    : ((struct sockaddr_in6 *)(void *)&sa)->sin6_port);
    return fd;
}

/* A connection from src to dst:port: its descriptor once established
 * within wait_ms, else -1 (the attempt abandoned). */
static int connect_from(int family, const char *src, const char *dst, uint16_t port, int wait_ms)
{
    struct sockaddr_storage from, to;
    memset(&from, 0, sizeof(from));
    memset(&to, 0, sizeof(to));
    socklen_t len;
    if (family == AF_INET) {
        struct sockaddr_in *f = (void *)&from, *t = (void *)&to;
        f->sin_family = t->sin_family = AF_INET;
        inet_pton(AF_INET, src, &f->sin_addr);
        inet_pton(AF_INET, dst, &t->sin_addr);
        t->sin_port = htons(port);
        len = sizeof(*f);
    } else {
        struct sockaddr_in6 *f = (void *)&from, *t = (void *)&to;
        f->sin6_family = t->sin6_family = AF_INET6;
        inet_pton(AF_INET6, src, &f->sin6_addr);
        inet_pton(AF_INET6, dst, &t->sin6_addr);
        t->sin6_port = htons(port);
        len = sizeof(*f);
    }
    int fd = socket(family, SOCK_STREAM | SOCK_NONBLOCK, 0);
    if (fd < 0 || bind(fd, (struct sockaddr *)&from, len) != 0)
        goto fail;
    if (connect(fd, (struct sockaddr *)&to, len) != 0 && errno != EINPROGRESS)
        goto fail;
    struct pollfd p = {.fd = fd, .events = POLLOUT};
    int err = 0;
    socklen_t elen = sizeof(err);
    if (poll(&p, 1, wait_ms) != 1 || getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &elen) != 0 ||
        err != 0)
        goto fail;
    return fd;
fail:
    if (fd >= 0)
        close(fd);
    return -1;
}

/* The peer string the core would give a call of the connection `fd` (the
 * client side) has: "ipv4:ADDR:PORT" of its local end. */
static void peer_of(int fd, char *out, size_t size)
{
    struct sockaddr_storage sa;
    socklen_t len = sizeof(sa);
    char a[INET6_ADDRSTRLEN] = "";
    getsockname(fd, (struct sockaddr *)&sa, &len);
    if (sa.ss_family == AF_INET) {
        const struct sockaddr_in *in = (const void *)&sa;
        inet_ntop(AF_INET, &in->sin_addr, a, sizeof(a));
        snprintf(out, size, "ipv4:%s:%u", a, (unsigned)ntohs(in->sin_port));
    } else {
        const struct sockaddr_in6 *in6 = (const void *)&sa;
        inet_ntop(AF_INET6, &in6->sin6_addr, a, sizeof(a));
        snprintf(out, size, "ipv6:[%s]:%u", a, (unsigned)ntohs(in6->sin6_port));
    }
}

/* The next connection the listener has, within 1 s; -1 when none. */
static int accept_one(int lfd)
{
    struct pollfd p = {.fd = lfd, .events = POLLIN};
    return poll(&p, 1, 1000) == 1 ? accept(lfd, NULL, NULL) : -1;
}

/* 1 when a read on fd sees the connection ended (end-of-file or reset)
 * within 1 s. */
static int ended(int fd)
{
    struct pollfd p = {.fd = fd, .events = POLLIN};
    char c;
    if (poll(&p, 1, 1000) != 1)
        return 0;
    ssize_t n = recv(fd, &c, 1, MSG_DONTWAIT);
    return n == 0 || (n < 0 && errno == ECONNRESET);
}

/* 1 when one byte written on a arrives on b within 1 s. */
static int carries(int a, int b)
{
    char c = 'x', d = 0;
    struct pollfd p = {.fd = b, .events = POLLIN};
    return send(a, &c, 1, MSG_NOSIGNAL) == 1 && poll(&p, 1, 1000) == 1 &&
           recv(b, &d, 1, MSG_DONTWAIT) == 1 && d == 'x';
}

/* An IPv4 listener: block 127.0.0.2 through one of its connections. That
 * connection and its other one are closed (the server side reads
 * end-of-file: its descriptor now holds a dead socket; the client sees the
 * end too), 127.0.0.1's connection still carries data, a new handshake
 * from 127.0.0.2 does not complete while one from 127.0.0.1 does; after
 * the block ends 127.0.0.2 connects again. */
static void guard_ipv4(void)
{
    uint16_t port = 0;
    int lfd = listen_on(AF_INET, "127.0.0.1", &port);
    CHECK(lfd >= 0);
    struct fsc_grpc_guard *gd = fsc_grpc_guard_create(port, 10 * S);
    int a1 = connect_from(AF_INET, "127.0.0.2", "127.0.0.1", port, 1000);
    int a2 = connect_from(AF_INET, "127.0.0.2", "127.0.0.1", port, 1000);
    int b = connect_from(AF_INET, "127.0.0.1", "127.0.0.1", port, 1000);
    CHECK(a1 >= 0 && a2 >= 0 && b >= 0);
    int sa1 = accept_one(lfd), sa2 = accept_one(lfd), sb = accept_one(lfd);
    CHECK(sa1 >= 0 && sa2 >= 0 && sb >= 0);
    char peer[96];
    peer_of(a1, peer, sizeof(peer));
    CHECK_INT(fsc_grpc_guard_block(gd, peer, 100 * S), 2);
    CHECK_INT(fsc_grpc_guard_filter_errno(gd), 0);
    CHECK_INT(fsc_grpc_guard_blocked(gd), 1);
    CHECK(ended(sa1));
    CHECK(ended(sa2));
    CHECK(ended(a1));
    CHECK(carries(b, sb));
    CHECK(carries(sb, b));
    int a3 = connect_from(AF_INET, "127.0.0.2", "127.0.0.1", port, 400);
    CHECK_INT(a3, -1);
    int b2 = connect_from(AF_INET, "127.0.0.1", "127.0.0.1", port, 1000);
    CHECK(b2 >= 0);
    /* Blocking again renews the block and closes nothing more. */
    CHECK_INT(fsc_grpc_guard_block(gd, peer, 105 * S), 0);
    fsc_grpc_guard_expire(gd, 114 * S);
    CHECK_INT(fsc_grpc_guard_blocked(gd), 1);
    fsc_grpc_guard_expire(gd, 115 * S);
    CHECK_INT(fsc_grpc_guard_blocked(gd), 0);
    int a4 = connect_from(AF_INET, "127.0.0.2", "127.0.0.1", port, 1000);
    CHECK(a4 >= 0);
    /* Closing one connection by its peer string. */
    int sb2 = accept_one(lfd), sa4 = accept_one(lfd);
    CHECK(sb2 >= 0 && sa4 >= 0);
    peer_of(a4, peer, sizeof(peer));
    CHECK_INT(fsc_grpc_peer_close(peer, port), 0);
    CHECK(ended(a4));
    CHECK_INT(fsc_grpc_peer_close(peer, port), -ENOENT);
    fsc_grpc_guard_destroy(gd);
    int fds[] = {lfd, a1, a2, b, sa1, sa2, sb, b2, a4, sb2, sa4};
    for (size_t i = 0; i < sizeof(fds) / sizeof(fds[0]); i++)
        if (fds[i] >= 0)
            close(fds[i]);
}

/* A dual-stack listener ([::]): an IPv4 client (IPv4 packets, v4-mapped
 * address) and an IPv6 one (::1) are each blocked by their own address. */
static void guard_dual_stack(void)
{
    uint16_t port = 0;
    int lfd = listen_on(AF_INET6, "::", &port);
    if (lfd < 0)
        test_skip("an IPv6 dual-stack listener on [::]");
    struct fsc_grpc_guard *gd = fsc_grpc_guard_create(port, 10 * S);
    int a = connect_from(AF_INET, "127.0.0.2", "127.0.0.1", port, 1000);
    int v6 = connect_from(AF_INET6, "::1", "::1", port, 1000);
    CHECK(a >= 0 && v6 >= 0);
    int sa = accept_one(lfd), sv6 = accept_one(lfd);
    CHECK(sa >= 0 && sv6 >= 0);
    char peer[96];
    peer_of(a, peer, sizeof(peer));
    CHECK_INT(fsc_grpc_guard_block(gd, peer, S), 1);
    CHECK(ended(sa));
    CHECK(ended(a));
    CHECK(carries(v6, sv6));
    CHECK_INT(connect_from(AF_INET, "127.0.0.2", "127.0.0.1", port, 400), -1);
    int ok4 = connect_from(AF_INET, "127.0.0.1", "127.0.0.1", port, 1000);
    CHECK(ok4 >= 0);
    peer_of(v6, peer, sizeof(peer));
    CHECK_INT(fsc_grpc_guard_block(gd, peer, S), 1);
    CHECK(ended(sv6));
    CHECK(ended(v6));
    CHECK_INT(connect_from(AF_INET6, "::1", "::1", port, 400), -1);
    CHECK_INT(fsc_grpc_guard_blocked(gd), 2);
    fsc_grpc_guard_destroy(gd); /* the filter goes with it */
    int again = connect_from(AF_INET6, "::1", "::1", port, 1000);
    CHECK(again >= 0);
    int fds[] = {lfd, a, v6, sa, sv6, ok4, again};
    for (size_t i = 0; i < sizeof(fds) / sizeof(fds[0]); i++)
        if (fds[i] >= 0)
            close(fds[i]);
}

/* ---- channelz against a real gRPC server ------------------------------------------ */

struct polled {
    char peer[96];
    uint64_t streams;
    int calls;
};

static void on_streams(void *arg, const char *peer, uint64_t n)
{
    struct polled *p = arg;
    snprintf(p->peer, sizeof(p->peer), "%s", peer);
    p->streams += n;
    p->calls++;
}

static void *poll_cq(void *arg)
{
    for (;;) {
        grpc_event ev = grpc_completion_queue_next(arg, gpr_inf_future(GPR_CLOCK_REALTIME), NULL);
        if (ev.type == GRPC_QUEUE_SHUTDOWN)
            return NULL;
    }
}

/* HTTP/2 frame header: length, type, flags, stream id. */
static size_t frame_head(uint8_t *b, size_t len, uint8_t type, uint8_t flags, uint32_t id)
{
    b[0] = (uint8_t)(len >> 16);
    b[1] = (uint8_t)(len >> 8);
    b[2] = (uint8_t)len;
    b[3] = type;
    b[4] = flags;
    b[5] = (uint8_t)(id >> 24);
    b[6] = (uint8_t)(id >> 16);
    b[7] = (uint8_t)(id >> 8);
    b[8] = (uint8_t)id;
    return 9;
}

/* Appends a request's HEADERS frame on stream id (and, with `message`, an
 * empty message that ends the stream) to buf at *n. HPACK, literal without
 * indexing so every block stands alone: :method POST, :scheme http,
 * :authority x, :path /x.Y/Z, content-type application/grpc, te trailers. */
static void put_request(uint8_t *buf, size_t *n, uint32_t id, int message)
{
    static const uint8_t block[] = {0x83, 0x86, 0x01, 1,   'x', 0x04, 6,   '/', 'x',  '.', 'Y', '/',
                                    'Z',  0x0f, 0x10, 16,  'a', 'p',  'p', 'l', 'i',  'c', 'a', 't',
                                    'i',  'o',  'n',  '/', 'g', 'r',  'p', 'c', 0x00, 2,   't', 'e',
                                    8,    't',  'r',  'a', 'i', 'l',  'e', 'r', 's'};
    *n += frame_head(buf + *n, sizeof(block), 1, 0x4, id);
    memcpy(buf + *n, block, sizeof(block));
    *n += sizeof(block);
    if (message) {
        *n += frame_head(buf + *n, 5, 0, 0x1, id); /* DATA, END_STREAM */
        memset(buf + *n, 0, 5);                    /* uncompressed, 0 bytes */
        *n += 5;
    }
}

/* The next event of cq within 2 s: 1 when it is `tag`, completed. */
static int completes(grpc_completion_queue *cq, void *tag)
{
    grpc_event ev = grpc_completion_queue_next(
        cq, gpr_time_add(gpr_now(GPR_CLOCK_MONOTONIC), gpr_time_from_millis(2000, GPR_TIMESPAN)),
        NULL);
    if (!(ev.type == GRPC_OP_COMPLETE && ev.tag == tag && ev.success))
        fprintf(stderr, "event type %d tag %p (want %p) success %d\n", (int)ev.type, ev.tag, tag,
                ev.success);
    return ev.type == GRPC_OP_COMPLETE && ev.tag == tag && ev.success;
}

/* Polls until `want` streams were reported (2 s at most). */
static void poll_until(struct fsc_grpc_channelz *cz, struct polled *p, uint64_t want)
{
    for (int i = 0; i < 100 && p->streams < want; i++) {
        CHECK(fsc_grpc_channelz_poll(cz, on_streams, p) >= 0);
        if (p->streams < want)
            poll(NULL, 0, 20);
    }
}

/* A gRPC server on 127.0.0.1 (its I/O on a thread of its own), found by its
 * first connection (port 0 was asked). On that connection: one request
 * with its message, which the server reads and answers: not counted; then
 * 10 streams with headers only: exactly 10 reported for that connection's
 * peer string; a poll with nothing new reports nothing; 5 more: 5. */
static void channelz_streams(void)
{
    grpc_init();
    grpc_arg on = {.type = GRPC_ARG_INTEGER, .key = GRPC_ARG_ENABLE_CHANNELZ, .value.integer = 1};
    grpc_channel_args args = {.num_args = 1, .args = &on};
    grpc_server *srv = grpc_server_create(&args, NULL);
    grpc_completion_queue *cq = grpc_completion_queue_create_for_next(NULL);
    grpc_completion_queue *calls = grpc_completion_queue_create_for_next(NULL);
    grpc_server_register_completion_queue(srv, cq, NULL);
    grpc_server_register_completion_queue(srv, calls, NULL);
    grpc_server_credentials *cr = grpc_insecure_server_credentials_create();
    int port = grpc_server_add_http2_port(srv, "127.0.0.1:0", cr);
    grpc_server_credentials_release(cr);
    CHECK(port > 0);
    grpc_server_start(srv);
    pthread_t th;
    CHECK_INT(pthread_create(&th, NULL, poll_cq, cq), 0);
    struct fsc_grpc_channelz *cz = fsc_grpc_channelz_create((uint16_t)port);
    struct polled p = {.streams = 0};
    CHECK(cz != NULL);
    CHECK_INT(fsc_grpc_channelz_poll(cz, on_streams, &p), 0); /* no connection yet */

    grpc_call *call = NULL;
    grpc_call_details details;
    grpc_metadata_array md;
    grpc_call_details_init(&details);
    grpc_metadata_array_init(&md);
    int t_new, t_recv, t_done;
    CHECK_INT(grpc_server_request_call(srv, &call, &details, &md, calls, calls, &t_new),
              GRPC_CALL_OK);
    int c = connect_from(AF_INET, "127.0.0.1", "127.0.0.1", (uint16_t)port, 1000);
    CHECK(c >= 0);
    char peer[96];
    peer_of(c, peer, sizeof(peer));
    uint8_t buf[4096];
    size_t n = 24;
    memcpy(buf, "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n", 24);
    n += frame_head(buf + n, 0, 4, 0, 0); /* SETTINGS */
    put_request(buf, &n, 1, 1);
    CHECK_INT(send(c, buf, n, MSG_NOSIGNAL), (long long)n);
    CHECK(completes(calls, &t_new));
    grpc_byte_buffer *msg = NULL;
    grpc_op op = {.op = GRPC_OP_RECV_MESSAGE, .data.recv_message.recv_message = &msg};
    CHECK_INT(grpc_call_start_batch(call, &op, 1, &t_recv, NULL), GRPC_CALL_OK);
    CHECK(completes(calls, &t_recv));
    CHECK(msg != NULL);
    int cancelled = 0;
    grpc_op ops[3] = {
        {.op = GRPC_OP_SEND_INITIAL_METADATA},
        {.op = GRPC_OP_SEND_STATUS_FROM_SERVER,
         .data.send_status_from_server = {.status = GRPC_STATUS_OK}},
        {.op = GRPC_OP_RECV_CLOSE_ON_SERVER, .data.recv_close_on_server.cancelled = &cancelled},
    };
    CHECK_INT(grpc_call_start_batch(call, ops, 3, &t_done, NULL), GRPC_CALL_OK);
    CHECK(completes(calls, &t_done));
    CHECK_INT(fsc_grpc_channelz_poll(cz, on_streams, &p), 1);
    CHECK_INT(p.calls, 0);

    n = 0;
    for (uint32_t id = 3; id <= 21; id += 2)
        put_request(buf, &n, id, 0);
    CHECK_INT(send(c, buf, n, MSG_NOSIGNAL), (long long)n);
    poll_until(cz, &p, 10);
    CHECK_INT(p.streams, 10);
    CHECK_STR(p.peer, peer);
    int before = p.calls;
    CHECK_INT(fsc_grpc_channelz_poll(cz, on_streams, &p), 1);
    CHECK_INT(p.calls, before);
    n = 0;
    for (uint32_t id = 23; id <= 31; id += 2)
        put_request(buf, &n, id, 0);
    CHECK_INT(send(c, buf, n, MSG_NOSIGNAL), (long long)n);
    poll_until(cz, &p, 15);
    CHECK_INT(p.streams, 15);

    close(c);
    grpc_byte_buffer_destroy(msg);
    grpc_call_unref(call);
    grpc_call_details_destroy(&details);
    grpc_metadata_array_destroy(&md);
    fsc_grpc_channelz_destroy(cz);
    grpc_server_shutdown_and_notify(srv, calls, &t_done);
    grpc_server_cancel_all_calls(srv);
    CHECK(completes(calls, &t_done));
    grpc_server_destroy(srv);
    grpc_completion_queue_shutdown(cq);
    pthread_join(th, NULL);
    grpc_completion_queue_destroy(cq);
    grpc_completion_queue_shutdown(calls);
    while (grpc_completion_queue_next(calls, gpr_inf_future(GPR_CLOCK_REALTIME), NULL).type !=
           GRPC_QUEUE_SHUTDOWN)
        ;
    grpc_completion_queue_destroy(calls);
    grpc_shutdown();
}

TEST_MAIN(TEST(budget_burst), TEST(budget_rate), TEST(budget_eviction), TEST(peer_strings),
          TEST(guard_ipv4), TEST(guard_dual_stack), TEST(channelz_streams))
