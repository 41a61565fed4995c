/* Junos (QFX5240, Junos OS Evolved) gNMI profile.
 *
 * Vendor names are gNMI paths WITHOUT list keys and without origin, as the
 * gNMI decoder produces them: `/interfaces/interface[name=et-0/0/1]/state/
 * counters/in-octets` -> `/interfaces/interface/state/counters/in-octets`.
 * The interface key becomes the port label in the gNMI source; the queue key
 * is named here (`label`/`attr`).
 *
 * canonical (fabric_port_...)      vendor leaf                      notes
 * rx_bytes_total / tx             state/counters/in-octets / out   PORT_BYTES, 64-bit
 * rx_packets_total / tx           in-pkts / out-pkts
 * rx_{unicast,multicast,broadcast}_packets_total / tx
 *                                 in-unicast-pkts ... / out-...
 * rx_discards_total / tx          in-discards / out-discards
 * rx_errors_total / tx            in-errors / out-errors
 * rx_fcs_errors_total             in-fcs-errors
 * carrier_transitions_total       carrier-transitions
 * rx_crc_errors_total             ethernet/.../in-crc-errors (MAC view;
 *                                 kept apart from in-fcs-errors: the default
 *                                 plan subscribes both paths)
 * fec_corrected_blocks_total      ethernet/.../fec-corrected-blocks
 * fec_uncorrectable_blocks_total  ethernet/.../fec-uncorrectable-blocks
 * rx_pause_frames_total / tx      ethernet/.../in-mac-pause-frames / out
 *                                 link-level 802.3x PAUSE (OpenConfig has no
 *                                 per-priority PFC leaf; PROTOCOLS §3.4); it
 *                                 feeds the pause-storm detector without a
 *                                 priority label
 * pfc_rx_pause_frames_total{priority} / tx
 *                                 ethernet/.../jnx-pfc-statistics/
 *                                 in-mac-pause-frames / out-mac-pause-frames,
 *                                 priority from the list key `priority`: the
 *                                 Junos augmentation of the OpenConfig
 *                                 ethernet counters, `jnx_pfc_statistics`
 *                                 {priority (key), in_mac_pause_frames,
 *                                 out_mac_pause_frames} in Juniper's render
 *                                 proto of the OpenConfig interface sensor on
 *                                 Junos Evolved (github.com/Juniper/telemetry,
 *                                 23.4/23.4R2-EVO/protos/
 *                                 oc_interface_render.proto). The gNMI names
 *                                 are the YANG ones ('-' for the proto's '_'),
 *                                 an assumption to confirm with a Get on the
 *                                 device (PROTOCOLS §7). The same names as the
 *                                 Cumulus and mlx5 profiles (docs/METRICS.md).
 *                                 The default plan's `rest` stream covers them
 *                                 (/interfaces/interface/ethernet/state/
 *                                 counters).
 * ecn_marked_packets_total{queue} qos .../output/queues/queue/state/
 *                                 ecn-marked-pkts, queue from key `name`; ECN
 * ecn_marked_bytes_total{queue}   ecn-marked-octets
 * queue_tx_{packets,bytes}_total{queue}   transmit-pkts / transmit-octets
 * queue_dropped_{packets,bytes}_total{queue} dropped-pkts / dropped-octets
 * queue_peak_bytes{queue}         qmon-sw ... peak_buffer_occupancy_bytes
 *                                 GAUGE (max since the last export), QUEUE_PEAK
 * queue_tail_drop_{packets,bytes}_total{queue} qmon-sw tail_drop_packets/_octets
 *
 * qmon-sw path (an assumption to confirm with a Get on the device, PROTOCOLS
 * §7): the sensor `/junos/system/linecard/qmon-sw/` followed by the field
 * names of Juniper's QueueMonitor message (qmon.proto: queue_monitor_element_
 * info[if_name] / queue_monitor_stats_egress / queue_monitor_stats_info
 * [queue_number] {peak_buffer_occupancy_bytes (a gauge, uint32),
 * peak_buffer_occupancy_percent, packets, octets, tail_drop_packets,
 * tail_drop_octets, red_drop_*}), egress direction:
 *   /junos/system/linecard/qmon-sw/queue_monitor_element_info/
 *     queue_monitor_stats_egress/queue_monitor_stats_info/<leaf>
 * keys `if_name` (port, the source's business) and `queue_number` (-> queue).
 * The qmon `packets` / `octets` leaves are NOT mapped: they would share a
 * canonical name with the OpenConfig queue transmit counters, and a device
 * subscribed to both would merge two counters into one series; they pass
 * through as fabric_junos_junos_system_linecard_qmon_sw_..._packets.
 *
 * Unknown paths pass through as fabric_junos_<path, '/' and '-' -> '_'>:
 * as gauges when the words of the leaf say it is a level (junos_gauges
 * below), else as counters. Juniper marks each field of its protos
 * (github.com/Juniper/telemetry, protos/telemetry_top.proto,
 * TelemetryFieldOptions): is_counter, or is_gauge / is_gauge_max /
 * is_gauge_min. The words were checked against every field of every
 * release in that repository (24.4R1 snapshot): each of the 55 field names
 * marked as a gauge somewhere is a gauge here (qmon.proto
 * peak_buffer_occupancy_percent, port.proto cur_/avg_/peak_buffer_occupancy,
 * allocated_buffer_size, if_1sec_octets, pfe_qos_egress_qstats.proto
 * max_queue_len / avg_queue_len, optics thresholds, ...); of the 151 marked
 * is_counter only byte_rate and packet_rate are not counters here, which
 * ldp_p2mp_lsp_stats.proto itself calls "Rates of the above counters". The
 * OpenConfig QoS queue's max-queue-len / avg-queue-len (openconfig-qos-
 * interfaces.yang) and times such as last-change are gauges too. A gauge
 * never yields a counter reset (rate.h): its last value is kept.
 *
 * last-clear (/interfaces/interface/state/counters/last-clear, timeticks64,
 * ns since the epoch of the interface's last counter clear) is no series:
 * the gNMI decoder reads it as reset evidence for the interface's counters
 * (.reset_leaf below; sources/gnmi/gnmi_clear.c).
 * refresh_ns = 2 s, FSC_REFRESH_PERIODIC: the PFE counters Junos streams are
 * copies the line card takes on its own timer (reporting intervals are
 * multiples of 2 s: Juniper, "Guidelines for Specifying Data Reporting
 * Intervals"; the copy about every 2 s is the field measurement behind the
 * rate issue), whatever the subscription's SAMPLE interval. A new value was
 * true from the copy, not from the sample that first showed it, and all the
 * device's counters change at the same copies: the engine's copy grid
 * (engine/copy_grid.h) places them. */
#include "model/profile.h"

#define IF  "/interfaces/interface/state/counters/"
#define ETH "/interfaces/interface/ethernet/state/counters/"
#define QMON                                                                                       \
    "/junos/system/linecard/qmon-sw/queue_monitor_element_info/queue_monitor_stats_egress/"        \
    "queue_monitor_stats_info/"
#define QOS "/qos/interfaces/interface/output/queues/queue/state/"

/* Initializer macros read best on one line. */
/* clang-format off */
/* counter, 64-bit, no extra label */
#define C64(vendor, canonical, unit, signal, dir) \
    {vendor, canonical, NULL, NULL, FSC_KIND_COUNTER, 64, unit, signal, dir, 1}
/* counter, 64-bit, queue label from list key `key` */
#define Q64(vendor, canonical, key, unit, signal, dir) \
    {vendor, canonical, "queue", key, FSC_KIND_COUNTER, 64, unit, signal, dir, 1}
/* clang-format on */

#define B FSC_UNIT_BYTES
#define P FSC_UNIT_PACKETS
#define N FSC_UNIT_NONE

/* Sorted by strcmp(vendor): checked by fsc_profile_check(). */
static const struct fsc_profile_entry junos_entries[] = {
    C64(ETH "fec-corrected-blocks", "fabric_port_fec_corrected_blocks_total", N, FSC_SIG_NONE,
        FSC_DIR_RX),
    C64(ETH "fec-uncorrectable-blocks", "fabric_port_fec_uncorrectable_blocks_total", N,
        FSC_SIG_NONE, FSC_DIR_RX),
    C64(ETH "in-crc-errors", "fabric_port_rx_crc_errors_total", P, FSC_SIG_NONE, FSC_DIR_RX),
    C64(ETH "in-mac-pause-frames", "fabric_port_rx_pause_frames_total", P, FSC_SIG_PFC_PAUSE_FRAMES,
        FSC_DIR_RX),
    {ETH "jnx-pfc-statistics/in-mac-pause-frames", "fabric_port_pfc_rx_pause_frames_total",
     "priority", "priority", FSC_KIND_COUNTER, 64, P, FSC_SIG_PFC_PAUSE_FRAMES, FSC_DIR_RX, 1},
    {ETH "jnx-pfc-statistics/out-mac-pause-frames", "fabric_port_pfc_tx_pause_frames_total",
     "priority", "priority", FSC_KIND_COUNTER, 64, P, FSC_SIG_PFC_PAUSE_FRAMES, FSC_DIR_TX, 1},
    C64(ETH "out-mac-pause-frames", "fabric_port_tx_pause_frames_total", P,
        FSC_SIG_PFC_PAUSE_FRAMES, FSC_DIR_TX),
    C64(IF "carrier-transitions", "fabric_port_carrier_transitions_total", N, FSC_SIG_NONE,
        FSC_DIR_NONE),
    C64(IF "in-broadcast-pkts", "fabric_port_rx_broadcast_packets_total", P, FSC_SIG_NONE,
        FSC_DIR_RX),
    C64(IF "in-discards", "fabric_port_rx_discards_total", P, FSC_SIG_NONE, FSC_DIR_RX),
    C64(IF "in-errors", "fabric_port_rx_errors_total", P, FSC_SIG_NONE, FSC_DIR_RX),
    C64(IF "in-fcs-errors", "fabric_port_rx_fcs_errors_total", P, FSC_SIG_NONE, FSC_DIR_RX),
    C64(IF "in-multicast-pkts", "fabric_port_rx_multicast_packets_total", P, FSC_SIG_NONE,
        FSC_DIR_RX),
    C64(IF "in-octets", "fabric_port_rx_bytes_total", B, FSC_SIG_PORT_BYTES, FSC_DIR_RX),
    C64(IF "in-pkts", "fabric_port_rx_packets_total", P, FSC_SIG_NONE, FSC_DIR_RX),
    C64(IF "in-unicast-pkts", "fabric_port_rx_unicast_packets_total", P, FSC_SIG_NONE, FSC_DIR_RX),
    C64(IF "out-broadcast-pkts", "fabric_port_tx_broadcast_packets_total", P, FSC_SIG_NONE,
        FSC_DIR_TX),
    C64(IF "out-discards", "fabric_port_tx_discards_total", P, FSC_SIG_NONE, FSC_DIR_TX),
    C64(IF "out-errors", "fabric_port_tx_errors_total", P, FSC_SIG_NONE, FSC_DIR_TX),
    C64(IF "out-multicast-pkts", "fabric_port_tx_multicast_packets_total", P, FSC_SIG_NONE,
        FSC_DIR_TX),
    C64(IF "out-octets", "fabric_port_tx_bytes_total", B, FSC_SIG_PORT_BYTES, FSC_DIR_TX),
    C64(IF "out-pkts", "fabric_port_tx_packets_total", P, FSC_SIG_NONE, FSC_DIR_TX),
    C64(IF "out-unicast-pkts", "fabric_port_tx_unicast_packets_total", P, FSC_SIG_NONE, FSC_DIR_TX),
    {QMON "peak_buffer_occupancy_bytes", "fabric_port_queue_peak_bytes", "queue", "queue_number",
     FSC_KIND_GAUGE, 32, B, FSC_SIG_QUEUE_PEAK, FSC_DIR_TX, 1},
    Q64(QMON "tail_drop_octets", "fabric_port_queue_tail_drop_bytes_total", "queue_number", B,
        FSC_SIG_NONE, FSC_DIR_TX),
    Q64(QMON "tail_drop_packets", "fabric_port_queue_tail_drop_packets_total", "queue_number", P,
        FSC_SIG_NONE, FSC_DIR_TX),
    Q64(QOS "dropped-octets", "fabric_port_queue_dropped_bytes_total", "name", B, FSC_SIG_NONE,
        FSC_DIR_TX),
    Q64(QOS "dropped-pkts", "fabric_port_queue_dropped_packets_total", "name", P, FSC_SIG_NONE,
        FSC_DIR_TX),
    Q64(QOS "ecn-marked-octets", "fabric_port_ecn_marked_bytes_total", "name", B, FSC_SIG_NONE,
        FSC_DIR_TX),
    Q64(QOS "ecn-marked-pkts", "fabric_port_ecn_marked_packets_total", "name", P, FSC_SIG_ECN,
        FSC_DIR_TX),
    Q64(QOS "transmit-octets", "fabric_port_queue_tx_bytes_total", "name", B, FSC_SIG_NONE,
        FSC_DIR_TX),
    Q64(QOS "transmit-pkts", "fabric_port_queue_tx_packets_total", "name", P, FSC_SIG_NONE,
        FSC_DIR_TX),
};

/* Words of a level, not a count: buffer and queue levels and their
 * statistics, ratios, rates, physical readings, times. */
static const char *const gauge_words[] = {
    "occupancy", "utilization", "util",    "percent",   "pct",     "ratio",       "watermark",
    "depth",     "peak",        "max",     "min",       "maximum", "minimum",     "avg",
    "average",   "cur",         "current", "1sec",      "per",     "temperature", "temp",
    "voltage",   "power",       "dbm",     "threshold", "speed",   "allocated",   "last",
    "time",      "timestamp",   NULL};
/* As the last word only: "rate_limit_drop_bytes" and "in-frame-length-errors"
 * are counters, "byte_rate" and "max-queue-len" are not. */
static const char *const gauge_last_words[] = {"rate", "len", "length", "size", "level", NULL};
static const char *const gauge_last_suffixes[] = {"pps", "bps", NULL}; /* agg_fab_stats_ipps */
/* A last word that counts events wins ("transmit_queue_time_outs"). */
static const char *const counter_last_words[] = {"errors",    "failures",   "drops", "discards",
                                                 "violation", "violations", "cntr",  "samples",
                                                 "nums",      "outs",       NULL};

static const struct fsc_gauge_names junos_gauges = {
    .words = gauge_words,
    .last_words = gauge_last_words,
    .last_suffixes = gauge_last_suffixes,
    .counter_last_words = counter_last_words,
};

const struct fsc_profile fsc_profile_junos = {
    .name = "junos",
    .entries = junos_entries,
    .n_entries = sizeof(junos_entries) / sizeof(junos_entries[0]),
    .passthrough_prefix = "fabric_junos_",
    .passthrough_width = 64,
    .refresh_ns = 2000000000,
    .refresh = FSC_REFRESH_PERIODIC,
    .passthrough_gauges = &junos_gauges,
    .reset_leaf = IF "last-clear",
};
