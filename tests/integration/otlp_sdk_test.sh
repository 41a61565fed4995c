#!/bin/sh
# OTLP interop with the real OpenTelemetry JS SDK (tests/interop/otlp_js:
# @opentelemetry/sdk-metrics 2.12.0 and its gRPC, HTTP/protobuf and HTTP/JSON
# metric exporters 0.223.0, pinned by package-lock.json) as the sender: six
# runs into one daemon, every encoding with and without gzip, each with its
# own host.name so their series never mix:
#   g-plain grpc cumulative     g-gzip grpc delta
#   p-plain http-proto delta    p-gzip http-proto cumulative
#   j-plain http-json cumulative j-gzip http-json delta
# (both temporalities per encoding: DELTA sums and histograms are summed by
# the receiver, so the expected totals are the same).
#
# Known answers (the script of sender.js, written out here independently),
# after N = 12 collections k = 1..12 of each run:
#   fabric_port_rx_bytes_total{port=swp1} 1e12 + 12e9     (gauge double,
#   fabric_port_rx_bytes_total{port=swp2} 2e12 + 12 * 5e8  reclassified as a
#   fabric_port_tx_bytes_total{port=swp1} 3e12 + 12 * 2.5e8 counter by the
#   fabric_port_tx_bytes_total{port=swp2} 4e12 + 12e8       Cumulus profile)
#   fabric_port_queue_peak_bytes{port=swp1,queue=3} 12000  (gauge; tc -> queue)
#   fabric_cumulus_nvswitch_control_plane_rx_packets_total 50 * 12 * 13 = 7800
#       (monotonic Sum as_int, unknown name passed through)
#   fabric_cumulus_nvswitch_control_plane_rx_bytes_total 750.125 * 156 = 117019.5
#       (as_double)
#   fabric_cumulus_nvswitch_interface_egress_buffer {port=swp1, queue=0 (tc)}:
#       per collection buckets [1,1,0,2,0,0,0,0,1,1] (values 100, 1920, 5000,
#       5000, 200000, 300000; 1920 lies ON a bound, which is inclusive), so
#       after 12: le 960:12 1920:24 3840:24 7680:48 ... 122880:48 245760:60
#       +Inf:72, _count 72, _sum 512020 * 12 = 6144240.
# Rates: fabric_port_bytes_per_second is the last completed 1 s aligned
# window (engine.windows [1s]). The gauges are linear in the collection
# number k, and the SDK stamps collection k with Date.now() (whole ms, printed
# by sender.js as `collect n=k time_ms=T`), so the expected window rate is
# computed from those printed pairs exactly as rule 9 of docs/DESIGN.md,
# "The rate rules" defines it: interpolate the counter linearly at the edges
# E - 1 s and E of the last window completed by the last sample
# (E = floor(T_N / 1 s) * 1 s) and divide the difference by 1 s. Tolerance
# 1e-6 relative: the engine keeps the window rate as a 32-bit float
# (rounding <= 2^-24 = 6e-8) and the rest is double arithmetic; one
# millisecond of timestamp error (arrival time instead of the point's
# time_unix_nano, or a dropped/duplicated point) moves a 250 ms interval's
# share of the window by ~1e-3, a thousand times the tolerance.
# Also: every export succeeded, the resource's service.name made no label,
# fabricscope_up of the source is 1, no sanitizer report, and the daemon
# exits 0 on SIGTERM.
# node_modules must exist (scripts/setup.sh runs npm ci there); the test
# installs nothing. Every process is stopped by PID; waits are bounded (each
# sender runs under `timeout 60`).
#   otlp_sdk_test.sh FABRICSCOPE SOURCE_DIR [NODE]
set -u
bin=$1
src=$2
node=${3:-node}
js="$src/tests/interop/otlp_js"

if ! command -v "$node" >/dev/null 2>&1; then
    echo "FAIL: node ($node) not found: run scripts/setup.sh"
    exit 1
fi
for m in @opentelemetry/sdk-metrics @opentelemetry/resources @opentelemetry/exporter-metrics-otlp-grpc \
    @opentelemetry/exporter-metrics-otlp-proto @opentelemetry/exporter-metrics-otlp-http; do
    if [ ! -d "$js/node_modules/$m" ]; then
        echo "FAIL: $js/node_modules/$m is missing: run scripts/setup.sh" \
            "(it runs npm ci --prefix tests/interop/otlp_js)"
        exit 1
    fi
done
# The exporters read OTEL_EXPORTER_OTLP_* (headers, temporality, timeouts):
# the runs must not depend on the caller's environment.
for v in $(env | sed -n 's/^\(OTEL_[A-Za-z0-9_]*\)=.*/\1/p'); do unset "$v"; done

# shellcheck source=lib.sh source-path=SCRIPTDIR
. "$(dirname "$0")/lib.sh"
lib_init

cat >"$tmp/fsc.yaml" <<'YAML'
sources:
  - {name: spine1, type: otlp, grpc_listen: "127.0.0.1:0", http_listen: "127.0.0.1:0",
     device_attribute: host.name}
exporters:
  prometheus:
    listen: "127.0.0.1:0"
engine:
  windows: [1s]
YAML
start_fsc "$tmp/fsc.yaml"
wait_exporter || exit 1
gport=$(wait_log_port 'otlp_listening .*transport=grpc( |$)') || {
    fail "no otlp_listening transport=grpc line"
    cut -c1-300 "$tmp/fsc.log"
    exit 1
}
hport=$(wait_log_port 'otlp_listening .*transport=http( |$)') || {
    fail "no otlp_listening transport=http line"
    cut -c1-300 "$tmp/fsc.log"
    exit 1
}

N=12
runs="g-plain:grpc::cumulative g-gzip:grpc:--gzip:delta p-plain:http-proto::delta
      p-gzip:http-proto:--gzip:cumulative j-plain:http-json::cumulative j-gzip:http-json:--gzip:delta"
# All six at once (about 3.5 s instead of 20): they share nothing but the
# daemon, which serializes requests per source anyway.
pids=""
for r in $runs; do
    name=${r%%:*}
    rest=${r#*:}
    proto=${rest%%:*}
    rest=${rest#*:}
    gz=${rest%%:*}
    temp=${rest#*:}
    if [ "$proto" = grpc ]; then url="http://127.0.0.1:$gport"; else url="http://127.0.0.1:$hport/v1/metrics"; fi
    # shellcheck disable=SC2086 # $gz is empty or one flag
    timeout 60 "$node" "$js/sender.js" --protocol "$proto" --endpoint "$url" $gz --exports "$N" \
        --interval-ms 250 --temporality "$temp" --host-name "$name" \
        >"$tmp/$name.out" 2>"$tmp/$name.err" &
    pids="$pids $name:$!"
done
for p in $pids; do
    wait "${p#*:}"
    echo "${p%%:*} $?" >>"$tmp/rc"
done

fetch_metrics || fail "GET /metrics"
hist=fabric_cumulus_nvswitch_interface_egress_buffer
# One histogram family (docs/METRICS.md), not three counter families.
check "histogram family typed histogram" grep -qx "# TYPE $hist histogram" "$tmp/metrics"
check_eq "histogram parts exposed as counters" "$(grep -c "^${hist}_[a-z]*_total" "$tmp/metrics")" 0
for r in $runs; do
    h=${r%%:*}
    out="$tmp/$h.out"
    check_eq "$h: sender exit status" "$(sed -n "s/^$h //p" "$tmp/rc")" 0
    check_eq "$h: successful exports" "$(grep -c '^export n=[0-9]* result=success$' "$out")" "$N"
    check_eq "$h: sender summary" "$(grep '^done ' "$out")" "done exports=$N failures=0"

    d="device=$h"
    num_eq "$h: rx bytes swp1" "$(series_value fabric_port_rx_bytes_total "$d" port=swp1)" 1012000000000
    num_eq "$h: rx bytes swp2" "$(series_value fabric_port_rx_bytes_total "$d" port=swp2)" 2006000000000
    num_eq "$h: tx bytes swp1" "$(series_value fabric_port_tx_bytes_total "$d" port=swp1)" 3003000000000
    num_eq "$h: tx bytes swp2" "$(series_value fabric_port_tx_bytes_total "$d" port=swp2)" 4001200000000
    num_eq "$h: queue peak (tc=3 -> queue)" \
        "$(series_value fabric_port_queue_peak_bytes "$d" port=swp1 queue=3)" 12000
    num_eq "$h: control-plane rx packets (Sum as_int)" \
        "$(series_value fabric_cumulus_nvswitch_control_plane_rx_packets_total "$d")" 7800
    num_eq "$h: control-plane rx bytes (Sum as_double)" \
        "$(series_value fabric_cumulus_nvswitch_control_plane_rx_bytes_total "$d")" 117019.5

    for b in 960:12 1920:24 3840:24 7680:48 15360:48 30720:48 61440:48 122880:48 245760:60 +Inf:72; do
        num_eq "$h: histogram le=${b%%:*}" \
            "$(series_value "${hist}_bucket" "$d" port=swp1 queue=0 "le=${b%%:*}")" "${b#*:}"
    done
    num_eq "$h: histogram count" "$(series_value "${hist}_count" "$d" port=swp1 queue=0)" 72
    num_eq "$h: histogram sum" "$(series_value "${hist}_sum" "$d" port=swp1 queue=0)" 6144240

    for x in swp1:rx:1e9 swp2:rx:5e8 swp1:tx:2.5e8 swp2:tx:1e8; do
        port=${x%%:*}
        rest=${x#*:}
        dir=${rest%%:*}
        want=$(expected_rate "$out" "${rest#*:}")
        got=$(series_value fabric_port_bytes_per_second "$d" "port=$port" "direction=$dir")
        num_near "$h: $dir rate $port (1 s window)" "$got" "$want" 1e-6
    done
done
# sender.js adds service.name to the resource: only the device attribute
# names series (otlp_ingest.h), so no label comes from it.
check_eq "labels from other resource attributes" "$(grep -c 'service_name=' "$tmp/metrics")" 0
num_eq "source up" "$(series_value fabricscope_up source=spine1 type=otlp)" 1

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
    grep -v "event=library" "$tmp/fsc.log" | cut -c1-400 | tail -40
    for r in $runs; do
        echo "--- sender ${r%%:*} ---"
        tail -4 "$tmp/${r%%:*}.out"
        tail -5 "$tmp/${r%%:*}.err"
    done
    echo "--- /metrics (g-plain) ---"
    grep 'device="g-plain"' "$tmp/metrics" | head -40
fi
summary
