#!/bin/sh
# Cumulus release name sets through the real OpenTelemetry JS SDK
# (tests/interop/otlp_js/sender.js --release, pinned by package-lock.json):
# five senders into one daemon, each its own host.name:
#   r511  grpc       cumulative  5.11: no interface octets, per-class only
#   r514  http-proto cumulative  5.14: if_in_octets AND ether_stats_octets
#   r515  http-json  cumulative  5.15: ether_stats_octets + if_out_octets
#   r516  grpc       delta       5.16: as 5.15 + a delta histogram
#   rnone grpc       cumulative  interface metrics without any byte counter
# (names: NVIDIA CumulusNetworks/docs, content/cumulus-linux-5NN/Monitoring-
# and-Troubleshooting/Open-Telemetry-Export.md; docs/vendors/cumulus.md).
#
# Known answers after N = 12 collections (the formulas of sender.js):
#   r511 tx bytes = sum over tc 0,3,7 = 6e9 + 6e6 k -> 6072000000 (derived)
#        rx bytes = sum over pg 0,3   = 9e9 + 5e6 k -> 9060000000 (derived;
#        sp_*_octets 7e9 + 9e6 k rank below and are not added)
#        fabric_port_bytes_derived{direction=rx|tx} 1
#        fabric_port_marked_packets_total{marking=ecn} 12
#   r514 rx = 5e9 + 7e6 k -> 5084000000 (counted once, not 2x), tx = 6e9 +
#        8e6 k -> 6096000000, no derived gauge
#        rx packets (ether_stats_pkts) 4e6 + 3e3 k -> 4036000, tx packets
#        (802_dot3_a_frames_transmitted_ok) 3e6 + 2e3 k -> 3024000, the
#        tc_tx_queue level 100 + k -> 112 as the gauge
#        fabric_port_queue_current_cells{queue=0}
#   r515, r516: the same values (r515's if_out_pkts 500012 passes through and
#        feeds no tx packets); r516 histogram _count 6 * 12 = 72; every
#        delta export has a sample past the last bound (300000 > 245760), so
#        the peak gauge fabric_port_queue_hist_peak_bytes{queue=0} is
#        245760, above 0.5 x the topology's buffer 400000: one queue-peak
#        episode, fabric_congestion_evidence_total{signal=queue_hist_peak_bytes} 1
#   rnone: fabricscope_otlp_device_byte_counters{device=rnone} 0 (the others
#        1), one otlp_sender_warning log line naming it, no byte series
# Rates (fabric_port_bytes_per_second, last completed 1 s window) within 1 %
# of the value computed from the printed collection times exactly as
# otlp_sdk_test.sh does (lib.sh expected_rate): a doubled count would be 100 %
# off, a derived sum missing a class >= 20 %.
# Every process stopped by PID; every wait bounded (senders under timeout 60,
# log waits by lib.sh). node_modules must exist (scripts/setup.sh).
#   otlp_cumulus_releases_test.sh FABRICSCOPE SOURCE_DIR [NODE]
set -u
bin=$1
src=$2
node=${3:-node}
js="$src/tests/interop/otlp_js"

if ! command -v "$node" >/dev/null 2>&1; then
    echo "FAIL: node ($node) not found: run scripts/setup.sh"
    exit 1
fi
for m in @opentelemetry/sdk-metrics @opentelemetry/exporter-metrics-otlp-grpc \
    @opentelemetry/exporter-metrics-otlp-proto @opentelemetry/exporter-metrics-otlp-http; do
    if [ ! -d "$js/node_modules/$m" ]; then
        echo "FAIL: $js/node_modules/$m is missing: run scripts/setup.sh"
        exit 1
    fi
done
for v in $(env | sed -n 's/^\(OTEL_[A-Za-z0-9_]*\)=.*/\1/p'); do unset "$v"; done

# shellcheck source=lib.sh source-path=SCRIPTDIR
. "$(dirname "$0")/lib.sh"
lib_init

cat >"$tmp/fsc.yaml" <<'YAML'
sources:
  - {name: spine1, type: otlp, grpc_listen: "127.0.0.1:0", http_listen: "127.0.0.1:0"}
exporters:
  prometheus:
    listen: "127.0.0.1:0"
engine:
  windows: [1s]
topology:
  devices:
    - name: r516
      role: spine
      buffer: 400000
      ports:
        - {name: swp1}
YAML
start_fsc "$tmp/fsc.yaml"
wait_exporter || exit 1
gport=$(wait_log_port 'otlp_listening .*transport=grpc( |$)') || {
    fail "no otlp_listening transport=grpc line"
    exit 1
}
hport=$(wait_log_port 'otlp_listening .*transport=http( |$)') || {
    fail "no otlp_listening transport=http line"
    exit 1
}

N=12
runs="r511:grpc:5.11:cumulative r514:http-proto:5.14:cumulative r515:http-json:5.15:cumulative
      r516:grpc:5.16:delta rnone:grpc:none:cumulative"
pids=""
for r in $runs; do
    name=${r%%:*}
    rest=${r#*:}
    proto=${rest%%:*}
    rest=${rest#*:}
    rel=${rest%%:*}
    temp=${rest#*:}
    if [ "$proto" = grpc ]; then url="http://127.0.0.1:$gport"; else url="http://127.0.0.1:$hport/v1/metrics"; fi
    timeout 60 "$node" "$js/sender.js" --protocol "$proto" --endpoint "$url" --exports "$N" \
        --interval-ms 250 --temporality "$temp" --host-name "$name" --release "$rel" \
        >"$tmp/$name.out" 2>"$tmp/$name.err" &
    pids="$pids $name:$!"
done
for p in $pids; do
    wait "${p#*:}"
    echo "${p%%:*} $?" >>"$tmp/rc"
done

fetch_metrics || fail "GET /metrics"
for r in $runs; do
    h=${r%%:*}
    out="$tmp/$h.out"
    check_eq "$h: sender exit status" "$(sed -n "s/^$h //p" "$tmp/rc")" 0
    check_eq "$h: successful exports" "$(grep -c '^export n=[0-9]* result=success$' "$out")" "$N"
done

rate_near() { # NAME DEVICE DIR STEP
    want=$(expected_rate "$tmp/$2.out" "$4")
    got=$(series_value fabric_port_bytes_per_second "device=$2" port=swp1 "direction=$3")
    num_near "$1" "$got" "$want" 0.01
}

d=device=r511
num_eq "5.11 tx bytes = sum over tc" "$(series_value fabric_port_tx_bytes_total $d port=swp1)" 6072000000
num_eq "5.11 rx bytes = sum over pg" "$(series_value fabric_port_rx_bytes_total $d port=swp1)" 9060000000
num_eq "5.11 tx derived" "$(series_value fabric_port_bytes_derived $d port=swp1 direction=tx)" 1
num_eq "5.11 rx derived" "$(series_value fabric_port_bytes_derived $d port=swp1 direction=rx)" 1
num_eq "5.11 ECN per interface" \
    "$(series_value fabric_port_marked_packets_total $d port=swp1 marking=ecn)" 12
num_eq "5.11 queue bytes tc 7" \
    "$(series_value fabric_port_queue_tx_bytes_total $d port=swp1 queue=7)" 3036000000
rate_near "5.11 tx rate (derived)" r511 tx 6e6
rate_near "5.11 rx rate (derived)" r511 rx 5e6

for h in r514 r515 r516; do
    d=device=$h
    num_eq "$h rx bytes (ether_stats_octets, once)" \
        "$(series_value fabric_port_rx_bytes_total $d port=swp1)" 5084000000
    num_eq "$h tx bytes (if_out_octets)" "$(series_value fabric_port_tx_bytes_total $d port=swp1)" \
        6096000000
    check_eq "$h no derived gauge" "$(grep -c "^fabric_port_bytes_derived{.*device=\"$h\"" "$tmp/metrics")" 0
    rate_near "$h rx rate" "$h" rx 7e6
    rate_near "$h tx rate" "$h" tx 8e6
    num_eq "$h device has byte counters" \
        "$(series_value fabricscope_otlp_device_byte_counters source=spine1 "device=$h")" 1
    num_eq "$h rx packets (ether_stats_pkts)" \
        "$(series_value fabric_port_rx_packets_total $d port=swp1)" 4036000
    num_eq "$h tx packets (802_dot3_a_frames_transmitted_ok)" \
        "$(series_value fabric_port_tx_packets_total $d port=swp1)" 3024000
    num_eq "$h tc transmit queue depth (gauge, cells)" \
        "$(series_value fabric_port_queue_current_cells $d port=swp1 queue=0)" 112
done
check_eq "queue depth is a gauge family" \
    "$(grep -c '^# TYPE fabric_port_queue_current_cells gauge$' "$tmp/metrics")" 1
num_eq "5.15 if_out_pkts passes through" \
    "$(series_value fabric_cumulus_nvswitch_interface_if_out_pkts device=r515 port=swp1)" 500012
check_eq "5.11 has no port packet counter" \
    "$(grep -c "^fabric_port_[rt]x_packets_total{.*device=\"r511\"" "$tmp/metrics")" 0
num_eq "5.16 delta histogram count" \
    "$(series_value fabric_cumulus_nvswitch_interface_egress_buffer_count device=r516 port=swp1 queue=0)" 72

num_eq "5.16 histogram peak gauge (last bound reached)" \
    "$(series_value fabric_port_queue_hist_peak_bytes device=r516 port=swp1 queue=0)" 245760
num_eq "5.16 histogram evidence: one episode" \
    "$(series_value fabric_congestion_evidence_total signal=queue_hist_peak_bytes device=r516 port=swp1 queue=0)" 1

num_eq "no-byte device gauge" \
    "$(series_value fabricscope_otlp_device_byte_counters source=spine1 device=rnone)" 0
num_eq "5.11 device has byte counters" \
    "$(series_value fabricscope_otlp_device_byte_counters source=spine1 device=r511)" 1
check_eq "no byte series for rnone" "$(grep -c "^fabric_port_[rt]x_bytes_total{.*device=\"rnone\"" "$tmp/metrics")" 0
check_eq "one warning for rnone" "$(grep -c 'otlp_sender_warning.*device rnone sends interface metrics but no port byte counter' "$tmp/fsc.log")" 1
check_eq "no warning for the others" "$(grep 'otlp_sender_warning' "$tmp/fsc.log" | grep -vc 'device rnone')" 0

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
    for r in $runs; do
        echo "--- sender ${r%%:*} ---"
        tail -3 "$tmp/${r%%:*}.out"
        tail -5 "$tmp/${r%%:*}.err"
    done
    echo "--- /metrics ---"
    grep -E 'device="r(511|514|none)"' "$tmp/metrics" | grep -E 'bytes|derived|byte_counters' | head -40
fi
summary
