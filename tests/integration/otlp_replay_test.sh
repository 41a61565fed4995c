#!/bin/sh
# A Cumulus-shaped OTLP/JSON replay (tests/interop/otlp_js/replay.js, hand-built
# requests with explicit timestamps) into the real daemon, one request per
# 1 s tick with +-50 ms jitter, scraped after every tick:
#   - aligned 1 s window rates are exact despite the jitter (every sample lies
#     on a line through time, so interpolation at the edges gives the slope):
#     rx 2.5e9 B/s, tx 1.25e9 B/s, ECN marks 4000/s on queues 3 and 4;
#   - the counter reset at tick 10 makes no spike: no scraped rate is ever
#     above the scripted one. Three resets of three kinds: if_in_octets (gauge
#     double) drops to 1000; ECN queue 3 (cumulative Sum) drops AND changes
#     startTimeUnixNano; ECN queue 4 changes ONLY startTimeUnixNano while its
#     value jumps up by 1e6 (a missed reset would read 1e6 marks/s);
#     fabricscope_sample_verdicts_total{verdict="reset"} is exactly 3;
#   - the fine-interval utilization histogram of swp1 (400G) holds only the
#     scripted 5 % (rx) / 2.5 % (tx): every observation in le="0.1", 18 rx
#     intervals (19 minus the one dropped at the reset) and 19 tx ones;
#   - raw counters after the last tick and the delta histogram's running
#     totals (replay.js header: the values are written out here
#     independently).
# Ticks sit at x.5 s +- 50 ms, so after tick i the last completed window is
# [s_i - 1 s, s_i) with s_i the whole second before tick i: fully covered for
# i >= 2 except right after the reset (i = 10: the window holds the dropped
# interval; i = 11: the new baseline covers less than half of it). There the
# rate may be absent or partial, but never above the scripted rate.
# T0 is 60 s in the past: the replay needs no wall-clock pacing.
# node_modules must exist (scripts/setup.sh); nothing is installed here.
#   otlp_replay_test.sh FABRICSCOPE SOURCE_DIR [NODE]
set -u
bin=$1
src=$2
node=${3:-node}
js="$src/tests/interop/otlp_js"

if ! command -v "$node" >/dev/null 2>&1; then
    echo "FAIL: node ($node) not found: run scripts/setup.sh"
    exit 1
fi
if [ ! -d "$js/node_modules/@grpc/grpc-js" ] || [ ! -d "$js/node_modules/@opentelemetry/sdk-metrics" ]; then
    echo "FAIL: $js/node_modules is missing or incomplete: run scripts/setup.sh" \
        "(it runs npm ci --prefix tests/interop/otlp_js)"
    exit 1
fi

# shellcheck source=lib.sh source-path=SCRIPTDIR
. "$(dirname "$0")/lib.sh"
lib_init

cat >"$tmp/fsc.yaml" <<'YAML'
sources:
  - {name: cumulus, type: otlp, grpc_listen: "", http_listen: "127.0.0.1:0"}
exporters:
  prometheus:
    listen: "127.0.0.1:0"
engine:
  windows: [1s]
topology:
  devices:
    - name: rp1
      role: spine
      ports:
        - {name: swp1, speed: 400G, role: downlink}
YAML
start_fsc "$tmp/fsc.yaml"
wait_exporter || exit 1
hport=$(wait_log_port 'otlp_listening .*transport=http( |$)') || {
    fail "no otlp_listening transport=http line"
    cut -c1-300 "$tmp/fsc.log"
    exit 1
}

t0=$((($(date +%s) - 60) * 1000 + 500))
dv=device=rp1
pv=port=swp1
i=0
while [ "$i" -lt 20 ]; do
    timeout 30 "$node" "$js/replay.js" --endpoint "http://127.0.0.1:$hport/v1/metrics" \
        --t0-ms "$t0" --host-name rp1 --from "$i" --to "$i" >>"$tmp/replay.out" 2>>"$tmp/replay.err"
    rc=$?
    [ "$rc" -eq 0 ] || fail "tick $i: replay.js exit status $rc"
    fetch_metrics || fail "tick $i: GET /metrics"
    # One line per tick: i rx tx ecn3 ecn4 ("-" when absent).
    echo "$i $(series_value fabric_port_bytes_per_second "$dv" "$pv" direction=rx) \
$(series_value fabric_port_bytes_per_second "$dv" "$pv" direction=tx) \
$(series_value fabric_port_ecn_marked_packets_per_second "$dv" "$pv" queue=3) \
$(series_value fabric_port_ecn_marked_packets_per_second "$dv" "$pv" queue=4)" |
        awk '{ for (k = NF + 1; k <= 5; k++) $k = "-"; print }' >>"$tmp/rates"
    i=$((i + 1))
done
check_eq "requests accepted" "$(grep -c '^post tick=[0-9]* status=200 ' "$tmp/replay.out")" 20

# rate_check COLUMN NAME RATE RESETS: every scraped rate of the column is at
# most RATE (relative 1e-6: the engine's 32-bit float); those of fully
# covered windows (tick >= 2, and not 10 or 11 when RESETS=yes) equal it.
rate_check() {
    _col=$1
    _what=$2
    _rate=$3
    _rs=$4
    while read -r _line; do
        # shellcheck disable=SC2086 # split the line into its fields
        set -- $_line
        _i=$1
        shift $((_col - 1))
        _v=$1
        if [ "$_v" = "-" ]; then
            if [ "$_i" -ge 2 ] && { [ "$_rs" = no ] || { [ "$_i" -ne 10 ] && [ "$_i" -ne 11 ]; }; }; then
                checks=$((checks + 1))
                fail "$_what after tick $_i: no rate"
            fi
            continue
        fi
        num_le "$_what after tick $_i (no spike)" "$_v" "$(awk -v r="$_rate" 'BEGIN { printf "%.17g", r * (1 + 1e-6) }')"
        if [ "$_i" -ge 2 ] && { [ "$_rs" = no ] || { [ "$_i" -ne 10 ] && [ "$_i" -ne 11 ]; }; }; then
            num_near "$_what after tick $_i (exact window rate)" "$_v" "$_rate" 1e-6
        fi
    done <"$tmp/rates"
}
rate_check 2 "rx rate" 2.5e9 yes
rate_check 3 "tx rate" 1.25e9 no
rate_check 4 "ecn queue 3 rate" 4000 yes
rate_check 5 "ecn queue 4 rate" 4000 yes

# The raw counters after tick 19.
num_eq "rx bytes (gauge double, reset to 1000 at tick 10)" \
    "$(series_value fabric_port_rx_bytes_total "$dv" "$pv")" 22354376000
num_eq "tx bytes" "$(series_value fabric_port_tx_bytes_total "$dv" "$pv")" 7023733750000
num_eq "ecn marks queue 3 (Sum, asInt string)" \
    "$(series_value fabric_port_ecn_marked_packets_total "$dv" "$pv" queue=3)" 36767
num_eq "ecn marks queue 4 (Sum, asInt number)" \
    "$(series_value fabric_port_ecn_marked_packets_total "$dv" "$pv" queue=4)" 3035767

# Resets: three series, one reset sample each (the delta histogram never
# resets).
num_eq "reset verdicts" "$(series_value fabricscope_sample_verdicts_total verdict=reset)" 3

# Fine intervals: every one at the scripted utilization (<= 0.1).
fu=fabric_port_fine_utilization_ratio
num_eq "rx fine intervals" "$(series_value ${fu}_count "$dv" "$pv" direction=rx)" 18
num_eq "rx fine intervals at <= 10 %" "$(series_value ${fu}_bucket "$dv" "$pv" direction=rx le=0.1)" 18
num_eq "tx fine intervals" "$(series_value ${fu}_count "$dv" "$pv" direction=tx)" 19
num_eq "tx fine intervals at <= 10 %" "$(series_value ${fu}_bucket "$dv" "$pv" direction=tx le=0.1)" 19
num_eq "no ECN spike event (queue 3)" "$(series_value fabric_ecn_spikes_total "$dv" "$pv" queue=3)" 0
num_eq "no ECN spike event (queue 4)" "$(series_value fabric_ecn_spikes_total "$dv" "$pv" queue=4)" 0

# The DELTA histogram's running totals over 20 ticks.
hist=fabric_cumulus_nvswitch_interface_egress_buffer
check "histogram family typed histogram" grep -qx "# TYPE $hist histogram" "$tmp/metrics"
for b in 960:10 1920:30 3840:30 7680:70 15360:77 30720:77 61440:77 122880:81 245760:81 +Inf:101; do
    num_eq "histogram le=${b%%:*}" "$(series_value "${hist}_bucket" "$dv" "$pv" queue=0 "le=${b%%:*}")" "${b#*:}"
done
num_eq "histogram count" "$(series_value "${hist}_count" "$dv" "$pv" queue=0)" 101
num_eq "histogram sum" "$(series_value "${hist}_sum" "$dv" "$pv" queue=0)" 190010

ok
if stop_pid "$fsc_pid" 100; then
    [ "$stop_rc" -eq 0 ] || fail "fabricscope exit status $stop_rc after SIGTERM"
else
    fail "fabricscope still running 10 s after SIGTERM"
fi
fsc_pid=""
check_eq "sanitizer reports in the fabricscope log" \
    "$(grep -Ec 'ERROR: (AddressSanitizer|LeakSanitizer)|runtime error:' "$tmp/fsc.log")" 0

if [ "$fails" -ne 0 ]; then
    echo "--- fabricscope log ---"
    grep -v "event=library" "$tmp/fsc.log" | cut -c1-400 | tail -30
    echo "--- replay ---"
    tail -3 "$tmp/replay.out"
    tail -5 "$tmp/replay.err"
    echo "--- rates per tick: i rx tx ecn3 ecn4 ---"
    cat "$tmp/rates"
    echo "--- /metrics (rp1) ---"
    grep 'device="rp1"' "$tmp/metrics" | grep -v '_bucket' | head -40
fi
summary
