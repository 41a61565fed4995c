/* A device's files under ROOT/sys (the layout of nicfx.h): created once,
 * then rewritten in place. Every write keeps the file's inode (pwrite at 0,
 * then truncate), so readers holding descriptors see the new text. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/file_read.h"
#include "nicfx.h"

#define PCIE_MAX_SPEED      "64.0 GT/s PCIe"
#define PCIE_MAX_WIDTH      16
#define PCIE_DEGRADED_SPEED "32.0 GT/s PCIe"
#define PCIE_DEGRADED_WIDTH 8
#define AER_TEXT_MAX        2048 /* 18 labels of at most 30 bytes and 20-digit counts */

/* Formats a path into out; -ENAMETOOLONG on truncation. */
__attribute__((format(printf, 3, 4))) static int path_fmt(char *out, size_t size, const char *fmt,
                                                          ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(out, size, fmt, ap);
    va_end(ap);
    return n < 0 || (size_t)n >= size ? -ENAMETOOLONG : 0;
}

/* The directory of a counter group of dev under root. */
static int group_dir(char *out, size_t size, const char *root, const struct fsc_nicfx_dev *dev,
                     enum fsc_nicfx_group g)
{
    if (g == FSC_NICFX_STAT)
        return path_fmt(out, size, "%s/sys/class/net/%s/statistics", root, dev->netdev);
    return path_fmt(out, size, "%s/sys/class/infiniband/%s/ports/1/%s", root, dev->rdma,
                    fsc_nicfx_group_names[g]);
}

/* Writes text as the whole content of path, keeping its inode (created
 * when absent). Returns 0 or a negative errno. */
static int write_in_place(const char *path, const char *text)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
    if (fd == -1)
        return -errno;
    size_t len = strlen(text);
    int rc = 0;
    ssize_t w = pwrite(fd, text, len, 0);
    if (w == -1)
        rc = -errno;
    else if (w != (ssize_t)len)
        rc = -EIO;
    else if (ftruncate(fd, (off_t)len) == -1)
        rc = -errno;
    if (close(fd) == -1 && rc == 0)
        rc = -errno;
    return rc;
}

/* Writes dir/name; on failure a sentence in err. */
static int put(const char *dir, const char *name, const char *text, char *err, size_t errlen)
{
    char path[PATH_MAX];
    int rc = path_fmt(path, sizeof(path), "%s/%s", dir, name);
    if (rc == 0)
        rc = write_in_place(path, text);
    if (rc != 0)
        snprintf(err, errlen, "cannot write %s/%s: %s", dir, name, strerror(-rc));
    return rc == 0 ? 0 : -1;
}

static int make_dir(const char *path, char *err, size_t errlen)
{
    int rc = fsc_mkdir_p(path, 0755);
    if (rc != 0)
        snprintf(err, errlen, "cannot create %s: %s", path, strerror(-rc));
    return rc == 0 ? 0 : -1;
}

static int fail_path(int rc, const char *what, char *err, size_t errlen)
{
    snprintf(err, errlen, "%s: %s", what, strerror(-rc));
    return -1;
}

/* The text of one AER file of dev. */
static void aer_text(char *out, size_t size, const struct fsc_nicfx_dev *dev,
                     enum fsc_nicfx_aer_kind k)
{
    const struct fsc_nicfx_aer_def *a = &fsc_nicfx_aer[k];
    size_t len = 0;
    for (size_t i = 0; i < a->n_labels && len < size; i++)
        len += (size_t)snprintf(out + len, size - len, "%s %" PRId64 "\n", a->labels[i],
                                dev->aer[k][i]);
    if (len < size)
        snprintf(out + len, size - len, "%s %" PRId64 "\n", a->total_label, dev->aer_total[k]);
}

int fsc_nicfx_tree_write(const char *root, const struct fsc_nicfx_dev *dev, bool skip_hw, char *err,
                         size_t errlen)
{
    char dir[PATH_MAX], text[AER_TEXT_MAX];
    int rc;
    for (int g = 0; g < FSC_NICFX__GROUPS; g++) {
        if (g == FSC_NICFX_HW && skip_hw)
            continue;
        if ((rc = group_dir(dir, sizeof(dir), root, dev, (enum fsc_nicfx_group)g)) != 0)
            return fail_path(rc, root, err, errlen);
        for (int c = 0; c < FSC_NICFX__CTRS; c++) {
            if (fsc_nicfx_ctrs[c].group != (enum fsc_nicfx_group)g)
                continue;
            snprintf(text, sizeof(text), "%" PRIu64 "\n", dev->ctr[c]);
            if (put(dir, fsc_nicfx_ctrs[c].name, text, err, errlen) != 0)
                return -1;
        }
    }

    if ((rc = path_fmt(dir, sizeof(dir), "%s/sys/class/net/%s", root, dev->netdev)) != 0)
        return fail_path(rc, root, err, errlen);
    snprintf(text, sizeof(text), "%" PRId64 "\n", dev->link_up ? dev->speed_mbps : -1);
    if (put(dir, "operstate", dev->link_up ? "up\n" : "down\n", err, errlen) != 0 ||
        put(dir, "speed", text, err, errlen) != 0 ||
        put(dir, "carrier", dev->link_up ? "1\n" : "0\n", err, errlen) != 0)
        return -1;

    if ((rc = path_fmt(dir, sizeof(dir), "%s/sys/bus/pci/devices/%s", root, dev->bdf)) != 0)
        return fail_path(rc, root, err, errlen);
    snprintf(text, sizeof(text), "%d\n", dev->pcie_degraded ? PCIE_DEGRADED_WIDTH : PCIE_MAX_WIDTH);
    if (put(dir, "current_link_speed",
            dev->pcie_degraded ? PCIE_DEGRADED_SPEED "\n" : PCIE_MAX_SPEED "\n", err,
            errlen) != 0 ||
        put(dir, "current_link_width", text, err, errlen) != 0 ||
        put(dir, "max_link_speed", PCIE_MAX_SPEED "\n", err, errlen) != 0)
        return -1;
    snprintf(text, sizeof(text), "%d\n", PCIE_MAX_WIDTH);
    if (put(dir, "max_link_width", text, err, errlen) != 0)
        return -1;
    for (int k = 0; k < FSC_NICFX__AER_KINDS; k++) {
        aer_text(text, sizeof(text), dev, (enum fsc_nicfx_aer_kind)k);
        if (put(dir, fsc_nicfx_aer[k].file, text, err, errlen) != 0)
            return -1;
    }
    return 0;
}

/* The static attributes of dev, written once: port and device attributes
 * of the RDMA device, the netdev's MTU and address. */
static int write_attributes(const char *root, const struct fsc_nicfx_dev *dev, char *err,
                            size_t errlen)
{
    static const char *const port_attrs[][2] = {{"state", "4: ACTIVE\n"},
                                                {"phys_state", "5: LinkUp\n"},
                                                {"rate", "400 Gb/sec (4X XDR)\n"},
                                                {"link_layer", "Ethernet\n"}};
    static const char *const dev_attrs[][2] = {
        {"fw_ver", "40.0.0\n"}, {"board_id", "FSC_FIXTURE\n"}, {"hca_type", "FIXTURE\n"}};
    char dir[PATH_MAX], text[64];
    int rc = path_fmt(dir, sizeof(dir), "%s/sys/class/infiniband/%s/ports/1", root, dev->rdma);
    if (rc != 0)
        return fail_path(rc, root, err, errlen);
    snprintf(text, sizeof(text), "%d\n", dev->lifespan_ms);
    char hw[PATH_MAX];
    if ((rc = group_dir(hw, sizeof(hw), root, dev, FSC_NICFX_HW)) != 0)
        return fail_path(rc, root, err, errlen);
    if (put(hw, "lifespan", text, err, errlen) != 0)
        return -1;
    for (size_t i = 0; i < sizeof(port_attrs) / sizeof(port_attrs[0]); i++)
        if (put(dir, port_attrs[i][0], port_attrs[i][1], err, errlen) != 0)
            return -1;
    snprintf(dir, sizeof(dir), "%s/sys/class/infiniband/%s", root, dev->rdma);
    for (size_t i = 0; i < sizeof(dev_attrs) / sizeof(dev_attrs[0]); i++)
        if (put(dir, dev_attrs[i][0], dev_attrs[i][1], err, errlen) != 0)
            return -1;
    if ((rc = path_fmt(dir, sizeof(dir), "%s/sys/class/net/%s", root, dev->netdev)) != 0)
        return fail_path(rc, root, err, errlen);
    fsc_nicfx_mac_text(text, sizeof(text) - 1, dev->node, dev->index);
    strcat(text, "\n");
    if (put(dir, "mtu", "9000\n", err, errlen) != 0 || put(dir, "address", text, err, errlen) != 0)
        return -1;
    return 0;
}

int fsc_nicfx_tree_create(const char *root, const struct fsc_nicfx_dev *dev, char *err,
                          size_t errlen)
{
    char path[PATH_MAX], link[PATH_MAX];
    int rc;
    for (int g = 0; g < FSC_NICFX__GROUPS; g++) {
        if ((rc = group_dir(path, sizeof(path), root, dev, (enum fsc_nicfx_group)g)) != 0)
            return fail_path(rc, root, err, errlen);
        if (make_dir(path, err, errlen) != 0)
            return -1;
    }
    if ((rc = path_fmt(path, sizeof(path), "%s/sys/bus/pci/devices/%s/net/%s", root, dev->bdf,
                       dev->netdev)) != 0)
        return fail_path(rc, root, err, errlen);
    if (make_dir(path, err, errlen) != 0)
        return -1;
    snprintf(link, sizeof(link), "../../../bus/pci/devices/%s", dev->bdf);
    static const char *const classes[] = {"infiniband", "net"};
    for (size_t i = 0; i < 2; i++) {
        const char *name = i == 0 ? dev->rdma : dev->netdev;
        if ((rc = path_fmt(path, sizeof(path), "%s/sys/class/%s/%s/device", root, classes[i],
                           name)) != 0)
            return fail_path(rc, root, err, errlen);
        if (symlink(link, path) == -1)
            return fail_path(-errno, path, err, errlen);
    }
    if (write_attributes(root, dev, err, errlen) != 0)
        return -1;
    return fsc_nicfx_tree_write(root, dev, false, err, errlen);
}

int fsc_nicfx_ctr_open(const char *root, const struct fsc_nicfx_dev *dev, enum fsc_nicfx_ctr c)
{
    char dir[PATH_MAX], path[PATH_MAX];
    int rc = group_dir(dir, sizeof(dir), root, dev, fsc_nicfx_ctrs[c].group);
    if (rc == 0)
        rc = path_fmt(path, sizeof(path), "%s/%s", dir, fsc_nicfx_ctrs[c].name);
    if (rc != 0)
        return rc;
    int fd = open(path, O_WRONLY | O_CLOEXEC);
    return fd == -1 ? -errno : fd;
}

int fsc_nicfx_ctr_rewrite(int fd, uint64_t v, uint8_t *len)
{
    char text[24];
    int n = snprintf(text, sizeof(text), "%" PRIu64 "\n", v);
    ssize_t w = pwrite(fd, text, (size_t)n, 0);
    if (w == -1)
        return -errno;
    if (w != n)
        return -EIO;
    if (n < *len && ftruncate(fd, n) == -1)
        return -errno;
    *len = (uint8_t)n;
    return 0;
}
