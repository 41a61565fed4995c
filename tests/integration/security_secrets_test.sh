#!/bin/sh
# No secret in any output (docs/SECURITY.md). Every secret kind carries a
# unique marker: the gNMI password (wrong for gnmi_sim, so the source logs
# its failures), the Kafka SASL password (against the mock broker, which
# does not speak SASL: the exporter logs and spools), remote_write's
# basic-auth password and, in a second run, its bearer token (the receiver
# is a closed port: sends fail and log), and the Prometheus listener's
# users (bcrypt hash of a marked password) and bearer tokens (the file holds
# a marked token), exercised with marked wrong credentials. Then every
# output is searched for the marker, plain and base64-encoded as it travels
# in an Authorization header: the daemon's stdout and log, /metrics, the
# status page and every /api/* route, check-config's printout, and the
# Kafka spool (the events as they would reach the broker). Zero hits.
#
#   security_secrets_test.sh BINARY GNMI_SIM KAFKA_MOCK
set -u
bin=$1
sim=$2
mock=$3
# shellcheck source=lib.sh source-path=SCRIPTDIR
. "$(dirname "$0")/lib.sh"
# shellcheck source=security_lib.sh source-path=SCRIPTDIR
. "$(dirname "$0")/security_lib.sh"
lib_init

M=fscSECRETmark7c1e
LPW="$M-listen"
TOKEN="tok-$M-0123456789"
printf '%s\n' "$TOKEN" >"$tmp/tokens"
printf '%s\n' "$M-rw-bearer-from-file" >"$tmp/rw_token"
hash=$(sec_bcrypt "$LPW")

# The Kafka mock (kafka_lib.sh's mock_start: one broker, bootstrap in $tmp/bs).
: >"$tmp/ctl"
"$mock" --brokers 1 --bootstrap-file "$tmp/bs" --control "$tmp/ctl" \
    --topic fabric.events:4 --duration 300 >"$tmp/mock.out" 2>"$tmp/mock.err" &
peer_pid=$!
wait_until 100 test -s "$tmp/bs" || fail "kafka_mock wrote no bootstrap list"
start_sim "$sim" --listen 127.0.0.1:0 --ports 2 --queues 0 --interval 100ms \
    --utilization 0.25 --duration 120s --username telemetry --password 'the-sim-password'
dead_port=$(sec_free_port)

config() { # FILE REMOTE_WRITE_AUTH_LINES
    cat >"$1" <<YAML
state_dir: $tmp/state
sources:
  - name: leaf1
    type: gnmi
    address: "127.0.0.1:$sim_port"
    username: telemetry
    password: "$M-gnmi"
    sample_interval: 100ms
    sample_interval_grid: none # a simulator: 100 ms as asked (Junos would get 2 s)
    connect_timeout: 1s
    backoff: {initial: 100ms, max: 200ms}
    streams:
      - {name: interfaces, paths: ["/interfaces/interface/state/counters"]}
  - name: syn
    type: synthetic
    device: leaf9
    ports: 2
    burst_every: 2s
exporters:
  prometheus:
    listen: "127.0.0.1:0"
    auth:
      basic_users: {prom: "$hash"}
      bearer_tokens_file: $tmp/tokens
  kafka:
    brokers: ["$(cat "$tmp/bs")"]
    spool_dir: $tmp/spool
    sasl: {mechanism: PLAIN, username: kuser, password: "$M-kafka"}
  remote_write:
    url: "http://127.0.0.1:$dead_port/api/v1/write"
    interval: 1s
    timeout: 500ms
$2
YAML
}

b64() { printf '%s' "$1" | base64 -w0; }
# hits FILE...: the number of marker occurrences (plain or base64 of any
# credential pair used below) in FILE...
hits() {
    cat "$@" 2>/dev/null >"$tmp/all"
    n=0
    for pat in "$M" "$(b64 "prom:$LPW")" "$(b64 "prom:$LPW-wrong")" "$(b64 "$M:$LPW")" \
        "$(b64 "kuser:$M-kafka")" "$(b64 "rw:$M-rw-basic")"; do
        c=$(grep -c -F -- "$pat" "$tmp/all")
        n=$((n + c))
    done
    echo "$n"
}

# secrets_paths_used URL: the Kafka exporter (SASL refused) and remote_write
# (closed port) have logged their failures and the spool holds an event.
secrets_paths_used() {
    grep -Eq 'event=kafka_(error|brokers_down) ' "$tmp/fsc.log" &&
        grep -q 'event=remote_write_retry ' "$tmp/fsc.log" &&
        curl -s --max-time 5 -u "prom:$LPW" "$1/metrics" |
        grep -Eq '^fabricscope_kafka_spool_records(\{[^}]*\})? [1-9]'
}

run_case() { # NAME REMOTE_WRITE_AUTH_LINES
    config "$tmp/$1.yaml" "$2"
    "$bin" check-config "$tmp/$1.yaml" >"$tmp/$1.check" 2>&1
    check_eq "[$1] check-config accepts the file" "$?" 0
    check_eq "[$1] no secret in check-config output" "$(hits "$tmp/$1.check")" 0
    rm -rf "$tmp/spool"
    start_fsc "$tmp/$1.yaml"
    wait_exporter || return 1
    P="http://127.0.0.1:$mport"
    # wrong credentials of every kind, each carrying the marker
    check_eq "[$1] wrong password" "$(sec_code -u "prom:$LPW-wrong" "$P/metrics")" 401
    check_eq "[$1] marked user" "$(sec_code -u "$M:$LPW" "$P/metrics")" 401
    check_eq "[$1] wrong token" "$(sec_code -H "Authorization: Bearer ${TOKEN}x" "$P/metrics")" 401
    check_eq "[$1] garbage header" "$(sec_code -H "Authorization: $M" "$P/metrics")" 401
    # the failures that log: gNMI refused (UNAUTHENTICATED), Kafka SASL,
    # remote_write to a closed port; wait (15 s at most) for all three to
    # show and for an event to wait in the Kafka spool
    wait_until 150 grep -q 'gnmi_stream_retry source=leaf1' "$tmp/fsc.log" ||
        fail "[$1] no gNMI retry logged"
    check "[$1] Kafka and remote_write failures logged, an event spooled" \
        wait_until 150 secrets_paths_used "$P"
    for path in /metrics / /api/status /api/ports /api/events /api/mesh \
        "/api/port?device=leaf9&port=swp1" /-/healthy /-/ready; do
        curl -s --max-time 10 -u "prom:$LPW" "$P$path" >>"$tmp/$1.http"
    done
    check "[$1] the scrape worked" grep -q '^fabricscope_' "$tmp/$1.http"
    # 25 s: the Kafka exporter spends up to 10 s flushing to a broker that
    # refuses its SASL handshake before it spools and exits.
    stop_pid "$fsc_pid" 250
    fsc_pid=""
    check_eq "[$1] exit status" "$stop_rc" 0
    check_log "[$1] the listener logged the failures" 'listener_auth_failed listener=prometheus'
    check_eq "[$1] no secret in the log or stdout" "$(hits "$tmp/fsc.log" "$tmp/fsc.out")" 0
    check_eq "[$1] no secret in /metrics, status page, /api/*" "$(hits "$tmp/$1.http")" 0
    find "$tmp/spool" -type f >"$tmp/$1.spoolfiles" 2>/dev/null
    check "[$1] the Kafka spool holds events" test -s "$tmp/$1.spoolfiles"
    # shellcheck disable=SC2046 # file names without blanks
    check_eq "[$1] no secret in the Kafka spool" "$(hits $(cat "$tmp/$1.spoolfiles"))" 0
    if [ "$fails" -ne 0 ]; then
        grep -n -F "$M" "$tmp/fsc.log" "$tmp/fsc.out" "$tmp/$1.http" "$tmp/$1.check" | cut -c1-300 | head
    fi
}

run_case basic_auth "    basic_auth: {username: rw, password: \"$M-rw-basic\"}"
run_case bearer_inline "    bearer_token: \"$M-rw-bearer\""
run_case bearer_file "    bearer_token_file: $tmp/rw_token"
check_eq "sanitizer reports" \
    "$(grep -c -E 'ERROR: AddressSanitizer|runtime error:|ERROR: LeakSanitizer' "$tmp/fsc.log")" 0
if [ "$fails" -ne 0 ]; then
    echo "--- fabricscope log (last run) ---"
    cut -c1-300 "$tmp/fsc.log" | tail -25
fi
summary
