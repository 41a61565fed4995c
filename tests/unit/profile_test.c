/* Vendor profiles: known names, traits, {p} capture, passthrough, tables. */
#include <errno.h>

#include "config_all.h"
#include "test.h"
#include "demo/nicfx/nicfx.h"
#include "model/profile.h"
#include "model/registry.h"

/* FNV-1a 32, the tag of a shortened passthrough name (profile.h). */
static unsigned fnv1a(const char *s)
{
    uint32_t h = 2166136261u;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 16777619u;
    return h;
}

static struct fsc_profile_match map_ok(const struct fsc_profile *prof, const char *name)
{
    struct fsc_profile_match m;
    int rc = fsc_profile_map(prof, name, &m);
    if (rc != 0)
        fprintf(stderr, "map %s failed: %d\n", name, rc);
    CHECK_INT(rc, 0);
    return m;
}

static void junos_known_names(void)
{
    const struct fsc_profile *j = fsc_profile_find(fsc_app_profiles(), "junos");
    CHECK(j == &fsc_profile_junos);
    struct fsc_profile_match m = map_ok(j, "/interfaces/interface/state/counters/in-octets");
    CHECK(m.entry != NULL);
    CHECK_STR(m.canonical, "fabric_port_rx_bytes_total");
    CHECK_INT(m.traits.kind, FSC_KIND_COUNTER);
    CHECK_INT(m.traits.width, 64);
    CHECK_INT(m.traits.unit, FSC_UNIT_BYTES);
    CHECK_INT(m.traits.signal, FSC_SIG_PORT_BYTES);
    CHECK_INT(m.traits.direction, FSC_DIR_RX);
    CHECK_INT(m.traits.scale, 1);
    CHECK_INT(m.traits.refresh_ns, 2000000000);
    CHECK_INT(m.traits.link_speed_bps, 0);
    CHECK_INT(m.traits.nominal_interval_ns, 0);
    CHECK_STR(m.label_name, "");
    CHECK(m.label_attr == NULL);

    m = map_ok(j, "/interfaces/interface/state/counters/out-octets");
    CHECK_STR(m.canonical, "fabric_port_tx_bytes_total");
    CHECK_INT(m.traits.direction, FSC_DIR_TX);
    m = map_ok(j, "/interfaces/interface/state/counters/in-discards");
    CHECK_STR(m.canonical, "fabric_port_rx_discards_total");
    CHECK_INT(m.traits.unit, FSC_UNIT_PACKETS);
    m = map_ok(j, "/interfaces/interface/state/counters/out-unicast-pkts");
    CHECK_STR(m.canonical, "fabric_port_tx_unicast_packets_total");
    m = map_ok(j, "/interfaces/interface/ethernet/state/counters/in-mac-pause-frames");
    CHECK_STR(m.canonical, "fabric_port_rx_pause_frames_total");
    CHECK_INT(m.traits.signal, FSC_SIG_PFC_PAUSE_FRAMES);

    m = map_ok(j, "/interfaces/interface/state/counters/in-pause-pkts");
    CHECK_STR(m.canonical, "fabric_port_rx_pause_packets_total");
    CHECK_INT(m.traits.signal, FSC_SIG_NONE); /* the ethernet PAUSE counter has the signal */
    m = map_ok(j, "/interfaces/interface/ethernet/state/counters/jnx-pfc-statistics/"
                  "out-mac-pause-frames");
    CHECK_STR(m.canonical, "fabric_port_pfc_tx_pause_frames_total");
    CHECK_STR(m.label_name, "priority");
    CHECK_STR(m.label_attr, "priority");
    CHECK_INT(m.traits.direction, FSC_DIR_TX);
    m = map_ok(j, "/state/interfaces/interface/ethernet/counters/fec-uncorrectable-words");
    CHECK_STR(m.canonical, "fabric_port_fec_uncorrectable_codewords_total");
    CHECK_INT(m.traits.kind, FSC_KIND_COUNTER);
    CHECK_INT(m.traits.direction, FSC_DIR_RX);

    m = map_ok(j, "/qos/interfaces/interface/output/queues/queue/state/transmit-octets");
    CHECK_STR(m.canonical, "fabric_port_queue_tx_bytes_total");
    CHECK_INT(m.traits.signal, FSC_SIG_NONE); /* not port utilization */
    CHECK_STR(m.label_name, "queue");
    CHECK_STR(m.label_attr, "name");
    CHECK_STR(m.label_value, ""); /* the gNMI source reads it from the key */
    m = map_ok(j, "/qos/interfaces/interface/output/queues/queue/state/dropped-pkts");
    CHECK_STR(m.canonical, "fabric_port_queue_dropped_packets_total");

    /* Queue occupancy: gauges in bytes; the peak is microburst evidence. */
    m = map_ok(j, "/qos/interfaces/interface/output/queues/queue/state/max-queue-len");
    CHECK_STR(m.canonical, "fabric_port_queue_peak_bytes");
    CHECK_INT(m.traits.kind, FSC_KIND_GAUGE);
    CHECK_INT(m.traits.width, 64);
    CHECK_INT(m.traits.signal, FSC_SIG_QUEUE_PEAK);
    CHECK_INT(m.traits.unit, FSC_UNIT_BYTES);
    CHECK_STR(m.label_attr, "name");
    m = map_ok(j, "/qos/interfaces/interface/output/queues/queue/state/avg-queue-len");
    CHECK_STR(m.canonical, "fabric_port_queue_avg_bytes");
    CHECK_INT(m.traits.kind, FSC_KIND_GAUGE);
    CHECK_INT(m.traits.signal, FSC_SIG_NONE);
    CHECK_INT(m.traits.unit, FSC_UNIT_BYTES);
    m = map_ok(j, "/junos/system/linecard/qmon-sw/egress/peak-buffer-occupancy-bytes");
    CHECK_STR(m.canonical, "fabric_port_queue_peak_bytes");
    CHECK_INT(m.traits.kind, FSC_KIND_GAUGE);
    CHECK_INT(m.traits.width, 32); /* uint32 in qmon.proto */
    CHECK_INT(m.traits.signal, FSC_SIG_QUEUE_PEAK);
    CHECK_STR(m.label_name, "queue");
    CHECK_STR(m.label_attr, "queue-number");
    m = map_ok(j, "/junos/system/linecard/qmon-sw/egress/tail-drop-packets");
    CHECK_STR(m.canonical, "fabric_port_queue_tail_drop_packets_total");

    /* Names Juniper publishes in no proto are not mapped: ECN counters. */
    m = map_ok(j, "/qos/interfaces/interface/output/queues/queue/state/ecn-marked-pkts");
    CHECK(m.entry == NULL);
    CHECK_STR(m.canonical, "fabric_junos_qos_interfaces_interface_output_queues_queue_state_"
                           "ecn_marked_pkts");

    /* Unknown leaf: passthrough, never dropped. */
    m = map_ok(j, "/interfaces/interface/state/counters/in-unknown-protos");
    CHECK(m.entry == NULL);
    CHECK_STR(m.canonical, "fabric_junos_interfaces_interface_state_counters_in_unknown_protos");
    CHECK_INT(m.traits.kind, FSC_KIND_COUNTER);
    CHECK_INT(m.traits.width, 64);
    CHECK_INT(m.traits.signal, FSC_SIG_NONE);
    CHECK_INT(m.traits.refresh_ns, 2000000000);
    /* Keys must be stripped by the source: a keyed path is not a known name. */
    m = map_ok(j, "/interfaces/interface[name=et-0/0/1]/state/counters/in-octets");
    CHECK(m.entry == NULL);
}

static void cumulus_gauges_become_counters(void)
{
    const struct fsc_profile *c = fsc_profile_find(fsc_app_profiles(), "cumulus");
    CHECK(c == &fsc_profile_cumulus);
    struct fsc_profile_match m = map_ok(c, "nvswitch_interface_if_in_octets");
    CHECK_STR(m.canonical, "fabric_port_rx_bytes_total");
    CHECK_INT(m.traits.kind, FSC_KIND_COUNTER);
    CHECK_INT(m.traits.width, 53);
    CHECK_INT(m.traits.unit, FSC_UNIT_BYTES);
    CHECK_INT(m.traits.signal, FSC_SIG_PORT_BYTES);
    CHECK_INT(m.traits.refresh_ns, 0);
    m = map_ok(c, "nvswitch_interface_if_out_octets");
    CHECK_STR(m.canonical, "fabric_port_tx_bytes_total");
    CHECK_INT(m.traits.direction, FSC_DIR_TX);
    m = map_ok(c, "nvswitch_interface_if_in_ucast_pkts");
    CHECK_STR(m.canonical, "fabric_port_rx_unicast_packets_total");
    m = map_ok(c, "nvswitch_interface_if_out_discards");
    CHECK_STR(m.canonical, "fabric_port_tx_discards_total");
    m = map_ok(c, "nvswitch_interface_dot3_out_pause_frames");
    CHECK_STR(m.canonical, "fabric_port_tx_pause_frames_total");

    m = map_ok(c, "nvswitch_interface_tc_tx_ecn_marked_tc");
    CHECK_STR(m.canonical, "fabric_port_ecn_marked_packets_total");
    CHECK_INT(m.traits.signal, FSC_SIG_ECN);
    CHECK_STR(m.label_name, "queue");
    CHECK_STR(m.label_attr, "tc");
    m = map_ok(c, "nvswitch_interface_sp_rx_pause");
    CHECK_STR(m.canonical, "fabric_port_pfc_rx_pause_frames_total");
    CHECK_INT(m.traits.signal, FSC_SIG_PFC_PAUSE_FRAMES);
    CHECK_STR(m.label_name, "priority");
    m = map_ok(c, "nvswitch_interface_sp_rx_pause_duration");
    CHECK_STR(m.canonical, "fabric_port_pfc_rx_pause_seconds_total");
    CHECK_INT(m.traits.unit, FSC_UNIT_MICROSECONDS);
    CHECK_INT(m.traits.signal, FSC_SIG_PFC_PAUSE_DURATION);
    CHECK_INT(m.traits.width, 53);

    /* The watermark is a real gauge. */
    m = map_ok(c, "nvswitch_interface_shared_buffer_port_tc_watermark");
    CHECK_STR(m.canonical, "fabric_port_queue_peak_bytes");
    CHECK_INT(m.traits.kind, FSC_KIND_GAUGE);
    CHECK_INT(m.traits.signal, FSC_SIG_QUEUE_PEAK);
    CHECK_STR(m.label_attr, "tc");

    /* Every mapped Cumulus name is 53 bits wide (doubles); the gauges are the
     * four levels: the pg and tc watermarks, the tc occupancy and the tc
     * transmit queue depth. */
    size_t gauges = 0, bad = 0;
    for (size_t i = 0; i < c->n_entries; i++) {
        const struct fsc_profile_entry *e = &c->entries[i];
        if (e->kind == FSC_KIND_GAUGE)
            gauges++;
        if (e->width != 53)
            bad++;
    }
    CHECK_INT(gauges, 4);
    CHECK_INT(bad, 0);

    /* Passthrough keeps the double width: 5.15's if_out_pkts, whose row says
     * "out unicast packets", does not feed tx packets. */
    m = map_ok(c, "nvswitch_interface_if_out_pkts");
    CHECK(m.entry == NULL);
    CHECK_STR(m.canonical, "fabric_cumulus_nvswitch_interface_if_out_pkts");
    CHECK_INT(m.traits.width, 53);
    CHECK_INT(m.traits.kind, FSC_KIND_COUNTER);
}

/* Names Cumulus 5.11 .. 5.16 publish beyond port bytes, with the kind,
 * unit and label NVIDIA's Open-Telemetry-Export pages give them
 * (tests/vendor/cumulus/5.<NN>.names). */
static void cumulus_packets_buffers_phy(void)
{
    const struct fsc_profile *c = &fsc_profile_cumulus;
    /* tx packets: IEEE 802.3 aFramesTransmittedOK, 5.13 .. 5.16 */
    struct fsc_profile_match m = map_ok(c, "nvswitch_interface_802_dot3_a_frames_transmitted_ok");
    CHECK_STR(m.canonical, "fabric_port_tx_packets_total");
    CHECK_INT(m.traits.kind, FSC_KIND_COUNTER);
    CHECK_INT(m.traits.unit, FSC_UNIT_PACKETS);
    CHECK_INT(m.traits.direction, FSC_DIR_TX);
    CHECK_INT(m.traits.width, 53);
    CHECK_STR(m.label_name, "");
    /* rx packets stay where they were */
    m = map_ok(c, "nvswitch_interface_ether_stats_pkts");
    CHECK_STR(m.canonical, "fabric_port_rx_packets_total");

    /* ingress PG watermark: a queue-peak gauge per priority group */
    m = map_ok(c, "nvswitch_interface_shared_buffer_port_pg_watermark");
    CHECK_STR(m.canonical, "fabric_port_pg_peak_bytes");
    CHECK_INT(m.traits.kind, FSC_KIND_GAUGE);
    CHECK_INT(m.traits.signal, FSC_SIG_QUEUE_PEAK);
    CHECK_INT(m.traits.unit, FSC_UNIT_BYTES);
    CHECK_INT(m.traits.direction, FSC_DIR_RX);
    CHECK_STR(m.label_name, "priority_group");
    CHECK_STR(m.label_attr, "pg");
    /* TC current occupancy: a gauge, no detector signal */
    m = map_ok(c, "nvswitch_interface_shared_buffer_port_tc_curr_occupancy");
    CHECK_STR(m.canonical, "fabric_port_queue_current_bytes");
    CHECK_INT(m.traits.kind, FSC_KIND_GAUGE);
    CHECK_INT(m.traits.signal, FSC_SIG_NONE);
    CHECK_STR(m.label_name, "queue");
    CHECK_STR(m.label_attr, "tc");
    /* the per-class transmit queue depth, in cells */
    m = map_ok(c, "nvswitch_interface_tc_tx_queue");
    CHECK_STR(m.canonical, "fabric_port_queue_current_cells");
    CHECK_INT(m.traits.kind, FSC_KIND_GAUGE);
    CHECK_INT(m.traits.unit, FSC_UNIT_NONE);
    CHECK_STR(m.label_attr, "tc");
    /* tx_wait: nanoseconds from the switch, exposed in seconds */
    m = map_ok(c, "nvswitch_interface_tx_wait");
    CHECK_STR(m.canonical, "fabric_port_tx_wait_seconds_total");
    CHECK_INT(m.traits.kind, FSC_KIND_COUNTER);
    CHECK_INT(m.traits.unit, FSC_UNIT_NANOSECONDS);
    CHECK_INT(m.traits.direction, FSC_DIR_TX);

    /* egress head-of-queue and switch-lifetime-limit discards */
    m = map_ok(c, "nvswitch_interface_discards_egress_hoq");
    CHECK_STR(m.canonical, "fabric_port_tx_hoq_timeout_discards_total");
    CHECK_INT(m.traits.unit, FSC_UNIT_PACKETS);
    m = map_ok(c, "nvswitch_interface_discards_egress_hoq_stall");
    CHECK_STR(m.canonical, "fabric_port_tx_hoq_stall_discards_total");
    m = map_ok(c, "nvswitch_interface_discards_egress_sll");
    CHECK_STR(m.canonical, "fabric_port_tx_sll_discards_total");
    CHECK_INT(m.traits.direction, FSC_DIR_TX);
    /* the general discards stay duplicates of if_*_discards */
    m = map_ok(c, "nvswitch_interface_discards_egress_general");
    CHECK(m.entry == NULL);

    /* PHY class (5.13+) */
    m = map_ok(c, "nvswitch_interface_phy_stats_phy_corrected_bits");
    CHECK_STR(m.canonical, "fabric_port_fec_corrected_bits_total");
    m = map_ok(c, "nvswitch_interface_phy_stats_phy_symbol_errors");
    CHECK_STR(m.canonical, "fabric_port_rx_phy_symbol_errors_total");
    m = map_ok(c, "nvswitch_interface_phy_stats_phy_effective_errors");
    CHECK_STR(m.canonical, "fabric_port_rx_phy_effective_errors_total");
    m = map_ok(c, "nvswitch_interface_phy_stats_phy_received_bits");
    CHECK_STR(m.canonical, "fabric_port_rx_phy_bits_total");
    m = map_ok(c, "nvswitch_interface_phy_stats_phy_raw_errors");
    CHECK_STR(m.canonical, "fabric_port_rx_lane_errors_total");
    CHECK_STR(m.label_name, "lane");
    CHECK_STR(m.label_attr, "lane");
    CHECK_STR(m.label_value, "");
    m = map_ok(c, "nvswitch_interface_dot3_stats_symbol_errors");
    CHECK_STR(m.canonical, "fabric_port_rx_symbol_errors_total");
    /* 5.12's PHY BER names are the same counters: they pass through */
    m = map_ok(c, "nvswitch_interface_phy_raw_errors_lane3");
    CHECK(m.entry == NULL);
    CHECK_STR(m.canonical, "fabric_cumulus_nvswitch_interface_phy_raw_errors_lane3");
    /* BER ratios are levels the source types from the point (Gauge) */
    m = map_ok(c, "nvswitch_interface_phy_stats_effective_ber");
    CHECK(m.entry == NULL);
}

static void mlx5_priority_capture(void)
{
    const struct fsc_profile *x = fsc_profile_find(fsc_app_profiles(), "mlx5");
    CHECK(x == &fsc_profile_mlx5);
    struct fsc_profile_match m = map_ok(x, "rx_prio3_pause");
    CHECK(m.entry != NULL);
    CHECK_STR(m.canonical, "fabric_port_pfc_rx_pause_frames_total");
    CHECK_STR(m.label_name, "priority");
    CHECK_STR(m.label_value, "3");
    CHECK(m.label_attr == NULL);
    CHECK_INT(m.traits.signal, FSC_SIG_PFC_PAUSE_FRAMES);
    CHECK_INT(m.traits.direction, FSC_DIR_RX);
    CHECK_INT(m.traits.refresh_ns, 10000000);

    m = map_ok(x, "tx_prio7_pause_duration");
    CHECK_STR(m.canonical, "fabric_port_pfc_tx_pause_seconds_total");
    CHECK_STR(m.label_value, "7");
    CHECK_INT(m.traits.unit, FSC_UNIT_MICROSECONDS);
    CHECK_INT(m.traits.signal, FSC_SIG_PFC_PAUSE_DURATION);
    CHECK_INT(m.traits.direction, FSC_DIR_TX);

    m = map_ok(x, "rx_prio0_pause_duration");
    CHECK_STR(m.canonical, "fabric_port_pfc_rx_pause_seconds_total");
    CHECK_STR(m.label_value, "0");
    m = map_ok(x, "rx_prio0_marked");
    CHECK_STR(m.canonical, "fabric_port_ecn_marked_packets_total");
    CHECK_STR(m.label_value, "0");
    CHECK_INT(m.traits.signal, FSC_SIG_ECN);
    m = map_ok(x, "rx_prio12_pause");
    CHECK_STR(m.label_value, "12");

    /* Not priorities: too many digits, a literal placeholder, no digits, a
     * per-ring counter. All pass through, sanitized. */
    m = map_ok(x, "rx_prio1234_pause");
    CHECK(m.entry == NULL);
    CHECK_STR(m.canonical, "fabric_mlx5_rx_prio1234_pause");
    CHECK_STR(m.label_name, "");
    m = map_ok(x, "rx_prio{p}_pause");
    CHECK(m.entry == NULL);
    CHECK_STR(m.canonical, "fabric_mlx5_rx_prio_p_pause");
    m = map_ok(x, "rx_prio_pause");
    CHECK(m.entry == NULL);
    m = map_ok(x, "rx3_packets");
    CHECK(m.entry == NULL);
    CHECK_STR(m.canonical, "fabric_mlx5_rx3_packets");

    /* Port counters. */
    m = map_ok(x, "rx_bytes_phy");
    CHECK_STR(m.canonical, "fabric_port_rx_bytes_total");
    CHECK_INT(m.traits.signal, FSC_SIG_PORT_BYTES);
    CHECK_INT(m.traits.width, 64);
    m = map_ok(x, "tx_discards_phy");
    CHECK_STR(m.canonical, "fabric_port_tx_discards_total");
    m = map_ok(x, "rx_buffer_passed_thres_phy");
    CHECK_STR(m.canonical, "fabric_nic_rx_buffer_over_threshold_total");
    CHECK_INT(m.traits.signal, FSC_SIG_BUFFER_THRESHOLD);
}

/* The hw_counters of a CX-8 whose width the driver states (the sections of
 * tests/vendor/mlx5/hw_counters.names marked "(32)" or "(64)": Q counters
 * 32 bits, congestion and PPCNT counters 64) are known entries of that
 * width, and they are exactly the hw_counters the NIC fixture writes, at the
 * same widths (one list: demo/nicfx/nicfx_names.c). */
static void mlx5_32bit_q_counters(void)
{
    const struct fsc_profile *x = &fsc_profile_mlx5;
    char path[512], line[128];
    snprintf(path, sizeof(path), "%s/mlx5/hw_counters.names", FSC_VENDOR_NAMES);
    FILE *f = fopen(path, "r");
    CHECK(f != NULL);
    if (f == NULL) {
        fprintf(stderr, "cannot open %s: %s\n", path, strerror(errno));
        return;
    }
    int width = 0, n32 = 0, n64 = 0;
    while (fgets(line, sizeof(line), f) != NULL) {
        size_t len = strcspn(line, "\r\n");
        line[len] = '\0';
        if (line[0] == '#') {
            width = len > 4 && strcmp(line + len - 4, "(32)") == 0   ? 32
                    : len > 4 && strcmp(line + len - 4, "(64)") == 0 ? 64
                                                                     : 0;
            continue;
        }
        if (width == 0 || len == 0)
            continue;
        struct fsc_profile_match m = map_ok(x, line);
        if (m.entry == NULL || m.traits.width != width)
            fprintf(stderr, "%s: not a known %d-bit counter\n", line, width);
        CHECK(m.entry != NULL);
        CHECK_INT(m.traits.width, width);
        CHECK_INT(m.traits.kind, FSC_KIND_COUNTER);
        int c = fsc_nicfx_ctr_find(line);
        if (c < 0 || fsc_nicfx_ctrs[c].group != FSC_NICFX_HW || fsc_nicfx_ctrs[c].width != width)
            fprintf(stderr, "%s: not a %d-bit hw_counters file of the fixture\n", line, width);
        CHECK(c >= 0 && fsc_nicfx_ctrs[c].group == FSC_NICFX_HW);
        CHECK_INT(c >= 0 ? fsc_nicfx_ctrs[c].width : 0, width);
        if (width == 32)
            n32++;
        else
            n64++;
    }
    fclose(f);
    CHECK_INT(n32, 26);
    CHECK_INT(n64, 5);
    int fixture_hw = 0;
    for (int c = 0; c < FSC_NICFX__CTRS; c++)
        fixture_hw += fsc_nicfx_ctrs[c].group == FSC_NICFX_HW;
    CHECK_INT(fixture_hw, n32 + n64);

    struct fsc_profile_match m = map_ok(x, "out_of_sequence");
    CHECK_STR(m.canonical, "fabric_nic_out_of_sequence_total");
    CHECK_INT(m.traits.signal, FSC_SIG_REORDER);
    m = map_ok(x, "packet_seq_err");
    CHECK_STR(m.canonical, "fabric_nic_packet_seq_errors_total");
    CHECK_INT(m.traits.signal, FSC_SIG_REORDER);
    m = map_ok(x, "rx_out_of_buffer");
    CHECK_INT(m.traits.width, 32);

    /* The congestion counters are 64-bit. */
    m = map_ok(x, "np_cnp_sent");
    CHECK_STR(m.canonical, "fabric_nic_cnp_sent_total");
    CHECK_INT(m.traits.signal, FSC_SIG_CNP);
    m = map_ok(x, "rp_cnp_handled");
    CHECK_STR(m.canonical, "fabric_nic_cnp_handled_total");
    CHECK_INT(m.traits.signal, FSC_SIG_CNP);
    m = map_ok(x, "np_ecn_marked_roce_packets");
    CHECK_STR(m.canonical, "fabric_nic_ecn_marked_roce_packets_total");
    CHECK_INT(m.traits.signal, FSC_SIG_ECN);
    m = map_ok(x, "rp_cnp_ignored");
    CHECK_STR(m.canonical, "fabric_nic_cnp_ignored_total");
    CHECK_INT(m.traits.signal, FSC_SIG_NONE);

    /* PCIe stall percentages are gauges. */
    m = map_ok(x, "outbound_pci_stalled_rd");
    CHECK_STR(m.canonical, "fabric_nic_pcie_outbound_stalled_read_percent");
    CHECK_INT(m.traits.kind, FSC_KIND_GAUGE);
    CHECK_INT(m.traits.unit, FSC_UNIT_PERCENT);
    m = map_ok(x, "outbound_pci_stalled_wr_events");
    CHECK_INT(m.traits.kind, FSC_KIND_COUNTER);
}

/* mlx5 per-priority drops, link-level pause and PHY errors:
 * labels, never numbers in names; widths as the driver reads them. Names
 * from the kernel files of docs/vendors/mlx5.md (tests/vendor/mlx5). */
static void mlx5_drops_pause_phy(void)
{
    const struct fsc_profile *x = &fsc_profile_mlx5;
    struct fsc_profile_match m = map_ok(x, "rx_prio3_buf_discard");
    CHECK_STR(m.canonical, "fabric_port_rx_priority_buffer_discards_total");
    CHECK_STR(m.label_name, "priority");
    CHECK_STR(m.label_value, "3");
    CHECK_INT(m.traits.unit, FSC_UNIT_PACKETS);
    CHECK_INT(m.traits.width, 64);
    m = map_ok(x, "rx_prio3_cong_discard");
    CHECK_STR(m.canonical, "fabric_port_rx_priority_congestion_discards_total");
    CHECK_STR(m.label_value, "3");
    CHECK_INT(m.traits.direction, FSC_DIR_RX);

    /* link-level PAUSE: the always-present 802.3 counter is the family,
     * the global-pause-mode copy is its own series */
    m = map_ok(x, "rx_pause_ctrl_phy");
    CHECK_STR(m.canonical, "fabric_port_rx_pause_frames_total");
    CHECK_INT(m.traits.signal, FSC_SIG_PFC_PAUSE_FRAMES);
    m = map_ok(x, "tx_pause_ctrl_phy");
    CHECK_STR(m.canonical, "fabric_port_tx_pause_frames_total");
    CHECK_INT(m.traits.direction, FSC_DIR_TX);
    m = map_ok(x, "rx_global_pause");
    CHECK_STR(m.canonical, "fabric_nic_rx_global_pause_frames_total");
    CHECK_INT(m.traits.signal, FSC_SIG_NONE);
    m = map_ok(x, "tx_global_pause");
    CHECK_STR(m.canonical, "fabric_nic_tx_global_pause_frames_total");
    m = map_ok(x, "rx_global_pause_duration");
    CHECK_STR(m.canonical, "fabric_port_rx_pause_seconds_total");

    /* PHY: per lane with a `lane` label */
    m = map_ok(x, "rx_err_lane_0_phy");
    CHECK_STR(m.canonical, "fabric_port_rx_lane_errors_total");
    CHECK_STR(m.label_name, "lane");
    CHECK_STR(m.label_value, "0");
    CHECK(m.label_attr == NULL);
    m = map_ok(x, "rx_err_lane_3_phy");
    CHECK_STR(m.label_value, "3");
    m = map_ok(x, "rx_err_lane__phy");
    CHECK(m.entry == NULL);
    m = map_ok(x, "rx_symbol_err_phy");
    CHECK_STR(m.canonical, "fabric_port_rx_symbol_errors_total");
    CHECK_INT(m.traits.unit, FSC_UNIT_PACKETS);
    m = map_ok(x, "rx_pcs_symbol_err_phy");
    CHECK_STR(m.canonical, "fabric_port_rx_phy_symbol_errors_total");
    m = map_ok(x, "rx_corrected_bits_phy");
    CHECK_STR(m.canonical, "fabric_port_fec_corrected_bits_total");
    CHECK_INT(m.traits.width, 64);
    m = map_ok(x, "rx_bits_phy");
    CHECK_STR(m.canonical, "fabric_port_rx_phy_bits_total");
    /* read as 32 bits by the driver (MLX5E_READ_CTR32_BE) */
    m = map_ok(x, "link_down_events_phy");
    CHECK_INT(m.traits.width, 32);
    m = map_ok(x, "rx_pci_signal_integrity");
    CHECK_INT(m.traits.width, 32);
    m = map_ok(x, "outbound_pci_stalled_wr_events");
    CHECK_INT(m.traits.width, 32);
    m = map_ok(x, "outbound_pci_buffer_overflow");
    CHECK_INT(m.traits.width, 64);

    /* IB PMA: ticks and the saturating error counters, 64 so a decrease
     * is a reset and never a wrap */
    static const struct {
        const char *vendor, *canonical;
        uint8_t dir;
    } pma[] = {
        {"port_xmit_wait", "fabric_nic_ib_port_tx_wait_ticks_total", FSC_DIR_TX},
        {"symbol_error", "fabric_nic_ib_port_rx_symbol_errors_total", FSC_DIR_RX},
        {"link_downed", "fabric_nic_ib_port_link_downed_total", FSC_DIR_NONE},
        {"port_rcv_errors", "fabric_nic_ib_port_rx_errors_total", FSC_DIR_RX},
        {"port_xmit_discards", "fabric_nic_ib_port_tx_discards_total", FSC_DIR_TX},
    };
    for (size_t i = 0; i < sizeof(pma) / sizeof(pma[0]); i++) {
        m = map_ok(x, pma[i].vendor);
        CHECK(m.entry != NULL);
        CHECK_STR(m.canonical, pma[i].canonical);
        CHECK_INT(m.traits.width, 64);
        CHECK_INT(m.traits.direction, pma[i].dir);
        CHECK_INT(m.traits.kind, FSC_KIND_COUNTER);
    }
    /* VL15_dropped and the other PMA error counters pass through */
    m = map_ok(x, "link_error_recovery");
    CHECK(m.entry == NULL);
}

static void passthrough_sanitized(void)
{
    char out[32];
    CHECK_INT(fsc_metric_name_sanitize("a-b.c", out, sizeof(out)), 5);
    CHECK_STR(out, "a_b_c");
    CHECK_INT(fsc_metric_name_sanitize("9lives", out, sizeof(out)), 7);
    CHECK_STR(out, "_9lives");
    CHECK_INT(fsc_metric_name_sanitize("x:y z", out, sizeof(out)), 5);
    CHECK_STR(out, "x_y_z");
    CHECK_INT(fsc_metric_name_sanitize("\xc2\xb5s", out, sizeof(out)), 3);
    CHECK_STR(out, "__s");
    CHECK_INT(fsc_metric_name_sanitize("", out, sizeof(out)), 0);
    CHECK_STR(out, "");
    /* Truncation reports the full length, as snprintf does. */
    char small[4];
    CHECK_INT(fsc_metric_name_sanitize("abcdef", small, sizeof(small)), 6);
    CHECK_STR(small, "abc");
    CHECK_INT(fsc_metric_name_sanitize("abcdef", NULL, 0), 6);

    const struct fsc_profile *j = &fsc_profile_junos;
    struct fsc_profile_match m = map_ok(j, "/a/b-c");
    CHECK_STR(m.canonical, "fabric_junos_a_b_c");
    m = map_ok(j, "//9x");
    CHECK_STR(m.canonical, "fabric_junos_9x");
    m = map_ok(&fsc_profile_mlx5, "rx_vport_unicast_bytes");
    CHECK_STR(m.canonical, "fabric_mlx5_rx_vport_unicast_bytes");
    CHECK_INT(m.traits.scale, 1);
    CHECK_INT(m.traits.unit, FSC_UNIT_NONE);

    CHECK_INT(fsc_profile_map(j, "", &m), -EINVAL);
    CHECK_INT(fsc_profile_map(j, NULL, &m), -EINVAL);
    CHECK_INT(fsc_profile_map(j, "///", &m), -EINVAL);
    char big[FSC_PROFILE_VENDOR_MAX + 2];
    memset(big, 'a', sizeof(big) - 1);
    big[sizeof(big) - 1] = '\0';
    CHECK_INT(fsc_profile_map(j, big, &m), -EINVAL); /* longer than accepted */
    /* Lower snake case: separators collapse, a lowercase-to-uppercase step
     * starts a word, letters are lowered. */
    m = map_ok(j, "/a//b--c/ifHighSpeed");
    CHECK_STR(m.canonical, "fabric_junos_a_b_c_if_high_speed");
    m = map_ok(&fsc_profile_mlx5, "VL15_dropped");
    CHECK_STR(m.canonical, "fabric_mlx5_vl15_dropped");
    m = map_ok(&fsc_profile_mlx5, "VL15Dropped");
    CHECK_STR(m.canonical, "fabric_mlx5_vl15_dropped");
    /* Bounded: the longest that fits is kept whole ... */
    size_t room = FSC_PROFILE_PASSTHROUGH_MAX - 1 - strlen("fabric_junos_");
    big[room] = '\0';
    m = map_ok(j, big);
    CHECK_INT(strlen(m.canonical), FSC_PROFILE_PASSTHROUGH_MAX - 1);
    CHECK(strncmp(m.canonical, "fabric_junos_aaa", 16) == 0);
    /* ... one more byte and it becomes the tag plus its trailing words. */
    static const char longer[] = "/interfaces/interface/subinterfaces/subinterface/ipv4/unnumbered/"
                                 "interface-ref/state/counters/in-some-very-long-leaf";
    m = map_ok(j, longer);
    char want[FSC_PROFILE_NAME_MAX];
    snprintf(want, sizeof(want), "fabric_junos_x%08x_%s",
             fnv1a(longer + 1), /* the tag: of the vendor name without its '/' */
             /* at most 93 bytes: 13 of prefix, 9 of tag, '_', then the whole
              * trailing words that fit in 70 (67 here; with
              * "subinterface_" it would be 80) */
             "ipv4_unnumbered_interface_ref_state_counters_in_some_very_long_leaf");
    CHECK_STR(m.canonical, want);
    CHECK(strlen(m.canonical) < FSC_PROFILE_PASSTHROUGH_MAX);
    /* Two long paths ending in one leaf stay two names. */
    struct fsc_profile_match m2 = map_ok(j, "/x/interfaces/interface/subinterfaces/subinterface/"
                                            "ipv4/unnumbered/interface-ref/state/counters/"
                                            "in-some-very-long-leaf");
    CHECK(strcmp(m.canonical, m2.canonical) != 0);
    /* No letter or digit: the tag of the bytes. */
    m = map_ok(j, "-");
    snprintf(want, sizeof(want), "fabric_junos_x%08x", fnv1a("-"));
    CHECK_STR(m.canonical, want);

    /* Whatever comes out is a name the registry accepts. */
    struct fsc_registry *reg = fsc_registry_create(100);
    uint16_t src;
    CHECK_INT(fsc_registry_source_add(reg, "t", 0, &src), 0);
    static const char *const odd[] = {"/a b/c\td", "\xff\xfe", "0", "-", "x.y.z", "rx_prio9_x"};
    for (size_t i = 0; i < sizeof(odd) / sizeof(odd[0]); i++) {
        for (size_t p = 0; fsc_app_profiles()[p] != NULL; p++) {
            CHECK_INT(fsc_profile_map(fsc_app_profiles()[p], odd[i], &m), 0);
            CHECK(fsc_registry_intern(reg, src, m.canonical, NULL, 0) != FSC_SERIES_NONE);
        }
    }
    fsc_registry_destroy(reg);
}

/* A table the checker must refuse, with the words it must say. */
static void expect_check_fails(const struct fsc_profile_entry *entries, size_t n, const char *why)
{
    struct fsc_profile prof = {"bad", entries, n,    "fabric_bad_", 64, 0, FSC_REFRESH_ON_READ,
                               NULL,  NULL,    NULL, NULL};
    char err[256] = "";
    CHECK_INT(fsc_profile_check(&prof, err, sizeof(err)), -EINVAL);
    if (strstr(err, why) == NULL)
        fprintf(stderr, "check error \"%s\" lacks \"%s\"\n", err, why);
    CHECK(strstr(err, why) != NULL);
}

static void tables_sorted_and_unique(void)
{
    struct fsc_registry *reg = fsc_registry_create(10000);
    uint16_t src;
    CHECK_INT(fsc_registry_source_add(reg, "t", 0, &src), 0);
    size_t nprof = 0;
    for (const struct fsc_profile *prof; (prof = fsc_app_profiles()[nprof]) != NULL; nprof++) {
        char err[256] = "";
        int rc = fsc_profile_check(prof, err, sizeof(err));
        if (rc != 0)
            fprintf(stderr, "%s\n", err);
        CHECK_INT(rc, 0);
        CHECK(fsc_profile_find(fsc_app_profiles(), prof->name) == prof);
        CHECK(prof->n_entries >= 20);
        for (size_t i = 0; i < prof->n_entries; i++) {
            const struct fsc_profile_entry *e = &prof->entries[i];
            /* Independent of the checker: strictly ascending vendor names. */
            if (i > 0)
                CHECK(strcmp(prof->entries[i - 1].vendor, e->vendor) < 0);
            /* Every entry is reachable through the public lookup: exact names
             * as they are, templates with a priority put in. */
            char name[FSC_PROFILE_VENDOR_MAX + 8];
            const char *ph = strstr(e->vendor, "{p}");
            if (ph != NULL)
                snprintf(name, sizeof(name), "%.*s5%s", (int)(ph - e->vendor), e->vendor, ph + 3);
            else
                snprintf(name, sizeof(name), "%s", e->vendor);
            struct fsc_profile_match m;
            CHECK_INT(fsc_profile_map(prof, name, &m), 0);
            if (m.entry != e)
                fprintf(stderr, "%s: %s does not map to its own entry\n", prof->name, name);
            CHECK(m.entry == e);
            CHECK_STR(m.label_value, ph != NULL ? "5" : "");
            /* Canonical and label names are names the registry accepts. */
            struct fsc_label l = {e->label ? e->label : "x", "v"};
            CHECK(fsc_registry_intern(reg, src, e->canonical, &l, 1) != FSC_SERIES_NONE);
        }
    }
    CHECK_INT(nprof, 3);
    CHECK(fsc_profile_find(fsc_app_profiles(), "eos") == NULL);
    CHECK(fsc_profile_find(fsc_app_profiles(), NULL) == NULL);
    fsc_registry_destroy(reg);

    /* The checker can fail. */
    const struct fsc_profile_entry unsorted[] = {
        {"b", "fabric_b_total", NULL, NULL, FSC_KIND_COUNTER, 64, 0, 0, 0, 1, 0},
        {"a", "fabric_a_total", NULL, NULL, FSC_KIND_COUNTER, 64, 0, 0, 0, 1, 0},
    };
    expect_check_fails(unsorted, 2, "not sorted");
    const struct fsc_profile_entry dup_vendor[] = {
        {"a", "fabric_a_total", NULL, NULL, FSC_KIND_COUNTER, 64, 0, 0, 0, 1, 0},
        {"a", "fabric_b_total", NULL, NULL, FSC_KIND_COUNTER, 64, 0, 0, 0, 1, 0},
    };
    expect_check_fails(dup_vendor, 2, "duplicate");
    const struct fsc_profile_entry dup_canonical[] = {
        {"a", "fabric_a_total", NULL, NULL, FSC_KIND_COUNTER, 64, 0, 0, 0, 1, 0},
        {"b", "fabric_a_total", NULL, NULL, FSC_KIND_COUNTER, 64, 0, 0, 0, 1, 0},
    };
    expect_check_fails(dup_canonical, 2, "canonical name already used");
    const struct fsc_profile_entry no_total[] = {
        {"a", "fabric_a", NULL, NULL, FSC_KIND_COUNTER, 64, 0, 0, 0, 1, 0},
    };
    expect_check_fails(no_total, 1, "_total");
    const struct fsc_profile_entry bad_width[] = {
        {"a", "fabric_a_total", NULL, NULL, FSC_KIND_COUNTER, 48, 0, 0, 0, 1, 0},
    };
    expect_check_fails(bad_width, 1, "width");
    const struct fsc_profile_entry bad_name[] = {
        {"a", "fabric-a_total", NULL, NULL, FSC_KIND_COUNTER, 64, 0, 0, 0, 1, 0},
    };
    expect_check_fails(bad_name, 1, "invalid canonical");
    const struct fsc_profile_entry p_without_label[] = {
        {"a{p}", "fabric_a_total", NULL, NULL, FSC_KIND_COUNTER, 64, 0, 0, 0, 1, 0},
    };
    expect_check_fails(p_without_label, 1, "{p}");
    const struct fsc_profile_entry wrong_dir[] = {
        {"a", "fabric_rx_a_total", NULL, NULL, FSC_KIND_COUNTER, 64, 0, 0, FSC_DIR_TX, 1, 0},
    };
    expect_check_fails(wrong_dir, 1, "_rx_");
    /* Gauges: any level without _total; a peak signal needs a gauge. */
    const struct fsc_profile_entry peak_counter[] = {
        {"a", "fabric_a_total", NULL, NULL, FSC_KIND_COUNTER, 64, 0, FSC_SIG_QUEUE_PEAK, 0, 1, 0},
    };
    expect_check_fails(peak_counter, 1, "need a gauge");
    const struct fsc_profile_entry gauge_total[] = {
        {"a", "fabric_a_total", NULL, NULL, FSC_KIND_GAUGE, 64, 0, 0, 0, 1, 0},
    };
    expect_check_fails(gauge_total, 1, "must not end in _total");
    const struct fsc_profile_entry plain_gauge[] = {
        {"a", "fabric_a_cells", NULL, NULL, FSC_KIND_GAUGE, 53, FSC_UNIT_NONE, 0, 0, 1, 0},
        {"b", "fabric_b_bytes", NULL, NULL, FSC_KIND_GAUGE, 53, FSC_UNIT_BYTES, 0, 0, 1, 0},
    };
    struct fsc_profile ok = {"ok", plain_gauge, 2,    "fabric_ok_", 64, 0, FSC_REFRESH_ON_READ,
                             NULL, NULL,        NULL, NULL};
    char err[256] = "";
    CHECK_INT(fsc_profile_check(&ok, err, sizeof(err)), 0);
}

static void ib_port_data_scale4(void)
{
    const struct fsc_profile *x = &fsc_profile_mlx5;
    struct fsc_profile_match m = map_ok(x, "port_xmit_data");
    CHECK_STR(m.canonical, "fabric_nic_ib_port_tx_bytes_total");
    CHECK_INT(m.traits.scale, 4);
    CHECK_INT(m.traits.unit, FSC_UNIT_BYTES);
    CHECK_INT(m.traits.direction, FSC_DIR_TX);
    CHECK_INT(m.traits.width, 64);
    CHECK_INT(m.traits.kind, FSC_KIND_COUNTER);
    /* 1000 PMA words are 4000 bytes. */
    CHECK_INT(1000ull * m.traits.scale, 4000);
    m = map_ok(x, "port_rcv_data");
    CHECK_STR(m.canonical, "fabric_nic_ib_port_rx_bytes_total");
    CHECK_INT(m.traits.scale, 4);
    CHECK_INT(m.traits.direction, FSC_DIR_RX);
    /* Packets are packets. */
    m = map_ok(x, "port_xmit_packets");
    CHECK_INT(m.traits.scale, 1);
    /* Every other entry of every profile has scale 1. */
    size_t scaled = 0;
    for (size_t p = 0; fsc_app_profiles()[p] != NULL; p++)
        for (size_t i = 0; i < fsc_app_profiles()[p]->n_entries; i++)
            if (fsc_app_profiles()[p]->entries[i].scale != 1)
                scaled++;
    CHECK_INT(scaled, 2);
}

/* Junos passthrough leaves are gauges when their words say they are levels:
 * every leaf below is named as in Juniper's protos (github.com/Juniper/
 * telemetry: qmon.proto, port.proto, pfe_qos_egress_qstats.proto,
 * ldp_p2mp_lsp_stats.proto, optics.proto) or the OpenConfig models; the
 * known answer is Juniper's own annotation (is_gauge*, is_counter). */
static void junos_passthrough_gauges(void)
{
    static const struct {
        const char *leaf;
        int gauge;
    } cases[] = {
        /* is_gauge */
        {"/junos/system/linecard/qmon-sw/egress/peak-buffer-occupancy-percent", 1},
        {"/junos/system/linecard/interface/interface_stats/egress_queue_info/cur_buffer_occupancy",
         1},
        {"/junos/system/linecard/interface/interface_stats/egress_queue_info/avg_buffer_occupancy",
         1},
        {"/junos/system/linecard/interface/interface_stats/egress_queue_info/peak_buffer_occupancy",
         1},
        {"/junos/system/linecard/interface/interface_stats/egress_queue_info/allocated_buffer_size",
         1},
        {"/junos/system/linecard/interface/interface_stats/ingress_stats/if_1sec_octets", 1},
        {"/junos/system/linecard/interface/interface_stats/ingress_stats/if_1sec_pkts", 1},
        {"/a/agg_fab_stats_ipps", 1},
        {"/a/queue_depth_maximum", 1},
        {"/a/bridge_flow_table_utilization", 1},
        {"/a/lane_laser_output_power_dbm", 1},
        {"/a/module_temp_high_alarm_threshold", 1},
        {"/a/drop_bytes_per_second", 1},
        {"/a/temp_value", 1},
        /* is_gauge_max */
        {"/qos/interfaces/interface/input/queues/queue/state/max-queue-len", 1},
        {"/qos/interfaces/interface/input/queues/queue/state/avg-queue-len", 1},
        /* "Rates of the above counters", marked is_counter */
        {"/a/byte_rate", 1},
        {"/a/packet_rate", 1},
        /* not marked, levels and times by the OpenConfig models */
        {"/interfaces/interface/state/high-speed", 1},
        {"/interfaces/interface/state/last-change", 1},
        {"/junos/system/linecard/interface/interface_stats/ifHighSpeed", 1},
        {"/junos/system/linecard/interface/interface_stats/ifLastChange", 1},
        /* is_counter */
        {"/junos/system/linecard/qmon-sw/egress/packets", 0},
        {"/junos/system/linecard/interface/interface_stats/egress_queue_info/rl_drop_bytes", 0},
        {"/junos/system/linecard/interface/interface_stats/ingress_errors/if_in_frame_errors", 0},
        {"/junos/system/linecard/interface/interface_stats/if_transitions", 0},
        {"/a/rate_limit_drop_bytes", 0},
        {"/a/bridge_max_flows_exceeded_failures", 0},
        {"/interfaces/interface/state/counters/in-unknown-protos", 0},
        {"/interfaces/interface/ethernet/state/counters/in-maxsize-exceeded", 0},
        {"/interfaces/interface/ethernet/state/counters/in-oversize-frames", 0},
        /* not marked: an event count whose words include a time */
        {"/a/transmit_queue_time_outs", 0},
        {"/a/in-frame-length-errors", 0},
    };
    const struct fsc_profile *j = &fsc_profile_junos;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        struct fsc_profile_match m = map_ok(j, cases[i].leaf);
        int kind = cases[i].gauge ? FSC_KIND_GAUGE : FSC_KIND_COUNTER;
        if (m.entry != NULL || m.traits.kind != kind)
            fprintf(stderr, "%s: kind %d, want %d\n", cases[i].leaf, m.traits.kind, kind);
        CHECK(m.entry == NULL);
        CHECK_INT(m.traits.kind, kind);
        CHECK_INT(m.traits.signal, FSC_SIG_NONE);
    }
    /* 150 bytes in snake case (qmon.proto's field names under the sensor
     * path): shortened to its trailing words (profile.h); the tag is of the
     * vendor name as sent. */
    struct fsc_profile_match m =
        map_ok(j, "/junos/system/linecard/qmon-sw/queue_monitor_element_info/"
                  "queue_monitor_stats_egress/queue_monitor_stats_info/"
                  "peak_buffer_occupancy_percent");
    char want[FSC_PROFILE_NAME_MAX];
    snprintf(want, sizeof(want), "fabric_junos_x%08x_%s",
             fnv1a("junos/system/linecard/qmon-sw/queue_monitor_element_info/"
                   "queue_monitor_stats_egress/queue_monitor_stats_info/"
                   "peak_buffer_occupancy_percent"),
             "stats_egress_queue_monitor_stats_info_peak_buffer_occupancy_percent");
    CHECK_STR(m.canonical, want);
    /* A mapped gauge keeps its entry; other profiles have no name rule. */
    m = map_ok(j, "/junos/system/linecard/qmon-sw/egress/peak-buffer-occupancy-bytes");
    CHECK(m.entry != NULL);
    m = map_ok(&fsc_profile_mlx5, "rx_max_buffer_occupancy");
    CHECK_INT(m.traits.kind, FSC_KIND_COUNTER);

    /* The word cutter: separators, case changes, words too long to match. */
    static const char *const words[] = {"speed", "max", NULL};
    static const char *const last[] = {"len", NULL};
    static const char *const suffixes[] = {"pps", NULL};
    static const char *const counts[] = {"errors", NULL};
    const struct fsc_gauge_names g = {words, last, suffixes, counts};
    CHECK_INT(fsc_profile_name_is_gauge(&g, "ifHighSpeed"), 1);
    CHECK_INT(fsc_profile_name_is_gauge(&g, "IFHIGHSPEED"), 0);
    CHECK_INT(fsc_profile_name_is_gauge(&g, "x/SPEED"), 1);
    CHECK_INT(fsc_profile_name_is_gauge(&g, "speed/x"), 0); /* the leaf only */
    CHECK_INT(fsc_profile_name_is_gauge(&g, "len-x"), 0);   /* not last */
    CHECK_INT(fsc_profile_name_is_gauge(&g, "queue.len"), 1);
    CHECK_INT(fsc_profile_name_is_gauge(&g, "maxsize"), 0);    /* whole words */
    CHECK_INT(fsc_profile_name_is_gauge(&g, "max_errors"), 0); /* a count wins */
    CHECK_INT(fsc_profile_name_is_gauge(&g, "opps"), 1);
    CHECK_INT(fsc_profile_name_is_gauge(&g, "max2Len"), 1);
    CHECK_INT(fsc_profile_name_is_gauge(&g, "x_"
                                            "speedspeedspeedspeedspeedspeedspeedspeed"),
              0);
    CHECK_INT(fsc_profile_name_is_gauge(&g, "/__/"), 0);
    CHECK_INT(fsc_profile_name_is_gauge(&g, ""), 0);
    CHECK_INT(fsc_profile_name_is_gauge(NULL, "max"), 0);
    CHECK_INT(fsc_profile_name_is_gauge(&g, NULL), 0);

    /* Canonical names (replay files): the words after the passthrough prefix. */
    const struct fsc_profile *const *all = fsc_app_profiles();
    CHECK_INT(fsc_profile_passthrough_is_gauge(
                  all, "fabric_junos_qos_interfaces_interface_output_queues_queue_state_max_"
                       "queue_len"),
              1);
    CHECK_INT(fsc_profile_passthrough_is_gauge(
                  all, "fabric_junos_interfaces_interface_state_counters_in_unknown_protos"),
              0);
    CHECK_INT(fsc_profile_passthrough_is_gauge(all, "fabric_mlx5_rx_max_buffer_occupancy"), 0);
    CHECK_INT(fsc_profile_passthrough_is_gauge(all, "fabric_port_queue_peak_bytes"), 0);
    CHECK_INT(fsc_profile_passthrough_is_gauge(all, NULL), 0);
    CHECK_INT(fsc_profile_passthrough_is_gauge(NULL, "fabric_junos_max"), 0);
}

/* Variants: Junos OS Evolved and Junos OS name the queue peak differently;
 * a device of one variant maps the other's name as passthrough. */
static void profile_variants(void)
{
    const struct fsc_profile *j = &fsc_profile_junos;
    uint8_t evo = fsc_profile_variant_bit(j, "evo"), junos = fsc_profile_variant_bit(j, "junos");
    CHECK_INT(evo, 1);
    CHECK_INT(junos, 2);
    CHECK_INT(fsc_profile_variant_bit(j, "eos"), 0);
    CHECK_INT(fsc_profile_variant_bit(j, NULL), 0);
    CHECK_INT(fsc_profile_variant_bit(&fsc_profile_mlx5, "evo"), 0); /* no variants */

    const char *maxq = "/qos/interfaces/interface/output/queues/queue/state/max-queue-len";
    const char *qmon = "/junos/system/linecard/qmon-sw/egress/peak-buffer-occupancy-bytes";
    struct fsc_profile_match m;
    CHECK_INT(fsc_profile_map_variant(j, evo, maxq, &m), 0);
    CHECK_STR(m.canonical, "fabric_port_queue_peak_bytes");
    CHECK_INT(fsc_profile_map_variant(j, junos, qmon, &m), 0);
    CHECK_STR(m.canonical, "fabric_port_queue_peak_bytes");
    CHECK_STR(m.label_attr, "queue-number");
    /* The other variant's name: a passthrough gauge ("max", "peak"), no signal. */
    CHECK_INT(fsc_profile_map_variant(j, junos, maxq, &m), 0);
    CHECK(m.entry == NULL);
    CHECK_STR(m.canonical,
              "fabric_junos_qos_interfaces_interface_output_queues_queue_state_max_queue_len");
    CHECK_INT(m.traits.kind, FSC_KIND_GAUGE);
    CHECK_INT(m.traits.signal, FSC_SIG_NONE);
    CHECK_INT(m.traits.refresh_ns, 2000000000);
    CHECK_INT(fsc_profile_map_variant(j, evo, qmon, &m), 0);
    CHECK(m.entry == NULL);
    /* The vendor's own name once: /junos/... under fabric_junos_. */
    CHECK_STR(m.canonical, "fabric_junos_system_linecard_qmon_sw_egress_peak_buffer_"
                           "occupancy_bytes");
    CHECK_INT(m.traits.kind, FSC_KIND_GAUGE);
    /* Every-variant entries map on both; mask 0 is any variant. */
    const char *avg = "/qos/interfaces/interface/output/queues/queue/state/avg-queue-len";
    CHECK_INT(fsc_profile_map_variant(j, junos, avg, &m), 0);
    CHECK_STR(m.canonical, "fabric_port_queue_avg_bytes");
    CHECK_INT(fsc_profile_map_variant(j, evo, avg, &m), 0);
    CHECK_STR(m.canonical, "fabric_port_queue_avg_bytes");
    CHECK_INT(fsc_profile_map_variant(j, 0, qmon, &m), 0);
    CHECK(m.entry != NULL);
    CHECK_INT(fsc_profile_map_variant(j, evo, "", &m), -EINVAL);

    /* The checker: a shared canonical name needs disjoint variants and the
     * same traits; variant bits need names. */
    static const char *const two[] = {"a", "b", NULL};
    struct fsc_profile prof = {"var", NULL, 2,   "fabric_var_", 64, 0, FSC_REFRESH_ON_READ,
                               NULL,  NULL, two, NULL};
    char err[256];
    const struct fsc_profile_entry disjoint[] = {
        {"x", "fabric_q_bytes", NULL, NULL, FSC_KIND_GAUGE, 64, FSC_UNIT_BYTES, 0, 0, 1, 1},
        {"y", "fabric_q_bytes", NULL, NULL, FSC_KIND_GAUGE, 32, FSC_UNIT_BYTES, 0, 0, 1, 2},
    };
    prof.entries = disjoint;
    CHECK_INT(fsc_profile_check(&prof, err, sizeof(err)), 0);
    const struct fsc_profile_entry overlap[] = {
        {"x", "fabric_q_bytes", NULL, NULL, FSC_KIND_GAUGE, 64, FSC_UNIT_BYTES, 0, 0, 1, 3},
        {"y", "fabric_q_bytes", NULL, NULL, FSC_KIND_GAUGE, 64, FSC_UNIT_BYTES, 0, 0, 1, 2},
    };
    prof.entries = overlap;
    CHECK_INT(fsc_profile_check(&prof, err, sizeof(err)), -EINVAL);
    CHECK(strstr(err, "same variant") != NULL);
    const struct fsc_profile_entry one_any[] = {
        {"x", "fabric_q_bytes", NULL, NULL, FSC_KIND_GAUGE, 64, FSC_UNIT_BYTES, 0, 0, 1, 0},
        {"y", "fabric_q_bytes", NULL, NULL, FSC_KIND_GAUGE, 64, FSC_UNIT_BYTES, 0, 0, 1, 2},
    };
    prof.entries = one_any;
    CHECK_INT(fsc_profile_check(&prof, err, sizeof(err)), -EINVAL);
    const struct fsc_profile_entry other_unit[] = {
        {"x", "fabric_q_total", NULL, NULL, FSC_KIND_COUNTER, 64, FSC_UNIT_PACKETS, 0, 0, 1, 1},
        {"y", "fabric_q_total", NULL, NULL, FSC_KIND_COUNTER, 64, FSC_UNIT_NONE, 0, 0, 1, 2},
    };
    prof.entries = other_unit;
    CHECK_INT(fsc_profile_check(&prof, err, sizeof(err)), -EINVAL);
    CHECK(strstr(err, "other traits") != NULL);
    const struct fsc_profile_entry unnamed_bit[] = {
        {"x", "fabric_q_total", NULL, NULL, FSC_KIND_COUNTER, 64, 0, 0, 0, 1, 4},
    };
    prof.entries = unnamed_bit;
    prof.n_entries = 1;
    CHECK_INT(fsc_profile_check(&prof, err, sizeof(err)), -EINVAL);
    CHECK(strstr(err, "variant_names") != NULL);
    /* A gauge with a signal other than queue-peak reads no rate. */
    const struct fsc_profile_entry gauge_ecn[] = {
        {"x", "fabric_q_bytes", NULL, NULL, FSC_KIND_GAUGE, 64, FSC_UNIT_BYTES, FSC_SIG_ECN, 0, 1,
         0},
    };
    prof.entries = gauge_ecn;
    CHECK_INT(fsc_profile_check(&prof, err, sizeof(err)), -EINVAL);
    CHECK(strstr(err, "gauge carries no signal") != NULL);
}

TEST_MAIN(TEST(junos_known_names), TEST(cumulus_gauges_become_counters),
          TEST(cumulus_packets_buffers_phy), TEST(mlx5_drops_pause_phy),
          TEST(mlx5_priority_capture), TEST(mlx5_32bit_q_counters), TEST(passthrough_sanitized),
          TEST(tables_sorted_and_unique), TEST(ib_port_data_scale4), TEST(junos_passthrough_gauges),
          TEST(profile_variants))
