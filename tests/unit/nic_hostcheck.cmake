# The host check's fixture view (collector/sources/nic/nic_hostcheck.h): the parse of
# `ip -4 -o addr show` text (a fixture tree's ip_addr.txt), and a fixture
# node's ip_addr.txt and proc/net/arp judged against a plan whose two cables
# are swapped at that node. Tests "nic_hostcheck.<case>", labelled unit;nic.
fsc_unit_test(nic_hostcheck LABELS nic LIBS fsc_nic CASES
  addr_parse_ip_output fixture_view_swapped_cables)
