/* The nic source's ports: the devices the config lists, or every RDMA
 * device of the sysfs tree with each of its ports paired with its netdevs
 * (discovered once at start; a device added later needs a restart, one that
 * vanishes and comes back is reopened by the 10 s refresh). */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/log.h"
#include "sources/nic/nic_source_int.h"

#define NAME_MAX_LEN 64 /* directory entries kept by discovery */
#define NETDEVS_MAX  16 /* netdevs of one RDMA device considered */

static int cmp_names(const void *a, const void *b)
{
    return strcmp((const char *)a, (const char *)b);
}

/* Sorted entry names of directory <sysfs>/<rel> (no dot entries; digits
 * only when `digits`) into out[cap][NAME_MAX_LEN]; longer names are skipped.
 * Returns the count (0 for a missing directory). */
static size_t list_names(const char *sysfs, const char *rel, bool digits, char (*out)[NAME_MAX_LEN],
                         size_t cap)
{
    char path[FSC_NIC_PATH_MAX];
    if (fsc_nic_path(path, sizeof(path), sysfs, rel) != 0)
        return 0;
    DIR *d = opendir(path);
    if (!d)
        return 0;
    size_t n = 0;
    const struct dirent *de;
    while ((de = readdir(d)) != NULL && n < cap) {
        const char *s = de->d_name;
        size_t len = strlen(s);
        if (s[0] == '.' || len >= NAME_MAX_LEN)
            continue;
        if (digits && strspn(s, "0123456789") != len)
            continue;
        memcpy(out[n++], s, len + 1);
    }
    closedir(d);
    qsort(out, n, NAME_MAX_LEN, cmp_names);
    return n;
}

static int port_add(struct nic_ctx *ctx, size_t *cap, const char *rdma, uint32_t ibport,
                    const char *netdev)
{
    if (ctx->n_ports == NIC_PORTS_MAX) {
        fsc_log(FSC_LOG_WARN, "nic_ports_limit", "source=%s limit=%d skipped=%s", ctx->name,
                NIC_PORTS_MAX, rdma);
        return 0;
    }
    if (ctx->n_ports == *cap) {
        size_t nc = *cap ? *cap * 2 : 16;
        struct nic_port *np = realloc(ctx->ports, nc * sizeof(*np));
        if (!np)
            return -ENOMEM;
        ctx->ports = np;
        *cap = nc;
    }
    struct nic_port *p = &ctx->ports[ctx->n_ports++];
    memset(p, 0, sizeof(*p));
    snprintf(p->rdma, sizeof(p->rdma), "%s", rdma);
    p->ibport = ibport;
    if (netdev && strlen(netdev) < sizeof(p->netdev))
        memcpy(p->netdev, netdev, strlen(netdev) + 1);
    if (p->netdev[0])
        snprintf(p->name, sizeof(p->name), "%s", p->netdev);
    else
        snprintf(p->name, sizeof(p->name), "%s/%u", p->rdma, p->ibport);
    return 0;
}

/* The netdevs of RDMA device `dev`: the entries of <dev>/device/net (the PCI function's
 * interfaces), else every class/net interface whose PCI device is the same
 * (fixture trees and kernels without the net/ directory). */
static size_t rdma_netdevs(struct nic_ctx *ctx, const char *dev, char (*out)[NAME_MAX_LEN],
                           char (*scratch)[NAME_MAX_LEN], size_t scratch_cap)
{
    char rel[NAME_MAX_LEN + 64], bdf[FSC_NIC_BDF_MAX], other[FSC_NIC_BDF_MAX];
    snprintf(rel, sizeof(rel), "class/infiniband/%s/device/net", dev);
    size_t n = list_names(ctx->sysfs, rel, false, out, NETDEVS_MAX);
    if (n > 0 || fsc_nic_pcie_resolve(ctx->sysfs, "infiniband", dev, bdf, sizeof(bdf)) != 0)
        return n;
    size_t m = list_names(ctx->sysfs, "class/net", false, scratch, scratch_cap);
    for (size_t i = 0; i < m && n < NETDEVS_MAX; i++)
        if (fsc_nic_pcie_resolve(ctx->sysfs, "net", scratch[i], other, sizeof(other)) == 0 &&
            strcmp(bdf, other) == 0)
            memcpy(out[n++], scratch[i], NAME_MAX_LEN);
    return n;
}

int nic_ports_discover(struct nic_ctx *ctx, char *err, size_t errlen)
{
    const struct fsc_nic_config *cfg = ctx->cfg;
    size_t cap = 0;
    if (!cfg->auto_devices) {
        for (size_t i = 0; i < cfg->n_devices; i++) {
            const struct fsc_nic_device *d = &cfg->devices[i];
            if (port_add(ctx, &cap, d->rdma, d->port, d->netdev) != 0)
                goto oom;
        }
    } else {
        /* Every RDMA device, every port of it, paired in order with the
         * device's netdevs (a ConnectX-8 PCI function has one port and one
         * netdev: np0 and np1 are two functions, two RDMA devices). */
        char(*devs)[NAME_MAX_LEN] = calloc(NIC_PORTS_MAX, NAME_MAX_LEN);
        char(*nums)[NAME_MAX_LEN] = calloc(NIC_PORTS_MAX, NAME_MAX_LEN);
        char(*nets)[NAME_MAX_LEN] = calloc(NETDEVS_MAX, NAME_MAX_LEN);
        char(*scratch)[NAME_MAX_LEN] = calloc(4 * NIC_PORTS_MAX, NAME_MAX_LEN);
        int rc = !devs || !nums || !nets || !scratch ? -ENOMEM : 0;
        size_t nd = rc ? 0 : list_names(ctx->sysfs, "class/infiniband", false, devs, NIC_PORTS_MAX);
        for (size_t i = 0; i < nd && rc == 0; i++) {
            char rel[NAME_MAX_LEN + 32];
            snprintf(rel, sizeof(rel), "class/infiniband/%s/ports", devs[i]);
            size_t np = list_names(ctx->sysfs, rel, true, nums, NIC_PORTS_MAX);
            size_t nn = rdma_netdevs(ctx, devs[i], nets, scratch, 4 * NIC_PORTS_MAX);
            for (size_t k = 0; k < np && rc == 0; k++)
                rc = port_add(ctx, &cap, devs[i], (uint32_t)strtoul(nums[k], NULL, 10),
                              k < nn ? nets[k] : NULL);
        }
        free(devs);
        free(nums);
        free(nets);
        free(scratch);
        if (rc != 0)
            goto oom;
    }
    for (size_t i = 0; i < ctx->n_ports; i++) {
        struct nic_port *p = &ctx->ports[i];
        p->plan =
            p->netdev[0] && ctx->cab ? fsc_cabling_find(ctx->cab, ctx->node, p->netdev) : NULL;
        nic_labels_build(ctx, &p->lab, p->name, p->plan);
        const struct fsc_topo_port *tp =
            ctx->env.topo ? fsc_topology_port(ctx->env.topo, ctx->cfg->device, p->name, NULL)
                          : NULL;
        p->topo_bps = tp ? tp->speed_bps : 0;
        p->lifespan_ms = FSC_NIC_LIFESPAN_UNKNOWN;
        p->degraded = -1;
        p->link_up_id = p->link_speed_id = p->pcie_degraded_id = FSC_SERIES_NONE;
        for (int k = 0; k < 2; k++)
            p->pcie_speed_id[k] = p->pcie_width_id[k] = FSC_SERIES_NONE;
        for (int k = 0; k < FSC_NIC_AER__COUNT; k++)
            p->aer_id[k] = FSC_SERIES_NONE;
        p->agg_idx[0] = p->agg_idx[1] = -1;
        fsc_log(FSC_LOG_INFO, "nic_port", "source=%s port=%s rdma=%s ibport=%u netdev=%s plan=%s",
                ctx->name, p->name, p->rdma, p->ibport, p->netdev[0] ? p->netdev : "-",
                p->plan ? (p->plan->cabled ? "cabled" : "uncabled") : "-");
    }
    return 0;
oom:
    snprintf(err, errlen, "out of memory listing ports");
    return -1;
}
