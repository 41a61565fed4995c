/* The `nic` source: the poller of a switchless DGX B300 node's ConnectX-8
 * NICs (docs/vendors/mlx5.md, docs/METRICS.md "NIC source").
 *
 * One instance per `sources:` entry of type nic, one thread, one timer
 * (absolute CLOCK_MONOTONIC deadlines every nic.interval) for all ports.
 * Each poll reads, per port, hw_counters and counters of the RDMA port,
 * /sys/class/net/<if>/statistics, the SIOCETHTOOL stats and the link state
 * and speed, then gives every value to the engine in one batch; files stay
 * open, reads are pread, nothing is allocated. Every second it reads the
 * PCIe link and AER counters; every 10 s it checks the host against the
 * B300 cable plan and rescans the counter directories. A poll that misses
 * its deadline skips to the next one (counted as an overrun). */
#ifndef FSC_NIC_SOURCE_H
#define FSC_NIC_SOURCE_H

#include "plugin/source.h"
#include "sources/nic/nic_config.h"

extern const struct fsc_source_ops fsc_nic_source_ops;

#endif
