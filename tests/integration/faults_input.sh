#!/bin/sh
# Hostile inputs and operator mistakes (docs/RELIABILITY.md,
# "Hostile inputs and operator mistakes"). One part per run:
#
#   faults_input.sh FABRICSCOPE PYTHON time
#     An otlp source (HTTP/JSON, tests/integration/faults_input_otlp.py) with
#     the default time bounds gets, one request each: devA now, devB dated
#     2200, devC now, devA again (1 s later), then devD two days old. Checks:
#     devB and devD answered 200 with partial success (rejected 1, the
#     message says ahead / behind); /metrics exposes exactly devA's and
#     devC's series (values 11 and 30), in two scrapes;
#     fabricscope_samples_rejected_total{reason} future 1 and past 1;
#     fabricscope_device_clock_offset_seconds shows devB ~ +5.46e9 s (2200 - now) and
#     devD ~ -172800 s, devA within 5 s of 0. Then the same sequence with
#     both bounds off (max_time_ahead: 0s, max_time_behind: 0s): the 2200
#     point is taken and still hides nothing: devA, devB and devC exposed.
#
#   faults_input.sh FABRICSCOPE PYTHON reload
#     An otlp source O on port P1. Reload 1 adds auth with a
#     bearer_tokens_file that does not exist: O's new settings fail, it runs
#     on P1 (kept=previous). Reload 2 moves O to port P2, held by another
#     process: fails again. Checks: the second failure logs kept=previous too
#     (not reload 1's failed settings, kept=none), fabricscope_up{source="O"}
#     1, O answers 200 on P1 after each reload, and a point sent after reload
#     2 is exposed.
#
#   faults_input.sh FABRICSCOPE PYTHON labels
#     Two interfaces of one device whose names (141 bytes) differ only at
#     byte 141, one request a point, 1 s apart: A 100, B 5, A 200, B 10. Checks:
#     two series, each port label its first 110 bytes + "~h" + 16 hex
#     digits (values 200 and 10); no reset verdict and no counter_reset
#     event (before: one series cut at 128 bytes, reset twice);
#     fabricscope_otlp_label_values_hashed_total 4.
#
#   faults_input.sh FABRICSCOPE PYTHON label_keys
#     The same with attribute keys: one interface, an extra attribute whose
#     key is 100 bytes, K1 or K2 (differing only at byte 90), one request a
#     point 1 s apart: K1 100, K2 5, K1 200, K2 10; then two keys of 300
#     bytes differing at byte 281 (past the cache key's 255 bytes of a
#     key): Z1 7, Z2 8. Checks: four series, each label name the key's
#     first 45 bytes + "_h" + 16 hex digits of its FNV-1a hash (computed
#     here), values 200, 10, 7, 8; no reset verdict (before: names cut at
#     63 bytes and cache keys at 255, two series, reset verdicts);
#     fabricscope_otlp_label_names_hashed_total 6.
#
#   faults_input.sh FABRICSCOPE PYTHON big
#     Counters above 2^53 on Cumulus series (width 53: "carried as
#     doubles"): six points 1 s apart of a 400G port at line rate (5e10 B/s)
#     starting at 2^53 + 1, as asInt (devI) and as asDouble (devF, the
#     sender's double 2^53 + 2). Checks: both accepted; asInt exposed
#     exactly (u64 samples); asDouble exposed as the exact double; both 1 s
#     rates exactly 5e10 (a difference of two doubles within a factor 2 of
#     each other is exact, Sterbenz); no reset or implausible verdict.
#
#   faults_input.sh FABRICSCOPE PYTHON state
#     A daemon A (synthetic source, rollups on) on state_dir S. Checks:
#     S/lock holds A's pid; a second daemon with the same config exits 1
#     at once naming A's pid, starting nothing; rm -rf S while A runs:
#     state_dir_lost reason=deleted logged, S/lock back with A's pid within
#     5 s, a rollup day file back with the next minute (within 75 s); S
#     moved away and an empty directory put there: reason=replaced, the
#     lock taken in the new one. Before: no lock, the second daemon ran on
#     the same directory, the deletion went unnoticed (rollups written into
#     a deleted file).
#
#   faults_input.sh FABRICSCOPE PYTHON blocking
#     Files that would block or be followed: a FIFO as the config itself, as
#     a password_file and as a bearer_tokens_file (nothing ever writes to
#     them). Checks: `run -c FIFO` and `run` of a config whose secret file
#     is a FIFO exit 2 within 10 s naming the FIFO; a running daemon
#     reloaded to a bearer_tokens_file that is a FIFO logs source_failed
#     naming the FIFO with kept=previous, its source still answers, a second
#     reload back completes, and SIGTERM stops it within 5 s (before: the
#     reload never ended and only SIGKILL stopped it). <state_dir>/lock as a
#     symlink to another file: not followed (the daemon runs unlocked and
#     says why, as for any lock it cannot take), the file it points to is
#     unchanged (before: overwritten with the pid).
#
#   faults_input.sh FABRICSCOPE PYTHON tls_reload
#     An otlp source with TLS (openssl-made certificate) reloaded to a
#     certificate file that does not parse together with another changed
#     key, then to a key that is not the certificate's. Checks: each reload
#     logs source_failed naming the certificate and key files and GnuTLS's
#     reason, kept=previous (before: "cannot listen ... address in use",
#     gRPC's failure at the port); the source answers over TLS after each;
#     fabricscope_up 1.
#
#   faults_input.sh FABRICSCOPE PYTHON gnmi GNMI_SIM
#     A gnmi source on gnmi_sim --clock-ahead 10m (every time the target
#     sends is 10 minutes ahead). Checks: at least 100 samples refused as
#     future within 10 s, none as past; no port series of the device
#     exposed; fabricscope_device_clock_offset_seconds ~ +600; one
#     gnmi_time_rejected line (rate limited to one per 10 s); the source
#     stays up.
set -u
bin=$1
py=$2
part=$3
here=$(dirname "$0")
# shellcheck source=tests/integration/lib.sh
. "$here/lib.sh"
lib_init

Y2200=7258118400000000000 # 2200-01-01T00:00:00Z in ns

send() { # PORT POINT...: one request; prints the sender's status line
    "$py" "$here/faults_input_otlp.py" "$@"
}

otlp_config() { # EXTRA-KEYS
    cat >"$tmp/fsc.yaml" <<EOF
sources:
  - {name: o1, type: otlp, grpc_listen: "", http_listen: "127.0.0.1:0"$1}
exporters:
  prometheus: {listen: "127.0.0.1:0"}
EOF
}

start_otlp() { # EXTRA-KEYS; sets hport
    otlp_config "$1"
    start_fsc "$tmp/fsc.yaml"
    wait_exporter || return 1
    hport=$(wait_log_port 'otlp_listening .*transport=http( |$)') || {
        fail "no OTLP/HTTP port"
        return 1
    }
}

rx() { series_value fabric_port_rx_bytes_total device="$1" port=swp1; }

time_part() {
    start_otlp "" || return 1
    a1=$(send "$hport" devA,now,10)
    b=$(send "$hport" "devB,$Y2200,5")
    c=$(send "$hport" devC,now,30)
    a2=$(send "$hport" devA,now+1,11)
    d=$(send "$hport" devD,now-172800,40)
    echo "devA: $a1 / $a2"
    echo "devB: $b"
    echo "devC: $c"
    echo "devD: $d"
    check_eq "devA accepted" "$a1" "status=200 rejected=0 message="
    case $b in
    "status=200 rejected=1 message=time_unix_nano is "*" s ahead of the collector's clock (max_time_ahead 300 s)"*) ok ;;
    *) fail "devB (2200) not refused as partial success: $b" ;;
    esac
    case $d in
    "status=200 rejected=1 message=time_unix_nano is 1728"*" s behind the collector's clock (max_time_behind 86400 s)"*) ok ;;
    *) fail "devD (2 days old) not refused as partial success: $d" ;;
    esac
    for i in 1 2; do
        fetch_metrics || fail "GET /metrics"
        echo "scrape $i: $(grep -c '^fabric_port_rx_bytes_total{' "$tmp/metrics") rx series:"
        grep '^fabric_port_rx_bytes_total{' "$tmp/metrics"
        check_eq "scrape $i: rx series exposed" \
            "$(grep -c '^fabric_port_rx_bytes_total{' "$tmp/metrics")" 2
        num_eq "scrape $i: devA" "$(rx devA)" 11
        num_eq "scrape $i: devC" "$(rx devC)" 30
        check_eq "scrape $i: devB absent" \
            "$(grep -c '^fabric_port_rx_bytes_total{device="devB"' "$tmp/metrics")" 0
    done
    grep -E '^fabricscope_(samples_rejected_total|device_clock_offset_seconds)' "$tmp/metrics"
    num_eq "samples_rejected future" \
        "$(series_value fabricscope_samples_rejected_total source=o1 reason=future)" 1
    num_eq "samples_rejected past" \
        "$(series_value fabricscope_samples_rejected_total source=o1 reason=past)" 1
    num_near "clock offset devB (2200)" \
        "$(series_value fabricscope_device_clock_offset_seconds source=o1 device=devB)" \
        "$(awk -v y="$Y2200" -v n="$(date +%s)" 'BEGIN { printf "%.0f", y / 1e9 - n }')" 0.001
    num_near "clock offset devD (2 days behind)" \
        "$(series_value fabricscope_device_clock_offset_seconds source=o1 device=devD)" -172800 0.001
    num_le "clock offset devA near 0" \
        "$(series_value fabricscope_device_clock_offset_seconds source=o1 device=devA |
            awk '{ print ($1 < 0 ? -$1 : $1) }')" 5
    stop_pid "$fsc_pid"
    fsc_pid=""

    # With the bounds off the 2200 point is taken, and staleness never
    # measures other series against it.
    start_otlp ", max_time_ahead: 0s, max_time_behind: 0s" || return 1
    send "$hport" devA,now,10 >/dev/null
    b=$(send "$hport" "devB,$Y2200,5")
    send "$hport" devC,now,30 >/dev/null
    send "$hport" devA,now+1,11 >/dev/null
    check_eq "bounds off: devB accepted" "$b" "status=200 rejected=0 message="
    for i in 1 2; do
        fetch_metrics || fail "GET /metrics"
        echo "bounds off, scrape $i:"
        grep '^fabric_port_rx_bytes_total{' "$tmp/metrics"
        check_eq "bounds off, scrape $i: rx series exposed" \
            "$(grep -c '^fabric_port_rx_bytes_total{' "$tmp/metrics")" 3
        num_eq "bounds off, scrape $i: devA" "$(rx devA)" 11
        num_eq "bounds off, scrape $i: devB" "$(rx devB)" 5
        num_eq "bounds off, scrape $i: devC" "$(rx devC)" 30
    done
}


reloaded_since() { [ "$(grep -c 'event=reloaded ' "$tmp/fsc.log")" -gt "$1" ]; }

reload_to() { # SOURCE-LINE: writes the config, SIGHUPs, waits for the reload to end
    cat >"$tmp/fsc.yaml" <<EOF
sources:
  - $1
exporters:
  prometheus: {listen: "127.0.0.1:$mp"}
EOF
    _rt_before=$(grep -c 'event=reloaded ' "$tmp/fsc.log")
    kill -HUP "$fsc_pid"
    wait_until 100 reloaded_since "$_rt_before" || fail "reload did not finish"
}

otlp_code() { # PORT -> HTTP status of an empty OTLP/HTTP export (000: no answer)
    curl -s -o /dev/null -w '%{http_code}' --max-time 5 -X POST \
        -H 'Content-Type: application/x-protobuf' --data-binary '' "http://127.0.0.1:$1/v1/metrics"
}

reload_part() {
    p1=$(free_ports 1)
    p2=$(free_ports 1)
    mp=$(free_ports 1)
    o1="{name: O, type: otlp, grpc_listen: \"\", http_listen: \"127.0.0.1:$p1\"}"
    o_auth="{name: O, type: otlp, grpc_listen: \"\", http_listen: \"127.0.0.1:$p1\",
     auth: {bearer_tokens_file: $tmp/no-such-tokens}}"
    o2="{name: O, type: otlp, grpc_listen: \"\", http_listen: \"127.0.0.1:$p2\"}"
    cat >"$tmp/fsc.yaml" <<EOF
sources:
  - $o1
exporters:
  prometheus: {listen: "127.0.0.1:$mp"}
EOF
    start_fsc "$tmp/fsc.yaml"
    wait_exporter || return 1
    wait_log_port 'otlp_listening .*transport=http( |$)' >/dev/null || fail "O did not listen"
    check_eq "O answers on P1" "$(otlp_code "$p1")" 200

    reload_to "$o_auth"
    check_log "reload 1: O's new settings failed, previous kept" \
        'event=source_failed source=O reason=.*bearer_tokens_file.* kept=previous'
    check_eq "after reload 1: O answers on P1" "$(otlp_code "$p1")" 200

    "$py" -c 'import socket, time, sys
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.1", int(sys.argv[1]))); s.listen(1); time.sleep(60)' "$p2" &
    peer_pid=$!
    port_held() { ss -ltn | grep -q ":$p2 "; }
    wait_until 50 port_held || fail "the port holder did not listen"
    reload_to "$o2"
    grep -E 'event=(source_failed|reloaded|source_started|source_stopped)' "$tmp/fsc.log" |
        cut -c1-240
    check_eq "source_failed lines" "$(grep -c 'event=source_failed source=O' "$tmp/fsc.log")" 2
    check_eq "reload 2: kept=" \
        "$(grep 'event=source_failed source=O' "$tmp/fsc.log" | tail -n 1 |
            sed -n 's/.* kept=\([a-z]*\).*/\1/p')" previous
    check_log "reload 2: the reason is the held port" \
        "event=source_failed source=O reason=.*$p2.* kept=previous"
    check_eq "after reload 2: O answers on P1" "$(otlp_code "$p1")" 200
    send "$p1" devR,now,77 >/dev/null
    fetch_metrics || fail "GET /metrics"
    grep -E '^fabricscope_up\{source="O"' "$tmp/metrics"
    check_eq "fabricscope_up O" "$(series_value fabricscope_up source=O type=otlp)" 1
    num_eq "a point after reload 2 is exposed" "$(rx devR)" 77
    stop_pid "$peer_pid"
    peer_pid=""
}

blocking_part() {
    mkfifo "$tmp/fifo.yaml" "$tmp/fifo-secret" "$tmp/fifo-tokens"
    timeout 10 "$bin" run -c "$tmp/fifo.yaml" >/dev/null 2>"$tmp/run1.err"
    check_eq "run -c FIFO: exit status" "$?" 2
    check "run -c FIFO: names it" grep -q "fifo.yaml: cannot open: is a FIFO" "$tmp/run1.err"
    cat >"$tmp/secret.yaml" <<EOF
sources:
  - {name: g, type: gnmi, address: "127.0.0.1:1", username: u, password_file: $tmp/fifo-secret}
EOF
    timeout 10 "$bin" run -c "$tmp/secret.yaml" >/dev/null 2>"$tmp/run2.err"
    check_eq "a FIFO password_file: exit status" "$?" 2
    check "a FIFO password_file: named" grep -q "cannot read \"$tmp/fifo-secret\": is a FIFO" "$tmp/run2.err"

    p1=$(free_ports 1)
    mp=$(free_ports 1)
    o1="{name: O, type: otlp, grpc_listen: \"\", http_listen: \"127.0.0.1:$p1\"}"
    o_fifo="{name: O, type: otlp, grpc_listen: \"\", http_listen: \"127.0.0.1:$p1\",
     auth: {bearer_tokens_file: $tmp/fifo-tokens}}"
    cat >"$tmp/fsc.yaml" <<EOF
sources:
  - $o1
exporters:
  prometheus: {listen: "127.0.0.1:$mp"}
EOF
    start_fsc "$tmp/fsc.yaml"
    wait_exporter || return 1
    wait_log_port 'otlp_listening .*transport=http( |$)' >/dev/null || fail "O did not listen"
    reload_to "$o_fifo"
    check_log "reload to a FIFO token file: failed, named, previous kept" \
        'event=source_failed source=O reason=.*fifo-tokens.*FIFO.* kept=previous'
    check_eq "after the FIFO reload: O answers" "$(otlp_code "$p1")" 200
    reload_to "$o1"
    check_eq "a reload after it completes: reloads" "$(grep -c 'event=reloaded ' "$tmp/fsc.log")" 2
    stop_pid "$fsc_pid" 50
    check_eq "SIGTERM stops it within 5 s (no SIGKILL)" "$?" 0
    check_eq "exit status after SIGTERM" "$stop_rc" 0
    fsc_pid=""

    mkdir -p "$tmp/lockstate"
    printf 'keep\n' >"$tmp/victim"
    ln -s "$tmp/victim" "$tmp/lockstate/lock"
    cat >"$tmp/lock.yaml" <<EOF
state_dir: $tmp/lockstate
exporters:
  prometheus: {listen: "127.0.0.1:0"}
EOF
    start_fsc "$tmp/lock.yaml"
    wait_exporter || return 1
    check_log "a symlinked lock: not followed, said" \
        "event=state_dir_unlocked .*cannot open $tmp/lockstate/lock: Too many levels of symbolic links"
    stop_pid "$fsc_pid" 50
    fsc_pid=""
    check_eq "the symlink's target is unchanged" "$(cat "$tmp/victim")" keep
}

tls_reload_part() {
    openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 30 \
        -subj /CN=127.0.0.1 -keyout "$tmp/k.pem" -out "$tmp/c.pem" 2>/dev/null ||
        { fail "openssl could not make a certificate"; return 1; }
    openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 30 \
        -subj /CN=other -keyout "$tmp/k2.pem" -out "$tmp/c2.pem" 2>/dev/null
    printf 'not a certificate\n' >"$tmp/bad.pem"
    p1=$(free_ports 1)
    p2=$(free_ports 1)
    mp=$(free_ports 1)
    tls="{cert_file: $tmp/c.pem, key_file: $tmp/k.pem}"
    o1="{name: O, type: otlp, grpc_listen: \"127.0.0.1:$p2\", http_listen: \"127.0.0.1:$p1\", tls: $tls}"
    cat >"$tmp/fsc.yaml" <<EOF
sources:
  - $o1
exporters:
  prometheus: {listen: "127.0.0.1:$mp"}
EOF
    start_fsc "$tmp/fsc.yaml"
    wait_exporter || return 1
    wait_log_port 'otlp_listening .*transport=http( |$)' >/dev/null || fail "O did not listen"
    tls_code() {
        curl -s -k -o /dev/null -w '%{http_code}' --max-time 5 -X POST \
            -H 'Content-Type: application/x-protobuf' --data-binary '' "https://127.0.0.1:$p1/v1/metrics"
    }
    check_eq "O answers over TLS" "$(tls_code)" 200
    # A certificate that does not parse, and another key changed with it.
    reload_to "{name: O, type: otlp, max_series: 5000, grpc_listen: \"127.0.0.1:$p2\",
     http_listen: \"127.0.0.1:$p1\", tls: {cert_file: $tmp/bad.pem, key_file: $tmp/k.pem}}"
    check_log "an unloadable certificate is named, previous kept" \
        "event=source_failed source=O reason=.*certificate $tmp/bad.pem with key $tmp/k.pem: .* kept=previous"
    check "not blamed on the address" eval '! grep "event=source_failed" "$tmp/fsc.log" | grep -q "cannot listen"'
    check_eq "after it: O answers over TLS" "$(tls_code)" 200
    # A key that is not the certificate's.
    reload_to "{name: O, type: otlp, grpc_listen: \"127.0.0.1:$p2\",
     http_listen: \"127.0.0.1:$p1\", tls: {cert_file: $tmp/c.pem, key_file: $tmp/k2.pem}}"
    check_eq "a mismatched key: failed once more" "$(grep -c 'event=source_failed source=O' "$tmp/fsc.log")" 2
    check_log "a mismatched key is named" \
        "event=source_failed source=O reason=.*certificate $tmp/c.pem with key $tmp/k2.pem: .* kept=previous"
    check_eq "after it: O answers over TLS" "$(tls_code)" 200
    check_eq "fabricscope_up O" "$(fetch_metrics && series_value fabricscope_up source=O type=otlp)" 1
}

labels_part() {
    start_otlp "" || return 1
    i1='p*140+A'
    i2='p*140+B'
    for p in "100,now,$i1" "5,now+1,$i2" "200,now+2,$i1" "10,now+3,$i2"; do
        v=${p%%,*}
        rest=${p#*,}
        r=$(send "$hport" "devL,${rest%%,*},$v,${rest#*,}")
        check_eq "request of value $v" "$r" "status=200 rejected=0 message="
    done
    fetch_metrics || fail "GET /metrics"
    grep '^fabric_port_rx_bytes_total{device="devL"' "$tmp/metrics" | cut -c1-220
    check_eq "two series for two interfaces" \
        "$(grep -c '^fabric_port_rx_bytes_total{device="devL"' "$tmp/metrics")" 2
    # The port value: 110 bytes of the name, then ~h and 16 hex digits.
    check_eq "port label of interface A (prefix, hash suffix)" \
        "$(grep -c '^fabric_port_rx_bytes_total{device="devL",port="p\{110\}~h[0-9a-f]\{16\}"} 200$' \
            "$tmp/metrics")" 1
    check_eq "port label of interface B" \
        "$(grep -c '^fabric_port_rx_bytes_total{device="devL",port="p\{110\}~h[0-9a-f]\{16\}"} 10$' \
            "$tmp/metrics")" 1
    resets=$(series_value fabricscope_sample_verdicts_total verdict=reset)
    echo "reset verdicts: $resets; counter_reset events logged: $(grep -c 'counter_reset' "$tmp/fsc.log")"
    num_eq "no reset verdict" "$resets" 0
    check_eq "no counter_reset event" "$(grep -c 'counter_reset' "$tmp/fsc.log")" 0
    grep '^fabricscope_otlp_label_values_hashed_total' "$tmp/metrics"
    num_eq "long values counted (4 points)" \
        "$(series_value fabricscope_otlp_label_values_hashed_total source=o1)" 4
}

# The label name of a key over 63 bytes, computed independently: KEY is a
# sender spec (A*N+SUFFIX), its bytes [a-z] (sanitized = as sent); the name
# is its first 45 bytes + "_h" + 16 hex digits of FNV-1a 64 of all of it.
hashed_name() {
    "$py" - "$1" <<'EOF'
import sys
ch, rest = sys.argv[1].split("*", 1)
n, _, suffix = rest.partition("+")
key = ch * int(n) + suffix
h = 14695981039346656037
for b in key.encode():
    h = ((h ^ b) * 1099511628211) % (1 << 64)
print("%s_h%016x" % (key[:45], h))
EOF
}

label_keys_part() {
    start_otlp "" || return 1
    k1='k*89+Akkkkkkkkkk' # 100 bytes; byte 90 is A or B
    k2='k*89+Bkkkkkkkkkk'
    z1='z*280+Azzzzzzzzzzzzzzzzzzz' # 300 bytes; byte 281 is A or B
    z2='z*280+Bzzzzzzzzzzzzzzzzzzz'
    for p in "100,now,$k1" "5,now+1,$k2" "200,now+2,$k1" "10,now+3,$k2" \
        "7,now+4,$z1" "8,now+5,$z2"; do
        v=${p%%,*}
        rest=${p#*,}
        r=$(send "$hport" "devK,${rest%%,*},$v,swp1,,${rest#*,}=x")
        check_eq "request of value $v" "$r" "status=200 rejected=0 message="
    done
    fetch_metrics || fail "GET /metrics"
    grep '^fabric_port_rx_bytes_total{device="devK"' "$tmp/metrics" | cut -c1-220
    check_eq "four series for four keys" \
        "$(grep -c '^fabric_port_rx_bytes_total{device="devK"' "$tmp/metrics")" 4
    for kv in "$k1 200" "$k2 10"; do
        name=$(hashed_name "${kv% *}")
        check_eq "series of key ${kv% *}: $name, value ${kv#* }" \
            "$(grep -Fxc "fabric_port_rx_bytes_total{device=\"devK\",$name=\"x\",port=\"swp1\"} ${kv#* }" \
                "$tmp/metrics")" 1
    done
    for kv in "$z1 7" "$z2 8"; do # z... sorts after port
        name=$(hashed_name "${kv% *}")
        check_eq "series of key ${kv% *}: $name, value ${kv#* }" \
            "$(grep -Fxc "fabric_port_rx_bytes_total{device=\"devK\",port=\"swp1\",$name=\"x\"} ${kv#* }" \
                "$tmp/metrics")" 1
    done
    resets=$(series_value fabricscope_sample_verdicts_total verdict=reset)
    echo "reset verdicts: $resets"
    num_eq "no reset verdict" "$resets" 0
    grep '^fabricscope_otlp_label_\(names\|values\)_hashed_total' "$tmp/metrics"
    num_eq "long names counted (6 points)" \
        "$(series_value fabricscope_otlp_label_names_hashed_total source=o1)" 6
    num_eq "no long value" "$(series_value fabricscope_otlp_label_values_hashed_total source=o1)" 0
}

big_part() {
    start_otlp "" || return 1
    # Six points 1 s apart ending 1 s ago, each request with its absolute time.
    base=$(($(date +%s) * 1000000000 - 7000000000))
    big=9007199254740993 # 2^53 + 1
    step=50000000000     # 400G at line rate: 5e10 bytes a second
    k=0
    while [ "$k" -le 5 ]; do
        t=$((base + k * 1000000000))
        r=$(send "$hport" "devI,$t,$((big + k * step))" "devF,$t,$((big + 1 + k * step)),swp1,double")
        check_eq "point $k accepted" "$r" "status=200 rejected=0 message="
        k=$((k + 1))
    done
    fetch_metrics || fail "GET /metrics"
    grep -E '^fabric_port_(rx_bytes_total|bytes_per_second)\{device="dev[IF]"' "$tmp/metrics"
    # asInt: a u64 sample, exact at any size (2^53 + 1 + 5 * 5e10).
    check_eq "asInt value exact" "$(rx devI)" 9007449254740993
    # asDouble: 2^53 + 2 + 5 * 5e10 is a double (even): exposed exactly.
    check_eq "asDouble value exact" "$(rx devF)" 9007449254740994
    for d in devI devF; do
        r=$(series_value fabric_port_bytes_per_second device=$d port=swp1 direction=rx)
        num_eq "$d: 1 s rate exactly 5e10 bytes/s" "$r" 50000000000
    done
    num_eq "no reset verdict" "$(series_value fabricscope_sample_verdicts_total verdict=reset)" 0
    num_eq "no implausible verdict" \
        "$(series_value fabricscope_sample_verdicts_total verdict=implausible)" 0
}

state_config() {
    cat >"$tmp/fsc.yaml" <<EOF
sources:
  - {name: syn, type: synthetic, device: s1, ports: 2, speed: 400G, interval: 100ms,
     utilization: 0.3, seed: 1}
exporters:
  prometheus: {listen: "127.0.0.1:0"}
state_dir: $tmp/sd
EOF
}

lock_is() { [ "$(cat "$tmp/sd/lock" 2>/dev/null)" = "$1" ]; }
gone() { ! kill -0 "$1" 2>/dev/null; }
day_file() { ls "$tmp/sd/rollup/"*.rr >/dev/null 2>&1 || ls "$tmp/sd/rollup/"* >/dev/null 2>&1; }

state_part() {
    state_config
    start_fsc "$tmp/fsc.yaml"
    wait_exporter || return 1
    a_pid=$fsc_pid
    check "A's pid in $tmp/sd/lock" wait_until 50 lock_is "$a_pid"
    check_log "A logs its lock" "event=state_dir_locked dir=$tmp/sd lock=$tmp/sd/lock pid=$a_pid"

    # A second daemon on the same state_dir.
    t0=$(date +%s%N)
    "$bin" run -c "$tmp/fsc.yaml" >/dev/null 2>"$tmp/b.log" &
    b_pid=$!
    if wait_until 100 gone "$b_pid"; then
        wait "$b_pid"
        b_rc=$?
    else
        fail "the second daemon did not stop within 10 s"
        stop_pid "$b_pid"
        b_rc=running
    fi
    b_ms=$((($(date +%s%N) - t0) / 1000000))
    echo "second daemon: exit $b_rc after $b_ms ms: $(grep 'event=exit' "$tmp/b.log" | cut -c1-300)"
    check_eq "second daemon exit code" "$b_rc" 1
    check "second daemon names A's pid" \
        grep -q "event=exit reason=\"state_dir $tmp/sd is in use by another fabricscope (pid $a_pid, lock $tmp/sd/lock)" "$tmp/b.log"
    check_eq "the second daemon started no source" "$(grep -c source_started "$tmp/b.log")" 0
    check "A still locks" lock_is "$a_pid"

    # The state directory deleted under A: noticed, made again, locked again;
    # the rollup's day file comes back with its next minute.
    rm -rf "$tmp/sd"
    t0=$(date +%s%N)
    check "the lock file is back with A's pid" wait_until 50 lock_is "$a_pid"
    echo "lock back after $((($(date +%s%N) - t0) / 1000000)) ms"
    check_log "state_dir_lost logged" "event=state_dir_lost dir=$tmp/sd reason=deleted action=recreated"
    check "a rollup day file is back within 75 s" wait_until 750 day_file
    echo "rollup back after $((($(date +%s%N) - t0) / 1000000)) ms: $(ls "$tmp/sd/rollup" 2>/dev/null)"
    # Replaced: moved away and an empty directory put in its place.
    mv "$tmp/sd" "$tmp/sd.old"
    mkdir "$tmp/sd"
    check "the lock is taken in the new directory" wait_until 50 lock_is "$a_pid"
    check_log "replacement logged" "event=state_dir_lost dir=$tmp/sd reason=replaced action=recreated"
    check "A still runs" kill -0 "$a_pid"
    grep -E 'state_dir_|rollup_write' "$tmp/fsc.log" | cut -c1-200
}

gnmi_part() {
    sim=$4
    start_sim "$sim" --listen 127.0.0.1:0 --ports 2 --interval 200ms --utilization 0.25 \
        --clock-ahead 10m --duration 40s || return 1
    cat >"$tmp/fsc.yaml" <<EOF
sources:
  - name: leafF
    type: gnmi
    address: "127.0.0.1:$sim_port"
    sample_interval: 200ms
    sample_interval_grid: none
    streams:
      - {name: interfaces, paths: ["/interfaces/interface/state/counters"]}
exporters:
  prometheus: {listen: "127.0.0.1:0"}
EOF
    start_fsc "$tmp/fsc.yaml"
    wait_exporter || return 1
    rejected() { [ "$(series_value fabricscope_samples_rejected_total source=leafF reason=future)" -ge 100 ] 2>/dev/null; }
    poll_metrics 100 rejected || fail "no future samples refused within 10 s"
    grep -E '^fabricscope_(samples_rejected_total|device_clock_offset_seconds|gnmi_(updates|messages)_total)\{source="leafF"' "$tmp/metrics"
    echo "rx series exposed: $(grep -c '^fabric_port_rx_bytes_total{device="leafF"' "$tmp/metrics")"
    check_eq "no port series of the device 10 min ahead" \
        "$(grep -c '^fabric_port_rx_bytes_total{device="leafF"' "$tmp/metrics")" 0
    check_eq "every sample refused (= updates)" \
        "$(series_value fabricscope_samples_rejected_total source=leafF reason=future)" \
        "$(series_value fabricscope_gnmi_updates_total source=leafF stream=interfaces)"
    num_eq "nothing refused as past" \
        "$(series_value fabricscope_samples_rejected_total source=leafF reason=past)" 0
    num_near "clock offset +600 s" \
        "$(series_value fabricscope_device_clock_offset_seconds source=leafF device=leafF)" 600 0.01
    check_log "refusal logged" \
        'event=gnmi_time_rejected source=leafF device=leafF reason=future offset_s=60[0-9] samples=[0-9]+ suppressed=0'
    check_eq "logged at most once a 10 s" "$(grep -c 'event=gnmi_time_rejected' "$tmp/fsc.log")" 1
    check "the stream is up (the call itself is fine)" \
        eval "[ \"\$(series_value fabricscope_up source=leafF type=gnmi)\" = 1 ]"
}

case $part in
time) time_part ;;
gnmi) gnmi_part "$@" ;;
state) state_part ;;
big) big_part ;;
labels) labels_part ;;
label_keys) label_keys_part ;;
reload) reload_part ;;
blocking) blocking_part ;;
tls_reload) tls_reload_part ;;
*)
    echo "usage: faults_input.sh FABRICSCOPE PYTHON time|reload|blocking|tls_reload|labels|label_keys|big|state|gnmi [GNMI_SIM]"
    exit 2
    ;;
esac
summary
