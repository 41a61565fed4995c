#!/bin/sh
# `fabricscope report --compare` from a Prometheus server (Debian's
# Prometheus 2.42): two 10-minute ranges of known history written into a
# fresh TSDB with `promtool tsdb create-blocks-from openmetrics`, samples
# every 15 s, 7.5 s off the minute (so each minute's window holds the same
# four samples), the settings switching at the ranges' border:
#   NIC CNPs sent: 100/s per port in A, 50/s in B (hostA/hostB mlx5_0 on rail
#   0, hostA mlx5_1 on rail 1); NIC transmit 1e9 B/s in both; leaf1's two
#   uplinks 3e9 + 1e9 B/s in A, 2e9 + 2e9 in B; hostA mlx5_0 one microburst a
#   minute in A, none in B; leaf1 et-0/0/30 PFC pause 10 ms/s in A, 20 in B;
#   the group leaf1-uplinks' imbalance ratio 1.5 in A, 1.0 in B.
# Expected per minute, from those: CNP/s rail 0 200 -> 100 (better), rail 1
# 100 -> 50; throughput rail 0 1.6e10, rail 1 8e9 (same); uplink max/mean
# 1.5 -> 1 and CV 0.5 -> 0 (better); microbursts/h rail 0 60 -> 0 (better);
# PFC leaf1 10 -> 20 ms/s (worse); group 1.5 -> 1 (better). 10 minutes each.
# Then: Prometheus gone (exit 1, its address named). Everything on
# 127.0.0.1; Prometheus stopped by PID.
#   report_compare_prometheus_test.sh FABRICSCOPE_BINARY PYTHON
set -u
bin=$1
py=${2:-python3}
# shellcheck source=lib.sh source-path=SCRIPTDIR
. "$(dirname "$0")/lib.sh"
lib_init
command -v prometheus >/dev/null 2>&1 || skip "prometheus"
command -v promtool >/dev/null 2>&1 || skip "promtool"

# Four hours back, on the hour: in a block Prometheus loads at start.
t0=$((($(date +%s) / 3600 - 4) * 3600))
"$py" - "$t0" >"$tmp/history.om" <<'PY'
import sys
t0 = int(sys.argv[1])
switch = t0 + 600
times = [t0 - 120 + 7.5 + 15 * k for k in range((1200 + 240) // 15)]
def counter(rate_a, rate_b, base=1e6):
    def v(t):
        if t <= switch:
            return base + rate_a * (t - times[0])
        return base + rate_a * (switch - times[0]) + rate_b * (t - switch)
    return v
def gauge(a, b):
    return lambda t: a if t <= switch else b
nics = [("hostA", "mlx5_0", "0"), ("hostB", "mlx5_0", "0"), ("hostA", "mlx5_1", "1")]
ups = [("leaf1", "et-0/0/30", 3e9, 2e9), ("leaf1", "et-0/0/31", 1e9, 2e9)]
fams = []
info = [('device="%s",port="%s",role="nic",rail="%s"' % n, gauge(1, 1)) for n in nics]
info += [('device="%s",port="%s",role="uplink"' % (d, p), gauge(1, 1)) for d, p, _, _ in ups]
fams.append(("fabric_port_info", "gauge", "", info))
fams.append(("fabric_nic_cnp_sent", "counter", "_total",
             [('device="%s",port="%s"' % (d, p), counter(100, 50)) for d, p, _ in nics]))
tx = [('device="%s",port="%s"' % (d, p), counter(1e9, 1e9, 1e12)) for d, p, _ in nics]
tx += [('device="%s",port="%s"' % (d, p), counter(a, b, 1e12)) for d, p, a, b in ups]
fams.append(("fabric_port_tx_bytes", "counter", "_total", tx))
fams.append(("fabric_microbursts", "counter", "_total",
             [('device="hostA",port="mlx5_0",direction="tx"', counter(1 / 60, 0))]))
fams.append(("fabric_port_pfc_rx_pause_seconds", "counter", "_total",
             [('device="leaf1",port="et-0/0/30"', counter(0.01, 0.02))]))
fams.append(("fabric_uplink_imbalance_ratio", "gauge", "",
             [('group="leaf1-uplinks"', gauge(1.5, 1.0))]))
for name, typ, suffix, series in fams:
    print("# TYPE %s %s" % (name, typ))
    for labels, fn in series:
        for t in times:
            print("%s%s{%s} %r %s" % (name, suffix, labels, float(fn(t)), t))
print("# EOF")
PY
check "history written" test -s "$tmp/history.om"
promtool tsdb create-blocks-from openmetrics "$tmp/history.om" "$tmp/tsdb" >"$tmp/promtool.out" 2>&1
check "promtool made the blocks ($(tail -n 1 "$tmp/promtool.out"))" test -d "$tmp/tsdb"

prom_port=$(free_ports 1)
printf 'global:\n  scrape_interval: 15s\n' >"$tmp/prometheus.yml"
prometheus --config.file="$tmp/prometheus.yml" --storage.tsdb.path="$tmp/tsdb" \
    --web.listen-address="127.0.0.1:$prom_port" >"$tmp/prom.log" 2>&1 &
peer_pid=$!
purl="http://127.0.0.1:$prom_port"
history_up() {
    curl -sf --get "$purl/api/v1/query" --data-urlencode 'query=count(fabric_port_info)' \
        --data-urlencode "time=$((t0 + 600))" 2>/dev/null | grep -q '"value":\[[0-9.]*,"5"\]'
}
check "Prometheus serves the history" wait_until 300 history_up

a="A=$t0..$((t0 + 600))"
b="B=$((t0 + 600))..$((t0 + 1200))"
"$bin" report --compare "$a" --compare "$b" --prometheus "$purl" --format json \
    >"$tmp/compare.json" 2>"$tmp/compare.err"
rc=$?
check_eq "report --compare --prometheus exit status ($(head -c 300 "$tmp/compare.err"))" "$rc" 0
"$py" - "$tmp/compare.json" >"$tmp/check.out" 2>&1 <<'PY'
import json, sys
c = json.load(open(sys.argv[1]))
bad = 0
def ok(what, cond):
    global bad
    print(("ok   " if cond else "FAIL ") + what)
    bad += not cond
ok("source prometheus", c["source"] == "prometheus")
rows = {(r["metric"], r["entity"]): r for r in c["rows"]}
want = {
    ("cnp_per_s", "rail 0"): (200, 100, "better"),
    ("cnp_per_s", "rail 1"): (100, 50, "better"),
    ("throughput_bps", "rail 0"): (1.6e10, 1.6e10, "same within noise"),
    ("throughput_bps", "rail 1"): (8e9, 8e9, "same within noise"),
    ("uplink_max_over_mean", "leaf1"): (1.5, 1.0, "better"),
    ("uplink_cv", "leaf1"): (0.5, 0.0, "better"),
    ("microbursts_per_hour", "rail 0"): (60, 0, "better"),
    ("pfc_pause_ms_per_s", "leaf1"): (10, 20, "worse"),
    ("group_max_over_mean", "leaf1-uplinks"): (1.5, 1.0, "better"),
}
ok("rows %s" % sorted(rows), set(rows) == set(want))
for key, (va, vb, verdict) in want.items():
    r = rows.get(key)
    if not r:
        ok("%s %s present" % key, False)
        continue
    st = {s["range"]: s for s in r["stats"]}
    for rng, v in (("A", va), ("B", vb)):
        s = st[rng]
        close = all(abs(s[k] - v) <= 1e-5 * max(1, abs(v)) for k in ("p50", "p99", "max", "mean"))
        ok("%s %s %s: %s minutes, p50 %s p99 %s max %s (want %s, 10 minutes)"
           % (key[0], key[1], rng, s["minutes"], s["p50"], s["p99"], s["max"], v),
           close and s["minutes"] == 10)
    v = r["verdicts"][0]
    ok("%s %s: B vs A %s (want %s, p=%s)" % (key[0], key[1], v["verdict"], verdict, v["p"]),
       v["verdict"] == verdict)
sys.exit(1 if bad else 0)
PY
rc=$?
cat "$tmp/check.out"
check_eq "the comparison's figures and verdicts" "$rc" 0

"$bin" report --compare "$a" --compare "$b" --prometheus "$purl" --out "$tmp/out" \
    --format html >"$tmp/html.out" 2>&1
check "HTML written from Prometheus" grep -q 'source prometheus' "$tmp/out/compare.html"

stop_pid "$peer_pid"
peer_pid=""
"$bin" report --compare "$a" --compare "$b" --prometheus "$purl" >"$tmp/gone.out" 2>"$tmp/gone.err"
rc=$?
check_eq "Prometheus gone: exit 1" "$rc" 1
check "the error names Prometheus' address ($(head -c 200 "$tmp/gone.err"))" \
    grep -q "cannot reach Prometheus at $purl" "$tmp/gone.err"
summary
