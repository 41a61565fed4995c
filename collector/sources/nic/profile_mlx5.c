/* NVIDIA ConnectX (mlx5) host profile: ethtool -S names, RDMA hw_counters
 * file names and IB PMA `counters/` file names share one namespace (none
 * collide). The NIC's netdev / port becomes the port label in the NIC source.
 *
 * Sources (kept with the tests as the files of tests/vendor/mlx5; every vendor
 * name below is in one of them): the driver's ethtool tables in
 * drivers/net/ethernet/mellanox/mlx5/core/en_stats.c and their descriptions
 * in Documentation/networking/device_drivers/ethernet/mellanox/mlx5/
 * counters.rst; the RDMA hw_counters in drivers/infiniband/hw/mlx5/
 * counters.c; the IB PMA files in drivers/infiniband/core/sysfs.c and
 * Documentation/ABI/stable/sysfs-class-infiniband (all Linux).
 *
 * canonical                              vendor                     notes
 * fabric_port_rx_bytes_total / tx        rx_bytes_phy / tx_bytes_phy   PORT_BYTES, 64
 * fabric_port_rx_packets_total / tx      rx_packets_phy / tx_packets_phy
 * fabric_port_rx_{multicast,broadcast}_packets_total / tx
 *                                        rx_multicast_phy ... / tx_...
 * fabric_port_rx_discards_total / tx     rx_discards_phy / tx_discards_phy
 * fabric_port_rx_fcs_errors_total        rx_crc_errors_phy
 * fabric_port_link_down_events_total     link_down_events_phy   width 32 (the driver
 *                                        reads phys_layer_cntrs.link_down_events as 32 bits)
 * fabric_port_rx_pause_frames_total / tx rx_pause_ctrl_phy / tx_pause_ctrl_phy
 *     Link-level PAUSE. counters.rst: pause_ctrl_phy is "the number of link
 *     layer pause packets" (IEEE 802.3 a_pause_mac_ctrl_frames_*, present on
 *     every port), rx_global_pause the same frames "only enabled when global
 *     pause mode is enabled" (en_stats.c prints the per-priority group's
 *     slot 0 under that name while link pause is on). Both would count one
 *     port's PAUSE frames in one series: the always-present counter feeds the
 *     canonical family, the mode-dependent one keeps its own name,
 *     fabric_nic_{rx,tx}_global_pause_frames_total (no detector signal).
 * fabric_port_rx_pause_seconds_total / tx rx_global_pause_duration / tx (µs): the
 *                                        only link-level pause time mlx5 counts
 * fabric_port_pfc_rx_pause_frames_total{priority} / tx  rx_prio{p}_pause / tx_prio{p}_pause
 * fabric_port_pfc_rx_pause_seconds_total{priority} / tx rx_prio{p}_pause_duration / tx
 *                                        MICROSECONDS: the engine converts to seconds
 * fabric_port_pfc_rx_pause_transitions_total{priority}  rx_prio{p}_pause_transition
 * fabric_port_ecn_marked_packets_total{priority}        rx_prio{p}_marked   ECN
 * fabric_port_{rx,tx}_priority_{bytes,packets}_total{priority}  rx_prio{p}_bytes ...
 * fabric_port_rx_priority_discards_total{priority}      rx_prio{p}_discards
 * fabric_port_rx_priority_buffer_discards_total{priority}     rx_prio{p}_buf_discard
 * fabric_port_rx_priority_congestion_discards_total{priority} rx_prio{p}_cong_discard
 *     ("per host receive buffers" / "per host congestion", counters.rst)
 * PHY (ethtool, 64-bit):
 * fabric_port_rx_symbol_errors_total     rx_symbol_err_phy  IEEE 802.3 symbol errors
 *                                        during carrier: "received packets dropped"
 * fabric_port_rx_phy_symbol_errors_total rx_pcs_symbol_err_phy  "not corrected by FEC"
 * fabric_port_fec_corrected_bits_total   rx_corrected_bits_phy
 * fabric_port_rx_lane_errors_total{lane} rx_err_lane_{p}_phy  raw errors before FEC
 * fabric_port_rx_phy_bits_total          rx_bits_phy  (counters.rst; the BER denominator)
 * fabric_nic_{rx,tx}_global_pause_frames_total  rx_global_pause / tx_global_pause
 * fabric_nic_tx_pause_storm_{warning,error}_events_total tx_pause_storm_*_events
 * fabric_nic_rx_buffer_over_threshold_total  rx_buffer_passed_thres_phy  BUFFER_THRESHOLD
 * fabric_nic_rx_out_of_buffer_total      rx_out_of_buffer   width 32 (QUERY_Q_COUNTER,
 *                                        read as 32 bits in en_stats.c)
 * fabric_nic_rdma_{rx,tx}_unicast_{bytes,packets}_total rx_vport_rdma_unicast_* / tx
 * fabric_nic_pcie_outbound_stalled_{read,write}_percent outbound_pci_stalled_rd/wr
 *                                        GAUGE, PERCENT (last second)
 * fabric_nic_pcie_outbound_stalled_{read,write}_events_total  ..._rd/wr_events
 * fabric_nic_pcie_outbound_buffer_overflow_total  outbound_pci_buffer_overflow  64-bit
 * fabric_nic_pcie_{rx,tx}_signal_integrity_errors_total  rx/tx_pci_signal_integrity
 *                                        the MPCNT counters but the overflow are read as
 *                                        32 bits (MLX5E_READ_CTR32_BE): width 32
 * hw_counters, 64-bit:
 * fabric_nic_cnp_sent_total              np_cnp_sent            CNP
 * fabric_nic_cnp_handled_total           rp_cnp_handled         CNP
 * fabric_nic_cnp_ignored_total           rp_cnp_ignored
 * fabric_nic_ecn_marked_roce_packets_total  np_ecn_marked_roce_packets  ECN
 * fabric_nic_rx_icrc_errors_total        rx_icrc_encapsulated
 * hw_counters Q counters, width 32 (counters.c reads QUERY_Q_COUNTER fields
 * with be32_to_cpu: they wrap at 2^32), as fabric_nic_<name>_total with
 * plural nouns, e.g. fabric_nic_out_of_sequence_total (REORDER),
 * fabric_nic_packet_seq_errors_total (REORDER), fabric_nic_out_of_buffer_total,
 * fabric_nic_duplicate_requests_total, fabric_nic_local_ack_timeout_errors_total ...
 * IB PMA counters/:
 * fabric_nic_ib_port_rx_bytes_total / tx port_rcv_data / port_xmit_data  scale 4
 *                                        (the PMA counts 4-byte words, Linux Documentation/
 *                                        ABI/stable/sysfs-class-infiniband; the poller
 *                                        multiplies, nic_plan.h: values leave in
 *                                        bytes); no PORT_BYTES signal: *_bytes_phy
 *                                        carry utilization
 * fabric_nic_ib_port_rx_packets_total / tx  port_rcv_packets / port_xmit_packets
 * fabric_nic_ib_port_tx_wait_ticks_total port_xmit_wait  "ticks during which the port had
 *                                        data to transmit but no data was sent"
 * fabric_nic_ib_port_rx_symbol_errors_total  symbol_error
 * fabric_nic_ib_port_link_downed_total   link_downed
 * fabric_nic_ib_port_rx_errors_total     port_rcv_errors
 * fabric_nic_ib_port_tx_discards_total   port_xmit_discards
 *     Widths: the data / packet counters are the 64-bit PortCountersExtended
 *     ones. The others are PortCounters fields (sysfs.c PORT_PMA_ATTR: 16 bits
 *     symbol_error, port_rcv_errors, port_xmit_discards; 8 bits link_downed;
 *     32 bits port_xmit_wait) that saturate at all ones instead of wrapping
 *     (IBA). They are declared 64-bit so that a decrease (a counter reset) is
 *     a reset, never unwound as a wrap; a counter stuck at its maximum
 *     (65535, 255, 2^32-1) reads as no further increase, and its raw value
 *     shows it.
 *
 * Unknown names pass through as fabric_mlx5_<name>, 64-bit. refresh_ns = 10 ms:
 * the default hw_counters `lifespan` cache; a port's own `lifespan` file wins
 * for its hw_counters (nic_plan.h). */
#include "model/profile.h"

/* Initializer macros read best on one line. */
/* clang-format off */
/* counter, no extra label */
#define C(vendor, canonical, width, unit, signal, dir) \
    {vendor, canonical, NULL, NULL, FSC_KIND_COUNTER, width, unit, signal, dir, 1, 0}
/* 64-bit counter with the priority captured from {p} */
#define PRIO(vendor, canonical, unit, signal, dir) \
    {vendor, canonical, "priority", NULL, FSC_KIND_COUNTER, 64, unit, signal, dir, 1, 0}
/* 64-bit counter with the lane captured from {p} */
#define LANE(vendor, canonical, unit, signal, dir) \
    {vendor, canonical, "lane", NULL, FSC_KIND_COUNTER, 64, unit, signal, dir, 1, 0}
/* 32-bit Q counter (hw_counters) */
#define Q32(vendor, canonical, signal, dir) \
    {vendor, canonical, NULL, NULL, FSC_KIND_COUNTER, 32, FSC_UNIT_NONE, signal, dir, 1, 0}
/* gauge in percent */
#define PCT(vendor, canonical) \
    {vendor, canonical, NULL, NULL, FSC_KIND_GAUGE, 64, FSC_UNIT_PERCENT, FSC_SIG_NONE, \
     FSC_DIR_NONE, 1, 0}
/* clang-format on */

#define B  FSC_UNIT_BYTES
#define P  FSC_UNIT_PACKETS
#define N  FSC_UNIT_NONE
#define US FSC_UNIT_MICROSECONDS
#define RX FSC_DIR_RX
#define TX FSC_DIR_TX
#define ND FSC_DIR_NONE

/* Sorted by strcmp(vendor): checked by fsc_profile_check(). */
static const struct fsc_profile_entry mlx5_entries[] = {
    Q32("duplicate_request", "fabric_nic_duplicate_requests_total", FSC_SIG_NONE, RX),
    Q32("implied_nak_seq_err", "fabric_nic_implied_nak_seq_errors_total", FSC_SIG_NONE, RX),
    C("link_down_events_phy", "fabric_port_link_down_events_total", 32, N, FSC_SIG_NONE, ND),
    C("link_downed", "fabric_nic_ib_port_link_downed_total", 64, N, FSC_SIG_NONE, ND),
    Q32("local_ack_timeout_err", "fabric_nic_local_ack_timeout_errors_total", FSC_SIG_NONE, ND),
    C("np_cnp_sent", "fabric_nic_cnp_sent_total", 64, P, FSC_SIG_CNP, TX),
    C("np_ecn_marked_roce_packets", "fabric_nic_ecn_marked_roce_packets_total", 64, P, FSC_SIG_ECN,
      RX),
    Q32("out_of_buffer", "fabric_nic_out_of_buffer_total", FSC_SIG_NONE, RX),
    Q32("out_of_sequence", "fabric_nic_out_of_sequence_total", FSC_SIG_REORDER, RX),
    C("outbound_pci_buffer_overflow", "fabric_nic_pcie_outbound_buffer_overflow_total", 64, N,
      FSC_SIG_NONE, ND),
    PCT("outbound_pci_stalled_rd", "fabric_nic_pcie_outbound_stalled_read_percent"),
    C("outbound_pci_stalled_rd_events", "fabric_nic_pcie_outbound_stalled_read_events_total", 32, N,
      FSC_SIG_NONE, ND),
    PCT("outbound_pci_stalled_wr", "fabric_nic_pcie_outbound_stalled_write_percent"),
    C("outbound_pci_stalled_wr_events", "fabric_nic_pcie_outbound_stalled_write_events_total", 32,
      N, FSC_SIG_NONE, ND),
    Q32("packet_seq_err", "fabric_nic_packet_seq_errors_total", FSC_SIG_REORDER, RX),
    {"port_rcv_data", "fabric_nic_ib_port_rx_bytes_total", NULL, NULL, FSC_KIND_COUNTER, 64, B,
     FSC_SIG_NONE, RX, 4, 0},
    C("port_rcv_errors", "fabric_nic_ib_port_rx_errors_total", 64, P, FSC_SIG_NONE, RX),
    C("port_rcv_packets", "fabric_nic_ib_port_rx_packets_total", 64, P, FSC_SIG_NONE, RX),
    {"port_xmit_data", "fabric_nic_ib_port_tx_bytes_total", NULL, NULL, FSC_KIND_COUNTER, 64, B,
     FSC_SIG_NONE, TX, 4, 0},
    C("port_xmit_discards", "fabric_nic_ib_port_tx_discards_total", 64, P, FSC_SIG_NONE, TX),
    C("port_xmit_packets", "fabric_nic_ib_port_tx_packets_total", 64, P, FSC_SIG_NONE, TX),
    /* ticks: the IBA's sampling tick, not a time unit the model knows */
    C("port_xmit_wait", "fabric_nic_ib_port_tx_wait_ticks_total", 64, N, FSC_SIG_NONE, TX),
    Q32("req_cqe_error", "fabric_nic_req_cqe_errors_total", FSC_SIG_NONE, ND),
    Q32("req_cqe_flush_error", "fabric_nic_req_cqe_flush_errors_total", FSC_SIG_NONE, ND),
    Q32("req_remote_access_errors", "fabric_nic_req_remote_access_errors_total", FSC_SIG_NONE, ND),
    Q32("req_remote_invalid_request", "fabric_nic_req_remote_invalid_requests_total", FSC_SIG_NONE,
        ND),
    Q32("req_rnr_retries_exceeded", "fabric_nic_req_rnr_retries_exceeded_total", FSC_SIG_NONE, ND),
    Q32("req_transport_retries_exceeded", "fabric_nic_req_transport_retries_exceeded_total",
        FSC_SIG_NONE, ND),
    Q32("resp_cqe_error", "fabric_nic_resp_cqe_errors_total", FSC_SIG_NONE, ND),
    Q32("resp_cqe_flush_error", "fabric_nic_resp_cqe_flush_errors_total", FSC_SIG_NONE, ND),
    Q32("resp_local_length_error", "fabric_nic_resp_local_length_errors_total", FSC_SIG_NONE, ND),
    Q32("resp_remote_access_errors", "fabric_nic_resp_remote_access_errors_total", FSC_SIG_NONE,
        ND),
    Q32("rnr_nak_retry_err", "fabric_nic_rnr_nak_retry_errors_total", FSC_SIG_NONE, ND),
    Q32("roce_adp_retrans", "fabric_nic_roce_adp_retrans_total", FSC_SIG_NONE, ND),
    Q32("roce_adp_retrans_to", "fabric_nic_roce_adp_retrans_timeouts_total", FSC_SIG_NONE, ND),
    Q32("roce_slow_restart", "fabric_nic_roce_slow_restarts_total", FSC_SIG_NONE, ND),
    Q32("roce_slow_restart_cnps", "fabric_nic_roce_slow_restart_cnps_total", FSC_SIG_NONE, ND),
    Q32("roce_slow_restart_trans", "fabric_nic_roce_slow_restart_trans_total", FSC_SIG_NONE, ND),
    C("rp_cnp_handled", "fabric_nic_cnp_handled_total", 64, P, FSC_SIG_CNP, RX),
    C("rp_cnp_ignored", "fabric_nic_cnp_ignored_total", 64, P, FSC_SIG_NONE, RX),
    Q32("rx_atomic_requests", "fabric_nic_rx_atomic_requests_total", FSC_SIG_NONE, RX),
    C("rx_bits_phy", "fabric_port_rx_phy_bits_total", 64, N, FSC_SIG_NONE, RX),
    C("rx_broadcast_phy", "fabric_port_rx_broadcast_packets_total", 64, P, FSC_SIG_NONE, RX),
    C("rx_buffer_passed_thres_phy", "fabric_nic_rx_buffer_over_threshold_total", 64, N,
      FSC_SIG_BUFFER_THRESHOLD, RX),
    C("rx_bytes_phy", "fabric_port_rx_bytes_total", 64, B, FSC_SIG_PORT_BYTES, RX),
    C("rx_corrected_bits_phy", "fabric_port_fec_corrected_bits_total", 64, N, FSC_SIG_NONE, RX),
    C("rx_crc_errors_phy", "fabric_port_rx_fcs_errors_total", 64, P, FSC_SIG_NONE, RX),
    Q32("rx_dct_connect", "fabric_nic_rx_dct_connects_total", FSC_SIG_NONE, RX),
    C("rx_discards_phy", "fabric_port_rx_discards_total", 64, P, FSC_SIG_NONE, RX),
    LANE("rx_err_lane_{p}_phy", "fabric_port_rx_lane_errors_total", N, FSC_SIG_NONE, RX),
    /* link pause again, only while it is on: see the top */
    C("rx_global_pause", "fabric_nic_rx_global_pause_frames_total", 64, P, FSC_SIG_NONE, RX),
    C("rx_global_pause_duration", "fabric_port_rx_pause_seconds_total", 64, US,
      FSC_SIG_PFC_PAUSE_DURATION, RX),
    C("rx_icrc_encapsulated", "fabric_nic_rx_icrc_errors_total", 64, P, FSC_SIG_NONE, RX),
    C("rx_multicast_phy", "fabric_port_rx_multicast_packets_total", 64, P, FSC_SIG_NONE, RX),
    C("rx_out_of_buffer", "fabric_nic_rx_out_of_buffer_total", 32, P, FSC_SIG_NONE, RX),
    C("rx_packets_phy", "fabric_port_rx_packets_total", 64, P, FSC_SIG_NONE, RX),
    C("rx_pause_ctrl_phy", "fabric_port_rx_pause_frames_total", 64, P, FSC_SIG_PFC_PAUSE_FRAMES,
      RX),
    C("rx_pci_signal_integrity", "fabric_nic_pcie_rx_signal_integrity_errors_total", 32, N,
      FSC_SIG_NONE, RX),
    C("rx_pcs_symbol_err_phy", "fabric_port_rx_phy_symbol_errors_total", 64, N, FSC_SIG_NONE, RX),
    PRIO("rx_prio{p}_buf_discard", "fabric_port_rx_priority_buffer_discards_total", P, FSC_SIG_NONE,
         RX),
    PRIO("rx_prio{p}_bytes", "fabric_port_rx_priority_bytes_total", B, FSC_SIG_NONE, RX),
    PRIO("rx_prio{p}_cong_discard", "fabric_port_rx_priority_congestion_discards_total", P,
         FSC_SIG_NONE, RX),
    PRIO("rx_prio{p}_discards", "fabric_port_rx_priority_discards_total", P, FSC_SIG_NONE, RX),
    PRIO("rx_prio{p}_marked", "fabric_port_ecn_marked_packets_total", P, FSC_SIG_ECN, RX),
    PRIO("rx_prio{p}_packets", "fabric_port_rx_priority_packets_total", P, FSC_SIG_NONE, RX),
    PRIO("rx_prio{p}_pause", "fabric_port_pfc_rx_pause_frames_total", P, FSC_SIG_PFC_PAUSE_FRAMES,
         RX),
    PRIO("rx_prio{p}_pause_duration", "fabric_port_pfc_rx_pause_seconds_total", US,
         FSC_SIG_PFC_PAUSE_DURATION, RX),
    PRIO("rx_prio{p}_pause_transition", "fabric_port_pfc_rx_pause_transitions_total", N,
         FSC_SIG_NONE, RX),
    Q32("rx_read_requests", "fabric_nic_rx_read_requests_total", FSC_SIG_NONE, RX),
    C("rx_symbol_err_phy", "fabric_port_rx_symbol_errors_total", 64, P, FSC_SIG_NONE, RX),
    C("rx_vport_rdma_unicast_bytes", "fabric_nic_rdma_rx_unicast_bytes_total", 64, B, FSC_SIG_NONE,
      RX),
    C("rx_vport_rdma_unicast_packets", "fabric_nic_rdma_rx_unicast_packets_total", 64, P,
      FSC_SIG_NONE, RX),
    Q32("rx_write_requests", "fabric_nic_rx_write_requests_total", FSC_SIG_NONE, RX),
    /* PortCounters fields that saturate (see the top): 64 so a decrease is a reset */
    C("symbol_error", "fabric_nic_ib_port_rx_symbol_errors_total", 64, N, FSC_SIG_NONE, RX),
    C("tx_broadcast_phy", "fabric_port_tx_broadcast_packets_total", 64, P, FSC_SIG_NONE, TX),
    C("tx_bytes_phy", "fabric_port_tx_bytes_total", 64, B, FSC_SIG_PORT_BYTES, TX),
    C("tx_discards_phy", "fabric_port_tx_discards_total", 64, P, FSC_SIG_NONE, TX),
    C("tx_global_pause", "fabric_nic_tx_global_pause_frames_total", 64, P, FSC_SIG_NONE, TX),
    C("tx_global_pause_duration", "fabric_port_tx_pause_seconds_total", 64, US,
      FSC_SIG_PFC_PAUSE_DURATION, TX),
    C("tx_multicast_phy", "fabric_port_tx_multicast_packets_total", 64, P, FSC_SIG_NONE, TX),
    C("tx_packets_phy", "fabric_port_tx_packets_total", 64, P, FSC_SIG_NONE, TX),
    C("tx_pause_ctrl_phy", "fabric_port_tx_pause_frames_total", 64, P, FSC_SIG_PFC_PAUSE_FRAMES,
      TX),
    C("tx_pause_storm_error_events", "fabric_nic_tx_pause_storm_error_events_total", 64, N,
      FSC_SIG_NONE, TX),
    C("tx_pause_storm_warning_events", "fabric_nic_tx_pause_storm_warning_events_total", 64, N,
      FSC_SIG_NONE, TX),
    C("tx_pci_signal_integrity", "fabric_nic_pcie_tx_signal_integrity_errors_total", 32, N,
      FSC_SIG_NONE, TX),
    PRIO("tx_prio{p}_bytes", "fabric_port_tx_priority_bytes_total", B, FSC_SIG_NONE, TX),
    PRIO("tx_prio{p}_packets", "fabric_port_tx_priority_packets_total", P, FSC_SIG_NONE, TX),
    PRIO("tx_prio{p}_pause", "fabric_port_pfc_tx_pause_frames_total", P, FSC_SIG_PFC_PAUSE_FRAMES,
         TX),
    PRIO("tx_prio{p}_pause_duration", "fabric_port_pfc_tx_pause_seconds_total", US,
         FSC_SIG_PFC_PAUSE_DURATION, TX),
    C("tx_vport_rdma_unicast_bytes", "fabric_nic_rdma_tx_unicast_bytes_total", 64, B, FSC_SIG_NONE,
      TX),
    C("tx_vport_rdma_unicast_packets", "fabric_nic_rdma_tx_unicast_packets_total", 64, P,
      FSC_SIG_NONE, TX),
};

const struct fsc_profile fsc_profile_mlx5 = {
    .name = "mlx5",
    .entries = mlx5_entries,
    .n_entries = sizeof(mlx5_entries) / sizeof(mlx5_entries[0]),
    .passthrough_prefix = "fabric_mlx5_",
    .passthrough_width = 64,
    .refresh_ns = 10000000,
    .refresh = FSC_REFRESH_ON_READ, /* the RDMA core refreshes on a read
                                       (drivers/infiniband/core/sysfs.c) */
};
