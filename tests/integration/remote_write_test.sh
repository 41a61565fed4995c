#!/bin/sh
# remote_write end to end (docs/CONFIG.md "remote_write"):
#   remote_write_test.sh FABRICSCOPE vm|drops|http
# vm:    the daemon, fed a replay with known values, writes to VictoriaMetrics
#        on loopback; VM is stopped mid-stream and started again: every
#        timestamp of every series arrives, exact values and label sets.
# drops: the same with queue_max 10: what VM has plus what
#        fabricscope_remote_write_samples_total{result="dropped"} counts is
#        exactly what the replay produced.
# http:  a scripted receiver (remote_write_lib.py serve) answers 400, 429 with
#        Retry-After: 1 (waited 500 ms: backoff.max caps it), 503, then 200:
#        the 400 batch is not retried, the other
#        two are, with the same body; headers, auth, label order and values of
#        every request are checked after decoding snappy and protobuf in Python.
# Every process is stopped by PID (lib.sh's trap); every wait is bounded.
# Conditions are passed to poll_metrics unexpanded (SC2016); $bin is read by
# lib.sh (SC2034).
# shellcheck disable=SC2016,SC2034
bin=$1
mode=$2
here=$(dirname "$0")
# shellcheck source=tests/integration/lib.sh
. "$here/lib.sh"
lib_init
py="$here/remote_write_lib.py"
vm_pid=""
trap 'stop_pid "$vm_pid"; lib_cleanup' EXIT

command -v victoria-metrics >/dev/null || {
    echo "victoria-metrics is not installed (scripts/setup.sh)"
    exit 1
}

# replay FILE STEPS: port tx bytes +5e9 and CNPs +1200 per second, STEPS
# samples each (t = 0 .. STEPS-1 s).
replay() {
    : >"$1"
    k=0
    while [ "$k" -lt "$2" ]; do
        echo "$((k * 1000)) fabric_port_tx_bytes_total{device=\"leaf1\",port=\"et-0/0/1\"} $((k * 5000000000))" >>"$1"
        echo "$((k * 1000)) fabric_nic_cnp_sent_total{device=\"b300-1\",port=\"ens1f0np0\"} $((k * 1200))" >>"$1"
        k=$((k + 1))
    done
}

# config FILE URL EXTRA: the replay in real time, Prometheus on a free port,
# remote_write to URL read every 100 ms and sent every second; EXTRA lines
# (indented 4) are added to the remote_write mapping.
config() {
    cat >"$1" <<EOC
sources:
  - {name: r, type: replay, file: $tmp/s.replay, mode: realtime, interval: 1s}
exporters:
  prometheus: {listen: "127.0.0.1:0"}
  remote_write:
    url: $2
    interval: 1s
    resolution: 100ms
    backoff: {initial: 100ms, max: 500ms}
$3
EOC
}

vm_healthy() { curl -sf --max-time 2 "http://127.0.0.1:$vm_port/health" >/dev/null; }

# VM keeps duplicates of a re-sent batch apart unless told to dedupe, and
# hides the last 30 s from queries unless latencyOffset is 0.
vm_start() {
    victoria-metrics -storageDataPath="$tmp/vm" -httpListenAddr="127.0.0.1:$vm_port" \
        -loggerLevel=ERROR -dedup.minScrapeInterval=1ms -search.latencyOffset=0s \
        >>"$tmp/vm.log" 2>&1 &
    vm_pid=$!
    wait_until 150 vm_healthy || {
        fail "VictoriaMetrics did not start"
        cat "$tmp/vm.log"
        exit 1
    }
}

vm_stop() {
    stop_pid "$vm_pid" 100
    vm_pid=""
}

vm_export() {
    curl -sf --max-time 10 "http://127.0.0.1:$vm_port/internal/force_flush" >/dev/null
    curl -sf --max-time 10 "http://127.0.0.1:$vm_port/api/v1/export" \
        -d 'match[]={__name__=~"fabric_.*"}' >"$tmp/export"
}

rw() { series_value fabricscope_remote_write_samples_total result="$1"; }

# Polls /metrics until the condition holds (TENTHS).
until_metrics() { poll_metrics "$1" "$2" || fail "timed out waiting for: $2"; }

case "$mode" in
vm | drops)
    vm_port=$(python3 "$py" freeport)
    steps=16
    [ "$mode" = drops ] && steps=12
    # Per step: two raw counters; from the second step the port's rate and
    # utilization and the CNP rate (the 1 s window ending at that sample).
    total=$((2 * steps + 3 * (steps - 1)))
    replay "$tmp/s.replay" "$steps"
    qmax=100000
    [ "$mode" = drops ] && qmax=10
    config "$tmp/c.yaml" "http://127.0.0.1:$vm_port/api/v1/write" \
        "    queue_max: $qmax
    max_samples_per_send: 5
    series: [counters, window_rates]"
    vm_start
    start_fsc "$tmp/c.yaml"
    wait_exporter || exit 1
    # Mid-stream: some samples are in VM, then it goes away.
    until_metrics 150 'ge "$(rw sent)" 10'
    vm_stop
    if [ "$mode" = drops ]; then
        until_metrics 150 'ge "$(rw dropped)" 1'
    else
        until_metrics 100 'ge "$(series_value fabricscope_remote_write_requests_total code=error)" 2'
    fi
    vm_start
    until_metrics 400 '[ $(( $(rw sent) + $(rw dropped) + $(rw failed) )) -eq '"$total"' ] &&
        [ "$(series_value fabricscope_remote_write_queue_samples)" = 0 ]'
    num_eq "failed" "$(rw failed)" 0
    check "retries after the outage" ge "$(rw retried)" 1
    num_eq "queue capacity" "$(series_value fabricscope_remote_write_queue_capacity)" "$qmax"
    check "last success set" ge \
        "$(series_value fabricscope_remote_write_last_success_timestamp_seconds | cut -d. -f1)" 1
    check "connection errors counted" ge \
        "$(series_value fabricscope_remote_write_requests_total code=error)" 1
    check "accepted requests counted" ge \
        "$(series_value fabricscope_remote_write_requests_total code=204)" 1
    sent=$(rw sent)
    dropped=$(rw dropped)
    # VM makes new data searchable within a second or two.
    n=0
    while [ "$n" -lt 50 ]; do
        vm_export
        [ "$(python3 "$py" vmcount "$tmp/export")" = "$sent" ] && break
        sleep 0.2
        n=$((n + 1))
    done
    got=$(python3 "$py" vmcount "$tmp/export")
    check_eq "points in VictoriaMetrics = samples sent" "$got" "$sent"
    if [ "$mode" = vm ]; then
        num_eq "nothing dropped within the queue bound" "$dropped" 0
        v0=""
        r0=""
        k=0
        while [ "$k" -lt "$steps" ]; do
            v0="$v0${v0:+,}$((k * 5000000000))"
            r0="$r0${r0:+,}$((k * 1200))"
            k=$((k + 1))
        done
        rep() { printf "$1%.0s" $(seq 1 $((steps - 1))) | sed 's/,$//'; }
        want="{__name__=\"fabric_nic_cnp_sent_per_second\",device=\"b300-1\",port=\"ens1f0np0\"} n=$((steps - 1)) v=$(rep 1200,) dt=1000
{__name__=\"fabric_nic_cnp_sent_total\",device=\"b300-1\",port=\"ens1f0np0\"} n=$steps v=$r0 dt=1000
{__name__=\"fabric_port_bytes_per_second\",device=\"leaf1\",direction=\"tx\",port=\"et-0/0/1\"} n=$((steps - 1)) v=$(rep 5000000000,) dt=1000
{__name__=\"fabric_port_tx_bytes_total\",device=\"leaf1\",port=\"et-0/0/1\"} n=$steps v=$v0 dt=1000
{__name__=\"fabric_port_utilization_ratio\",device=\"leaf1\",direction=\"tx\",port=\"et-0/0/1\"} n=$((steps - 1)) v=$(rep 0.1,) dt=1000"
        check_eq "every series, value and timestamp in VictoriaMetrics" \
            "$(python3 "$py" vmdump "$tmp/export")" "$want"
        # The Prometheus-compatible query API answers with the last value.
        curl -sf --max-time 10 "http://127.0.0.1:$vm_port/api/v1/query" \
            --data-urlencode 'query=fabric_nic_cnp_sent_per_second' \
            --data-urlencode "time=$(($(date +%s) + 1))" >"$tmp/q.json"
        check_eq "query API" "$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1]))
r=d["data"]["result"]; print(len(r), r[0]["metric"]["__name__"], r[0]["value"][1])' "$tmp/q.json")" \
            "1 fabric_nic_cnp_sent_per_second 1200"
    else
        check "some samples dropped" ge "$dropped" 1
        check_eq "VM points + dropped = samples produced" "$((got + dropped))" "$total"
    fi
    ;;
http)
    start_sim python3 "$py" serve "$tmp/req.jsonl" "400,429:1,503" || exit 1
    peer_pid=$sim_pid
    sim_pid=""
    replay "$tmp/s.replay" 6
    RW_TEST_PASSWORD=s3cr3t
    export RW_TEST_PASSWORD
    config "$tmp/c.yaml" "http://127.0.0.1:$sim_port/api/v1/write" \
        "    series: [counters]
    basic_auth: {username: fsc, password_env: RW_TEST_PASSWORD}
    headers: {X-Scope-OrgID: gpu-fabric}"
    start_fsc "$tmp/c.yaml"
    wait_exporter || exit 1
    until_metrics 300 '[ $(( $(rw sent) + $(rw failed) )) -eq 12 ] &&
        [ "$(series_value fabricscope_remote_write_queue_samples)" = 0 ]'
    python3 "$py" requests "$tmp/req.jsonl" >"$tmp/facts"
    fact() { sed -n "s/^$1=//p" "$tmp/facts"; }
    check_eq "answers in order" "$(fact statuses)" "400,429,503,200"
    check_eq "every body is a snappy WriteRequest" "$(fact all_decoded)" yes
    check_eq "429 and 503 retried with the same body" "$(fact retry_same_body)" yes
    check_eq "the 400 batch is not retried" "$(fact retry_differs_from_400)" yes
    check_eq "the 400 samples never come back" "$(fact rejected_resent)" no
    check_eq "headers" "$(fact headers)" ok
    check_eq "path" "$(fact path)" /api/v1/write
    check_eq "basic auth" "$(fact auth)" "Basic $(printf 'fsc:s3cr3t' | base64)"
    check_eq "labels sorted, __name__ first" "$(fact labels_sorted)" yes
    check_eq "known values at their own times" "$(fact values)" ok
    check_eq "every sample delivered or refused" "$(fact delivered_or_rejected)" 12
    num_eq "failed = samples of the 400" "$(rw failed)" "$(fact rejected_samples)"
    num_eq "retried = twice the 429 batch" "$(rw retried)" $((2 * $(fact retried_samples)))
    num_eq "sent" "$(rw sent)" $((12 - $(fact rejected_samples)))
    num_eq "dropped" "$(rw dropped)" 0
    for c in 400 429 503; do
        num_eq "requests code=$c" "$(series_value fabricscope_remote_write_requests_total code=$c)" 1
    done
    check_log "400 logged with the receiver's reason" \
        'event=remote_write_rejected status=400 samples=[0-9]+ suppressed=0 body=.bad sample'
    check_eq "400 logged once" "$(grep -c remote_write_rejected "$tmp/fsc.log")" 1
    # Retry-After: 1 s, honoured up to backoff.max (500 ms here): min(1000, 500)
    check_log "Retry-After honoured up to backoff.max" \
        'event=remote_write_retry status=429 .* attempt=1 wait_ms=500 retry_after=yes'
    check_log "503 backoff" 'event=remote_write_retry status=503 .* attempt=2 wait_ms=[0-9]+ retry_after=no'
    check "no secret in the log" eval '! grep -q s3cr3t "$tmp/fsc.log"'
    # Bearer token instead of basic auth.
    stop_pid "$fsc_pid"
    fsc_pid=""
    : >"$tmp/req.jsonl"
    RW_TEST_TOKEN=tok-123
    export RW_TEST_TOKEN
    config "$tmp/c.yaml" "http://127.0.0.1:$sim_port/api/v1/write" \
        "    series: [counters]
    bearer_token_env: RW_TEST_TOKEN
    headers: {X-Scope-OrgID: gpu-fabric}"
    start_fsc "$tmp/c.yaml"
    wait_until 100 eval '[ -s "$tmp/req.jsonl" ]' || fail "no request with a bearer token"
    python3 "$py" requests "$tmp/req.jsonl" >"$tmp/facts"
    check_eq "bearer token" "$(fact auth)" "Bearer tok-123"
    check_eq "headers (bearer run)" "$(fact headers)" ok
    ;;
*)
    echo "usage: $0 FABRICSCOPE vm|drops|http"
    exit 2
    ;;
esac
# A clean stop: exit status 0, the final counts logged, no sanitizer report.
stop_pid "$fsc_pid" 150
check_eq "daemon exit status" "$stop_rc" 0
fsc_pid=""
check_log "stop logged" 'event=remote_write_stopped sent=[0-9]+ failed=[0-9]+ dropped=[0-9]+'
check "no sanitizer report" eval '! grep -q Sanitizer "$tmp/fsc.log"'
summary
