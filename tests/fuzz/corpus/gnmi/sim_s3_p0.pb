
ÿÀ€ëŒ­Ü‰„{
junos
system

linecard	
qmon-sw1
queue_monitor_element_info
if_nameet-0/0/0
queue_monitor_stats_egress"V
N-
queue_monitor_stats_info
queue_number0
peak_buffer_occupancy_bytesà§"J
D-
queue_monitor_stats_info
queue_number0
tail_drop_packets"K
C-
queue_monitor_stats_info
queue_number0
tail_drop_octets€À"C
:-
queue_monitor_stats_info
queue_number0	
packetsÒÔã
"D
9-
queue_monitor_stats_info
queue_number0
octetsàÃ”õØ"V
N-
queue_monitor_stats_info
queue_number1
peak_buffer_occupancy_bytesð“	"J
D-
queue_monitor_stats_info
queue_number1
tail_drop_packets"K
C-
queue_monitor_stats_info
queue_number1
tail_drop_octets€À"C
:-
queue_monitor_stats_info
queue_number1	
packetsÒÔã
"D
9-
queue_monitor_stats_info
queue_number1
octetsàÃ”õØ*£
 ›
qfx5240-sim"/sensor_1001_1_1:/junos/system/linecard/qmon-sw/*/junos/system/linecard/qmon-sw2/junos/system/linecard/qmon-sw/:PFE@jH¹èìÿ²2P€ˆìÿ²2`¼èìÿ²2