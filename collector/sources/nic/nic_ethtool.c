/* SIOCETHTOOL stats reader, the accessors both backends share, and sysfs
 * link state. See nic_ethtool.h; the fixture file backend is
 * nic_ethtool_file.c. */
#define _DEFAULT_SOURCE /* struct ifreq (<net/if.h>), MAP_ANONYMOUS */

#include "sources/nic/nic_ethtool.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/ethtool.h>
#include <linux/sockios.h>
#include <net/if.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

#include "sources/nic/nic_ethtool_int.h"
#include "sources/nic/nic_sysfs.h"

_Static_assert(ETH_GSTRING_LEN == FSC_NIC_ETHTOOL_NAME_LEN, "ETH_GSTRING_LEN is 32");
_Static_assert(IFNAMSIZ == FSC_NIC_IFNAME_MAX, "IFNAMSIZ is 16");
_Static_assert(offsetof(struct ethtool_gstrings, data) == 12, "linux/ethtool.h layout");
_Static_assert(offsetof(struct ethtool_stats, data) == 8, "linux/ethtool.h layout");
_Static_assert(offsetof(struct ethtool_sset_info, data) == 16, "linux/ethtool.h layout");
_Static_assert(offsetof(struct ethtool_drvinfo, n_stats) == 180, "linux/ethtool.h layout");

/* Reloads tried in one read before giving up on a count that keeps moving. */
#define ETHTOOL_RELOAD_TRIES 3

static size_t page_size(void)
{
    long pg = sysconf(_SC_PAGESIZE);
    return pg > 0 ? (size_t)pg : 4096;
}

void fsc_nic_ethtool__gbuf_free(struct gbuf *g)
{
    if (g->base != NULL)
        munmap(g->base, g->map_len);
    memset(g, 0, sizeof *g);
}

int fsc_nic_ethtool__gbuf_alloc(struct gbuf *g, size_t header, size_t entry, size_t entries)
{
    size_t pg = page_size();
    size_t data = (header + entries * entry + pg - 1) / pg * pg;
    void *m = mmap(NULL, data + pg, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED)
        return -ENOMEM;
    if (mprotect((unsigned char *)m + data, pg, PROT_NONE) == -1) {
        munmap(m, data + pg);
        return -ENOMEM;
    }
    g->base = m;
    g->map_len = data + pg;
    g->cap = (data - header) / entry;
    return 0;
}

/* Room for growth between the count query and the copy: half again, plus a
 * fixed amount for small drivers (one PFC priority adds ~10 mlx5 stats). */
static size_t with_slack(size_t n)
{
    return n + n / 2 + 64;
}

static int eth_ioctl(const struct fsc_nic_ethtool *et, void *cmd)
{
    struct ifreq ifr;
    memset(&ifr, 0, sizeof ifr);
    memcpy(ifr.ifr_name, et->ifname, sizeof et->ifname);
    ifr.ifr_data = cmd;
    if (ioctl(et->sock, SIOCETHTOOL, &ifr) == -1)
        return errno ? -errno : -EIO;
    return 0;
}

/* The driver's current ETH_SS_STATS count: GSSET_INFO, or GDRVINFO.n_stats
 * for drivers without get_sset_count through GSSET_INFO (old kernels). */
static int stats_count(const struct fsc_nic_ethtool *et, size_t *count)
{
    union {
        struct ethtool_sset_info si;
        uint64_t raw[3]; /* header + data[0] */
    } u;
    memset(&u, 0, sizeof u);
    u.si.cmd = ETHTOOL_GSSET_INFO;
    u.si.sset_mask = 1ull << ETH_SS_STATS;
    int rc = eth_ioctl(et, &u);
    if (rc == 0) {
        if (!(u.si.sset_mask & (1ull << ETH_SS_STATS)))
            return -EOPNOTSUPP;
        *count = u.si.data[0];
        return 0;
    }
    if (rc != -EOPNOTSUPP && rc != -EINVAL)
        return rc;
    struct ethtool_drvinfo di;
    memset(&di, 0, sizeof di);
    di.cmd = ETHTOOL_GDRVINFO;
    rc = eth_ioctl(et, &di);
    if (rc != 0)
        return rc;
    *count = di.n_stats;
    return 0;
}

/* Reads the string set into a fresh names array and, when the stats buffer
 * is too small for it, a fresh stats buffer; commits both only on success. */
static int load_strings(struct fsc_nic_ethtool *et)
{
    size_t count = 0;
    int rc = stats_count(et, &count);
    if (rc != 0)
        return rc;
    if (count == 0)
        return -EOPNOTSUPP;
    if (count > et->max_stats)
        return -E2BIG;

    struct gbuf sb = {0}, gs = {0};
    struct name_slot *names = NULL;
    rc = fsc_nic_ethtool__gbuf_alloc(&gs, offsetof(struct ethtool_gstrings, data), ETH_GSTRING_LEN,
                                     with_slack(count));
    if (rc != 0)
        goto done;
    struct ethtool_gstrings *g = (struct ethtool_gstrings *)(void *)gs.base;
    g->cmd = ETHTOOL_GSTRINGS;
    g->string_set = ETH_SS_STATS;
    g->len = (uint32_t)count;
    rc = eth_ioctl(et, g);
    if (rc == -EFAULT)
        rc = -EAGAIN; /* grew past the slack since the count: caller retries */
    if (rc != 0)
        goto done;
    size_t len = g->len;
    if (len == 0 || len > gs.cap || len > et->max_stats) {
        rc = len == 0 ? -EOPNOTSUPP : -EAGAIN;
        goto done;
    }
    rc = -ENOMEM;
    names = malloc(len * sizeof *names);
    if (names == NULL)
        goto done;
    for (size_t i = 0; i < len; i++) {
        memcpy(names[i].s, g->data + i * ETH_GSTRING_LEN, ETH_GSTRING_LEN);
        names[i].s[ETH_GSTRING_LEN] = '\0'; /* a 32-byte name has no NUL of its own */
    }
    if (et->stats.base == NULL || et->stats.cap < with_slack(len)) {
        rc = fsc_nic_ethtool__gbuf_alloc(&sb, offsetof(struct ethtool_stats, data),
                                         sizeof(uint64_t), with_slack(len));
        if (rc != 0)
            goto done;
        fsc_nic_ethtool__gbuf_free(&et->stats);
        et->stats = sb;
        sb.base = NULL;
    }
    free(et->names);
    et->names = names;
    names = NULL;
    et->n = len;
    et->st.generation++;
    rc = 0;
done:
    free(names);
    fsc_nic_ethtool__gbuf_free(&gs);
    fsc_nic_ethtool__gbuf_free(&sb);
    return rc;
}

/* One GSTATS; *n_out gets the count the kernel reported. -EFAULT means the
 * count grew past the buffer. */
static int get_stats(struct fsc_nic_ethtool *et, size_t *n_out)
{
    struct ethtool_stats *s = (struct ethtool_stats *)(void *)et->stats.base;
    s->cmd = ETHTOOL_GSTATS;
    s->n_stats = (uint32_t)et->n;
    int rc = eth_ioctl(et, s);
    if (rc != 0)
        return rc;
    *n_out = s->n_stats;
    return 0;
}

/* GSTATS until the count agrees with the strings, reloading them between
 * tries. Returns 0 (unchanged), FSC_NIC_ETHTOOL_CHANGED, or -errno. */
static int read_stats(struct fsc_nic_ethtool *et)
{
    int reloaded = 0;
    for (int tries = 0; tries <= ETHTOOL_RELOAD_TRIES; tries++) {
        size_t n = 0;
        int rc = get_stats(et, &n);
        if (rc == 0 && n == et->n)
            return reloaded ? FSC_NIC_ETHTOOL_CHANGED : 0;
        if (rc != 0 && rc != -EFAULT)
            return rc;
        if (tries == ETHTOOL_RELOAD_TRIES)
            break;
        rc = load_strings(et);
        if (rc != 0 && rc != -EAGAIN)
            return rc;
        reloaded |= rc == 0;
    }
    return -EAGAIN;
}

int fsc_nic_ethtool_socket(void)
{
    int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (fd == -1)
        return errno ? -errno : -EIO;
    return fd;
}

static const char *errtext(int e, char *buf, size_t n)
{
    if (strerror_r(e, buf, n) != 0)
        snprintf(buf, n, "error %d", e);
    return buf;
}

struct fsc_nic_ethtool *fsc_nic_ethtool_create(const char *ifname, int sock, size_t max_stats,
                                               int *errnum, char *err, size_t errlen)
{
    char eb[128];
    int rc = -EINVAL;
    struct fsc_nic_ethtool *et = NULL;
    if (ifname == NULL || ifname[0] == '\0' || strlen(ifname) >= FSC_NIC_IFNAME_MAX) {
        snprintf(err, errlen, "interface name must be 1 to %d bytes", FSC_NIC_IFNAME_MAX - 1);
        goto fail;
    }
    rc = -ENOMEM;
    et = calloc(1, sizeof *et);
    if (et == NULL) {
        snprintf(err, errlen, "out of memory");
        goto fail;
    }
    et->read = read_stats;
    snprintf(et->ifname, sizeof et->ifname, "%s", ifname);
    if (max_stats == 0)
        max_stats = FSC_NIC_ETHTOOL_STATS_DEF;
    et->max_stats = max_stats < FSC_NIC_ETHTOOL_STATS_MAX ? max_stats : FSC_NIC_ETHTOOL_STATS_MAX;
    et->sock = sock;
    if (sock < 0) {
        rc = fsc_nic_ethtool_socket();
        if (rc < 0) {
            snprintf(err, errlen, "cannot create a socket for ethtool: %s",
                     errtext(-rc, eb, sizeof eb));
            goto fail;
        }
        et->sock = rc;
        et->own_sock = 1;
    }
    for (int tries = 0; tries <= ETHTOOL_RELOAD_TRIES; tries++) {
        rc = load_strings(et);
        if (rc != -EAGAIN)
            break;
    }
    if (rc == 0)
        rc = read_stats(et);
    if (rc < 0) {
        if (rc == -EOPNOTSUPP)
            snprintf(err, errlen, "interface %s has no ethtool statistics", ifname);
        else if (rc == -E2BIG)
            snprintf(err, errlen, "interface %s has more than %zu ethtool statistics", ifname,
                     et->max_stats);
        else
            snprintf(err, errlen, "ethtool statistics of %s: %s", ifname,
                     errtext(-rc, eb, sizeof eb));
        goto fail;
    }
    if (errnum)
        *errnum = 0;
    return et;
fail:
    if (errnum)
        *errnum = rc;
    fsc_nic_ethtool_destroy(et);
    return NULL;
}

void fsc_nic_ethtool_destroy(struct fsc_nic_ethtool *et)
{
    if (et == NULL)
        return;
    if (et->own_sock && et->sock >= 0)
        close(et->sock);
    fsc_nic_ethtool__gbuf_free(&et->stats);
    free(et->names);
    free(et->path);
    free(et->text);
    free(et);
}

int fsc_nic_ethtool_read(struct fsc_nic_ethtool *et)
{
    uint32_t gen = et->st.generation;
    et->st.polls++;
    int rc = et->read(et);
    et->st.string_reloads += et->st.generation - gen;
    if (rc < 0)
        et->st.errors++;
    return rc;
}

size_t fsc_nic_ethtool_count(const struct fsc_nic_ethtool *et)
{
    return et->n;
}

const char *fsc_nic_ethtool_name(const struct fsc_nic_ethtool *et, size_t i)
{
    return i < et->n ? et->names[i].s : NULL;
}

const uint64_t *fsc_nic_ethtool_values(const struct fsc_nic_ethtool *et)
{
    /* Only ever read as uint64_t (the kernel's __u64 is another type name
     * for the same 8 bytes); the mapping has no declared type. */
    return (const uint64_t *)(const void *)(et->stats.base + offsetof(struct ethtool_stats, data));
}

int64_t fsc_nic_ethtool_time_ns(const struct fsc_nic_ethtool *et)
{
    return et->path ? et->t_ns : 0;
}

long fsc_nic_ethtool_find(const struct fsc_nic_ethtool *et, const char *name)
{
    for (size_t i = 0; i < et->n; i++)
        if (strcmp(et->names[i].s, name) == 0)
            return (long)i;
    return -1;
}

void fsc_nic_ethtool_get_stats(const struct fsc_nic_ethtool *et, struct fsc_nic_ethtool_stats *out)
{
    *out = et->st;
}

/* ---- link state and speed -------------------------------------------------- */

struct fsc_nic_link_reader {
    int oper_fd;
    int speed_fd;
};

struct fsc_nic_link_reader *fsc_nic_link_create(const char *sysfs, const char *ifname, char *err,
                                                size_t errlen)
{
    char rel[64], path[FSC_NIC_PATH_MAX], eb[128];
    if (ifname == NULL || ifname[0] == '\0' || strlen(ifname) >= FSC_NIC_IFNAME_MAX ||
        strchr(ifname, '/') != NULL) {
        snprintf(err, errlen, "invalid interface name");
        return NULL;
    }
    struct fsc_nic_link_reader *lr = malloc(sizeof *lr);
    if (lr == NULL) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    snprintf(rel, sizeof rel, "class/net/%s/operstate", ifname);
    if (fsc_nic_path(path, sizeof path, sysfs, rel) != 0) {
        snprintf(err, errlen, "sysfs path is too long");
        free(lr);
        return NULL;
    }
    lr->oper_fd = open(path, O_RDONLY | O_CLOEXEC);
    if (lr->oper_fd == -1) {
        snprintf(err, errlen, "cannot open %s: %s", path, errtext(errno, eb, sizeof eb));
        free(lr);
        return NULL;
    }
    snprintf(rel, sizeof rel, "class/net/%s/speed", ifname);
    lr->speed_fd = -1;
    if (fsc_nic_path(path, sizeof path, sysfs, rel) == 0)
        lr->speed_fd = open(path, O_RDONLY | O_CLOEXEC);
    return lr;
}

void fsc_nic_link_destroy(struct fsc_nic_link_reader *lr)
{
    if (lr == NULL)
        return;
    close(lr->oper_fd);
    if (lr->speed_fd >= 0)
        close(lr->speed_fd);
    free(lr);
}

/* "-1\n" (SPEED_UNKNOWN printed with %d) or a decimal Mb/s value. */
static int64_t parse_speed(const char *s, size_t len)
{
    uint64_t v;
    if (fsc_nic_parse_u64(s, len, &v) == 0 && v <= INT64_MAX)
        return (int64_t)v;
    return -1;
}

int fsc_nic_link_read(struct fsc_nic_link_reader *lr, struct fsc_nic_link *out)
{
    char buf[32];
    out->oper = FSC_OPER_UNKNOWN;
    out->speed_mbps = -1;
    ssize_t r = pread(lr->oper_fd, buf, sizeof buf, 0);
    if (r == -1)
        return errno == ENODEV || errno == ENOENT ? -ENODEV : (errno ? -errno : -EIO);
    int oper = fsc_oper_parse(buf, (size_t)r);
    if (lr->speed_fd >= 0) {
        ssize_t sr = pread(lr->speed_fd, buf, sizeof buf, 0);
        if (sr > 0 && (size_t)sr < sizeof buf)
            out->speed_mbps = parse_speed(buf, (size_t)sr);
    }
    if (oper < 0)
        return -EINVAL;
    out->oper = (uint8_t)oper;
    return 0;
}
