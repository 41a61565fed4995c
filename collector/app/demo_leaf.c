/* The demo's two QFX5240 leaves: the gNMI target simulator of tests/sim
 * (fsc_sim_run, gnmi_sim.h) on its own thread each, listening on the port
 * the demo reserved for it.
 *
 *   leaf1  Junos-style: counters copied every 2 s (--batch-copy) and payload
 *          timestamps jittered by +-10 % of the interval, 20 % utilization.
 *          The rate engine places the 2 s copies on the device's copy grid
 *          (rate.h rule 5) and must show a flat 20 % (10 s windows, 2 s
 *          fine rates; the 1 s windows are withheld) and raise nothing: the
 *          demo test holds every peak within 2 points of the load.
 *   leaf2  live counters, no jitter, 30 % utilization, a 300 ms line-rate
 *          burst on et-0/0/3 every 30 s (DEMO_F_MICROBURST).
 *
 * The simulator prints `listening port=N` on stdout when it is up (it is a
 * test tool's contract); the demo's own banner follows those two lines. */
#include <stdio.h>
#include <string.h>

#include "base/log.h"
#include "app/demo_int.h"

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
    c->interval_ms = 1000;
    c->seed = run->opt.seed * 2 + i + 1;
    /* Bounded like every simulator run; the demo ends it through `stop`. */
    c->duration_ms = 10LL * 365 * 24 * 3600 * 1000;
    c->stop = &run->sim_stop;
    if (i == 0) {
        c->utilization = 0.2;
        c->jitter = 0.1;
        c->batch_copy_ms = 2000;
    } else {
        const struct demo_fault *f = &demo_faults[DEMO_F_MICROBURST];
        c->utilization = 0.3;
        c->burst_port = DEMO_LEAF_BURST_PORT;
        c->burst_every_ms = DEMO_CYCLE_NS / DEMO_MS;
        c->burst_length_ms = f->length_ns / DEMO_MS;
    }
    if (pthread_create(&lf->thread, NULL, leaf_main, lf) != 0) {
        snprintf(err, errlen, "cannot start the %s simulator thread", demo_leaf_names[i]);
        return -1;
    }
    lf->started = true;
    fsc_log(FSC_LOG_INFO, "demo_leaf_started",
            "device=%s listen=%s ports=%u utilization=%.2f jitter=%.2f batch_copy_ms=%lld "
            "burst_port=%d",
            demo_leaf_names[i], lf->listen, c->ports, c->utilization, c->jitter,
            (long long)c->batch_copy_ms, (int)c->burst_port);
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
