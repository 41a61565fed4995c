/* The demo's fault schedule and the names of its fabric: the one place that
 * says which device and port each fault hits and when (docs/DEMO.md quotes
 * this table; the integration test checks the event log against it).
 *
 * Why these times: nothing happens in the first 8 s, so the rate engine has
 * baselines and the spike detectors have seeded their EWMA before the first
 * storm; each fault has a device and port of its own, so each event line is
 * easy to attribute; the leaf's microburst comes at 30 s because the gNMI
 * simulator places its first burst one period after its start. A burst's
 * END waits for the 10 s window that holds its end (docs/DESIGN.md,
 * "Detectors and events"), so the bursts end by 23.3 s and their END lines
 * are out before the test's 36 s.
 *
 * How each burst can be seen depends on how often its port is read:
 *   - the B300 NIC (polled every 100 ms, fine utilization from the ethtool
 *     *_phy counters) sees a 300 ms line-rate burst as 3 intervals at 100 %:
 *     a microburst, on the sender's tx and on its peer's rx;
 *   - the SN4700 spine exports every second (Cumulus' interface-stats
 *     sample-interval is 1 s at least): a sub-second burst there fills part
 *     of one interval and reads as that interval, a second long, which no
 *     detector can tell from a 1 s burst. Its burst lasts 2 s, so at least
 *     one export interval lies wholly inside it: a burst (longer than the
 *     microburst limit, engine.microburst.micro_max, 1 s);
 *   - the QFX5240 leaves report each port every 4 s (2 s, half the ports
 *     per interval), where a 300 ms burst moves the port's rate by 5
 *     points: it is found, as on a real QFX5240, through the queue peak
 *     (max-queue-len) of the report whose interval holds it (queue_peak). */
#include <time.h>

#include "demo/demo_int.h"

const char *const demo_leaf_names[DEMO_LEAVES] = {"leaf1", "leaf2"};
const char *const demo_node_names[DEMO_NODES] = {"b300-01", "b300-02", "b300-03", "b300-04"};

const struct demo_fault demo_faults[DEMO_F__COUNT] = {
    [DEMO_F_PCIE] = {"pcie_degraded", "b300-01", "ens7f0np0", true, 0, 0,
                     "PCIe link trained at 32.0 GT/s x8 (max 64.0 GT/s x16), from the start"},
    [DEMO_F_SWAP] = {"cable_mismatch", "b300-04", "ports-4-5", true, 0, 0,
                     "mis-cabling: the cables of ports 4 (to b300-03) and 5 (to b300-02) "
                     "swapped, 8 interfaces see a wrong peer (mismatch=peer); from the start"},
    [DEMO_F_ECN] = {"ecn_spike", DEMO_SPINE_NAME, "swp3", false, 8 * DEMO_S, 6 * DEMO_S,
                    "ECN-mark storm on tc 3, +250000 marks/s"},
    [DEMO_F_CNP] = {"cnp_spike", "b300-02", "ens3f0np0", false, 15 * DEMO_S, 3 * DEMO_S,
                    "CNP storm, np_cnp_sent +100000/s"},
    [DEMO_F_SPINE_BURST] = {"burst", DEMO_SPINE_NAME, "swp5", false, 18500 * DEMO_MS, 2 * DEMO_S,
                            "line-rate burst of 2 s out of a 40 % load (tx), 1 s exports"},
    [DEMO_F_REORDER] = {"reorder_spike", "b300-03", "ens5f1np1", false, 20 * DEMO_S, 2 * DEMO_S,
                        "reordering burst, out_of_sequence +20000/s"},
    [DEMO_F_NIC_BURST] = {"microburst", "b300-01", "ens2f0np0", false, 23 * DEMO_S, 300 * DEMO_MS,
                          "line-rate microburst of 300 ms (tx; rx of b300-02 ens2f0np0), "
                          "polled every 100 ms"},
    [DEMO_F_LEAF_BURST] = {"queue_peak", "leaf2", "et-0/0/3", false, 30 * DEMO_S, 300 * DEMO_MS,
                           "line-rate microburst of 300 ms, seen as queue 3's max-queue-len "
                           "(108134400 B, 62.5 % of the buffer) in the 2 s report holding it"},
};

int64_t demo_fault_overlap(enum demo_fault_id id, int64_t e_ns)
{
    const struct demo_fault *f = &demo_faults[id];
    if (f->always || e_ns <= f->first_ns)
        return 0;
    int64_t d = e_ns - f->first_ns;
    int64_t n = d / DEMO_CYCLE_NS, r = d % DEMO_CYCLE_NS;
    return n * f->length_ns + (r < f->length_ns ? r : f->length_ns);
}

bool demo_fault_active(enum demo_fault_id id, int64_t e_ns)
{
    const struct demo_fault *f = &demo_faults[id];
    if (f->always)
        return true;
    return e_ns >= f->first_ns && (e_ns - f->first_ns) % DEMO_CYCLE_NS < f->length_ns;
}

uint64_t demo_integral_us(uint64_t per_s, int64_t us)
{
    uint64_t u = us > 0 ? (uint64_t)us : 0;
    return per_s * (u / 1000000) + per_s * (u % 1000000) / 1000000;
}

static int64_t clock_ns(clockid_t clk)
{
    struct timespec ts;
    clock_gettime(clk, &ts);
    return (int64_t)ts.tv_sec * DEMO_S + ts.tv_nsec;
}

int64_t demo_elapsed_ns(const struct demo_run *run)
{
    return clock_ns(CLOCK_MONOTONIC) - run->t0_mono_ns;
}

int64_t demo_wall_ns(const struct demo_run *run, int64_t e_ns)
{
    return run->t0_wall_ns + e_ns;
}

bool demo_sleep_until(struct demo_run *run, int64_t e_ns)
{
    /* Bounded by the deadline; the count only guards against a clock that
     * would not advance (at least 1 ms passes per turn but the last). */
    int64_t turns = (e_ns - demo_elapsed_ns(run)) / DEMO_MS + 16;
    for (int64_t i = 0; i < turns; i++) {
        if (atomic_load(&run->stop))
            return false;
        int64_t now = demo_elapsed_ns(run);
        if (now >= e_ns)
            return true;
        int64_t left = e_ns - now;
        if (left > 100 * DEMO_MS)
            left = 100 * DEMO_MS;
        struct timespec ts = {(time_t)(left / DEMO_S), (long)(left % DEMO_S)};
        nanosleep(&ts, NULL);
    }
    return !atomic_load(&run->stop);
}
