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
# The three cases' daemons run at the same time (each with its own
# state_dir, spool and log), probed one after another up to their SIGTERM;
# their stops (each ~11 s: remote_write flushes for 10 s to its closed
# port, Kafka waits 1 s for a delivery) overlap.
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
dead_port=$(free_ports 1)

config() { # NAME REMOTE_WRITE_AUTH_LINES: writes $tmp/NAME.yaml
    cat >"$tmp/$1.yaml" <<YAML
state_dir: $tmp/$1.state
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
    spool_dir: $tmp/$1.spool
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

# secrets_paths_used NAME URL: case NAME's Kafka exporter (SASL refused) and
# remote_write (closed port) have logged their failures and its spool holds
# an event.
secrets_paths_used() {
    grep -Eq 'event=kafka_(error|brokers_down) ' "$tmp/$1.log" &&
        grep -q 'event=remote_write_retry ' "$tmp/$1.log" &&
        curl -s --max-time 5 -u "prom:$LPW" "$2/metrics" |
        grep -Eq '^fabricscope_kafka_spool_records(\{[^}]*\})? [1-9]'
}

# The daemons of the cases, stopped by PID on exit (lib_cleanup only knows
# $fsc_pid).
case_pids=""
cleanup_cases() {
    for _cc_p in $case_pids; do stop_pid "$_cc_p"; done
    lib_cleanup
}
trap cleanup_cases EXIT

# start_case NAME REMOTE_WRITE_AUTH_LINES: check-config, then the daemon
# (stdout $tmp/NAME.out, stderr $tmp/NAME.log); run_case NAME: everything up
# to its SIGTERM; end_case NAME checks what it left after it exited.
start_case() {
    config "$1" "$2"
    "$bin" check-config "$tmp/$1.yaml" >"$tmp/$1.check" 2>&1
    check_eq "[$1] check-config accepts the file" "$?" 0
    check_eq "[$1] no secret in check-config output" "$(hits "$tmp/$1.check")" 0
    "$bin" run -c "$tmp/$1.yaml" >"$tmp/$1.out" 2>"$tmp/$1.log" &
    eval "pid_$1=\$!"
    case_pids="$case_pids $!"
}

run_case() {
    port=$(wait_for "$tmp/$1.log" \
        's/.*event=exporter_started exporter=prometheus .* port=\([0-9]*\).*/\1/p') || {
        fail "[$1] fabricscope did not start its exporter"
        cut -c1-300 "$tmp/$1.log"
        return 1
    }
    P="http://127.0.0.1:$port"
    # wrong credentials of every kind, each carrying the marker
    check_eq "[$1] wrong password" "$(sec_code -u "prom:$LPW-wrong" "$P/metrics")" 401
    check_eq "[$1] marked user" "$(sec_code -u "$M:$LPW" "$P/metrics")" 401
    check_eq "[$1] wrong token" "$(sec_code -H "Authorization: Bearer ${TOKEN}x" "$P/metrics")" 401
    check_eq "[$1] garbage header" "$(sec_code -H "Authorization: $M" "$P/metrics")" 401
    # the failures that log: gNMI refused (UNAUTHENTICATED), Kafka SASL,
    # remote_write to a closed port; wait (15 s at most) for all three to
    # show and for an event to wait in the Kafka spool
    wait_until 150 grep -q 'gnmi_stream_retry source=leaf1' "$tmp/$1.log" ||
        fail "[$1] no gNMI retry logged"
    check "[$1] Kafka and remote_write failures logged, an event spooled" \
        wait_until 150 secrets_paths_used "$1" "$P"
    for path in /metrics / /api/status /api/ports /api/events /api/mesh \
        "/api/port?device=leaf9&port=swp1" /-/healthy /-/ready; do
        curl -s --max-time 10 -u "prom:$LPW" "$P$path" >>"$tmp/$1.http"
    done
    check "[$1] the scrape worked" grep -q '^fabricscope_' "$tmp/$1.http"
    kill "$(eval echo "\$pid_$1")"
}

end_case() { # NAME
    _pid=$(eval echo "\${pid_$1:-}")
    [ -n "$_pid" ] || return 1
    # 25 s from now (the SIGTERM was earlier): remote_write flushes for up
    # to 10 s to its closed port, then Kafka waits 1 s for a delivery that
    # cannot come (the broker refuses the SASL handshake) and spools.
    # shellcheck disable=SC2016 # expanded by eval
    wait_until 250 eval '! kill -0 "$_pid" 2>/dev/null'
    stop_pid "$_pid" 1
    check_eq "[$1] exit status" "$stop_rc" 0
    check "[$1] the listener logged the failures" \
        grep -q 'listener_auth_failed listener=prometheus' "$tmp/$1.log"
    check_eq "[$1] no secret in the log or stdout" "$(hits "$tmp/$1.log" "$tmp/$1.out")" 0
    check_eq "[$1] no secret in /metrics, status page, /api/*" "$(hits "$tmp/$1.http")" 0
    find "$tmp/$1.spool" -type f >"$tmp/$1.spoolfiles" 2>/dev/null
    check "[$1] the Kafka spool holds events" test -s "$tmp/$1.spoolfiles"
    # shellcheck disable=SC2046 # file names without blanks
    check_eq "[$1] no secret in the Kafka spool" "$(hits $(cat "$tmp/$1.spoolfiles"))" 0
    check_eq "[$1] sanitizer reports" \
        "$(grep -c -E 'ERROR: AddressSanitizer|runtime error:|ERROR: LeakSanitizer' "$tmp/$1.log")" 0
    if [ "$fails" -ne 0 ]; then
        grep -n -F "$M" "$tmp/$1.log" "$tmp/$1.out" "$tmp/$1.http" "$tmp/$1.check" | cut -c1-300 | head
        echo "--- fabricscope log ($1) ---"
        cut -c1-300 "$tmp/$1.log" | tail -25
    fi
}

cases="basic_auth bearer_inline bearer_file"
start_case basic_auth "    basic_auth: {username: rw, password: \"$M-rw-basic\"}"
start_case bearer_inline "    bearer_token: \"$M-rw-bearer\""
start_case bearer_file "    bearer_token_file: $tmp/rw_token"
for c in $cases; do
    run_case "$c"
done
for c in $cases; do
    end_case "$c" || fail "[$c] did not run"
done
summary
