#!/bin/sh
# Kafka events end to end: librdkafka's mock cluster as the broker
# (tests/tools/kafka_mock, bootstrap address through a file), the real daemon
# with the Kafka exporter, consumed by kcat and by kafkajs (an independent
# client; tests/interop/kafka_js).
#
# Sources, so that events of many types come quickly:
#   synth    synthetic 4 x 400G ports sampled every 10 ms, a 50 ms line-rate
#            burst every 500 ms, a 5 s CNP storm every 6 s: microbursts and
#            CNP spikes at a steady rate
#   families the replay fixture tests/fixtures/replay/all_families.replay,
#            played at once: one event of every detector (queue peak, buffer
#            threshold, ECN / reorder spikes, PFC storms, ...)
#   resets   a replay in which one 64-bit counter goes down: a counter_reset
#   leaf9    a gNMI target that does not exist (127.0.0.1:1 refuses): a
#            stream_down START
#   leaf2    the gNMI simulator (tests/sim/gnmi_sim), which ends every call
#            with UNAVAILABLE after 1 s: stream_down START and END, again and
#            again
# Once an event of every type is in the log (~6 s; 30 s at most) the daemon
# stops (SIGTERM: a clean stop flushes). Checks:
#   - every event the bus published (the stats line's events=N) is in the
#     event log, and the exporter reports N delivered, nothing left;
#   - kcat and kafkajs each read every one of the N events exactly once
#     (ids <run id>-1..N), in order per key, in one partition per key, with
#     the type / phase / device / port of its log line and key device/port
#     (tests/integration/kafka_check.py);
#   - every message they read is valid against
#     docs/schema/fabric-event.schema.json (ajv);
#   - before the stop, /metrics shows the fabricscope_kafka_* families:
#     delivered = queued = N so far, queue and spool empty, broker up.
#   kafka_events_test.sh FABRICSCOPE KAFKA_MOCK SOURCE_DIR NODE GNMI_SIM
set -u
bin=$1
mock=$2
src=$3
node=$4
sim=$5
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
start_sim "$sim" --listen 127.0.0.1:0 --ports 2 --queues 0 --interval 100ms --utilization 0.25 \
    --duration 60s --disconnect-after 1s || {
    summary
    exit 1
}

cat >"$tmp/resets.replay" <<'EOF'
0   fabric_port_rx_bytes_total{device="leaf9",port="et-0/0/9"} 1000
100 fabric_port_rx_bytes_total{device="leaf9",port="et-0/0/9"} 2000
200 fabric_port_rx_bytes_total{device="leaf9",port="et-0/0/9"} 5
300 fabric_port_rx_bytes_total{device="leaf9",port="et-0/0/9"} 1005
EOF
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
    seed: 7
  - name: families
    type: replay
    file: $src/tests/fixtures/replay/all_families.replay
    mode: instant
    interval: 100ms
  - name: resets
    type: replay
    file: $tmp/resets.replay
    mode: instant
  - name: leaf9
    type: gnmi
    address: "127.0.0.1:1"
    streams:
      - {name: interfaces, paths: [/interfaces/interface/state/counters]}
  - name: leaf2
    type: gnmi
    address: "127.0.0.1:$sim_port"
    sample_interval: 100ms
    sample_interval_grid: none # a simulator: 100 ms as asked (Junos would get 2 s)
    backoff: {initial: 200ms, max: 400ms}
    streams:
      - {name: interfaces, paths: [/interfaces/interface/state/counters]}
engine:
  windows: [1s, 2s]
topology:
  rails: 2
  devices:
    - name: leaf1
      role: leaf
      rail: 0
      buffer: 165MiB
      ports:
        - {name: et-0/0/1, speed: 400G, role: downlink, peer: "b300-1:ens1f0np0"}
        - {name: et-0/0/32, speed: 400G, role: uplink, peer: "spine1:swp1"}
        - {name: et-0/0/33, speed: 400G, role: uplink, peer: "spine2:swp1"}
    - name: spine1
      role: spine
      ports: [{name: swp1, speed: 400G, role: downlink}]
    - name: spine2
      role: spine
      ports: [{name: swp1, speed: 400G, role: downlink}]
    - name: b300-1
      role: host
      rail: 0
      ports: [{name: ens1f0np0, speed: 400G}]
  port_groups:
    - {name: leaf1-uplinks, members: ["leaf1:et-0/0/32", "leaf1:et-0/0/33"]}
EOF

start_fsc "$tmp/fsc.yaml"
wait_exporter || {
    summary
    exit 1
}
check_log "the Kafka exporter started" 'event=exporter_started exporter=kafka topic=fabric.events run_id=[0-9a-f]{16}'
# Wait (30 s at most) until an event of every type the checks below need is
# in the log, and leaf2's stream came back once (its END line).
types=microburst,cnp_spike,ecn_spike,reorder_spike,pfc_storm,queue_peak,buffer_threshold,uplink_imbalance
types=$types,counter_reset,stream_down
all_types_seen() {
    for t in $(echo "$types" | tr , ' '); do
        grep -q " event=detect kind=$t " "$tmp/fsc.log" || return 1
    done
    grep -q 'kind=stream_down phase=end source=leaf2 .* failed_calls=1$' "$tmp/fsc.log"
}
check "events of every type within 30 s" wait_until 300 all_types_seen
# Events keep coming; wait (bounded) for a moment when all taken so far are
# delivered, then compare the counters.
poll_metrics 100 '[ -n "$(value "fabricscope_kafka_messages_queued_total")" ] &&
    [ "$(value "fabricscope_kafka_messages_queued_total")" = "$(value "fabricscope_kafka_messages_delivered_total")" ] &&
    [ "$(value fabricscope_kafka_queue_messages)" = 0 ]'
queued=$(series_value fabricscope_kafka_messages_queued_total topic=fabric.events)
delivered=$(series_value fabricscope_kafka_messages_delivered_total topic=fabric.events)
check "events were delivered (got '$delivered')" ge "$delivered" 10
check_eq "delivered = queued" "$delivered" "$queued"
check_eq "nothing waits in librdkafka" "$(value fabricscope_kafka_queue_messages)" 0
check_eq "nothing waits in the spool" "$(value fabricscope_kafka_spool_records)" 0
check_eq "spool bytes" "$(value fabricscope_kafka_spool_bytes)" 0
check_eq "broker up" "$(value fabricscope_kafka_broker_up)" 1
check_eq "no delivery failures" "$(series_value fabricscope_kafka_delivery_failures_total topic=fabric.events)" 0
check_eq "nothing dropped" "$(awk '/^fabricscope_kafka_dropped_total/ {s += $NF} END {print s + 0}' "$tmp/metrics")" 0
check_eq "a counter reset was counted" "$(series_value fabricscope_events_total kind=counter_reset)" 1
check "the gNMI stream went down (got '$(series_value fabricscope_events_total kind=stream_down)')" \
    ge "$(series_value fabricscope_events_total kind=stream_down)" 1

stop_pid "$fsc_pid" 150
check_eq "clean exit on SIGTERM" "$stop_rc" 0
fsc_pid=""
published=$(sed -n 's/.*event=stats .* events=\([0-9]*\)$/\1/p' "$tmp/fsc.log" | tail -n 1)
logged=$(grep -c ' event=detect ' "$tmp/fsc.log")
check "events were published (got '$published')" ge "$published" 20
check_eq "every published event is in the event log" "$logged" "$published"
check_log "the exporter delivered all of them at stop" "event=kafka_stopped delivered=$published left=0 "
check_log "leaf9 went down (never up)" \
    'kind=stream_down phase=start source=leaf9 stream=interfaces start=[^ ]+ reason=call_ended grpc_status=14$'
check_log "leaf2 went down when the simulator ended its call" \
    'kind=stream_down phase=start source=leaf2 stream=interfaces start=[^ ]+ reason=call_ended grpc_status=14$'
check_log "and came back up" \
    'kind=stream_down phase=end source=leaf2 stream=interfaces start=[^ ]+ end=[^ ]+ duration_ms=[0-9.]+ reason=call_ended grpc_status=14 failed_calls=1$'

kcat_all "$tmp/kcat.out"
check_eq "kcat read N messages" "$(grep -c '^{' "$tmp/kcat.out")" "$published"
js_consume "$published" "$tmp/js.out" || fail "kafkajs: $(tail -3 "$tmp/js.out.err")"
check "kcat and kafkajs: exactly once, in order, as logged" \
    python3 "$here/kafka_check.py" --run "$tmp/fsc.log" --consumed "$tmp/kcat.out" \
    --consumed "$tmp/js.out" --types "$types"
check "kcat's messages are valid against the schema" schema_check "$tmp/kcat.out"
check "kafkajs' messages are valid against the schema" schema_check "$tmp/js.out"

if [ "$fails" -ne 0 ]; then
    echo "--- fabricscope log (without detector events) ---"
    grep -v " event=detect " "$tmp/fsc.log" | cut -c1-300 | tail -30
fi
summary
