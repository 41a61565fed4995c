/* Closing gRPC client connections from outside the core, and the guard of
 * blocked addresses (contract in grpc_peer.h). */
#define _GNU_SOURCE /* dup3 */
#include "net/grpc_peer.h"

#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <linux/filter.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/clock.h"

/* ---- peer strings ---------------------------------------------------------------- */

/* "host:port" (after the scheme): the host text into host, the port into
 * *port; with `bracketed`, the host is in [] or %5B %5D. Returns 0 or
 * -EINVAL. */
static int split_host_port(const char *hp, char *host, size_t hostlen, int bracketed,
                           unsigned *port)
{
    const char *colon = strrchr(hp, ':');
    if (!colon || colon == hp || colon[1] == '\0')
        return -EINVAL;
    char *end;
    unsigned long p = strtoul(colon + 1, &end, 10);
    if (*end != '\0' || p == 0 || p > 65535)
        return -EINVAL;
    const char *h = hp, *he = colon;
    if (bracketed) {
        if (*h == '[' && he > h + 1 && he[-1] == ']') {
            h += 1;
            he -= 1;
        } else if (strncasecmp(h, "%5B", 3) == 0 && he > h + 6 &&
                   strncasecmp(he - 3, "%5D", 3) == 0) {
            h += 3;
            he -= 3;
        } else {
            return -EINVAL;
        }
    }
    /* A zone ("fe80::1%eth0", "%25eth0" escaped) is dropped: addresses
     * are compared without it. */
    const char *zone = bracketed ? memchr(h, '%', (size_t)(he - h)) : NULL;
    if (zone)
        he = zone;
    size_t n = (size_t)(he - h);
    if (n == 0 || n >= hostlen)
        return -EINVAL;
    memcpy(host, h, n);
    host[n] = '\0';
    *port = (unsigned)p;
    return 0;
}

/* An IPv4-mapped IPv6 address (a v4 client of a dual-stack listener, which
 * the core names "ipv4:...") as the IPv4 address it maps. */
static void unmap_v4(struct sockaddr_storage *a)
{
    const struct sockaddr_in6 *in6 = (const void *)a;
    if (a->ss_family != AF_INET6 || !IN6_IS_ADDR_V4MAPPED(&in6->sin6_addr))
        return;
    struct sockaddr_in in = {.sin_family = AF_INET, .sin_port = in6->sin6_port};
    memcpy(&in.sin_addr, &in6->sin6_addr.s6_addr[12], 4);
    memset(a, 0, sizeof(*a));
    memcpy(a, &in, sizeof(in));
}

int fsc_grpc_peer_parse(const char *peer, struct sockaddr_storage *sa, socklen_t *len)
{
    char host[INET6_ADDRSTRLEN + 1];
    unsigned port;
    memset(sa, 0, sizeof(*sa));
    if (strncmp(peer, "ipv4:", 5) == 0) {
        struct sockaddr_in *in = (struct sockaddr_in *)sa;
        if (split_host_port(peer + 5, host, sizeof(host), 0, &port) != 0 ||
            inet_pton(AF_INET, host, &in->sin_addr) != 1)
            return -EINVAL;
        in->sin_family = AF_INET;
        in->sin_port = htons((uint16_t)port);
        *len = sizeof(*in);
        return 0;
    }
    if (strncmp(peer, "ipv6:", 5) == 0) {
        struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)sa;
        if (split_host_port(peer + 5, host, sizeof(host), 1, &port) != 0 ||
            inet_pton(AF_INET6, host, &in6->sin6_addr) != 1)
            return -EINVAL;
        in6->sin6_family = AF_INET6;
        in6->sin6_port = htons((uint16_t)port);
        unmap_v4(sa);
        *len = sa->ss_family == AF_INET ? sizeof(struct sockaddr_in) : sizeof(*in6);
        return 0;
    }
    return -EINVAL;
}

/* 1 when a and b are the same address (and, with `ports`, port). */
static int same_endpoint(const struct sockaddr_storage *a, const struct sockaddr_storage *b,
                         int ports)
{
    if (a->ss_family != b->ss_family)
        return 0;
    if (a->ss_family == AF_INET) {
        const struct sockaddr_in *x = (const void *)a, *y = (const void *)b;
        return (!ports || x->sin_port == y->sin_port) && x->sin_addr.s_addr == y->sin_addr.s_addr;
    }
    if (a->ss_family != AF_INET6)
        return 0;
    const struct sockaddr_in6 *x = (const void *)a, *y = (const void *)b;
    return (!ports || x->sin6_port == y->sin6_port) &&
           memcmp(&x->sin6_addr, &y->sin6_addr, sizeof(x->sin6_addr)) == 0;
}

static uint16_t port_of(const struct sockaddr_storage *a)
{
    if (a->ss_family == AF_INET)
        return ntohs(((const struct sockaddr_in *)(const void *)a)->sin_port);
    if (a->ss_family == AF_INET6)
        return ntohs(((const struct sockaddr_in6 *)(const void *)a)->sin6_port);
    return 0;
}

/* ---- finding and closing sockets -------------------------------------------------- */

/* Called for each TCP socket of this process on the local port: remote is
 * its peer, or NULL for a listening socket. Returns 1 when it acted on fd
 * (counted), 0 otherwise. */
typedef int (*socket_fn)(int fd, const struct sockaddr_storage *remote, void *ctx);

/* Runs fn on the sockets of local_port until `limit` of them were acted
 * on. Returns how many were, or -errno when the descriptors cannot be
 * listed. */
static int each_socket(uint16_t local_port, socket_fn fn, void *ctx, int limit)
{
    DIR *d = opendir("/proc/self/fd");
    if (!d)
        return -errno;
    int acted = 0;
    struct dirent *e;
    while (acted < limit && (e = readdir(d)) != NULL) {
        char *end;
        long fd = strtol(e->d_name, &end, 10);
        struct stat st;
        if (*end != '\0' || end == e->d_name || fd == dirfd(d) || fstat((int)fd, &st) != 0 ||
            !S_ISSOCK(st.st_mode))
            continue;
        struct sockaddr_storage local, remote;
        socklen_t llen = sizeof(local), rlen = sizeof(remote);
        int listening = 0;
        socklen_t olen = sizeof(listening);
        if (getsockname((int)fd, (struct sockaddr *)&local, &llen) != 0 ||
            (local.ss_family != AF_INET && local.ss_family != AF_INET6) ||
            port_of(&local) != local_port ||
            getsockopt((int)fd, SOL_SOCKET, SO_ACCEPTCONN, &listening, &olen) != 0)
            continue;
        if (listening) {
            acted += fn((int)fd, NULL, ctx);
            continue;
        }
        if (getpeername((int)fd, (struct sockaddr *)&remote, &rlen) != 0)
            continue;
        unmap_v4(&remote);
        acted += fn((int)fd, &remote, ctx);
    }
    closedir(d);
    return acted;
}

/* Replaces descriptor fd's socket with a dead one (a socket pair's end
 * whose other end is closed). Returns 0 or -errno. */
static int swap_out(int fd)
{
    int sv[2];
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0, sv) != 0)
        return -errno;
    close(sv[1]);
    int rc = dup3(sv[0], fd, O_CLOEXEC) == -1 ? -errno : 0;
    close(sv[0]);
    return rc;
}

/* Closes the connection whose remote end is ctx (address and port, or
 * address only when its port is 0). */
static int close_endpoint(int fd, const struct sockaddr_storage *remote, void *ctx)
{
    const struct sockaddr_storage *want = ctx;
    if (!remote || !same_endpoint(remote, want, port_of(want) != 0))
        return 0;
    return swap_out(fd) == 0;
}

int fsc_grpc_peer_close(const char *peer, uint16_t local_port)
{
    struct sockaddr_storage want;
    socklen_t wlen;
    if (fsc_grpc_peer_parse(peer, &want, &wlen) != 0)
        return -EINVAL;
    int n = each_socket(local_port, close_endpoint, &want, 1);
    return n < 0 ? n : n == 0 ? -ENOENT : 0;
}

/* ---- the guard -------------------------------------------------------------------- */

struct blocked {
    struct sockaddr_storage addr; /* port 0 */
    int64_t until_ns;             /* 0 = free */
};

struct fsc_grpc_guard {
    uint16_t port;
    int64_t block_ns;
    int filter_errno; /* of the last filter change; 0 = applied */
    struct blocked rows[FSC_GRPC_GUARD_ADDRESSES];
};

/* The listener filter: drop a packet whose source is a blocked address,
 * pass any other. Short jumps only (a cBPF jump reaches 255 instructions):
 * each address is a compare that skips its own `ret 0` when unequal.
 *   ldb [net+0]; rsh 4; jeq 4 ? IPv4 : IPv6
 *   IPv4: ld [net+12] (source); per address: jeq a,0,1; ret 0; then ret -1
 *   IPv6: jeq 6,1,0; ret -1; per address, the source's four words at
 *         net+8..20 each compared, any unequal skips to the next; ret 0;
 *         then ret -1 */
#define FILTER_MAX (3 + 2 + 2 * FSC_GRPC_GUARD_ADDRESSES + 3 + 9 * FSC_GRPC_GUARD_ADDRESSES)
#define NET(off)   ((uint32_t)(SKF_NET_OFF + (off)))
#define PASS       0xffffffffu

static size_t build_filter(const struct blocked *rows, size_t n, struct sock_filter *prog)
{
    size_t n4 = 0, k = 0;
    for (size_t i = 0; i < n; i++)
        n4 += rows[i].until_ns != 0 && rows[i].addr.ss_family == AF_INET;
    prog[k++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_B | BPF_ABS, NET(0));
    prog[k++] = (struct sock_filter)BPF_STMT(BPF_ALU | BPF_RSH | BPF_K, 4);
    prog[k++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 4, 0,
                                             (uint8_t)(2 + 2 * n4)); /* past the IPv4 part */
    prog[k++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, NET(12));
    for (size_t i = 0; i < n; i++) {
        const struct sockaddr_in *in = (const void *)&rows[i].addr;
        if (rows[i].until_ns == 0 || in->sin_family != AF_INET)
            continue;
        prog[k++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K,
                                                 ntohl(in->sin_addr.s_addr), 0, 1);
        prog[k++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, 0);
    }
    prog[k++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, PASS);
    prog[k++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 6, 1, 0);
    prog[k++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, PASS);
    for (size_t i = 0; i < n; i++) {
        const struct sockaddr_in6 *in6 = (const void *)&rows[i].addr;
        if (rows[i].until_ns == 0 || in6->sin6_family != AF_INET6)
            continue;
        for (unsigned w = 0; w < 4; w++) {
            uint32_t word;
            memcpy(&word, &in6->sin6_addr.s6_addr[4 * w], 4);
            prog[k++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, NET(8 + 4 * w));
            prog[k++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, ntohl(word), 0,
                                                     (uint8_t)(7 - 2 * w));
        }
        prog[k++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, 0);
    }
    prog[k++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, PASS);
    return k;
}

struct filter_job {
    struct sock_fprog fp; /* len 0: remove the filter */
    int err;              /* the first failure's errno */
};

/* Sets (or removes) the filter of a listening socket. */
static int filter_listener(int fd, const struct sockaddr_storage *remote, void *ctx)
{
    struct filter_job *job = ctx;
    if (remote)
        return 0;
    int unused = 0; /* Linux wants an int-sized option even to detach */
    int rc = job->fp.len == 0
                 ? setsockopt(fd, SOL_SOCKET, SO_DETACH_FILTER, &unused, sizeof(unused))
                 : setsockopt(fd, SOL_SOCKET, SO_ATTACH_FILTER, &job->fp, sizeof(job->fp));
    if (rc != 0 && !(job->fp.len == 0 && errno == ENOENT) && job->err == 0)
        job->err = errno;
    return rc == 0;
}

/* Puts the blocked addresses into the listeners' filter (or removes it
 * when none is left). Sets gd->filter_errno. */
static void refilter(struct fsc_grpc_guard *gd)
{
    struct sock_filter prog[FILTER_MAX];
    struct filter_job job = {.fp = {.len = 0, .filter = prog}, .err = 0};
    if (fsc_grpc_guard_blocked(gd) > 0)
        job.fp.len = (unsigned short)build_filter(gd->rows, FSC_GRPC_GUARD_ADDRESSES, prog);
    int n = each_socket(gd->port, filter_listener, &job, INT32_MAX);
    gd->filter_errno = n < 0 ? -n : job.err;
}

struct fsc_grpc_guard *fsc_grpc_guard_create(uint16_t local_port, int64_t block_ns)
{
    struct fsc_grpc_guard *gd = calloc(1, sizeof(*gd));
    if (!gd)
        return NULL;
    gd->port = local_port;
    gd->block_ns = block_ns;
    return gd;
}

size_t fsc_grpc_guard_blocked(const struct fsc_grpc_guard *gd)
{
    size_t n = 0;
    for (size_t i = 0; gd && i < FSC_GRPC_GUARD_ADDRESSES; i++)
        n += gd->rows[i].until_ns != 0;
    return n;
}

int fsc_grpc_guard_filter_errno(const struct fsc_grpc_guard *gd)
{
    return gd->filter_errno;
}

int fsc_grpc_guard_block(struct fsc_grpc_guard *gd, const char *peer, int64_t now_ns)
{
    struct sockaddr_storage addr;
    socklen_t len;
    if (fsc_grpc_peer_parse(peer, &addr, &len) != 0)
        return -EINVAL;
    if (addr.ss_family == AF_INET)
        ((struct sockaddr_in *)&addr)->sin_port = 0;
    else
        ((struct sockaddr_in6 *)&addr)->sin6_port = 0;
    /* Its own row, else a free one, else the one whose block ends first. */
    struct blocked *own = NULL, *spare = NULL, *oldest = &gd->rows[0];
    for (size_t i = 0; i < FSC_GRPC_GUARD_ADDRESSES && !own; i++) {
        struct blocked *b = &gd->rows[i];
        if (b->until_ns != 0 && same_endpoint(&b->addr, &addr, 0))
            own = b;
        else if (b->until_ns == 0 && !spare)
            spare = b;
        else if (b->until_ns != 0 && b->until_ns < oldest->until_ns)
            oldest = b;
    }
    struct blocked *row = own ? own : spare ? spare : oldest;
    int was_new = row != own;
    row->addr = addr;
    row->until_ns = now_ns + gd->block_ns;
    /* The filter first, then the connections: one that completes its
     * handshake in between is let through, and is closed in turn when it
     * floods. */
    if (was_new)
        refilter(gd);
    return each_socket(gd->port, close_endpoint, &addr, INT32_MAX);
}

void fsc_grpc_guard_expire(struct fsc_grpc_guard *gd, int64_t now_ns)
{
    int changed = 0;
    for (size_t i = 0; i < FSC_GRPC_GUARD_ADDRESSES; i++) {
        if (gd->rows[i].until_ns != 0 && gd->rows[i].until_ns <= now_ns) {
            gd->rows[i].until_ns = 0;
            changed = 1;
        }
    }
    if (changed)
        refilter(gd);
}

void fsc_grpc_guard_destroy(struct fsc_grpc_guard *gd)
{
    if (!gd)
        return;
    if (fsc_grpc_guard_blocked(gd) > 0) {
        memset(gd->rows, 0, sizeof(gd->rows));
        refilter(gd);
    }
    free(gd);
}
