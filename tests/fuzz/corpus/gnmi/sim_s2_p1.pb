
’À€ëŒ­Ü‰„P
qos

interfaces%
	interface
interface-idet-0/0/1
output
queues"7
.
queue	
name0
state
transmit-pktsÒÔã
";
0
queue	
name0
state
transmit-octetsàÃ”õØ"3
-
queue	
name0
state
dropped-pkts"7
/
queue	
name0
state
dropped-octets€À"8
0
queue	
name0
state
ecn-marked-pktsÌ°";
2
queue	
name0
state
ecn-marked-octets€€“,"7
.
queue	
name1
state
transmit-pktsÒÔã
";
0
queue	
name1
state
transmit-octetsàÃ”õØ"3
-
queue	
name1
state
dropped-pkts"7
/
queue	
name1
state
dropped-octets€À"8
0
queue	
name1
state
ecn-marked-pktsÌ°";
2
queue	
name1
state
ecn-marked-octets€€“,*¾
»¶
qfx5240-sim"8sensor_1003_1_1:/qos/interfaces/interface/output/queues/*'/qos/interfaces/interface/output/queues2(/qos/interfaces/interface/output/queues/:PFE@iH¹èìÿ²2P€ˆìÿ²2`¼èìÿ²2