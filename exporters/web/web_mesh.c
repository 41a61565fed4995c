/* The B300 mesh model (/api/mesh and the page's mesh view).
 *
 * Links come from the cable plan when the collector has one (every planned
 * link, polled or not, so a node whose collector is down still shows its
 * cables), else from the NIC series' own cable labels (node, peer_node,
 * link, peer), which only show links some collector here polls. Each end
 * is then matched to the index by its node and interface name: the NIC
 * source's `node` label is the plan's node number whatever its `device`
 * label says, so this works even when device names and plan names differ. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/cable_plan.h"
#include "base/numfmt.h"
#include "web/web_int.h"

static struct fsc_web_mesh_node *mesh_node(struct fsc_web_mesh *m, uint32_t node)
{
    for (size_t i = 0; i < m->n_nodes; i++)
        if (m->nodes[i].node == node)
            return &m->nodes[i];
    if (node == 0 || node > FSC_CABLE_MAX_NODE || m->n_nodes >= FSC_WEB_MESH_NODES)
        return NULL;
    struct fsc_web_mesh_node *n = &m->nodes[m->n_nodes++];
    memset(n, 0, sizeof(*n));
    n->node = node;
    return n;
}

static void add_link(struct fsc_web_mesh *m, uint32_t na, const char *pa, uint32_t nb,
                     const char *pb, uint32_t link, uint64_t speed)
{
    if (m->n_links >= FSC_WEB_MESH_LINKS || !mesh_node(m, na) || !mesh_node(m, nb))
        return;
    if (na > nb) { /* a is the lower node */
        uint32_t tn = na;
        const char *tp = pa;
        na = nb;
        pa = pb;
        nb = tn;
        pb = tp;
    }
    for (size_t i = 0; i < m->n_links; i++) {
        const struct fsc_web_mesh_link *l = &m->links[i];
        if (l->a.node == na && l->b.node == nb && l->link == link)
            return; /* seen from the other end */
    }
    struct fsc_web_mesh_link *l = &m->links[m->n_links++];
    memset(l, 0, sizeof(*l));
    l->a.node = na;
    l->b.node = nb;
    snprintf(l->a.port, sizeof(l->a.port), "%s", pa ? pa : "");
    snprintf(l->b.port, sizeof(l->b.port), "%s", pb ? pb : "");
    l->link = link;
    l->speed_bps = speed;
    l->utilization = -1;
}

static void links_from_plan(const struct fsc_web *web, struct fsc_web_mesh *m)
{
    const struct fsc_cabling *cab = web->plan;
    m->from_plan = 1;
    for (uint32_t node = 1; node <= FSC_CABLE_MAX_NODE; node++)
        if (fsc_cabling_node(cab, node))
            mesh_node(m, node);
    for (size_t i = 0; i < fsc_cabling_n_ifaces(cab); i++) {
        const struct fsc_cabling_iface *f = fsc_cabling_iface(cab, i);
        if (f->cabled && f->node < f->peer_node)
            add_link(m, f->node, f->ifname, f->peer_node, f->peer_ifname, f->link, f->speed_bps);
    }
}

/* Caller holds mu. The peer's interface is the part of `peer` after the
 * first ':' (the topology's "device:interface"). */
static void links_from_labels(const struct fsc_web *web, struct fsc_web_mesh *m)
{
    for (uint32_t i = 0; i < web->n_ports; i++) {
        const struct web_port *p = &web->ports[i];
        if (!p->node || !p->peer_node || !p->link)
            continue;
        const char *colon = p->peer ? strchr(p->peer, ':') : NULL;
        add_link(m, p->node, p->port, p->peer_node, colon ? colon + 1 : "", p->link, 0);
    }
}

/* Device names: the plan's node table, else the device label of a polled
 * port of the node, else "node<N>". Caller holds mu. */
static void name_nodes(const struct fsc_web *web, struct fsc_web_mesh *m)
{
    const struct fsc_cable_plan *cp = &fsc_topology_of(web->env.cfg)->cable_plan;
    for (size_t i = 0; i < m->n_nodes; i++) {
        struct fsc_web_mesh_node *n = &m->nodes[i];
        for (size_t k = 0; k < cp->n_nodes && !n->device[0]; k++)
            if (cp->nodes[k].node == n->node)
                snprintf(n->device, sizeof(n->device), "%s", cp->nodes[k].device);
        for (uint32_t p = 0; p < web->n_ports; p++) {
            if (web->ports[p].node != n->node)
                continue;
            n->polled = 1;
            if (!n->device[0])
                snprintf(n->device, sizeof(n->device), "%s", web->ports[p].device);
            break;
        }
        if (!n->device[0])
            snprintf(n->device, sizeof(n->device), "node%u", (unsigned)n->node);
    }
}

/* Series ids of one link end: mesh rx, mesh tx, then the mismatch kinds. */
#define END_IDS (2 + FSC_WEB_MM__COUNT)

static void end_ids(const struct fsc_web *web, const struct fsc_web_mesh_end *e,
                    fsc_series_id ids[END_IDS])
{
    for (int k = 0; k < END_IDS; k++)
        ids[k] = FSC_SERIES_NONE;
    for (uint32_t i = 0; i < web->n_ports; i++) {
        const struct web_port *p = &web->ports[i];
        if (p->node != e->node || strcmp(p->port, e->port) != 0)
            continue;
        ids[0] = p->mesh[0];
        ids[1] = p->mesh[1];
        for (int k = 0; k < FSC_WEB_MM__COUNT; k++)
            ids[2 + k] = p->mismatch[k];
        return;
    }
}

static double gauge_value(const struct fsc_series_view *v)
{
    return v->is_f64 ? v->value.d : (double)v->value.u;
}

/* Fills an end from its views; returns its utilization or -1. */
static double end_fill(struct fsc_web_mesh_end *e, const struct fsc_series_view v[END_IDS],
                       uint64_t plan_speed)
{
    double util = -1;
    for (int d = 0; d < 2; d++) {
        const struct fsc_series_view *s = &v[d];
        if (!s->present || !s->has_value || !(s->windows_done & (1u << s->rate_level)))
            continue;
        double bps = fsc_round_float(s->window_rate[s->rate_level]);
        e->has_rate = 1;
        if (d == 0)
            e->rx_bytes_per_second = bps;
        else
            e->tx_bytes_per_second = bps;
        uint64_t speed = s->link_speed_bps ? s->link_speed_bps : plan_speed;
        if (speed > 0) {
            double u = fsc_round_float(s->window_rate[s->rate_level] * 8.0 / (double)speed);
            if (u > util)
                util = u;
        }
    }
    for (int k = 0; k < FSC_WEB_MM__COUNT; k++) {
        const struct fsc_series_view *s = &v[2 + k];
        if (s->present && s->has_value && gauge_value(s) != 0)
            e->mismatch |= 1u << k;
    }
    return util;
}

void fsc_web_mesh_build(struct fsc_web *web, struct fsc_web_mesh *m)
{
    /* One link at a time: 2 ends x END_IDS views on the stack. */
    struct fsc_series_view views[2 * END_IDS];
    fsc_series_id ids[2 * END_IDS];

    memset(m, 0, sizeof(*m));
    pthread_mutex_lock(&web->mu);
    fsc_web_index_scan(web);
    if (web->plan)
        links_from_plan(web, m);
    else
        links_from_labels(web, m);
    name_nodes(web, m);
    for (size_t i = 0; i < m->n_links; i++) {
        struct fsc_web_mesh_link *l = &m->links[i];
        end_ids(web, &l->a, ids);
        end_ids(web, &l->b, ids + END_IDS);
        fsc_engine_view_ids(web->env.eng, ids, 2 * END_IDS, views);
        double ua = end_fill(&l->a, views, l->speed_bps);
        double ub = end_fill(&l->b, views + END_IDS, l->speed_bps);
        l->utilization = ua > ub ? ua : ub;
        if (!l->speed_bps) /* from labels: the ends' link speed */
            l->speed_bps =
                views[0].link_speed_bps ? views[0].link_speed_bps : views[END_IDS].link_speed_bps;
    }
    pthread_mutex_unlock(&web->mu);
}
