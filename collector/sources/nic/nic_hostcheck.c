/* The host check against the cable plan: neighbour table parse, verdicts,
 * and the readers of the real host view (nic_hostcheck.h says what each
 * kind means and why the neighbour table proves the cable). */
#include "sources/nic/nic_hostcheck.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <ifaddrs.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sources/nic/nic_ethtool.h"
#include "sources/nic/nic_sysfs.h"

const char *fsc_cable_kind_name(enum fsc_cable_kind kind)
{
    static const char *const names[FSC_CABLE__COUNT] = {
        [FSC_CABLE_MISSING] = "missing", [FSC_CABLE_DOWN] = "down", [FSC_CABLE_SPEED] = "speed",
        [FSC_CABLE_ADDRESS] = "address", [FSC_CABLE_PEER] = "peer",
    };
    return (unsigned)kind < FSC_CABLE__COUNT ? names[kind] : "unknown";
}

/* ---- /proc/net/arp ---------------------------------------------------------- */

#define ARP_FIELDS 6

static bool is_space(char c)
{
    return c == ' ' || c == '\t' || c == '\r';
}

/* Splits line[0..len) into at most max whitespace-separated tokens; returns
 * the token count (max + 1 when there are more). */
static size_t tokens(const char *line, size_t len, const char **tok, size_t *tlen, size_t max)
{
    size_t n = 0, i = 0;
    while (i < len) {
        while (i < len && is_space(line[i]))
            i++;
        if (i == len)
            break;
        size_t start = i;
        while (i < len && !is_space(line[i]))
            i++;
        if (n == max)
            return max + 1;
        tok[n] = line + start;
        tlen[n] = i - start;
        n++;
    }
    return n;
}

/* Strict "0x" hex (1..8 digits) into *v. */
static bool parse_hex(const char *s, size_t n, uint32_t *v)
{
    if (n < 3 || n > 10 || s[0] != '0' || (s[1] != 'x' && s[1] != 'X'))
        return false;
    uint32_t x = 0;
    for (size_t i = 2; i < n; i++) {
        char c = s[i];
        unsigned d;
        if (c >= '0' && c <= '9')
            d = (unsigned)(c - '0');
        else if (c >= 'a' && c <= 'f')
            d = (unsigned)(c - 'a' + 10);
        else if (c >= 'A' && c <= 'F')
            d = (unsigned)(c - 'A' + 10);
        else
            return false;
        x = x << 4 | d;
    }
    *v = x;
    return true;
}

/* Strict dotted quad (what inet_pton accepts) into host order. */
static bool parse_ipv4(const char *s, size_t n, uint32_t *addr)
{
    char buf[16];
    struct in_addr in;
    if (n == 0 || n >= sizeof(buf))
        return false;
    memcpy(buf, s, n);
    buf[n] = '\0';
    if (inet_pton(AF_INET, buf, &in) != 1)
        return false;
    *addr = ntohl(in.s_addr);
    return true;
}

size_t fsc_nic_neigh_parse(const char *text, size_t len, struct fsc_nic_neigh *out, size_t cap,
                           size_t *bad, size_t *dropped)
{
    size_t stored = 0, nbad = 0, ndrop = 0;
    bool first = true;
    for (size_t pos = 0; pos < len;) {
        const char *line = text + pos;
        const char *nl = memchr(line, '\n', len - pos);
        size_t ll = nl ? (size_t)(nl - line) : len - pos;
        pos += ll + (nl ? 1 : 0);

        const char *tok[ARP_FIELDS];
        size_t tl[ARP_FIELDS];
        size_t nt = tokens(line, ll, tok, tl, ARP_FIELDS);
        if (nt == 0)
            continue;
        bool header = first && tl[0] == 2 && memcmp(tok[0], "IP", 2) == 0;
        first = false;
        if (header)
            continue;
        struct fsc_nic_neigh e;
        uint32_t hwtype;
        if (nt != ARP_FIELDS || !parse_ipv4(tok[0], tl[0], &e.addr) ||
            !parse_hex(tok[1], tl[1], &hwtype) || !parse_hex(tok[2], tl[2], &e.flags) ||
            tl[5] >= sizeof(e.dev)) {
            nbad++;
            continue;
        }
        memcpy(e.dev, tok[5], tl[5]);
        e.dev[tl[5]] = '\0';
        if (stored < cap)
            out[stored++] = e;
        else
            ndrop++;
    }
    if (bad)
        *bad = nbad;
    if (dropped)
        *dropped = ndrop;
    return stored;
}

/* ---- `ip -4 -o addr show` ---------------------------------------------------- */

#define ADDR_TOKENS 4 /* "<index>:", ifname, "inet", address/len: the rest is not read */

/* "12:" : digits and a colon. */
static bool is_index(const char *s, size_t n)
{
    if (n < 2 || s[n - 1] != ':')
        return false;
    for (size_t i = 0; i + 1 < n; i++)
        if (s[i] < '0' || s[i] > '9')
            return false;
    return true;
}

/* "a.b.c.d/len" into host-order address and prefix length 0..32. */
static bool parse_cidr(const char *s, size_t n, uint32_t *addr, uint8_t *prefix)
{
    const char *slash = memchr(s, '/', n);
    if (!slash || !parse_ipv4(s, (size_t)(slash - s), addr))
        return false;
    size_t i = (size_t)(slash - s) + 1;
    if (i == n || n - i > 2)
        return false;
    unsigned v = 0;
    for (; i < n; i++) {
        if (s[i] < '0' || s[i] > '9')
            return false;
        v = v * 10 + (unsigned)(s[i] - '0');
    }
    if (v > 32)
        return false;
    *prefix = (uint8_t)v;
    return true;
}

size_t fsc_nic_addr_parse(const char *text, size_t len, const char *const *ifnames, size_t n,
                          struct fsc_nic_host_iface *out, size_t *bad)
{
    size_t found = 0, nbad = 0;
    for (size_t pos = 0; pos < len;) {
        const char *line = text + pos;
        const char *nl = memchr(line, '\n', len - pos);
        size_t ll = nl ? (size_t)(nl - line) : len - pos;
        pos += ll + (nl ? 1 : 0);

        const char *tok[ADDR_TOKENS + 1];
        size_t tl[ADDR_TOKENS + 1];
        size_t nt = tokens(line, ll, tok, tl, ADDR_TOKENS);
        if (nt == 0 || tok[0][0] == '#')
            continue;
        if (nt >= 3 && tl[2] == 5 && memcmp(tok[2], "inet6", 5) == 0)
            continue;
        uint32_t addr;
        uint8_t prefix;
        if (nt < ADDR_TOKENS || !is_index(tok[0], tl[0]) || tl[2] != 4 ||
            memcmp(tok[2], "inet", 4) != 0 || !parse_cidr(tok[3], tl[3], &addr, &prefix)) {
            nbad++;
            continue;
        }
        /* "vlan5@ens1f0np0": the name is the part before '@' */
        const char *at = memchr(tok[1], '@', tl[1]);
        size_t il = at ? (size_t)(at - tok[1]) : tl[1];
        if (il == 0 || il >= FSC_CABLING_IFNAME_SIZE) {
            nbad++;
            continue;
        }
        found++;
        for (size_t i = 0; i < n; i++) {
            if (strlen(ifnames[i]) != il || memcmp(ifnames[i], tok[1], il) != 0)
                continue;
            struct fsc_nic_host_iface *h = &out[i];
            if (h->n_addrs < FSC_NIC_HOST_ADDRS_MAX) {
                h->addr[h->n_addrs] = addr;
                h->prefix[h->n_addrs] = prefix;
            }
            h->n_addrs++;
        }
    }
    if (bad)
        *bad = nbad;
    return found;
}

/* ---- verdict ------------------------------------------------------------------- */

static enum fsc_peer_seen peer_seen(const struct fsc_cabling_iface *want,
                                    const struct fsc_nic_neigh *neigh, size_t n)
{
    enum fsc_peer_seen seen = FSC_PEER_NONE;
    for (size_t i = 0; i < n; i++) {
        const struct fsc_nic_neigh *e = &neigh[i];
        if (e->addr != want->peer_addr)
            continue;
        bool here = strcmp(e->dev, want->ifname) == 0;
        bool complete = (e->flags & FSC_NIC_ATF_COM) != 0;
        if (here && complete)
            return FSC_PEER_OK;
        if (here)
            seen = FSC_PEER_INCOMPLETE;
        else if (complete && seen == FSC_PEER_NONE)
            seen = FSC_PEER_ELSEWHERE;
    }
    return seen;
}

void fsc_cable_check(const struct fsc_cabling_iface *want, const struct fsc_nic_host_iface *have,
                     const struct fsc_nic_neigh *neigh, size_t n, bool check_addr,
                     struct fsc_cable_verdict *out)
{
    memset(out, 0, sizeof(*out));
    out->checked[FSC_CABLE_MISSING] = 1;
    if (!have->present) {
        out->bad[FSC_CABLE_MISSING] = 1;
        return;
    }
    bool up = have->oper == FSC_OPER_UP;
    out->checked[FSC_CABLE_DOWN] = 1;
    out->bad[FSC_CABLE_DOWN] = !up;
    if (up && want->speed_bps) {
        out->checked[FSC_CABLE_SPEED] = 1;
        out->bad[FSC_CABLE_SPEED] =
            have->speed_mbps <= 0 || (uint64_t)have->speed_mbps * 1000000u != want->speed_bps;
    }
    if (!check_addr)
        return;
    /* "Equals": exactly one IPv4 address, the planned one with prefix /30.
     * A second address on a point-to-point interface is a mistake too (it
     * routes another subnet over this cable). */
    bool addr_ok = have->n_addrs == 1 && have->addr[0] == want->addr &&
                   have->prefix[0] == FSC_CABLING_PREFIX_LEN;
    out->checked[FSC_CABLE_ADDRESS] = 1;
    out->bad[FSC_CABLE_ADDRESS] = !addr_ok;
    if (up && addr_ok) {
        out->checked[FSC_CABLE_PEER] = 1;
        out->peer_seen = (uint8_t)peer_seen(want, neigh, n);
        out->bad[FSC_CABLE_PEER] = out->peer_seen != FSC_PEER_OK;
    }
}

/* ---- the real host view ------------------------------------------------------------ */

int fsc_nic_host_iface_read(const char *sysfs, const char *ifname, struct fsc_nic_host_iface *out)
{
    char rel[64], path[FSC_NIC_PATH_MAX], err[160];
    struct stat st;
    memset(out, 0, sizeof(*out));
    out->speed_mbps = -1;
    if (strchr(ifname, '/') != NULL)
        return 0; /* not an interface name: absent */
    int w = snprintf(rel, sizeof(rel), "class/net/%s", ifname);
    if (w < 0 || (size_t)w >= sizeof(rel) || fsc_nic_path(path, sizeof(path), sysfs, rel) != 0)
        return -ENAMETOOLONG;
    if (stat(path, &st) != 0)
        return 0;
    out->present = true;
    struct fsc_nic_link_reader *lr = fsc_nic_link_create(sysfs, ifname, err, sizeof(err));
    if (lr) {
        struct fsc_nic_link link;
        if (fsc_nic_link_read(lr, &link) == 0) {
            out->oper = link.oper;
            out->speed_mbps = link.speed_mbps;
        }
        fsc_nic_link_destroy(lr);
    }
    return 0;
}

static uint8_t prefix_len(uint32_t mask)
{
    uint8_t n = 0;
    while (mask & 0x80000000u) {
        n++;
        mask <<= 1;
    }
    return n;
}

int fsc_nic_host_addrs(const char *const *ifnames, size_t n, struct fsc_nic_host_iface *out)
{
    struct ifaddrs *ifa = NULL;
    if (getifaddrs(&ifa) == -1)
        return -errno;
    for (const struct ifaddrs *a = ifa; a; a = a->ifa_next) {
        if (!a->ifa_addr || a->ifa_addr->sa_family != AF_INET || !a->ifa_name)
            continue;
        for (size_t i = 0; i < n; i++) {
            if (strcmp(a->ifa_name, ifnames[i]) != 0)
                continue;
            struct fsc_nic_host_iface *h = &out[i];
            if (h->n_addrs < FSC_NIC_HOST_ADDRS_MAX) {
                const struct sockaddr_in *sin = (const struct sockaddr_in *)(void *)a->ifa_addr;
                const struct sockaddr_in *msk = (const struct sockaddr_in *)(void *)a->ifa_netmask;
                h->addr[h->n_addrs] = ntohl(sin->sin_addr.s_addr);
                h->prefix[h->n_addrs] = msk ? prefix_len(ntohl(msk->sin_addr.s_addr)) : 32;
            }
            h->n_addrs++;
        }
    }
    freeifaddrs(ifa);
    return 0;
}

long fsc_nic_read_text(const char *path, char *buf, size_t size)
{
    if (size == 0)
        return -EINVAL;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd == -1)
        return -errno;
    size_t len = 0;
    for (;;) {
        if (len == size - 1) {
            /* full: one more byte tells whether the file is longer */
            char extra;
            ssize_t r = read(fd, &extra, 1);
            close(fd);
            buf[len] = '\0';
            return r == 0 ? (long)len : -EFBIG;
        }
        ssize_t r = read(fd, buf + len, size - 1 - len);
        if (r == -1) {
            if (errno == EINTR)
                continue;
            int e = errno;
            close(fd);
            return -e;
        }
        if (r == 0)
            break;
        len += (size_t)r;
    }
    close(fd);
    buf[len] = '\0';
    return (long)len;
}
