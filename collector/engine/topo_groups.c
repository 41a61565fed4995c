#include "engine/topo_groups.h"

int fsc_topo_groups_join(const struct fsc_topology *topo, struct fsc_engine *eng,
                         const char *device, const char *port, const struct fsc_traits *tr,
                         fsc_series_id id)
{
    if (!topo || topo->n_groups == 0 || !device || !port || tr->signal != FSC_SIG_PORT_BYTES ||
        tr->direction != FSC_DIR_TX)
        return 0;
    const struct fsc_topo_device *dev = NULL;
    const struct fsc_topo_port *tp = fsc_topology_port(topo, device, port, &dev);
    if (!tp)
        return 0;
    int joined = 0;
    /* Groups are few (one per leaf, one per B300 node) and this runs once
     * per series: a scan is fine. */
    for (size_t g = 0; g < topo->n_groups; g++) {
        const struct fsc_topo_group *grp = &topo->groups[g];
        for (size_t m = 0; m < grp->n_members; m++) {
            const struct fsc_topo_member *mem = &grp->members[m];
            if (&topo->devices[mem->device] != dev || &dev->ports[mem->port] != tp)
                continue;
            int rc = fsc_engine_group_add(eng, (uint32_t)g, id);
            if (rc != 0)
                return rc;
            joined++;
        }
    }
    return joined;
}
