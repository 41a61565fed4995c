/* Node aggregate: the total RDMA throughput of one B300 node against the sum
 * of its line rates (16 x 400G = 6.4 Tb/s), so an all-reduce test's
 * efficiency is one number.
 *
 * Input, per port and direction, is a cumulative byte counter the poller
 * reads anyway: ethtool rx/tx_vport_rdma_unicast_bytes when the netdev has
 * ethtool stats (RDMA unicast bytes at the vport: what RoCE moved, without
 * TCP/IP traffic, pause frames or FCS), else the IB PMA port_rcv_data /
 * port_xmit_data x 4, which mlx5 fills on a RoCE port from the same vport
 * RDMA counters (unicast + multicast) - the only RDMA byte counters of a
 * fixture tree. The *_bytes_phy counters are not used: they count every
 * frame on the wire.
 *
 * Math: per poll, each port's delta since its previous value (a decrease is
 * a reset: that delta is dropped and the baseline restarts, never a negative
 * or a 2^64 jump) is added to the direction's sum; when the poll time has
 * moved at least `window` past the window's start, the window closes:
 * rate = sum x 8 / (t_end - t_start), from the poll times that bound the
 * deltas, so the division is exact for what was summed. A port whose read
 * failed contributes its whole delta at its next good read. Efficiency =
 * rate / capacity (the caller's sum of line rates). No allocation after
 * init; one thread (the poller's). */
#ifndef FSC_NIC_AGGREGATE_H
#define FSC_NIC_AGGREGATE_H

#include <stddef.h>
#include <stdint.h>

enum { FSC_NIC_AGG_RX = 0, FSC_NIC_AGG_TX = 1, FSC_NIC_AGG__DIRS = 2 };

struct fsc_nic_agg_port {
    uint64_t last[FSC_NIC_AGG__DIRS];
    uint8_t have[FSC_NIC_AGG__DIRS]; /* a baseline exists */
};

struct fsc_nic_agg {
    struct fsc_nic_agg_port *ports;
    size_t n_ports;
    int64_t window_ns;
    int64_t t_start;               /* poll time the open window started at */
    int started;                   /* a first poll set t_start */
    double sum[FSC_NIC_AGG__DIRS]; /* bytes in the open window */
    uint64_t resets;               /* deltas dropped for a decrease */
};

struct fsc_nic_agg_result {
    int64_t t_start_ns, t_end_ns;
    double bits_per_second[FSC_NIC_AGG__DIRS];
    double efficiency[FSC_NIC_AGG__DIRS]; /* 0..1 (above 1 is a counter or plan error);
                                           * -1 when the capacity is unknown (0) */
};

/* Prepares *agg for n_ports ports and windows of window_ns (> 0). Returns 0,
 * -EINVAL or -ENOMEM. Thread: any. */
int fsc_nic_agg_init(struct fsc_nic_agg *agg, size_t n_ports, int64_t window_ns);

/* Frees what init allocated. A zeroed struct is fine. */
void fsc_nic_agg_fini(struct fsc_nic_agg *agg);

/* Port `port`'s cumulative byte counter of direction dir (FSC_NIC_AGG_RX /
 * _TX) as read in the current poll (already scaled to bytes). */
void fsc_nic_agg_observe(struct fsc_nic_agg *agg, size_t port, unsigned dir, uint64_t bytes);

/* Ends a poll taken at t_ns. Returns 1 and fills *out when a window of at
 * least window_ns closed (a new one opens at t_ns), else 0. capacity_bps is
 * the sum of the line rates (0 = unknown: efficiency -1). */
int fsc_nic_agg_tick(struct fsc_nic_agg *agg, int64_t t_ns, uint64_t capacity_bps,
                     struct fsc_nic_agg_result *out);

#endif
