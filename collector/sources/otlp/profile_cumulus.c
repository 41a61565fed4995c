/* Cumulus Linux (SN4700, Spectrum-3) OTLP profile.
 *
 * Vendor names are OTLP metric names (`nvswitch_interface_...`). The
 * `interface` attribute becomes the port label in the OTLP source; the
 * traffic-class / switch-priority attribute is named here (`label`/`attr`).
 *
 * Cumulus exports interface counters as OTLP *Gauge* points with double
 * values although they are cumulative (PROTOCOLS §4.2). Every counter below is
 * therefore reclassified as a COUNTER of width 53: a double is exact up to
 * 2^53, and a decrease is a reset, never a wrap.
 *
 * canonical (fabric_port_...)         vendor (nvswitch_interface_...)   notes
 * rx_bytes_total / tx                 if_in_octets / if_out_octets     PORT_BYTES
 * rx_{unicast,multicast,broadcast}_packets_total / tx
 *                                     if_in_ucast_pkts, if_in_multicast_pkts,
 *                                     if_in_broadcast_pkts / if_out_...
 *                                     (Cumulus has no total-packets counter;
 *                                     fabric_port_rx_packets_total would be the
 *                                     sum, which is not a profile's job)
 * rx_discards_total / tx              if_in_discards / if_out_discards
 * rx_errors_total / tx                if_in_errors / if_out_errors
 * rx_fcs_errors_total                 dot3_stats_fcs_errors
 * carrier_transitions_total           carrier_changes_total
 * rx_pause_frames_total / tx          dot3_in_pause_frames / dot3_out_pause_frames
 *                                     link-level PAUSE, pause-storm detector
 * pfc_rx_pause_frames_total{priority} / tx   sp_rx_pause / sp_tx_pause
 * pfc_rx_pause_seconds_total{priority} / tx  sp_rx_pause_duration / sp_tx_...
 *                                     unit ASSUMED microseconds: neither the
 *                                     Cumulus docs nor PROTOCOLS.md give one;
 *                                     Spectrum's per-priority PPCNT counters
 *                                     share the ConnectX register layout,
 *                                     where pause duration is in µs.
 * ecn_marked_packets_total{queue}     tc_tx_ecn_marked_tc               ECN
 * queue_tx_{packets,bytes}_total{queue}      tc_tx_frames / tc_tx_octet
 * queue_dropped_packets_total{queue}  tc_tx_no_buffer_discard_uc
 * queue_wred_dropped_packets_total{queue}    tc_tx_wred_discard
 * queue_peak_bytes{queue}             shared_buffer_port_tc_watermark  GAUGE,
 *                                     QUEUE_PEAK (bytes assumed, as the buffer
 *                                     histograms' `bytes` unit)
 *
 * Attributes: `tc` -> label queue (seen in NVIDIA's examples). The switch
 * priority attribute key is not documented (PROTOCOLS §4.2 [?]); `sp` is
 * assumed by analogy with `tc` / `pg` - confirm on a device.
 *
 * Unknown names pass through as fabric_cumulus_<name> with width 53 (the
 * OTLP source knows whether a point is a Gauge or a monotonic Sum and may
 * override the kind). refresh_ns = 0: each export reads the ASIC. */
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

/* Sorted by strcmp(vendor): checked by fsc_profile_check(). */
static const struct fsc_profile_entry cumulus_entries[] = {
    C53("carrier_changes_total", "fabric_port_carrier_transitions_total", N, FSC_SIG_NONE,
        FSC_DIR_NONE),
    C53("dot3_in_pause_frames", "fabric_port_rx_pause_frames_total", P, FSC_SIG_PFC_PAUSE_FRAMES,
        FSC_DIR_RX),
    C53("dot3_out_pause_frames", "fabric_port_tx_pause_frames_total", P, FSC_SIG_PFC_PAUSE_FRAMES,
        FSC_DIR_TX),
    C53("dot3_stats_fcs_errors", "fabric_port_rx_fcs_errors_total", P, FSC_SIG_NONE, FSC_DIR_RX),
    C53("if_in_broadcast_pkts", "fabric_port_rx_broadcast_packets_total", P, FSC_SIG_NONE,
        FSC_DIR_RX),
    C53("if_in_discards", "fabric_port_rx_discards_total", P, FSC_SIG_NONE, FSC_DIR_RX),
    C53("if_in_errors", "fabric_port_rx_errors_total", P, FSC_SIG_NONE, FSC_DIR_RX),
    C53("if_in_multicast_pkts", "fabric_port_rx_multicast_packets_total", P, FSC_SIG_NONE,
        FSC_DIR_RX),
    C53("if_in_octets", "fabric_port_rx_bytes_total", B, FSC_SIG_PORT_BYTES, FSC_DIR_RX),
    C53("if_in_ucast_pkts", "fabric_port_rx_unicast_packets_total", P, FSC_SIG_NONE, FSC_DIR_RX),
    C53("if_out_broadcast_pkts", "fabric_port_tx_broadcast_packets_total", P, FSC_SIG_NONE,
        FSC_DIR_TX),
    C53("if_out_discards", "fabric_port_tx_discards_total", P, FSC_SIG_NONE, FSC_DIR_TX),
    C53("if_out_errors", "fabric_port_tx_errors_total", P, FSC_SIG_NONE, FSC_DIR_TX),
    C53("if_out_multicast_pkts", "fabric_port_tx_multicast_packets_total", P, FSC_SIG_NONE,
        FSC_DIR_TX),
    C53("if_out_octets", "fabric_port_tx_bytes_total", B, FSC_SIG_PORT_BYTES, FSC_DIR_TX),
    C53("if_out_ucast_pkts", "fabric_port_tx_unicast_packets_total", P, FSC_SIG_NONE, FSC_DIR_TX),
    {NV "shared_buffer_port_tc_watermark", "fabric_port_queue_peak_bytes", "queue", "tc",
     FSC_KIND_GAUGE, 53, B, FSC_SIG_QUEUE_PEAK, FSC_DIR_TX, 1},
    A53("sp_rx_pause", "fabric_port_pfc_rx_pause_frames_total", "priority", "sp", P,
        FSC_SIG_PFC_PAUSE_FRAMES, FSC_DIR_RX),
    A53("sp_rx_pause_duration", "fabric_port_pfc_rx_pause_seconds_total", "priority", "sp", US,
        FSC_SIG_PFC_PAUSE_DURATION, FSC_DIR_RX),
    A53("sp_tx_pause", "fabric_port_pfc_tx_pause_frames_total", "priority", "sp", P,
        FSC_SIG_PFC_PAUSE_FRAMES, FSC_DIR_TX),
    A53("sp_tx_pause_duration", "fabric_port_pfc_tx_pause_seconds_total", "priority", "sp", US,
        FSC_SIG_PFC_PAUSE_DURATION, FSC_DIR_TX),
    A53("tc_tx_ecn_marked_tc", "fabric_port_ecn_marked_packets_total", "queue", "tc", P,
        FSC_SIG_ECN, FSC_DIR_TX),
    A53("tc_tx_frames", "fabric_port_queue_tx_packets_total", "queue", "tc", P, FSC_SIG_NONE,
        FSC_DIR_TX),
    A53("tc_tx_no_buffer_discard_uc", "fabric_port_queue_dropped_packets_total", "queue", "tc", P,
        FSC_SIG_NONE, FSC_DIR_TX),
    A53("tc_tx_octet", "fabric_port_queue_tx_bytes_total", "queue", "tc", B, FSC_SIG_NONE,
        FSC_DIR_TX),
    A53("tc_tx_wred_discard", "fabric_port_queue_wred_dropped_packets_total", "queue", "tc", P,
        FSC_SIG_NONE, FSC_DIR_TX),
};

const struct fsc_profile fsc_profile_cumulus = {
    .name = "cumulus",
    .entries = cumulus_entries,
    .n_entries = sizeof(cumulus_entries) / sizeof(cumulus_entries[0]),
    .passthrough_prefix = "fabric_cumulus_",
    .passthrough_width = 53,
    .refresh_ns = 0,
};
