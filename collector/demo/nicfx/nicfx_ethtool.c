/* A device's ethtool statistics file, ROOT/ethtool/IF (nicfx.h): what
 * `ethtool -S IF` prints, between the time its values were made at and a
 * checksum line, in the format the NIC source's fixture reader takes
 * (collector/sources/nic/nic_ethtool.h). The file is rewritten in place (one
 * pwrite, then a truncate when shorter): a reader that catches it half
 * written fails the checksum and reads again. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/name_hash.h"
#include "nicfx.h"

/* The 802.3 counters of mlx5's ethtool set, from the model's netdev
 * counters (docs/vendors/mlx5.md: *_bytes_phy carry utilization). */
static const struct {
    const char *name;
    enum fsc_nicfx_ctr from;
} et_stats[] = {
    {"rx_bytes_phy", FSC_NICFX_RX_BYTES},
    {"tx_bytes_phy", FSC_NICFX_TX_BYTES},
    {"rx_packets_phy", FSC_NICFX_RX_PACKETS},
    {"tx_packets_phy", FSC_NICFX_TX_PACKETS},
};
#define ET_STATS (sizeof(et_stats) / sizeof(et_stats[0]))

/* Writes len bytes of text over the file at path (made when missing), in
 * place. Returns 0 or a negative errno. */
static int write_over(const char *path, const char *text, size_t len)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
    if (fd == -1)
        return -errno;
    int rc = 0;
    struct stat st;
    ssize_t w = pwrite(fd, text, len, 0);
    if (w == -1)
        rc = -errno;
    else if ((size_t)w != len)
        rc = -EIO;
    else if (fstat(fd, &st) == -1)
        rc = -errno;
    else if ((size_t)st.st_size > len && ftruncate(fd, (off_t)len) == -1)
        rc = -errno;
    if (close(fd) == -1 && rc == 0)
        rc = -errno;
    return rc;
}

int fsc_nicfx_ethtool_write(const char *root, const struct fsc_nicfx_dev *dev, int64_t t_ns,
                            char *err, size_t errlen)
{
    char text[96 + ET_STATS * 64], dir[4096], path[sizeof(dir) + FSC_NICFX_NAME_MAX + 2];
    int n = snprintf(text, sizeof(text), "time_ns: %" PRId64 "\nNIC statistics:\n", t_ns);
    for (size_t i = 0; i < ET_STATS && n > 0 && (size_t)n < sizeof(text); i++)
        n += snprintf(text + n, sizeof(text) - (size_t)n, "     %s: %" PRIu64 "\n",
                      et_stats[i].name, dev->ctr[et_stats[i].from]);
    if (n > 0 && (size_t)n + 28 <= sizeof(text)) { /* "checksum: " + 16 + '\n' */
        char sum[16];
        fsc_hex16(fsc_fnv1a64(text, (size_t)n), sum);
        n += snprintf(text + n, sizeof(text) - (size_t)n, "checksum: %.16s\n", sum);
    }
    int d = snprintf(dir, sizeof(dir), "%s/ethtool", root);
    int p = snprintf(path, sizeof(path), "%s/%s", dir, dev->netdev);
    if (t_ns <= 0 || n <= 0 || (size_t)n >= sizeof(text) || d < 0 || (size_t)d >= sizeof(dir) ||
        p < 0 || (size_t)p >= sizeof(path)) {
        snprintf(err, errlen, "ethtool file of %s: %s", dev->netdev,
                 t_ns <= 0 ? "the time must be above 0" : "path too long");
        return -1;
    }
    int rc = write_over(path, text, (size_t)n);
    if (rc == -ENOENT) { /* the first file: make the directory */
        rc = mkdir(dir, 0755) == -1 && errno != EEXIST ? -errno : 0;
        if (rc == 0)
            rc = write_over(path, text, (size_t)n);
    }
    if (rc != 0) {
        snprintf(err, errlen, "cannot write %s: %s", path, strerror(-rc));
        return -1;
    }
    return 0;
}
