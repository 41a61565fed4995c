/* The families the exporters compute (metric_families.h): window and fine
 * rates of detector counters, trailing maxima of peak gauges, the topology
 * info families, the engine's derived families and the fabricscope_
 * self-metrics of the engine, the registry and the renderer. Sorted by
 * name. */
#include "model/metric_families.h"

const struct fsc_metric_family fsc_mf_expo[] = {
    {
        .name = "fabric_bursts_total",
        .type = FSC_MF_COUNTER,
        .origin = FSC_MF_DERIVED,
        .unit = "bursts",
        .labels = "device,port,direction",
        .help = "Bursts of the port lasting engine.microburst.micro_max or longer (bursts).",
    },
    {
        .name = "fabric_cnp_spikes_total",
        .type = FSC_MF_COUNTER,
        .origin = FSC_MF_DERIVED,
        .unit = "spikes",
        .labels = "device,port,signal",
        .help = "CNP rate spikes over the learned baseline, by the counter that spiked (signal: "
                "cnp_sent, cnp_handled), spikes.",
    },
    {
        .name = "fabric_congestion_evidence_total",
        .type = FSC_MF_COUNTER,
        .origin = FSC_MF_DERIVED,
        .unit = "events",
        .labels = "device,port,queue or priority_group,signal",
        .help = "Congestion evidence events: a queue or buffer peak above its share of the buffer, "
                "a latency peak over its bar, a NIC buffer over its threshold, by the series that "
                "showed it (signal), events.",
    },
    {
        .name = "fabric_ecn_spikes_total",
        .type = FSC_MF_COUNTER,
        .origin = FSC_MF_DERIVED,
        .unit = "spikes",
        .labels = "device,port,queue or priority,signal",
        .help = "ECN-mark rate spikes over the learned baseline, by the counter that spiked "
                "(signal), spikes.",
    },
    {
        .name = "fabric_microburst_duration_seconds",
        .type = FSC_MF_HISTOGRAM,
        .origin = FSC_MF_DERIVED,
        .unit = "seconds",
        .labels = "device,port,direction",
        .help = "Durations of the port's microbursts, in seconds.",
    },
    {
        .name = "fabric_microbursts_total",
        .type = FSC_MF_COUNTER,
        .origin = FSC_MF_DERIVED,
        .unit = "bursts",
        .labels = "device,port,direction",
        .help = "Bursts of the port shorter than engine.microburst.micro_max (bursts).",
    },
    {
        .name = "fabric_nic_cnp_handled_fine_per_second",
        .type = FSC_MF_GAUGE,
        .origin = FSC_MF_FINE,
        .unit = "packets per second",
        .labels = "device,port",
        .help =
            "Congestion notification packets the NIC handled over its last fine interval (sample "
            "to sample, or copy to copy); sent by remote_write only, in packets per second.",
    },
    {
        .name = "fabric_nic_cnp_handled_per_second",
        .type = FSC_MF_GAUGE,
        .origin = FSC_MF_RATE,
        .unit = "packets per second",
        .labels = "device,port",
        .help = "Congestion notification packets the NIC handled over the last completed aligned "
                "window of its rate level (the first configured width; 10 s for counters copied "
                "every 2 s), in packets per second.",
    },
    {
        .name = "fabric_nic_cnp_sent_fine_per_second",
        .type = FSC_MF_GAUGE,
        .origin = FSC_MF_FINE,
        .unit = "packets per second",
        .labels = "device,port",
        .help = "Congestion notification packets the NIC sent over its last fine interval (sample "
                "to sample, or copy to copy); sent by remote_write only, in packets per second.",
    },
    {
        .name = "fabric_nic_cnp_sent_per_second",
        .type = FSC_MF_GAUGE,
        .origin = FSC_MF_RATE,
        .unit = "packets per second",
        .labels = "device,port",
        .help = "Congestion notification packets the NIC sent over the last completed aligned "
                "window of its rate level (the first configured width; 10 s for counters copied "
                "every 2 s), in packets per second.",
    },
    {
        .name = "fabric_nic_ecn_marked_roce_packets_fine_per_second",
        .type = FSC_MF_GAUGE,
        .origin = FSC_MF_FINE,
        .unit = "packets per second",
        .labels = "device,port",
        .help = "ECN-marked RoCE packets the NIC received over its last fine interval (sample to "
                "sample, or copy to copy); sent by remote_write only, in packets per second.",
    },
    {
        .name = "fabric_nic_ecn_marked_roce_packets_per_second",
        .type = FSC_MF_GAUGE,
        .origin = FSC_MF_RATE,
        .unit = "packets per second",
        .labels = "device,port",
        .help = "ECN-marked RoCE packets the NIC received over the last completed aligned window "
                "of its rate level (the first configured width; 10 s for counters copied every 2 "
                "s), in packets per second.",
    },
    {
        .name = "fabric_nic_info",
        .type = FSC_MF_GAUGE,
        .origin = FSC_MF_INFO,
        .unit = "",
        .labels = "device,port,card,pci",
        .help = "The NIC behind the port, value 1: its card in the B300 cable plan and its PCIe "
                "address (pci); join it on device and port.",
    },
    {
        .name = "fabric_nic_out_of_sequence_fine_per_second",
        .type = FSC_MF_GAUGE,
        .origin = FSC_MF_FINE,
        .unit = "packets per second",
        .labels = "device,port",
        .help = "Out-of-sequence packets the NIC received over its last fine interval (sample to "
                "sample, or copy to copy); sent by remote_write only, in packets per second.",
    },
    {
        .name = "fabric_nic_out_of_sequence_per_second",
        .type = FSC_MF_GAUGE,
        .origin = FSC_MF_RATE,
        .unit = "packets per second",
        .labels = "device,port",
        .help = "Out-of-sequence packets the NIC received over the last completed aligned window "
                "of its rate level (the first configured width; 10 s for counters copied every 2 "
                "s), in packets per second.",
    },
    {
        .name = "fabric_nic_packet_seq_errors_fine_per_second",
        .type = FSC_MF_GAUGE,
        .origin = FSC_MF_FINE,
        .unit = "errors per second",
        .labels = "device,port",
        .help = "NAK sequence errors the NIC received over its last fine interval (sample to "
                "sample, or copy to copy); sent by remote_write only, in errors per second.",
    },
    {
        .name = "fabric_nic_packet_seq_errors_per_second",
        .type = FSC_MF_GAUGE,
        .origin = FSC_MF_RATE,
        .unit = "errors per second",
        .labels = "device,port",
        .help = "NAK sequence errors the NIC received over the last completed aligned window of "
                "its rate level (the first configured width; 10 s for counters copied every 2 s), "
                "in errors per second.",
    },
    {
        .name = "fabric_nic_rx_buffer_over_threshold_fine_per_second",
        .type = FSC_MF_GAUGE,
        .origin = FSC_MF_FINE,
        .unit = "events per second",
        .labels = "device,port",
        .help =
            "Times the NIC's receive buffer went over 85 % full over its last fine interval "
            "(sample to sample, or copy to copy); sent by remote_write only, in events per second.",
    },
    {
        .name = "fabric_nic_rx_buffer_over_threshold_per_second",
        .type = FSC_MF_GAUGE,
        .origin = FSC_MF_RATE,
        .unit = "events per second",
        .labels = "device,port",
        .help = "Times the NIC's receive buffer went over 85 % full over the last completed "
                "aligned window of its rate level (the first configured width; 10 s for counters "
                "copied every 2 s), in events per second.",
    },
    {
        .name = "fabric_node_info",
        .type = FSC_MF_GAUGE,
        .origin = FSC_MF_INFO,
        .unit = "",
        .labels = "device,node",
        .help = "The B300 node number of the host named by device, value 1, from the cable plan; "
                "join it on device.",
    },
    {
        .name = "fabric_pfc_storms_total",
        .type = FSC_MF_COUNTER,
        .origin = FSC_MF_DERIVED,
        .unit = "storms",
        .labels = "device,port,priority,signal",
        .help = "PFC pause storms, a paused share of time or a pause frame rate over the storm "
                "threshold, by the counter that showed it (signal), storms.",
    },
    {
        .name = "fabric_port_bytes_per_second",
        .type = FSC_MF_GAUGE,
        .origin = FSC_MF_DERIVED,
        .unit = "bytes per second",
        .labels = "device,port,direction",
        .help = "Port throughput over the last completed aligned window of its rate level (the "
                "first configured width; 10 s for counters copied every 2 s), in bytes per second.",
    },
    {
        .name = "fabric_port_ecn_marked_packets_fine_per_second",
        .type = FSC_MF_GAUGE,
        .origin = FSC_MF_FINE,
        .unit = "packets per second",
        .labels = "device,port,queue or priority",
        .help = "ECN-marked packets of the port per queue or priority over its last fine interval "
                "(sample to sample, or copy to copy); sent by remote_write only, in packets per "
                "second.",
    },
    {
        .name = "fabric_port_ecn_marked_packets_per_second",
        .type = FSC_MF_GAUGE,
        .origin = FSC_MF_RATE,
        .unit = "packets per second",
        .labels = "device,port,queue or priority",
        .help = "ECN-marked packets of the port per queue or priority over the last completed "
                "aligned window of its rate level (the first configured width; 10 s for counters "
                "copied every 2 s), in packets per second.",
    },
    {
        .name = "fabric_port_fine_bytes_per_second",
        .type = FSC_MF_GAUGE,
        .origin = FSC_MF_FINE,
        .unit = "bytes per second",
        .labels = "device,port,direction",
        .help = "Port throughput over its last fine interval (sample to sample, or copy to copy); "
                "sent by remote_write only, in bytes per second.",
    },
    {
        .name = "fabric_port_fine_utilization_ratio",
        .type = FSC_MF_HISTOGRAM,
        .origin = FSC_MF_DERIVED,
        .unit = "ratio",
        .labels = "device,port,direction",
        .help = "Utilization of every fine interval (sample to sample) of the port, one "
                "observation each, a ratio from 0 to 1.",
    },
    {
        .name = "fabric_port_info",
        .type = FSC_MF_GAUGE,
        .origin = FSC_MF_INFO,
        .unit = "",
        .labels = "device,port,role,rail,peer,peer_port,link,peer_node",
        .help = "Where the port sits, value 1: its role (uplink, downlink, nic), rail, the device "
                "and port at the other end of its cable (peer, peer_port) and for B300 interfaces "
                "the link number and the peer's node; join it on device and port.",
    },
    {
        .name = "fabric_port_pfc_rx_pause_frames_fine_per_second",
        .type = FSC_MF_GAUGE,
        .origin = FSC_MF_FINE,
        .unit = "frames per second",
        .labels = "device,port,priority",
        .help =
            "PFC pause frames the port received per priority over its last fine interval (sample "
            "to sample, or copy to copy); sent by remote_write only, in frames per second.",
    },
    {
        .name = "fabric_port_pfc_rx_pause_frames_per_second",
        .type = FSC_MF_GAUGE,
        .origin = FSC_MF_RATE,
        .unit = "frames per second",
        .labels = "device,port,priority",
        .help = "PFC pause frames the port received per priority over the last completed aligned "
                "window of its rate level (the first configured width; 10 s for counters copied "
                "every 2 s), in frames per second.",
    },
    {
        .name = "fabric_port_pfc_rx_pause_seconds_fine_per_second",
        .type = FSC_MF_GAUGE,
        .origin = FSC_MF_FINE,
        .unit = "seconds per second",
        .labels = "device,port,priority",
        .help = "Time the port was held paused by received PFC frames per priority, the paused "
                "share of time over its last fine interval (sample to sample, or copy to copy); "
                "sent by remote_write only, in seconds per second.",
    },
    {
        .name = "fabric_port_pfc_rx_pause_seconds_per_second",
        .type = FSC_MF_GAUGE,
        .origin = FSC_MF_RATE,
        .unit = "seconds per second",
        .labels = "device,port,priority",
        .help = "Time the port was held paused by received PFC frames per priority, the paused "
                "share of time over the last completed aligned window of its rate level (the first "
                "configured width; 10 s for counters copied every 2 s), in seconds per second.",
    },
    {
        .name = "fabric_port_pfc_tx_pause_frames_fine_per_second",
        .type = FSC_MF_GAUGE,
        .origin = FSC_MF_FINE,
        .unit = "frames per second",
        .labels = "device,port,priority",
        .help = "PFC pause frames the port sent per priority over its last fine interval (sample "
                "to sample, or copy to copy); sent by remote_write only, in frames per second.",
    },
    {
        .name = "fabric_port_pfc_tx_pause_frames_per_second",
        .type = FSC_MF_GAUGE,
        .origin = FSC_MF_RATE,
        .unit = "frames per second",
        .labels = "device,port,priority",
        .help = "PFC pause frames the port sent per priority over the last completed aligned "
                "window of its rate level (the first configured width; 10 s for counters copied "
                "every 2 s), in frames per second.",
    },
    {
        .name = "fabric_port_pfc_tx_pause_seconds_fine_per_second",
        .type = FSC_MF_GAUGE,
        .origin = FSC_MF_FINE,
        .unit = "seconds per second",
        .labels = "device,port,priority",
        .help = "Time the port held its peer paused with PFC frames per priority, the paused share "
                "of time over its last fine interval (sample to sample, or copy to copy); sent by "
                "remote_write only, in seconds per second.",
    },
    {
        .name = "fabric_port_pfc_tx_pause_seconds_per_second",
        .type = FSC_MF_GAUGE,
        .origin = FSC_MF_RATE,
        .unit = "seconds per second",
        .labels = "device,port,priority",
        .help = "Time the port held its peer paused with PFC frames per priority, the paused share "
                "of time over the last completed aligned window of its rate level (the first "
                "configured width; 10 s for counters copied every 2 s), in seconds per second.",
    },
    {
        .name = "fabric_port_pg_hist_peak_max_bytes",
        .type = FSC_MF_GAUGE,
        .origin = FSC_MF_MAX,
        .unit = "bytes",
        .labels = "device,port,priority_group,window",
        .help = "Ingress buffer occupancy of the priority group from the switch's histograms: the "
                "highest value reported in the last 15 s to 20 s (window 15s) or 60 s to 65 s "
                "(window 60s), so a 15 s scrape cannot miss a burst, in bytes.",
    },
    {
        .name = "fabric_port_pg_peak_max_bytes",
        .type = FSC_MF_GAUGE,
        .origin = FSC_MF_MAX,
        .unit = "bytes",
        .labels = "device,port,priority_group,window",
        .help = "Ingress buffer watermark of the priority group: the highest value reported in the "
                "last 15 s to 20 s (window 15s) or 60 s to 65 s (window 60s), so a 15 s scrape "
                "cannot miss a burst, in bytes.",
    },
    {
        .name = "fabric_port_queue_hist_latency_max_seconds",
        .type = FSC_MF_GAUGE,
        .origin = FSC_MF_MAX,
        .unit = "seconds",
        .labels = "device,port,queue,window",
        .help = "Queueing latency of the egress queue from the switch's histograms: the highest "
                "value reported in the last 15 s to 20 s (window 15s) or 60 s to 65 s (window "
                "60s), so a 15 s scrape cannot miss a burst, in seconds.",
    },
    {
        .name = "fabric_port_queue_hist_peak_max_bytes",
        .type = FSC_MF_GAUGE,
        .origin = FSC_MF_MAX,
        .unit = "bytes",
        .labels = "device,port,queue,window",
        .help = "Egress queue occupancy from the switch's histograms: the highest value reported "
                "in the last 15 s to 20 s (window 15s) or 60 s to 65 s (window 60s), so a 15 s "
                "scrape cannot miss a burst, in bytes.",
    },
    {
        .name = "fabric_port_queue_peak_max_bytes",
        .type = FSC_MF_GAUGE,
        .origin = FSC_MF_MAX,
        .unit = "bytes",
        .labels = "device,port,queue,window",
        .help = "Egress queue peak occupancy: the highest value reported in the last 15 s to 20 s "
                "(window 15s) or 60 s to 65 s (window 60s), so a 15 s scrape cannot miss a burst, "
                "in bytes.",
    },
    {
        .name = "fabric_port_rx_pause_frames_fine_per_second",
        .type = FSC_MF_GAUGE,
        .origin = FSC_MF_FINE,
        .unit = "frames per second",
        .labels = "device,port",
        .help = "Link-level pause frames the port received over its last fine interval (sample to "
                "sample, or copy to copy); sent by remote_write only, in frames per second.",
    },
    {
        .name = "fabric_port_rx_pause_frames_per_second",
        .type = FSC_MF_GAUGE,
        .origin = FSC_MF_RATE,
        .unit = "frames per second",
        .labels = "device,port",
        .help = "Link-level pause frames the port received over the last completed aligned window "
                "of its rate level (the first configured width; 10 s for counters copied every 2 "
                "s), in frames per second.",
    },
    {
        .name = "fabric_port_rx_pause_seconds_fine_per_second",
        .type = FSC_MF_GAUGE,
        .origin = FSC_MF_FINE,
        .unit = "seconds per second",
        .labels = "device,port",
        .help = "Time the port was held paused by received link-level pause frames, the paused "
                "share of time over its last fine interval (sample to sample, or copy to copy); "
                "sent by remote_write only, in seconds per second.",
    },
    {
        .name = "fabric_port_rx_pause_seconds_per_second",
        .type = FSC_MF_GAUGE,
        .origin = FSC_MF_RATE,
        .unit = "seconds per second",
        .labels = "device,port",
        .help = "Time the port was held paused by received link-level pause frames, the paused "
                "share of time over the last completed aligned window of its rate level (the first "
                "configured width; 10 s for counters copied every 2 s), in seconds per second.",
    },
    {
        .name = "fabric_port_tx_pause_frames_fine_per_second",
        .type = FSC_MF_GAUGE,
        .origin = FSC_MF_FINE,
        .unit = "frames per second",
        .labels = "device,port",
        .help = "Link-level pause frames the port sent over its last fine interval (sample to "
                "sample, or copy to copy); sent by remote_write only, in frames per second.",
    },
    {
        .name = "fabric_port_tx_pause_frames_per_second",
        .type = FSC_MF_GAUGE,
        .origin = FSC_MF_RATE,
        .unit = "frames per second",
        .labels = "device,port",
        .help = "Link-level pause frames the port sent over the last completed aligned window of "
                "its rate level (the first configured width; 10 s for counters copied every 2 s), "
                "in frames per second.",
    },
    {
        .name = "fabric_port_tx_pause_seconds_fine_per_second",
        .type = FSC_MF_GAUGE,
        .origin = FSC_MF_FINE,
        .unit = "seconds per second",
        .labels = "device,port",
        .help = "Time the port held its peer paused with link-level pause frames, the paused share "
                "of time over its last fine interval (sample to sample, or copy to copy); sent by "
                "remote_write only, in seconds per second.",
    },
    {
        .name = "fabric_port_tx_pause_seconds_per_second",
        .type = FSC_MF_GAUGE,
        .origin = FSC_MF_RATE,
        .unit = "seconds per second",
        .labels = "device,port",
        .help = "Time the port held its peer paused with link-level pause frames, the paused share "
                "of time over the last completed aligned window of its rate level (the first "
                "configured width; 10 s for counters copied every 2 s), in seconds per second.",
    },
    {
        .name = "fabric_port_utilization_peak_ratio",
        .type = FSC_MF_GAUGE,
        .origin = FSC_MF_DERIVED,
        .unit = "ratio",
        .labels = "device,port,direction,window",
        .help = "Largest fine-interval utilization inside the last completed aligned window of "
                "each configured width (window), a ratio from 0 to 1.",
    },
    {
        .name = "fabric_port_utilization_ratio",
        .type = FSC_MF_GAUGE,
        .origin = FSC_MF_DERIVED,
        .unit = "ratio",
        .labels = "device,port,direction",
        .help = "Port throughput over its link speed over the last completed aligned window of its "
                "rate level (the first configured width; 10 s for counters copied every 2 s), a "
                "ratio from 0 to 1; ports with a known speed only.",
    },
    {
        .name = "fabric_reorder_spikes_total",
        .type = FSC_MF_COUNTER,
        .origin = FSC_MF_DERIVED,
        .unit = "spikes",
        .labels = "device,port,signal",
        .help = "Reordering spikes over the learned baseline, by the counter that spiked (signal: "
                "out_of_sequence, packet_seq_errors), spikes.",
    },
    {
        .name = "fabric_uplink_imbalance_events_total",
        .type = FSC_MF_COUNTER,
        .origin = FSC_MF_DERIVED,
        .unit = "events",
        .labels = "group",
        .help = "Uplink imbalance events of the port group (events).",
    },
    {
        .name = "fabric_uplink_imbalance_ratio",
        .type = FSC_MF_GAUGE,
        .origin = FSC_MF_DERIVED,
        .unit = "ratio",
        .labels = "group",
        .help = "Highest over mean utilization of the port group's members in the last window, a "
                "ratio (1 when balanced).",
    },
    {
        .name = "fabricscope_arrival_time_samples_total",
        .type = FSC_MF_COUNTER,
        .origin = FSC_MF_SELF,
        .unit = "samples",
        .labels = "",
        .help = "Samples without a device timestamp, placed at their arrival time (samples).",
    },
    {
        .name = "fabricscope_build_info",
        .type = FSC_MF_GAUGE,
        .origin = FSC_MF_SELF,
        .unit = "",
        .labels = "commit,version",
        .help = "Always 1; the version and commit labels tell which fabricscope runs.",
    },
    {
        .name = "fabricscope_copy_changes_total",
        .type = FSC_MF_COUNTER,
        .origin = FSC_MF_SELF,
        .unit = "changes",
        .labels = "",
        .help = "Counter value changes that placed a device's copy instants (changes).",
    },
    {
        .name = "fabricscope_copy_groups",
        .type = FSC_MF_GAUGE,
        .origin = FSC_MF_SELF,
        .unit = "devices",
        .labels = "",
        .help = "Devices whose counters are copied on a timer, each with a copy grid (devices).",
    },
    {
        .name = "fabricscope_copy_relocks_total",
        .type = FSC_MF_COUNTER,
        .origin = FSC_MF_SELF,
        .unit = "relocks",
        .labels = "",
        .help = "Times a device's copy grid started over: its copies moved (reboot, clock step) or "
                "its series disagree on when they were copied (relocks).",
    },
    {
        .name = "fabricscope_events_total",
        .type = FSC_MF_COUNTER,
        .origin = FSC_MF_SELF,
        .unit = "events",
        .labels = "kind",
        .help = "Detector and source events published, START and instant phases, by kind (events).",
    },
    {
        .name = "fabricscope_gaps_total",
        .type = FSC_MF_COUNTER,
        .origin = FSC_MF_SELF,
        .unit = "intervals",
        .labels = "",
        .help = "Sample intervals longer than engine.max_gap_factor times the series' update "
                "period (intervals).",
    },
    {
        .name = "fabricscope_reset_events_suppressed_total",
        .type = FSC_MF_COUNTER,
        .origin = FSC_MF_SELF,
        .unit = "resets",
        .labels = "",
        .help = "Counter resets that published no counter_reset event, for its once a minute limit "
                "(resets).",
    },
    {
        .name = "fabricscope_sample_interval_ratio",
        .type = FSC_MF_HISTOGRAM,
        .origin = FSC_MF_SELF,
        .unit = "ratio",
        .labels = "",
        .help = "Observed sample interval over the series' nominal interval, one observation per "
                "interval, a ratio (jitter made visible).",
    },
    {
        .name = "fabricscope_sample_verdicts_total",
        .type = FSC_MF_COUNTER,
        .origin = FSC_MF_SELF,
        .unit = "samples",
        .labels = "verdict",
        .help = "What the rate engine did with each sample, by verdict (samples).",
    },
    {
        .name = "fabricscope_samples_total",
        .type = FSC_MF_COUNTER,
        .origin = FSC_MF_SELF,
        .unit = "samples",
        .labels = "",
        .help = "Samples the sources gave the engine (samples).",
    },
    {
        .name = "fabricscope_scrape_bytes",
        .type = FSC_MF_GAUGE,
        .origin = FSC_MF_SELF,
        .unit = "bytes",
        .labels = "",
        .help = "Bytes of the previous scrape body before compression.",
    },
    {
        .name = "fabricscope_scrape_duration_seconds",
        .type = FSC_MF_GAUGE,
        .origin = FSC_MF_SELF,
        .unit = "seconds",
        .labels = "",
        .help = "Time the previous scrape took to render, in seconds.",
    },
    {
        .name = "fabricscope_scrape_series",
        .type = FSC_MF_GAUGE,
        .origin = FSC_MF_SELF,
        .unit = "lines",
        .labels = "",
        .help = "Sample lines in the previous scrape (lines).",
    },
    {
        .name = "fabricscope_series",
        .type = FSC_MF_GAUGE,
        .origin = FSC_MF_SELF,
        .unit = "series",
        .labels = "source",
        .help = "Series the registry holds for the source (series).",
    },
    {
        .name = "fabricscope_series_dropped_total",
        .type = FSC_MF_COUNTER,
        .origin = FSC_MF_SELF,
        .unit = "series",
        .labels = "source",
        .help = "Series refused by a series limit, counted per refused attempt (series).",
    },
    {
        .name = "fabricscope_series_limit",
        .type = FSC_MF_GAUGE,
        .origin = FSC_MF_SELF,
        .unit = "series",
        .labels = "source",
        .help = "Series limit of the source (series).",
    },
    {
        .name = "fabricscope_series_rejected_total",
        .type = FSC_MF_COUNTER,
        .origin = FSC_MF_SELF,
        .unit = "series",
        .labels = "source",
        .help = "Series refused as invalid (series).",
    },
    {
        .name = "fabricscope_unknown_series_samples_total",
        .type = FSC_MF_COUNTER,
        .origin = FSC_MF_SELF,
        .unit = "samples",
        .labels = "",
        .help = "Samples the engine dropped: series id beyond engine.max_series, or no memory for "
                "its state (samples).",
    },
    {
        .name = "fabricscope_up",
        .type = FSC_MF_GAUGE,
        .origin = FSC_MF_SELF,
        .unit = "",
        .labels = "source,type",
        .help = "1 while the source is running and healthy, else 0.",
    },
    {
        .name = "fabricscope_windows_withheld_total",
        .type = FSC_MF_COUNTER,
        .origin = FSC_MF_SELF,
        .unit = "windows",
        .labels = "window,reason",
        .help = "Aligned windows completed but not emitted, shorter than their series' update "
                "period (windows).",
    },
    {
        .name = "fabricscope_wraps_total",
        .type = FSC_MF_COUNTER,
        .origin = FSC_MF_SELF,
        .unit = "wraps",
        .labels = "",
        .help = "32-bit counter wraps the rate engine unwound (wraps).",
    },
};

const size_t fsc_mf_expo_count = sizeof(fsc_mf_expo) / sizeof(fsc_mf_expo[0]);
