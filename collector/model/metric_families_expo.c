/* The families the exporters compute (metric_families.h): window and fine
 * rates of detector counters, trailing maxima of peak gauges, the topology
 * info families, the engine's derived families and the fabricscope_
 * self-metrics of the engine, the registry and the renderer. Sorted by
 * name. */
#include "model/metric_families.h"

/* {name, series, scale, type, origin, unit, labels, help, rate, max}:
 * struct fsc_metric_family. */
const struct fsc_metric_family fsc_mf_expo[] = {
    {"fabric_bursts_total", NULL, 0, FSC_MF_COUNTER, FSC_MF_DERIVED, "bursts",
     "device,port,direction",
     "Bursts of the port lasting engine.microburst.micro_max or longer (bursts).", NULL, NULL},
    {"fabric_cnp_spikes_total", NULL, 0, FSC_MF_COUNTER, FSC_MF_DERIVED, "spikes",
     "device,port,signal",
     "CNP rate spikes over the learned baseline, by the counter that spiked (signal: cnp_sent, "
     "cnp_handled), spikes.",
     NULL, NULL},
    {"fabric_congestion_evidence_total", NULL, 0, FSC_MF_COUNTER, FSC_MF_DERIVED, "events",
     "device,port,queue or priority_group,signal",
     "Congestion evidence events: a queue or buffer peak above its share of the buffer, a latency "
     "peak over its bar, a NIC buffer over its threshold, by the series that showed it (signal), "
     "events.",
     NULL, NULL},
    {"fabric_ecn_spikes_total", NULL, 0, FSC_MF_COUNTER, FSC_MF_DERIVED, "spikes",
     "device,port,queue or priority,signal",
     "ECN-mark rate spikes over the learned baseline, by the counter that spiked (signal), spikes.",
     NULL, NULL},
    {"fabric_microburst_duration_seconds", NULL, 0, FSC_MF_HISTOGRAM, FSC_MF_DERIVED, "seconds",
     "device,port,direction", "Durations of the port's microbursts, in seconds.", NULL, NULL},
    {"fabric_microbursts_total", NULL, 0, FSC_MF_COUNTER, FSC_MF_DERIVED, "bursts",
     "device,port,direction",
     "Bursts of the port shorter than engine.microburst.micro_max (bursts).", NULL, NULL},
    {"fabric_nic_cnp_handled_fine_per_second", NULL, 0, FSC_MF_GAUGE, FSC_MF_FINE,
     "packets per second", "device,port",
     "Congestion notification packets the NIC handled over its last fine interval (sample to "
     "sample, or copy to copy); sent by remote_write only, in packets per second.",
     NULL, NULL},
    {"fabric_nic_cnp_handled_per_second", NULL, 0, FSC_MF_GAUGE, FSC_MF_RATE, "packets per second",
     "device,port",
     "Congestion notification packets the NIC handled over the last completed aligned window of "
     "its rate level (the first configured width; 10 s for counters copied every 2 s), in packets "
     "per second.",
     NULL, NULL},
    {"fabric_nic_cnp_sent_fine_per_second", NULL, 0, FSC_MF_GAUGE, FSC_MF_FINE,
     "packets per second", "device,port",
     "Congestion notification packets the NIC sent over its last fine interval (sample to sample, "
     "or copy to copy); sent by remote_write only, in packets per second.",
     NULL, NULL},
    {"fabric_nic_cnp_sent_per_second", NULL, 0, FSC_MF_GAUGE, FSC_MF_RATE, "packets per second",
     "device,port",
     "Congestion notification packets the NIC sent over the last completed aligned window of its "
     "rate level (the first configured width; 10 s for counters copied every 2 s), in packets per "
     "second.",
     NULL, NULL},
    {"fabric_nic_ecn_marked_roce_packets_fine_per_second", NULL, 0, FSC_MF_GAUGE, FSC_MF_FINE,
     "packets per second", "device,port",
     "ECN-marked RoCE packets the NIC received over its last fine interval (sample to sample, or "
     "copy to copy); sent by remote_write only, in packets per second.",
     NULL, NULL},
    {"fabric_nic_ecn_marked_roce_packets_per_second", NULL, 0, FSC_MF_GAUGE, FSC_MF_RATE,
     "packets per second", "device,port",
     "ECN-marked RoCE packets the NIC received over the last completed aligned window of its rate "
     "level (the first configured width; 10 s for counters copied every 2 s), in packets per "
     "second.",
     NULL, NULL},
    {"fabric_nic_info", NULL, 0, FSC_MF_GAUGE, FSC_MF_INFO, "", "device,port,card,pci",
     "The NIC behind the port, value 1: its card in the B300 cable plan and its PCIe address "
     "(pci); join it on device and port.",
     NULL, NULL},
    {"fabric_nic_out_of_sequence_fine_per_second", NULL, 0, FSC_MF_GAUGE, FSC_MF_FINE,
     "packets per second", "device,port",
     "Out-of-sequence packets the NIC received over its last fine interval (sample to sample, or "
     "copy to copy); sent by remote_write only, in packets per second.",
     NULL, NULL},
    {"fabric_nic_out_of_sequence_per_second", NULL, 0, FSC_MF_GAUGE, FSC_MF_RATE,
     "packets per second", "device,port",
     "Out-of-sequence packets the NIC received over the last completed aligned window of its rate "
     "level (the first configured width; 10 s for counters copied every 2 s), in packets per "
     "second.",
     NULL, NULL},
    {"fabric_nic_packet_seq_errors_fine_per_second", NULL, 0, FSC_MF_GAUGE, FSC_MF_FINE,
     "errors per second", "device,port",
     "NAK sequence errors the NIC received over its last fine interval (sample to sample, or copy "
     "to copy); sent by remote_write only, in errors per second.",
     NULL, NULL},
    {"fabric_nic_packet_seq_errors_per_second", NULL, 0, FSC_MF_GAUGE, FSC_MF_RATE,
     "errors per second", "device,port",
     "NAK sequence errors the NIC received over the last completed aligned window of its rate "
     "level (the first configured width; 10 s for counters copied every 2 s), in errors per "
     "second.",
     NULL, NULL},
    {"fabric_nic_rx_buffer_over_threshold_fine_per_second", NULL, 0, FSC_MF_GAUGE, FSC_MF_FINE,
     "events per second", "device,port",
     "Times the NIC's receive buffer went over 85 % full over its last fine interval (sample to "
     "sample, or copy to copy); sent by remote_write only, in events per second.",
     NULL, NULL},
    {"fabric_nic_rx_buffer_over_threshold_per_second", NULL, 0, FSC_MF_GAUGE, FSC_MF_RATE,
     "events per second", "device,port",
     "Times the NIC's receive buffer went over 85 % full over the last completed aligned window of "
     "its rate level (the first configured width; 10 s for counters copied every 2 s), in events "
     "per second.",
     NULL, NULL},
    {"fabric_node_info", NULL, 0, FSC_MF_GAUGE, FSC_MF_INFO, "", "device,node",
     "The B300 node number of the host named by device, value 1, from the cable plan; join it on "
     "device.",
     NULL, NULL},
    {"fabric_pfc_storms_total", NULL, 0, FSC_MF_COUNTER, FSC_MF_DERIVED, "storms",
     "device,port,priority,signal",
     "PFC pause storms, a paused share of time or a pause frame rate over the storm threshold, by "
     "the counter that showed it (signal), storms.",
     NULL, NULL},
    {"fabric_port_bytes_per_second", NULL, 0, FSC_MF_GAUGE, FSC_MF_DERIVED, "bytes per second",
     "device,port,direction",
     "Port throughput over the last completed aligned window of its rate level (the first "
     "configured width; 10 s for counters copied every 2 s), in bytes per second.",
     NULL, NULL},
    {"fabric_port_ecn_marked_packets_fine_per_second", NULL, 0, FSC_MF_GAUGE, FSC_MF_FINE,
     "packets per second", "device,port,queue or priority",
     "ECN-marked packets of the port per queue or priority over its last fine interval (sample to "
     "sample, or copy to copy); sent by remote_write only, in packets per second.",
     NULL, NULL},
    {"fabric_port_ecn_marked_packets_per_second", NULL, 0, FSC_MF_GAUGE, FSC_MF_RATE,
     "packets per second", "device,port,queue or priority",
     "ECN-marked packets of the port per queue or priority over the last completed aligned window "
     "of its rate level (the first configured width; 10 s for counters copied every 2 s), in "
     "packets per second.",
     NULL, NULL},
    {"fabric_port_fine_bytes_per_second", NULL, 0, FSC_MF_GAUGE, FSC_MF_FINE, "bytes per second",
     "device,port,direction",
     "Port throughput over its last fine interval (sample to sample, or copy to copy); sent by "
     "remote_write only, in bytes per second.",
     NULL, NULL},
    {"fabric_port_fine_utilization_ratio", NULL, 0, FSC_MF_HISTOGRAM, FSC_MF_DERIVED, "ratio",
     "device,port,direction",
     "Utilization of every fine interval (sample to sample) of the port, one observation each, a "
     "ratio from 0 to 1.",
     NULL, NULL},
    {"fabric_port_info", NULL, 0, FSC_MF_GAUGE, FSC_MF_INFO, "",
     "device,port,role,rail,peer,peer_port,link,peer_node",
     "Where the port sits, value 1: its role (uplink, downlink, nic), rail, the device and port at "
     "the other end of its cable (peer, peer_port) and for B300 interfaces the link number and the "
     "peer's node; join it on device and port.",
     NULL, NULL},
    {"fabric_port_pfc_rx_pause_frames_fine_per_second", NULL, 0, FSC_MF_GAUGE, FSC_MF_FINE,
     "frames per second", "device,port,priority",
     "PFC pause frames the port received per priority over its last fine interval (sample to "
     "sample, or copy to copy); sent by remote_write only, in frames per second.",
     NULL, NULL},
    {"fabric_port_pfc_rx_pause_frames_per_second", NULL, 0, FSC_MF_GAUGE, FSC_MF_RATE,
     "frames per second", "device,port,priority",
     "PFC pause frames the port received per priority over the last completed aligned window of "
     "its rate level (the first configured width; 10 s for counters copied every 2 s), in frames "
     "per second.",
     NULL, NULL},
    {"fabric_port_pfc_rx_pause_seconds_fine_per_second", NULL, 0, FSC_MF_GAUGE, FSC_MF_FINE,
     "seconds per second", "device,port,priority",
     "Time the port was held paused by received PFC frames per priority, the paused share of time "
     "over its last fine interval (sample to sample, or copy to copy); sent by remote_write only, "
     "in seconds per second.",
     NULL, NULL},
    {"fabric_port_pfc_rx_pause_seconds_per_second", NULL, 0, FSC_MF_GAUGE, FSC_MF_RATE,
     "seconds per second", "device,port,priority",
     "Time the port was held paused by received PFC frames per priority, the paused share of time "
     "over the last completed aligned window of its rate level (the first configured width; 10 s "
     "for counters copied every 2 s), in seconds per second.",
     NULL, NULL},
    {"fabric_port_pfc_tx_pause_frames_fine_per_second", NULL, 0, FSC_MF_GAUGE, FSC_MF_FINE,
     "frames per second", "device,port,priority",
     "PFC pause frames the port sent per priority over its last fine interval (sample to sample, "
     "or copy to copy); sent by remote_write only, in frames per second.",
     NULL, NULL},
    {"fabric_port_pfc_tx_pause_frames_per_second", NULL, 0, FSC_MF_GAUGE, FSC_MF_RATE,
     "frames per second", "device,port,priority",
     "PFC pause frames the port sent per priority over the last completed aligned window of its "
     "rate level (the first configured width; 10 s for counters copied every 2 s), in frames per "
     "second.",
     NULL, NULL},
    {"fabric_port_pfc_tx_pause_seconds_fine_per_second", NULL, 0, FSC_MF_GAUGE, FSC_MF_FINE,
     "seconds per second", "device,port,priority",
     "Time the port held its peer paused with PFC frames per priority, the paused share of time "
     "over its last fine interval (sample to sample, or copy to copy); sent by remote_write only, "
     "in seconds per second.",
     NULL, NULL},
    {"fabric_port_pfc_tx_pause_seconds_per_second", NULL, 0, FSC_MF_GAUGE, FSC_MF_RATE,
     "seconds per second", "device,port,priority",
     "Time the port held its peer paused with PFC frames per priority, the paused share of time "
     "over the last completed aligned window of its rate level (the first configured width; 10 s "
     "for counters copied every 2 s), in seconds per second.",
     NULL, NULL},
    {"fabric_port_pg_hist_peak_max_bytes", NULL, 0, FSC_MF_GAUGE, FSC_MF_MAX, "bytes",
     "device,port,priority_group,window",
     "Ingress buffer occupancy of the priority group from the switch's histograms: the highest "
     "value reported in the last 15 s to 20 s (window 15s) or 60 s to 65 s (window 60s), so a 15 s "
     "scrape cannot miss a burst, in bytes.",
     NULL, NULL},
    {"fabric_port_pg_peak_max_bytes", NULL, 0, FSC_MF_GAUGE, FSC_MF_MAX, "bytes",
     "device,port,priority_group,window",
     "Ingress buffer watermark of the priority group: the highest value reported in the last 15 s "
     "to 20 s (window 15s) or 60 s to 65 s (window 60s), so a 15 s scrape cannot miss a burst, in "
     "bytes.",
     NULL, NULL},
    {"fabric_port_queue_hist_latency_max_seconds", NULL, 0, FSC_MF_GAUGE, FSC_MF_MAX, "seconds",
     "device,port,queue,window",
     "Queueing latency of the egress queue from the switch's histograms: the highest value "
     "reported in the last 15 s to 20 s (window 15s) or 60 s to 65 s (window 60s), so a 15 s "
     "scrape cannot miss a burst, in seconds.",
     NULL, NULL},
    {"fabric_port_queue_hist_peak_max_bytes", NULL, 0, FSC_MF_GAUGE, FSC_MF_MAX, "bytes",
     "device,port,queue,window",
     "Egress queue occupancy from the switch's histograms: the highest value reported in the last "
     "15 s to 20 s (window 15s) or 60 s to 65 s (window 60s), so a 15 s scrape cannot miss a "
     "burst, in bytes.",
     NULL, NULL},
    {"fabric_port_queue_peak_max_bytes", NULL, 0, FSC_MF_GAUGE, FSC_MF_MAX, "bytes",
     "device,port,queue,window",
     "Egress queue peak occupancy: the highest value reported in the last 15 s to 20 s (window "
     "15s) or 60 s to 65 s (window 60s), so a 15 s scrape cannot miss a burst, in bytes.",
     NULL, NULL},
    {"fabric_port_rx_pause_frames_fine_per_second", NULL, 0, FSC_MF_GAUGE, FSC_MF_FINE,
     "frames per second", "device,port",
     "Link-level pause frames the port received over its last fine interval (sample to sample, or "
     "copy to copy); sent by remote_write only, in frames per second.",
     NULL, NULL},
    {"fabric_port_rx_pause_frames_per_second", NULL, 0, FSC_MF_GAUGE, FSC_MF_RATE,
     "frames per second", "device,port",
     "Link-level pause frames the port received over the last completed aligned window of its rate "
     "level (the first configured width; 10 s for counters copied every 2 s), in frames per "
     "second.",
     NULL, NULL},
    {"fabric_port_rx_pause_seconds_fine_per_second", NULL, 0, FSC_MF_GAUGE, FSC_MF_FINE,
     "seconds per second", "device,port",
     "Time the port was held paused by received link-level pause frames, the paused share of time "
     "over its last fine interval (sample to sample, or copy to copy); sent by remote_write only, "
     "in seconds per second.",
     NULL, NULL},
    {"fabric_port_rx_pause_seconds_per_second", NULL, 0, FSC_MF_GAUGE, FSC_MF_RATE,
     "seconds per second", "device,port",
     "Time the port was held paused by received link-level pause frames, the paused share of time "
     "over the last completed aligned window of its rate level (the first configured width; 10 s "
     "for counters copied every 2 s), in seconds per second.",
     NULL, NULL},
    {"fabric_port_tx_pause_frames_fine_per_second", NULL, 0, FSC_MF_GAUGE, FSC_MF_FINE,
     "frames per second", "device,port",
     "Link-level pause frames the port sent over its last fine interval (sample to sample, or copy "
     "to copy); sent by remote_write only, in frames per second.",
     NULL, NULL},
    {"fabric_port_tx_pause_frames_per_second", NULL, 0, FSC_MF_GAUGE, FSC_MF_RATE,
     "frames per second", "device,port",
     "Link-level pause frames the port sent over the last completed aligned window of its rate "
     "level (the first configured width; 10 s for counters copied every 2 s), in frames per "
     "second.",
     NULL, NULL},
    {"fabric_port_tx_pause_seconds_fine_per_second", NULL, 0, FSC_MF_GAUGE, FSC_MF_FINE,
     "seconds per second", "device,port",
     "Time the port held its peer paused with link-level pause frames, the paused share of time "
     "over its last fine interval (sample to sample, or copy to copy); sent by remote_write only, "
     "in seconds per second.",
     NULL, NULL},
    {"fabric_port_tx_pause_seconds_per_second", NULL, 0, FSC_MF_GAUGE, FSC_MF_RATE,
     "seconds per second", "device,port",
     "Time the port held its peer paused with link-level pause frames, the paused share of time "
     "over the last completed aligned window of its rate level (the first configured width; 10 s "
     "for counters copied every 2 s), in seconds per second.",
     NULL, NULL},
    {"fabric_port_utilization_peak_ratio", NULL, 0, FSC_MF_GAUGE, FSC_MF_DERIVED, "ratio",
     "device,port,direction,window",
     "Largest fine-interval utilization inside the last completed aligned window of each "
     "configured width (window), a ratio from 0 to 1.",
     NULL, NULL},
    {"fabric_port_utilization_ratio", NULL, 0, FSC_MF_GAUGE, FSC_MF_DERIVED, "ratio",
     "device,port,direction",
     "Port throughput over its link speed over the last completed aligned window of its rate level "
     "(the first configured width; 10 s for counters copied every 2 s), a ratio from 0 to 1; ports "
     "with a known speed only.",
     NULL, NULL},
    {"fabric_reorder_spikes_total", NULL, 0, FSC_MF_COUNTER, FSC_MF_DERIVED, "spikes",
     "device,port,signal",
     "Reordering spikes over the learned baseline, by the counter that spiked (signal: "
     "out_of_sequence, packet_seq_errors), spikes.",
     NULL, NULL},
    {"fabric_uplink_imbalance_events_total", NULL, 0, FSC_MF_COUNTER, FSC_MF_DERIVED, "events",
     "group", "Uplink imbalance events of the port group (events).", NULL, NULL},
    {"fabric_uplink_imbalance_ratio", NULL, 0, FSC_MF_GAUGE, FSC_MF_DERIVED, "ratio", "group",
     "Highest over mean utilization of the port group's members in the last window, a ratio (1 "
     "when balanced).",
     NULL, NULL},
    {"fabricscope_arrival_time_samples_total", NULL, 0, FSC_MF_COUNTER, FSC_MF_SELF, "samples", "",
     "Samples without a device timestamp, placed at their arrival time (samples).", NULL, NULL},
    {"fabricscope_build_info", NULL, 0, FSC_MF_GAUGE, FSC_MF_SELF, "", "commit,version",
     "Always 1; the version and commit labels tell which fabricscope runs.", NULL, NULL},
    {"fabricscope_copy_changes_total", NULL, 0, FSC_MF_COUNTER, FSC_MF_SELF, "changes", "",
     "Counter value changes that placed a device's copy instants (changes).", NULL, NULL},
    {"fabricscope_copy_groups", NULL, 0, FSC_MF_GAUGE, FSC_MF_SELF, "devices", "",
     "Devices whose counters are copied on a timer, each with a copy grid (devices).", NULL, NULL},
    {"fabricscope_copy_relocks_total", NULL, 0, FSC_MF_COUNTER, FSC_MF_SELF, "relocks", "",
     "Times a device's copy grid started over: its copies moved (reboot, clock step) or its series "
     "disagree on when they were copied (relocks).",
     NULL, NULL},
    {"fabricscope_events_total", NULL, 0, FSC_MF_COUNTER, FSC_MF_SELF, "events", "kind",
     "Detector and source events published, START and instant phases, by kind (events).", NULL,
     NULL},
    {"fabricscope_gaps_total", NULL, 0, FSC_MF_COUNTER, FSC_MF_SELF, "intervals", "",
     "Sample intervals longer than engine.max_gap_factor times the series' update period "
     "(intervals).",
     NULL, NULL},
    {"fabricscope_reset_events_suppressed_total", NULL, 0, FSC_MF_COUNTER, FSC_MF_SELF, "resets",
     "",
     "Counter resets that published no counter_reset event, for its once a minute limit (resets).",
     NULL, NULL},
    {"fabricscope_sample_interval_ratio", NULL, 0, FSC_MF_HISTOGRAM, FSC_MF_SELF, "ratio", "",
     "Observed sample interval over the series' nominal interval, one observation per interval, a "
     "ratio (jitter made visible).",
     NULL, NULL},
    {"fabricscope_sample_verdicts_total", NULL, 0, FSC_MF_COUNTER, FSC_MF_SELF, "samples",
     "verdict", "What the rate engine did with each sample, by verdict (samples).", NULL, NULL},
    {"fabricscope_samples_total", NULL, 0, FSC_MF_COUNTER, FSC_MF_SELF, "samples", "",
     "Samples the sources gave the engine (samples).", NULL, NULL},
    {"fabricscope_scrape_bytes", NULL, 0, FSC_MF_GAUGE, FSC_MF_SELF, "bytes", "",
     "Bytes of the previous scrape body before compression.", NULL, NULL},
    {"fabricscope_scrape_duration_seconds", NULL, 0, FSC_MF_GAUGE, FSC_MF_SELF, "seconds", "",
     "Time the previous scrape took to render, in seconds.", NULL, NULL},
    {"fabricscope_scrape_series", NULL, 0, FSC_MF_GAUGE, FSC_MF_SELF, "lines", "",
     "Sample lines in the previous scrape (lines).", NULL, NULL},
    {"fabricscope_series", NULL, 0, FSC_MF_GAUGE, FSC_MF_SELF, "series", "source",
     "Series the registry holds for the source (series).", NULL, NULL},
    {"fabricscope_series_dropped_total", NULL, 0, FSC_MF_COUNTER, FSC_MF_SELF, "series", "source",
     "Series refused by a series limit, counted per refused attempt (series).", NULL, NULL},
    {"fabricscope_series_limit", NULL, 0, FSC_MF_GAUGE, FSC_MF_SELF, "series", "source",
     "Series limit of the source (series).", NULL, NULL},
    {"fabricscope_series_rejected_total", NULL, 0, FSC_MF_COUNTER, FSC_MF_SELF, "series", "source",
     "Series refused as invalid (series).", NULL, NULL},
    {"fabricscope_unknown_series_samples_total", NULL, 0, FSC_MF_COUNTER, FSC_MF_SELF, "samples",
     "",
     "Samples the engine dropped: series id beyond engine.max_series, or no memory for its state "
     "(samples).",
     NULL, NULL},
    {"fabricscope_up", NULL, 0, FSC_MF_GAUGE, FSC_MF_SELF, "", "source,type",
     "1 while the source is running and healthy, else 0.", NULL, NULL},
    {"fabricscope_windows_withheld_total", NULL, 0, FSC_MF_COUNTER, FSC_MF_SELF, "windows",
     "window,reason",
     "Aligned windows completed but not emitted, shorter than their series' update period "
     "(windows).",
     NULL, NULL},
    {"fabricscope_wraps_total", NULL, 0, FSC_MF_COUNTER, FSC_MF_SELF, "wraps", "",
     "32-bit counter wraps the rate engine unwound (wraps).", NULL, NULL},
};

const size_t fsc_mf_expo_count = sizeof(fsc_mf_expo) / sizeof(fsc_mf_expo[0]);
