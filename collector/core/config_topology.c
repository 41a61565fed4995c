/* topology: devices, ports, port groups, rails, cable plan (key tables and
 * the cross-reference checks that need the whole section). */
#include <errno.h>
#include <stddef.h>
#include <string.h>

#include "core/config_decode.h"

#define RAIL_UNSET (-2) /* port rail not given: inherits the device's */
#define MAX_RAILS  64

static const char *const device_role_names[] = {"leaf", "spine", "host", NULL};
static const char *const port_role_names[] = {"none", "uplink", "downlink", "nic", NULL};

/* ---- ports and devices -------------------------------------------------------- */

#define PORT(field) offsetof(struct fsc_topo_port, field)

static void port_defaults(void *obj)
{
    ((struct fsc_topo_port *)obj)->rail = RAIL_UNSET;
}

static const struct fsc_ckey port_keys[] = {
    {.key = "name",
     .kind = FSC_CK_STR,
     .flags = FSC_CF_REQUIRED,
     .off = PORT(name),
     .check = fsc_cfg_check_port_name},
    {.key = "speed",
     .kind = FSC_CK_SPEED,
     .flags = FSC_CF_OMIT_ZERO,
     .off = PORT(speed_bps),
     .min = 1000000,
     .max = 10000000000000ll},
    {.key = "role",
     .kind = FSC_CK_ENUM,
     .flags = FSC_CF_OMIT_ZERO,
     .off = PORT(role),
     .names = port_role_names},
    {.key = "rail",
     .kind = FSC_CK_INT,
     .flags = FSC_CF_OMIT_ZERO,
     .off = PORT(rail),
     .min = 0,
     .max = MAX_RAILS - 1},
    {.key = "peer",
     .kind = FSC_CK_STR,
     .flags = FSC_CF_OMIT_ZERO,
     .off = PORT(peer),
     .max = 128,
     .check = fsc_cfg_check_portref},
};

static const struct fsc_cspec port_spec = {
    .what = "a port",
    .keys = port_keys,
    .n_keys = FSC_NELEM(port_keys),
    .defaults = port_defaults,
    .mark_off = PORT(mark),
};

#define DEV(field) offsetof(struct fsc_topo_device, field)

static void device_defaults(void *obj)
{
    ((struct fsc_topo_device *)obj)->rail = FSC_RAIL_NONE;
}

/* Ports inherit the device's rail; ports of hosts are NIC ports. */
static int device_finish(struct fsc_cctx *ctx, const struct fsc_ynode *node,
                         struct fsc_config_mark mark, void *obj)
{
    struct fsc_topo_device *dev = obj;
    (void)ctx;
    (void)node;
    (void)mark;
    for (size_t p = 0; p < dev->n_ports; p++) {
        struct fsc_topo_port *port = &dev->ports[p];
        if (port->rail == RAIL_UNSET)
            port->rail = dev->rail;
        if (port->role == FSC_PORT_ROLE_NONE && dev->role == FSC_DEVICE_HOST)
            port->role = FSC_PORT_NIC;
    }
    return 0;
}

static const struct fsc_ckey device_keys[] = {
    {.key = "name",
     .kind = FSC_CK_STR,
     .flags = FSC_CF_REQUIRED,
     .off = DEV(name),
     .check = fsc_cfg_check_name},
    {.key = "role",
     .kind = FSC_CK_ENUM,
     .flags = FSC_CF_REQUIRED,
     .off = DEV(role),
     .names = device_role_names},
    {.key = "rail",
     .kind = FSC_CK_INT,
     .flags = FSC_CF_OMIT_ZERO,
     .off = DEV(rail),
     .min = 0,
     .max = MAX_RAILS - 1},
    {.key = "buffer",
     .kind = FSC_CK_BYTES,
     .flags = FSC_CF_OMIT_ZERO,
     .off = DEV(buffer_bytes),
     .min = 1024,
     .max = 1ll << 40},
    {.key = "ports",
     .kind = FSC_CK_LIST,
     .flags = FSC_CF_FLOW,
     .off = DEV(ports),
     .off2 = DEV(n_ports),
     .spec = &port_spec,
     .elem_size = sizeof(struct fsc_topo_port),
     .max_items = 1024},
};

static const struct fsc_cspec device_spec = {
    .what = "a device",
    .keys = device_keys,
    .n_keys = FSC_NELEM(device_keys),
    .defaults = device_defaults,
    .finish = device_finish,
    .mark_off = DEV(mark),
};

/* ---- groups and cable plan ---------------------------------------------------- */

#define GRP(field) offsetof(struct fsc_topo_group, field)
static const struct fsc_ckey group_keys[] = {
    {.key = "name",
     .kind = FSC_CK_STR,
     .flags = FSC_CF_REQUIRED,
     .off = GRP(name),
     .check = fsc_cfg_check_name},
    {.key = "members",
     .kind = FSC_CK_STRLIST,
     .flags = FSC_CF_REQUIRED | FSC_CF_FLOW,
     .off = GRP(member_names),
     .off2 = GRP(n_members),
     .min = 2,
     .max = 128,
     .max_items = 1024,
     .check = fsc_cfg_check_portref},
};

static const struct fsc_cspec group_spec = {
    .what = "a port group",
    .keys = group_keys,
    .n_keys = FSC_NELEM(group_keys),
    .mark_off = GRP(mark),
};

#define CNODE(field) offsetof(struct fsc_cable_node, field)
static const struct fsc_ckey cable_node_keys[] = {
    {.key = "node",
     .kind = FSC_CK_U32,
     .flags = FSC_CF_REQUIRED,
     .off = CNODE(node),
     .min = 1,
     .max = 9999},
    {.key = "device",
     .kind = FSC_CK_STR,
     .flags = FSC_CF_REQUIRED,
     .off = CNODE(device),
     .check = fsc_cfg_check_name},
};

static const struct fsc_cspec cable_node_spec = {
    .what = "a cable plan node",
    .keys = cable_node_keys,
    .n_keys = FSC_NELEM(cable_node_keys),
    .mark_off = CNODE(mark),
};

#define CPLAN(field) offsetof(struct fsc_cable_plan, field)
static const struct fsc_ckey cable_plan_keys[] = {
    {.key = "file", .kind = FSC_CK_STR, .flags = FSC_CF_REQUIRED | FSC_CF_PATH, .off = CPLAN(file)},
    {.key = "nodes",
     .kind = FSC_CK_LIST,
     .flags = FSC_CF_FLOW | FSC_CF_OMIT_ZERO,
     .off = CPLAN(nodes),
     .off2 = CPLAN(n_nodes),
     .spec = &cable_node_spec,
     .elem_size = sizeof(struct fsc_cable_node),
     .max_items = 4096},
};

static const struct fsc_cspec cable_plan_spec = {
    .what = "the cable plan",
    .keys = cable_plan_keys,
    .n_keys = FSC_NELEM(cable_plan_keys),
};

/* ---- cross references ---------------------------------------------------------- */

/* Sets ctx->path to topology.<list>[i](.<list2>[j]) for a message. */
static size_t path_to(struct fsc_cctx *ctx, const char *list, size_t i, const char *list2, size_t j)
{
    size_t pl = fsc_cfg_path_key(ctx, list);
    fsc_cfg_path_index(ctx, i);
    if (list2 != NULL) {
        fsc_cfg_path_key(ctx, list2);
        fsc_cfg_path_index(ctx, j);
    }
    return pl;
}

static void *arena_cb(void *arg, size_t size)
{
    return fsc_cfg_arena_alloc(arg, size);
}

static int build_index(struct fsc_cctx *ctx, struct fsc_topology *topo, struct fsc_config_mark at)
{
    struct fsc_topo_dup dup;
    int rc = fsc_topology_index_build(topo, arena_cb, ctx->arena, &dup);
    if (rc == -ENOMEM)
        return fsc_cfg_fail(ctx, at.line, at.col, "out of memory (the configuration is too large)");
    if (rc == 0)
        return 0;
    size_t pl;
    if (strcmp(dup.what, "device") == 0) {
        const struct fsc_topo_device *d = &topo->devices[dup.index];
        pl = path_to(ctx, "devices", dup.index, NULL, 0);
        fsc_cfg_path_key(ctx, "name");
        fsc_cfg_fail(ctx, d->mark.line, d->mark.col, "\"%s\" is already the name of devices[%zu]",
                     d->name, dup.first);
    } else if (strcmp(dup.what, "port") == 0) {
        const struct fsc_topo_port *p = &topo->devices[dup.index].ports[dup.port];
        pl = path_to(ctx, "devices", dup.index, "ports", dup.port);
        fsc_cfg_path_key(ctx, "name");
        fsc_cfg_fail(ctx, p->mark.line, p->mark.col,
                     "\"%s\" is already the name of ports[%zu] of device %s", p->name, dup.first,
                     topo->devices[dup.index].name);
    } else {
        const struct fsc_topo_group *g = &topo->groups[dup.index];
        pl = path_to(ctx, "port_groups", dup.index, NULL, 0);
        fsc_cfg_path_key(ctx, "name");
        fsc_cfg_fail(ctx, g->mark.line, g->mark.col,
                     "\"%s\" is already the name of port_groups[%zu]", g->name, dup.first);
    }
    fsc_cfg_path_pop(ctx, pl);
    return -1;
}

static int check_rail(struct fsc_cctx *ctx, const struct fsc_topology *topo, int rail,
                      struct fsc_config_mark m)
{
    if (rail < 0)
        return 0;
    if (topo->rails == 0)
        return fsc_cfg_fail(ctx, m.line, m.col,
                            "rail %d is given but topology.rails is not set (the number of rails)",
                            rail);
    if ((uint32_t)rail >= topo->rails)
        return fsc_cfg_fail(ctx, m.line, m.col, "rail %d is not below topology.rails (%u)", rail,
                            (unsigned)topo->rails);
    return 0;
}

/* Splits peer references, checks them against the ports they name, and
 * fills in the reverse direction when only one end names its peer. */
static int check_peers(struct fsc_cctx *ctx, struct fsc_topology *topo, size_t d, size_t p)
{
    struct fsc_topo_device *dev = &topo->devices[d];
    struct fsc_topo_port *port = &dev->ports[p];
    if (port->peer == NULL)
        return 0;
    const char *colon = strchr(port->peer, ':');
    size_t dl = (size_t)(colon - port->peer);
    char *pd = fsc_cfg_arena_strndup(ctx->arena, port->peer, dl);
    if (pd == NULL)
        return fsc_cfg_fail(ctx, port->mark.line, port->mark.col, "out of memory");
    port->peer_device = pd;
    port->peer_port = colon + 1;
    if (strcmp(pd, dev->name) == 0 && strcmp(colon + 1, port->name) == 0)
        return fsc_cfg_fail(ctx, port->mark.line, port->mark.col, "a port cannot be its own peer");
    if (fsc_topology_device(topo, pd) == NULL)
        return 0; /* a device outside the described topology */
    struct fsc_topo_port *other =
        (struct fsc_topo_port *)fsc_topology_port(topo, pd, colon + 1, NULL);
    if (other == NULL)
        return fsc_cfg_fail(ctx, port->mark.line, port->mark.col, "device %s has no port \"%s\"",
                            pd, colon + 1);
    if (other->peer == NULL) {
        size_t n = strlen(dev->name) + strlen(port->name) + 2;
        char *ref = fsc_cfg_arena_alloc(ctx->arena, n);
        if (ref == NULL)
            return fsc_cfg_fail(ctx, port->mark.line, port->mark.col, "out of memory");
        snprintf(ref, n, "%s:%s", dev->name, port->name);
        other->peer = ref;
        other->peer_device = dev->name;
        other->peer_port = port->name;
        return 0;
    }
    size_t ol = strlen(dev->name);
    if (strncmp(other->peer, dev->name, ol) != 0 || other->peer[ol] != ':' ||
        strcmp(other->peer + ol + 1, port->name) != 0)
        return fsc_cfg_fail(ctx, port->mark.line, port->mark.col,
                            "peer %s names %s as its own peer, not %s:%s", port->peer, other->peer,
                            dev->name, port->name);
    return 0;
}

static int resolve_groups(struct fsc_cctx *ctx, struct fsc_topology *topo)
{
    for (size_t g = 0; g < topo->n_groups; g++) {
        struct fsc_topo_group *grp = &topo->groups[g];
        grp->members = fsc_cfg_arena_alloc(ctx->arena, grp->n_members * sizeof(*grp->members));
        if (grp->members == NULL)
            return fsc_cfg_fail(ctx, grp->mark.line, grp->mark.col, "out of memory");
        for (size_t m = 0; m < grp->n_members; m++) {
            const char *ref = grp->member_names[m];
            const struct fsc_topo_device *dev;
            const struct fsc_topo_port *port = fsc_topology_port_ref(topo, ref, &dev);
            char q[96];
            size_t pl = path_to(ctx, "port_groups", g, "members", m);
            int rc = 0;
            if (port == NULL) {
                const char *colon = strchr(ref, ':');
                char devname[FSC_CONFIG_MAX_NAME + 1];
                snprintf(devname, sizeof(devname), "%.*s", (int)(colon - ref), ref);
                if (fsc_topology_device(topo, devname) == NULL)
                    rc = fsc_cfg_fail(ctx, grp->mark.line, grp->mark.col,
                                      "%s: device %s is not in topology.devices",
                                      fsc_cfg_quote(ref, q, sizeof(q)), devname);
                else
                    rc = fsc_cfg_fail(ctx, grp->mark.line, grp->mark.col,
                                      "%s: device %s has no port \"%s\"",
                                      fsc_cfg_quote(ref, q, sizeof(q)), devname, colon + 1);
            } else {
                grp->members[m].device = (uint32_t)(dev - topo->devices);
                grp->members[m].port = (uint32_t)(port - dev->ports);
                for (size_t k = 0; k < m; k++) {
                    if (grp->members[k].device == grp->members[m].device &&
                        grp->members[k].port == grp->members[m].port)
                        rc = fsc_cfg_fail(ctx, grp->mark.line, grp->mark.col,
                                          "%s is already members[%zu]",
                                          fsc_cfg_quote(ref, q, sizeof(q)), k);
                }
            }
            fsc_cfg_path_pop(ctx, pl);
            if (rc != 0)
                return -1;
        }
    }
    return 0;
}

static int check_cable_plan(struct fsc_cctx *ctx, const struct fsc_topology *topo)
{
    const struct fsc_cable_plan *cp = &topo->cable_plan;
    for (size_t i = 0; i < cp->n_nodes; i++) {
        const struct fsc_cable_node *n = &cp->nodes[i];
        size_t pl = fsc_cfg_path_key(ctx, "cable_plan");
        fsc_cfg_path_key(ctx, "nodes");
        fsc_cfg_path_index(ctx, i);
        int rc = 0;
        if (fsc_topology_device(topo, n->device) == NULL)
            rc = fsc_cfg_fail(ctx, n->mark.line, n->mark.col,
                              "device %s is not in topology.devices", n->device);
        for (size_t j = 0; rc == 0 && j < i; j++) {
            if (cp->nodes[j].node == n->node)
                rc = fsc_cfg_fail(ctx, n->mark.line, n->mark.col, "node %u is already nodes[%zu]",
                                  (unsigned)n->node, j);
            else if (strcmp(cp->nodes[j].device, n->device) == 0)
                rc = fsc_cfg_fail(ctx, n->mark.line, n->mark.col, "device %s is already nodes[%zu]",
                                  n->device, j);
        }
        fsc_cfg_path_pop(ctx, pl);
        if (rc != 0)
            return -1;
    }
    return 0;
}

static int topology_finish(struct fsc_cctx *ctx, const struct fsc_ynode *node,
                           struct fsc_config_mark mark, void *obj)
{
    struct fsc_topology *topo = obj;
    (void)node;
    if (build_index(ctx, topo, mark) != 0)
        return -1;
    for (size_t d = 0; d < topo->n_devices; d++) {
        struct fsc_topo_device *dev = &topo->devices[d];
        size_t pl = path_to(ctx, "devices", d, NULL, 0);
        size_t dl = fsc_cfg_path_key(ctx, "rail");
        int rc = check_rail(ctx, topo, dev->rail, dev->mark);
        fsc_cfg_path_pop(ctx, dl);
        for (size_t p = 0; rc == 0 && p < dev->n_ports; p++) {
            size_t ppl = fsc_cfg_path_key(ctx, "ports");
            fsc_cfg_path_index(ctx, p);
            fsc_cfg_path_key(ctx, "rail");
            rc = check_rail(ctx, topo, dev->ports[p].rail, dev->ports[p].mark);
            fsc_cfg_path_pop(ctx, ppl);
            if (rc == 0) {
                fsc_cfg_path_key(ctx, "ports");
                fsc_cfg_path_index(ctx, p);
                fsc_cfg_path_key(ctx, "peer");
                rc = check_peers(ctx, topo, d, p);
                fsc_cfg_path_pop(ctx, ppl);
            }
        }
        fsc_cfg_path_pop(ctx, pl);
        if (rc != 0)
            return -1;
    }
    if (resolve_groups(ctx, topo) != 0)
        return -1;
    return check_cable_plan(ctx, topo);
}

#define TOPO(field) offsetof(struct fsc_topology, field)
static const struct fsc_ckey topology_keys[] = {
    {.key = "rails", .kind = FSC_CK_U32, .off = TOPO(rails), .min = 0, .max = MAX_RAILS},
    {.key = "devices",
     .kind = FSC_CK_LIST,
     .flags = FSC_CF_OMIT_ZERO,
     .off = TOPO(devices),
     .off2 = TOPO(n_devices),
     .spec = &device_spec,
     .elem_size = sizeof(struct fsc_topo_device),
     .max_items = 4096},
    {.key = "port_groups",
     .kind = FSC_CK_LIST,
     .flags = FSC_CF_OMIT_ZERO,
     .off = TOPO(groups),
     .off2 = TOPO(n_groups),
     .spec = &group_spec,
     .elem_size = sizeof(struct fsc_topo_group),
     .max_items = 4096},
    {.key = "cable_plan",
     .kind = FSC_CK_MAP,
     .flags = FSC_CF_PRESENCE,
     .off = TOPO(cable_plan),
     .spec = &cable_plan_spec},
};

const struct fsc_cspec fsc_cspec_topology = {
    .what = "the topology section",
    .keys = topology_keys,
    .n_keys = FSC_NELEM(topology_keys),
    .finish = topology_finish,
};
