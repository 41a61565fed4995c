#!/bin/sh
# The real peer: Debian's Prometheus 2.42 scrapes a running fabricscope every
# second; fabricscope is fed known samples by a replay source (instant mode);
# the test queries Prometheus' HTTP API and asserts exact values of a raw
# counter, a derived rate, a microburst counter, a histogram bucket and a
# detector-signal rate. Also lints the live /metrics with promtool (text) and
# parses its OpenMetrics form with the strict prometheus_client parser. Everything listens on 127.0.0.1 only; both
# processes are stopped by PID; every wait is bounded.
#   prometheus_test.sh FABRICSCOPE_BINARY
set -u
bin=$1
# shellcheck source=lib.sh source-path=SCRIPTDIR
. "$(dirname "$0")/lib.sh"
lib_init

# Known samples: a 400G port at 25 % (1.25e9 bytes per 100 ms) with one 100 ms
# line-rate burst (5e9 bytes) at 1.5 s; a NIC sending 100 CNPs per 100 ms.
python3 - "$tmp/known.replay" <<'PY'
import sys
out = open(sys.argv[1], "w")
tx = 0
for k in range(31):
    t = k * 100
    if k > 0:
        tx += 5000000000 if k == 16 else 1250000000
    out.write(f'{t} fabric_port_tx_bytes_total{{device="leaf1",port="et-0/0/1"}} {tx}\n')
    out.write(f'{t} fabric_nic_cnp_sent_total{{device="b300-1",port="ens1f0np0"}} {k * 100}\n')
PY

cat >"$tmp/fsc.yaml" <<'YAML'
sources:
  - name: known
    type: replay
    file: known.replay
    mode: instant
exporters:
  prometheus:
    listen: "127.0.0.1:0"
engine:
  windows: [100ms, 1s, 10s]
YAML

start_fsc "$tmp/fsc.yaml"
wait_exporter || exit 1

# promtool lint of the live exposition, both formats.
for fmt in text openmetrics; do
    if [ $fmt = openmetrics ]; then
        accept="application/openmetrics-text; version=1.0.0"
    else
        accept="text/plain"
    fi
    check "GET /metrics ($fmt)" fetch_metrics "$tmp/metrics.$fmt" "$accept"
    promtool check metrics <"$tmp/metrics.$fmt" >"$tmp/lint.$fmt" 2>&1
    # promtool 2.42 reads text 0.0.4 only: on OpenMetrics its one complaint is
    # "<family>_total no help text" (OM puts HELP on the family without
    # _total). Anything else is a real problem; OM itself is checked below.
    if [ $fmt = openmetrics ]; then
        grep -v '_total no help text$' "$tmp/lint.$fmt" >"$tmp/lint.rest" || true
    else
        cp "$tmp/lint.$fmt" "$tmp/lint.rest"
    fi
    [ -s "$tmp/lint.rest" ] && fail "promtool check metrics ($fmt): $(head -c 600 "$tmp/lint.rest")"
done
ok
/usr/bin/python3 - "$tmp/metrics.openmetrics" >"$tmp/om.err" 2>&1 <<'PY' || fail "strict OpenMetrics parser: $(tail -c 600 "$tmp/om.err")"
import sys
from prometheus_client.openmetrics.parser import text_string_to_metric_families
families = list(text_string_to_metric_families(open(sys.argv[1]).read()))
assert len(families) > 20, len(families)
PY

# A free port for Prometheus' own web listener.
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

# query EXPR: prints the single value of an instant query, or nothing.
query() {
    curl -sf --get "http://127.0.0.1:$prom_port/api/v1/query" --data-urlencode "query=$1" |
        python3 -c 'import json,sys
r = json.load(sys.stdin)["data"]["result"]
print(r[0]["value"][1] if len(r) == 1 else "")' 2>/dev/null
}
# expect EXPR VALUE: waits (bounded, 40 s) until Prometheus answers, then compares.
expect() {
    got=""
    j=0
    while [ $j -lt 80 ]; do
        got=$(query "$1")
        [ -n "$got" ] && break
        sleep 0.5
        j=$((j + 1))
    done
    check_eq "$1" "$got" "$2"
}

sel='device="leaf1",port="et-0/0/1"'
expect "up{job=\"fabricscope\"}" 1
expect "fabric_port_tx_bytes_total{$sel}" 41250000000
expect "fabric_port_bytes_per_second{$sel,direction=\"tx\"}" 12500000000
expect "fabric_microbursts_total{$sel,direction=\"tx\"}" 1
expect "fabric_port_fine_utilization_ratio_bucket{$sel,direction=\"tx\",le=\"0.3\"}" 29
expect "fabric_port_fine_utilization_ratio_count{$sel,direction=\"tx\"}" 30
expect "fabric_nic_cnp_sent_per_second{device=\"b300-1\"}" 1000
expect "fabricscope_samples_total" 62

if [ "$fails" -ne 0 ]; then
    echo "--- fabricscope log ---"; cut -c1-300 "$tmp/fsc.log" | tail -20
    echo "--- prometheus log ---"; tail -20 "$tmp/prom.log"
    echo "--- /metrics (text) ---"; grep -v '^#' "$tmp/metrics.text" | head -60
fi
summary
