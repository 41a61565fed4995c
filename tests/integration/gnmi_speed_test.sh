#!/bin/sh
# Link speed learned from the device, no speed in the config: the
# independent grpc-js target (tests/interop/gnmi_js/target.js
# --junos-cadence --speed-leaves) reports 6 ports as a Junos QFX5240 at 2 s,
# and after each port's counters its speed leaves: port-speed (bare and
# module-prefixed identities), high-speed in Mb/s, negotiated-port-speed;
# port 5 says SPEED_UNKNOWN everywhere. The config has no topology at all.
# - every port but 5 has fabric_port_utilization_ratio, rx and tx, within 1 %
#   of the target's formula written out here: rate (p+1) x 1e9 B/s rx, half
#   of it tx, x 8 / speed, the speed by the target's table and our
#   precedence (negotiated > high-speed > port-speed): p mod 4 = 0, 1:
#   400 Gb/s; 2: 100 Gb/s (high-speed); 3: 200 Gb/s (negotiated);
# - port 5 has byte rates and no utilization, and is listed: the status
#   page's and /api/status' port_speed_unknown table (source leaf1, device
#   leaf1, port et-0/0/5, 2 byte series) and
#   fabricscope_ports_without_speed{source="leaf1",device="leaf1"} 1;
# - no speed leaf became a series, no decode error; the daemon stops cleanly.
# node_modules must exist (scripts/setup.sh runs `npm ci` there). Everything
# on 127.0.0.1; every process stopped by PID; every wait bounded. ~30-40 s.
#   gnmi_speed_test.sh FABRICSCOPE SOURCE_DIR [NODE]
set -u
bin=$1
src=$2
node=${3:-node}
here=$(dirname "$0")
js="$src/tests/interop/gnmi_js"
ports=6

# shellcheck source=lib.sh source-path=SCRIPTDIR
. "$here/lib.sh"
lib_init
need_gnmi_js "$node" "$js"

start_sim "$node" "$js/target.js" --listen 127.0.0.1:0 --proto-dir "$src/proto" \
    --junos-cadence --ports "$ports" --batch-ports "$ports" --jitter-ms 1 \
    --speed-leaves --speed-unknown-port 5 || exit 1

cat >"$tmp/fsc.yaml" <<YAML
sources:
  - name: leaf1
    type: gnmi
    address: "127.0.0.1:$sim_port"
    sample_interval: 2s
    streams:
      - name: interfaces
        paths: [/interfaces/interface/state, /interfaces/interface/ethernet/state]
exporters:
  prometheus:
    listen: "127.0.0.1:0"
engine:
  windows: [1s, 10s]
YAML

start_fsc "$tmp/fsc.yaml"
wait_exporter || exit 1

# The speed of port p by the target's table (its header) and our precedence.
speed_of() {
    case $(($1 % 4)) in
    2) echo 100000000000 ;;
    3) echo 200000000000 ;;
    *) echo 400000000000 ;;
    esac
}

# Every port's utilization but port 5's, and port 5's byte rate (bounded,
# 90 s; about 25 s when all goes well: 10 s windows over 2 s reports).
all_util() {
    n=$(grep -c '^fabric_port_utilization_ratio{.*device="leaf1"' "$tmp/metrics" 2>/dev/null)
    [ "${n:-0}" -ge $(((ports - 1) * 2)) ] &&
        grep -q '^fabric_port_bytes_per_second{.*port="et-0/0/5"' "$tmp/metrics"
}
poll_metrics 900 all_util || fail "not every port's utilization on /metrics in 90 s"

i=0
while [ "$i" -lt $((ports - 1)) ]; do
    sp=$(speed_of "$i")
    for dir in rx tx; do
        rate=$(((i + 1) * 1000000000))
        [ "$dir" = tx ] && rate=$((rate / 2))
        want=$(awk -v r="$rate" -v s="$sp" 'BEGIN { printf "%.9g", r * 8 / s }')
        got=$(series_value fabric_port_utilization_ratio device=leaf1 port="et-0/0/$i" \
            direction="$dir")
        num_near "$dir utilization of et-0/0/$i at $sp b/s" "$got" "$want" 0.01
    done
    i=$((i + 1))
done
check_eq "no utilization for et-0/0/5 (no speed)" \
    "$(grep -c '^fabric_port_utilization_ratio{.*port="et-0/0/5"' "$tmp/metrics")" 0
num_near "et-0/0/5 rx bytes per second" \
    "$(series_value fabric_port_bytes_per_second device=leaf1 port=et-0/0/5 direction=rx)" \
    6000000000 0.01
check_eq "fabricscope_ports_without_speed" \
    "$(series_value fabricscope_ports_without_speed source=leaf1 device=leaf1)" 1
for what in ports series; do
    check_eq "nothing past the link-speed table's bounds ($what)" \
        "$(series_value fabricscope_link_speed_untracked_total source=leaf1 what=$what)" 0
done
check_eq "no speed leaf is a series" \
    "$(grep -Ec '^fabric_junos_.*(speed|high_speed)' "$tmp/metrics")" 0
st='source="leaf1",stream="interfaces"'
check_eq "no decode error" "$(value "fabricscope_gnmi_decode_errors_total\\{$st\\}")" 0

# /api/status: the table the daemon declares, with its one row.
curl -sf --max-time 10 "http://127.0.0.1:$mport/api/status" >"$tmp/status.json"
check_eq "GET /api/status" "$?" 0
python3 - "$tmp/status.json" >"$tmp/rows.out" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
for t in doc["tables"]:
    if t["id"] in ("port_speed_unknown", "ports_without_speed"):
        for r in t["rows"]:
            print(t["id"], " ".join("%s=%s" % (k, r[k]) for k in t["keys"] + [c["id"] for c in t["columns"]]))
PY
check_eq "/api/status port_speed_unknown and ports_without_speed rows" "$(sort "$tmp/rows.out")" \
    "port_speed_unknown source=leaf1 device=leaf1 port=et-0/0/5 byte_series=2
ports_without_speed source=leaf1 device=leaf1 ports=1"

# The status page lists the port in the same table.
curl -sf --max-time 10 "http://127.0.0.1:$mport/" >"$tmp/page.html"
check "the status page lists et-0/0/5 as without a speed" grep -q \
    'data-source="leaf1" data-device="leaf1" data-port="et-0/0/5"' "$tmp/page.html"
check "the status page has the table" grep -q 'data-table="port_speed_unknown"' "$tmp/page.html"

# A clean stop: every source's link-speed table freed after its source
# (the sanitizer build's leak check runs at this exit).
stop_pid "$fsc_pid" 100
fsc_pid=""
check_eq "the daemon exits 0 on SIGTERM" "$stop_rc" 0

if [ "$fails" -ne 0 ]; then
    echo "--- fabricscope log ---"; grep -v "event=library" "$tmp/fsc.log" | cut -c1-300 | tail -20
    echo "--- target stdout/stderr ---"; head -8 "$tmp/sim.out"; tail -10 "$tmp/sim.err"
    echo "--- /metrics ---"
    grep -E 'utilization_ratio\{|bytes_per_second\{|without_speed' "$tmp/metrics" | head -40
fi
summary
