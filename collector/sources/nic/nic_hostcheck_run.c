/* The nic source's host check (nic_hostcheck.h): every NIC_CHECK_NS (10 s)
 * each cabled interface of this node in the cable plan is judged, each kind
 * of mismatch is a gauge fabric_cable_mismatch{port,kind} (present for every
 * planned interface, so a fix reads 0) and every change is a START / END
 * event. 10 s because cabling and addressing change by hand, and the
 * neighbour table only moves with traffic: checking faster would only read
 * the same table again.
 *
 * A fixture tree (ctx->fixture) has no kernel behind it: its addresses come
 * from <root>/ip_addr.txt and its neighbours from <root>/proc/net/arp, both
 * in the text the real host shows (nic_hostcheck.h), read every check like
 * the real ones; without ip_addr.txt the address and peer kinds are not
 * judged. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/log.h"
#include "sources/nic/nic_source_int.h"

#define NEIGH_TEXT_START (64u * 1024u)
#define NEIGH_REL        "/proc/net/arp"

/* <root>/ip_addr.txt of a fixture tree: ctx->neigh_path is <root>/proc/net/arp
 * (nic_source.c builds both from sysfs_root). Returns 0 or -ENAMETOOLONG. */
static int fixture_addr_path(const struct nic_ctx *ctx, char *out, size_t size)
{
    size_t n = strlen(ctx->neigh_path), k = strlen(NEIGH_REL);
    if (n < k || strcmp(ctx->neigh_path + n - k, NEIGH_REL) != 0)
        return -ENAMETOOLONG;
    int w = snprintf(out, size, "%.*s/%s", (int)(n - k), ctx->neigh_path, FSC_NIC_FIXTURE_ADDRS);
    return w < 0 || (size_t)w >= size ? -ENAMETOOLONG : 0;
}

/* This host's node number: nic.node, else the topology.cable_plan.nodes
 * entry whose device is nic.device. */
static uint32_t own_node(const struct nic_ctx *ctx)
{
    const struct fsc_topology *topo = ctx->env.topo;
    if (ctx->cfg->node)
        return ctx->cfg->node;
    for (size_t i = 0; topo && i < topo->cable_plan.n_nodes; i++)
        if (strcmp(topo->cable_plan.nodes[i].device, ctx->cfg->device) == 0)
            return topo->cable_plan.nodes[i].node;
    return 0;
}

int nic_hostcheck_setup(struct nic_ctx *ctx, char *err, size_t errlen)
{
    const struct fsc_topology *topo = ctx->env.topo;
    const char *file = ctx->cfg->cable_plan;
    if (!file && topo && topo->cable_plan.present)
        file = topo->cable_plan.file;
    uint32_t node = own_node(ctx);
    if (!file)
        return 0;
    if (!node) {
        fsc_log(FSC_LOG_INFO, "nic_host_check_off",
                "source=%s reason=\"no node: set nic.node or name the device in "
                "topology.cable_plan.nodes\"",
                ctx->name);
        return 0;
    }
    struct fsc_cable_layout lay;
    char e[512];
    if (fsc_cable_layout_from_config(&lay, topo ? &topo->cable_plan : NULL, e, sizeof(e)) != 0) {
        snprintf(err, errlen, "cable plan layout: %s", e);
        return -1;
    }
    ctx->cab = fsc_cabling_load(file, &lay, e, sizeof(e));
    if (!ctx->cab) {
        snprintf(err, errlen, "cable plan: %s", e);
        return -1;
    }
    ctx->node = node;
    const struct fsc_cabling_iface *ifs = fsc_cabling_node(ctx->cab, node);
    if (!ifs) {
        fsc_log(FSC_LOG_WARN, "nic_host_check_off", "source=%s node=%u reason=\"no cable\"",
                ctx->name, node);
        return 0;
    }
    size_t n = 0;
    for (size_t i = 0; i < FSC_CABLING_IFACES; i++)
        n += ifs[i].cabled;
    ctx->planned = calloc(n ? n : 1, sizeof(*ctx->planned));
    ctx->have = calloc(n ? n : 1, sizeof(*ctx->have));
    ctx->have_names = calloc(n ? n : 1, sizeof(*ctx->have_names));
    if (!ctx->planned || !ctx->have || !ctx->have_names)
        goto oom;
    ctx->neigh = calloc(FSC_NIC_NEIGH_MAX, sizeof(*ctx->neigh));
    ctx->neigh_text = malloc(NEIGH_TEXT_START);
    ctx->neigh_text_size = NEIGH_TEXT_START;
    if (!ctx->neigh || !ctx->neigh_text)
        goto oom;
    if (ctx->fixture) {
        char path[FSC_NIC_PATH_MAX];
        bool addrs = fixture_addr_path(ctx, path, sizeof(path)) == 0 && access(path, F_OK) == 0;
        if (addrs)
            fsc_log(FSC_LOG_INFO, "nic_host_check_fixture", "source=%s addresses=%s neighbours=%s",
                    ctx->name, path, ctx->neigh_path);
        else
            fsc_log(FSC_LOG_INFO, "nic_host_check_partial",
                    "source=%s reason=fixture kinds=missing,down,speed "
                    "hint=\"no %s in the fixture root\"",
                    ctx->name, FSC_NIC_FIXTURE_ADDRS);
    }
    struct fsc_traits tr = nic_gauge_traits(FSC_UNIT_NONE, NIC_CHECK_NS);
    for (size_t i = 0; i < FSC_CABLING_IFACES; i++) {
        if (!ifs[i].cabled)
            continue;
        struct nic_planned *pl = &ctx->planned[ctx->n_planned];
        ctx->have_names[ctx->n_planned] = ifs[i].ifname;
        ctx->n_planned++;
        pl->want = &ifs[i];
        nic_labels_build(ctx, &pl->lab, ifs[i].ifname, &ifs[i]);
        for (int k = 0; k < FSC_CABLE__COUNT; k++) {
            struct fsc_label ex = {"kind", fsc_cable_kind_name((enum fsc_cable_kind)k)};
            pl->id[k] = nic_series(ctx, "fabric_cable_mismatch", &pl->lab, &ex, 1, &tr);
        }
    }
    return 0;
oom:
    snprintf(err, errlen, "out of memory");
    return -1;
}

void nic_hostcheck_teardown(struct nic_ctx *ctx)
{
    fsc_cabling_destroy(ctx->cab);
    free(ctx->planned);
    free(ctx->have);
    free(ctx->have_names);
    free(ctx->neigh);
    free(ctx->neigh_text);
    ctx->cab = NULL;
    ctx->planned = NULL;
    ctx->n_planned = 0;
}

/* Reads the text file `path` into ctx->neigh_text; returns its length or a
 * negative errno. The buffer grows (doubling, up to FSC_NIC_NEIGH_TEXT_MAX)
 * only when a file outgrew it. */
static long text_read(struct nic_ctx *ctx, const char *path)
{
    while (ctx->neigh_text) {
        size_t size = ctx->neigh_text_size;
        long len = fsc_nic_read_text(path, ctx->neigh_text, size);
        if (len != -EFBIG || size >= FSC_NIC_NEIGH_TEXT_MAX)
            return len;
        char *bigger = realloc(ctx->neigh_text, size * 2);
        if (!bigger)
            return -ENOMEM;
        ctx->neigh_text = bigger;
        ctx->neigh_text_size = size * 2;
    }
    return -ENOMEM;
}

/* Reads the neighbour table into ctx->neigh; returns the entry count. */
static size_t neigh_read(struct nic_ctx *ctx)
{
    long len = text_read(ctx, ctx->neigh_path);
    if (len < 0) {
        fsc_log(FSC_LOG_WARN, "nic_neighbours_unreadable", "source=%s path=%s error=%s", ctx->name,
                ctx->neigh_path, strerror((int)-len));
        return 0;
    }
    size_t bad = 0, dropped = 0;
    size_t n = fsc_nic_neigh_parse(ctx->neigh_text, (size_t)len, ctx->neigh, FSC_NIC_NEIGH_MAX,
                                   &bad, &dropped);
    if (bad || dropped)
        fsc_log(FSC_LOG_WARN, "nic_neighbours_partial", "source=%s bad_lines=%zu dropped=%zu",
                ctx->name, bad, dropped);
    return n;
}

/* Adds the fixture's addresses (<root>/ip_addr.txt) to ctx->have. Returns
 * true when the file was read (the address and peer kinds can be judged),
 * false when the tree has none (silently: a sysfs-only fixture) or it is
 * unreadable (logged). */
static bool fixture_addrs(struct nic_ctx *ctx)
{
    char path[FSC_NIC_PATH_MAX];
    if (fixture_addr_path(ctx, path, sizeof(path)) != 0)
        return false;
    long len = text_read(ctx, path);
    if (len == -ENOENT)
        return false;
    if (len < 0) {
        fsc_log(FSC_LOG_WARN, "nic_addresses_unreadable", "source=%s path=%s error=%s", ctx->name,
                path, strerror((int)-len));
        return false;
    }
    size_t bad = 0;
    fsc_nic_addr_parse(ctx->neigh_text, (size_t)len, ctx->have_names, ctx->n_planned, ctx->have,
                       &bad);
    if (bad)
        fsc_log(FSC_LOG_WARN, "nic_addresses_partial", "source=%s path=%s bad_lines=%zu", ctx->name,
                path, bad);
    return true;
}

static void mismatch_event(struct nic_ctx *ctx, struct nic_planned *pl, int k,
                           const struct fsc_nic_host_iface *have, const struct fsc_cable_verdict *v,
                           int64_t now, bool start)
{
    const struct fsc_cabling_iface *want = pl->want;
    struct fsc_event ev;
    memset(&ev, 0, sizeof(ev));
    ev.kind = FSC_EV_CABLE_MISMATCH;
    ev.phase = start ? FSC_EV_START : FSC_EV_END;
    ev.series = pl->id[k];
    ev.group = UINT32_MAX;
    ev.t_start_ns = start ? now : pl->since[k];
    ev.t_end_ns = start ? 0 : now;
    switch ((enum fsc_cable_kind)k) {
    case FSC_CABLE_DOWN:
        fsc_event_add(&ev, FSC_EF_OPERSTATE, have->oper);
        break;
    case FSC_CABLE_SPEED:
        fsc_event_add(&ev, FSC_EF_PLANNED_SPEED, (double)want->speed_bps);
        fsc_event_add(&ev, FSC_EF_SPEED, have->speed_mbps > 0 ? (double)have->speed_mbps * 1e6 : 0);
        break;
    case FSC_CABLE_ADDRESS: /* every planned link is a /30 (docs/CABLING.md) */
        fsc_event_add_aux(&ev, FSC_EF_PLANNED_ADDRESS, 30, want->addr);
        fsc_event_add_aux(&ev, FSC_EF_ADDRESS, have->n_addrs ? have->prefix[0] : 0,
                          have->n_addrs ? have->addr[0] : 0);
        break;
    case FSC_CABLE_PEER:
        fsc_event_add(&ev, FSC_EF_PEER_ADDRESS, want->peer_addr);
        fsc_event_add(&ev, FSC_EF_NEIGHBOUR, v->peer_seen);
        break;
    default:
        break;
    }
    nic_event_publish(ctx, &ev);
}

void nic_hostcheck_run(struct nic_ctx *ctx, int64_t now)
{
    if (!ctx->n_planned)
        return;
    for (size_t i = 0; i < ctx->n_planned; i++)
        fsc_nic_host_iface_read(ctx->sysfs, ctx->planned[i].want->ifname, &ctx->have[i]);
    size_t n_neigh = 0;
    bool check_addr = true;
    if (!ctx->fixture) {
        int rc = fsc_nic_host_addrs(ctx->have_names, ctx->n_planned, ctx->have);
        if (rc != 0)
            fsc_log(FSC_LOG_WARN, "nic_addresses_unreadable", "source=%s error=%s", ctx->name,
                    strerror(-rc));
    } else {
        check_addr = fixture_addrs(ctx);
    }
    if (check_addr)
        n_neigh = neigh_read(ctx);
    for (size_t i = 0; i < ctx->n_planned; i++) {
        struct nic_planned *pl = &ctx->planned[i];
        struct fsc_cable_verdict v;
        fsc_cable_check(pl->want, &ctx->have[i], ctx->neigh, n_neigh, check_addr, &v);
        for (int k = 0; k < FSC_CABLE__COUNT; k++) {
            nic_gauge_u(ctx, pl->id[k], now, v.bad[k]);
            if (v.bad[k] == pl->state[k])
                continue;
            mismatch_event(ctx, pl, k, &ctx->have[i], &v, now, v.bad[k] != 0);
            if (v.bad[k])
                pl->since[k] = now;
            pl->state[k] = v.bad[k];
        }
    }
}
