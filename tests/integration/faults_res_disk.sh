#!/bin/sh
# Disk full for the Kafka spool and the rollup store.
#
# A real ENOSPC: a 256 KiB tmpfs mounted in a private mount namespace
# (`unshare -m`, so nothing outside the test sees it and it goes away with
# the test), holding the spool (exporters.kafka.spool_dir) and the state
# directory (rollup store). A filler file takes all but ~64 KiB. Needs root
# (CI runs as root); skipped with status 77 otherwise, a failure under CI
# (CI=true; lib.sh, skip).
#
#   faults_res_disk.sh FABRICSCOPE KAFKA_MOCK SOURCE_DIR NODE [full|stop_full]
#
# Part `full` (the default):
# 1. The broker is down from the start, so events pile up in the spool; a
#    synthetic source with frequent bursts fills the disk within seconds.
#    Checks: the daemon keeps running and serving /metrics; the write
#    failure is logged (kafka_spool_write_failed / kafka_events_dropped,
#    level error) a bounded number of times; dropped{reason="full"} > 0 and
#    fabricscope_kafka_spool_io_errors_total > 0; at the next minute boundary
#    the rollup write fails and is logged (rollup_write_failed), and
#    fabricscope_rollup_records_total{result="dropped"} and
#    fabricscope_rollup_write_errors_total equal the line's dropped= and
#    write_errors=.
#    Until the 256 KiB write buffer is full, events wait in memory (not
#    lost); then they are dropped and counted.
# 2. The filler is removed (space returns) and the broker comes up. Checks:
#    new events are spooled again (queued grows, no further drops or spool
#    I/O errors); at the next minute the rollup is written again
#    (rollup_write_recovered; records_total{written,dropped} equal its
#    records= and dropped=); delivered + spool_records = queued.
# 3. The broker goes down again until >= 20 records wait; SIGTERM, restart
#    on the same spool: every record
#    left reads back with a good CRC (kafka_spool_recovered corrupt=0, the
#    count = spool_records at stop); `fabricscope report` reads the rollup
#    store without a damaged record; the broker comes up and the spool
#    drains: delivered = recovered + queued in run 2, nothing dropped, and
#    kcat reads no id twice.
#
# Part `stop_full`: the disk is still full at SIGTERM (broker down
# throughout run 1).
# 1. Run 1 fills the disk and then the spool's write buffer (dropped{full}
#    >= 1); SIGTERM. Checks: the daemon exits within STOP_BOUND_MS (the
#    exporter gives up waiting for deliveries after 1 s without one, and the
#    spool's records are safe on disk); the kafka_stopped line accounts for
#    every event the engine published (the stats line's events=):
#    events = delivered + left + dropped, with dropped_at_stop >= 1 (the
#    write buffer that could not be written, counted there); the metric
#    dropped{full} scraped before the stop <= the line's dropped.
# 2. Run 2 on the same spool, the disk still full: kafka_spool_recovered
#    reads back exactly left= records and left_bytes= bytes, corrupt=0 (no
#    torn record). Then the filler goes and the broker comes up: the spool
#    drains, and kcat reads exactly `left` events of run 1 (its run id),
#    none twice.
set -u
bin=$1
mock=$2
src=$3
node=$4
part=${5:-full}
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=tests/integration/lib.sh
. "$here/lib.sh"
[ "$(id -u)" = 0 ] || skip "root (for a private tmpfs)"
command -v unshare >/dev/null 2>&1 || skip "unshare(1) (util-linux, for a private tmpfs)"
if [ -z "${FR_IN_NS:-}" ]; then
    FR_IN_NS=1 exec unshare -m --propagation private sh "$0" "$@"
fi
# shellcheck source=tests/integration/kafka_lib.sh
. "$here/kafka_lib.sh"
# shellcheck source=tests/integration/faults_res_lib.sh
. "$here/faults_res_lib.sh"
lib_init
small=$tmp/small
mkdir -p "$small"
mount -t tmpfs -o size=256k tmpfs "$small" || skip "a tmpfs mount (mount -t tmpfs failed)"
umount_small() {
    umount "$small" 2>/dev/null
    lib_cleanup
}
trap umount_small EXIT

kafka_prereqs || {
    summary
    exit 1
}
mock_start || {
    summary
    exit 1
}
mock_cmd "down all"
# The tmpfs takes whole pages: leave 16 of them.
dd if=/dev/zero of="$small/filler" bs=4k count=1000 2>/dev/null
rm -f "$small/filler"
free_kib=$(df -k "$small" | awk 'NR == 2 {print $4}')
dd if=/dev/zero of="$small/filler" bs=1k count=$((free_kib - 64)) 2>/dev/null
echo "tmpfs: $(df -k "$small" | awk 'NR == 2 {print $4}') KiB free after the filler"

kafka_yaml "$tmp/fsc.yaml" "    spool_max: 1MiB"
sed -i "s|spool_dir: .*|spool_dir: $small/spool|" "$tmp/fsc.yaml"
cat >>"$tmp/fsc.yaml" <<EOF
state_dir: $small/state
sources:
EOF
# Four synthetic leaves with frequent bursts: ~20 KB of events a second, so
# the spool's 256 KiB write buffer fills within seconds of the disk.
for i in 1 2 3 4; do
    cat >>"$tmp/fsc.yaml" <<EOF
  - {name: synth$i, type: synthetic, device: disk-leaf$i, ports: 32, interval: 10ms,
     burst_every: 200ms, burst_length: 50ms, storm_every: 6s, seed: $i}
EOF
done
cat >>"$tmp/fsc.yaml" <<EOF
engine:
  windows: [1s, 2s]
EOF
m() { value "$1"; }
dropped_full() { series_value fabricscope_kafka_dropped_total reason=full; }

# stop_field NAME: NAME=<number> of the last kafka_stopped line.
stop_field() {
    grep 'event=kafka_stopped ' "$tmp/fsc.log" | tail -n 1 | tr ' ' '\n' | sed -n "s/^$1=//p"
}

# The daemon's stop with the broker down and the disk full: the sources
# (4 synthetic) and the Prometheus listener take well under 0.5 s; the
# exporter waits 1 s for a delivery that cannot come. 3 s leaves room for a
# loaded machine and stays far inside the shortest grace period of
# docs/DEPLOY.md (podman stop: 10 s, shared with the other exporters).
STOP_BOUND_MS=3000

part_stop_full() {
    start_fsc "$tmp/fsc.yaml"
    wait_exporter || return 1
    run1_id=$(sed -n 's/.*event=exporter_started exporter=kafka .*run_id=\([0-9a-f]*\).*/\1/p' \
        "$tmp/fsc.log")
    poll_metrics 600 'ge "$(dropped_full)" 1'
    d_scraped=$(dropped_full)
    check "run 1: the disk and then the write buffer filled (dropped{full} '$d_scraped')" \
        ge "$d_scraped" 1
    t0=$(date +%s%N)
    stop_pid "$fsc_pid" 150
    t1=$(date +%s%N)
    check_eq "run 1: clean exit" "$stop_rc" 0
    fsc_pid=""
    stop_ms=$(((t1 - t0) / 1000000))
    check "run 1: stopped within $STOP_BOUND_MS ms (took $stop_ms ms)" \
        eval '[ "$stop_ms" -le "$STOP_BOUND_MS" ]'
    grep -E 'event=(kafka_stopped|stats) ' "$tmp/fsc.log" | cut -c1-300
    events=$(sed -n 's/.*event=stats .* events=\([0-9]*\).*/\1/p' "$tmp/fsc.log" | tail -n 1)
    delivered=$(stop_field delivered)
    left=$(stop_field left)
    left_bytes=$(stop_field left_bytes)
    dropped=$(stop_field dropped)
    at_stop=$(stop_field dropped_at_stop)
    echo "run 1: events $events, delivered $delivered, left $left ($left_bytes bytes)," \
        "dropped $dropped ($at_stop at stop; $d_scraped on /metrics before), stop $stop_ms ms"
    check "run 1: records left on disk (got '$left')" ge "$left" 1
    check "run 1: the unwritable write buffer is counted at stop (got '$at_stop')" \
        ge "$at_stop" 1
    check "run 1: dropped at stop ('$dropped') >= dropped{full} scraped before ($d_scraped)" \
        ge "$dropped" "$d_scraped"
    check_eq "run 1: every published event delivered, left on disk or counted as dropped" \
        "$((${delivered:-0} + ${left:-0} + ${dropped:-0}))" "${events:-none}"
    cp "$tmp/fsc.log" "$tmp/run1.log"

    # Run 2, the disk still full: exactly what the stop line said reads back.
    start_fsc "$tmp/fsc.yaml"
    wait_exporter || return 1
    rec=$(wait_for "$tmp/fsc.log" \
        's/.*event=kafka_spool_recovered .*records=\([0-9]*\) bytes=\([0-9]*\) corrupt=\([0-9]*\).*/\1 \2 \3/p')
    echo "run 2: recovered records, bytes, corrupt: $rec"
    check_eq "run 2: the spool reads back what the stop line said is on disk" \
        "$rec" "$left $left_bytes 0"
    rm -f "$small/filler"
    mock_cmd "up all"
    poll_metrics 300 '[ "$(m fabricscope_kafka_spool_records)" = 0 ] && ge "$(m fabricscope_kafka_messages_delivered_total)" "$left"'
    check_eq "run 2: the spool drained" "$(m fabricscope_kafka_spool_records)" 0
    stop_pid "$fsc_pid" 150
    fsc_pid=""
    kcat_all "$tmp/kcat.out"
    check "kcat: exactly $left events of run 1, none twice" python3 -c '
import json, sys
ids = [json.loads(json.loads(l)["payload"])["id"] for l in open(sys.argv[1]) if l.startswith("{")]
run1 = [i for i in ids if i.startswith(sys.argv[2] + "-")]
print(len(ids), "messages,", len(set(ids)), "ids,", len(run1), "of run 1")
sys.exit(0 if len(ids) == len(set(ids)) and len(run1) == int(sys.argv[3]) else 1)' \
        "$tmp/kcat.out" "$run1_id" "${left:-0}"
}

if [ "$part" = stop_full ]; then
    part_stop_full
    if [ "$fails" -ne 0 ]; then
        for r in run1 fsc; do
            echo "--- $r log (without detector events) ---"
            grep -v " event=detect " "$tmp/$r.log" 2>/dev/null | cut -c1-300 | tail -25
        done
    fi
    summary
    exit
fi

# ---- run 1: the disk fills ----
start_fsc "$tmp/fsc.yaml"
wait_exporter || {
    summary
    exit 1
}
poll_metrics 600 'ge "$(dropped_full)" 1'
check "events dropped once the disk is full (dropped{full} '$(dropped_full)')" ge "$(dropped_full)" 1
check_log "the full disk is logged" \
    'level=error event=kafka_(spool_write_failed|events_dropped) '
check "the daemon still serves /metrics" fetch_metrics
# Rollup: the first minute boundary with the disk full (70 s at most).
wait_until 700 grep -q 'event=rollup_write_failed' "$tmp/fsc.log"
check_log "the rollup's failed minute is logged" \
    'level=error event=rollup_write_failed error=.*dropped=[1-9][0-9]* write_errors=[1-9]'
rlog=$(sed -n 's/.*event=rollup_write_failed .*dropped=\([0-9]*\) write_errors=\([0-9]*\).*/\1 \2/p' \
    "$tmp/fsc.log" | tail -n 1)
rollup_failed_metrics() {
    echo "$(series_value fabricscope_rollup_records_total result=dropped) $(m fabricscope_rollup_write_errors_total)"
}
# /metrics shows the failed minute a moment after the line (5 s at most).
poll_metrics 50 '[ "$(rollup_failed_metrics)" = "$rlog" ]'
check_eq "rollup drops and write errors on /metrics match the log line" \
    "$(rollup_failed_metrics)" "$rlog"
check "spool I/O errors counted ('$(m fabricscope_kafka_spool_io_errors_total)')" \
    ge "$(m fabricscope_kafka_spool_io_errors_total)" 1
fulls=$(fr_log_count 'event=kafka_(spool_write_failed|events_dropped|spool_read_failed)')
secs=$(($(date +%s) - $(stat -c %Y "$tmp/fsc.yaml")))
check "disk-full lines bounded ($fulls in ${secs} s)" eval '[ "$fulls" -le $((secs * 3 + 10)) ]'
check "the daemon is still running" kill -0 "$fsc_pid"

# ---- space returns; the broker comes up and drains the spool ----
rm -f "$small/filler"
mock_cmd "up all"
q0=$(m fabricscope_kafka_messages_queued_total)
poll_metrics 150 '[ "$(m fabricscope_kafka_messages_queued_total)" -gt "$q0" ]'
check "events are spooled again ($q0 -> $(m fabricscope_kafka_messages_queued_total))" \
    eval '[ "$(m fabricscope_kafka_messages_queued_total)" -gt "$q0" ]'
# Drops of events already in flight when the space returned may still be
# counted: wait until 10 more events were spooled with no new drop and no
# spool I/O error (10 spans at most, each 5 s at most); then 20 more events
# must be spooled without any (the span counts events, not seconds).
spooled_without_drops() { # N: N more events spooled, drops and I/O errors unchanged
    fetch_metrics
    _sd_d=$(dropped_full)
    _sd_io=$(m fabricscope_kafka_spool_io_errors_total)
    _sd_want=$(($(m fabricscope_kafka_messages_queued_total) + $1))
    poll_metrics 50 'ge "$(m fabricscope_kafka_messages_queued_total)" "$_sd_want"' || return 1
    [ "$(dropped_full)" = "$_sd_d" ] && [ "$(m fabricscope_kafka_spool_io_errors_total)" = "$_sd_io" ]
}
_sd_n=0
until spooled_without_drops 10; do
    _sd_n=$((_sd_n + 1))
    [ "$_sd_n" -lt 10 ] || break
done
d1=$(dropped_full)
io1=$(m fabricscope_kafka_spool_io_errors_total)
q1=$(m fabricscope_kafka_messages_queued_total)
check "20 more events spooled after $q1 (10 s at most)" \
    poll_metrics 100 'ge "$(m fabricscope_kafka_messages_queued_total)" $((q1 + 20))'
check_eq "no further drops once space returned" "$(dropped_full)" "$d1"
check_eq "no further spool I/O errors once space returned" \
    "$(m fabricscope_kafka_spool_io_errors_total)" "$io1"
wait_until 700 grep -q 'event=rollup_write_recovered' "$tmp/fsc.log"
check_log "the rollup writes again" 'level=info event=rollup_write_recovered records=[1-9]'
fetch_metrics
rlog=$(sed -n 's/.*event=rollup_write_recovered records=\([0-9]*\) dropped=\([0-9]*\).*/\1 \2/p' \
    "$tmp/fsc.log" | tail -n 1)
check_eq "rollup records on /metrics match the recovery line" \
    "$(series_value fabricscope_rollup_records_total result=written) $(series_value fabricscope_rollup_records_total result=dropped)" \
    "$rlog"
# The three figures are read while events flow: a scrape can fall between
# a delivery report and the spool's acknowledgement (or between a batch
# being spooled and counted), so the balance is polled (5 s at most). A lost
# event leaves a deficit that never closes.
balanced() {
    [ "$(($(m fabricscope_kafka_messages_delivered_total) + $(m fabricscope_kafka_spool_records)))" \
        = "$(m fabricscope_kafka_messages_queued_total)" ]
}
poll_metrics 50 balanced
check_eq "everything taken is delivered or counted as dropped" \
    "$(($(m fabricscope_kafka_messages_delivered_total) + $(m fabricscope_kafka_spool_records)))" \
    "$(m fabricscope_kafka_messages_queued_total)"
# Records on disk for run 2 to read back.
mock_cmd "down all"
poll_metrics 150 'ge "$(m fabricscope_kafka_spool_records)" 20'
stop_pid "$fsc_pid" 150
check_eq "run 1: clean exit" "$stop_rc" 0
fsc_pid=""
left=$(sed -n 's/.*event=kafka_stopped .* left=\([0-9]*\) .*/\1/p' "$tmp/fsc.log")
echo "run 1: dropped{full} $d1, spool records at stop $left"
check "records left in the spool at stop (got '$left')" ge "$left" 20
cp "$tmp/fsc.log" "$tmp/run1.log"

# ---- run 2: what is on disk reads back ----
start_fsc "$tmp/fsc.yaml"
wait_exporter || {
    summary
    exit 1
}
wait_until 100 grep -q 'event=kafka_spool_recovered' "$tmp/fsc.log"
check_log "every spooled record reads back (CRC good, nothing cut)" \
    "event=kafka_spool_recovered .*records=$left .*corrupt=0"
mock_cmd "up all"
poll_metrics 300 '[ "$(m fabricscope_kafka_spool_records)" = 0 ] && ge "$(m fabricscope_kafka_messages_delivered_total)" "$left"'
check_eq "run 2: the spool drained" "$(m fabricscope_kafka_spool_records)" 0
check_eq "run 2: nothing dropped" "$(fr_sum_metric fabricscope_kafka_dropped_total)" 0
check_eq "run 2: spool read back without damage or I/O error" \
    "$(m fabricscope_kafka_spool_corrupt_records_total) $(m fabricscope_kafka_spool_io_errors_total)" "0 0"
check_eq "run 2: no torn rollup record after a clean stop" "$(m fabricscope_rollup_torn_records_total)" 0
stop_pid "$fsc_pid" 150
check_eq "run 2: clean exit" "$stop_rc" 0
fsc_pid=""
check_log "run 2: recovered and new events all delivered" "event=kafka_stopped delivered=[0-9]+ left=0 "
"$bin" report --state-dir "$small/state" --from -2h --to now --out "$tmp/report" \
    >"$tmp/report.out" 2>&1
check_eq "the rollup store reads back" "$?" 0
check "no damaged rollup record" eval '! grep -rq "damaged records" "$tmp/report"'
kcat_all "$tmp/kcat.out"
check "kcat: no event twice" python3 -c '
import json, sys
ids = [json.loads(json.loads(l)["payload"])["id"] for l in open(sys.argv[1]) if l.startswith("{")]
print(len(ids), "messages,", len(set(ids)), "ids")
sys.exit(0 if ids and len(ids) == len(set(ids)) else 1)' "$tmp/kcat.out"

if [ "$fails" -ne 0 ]; then
    for r in run1 fsc; do
        echo "--- $r log (without detector events) ---"
        grep -v " event=detect " "$tmp/$r.log" | cut -c1-300 | tail -25
    done
    cat "$tmp/report.out"
fi
summary
