/* Topology lookups: open-addressing hash indexes over device names,
 * (device, port) pairs and group names, built once at load time. */
#include "model/topology.h"

#include "base/hash.h"

#include <errno.h>
#include <string.h>

/* One slot: the hash and the indexes of what it names; `used` 0 = empty. */
struct topo_slot {
    uint32_t hash;
    uint32_t used;
    uint32_t a, b; /* device (or group) index, port index */
};

struct topo_table {
    struct topo_slot *slots;
    size_t mask; /* capacity - 1 (a power of two) */
};

struct fsc_topo_index {
    struct topo_table devices, ports, groups;
};

/* The device name, then (when given) the port name chained on (base/hash.h). */
static uint32_t hash_pair(const char *a, const char *b)
{
    uint64_t h = fsc_hash_bytes(a, strlen(a), 0);
    if (b != NULL)
        h = fsc_hash_bytes(b, strlen(b), h);
    return fsc_hash_fold32(h);
}

static int table_init(struct topo_table *t, size_t n, void *(*alloc)(void *, size_t), void *arg)
{
    size_t cap = 8;
    while (cap < 2 * n)
        cap *= 2;
    t->slots = alloc(arg, cap * sizeof(*t->slots));
    if (t->slots == NULL)
        return -ENOMEM;
    t->mask = cap - 1;
    return 0;
}

static const char *group_name(const struct fsc_topology *topo, uint32_t g)
{
    return topo->groups[g].name;
}

/* Finds the slot for (a, b) names; *found says whether it holds them. Linear
 * probing; the table is at most half full, so the loop ends. */
static struct topo_slot *probe(const struct fsc_topology *topo, const struct topo_table *t,
                               int kind, const char *a, const char *b, int *found, uint32_t *hash)
{
    uint32_t h = hash_pair(a, b);
    *hash = h;
    for (size_t i = h & t->mask;; i = (i + 1) & t->mask) {
        struct topo_slot *s = &t->slots[i];
        if (!s->used) {
            *found = 0;
            return s;
        }
        if (s->hash != h)
            continue;
        const char *na = kind == 2 ? group_name(topo, s->a) : topo->devices[s->a].name;
        if (strcmp(na, a) != 0)
            continue;
        if (kind == 1 && strcmp(topo->devices[s->a].ports[s->b].name, b) != 0)
            continue;
        *found = 1;
        return s;
    }
}

int fsc_topology_index_build(struct fsc_topology *topo, void *(*alloc)(void *arg, size_t size),
                             void *arg, struct fsc_topo_dup *dup)
{
    struct fsc_topo_index *idx = alloc(arg, sizeof(*idx));
    if (idx == NULL)
        return -ENOMEM;
    size_t n_ports = 0;
    for (size_t d = 0; d < topo->n_devices; d++)
        n_ports += topo->devices[d].n_ports;
    if (table_init(&idx->devices, topo->n_devices, alloc, arg) != 0 ||
        table_init(&idx->ports, n_ports, alloc, arg) != 0 ||
        table_init(&idx->groups, topo->n_groups, alloc, arg) != 0)
        return -ENOMEM;
    int found;
    uint32_t h;
    for (size_t d = 0; d < topo->n_devices; d++) {
        const struct fsc_topo_device *dev = &topo->devices[d];
        struct topo_slot *s = probe(topo, &idx->devices, 0, dev->name, NULL, &found, &h);
        if (found) {
            *dup = (struct fsc_topo_dup){.what = "device", .index = d, .first = s->a};
            return -EEXIST;
        }
        *s = (struct topo_slot){.hash = h, .used = 1, .a = (uint32_t)d};
        for (size_t p = 0; p < dev->n_ports; p++) {
            s = probe(topo, &idx->ports, 1, dev->name, dev->ports[p].name, &found, &h);
            if (found) {
                *dup = (struct fsc_topo_dup){.what = "port", .index = d, .port = p, .first = s->b};
                return -EEXIST;
            }
            *s = (struct topo_slot){.hash = h, .used = 1, .a = (uint32_t)d, .b = (uint32_t)p};
        }
    }
    for (size_t g = 0; g < topo->n_groups; g++) {
        struct topo_slot *s = probe(topo, &idx->groups, 2, topo->groups[g].name, NULL, &found, &h);
        if (found) {
            *dup = (struct fsc_topo_dup){.what = "port group", .index = g, .first = s->a};
            return -EEXIST;
        }
        *s = (struct topo_slot){.hash = h, .used = 1, .a = (uint32_t)g};
    }
    topo->index = idx;
    return 0;
}

const struct fsc_topo_device *fsc_topology_device(const struct fsc_topology *topo, const char *name)
{
    int found;
    uint32_t h;
    if (topo->index == NULL)
        return NULL;
    const struct topo_slot *s = probe(topo, &topo->index->devices, 0, name, NULL, &found, &h);
    return found ? &topo->devices[s->a] : NULL;
}

const struct fsc_topo_port *fsc_topology_port(const struct fsc_topology *topo, const char *device,
                                              const char *port,
                                              const struct fsc_topo_device **dev_out)
{
    int found;
    uint32_t h;
    if (topo->index == NULL)
        return NULL;
    const struct topo_slot *s = probe(topo, &topo->index->ports, 1, device, port, &found, &h);
    if (!found)
        return NULL;
    if (dev_out != NULL)
        *dev_out = &topo->devices[s->a];
    return &topo->devices[s->a].ports[s->b];
}

const struct fsc_topo_port *fsc_topology_port_ref(const struct fsc_topology *topo, const char *ref,
                                                  const struct fsc_topo_device **dev_out)
{
    char dev[128];
    const char *colon = strchr(ref, ':');
    if (colon == NULL || (size_t)(colon - ref) >= sizeof(dev))
        return NULL;
    memcpy(dev, ref, (size_t)(colon - ref));
    dev[colon - ref] = '\0';
    return fsc_topology_port(topo, dev, colon + 1, dev_out);
}

const struct fsc_topo_group *fsc_topology_group(const struct fsc_topology *topo, const char *name)
{
    int found;
    uint32_t h;
    if (topo->index == NULL)
        return NULL;
    const struct topo_slot *s = probe(topo, &topo->index->groups, 2, name, NULL, &found, &h);
    return found ? &topo->groups[s->a] : NULL;
}

const struct fsc_topo_port *fsc_topology_member(const struct fsc_topology *topo,
                                                const struct fsc_topo_member *member,
                                                const struct fsc_topo_device **dev_out)
{
    const struct fsc_topo_device *dev = &topo->devices[member->device];
    if (dev_out != NULL)
        *dev_out = dev;
    return &dev->ports[member->port];
}

const char *fsc_device_role_name(enum fsc_device_role role)
{
    static const char *const names[] = {"leaf", "spine", "host"};
    return (unsigned)role < 3 ? names[role] : "?";
}

const char *fsc_port_role_name(enum fsc_port_role role)
{
    static const char *const names[] = {"none", "uplink", "downlink", "nic"};
    return (unsigned)role < 4 ? names[role] : "?";
}

/* The B300 defaults of the cable plan (topology.h). */
const uint32_t fsc_cable_default_port_cards[FSC_B300_PORTS] = {7, 4, 6, 5, 0, 3, 1, 2};

const char *const fsc_cable_default_ifnames[FSC_B300_CARDS][2] = {
    {"ens1f0np0", "ens1f1np1"}, {"ens2f0np0", "ens2f1np1"}, {"ens3f0np0", "ens3f1np1"},
    {"ens4f0np0", "ens4f1np1"}, {"ens5f0np0", "ens5f1np1"}, {"ens6f0np0", "ens6f1np1"},
    {"ens7f0np0", "ens7f1np1"}, {"ens8f0np0", "ens8f1np1"},
};

/* A Linux interface name: a config name of at most IFNAMSIZ - 1 bytes. */
