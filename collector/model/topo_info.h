/* The topology an exporter takes off the series (model/metric_families.h,
 * fsc_metric_info_label): per port, and per device, the last value each
 * topology label had on a series of it, shown as the fabric_port_info,
 * fabric_nic_info and fabric_node_info families by the Prometheus renderer
 * and remote_write alike.
 *
 * Why records and not the series' labels: a re-cabling changes a port's
 * peer, and with it the identity of every series that carried it; kept
 * here, it changes one info line. A record keeps, per label, the value of
 * the newest series that had it, so the union of what a port's series say
 * (pci on the PCIe series, card on all) is one line.
 *
 * Not thread-safe: each exporter's thread owns its table. Bounded by the
 * number of ports and devices its series name. */
#ifndef FSC_TOPO_INFO_H
#define FSC_TOPO_INFO_H

#include <stddef.h>
#include <stdint.h>

#include "model/metric_families.h"
#include "model/registry.h"

/* Topology labels a record keeps, in the order of their names (the info
 * lines list labels sorted by name). */
enum fsc_topo_info_slot {
    FSC_TI_CARD = 0, /* fabric_nic_info */
    FSC_TI_LINK,     /* fabric_port_info */
    FSC_TI_NODE,     /* fabric_node_info (device records) */
    FSC_TI_PCI,      /* fabric_nic_info */
    FSC_TI_PEER,     /* fabric_port_info: "device:port" -> peer, peer_port */
    FSC_TI_PEER_NODE,
    FSC_TI_RAIL,
    FSC_TI_ROLE,
    FSC_TI__COUNT
};

#define FSC_TOPO_INFO_NONE UINT32_MAX

struct fsc_topo_info {
    const char *device; /* interned (the registry's) */
    const char *port;   /* interned; NULL: the device's own record */
    const char *v[FSC_TI__COUNT];
    uint32_t version; /* changes when a value does: an owner's cached text is stale */
};

struct fsc_topo_infos {
    struct fsc_topo_info *rec; /* creation order */
    /* Per record, apart from rec so a render that marks one per series
     * touches 8 bytes of a small array, not a record: */
    uint32_t *dev;   /* a port record's device record, else FSC_TOPO_INFO_NONE */
    uint32_t *shown; /* the owner's generation in which a series of it was shown */
    uint32_t n, cap;
    uint32_t *slots; /* open addressing: record index + 1 */
    uint32_t mask;
};

/* One series' labels split: its identity labels (every label but the
 * topology ones that move) and the topology values that move. A topology
 * label moves when the series has a device to hang it on and, but for the
 * node, a port; else it stays on the series. */
struct fsc_topo_split {
    struct fsc_label id[FSC_REGISTRY_MAX_LABELS];
    size_t n_id;
    const char *v[FSC_TI__COUNT]; /* NULL where absent */
    const char *device, *port;
    uint32_t sig; /* hash of the moved labels' interned pointers; 0: none moved */
};

/* Splits lab[0..n) (interned pointers, n <= FSC_REGISTRY_MAX_LABELS) into
 * *out. */
void fsc_topo_split(const struct fsc_label *lab, size_t n, struct fsc_topo_split *out);

/* The slot of a topology label name, or -1. */
int fsc_topo_info_slot(const char *name);

/* Notes the topology a series carries (sp->v, sp->device, sp->port from
 * fsc_topo_split; nothing when sp->sig is 0). The port's record takes every
 * value but the node, which goes to the device's record. *rec is the record
 * the series belongs to (its port's, or its device's when it has no port),
 * FSC_TOPO_INFO_NONE when nothing moved. Returns 0 or -ENOMEM (then *rec is
 * NONE). */
int fsc_topo_info_note(struct fsc_topo_infos *t, const struct fsc_topo_split *sp, uint32_t *rec);

/* Marks record idx (and its device's record) as shown in generation gen. */
static inline void fsc_topo_info_show(struct fsc_topo_infos *t, uint32_t idx, uint32_t gen)
{
    if (idx == FSC_TOPO_INFO_NONE)
        return;
    t->shown[idx] = gen;
    if (t->dev[idx] != FSC_TOPO_INFO_NONE)
        t->shown[t->dev[idx]] = gen;
}

/* One label of an info line; the value need not be NUL-terminated. */
struct fsc_topo_label {
    const char *name;
    const char *value;
    size_t value_len;
};
#define FSC_TOPO_LABELS_MAX 8

/* The labels of record rec's line in info family f, sorted by name (peer
 * "device:port" shown as peer and peer_port); 0 when the record has
 * nothing for that family. */
size_t fsc_topo_info_labels(const struct fsc_topo_info *rec, enum fsc_info_family f,
                            struct fsc_topo_label out[FSC_TOPO_LABELS_MAX]);

/* Frees the table; it is then empty and reusable. */
void fsc_topo_infos_free(struct fsc_topo_infos *t);

#endif
