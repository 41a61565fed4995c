/* Cumulus Linux (SN4700, Spectrum-3) OTLP profile: one table for the
 * releases 5.11 .. 5.16 (docs/vendors/cumulus.md has the release x counter
 * matrix and the reasons).
 *
 * Source of every name: NVIDIA's public docs, repository CumulusNetworks/docs,
 * content/cumulus-linux-5NN/Monitoring-and-Troubleshooting/Open-Telemetry-Export.md
 * for NN = 11 .. 16, and the "Deprecated OTEL Metrics" lists of
 * content/cumulus-linux-515/Whats-New/_index.md and -516. The names each
 * release lists are kept in tests/vendor/cumulus/5.<NN>.names; every vendor
 * name below is in one of them (test profile_conformance). A name is listed
 * when at least one release documents it; names a later release drops simply
 * stop arriving.
 *
 * Interface counters arrive as OTLP *Gauge* points with double values although
 * they are cumulative ("gauge streams ... value reported in the asDouble",
 * every release's "Interface Statistic Format"). Every counter below is
 * therefore reclassified as a COUNTER of width 53: a double is exact up to
 * 2^53, and a decrease is a reset, never a wrap. Above 2^53 values are still
 * taken (docs/ACCURACY.md, "Known limits"): the sender rounds, the engine's
 * deltas of neighbouring doubles are exact. The levels (buffer occupancy,
 * watermarks, the per-class transmit queue depth) stay gauges.
 *
 * Release-dependent names the table cannot express alone (one canonical
 * name, several vendor names) are resolved per port by otlp_bytes.c:
 * - rx bytes: ether_stats_octets (5.13+) is preferred over if_in_octets
 *   (5.13, 5.14; deprecated in 5.15 as its duplicate); both plan as
 *   if_in_octets below, and a port counts only the best one it sends;
 * - pg_rx_octets (5.12 only) is the same counter as pg_rx_octet (5.11,
 *   5.13+);
 * - a release without interface octets (5.11, 5.12) gets port bytes
 *   DERIVED from the per-class octets (tc_tx_octet, pg_rx_octet, sp_*_octets).
 * Elsewhere one name per canonical series is picked, and the other passes
 * through:
 * - tx packets: 802_dot3_a_frames_transmitted_ok (5.13 .. 5.16, IEEE 802.3
 *   aFramesTransmittedOK). 5.15 also lists if_out_pkts in the row 5.13, 5.14
 *   and 5.16 fill with a second if_out_octets, described as "out unicast
 *   packets": its meaning is unclear and a 5.15 port sends both, so it passes
 *   through. 5.11 and 5.12 document no port packet counter (rx or tx).
 * - PHY errors: the 5.13+ "phy_stats_*" names; 5.12's PHY BER names
 *   (phy_symbol_errors, phy_raw_errors_lane<N>, ...) are the same counters
 *   under other names and pass through (one canonical name per counter).
 * - the 5.15 notes' duplicates are not mapped twice: if_in_broadcast_pkts /
 *   if_in_multicast_pkts (duplicates of ether_stats_*_pkts) and
 *   discards_ingress_general / _egress_general (duplicates of if_in_discards
 *   / if_out_discards) pass through.
 *
 * Attributes: `interface` -> port (source); `tc` and `pg` are the keys of
 * NVIDIA's histogram and buffer examples (intValue or stringValue "0").
 * Not documented, assumed by analogy: `sp` for the switch priority, `lane`
 * for phy_stats_phy_raw_errors ("lane 0 through lane 7"; `lane` is the key of
 * the phy_layer_fec_per_lane_corrections example). An attribute the profile
 * does not name still becomes a label under its own name.
 *
 * Units: pause durations in microseconds (5.15 gNMI doc, switch-priority
 * in-pause-duration "Total time in microseconds"); tx_wait in nanoseconds
 * ("The time (in ns resolution)"), exposed in seconds like them. Buffer
 * occupancy and watermarks are taken as bytes: the interface tables do not
 * say (histogram metadata "unit": "bytes"; 5.14 adds
 * tc_watermark_recorded_max_bytes "in bytes", deprecated in 5.16).
 * tc_tx_queue ("transmit queue counter") is the PPCNT per-traffic-class
 * field transmit_queue, "the transmit queue depth in cells" (Linux
 * drivers/net/ethernet/mellanox/mlxsw/reg.h, reg_ppcnt_tc_transmit_queue):
 * a gauge in cells.
 *
 * Unknown names pass through as fabric_cumulus_<name> with width 53 (the
 * OTLP source knows whether a point is a Gauge or a monotonic Sum and may
 * override the kind). That is how the other gauges arrive: oper_state (bitmap
 * None 0, Up 1, Down 2, Invalid 4, Error 8) as
 * fabric_cumulus_nvswitch_interface_oper_state, the other buffer levels, the
 * BER ratios, and the histograms (nvswitch_histogram_interface_
 * egress_buffer {tc}, ingress_buffer {pg}, latency {tc}, counter {type}:
 * 5.11+; delta temporality by default from 5.13) as
 * fabric_cumulus_nvswitch_histogram_interface_<x>_bucket/_count/_sum; the
 * buffer and latency ones also give queue-peak evidence gauges
 * (otlp_hist_evid.c).
 * refresh_ns = 0: each export reads the ASIC. */
#include "model/profile.h"

#define NV "nvswitch_interface_"

/* Initializer macros read best on one line. */
/* clang-format off */
/* counter carried as a double, no extra label */
#define C53(vendor, canonical, unit, signal, dir) \
    {NV vendor, canonical, NULL, NULL, FSC_KIND_COUNTER, 53, unit, signal, dir, 1, 0}
/* the same with a label from an OTLP attribute */
#define A53(vendor, canonical, label, attr, unit, signal, dir) \
    {NV vendor, canonical, label, attr, FSC_KIND_COUNTER, 53, unit, signal, dir, 1, 0}
/* a level (gauge) carried as a double, with a label from an OTLP attribute */
#define G53(vendor, canonical, label, attr, unit, signal, dir) \
    {NV vendor, canonical, label, attr, FSC_KIND_GAUGE, 53, unit, signal, dir, 1, 0}
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
    /* 5.13+, IEEE 802.3 aFramesTransmittedOK */
    C53("802_dot3_a_frames_transmitted_ok", "fabric_port_tx_packets_total", P, S0, TX),
    C53("carrier_changes_total", "fabric_port_carrier_transitions_total", N, S0, ND),
    C53("carrier_down_changes_total", "fabric_port_carrier_down_transitions_total", N, S0, ND),
    C53("carrier_up_changes_total", "fabric_port_carrier_up_transitions_total", N, S0, ND),
    /* egress head-of-queue timeout / stall and switch lifetime limit discards */
    C53("discards_egress_hoq", "fabric_port_tx_hoq_timeout_discards_total", P, S0, TX),
    C53("discards_egress_hoq_stall", "fabric_port_tx_hoq_stall_discards_total", P, S0, TX),
    C53("discards_egress_sll", "fabric_port_tx_sll_discards_total", P, S0, TX),
    C53("dot3_in_pause_frames", "fabric_port_rx_pause_frames_total", P, FSC_SIG_PFC_PAUSE_FRAMES,
        RX),
    C53("dot3_out_pause_frames", "fabric_port_tx_pause_frames_total", P, FSC_SIG_PFC_PAUSE_FRAMES,
        TX),
    C53("dot3_stats_fcs_errors", "fabric_port_rx_fcs_errors_total", P, S0, RX),
    C53("dot3_stats_symbol_errors", "fabric_port_rx_symbol_errors_total", N, S0, RX),
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
    /* PHY class, 5.13+ ("interface-stats class phy"): bits and errors */
    C53("phy_stats_phy_corrected_bits", "fabric_port_fec_corrected_bits_total", N, S0, RX),
    C53("phy_stats_phy_effective_errors", "fabric_port_rx_phy_effective_errors_total", N, S0, RX),
    A53("phy_stats_phy_raw_errors", "fabric_port_rx_lane_errors_total", "lane", "lane", N, S0, RX),
    C53("phy_stats_phy_received_bits", "fabric_port_rx_phy_bits_total", N, S0, RX),
    C53("phy_stats_phy_symbol_errors", "fabric_port_rx_phy_symbol_errors_total", N, S0, RX),
    /* buffer statistics, 5.12+: ingress (priority group) and egress (traffic
     * class) maximum and current occupancy */
    G53("shared_buffer_port_pg_watermark", "fabric_port_pg_peak_bytes", "priority_group", "pg", B,
        FSC_SIG_QUEUE_PEAK, RX),
    G53("shared_buffer_port_tc_curr_occupancy", "fabric_port_queue_current_bytes", "queue", "tc", B,
        S0, TX),
    G53("shared_buffer_port_tc_watermark", "fabric_port_queue_peak_bytes", "queue", "tc", B,
        FSC_SIG_QUEUE_PEAK, TX),
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
    /* the per-class transmit queue depth, in cells (see the top) */
    G53("tc_tx_queue", "fabric_port_queue_current_cells", "queue", "tc", N, S0, TX),
    A53("tc_tx_wred_discard", "fabric_port_queue_wred_dropped_packets_total", "queue", "tc", P, S0,
        TX),
    /* 5.13+: time with data to send and nothing sent, in ns */
    C53("tx_wait", "fabric_port_tx_wait_seconds_total", FSC_UNIT_NANOSECONDS, S0, TX),
};

/* Point attributes of passthrough metrics under the labels the entries
 * above give them (a traffic class is a `queue`, a switch priority a
 * `priority`), so every family names them alike. */
static const struct fsc_key_label cumulus_key_labels[] = {
    {NULL, "tc", "queue"},
    {NULL, "sp", "priority"},
    {NULL, "pg", "priority_group"},
    {NULL, NULL, NULL},
};

const struct fsc_profile fsc_profile_cumulus = {
    .name = "cumulus",
    .entries = cumulus_entries,
    .n_entries = sizeof(cumulus_entries) / sizeof(cumulus_entries[0]),
    .passthrough_prefix = "fabric_cumulus_",
    .passthrough_width = 53,
    .refresh_ns = 0,
    .key_labels = cumulus_key_labels,
};
