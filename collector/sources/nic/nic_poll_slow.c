/* The nic source's 1 s work: PCIe link state and AER counters (a link that
 * trained below its maximum is a gauge and an event), traits that follow the
 * hardware (hw_counters `lifespan`, link speed), re-resolving what the fast
 * poll flagged, and the node's capacity for the aggregate.
 *
 * Why 1 s for PCIe: link training changes only on a retrain or a reset,
 * and AER totals are error counts, not rates; reading seven files per port
 * every poll at 100 Hz would cost more than the RDMA counters' whole poll
 * for nothing an operator can see. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "base/log.h"
#include "sources/nic/nic_source_int.h"

static const char *const aer_severity[FSC_NIC_AER__COUNT] = {
    [FSC_NIC_AER_CORRECTABLE] = "correctable",
    [FSC_NIC_AER_FATAL] = "fatal",
    [FSC_NIC_AER_NONFATAL] = "nonfatal",
};

static void pcie_event(struct nic_ctx *ctx, struct nic_port *p, const struct fsc_nic_pcie *pc,
                       int64_t now, bool start)
{
    struct fsc_event ev;
    memset(&ev, 0, sizeof(ev));
    ev.kind = FSC_EV_PCIE_DEGRADED;
    ev.phase = start ? FSC_EV_START : FSC_EV_END;
    ev.series = p->pcie_degraded_id;
    ev.group = UINT32_MAX;
    ev.t_start_ns = start ? now : p->degraded_since;
    ev.t_end_ns = start ? 0 : now;
    fsc_event_add(&ev, FSC_EF_SPEED_GTS, pc->cur_speed_gts);
    fsc_event_add(&ev, FSC_EF_MAX_SPEED_GTS, pc->max_speed_gts);
    fsc_event_add(&ev, FSC_EF_WIDTH, pc->cur_width);
    fsc_event_add(&ev, FSC_EF_MAX_WIDTH, pc->max_width);
    nic_event_publish(ctx, &ev);
}

static void pcie_tick(struct nic_ctx *ctx, struct nic_port *p, int64_t now)
{
    struct fsc_nic_pcie pc;
    int rc = fsc_nic_pcie_read(p->pcie, &pc);
    if (rc < 0) {
        ctx->st.read_errors++;
        p->pcie_gone = 1;
        return;
    }
    if (rc > 0)
        ctx->st.read_errors += (uint64_t)rc;
    if (pc.cur_speed_mts)
        nic_gauge_d(ctx, p->pcie_speed_id[0], now, pc.cur_speed_gts);
    if (pc.max_speed_mts)
        nic_gauge_d(ctx, p->pcie_speed_id[1], now, pc.max_speed_gts);
    if (pc.cur_width)
        nic_gauge_u(ctx, p->pcie_width_id[0], now, pc.cur_width);
    if (pc.max_width)
        nic_gauge_u(ctx, p->pcie_width_id[1], now, pc.max_width);
    nic_gauge_u(ctx, p->pcie_degraded_id, now, pc.degraded);

    for (int k = 0; k < FSC_NIC_AER__COUNT; k++) {
        const struct fsc_nic_aer *aer = &pc.aer[k];
        if (!aer->present || !aer->has_total)
            continue;
        if (p->aer_id[k] == FSC_SERIES_NONE) {
            /* interned at the first read: only devices with AER have them */
            struct fsc_label ex[2] = {{"pci", p->bdf}, {"severity", aer_severity[k]}};
            struct fsc_traits tr = nic_gauge_traits(FSC_UNIT_NONE, NIC_SLOW_NS);
            tr.kind = FSC_KIND_COUNTER;
            p->aer_id[k] = nic_series(ctx, "fabric_pcie_aer_errors_total", &p->lab, ex, 2, &tr);
        }
        nic_gauge_u(ctx, p->aer_id[k], now, aer->total);
    }

    /* Event on change, and at the first read when the link is already
     * degraded (a NIC that trained at Gen5 at boot is the common case). */
    int deg = pc.degraded ? 1 : 0;
    if (deg != (p->degraded < 0 ? 0 : p->degraded)) {
        pcie_event(ctx, p, &pc, now, deg == 1);
        if (deg)
            p->degraded_since = now;
        char q[64];
        fsc_log(deg ? FSC_LOG_WARN : FSC_LOG_INFO, deg ? "nic_pcie_degraded" : "nic_pcie_restored",
                "source=%s port=%s pci=%s speed_gts=%g max_speed_gts=%g width=%u max_width=%u",
                ctx->name, p->name, fsc_log_quote(p->bdf, q, sizeof(q)), pc.cur_speed_gts,
                pc.max_speed_gts, pc.cur_width, pc.max_width);
    }
    p->degraded = (int8_t)deg;
}

/* The sum of the line rates the aggregate divides by: the plan's cabled
 * interfaces at the plan's speed (16 x 400G on a fully cabled B300), else
 * the ports' link speeds as the kernel reports them. */
static uint64_t capacity(const struct nic_ctx *ctx)
{
    if (ctx->n_planned)
        return (uint64_t)ctx->n_planned * fsc_cabling_layout(ctx->cab)->speed_bps;
    uint64_t sum = 0;
    for (size_t i = 0; i < ctx->n_ports; i++)
        sum += ctx->ports[i].speed_bps;
    return sum;
}

void nic_slow_tick(struct nic_ctx *ctx, int64_t now)
{
    for (size_t i = 0; i < ctx->n_ports; i++) {
        struct nic_port *p = &ctx->ports[i];
        bool retrait = false;
        if (p->cd[NIC_G_HW]) {
            int64_t ls = fsc_nic_cdir_lifespan_ms(p->cd[NIC_G_HW]);
            if (ls != p->lifespan_ms) {
                p->lifespan_ms = ls;
                retrait = true;
            }
        }
        /* sysfs speed, unless the topology gives one; a link down (speed
         * -1) keeps the last speed known (engine/link_speed.h's rule) */
        if (!p->topo_bps && p->link_ok && p->link_now.speed_mbps > 0) {
            uint64_t bps = (uint64_t)p->link_now.speed_mbps * 1000000u;
            if (bps != p->speed_bps) {
                p->speed_bps = bps;
                retrait = true;
            }
        }
        if (p->need_rescan || p->need_et || p->et_gone || p->link_gone || p->pcie_gone)
            nic_port_refresh(ctx, p, false);
        if (retrait)
            nic_port_retrait(ctx, p);
        if (p->pcie)
            pcie_tick(ctx, p, now);
    }
    ctx->capacity_bps = capacity(ctx);
    if (nic_samples_reserve(ctx) != 0)
        fsc_log(FSC_LOG_WARN, "nic_out_of_memory", "source=%s", ctx->name);
}
