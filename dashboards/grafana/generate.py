#!/usr/bin/env python3
"""Writes the fabricscope Grafana dashboards (dashboards/grafana/*.json).

The JSON files are generated so that the four dashboards share one layout
engine, one datasource convention and one set of template variables (those
live in panels.py); edit this file or panels.py and re-run it
(`python3 dashboards/grafana/generate.py`), do not edit the JSON by hand. scripts/check_dashboards.py fails when the committed JSON differs
from what this script writes.

Every expression names metrics from docs/METRICS.md, recording rules from
dashboards/recording.yml, or names in dashboards/pending_metrics.txt.

Every dashboard has `job` and `instance` variables (a sharded deployment runs
several collectors, docs/DEPLOY.md "Sharding"), and every selector carries
both matchers (JI below) except the fabric-wide recording rules, which sum
over every collector; scripts/check_dashboards.py fails on a selector
without them.

Titles say which window a value covers: a rate gauge of the engine
(fabric_port_bytes_per_second, fabric_port_utilization_ratio, the
<counter>_per_second families) is the last completed window of the port's rate
level, 1 s on a NIC or a Cumulus switch and 10 s on a Junos leaf that
copies its counters every 2 s (docs/METRICS.md), so "1 s" is said only
where it holds.

Usage: generate.py [OUTPUT_DIR]   (default: the directory of this script)
"""
import json
import os
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree (ctest runs this)

from panels import (Dashboard, custom_var, heatmap, query_var, stat,  # noqa: E402
                    table, targets, timeseries)

# The collector matchers every selector carries (the job / instance variables).
JI = 'job=~"$job", instance=~"$instance"'
# Label matchers of the port drill-down and of the device-filtered views.
PORT_SEL = JI + ', device=~"$device", port=~"$port", direction=~"$direction"'
PORT_SEL_NODIR = JI + ', device=~"$device", port=~"$port"'
DEV_SEL = JI + ', device=~"$device"'
SRC_SEL = JI + ', source=~"$source"'


# Topology (role, rail, peer, PCIe address, ...) is not on the data series:
# panels that filter or show it join fabric_port_info / fabric_nic_info on
# device and port (docs/METRICS.md "Topology: the info families").
PORT_INFO = "* on (device, port) group_left ({labels}) fabric_port_info{{{sel}}}"


# ---- the four dashboards ----

# Device and port variables over every source type: leaves and spines expose
# fabric_port_* series, B300 NICs fabric_nic_* (CNP, reorder, PCIe) as well; a
# variable read from fabric_port_utilization_ratio alone could not pick a NIC.
# query_result over a union of the two (each name checkable by
# scripts/check_dashboards.py), the label taken by regex.
DEVICE_Q = (f"query_result(group by (device) (fabric_port_utilization_ratio{{{JI}}}) "
            f"or group by (device) (fabric_nic_cnp_sent_total{{{JI}}}))")
PORT_Q = (f"query_result(group by (port) (fabric_port_utilization_ratio{{{DEV_SEL}}}) "
          f"or group by (port) (fabric_nic_cnp_sent_total{{{DEV_SEL}}}))")
DEVICE_RE = '/device="([^"]+)"/'
PORT_RE = '/port="([^"]+)"/'


def pause_or_link(pfc, link, sel):
    """Per-priority PFC series, and the port's link-level PAUSE counter with
    priority="link" beside them: a Junos leaf or a NIC without PFC counts only
    the latter, which a per-priority selector alone would never show."""
    return (f"rate({pfc}{{{sel}}}[$__rate_interval]) or label_replace(rate({link}"
            f'{{{sel}}}[$__rate_interval]), "priority", "link", "", "")')


DRILL = "/d/fabricscope-port/fabricscope-port-drill-down?var-device=${__data.fields.device}" \
        "&var-port=${__data.fields.port}&${__url_time_range}"


def overview():
    d = Dashboard("fabricscope-overview", "fabricscope / Fabric overview",
                  "Fabric-wide utilization per rail and per device, the ports that burst "
                  "most, spine traffic in a rail-optimized fabric, imbalance and detector "
                  "activity.", ["fabricscope", "fabric"])
    d.variables.append(query_var(
        "rail", "Rail", f'label_values(fabric_port_info{{{JI}, rail!=""}}, rail)'))
    d.variables.append(query_var("device", "Device",
                                 DEVICE_Q, regex=DEVICE_RE))

    d.row("Now")
    d.add(stat("Collectors down", "Collector targets of the selected jobs that Prometheus "
               "fails to scrape (up == 0; alert FabricscopeCollectorDown).",
               f"count(up{{{JI}}} == 0) or vector(0)", steps=((1, "red"),)), 4, 4)
    d.add(stat("Sources down", "Sources whose fabricscope_up is 0 (not running or unhealthy).",
               f"count(fabricscope_up{{{JI}}} == 0) or vector(0)", steps=((1, "red"),)), 4, 4)
    d.add(stat("Fabric alerts firing", "fabricscope alerts (dashboards/alerts.yml) firing now, "
               "all collectors (alert labels carry no job or instance).",
               'count(ALERTS{alertstate="firing", alertname=~"Fabric.*"}) or vector(0)',
               steps=((1, "orange"),)), 4, 4)
    d.add(stat("Microbursts in the last hour",
               "Sum over the selected devices of sub-second bursts (>= 70 % utilization, "
               "< 1 s) in the last hour.",
               f"sum(device_port_direction:fabric_microbursts:increase1h{{{DEV_SEL}}})"),
          4, 4)
    d.add(stat("CNP per TB received (fabric)", "CNPs sent by all NICs of every collector per "
               "10^12 bytes they received (5 min): compare configurations with it.",
               "fabric:fabric_nic_cnp_sent_per_rx_terabyte:ratio_rate5m", decimals=0), 4, 4)
    d.add(stat("Busiest port (last window)", "Highest utilization of the selected devices' "
               "ports in each port's last rate window: 1 s, 10 s on a Junos leaf that copies "
               "its counters every 2 s.", f"max(fabric_port_utilization_ratio{{{DEV_SEL}}})",
               unit="percentunit", steps=((0.7, "orange"), (0.9, "red"))), 4, 4)

    d.row("Cable and PCIe health")
    d.add(stat("Cables off the cable plan", "Planned cables of a B300 mesh with at least one "
               "interface that differs from cables.txt (missing, down, address, peer, speed): "
               "one per cable, whichever end reports (alerts FabricCableMismatch, "
               "FabricCableSpeedMismatch).",
               "count(count by (cable) (device_port_kind:fabric_cable_mismatch:cable"
               f"{{{JI}}} == 1)) or vector(0)", steps=((1, "red"),)), 4, 6)
    d.add(table("Interfaces off the cable plan",
                "Each interface the NIC source's host check finds off the plan, with the cable "
                "it belongs to (<lower node>-<higher node>:<k>, both ends' devices) and the "
                "kind: peer (a swapped cable), down, missing, address, speed.",
                f"device_port_kind:fabric_cable_mismatch:cable{{{DEV_SEL}}} == 1",
                "off plan", "short", steps=((1, "red"),),
                columns=("cable", "device_a", "device_b", "device", "port", "kind", "peer",
                         "peer_port")),
          10, 6)
    d.add(stat("NIC PCIe links degraded", "NIC ports whose PCIe link runs below its maximum "
               "speed or width (alert FabricPcieLinkDegraded).",
               f"sum(fabric_pcie_link_degraded{{{JI}}}) or vector(0)",
               steps=((1, "orange"),)), 4, 6)
    d.add(table("PCIe links below maximum", "NIC ports whose PCIe link trained below its "
                "maximum speed or width, with the PCI address: reseat or check the slot and "
                "BIOS (docs/runbooks/FabricPcieLinkDegraded.md).",
                f"fabric_pcie_link_degraded{{{DEV_SEL}}} * on (device, port) group_left (pci) "
                f"fabric_nic_info{{{JI}}} == 1", "degraded", "short",
                steps=((1, "orange"),), columns=("device", "port", "pci")), 6, 6)

    d.row("Utilization")
    d.add(timeseries("Utilization per rail (average and busiest port)",
                     "Ports with a rail (rail-optimized fabrics), each port's last rate "
                     "window (1 s; 10 s on a Junos leaf), all collectors.",
                     targets(('rail_direction:fabric_port_utilization_ratio:avg{rail=~"$rail"}',
                              "rail {{rail}} {{direction}} avg"),
                             ('rail_direction:fabric_port_utilization_ratio:max{rail=~"$rail"}',
                              "rail {{rail}} {{direction}} max")),
                     unit="percentunit", vmin=0, vmax=1), 12, 8)
    d.add(timeseries("Busiest port per device",
                     "Max over a device's ports of their last-window utilization (1 s; 10 s "
                     "on a Junos leaf).",
                     targets(("device_direction:fabric_port_utilization_ratio:max"
                              f"{{{DEV_SEL}}}", "{{device}} {{direction}}")),
                     unit="percentunit", vmin=0, vmax=1), 12, 8)
    d.add(timeseries("Average utilization per device",
                     "Mean over a device's ports of their last-window utilization (1 s; 10 s "
                     "on a Junos leaf).",
                     targets(("device_direction:fabric_port_utilization_ratio:avg"
                              f"{{{DEV_SEL}}}", "{{device}} {{direction}}")),
                     unit="percentunit", vmin=0, vmax=1), 12, 8)
    d.add(table("Top ports by p99 fine utilization (5 min)",
                "p99 of fine-interval (e.g. 100 ms) utilization: what window averages hide. "
                "Click a device to open the port drill-down.",
                "topk(10, device_port_direction:fabric_port_fine_utilization_ratio:p99_5m"
                f"{{{DEV_SEL}}})", "p99 fine utilization", "percentunit", DRILL,
                steps=((0.7, "orange"), (0.9, "red"))), 12, 8)

    d.row("Bursts and congestion")
    d.add(table("Top ports by microbursts (1 h)", "Microbursts per port and direction in the "
                "last hour.",
                "topk(10, device_port_direction:fabric_microbursts:increase1h"
                f"{{{DEV_SEL}}} > 0)", "microbursts / h", "short", DRILL,
                steps=((360, "orange"),)), 12, 8)
    d.add(timeseries("Detector events per kind",
                     "Events published by the engine's detectors (START and instant events).",
                     targets((f"sum by (kind) (rate(fabricscope_events_total{{{JI}}}"
                              "[$__rate_interval]))", "{{kind}}")),
                     unit="ops", vmin=0), 12, 8)

    d.row("Topology")
    d.add(timeseries("Spine traffic: rail leaf uplinks",
                     "Utilization of leaf uplinks in a rail-optimized fabric. With "
                     "NCCL_CROSS_NIC=0 this should stay near zero; the alert fires above 5 % "
                     "(10 min average).",
                     targets((f"fabric_port_utilization_ratio{{{DEV_SEL}}} "
                              + PORT_INFO.format(labels="rail",
                                                 sel=f'{JI}, role="uplink", rail!=""'),
                              "{{device}} {{port}} {{direction}}")),
                     unit="percentunit", vmin=0, steps=((0.05, "red"),), threshold_line=True),
          12, 8)
    d.add(timeseries("Spine traffic: spine ports",
                     "Spine ports (no rail) of a rail-optimized fabric; empty when no port "
                     "has a rail.",
                     targets((f"fabric_port_utilization_ratio{{{JI}}} "
                              + PORT_INFO.format(labels="role",
                                                 sel=f'{JI}, role="downlink", rail=""')
                              + ' and on () (count(fabric_port_info{rail!=""}) > 0)',
                              "{{device}} {{port}} {{direction}}")),
                     unit="percentunit", vmin=0, steps=((0.05, "red"),), threshold_line=True),
          12, 8)
    d.add(timeseries("Uplink imbalance (max / mean per group)",
                     "1 = perfectly even; the alert fires above 1.5 for 15 min. 0 = idle group.",
                     targets((f"fabric_uplink_imbalance_ratio{{{JI}}}", "{{group}}")),
                     vmin=0, steps=((1.5, "red"),), threshold_line=True), 12, 8)
    d.add(timeseries("Imbalance events", "Imbalance events per group.",
                     targets(("sum by (group) (increase(fabric_uplink_imbalance_events_total"
                              f"{{{JI}}}[$__rate_interval]))", "{{group}}")),
                     vmin=0, bars=True), 12, 8)
    return d


def port_drilldown():
    d = Dashboard("fabricscope-port", "fabricscope / Port drill-down",
                  "One port at fine resolution: utilization of its rate window (1 s; 10 s on a "
                  "Junos leaf), peak of the fine intervals per window, the fine-utilization "
                  "distribution, microbursts, queues.",
                  ["fabricscope", "port"])
    d.variables.append(query_var("device", "Device",
                                 DEVICE_Q, regex=DEVICE_RE,
                                 multi=False, include_all=False))
    d.variables.append(query_var("port", "Port",
                                 PORT_Q, regex=PORT_RE, multi=True, include_all=True))
    d.variables.append(custom_var("direction", "Direction", ["rx", "tx"]))

    d.row("Utilization")
    d.add(timeseries("Throughput (rate window: 1 s, 10 s on Junos leaves)",
                     "Rate of the port's last completed aligned window, device timestamps: 1 s "
                     "on NICs and Cumulus switches, 10 s on a Junos leaf, whose counters are "
                     "copied every 2 s (its 1 s windows are withheld; docs/METRICS.md). NIC "
                     "ports also (and without ethtool, only) show their RDMA traffic from the "
                     "IB PMA byte counters, rate over the step.",
                     targets((f"fabric_port_bytes_per_second{{{PORT_SEL}}} * 8",
                              "{{port}} {{direction}}"),
                             (f"rate(fabric_nic_ib_port_rx_bytes_total{{{PORT_SEL_NODIR}}}"
                              "[$__rate_interval]) * 8", "{{port}} rx RDMA (IB PMA)"),
                             (f"rate(fabric_nic_ib_port_tx_bytes_total{{{PORT_SEL_NODIR}}}"
                              "[$__rate_interval]) * 8", "{{port}} tx RDMA (IB PMA)")),
                     unit="bps", vmin=0), 12, 8)
    d.add(timeseries("Utilization: rate window, fine p50 / p99",
                     "The utilization of the port's rate window (1 s; 10 s on a Junos leaf) "
                     "next to the median and 99th percentile of the fine intervals of the last "
                     "5 min: a p99 far above the window line means bursts.",
                     targets((f"fabric_port_utilization_ratio{{{PORT_SEL}}}",
                              "{{port}} {{direction}} window"),
                             ("device_port_direction:fabric_port_fine_utilization_ratio:p99_5m"
                              f"{{{PORT_SEL}}}", "{{port}} {{direction}} fine p99"),
                             ("device_port_direction:fabric_port_fine_utilization_ratio:p50_5m"
                              f"{{{PORT_SEL}}}", "{{port}} {{direction}} fine p50")),
                     unit="percentunit", vmin=0, vmax=1), 12, 8)
    d.add(timeseries("Peak fine utilization per window",
                     "Largest fine-interval utilization inside the last completed window of "
                     "each width (1 s, 10 s, 1 m): the same traffic reads far higher at fine "
                     "resolution than in its window average.",
                     targets((f"fabric_port_utilization_peak_ratio{{{PORT_SEL}}}",
                              "{{port}} {{direction}} peak in {{window}}")),
                     unit="percentunit", vmin=0, vmax=1), 12, 8)
    d.add(timeseries("Share of fine intervals above 80 %",
                     "Fraction of fine intervals (5 min) that ran above 80 % of link speed.",
                     targets(("device_port_direction:fabric_port_fine_utilization_above_0_8:"
                              f"ratio_rate5m{{{PORT_SEL}}}", "{{port}} {{direction}}")),
                     unit="percentunit", vmin=0), 12, 8)
    d.add(heatmap("Fine-interval utilization distribution",
                  "How many fine intervals fell into each utilization bucket per time step "
                  "(fabric_port_fine_utilization_ratio histogram, selected ports and "
                  "directions summed).",
                  f"sum by (le) (increase(fabric_port_fine_utilization_ratio_bucket{{{PORT_SEL}}}"
                  "[$__rate_interval]))", "percentunit"), 24, 9)

    d.row("Bursts")
    d.add(timeseries("Microbursts and longer bursts",
                     "Bursts (>= 70 % then < 50 %) per time step: shorter than 1 s "
                     "(microbursts) and longer.",
                     targets(("sum by (port, direction) (increase(fabric_microbursts_total"
                              f"{{{PORT_SEL}}}[$__rate_interval]))",
                              "{{port}} {{direction}} microbursts"),
                             ("sum by (port, direction) (increase(fabric_bursts_total"
                              f"{{{PORT_SEL}}}[$__rate_interval]))",
                              "{{port}} {{direction}} bursts >= 1 s")),
                     vmin=0, bars=True), 12, 8)
    d.add(timeseries("Microburst duration",
                     "Median, p99 and mean duration of the microbursts in each step.",
                     targets(("histogram_quantile(0.5, sum by (direction, le) (rate("
                              f"fabric_microburst_duration_seconds_bucket{{{PORT_SEL}}}"
                              "[$__rate_interval])))", "{{direction}} p50"),
                             ("histogram_quantile(0.99, sum by (direction, le) (rate("
                              f"fabric_microburst_duration_seconds_bucket{{{PORT_SEL}}}"
                              "[$__rate_interval])))", "{{direction}} p99"),
                             ("sum by (direction) (rate(fabric_microburst_duration_seconds_sum"
                              f"{{{PORT_SEL}}}[$__rate_interval])) / sum by (direction) (rate("
                              f"fabric_microburst_duration_seconds_count{{{PORT_SEL}}}"
                              "[$__rate_interval]))", "{{direction}} mean")),
                     unit="s", vmin=0), 12, 8)

    d.row("Queues and drops")
    d.add(timeseries("Queue peak occupancy (highest of the last 15 s)",
                     "Peak buffer occupancy (Junos qmon) or watermark (Cumulus) per queue, the "
                     "highest the device reported in the last 15 s, so a 15 s scrape cannot "
                     "miss a burst (docs/METRICS.md, \"Queue peaks a scrape cannot miss\").",
                     targets((f'fabric_port_queue_peak_max_bytes{{{PORT_SEL_NODIR}, window="15s"}}',
                              "{{port}} queue {{queue}}")),
                     unit="bytes", vmin=0), 12, 8)
    d.add(timeseries("Discards",
                     "Packets discarded by the port per second.",
                     targets((f"rate(fabric_port_rx_discards_total{{{PORT_SEL_NODIR}}}"
                              "[$__rate_interval])", "{{port}} rx"),
                             (f"rate(fabric_port_tx_discards_total{{{PORT_SEL_NODIR}}}"
                              "[$__rate_interval])", "{{port}} tx")),
                     unit="pps", vmin=0), 12, 8)
    return d


def congestion():
    d = Dashboard("fabricscope-congestion", "fabricscope / Congestion: ECN, CNP, PFC, reorder",
                  "Congestion signals side by side: switch ECN marks per queue, NIC CNPs, "
                  "PFC pauses, and packet reordering, with the engine's spike and storm "
                  "detectors.", ["fabricscope", "congestion"])
    d.variables.append(query_var("device", "Device",
                                 DEVICE_Q, regex=DEVICE_RE))
    d.variables.append(query_var("port", "Port",
                                 PORT_Q, regex=PORT_RE))
    sel = PORT_SEL_NODIR

    d.row("ECN")
    d.add(timeseries("Switch ECN marks per queue",
                     "Packets ECN-marked per second by switch queues, rate over the step. Alert "
                     "FabricSwitchQueueEcnMarksHigh: above 100k/s in the busiest rate window of "
                     "every minute for 3 min.",
                     targets((f'rate(fabric_port_ecn_marked_packets_total{{queue!="", {sel}}}'
                              "[$__rate_interval])", "{{device}} {{port}} q{{queue}}")),
                     unit="pps", vmin=0, steps=((100000, "red"),), threshold_line=True), 12, 8)
    d.add(timeseries("NIC: ECN-marked RoCE packets received",
                     "np_ecn_marked_roce_packets: marked packets arriving at the NIC "
                     "(the engine's window rate: 1 s for a NIC polled every second or faster).",
                     targets((f"fabric_nic_ecn_marked_roce_packets_per_second{{{sel}}}",
                              "{{device}} {{port}}")),
                     unit="pps", vmin=0), 12, 8)

    d.row("CNP")
    d.add(timeseries("CNPs sent (notification point)",
                     "np_cnp_sent per second over the step (rate of the raw counter: nothing "
                     "between scrapes is lost, short storms are averaged). Alert "
                     "FabricNicCnpRateHigh: above 10k/s in the busiest window of every minute "
                     "for 3 min.",
                     targets((f"rate(fabric_nic_cnp_sent_total{{{sel}}}[$__rate_interval])",
                              "{{device}} {{port}}")),
                     unit="ops", vmin=0, steps=((10000, "red"),), threshold_line=True), 12, 8)
    d.add(timeseries("CNPs handled (reaction point)",
                     "rp_cnp_handled: CNPs this NIC received and acted on, i.e. it was "
                     "throttled (the engine's window rate: 1 s for a NIC polled every second "
                     "or faster).",
                     targets((f"fabric_nic_cnp_handled_per_second{{{sel}}}",
                              "{{device}} {{port}}")),
                     unit="ops", vmin=0), 12, 8)
    d.add(timeseries("CNP per TB received",
                     "CNPs sent per 10^12 bytes received, per NIC port and fabric-wide "
                     "(5 min). Bytes: the port's rx bytes (ethtool), else its IB PMA rx "
                     "bytes (RoCE traffic, every RDMA port).",
                     targets(("device_port:fabric_nic_cnp_sent_per_rx_terabyte:ratio_rate5m"
                              f"{{{sel}}}", "{{device}} {{port}}"),
                             ("fabric:fabric_nic_cnp_sent_per_rx_terabyte:ratio_rate5m",
                              "fabric")),
                     vmin=0), 12, 8)
    d.add(timeseries("CNP and ECN spikes",
                     "Spikes found by the engine (rate above max(floor, k x baseline)).",
                     targets(("sum by (device, port, signal) (increase(fabric_cnp_spikes_total"
                              f"{{{sel}}}[$__rate_interval]))", "{{device}} {{port}} {{signal}}"),
                             ("sum by (device, port, signal) (increase(fabric_ecn_spikes_total"
                              f"{{{sel}}}[$__rate_interval]))", "{{device}} {{port}} {{signal}}")),
                     vmin=0, bars=True), 12, 8)

    d.row("PFC")
    d.add(timeseries("Paused fraction of time (rx)",
                     "Share of time the port was held by received pause frames: PFC per "
                     "priority, and link-level PAUSE as priority \"link\" (profiles map "
                     "each to its own counter). Alert: 20 % for 3 min.",
                     targets((pause_or_link("fabric_port_pfc_rx_pause_seconds_total",
                                            "fabric_port_rx_pause_seconds_total", sel),
                              "{{device}} {{port}} prio {{priority}}")),
                     unit="percentunit", vmin=0, steps=((0.2, "red"),), threshold_line=True),
          12, 8)
    d.add(timeseries("PFC pause frames",
                     "Pause frames received and sent per second: PFC per priority, and "
                     "link-level PAUSE as priority \"link\" (Junos and Cumulus "
                     "in/out-mac-pause-frames, dot3 pause frames; mlx5 global pause).",
                     targets((pause_or_link("fabric_port_pfc_rx_pause_frames_total",
                                            "fabric_port_rx_pause_frames_total", sel),
                              "{{device}} {{port}} prio {{priority}} rx"),
                             (pause_or_link("fabric_port_pfc_tx_pause_frames_total",
                                            "fabric_port_tx_pause_frames_total", sel),
                              "{{device}} {{port}} prio {{priority}} tx")),
                     unit="ops", vmin=0), 12, 8)
    d.add(timeseries("PFC storms", "Storms found by the engine per priority.",
                     targets(("sum by (device, port, priority) (increase(fabric_pfc_storms_total"
                              f"{{{sel}}}[$__rate_interval]))",
                              "{{device}} {{port}} prio {{priority}}")),
                     vmin=0, bars=True), 12, 8)
    d.add(timeseries("Congestion evidence",
                     "Queue-peak and NIC buffer-threshold evidence events (bursts too short "
                     "for rate sampling), and rx_buffer_passed_thres_phy per second (the "
                     "engine's window rate).",
                     targets(("sum by (device, port, signal) (increase("
                              f"fabric_congestion_evidence_total{{{sel}}}[$__rate_interval]))",
                              "{{device}} {{port}} {{signal}} events"),
                             (f"fabric_nic_rx_buffer_over_threshold_per_second{{{sel}}}",
                              "{{device}} {{port}} over threshold/s")),
                     vmin=0), 12, 8)

    d.row("Reordering")
    d.add(timeseries("Out-of-sequence and sequence-error NAKs",
                     "The engine's window rate (32-bit counters, wraps unwound). Alert "
                     "FabricReorderRateHigh: above 1000/s in the busiest window of every minute "
                     "for 3 min.",
                     targets((f"fabric_nic_out_of_sequence_per_second{{{sel}}}",
                              "{{device}} {{port}} out of sequence"),
                             (f"fabric_nic_packet_seq_errors_per_second{{{sel}}}",
                              "{{device}} {{port}} sequence errors")),
                     unit="ops", vmin=0, steps=((1000, "red"),), threshold_line=True), 12, 8)
    d.add(timeseries("Reorder spikes", "Spikes found by the engine.",
                     targets(("sum by (device, port, signal) (increase("
                              f"fabric_reorder_spikes_total{{{sel}}}[$__rate_interval]))",
                              "{{device}} {{port}} {{signal}}")),
                     vmin=0, bars=True), 12, 8)
    return d


def collector_health():
    d = Dashboard("fabricscope-health", "fabricscope / Collector health",
                  "fabricscope's own metrics: sources, what the rate engine did with each "
                  "sample, jitter, series limits, scrape cost, gNMI streams and Kafka.",
                  ["fabricscope", "collector"])
    d.variables.append(query_var("source", "Source",
                                 f"label_values(fabricscope_up{{{JI}}}, source)"))

    d.row("Collectors")
    d.add(timeseries("Collector targets up", "Prometheus' up per collector target: 1 when the "
                     "last scrape succeeded (alerts FabricscopeCollectorDown, "
                     "FabricscopeNicPollerDown).",
                     targets((f"up{{{JI}}}", "{{job}} {{instance}}")), vmin=0, vmax=1), 12, 7)
    d.add(table("Shards", "Each collector's shard: index of count (0 of 1 when not sharded). "
                "Alert FabricscopeShardMissing when fewer shards are known than count.",
                f"fabricscope_shard_info{{{JI}}}", "reporting", "short",
                columns=("job", "instance", "index", "count")), 6, 7)
    d.add(table("Build", "Running fabricscope version per collector.",
                f"fabricscope_build_info{{{JI}}}", "reporting", "short",
                columns=("job", "instance", "version", "commit")), 6, 7)

    d.row("Sources")
    d.add(timeseries("Source up", "1 while the source is running and healthy.",
                     targets((f'fabricscope_up{{{SRC_SEL}}}', "{{source}} ({{type}})")),
                     vmin=0, vmax=1), 12, 7)
    d.add(stat("Samples per second", "Samples given to the engine by the selected collectors.",
               f"sum(rate(fabricscope_samples_total{{{JI}}}[$__rate_interval]))", unit="ops"),
          12, 7)
    d.add(timeseries("gNMI streams up", "Per stream: subscribed, synced and updating.",
                     targets((f'fabricscope_gnmi_stream_up{{{SRC_SEL}}}',
                              "{{source}} {{stream}}")),
                     vmin=0, vmax=1), 12, 7)
    d.add(timeseries("gNMI updates and reconnects",
                     "Updates per second per stream, and reconnects (resubscriptions).",
                     targets((f'rate(fabricscope_gnmi_updates_total{{{SRC_SEL}}}'
                              "[$__rate_interval])", "{{source}} {{stream}} updates/s"),
                             (f'increase(fabricscope_gnmi_reconnects_total{{{SRC_SEL}}}'
                              "[$__rate_interval])", "{{source}} {{stream}} reconnects")),
                     vmin=0), 12, 7)
    d.add(timeseries("OTLP requests", "OTLP export requests per second by transport and "
                     "result.",
                     targets(('sum by (source, transport, result) (rate('
                              f'fabricscope_otlp_requests_total{{{SRC_SEL}}}'
                              "[$__rate_interval]))", "{{source}} {{transport}} {{result}}")),
                     unit="reqps", vmin=0), 12, 7)

    d.row("Rate engine")
    d.add(timeseries("Sample verdicts",
                     "What the rate engine did with each sample: intervals used, stale "
                     "repeats, duplicates, out-of-order, clock steps, resets, implausible.",
                     targets((f"sum by (verdict) (rate(fabricscope_sample_verdicts_total{{{JI}}}"
                              "[$__rate_interval]))", "{{verdict}}")),
                     unit="ops", vmin=0, stack=True), 12, 8)
    d.add(timeseries("Wraps, gaps, arrival-time samples",
                     "32-bit wraps unwound, intervals longer than max_gap, samples without a "
                     "device timestamp (per second).",
                     targets((f"rate(fabricscope_wraps_total{{{JI}}}[$__rate_interval])",
                              "wraps"),
                             (f"rate(fabricscope_gaps_total{{{JI}}}[$__rate_interval])", "gaps"),
                             (f"rate(fabricscope_arrival_time_samples_total{{{JI}}}"
                              "[$__rate_interval])",
                              "arrival-time samples")),
                     unit="ops", vmin=0), 12, 8)
    d.add(heatmap("Sample interval / nominal (jitter)",
                  "Observed interval between samples divided by the nominal interval: a band "
                  "at 1 is a steady source; spread is timestamp jitter or batching.",
                  f"sum by (le) (increase(fabricscope_sample_interval_ratio_bucket{{{JI}}}"
                  "[$__rate_interval]))", "short"), 12, 8)
    d.add(timeseries("Sample interval ratio p50 / p99",
                     "Median and p99 of observed / nominal sample interval.",
                     targets(("histogram_quantile(0.5, sum by (le) (rate("
                              f"fabricscope_sample_interval_ratio_bucket{{{JI}}}"
                              "[$__rate_interval])))",
                              "p50"),
                             ("histogram_quantile(0.99, sum by (le) (rate("
                              f"fabricscope_sample_interval_ratio_bucket{{{JI}}}"
                              "[$__rate_interval])))",
                              "p99")),
                     vmin=0), 12, 8)

    d.row("Series and scrape")
    d.add(timeseries("Series per source and limit", "Series known and the per-source limit.",
                     targets((f'fabricscope_series{{{SRC_SEL}}}', "{{source}} series"),
                             (f'fabricscope_series_limit{{{SRC_SEL}}}',
                              "{{source}} limit")),
                     vmin=0), 12, 8)
    d.add(timeseries("Series refused",
                     "Series dropped by the limit or rejected as invalid (per second).",
                     targets((f'rate(fabricscope_series_dropped_total{{{SRC_SEL}}}'
                              "[$__rate_interval])", "{{source}} dropped"),
                             (f'rate(fabricscope_series_rejected_total{{{SRC_SEL}}}'
                              "[$__rate_interval])", "{{source}} rejected")),
                     unit="ops", vmin=0), 12, 8)
    d.add(timeseries("Scrape cost", "Render time of the previous scrape.",
                     targets((f"fabricscope_scrape_duration_seconds{{{JI}}}", "render time")),
                     unit="s", vmin=0), 8, 8)
    d.add(timeseries("Scrape size", "Series and bytes of the previous scrape.",
                     targets((f"fabricscope_scrape_series{{{JI}}}", "series"),
                             (f"fabricscope_scrape_bytes{{{JI}}}", "bytes")),
                     vmin=0), 8, 8)
    d.add(timeseries("Detector events", "Events published per kind.",
                     targets((f"sum by (kind) (rate(fabricscope_events_total{{{JI}}}"
                              "[$__rate_interval]))", "{{kind}}")),
                     unit="ops", vmin=0), 8, 8)

    d.row("Kafka")
    d.add(timeseries("Kafka delivery failures", "Failed deliveries per topic per second "
                     "(retried, then spooled).",
                     targets(("sum by (topic) (rate(fabricscope_kafka_delivery_failures_total"
                              f"{{{JI}}}[$__rate_interval]))", "{{topic}}")),
                     unit="ops", vmin=0), 8, 8)
    d.add(timeseries("Kafka producer queue", "Messages waiting in the producer queue.",
                     targets((f"fabricscope_kafka_queue_messages{{{JI}}}", "queued")),
                     vmin=0), 8, 8)
    d.add(timeseries("Kafka spool", "Bytes held in the on-disk spool during broker outages.",
                     targets((f"fabricscope_kafka_spool_bytes{{{JI}}}", "spool")),
                     unit="bytes", vmin=0), 8, 8)
    return d


DASHBOARDS = {
    "fabric-overview.json": overview,
    "port-drilldown.json": port_drilldown,
    "congestion.json": congestion,
    "collector-health.json": collector_health,
}


def main(argv):
    out_dir = argv[1] if len(argv) > 1 else os.path.dirname(os.path.abspath(__file__))
    for name, build in DASHBOARDS.items():
        with open(os.path.join(out_dir, name), "w", encoding="utf-8") as f:
            json.dump(build().to_json(), f, indent=2, sort_keys=True)
            f.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
