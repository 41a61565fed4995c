# shellcheck shell=sh
# The globals below are for the sourcing script (SC2034); $tmp, $src, $mock
# and $node come from it and lib.sh (SC2154).
# shellcheck disable=SC2034,SC2154
# Helpers of the Kafka integration tests (kafka_*_test.sh), sourced after
# lib.sh and lib_init. The broker is librdkafka's mock cluster as a process
# (tests/tools/kafka_mock); consumers are kcat and kafkajs
# (tests/interop/kafka_js, installed by scripts/setup.sh with npm ci); the
# schema check is ajv in the same directory. Every wait is bounded.
#
# Needs: $src (source tree), $mock (kafka_mock), $node.
#
# kafka_prereqs
#     Fails (and returns 1) when kcat, node or the npm packages are missing.
# mock_start
#     Starts kafka_mock with one broker and fabric.events in 4 partitions,
#     bootstrap list in $tmp/bs, commands from $tmp/ctl, stdout $tmp/mock.out;
#     sets peer_pid (stopped by lib_cleanup); waits (10 s) for the list.
# mock_cmd COMMAND
#     Appends COMMAND to the control file and waits (10 s) for its
#     "ok COMMAND" answer.
# kafka_yaml FILE EXTRA_KAFKA_LINES
#     Writes the `exporters:` section (Prometheus on a free port, Kafka on the
#     mock, spool in $tmp/spool, message.timeout.ms 5 s so that an outage of
#     more than 5 s makes deliveries fail and the exporter re-send from its
#     spool) to FILE; EXTRA_KAFKA_LINES (already indented) are appended to
#     the kafka mapping.
# kcat_all OUT
#     Everything on fabric.events, as kcat -J lines, into OUT (30 s at most).
# js_consume COUNT OUT
#     The same through kafkajs (consume.js: until COUNT arrived, + 1 s).
# schema_check FILE...
#     ajv validates every document of FILE... (kcat or kafkajs lines).
# kafka_metric NAME
#     The value of NAME (a sample line prefix) in a fresh scrape.

kafka_js=""
schema=""

kafka_prereqs() {
    kafka_js="$src/tests/interop/kafka_js"
    schema="$src/docs/schema/fabric-event.schema.json"
    if ! command -v kcat >/dev/null 2>&1; then
        fail "kcat not found: run scripts/setup.sh"
        return 1
    fi
    if ! command -v "$node" >/dev/null 2>&1; then
        fail "node ($node) not found: run scripts/setup.sh"
        return 1
    fi
    for m in kafkajs ajv ajv-formats lz4js; do
        if [ ! -d "$kafka_js/node_modules/$m" ]; then
            fail "$kafka_js/node_modules/$m missing: run scripts/setup.sh (npm ci)"
            return 1
        fi
    done
}

mock_start() {
    : >"$tmp/ctl"
    "$mock" --brokers 1 --bootstrap-file "$tmp/bs" --control "$tmp/ctl" \
        --topic fabric.events:4 --duration 300 >"$tmp/mock.out" 2>"$tmp/mock.err" &
    peer_pid=$!
    wait_until 100 test -s "$tmp/bs" || {
        fail "kafka_mock wrote no bootstrap list"
        cat "$tmp/mock.err"
        return 1
    }
}

mock_cmd() {
    echo "$1" >>"$tmp/ctl"
    wait_until 100 grep -qxF "ok $1" "$tmp/mock.out" || {
        fail "kafka_mock did not do '$1'"
        tail -5 "$tmp/mock.out" "$tmp/mock.err"
        return 1
    }
}

kafka_yaml() {
    cat >"$1" <<EOF
exporters:
  prometheus:
    listen: "127.0.0.1:0"
  kafka:
    brokers: ["$(cat "$tmp/bs")"]
    spool_dir: $tmp/spool
$2
EOF
}

kcat_all() {
    timeout 30 kcat -C -b "$(cat "$tmp/bs")" -t fabric.events -o beginning -e -J -q \
        >"$1" 2>"$1.err"
}

js_consume() {
    timeout 60 "$node" "$kafka_js/consume.js" --bootstrap-file "$tmp/bs" --topic fabric.events \
        --count "$1" --timeout-ms 40000 >"$2" 2>"$2.err"
}

schema_check() {
    timeout 60 "$node" "$kafka_js/validate.js" "$schema" "$@"
}

kafka_metric() {
    fetch_metrics && value "$1"
}
