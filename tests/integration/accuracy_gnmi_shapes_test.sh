#!/bin/sh
# End-to-end rate accuracy through a gNMI target that is not our simulator:
# tests/interop/gnmi_js/target.js --junos-cadence (@grpc/grpc-js, real time)
# reports counter shapes by formula, the real daemon collects them, and
# gnmi_shapes_check.py judges every 10 s window and fine rate it sent on
# remote_write (a scripted receiver) and each /metrics scrape against the
# same formulas (never against fabricscope's own output). CASE:
#   batches_jJ  a Junos leaf (profile junos, sample_interval 2s,
#               counter_copy profile: the defaults) whose 32 ports come as 4
#               batches per 2 s interval, read at +0.10/+0.35/+0.60/+0.85 s,
#               showing PFE copies taken at +1.40 s (a phase no read is near),
#               stamps = read time +- J ms uniform, Juniper header with
#               sequence numbers and eom; ports 0-27 steady at (p+1) x 1e9
#               B/s rx (half tx), 28-31 ramping by 1e8 B/s per s (tx half).
#   batches     batches_j0, _j5, _j20 and _j50 at once: this script runs
#               itself once per variant, in parallel (each with its own
#               target, receiver and daemon; all light), and passes when
#               all four do. About 70 s instead of 4 x 65 s.
#   mixed       one device (sample_interval_grid: none, 100 ms, default
#               counter_copy) with live 100 ms counters on et-0/0/0-1 and 2 s
#               copies on et-0/0/2-3 (75 and 100 Gb/s rx), read every 100 ms.
#   faults      batches_j5's device plus: batch 1 of interval 15 lost (its
#               sequence numbers skipped), batch 2 of interval 17 sent 300 ms
#               late (after batch 3: out of order on the wire), et-0/0/5's
#               counters cleared at 41 s (last-clear reported), et-0/0/9 down
#               from 47 s for 6 s, every stream ended with UNAVAILABLE at
#               61 s (the client reconnects: new stream creation, sequence
#               numbers from 0).
# COUNTER_COPY (optional): `live` adds counter_copy: live to the source, for
# comparison; the bounds stay the same. By hand, JITTER_MS=J overrides the
# case's stamp jitter and KEEP_TMP=1 keeps the scratch directory.
# The test passes when every bound in gnmi_shapes_check.py's header holds
# (docs/ACCURACY.md, "Independent target: shapes and faults"), and the
# target's and daemon's bookkeeping fits the case (subscribed interval, no
# decode error; faults: the loss seen as a sequence gap, the reconnect).
# node_modules must exist (scripts/setup.sh runs npm ci there). Everything on
# 127.0.0.1; every process stopped by PID; every wait bounded; /metrics is
# scraped about once a second until the target's clock reaches the case's
# end (50-90 s after the target starts).
#   accuracy_gnmi_shapes_test.sh FABRICSCOPE SOURCE_DIR NODE CASE [COUNTER_COPY]
set -u
bin=$1
src=$2
node=$3
case_name=$4
counter_copy=${5:-}
here=$(dirname "$0")
js="$src/tests/interop/gnmi_js"

# shellcheck source=lib.sh source-path=SCRIPTDIR
. "$here/lib.sh"
lib_init
need_gnmi_js "$node" "$js"
# KEEP_TMP=1 keeps the scratch directory (logs, remote_write log, scrapes).
# shellcheck disable=SC2317 # called by the trap
keep_tmp() {
    for _kt_p in $fsc_pid $sim_pid $peer_pid; do stop_pid "$_kt_p"; done
    echo "kept $tmp"
}
[ -z "${KEEP_TMP:-}" ] || trap keep_tmp EXIT

# The four jitter variants in parallel, each a child run of this script;
# peer_pid holds them all, so lib_cleanup stops them if this run is ended.
if [ "$case_name" = batches ]; then
    for j in 0 5 20 50; do
        sh "$0" "$bin" "$src" "$node" "batches_j$j" $counter_copy >"$tmp/j$j.out" 2>&1 &
        peer_pid="$peer_pid $!"
        echo "$!" >"$tmp/j$j.pid"
    done
    for j in 0 5 20 50; do
        wait "$(cat "$tmp/j$j.pid")"
        echo "$?" >"$tmp/j$j.rc"
    done
    peer_pid=""
    for j in 0 5 20 50; do
        echo "=== batches_j$j (exit $(cat "$tmp/j$j.rc")) ==="
        cat "$tmp/j$j.out"
    done
    echo "=== batches: the four variants ==="
    for j in 0 5 20 50; do
        grep -E '^(windows|fine|metrics|result):' "$tmp/j$j.out" | sed "s/^/batches_j$j: /"
        check_eq "batches_j$j: every bound holds" "$(cat "$tmp/j$j.rc")" 0
    done
    summary
    exit
fi

batches="--ports 32 --batch-offsets-ms 100,350,600,850 --copy-phase-ms 1400"
batches="$batches --ramp-ports 28-31 --ramp-per-s 100000000"
ports=32
interval=2s
want_interval=2000
extra=""
learn=20
case $case_name in
batches_j[0-9]*)
    targs="$batches --jitter-ms ${case_name#batches_j}"
    end_s=64
    ;;
mixed)
    targs="--ports 4 --no-round --batch-offsets-ms 0 --copy-phase-ms 1050 --live-ports 0-1"
    targs="$targs --rate-unit 3125000000 --jitter-ms 0"
    ports=4
    interval=100ms
    want_interval=100
    extra="    sample_interval_grid: none"
    learn=10
    end_s=50
    ;;
faults)
    targs="$batches --jitter-ms 5 --lose-batch 15:1 --late-batch 17:2:300"
    targs="$targs --clear-port 5 --clear-at-s 41 --last-clear"
    targs="$targs --flap-port 9 --flap-at-s 47 --flap-len-s 6 --restart-at-s 61"
    extra="    backoff: {initial: 100ms, max: 1s}"
    end_s=90
    ;;
*)
    echo "FAIL: unknown case '$case_name' (batches_jJ, mixed, faults)"
    exit 1
    ;;
esac
# JITTER_MS overrides the case's stamp jitter (by hand: a fault case
# without the jitter's own effect, say).
[ -z "${JITTER_MS:-}" ] || targs="$targs --jitter-ms $JITTER_MS"
if [ -n "$counter_copy" ]; then
    extra="$extra
    counter_copy: $counter_copy"
fi

# shellcheck disable=SC2086 # targs is a list of options
start_sim "$node" "$js/target.js" --listen 127.0.0.1:0 --proto-dir "$src/proto" --junos-cadence $targs ||
    exit 1
start_ms=$(sed -n 's/^epoch start_ms=\([0-9]*\) .*/\1/p' "$tmp/sim.out")
[ -n "$start_ms" ] || {
    fail "the target printed no epoch line"
    exit 1
}

start_rw_receiver || exit 1

{
    cat <<YAML
sources:
  - name: leaf1
    type: gnmi
    address: "127.0.0.1:$sim_port"
    sample_interval: $interval
$extra
    streams:
      - name: interfaces
        paths: [/interfaces/interface/state/counters, /interfaces/interface/ethernet/state/counters]
exporters:
  prometheus:
    listen: "127.0.0.1:0"
  remote_write:
    url: http://127.0.0.1:$rw_port/api/v1/write
    interval: 1s
    resolution: 200ms
    series: [window_rates, fine_rates]
topology:
  devices:
    - name: leaf1
      role: leaf
      ports:
YAML
    leaf_port_lines "$ports"
} >"$tmp/fsc.yaml"

"$bin" check-config "$tmp/fsc.yaml" >"$tmp/check.out" 2>"$tmp/check.err"
check_eq "check-config accepts the config" "$?" 0
start_fsc "$tmp/fsc.yaml"
wait_exporter || exit 1

# Scrape /metrics about once a second until the target's clock passes the
# case's end (bounded: end_s + 30 scrapes at most). The sleep paces the
# scrapes (the check judges each one); it waits for no condition.
mkdir "$tmp/scrapes"
end_ms=$((start_ms + end_s * 1000))
n=0
while [ "$(date +%s%3N)" -lt "$end_ms" ] && [ "$n" -lt $((end_s + 30)) ]; do
    if ! kill -0 "$fsc_pid" 2>/dev/null; then
        fail "the daemon exited during the run"
        break
    fi
    now=$(date +%s%3N)
    fetch_metrics "$tmp/scrapes/m.$now" || rm -f "$tmp/scrapes/m.$now"
    sleep 1
    n=$((n + 1))
done
last=$(find "$tmp/scrapes" -name 'm.*' | sort | tail -n 1)
if [ -n "$last" ]; then cp "$last" "$tmp/metrics"; else : >"$tmp/metrics"; fi

# What the daemon's bookkeeping says (for the log and docs/ACCURACY.md).
echo "--- daemon counters at the end ($case_name${counter_copy:+, counter_copy: $counter_copy}) ---"
own='windows_withheld_total|copy_groups|copy_relocks_total|sample_verdicts_total'
own="$own|gnmi_(sequence_gaps|resubscribes|decode_errors)_total|events_total"
grep -E "^fabricscope_($own)" "$tmp/metrics" | grep -v ' 0$'

st='source="leaf1",stream="interfaces"'
check_eq "no decode error" "$(value "fabricscope_gnmi_decode_errors_total\\{$st\\}")" 0
subscribed=$(sed -n 's/^subscribe call=1 .*counters:SAMPLE:\([0-9]*\)$/\1/p' "$tmp/sim.out")
check_eq "the daemon subscribes at $interval" "$subscribed" "$((want_interval * 1000000))"
check "the target serves every $want_interval ms" \
    grep -q "^cadence call=1 interval_ms=$want_interval " "$tmp/sim.out"
if [ "$case_name" = faults ]; then
    check_eq "the target lost batch 15:1" "$(grep -c '^batch call=1 k=15 b=1 .* lost$' "$tmp/sim.out")" 1
    check_eq "the target sent batch 17:2 late" \
        "$(grep -c '^late_sent call=1 batch=17:2 ' "$tmp/sim.out")" 1
    check_eq "the target ended the stream once" "$(grep -c '^restart call=' "$tmp/sim.out")" 1
    check "the daemon subscribed again after the restart" grep -q '^subscribe call=2 ' "$tmp/sim.out"
    # One lost batch: 8 ports x 2 sensors, one message each; the late batch
    # arrives and the restart starts a new numbering: neither is lost.
    check_eq "lost messages: the lost batch's 16, nothing for the late batch or the restart" \
        "$(value "fabricscope_gnmi_sequence_gaps_total\\{$st\\}")" 16
else
    check_eq "one Subscribe call (no reconnect)" "$(grep -c '^subscribe ' "$tmp/sim.out")" 1
    check_eq "no sequence gap" "$(value "fabricscope_gnmi_sequence_gaps_total\\{$st\\}")" 0
fi

# Stop the daemon first: its last reading and flush reach the receiver.
stop_ms=$(date +%s%3N)
stop_pid "$fsc_pid" 100
fsc_pid=""
# shellcheck disable=SC2086 # targs is a list of options
python3 "$here/gnmi_shapes_check.py" --rw "$tmp/rw.log" --target-out "$tmp/sim.out" \
    --scrapes "$tmp/scrapes" --stop-ms "$stop_ms" --learn-s "$learn" -- $targs >"$tmp/check.txt"
rc=$?
echo "--- gnmi_shapes_check.py --stop-ms $stop_ms --learn-s $learn -- $targs ---"
cat "$tmp/check.txt"
check_eq "every window and fine rate within its bound, none missing, none 0 ($case_name)" "$rc" 0

if [ "$fails" -ne 0 ]; then
    echo "--- fabricscope log ---"; grep -v "event=library" "$tmp/fsc.log" | cut -c1-300 | tail -20
    echo "--- target stdout/stderr ---"; head -4 "$tmp/sim.out"; tail -5 "$tmp/sim.err"
fi
summary
