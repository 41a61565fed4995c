/* The demo's two QFX5240 leaves: the gNMI target simulator of tests/sim
 * (fsc_sim_run, gnmi_sim.h) on its own thread each, listening on the port
 * the demo reserved for it. Both report at Junos cadence, as Juniper
 * documents it ("Guidelines for Specifying Data Reporting Intervals"):
 * intervals on the 2 s grid, a subset of the interfaces per interval
 * (DEMO_LEAF_BATCH_PORTS of 8, so each port every 4 s), eom per batch,
 * sequence numbers per sensor and component, counters from the 2 s ASIC
 * copy, and the queue peaks of Junos OS Evolved (max-queue-len: the peak
 * since the port's previous report).
 *
 *   leaf1  20 % utilization, its reads (and their payload timestamps)
 *          jittered by +-5 % of the 2 s interval (+-100 ms), the copies a
 *          second away from the reports (DEMO_LEAF_COPY_PHASE_MS: Junos'
 *          copy and export timers are not the same timer). The rate engine
 *          places each port's copies on its reading lattice (rate.h rule
 *          5) and must show a flat 20 % and raise nothing.
 *   leaf2  no jitter, 30 % utilization, a 300 ms line-rate burst on
 *          et-0/0/3 every 30 s (DEMO_F_LEAF_BURST). In a 4 s rate it moves
 *          the port by 5 points, far under the microburst threshold; the
 *          queue report whose interval holds it shows queue 3's
 *          max-queue-len at
 *          DEMO_LEAF_BURST_PEAK, which the collector reports as a
 *          queue_peak event (the only microburst evidence a Junos leaf
 *          gives).
 *
 * The simulator prints `listening port=N` on stdout when it is up (it is a
 * test tool's contract); the demo's own banner follows those two lines. */
#include <stdio.h>
#include <string.h>

#include "base/log.h"
#include "demo/demo_int.h"

static void *leaf_main(void *arg)
{
    struct demo_leaf *lf = arg;
    lf->rc = fsc_sim_run(&lf->cfg, lf->err, sizeof(lf->err));
    return NULL;
}

int demo_leaf_start(struct demo_leaf *lf, struct demo_run *run, unsigned i, char *err,
                    size_t errlen)
{
    memset(lf, 0, sizeof(*lf));
    struct fsc_sim_config *c = &lf->cfg;
    fsc_sim_config_defaults(c);
    snprintf(lf->listen, sizeof(lf->listen), "127.0.0.1:%u", (unsigned)run->leaf_port[i]);
    snprintf(lf->system_id, sizeof(lf->system_id), "%s:127.0.0.1", demo_leaf_names[i]);
    c->listen = lf->listen;
    c->system_id = lf->system_id;
    c->ports = DEMO_LEAF_PORTS;
    c->queues = 4;
    c->interval_ms = 2000;
    c->junos_cadence = 1;
    c->batch_ports = DEMO_LEAF_BATCH_PORTS;
    c->batch_copy_ms = 2000;
    c->seed = run->opt.seed * 2 + i + 1;
    /* Bounded like every simulator run; the demo ends it through `stop`. */
    c->duration_ms = 10LL * 365 * 24 * 3600 * 1000;
    c->stop = &run->sim_stop;
    if (i == 0) {
        c->utilization = 0.2;
        c->jitter = 0.05; /* +-100 ms on a 2 s interval */
        c->batch_copy_phase_ms = DEMO_LEAF_COPY_PHASE_MS;
    } else {
        const struct demo_fault *f = &demo_faults[DEMO_F_LEAF_BURST];
        c->utilization = 0.3;
        c->burst_port = DEMO_LEAF_BURST_PORT;
        c->burst_every_ms = DEMO_CYCLE_NS / DEMO_MS;
        c->burst_length_ms = f->length_ns / DEMO_MS;
        c->burst_queue = DEMO_LEAF_BURST_QUEUE;
        c->burst_peak_bytes = DEMO_LEAF_BURST_PEAK;
    }
    if (pthread_create(&lf->thread, NULL, leaf_main, lf) != 0) {
        snprintf(err, errlen, "cannot start the %s simulator thread", demo_leaf_names[i]);
        return -1;
    }
    lf->started = true;
    fsc_log(FSC_LOG_INFO, "demo_leaf_started",
            "device=%s listen=%s ports=%u batch_ports=%u utilization=%.2f jitter=%.2f "
            "batch_copy_ms=%lld burst_port=%d burst_queue=%d",
            demo_leaf_names[i], lf->listen, c->ports, c->batch_ports, c->utilization, c->jitter,
            (long long)c->batch_copy_ms, (int)c->burst_port, (int)c->burst_queue);
    return 0;
}

void demo_leaf_join(struct demo_leaf *lf)
{
    if (!lf->started)
        return;
    pthread_join(lf->thread, NULL);
    lf->started = false;
    if (lf->rc != 0) {
        char q[300];
        fsc_log(FSC_LOG_WARN, "demo_leaf_failed", "system_id=%s reason=%s", lf->system_id,
                fsc_log_quote(lf->err, q, sizeof(q)));
    }
}
