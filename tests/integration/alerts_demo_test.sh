#!/bin/sh
# shellcheck disable=SC2016 # single-quoted conditions are expanded by eval
# The shipped alerting rules against the demo's injected faults:
# `fabricscope demo` scraped by Debian's Prometheus 2.42 every second,
# evaluating dashboards/alerts.yml and dashboards/recording.yml every second;
# Prometheus' /api/v1/alerts is polled every second (ctest -L dashboards).
#   alerts_demo_test.sh FABRICSCOPE SOURCE_DIR PYTHON3 [TABLE_OUT]
#
# Expected alerts come from the fault schedule (collector/demo/demo_schedule.c,
# docs/DEMO.md), written out below, never from fabricscope's output: from the
# start a PCIe link at Gen5 x8 (b300-01 ens7f0np0) and b300-04's cables of
# ports 4 and 5 swapped (the eight interfaces of those two cables see a wrong
# peer: two cables, so two FabricCableMismatch alerts, one per cable, each
# naming both ends); then every 30 s (DEMO_CYCLE_NS) an ECN storm on spine1
# swp3 queue 3 at 8 s, a CNP storm on b300-02 ens3f0np0 at 15 s, a 2 s
# line-rate burst on spine1 swp5 at 18.5 s (a `burst`: no rule is written
# for bursts longer than a microburst, so it must raise no alert), a
# reordering burst on b300-03 ens5f1np1 at 20 s, a 300 ms line-rate
# microburst from b300-01 ens2f0np0 (tx) to b300-02 ens2f0np0 (rx) at 23 s
# (FabricMicroburst on both ends), and a 300 ms line-rate microburst on leaf2
# et-0/0/3 at 30 s, which a leaf at Junos cadence (2 s reports) shows only
# as its egress queue 3's peak (FabricQueuePeak).
#
# Asserted:
# 1. every fault has a firing alert of the rule written for it, with the
#    fault's device and port (a cable: its name and both ends' devices),
#    within 60 s of the fault's first injection
#    (times from the demo clock's zero: the last `event=demo_fault` log line,
#    which the demo prints right before it starts its clock and simulators);
# 2. from Prometheus' first evaluation until 95 s after the zero (the
#    microburst's deadline plus 5 s: every fault's first window has passed,
#    the ECN, CNP and reorder storms twice), no alert is firing or pending on
#    a device/port without a fault, and none without a device/port either
#    (the collector's own health alerts, port groups): the demo runs every
#    source healthy and its port groups balanced. ALLOWED below lists what
#    the demo really produces beyond the faults' own alerts, with the reason.
# The table of first firing times (fault | alert | fired after N s) is
# printed, and written to TABLE_OUT when given (docs/ALERTS.md quotes it).
# Everything listens on 127.0.0.1; both processes are stopped by PID; every
# wait is bounded (the whole test takes about 110 s).
set -u
bin=$1
src=$2
py=$3
table_out=${4:-}
# shellcheck source=lib.sh source-path=SCRIPTDIR
. "$(dirname "$0")/lib.sh"
lib_init

command -v prometheus >/dev/null 2>&1 || skip "prometheus (Debian package prometheus)"

# ---- the demo -------------------------------------------------------------------------
# 105 s: the poll below ends at 95 s after the zero; the demo must still be
# running then (a stopping demo would mark its sources down).
TMPDIR="$tmp" XDG_STATE_HOME="$tmp/xdg" "$bin" demo --duration 105 --listen 127.0.0.1:0 \
    >"$tmp/fsc.out" 2>"$tmp/fsc.log" &
fsc_pid=$!
mport=$(wait_for "$tmp/fsc.log" \
    's/.*event=exporter_started exporter=prometheus .* port=\([0-9]*\).*/\1/p' 300) || {
    fail "the demo did not start its exporter"
    cut -c1-300 "$tmp/fsc.log"
    exit 1
}
t0=$(sed -n 's/^ts=\([^ ]*\) .*event=demo_fault .*/\1/p' "$tmp/fsc.log" | tail -n 1)
[ -n "$t0" ] || { fail "no demo_fault line in the log"; exit 1; }

# ---- Prometheus with the shipped rules ------------------------------------------------
prom_port=$(free_ports 1)
cat >"$tmp/prometheus.yml" <<YAML
global:
  scrape_interval: 1s
  evaluation_interval: 1s
rule_files:
  - $src/dashboards/alerts.yml
  - $src/dashboards/recording.yml
scrape_configs:
  - job_name: fabricscope
    static_configs:
      - targets: ["127.0.0.1:$mport"]
YAML
prometheus --config.file="$tmp/prometheus.yml" --storage.tsdb.path="$tmp/tsdb" \
    --web.listen-address="127.0.0.1:$prom_port" >"$tmp/prom.log" 2>&1 &
peer_pid=$!

# ---- poll /api/v1/alerts --------------------------------------------------------------
ok
"$py" - "http://127.0.0.1:$prom_port" "$t0" "$tmp/table.md" >"$tmp/check.out" 2>&1 <<'PY'
import datetime, json, sys, time, urllib.request

base, t0_text, table_path = sys.argv[1], sys.argv[2], sys.argv[3]
t0 = datetime.datetime.strptime(t0_text, "%Y-%m-%dT%H:%M:%S.%fZ").replace(
    tzinfo=datetime.timezone.utc).timestamp()

# The fault schedule (collector/demo/demo_schedule.c): fault, first injection
# (s after the zero), the alert written for it, the (device, port) it must
# carry, extra labels it must carry. The swapped cables: the cables planned
# b300-03 port 4 - b300-04 port 4 and b300-02 port 5 - b300-04 port 5 in
# examples/b300/cables.txt, each the second cable of its node pair (ordered
# by the lower node's port: pair 3-4 has ports 1, 4, 7; pair 2-4 ports 2, 5,
# 8), so cables "3-4:2" and "2-4:2" (docs/CABLING.md, recording.yml group
# fabricscope.cabling). A cable alert carries no device/port: (None, None).
CABLES = [("3-4:2", "b300-03", "b300-04"), ("2-4:2", "b300-02", "b300-04")]
EXPECT = [
    ("PCIe Gen5 x8 (always)", 0, "FabricPcieLinkDegraded", ("b300-01", "ens7f0np0"), {}),
] + [
    ("swapped cables (always)", 0, "FabricCableMismatch", (None, None),
     {"cable": c, "device_a": a, "device_b": b}) for c, a, b in CABLES
] + [
    ("ECN storm spine1 swp3 tc 3 (6 s every 30 s)", 8, "FabricEcnSpike", ("spine1", "swp3"),
     {"queue": "3"}),
    ("CNP storm b300-02 (3 s at 100k/s every 30 s)", 15, "FabricCnpSpike",
     ("b300-02", "ens3f0np0"), {"signal": "cnp_sent"}),
    ("reorder burst b300-03 (2 s at 20k/s every 30 s)", 20, "FabricReorderSpike",
     ("b300-03", "ens5f1np1"), {"signal": "out_of_sequence"}),
    ("microburst b300-01 -> b300-02 (300 ms at 23 s), sender", 23, "FabricMicroburst",
     ("b300-01", "ens2f0np0"), {"direction": "tx"}),
    ("microburst b300-01 -> b300-02 (300 ms at 23 s), receiver", 23, "FabricMicroburst",
     ("b300-02", "ens2f0np0"), {"direction": "rx"}),
    ("microburst leaf2 et-0/0/3 (300 ms at 30 s), queue 3 peak", 30, "FabricQueuePeak",
     ("leaf2", "et-0/0/3"), {"queue": "3"}),
]
DEADLINE = 60          # s after the first injection
END = 30 + DEADLINE + 5  # poll until then (s after the zero)
FAULT_PORTS = {e[3] for e in EXPECT}

# Alerts the demo produces besides those above, with the reason, keyed by
# (alertname, device, port): the rate rules of the same fault on its own
# port. Each storm crosses the rule's absolute level in its 1 s windows
# (CNP 100k/s > 10k/s, ECN 250k/s > 100k/s, reordering 20k/s > 1000/s), so
# the rule is pending from the first storm on; it would fire at ~3 minutes
# (the storms recur every 30 s, so every minute has a second above the
# level), after this poll ends: allowed while pending only. Anything else,
# pending or firing, fails.
# And Prometheus' start: its first rule evaluation can come before its first
# scrape of the demo, when no `up` series exists yet, so the no-collector rule
# is pending for that evaluation (for: 5m: it never fires).
ALLOWED = {
    ("FabricscopeCollectorsAbsent", None, None): "first evaluation before the first scrape",
    ("FabricSwitchQueueEcnMarksHigh", "spine1", "swp3"): "ECN storm crosses 100k/s",
    ("FabricNicCnpRateHigh", "b300-02", "ens3f0np0"): "CNP storm crosses 10k/s",
    ("FabricReorderRateHigh", "b300-03", "ens5f1np1"): "reorder burst crosses 1000/s",
}

def alerts():
    with urllib.request.urlopen(base + "/api/v1/alerts", timeout=5) as r:
        return json.load(r)["data"]["alerts"]

def matches(a, name, dp, extra):
    l = a["labels"]
    return (l.get("alertname") == name and (l.get("device"), l.get("port")) == dp and
            all(l.get(k) == v for k, v in extra.items()))

first = {}     # index of EXPECT -> seconds after the zero when first seen firing
unexpected = {}  # (alertname, device, port, state) -> first seen, labels
errors = 0
polls = 0
while time.time() - t0 < END:
    t = time.time() - t0
    try:
        al = alerts()
        polls += 1
    except (OSError, ValueError, KeyError):
        errors += 1  # Prometheus starting: bounded by END
        time.sleep(1)
        continue
    for a in al:
        l = a["labels"]
        dp = (l.get("device"), l.get("port"))
        hit = False
        for i, (_, _, name, edp, extra) in enumerate(EXPECT):
            if matches(a, name, edp, extra):
                hit = True
                if a["state"] == "firing" and i not in first:
                    first[i] = t
        key = (l.get("alertname"), dp[0], dp[1])
        if not hit and (key not in ALLOWED or a["state"] != "pending"):
            unexpected.setdefault(key + (a["state"],), (round(t, 1), l))
    time.sleep(1)

fails = 0
rows = []
for i, (fault, at, name, dp, extra) in enumerate(EXPECT):
    got = first.get(i)
    after = None if got is None else got - at
    if after is None or after > DEADLINE:
        fails += 1
        print(f"FAIL: {fault}: {name} on {dp[0]} {dp[1]} {extra or ''} "
              + ("never fired" if after is None else f"fired {after:.0f} s after injection")
              + f" (deadline {DEADLINE} s)")
    where = (f"cable {extra['cable']} ({extra['device_a']} - {extra['device_b']})"
             if "cable" in extra else f"{dp[0]} {dp[1]}")
    rows.append((fault, name, where, "never" if after is None else f"{after:.0f} s"))
for key, (t, labels) in sorted(unexpected.items()):
    fails += 1
    print(f"FAIL: unexpected {key[3]} alert {key[0]} on {key[1]} {key[2]} at {t} s: {labels}")
if polls < END - 30:
    fails += 1
    print(f"FAIL: only {polls} successful polls of /api/v1/alerts ({errors} errors)")

# The docs' table, one row per expected alert.
out = ["| fault | alert | where | fired after |", "|---|---|---|---|"]
for r in rows:
    out.append(f"| {r[0]} | {r[1]} | {r[2]} | {r[3]} |")
open(table_path, "w").write("\n".join(out) + "\n")
print("\n".join(out))
print(f"{polls} polls, {len(unexpected)} unexpected alerts")
sys.exit(1 if fails else 0)
PY
rc=$?
cat "$tmp/check.out"
[ "$rc" -eq 0 ] || fail "alerts against the fault schedule (see above)"
[ -n "$table_out" ] && cp "$tmp/table.md" "$table_out"

# The names the rules read that the demo produces (pending_metrics.txt lists
# them because the replay of dashboards.live_metrics does not): present in
# the demo's live /metrics, so a misspelt rule would fail here, not stay
# silent. Written from the demo's sources (B300 nic fixtures, gNMI leaves,
# Cumulus spine), not from its output.
check "GET the demo's /metrics" fetch_metrics "$tmp/demo.metrics"
for n in fabric_cable_mismatch fabric_port_link_up fabric_nic_ib_port_link_downed_total \
    fabric_netdev_rx_crc_errors_total fabric_port_carrier_transitions_total \
    fabric_port_fec_corrected_codewords_total fabric_port_fec_uncorrectable_codewords_total \
    fabric_port_rx_crc_errors_total fabric_port_rx_fcs_errors_total \
    fabric_port_queue_dropped_packets_total \
    fabric_port_rx_pause_frames_total fabric_port_tx_pause_frames_total fabric_pcie_link_degraded \
    fabric_cnp_spikes_total fabric_ecn_spikes_total fabric_reorder_spikes_total \
    fabric_pfc_storms_total fabric_microbursts_total fabric_congestion_evidence_total \
    fabric_uplink_imbalance_events_total fabric_port_info fabric_nic_info fabric_node_info \
    fabric_port_pfc_tx_pause_seconds_per_second fabric_port_rx_pause_frames_per_second \
    fabric_port_tx_pause_frames_per_second; do
    check "$n in the demo's /metrics" grep -q "^$n{" "$tmp/demo.metrics"
done
# (The whole check_dashboards.py --only metrics cannot pass on the demo: it has
# no NIC buffer-threshold counter, no Kafka, and its leaves run Junos OS
# Evolved, which has no qmon-sw tail-drop counter.)

# Prometheus loaded the rules (a rule file it refused would leave no alerts
# and fail above; this names the reason).
check "Prometheus loaded the rule files" eval '! grep -q "err=\"error loading\|Failed to apply configuration" "$tmp/prom.log"'

# ---- every dashboard target against this Prometheus ------------------------------
# While the demo still runs (the poll ended 95 s after the zero, the demo runs
# 105 s): every Grafana variable query and panel target, variables set to
# `.*`, range queries over the last 60 s at a 5 s step (--at fixes the end,
# so a demo stopping meanwhile changes nothing), must return a series;
# scripts/check_dashboards.py step 5. Listed below, each with its reason, the
# targets of parts the demo does not run; a listed target that returns data
# fails too (the list must stay true).
absent_kafka="no Kafka exporter in the demo"
absent_rail="the demo fabric is not rail-optimized (no topology.rails, no rail in fabric_port_info); its leaves send 20-30 % over the spine"
absent_ethtool="mlx5 ethtool counter; the demo NICs' fixture ethtool files hold only the *_phy byte and packet counters"
check "every dashboard target returns data from the demo's Prometheus" \
    "$py" "$src/scripts/check_dashboards.py" --only targets \
    --prometheus-url "http://127.0.0.1:$prom_port" --at "$(date +%s)" --range 60 --step 5 \
    --scrape-interval 1 \
    --absent "collector-health.json/Kafka delivery failures/A=$absent_kafka" \
    --absent "collector-health.json/Kafka producer queue/A=$absent_kafka" \
    --absent "collector-health.json/Kafka spool/A=$absent_kafka" \
    --absent "fabric-overview.json/variable rail=$absent_rail" \
    --absent "fabric-overview.json/Utilization per rail (average and busiest port)/A=$absent_rail" \
    --absent "fabric-overview.json/Utilization per rail (average and busiest port)/B=$absent_rail" \
    --absent "fabric-overview.json/Spine traffic: rail leaf uplinks/A=$absent_rail" \
    --absent "fabric-overview.json/Spine traffic: spine ports/A=$absent_rail" \
    --absent "congestion.json/Congestion evidence/B=$absent_ethtool (rx_buffer_passed_thres_phy)"
# (remote_write has no dashboard panel: its alerts read
# fabricscope_remote_write_* only; nothing to list.)

if [ "$fails" -ne 0 ]; then
    echo "--- prometheus log ---"; tail -20 "$tmp/prom.log"
    echo "--- fabricscope detector events ---"
    grep "event=detect " "$tmp/fsc.log" | grep -v cable_mismatch | cut -c1-200 | head -20
fi
summary
