#!/bin/sh
# `fabricscope report --source prometheus` against the real peer: a running
# collector (synthetic source: 4 ports of leaf1 with microbursts and CNP
# storms) scraped every second by Debian's Prometheus 2.42 for ~25 s; the
# report's JSON must hold, link by link, the numbers Prometheus itself gives
# for the same PromQL at the report's end time (p99 and p50 of fine
# utilization, bytes, max 1 s average, microbursts, CNPs). Then the clear
# errors: Prometheus unreachable, an empty range, no rollup store (exit 1),
# a bad option (exit 2). Everything listens on 127.0.0.1; every wait is
# bounded; processes are stopped by PID.
#   report_prometheus_test.sh FABRICSCOPE_BINARY PYTHON
set -u
bin=$1
py=${2:-python3}
# shellcheck source=lib.sh source-path=SCRIPTDIR
. "$(dirname "$0")/lib.sh"
lib_init

cat >"$tmp/fsc.yaml" <<YAML
state_dir: $tmp/state
sources:
  - name: synth
    type: synthetic
    device: leaf1
    ports: 4
    speed: 400G
    interval: 100ms
    utilization: 0.3
    burst_every: 3s
    burst_length: 100ms
    storm_every: 10s
    seed: 3
exporters:
  prometheus:
    listen: "127.0.0.1:0"
topology:
  devices:
    - name: leaf1
      role: leaf
      ports:
        - {name: swp1, speed: 400G, role: uplink}
        - {name: swp2, speed: 400G, role: uplink}
        - {name: swp3, speed: 400G, role: downlink}
        - {name: swp4, speed: 400G, role: downlink}
YAML

start_fsc "$tmp/fsc.yaml"
wait_exporter || exit 1

prom_port=$(free_ports 1)
cat >"$tmp/prometheus.yml" <<YAML
global:
  scrape_interval: 1s
  evaluation_interval: 1s
scrape_configs:
  - job_name: fabricscope
    static_configs:
      - targets: ["127.0.0.1:$mport"]
YAML
prometheus --config.file="$tmp/prometheus.yml" --storage.tsdb.path="$tmp/tsdb" \
    --web.listen-address="127.0.0.1:$prom_port" >"$tmp/prom.log" 2>&1 &
peer_pid=$!
purl="http://127.0.0.1:$prom_port"

# Prometheus up and scraping: the first sample of a byte counter (40 s max).
up_now() {
    curl -sf --get "$purl/api/v1/query" \
        --data-urlencode 'query=count(fabric_port_tx_bytes_total)' 2>/dev/null |
        grep -q '"value":\[[0-9.]*,"4"\]'
}
check "Prometheus scrapes fabricscope" wait_until 400 up_now
from=$(date +%s)
sleep 25 # the span of data the report covers (what is tested), not synchronisation
to=$(($(date +%s) - 2))

"$bin" report -c "$tmp/fsc.yaml" --prometheus "$purl" --from "$from" --to "$to" \
    --threshold 0.5 --out "$tmp/out" >"$tmp/report.out" 2>"$tmp/report.err"
rc=$?
check_eq "report exit status" "$rc" 0
for f in report.html report.csv report.json; do
    check "$f written" test -s "$tmp/out/$f"
done

# Compare every link of the JSON with Prometheus' own answers at `to`.
"$py" - "$tmp/out/report.json" "$purl" "$from" "$to" >"$tmp/compare.out" 2>&1 <<'PY'
import json, math, sys, urllib.parse, urllib.request
rep = json.load(open(sys.argv[1]))
url, frm, to = sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
rng = "%ds" % (to - frm)
def q(expr):
    u = url + "/api/v1/query?" + urllib.parse.urlencode({"query": expr, "time": to})
    r = json.load(urllib.request.urlopen(u, timeout=30))["data"]["result"]
    return float(r[0]["value"][1]) if len(r) == 1 else None
bad = 0
# Ratios carry 6 significant digits; bytes and counts are printed whole,
# while increase() extrapolates to the range's edges (1.0139 microbursts).
def same(what, got, want, whole=False):
    global bad
    if want is None or (isinstance(want, float) and math.isnan(want)):
        ok = got is None
    else:
        tol = max(1e-5 * abs(want), 0.5 if whole else 1e-12)
        ok = got is not None and abs(got - want) <= tol
    print("%s %s: report %s, prometheus %s" % ("ok  " if ok else "FAIL", what, got, want))
    bad += not ok
links = rep["tables"]["links"]
print("links", len(links))
bad += len(links) != 8
for l in links:
    sel = 'device="%s",port="%s",direction="%s"' % (l["device"], l["port"], l["direction"])
    name = "%s:%s %s" % (l["device"], l["port"], l["direction"])
    hb = "sum by (le) (increase(fabric_port_fine_utilization_ratio_bucket{%s}[%s]))" % (sel, rng)
    # a quantile is capped at the largest fine utilization seen
    cap = q("max(max_over_time(fabric_port_utilization_peak_ratio{%s}[%s]))" % (sel, rng))
    for qq, col in ((0.99, "p99"), (0.5, "p50")):
        want = q("histogram_quantile(%s, %s)" % (qq, hb))
        if want is not None and cap is not None and cap > 0:
            want = min(want, cap)
        same("%s %s" % (name, col), l[col], want)
    same(name + " max_fine", l["max_fine"], cap)
    metric = "fabric_port_%s_bytes_total" % l["direction"]
    same(name + " bytes", l["bytes"],
         q('increase(%s{device="%s",port="%s"}[%s])' % (metric, l["device"], l["port"], rng)),
         True)
    same(name + " max_1s", l["max_1s_avg"],
         q("max_over_time(fabric_port_utilization_ratio{%s}[%s])" % (sel, rng)))
    same(name + " mean", l["mean"],
         q("avg_over_time(fabric_port_utilization_ratio{%s}[%s])" % (sel, rng)))
    role = "uplink" if l["port"] in ("swp1", "swp2") else "downlink"
    if l["role"] != role:
        print("FAIL %s role %s" % (name, l["role"])); bad += 1
for b in rep["tables"]["bursts"]:
    sel = 'device="%s",port="%s",direction="%s"' % (b["device"], b["port"], b["direction"])
    same("%s:%s %s microbursts" % (b["device"], b["port"], b["direction"]), b["microbursts"],
         q("increase(fabric_microbursts_total{%s}[%s])" % (sel, rng)), True)
cong = rep["tables"]["congestion"]
bad += len(cong) != 4
for c in cong:
    same("%s:%s cnp" % (c["device"], c["port"]), c["cnp"],
         q('increase(fabric_nic_cnp_sent_total{device="%s",port="%s"}[%s])'
           % (c["device"], c["port"], rng)), True)
# the synthetic bursts run at line rate: some link saw a fine interval near 1.0
top = max(l["max_fine"] or 0 for l in links)
print("%s max fine %s" % ("ok  " if top >= 0.95 else "FAIL", top)); bad += top < 0.95
over = rep["tables"]["oversubscription"]
if len(over) != 1 or over[0]["oversubscription"] != 1:
    print("FAIL oversubscription", over); bad += 1
print("compare: %d failed" % bad)
sys.exit(1 if bad else 0)
PY
crc=$?
check_eq "report numbers match Prometheus" "$crc" 0
check "summary in report.html" grep -q '<ul class="summary" id="summary">' "$tmp/out/report.html"

# Clear errors.
dead=$(free_ports 1)
"$bin" report --prometheus "http://127.0.0.1:$dead" --out "$tmp/e1" 2>"$tmp/e1.err"
check_eq "unreachable Prometheus: exit 1" "$?" 1
check "unreachable Prometheus: says so" grep -q "cannot reach Prometheus at http://127.0.0.1:$dead" "$tmp/e1.err"
"$bin" report --prometheus "$purl" --from $((from - 7200)) --to $((from - 3600)) \
    --out "$tmp/e2" 2>"$tmp/e2.err"
check_eq "empty range: exit 1" "$?" 1
check "empty range: says so" grep -q "has no fabric_port_\* series between" "$tmp/e2.err"
"$bin" report --state-dir "$tmp/nostate" --out "$tmp/e3" 2>"$tmp/e3.err"
check_eq "no store: exit 1" "$?" 1
check "no store: says so" grep -q "no rollup store at $tmp/nostate/rollup" "$tmp/e3.err"
"$bin" report --threshold 2 2>/dev/null
check_eq "bad threshold: exit 2" "$?" 2

if [ "$fails" -ne 0 ]; then
    echo "--- compare ---"; cat "$tmp/compare.out"
    echo "--- report stderr ---"; cat "$tmp/report.err"
    echo "--- fabricscope log ---"; cut -c1-300 "$tmp/fsc.log" | tail -20
    echo "--- prometheus log ---"; tail -20 "$tmp/prom.log"
fi
summary
