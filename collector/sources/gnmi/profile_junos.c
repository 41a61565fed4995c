/* Junos gNMI profile: QFX5240 (Junos OS Evolved) first, Junos OS beside it.
 *
 * Vendor names are gNMI paths WITHOUT list keys and without origin, as the
 * gNMI decoder produces them: `/interfaces/interface[name=et-0/0/1]/state/
 * counters/in-octets` -> `/interfaces/interface/state/counters/in-octets`.
 * The interface key becomes the port label in the gNMI source; the queue and
 * priority keys are named here (`label`/`attr`).
 *
 * Every name below is one Juniper publishes: the `// /path` comments (or the
 * field nesting) of the render protos in github.com/Juniper/telemetry, listed
 * per release in tests/vendor/junos/<release>.names (the conformance test checks it):
 *   Junos OS Evolved 23.4R2-EVO, 24.2R1-EVO, 24.4R1-EVO:
 *     evo-if-oc_render.proto           /interfaces/interface/state/counters/...,
 *                                      in-/out-pause-pkts, state/high-speed
 *     oc_interface_render.proto,       ethernet/state/counters/...,
 *     brcm-if-oc_render.proto          jnx-pfc-statistics[priority], port-speed
 *       (brcm-*: the Broadcom renderers of QFX5k; 23.4R2-EVO, 24.2R1-EVO)
 *     mib2d_oc_evo_intf_state.proto    carrier-transitions, port-speed
 *     brcm-cos-qstat-oc_render.proto   /qos/interfaces/interface/output/queues/
 *       (24.2R1-EVO), pfe_qos_egress_  queue/state/{transmit,dropped}-{pkts,
 *       qstats.proto (24.4R1-EVO),     octets}, max-queue-len, avg-queue-len
 *       am-cos-egress-qstat-oc_render.proto (23.4R2-EVO)
 *     junos_state_interface_render.proto /state/interfaces/interface/ethernet/
 *                                      counters/fec-{corrected,uncorrectable}-words
 *   Junos OS 23.4R1: pfe_qmon_oc.proto, the gNMI render of the qmon-sw sensor
 *     (sensor 15, qmon.proto): /junos/system/linecard/qmon-sw[name]/egress
 *     [queue-number]/{peak-buffer-occupancy-bytes, tail-drop-packets, ...},
 *     the tree of junos-qmon.yang (21.2R1 .. 23.2R2). No *-EVO release has a
 *     qmon proto, so a Junos OS Evolved device has no qmon-sw sensor.
 * Not published by Juniper, so not mapped: ECN counters (the OpenConfig
 * model's ecn-marked-pkts; the only ECN leaf in the EVO protos is the
 * config flag wred/uniform/state/enable-ecn) and ethernet fec-*-blocks.
 *
 * Variants (variant_names; a gNMI source picks one with `os:`): an entry of
 * one variant passes through on the other (fsc_profile_map_variant).
 *   evo:   max-queue-len -> fabric_port_queue_peak_bytes{queue} (QUEUE_PEAK).
 *          uint64 bytes, "Maximum observed queue length" (openconfig-qos-
 *          interfaces.yang as Juniper ships it: typed counter64 there, but
 *          24.4R1-EVO's pfe_qos_egress_qstats.proto marks it is_gauge_max,
 *          and a maximum falls): a gauge. Over which span the maximum is
 *          taken (since the previous export, or a longer watermark) no proto
 *          or YANG file says; the 24.2R1-EVO Broadcom renderer marks neither
 *          field. Read as the peak since the previous report.
 *   junos: qmon-sw egress peak-buffer-occupancy-bytes -> the same family
 *          (qmon.proto: uint32, is_gauge, "peak_buffer_occupancy in bytes");
 *          tail-drop-{packets,bytes} -> fabric_port_queue_tail_drop_*_total.
 *          qmon packets / bytes pass through: they are the traffic the
 *          OpenConfig queue counters carry, and one family may not have two
 *          counters on one device.
 * Every variant:
 *   avg-queue-len -> fabric_port_queue_avg_bytes{queue}, a gauge (is_gauge_max
 *     in the same protos; rendered by Junos OS too, pfe_qos_egress_qstats.proto);
 *   transmit/dropped-pkts/-octets -> fabric_port_queue_{tx,dropped}_*_total;
 *   ethernet in-/out-mac-pause-frames -> fabric_port_{rx,tx}_pause_frames_total
 *     (802.3x PAUSE, PFC_PAUSE_FRAMES signal); jnx-pfc-statistics[priority]
 *     in-/out-mac-pause-frames -> fabric_port_pfc_{rx,tx}_pause_frames_total
 *     {priority} (the Junos augmentation of the ethernet counters);
 *   in-/out-pause-pkts (jnx-aug-openconfig-interfaces.yang, undescribed) ->
 *     fabric_port_{rx,tx}_pause_packets_total, without a signal: the default
 *     plan subscribes both interface and ethernet counters, and one pause
 *     frame must not count twice in the pause-storm detector;
 *   fec-corrected-words / fec-uncorrectable-words (FEC codewords, the
 *     junos-state sensor) -> fabric_port_fec_{corrected,uncorrectable}_
 *     codewords_total;
 *   in-crc-errors (MAC view) kept apart from in-fcs-errors, as both are
 *     subscribed.
 * The transceiver's fec-corrected-bits / fec-uncorrectable-blocks
 * (/components/component[name]/transceiver/state, oc_component_render.proto)
 * pass through: their key is a component, not an interface, so they have no
 * port. Speed leaves (port-speed, negotiated-port-speed, high-speed) are read
 * by the gNMI source, not mapped here.
 *
 * Junos suppresses zeros by default: a counter that stays 0 may never be
 * sent, so a series can be missing rather than 0.
 *
 * Unknown paths pass through as fabric_junos_<path words>: as gauges when the
 * words of the leaf say it is a level (junos_gauges below), else as counters.
 * Juniper marks each field of its protos (protos/telemetry_top.proto,
 * TelemetryFieldOptions): is_counter, or is_gauge / is_gauge_max /
 * is_gauge_min. The words were checked against every field of every release
 * in that repository (24.4R1 snapshot): each of the 55 field names marked as a
 * gauge somewhere is a gauge here (qmon.proto peak_buffer_occupancy_percent,
 * port.proto cur_/avg_/peak_buffer_occupancy, allocated_buffer_size,
 * if_1sec_octets, optics thresholds, ...); of the 151 marked is_counter only
 * byte_rate and packet_rate are not counters here, which
 * ldp_p2mp_lsp_stats.proto itself calls "Rates of the above counters". Times
 * such as last-change are gauges too. A gauge never yields a counter reset
 * (rate.h): its last value is kept.
 *
 * last-clear (/interfaces/interface/state/counters/last-clear, timeticks64,
 * ns since the epoch of the interface's last counter clear) is no series:
 * the gNMI decoder reads it as reset evidence for the interface's counters
 * (.reset_leaf below; sources/gnmi/gnmi_clear.c). Junos OS renders it for
 * every port (pfe_port_oc.proto); the EVO protos render it only in
 * mgmt-ethd_oc_evo_intf_stats.proto (the management ports).
 * refresh_ns = 2 s, FSC_REFRESH_PERIODIC: the PFE counters Junos streams are
 * copies the line card takes on its own timer (reporting intervals are
 * multiples of 2 s: Juniper, "Guidelines for Specifying Data Reporting
 * Intervals"; the copy about every 2 s is the field measurement behind the
 * rate issue), whatever the subscription's SAMPLE interval. A new value was
 * true from the copy, not from the sample that first showed it, and all the
 * device's counters change at the same copies: the engine's copy grid
 * (engine/copy_grid.h) places them. */
#include "model/profile.h"

#define IF    "/interfaces/interface/state/counters/"
#define ETH   "/interfaces/interface/ethernet/state/counters/"
#define QMON  "/junos/system/linecard/qmon-sw/egress/"
#define QOS   "/qos/interfaces/interface/output/queues/queue/state/"
#define STETH "/state/interfaces/interface/ethernet/counters/"

/* Variant bits (junos_variants). */
#define EVO   (1u << 0)
#define JUNOS (1u << 1)

/* Initializer macros read best on one line. */
/* clang-format off */
/* counter, 64-bit, no extra label, every variant */
#define C64(vendor, canonical, unit, signal, dir) \
    {vendor, canonical, NULL, NULL, FSC_KIND_COUNTER, 64, unit, signal, dir, 1, 0}
/* counter, 64-bit, queue label from list key `key`, of `variants` */
#define Q64(vendor, canonical, key, unit, variants) \
    {vendor, canonical, "queue", key, FSC_KIND_COUNTER, 64, unit, FSC_SIG_NONE, FSC_DIR_TX, 1, \
     variants}
/* queue gauge in bytes, queue label from list key `key` */
#define QGAUGE(vendor, canonical, key, width, signal, variants) \
    {vendor, canonical, "queue", key, FSC_KIND_GAUGE, width, FSC_UNIT_BYTES, signal, FSC_DIR_TX, \
     1, variants}
/* per-priority PFC counter, priority from the list key `priority` */
#define PFC(vendor, canonical, dir) \
    {vendor, canonical, "priority", "priority", FSC_KIND_COUNTER, 64, FSC_UNIT_PACKETS, \
     FSC_SIG_PFC_PAUSE_FRAMES, dir, 1, 0}
/* clang-format on */

#define B FSC_UNIT_BYTES
#define P FSC_UNIT_PACKETS
#define N FSC_UNIT_NONE

/* Sorted by strcmp(vendor): checked by fsc_profile_check(). */
static const struct fsc_profile_entry junos_entries[] = {
    C64(ETH "in-crc-errors", "fabric_port_rx_crc_errors_total", P, FSC_SIG_NONE, FSC_DIR_RX),
    C64(ETH "in-mac-pause-frames", "fabric_port_rx_pause_frames_total", P, FSC_SIG_PFC_PAUSE_FRAMES,
        FSC_DIR_RX),
    PFC(ETH "jnx-pfc-statistics/in-mac-pause-frames", "fabric_port_pfc_rx_pause_frames_total",
        FSC_DIR_RX),
    PFC(ETH "jnx-pfc-statistics/out-mac-pause-frames", "fabric_port_pfc_tx_pause_frames_total",
        FSC_DIR_TX),
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
    C64(IF "in-pause-pkts", "fabric_port_rx_pause_packets_total", P, FSC_SIG_NONE, FSC_DIR_RX),
    C64(IF "in-pkts", "fabric_port_rx_packets_total", P, FSC_SIG_NONE, FSC_DIR_RX),
    C64(IF "in-unicast-pkts", "fabric_port_rx_unicast_packets_total", P, FSC_SIG_NONE, FSC_DIR_RX),
    C64(IF "out-broadcast-pkts", "fabric_port_tx_broadcast_packets_total", P, FSC_SIG_NONE,
        FSC_DIR_TX),
    C64(IF "out-discards", "fabric_port_tx_discards_total", P, FSC_SIG_NONE, FSC_DIR_TX),
    C64(IF "out-errors", "fabric_port_tx_errors_total", P, FSC_SIG_NONE, FSC_DIR_TX),
    C64(IF "out-multicast-pkts", "fabric_port_tx_multicast_packets_total", P, FSC_SIG_NONE,
        FSC_DIR_TX),
    C64(IF "out-octets", "fabric_port_tx_bytes_total", B, FSC_SIG_PORT_BYTES, FSC_DIR_TX),
    C64(IF "out-pause-pkts", "fabric_port_tx_pause_packets_total", P, FSC_SIG_NONE, FSC_DIR_TX),
    C64(IF "out-pkts", "fabric_port_tx_packets_total", P, FSC_SIG_NONE, FSC_DIR_TX),
    C64(IF "out-unicast-pkts", "fabric_port_tx_unicast_packets_total", P, FSC_SIG_NONE, FSC_DIR_TX),
    QGAUGE(QMON "peak-buffer-occupancy-bytes", "fabric_port_queue_peak_bytes", "queue-number", 32,
           FSC_SIG_QUEUE_PEAK, JUNOS),
    Q64(QMON "tail-drop-bytes", "fabric_port_queue_tail_drop_bytes_total", "queue-number", B,
        JUNOS),
    Q64(QMON "tail-drop-packets", "fabric_port_queue_tail_drop_packets_total", "queue-number", P,
        JUNOS),
    QGAUGE(QOS "avg-queue-len", "fabric_port_queue_avg_bytes", "name", 64, FSC_SIG_NONE, 0),
    Q64(QOS "dropped-octets", "fabric_port_queue_dropped_bytes_total", "name", B, 0),
    Q64(QOS "dropped-pkts", "fabric_port_queue_dropped_packets_total", "name", P, 0),
    QGAUGE(QOS "max-queue-len", "fabric_port_queue_peak_bytes", "name", 64, FSC_SIG_QUEUE_PEAK,
           EVO),
    Q64(QOS "transmit-octets", "fabric_port_queue_tx_bytes_total", "name", B, 0),
    Q64(QOS "transmit-pkts", "fabric_port_queue_tx_packets_total", "name", P, 0),
    C64(STETH "fec-corrected-words", "fabric_port_fec_corrected_codewords_total", N, FSC_SIG_NONE,
        FSC_DIR_RX),
    C64(STETH "fec-uncorrectable-words", "fabric_port_fec_uncorrectable_codewords_total", N,
        FSC_SIG_NONE, FSC_DIR_RX),
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

/* List keys of passthrough leaves under the labels the entries above give
 * them: a queue is `queue` whether Junos OS (qmon-sw `queue-number`, native
 * sensors' `queue_number`) or OpenConfig (`queue[name]`) names it, and an
 * OpenConfig transceiver's `physical-channels/channel[index]` is a lane. */
static const struct fsc_key_label junos_key_labels[] = {
    {NULL, "queue-number", "queue"},
    {NULL, "queue_number", "queue"},
    {"queue", "name", "queue"},
    {"channel", "index", "lane"},
    {NULL, NULL, NULL},
};

/* Junos OS Evolved (QFX5240), Junos OS: the `os` key of a gnmi source. */
static const char *const junos_variants[] = {"evo", "junos", NULL};

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
    .variant_names = junos_variants,
    .key_labels = junos_key_labels,
};
