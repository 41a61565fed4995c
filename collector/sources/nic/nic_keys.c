/* nic sources: devices (or auto), poll interval, the sysfs prefix and the
 * test-only fixture switch, ethtool and PCIe switches, the cable plan and
 * node (docs/CONFIG.md, "nic"). */
#include <stdbool.h>
#include <stddef.h>
#include <string.h>

#include "config/config_decode.h"
#include "model/cable_plan.h"
#include "model/topology_keys.h"
#include "sources/nic/nic_config.h"

#define MS  1000000ll
#define SEC 1000000000ll

#define X(f) offsetof(struct fsc_nic_config, f)

static int check_netdev(struct fsc_cctx *ctx, const struct fsc_ynode *val, const char *s)
{
    char q[96];
    if (fsc_cfg_check_name(ctx, val, s) != 0)
        return -1;
    if (strlen(s) > 15)
        return fsc_cfg_fail_at(ctx, val, "%s is longer than a Linux interface name (15 bytes)",
                               fsc_cfg_quote(s, q, sizeof(q)));
    return 0;
}

/* sysfs_root "/" (or "//"...): the running host's own /sys. */
static bool root_is_slash(const char *root)
{
    if (!root || !root[0])
        return true;
    for (const char *p = root; *p; p++)
        if (*p != '/')
            return false;
    return true;
}

/* fixture: true is the test mode, and only that: it needs a tree to read
 * and cannot ask the running kernel (SIOCETHTOOL) about the tree's
 * interfaces. ethtool follows it when not written, so the printed config
 * (ethtool: false) loads back. */
static int fixture_finish(struct fsc_cctx *ctx, const struct fsc_ynode *node,
                          struct fsc_config_mark mark, struct fsc_nic_config *n)
{
    if (!n->fixture)
        return 0;
    if (root_is_slash(n->sysfs_root))
        return fsc_cfg_fail_key(ctx, node, "fixture", mark,
                                "fixture: true needs sysfs_root pointing at a fixture tree "
                                "(sysfs_root is \"/\", the running host)");
    if (fsc_ymap_get(node, "ethtool") == NULL)
        n->ethtool = false;
    else if (n->ethtool)
        return fsc_cfg_fail_key(ctx, node, "ethtool", mark,
                                "ethtool: true asks the running kernel, whose interfaces are not "
                                "the fixture tree's: drop it (fixture: true turns it off)");
    return 0;
}

static void nic_device_defaults(void *obj)
{
    ((struct fsc_nic_device *)obj)->port = 1;
}

#define NICDEV(field) offsetof(struct fsc_nic_device, field)
static const struct fsc_ckey nic_device_keys[] = {
    {.key = "rdma",
     .kind = FSC_CK_STR,
     .flags = FSC_CF_REQUIRED,
     .off = NICDEV(rdma),
     .check = fsc_cfg_check_name},
    {.key = "netdev", .kind = FSC_CK_STR, .off = NICDEV(netdev), .check = check_netdev},
    {.key = "port", .kind = FSC_CK_U32, .off = NICDEV(port), .min = 1, .max = 255},
};

static const struct fsc_cspec nic_device_spec = {
    .what = "a nic device",
    .keys = nic_device_keys,
    .n_keys = FSC_NELEM(nic_device_keys),
    .defaults = nic_device_defaults,
    .mark_off = NICDEV(mark),
};

static void nic_defaults(void *obj)
{
    struct fsc_nic_config *n = obj;
    n->sysfs_root = "/";
    n->interval_ns = 100 * MS;
    n->ethtool = true;
    n->pcie = true;
}

static int nic_finish(struct fsc_cctx *ctx, const struct fsc_ynode *node,
                      struct fsc_config_mark mark, void *obj)
{
    struct fsc_nic_config *n = obj;
    if (n->device == NULL)
        n->device = ctx->source->name;
    if (fsc_ymap_get(node, "auto") == NULL)
        n->auto_devices = n->n_devices == 0;
    if (n->auto_devices && n->n_devices > 0)
        return fsc_cfg_fail_key(ctx, node, "auto", mark,
                                "give either devices or auto: true, not both");
    if (!n->auto_devices && n->n_devices == 0)
        return fsc_cfg_fail_key(ctx, node, "devices", mark,
                                "no devices to poll: list them or set auto: true");
    if (fixture_finish(ctx, node, mark, n) != 0)
        return -1;
    if (n->cable_plan != NULL && n->node == 0)
        return fsc_cfg_fail_key(ctx, node, "node", mark, "required with cable_plan");
    for (size_t i = 0; i < n->n_devices; i++) {
        for (size_t j = 0; j < i; j++) {
            const struct fsc_nic_device *a = &n->devices[i], *b = &n->devices[j];
            if (strcmp(a->rdma, b->rdma) != 0 || a->port != b->port)
                continue;
            size_t pl = fsc_cfg_path_key(ctx, "devices");
            fsc_cfg_path_index(ctx, i);
            fsc_cfg_fail(ctx, a->mark.line, a->mark.col, "%s port %u is already devices[%zu]",
                         a->rdma, (unsigned)a->port, j);
            fsc_cfg_path_pop(ctx, pl);
            return -1;
        }
    }
    return 0;
}

static const struct fsc_ckey nic_keys[] = {
    {.key = "device", .kind = FSC_CK_STR, .off = X(device), .check = fsc_cfg_check_name},
    {.key = "sysfs_root",
     .kind = FSC_CK_STR,
     .flags = FSC_CF_PATH | FSC_CF_INPUT_DIR,
     .off = X(sysfs_root)},
    {.key = "fixture", .kind = FSC_CK_BOOL, .off = X(fixture)},
    {.key = "interval", .kind = FSC_CK_DUR, .off = X(interval_ns), .min = 10 * MS, .max = 60 * SEC},
    {.key = "auto", .kind = FSC_CK_BOOL, .off = X(auto_devices)},
    {.key = "devices",
     .kind = FSC_CK_LIST,
     .flags = FSC_CF_OMIT_ZERO | FSC_CF_FLOW,
     .off = X(devices),
     .off2 = X(n_devices),
     .spec = &nic_device_spec,
     .elem_size = sizeof(struct fsc_nic_device),
     .max_items = 64},
    {.key = "ethtool", .kind = FSC_CK_BOOL, .off = X(ethtool)},
    {.key = "pcie", .kind = FSC_CK_BOOL, .off = X(pcie)},
    {.key = "cable_plan",
     .kind = FSC_CK_STR,
     .flags = FSC_CF_PATH | FSC_CF_INPUT_FILE,
     .off = X(cable_plan)},
    {.key = "node",
     .kind = FSC_CK_U32,
     .flags = FSC_CF_OMIT_ZERO,
     .off = X(node),
     .min = 1,
     .max = FSC_CABLE_MAX_NODE},
};

static const struct fsc_cspec nic_spec = {
    .what = "a nic source",
    .keys = nic_keys,
    .n_keys = FSC_NELEM(nic_keys),
    .defaults = nic_defaults,
    .finish = nic_finish,
};

static const char *nic_device(const struct fsc_source_config *src)
{
    return ((const struct fsc_nic_config *)src->settings)->device;
}

static const char *nic_cable_plan(const struct fsc_source_config *src)
{
    return ((const struct fsc_nic_config *)src->settings)->cable_plan;
}

/* node: needs a cable plan, here or in topology: (another section). */
static int nic_check(struct fsc_cctx *ctx, const struct fsc_config *cfg, const void *obj,
                     const struct fsc_ynode *node)
{
    const struct fsc_nic_config *n = obj;
    const struct fsc_topology *topo = fsc_topology_of(cfg);
    if (n->node == 0 || n->cable_plan != NULL || (topo && topo->cable_plan.present))
        return 0;
    return fsc_cfg_fail_key(ctx, node, "node", fsc_cfg_node_mark(node),
                            "needs a cable plan (cable_plan here or topology.cable_plan)");
}

/* A NIC poller reads the host it runs on: every collector keeps its own. */
const struct fsc_config_kind fsc_nic_kind = {
    .name = "nic",
    .spec = &nic_spec,
    .size = sizeof(struct fsc_nic_config),
    .profile = "mlx5",
    .shard = FSC_SHARD_NEVER,
    .device = nic_device,
    .cable_plan = nic_cable_plan,
    .check = nic_check,
};

const struct fsc_nic_config *fsc_nic_config_of(const struct fsc_source_config *sc)
{
    return sc->kind == &fsc_nic_kind ? sc->settings : NULL;
}
