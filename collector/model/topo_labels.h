/* Topology labels for a series (docs/METRICS.md): a source that knows a
 * series' device and port adds `role`, `rail` and `peer` from the topology
 * when it interns the series, so rules and dashboards can select uplinks,
 * rails and links without a join. One function for every source (its port
 * groups: engine/topo_groups.h). */
#ifndef FSC_TOPO_LABELS_H
#define FSC_TOPO_LABELS_H

#include <stddef.h>

#include "model/registry.h"
#include "model/topology.h"

/* Space a caller provides for the rail number's text. */
#define FSC_TOPO_RAIL_BUF 12

/* Appends to labels[*n] (capacity max) the labels the topology knows for
 * (device, port): role (uplink / downlink / nic), rail (a number) and peer
 * ("device:port"), each only when known and only when labels[0..*n) does
 * not already carry that name. Values point into the topology (owned by the
 * config) or into rail_buf. Returns how many were added; 0 when topo is NULL
 * or the port is unknown. Thread: any (the topology is read-only). */
size_t fsc_topo_labels_add(const struct fsc_topology *topo, const char *device, const char *port,
                           struct fsc_label *labels, size_t *n, size_t max,
                           char rail_buf[FSC_TOPO_RAIL_BUF]);

#endif
