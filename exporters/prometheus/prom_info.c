/* The renderer's topology records (contract in prom_info.h). */
#include "prometheus/prom_info.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/hash.h"

#define SLOTS_MIN 256u

static const char *const slot_name[FSC_PI__COUNT] = {
    [FSC_PI_CARD] = "card", [FSC_PI_LINK] = "link", [FSC_PI_NODE] = "node",
    [FSC_PI_PCI] = "pci",   [FSC_PI_PEER] = "peer", [FSC_PI_PEER_NODE] = "peer_node",
    [FSC_PI_RAIL] = "rail", [FSC_PI_ROLE] = "role",
};

int fsc_prom_info_slot(const char *name)
{
    for (int i = 0; i < FSC_PI__COUNT; i++)
        if (strcmp(slot_name[i], name) == 0)
            return i;
    return -1;
}

static uint32_t key_hash(const char *device, const char *port)
{
    uint64_t h = fsc_hash_mix64((uint64_t)(uintptr_t)device ^ 0x9e3779b97f4a7c15ULL);
    return (uint32_t)fsc_hash_mix64(h ^ (uint64_t)(uintptr_t)port);
}

static int rehash(struct fsc_prom_infos *t)
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
static int record(struct fsc_prom_infos *t, const char *device, const char *port, uint32_t *idx)
{
    uint32_t s = t->slots ? key_hash(device, port) & t->mask : 0;
    for (; t->slots && t->slots[s]; s = (s + 1) & t->mask) {
        const struct fsc_prom_info *r = &t->rec[t->slots[s] - 1];
        if (r->device == device && r->port == port) {
            *idx = t->slots[s] - 1;
            return 0;
        }
    }
    if (t->n == UINT32_MAX - 1 || ((t->n + 1) * 2 > t->mask + 1 && rehash(t) != 0))
        return -ENOMEM;
    if (t->n == t->cap) {
        uint32_t cap = t->cap ? 2 * t->cap : 64;
        struct fsc_prom_info *p = realloc(t->rec, (size_t)cap * sizeof(*p));
        if (!p)
            return -ENOMEM;
        t->rec = p;
        t->cap = cap;
    }
    struct fsc_prom_info *r = &t->rec[t->n];
    memset(r, 0, sizeof(*r));
    r->device = device;
    r->port = port;
    r->dev = FSC_PROM_INFO_NONE;
    s = key_hash(device, port) & t->mask;
    while (t->slots[s])
        s = (s + 1) & t->mask;
    t->slots[s] = ++t->n;
    *idx = t->n - 1;
    return 0;
}

int fsc_prom_info_note(struct fsc_prom_infos *t, const char *device, const char *port,
                       const char *const v[FSC_PI__COUNT], uint32_t *rec)
{
    *rec = FSC_PROM_INFO_NONE;
    int any_port = 0;
    for (int i = 0; i < FSC_PI__COUNT; i++)
        any_port |= i != FSC_PI_NODE && v[i] != NULL;
    uint32_t dev = FSC_PROM_INFO_NONE, own = FSC_PROM_INFO_NONE;
    if (v[FSC_PI_NODE]) {
        if (record(t, device, NULL, &dev) != 0)
            return -ENOMEM;
        t->rec[dev].v[FSC_PI_NODE] = v[FSC_PI_NODE];
    }
    if (port && (any_port || v[FSC_PI_NODE])) {
        if (record(t, device, port, &own) != 0)
            return -ENOMEM;
        struct fsc_prom_info *r = &t->rec[own];
        for (int i = 0; i < FSC_PI__COUNT; i++)
            if (i != FSC_PI_NODE && v[i]) /* the newest series' value wins */
                r->v[i] = v[i];
        if (dev != FSC_PROM_INFO_NONE)
            r->dev = dev;
    }
    *rec = own != FSC_PROM_INFO_NONE ? own : dev;
    return 0;
}

void fsc_prom_infos_free(struct fsc_prom_infos *t)
{
    free(t->rec);
    free(t->slots);
    memset(t, 0, sizeof(*t));
}
