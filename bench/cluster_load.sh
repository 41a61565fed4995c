#!/bin/sh
# Cluster-scale load (docs/PERFORMANCE.md "Cluster-scale load"): the
# field report's cluster on loopback. Numbers, not pass/fail; not in ctest.
#
#   bench/cluster_load.sh [-B BUILD_DIR] [-w SECONDS] [-n B300_NODES] [STEP ...]
#   default: build, 20 s windows, 56 nodes, steps: grow:1s grow:100ms full:1s full:100ms
#
# Switches: 14 QFX5240 leaves x 128 x 400G ports, each its own tests/sim/
# gnmi_sim process (one target per process, --os junos: Junos OS's qmon-sw),
# subscribed on two streams (interface counters: 16 leaves per port; qmon-sw:
# 5 leaves x 4 queues), and
# 7 SN4700 spines x 32 ports pushing OTLP/gRPC from one bench/otlp_load
# process (16 Cumulus interface counters per port) -- all into ONE collector.
# B300: 56 nodes x 16 interfaces, each node its own collector process with one
# nic source polling its own fabricscope-nic-fixture tree at 100 ms, as the
# DaemonSet runs them (one process cannot hold 56 x 16 x 76 = 68 096 open
# counter files under a 20 000 descriptor limit). The fixture trees are not
# stepped (stepping 56 trees every 100 ms would cost the box more than the
# pollers): every poll reads every file, the engine sees repeated values.
#
# Steps:
#   grow:IV   the switch collector alone with 1, 7, 14 (leaves) and 21 (14
#             leaves + 7 spines) switches at sample interval IV
#   full:IV   21 switches at IV plus the 56 NIC pollers at 100 ms
# Per run, over a steady window after a warm-up: CPU of the switch collector
# and of all NIC pollers (utime+stime from /proc/PID/stat, % of one core),
# their RSS (VmRSS; the pollers summed), samples/s the engine took
# (fabricscope_samples_total), series exposed, /metrics scrape wall time and
# size (one scrape per second, as a fast Prometheus would), and the age of
# leaf01 et-0/0/0's newest sample at each scrape: the response's first byte
# (curl's time to first byte, made absolute) minus the sample's device time. The device time is exact: gnmi_sim's in-octets at
# 30% of 400G is 15e6 bytes per ms since its epoch, and the epoch is taken
# right before it prints `listening` (this script polls for that line every
# 5 ms, so ages are low by at most ~5 ms). The age is the pipeline latency
# plus the time since the sample (0 .. one interval): its minimum approaches
# the latency, its median is about latency + interval/2.
set -u
build=build
window=20
nodes=56
while getopts B:w:n: opt; do
    case $opt in
    B) build=$OPTARG ;;
    w) window=$OPTARG ;;
    n) nodes=$OPTARG ;;
    *)
        echo "usage: $0 [-B BUILD_DIR] [-w SECONDS] [-n B300_NODES] [STEP ...]" >&2
        exit 2
        ;;
    esac
done
shift $((OPTIND - 1))
[ $# -gt 0 ] || set -- grow:1s grow:100ms full:1s full:100ms
bin=$build/collector/fabricscope
sim=$build/tests/sim/gnmi_sim
load=$build/bench/otlp_load
fixture=$build/collector/fabricscope-nic-fixture
for f in "$bin" "$sim" "$load" "$fixture"; do
    [ -x "$f" ] || {
        echo "missing $f: make -C $build fabricscope gnmi_sim otlp_load fabricscope-nic-fixture" >&2
        exit 2
    }
done
tmp=$(mktemp -d)
pids=""
cleanup() {
    # shellcheck disable=SC2086 # one word per PID
    [ -z "$pids" ] || kill $pids 2>/dev/null
    for p in $pids; do wait "$p" 2>/dev/null; done
    pids=""
    rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 1' INT TERM
tck=$(getconf CLK_TCK)

now_ms() { echo $(($(date +%s%N) / 1000000)); }
wait_for() { # FILE SED_EXPR TRIES(0.1 s)
    _i=0
    while [ "$_i" -lt "${3:-100}" ]; do
        _v=$(sed -n "$2" "$1" 2>/dev/null | head -n 1)
        if [ -n "$_v" ]; then
            echo "$_v"
            return 0
        fi
        sleep 0.1
        _i=$((_i + 1))
    done
    return 1
}
ticks() { # PID... -> summed utime+stime
    for _p in "$@"; do cat "/proc/$_p/stat" 2>/dev/null; done |
        awk '{ s += $14 + $15 } END { printf "%d\n", s }'
}
rss_kb() { # PID... -> summed VmRSS
    for _p in "$@"; do cat "/proc/$_p/status" 2>/dev/null; done |
        awk '/^VmRSS:/ { s += $2 } END { printf "%d\n", s }'
}

# --- the parts ----------------------------------------------------------------
# start_leaf I IV: gnmi_sim for leafI; sets leaf_port, leaf_pid, and for
# leaf 1 the epoch (ms).
start_leaf() {
    # Leaf 1 writes into a FIFO: the blocking read returns the moment the
    # simulator prints `listening` (right after it takes its epoch), with
    # no polling delay. The others write to files.
    out=$tmp/sim$1.out
    : >"$out" # not the previous run's line
    if [ "$1" -eq 1 ]; then
        rm -f "$tmp/sim1.fifo"
        mkfifo "$tmp/sim1.fifo"
        out=$tmp/sim1.fifo
    fi
    "$sim" --listen 127.0.0.1:0 --os junos --ports 128 --queues 4 --interval "$2" --min-interval 1ms \
        --utilization 0.3 --duration 3600s >"$out" 2>"$tmp/sim$1.err" &
    leaf_pid=$!
    pids="$pids $leaf_pid"
    if [ "$1" -eq 1 ]; then
        exec 3<"$tmp/sim1.fifo"
        IFS= read -r line <&3
        epoch_ms=$(now_ms)
        echo "$line" >"$tmp/sim1.out"
    else
        _i=0
        while ! grep -q '^listening port=' "$out" 2>/dev/null; do
            sleep 0.01
            _i=$((_i + 1))
            [ "$_i" -lt 1000 ] || {
                echo "gnmi_sim did not start" >&2
                exit 1
            }
        done
    fi
    leaf_port=$(sed -n 's/^listening port=\([0-9]*\)$/\1/p' "$tmp/sim$1.out")
}

# start_switches NSW IV: the sims, the collector (fsc_pid, mport), the spines'
# load generator when NSW > 14.
start_switches() {
    nleaf=$1
    [ "$nleaf" -le 14 ] || nleaf=14
    cat >"$tmp/sw.yaml" <<EOF
log: {level: warn}
sources:
EOF
    sim_pids=""
    i=1
    while [ "$i" -le "$nleaf" ]; do
        start_leaf "$i" "$2"
        sim_pids="$sim_pids $leaf_pid"
        cat >>"$tmp/sw.yaml" <<EOF
  - name: leaf$(printf %02d "$i")
    type: gnmi
    address: "127.0.0.1:$leaf_port"
    sample_interval: $2
    streams:
      - {name: interfaces, paths: ["/interfaces/interface/state/counters"]}
      - {name: queues, paths: ["/junos/system/linecard/qmon-sw/"]}
EOF
        i=$((i + 1))
    done
    if [ "$1" -gt 14 ]; then
        cat >>"$tmp/sw.yaml" <<EOF
  - {name: spines, type: otlp, grpc_listen: "127.0.0.1:0", http_listen: ""}
EOF
    fi
    cat >>"$tmp/sw.yaml" <<EOF
exporters:
  prometheus: {listen: "127.0.0.1:0"}
state_dir: $tmp/sw-state
EOF
    : >"$tmp/sw.log"
    "$bin" run -c "$tmp/sw.yaml" --log-level info 2>"$tmp/sw.log" &
    fsc_pid=$!
    pids="$pids $fsc_pid"
    mport=$(wait_for "$tmp/sw.log" 's/.*event=exporter_started .* port=\([0-9]*\).*/\1/p') || {
        echo "collector did not start" >&2
        cat "$tmp/sw.log" >&2
        exit 1
    }
    if [ "$1" -gt 14 ]; then
        oport=$(wait_for "$tmp/sw.log" 's/.*otlp_listening transport=grpc port=\([0-9]*\).*/\1/p')
        ms=$(echo "$2" | sed -n 's/^\([0-9]*\)ms$/\1/p; s/^\([0-9]*\)s$/\1000/p')
        # 7 spines x 32 ports x 16 counters per interval
        "$load" --grpc "127.0.0.1:$oport" --devices 7 --interfaces 32 --metrics 16 \
            --rate $((7 * 32 * 16 * 1000 / ms)) --duration 3600 >"$tmp/load.out" 2>&1 &
        sim_pids="$sim_pids $!"
        pids="$pids $!"
    fi
}

# start_nics N: N collectors, one nic source each (nic_pids).
start_nics() {
    nic_pids=""
    k=1
    while [ "$k" -le "$1" ]; do
        d=$tmp/nic$k
        [ -d "$d/root" ] || "$fixture" init "$d/root" --devices 16 >/dev/null
        cat >"$d/c.yaml" <<EOF
log: {level: warn}
sources:
  - {name: b300-$k, type: nic, sysfs_root: "$d/root", fixture: true, interval: 100ms, auto: true}
exporters:
  prometheus: {listen: "127.0.0.1:0"}
state_dir: $d/state
EOF
        "$bin" run -c "$d/c.yaml" 2>"$d/log" &
        nic_pids="$nic_pids $!"
        pids="$pids $!"
        k=$((k + 1))
    done
}

stop_all() {
    exec 3<&-
    # shellcheck disable=SC2086
    [ -z "$pids" ] || kill $pids 2>/dev/null
    for p in $pids; do wait "$p" 2>/dev/null; done
    pids=""
}

# measure LABEL: the window; prints one table row.
measure() {
    sleep 5 # connect, initial dumps, first windows
    m() { curl -sf --max-time 10 "http://127.0.0.1:$mport/metrics"; }
    s0=$(m | awk '/^fabricscope_samples_total / { print $2 }')
    # shellcheck disable=SC2086
    c0=$(ticks $fsc_pid)
    # shellcheck disable=SC2086
    n0=$(ticks $nic_pids)
    t0=$(date +%s%N)
    : >"$tmp/scrapes"
    end=$(($(date +%s) + window))
    while [ "$(date +%s)" -lt "$end" ]; do
        curl -sf --max-time 10 -o "$tmp/metrics" \
            -w '%{time_total} %{size_download} %{time_starttransfer}\n' \
            "http://127.0.0.1:$mport/metrics" >"$tmp/w" || continue
        te=$(now_ms)
        v=$(awk '/^fabric_port_rx_bytes_total\{device="leaf01",port="et-0\/0\/0"\}/ { print $2 }' \
            "$tmp/metrics")
        # the response's first byte (absolute ms): end - total + time to first byte
        ts=$(awk -v te="$te" '{ printf "%.0f", te - 1000 * ($1 - $3) }' "$tmp/w")
        # age (ms) = first byte - (epoch + value / 15e6)
        echo "$(cut -d' ' -f1,2 "$tmp/w") $ts $v" >>"$tmp/scrapes"
        sleep 1
    done
    s1=$(m | awk '/^fabricscope_samples_total / { print $2 }')
    # shellcheck disable=SC2086
    c1=$(ticks $fsc_pid)
    # shellcheck disable=SC2086
    n1=$(ticks $nic_pids)
    t1=$(date +%s%N)
    series=$(grep -c '^[a-z]' "$tmp/metrics")
    # shellcheck disable=SC2086
    rss=$(rss_kb $fsc_pid)
    # shellcheck disable=SC2086
    nrss=$(rss_kb $nic_pids)
    # shellcheck disable=SC2086
    simc=$(ticks $sim_pids)
    # scrape wall ms sorted; sample ages (ms) sorted
    sc=$(awk '{ print $1 * 1000 }' "$tmp/scrapes" | sort -n |
        awk '{ v[NR] = $1 } END { printf "%.1f / %.1f", v[int((NR + 1) / 2)], v[NR] }')
    mib=$(tail -n 1 "$tmp/scrapes" | awk '{ printf "%.1f", $2 / 1048576 }')
    ages=$(awk -v ep="$epoch_ms" '$4 != "" { printf "%.0f\n", $3 - (ep + $4 / 15e6) }' \
        "$tmp/scrapes" | sort -n |
        awk '{ v[NR] = $1 } END { printf "%d / %d / %d", v[1], v[int((NR + 1) / 2)], v[NR] }')
    awk -v lbl="$1" -v s0="$s0" -v s1="$s1" -v c0="$c0" -v c1="$c1" -v n0="$n0" -v n1="$n1" \
        -v t0="$t0" -v t1="$t1" -v tck="$tck" -v series="$series" -v rss="$rss" -v nrss="$nrss" \
        -v nn="$nnodes" -v sc="$sc" -v mib="$mib" -v ages="$ages" -v simc="$simc" 'BEGIN {
            dt = (t1 - t0) / 1e9
            printf "| %s | %.1f | %s | %.0f | %.1f | %s | %d | %s | %s | %s |\n",
                lbl, 100 * (c1 - c0) / tck / dt,
                nn ? sprintf("%.1f", 100 * (n1 - n0) / tck / dt) : "-",
                (s1 - s0) / dt, rss / 1024, nn ? sprintf("%.0f", nrss / 1024) : "-", series,
                sc, mib, ages
        }'
}

echo "| run | switch collector CPU % | NIC pollers CPU % (sum) | samples/s (switch collector) | switch collector RSS MiB | NIC pollers RSS MiB (sum) | series exposed | scrape ms median / max | scrape MiB | leaf01 sample age at scrape ms min / median / max |"
echo "|---|---|---|---|---|---|---|---|---|---|"
for step in "$@"; do
    kind=${step%%:*}
    iv=${step#*:}
    case $kind in
    grow)
        for nsw in 1 7 14 21; do
            nic_pids=""
            nnodes=0
            start_switches "$nsw" "$iv"
            measure "$nsw switches @ $iv"
            stop_all
        done
        ;;
    full)
        start_nics "$nodes"
        nnodes=$nodes
        start_switches 21 "$iv"
        measure "21 switches @ $iv + $nodes B300 @ 100ms"
        stop_all
        ;;
    *)
        echo "unknown step $step" >&2
        exit 2
        ;;
    esac
done
