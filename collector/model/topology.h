/* The fabric as the operator describes it (topology: section of the config):
 * devices with their ports (speed, role, rail, peer), port groups for the
 * imbalance detector, the number of rails, and the B300 cable plan reference.
 *
 * A `struct fsc_topology` lives inside a `struct fsc_config` and is built by
 * the config loader, which also builds hashed indexes for the lookups below.
 * Everything is read-only after loading: any number of threads may call the
 * lookups at the same time without locks. Pointers returned stay valid until
 * the config is destroyed. Iterate devices, ports and groups as plain arrays
 * (topo->devices[i].ports[j], topo->groups[g].members[m]). */
#ifndef FSC_TOPOLOGY_H
#define FSC_TOPOLOGY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "config/config.h"

#define FSC_RAIL_NONE (-1)

enum fsc_device_role {
    FSC_DEVICE_LEAF = 0,
    FSC_DEVICE_SPINE = 1,
    FSC_DEVICE_HOST = 2,
};

enum fsc_port_role {
    FSC_PORT_ROLE_NONE = 0, /* not given */
    FSC_PORT_UPLINK = 1,
    FSC_PORT_DOWNLINK = 2,
    FSC_PORT_NIC = 3,
};

struct fsc_topo_port {
    const char *name;        /* "et-0/0/0", "swp1", "ens1f0np0" */
    uint64_t speed_bps;      /* 0 = unknown */
    enum fsc_port_role role; /* host ports default to FSC_PORT_NIC */
    int rail;                /* default: the device's rail; FSC_RAIL_NONE */
    const char *peer;        /* "device:port" or NULL; filled in from the other end when
                              * only one end of a link names its peer */
    const char *peer_device; /* the two halves of peer (NULL when peer is NULL) */
    const char *peer_port;
    struct fsc_config_mark mark;
};

struct fsc_topo_device {
    const char *name;
    enum fsc_device_role role;
    int rail;              /* FSC_RAIL_NONE for spines and rail-less devices */
    uint64_t buffer_bytes; /* packet buffer, for queue_peak_share; 0 = unknown */
    struct fsc_topo_port *ports;
    size_t n_ports;
    struct fsc_config_mark mark;
};

/* A group member, as indexes into topo->devices[device].ports[port]. */
struct fsc_topo_member {
    uint32_t device, port;
};

struct fsc_topo_group {
    const char *name;
    const char **member_names; /* "device:port", as written */
    struct fsc_topo_member *members;
    size_t n_members;
    struct fsc_config_mark mark;
};

/* ---- B300 cable plan (topology.cable_plan; docs/CABLING.md) ----------------
 *
 * A DGX B300 node has FSC_B300_CARDS ConnectX-8 cards (0..7), each with two
 * 400G netdevs "np0" and "np1", and FSC_B300_PORTS physical ports (OSFP
 * cages, 1..8) on its back, one per card. The loader fills every field
 * below with its default when the key is absent, so a consumer never needs
 * to know the defaults; they are exported for consumers that run without a
 * config (`fabricscope plan` without -c). */
#define FSC_B300_CARDS 8
#define FSC_B300_PORTS 8
/* Cable-plan node numbers are single digits: the addressing rule
 * 10.1<a><b>.<link>.<end>/30 spends one decimal digit per node. */
#define FSC_CABLE_MAX_NODE 9

/* Node number -> device name, for the B300 cable plan (cables.txt). */
struct fsc_cable_node {
    uint32_t node; /* 1..FSC_CABLE_MAX_NODE */
    const char *device;
    struct fsc_config_mark mark;
};

/* The two netdev names of one card. */
struct fsc_cable_card {
    uint32_t card;   /* 0..FSC_B300_CARDS-1 */
    const char *np0; /* at most 15 bytes (a Linux interface name) */
    const char *np1;
    struct fsc_config_mark mark; /* of the config entry; 0:0 for a default */
};

struct fsc_cable_plan {
    bool present;
    const char *file; /* cables.txt; parsed by the NIC module (model/cable_plan.h), not here */
    struct fsc_cable_node *nodes;
    size_t n_nodes;
    /* Physical port p (1-based) carries card port_cards[p - 1]; a
     * permutation of 0..7. Default: the field report's 7 4 6 5 0 3 1 2. */
    uint32_t port_cards[FSC_B300_PORTS];
    /* Always FSC_B300_CARDS entries after loading, cards[c].card == c:
     * entries the config gives, the defaults for the others. */
    struct fsc_cable_card *cards;
    size_t n_cards;
    uint64_t speed_bps; /* expected speed of every cabled interface; default 400G */
};

/* The defaults the loader fills in: ports 1..8 -> cards 7 4 6 5 0 3 1 2, and
 * card c -> "ens<c+1>f0np0" / "ens<c+1>f1np1" (the systemd slot-name shape
 * with the card in PCIe slot c+1; there is no authoritative B300 naming, so
 * real clusters set topology.cable_plan.cards). */
extern const uint32_t fsc_cable_default_port_cards[FSC_B300_PORTS];
extern const char *const fsc_cable_default_ifnames[FSC_B300_CARDS][2];
#define FSC_CABLE_DEFAULT_SPEED_BPS 400000000000ull

struct fsc_topo_index; /* private to topology.c */

struct fsc_topology {
    uint32_t rails; /* 0: not rail-optimized */
    struct fsc_topo_device *devices;
    size_t n_devices;
    struct fsc_topo_group *groups;
    size_t n_groups;
    struct fsc_cable_plan cable_plan;
    struct fsc_topo_index *index; /* built by the loader */
};

/* Device by name, or NULL. O(1) expected. */
const struct fsc_topo_device *fsc_topology_device(const struct fsc_topology *topo,
                                                  const char *name);

/* Port by device and port name, or NULL. O(1) expected. When dev_out is not
 * NULL it receives the port's device. */
const struct fsc_topo_port *fsc_topology_port(const struct fsc_topology *topo, const char *device,
                                              const char *port,
                                              const struct fsc_topo_device **dev_out);

/* Port by a "device:port" reference (split at the first ':', so port names
 * may contain ':' as in "et-0/0/0:1"), or NULL. */
const struct fsc_topo_port *fsc_topology_port_ref(const struct fsc_topology *topo, const char *ref,
                                                  const struct fsc_topo_device **dev_out);

/* Port group by name, or NULL. O(1) expected. The group's index in
 * topo->groups is (result - topo->groups). */
const struct fsc_topo_group *fsc_topology_group(const struct fsc_topology *topo, const char *name);

/* The port and device of a group member (never NULL for a loaded config). */
const struct fsc_topo_port *fsc_topology_member(const struct fsc_topology *topo,
                                                const struct fsc_topo_member *member,
                                                const struct fsc_topo_device **dev_out);

/* "leaf" / "spine" / "host"; "uplink" / "downlink" / "nic" / "none". */
const char *fsc_device_role_name(enum fsc_device_role role);
const char *fsc_port_role_name(enum fsc_port_role role);

/* The first duplicate name fsc_topology_index_build() found. */
struct fsc_topo_dup {
    const char *what; /* "device", "port" or "port group" */
    size_t index;     /* the later declaration: device, or group index */
    size_t port;      /* for "port": port index within devices[index] */
    size_t first;     /* the earlier declaration (device, port or group index) */
};

/* Builds the hashed indexes (devices, ports, groups) with zeroed memory from
 * `alloc(arg, size)`, owned and freed by the caller's allocator. Returns 0;
 * -EEXIST on a duplicate device name, port name within one device, or group
 * name (described in *dup); -ENOMEM when alloc fails. Used by the loader. */
int fsc_topology_index_build(struct fsc_topology *topo, void *(*alloc)(void *arg, size_t size),
                             void *arg, struct fsc_topo_dup *dup);

#endif
