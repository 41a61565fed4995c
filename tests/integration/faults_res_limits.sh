#!/bin/sh
# Resource limits: series limits and file-descriptor exhaustion.
#
#   faults_res_limits.sh FABRICSCOPE series
#     Two OTLP/HTTP sources get series churn (faults_res_churn.py: every
#     point a new series, as fast as the receiver answers) for CHURN_S
#     seconds: ca with max_series 1000, cb with max_series 5000 under
#     engine.max_series 3000 (the registry's total), RSS read from /proc
#     every second (cb starts once ca holds its 1000, so the split of the
#     total is known). Replay and synthetic sources are not used: they stop the
#     daemon at their limit (their series are fixed up front). Checks:
#     ca holds 1000 series, cb the remaining 2000; every point beyond is
#     refused and counted exactly (otlp_rejected_points_total = points sent -
#     series held); cb's refusals (total limit) also in
#     fabricscope_series_dropped_total, and ca's too (source limit, refused by
#     the OTLP cache before the registry, which it tells); the refusal logged
#     (otlp_request_error ... series limit reached) about once a second; a
#     known series is still accepted after; RSS grew by less than
#     RSS_BOUND_KIB between the middle and the end (printed); no error line.
#   faults_res_limits.sh FABRICSCOPE fds
#     The daemon under `prlimit --nofile=L` where L is its own descriptor
#     count at rest + 24, with a synthetic source, /metrics and an OTLP/HTTP
#     receiver. faults_res_fds.py opens 60 idle connections to each port
#     (past L), holds them 3 s, then uses and closes them one by one.
#     Checks: the daemon stays up at its limit and logs the condition
#     (microhttpd's accept error, level warn); ingest goes on (samples grow
#     while the descriptors are exhausted); the held connections are all
#     answered 200 or refused cleanly, at least 10 answered; afterwards a new
#     scrape and an OTLP request succeed and the descriptor count is back
#     within 4 of the count at rest (nothing leaked).
set -u
bin=$1
part=$2
here=$(dirname "$0")
# shellcheck source=tests/integration/lib.sh
. "$here/lib.sh"
# shellcheck source=tests/integration/faults_res_lib.sh
. "$here/faults_res_lib.sh"
lib_init
# ASan's quarantine keeps freed memory for a while (256 MiB by default);
# a small one lets the RSS bound below mean the same in both builds.
ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}quarantine_size_mb=16"
export ASAN_OPTIONS
CHURN_S=${CHURN_S:-20}
RSS_BOUND_KIB=${RSS_BOUND_KIB:-8192}

series_part() {
    cat >"$tmp/fsc.yaml" <<EOF
sources:
  - {name: ca, type: otlp, grpc_listen: "127.0.0.1:0", http_listen: "127.0.0.1:0",
     max_series: 1000}
  - {name: cb, type: otlp, grpc_listen: "127.0.0.1:0", http_listen: "127.0.0.1:0",
     max_series: 5000}
engine:
  max_series: 3000
exporters:
  prometheus: {listen: "127.0.0.1:0"}
EOF
    start_fsc "$tmp/fsc.yaml"
    wait_exporter || return 1
    pa=$(wait_log_port 'otlp_listening transport=http .*source=ca ') &&
        pb=$(wait_log_port 'otlp_listening transport=http .*source=cb ') || {
        fail "no OTLP/HTTP listeners"
        return 1
    }
    # ca first, until it holds its 1000 (else cb may take part of the
    # total first and the split is a race); then both churn.
    python3 "$here/faults_res_churn.py" "$pa" "$CHURN_S" 200 >"$tmp/churn_a.out" &
    churn_a=$!
    poll_metrics 200 '[ "$(series_value fabricscope_series source=ca)" = 1000 ]'
    python3 "$here/faults_res_churn.py" "$pb" "$CHURN_S" 200 >"$tmp/churn_b.out" &
    churn_b=$!
    : >"$tmp/rss"
    n=0
    while kill -0 "$churn_a" 2>/dev/null && [ "$n" -lt $((CHURN_S + 30)) ]; do
        fr_rss_kib "$fsc_pid" >>"$tmp/rss"
        sleep 1 # the sampling period of the RSS series, not synchronisation
        n=$((n + 1))
    done
    wait "$churn_a"
    wait "$churn_b"
    cat "$tmp/churn_a.out" "$tmp/churn_b.out"
    a=$(sed -n 's/.* points=\([0-9]*\) .*/\1/p' "$tmp/churn_a.out")
    b=$(sed -n 's/.* points=\([0-9]*\) .*/\1/p' "$tmp/churn_b.out")
    check "the churns sent points (got '$a', '$b')" eval 'ge "$a" 10000 && ge "$b" 10000'
    fetch_metrics
    check_eq "source limit: ca holds 1000 series" "$(series_value fabricscope_series source=ca)" 1000
    check_eq "total limit: cb holds the other 2000" "$(series_value fabricscope_series source=cb)" 2000
    check_eq "ca: every point beyond the limit refused and counted" \
        "$(series_value fabricscope_otlp_rejected_points_total source=ca transport=http)" \
        "$((${a:-0} - 1000))"
    check_eq "cb: every point beyond the total refused and counted" \
        "$(series_value fabricscope_otlp_rejected_points_total source=cb transport=http)" \
        "$((${b:-0} - 2000))"
    check_eq "cb: the registry counts each refused series" \
        "$(series_value fabricscope_series_dropped_total source=cb)" "$((${b:-0} - 2000))"
    # The OTLP cache refuses past its own source's limit before the
    # registry is asked, and tells the registry, so that this counter
    # counts those refusals too.
    echo "ca: points $a, series_dropped_total $(series_value fabricscope_series_dropped_total source=ca)"
    check_eq "ca: every series the source limit refused in series_dropped_total" \
        "$(series_value fabricscope_series_dropped_total source=ca)" "$((${a:-0} - 1000))"
    check_log "the refusal is logged" \
        'event=otlp_request_error source=ca .*series limit reached'
    lines=$(fr_log_count 'event=otlp_request_error')
    check "refusals logged about once a second per source ($lines lines in $n s)" \
        eval '[ "$lines" -le $((2 * n + 4)) ]'
    ok_before=$(series_value fabricscope_otlp_requests_total source=ca transport=http result=ok)
    python3 "$here/faults_res_churn.py" "$pa" 5 10 1 >"$tmp/again.out"
    fetch_metrics
    check_eq "a known series is still accepted" \
        "$(series_value fabricscope_otlp_requests_total source=ca transport=http result=ok)" \
        "$((${ok_before:-0} + 1))"
    rows=$(wc -l <"$tmp/rss")
    mid=$(sed -n "$((rows / 2))p" "$tmp/rss")
    last=$(tail -n 1 "$tmp/rss")
    echo "RSS KiB over the churn (1 s apart): $(tr '\n' ' ' <"$tmp/rss")"
    echo "RSS growth in the second half: $((last - mid)) KiB (bound $RSS_BOUND_KIB)"
    check "RSS flat in the second half ($mid -> $last KiB)" \
        eval '[ $((last - mid)) -le "$RSS_BOUND_KIB" ]'
    check_eq "no error logged" "$(fr_error_lines)" 0
    stop_pid "$fsc_pid" 100
    check_eq "clean exit" "$stop_rc" 0
    fsc_pid=""
}

fds_part() {
    cat >"$tmp/fsc.yaml" <<EOF
sources:
  - {name: synth, type: synthetic, device: fd-leaf, ports: 4, interval: 100ms}
  - {name: otlp, type: otlp, grpc_listen: "127.0.0.1:0", http_listen: "127.0.0.1:0"}
exporters:
  prometheus: {listen: "127.0.0.1:0"}
EOF
    start_fsc "$tmp/fsc.yaml"
    wait_exporter || return 1
    # At rest: every source and sink started (the `started` line, 10 s at most).
    wait_until 100 grep -q 'event=started ' "$tmp/fsc.log" || fail "the daemon did not start"
    rest=$(fr_fds "$fsc_pid")
    stop_pid "$fsc_pid" 100
    fsc_pid=""
    limit=$((rest + 24))
    echo "descriptors at rest: $rest; limit: $limit"
    : >"$tmp/fsc.out"
    : >"$tmp/fsc.log"
    prlimit --nofile="$limit:$limit" "$bin" run -c "$tmp/fsc.yaml" >"$tmp/fsc.out" 2>"$tmp/fsc.log" &
    fsc_pid=$!
    wait_exporter || return 1
    hport=$(wait_log_port 'otlp_listening .*transport=http( |$)') || {
        fail "no OTLP/HTTP listener"
        return 1
    }
    wait_until 100 grep -q 'event=started ' "$tmp/fsc.log" || fail "the daemon did not start"
    fetch_metrics
    before=$(fr_sum_metric fabricscope_samples_total)
    python3 "$here/faults_res_fds.py" "$tmp/fds.state" "$tmp/release" "$mport:prom" \
        "$hport:otlp" &
    peer_pid=$!
    wait_until 300 grep -qs '^opened=' "$tmp/fds.state" || fail "the client opened nothing"
    # The daemon reaches its limit and says so (10 s at most).
    at_limit() {
        [ "$(fr_fds "$fsc_pid")" -ge $((limit - 2)) ] &&
            grep -Eq 'level=warn event=library lib=microhttpd .*([Tt]oo many open files|resource limit|[Ff]ailed to accept)' \
                "$tmp/fsc.log"
    }
    wait_until 100 at_limit
    held=$(fr_fds "$fsc_pid")
    check "the daemon runs at its descriptor limit ($held of $limit)" \
        eval '[ "$held" -ge $((limit - 2)) ] && kill -0 "$fsc_pid"'
    check_log "the exhaustion is logged" \
        'level=warn event=library lib=microhttpd .*([Tt]oo many open files|resource limit|[Ff]ailed to accept)'
    mhd=$(fr_log_count 'lib=microhttpd')
    check "the condition is logged a bounded number of times ($mhd lines)" \
        eval '[ "$mhd" -le 200 ]'
    : >"$tmp/release"
    wait_until 600 grep -qs '^answered=' "$tmp/fds.state" || fail "the client did not finish"
    wait "$peer_pid"
    peer_pid=""
    cat "$tmp/fds.state"
    answered=$(sed -n 's/^answered=\([0-9]*\) .*/\1/p' "$tmp/fds.state")
    check "held connections answered (got '$answered')" ge "$answered" 10
    fetch_metrics || fail "a scrape after the connections closed failed"
    after_s=$(fr_sum_metric fabricscope_samples_total)
    check "ingest went on while the descriptors were exhausted ($before -> $after_s samples)" \
        eval '[ "${after_s:-0}" -gt "${before:-0}" ]'
    code=$(curl -s -o /dev/null -w '%{http_code}' --max-time 10 -H 'Content-Type: application/json' \
        --data '{"resourceMetrics":[]}' "http://127.0.0.1:$hport/v1/metrics")
    check_eq "an OTLP request after the connections closed" "$code" 200
    # The daemon closes the last of them a moment later (10 s at most).
    wait_until 100 eval '[ "$(fr_fds "$fsc_pid")" -le $((rest + 4)) ]'
    after=$(fr_fds "$fsc_pid")
    check "descriptors back to rest ($after, at rest $rest)" eval '[ "$after" -le $((rest + 4)) ]'
    check "the daemon is still running" kill -0 "$fsc_pid"
    stop_pid "$fsc_pid" 100
    check_eq "clean exit" "$stop_rc" 0
    fsc_pid=""
}

case $part in
series) series_part ;;
fds) fds_part ;;
*) fail "unknown part $part" ;;
esac
if [ "$fails" -ne 0 ]; then
    echo "--- fabricscope log ---"
    grep -v " event=detect " "$tmp/fsc.log" | cut -c1-300 | tail -25
fi
summary
