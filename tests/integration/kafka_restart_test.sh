#!/bin/sh
# Kafka exporter crash and restart: SIGKILL during a broker outage with
# events in the spool; the next run delivers them.
#
# Events come from a replay (realtime) written here: 4 ports of device leafr,
# 100 ms samples for 9 s, a line-rate 100 ms burst on port j (1..4) in
# interval k = 8m + 2(j - 1), m = 1..6 (6 microbursts per port: 48 START and
# END events), and one 64-bit counter reset of port j's rx bytes at
# k = 25 + 10j (4 counter_reset events): 52 events per run, all published by
# t = 7 s, nothing after the replay is done.
#
#   run 1: the broker is up at first (some events delivered), then down
#          ("down all" once 5 are delivered); when the replay is done and the
#          exporter has taken every published event (queued = event log
#          lines) and some wait in the spool, the daemon is SIGKILLed.
#   the broker comes back; kcat records what run 1 had delivered.
#   run 2: same config: it recovers the spool (kafka_spool_recovered), sends
#          run 1's records first, then its own 52 events; clean stop.
# Checks: each consumer (kcat, kafkajs) reads every event of both runs
# (ids <run1>-1..52 and <run2>-1..52): none missing, in order per key (run 1's
# before run 2's), valid against the schema. A duplicate is allowed only for
# an event run 1 had delivered before it was killed (its first copy is in the
# kcat snapshot taken between the runs): run 1 cannot record a delivery in
# its spool's ack file in the same instant; the count is printed
# ("allowed duplicates") and any other duplicate fails.
#   kafka_restart_test.sh FABRICSCOPE KAFKA_MOCK SOURCE_DIR [NODE]
set -u
bin=$1
mock=$2
src=$3
node=${4:-node}
here=$(dirname "$0")
# shellcheck source=tests/integration/lib.sh
. "$here/lib.sh"
# shellcheck source=tests/integration/kafka_lib.sh
. "$here/kafka_lib.sh"
lib_init

kafka_prereqs || {
    summary
    exit 1
}
mock_start || {
    summary
    exit 1
}

python3 - "$tmp/flow.replay" <<'PY'
import sys
with open(sys.argv[1], "w") as f:
    tx = [0] * 5
    rx = [10**12] * 5
    for k in range(0, 91):
        for j in range(1, 5):
            if k > 0:
                burst = 8 <= k <= 48 + 2 * (j - 1) and k % 8 == 2 * (j - 1)
                tx[j] += 5000000000 if burst else 1250000000
                rx[j] = 1000 if k == 25 + 10 * j else rx[j] + 1000000000
            f.write(f'{k * 100} fabric_port_tx_bytes_total{{device="leafr",port="p{j}"}} {tx[j]}\n')
            f.write(f'{k * 100} fabric_port_rx_bytes_total{{device="leafr",port="p{j}"}} {rx[j]}\n')
PY
kafka_yaml "$tmp/fsc.yaml" ""
cat >>"$tmp/fsc.yaml" <<EOF
sources:
  - name: flow
    type: replay
    file: $tmp/flow.replay
    mode: realtime
    interval: 100ms
engine:
  windows: [1s, 2s]
EOF

logged() { grep -c ' event=detect ' "$tmp/fsc.log"; }

# ---- run 1 ----
start_fsc "$tmp/fsc.yaml"
wait_exporter || {
    summary
    exit 1
}
poll_metrics 150 'ge "$(value fabricscope_kafka_messages_delivered_total)" 5'
check "run 1 delivered events before the outage" \
    ge "$(value fabricscope_kafka_messages_delivered_total)" 5
mock_cmd "down all"
wait_until 200 grep -q 'event=replay_done' "$tmp/fsc.log" || fail "run 1: the replay did not finish"
# All 52 events logged and taken by the exporter (10 s at most).
poll_metrics 100 '[ "$(logged)" = 52 ] &&
    [ "$(value fabricscope_kafka_messages_queued_total)" = "$(logged)" ]'
n1=$(logged)
check_eq "run 1 published 52 events" "$n1" 52
check_eq "run 1's exporter took all of them" "$(value fabricscope_kafka_messages_queued_total)" "$n1"
waiting=$(value fabricscope_kafka_spool_records)
check "events wait in the spool (got '$waiting')" ge "$waiting" 10
kill -KILL "$fsc_pid"
wait "$fsc_pid" 2>/dev/null
fsc_pid=""
cp "$tmp/fsc.log" "$tmp/run1.log"
echo "run 1: $n1 events published, $waiting in the spool when killed"

mock_cmd "up all"
kcat_all "$tmp/before.out"
delivered1=$(grep -c '^{' "$tmp/before.out")
echo "run 1 had delivered $delivered1 events"
check "run 1 did not deliver everything (the spool has work)" eval '[ "$delivered1" -lt "$n1" ]'

# ---- run 2 ----
start_fsc "$tmp/fsc.yaml"
wait_exporter || {
    summary
    exit 1
}
check_log "run 2 recovered the spool" "event=kafka_spool_recovered .*records=$waiting "
wait_until 200 grep -q 'event=replay_done' "$tmp/fsc.log" || fail "run 2: the replay did not finish"
# All 52 events of run 2 logged, and the spool and librdkafka's queue empty
# (20 s at most).
poll_metrics 200 '[ "$(logged)" = 52 ] && [ "$(value fabricscope_kafka_spool_records)" = 0 ] &&
    [ "$(value fabricscope_kafka_queue_messages)" = 0 ]'
check_eq "run 2: the spool is empty" "$(value fabricscope_kafka_spool_records)" 0
stop_pid "$fsc_pid" 150
check_eq "run 2: clean exit on SIGTERM" "$stop_rc" 0
fsc_pid=""
cp "$tmp/fsc.log" "$tmp/run2.log"
check_eq "run 2 published 52 events" "$(grep -c ' event=detect ' "$tmp/run2.log")" 52

kcat_all "$tmp/kcat.out"
js_consume 104 "$tmp/js.out" || fail "kafkajs: $(tail -3 "$tmp/js.out.err")"
python3 "$here/kafka_check.py" --run "$tmp/run1.log" --run "$tmp/run2.log" \
    --consumed "$tmp/kcat.out" --consumed "$tmp/js.out" --delivered-before "$tmp/before.out" \
    --types microburst,counter_reset >"$tmp/check.out"
check "both runs' events delivered, in order, duplicates only of run 1's deliveries" \
    test $? -eq 0
cat "$tmp/check.out"
check "valid against the schema" schema_check "$tmp/kcat.out" "$tmp/js.out"

if [ "$fails" -ne 0 ]; then
    for r in run1 run2; do
        echo "--- $r log (without detector events) ---"
        grep -v " event=detect " "$tmp/$r.log" | cut -c1-300 | tail -20
    done
fi
summary
