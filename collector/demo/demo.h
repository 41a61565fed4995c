/* `fabricscope demo`: the collector against a simulated fabric, in one
 * process, on loopback (docs/DEMO.md).
 *
 * The process plays the fabric and runs the real collector against it:
 *   - two QFX5240 leaves: the gNMI target simulator of tests/sim (the
 *     fsc_gnmi_sim library, one server thread each), both with Junos-style
 *     2 s batched counter copies, leaf1 with timestamp jitter, leaf2 with a
 *     line-rate microburst on one port;
 *   - one SN4700 spine: a thread posting Cumulus-shaped OTLP/gRPC exports
 *     (gauge-double interface counters, tc ECN counters, buffer watermarks)
 *     every second to the collector's own OTLP receiver;
 *   - a four-node switchless DGX B300 mesh: sysfs fixture trees (and
 *     stamped ethtool statistics files) under the state directory, written
 *     once and then stepped over time by a thread;
 *   - the collector itself (fsc_daemon_run) with a generated config written
 *     to the state directory.
 * A fixed fault schedule (demo_schedule.c) injects a PCIe link trained
 * low, swapped cables, ECN, CNP and reordering storms, a microburst on a
 * NIC, a longer burst on a spine port and a microburst a leaf shows as a
 * queue peak (no PFC storm, no uplink imbalance), and each must show up
 * once in the event log. */
#ifndef FSC_DEMO_H
#define FSC_DEMO_H

/* Usage text of `fabricscope demo` (for `help demo` and `demo --help`). */
extern const char fsc_demo_usage[];

/* Runs `fabricscope demo`: argv[0] is "demo". Prints where to look on stdout,
 * logs (the collector's event log included) on stderr; runs until SIGINT or
 * SIGTERM, or --duration. Blocks SIGINT/SIGTERM/SIGHUP in the calling thread
 * before starting any thread. Returns the process exit status: 0 after a
 * clean stop, 1 when something could not start, 2 for a usage error.
 * Thread: main, once per process (it calls grpc_init and the daemon). */
int fsc_demo_main(int argc, char **argv);

#endif
