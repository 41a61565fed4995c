/* topology: devices, ports, port groups, rails, cable plan (key tables and
 * the cross-reference checks that need the whole section).
 *
 * The cable plan's hardware layout (which card sits behind which physical
 * port, the netdev names of each card, the link speed) gets its defaults
 * here, so the effective config shows the whole layout the NIC module will
 * use; docs/CABLING.md explains each choice. */
#include <assert.h>
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "config/config_decode.h"
#include "model/topology_keys.h"

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
     .max = FSC_CABLE_MAX_NODE},
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

/* The field report's order: the ports on the back of a B300 are not wired to
 * the cards in card order. */
static int check_ifname(struct fsc_cctx *ctx, const struct fsc_ynode *val, const char *s)
{
    char q[96];
    if (fsc_cfg_check_name(ctx, val, s) != 0)
        return -1;
    if (strlen(s) > 15)
        return fsc_cfg_fail_at(ctx, val, "%s is longer than a Linux interface name (15 bytes)",
                               fsc_cfg_quote(s, q, sizeof(q)));
    return 0;
}

#define CCARD(field) offsetof(struct fsc_cable_card, field)
static const struct fsc_ckey cable_card_keys[] = {
    {.key = "card",
     .kind = FSC_CK_U32,
     .flags = FSC_CF_REQUIRED,
     .off = CCARD(card),
     .min = 0,
     .max = FSC_B300_CARDS - 1},
    {.key = "np0",
     .kind = FSC_CK_STR,
     .flags = FSC_CF_REQUIRED,
     .off = CCARD(np0),
     .check = check_ifname},
    {.key = "np1",
     .kind = FSC_CK_STR,
     .flags = FSC_CF_REQUIRED,
     .off = CCARD(np1),
     .check = check_ifname},
};

static const struct fsc_cspec cable_card_spec = {
    .what = "a cable plan card",
    .keys = cable_card_keys,
    .n_keys = FSC_NELEM(cable_card_keys),
    .mark_off = CCARD(mark),
};

/* port_cards: [7, 4, 6, 5, 0, 3, 1, 2], a permutation of the card numbers,
 * because every physical port leads to exactly one card. */
static int decode_port_cards(struct fsc_cctx *ctx, const struct fsc_ckey *key,
                             const struct fsc_ynode *val, void *obj)
{
    struct fsc_cable_plan *cp = obj;
    uint32_t cards[FSC_B300_PORTS];
    (void)key;
    if (val->kind != FSC_YNODE_SEQ)
        return fsc_cfg_fail_at(ctx, val,
                               "expected a list of %d card numbers (ports 1..%d in order), e.g. "
                               "[7, 4, 6, 5, 0, 3, 1, 2]",
                               FSC_B300_PORTS, FSC_B300_PORTS);
    if (val->n != FSC_B300_PORTS)
        return fsc_cfg_fail_at(ctx, val, "needs %d card numbers, one per physical port, got %zu",
                               FSC_B300_PORTS, val->n);
    const struct fsc_ckey ck = {.kind = FSC_CK_U32, .min = 0, .max = FSC_B300_CARDS - 1};
    for (size_t i = 0; i < val->n; i++) {
        size_t pl = fsc_cfg_path_index(ctx, i);
        int rc = fsc_cfg_decode_scalar(ctx, &ck, val->items[i], &cards[i]);
        for (size_t j = 0; rc == 0 && j < i; j++) {
            if (cards[j] == cards[i])
                rc = fsc_cfg_fail_at(ctx, val->items[i], "card %u is already behind port %zu",
                                     (unsigned)cards[i], j + 1);
        }
        fsc_cfg_path_pop(ctx, pl);
        if (rc != 0)
            return -1;
    }
    memcpy(cp->port_cards, cards, sizeof(cards));
    return 0;
}

static void print_port_cards(FILE *out, unsigned indent, const struct fsc_ckey *key,
                             const void *obj)
{
    const struct fsc_cable_plan *cp = obj;
    (void)indent;
    (void)key;
    fputs(" [", out);
    for (size_t i = 0; i < FSC_B300_PORTS; i++)
        fprintf(out, "%s%u", i ? ", " : "", (unsigned)cp->port_cards[i]);
    fputs("]\n", out);
}

static void cable_plan_defaults(void *obj)
{
    struct fsc_cable_plan *cp = obj;
    memcpy(cp->port_cards, fsc_cable_default_port_cards, sizeof(cp->port_cards));
    cp->speed_bps = FSC_CABLE_DEFAULT_SPEED_BPS;
}

/* Index in the written cards list of card c, or SIZE_MAX for a default. */
static size_t card_written(const struct fsc_cable_card *written, size_t n, uint32_t c)
{
    for (size_t i = 0; i < n; i++) {
        if (written[i].card == c)
            return i;
    }
    return SIZE_MAX;
}

/* Fails at cards[i] of the written list with a sentence about `name`. */
static int fail_card_name(struct fsc_cctx *ctx, const struct fsc_cable_card *written, size_t i,
                          const char *name, uint32_t other, bool other_default)
{
    size_t pl = fsc_cfg_path_key(ctx, "cards");
    fsc_cfg_path_index(ctx, i);
    fsc_cfg_fail(ctx, written[i].mark.line, written[i].mark.col,
                 "\"%s\" is also the name of card %u np%u%s", name, (unsigned)(other / 2),
                 (unsigned)(other % 2),
                 other_default ? " (its default name: give that card's names too)" : "");
    fsc_cfg_path_pop(ctx, pl);
    return -1;
}

/* Completes cards to all FSC_B300_CARDS (defaults for the ones not given,
 * in card order) and checks that no card is given twice and that the 16
 * interface names are distinct: a name shared by two interfaces would make
 * the plan's (node, interface) lookups ambiguous. */
static int cable_plan_finish(struct fsc_cctx *ctx, const struct fsc_ynode *node,
                             struct fsc_config_mark mark, void *obj)
{
    struct fsc_cable_plan *cp = obj;
    const struct fsc_cable_card *written = cp->cards;
    size_t n_written = cp->n_cards;
    (void)node;
    for (size_t i = 0; i < n_written; i++) {
        size_t first = card_written(written, i, written[i].card);
        if (first != SIZE_MAX) {
            size_t pl = fsc_cfg_path_key(ctx, "cards");
            fsc_cfg_path_index(ctx, i);
            fsc_cfg_path_key(ctx, "card");
            fsc_cfg_fail(ctx, written[i].mark.line, written[i].mark.col,
                         "card %u is already cards[%zu]", (unsigned)written[i].card, first);
            fsc_cfg_path_pop(ctx, pl);
            return -1;
        }
    }
    struct fsc_cable_card *all = fsc_cfg_arena_alloc(ctx->arena, FSC_B300_CARDS * sizeof(*all));
    if (all == NULL)
        return fsc_cfg_fail(ctx, mark.line, mark.col, "out of memory");
    for (uint32_t c = 0; c < FSC_B300_CARDS; c++) {
        size_t i = card_written(written, n_written, c);
        if (i != SIZE_MAX) {
            all[c] = written[i];
        } else {
            all[c].card = c;
            all[c].np0 = fsc_cable_default_ifnames[c][0];
            all[c].np1 = fsc_cable_default_ifnames[c][1];
        }
    }
    /* Interface k is card k / 2, np k % 2. The built-in names are distinct,
     * so every clash involves at least one written entry: blame it (the
     * later one when both are written). */
    for (uint32_t k = 0; k < 2 * FSC_B300_CARDS; k++) {
        const char *name = k % 2 ? all[k / 2].np1 : all[k / 2].np0;
        for (uint32_t j = 0; j < k; j++) {
            if (strcmp(name, j % 2 ? all[j / 2].np1 : all[j / 2].np0) != 0)
                continue;
            size_t ik = card_written(written, n_written, k / 2);
            size_t ij = card_written(written, n_written, j / 2);
            if (ik != SIZE_MAX)
                return fail_card_name(ctx, written, ik, name, j, ij == SIZE_MAX);
            assert(ij != SIZE_MAX);
            return fail_card_name(ctx, written, ij, name, k, true);
        }
    }
    cp->cards = all;
    cp->n_cards = FSC_B300_CARDS;
    return 0;
}

#define CPLAN(field) offsetof(struct fsc_cable_plan, field)
static const struct fsc_ckey cable_plan_keys[] = {
    {.key = "file",
     .kind = FSC_CK_STR,
     .flags = FSC_CF_REQUIRED | FSC_CF_PATH | FSC_CF_INPUT_FILE,
     .off = CPLAN(file)},
    {.key = "nodes",
     .kind = FSC_CK_LIST,
     .flags = FSC_CF_FLOW | FSC_CF_OMIT_ZERO,
     .off = CPLAN(nodes),
     .off2 = CPLAN(n_nodes),
     .spec = &cable_node_spec,
     .elem_size = sizeof(struct fsc_cable_node),
     .max_items = FSC_CABLE_MAX_NODE},
    {.key = "port_cards",
     .kind = FSC_CK_CUSTOM,
     .decode = decode_port_cards,
     .print = print_port_cards},
    {.key = "cards",
     .kind = FSC_CK_LIST,
     .flags = FSC_CF_FLOW,
     .off = CPLAN(cards),
     .off2 = CPLAN(n_cards),
     .spec = &cable_card_spec,
     .elem_size = sizeof(struct fsc_cable_card),
     .max_items = FSC_B300_CARDS},
    {.key = "speed",
     .kind = FSC_CK_SPEED,
     .off = CPLAN(speed_bps),
     .min = 1000000,
     .max = 10000000000000ll},
};

static const struct fsc_cspec cable_plan_spec = {
    .what = "the cable plan",
    .keys = cable_plan_keys,
    .n_keys = FSC_NELEM(cable_plan_keys),
    .defaults = cable_plan_defaults,
    .finish = cable_plan_finish,
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

static const struct fsc_cspec topology_spec = {
    .what = "the topology section",
    .keys = topology_keys,
    .n_keys = FSC_NELEM(topology_keys),
    .finish = topology_finish,
};

const struct fsc_config_kind fsc_topology_kind = {
    .name = "topology",
    .spec = &topology_spec,
    .size = sizeof(struct fsc_topology),
};

const struct fsc_topology *fsc_topology_of(const struct fsc_config *cfg)
{
    return fsc_config_section(cfg, &fsc_topology_kind);
}
