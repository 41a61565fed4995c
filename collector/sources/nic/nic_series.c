/* What every file of the NIC poller makes series and events with
 * (nic_source_int.h): a port's base labels, a series interned with its
 * traits and joined to the topology's groups, gauges into the slow batch,
 * the NIC's own events. Calls nothing else of the poller. */
#include <stdio.h>
#include <string.h>

#include "base/log.h"
#include "sources/nic/nic_source_int.h"

void nic_label_add(struct nic_labels *lab, const char *name, const char *value)
{
    if (lab->n < NIC_LABELS_MAX && value && value[0])
        lab->lb[lab->n++] = (struct fsc_label){name, value};
}

/* The device name the topology gives a cable-plan node, or NULL. */
static const char *node_device(const struct fsc_topology *topo, uint32_t node)
{
    if (!topo)
        return NULL;
    for (size_t i = 0; i < topo->cable_plan.n_nodes; i++)
        if (topo->cable_plan.nodes[i].node == node)
            return topo->cable_plan.nodes[i].device;
    return NULL;
}

void nic_labels_build(struct nic_ctx *ctx, struct nic_labels *lab, const char *port,
                      const struct fsc_cabling_iface *plan)
{
    memset(lab, 0, sizeof(*lab));
    nic_label_add(lab, "device", ctx->cfg->device);
    nic_label_add(lab, "port", port);
    if (plan) {
        snprintf(lab->node, sizeof(lab->node), "%u", plan->node);
        snprintf(lab->card, sizeof(lab->card), "%u", plan->card);
        nic_label_add(lab, "node", lab->node);
        nic_label_add(lab, "card", lab->card);
        if (plan->cabled) {
            /* peer as the topology writes it ("device:port"), with the
             * node's device from topology.cable_plan.nodes when named */
            const char *dev = node_device(ctx->env.topo, plan->peer_node);
            char fallback[16];
            snprintf(fallback, sizeof(fallback), "node%u", plan->peer_node);
            snprintf(lab->peer, sizeof(lab->peer), "%s:%s", dev ? dev : fallback,
                     plan->peer_ifname);
            snprintf(lab->link, sizeof(lab->link), "%u", plan->link);
            snprintf(lab->peer_node, sizeof(lab->peer_node), "%u", plan->peer_node);
            nic_label_add(lab, "link", lab->link);
            nic_label_add(lab, "peer", lab->peer);
            nic_label_add(lab, "peer_node", lab->peer_node);
        }
    }
    fsc_topo_labels_add(ctx->env.topo, ctx->cfg->device, port, lab->lb, &lab->n, NIC_LABELS_MAX,
                        lab->rail);
}

fsc_series_id nic_series(struct nic_ctx *ctx, const char *metric, const struct nic_labels *lab,
                         const struct fsc_label *extra, size_t n_extra, const struct fsc_traits *tr)
{
    struct fsc_label lb[FSC_REGISTRY_MAX_LABELS];
    size_t n = 0;
    const char *port = NULL;
    for (size_t i = 0; i < lab->n && n < FSC_REGISTRY_MAX_LABELS; i++) {
        lb[n++] = lab->lb[i];
        if (strcmp(lab->lb[i].name, "port") == 0)
            port = lab->lb[i].value;
    }
    for (size_t i = 0; i < n_extra && n < FSC_REGISTRY_MAX_LABELS; i++)
        lb[n++] = extra[i];
    fsc_series_id id = fsc_registry_intern(ctx->env.reg, ctx->env.source_id, metric, lb, n);
    const char *why = NULL;
    if (id == FSC_SERIES_NONE)
        why = "registry";
    else if (fsc_engine_set_traits(ctx->env.eng, id, tr) != 0 ||
             fsc_topo_groups_join(ctx->env.topo, ctx->env.eng, ctx->cfg->device, port, tr, id) <
                 0 ||
             /* the cable plan's peer when it has one, as the `peer` label */
             fsc_topo_peer_join(ctx->env.topo, ctx->env.eng, ctx->cfg->device, port, lab->peer, tr,
                                id) < 0)
        why = "engine";
    if (why) {
        fsc_log(FSC_LOG_WARN, "nic_series_refused", "source=%s metric=%s port=%s refused_by=%s",
                ctx->name, metric, port ? port : "-", why);
        return FSC_SERIES_NONE;
    }
    return id;
}

struct fsc_traits nic_gauge_traits(uint8_t unit, int64_t period_ns)
{
    struct fsc_traits tr;
    memset(&tr, 0, sizeof(tr));
    tr.kind = FSC_KIND_GAUGE;
    tr.width = 64;
    tr.unit = unit;
    tr.scale = 1;
    tr.nominal_interval_ns = period_ns;
    return tr;
}

void nic_gauge_u(struct nic_ctx *ctx, fsc_series_id id, int64_t t, uint64_t v)
{
    if (id == FSC_SERIES_NONE || ctx->gsmp_n >= ctx->gsmp_cap)
        return;
    ctx->gsmp[ctx->gsmp_n++] =
        (struct fsc_sample){.series = id, .t_dev_ns = t, .t_arr_ns = t, .v.u = v};
}

void nic_gauge_d(struct nic_ctx *ctx, fsc_series_id id, int64_t t, double v)
{
    if (id == FSC_SERIES_NONE || ctx->gsmp_n >= ctx->gsmp_cap)
        return;
    ctx->gsmp[ctx->gsmp_n++] = (struct fsc_sample){
        .series = id, .flags = FSC_SMP_F64, .t_dev_ns = t, .t_arr_ns = t, .v.d = v};
}

void nic_event_publish(struct nic_ctx *ctx, const struct fsc_event *ev)
{
    fsc_engine_publish(ctx->env.eng, ev);
}
