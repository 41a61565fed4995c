/* ethtool statistics through the SIOCETHTOOL ioctl (the kernel's
 * include/uapi/linux/ethtool.h and sockios.h), and the
 * netdev's link state and speed from sysfs.
 *
 * Stats: GSSET_INFO (or GDRVINFO.n_stats on drivers without it) gives the
 * count, GSTRINGS(ETH_SS_STATS) the names (32-byte NUL-padded slots), both
 * cached; each poll is one GSTATS into a preallocated buffer. The kernel
 * copies as many entries as the driver has *now*, without looking at the
 * count the caller passed, so the buffers are sized with slack and end at a
 * PROT_NONE guard page: a count that grew past the slack makes the ioctl fail
 * with EFAULT instead of overwriting memory. A returned count different from
 * the cached one (channels changed with `ethtool -L`, PFC enabled on another
 * priority) makes the reader re-read the strings and the values, and report
 * "strings changed" so the caller re-maps names to series.
 *
 * A fixture tree (nic.fixture) has no kernel to ask: its statistics are a
 * file per interface, <root>/ethtool/<if>, holding what `ethtool -S <if>`
 * prints between a line with the time of its values and a checksum line
 * (FNV-1a 64, base/name_hash.h, of every byte before it, in 16 hex digits):
 *     time_ns: 1765432100123456789
 *     NIC statistics:
 *          rx_bytes_phy: 123456
 *          tx_bytes_phy: 654321
 *     checksum: 0123456789abcdef
 * Its writer rewrites the file in place (no new inode per version: the
 * demo rewrites 64 of them 20 times a second); a read that caught it
 * half written fails the checksum and is read again, so the values used
 * are always one version's. Bytes after the checksum line are ignored.
 * The time is the writer's: values made at one moment and read later are
 * stamped with that moment (fsc_nic_ethtool_time_ns), as a device stamps its
 * own. Names and count may change between versions, as the ioctl's may.
 *
 * Link: /sys/class/net/<if>/operstate (RFC 2863 words) and speed (Mb/s;
 * unreadable or -1 while the link is down), two descriptors kept open. */
#ifndef FSC_NIC_ETHTOOL_H
#define FSC_NIC_ETHTOOL_H

#include <stddef.h>
#include <stdint.h>

#include "model/operstate.h"

#define FSC_NIC_ETHTOOL_NAME_LEN  32    /* ETH_GSTRING_LEN */
#define FSC_NIC_ETHTOOL_STATS_MAX 65536 /* hard bound on stats per interface */
#define FSC_NIC_ETHTOOL_STATS_DEF 16384 /* max_stats when the caller passes 0 */
#define FSC_NIC_IFNAME_MAX        16    /* IFNAMSIZ, NUL included */

/* fsc_nic_ethtool_read() result: values are fresh and the names changed. */
#define FSC_NIC_ETHTOOL_CHANGED 1

struct fsc_nic_ethtool_stats {
    uint64_t polls;          /* fsc_nic_ethtool_read() calls */
    uint64_t errors;         /* reads that returned a negative errno */
    uint64_t string_reloads; /* times the string set was re-read after creation */
    uint32_t generation;     /* bumped on every string reload */
};

struct fsc_nic_ethtool;

/* An AF_INET datagram socket (close-on-exec) for the ioctl, to share between
 * readers. Returns the descriptor or a negative errno. Thread: any. */
int fsc_nic_ethtool_socket(void);

/* A reader for interface `ifname` (shorter than FSC_NIC_IFNAME_MAX). sock is
 * a socket from fsc_nic_ethtool_socket() that the caller keeps open longer
 * than the reader (borrowed), or -1 for a socket of the reader's own.
 * max_stats bounds the stats count (0 = FSC_NIC_ETHTOOL_STATS_DEF, at most
 * FSC_NIC_ETHTOOL_STATS_MAX). Reads the string set and one set of values.
 * Returns the reader, or NULL with a sentence in err (no such interface, the
 * driver has no stats, too many stats, out of memory); *errnum (may be NULL)
 * gets the negative errno. Thread: any; one thread at a time per reader. */
struct fsc_nic_ethtool *fsc_nic_ethtool_create(const char *ifname, int sock, size_t max_stats,
                                               int *errnum, char *err, size_t errlen);

/* A reader of the fixture statistics file at `path` (the format above);
 * max_stats as for fsc_nic_ethtool_create. Reads the file once. Returns the
 * reader, or NULL with a sentence in err; *errnum (may be NULL) gets the
 * negative errno (-ENOENT: no such file, -EINVAL: not that format or no
 * read agreed with its checksum,
 * -EOPNOTSUPP: no statistics in it, -E2BIG: more than max_stats).
 * Thread: any; one thread at a time per reader. */
struct fsc_nic_ethtool *fsc_nic_ethtool_create_file(const char *path, size_t max_stats, int *errnum,
                                                    char *err, size_t errlen);

/* Frees the reader (closes its own socket, never a borrowed one). NULL is a no-op. */
void fsc_nic_ethtool_destroy(struct fsc_nic_ethtool *et);

/* One poll: GSTATS into the preallocated buffer, no allocation (a file
 * reader: one open and read of its file, allocating only when the file
 * outgrew its buffer). Returns 0
 * (values fresh, names unchanged), FSC_NIC_ETHTOOL_CHANGED (the count
 * changed: strings re-read, values fresh and in the new order; the names and
 * the values pointer from before are invalid; allocates), or a negative errno
 * (-ENODEV: the interface, or the file, is gone; -EAGAIN: the count kept
 * changing; -EINVAL: a file not in the format): the
 * names stay valid, the values are undefined until a read returns >= 0.
 * Thread: the reader's. */
int fsc_nic_ethtool_read(struct fsc_nic_ethtool *et);

/* Number of stats, their names (NUL-terminated, index order of the driver)
 * and values (valid until a read returns FSC_NIC_ETHTOOL_CHANGED). */
size_t fsc_nic_ethtool_count(const struct fsc_nic_ethtool *et);
const char *fsc_nic_ethtool_name(const struct fsc_nic_ethtool *et, size_t i);
const uint64_t *fsc_nic_ethtool_values(const struct fsc_nic_ethtool *et);

/* The time (ns since the Unix epoch) the values of the last successful read
 * were true at: a fixture file's `time_ns`, or 0 for the ioctl, whose values
 * are the kernel's at the read. */
int64_t fsc_nic_ethtool_time_ns(const struct fsc_nic_ethtool *et);

/* Index of stat `name`, or -1. Linear: for set-up and tests, not per poll. */
long fsc_nic_ethtool_find(const struct fsc_nic_ethtool *et, const char *name);

/* Copies the reader's counters into *out. */
void fsc_nic_ethtool_get_stats(const struct fsc_nic_ethtool *et, struct fsc_nic_ethtool_stats *out);

/* ---- link state and speed (sysfs) ---------------------------------------- */

struct fsc_nic_link {
    uint8_t oper;       /* enum fsc_oper (model/operstate.h) */
    int64_t speed_mbps; /* Mb/s (400000 for 400G), -1 when unknown or down */
};

struct fsc_nic_link_reader;

/* Opens <sysfs>/class/net/<ifname>/operstate and speed (sysfs NULL = "/sys").
 * A missing speed file is allowed (speed then -1). Returns the reader, or NULL
 * with a sentence in err (no such interface, out of memory). Thread: any. */
struct fsc_nic_link_reader *fsc_nic_link_create(const char *sysfs, const char *ifname, char *err,
                                                size_t errlen);

/* Closes the descriptors and frees. NULL is a no-op. */
void fsc_nic_link_destroy(struct fsc_nic_link_reader *lr);

/* Reads both files into *out (no allocation). speed reads that fail (EINVAL
 * while the interface is down) or say "-1" give -1. Returns 0, -ENODEV when
 * the interface is gone, or -EINVAL when operstate is not a known word
 * (out->oper is then UNKNOWN). Thread: the reader's. */
int fsc_nic_link_read(struct fsc_nic_link_reader *lr, struct fsc_nic_link *out);

#endif
