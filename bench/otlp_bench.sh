#!/bin/sh
# lib.sh reads $bin and sets $tmp, $fsc_pid, $sim_pid, $peer_pid (shared globals).
# shellcheck disable=SC2034,SC2154
# OTLP receiver throughput and memory: the real daemon with one otlp source
# (gRPC and HTTP on loopback) fed by bench/otlp_load (Cumulus-shaped gauge
# doubles with an `interface` attribute, 4 devices x 64 interfaces x 16
# metrics = 1024 points per request). Prints, per run, the points per second
# sent, the daemon's CPU and the figure that matters: data points per
# core-second of the receiver; then RSS at a steady 70 k points/s.
# Numbers, not pass/fail.
#   bench/otlp_bench.sh [-b FABRICSCOPE] [-l OTLP_LOAD] [-w SECONDS]
set -u
bin=build/collector/fabricscope
load=build/bench/otlp_load
window=10
while getopts b:l:w: opt; do
    case $opt in
    b) bin=$OPTARG ;;
    l) load=$OPTARG ;;
    w) window=$OPTARG ;;
    *) echo "usage: $0 [-b FABRICSCOPE] [-l OTLP_LOAD] [-w SECONDS]" >&2; exit 2 ;;
    esac
done
# shellcheck source=../tests/integration/lib.sh
. "$(dirname "$0")/../tests/integration/lib.sh"
lib_init

cat >"$tmp/otlp.yaml" <<YAML
sources:
  - name: spines
    type: otlp
    grpc_listen: "127.0.0.1:0"
    http_listen: "127.0.0.1:0"
    max_series: 1000000
exporters:
  prometheus: {listen: "127.0.0.1:0"}
YAML
start_fsc "$tmp/otlp.yaml"
wait_exporter || { echo "fabricscope did not start"; cat "$tmp/fsc.log"; exit 1; }
gport=$(wait_log_port 'otlp_listening .*transport=grpc( |$)') || { echo "no grpc port"; exit 1; }
hport=$(wait_log_port 'otlp_listening .*transport=http( |$)') || { echo "no http port"; exit 1; }

echo "== full speed, gRPC (4 calls in flight), ${window} s"
"$load" --grpc "127.0.0.1:$gport" --duration "$window" --inflight 4 --pid "$fsc_pid"
echo "== full speed, HTTP/protobuf (one keep-alive connection), ${window} s"
"$load" --http "127.0.0.1:$hport" --duration "$window" --pid "$fsc_pid"
echo "== 70000 points/s over gRPC, $((window * 3)) s"
"$load" --grpc "127.0.0.1:$gport" --duration $((window * 3)) --rate 70000 --pid "$fsc_pid"
echo "series_in_registry $(fetch_metrics "$tmp/m.txt" && awk '/^fabricscope_series\{/ {s += $NF} END {print s + 0}' "$tmp/m.txt")"
