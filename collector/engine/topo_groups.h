/* The topology's port groups as the engine's imbalance groups: group g of
 * topo->groups is engine group g. One function for every source. */
#ifndef FSC_TOPO_GROUPS_H
#define FSC_TOPO_GROUPS_H

#include "engine/engine.h"
#include "model/topology.h"

/* Puts series `id` into every port group of the topology that lists
 * (device, port), as the engine's imbalance detector expects: group g of
 * topo->groups is engine group g. Only transmit byte counters join
 * (FSC_SIG_PORT_BYTES, FSC_DIR_TX): uplink imbalance is about how ECMP / DLB
 * spreads egress traffic, and mixing rx into the mean would blur it.
 * Returns how many groups the series joined, or a negative errno from the
 * engine. Thread: any source thread. */
int fsc_topo_groups_join(const struct fsc_topology *topo, struct fsc_engine *eng,
                         const char *device, const char *port, const struct fsc_traits *tr,
                         fsc_series_id id);

#endif
