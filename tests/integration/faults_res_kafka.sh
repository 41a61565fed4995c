#!/bin/sh
# Kafka faults not covered by kafka.outage (broker down mid-run, spool
# re-send) and kafka.restart (crash with a full spool):
#
#   faults_res_kafka.sh FABRICSCOPE KAFKA_MOCK SOURCE_DIR NODE down_at_start
#     The broker is down before the daemon starts and stays down until the
#     replay (fr_replay: 52 events in ~7 s) is done. queue_max is 8, so 8
#     events wait inside librdkafka and the rest on disk. Checks: the daemon
#     starts anyway, logs kafka_brokers_down, broker_up 0; every event is
#     taken (queued = event log lines), none delivered, spool_records 52,
#     spooled_total >= 44; after "up all" the spool drains, delivered =
#     queued, nothing dropped or failed; kcat reads all 52 exactly once, in
#     order per key (kafka_check.py).
#
#   faults_res_kafka.sh ... too_large
#     The broker refuses one produce request with MSG_SIZE_TOO_LARGE
#     (injected in the mock: librdkafka's mock cluster has no
#     message.max.bytes of its own). That request carries the k events
#     produced within linger.ms of each other (1 or 2 with this replay: an
#     END is detected together with the port's next START). Checks: those k
#     (1 <= k <= 4) are counted (delivery_failures k,
#     dropped{reason="delivery_error"} k, nothing else dropped), each logged
#     once (kafka_delivery_failed ... action=dropped), the producer goes on:
#     the other 52 - k arrive exactly once and in order per key, delivered
#     52 - k, the spool is empty at the end, a clean stop with nothing left.
set -u
bin=$1
mock=$2
src=$3
node=$4
part=$5
here=$(dirname "$0")
# shellcheck source=tests/integration/lib.sh
. "$here/lib.sh"
# shellcheck source=tests/integration/kafka_lib.sh
. "$here/kafka_lib.sh"
# shellcheck source=tests/integration/faults_res_lib.sh
. "$here/faults_res_lib.sh"
lib_init

kafka_prereqs || {
    summary
    exit 1
}
mock_start || {
    summary
    exit 1
}
fr_replay "$tmp/flow.replay"
if [ "$part" = down_at_start ]; then
    kafka_yaml "$tmp/fsc.yaml" "    queue_max: 8"
else
    kafka_yaml "$tmp/fsc.yaml" ""
fi
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
m() { value "$1"; }

if [ "$part" = down_at_start ]; then
    mock_cmd "down all"
    start_fsc "$tmp/fsc.yaml"
    wait_exporter || {
        summary
        exit 1
    }
    wait_until 150 grep -q 'event=kafka_brokers_down' "$tmp/fsc.log"
    check_log "the unreachable brokers are logged" 'level=warn event=kafka_brokers_down '
    wait_until 200 grep -q 'event=replay_done' "$tmp/fsc.log" || fail "the replay did not finish"
    poll_metrics 100 '[ "$(m fabricscope_kafka_messages_queued_total)" = "$(logged)" ]'
    check_eq "52 events published" "$(logged)" 52
    check_eq "the exporter took every one" "$(m fabricscope_kafka_messages_queued_total)" 52
    check_eq "broker down in /metrics" "$(m fabricscope_kafka_broker_up)" 0
    check_eq "nothing delivered while down" "$(m fabricscope_kafka_messages_delivered_total)" 0
    check_eq "all 52 wait in the spool" "$(m fabricscope_kafka_spool_records)" 52
    check_eq "8 inside librdkafka (queue_max)" "$(m fabricscope_kafka_queue_messages)" 8
    check "the rest waited on disk (spooled_total '$(m fabricscope_kafka_spooled_total)')" \
        ge "$(m fabricscope_kafka_spooled_total)" 44
    check "the daemon is still running" kill -0 "$fsc_pid"

    mock_cmd "up all"
    poll_metrics 300 '[ "$(m fabricscope_kafka_spool_records)" = 0 ] &&
        [ "$(m fabricscope_kafka_messages_delivered_total)" = 52 ]'
    check_eq "delivered once the broker appeared" "$(m fabricscope_kafka_messages_delivered_total)" 52
    check_eq "the spool drained" "$(m fabricscope_kafka_spool_records)" 0
    check_eq "spool bytes 0" "$(m fabricscope_kafka_spool_bytes)" 0
    check_eq "nothing dropped" "$(fr_sum_metric fabricscope_kafka_dropped_total)" 0
    check_eq "no delivery failure" "$(m fabricscope_kafka_delivery_failures_total)" 0
    poll_metrics 100 '[ "$(m fabricscope_kafka_broker_up)" = 1 ]'
    check_eq "broker up in /metrics" "$(m fabricscope_kafka_broker_up)" 1
    check_log "the broker's arrival is logged" 'event=kafka_brokers_up '
    stop_pid "$fsc_pid" 150
    check_eq "clean exit" "$stop_rc" 0
    fsc_pid=""
    check_log "nothing left at stop" "event=kafka_stopped delivered=[0-9]+ left=0 "
    kcat_all "$tmp/kcat.out"
    check "kcat: every event exactly once, in order, as logged" \
        python3 "$here/kafka_check.py" --run "$tmp/fsc.log" --consumed "$tmp/kcat.out" \
        --types microburst,counter_reset
else
    start_fsc "$tmp/fsc.yaml"
    wait_exporter || {
        summary
        exit 1
    }
    poll_metrics 150 'ge "$(m fabricscope_kafka_messages_delivered_total)" 3'
    check "events delivered before the fault" ge "$(m fabricscope_kafka_messages_delivered_total)" 3
    mock_cmd "error produce MSG_SIZE_TOO_LARGE 1"
    wait_until 200 grep -q 'event=replay_done' "$tmp/fsc.log" || fail "the replay did not finish"
    poll_metrics 200 '[ "$(m fabricscope_kafka_spool_records)" = 0 ] &&
        [ "$(m fabricscope_kafka_messages_queued_total)" = "$(logged)" ]'
    check_eq "52 events published" "$(logged)" 52
    check_eq "the exporter took every one" "$(m fabricscope_kafka_messages_queued_total)" 52
    k=$(series_value fabricscope_kafka_dropped_total reason=delivery_error)
    check "the refused request's events are counted as dropped (got '$k')" \
        eval '[ "${k:-0}" -ge 1 ] && [ "$k" -le 4 ]'
    k=${k:-0}
    check_eq "each counted as a delivery failure" \
        "$(m fabricscope_kafka_delivery_failures_total)" "$k"
    check_eq "nothing else dropped" "$(fr_sum_metric fabricscope_kafka_dropped_total)" "$k"
    check_eq "the others delivered" "$(m fabricscope_kafka_messages_delivered_total)" $((52 - k))
    check_eq "the spool is empty (the refused records passed)" \
        "$(m fabricscope_kafka_spool_records)" 0
    check_eq "each logged once" \
        "$(fr_log_count 'level=error event=kafka_delivery_failed .*error=MSG_SIZE_TOO_LARGE action=dropped')" "$k"
    check_eq "no other delivery failure logged" "$(fr_log_count 'event=kafka_delivery_failed')" "$k"
    stop_pid "$fsc_pid" 150
    check_eq "clean exit" "$stop_rc" 0
    fsc_pid=""
    check_log "nothing left at stop" "event=kafka_stopped delivered=[0-9]+ left=0 "
    kcat_all "$tmp/kcat.out"
    check "kcat: the other events exactly once and in order, $k missing" \
        python3 "$here/faults_res_check.py" --run "$tmp/fsc.log" --consumed "$tmp/kcat.out" \
        --missing "$k"
fi

if [ "$fails" -ne 0 ]; then
    echo "--- fabricscope log (without detector events) ---"
    grep -v " event=detect " "$tmp/fsc.log" | cut -c1-300 | tail -30
fi
summary
