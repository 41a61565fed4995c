/* The topology's links as the engine's cross-source evidence (xsrc.h): a
 * series of a port that has a peer is linked to it. One function for every
 * source, called where the series joins its port groups
 * (engine/topo_groups.h). */
#ifndef FSC_TOPO_PEERS_H
#define FSC_TOPO_PEERS_H

#include "engine/engine.h"
#include "model/topology.h"

/* Links series `id` of (device, port) to the port at the other end of its
 * link: `peer` ("device:port") when the source knows it better than the
 * topology (the NIC source's B300 cable plan, as its `peer` label), else
 * the topology port's peer. Only the series cross-source evidence reads
 * join: port bytes with a link speed (microbursts), queue peaks and buffer
 * thresholds, each with a direction; its traits must be set already.
 * Returns 1 when linked, 0 when there is nothing to link (no peer known,
 * another signal, no direction) or the engine's link table is full (the
 * series is collected all the same, only unlinked), or a negative errno
 * from the engine (-ENOMEM, -ERANGE). Thread: any source thread. */
int fsc_topo_peer_join(const struct fsc_topology *topo, struct fsc_engine *eng, const char *device,
                       const char *port, const char *peer, const struct fsc_traits *tr,
                       fsc_series_id id);

#endif
