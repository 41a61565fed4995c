/* The topology the renderer takes off the series (model/metric_families.h,
 * fsc_metric_info_label): per port, and per device, the last value each
 * topology label had on a series of it, written as the fabric_port_info,
 * fabric_nic_info and fabric_node_info families (prom_derived.c).
 *
 * Why records and not the series' labels: a re-cabling changes a port's
 * peer, and with it the identity of every series that carried it; kept
 * here, it changes one info line. A record keeps, per label, the value of
 * the newest series that had it, so the union of what a port's series say
 * (pci on the PCIe series, card on all) is one line.
 *
 * Internal to exporters/prometheus; the renderer's thread owns the table.
 * Bounded by the number of ports and devices indexed. */
#ifndef FSC_PROM_INFO_H
#define FSC_PROM_INFO_H

#include <stddef.h>
#include <stdint.h>

#include "model/registry.h"

/* Topology labels a record keeps, in the order the info lines write them
 * after sorting by name (prom_derived.c). */
enum fsc_prom_info_slot {
    FSC_PI_CARD = 0, /* fabric_nic_info */
    FSC_PI_LINK,     /* fabric_port_info */
    FSC_PI_NODE,     /* fabric_node_info (device records) */
    FSC_PI_PCI,      /* fabric_nic_info */
    FSC_PI_PEER,     /* fabric_port_info: "device:port" -> peer, peer_port */
    FSC_PI_PEER_NODE,
    FSC_PI_RAIL,
    FSC_PI_ROLE,
    FSC_PI__COUNT
};

#define FSC_PROM_INFO_NONE UINT32_MAX

struct fsc_prom_info {
    const char *device; /* interned (the registry's) */
    const char *port;   /* interned; NULL: the device's own record */
    const char *v[FSC_PI__COUNT];
    uint32_t dev;   /* a port record: its device's record, else FSC_PROM_INFO_NONE */
    uint32_t shown; /* render generation in which a series of it was written */
};

struct fsc_prom_infos {
    struct fsc_prom_info *rec; /* creation order */
    uint32_t n, cap;
    uint32_t *slots; /* open addressing: record index + 1 */
    uint32_t mask;
};

/* The slot of a topology label name, or -1. */
int fsc_prom_info_slot(const char *name);

/* Notes the topology labels of one series: device and port (interned; port
 * NULL only when v holds a node alone) and its topology values (v[slot],
 * NULL where absent). The port's record takes every value but the node,
 * which goes to the device's record. *rec is the record the series belongs
 * to (its port's, or its device's when it has no port), FSC_PROM_INFO_NONE
 * when v is empty. Returns 0 or -ENOMEM (then *rec is NONE). */
int fsc_prom_info_note(struct fsc_prom_infos *t, const char *device, const char *port,
                       const char *const v[FSC_PI__COUNT], uint32_t *rec);

/* Marks record idx (and its device's record) as shown in generation gen. */
static inline void fsc_prom_info_show(struct fsc_prom_infos *t, uint32_t idx, uint32_t gen)
{
    if (idx == FSC_PROM_INFO_NONE)
        return;
    t->rec[idx].shown = gen;
    if (t->rec[idx].dev != FSC_PROM_INFO_NONE)
        t->rec[t->rec[idx].dev].shown = gen;
}

/* Frees the table; it is then empty and reusable. */
void fsc_prom_infos_free(struct fsc_prom_infos *t);

#endif
