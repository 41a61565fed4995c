#include "engine/topo_peers.h"

#include <errno.h>
#include <stdio.h>

int fsc_topo_peer_join(const struct fsc_topology *topo, struct fsc_engine *eng, const char *device,
                       const char *port, const char *peer, const struct fsc_traits *tr,
                       fsc_series_id id)
{
    bool reads = (tr->signal == FSC_SIG_PORT_BYTES && tr->link_speed_bps > 0) ||
                 tr->signal == FSC_SIG_QUEUE_PEAK || tr->signal == FSC_SIG_LATENCY_PEAK ||
                 tr->signal == FSC_SIG_BUFFER_THRESHOLD;
    if (!eng || !device || !port || !reads ||
        (tr->direction != FSC_DIR_RX && tr->direction != FSC_DIR_TX))
        return 0;
    if (!peer || !*peer) {
        const struct fsc_topo_port *tp = topo ? fsc_topology_port(topo, device, port, NULL) : NULL;
        peer = tp ? tp->peer : NULL;
    }
    if (!peer || !*peer)
        return 0;
    char self[FSC_EVENT_SUBJECT_MAX];
    snprintf(self, sizeof(self), "%s:%s", device, port);
    int rc = fsc_engine_peer_add(eng, id, self, peer);
    /* A port named its own peer: a topology mistake, not a reason to
     * refuse the series. */
    /* The link only annotates events: a full table (-ENOSPC) must not cost
     * the series its data, so it is "nothing linked". Out of memory is
     * still an error, as for every other allocation of a new series. */
    if (rc == -EINVAL || rc == -ENOSPC)
        return 0;
    return rc < 0 ? rc : 1;
}
