/* The ethtool statistics reader's state (nic_ethtool.h), shared by its two
 * backends (internal to collector/sources/nic):
 *   nic_ethtool.c       SIOCETHTOOL on a running kernel, and the accessors
 *   nic_ethtool_file.c  a fixture tree's statistics file (nic.fixture)
 * Both keep the names in `names` and the values where the ioctl puts them
 * (after struct ethtool_stats' header in `stats`), so the accessors serve
 * either. */
#ifndef FSC_NIC_ETHTOOL_INT_H
#define FSC_NIC_ETHTOOL_INT_H

#include <stddef.h>
#include <stdint.h>

#include "sources/nic/nic_ethtool.h"

/* A buffer the kernel writes into, followed by an inaccessible page: the
 * kernel never checks our capacity, so an overrun must fault (EFAULT) rather
 * than land in the heap. `cap` counts whole entries after the header. */
struct gbuf {
    unsigned char *base;
    size_t map_len; /* data pages + guard page */
    size_t cap;     /* entries that fit before the guard */
};

struct name_slot {
    char s[FSC_NIC_ETHTOOL_NAME_LEN + 1];
};

struct fsc_nic_ethtool {
    /* The backend's read: 0, FSC_NIC_ETHTOOL_CHANGED or a negative errno,
     * as fsc_nic_ethtool_read() returns them. */
    int (*read)(struct fsc_nic_ethtool *et);
    char ifname[FSC_NIC_IFNAME_MAX];
    int sock;
    int own_sock;
    size_t max_stats;
    size_t n;                /* stats in the current string set */
    struct name_slot *names; /* n names */
    struct gbuf stats;       /* struct ethtool_stats + u64[cap] */
    struct fsc_nic_ethtool_stats st;
    /* The file backend only (path != NULL). */
    char *path;      /* the statistics file */
    char *text;      /* its last read, NUL-terminated */
    size_t text_cap; /* bytes of text */
    int64_t t_ns;    /* the file's time of the values of the last good read */
};

/* Maps a guarded buffer of header + entries x entry bytes. Returns 0 or -ENOMEM. */
int fsc_nic_ethtool__gbuf_alloc(struct gbuf *g, size_t header, size_t entry, size_t entries);

/* Unmaps it and zeroes *g (a zeroed gbuf is a no-op). */
void fsc_nic_ethtool__gbuf_free(struct gbuf *g);

#endif
