/* The gNMI simulator's qmon peak model (collector/sim, gnmi_sim.h): each
 * report's peak_buffer_occupancy_bytes is the peak within the time since the
 * port's previous report, as Junos' qmon reports it. Known answers from the
 * formula: utilization 0.3 gives a baseline of 300 000 >> queue; a burst on
 * the burst port fills the chosen queue to --burst-peak (every queue to
 * --burst-peak >> queue when none is chosen) in exactly the report whose
 * interval holds it. */
#include <stdint.h>

#include "sim/gnmi_sim.h"
#include "test.h"

#define EPOCH 1700000000000LL /* ms: the counter epoch of every case */

static struct fsc_sim_config demo_like(void)
{
    struct fsc_sim_config c;
    fsc_sim_config_defaults(&c);
    c.ports = 8;
    c.queues = 4;
    c.utilization = 0.3;
    c.burst_port = 3;
    c.burst_every_ms = 30000; /* bursts at [30 s, 30.3 s), [60 s, 60.3 s), ... */
    c.burst_length_ms = 300;
    c.burst_queue = 3;
    c.burst_peak_bytes = 108134400;
    return c;
}

/* Reports of `port` every `every` ms from value time EPOCH + first up to
 * EPOCH + last (inclusive), through fsc_sim_qmon_window as the stream keeps
 * it; returns how many reports showed a peak other than the baseline on any
 * queue, with the value time of the last of them in *at and its peaks in
 * got[]. */
static int run_reports(const struct fsc_sim_config *c, uint32_t port, int64_t first, int64_t every,
                       int64_t last, int64_t *at, uint64_t got[FSC_SIM_MAX_QUEUES])
{
    int64_t from = 0, to = 0;
    int high = 0;
    for (int64_t t = first; t <= last; t += every) {
        uint64_t pk[FSC_SIM_MAX_QUEUES];
        fsc_sim_qmon_window(&from, &to, EPOCH, EPOCH + t, every);
        fsc_sim_queue_peaks(c, port, EPOCH, from, to, pk);
        int base = 1;
        for (uint32_t q = 0; q < c->queues; q++)
            base &= pk[q] == (300000u >> q);
        if (!base) {
            high++;
            *at = t;
            memcpy(got, pk, sizeof(pk));
        }
    }
    return high;
}

/* A 300 ms burst inside a 2 s interval: one report, the one at 32 s whose
 * interval [30 s, 32 s) holds it, shows the burst queue's peak; the other
 * queues and every other report read the baseline. */
static void burst_inside_interval_once(void)
{
    struct fsc_sim_config c = demo_like();
    int64_t at = -1;
    uint64_t got[FSC_SIM_MAX_QUEUES] = {0};
    CHECK_INT(run_reports(&c, 3, 2000, 2000, 58000, &at, got), 1);
    CHECK_INT(at, 32000);
    CHECK_INT(got[3], 108134400);
    CHECK_INT(got[0], 300000);
    CHECK_INT(got[1], 150000);
    CHECK_INT(got[2], 75000);
    /* The same burst seen by a port reported every 4 s off the copy grid
     * (a Junos batch of half the ports): the report at 33 s, [29 s, 33 s). */
    CHECK_INT(run_reports(&c, 3, 1000, 4000, 57000, &at, got), 1);
    CHECK_INT(at, 33000);
    CHECK_INT(got[3], 108134400);
    /* Through the second period: the burst at 60 s in the report at 62 s. */
    CHECK_INT(run_reports(&c, 3, 34000, 2000, 88000, &at, got), 1);
    CHECK_INT(at, 62000);
}

/* No burst: the baseline on every other port, and on the burst port before
 * its first burst (bursts start one period after the epoch). */
static void no_burst_baseline(void)
{
    struct fsc_sim_config c = demo_like();
    int64_t at = -1;
    uint64_t got[FSC_SIM_MAX_QUEUES] = {0};
    CHECK_INT(run_reports(&c, 2, 2000, 2000, 120000, &at, got), 0);
    CHECK_INT(run_reports(&c, 3, 2000, 2000, 30000, &at, got), 0);
    uint64_t pk[FSC_SIM_MAX_QUEUES];
    fsc_sim_queue_peaks(&c, 3, EPOCH, EPOCH + 28000, EPOCH + 30000, pk);
    CHECK_INT(pk[3], 37500);
    CHECK_INT(pk[4], 0); /* past --queues */
    c.burst_port = -1;
    fsc_sim_queue_peaks(&c, 3, EPOCH, EPOCH + 30000, EPOCH + 32000, pk);
    CHECK_INT(pk[3], 37500);
}

/* Edges: a burst that starts exactly at a report's value time belongs to the
 * next interval; one that straddles a report shows in both intervals it
 * occupies (the peak of each); a stale copy exported again repeats its
 * window; a counter reset looks back one interval from the new epoch. */
static void edges_and_repeats(void)
{
    struct fsc_sim_config c = demo_like();
    c.burst_every_ms = 32000; /* [32 s, 32.3 s) */
    int64_t at = -1;
    uint64_t got[FSC_SIM_MAX_QUEUES] = {0};
    CHECK_INT(run_reports(&c, 3, 2000, 2000, 60000, &at, got), 1);
    CHECK_INT(at, 34000);
    c.burst_every_ms = 31900; /* [31.9 s, 32.2 s): both [30, 32) and [32, 34) */
    CHECK_INT(run_reports(&c, 3, 2000, 2000, 60000, &at, got), 2);
    CHECK_INT(at, 34000);

    int64_t from = 0, to = 0;
    fsc_sim_qmon_window(&from, &to, EPOCH, EPOCH + 2000, 2000);
    CHECK_INT(from, EPOCH);
    CHECK_INT(to, EPOCH + 2000);
    fsc_sim_qmon_window(&from, &to, EPOCH, EPOCH + 4000, 2000);
    CHECK_INT(from, EPOCH + 2000);
    CHECK_INT(to, EPOCH + 4000);
    fsc_sim_qmon_window(&from, &to, EPOCH, EPOCH + 4000, 2000); /* stale */
    CHECK_INT(from, EPOCH + 2000);
    CHECK_INT(to, EPOCH + 4000);
    fsc_sim_qmon_window(&from, &to, EPOCH + 10000, EPOCH + 11000, 2000); /* reset */
    CHECK_INT(from, EPOCH + 10000);
    CHECK_INT(to, EPOCH + 11000);
    fsc_sim_qmon_window(&from, &to, EPOCH + 10000, EPOCH + 15000, 2000);
    CHECK_INT(from, EPOCH + 11000);
    CHECK_INT(to, EPOCH + 15000);
}

/* No queue chosen: every queue fills, --burst-peak >> queue (the default
 * 12e6), as before the option existed; the instant value of
 * fsc_sim_port_values is the peak of the millisecond it is taken. */
static void every_queue_and_instant(void)
{
    struct fsc_sim_config c = demo_like();
    c.burst_queue = -1;
    c.burst_peak_bytes = 12000000;
    uint64_t pk[FSC_SIM_MAX_QUEUES];
    fsc_sim_queue_peaks(&c, 3, EPOCH, EPOCH + 30000, EPOCH + 32000, pk);
    for (uint32_t q = 0; q < 4; q++)
        CHECK_INT(pk[q], 12000000u >> q);
    struct fsc_sim_port_values v;
    fsc_sim_port_values(&c, 3, EPOCH, EPOCH + 30299, &v);
    CHECK_INT(v.q_peak_bytes[1], 6000000);
    fsc_sim_port_values(&c, 3, EPOCH, EPOCH + 30300, &v);
    CHECK_INT(v.q_peak_bytes[1], 150000);
}

TEST_MAIN(TEST(burst_inside_interval_once), TEST(no_burst_baseline), TEST(edges_and_repeats),
          TEST(every_queue_and_instant))
