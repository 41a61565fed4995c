#!/bin/sh
# Kafka broker outage: the mock cluster (tests/tools/kafka_mock) refuses
# every connection for 30 s while the daemon's synthetic source keeps
# producing events (a 50 ms microburst every 500 ms over 4 ports, CNP
# storms). The exporter runs with its on-disk spool and the default
# message.timeout.ms (0: librdkafka retries in order until the broker is
# back). Checks:
#   - during the outage: broker down in /metrics, events wait in the spool
#     (spool records and bytes > 0) and in librdkafka's queue;
#   - after the broker is back: the spool empties (records and bytes 0),
#     everything taken is delivered;
#   - after a clean stop: kcat and kafkajs each read every published event
#     exactly once, in order per key, as logged (kafka_check.py, no
#     duplicates allowed), all valid against the JSON Schema.
#   kafka_outage_test.sh FABRICSCOPE KAFKA_MOCK SOURCE_DIR [NODE]
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
kafka_yaml "$tmp/fsc.yaml" ""
cat >>"$tmp/fsc.yaml" <<EOF
sources:
  - name: synth
    type: synthetic
    device: synth-leaf1
    ports: 4
    interval: 10ms
    burst_every: 500ms
    burst_length: 50ms
    storm_every: 6s
    seed: 11
engine:
  windows: [1s, 2s]
EOF

start_fsc "$tmp/fsc.yaml"
wait_exporter || {
    summary
    exit 1
}
poll_metrics 100 'ge "$(value fabricscope_kafka_messages_delivered_total)" 5'
check "events delivered before the outage" ge "$(value fabricscope_kafka_messages_delivered_total)" 5
before=$(value fabricscope_kafka_messages_delivered_total)

mock_cmd "down all"
down_at=$(date +%s)
poll_metrics 150 '[ "$(value fabricscope_kafka_broker_up)" = 0 ]'
check_eq "broker down in /metrics" "$(value fabricscope_kafka_broker_up)" 0
# Events pile up in the spool and in librdkafka's queue (polled, 25 s at most).
poll_metrics 250 'ge "$(value fabricscope_kafka_spool_records)" 10 &&
    ge "$(value fabricscope_kafka_spool_bytes)" 1000 && ge "$(value fabricscope_kafka_queue_messages)" 1'
# Not synchronisation: the outage lasts 30 s (the length is what is tested:
# far beyond librdkafka's reconnect backoff, while events keep coming).
rest=$((down_at + 30 - $(date +%s)))
[ "$rest" -le 0 ] || sleep "$rest"
fetch_metrics
spooled=$(value fabricscope_kafka_spool_records)
check "events wait in the spool during the outage (got '$spooled')" ge "$spooled" 10
check "the spool has bytes on disk" ge "$(value fabricscope_kafka_spool_bytes)" 1000
check "events wait in librdkafka's queue during the outage" ge "$(value fabricscope_kafka_queue_messages)" 1
during=$(value fabricscope_kafka_messages_delivered_total)
check "nothing was delivered while the broker was down ($before -> $during)" \
    eval '[ $((during - before)) -le 4 ]'
check_log "the outage was logged" 'event=kafka_(brokers_down|delivery_failed)'

mock_cmd "up all"
poll_metrics 400 '[ "$(value fabricscope_kafka_spool_records)" = 0 ] &&
    [ "$(value fabricscope_kafka_messages_queued_total)" = "$(value fabricscope_kafka_messages_delivered_total)" ]'
check_eq "the spool is empty again" "$(value fabricscope_kafka_spool_records)" 0
check_eq "spool bytes 0" "$(value fabricscope_kafka_spool_bytes)" 0
check_eq "everything taken is delivered" "$(value fabricscope_kafka_messages_delivered_total)" \
    "$(value fabricscope_kafka_messages_queued_total)"
check "events spooled (spooled_total: '$(value fabricscope_kafka_spooled_total)')" \
    ge "$(value fabricscope_kafka_spooled_total)" 10
check_eq "nothing dropped" "$(awk '/^fabricscope_kafka_dropped_total/ {s += $NF} END {print s + 0}' "$tmp/metrics")" 0
poll_metrics 100 '[ "$(value fabricscope_kafka_broker_up)" = 1 ]'
check_eq "broker up again" "$(value fabricscope_kafka_broker_up)" 1

stop_pid "$fsc_pid" 150
check_eq "clean exit on SIGTERM" "$stop_rc" 0
fsc_pid=""
published=$(sed -n 's/.*event=stats .* events=\([0-9]*\)$/\1/p' "$tmp/fsc.log" | tail -n 1)
check "events were published (got '$published')" ge "$published" 60
check_eq "every published event is in the event log" "$(grep -c ' event=detect ' "$tmp/fsc.log")" \
    "$published"
check_log "nothing left at stop" "event=kafka_stopped delivered=[0-9]+ left=0 "

# The two consumers read at the same time (each bounded by its own timeout).
kcat_all "$tmp/kcat.out" &
kcat_pid=$!
js_consume "$published" "$tmp/js.out" || fail "kafkajs: $(tail -3 "$tmp/js.out.err")"
wait "$kcat_pid"
check "kcat and kafkajs: every event exactly once, in order, as logged" \
    python3 "$here/kafka_check.py" --run "$tmp/fsc.log" --consumed "$tmp/kcat.out" \
    --consumed "$tmp/js.out" --types microburst,cnp_spike
check "valid against the schema" schema_check "$tmp/kcat.out" "$tmp/js.out"

if [ "$fails" -ne 0 ]; then
    echo "--- fabricscope log (without detector events) ---"
    grep -v " event=detect " "$tmp/fsc.log" | cut -c1-300 | tail -30
fi
summary
