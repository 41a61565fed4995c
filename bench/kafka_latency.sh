#!/bin/sh
# Latency of detector events to Kafka (docs/PERFORMANCE.md "Latency to
# Kafka"). Numbers, not pass/fail; not in ctest. Loopback only.
#
#   bench/kafka_latency.sh [-B BUILD_DIR] [-l] [-i LOAD_INTERVAL] [-k DIR] [SECONDS]
#   default: build, no background load, 60 s
#
#   -k   keep the raw data in DIR: recv.tsv (receive ns, CreateTime ms, value
#        per message), fsc.log, fsc.yaml
#
#   -l   background load in the same collector: the 21 switches of
#        bench/cluster_load.sh (14 gnmi_sim leaves x 128 x 400G ports on two
#        streams, 7 OTLP spines x 32 ports from one otlp_load) at
#        LOAD_INTERVAL (-i, default 100ms). Without it only the event sources
#        below run.
#
# The broker is librdkafka's mock cluster (tests/tools/kafka_mock, one
# broker, fabric.events in 4 partitions); the collector exports to it with the
# Kafka exporter's defaults (linger 5 ms, lz4, no spool). Event sources, at a
# known cadence:
#   synth  synthetic switch, 8 x 400G ports sampled every 10 ms, a 100 ms
#          line-rate burst every 2 s (microburst start + end) and a 5 s CNP
#          storm every 10 s (cnp_spike start / end)
#   bleaf  a gnmi_sim target, 4 x 400G ports sampled every 100 ms over gNMI,
#          a 300 ms line-rate burst on et-0/0/0 every 2 s (microburst,
#          queue_peak, and whatever the burst's pause / ECN counters trigger)
# kcat consumes fabric.events (-u, fetch.wait.max.ms 1) printing each
# message's timestamp (%T: CreateTime, set by librdkafka when the exporter
# hands it the event) and value; a python3 reader stamps every line with its
# receive wall time. The mock broker answers an empty fetch only after the
# consumer's fetch.wait.max.ms (a real broker answers as soon as data comes),
# hence 1 ms: otherwise up to that wait would be added to every delivery.
# Per event (ms):
#   detect  = CreateTime - time_ns   (time_ns: the instant the message's
#             phase happened in device time -- the end for end / instant, the
#             start for start / update; docs/EVENTS.md)
#   kafka   = receive time - CreateTime
#   total   = receive time - time_ns
# A microburst's START is published when the burst is over (its time_ns is
# the start, so its detect includes the burst's length plus one sample
# interval); its END waits for the aligned 1 s and 10 s windows around the end
# (window_utilization), or is flushed when the next burst on the same series
# ends first (collector/engine/microburst.c): up to ~10 s by design.
# An UPDATE's time_ns is the condition's start, so updates are only counted,
# as are the background load's own events (its OTLP spines' pause counters
# make pfc_storm updates), which still go through the same exporter.
# Only events created after a 5 s warm-up and within the window count.
# CreateTime has 1 ms resolution. Device times here come from the same host
# clock (synthetic source: the collector's; gnmi_sim: CLOCK_REALTIME), so no
# clock skew enters.
set -u
build=build
load=0
liv=100ms
keep=""
while getopts B:li:k: opt; do
    case $opt in
    B) build=$OPTARG ;;
    l) load=1 ;;
    i) liv=$OPTARG ;;
    k) keep=$OPTARG ;;
    *)
        echo "usage: $0 [-B BUILD_DIR] [-l] [-i LOAD_INTERVAL] [-k DIR] [SECONDS]" >&2
        exit 2
        ;;
    esac
done
shift $((OPTIND - 1))
secs=${1:-60}
case $secs in
'' | *[!0-9]*)
    echo "SECONDS must be a whole number" >&2
    exit 2
    ;;
esac
bin=$build/collector/fabricscope
mock=$build/tests/tools/kafka_mock
sim=$build/tests/sim/gnmi_sim
oload=$build/bench/otlp_load
for f in "$bin" "$mock" "$sim" "$oload"; do
    [ -x "$f" ] || {
        echo "missing $f: make -C $build fabricscope kafka_mock gnmi_sim otlp_load" >&2
        exit 2
    }
done
for c in kcat python3; do
    command -v "$c" >/dev/null 2>&1 || {
        echo "$c not found" >&2
        exit 2
    }
done
warm=5
life=$((secs + warm + 120)) # bound on every helper's own lifetime
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
die() {
    echo "$1" >&2
    [ -z "${2:-}" ] || tail -n 20 "$2" >&2
    exit 1
}
# start_sim NAME ARGS...: a gnmi_sim, its port in $sim_port
start_sim() {
    _n=$1
    shift
    "$sim" --listen 127.0.0.1:0 --os junos --duration "${life}s" "$@" >"$tmp/$_n.out" 2>"$tmp/$_n.err" &
    pids="$pids $!"
    sim_port=$(wait_for "$tmp/$_n.out" 's/^listening port=\([0-9]*\)$/\1/p' 100) ||
        die "gnmi_sim $_n did not start" "$tmp/$_n.err"
}

# --- broker and consumer --------------------------------------------------------
"$mock" --brokers 1 --bootstrap-file "$tmp/bs" --topic fabric.events:4 --duration "$life" \
    >"$tmp/mock.out" 2>"$tmp/mock.err" &
pids="$pids $!"
wait_for "$tmp/bs" 's/./&/p' 100 >/dev/null || die "kafka_mock wrote no bootstrap list" "$tmp/mock.err"
bs=$(cat "$tmp/bs")

cat >"$tmp/stamp.py" <<'EOF'
import sys, time
out = open(sys.argv[1], "w", buffering=1)
inp = sys.stdin.buffer
while True:
    line = inp.readline()
    if not line:
        break
    out.write("%d\t%s" % (time.time_ns(), line.decode("utf-8", "replace")))
EOF
mkfifo "$tmp/kcat.fifo"
python3 "$tmp/stamp.py" "$tmp/recv.tsv" <"$tmp/kcat.fifo" &
pids="$pids $!"
timeout "$life" kcat -C -u -q -b "$bs" -t fabric.events -o beginning \
    -X fetch.wait.max.ms=1 -f '%T\t%s\n' >"$tmp/kcat.fifo" 2>"$tmp/kcat.err" &
kcat_pid=$!
pids="$pids $kcat_pid"

# --- event sources and the collector --------------------------------------------
start_sim bleaf --ports 4 --queues 4 --interval 100ms --utilization 0.3 \
    --burst-port 0 --burst-every 2s --burst-length 300ms
cat >"$tmp/fsc.yaml" <<EOF
log: {level: warn}
state_dir: $tmp/state
exporters:
  prometheus: {listen: "127.0.0.1:0"}
  kafka:
    brokers: ["$bs"]
sources:
  - name: synth
    type: synthetic
    device: synth
    ports: 8
    interval: 10ms
    burst_every: 2s
    burst_length: 100ms
    storm_every: 10s
    seed: 7
  - name: bleaf
    type: gnmi
    address: "127.0.0.1:$sim_port"
    sample_interval: 100ms
    streams:
      - {name: interfaces, paths: ["/interfaces/interface/state/counters"]}
      - {name: queues, paths: ["/junos/system/linecard/qmon-sw/"]}
EOF
if [ "$load" -eq 1 ]; then
    i=1
    while [ "$i" -le 14 ]; do
        start_sim "leaf$i" --ports 128 --queues 4 --interval "$liv" --min-interval 1ms \
            --utilization 0.3
        cat >>"$tmp/fsc.yaml" <<EOF
  - name: leaf$(printf %02d "$i")
    type: gnmi
    address: "127.0.0.1:$sim_port"
    sample_interval: $liv
    streams:
      - {name: interfaces, paths: ["/interfaces/interface/state/counters"]}
      - {name: queues, paths: ["/junos/system/linecard/qmon-sw/"]}
EOF
        i=$((i + 1))
    done
    cat >>"$tmp/fsc.yaml" <<EOF
  - {name: spines, type: otlp, grpc_listen: "127.0.0.1:0", http_listen: ""}
EOF
fi
cat >>"$tmp/fsc.yaml" <<EOF
topology:
  devices:
    - name: bleaf
      role: leaf
      buffer: 16MiB
      ports:
        - {name: et-0/0/0, speed: 400G}
        - {name: et-0/0/1, speed: 400G}
        - {name: et-0/0/2, speed: 400G}
        - {name: et-0/0/3, speed: 400G}
EOF
"$bin" run -c "$tmp/fsc.yaml" --log-level info 2>"$tmp/fsc.log" &
fsc_pid=$!
pids="$pids $fsc_pid"
wait_for "$tmp/fsc.log" 's/.*\(event=exporter_started exporter=kafka\).*/\1/p' 100 >/dev/null ||
    die "collector did not start its Kafka exporter" "$tmp/fsc.log"
if [ "$load" -eq 1 ]; then
    oport=$(wait_for "$tmp/fsc.log" 's/.*otlp_listening transport=grpc port=\([0-9]*\).*/\1/p') ||
        die "no OTLP listener" "$tmp/fsc.log"
    ms=$(echo "$liv" | sed -n 's/^\([0-9]*\)ms$/\1/p; s/^\([0-9]*\)s$/\1000/p')
    "$oload" --grpc "127.0.0.1:$oport" --devices 7 --interfaces 32 --metrics 16 \
        --rate $((7 * 32 * 16 * 1000 / ms)) --duration "$life" >"$tmp/load.out" 2>&1 &
    pids="$pids $!"
fi

# --- the window -----------------------------------------------------------------
t0=$(($(date +%s%N) / 1000000 + warm * 1000))
t1=$((t0 + secs * 1000))
tck=$(getconf CLK_TCK)
cpu() { awk '{ print $14 + $15 }' "/proc/$fsc_pid/stat" 2>/dev/null || echo 0; }
sleep "$warm"
c0=$(cpu)
la0=$(cut -d' ' -f1 /proc/loadavg)
sleep "$secs"
c1=$(cpu)
la1=$(cut -d' ' -f1 /proc/loadavg)
sleep 3 # the last events of the window reach the consumer
kill "$fsc_pid" 2>/dev/null
i=0
while kill -0 "$fsc_pid" 2>/dev/null && [ "$i" -lt 100 ]; do
    sleep 0.1
    i=$((i + 1))
done
kill "$kcat_pid" 2>/dev/null
sleep 0.5
if [ -n "$keep" ]; then
    mkdir -p "$keep" && cp "$tmp/recv.tsv" "$tmp/fsc.log" "$tmp/fsc.yaml" "$keep/"
fi

echo "fabric.events over ${secs} s after ${warm} s warm-up;" \
    "background load: $([ "$load" -eq 1 ] && echo "21 switches @ $liv" || echo none);" \
    "load average $la0 -> $la1;" \
    "collector CPU $(awk -v a="$c0" -v b="$c1" -v t="$tck" -v s="$secs" \
        'BEGIN { printf "%.1f", 100 * (b - a) / t / s }') % of a core"
python3 - "$tmp/recv.tsv" "$t0" "$t1" <<'EOF'
import json, math, sys
path, t0, t1 = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
rows = {}
other = {}
bad = 0
for line in open(path, encoding="utf-8"):
    try:
        recv_ns, create_ms, value = line.rstrip("\n").split("\t", 2)
        ev = json.loads(value)
        create = int(create_ms)
        recv = int(recv_ns) / 1e6
        t_ev = int(ev["time_ns"]) / 1e6
    except (ValueError, KeyError):
        bad += 1
        continue
    if not t0 <= create < t1:
        continue
    k = "%s %s/%s" % (ev["device"], ev["type"], ev["phase"])
    # update: time_ns is the condition's start, not this message's instant;
    # other devices: the background load's own events (OTLP spines' PFC)
    if ev["phase"] == "update" or ev["device"] not in ("synth", "bleaf"):
        other[k] = other.get(k, 0) + 1
        continue
    rows.setdefault(k, []).append((create - t_ev, recv - create, recv - t_ev))

def stats(v):
    v = sorted(v)
    p99 = v[max(0, math.ceil(0.99 * len(v)) - 1)]
    return " / ".join(str(int(round(x))) for x in (v[0], v[(len(v) - 1) // 2], p99, v[-1]))

print("| device type/phase | n | detect ms min / median / p99 / max "
      "| Kafka ms min / median / p99 / max | total ms min / median / p99 / max |")
print("|---|---|---|---|---|")
for k in sorted(rows):
    r = rows[k]
    print("| %s | %d | %s | %s | %s |" % (k, len(r), stats([x[0] for x in r]),
                                         stats([x[1] for x in r]), stats([x[2] for x in r])))
allk = [x for r in rows.values() for x in r]
if allk:
    print("| all | %d | %s | %s | %s |" % (len(allk), stats([x[0] for x in allk]),
                                         stats([x[1] for x in allk]), stats([x[2] for x in allk])))
else:
    print("no events in the window")
if other:
    print("not in the table (update phases, background load): %d events, %s" % (
        sum(other.values()), ", ".join("%s %d" % (k, n) for k, n in sorted(other.items()))))
if bad:
    print("(%d lines not understood)" % bad)
EOF
