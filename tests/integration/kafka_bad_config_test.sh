#!/bin/sh
# Kafka settings that are wrong, and brokers that are not there.
#
#   kafka_bad_config_test.sh FABRICSCOPE run
#     - an unknown librdkafka property in exporters.kafka.properties: `run`
#       refuses to start (exit 1) and says file:line:col of the property's
#       name; a value librdkafka refuses: file:line:col of the value;
#     - a bootstrap address where nothing listens (127.0.0.1:1): the daemon
#       starts anyway, logs kafka_brokers_down, shows
#       fabricscope_kafka_broker_up 0 in /metrics, keeps running, and stops
#       cleanly on SIGTERM.
#   kafka_bad_config_test.sh FABRICSCOPE check-config
#     - `check-config` finds both property errors without connecting: exit
#       status 2 and the same file:line:col sentences on stderr.
set -u
bin=$1
part=${2:-run}
here=$(dirname "$0")
# shellcheck source=tests/integration/lib.sh
. "$here/lib.sh"
lib_init

# Line 13, column 7: the property's name; column 26: its value.
write_yaml() {
    cat >"$tmp/bad.yaml" <<EOF
sources:
  - name: synth
    type: synthetic
    burst_every: 0s
    storm_every: 0s
exporters:
  prometheus:
    listen: "127.0.0.1:0"
  kafka:
    brokers: ["127.0.0.1:1"]
    properties:
      message.timeout.ms: "5000"
      $1
EOF
}
name_err="$tmp/bad.yaml:13:7: exporters.kafka.properties.no.such.property: librdkafka has no such property"
value_err="$tmp/bad.yaml:13:26: exporters.kafka.properties.socket.timeout.ms: librdkafka refuses the value"

if [ "$part" = check-config ]; then
    write_yaml 'no.such.property: "1"'
    "$bin" check-config "$tmp/bad.yaml" >"$tmp/out" 2>"$tmp/err"
    check_eq "check-config: exit status for an unknown property" "$?" 2
    check "check-config names the property's position" grep -qF "$name_err" "$tmp/err"
    write_yaml 'socket.timeout.ms: "abc"'
    "$bin" check-config "$tmp/bad.yaml" >"$tmp/out" 2>"$tmp/err"
    check_eq "check-config: exit status for a refused value" "$?" 2
    check "check-config names the value's position" grep -qF "$value_err" "$tmp/err"
    write_yaml 'socket.timeout.ms: "30000"'
    "$bin" check-config "$tmp/bad.yaml" >"$tmp/out" 2>"$tmp/err"
    check_eq "check-config accepts good properties" "$?" 0
    summary
    exit
fi

# The kafka section's check asks librdkafka while the config loads, so run
# refuses the file as check-config does: a configuration error (2).
write_yaml 'no.such.property: "1"'
timeout 20 "$bin" run -c "$tmp/bad.yaml" >"$tmp/out" 2>"$tmp/fsc.log"
check_eq "run: exit status for an unknown property" "$?" 2
check "run names the property's position" grep -qF "$name_err" "$tmp/fsc.log"
write_yaml 'socket.timeout.ms: "abc"'
timeout 20 "$bin" run -c "$tmp/bad.yaml" >"$tmp/out" 2>"$tmp/fsc.log"
check_eq "run: exit status for a refused value" "$?" 2
check "run names the value's position" grep -qF "$value_err" "$tmp/fsc.log"

# Nothing listens on 127.0.0.1:1: the daemon starts and keeps retrying.
write_yaml 'socket.timeout.ms: "30000"'
start_fsc "$tmp/bad.yaml"
wait_exporter || {
    summary
    exit 1
}
check_log "the Kafka exporter started" 'event=exporter_started exporter=kafka '
wait_until 150 grep -q 'event=kafka_brokers_down' "$tmp/fsc.log"
check_log "the unreachable brokers are logged" \
    'level=warn event=kafka_brokers_down topic=fabric.events action="keep retrying; events wait in memory"'
poll_metrics 50 '[ "$(value fabricscope_kafka_broker_up)" = 0 ]'
check_eq "fabricscope_kafka_broker_up" "$(value fabricscope_kafka_broker_up)" 0
check_eq "the exporter's families are there" \
    "$(series_value fabricscope_kafka_delivery_failures_total topic=fabric.events)" 0
check "the daemon keeps running" kill -0 "$fsc_pid"
check_eq "the source is up" "$(series_value fabricscope_up source=synth)" 1
stop_pid "$fsc_pid" 150
check_eq "clean exit on SIGTERM" "$stop_rc" 0
fsc_pid=""
check_log "stopped" 'event=stopped '
summary
