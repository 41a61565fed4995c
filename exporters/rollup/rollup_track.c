/* Which series a rollup follows, and what they belong to: byte, CNP and
 * PFC-duration counters of a (device, port), the node RDMA gauges of a
 * B300 node, and the engine's port groups. Series are classified once, by
 * metric name (the canonical names of docs/METRICS.md), as the registry
 * hands out new ids. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rollup/rollup_int.h"

static const struct {
    const char *metric;
    enum ru_what what;
} wanted[] = {
    {"fabric_port_rx_bytes_total", RU_RX_BYTES},
    {"fabric_port_tx_bytes_total", RU_TX_BYTES},
    {"fabric_nic_cnp_sent_total", RU_CNP},
    /* the NIC's own received bytes (docs/METRICS.md): mlx5 ports often have
     * no fabric_port_rx_bytes_total, and CNP per TB needs a denominator */
    {"fabric_nic_ib_port_rx_bytes_total", RU_IB_RX},
    /* pause time the peer imposed on this port, per priority (Cumulus, mlx5)
     * and global (mlx5): the time the port could not transmit */
    {"fabric_port_pfc_rx_pause_seconds_total", RU_PFC},
    {"fabric_port_rx_pause_seconds_total", RU_PFC},
    {"fabric_node_rdma_bits_per_second", RU_NODE_BPS},
    {"fabric_node_rdma_efficiency_ratio", RU_NODE_EFF},
};

static const char *label(const struct fsc_label *lab, size_t n, const char *name)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(lab[i].name, name) == 0)
            return lab[i].value;
    return NULL;
}

static uint64_t hash2(const char *a, const char *b)
{
    uint64_t h = 1469598103934665603ULL;
    for (; *a; a++)
        h = (h ^ (uint8_t)*a) * 1099511628211ULL;
    h = (h ^ 0xff) * 1099511628211ULL; /* separator: ("ab","c") != ("a","bc") */
    for (; *b; b++)
        h = (h ^ (uint8_t)*b) * 1099511628211ULL;
    return h;
}

static int hash_grow(struct fsc_rollup *ru)
{
    size_t cap = ru->cap_hash ? ru->cap_hash * 2 : 1024;
    uint32_t *nh = calloc(cap, sizeof(*nh));
    if (!nh)
        return -ENOMEM;
    for (size_t i = 0; i < ru->n_ports; i++) {
        size_t s = hash2(ru->ports[i].name.device, ru->ports[i].name.port) & (cap - 1);
        while (nh[s])
            s = (s + 1) & (cap - 1);
        nh[s] = (uint32_t)i + 1;
    }
    free(ru->port_hash);
    ru->port_hash = nh;
    ru->cap_hash = cap;
    return 0;
}

static void copy_name(char *dst, const char *src)
{
    snprintf(dst, FSC_RR_NAME_MAX + 1, "%s", src ? src : "");
}

static enum fsc_port_role role_parse(const char *s)
{
    if (!s)
        return FSC_PORT_ROLE_NONE;
    if (strcmp(s, "uplink") == 0)
        return FSC_PORT_UPLINK;
    if (strcmp(s, "downlink") == 0)
        return FSC_PORT_DOWNLINK;
    if (strcmp(s, "nic") == 0)
        return FSC_PORT_NIC;
    return FSC_PORT_ROLE_NONE;
}

/* The port (device, port), created with its names from the labels and the
 * topology. Returns its index, or -ENOMEM. */
static long port_get(struct fsc_rollup *ru, const struct fsc_label *lab, size_t n_lab,
                     const char *device, const char *port)
{
    if (ru->n_ports * 2 >= ru->cap_hash && hash_grow(ru) != 0)
        return -ENOMEM;
    size_t s = hash2(device, port) & (ru->cap_hash - 1);
    while (ru->port_hash[s]) {
        struct ru_port *p = &ru->ports[ru->port_hash[s] - 1];
        if (strcmp(p->name.device, device) == 0 && strcmp(p->name.port, port) == 0)
            return (long)ru->port_hash[s] - 1;
        s = (s + 1) & (ru->cap_hash - 1);
    }
    if (ru->n_ports == ru->cap_ports) {
        size_t cap = ru->cap_ports ? ru->cap_ports * 2 : 64;
        struct ru_port *np = realloc(ru->ports, cap * sizeof(*np));
        if (!np)
            return -ENOMEM;
        ru->ports = np;
        ru->cap_ports = cap;
    }
    struct ru_port *p = &ru->ports[ru->n_ports];
    memset(p, 0, sizeof(*p));
    p->key = ru->next_key++;
    p->name.kind = FSC_RR_NAME_PORT;
    p->name.rail = -1;
    copy_name(p->name.device, device);
    copy_name(p->name.port, port);
    copy_name(p->name.peer, label(lab, n_lab, "peer"));
    p->name.role = (uint8_t)role_parse(label(lab, n_lab, "role"));
    const char *rail = label(lab, n_lab, "rail");
    if (rail)
        p->name.rail = (int16_t)atoi(rail);
    const struct fsc_topo_device *dev = NULL;
    const struct fsc_topo_port *tp =
        ru->env.topo ? fsc_topology_port(ru->env.topo, device, port, &dev) : NULL;
    if (tp) {
        /* the topology knows what a label may have left out */
        if (p->name.role == FSC_PORT_ROLE_NONE)
            p->name.role = (uint8_t)tp->role;
        if (p->name.rail < 0 && tp->rail != FSC_RAIL_NONE)
            p->name.rail = (int16_t)tp->rail;
        if (!p->name.peer[0] && tp->peer)
            copy_name(p->name.peer, tp->peer);
        p->name.speed_bps = tp->speed_bps;
    }
    ru->port_hash[s] = (uint32_t)ru->n_ports + 1;
    ru->stats.ports = (uint32_t)++ru->n_ports;
    return (long)ru->n_ports - 1;
}

static long node_get(struct fsc_rollup *ru, const char *device, const char *node)
{
    for (size_t i = 0; i < ru->n_nodes; i++)
        if (strcmp(ru->nodes[i].name.device, device) == 0 &&
            strcmp(ru->nodes[i].name.port, node) == 0)
            return (long)i;
    if (ru->n_nodes == ru->cap_nodes) {
        size_t cap = ru->cap_nodes ? ru->cap_nodes * 2 : 8;
        struct ru_node *nn = realloc(ru->nodes, cap * sizeof(*nn));
        if (!nn)
            return -ENOMEM;
        ru->nodes = nn;
        ru->cap_nodes = cap;
    }
    struct ru_node *nd = &ru->nodes[ru->n_nodes];
    memset(nd, 0, sizeof(*nd));
    nd->key = ru->next_key++;
    nd->name.kind = FSC_RR_NAME_NODE;
    nd->name.rail = -1;
    copy_name(nd->name.device, device);
    copy_name(nd->name.port, node);
    ru->stats.nodes = (uint32_t)++ru->n_nodes;
    return (long)ru->n_nodes - 1;
}

static int entry_add(struct fsc_rollup *ru, fsc_series_id id, uint32_t owner, enum ru_what what,
                     unsigned dir)
{
    if (ru->n_entries >= FSC_ROLLUP_MAX_SERIES) {
        ru->stats.series_dropped++;
        return 0;
    }
    if (ru->n_entries == ru->cap_entries) {
        size_t cap = ru->cap_entries ? ru->cap_entries * 2 : 256;
        struct ru_entry *ne = realloc(ru->entries, cap * sizeof(*ne));
        if (!ne)
            return -ENOMEM;
        ru->entries = ne;
        ru->cap_entries = cap;
    }
    struct ru_entry *e = &ru->entries[ru->n_entries++];
    memset(e, 0, sizeof(*e));
    e->id = id;
    e->owner = owner;
    e->what = (uint8_t)what;
    e->dir = (uint8_t)dir;
    return 0;
}

/* Classifies one series; 0 also when it is not wanted. */
static int classify(struct fsc_rollup *ru, fsc_series_id id)
{
    const char *metric = fsc_registry_metric(ru->env.reg, id);
    if (!metric)
        return 0;
    size_t w = 0;
    while (w < sizeof(wanted) / sizeof(wanted[0]) && strcmp(wanted[w].metric, metric) != 0)
        w++;
    if (w == sizeof(wanted) / sizeof(wanted[0]))
        return 0;
    struct fsc_label lab[FSC_REGISTRY_MAX_LABELS];
    size_t n = fsc_registry_labels(ru->env.reg, id, lab, FSC_REGISTRY_MAX_LABELS);
    if (n > FSC_REGISTRY_MAX_LABELS)
        n = FSC_REGISTRY_MAX_LABELS;
    const char *device = label(lab, n, "device");
    const char *dirl = label(lab, n, "direction");
    unsigned dir = dirl && strcmp(dirl, "tx") == 0 ? FSC_RR_TX : FSC_RR_RX;
    enum ru_what what = wanted[w].what;
    if (what == RU_NODE_BPS || what == RU_NODE_EFF) {
        const char *node = label(lab, n, "node");
        if (!device) {
            ru->stats.series_dropped++;
            return 0;
        }
        long ni = node_get(ru, device, node ? node : "");
        return ni < 0 ? (int)ni : entry_add(ru, id, (uint32_t)ni, what, dir);
    }
    const char *port = label(lab, n, "port");
    if (!device || !port) {
        ru->stats.series_dropped++;
        return 0;
    }
    if (what == RU_RX_BYTES || what == RU_TX_BYTES)
        dir = what == RU_TX_BYTES ? FSC_RR_TX : FSC_RR_RX;
    long pi = port_get(ru, lab, n, device, port);
    return pi < 0 ? (int)pi : entry_add(ru, id, (uint32_t)pi, what, dir);
}

int fsc_ru_discover(struct fsc_rollup *ru)
{
    uint32_t count = fsc_registry_count(ru->env.reg);
    while (ru->scanned < count) {
        int rc = classify(ru, ru->scanned);
        if (rc != 0)
            return rc; /* out of memory: retried at the next tick */
        ru->scanned++;
    }
    return 0;
}

int fsc_ru_groups_sync(struct fsc_rollup *ru)
{
    uint32_t count = fsc_engine_group_count(ru->env.eng);
    if (count <= ru->n_groups)
        return 0;
    struct ru_group *ng = realloc(ru->groups, count * sizeof(*ng));
    if (!ng)
        return -ENOMEM;
    ru->groups = ng;
    for (size_t g = ru->n_groups; g < count; g++) {
        memset(&ng[g], 0, sizeof(ng[g]));
        ng[g].key = ru->next_key++;
    }
    ru->n_groups = count;
    ru->stats.groups = count;
    return 0;
}
