/* The host check of a switchless B300 node against its cable plan
 * (docs/CABLING.md, "For the NIC poller"): for every cabled interface
 * the plan gives this node, does the host really look like that?
 *
 *   missing  the interface does not exist (<sysfs>/class/net/<if>)
 *   down     it exists but its operstate is not "up"
 *   speed    it is up at a speed other than the plan's
 *   address  its IPv4 addresses are not exactly the planned address/30
 *   peer     the planned peer address has no complete entry on THIS
 *            interface in the kernel's neighbour table (/proc/net/arp)
 *
 * The kinds cascade so that one fault shows as its most specific cause:
 * a missing interface reports nothing else; speed is judged only while the
 * link is up; peer only while the link is up and the address is right (a
 * wrong address already explains an unreachable peer).
 *
 * Why the neighbour table proves the cable: on a point-to-point /30 the
 * kernel resolves the peer's address with ARP out of the one interface that
 * owns the subnet. A swapped cable delivers the request to the wrong
 * interface of the peer node; with net.ipv4.conf.*.arp_ignore=1 that node
 * answers only for addresses configured on the receiving interface, so the
 * entry stays incomplete and the swap shows. With the default arp_ignore=0
 * Linux answers for any local address on any interface and a swapped cable
 * still resolves: hosts should set arp_ignore=1 and arp_announce=2, as
 * NVIDIA's guidance for multi-homed RoCE hosts says. The check is passive:
 * an entry exists only after traffic (or a ping) to the peer, and ages out
 * of the table some time after the traffic stops, so an idle link can read
 * "peer" until something talks over it.
 *
 * Fixture trees (nic.fixture: true, test only; docs/CABLING.md "Fixtures"):
 * no kernel stands behind the tree, so its addresses and neighbour table
 * are files under the root, in the text the real host shows:
 *   <root>/ip_addr.txt    what `ip -4 -o addr show` prints (FSC_NIC_FIXTURE_ADDRS)
 *   <root>/proc/net/arp   what /proc/net/arp prints
 * A tree with ip_addr.txt is checked for every kind; without it only for
 * missing, down and speed (a capture of sysfs alone says nothing about
 * addresses), as before the files existed. The real host's path reads the
 * kernel (getifaddrs, /proc/net/arp) and never these files.
 *
 * Split: the parses and the verdict are pure (unit-tested on synthetic
 * views); the readers of the real host view are at the end. */
#ifndef FSC_NIC_HOSTCHECK_H
#define FSC_NIC_HOSTCHECK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/cable_plan.h"
#include "model/operstate.h"

#define FSC_NIC_HOST_ADDRS_MAX 8    /* IPv4 addresses kept per interface */
#define FSC_NIC_NEIGH_MAX      4096 /* neighbour entries kept */
#define FSC_NIC_NEIGH_TEXT_MAX (1u << 20)

/* /proc/net/arp Flags (include/uapi/linux/if_arp.h). */
#define FSC_NIC_ATF_COM  0x02 /* completed entry (hardware address valid) */
#define FSC_NIC_ATF_PERM 0x04 /* permanent entry */

enum fsc_cable_kind {
    FSC_CABLE_MISSING = 0,
    FSC_CABLE_DOWN,
    FSC_CABLE_SPEED,
    FSC_CABLE_ADDRESS,
    FSC_CABLE_PEER,
    FSC_CABLE__COUNT
};

/* "missing", "down", "speed", "address", "peer" (the `kind` label). */
const char *fsc_cable_kind_name(enum fsc_cable_kind kind);

/* One line of the neighbour table. */
struct fsc_nic_neigh {
    uint32_t addr;  /* IPv4, host byte order */
    uint32_t flags; /* FSC_NIC_ATF_* bits as the kernel prints them */
    char dev[FSC_CABLING_IFNAME_SIZE];
};

/* Parses the text of /proc/net/arp ("IP address HW type Flags HW address
 * Mask Device" header, then one entry per line: dotted quad, hex type, hex
 * flags, MAC, mask, device name). The header and blank lines are skipped;
 * a line that does not have that shape is counted in *bad (may be NULL).
 * Stores at most cap entries in out and returns how many it stored; entries
 * beyond cap are counted in *dropped (may be NULL). Thread: any. */
size_t fsc_nic_neigh_parse(const char *text, size_t len, struct fsc_nic_neigh *out, size_t cap,
                           size_t *bad, size_t *dropped);

/* The address file of a fixture tree, relative to its root. */
#define FSC_NIC_FIXTURE_ADDRS "ip_addr.txt"

/* What the host has for one interface. */
struct fsc_nic_host_iface {
    bool present;                           /* <sysfs>/class/net/<if> exists */
    uint8_t oper;                           /* enum fsc_oper (model/operstate.h) */
    int64_t speed_mbps;                     /* -1 when unknown (down, unreadable) */
    uint32_t n_addrs;                       /* IPv4 addresses configured (may exceed the array) */
    uint32_t addr[FSC_NIC_HOST_ADDRS_MAX];  /* host byte order */
    uint8_t prefix[FSC_NIC_HOST_ADDRS_MAX]; /* prefix lengths */
};

/* Parses the text of `ip -4 -o addr show` (one address per line:
 * "<index>: <ifname> inet <a.b.c.d>/<len> [brd ...] scope ... <label>\ ...")
 * and adds each IPv4 address to out[i] when the line's interface is
 * ifnames[i] (an "@parent" suffix of a VLAN or macvlan name is ignored), as
 * fsc_nic_host_addrs() does from the kernel: n_addrs counts every address,
 * the arrays keep the first FSC_NIC_HOST_ADDRS_MAX. out[] is added to, not
 * cleared. `inet6` lines (output without -4), blank lines and lines starting
 * with '#' are skipped; any other line that does not have that shape is
 * counted in *bad (may be NULL). Returns the number of IPv4 addresses read
 * (of any interface). Thread: any. */
size_t fsc_nic_addr_parse(const char *text, size_t len, const char *const *ifnames, size_t n,
                          struct fsc_nic_host_iface *out, size_t *bad);

struct fsc_cable_verdict {
    uint8_t bad[FSC_CABLE__COUNT];     /* 1 = mismatch of that kind */
    uint8_t checked[FSC_CABLE__COUNT]; /* 1 = the kind was judged (not cascaded away) */
    uint8_t peer_seen;                 /* enum fsc_peer_seen (model/operstate.h), when
                                        * peer was checked */
};

/* Judges one planned interface. want is a cabled entry of the plan (its
 * ifname, speed_bps, addr, peer_addr); have what the host has; neigh the
 * neighbour table (n entries). check_addr false skips the address and peer
 * kinds (a fixture tree without FSC_NIC_FIXTURE_ADDRS has no addresses):
 * they read 0, not checked.
 * Thread: any. */
void fsc_cable_check(const struct fsc_cabling_iface *want, const struct fsc_nic_host_iface *have,
                     const struct fsc_nic_neigh *neigh, size_t n, bool check_addr,
                     struct fsc_cable_verdict *out);

/* ---- the real host view ---------------------------------------------------- */

/* Fills presence, operstate and speed of `ifname` from sysfs (root as in
 * nic_sysfs.h: NULL = "/sys"); n_addrs is left 0. Opens and closes its files
 * (the check runs every few seconds). Returns 0 (also for an absent
 * interface: present = false), or -ENAMETOOLONG. Thread: any. */
int fsc_nic_host_iface_read(const char *sysfs, const char *ifname, struct fsc_nic_host_iface *out);

/* Adds the IPv4 addresses of the kernel's interfaces (getifaddrs) to the
 * entries of ifnames[0..n) whose name matches: out[i] for ifnames[i].
 * Returns 0 or a negative errno from getifaddrs. Thread: any. */
int fsc_nic_host_addrs(const char *const *ifnames, size_t n, struct fsc_nic_host_iface *out);

/* Reads a whole text file (a /proc file: read until EOF) into buf, NUL-
 * terminated, at most size - 1 bytes. Returns the length, or a negative
 * errno; -EFBIG when the file did not fit. Thread: any. */
long fsc_nic_read_text(const char *path, char *buf, size_t size);

#endif
