#!/bin/sh
# gNMI end to end over loopback: gnmi_sim plays one QFX5240 (128 × 400G ports,
# Junos OS Evolved paths) and the real daemon subscribes with the Junos
# profile's default plan (interfaces, queues, the rest), at the interval
# asked: `sample_interval_grid: none`, because the profile's grid would round
# every interval up to Junos' 2 s and every row would measure 2 s.
# For each sample interval it measures, over a steady window, the updates the
# daemon received per second (fabricscope_gnmi_updates_total), the daemon's
# CPU (utime+stime of all its threads from /proc/PID/stat) as % of one core
# and as updates per core-second (goal: 3 M), and the simulator's CPU: a
# sender near 100 % of its core is the limit, not the daemon ("sender-bound"
# in the last column). Numbers, not pass/fail.
#   bench/gnmi_e2e_bench.sh [-b FABRICSCOPE] [-s GNMI_SIM] [-w SECONDS] [INTERVAL ...]
#   default: build/collector/fabricscope build/tests/sim/gnmi_sim, 10 s, 100ms 20ms 10ms
set -u
bin=build/collector/fabricscope
sim=build/tests/sim/gnmi_sim
window=10
while getopts b:s:w: opt; do
    case $opt in
    b) bin=$OPTARG ;;
    s) sim=$OPTARG ;;
    w) window=$OPTARG ;;
    *) echo "usage: $0 [-b FABRICSCOPE] [-s GNMI_SIM] [-w SECONDS] [INTERVAL ...]" >&2; exit 2 ;;
    esac
done
shift $((OPTIND - 1))
[ $# -gt 0 ] || set -- 100ms 20ms 10ms
tmp=$(mktemp -d)
sim_pid=""
fsc_pid=""
cleanup() {
    for p in $fsc_pid $sim_pid; do kill "$p" 2>/dev/null; done
    for p in $fsc_pid $sim_pid; do wait "$p" 2>/dev/null; done
    rm -rf "$tmp"
}
trap cleanup EXIT INT TERM
tck=$(getconf CLK_TCK)

wait_for() { # FILE SED_EXPR
    i=0
    while [ $i -lt 100 ]; do
        v=$(sed -n "$2" "$1" 2>/dev/null | head -n 1)
        if [ -n "$v" ]; then echo "$v"; return 0; fi
        sleep 0.1
        i=$((i + 1))
    done
    return 1
}
cpu_ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }
updates() {
    curl -sf "http://127.0.0.1:$mport/metrics" |
        awk '/^fabricscope_gnmi_updates_total\{/ {s += $NF} END {printf "%d\n", s}'
}

printf '%-9s %12s %10s %14s %10s %9s\n' interval updates/s cpu_%core updates/core-s ns/update sim_%core
for interval in "$@"; do
    : >"$tmp/sim.out"
    "$sim" --listen 127.0.0.1:0 --os evo --ports 128 --interval "$interval" --min-interval 1ms \
        --utilization 0.3 --duration $((window + 20))s >"$tmp/sim.out" 2>"$tmp/sim.err" &
    sim_pid=$!
    port=$(wait_for "$tmp/sim.out" 's/.*listening port=\([0-9]*\).*/\1/p') || {
        echo "simulator did not start"; exit 1
    }
    cat >"$tmp/fsc.yaml" <<YAML
log: {level: warn}
sources:
  - name: qfx1
    type: gnmi
    address: "127.0.0.1:$port"
    sample_interval: $interval
    sample_interval_grid: none
    max_series: 1000000
exporters:
  prometheus: {listen: "127.0.0.1:0"}
YAML
    : >"$tmp/fsc.log"
    "$bin" run -c "$tmp/fsc.yaml" --log-level info 2>"$tmp/fsc.log" &
    fsc_pid=$!
    mport=$(wait_for "$tmp/fsc.log" 's/.*event=exporter_started .* port=\([0-9]*\).*/\1/p') || {
        echo "fabricscope did not start"; cat "$tmp/fsc.log"; exit 1
    }
    sleep 3 # connect, initial dump, first windows
    u0=$(updates); c0=$(cpu_ticks $fsc_pid); s0=$(cpu_ticks $sim_pid); t0=$(date +%s.%N)
    sleep "$window"
    u1=$(updates); c1=$(cpu_ticks $fsc_pid); s1=$(cpu_ticks $sim_pid); t1=$(date +%s.%N)
    awk -v u0="$u0" -v u1="$u1" -v c0="$c0" -v c1="$c1" -v t0="$t0" -v t1="$t1" -v tck="$tck" \
        -v s0="$s0" -v s1="$s1" -v iv="$interval" 'BEGIN {
            dt = t1 - t0; cpu = (c1 - c0) / tck; ups = (u1 - u0) / dt
            upc = (cpu > 0) ? (u1 - u0) / cpu : 0
            nsu = (upc > 0) ? 1e9 / upc : 0
            sim = 100 * (s1 - s0) / tck / dt
            printf "%-9s %12.0f %10.1f %14.0f %10.0f %9.1f%s\n", iv, ups, 100 * cpu / dt, upc,
                   nsu, sim, (sim >= 90 ? " sender-bound" : "")
        }'
    kill "$fsc_pid" "$sim_pid" 2>/dev/null
    wait "$fsc_pid" "$sim_pid" 2>/dev/null
    fsc_pid=""
    sim_pid=""
done
