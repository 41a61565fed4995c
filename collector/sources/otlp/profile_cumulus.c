/* Cumulus Linux (SN4700, Spectrum-3) OTLP profile: the names of every
 * release 5.10 .. 5.17, one table (docs/vendors/cumulus.md has the release x
 * counter matrix and the reasons).
 *
 * Source of every name: NVIDIA's public docs, repository CumulusNetworks/docs,
 * content/cumulus-linux-5NN/Monitoring-and-Troubleshooting/Open-Telemetry-Export.md
 * for NN = 10 .. 18, and content/cumulus-linux-515/Whats-New/_index.md
 * ("Deprecated OTEL Metrics"). A name is listed when at least one release
 * documents it; names a later release drops simply stop arriving.
 *
 * Interface counters arrive as OTLP *Gauge* points with double values although
 * they are cumulative ("gauge streams ... value reported in the asDouble",
 * every release's "Interface Statistic Format"). Every counter below is
 * therefore reclassified as a COUNTER of width 53: a double is exact up to
 * 2^53, and a decrease is a reset, never a wrap. Above 2^53 values are still
 * taken (docs/ACCURACY.md, "Known limits"): the sender rounds, the engine's
 * deltas of neighbouring doubles are exact.
 *
 * Release-dependent names the table cannot express alone (one canonical
 * name, several vendor names) are resolved per port by otlp_bytes.c:
 * - rx bytes: ether_stats_octets (5.13+) is preferred over if_in_octets
 *   (5.13, 5.14; deprecated in 5.15 as its duplicate); both plan as
 *   if_in_octets below, and a port counts only the best one it sends;
 * - pg_rx_octets (5.12 only) is the same counter as pg_rx_octet (5.10, 5.11,
 *   5.13+);
 * - a release without interface octets (5.10 .. 5.12) gets port bytes
 *   DERIVED from the per-class octets (tc_tx_octet, pg_rx_octet, sp_*_octets).
 * Duplicates the 5.15 notes name are not mapped twice: if_in_broadcast_pkts /
 * if_in_multicast_pkts (duplicates of ether_stats_*_pkts, which exist from
 * 5.13 on and survive 5.15) and discards_ingress_general / _egress_general
 * (duplicates of if_in_discards / if_out_discards) pass through.
 *
 * Attributes: `interface` -> port (source); `tc` and `pg` are the keys of
 * NVIDIA's histogram and buffer examples (intValue or stringValue "0"). The
 * switch priority key is not documented: `sp` is assumed by analogy.
 *
 * Units: pause durations in microseconds (5.15 gNMI doc, switch-priority
 * in-pause-duration "Total time in microseconds"); buffer occupancy and
 * histogram bounds in bytes (histogram metadata "unit": "bytes"; 5.16
 * adds ..._watermark_recorded_max_bytes "in bytes").
 *
 * Unknown names pass through as fabric_cumulus_<name> with width 53 (the
 * OTLP source knows whether a point is a Gauge or a monotonic Sum and may
 * override the kind). That is how the real gauges arrive (fsc_profile_check
 * admits only queue-peak gauges in a table): oper_state (bitmap None 0, Up 1,
 * Down 2, Invalid 4, Error 8) as fabric_cumulus_nvswitch_interface_oper_state,
 * the buffer occupancies, and the histograms (nvswitch_histogram_interface_
 * egress_buffer {tc}, ingress_buffer {pg}, latency {tc}, counter {type}:
 * 5.11+, the two buffer ones in 5.10; delta temporality by default from
 * 5.13) as fabric_cumulus_nvswitch_histogram_interface_<x>_bucket/_count/_sum;
 * the buffer and latency ones also give queue-peak evidence gauges
 * (otlp_hist_evid.c).
 * refresh_ns = 0: each export reads the ASIC. */
#include "model/profile.h"

#define NV "nvswitch_interface_"

/* Initializer macros read best on one line. */
/* clang-format off */
/* counter carried as a double, no extra label */
#define C53(vendor, canonical, unit, signal, dir) \
    {NV vendor, canonical, NULL, NULL, FSC_KIND_COUNTER, 53, unit, signal, dir, 1}
/* the same with a label from an OTLP attribute */
#define A53(vendor, canonical, label, attr, unit, signal, dir) \
    {NV vendor, canonical, label, attr, FSC_KIND_COUNTER, 53, unit, signal, dir, 1}
/* clang-format on */

#define B  FSC_UNIT_BYTES
#define P  FSC_UNIT_PACKETS
#define N  FSC_UNIT_NONE
#define US FSC_UNIT_MICROSECONDS
#define RX FSC_DIR_RX
#define TX FSC_DIR_TX
#define ND FSC_DIR_NONE
#define S0 FSC_SIG_NONE

/* Sorted by strcmp(vendor): checked by fsc_profile_check(). */
static const struct fsc_profile_entry cumulus_entries[] = {
    C53("carrier_changes_total", "fabric_port_carrier_transitions_total", N, S0, ND),
    C53("carrier_down_changes_total", "fabric_port_carrier_down_transitions_total", N, S0, ND),
    C53("carrier_up_changes_total", "fabric_port_carrier_up_transitions_total", N, S0, ND),
    C53("dot3_in_pause_frames", "fabric_port_rx_pause_frames_total", P, FSC_SIG_PFC_PAUSE_FRAMES,
        RX),
    C53("dot3_out_pause_frames", "fabric_port_tx_pause_frames_total", P, FSC_SIG_PFC_PAUSE_FRAMES,
        TX),
    C53("dot3_stats_fcs_errors", "fabric_port_rx_fcs_errors_total", P, S0, RX),
    C53("ether_stats_broadcast_pkts", "fabric_port_rx_broadcast_packets_total", P, S0, RX),
    C53("ether_stats_multicast_pkts", "fabric_port_rx_multicast_packets_total", P, S0, RX),
    C53("ether_stats_pkts", "fabric_port_rx_packets_total", P, S0, RX),
    C53("if_in_discards", "fabric_port_rx_discards_total", P, S0, RX),
    C53("if_in_errors", "fabric_port_rx_errors_total", P, S0, RX),
    /* also the plan of ether_stats_octets (otlp_bytes.c) */
    C53("if_in_octets", "fabric_port_rx_bytes_total", B, FSC_SIG_PORT_BYTES, RX),
    C53("if_in_ucast_pkts", "fabric_port_rx_unicast_packets_total", P, S0, RX),
    C53("if_out_broadcast_pkts", "fabric_port_tx_broadcast_packets_total", P, S0, TX),
    C53("if_out_discards", "fabric_port_tx_discards_total", P, S0, TX),
    C53("if_out_errors", "fabric_port_tx_errors_total", P, S0, TX),
    C53("if_out_multicast_pkts", "fabric_port_tx_multicast_packets_total", P, S0, TX),
    C53("if_out_octets", "fabric_port_tx_bytes_total", B, FSC_SIG_PORT_BYTES, TX),
    C53("if_out_ucast_pkts", "fabric_port_tx_unicast_packets_total", P, S0, TX),
    /* ECN per interface, 5.11+: the marking (`ece` / `ecn`) arrives as an
     * attribute whose key NVIDIA does not name; it becomes a label under its
     * own name. No ECN signal: the series mixes ECE and ECN marks. */
    C53("performance_marked_packets", "fabric_port_marked_packets_total", P, S0, ND),
    A53("pg_rx_frames", "fabric_port_pg_rx_packets_total", "priority_group", "pg", P, S0, RX),
    /* also the plan of pg_rx_octets (5.12) */
    A53("pg_rx_octet", "fabric_port_pg_rx_bytes_total", "priority_group", "pg", B, S0, RX),
    /* per-PG pause, 5.11 and 5.12 only: no PFC signal (the per-priority sp_*
     * counters below are PFC; a PG may hold several priorities) */
    A53("pg_rx_pause", "fabric_port_pg_rx_pause_frames_total", "priority_group", "pg", P, S0, RX),
    A53("pg_rx_pause_duration", "fabric_port_pg_rx_pause_seconds_total", "priority_group", "pg", US,
        S0, RX),
    A53("pg_tx_pause", "fabric_port_pg_tx_pause_frames_total", "priority_group", "pg", P, S0, TX),
    A53("pg_tx_pause_duration", "fabric_port_pg_tx_pause_seconds_total", "priority_group", "pg", US,
        S0, TX),
    {NV "shared_buffer_port_tc_watermark", "fabric_port_queue_peak_bytes", "queue", "tc",
     FSC_KIND_GAUGE, 53, B, FSC_SIG_QUEUE_PEAK, TX, 1},
    A53("sp_rx_discard", "fabric_port_rx_priority_discards_total", "priority", "sp", P, S0, RX),
    A53("sp_rx_frames", "fabric_port_rx_priority_packets_total", "priority", "sp", P, S0, RX),
    A53("sp_rx_octets", "fabric_port_rx_priority_bytes_total", "priority", "sp", B, S0, RX),
    A53("sp_rx_pause", "fabric_port_pfc_rx_pause_frames_total", "priority", "sp", P,
        FSC_SIG_PFC_PAUSE_FRAMES, RX),
    A53("sp_rx_pause_duration", "fabric_port_pfc_rx_pause_seconds_total", "priority", "sp", US,
        FSC_SIG_PFC_PAUSE_DURATION, RX),
    A53("sp_tx_frames", "fabric_port_tx_priority_packets_total", "priority", "sp", P, S0, TX),
    A53("sp_tx_octets", "fabric_port_tx_priority_bytes_total", "priority", "sp", B, S0, TX),
    A53("sp_tx_pause", "fabric_port_pfc_tx_pause_frames_total", "priority", "sp", P,
        FSC_SIG_PFC_PAUSE_FRAMES, TX),
    A53("sp_tx_pause_duration", "fabric_port_pfc_tx_pause_seconds_total", "priority", "sp", US,
        FSC_SIG_PFC_PAUSE_DURATION, TX),
    A53("tc_tx_ecn_marked_tc", "fabric_port_ecn_marked_packets_total", "queue", "tc", P,
        FSC_SIG_ECN, TX),
    A53("tc_tx_frames", "fabric_port_queue_tx_packets_total", "queue", "tc", P, S0, TX),
    A53("tc_tx_no_buffer_discard_uc", "fabric_port_queue_dropped_packets_total", "queue", "tc", P,
        S0, TX),
    A53("tc_tx_octet", "fabric_port_queue_tx_bytes_total", "queue", "tc", B, S0, TX),
    A53("tc_tx_wred_discard", "fabric_port_queue_wred_dropped_packets_total", "queue", "tc", P, S0,
        TX),
};

const struct fsc_profile fsc_profile_cumulus = {
    .name = "cumulus",
    .entries = cumulus_entries,
    .n_entries = sizeof(cumulus_entries) / sizeof(cumulus_entries[0]),
    .passthrough_prefix = "fabric_cumulus_",
    .passthrough_width = 53,
    .refresh_ns = 0,
};
