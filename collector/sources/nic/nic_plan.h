/* What one counter of a NIC port becomes: its metric name, extra label,
 * traits and the multiplier that turns its raw value into the metric's
 * unit. Pure (no I/O, no allocation): the poller (nic_poll.c) calls it when
 * a counter appears and again when the port's lifespan or link speed
 * changes; tests call it directly.
 *
 * Two facts of the hardware land here:
 * - IB PMA port_xmit_data / port_rcv_data count 4-byte words ("Total
 *   number of data octets, divided by 4 (lanes)", Linux
 *   Documentation/ABI/stable/sysfs-class-infiniband; mlx5 fills them with
 *   octets >> 2, drivers/infiniband/hw/mlx5/mad.c). The mlx5 profile says
 *   scale 4; the plan hands that to the poller as `mult` and gives the
 *   series traits scale 1, so every value leaves the poller in bytes (the
 *   raw value each exporter shows under the _bytes name, remote_write,
 *   rollups and rates alike) and nothing multiplies twice.
 * - hw_counters are served from a cache the RDMA core refreshes on a read
 *   once `lifespan` ms have passed since the last refresh ("how frequently
 *   the core should update the counters when they are being accessed ...
 *   in milliseconds and defaults to 10", the same ABI file;
 *   update_hw_stats() in drivers/infiniband/core/sysfs.c). The series'
 *   refresh_ns is that lifespan when the port's hw_counters has the file,
 *   else the profile's default (rate.h rule 5, FSC_REFRESH_ON_READ). */
#ifndef FSC_NIC_PLAN_H
#define FSC_NIC_PLAN_H

#include <stddef.h>
#include <stdint.h>

#include "model/profile.h"
#include "model/sample.h"

/* The counter sources of a port. */
enum nic_group {
    NIC_G_HW = 0, /* .../ports/<n>/hw_counters (mlx5 driver counters, `lifespan`) */
    NIC_G_PMA,    /* .../ports/<n>/counters (IB PMA) */
    NIC_G_STAT,   /* /sys/class/net/<if>/statistics */
    NIC_G__CDIRS,
    NIC_G_ETHTOOL = NIC_G__CDIRS, /* SIOCETHTOOL stats (not a directory) */
};

/* What the plan of a counter depends on besides its name. */
struct fsc_nic_plan_in {
    const struct fsc_profile *prof; /* the vendor names (mlx5) */
    int group;                      /* enum nic_group */
    int64_t lifespan_ms;            /* the port's hw_counters lifespan; < 0 unknown */
    int64_t interval_ns;            /* the poll period: traits.nominal_interval_ns */
    uint64_t speed_bps;             /* link speed for bytes / packets series; 0 unknown */
};

struct fsc_nic_plan {
    char metric[FSC_PROFILE_NAME_MAX + 32];
    struct fsc_profile_match m; /* label_name / label_value: the extra label */
    struct fsc_traits tr;       /* scale is always 1 */
    uint32_t mult;              /* raw value x mult = value in the metric's unit; >= 1 */
};

/* Plans counter `name` of group in->group into *out (overwritten). The
 * netdev statistics (NIC_G_STAT) are the kernel's generic names, not the
 * vendor's, and several of them (rx_bytes, tx_packets, ...) are also mlx5
 * ethtool names counting something else: they get their own prefix,
 * fabric_netdev_, and are live (refresh_ns 0). Returns 0, or -1 when the
 * name has no metric (empty after sanitizing, or too long). Owns nothing.
 * Thread: any. */
int fsc_nic_counter_plan(const struct fsc_nic_plan_in *in, const char *name,
                         struct fsc_nic_plan *out);

#endif
