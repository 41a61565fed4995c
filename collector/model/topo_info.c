/* Topology records of the exporters (contract in topo_info.h). */
#include "model/topo_info.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/hash.h"

#define SLOTS_MIN 256u

static const char *const slot_name[FSC_TI__COUNT] = {
    [FSC_TI_CARD] = "card", [FSC_TI_LINK] = "link", [FSC_TI_NODE] = "node",
    [FSC_TI_PCI] = "pci",   [FSC_TI_PEER] = "peer", [FSC_TI_PEER_NODE] = "peer_node",
    [FSC_TI_RAIL] = "rail", [FSC_TI_ROLE] = "role",
};

int fsc_topo_info_slot(const char *name)
{
    for (int i = 0; i < FSC_TI__COUNT; i++)
        if (strcmp(slot_name[i], name) == 0)
            return i;
    return -1;
}

static uint32_t key_hash(const char *device, const char *port)
{
    uint64_t h = fsc_hash_mix64((uint64_t)(uintptr_t)device ^ 0x9e3779b97f4a7c15ULL);
    return (uint32_t)fsc_hash_mix64(h ^ (uint64_t)(uintptr_t)port);
}

static int rehash(struct fsc_topo_infos *t)
{
    uint32_t size = t->mask ? (t->mask + 1) * 2 : SLOTS_MIN;
    uint32_t *slots = calloc(size, sizeof(*slots));
    if (!slots)
        return -ENOMEM;
    for (uint32_t i = 0; i < t->n; i++) {
        uint32_t s = key_hash(t->rec[i].device, t->rec[i].port) & (size - 1);
        while (slots[s])
            s = (s + 1) & (size - 1);
        slots[s] = i + 1;
    }
    free(t->slots);
    t->slots = slots;
    t->mask = size - 1;
    return 0;
}

/* The record of (device, port), created when missing. */
static int record(struct fsc_topo_infos *t, const char *device, const char *port, uint32_t *idx)
{
    uint32_t s = t->slots ? key_hash(device, port) & t->mask : 0;
    for (; t->slots && t->slots[s]; s = (s + 1) & t->mask) {
        const struct fsc_topo_info *r = &t->rec[t->slots[s] - 1];
        if (r->device == device && r->port == port) {
            *idx = t->slots[s] - 1;
            return 0;
        }
    }
    if (t->n == UINT32_MAX - 1 || ((t->n + 1) * 2 > t->mask + 1 && rehash(t) != 0))
        return -ENOMEM;
    if (t->n == t->cap) {
        uint32_t cap = t->cap ? 2 * t->cap : 64;
        struct fsc_topo_info *p = realloc(t->rec, (size_t)cap * sizeof(*p));
        if (p)
            t->rec = p;
        uint32_t *d = p ? realloc(t->dev, (size_t)cap * sizeof(*d)) : NULL;
        if (d)
            t->dev = d;
        uint32_t *sh = d ? realloc(t->shown, (size_t)cap * sizeof(*sh)) : NULL;
        if (!sh)
            return -ENOMEM; /* the arrays grown so far stay valid for n */
        t->shown = sh;
        t->cap = cap;
    }
    struct fsc_topo_info *r = &t->rec[t->n];
    memset(r, 0, sizeof(*r));
    r->device = device;
    r->port = port;
    t->dev[t->n] = FSC_TOPO_INFO_NONE;
    t->shown[t->n] = 0;
    s = key_hash(device, port) & t->mask;
    while (t->slots[s])
        s = (s + 1) & t->mask;
    t->slots[s] = ++t->n;
    *idx = t->n - 1;
    return 0;
}

int fsc_topo_info_note(struct fsc_topo_infos *t, const struct fsc_topo_split *sp, uint32_t *rec)
{
    *rec = FSC_TOPO_INFO_NONE;
    if (sp->sig == 0)
        return 0;
    int any_port = 0;
    for (int i = 0; i < FSC_TI__COUNT; i++)
        any_port |= i != FSC_TI_NODE && sp->v[i] != NULL;
    uint32_t dev = FSC_TOPO_INFO_NONE, own = FSC_TOPO_INFO_NONE;
    if (sp->v[FSC_TI_NODE]) {
        if (record(t, sp->device, NULL, &dev) != 0)
            return -ENOMEM;
        if (t->rec[dev].v[FSC_TI_NODE] != sp->v[FSC_TI_NODE]) {
            t->rec[dev].v[FSC_TI_NODE] = sp->v[FSC_TI_NODE];
            t->rec[dev].version++;
        }
    }
    if (sp->port) {
        if (record(t, sp->device, sp->port, &own) != 0)
            return -ENOMEM;
        struct fsc_topo_info *r = &t->rec[own];
        for (int i = 0; any_port && i < FSC_TI__COUNT; i++) {
            if (i != FSC_TI_NODE && sp->v[i] && r->v[i] != sp->v[i]) {
                r->v[i] = sp->v[i]; /* the newest series' value wins */
                r->version++;
            }
        }
        if (dev != FSC_TOPO_INFO_NONE)
            t->dev[own] = dev;
    }
    *rec = own != FSC_TOPO_INFO_NONE ? own : dev;
    return 0;
}

/* What a label name is to the split: a slot, or one of these. */
enum { L_ID = -1, L_DEVICE = -2, L_PORT = -3 };

/* One strcmp at most per name: the index builds a split for every new
 * series. The slots agree with fsc_metric_info_label (the tests check
 * both). */
static int classify(const char *name)
{
    switch (name[0]) {
    case 'd':
        return strcmp(name, "device") == 0 ? L_DEVICE : L_ID;
    case 'p':
        return strcmp(name, "port") == 0        ? L_PORT
               : strcmp(name, "peer") == 0      ? FSC_TI_PEER
               : strcmp(name, "pci") == 0       ? FSC_TI_PCI
               : strcmp(name, "peer_node") == 0 ? FSC_TI_PEER_NODE
                                                : L_ID;
    case 'r':
        return strcmp(name, "role") == 0   ? FSC_TI_ROLE
               : strcmp(name, "rail") == 0 ? FSC_TI_RAIL
                                           : L_ID;
    case 'l':
        return strcmp(name, "link") == 0 ? FSC_TI_LINK : L_ID;
    case 'c':
        return strcmp(name, "card") == 0 ? FSC_TI_CARD : L_ID;
    case 'n':
        return strcmp(name, "node") == 0 ? FSC_TI_NODE : L_ID;
    default:
        return L_ID;
    }
}

void fsc_topo_split(const struct fsc_label *lab, size_t n, struct fsc_topo_split *out)
{
    int cls[FSC_REGISTRY_MAX_LABELS];
    memset(out->v, 0, sizeof(out->v));
    out->device = out->port = NULL;
    out->n_id = 0;
    for (size_t i = 0; i < n; i++) {
        cls[i] = classify(lab[i].name);
        if (cls[i] == L_DEVICE)
            out->device = lab[i].value;
        else if (cls[i] == L_PORT)
            out->port = lab[i].value;
    }
    uint64_t h = 0x6a09e667f3bcc909ULL;
    int moved = 0;
    for (size_t i = 0; i < n; i++) {
        int slot = cls[i] >= 0 ? cls[i] : -1;
        if (slot < 0 || !out->device || (slot != FSC_TI_NODE && !out->port)) {
            out->id[out->n_id++] = lab[i];
            continue;
        }
        out->v[slot] = lab[i].value;
        moved = 1;
        h = fsc_hash_mix64(h ^ (uint64_t)(uintptr_t)lab[i].name);
        h = fsc_hash_mix64(h ^ (uint64_t)(uintptr_t)lab[i].value);
    }
    out->sig = moved ? (uint32_t)h | 1u : 0;
}

static size_t put(struct fsc_topo_label *out, size_t n, const char *name, const char *value)
{
    if (value)
        out[n++] = (struct fsc_topo_label){name, value, strlen(value)};
    return n;
}

size_t fsc_topo_info_labels(const struct fsc_topo_info *rec, enum fsc_info_family f,
                            struct fsc_topo_label out[FSC_TOPO_LABELS_MAX])
{
    const char *const *v = rec->v;
    size_t n = 0;
    if (f == FSC_INFO_NODE) {
        if (rec->port || !v[FSC_TI_NODE])
            return 0;
        n = put(out, n, "device", rec->device);
        return put(out, n, "node", v[FSC_TI_NODE]);
    }
    if (!rec->port)
        return 0;
    if (f == FSC_INFO_NIC) {
        if (!v[FSC_TI_CARD] && !v[FSC_TI_PCI])
            return 0;
        n = put(out, n, "card", v[FSC_TI_CARD]);
        n = put(out, n, "device", rec->device);
        n = put(out, n, "pci", v[FSC_TI_PCI]);
        return put(out, n, "port", rec->port);
    }
    if (f != FSC_INFO_PORT || (!v[FSC_TI_LINK] && !v[FSC_TI_PEER] && !v[FSC_TI_PEER_NODE] &&
                               !v[FSC_TI_RAIL] && !v[FSC_TI_ROLE]))
        return 0;
    n = put(out, n, "device", rec->device);
    n = put(out, n, "link", v[FSC_TI_LINK]);
    /* The topology and the cable plan write a peer as "device:port". */
    const char *peer = v[FSC_TI_PEER], *colon = peer ? strchr(peer, ':') : NULL;
    if (peer)
        out[n++] =
            (struct fsc_topo_label){"peer", peer, colon ? (size_t)(colon - peer) : strlen(peer)};
    n = put(out, n, "peer_node", v[FSC_TI_PEER_NODE]);
    if (colon)
        n = put(out, n, "peer_port", colon + 1);
    n = put(out, n, "port", rec->port);
    n = put(out, n, "rail", v[FSC_TI_RAIL]);
    return put(out, n, "role", v[FSC_TI_ROLE]);
}

void fsc_topo_infos_free(struct fsc_topo_infos *t)
{
    free(t->rec);
    free(t->dev);
    free(t->shown);
    free(t->slots);
    memset(t, 0, sizeof(*t));
}
