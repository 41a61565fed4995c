/* What a NIC counter becomes (collector/sources/nic/nic_plan.h): the mlx5
 * profile's IB PMA data counters leave the poller in bytes (multiplier 4,
 * traits scale 1, so nothing multiplies twice), the hw_counters lifespan is
 * the series' refresh period when the port has one and the profile's
 * default (10 ms) when not, and the kernel's netdev statistics keep their
 * own names and are live. Known answers from the kernel's ABI text
 * (Documentation/ABI/stable/sysfs-class-infiniband: port_*_data are
 * "octets, divided by 4"; lifespan is in milliseconds). */
#include <stdint.h>
#include <string.h>

#include "test.h"

#include "sources/nic/nic_config.h"
#include "sources/nic/nic_plan.h"

static struct fsc_nic_plan_in in_of(int group, int64_t lifespan_ms)
{
    return (struct fsc_nic_plan_in){.prof = &fsc_profile_mlx5,
                                    .group = group,
                                    .lifespan_ms = lifespan_ms,
                                    .interval_ns = 100000000,
                                    .speed_bps = 400000000000ull};
}

static void pma_data_in_bytes(void)
{
    struct fsc_nic_plan_in in = in_of(NIC_G_PMA, 25);
    struct fsc_nic_plan pl;
    CHECK_INT(fsc_nic_counter_plan(&in, "port_xmit_data", &pl), 0);
    CHECK_STR(pl.metric, "fabric_nic_ib_port_tx_bytes_total");
    CHECK_INT(pl.mult, 4);
    CHECK_INT(pl.tr.scale, 1);
    CHECK_INT(pl.tr.unit, FSC_UNIT_BYTES);
    CHECK_INT(pl.tr.direction, FSC_DIR_TX);
    CHECK_INT(pl.tr.width, 64);
    CHECK(pl.tr.link_speed_bps == 400000000000ull);
    /* 312500007 words on the wire are 1250000028 bytes */
    CHECK(312500007ull * pl.mult == 1250000028ull);

    CHECK_INT(fsc_nic_counter_plan(&in, "port_rcv_data", &pl), 0);
    CHECK_STR(pl.metric, "fabric_nic_ib_port_rx_bytes_total");
    CHECK_INT(pl.mult, 4);
    CHECK_INT(pl.tr.scale, 1);
    CHECK_INT(pl.tr.direction, FSC_DIR_RX);

    /* packets are counted one by one */
    CHECK_INT(fsc_nic_counter_plan(&in, "port_xmit_packets", &pl), 0);
    CHECK_STR(pl.metric, "fabric_nic_ib_port_tx_packets_total");
    CHECK_INT(pl.mult, 1);
    /* the ethtool bytes are bytes already */
    in.group = NIC_G_ETHTOOL;
    CHECK_INT(fsc_nic_counter_plan(&in, "tx_bytes_phy", &pl), 0);
    CHECK_STR(pl.metric, "fabric_port_tx_bytes_total");
    CHECK_INT(pl.mult, 1);
    CHECK_INT(pl.tr.signal, FSC_SIG_PORT_BYTES);
}

static void hw_lifespan_is_refresh(void)
{
    struct fsc_nic_plan pl;
    struct fsc_nic_plan_in in = in_of(NIC_G_HW, 25);
    CHECK_INT(fsc_nic_counter_plan(&in, "np_cnp_sent", &pl), 0);
    CHECK_STR(pl.metric, "fabric_nic_cnp_sent_total");
    CHECK_INT(pl.tr.refresh_ns, 25000000);
    CHECK_INT(pl.tr.refresh, FSC_REFRESH_ON_READ);
    CHECK_INT(pl.tr.nominal_interval_ns, 100000000);
    CHECK_INT(pl.mult, 1);
    /* written 1000 ms (the fixture test's value): 1 s */
    in.lifespan_ms = 1000;
    CHECK_INT(fsc_nic_counter_plan(&in, "out_of_sequence", &pl), 0);
    CHECK_INT(pl.tr.refresh_ns, 1000000000);
    CHECK_INT(pl.tr.width, 32);
    /* 0 ms: every read refreshes */
    in.lifespan_ms = 0;
    CHECK_INT(fsc_nic_counter_plan(&in, "np_cnp_sent", &pl), 0);
    CHECK_INT(pl.tr.refresh_ns, 0);
    /* no lifespan file: the profile's default, the kernel's default 10 ms */
    in.lifespan_ms = -1;
    CHECK_INT(fsc_nic_counter_plan(&in, "np_cnp_sent", &pl), 0);
    CHECK_INT(pl.tr.refresh_ns, fsc_profile_mlx5.refresh_ns);
    CHECK_INT(pl.tr.refresh_ns, 10000000);
    /* the lifespan is hw_counters' own: another group keeps the default */
    in = in_of(NIC_G_PMA, 25);
    CHECK_INT(fsc_nic_counter_plan(&in, "port_xmit_data", &pl), 0);
    CHECK_INT(pl.tr.refresh_ns, 10000000);
    in.group = NIC_G_ETHTOOL;
    CHECK_INT(fsc_nic_counter_plan(&in, "rx_prio3_pause", &pl), 0);
    CHECK_STR(pl.metric, "fabric_port_pfc_rx_pause_frames_total");
    CHECK_STR(pl.m.label_name, "priority");
    CHECK_STR(pl.m.label_value, "3");
    CHECK_INT(pl.tr.refresh_ns, 10000000);
}

static void netdev_statistics(void)
{
    struct fsc_nic_plan pl;
    struct fsc_nic_plan_in in = in_of(NIC_G_STAT, 25);
    CHECK_INT(fsc_nic_counter_plan(&in, "rx_bytes", &pl), 0);
    CHECK_STR(pl.metric, "fabric_netdev_rx_bytes_total");
    CHECK_INT(pl.tr.kind, FSC_KIND_COUNTER);
    CHECK_INT(pl.tr.unit, FSC_UNIT_BYTES);
    CHECK_INT(pl.tr.direction, FSC_DIR_RX);
    CHECK_INT(pl.tr.refresh_ns, 0);
    CHECK_INT(pl.mult, 1);
    CHECK(pl.tr.link_speed_bps == 400000000000ull);
    CHECK_INT(fsc_nic_counter_plan(&in, "collisions", &pl), 0);
    CHECK_STR(pl.metric, "fabric_netdev_collisions_total");
    CHECK_INT(pl.tr.unit, FSC_UNIT_NONE);
    CHECK(pl.tr.link_speed_bps == 0);
    CHECK_INT(fsc_nic_counter_plan(&in, "", &pl), -1);
}

/* The ethtool names of a B300 port that carry an index get it as a label,
 * and the IB PMA wait / error counters get canonical names (ethtool names
 * from the kernel's mlx5 en_stats.c, PMA names from infiniband/core/sysfs.c: the sysfs
 * fixture cannot hold ethtool statistics, so this is where their plan is
 * checked). */
static void indexed_and_pma_names(void)
{
    struct fsc_nic_plan pl;
    struct fsc_nic_plan_in in = in_of(NIC_G_ETHTOOL, 25);
    CHECK_INT(fsc_nic_counter_plan(&in, "rx_prio3_buf_discard", &pl), 0);
    CHECK_STR(pl.metric, "fabric_port_rx_priority_buffer_discards_total");
    CHECK_STR(pl.m.label_name, "priority");
    CHECK_STR(pl.m.label_value, "3");
    CHECK_INT(pl.tr.unit, FSC_UNIT_PACKETS);
    CHECK(pl.tr.link_speed_bps == 400000000000ull);
    CHECK_INT(fsc_nic_counter_plan(&in, "rx_prio3_cong_discard", &pl), 0);
    CHECK_STR(pl.metric, "fabric_port_rx_priority_congestion_discards_total");
    CHECK_STR(pl.m.label_value, "3");
    CHECK_INT(fsc_nic_counter_plan(&in, "rx_err_lane_0_phy", &pl), 0);
    CHECK_STR(pl.metric, "fabric_port_rx_lane_errors_total");
    CHECK_STR(pl.m.label_name, "lane");
    CHECK_STR(pl.m.label_value, "0");
    CHECK(pl.tr.link_speed_bps == 0); /* errors are not bytes or packets */
    CHECK_INT(fsc_nic_counter_plan(&in, "rx_pause_ctrl_phy", &pl), 0);
    CHECK_STR(pl.metric, "fabric_port_rx_pause_frames_total");
    CHECK_INT(pl.tr.signal, FSC_SIG_PFC_PAUSE_FRAMES);
    CHECK_STR(pl.m.label_name, "");

    in.group = NIC_G_PMA;
    CHECK_INT(fsc_nic_counter_plan(&in, "port_xmit_wait", &pl), 0);
    CHECK_STR(pl.metric, "fabric_nic_ib_port_tx_wait_ticks_total");
    CHECK_INT(pl.mult, 1);
    CHECK_INT(pl.tr.width, 64);
    CHECK_INT(fsc_nic_counter_plan(&in, "link_downed", &pl), 0);
    CHECK_STR(pl.metric, "fabric_nic_ib_port_link_downed_total");
    CHECK_INT(fsc_nic_counter_plan(&in, "symbol_error", &pl), 0);
    CHECK_STR(pl.metric, "fabric_nic_ib_port_rx_symbol_errors_total");
}

TEST_MAIN(TEST(pma_data_in_bytes), TEST(hw_lifespan_is_refresh), TEST(netdev_statistics),
          TEST(indexed_and_pma_names))
