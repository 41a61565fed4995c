/* The B300 mesh over time (demo_mesh_int.h): the counter model and the
 * thread that rewrites the moving counter files every STEP_NS.
 *
 * Model: every counter is the exact integral of its rate over the demo
 * clock (so rates read by the poller are the configured ones, whenever it
 * reads), plus the fault windows' extra rate integrated over the time spent
 * inside them (demo_fault_overlap). Per NIC: data both ways at the link's
 * rate (rx is the tx of the port the cable really reaches; the same bytes
 * in the netdev and PMA counters), 4096-byte packets,
 * 20 CNPs/s sent and handled and 20 ECN-marked RoCE packets/s (background
 * congestion control, far under the spike floor), 2 out_of_sequence/s.
 *
 * Why 50 ms steps under a 100 ms poll: each poll then sees one or two new
 * values, so a counter reads as live.
 *
 * The ethtool file (ethtool/IF: rx/tx_bytes_phy, rx/tx_packets_phy, the
 * counters that carry the ports' fine utilization) is rewritten each step,
 * checksummed, and stamped with the moment its values are of, so the poller's rates
 * from it are exact whenever either thread runs: a starved step is a longer
 * interval at its true rate, never a double one. That is what lets the
 * microburst detector run on the B300 ports without a false burst on a
 * loaded machine (the sysfs files below have no stamp: a kernel makes their
 * values when they are read).
 *
 * Why `lifespan` 200 ms (the driver default is 10): the values are made at
 * write time but stamped by the poller at read time, so if this thread is
 * starved (a loaded machine, a sanitizer build) a poll can see no change and
 * the next one two steps' worth. With a 10 ms lifespan the repeat would be
 * idleness, a zero-rate interval and then a double one: a CNP storm could
 * read as two. Within 1.5 x 200 ms the engine takes a repeat as a stale
 * cached copy and spreads the next change over the whole span (rule 5 of
 * docs/DESIGN.md, "The rate rules"), so the hw_counters detectors (CNP,
 * reorder) see a storm whole.
 * The netdev and PMA byte counters have no lifespan: a starved step can cost
 * them one implausible interval (dropped by the engine), never an event:
 * no detector reads them.
 *
 * A step is not atomic against a concurrent read; a torn read at worst costs
 * one interval (a 64-bit decrease is a reset, which the engine drops), and no
 * detector starts on one interval. */

#include "base/log.h"
#include "demo/demo_mesh_int.h"

#define STEP_NS      (50 * DEMO_MS)
#define PACKET_BYTES 4096
#define BG_CNP_PER_S 20
#define BG_OOS_PER_S 2

const enum fsc_nicfx_ctr mesh_moving[MESH_MOVING] = {
    FSC_NICFX_RX_BYTES,
    FSC_NICFX_TX_BYTES,
    FSC_NICFX_RX_PACKETS,
    FSC_NICFX_TX_PACKETS,
    FSC_NICFX_PORT_XMIT_DATA,
    FSC_NICFX_PORT_RCV_DATA,
    FSC_NICFX_PORT_XMIT_PACKETS,
    FSC_NICFX_PORT_RCV_PACKETS,
    FSC_NICFX_UNICAST_XMIT_PACKETS,
    FSC_NICFX_UNICAST_RCV_PACKETS,
    FSC_NICFX_RX_WRITE_REQUESTS,
    FSC_NICFX_NP_CNP_SENT,
    FSC_NICFX_RP_CNP_HANDLED,
    FSC_NICFX_NP_ECN_MARKED_ROCE_PACKETS,
    FSC_NICFX_OUT_OF_SEQUENCE,
};

/* Bytes received (rx) or sent by e_ns: the rate's integral, plus the
 * line-rate remainder inside the DEMO_F_NIC_BURST windows on the burst's
 * sender (tx) and receiver (rx). */
static uint64_t nic_bytes(const struct mesh_nic *nic, bool rx, int64_t e_ns)
{
    uint64_t bps = rx ? nic->rx_bps : nic->tx_bps;
    uint64_t v = demo_integral_us(bps, e_ns / 1000);
    if (rx ? nic->burst_rx : nic->burst_tx)
        v += demo_integral_us(DEMO_LINE_BYTES_PER_S - bps,
                              demo_fault_overlap(DEMO_F_NIC_BURST, e_ns) / 1000);
    return v;
}

uint64_t mesh_value(const struct mesh_nic *nic, enum fsc_nicfx_ctr c, int64_t e_ns)
{
    int64_t us = e_ns / 1000;
    uint64_t v = 0;
    switch (c) {
    case FSC_NICFX_RX_BYTES:
        v = nic_bytes(nic, true, e_ns);
        break;
    case FSC_NICFX_TX_BYTES:
        v = nic_bytes(nic, false, e_ns);
        break;
    case FSC_NICFX_RX_PACKETS:
    case FSC_NICFX_PORT_RCV_PACKETS:
    case FSC_NICFX_UNICAST_RCV_PACKETS:
    case FSC_NICFX_RX_WRITE_REQUESTS:
        v = nic_bytes(nic, true, e_ns) / PACKET_BYTES;
        break;
    case FSC_NICFX_TX_PACKETS:
    case FSC_NICFX_PORT_XMIT_PACKETS:
    case FSC_NICFX_UNICAST_XMIT_PACKETS:
        v = nic_bytes(nic, false, e_ns) / PACKET_BYTES;
        break;
    case FSC_NICFX_PORT_XMIT_DATA:
        v = nic_bytes(nic, false, e_ns) / 4;
        break;
    case FSC_NICFX_PORT_RCV_DATA:
        v = nic_bytes(nic, true, e_ns) / 4;
        break;
    case FSC_NICFX_NP_CNP_SENT:
        v = demo_integral_us(BG_CNP_PER_S, us);
        if (nic->cnp_storm)
            v +=
                demo_integral_us(DEMO_CNP_STORM_PER_S, demo_fault_overlap(DEMO_F_CNP, e_ns) / 1000);
        break;
    case FSC_NICFX_RP_CNP_HANDLED:
    case FSC_NICFX_NP_ECN_MARKED_ROCE_PACKETS:
        v = demo_integral_us(BG_CNP_PER_S, us);
        break;
    case FSC_NICFX_OUT_OF_SEQUENCE:
        v = demo_integral_us(BG_OOS_PER_S, us);
        if (nic->reorder)
            v += demo_integral_us(DEMO_REORDER_BURST_PER_S,
                                  demo_fault_overlap(DEMO_F_REORDER, e_ns) / 1000);
        break;
    default:
        break;
    }
    return fsc_nicfx_ctrs[c].width == 32 ? v & 0xffffffffu : v;
}

/* The four counters of nic's ethtool file (fsc_nicfx_ethtool_write reads
 * them from dev) at e_ns, stamped with the wall time of e_ns. Returns 0 or -1. */
int mesh_ethtool_write(struct demo_mesh *mesh, struct mesh_nic *nic, unsigned node, int64_t e_ns)
{
    static const enum fsc_nicfx_ctr et[] = {FSC_NICFX_RX_BYTES, FSC_NICFX_TX_BYTES,
                                            FSC_NICFX_RX_PACKETS, FSC_NICFX_TX_PACKETS};
    char err[256];
    for (size_t i = 0; i < sizeof(et) / sizeof(et[0]); i++)
        nic->dev.ctr[et[i]] = mesh_value(nic, et[i], e_ns);
    return fsc_nicfx_ethtool_write(mesh->run->node_root[node], &nic->dev,
                                   demo_wall_ns(mesh->run, e_ns), err, sizeof(err));
}

/* Rewrites nic's moving counters that changed since the last step, and its
 * ethtool file. */
static void step_nic(struct demo_mesh *mesh, struct mesh_nic *nic, unsigned node, int64_t e_ns)
{
    if (mesh_ethtool_write(mesh, nic, node, e_ns) != 0)
        mesh->write_errors++;
    else
        mesh->writes++;
    for (int i = 0; i < MESH_MOVING; i++) {
        if (nic->fd[i] < 0)
            continue;
        uint64_t v = mesh_value(nic, mesh_moving[i], e_ns);
        if (v == nic->last[i])
            continue;
        if (fsc_nicfx_ctr_rewrite(nic->fd[i], v, &nic->last_len[i]) != 0) {
            mesh->write_errors++;
            continue;
        }
        nic->last[i] = v;
        mesh->writes++;
    }
}

static void *mesh_main(void *arg)
{
    struct demo_mesh *mesh = arg;
    struct demo_run *run = mesh->run;
    int64_t next = demo_elapsed_ns(run);
    uint64_t errors_logged = 0;
    while (demo_sleep_until(run, next)) {
        /* Whole microseconds: the values are integrals to the microsecond
         * (demo_integral_us), and their time must be exactly theirs. */
        int64_t e = demo_elapsed_ns(run) / 1000 * 1000;
        for (unsigned n = 0; n < DEMO_NODES; n++)
            for (unsigned k = 0; k < DEMO_NICS; k++)
                step_nic(mesh, &mesh->nic[n][k], n, e);
        mesh->steps++;
        if (mesh->write_errors > errors_logged) {
            fsc_log(FSC_LOG_WARN, "demo_mesh_write_failed", "errors=%llu",
                    (unsigned long long)mesh->write_errors);
            errors_logged = mesh->write_errors;
        }
        /* Absolute deadlines; a late step skips ahead rather than bunching. */
        next += STEP_NS;
        if (next <= e)
            next = e + STEP_NS;
    }
    return NULL;
}

int demo_mesh_start(struct demo_mesh *mesh, char *err, size_t errlen)
{
    if (pthread_create(&mesh->thread, NULL, mesh_main, mesh) != 0) {
        snprintf(err, errlen, "cannot start the B300 fixture thread");
        return -1;
    }
    mesh->started = true;
    return 0;
}
