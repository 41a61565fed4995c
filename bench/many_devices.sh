#!/bin/sh
# Many devices per collector (docs/PERFORMANCE.md "Many devices per
# collector"): one collector for D simulated QFX5240 targets with Junos
# reporting at 2 s, D = 100, 250, 500 by default; numbers, not pass/fail; not
# in ctest. gnmic users report lost metrics past ~150 devices per instance
# (openconfig/gnmic#850) and memory blow-ups past 400 (#234).
#
#   bench/many_devices.sh [-B BUILD_DIR] [-w WINDOW_S] [-u WARMUP_S] [-p PORTS]
#                         [-q QUEUES] [-t TARGETS_PER_SIM] [-n B300_NODES] [-k] [D ...]
#   default: build, 60 s window, 30 s warm-up, 32 ports, 4 queues, 100 targets
#   per simulator process, 56 B300 nodes; D = 100 250 500; -k keeps the
#   working directory (configs, logs, the last scrape of each D) and prints it
#
# Switches: ceil(D / T) tests/sim/gnmi_sim processes, each serving T targets
# (--targets: one gRPC server and port per target, one thread for all),
# --junos-cadence --min-interval 2s: 2 s intervals, 10 ports per interval
# (each port every P/10 intervals), eom per batch, 2 s counter copies. One
# gnmi source per target (device leafK, sample_interval 2s, the default plan:
# four Subscribe streams -- interfaces, queues (qos), rest, links), and a
# topology with every port at 400G (utilization histograms and microburst
# state: the engine's larger per-series cost). Per target and round of ports
# (ceil(P / 10) intervals: 10 ports per interval, the last batch shorter) the
# simulator sends P x (16 + 19 + 2 + 3 + Q x 6) updates (interfaces, ethernet
# with PFC per priority, FEC, speeds, qos): 32 x 64 per 8 s = 256/s with the
# defaults.
#
# B300: N nodes x 16 interfaces at 100 ms, one collector process each with one
# nic source on its own fabricscope-nic-fixture tree (fixture: true), as
# the DaemonSet runs them (deploy/kubernetes). They cannot join the switch
# collector: N x 16 x 76 = 68 096 counter files held open, above this box's
# 20 000 descriptor limit (soft and hard). They run for the whole bench and
# are measured in every window beside the switch collector (in the field
# each runs on its own node). The trees are not stepped.
#
# Per D, over WINDOW seconds after WARMUP: the switch collector's CPU
# (utime + stime of all threads from /proc/PID/stat, in cores), VmRSS and
# VmHWM, threads, samples/s the engine took (fabricscope_samples_total),
# gNMI updates/s received against what the simulators send, series known
# (fabricscope_series summed) and lines exposed, streams up, the time from
# the collector's start until every stream had logged gnmi_stream_up
# ("> WARMUP" when some had not by the end of the warm-up), and, since the
# start: sequence gaps (fabricscope_gnmi_sequence_gaps_total, lost Junos
# messages), engine gaps (fabricscope_gaps_total, intervals > max_gap),
# reconnects + resubscribes, series dropped by limits; /metrics scraped every
# 15 s (Prometheus' default; curl time_total and bytes, identity encoding).
# Also the simulators' and the NIC pollers' CPU. Everything on 127.0.0.1;
# every process is stopped by PID. FSC_WRAP="bench/heaptrack_wrap.sh OUT"
# runs the switch collector under heaptrack (docs/PERFORMANCE.md "Memory per
# series").
set -u
build=build
window=60
warmup=30
ports=32
queues=4
per_sim=100
nodes=56
keep=0
while getopts B:w:u:p:q:t:n:k opt; do
    case $opt in
    B) build=$OPTARG ;;
    w) window=$OPTARG ;;
    u) warmup=$OPTARG ;;
    p) ports=$OPTARG ;;
    q) queues=$OPTARG ;;
    t) per_sim=$OPTARG ;;
    n) nodes=$OPTARG ;;
    k) keep=1 ;;
    *)
        echo "usage: $0 [-B BUILD] [-w WINDOW_S] [-u WARMUP_S] [-p PORTS] [-q QUEUES]" \
            "[-t TARGETS_PER_SIM] [-n B300_NODES] [-k] [DEVICES ...]" >&2
        exit 2
        ;;
    esac
done
shift $((OPTIND - 1))
[ $# -gt 0 ] || set -- 100 250 500
bin=$build/collector/fabricscope
sim=$build/tests/sim/gnmi_sim
fixture=$build/collector/fabricscope-nic-fixture
for f in "$bin" "$sim" "$fixture"; do
    [ -x "$f" ] || {
        echo "missing $f: cmake --build $build -j2 --target fabricscope gnmi_sim fabricscope-nic-fixture" >&2
        exit 2
    }
done
tmp=$(mktemp -d)
pids=""     # everything still running (cleanup)
nic_pids="" # the B300 pollers (whole bench)
cleanup() {
    for p in $pids; do kill "$p" 2>/dev/null; done
    for p in $pids; do wait "$p" 2>/dev/null; done
    pids=""
    if [ "$keep" -eq 1 ]; then
        echo "kept: $tmp" >&2
    else
        rm -rf "$tmp"
    fi
}
trap cleanup EXIT
trap 'exit 1' INT TERM
tck=$(getconf CLK_TCK)

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
status_kb() { # FIELD PID... -> summed field of /proc/PID/status (kB)
    _f=$1
    shift
    for _p in "$@"; do cat "/proc/$_p/status" 2>/dev/null; done |
        awk -v f="$_f:" '$1 == f { s += $2 } END { printf "%d\n", s }'
}
# stop_pids TENTHS PID...: SIGTERM, up to TENTHS x 0.1 s, then SIGKILL;
# drops them from pids.
stop_pids() {
    _max=$1
    shift
    for _p in "$@"; do kill "$_p" 2>/dev/null; done
    _i=0
    for _p in "$@"; do
        while kill -0 "$_p" 2>/dev/null && [ "$_i" -lt "$_max" ]; do
            sleep 0.1
            _i=$((_i + 1))
        done
        kill -0 "$_p" 2>/dev/null && kill -KILL "$_p" 2>/dev/null
        wait "$_p" 2>/dev/null
    done
    _keep=""
    for _p in $pids; do
        case " $* " in *" $_p "*) ;; *) _keep="$_keep $_p" ;; esac
    done
    pids=$_keep
}
# sum_metric REGEX FILE: sum of the values of the lines matching ^REGEX.
sum_metric() { grep -E "^$1" "$2" | awk '{ s += $NF } END { printf "%.0f\n", s }'; }

# start_nics N: N collectors, one nic source each, on their own fixture tree.
start_nics() {
    k=1
    while [ "$k" -le "$1" ]; do
        d=$tmp/nic$k
        "$fixture" init "$d/root" --devices 16 >/dev/null || exit 1
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

# start_switches D: the simulators (sim_pids), the config, the collector
# (fsc_pid, mport).
start_switches() {
    sim_pids=""
    : >"$tmp/ports"
    left=$1
    s=0
    while [ "$left" -gt 0 ]; do
        n=$per_sim
        [ "$left" -ge "$n" ] || n=$left
        "$sim" --listen 127.0.0.1:0 --targets "$n" --ports "$ports" --queues "$queues" \
            --junos-cadence --min-interval 2s --utilization 0.3 --system-id "sim$s" \
            --duration 3600s >"$tmp/sim$s.out" 2>"$tmp/sim$s.err" &
        sim_pids="$sim_pids $!"
        pids="$pids $!"
        wait_for "$tmp/sim$s.out" "/ target=$((n - 1)) /p" 300 >/dev/null || {
            echo "gnmi_sim $s did not start" >&2
            cat "$tmp/sim$s.err" >&2
            exit 1
        }
        sed -n 's/^listening port=\([0-9]*\) .*/\1/p' "$tmp/sim$s.out" >>"$tmp/ports"
        left=$((left - n))
        s=$((s + 1))
    done
    awk -v ports="$ports" -v state="$tmp/sw-state" '
        { p[NR] = $1 }
        END {
            print "log: {level: warn}"
            print "sources:"
            for (k = 1; k <= NR; k++)
                printf "  - {name: leaf%03d, type: gnmi, address: \"127.0.0.1:%d\", " \
                    "sample_interval: 2s}\n", k, p[k]
            print "exporters:"
            print "  prometheus: {listen: \"127.0.0.1:0\"}"
            print "state_dir: " state
            print "topology:"
            print "  devices:"
            for (k = 1; k <= NR; k++) {
                printf "    - name: leaf%03d\n      role: leaf\n      ports:\n", k
                for (i = 0; i < ports; i++)
                    printf "        - {name: et-0/0/%d, speed: 400G, role: %s}\n", i,
                        i < ports / 2 ? "downlink" : "uplink"
            }
        }' "$tmp/ports" >"$tmp/sw.yaml"
    : >"$tmp/sw.log"
    fsc_t0=$(date +%s%N)
    # FSC_WRAP: a command that execs the rest (bench/heaptrack_wrap.sh OUT).
    # shellcheck disable=SC2086 # FSC_WRAP is words
    ${FSC_WRAP:-} "$bin" run -c "$tmp/sw.yaml" --log-level info 2>"$tmp/sw.log" &
    fsc_pid=$!
    pids="$pids $fsc_pid"
    mport=$(wait_for "$tmp/sw.log" 's/.*event=exporter_started .* port=\([0-9]*\).*/\1/p' 300) || {
        echo "collector did not start" >&2
        head -c 3000 "$tmp/sw.log" >&2
        exit 1
    }
}

scrape() { # FILE -> "time_total size_download" on stdout
    curl -sf --max-time 60 -o "$1" -w '%{time_total} %{size_download}\n' \
        "http://127.0.0.1:$mport/metrics"
}

# streams_up: distinct streams that have logged gnmi_stream_up so far.
streams_up() {
    grep -o 'event=gnmi_stream_up source=[^ ]* device=[^ ]* stream=[^ ]*' "$tmp/sw.log" |
        sort -u | wc -l
}

# measure D: warm-up (polling the log for the time every stream was up,
# counted from the collector's start), window, one table row.
measure() {
    up_s="> $warmup"
    wend=$((fsc_t0 + warmup * 1000000000))
    while [ "$(date +%s%N)" -lt "$wend" ]; do
        if [ "$(streams_up)" -ge $((4 * $1)) ]; then
            up_s=$(awk -v a="$fsc_t0" -v b="$(date +%s%N)" 'BEGIN { printf "%.1f", (b - a) / 1e9 }')
            break
        fi
        sleep 0.2
    done
    now=$(date +%s%N)
    [ "$now" -ge "$wend" ] || sleep "$(awk -v a="$now" -v b="$wend" 'BEGIN { printf "%.3f", (b - a) / 1e9 }')"
    scrape "$tmp/m0" >/dev/null
    # shellcheck disable=SC2086 # one word per PID
    c0=$(ticks $fsc_pid)
    # shellcheck disable=SC2086
    n0=$(ticks $nic_pids)
    # shellcheck disable=SC2086
    x0=$(ticks $sim_pids)
    t0=$(date +%s%N)
    : >"$tmp/scrapes"
    end=$(($(date +%s) + window))
    while [ "$(date +%s)" -lt "$end" ]; do
        sleep 15
        scrape "$tmp/m1" >>"$tmp/scrapes"
    done
    # shellcheck disable=SC2086
    c1=$(ticks $fsc_pid)
    # shellcheck disable=SC2086
    n1=$(ticks $nic_pids)
    # shellcheck disable=SC2086
    x1=$(ticks $sim_pids)
    t1=$(date +%s%N)
    rss=$(status_kb VmRSS "$fsc_pid")
    hwm=$(status_kb VmHWM "$fsc_pid")
    thr=$(sed -n 's/^Threads:[[:space:]]*//p' "/proc/$fsc_pid/status")
    # shellcheck disable=SC2086
    nrss=$(status_kb VmRSS $nic_pids)
    m=$tmp/m1
    s0=$(sum_metric 'fabricscope_samples_total ' "$tmp/m0")
    s1=$(sum_metric 'fabricscope_samples_total ' "$m")
    u0=$(sum_metric 'fabricscope_gnmi_updates_total' "$tmp/m0")
    u1=$(sum_metric 'fabricscope_gnmi_updates_total' "$m")
    series=$(sum_metric 'fabricscope_series\{' "$m")
    lines=$(grep -c '^[a-z]' "$m")
    up=$(sum_metric 'fabricscope_gnmi_stream_up\{' "$m")
    seqgaps=$(sum_metric 'fabricscope_gnmi_sequence_gaps_total' "$m")
    gaps=$(sum_metric 'fabricscope_gaps_total ' "$m")
    rec=$(sum_metric 'fabricscope_gnmi_(reconnects|resubscribes)_total' "$m")
    dropped=$(sum_metric 'fabricscope_series_dropped_total' "$m")
    unknown=$(sum_metric 'fabricscope_unknown_series_samples_total' "$m")
    sc=$(awk '{ print $1 * 1000 }' "$tmp/scrapes" | sort -n |
        awk '{ v[NR] = $1 } END { printf "%.0f / %.0f", v[int((NR + 1) / 2)], v[NR] }')
    mib=$(tail -n 1 "$tmp/scrapes" | awk '{ printf "%.1f", $2 / 1048576 }')
    awk -v d="$1" -v s0="$s0" -v s1="$s1" -v u0="$u0" -v u1="$u1" -v c0="$c0" -v c1="$c1" \
        -v n0="$n0" -v n1="$n1" -v x0="$x0" -v x1="$x1" -v t0="$t0" -v t1="$t1" -v tck="$tck" \
        -v series="$series" -v lines="$lines" -v rss="$rss" -v hwm="$hwm" -v thr="$thr" \
        -v nrss="$nrss" -v nn="$nodes" -v up="$up" -v sg="$seqgaps" -v gaps="$gaps" \
        -v rec="$rec" -v dropped="$dropped" -v unknown="$unknown" -v sc="$sc" -v mib="$mib" \
        -v q="$queues" -v ports="$ports" -v up_s="$up_s" 'BEGIN {
            dt = (t1 - t0) / 1e9
            batches = int((ports + 9) / 10) # a round of ports: 10 per 2 s interval, the last short
            want = d * ports * (16 + 19 + 2 + 3 + q * 6) / (2 * batches) # if, eth+pfc, fec, speed, qos
            printf "| %d | %d / %d | %.0f | %.0f / %.0f | %.2f | %.0f / %.0f | %d | %d / %d | %s / %d | %s | %d / %d / %d | %s | %s | %.2f | %s |\n",
                d, series, lines, (s1 - s0) / dt, (u1 - u0) / dt, want,
                (c1 - c0) / tck / dt, rss / 1024, hwm / 1024, thr, sg, gaps, up, 4 * d, up_s,
                rec, dropped, unknown, sc, mib, (x1 - x0) / tck / dt,
                nn ? sprintf("%.2f / %.0f", (n1 - n0) / tck / dt, nrss / 1024) : "-"
        }'
}

[ "$nodes" -eq 0 ] || start_nics "$nodes"
echo "| devices | series known / lines exposed | samples/s | gNMI updates/s received / sent | collector CPU cores | RSS MiB (VmRSS / VmHWM) | threads | sequence gaps / engine gaps | streams up / expected | every stream up after (s) | reconnects / series dropped / unknown-series samples | scrape ms median / max | scrape MiB | simulators CPU cores | $nodes B300 pollers CPU cores / RSS MiB |"
echo "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"
for d in "$@"; do
    start_switches "$d"
    measure "$d"
    # The collector first (the simulators going away would log retries); it
    # tells every source to stop, then waits for each: up to 120 s, timed.
    ts=$(date +%s%N)
    stop_pids 1200 "$fsc_pid"
    echo "# $d devices: the collector stopped in $((($(date +%s%N) - ts) / 1000000)) ms" >&2
    # shellcheck disable=SC2086
    stop_pids 100 $sim_pids
    [ "$keep" -eq 0 ] || for f in sw.yaml sw.log m1; do mv "$tmp/$f" "$tmp/$d.$f"; done
done
