#include "model/topo_labels.h"

#include <stdio.h>
#include <string.h>

static int has_label(const struct fsc_label *labels, size_t n, const char *name)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(labels[i].name, name) == 0)
            return 1;
    return 0;
}

static size_t add(struct fsc_label *labels, size_t *n, size_t max, const char *name,
                  const char *value)
{
    if (*n >= max || has_label(labels, *n, name))
        return 0;
    labels[*n].name = name;
    labels[*n].value = value;
    (*n)++;
    return 1;
}

size_t fsc_topo_labels_add(const struct fsc_topology *topo, const char *device, const char *port,
                           struct fsc_label *labels, size_t *n, size_t max,
                           char rail_buf[FSC_TOPO_RAIL_BUF])
{
    const struct fsc_topo_device *dev = NULL;
    if (!topo || !device || !port)
        return 0;
    const struct fsc_topo_port *tp = fsc_topology_port(topo, device, port, &dev);
    if (!tp)
        return 0;
    size_t added = 0;
    if (tp->role != FSC_PORT_ROLE_NONE)
        added += add(labels, n, max, "role", fsc_port_role_name(tp->role));
    if (tp->rail != FSC_RAIL_NONE) {
        snprintf(rail_buf, FSC_TOPO_RAIL_BUF, "%d", tp->rail);
        added += add(labels, n, max, "rail", rail_buf);
    }
    if (tp->peer)
        added += add(labels, n, max, "peer", tp->peer);
    return added;
}
