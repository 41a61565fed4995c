# What the NIC poller reads and how its values are meant: the counter plan
# (collector/sources/nic/nic_plan.h: IB PMA data in bytes, the hw_counters
# lifespan as refresh period, netdev statistics) and the nic keys that pick
# the mode (nic_keys.c: sysfs_root a prefix, fixture: true the explicit test
# mode, check-config's refusals). Tests "nic_plan.<case>" and
# "nic_config.<case>", labelled unit;nic.
fsc_unit_test(nic_plan LABELS nic LIBS fsc_nic CASES
  pma_data_in_bytes hw_lifespan_is_refresh netdev_statistics indexed_and_pma_names)
fsc_unit_test(nic_config LABELS nic config CASES
  prefix_keeps_ethtool fixture_turns_ethtool_off fixture_refusals)
