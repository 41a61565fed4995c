#!/bin/sh
# lib.sh reads $bin and sets $tmp, $fsc_pid, $sim_pid, $peer_pid (shared globals).
# shellcheck disable=SC2034,SC2154
# gNMI soak: two simulated QFX5240 targets (128 ports each; one at 100 ms with
# ±20 % timestamp jitter and a 100 ms burst every 10 s on et-0/0/5, one at 1 s
# with Junos-style 2 s batch copies), each subscribed with the default plan
# of Junos OS Evolved (no `streams:`: interfaces, queues = qos, rest =
# ethernet + /junos/system/linecard/interface, links = FEC words + port
# speeds), so four parallel streams per target,
# for DURATION seconds; then prints every stream's health, observed cadence
# and jitter from /metrics, the daemon's CPU, and a verdict line
# (streams up, reconnects, resubscribes, decode errors, sequence gaps).
# Exit status 1 when a stream is down or was restarted, else 0.
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
# shellcheck source=../tests/integration/lib.sh
. "$(dirname "$0")/../tests/integration/lib.sh"
lib_init

"$sim" --listen 127.0.0.1:0 --ports 128 --interval 100ms --jitter 0.2 --burst-port 5 \
    --burst-every 10s --burst-length 100ms --duration $((duration + 30))s \
    >"$tmp/s1.out" 2>"$tmp/s1.err" &
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
  - name: qfx2
    type: gnmi
    address: "127.0.0.1:$p2"
    sample_interval: 1s
    max_series: 1000000
exporters:
  prometheus: {listen: "127.0.0.1:0"}
YAML
start_fsc "$tmp/soak.yaml"
wait_exporter || { echo "fabricscope did not start"; cat "$tmp/fsc.log"; exit 1; }
sleep "$duration"
fetch_metrics "$tmp/m.txt"
grep -E '^fabricscope_(up|samples_total)' "$tmp/m.txt"
grep -E '^fabricscope_sample_interval_ratio_bucket' "$tmp/m.txt"
# One line per stream (source/stream), then the verdict.
printf '%-17s %3s %9s %10s %10s %5s %5s %5s %5s\n' stream up messages cadence_s jitter_s \
    recon resub decer gaps
awk -v verdict="$tmp/verdict.txt" '
    /^fabricscope_gnmi_/ {
        split($0, a, /[{}]/)
        key = a[2]; gsub(/source="|stream="|"/, "", key); sub(/,/, "/", key)
        fam = a[1]; sub(/^fabricscope_gnmi_/, "", fam)
        v[key, fam] = $NF; keys[key] = 1
    }
    END {
        up = n = bad = 0
        for (k in keys) {
            n++
            up += v[k, "stream_up"]
            bad += v[k, "reconnects_total"] + v[k, "resubscribes_total"]
            bad += v[k, "decode_errors_total"] + v[k, "sequence_gaps_total"]
            c = v[k, "stream_cadence_seconds"]
            j = v[k, "stream_jitter_seconds"]
            printf "%-17s %3s %9s %10s %10s %5s %5s %5s %5s\n", k, v[k, "stream_up"],
                v[k, "messages_total"], c == "" ? "-" : sprintf("%.6f", c),
                j == "" ? "-" : sprintf("%.6f", j), v[k, "reconnects_total"],
                v[k, "resubscribes_total"], v[k, "decode_errors_total"],
                v[k, "sequence_gaps_total"]
        }
        printf "verdict streams_up=%d/%d restarts_errors_gaps=%d\n", up, n, bad >verdict
    }' "$tmp/m.txt" | sort
cat "$tmp/verdict.txt"
awk -v d="$duration" -v t="$(getconf CLK_TCK)" '{c = ($14 + $15) / t; printf "daemon_cpu_seconds %.2f (%.1f %% of a core over ~%d s)\n", c, 100 * c / (d + 1), d}' "/proc/$fsc_pid/stat"
echo "warnings_or_errors_in_log $(grep -c 'level=warn\|level=error' "$tmp/fsc.log")"
stop_pid "$fsc_pid"; fsc_pid=""
stop_pid "$s1"; stop_pid "$s2"
sim_pid=""
peer_pid=""
grep -q '^verdict streams_up=8/8 restarts_errors_gaps=0$' "$tmp/verdict.txt"
