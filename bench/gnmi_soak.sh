#!/bin/sh
# gNMI soak: two simulated QFX5240 targets (128 ports each; one at 100 ms with
# ±20 % timestamp jitter, one at 1 s with Junos-style 2 s batch copies), two
# parallel streams each, for DURATION seconds; then prints every stream's
# health from /metrics and the daemon's CPU. Numbers, not pass/fail.
#   bench/gnmi_soak.sh [-b FABRICSCOPE] [-s GNMI_SIM] [DURATION]   (default 75)
set -u
bin=build/collector/fabricscope
sim=build/tests/sim/gnmi_sim
while getopts b:s: opt; do
    case $opt in
    b) bin=$OPTARG ;;
    s) sim=$OPTARG ;;
    *) echo "usage: $0 [-b FABRICSCOPE] [-s GNMI_SIM] [DURATION]" >&2; exit 2 ;;
    esac
done
shift $((OPTIND - 1))
duration=${1:-75}
. "$(dirname "$0")/../tests/integration/lib.sh"
lib_init

"$sim" --listen 127.0.0.1:0 --ports 128 --interval 100ms --jitter 0.2 \
    --duration $((duration + 30))s >"$tmp/s1.out" 2>"$tmp/s1.err" &
s1=$!
sim_pid=$s1 # lib_cleanup stops it on any exit
"$sim" --listen 127.0.0.1:0 --ports 128 --interval 100ms --batch-copy 2s --system-id qfx2 \
    --duration $((duration + 30))s >"$tmp/s2.out" 2>"$tmp/s2.err" &
s2=$!
peer_pid=$s2
p1=$(wait_for "$tmp/s1.out" 's/.*listening port=\([0-9]*\).*/\1/p') || { echo "sim 1 did not start"; exit 1; }
p2=$(wait_for "$tmp/s2.out" 's/.*listening port=\([0-9]*\).*/\1/p') || { echo "sim 2 did not start"; exit 1; }
cat >"$tmp/soak.yaml" <<YAML
sources:
  - name: qfx1
    type: gnmi
    address: "127.0.0.1:$p1"
    sample_interval: 100ms
    max_series: 1000000
    streams:
      - {name: interfaces, paths: ["/interfaces/interface/state/counters"]}
      - {name: queues, paths: ["/junos/system/linecard/qmon-sw/"]}
  - name: qfx2
    type: gnmi
    address: "127.0.0.1:$p2"
    sample_interval: 1s
    max_series: 1000000
    streams:
      - {name: interfaces, paths: ["/interfaces/interface/state/counters"]}
      - {name: queues, paths: ["/junos/system/linecard/qmon-sw/"]}
exporters:
  prometheus: {listen: "127.0.0.1:0"}
YAML
start_fsc "$tmp/soak.yaml"
wait_exporter || { echo "fabricscope did not start"; cat "$tmp/fsc.log"; exit 1; }
sleep "$duration"
fetch_metrics "$tmp/m.txt"
grep -E '^fabricscope_(up|gnmi_stream_up|gnmi_reconnects_total|gnmi_resubscribes_total|gnmi_decode_errors_total|gnmi_sequence_gaps_total|samples_total)' "$tmp/m.txt"
grep -E '^fabricscope_sample_interval_ratio_bucket' "$tmp/m.txt"
awk -v d="$duration" -v t="$(getconf CLK_TCK)" '{c = ($14 + $15) / t; printf "daemon_cpu_seconds %.2f (%.1f %% of a core over ~%d s)\n", c, 100 * c / (d + 1), d}' "/proc/$fsc_pid/stat"
echo "warnings_or_errors_in_log $(grep -c 'level=warn\|level=error' "$tmp/fsc.log")"
stop_pid "$fsc_pid"; fsc_pid=""
stop_pid "$s1"; stop_pid "$s2"
sim_pid=""
peer_pid=""
