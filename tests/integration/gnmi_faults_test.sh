#!/bin/sh
# gNMI fault injection: the QFX5240 simulator (tests/sim/gnmi_sim) misbehaves
# on purpose and the real daemon's /metrics and log must show the client
# recovering (or refusing) exactly as documented:
#   1. stall       a stream that goes silent is resubscribed, not reconnected
#   2. disconnect  a stream cancelled with UNAVAILABLE is retried within
#                  backoff.initial and streams again
#   3. reset       counters restart from 0 under a new stream_creation_timestamp:
#                  a reset verdict, the exact configured rate afterwards, no
#                  microburst and no implausible sample
#   4. mTLS        a throwaway CA, server and client certificates: streams; a
#                  wrong CA or no client certificate never does
#   5. credentials username + password_env: streams; a wrong password is
#                  refused with UNAUTHENTICATED and never streams
# Each case runs its own simulator and daemon on 127.0.0.1, stopped by PID;
# every wait is bounded.
#   gnmi_faults_test.sh FABRICSCOPE GNMI_SIM
set -u
bin=$1
sim=$2
# shellcheck source=lib.sh source-path=SCRIPTDIR
. "$(dirname "$0")/lib.sh"
lib_init
case_name=""
case_failed=0
# Failures name their case; end_case dumps the logs of a failed case.
fail() {
    echo "FAIL [$case_name]: $*"
    fails=$((fails + 1))
    case_failed=1
}
stop_pair() {
    stop_pid "$fsc_pid"
    stop_pid "$sim_pid"
    fsc_pid=""
    sim_pid=""
}

# fault_sim ARGS...: a 2-port simulator at 25 % of 400G, 100 ms interval,
# plus ARGS; sets sim_pid and sim_port.
fault_sim() {
    start_sim "$sim" --listen 127.0.0.1:0 --ports 2 --queues 0 --interval 100ms \
        --utilization 0.25 --duration 30s "$@"
}

# fault_fsc SOURCE_EXTRA: the daemon on one gnmi source leaf1 (one stream,
# 100 ms) at the simulator, SOURCE_EXTRA (YAML lines indented 4) added to the
# source; sets fsc_pid and mport.
fault_fsc() {
    cat >"$tmp/fsc.yaml" <<YAML
sources:
  - name: leaf1
    type: gnmi
    address: "127.0.0.1:$sim_port"
    sample_interval: 100ms
    sample_interval_grid: none # a simulator: 100 ms as asked (Junos would get 2 s)
    connect_timeout: 1s
    streams:
      - {name: interfaces, paths: ["/interfaces/interface/state/counters"]}
$1
exporters:
  prometheus:
    listen: "127.0.0.1:0"
engine:
  windows: [1s, 2s]
topology:
  devices:
    - name: leaf1
      role: leaf
      ports:
        - {name: et-0/0/0, speed: 400G, role: downlink}
        - {name: et-0/0/1, speed: 400G, role: downlink}
YAML
    start_fsc "$tmp/fsc.yaml"
    wait_exporter
}

# Values of the last scrape (empty when absent).
S='source="leaf1",stream="interfaces"'
up() { value "fabricscope_gnmi_stream_up\\{$S\\}"; }
updates() { value "fabricscope_gnmi_updates_total\\{$S\\}"; }
reconnects() { value "fabricscope_gnmi_reconnects_total\\{$S\\}"; }
resubscribes() { value "fabricscope_gnmi_resubscribes_total\\{$S\\}"; }
source_up() { value 'fabricscope_up\{source="leaf1",type="gnmi"\}'; }

end_case() {
    # The daemon must stop cleanly after every fault: exit status 0 on
    # SIGTERM (within 10 s), and (Sanitize build) no sanitizer report from
    # either process.
    if [ -n "$fsc_pid" ]; then
        stop_pid "$fsc_pid" 100
        fsc_pid=""
        check_eq "fabricscope exit status after SIGTERM" "$stop_rc" 0
    fi
    stop_pair
    check_eq "sanitizer reports" \
        "$(cat "$tmp/fsc.log" "$tmp/sim.err" 2>/dev/null | grep -c -e 'Sanitizer' -e 'runtime error:')" 0
    if [ "$case_failed" -ne 0 ]; then
        echo "--- [$case_name] fabricscope log ---"
        grep -v "event=library" "$tmp/fsc.log" | cut -c1-300 | tail -20
        echo "--- [$case_name] simulator stderr ---"
        tail -5 "$tmp/sim.err"
        echo "--- [$case_name] last /metrics (gnmi, up, verdicts, et-0/0/0) ---"
        grep -E '^fabricscope_(gnmi|up|sample_verdicts)|et-0/0/0' "$tmp/metrics" 2>/dev/null |
            grep -v '_bucket' | head -40
    fi
}
begin_case() {
    case_name=$1
    case_failed=0
    rm -f "$tmp/metrics"
    : >"$tmp/fsc.log"
    : >"$tmp/sim.err"
}

# A source that never streams: wait until its stream has been retried at
# least 3 times, then it must still be down with no update.
check_never_up() {
    poll_metrics 100 'ge "$(reconnects)" 3'
    check "reconnects_total >= 3 (got '$(reconnects)')" ge "$(reconnects)" 3
    check_eq "stream_up" "$(up)" 0
    check_eq "fabricscope_up" "$(source_up)" 0
    check_eq "updates_total" "$(updates)" 0
    check_eq "no gnmi_stream_up in the log" "$(grep -c 'event=gnmi_stream_up' "$tmp/fsc.log")" 0
}

# --- 1. stall: the simulator stops sending after 2 s but keeps the call open;
# 3 silent 100 ms intervals make the client cancel and resubscribe.
begin_case stall
if fault_sim --stall-after 2s && fault_fsc "    stall_intervals: 3"; then
    poll_metrics 100 'ge "$(resubscribes)" 1'
    check "resubscribes_total >= 1 (got '$(resubscribes)')" ge "$(resubscribes)" 1
    u1=$(updates)
    # The new call streams for another 2 s before it stalls too.
    poll_metrics 40 '[ "$(up)" = 1 ] && ge "$(updates)" $((${u1:-0} + 1))'
    check_eq "stream_up after the resubscribe" "$(up)" 1
    check "updates grow after the resubscribe ($u1 -> $(updates))" \
        ge "$(updates)" $((${u1:-0} + 1))
    # A resubscribe is not a reconnect: the channel never failed.
    check_eq "reconnects_total" "$(reconnects)" 0
    check_log "resubscribe logged" \
        'event=gnmi_stream_resubscribe source=leaf1 device=leaf1 stream=interfaces'
fi
end_case

# --- 2. disconnect: the simulator cancels each call with UNAVAILABLE after 2 s;
# the first retry waits at most backoff.initial (1 s, jittered down to 0.5 s).
begin_case disconnect
if fault_sim --disconnect-after 2s &&
    fault_fsc "    backoff: {initial: 1s, max: 4s}"; then
    poll_metrics 100 'ge "$(reconnects)" 1'
    check "reconnects_total >= 1 (got '$(reconnects)')" ge "$(reconnects)" 1
    u1=$(updates)
    poll_metrics 30 '[ "$(up)" = 1 ] && ge "$(updates)" $((${u1:-0} + 1))'
    check_eq "stream_up again" "$(up)" 1
    check_eq "fabricscope_up again" "$(source_up)" 1
    check "updates grow after the reconnect ($u1 -> $(updates))" \
        ge "$(updates)" $((${u1:-0} + 1))
    check_eq "resubscribes_total" "$(resubscribes)" 0
    # grpc_status 14 = UNAVAILABLE, with the simulator's details.
    retry='event=gnmi_stream_retry source=leaf1 device=leaf1 stream=interfaces reason=call_ended grpc_status=14 details="simulated link loss" retry_ms='
    check_log "retry logged" "$retry"
    ms=$(sed -n "s/.*$retry\([0-9]*\).*/\1/p" "$tmp/fsc.log" | head -n 1)
    check "first retry within backoff.initial: 500 <= retry_ms <= 1000 (got '$ms')" \
        eval 'ge "$ms" 500 && [ "$ms" -le 1000 ]'
fi
end_case

# --- 3. reset: every 3 s the simulator's counters restart from 0 with a new
# stream_creation_timestamp. The engine must count reset verdicts and keep the
# exact 25 % of 400G in every scrape across the reset and for a full 2 s
# window after it: no spike in the rate, the fine (per-interval) utilization
# or the 1 s peak, no microburst, no implausible sample, no detector event.
begin_case reset
if fault_sim --reset-after 3s && fault_fsc ""; then
    rst='fabricscope_sample_verdicts_total\{verdict="reset"\}'
    sel='device="leaf1",port="et-0/0/0"'
    : >"$tmp/rates"
    # record: the rx rate, the 1 s rx peak and 4 x the fine utilization sum
    # minus its count (0 when every interval was exactly 0.25) of a scrape.
    record() {
        r=$(value "fabric_port_bytes_per_second\\{$sel.*direction=\"rx\"")
        pk=$(value "fabric_port_utilization_peak_ratio\\{$sel.*direction=\"rx\",window=\"1s\"")
        fs=$(value "fabric_port_fine_utilization_ratio_sum\\{$sel.*direction=\"rx\"")
        fc=$(value "fabric_port_fine_utilization_ratio_count\\{$sel.*direction=\"rx\"")
        [ -n "$r" ] && echo "rate=$r peak=$pk fine_excess=$(awk "BEGIN{print 4*${fs:-0}-${fc:-0}}")" \
            >>"$tmp/rates"
        return 1
    }
    poll_metrics 100 'record; ge "$(value "$rst")" 1'
    check "reset verdicts >= 1 (got '$(value "$rst")')" ge "$(value "$rst")" 1
    # Scrape through the next 2.2 s: the 2 s window then holds only samples
    # taken after the reset (the next reset is 3 s after the first).
    poll_metrics 22 'record'
    n=$(wc -l <"$tmp/rates")
    check "rates recorded across the reset (got $n scrapes)" [ "$n" -ge 10 ]
    bad=$(grep -Ev '^rate=12500000000 peak=(0\.25)? fine_excess=0$' "$tmp/rates" | head -n 3)
    check_eq "every scrape: rx rate, 1 s peak, fine utilization of et-0/0/0" "$bad" ""
    check_eq "rx rate of et-0/0/0 2 s after the reset" \
        "$(value "fabric_port_bytes_per_second\\{$sel.*direction=\"rx\"")" 12500000000
    check_eq "tx rate of et-0/0/0 2 s after the reset" \
        "$(value "fabric_port_bytes_per_second\\{$sel.*direction=\"tx\"")" 12500000000
    check_eq "no microburst on et-0/0/0" \
        "$(value "fabric_microbursts_total\\{$sel.*direction=\"rx\"")" 0
    check_eq "no implausible sample" \
        "$(value 'fabricscope_sample_verdicts_total\{verdict="implausible"\}')" 0
    check_eq "microburst events_total" \
        "$(value 'fabricscope_events_total\{kind="microburst"\}')" 0
    check_eq "no detector event" \
        "$(grep -E '^fabricscope_events_total' "$tmp/metrics" | grep -v 'kind="counter_reset"' |
            awk '{s += $NF} END {print s + 0}')" 0
    # Each reset verdict is a counter_reset event or, within a minute of its
    # series' previous one, counted as suppressed.
    ev=$(value 'fabricscope_events_total\{kind="counter_reset"\}')
    check "counter_reset events (got '$ev')" ge "$ev" 1
    check_eq "reset verdicts = counter_reset events + suppressed" "$(value "$rst")" \
        "$((ev + $(value fabricscope_reset_events_suppressed_total)))"
    check_eq "no microburst in the log" "$(grep -c 'kind=microburst' "$tmp/fsc.log")" 0
    check_eq "stream_up" "$(up)" 1
    check_eq "reconnects_total" "$(reconnects)" 0
fi
end_case

# --- 4. mutual TLS with throwaway certificates.
mkcert() { # NAME CN EXT CA_NAME: a key and a certificate signed by CA_NAME
    openssl req -new -newkey rsa:2048 -nodes -keyout "$tmp/$1.key" -subj "/CN=$2" \
        -out "$tmp/$1.csr" 2>/dev/null &&
        printf '%s\n' "$3" >"$tmp/$1.ext" &&
        openssl x509 -req -in "$tmp/$1.csr" -CA "$tmp/$4.crt" -CAkey "$tmp/$4.key" \
            -CAcreateserial -days 1 -sha256 -extfile "$tmp/$1.ext" -out "$tmp/$1.crt" 2>/dev/null
}
mkca() { # NAME
    openssl req -x509 -new -newkey rsa:2048 -nodes -keyout "$tmp/$1.key" -subj "/CN=$1" \
        -days 1 -sha256 -out "$tmp/$1.crt" 2>/dev/null
}
begin_case tls
if mkca ca && mkca otherca &&
    mkcert server gnmi-sim.test 'subjectAltName=DNS:gnmi-sim.test,IP:127.0.0.1' ca &&
    mkcert client fabricscope 'extendedKeyUsage=clientAuth' ca; then
    tls_ok=1
else
    tls_ok=0
    fail "openssl could not make the test certificates"
fi
tls_cfg() { # CA_NAME [no-client-cert]
    printf '    tls: {ca_file: %s' "$tmp/$1.crt"
    [ $# -gt 1 ] || printf ', cert_file: %s, key_file: %s' "$tmp/client.crt" "$tmp/client.key"
    printf ', server_name: gnmi-sim.test}\n    backoff: {initial: 100ms, max: 200ms}\n'
}
if [ "$tls_ok" = 1 ] &&
    fault_sim --tls-cert "$tmp/server.crt" --tls-key "$tmp/server.key" --tls-ca "$tmp/ca.crt" &&
    fault_fsc "$(tls_cfg ca)"; then
    poll_metrics 100 '[ "$(up)" = 1 ] && ge "$(updates)" 1'
    check_eq "stream_up over mTLS" "$(up)" 1
    check_eq "fabricscope_up over mTLS" "$(source_up)" 1
    check "updates over mTLS (got '$(updates)')" ge "$(updates)" 1
    check_eq "reconnects_total over mTLS" "$(reconnects)" 0
fi
end_case

begin_case tls_wrong_ca
if [ "$tls_ok" = 1 ] &&
    fault_sim --tls-cert "$tmp/server.crt" --tls-key "$tmp/server.key" --tls-ca "$tmp/ca.crt" &&
    fault_fsc "$(tls_cfg otherca)"; then
    check_never_up
    # The handshake fails: each call ends UNAVAILABLE (14).
    check_log "retry with UNAVAILABLE and the handshake failure logged" \
        'event=gnmi_stream_retry source=leaf1 device=leaf1 stream=interfaces reason=call_ended grpc_status=14 details=".*Ssl handshake failed'
fi
end_case

begin_case tls_no_client_cert
if [ "$tls_ok" = 1 ] &&
    fault_sim --tls-cert "$tmp/server.crt" --tls-key "$tmp/server.key" --tls-ca "$tmp/ca.crt" &&
    fault_fsc "$(tls_cfg ca no-client-cert)"; then
    check_never_up
    check_log "retry with UNAVAILABLE logged" \
        'event=gnmi_stream_retry source=leaf1 device=leaf1 stream=interfaces reason=call_ended grpc_status=14 '
fi
end_case

# --- 5. credentials: username in the config, password from the environment.
creds_cfg='    username: telemetry
    password_env: FSC_FAULTS_GNMI_PASSWORD
    backoff: {initial: 100ms, max: 200ms}'
begin_case credentials
if fault_sim --username telemetry --password 's3cret-Pw' &&
    export FSC_FAULTS_GNMI_PASSWORD='s3cret-Pw' && fault_fsc "$creds_cfg"; then
    poll_metrics 100 '[ "$(up)" = 1 ] && ge "$(updates)" 1'
    check_eq "stream_up with credentials" "$(up)" 1
    check "updates with credentials (got '$(updates)')" ge "$(updates)" 1
    check_eq "reconnects_total with credentials" "$(reconnects)" 0
fi
end_case

begin_case wrong_password
if fault_sim --username telemetry --password 's3cret-Pw' &&
    export FSC_FAULTS_GNMI_PASSWORD='wrong-Pw' && fault_fsc "$creds_cfg"; then
    check_never_up
    # grpc_status 16 = UNAUTHENTICATED, with the simulator's details.
    check_log "retry with UNAUTHENTICATED logged" \
        'event=gnmi_stream_retry source=leaf1 device=leaf1 stream=interfaces reason=call_ended grpc_status=16 details="bad username or password" '
    check_log "capabilities refused logged" \
        'event=gnmi_capabilities_failed source=leaf1 device=leaf1 grpc_status=16'
    check_eq "no password in the log" "$(grep -c -e 'wrong-Pw' -e 's3cret-Pw' "$tmp/fsc.log")" 0
fi
end_case

summary
