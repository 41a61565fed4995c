#!/bin/sh
# shellcheck disable=SC2016,SC2034 # single-quoted conditions (and the variables they read) are expanded by eval
# Connection admission and strict framing on every listener (issue 20, part
# B), against the real daemon with an otlp source (gRPC + HTTP) and the
# Prometheus exporter. Attackers come from other loopback addresses
# (127.0.0.2 and up), the legitimate scrape / export from 127.0.0.1.
#   1. 2 000 idle connections to each HTTP listener at once, from one
#      address, reopened as soon as the server closes one: 5 scrapes and 5
#      OTLP posts (one a second, each on a new connection) all answered 200
#      within 2 s.
#   2. The same from 100 addresses (20 each, under the per-address cap):
#      idle connections are shed, scrapes and posts still within 2 s.
#   3. 70 slow-body clients on OTLP/HTTP (1 body byte / 2 s), each from its
#      own address, and 70 slow-header clients on each HTTP listener: posts
#      and scrapes within 2 s meanwhile; every slow client closed by the
#      server within 8 s (header_timeout, body_rate_window: 5 s).
#   4. Framing, on both HTTP listeners: duplicate Content-Length, CL + TE,
#      %00 in the target, HTTP/1.1 without Host -> 400 and closed at once;
#      chunked on Prometheus -> 413 at once; a 2^64-1 chunk on OTLP/HTTP
#      closed within 8 s (the body rate).
#   5. gRPC: 8 Export calls that never send their message (127.0.0.2):
#      4 legitimate Exports meanwhile all OK within 2 s; the 8 are
#      cancelled (DEADLINE_EXCEEDED) within 8 s. 40 such calls from one
#      address: 8 over max_calls_per_ip (32) refused at once
#      (RESOURCE_EXHAUSTED).
#   6. One 100 MiB gRPC message: refused, and peak RSS grows by less than
#      64 MB (the core's memory quota is 32 MiB at max_body 4 MiB).
# Every number is printed.
#   faults_admit.sh FABRICSCOPE PYTHON3 NODE
set -u
bin=$1
py=${2:-python3}
node=${3:-node}
here=$(dirname "$0")
# shellcheck source=lib.sh source-path=SCRIPTDIR
. "$here/lib.sh"
# shellcheck source=faults_net_lib.sh source-path=SCRIPTDIR
. "$here/faults_net_lib.sh"
tool="$here/faults_admit.py"
gtool="$here/faults_admit_grpc.js"
# 2 000 attacker sockets per listener plus the daemon's own: the test's
# processes inherit this limit (the python attacker raises its soft limit
# itself when the hard one allows).
# shellcheck disable=SC3045 # dash and bash both have ulimit -n
[ "$(ulimit -n)" -ge 8192 ] 2>/dev/null || ulimit -n 8192 2>/dev/null ||
    skip "RLIMIT_NOFILE of at least 8192 (ulimit -n is $(ulimit -n))"
command -v "$node" >/dev/null 2>&1 || skip "node"
fn_init

cat >"$tmp/fsc.yaml" <<'YAML'
sources:
  - {name: spine1, type: otlp, grpc_listen: "127.0.0.1:0", http_listen: "127.0.0.1:0"}
exporters:
  prometheus:
    listen: "127.0.0.1:0"
YAML
start_fsc "$tmp/fsc.yaml"
wait_exporter || exit 1
gport=$(wait_log_port 'otlp_listening .*transport=grpc( |$)') || {
    fail "no otlp_listening transport=grpc line"
    exit 1
}
hport=$(wait_log_port 'otlp_listening .*transport=http( |$)') || {
    fail "no otlp_listening transport=http line"
    exit 1
}

# ---- 6. a 100 MiB gRPC message (first: the attacks raise the peak RSS) -------------------------------------------------------------
h0=$(fn_vm_hwm_kb "$fsc_pid")
"$node" "$gtool" big --grpc "127.0.0.1:$gport" --mib 100 >"$tmp/big.out" 2>&1
h1=$(fn_vm_hwm_kb "$fsc_pid")
cat "$tmp/big.out"
echo "100 MiB message: VmHWM ${h0} kB -> ${h1} kB (+$((h1 - h0)) kB)"
check "100 MiB message refused ($(cat "$tmp/big.out"))" \
    eval 'grep -Eq "^big mib=100 status=(-1|8) " "$tmp/big.out"'
check "peak RSS grew by less than 64 MB" [ $((h1 - h0)) -lt 65536 ]
"$node" "$gtool" export --grpc "127.0.0.1:$gport" --count 1 --gap 0 >"$tmp/ex2.out" 2>&1
check "gRPC still serving after it" grep -q '^export count=1 ok=1 ' "$tmp/ex2.out"

# probes NAME: a scrape and an OTLP post every second, 5 each, in parallel
probes() {
    fn_spawn "$1.ps" "$py" "$tool" probe --port "$mport" --kind scrape --count 5 --gap 1
    fn_spawn "$1.po" "$py" "$tool" probe --port "$hport" --kind otlp --count 5 --gap 1
    wait_until 200 grep -q '^probe kind' "$tmp/$1.ps.out"
    wait_until 200 grep -q '^probe kind' "$tmp/$1.po.out"
    grep '^probe kind' "$tmp/$1.ps.out" "$tmp/$1.po.out"
}
# probes_ok NAME WHAT: all 5 + 5 answered 200 within 2 s
probes_ok() {
    for _k in ps po; do
        _line=$(grep '^probe kind' "$tmp/$1.$_k.out")
        _max=$(echo "$_line" | sed -n 's/.* max_s=\([0-9.]*\)$/\1/p')
        _f=$fails
        check "$2: $_line" eval 'echo "$_line" | grep -q " ok=5 " &&
            awk -v m="$_max" "BEGIN { exit !(m != \"\" && m < 2.0) }"'
        [ "$_f" = "$fails" ] && [ -z "${ADMIT_DEBUG:-}" ] || grep '^probe [0-9]' "$tmp/$1.$_k.out"
    done
}

# ---- 1./2. idle connections -----------------------------------------------------------
for addrs in 1 100; do
    n="idle$addrs"
    fn_spawn "$n.m" "$py" "$tool" idle --port "$mport" --conns 2000 --addrs "$addrs" --seconds 9
    fn_spawn "$n.h" "$py" "$tool" idle --port "$hport" --conns 2000 --addrs "$addrs" --seconds 9
    wait_until 100 grep -q '^opened=2000' "$tmp/$n.m.out" || fail "$n: attacker (prometheus) did not open"
    wait_until 100 grep -q '^opened=2000' "$tmp/$n.h.out" || fail "$n: attacker (otlp) did not open"
    probes "$n"
    probes_ok "$n" "2 000 idle connections from $addrs address(es) on each listener"
    wait_until 150 grep -q '^idle ' "$tmp/$n.m.out"
    wait_until 150 grep -q '^idle ' "$tmp/$n.h.out"
    cat "$tmp/$n.m.out" "$tmp/$n.h.out"
    # one address: the per-address cap (32) holds; many: the shedding does
    if [ "$addrs" = 1 ]; then
        check "one address holds at most 32 connections to each listener" eval \
            '[ "$(sed -n "s/.* held_at_end=\([0-9]*\).*/\1/p" "$tmp/$n.m.out")" -le 32 ] &&
             [ "$(sed -n "s/.* held_at_end=\([0-9]*\).*/\1/p" "$tmp/$n.h.out")" -le 32 ]'
    fi
done
check_log "idle connections shed to keep the reserve" 'event=http_connections_shed listener=prometheus'
check_log "idle connections shed on OTLP/HTTP" 'event=http_connections_shed listener=otlp/http:spine1'

# ---- 3. slow bodies and slow headers ----------------------------------------------------
fn_spawn sb "$py" "$tool" slowbody --port "$hport" --conns 70 --seconds 9
fn_spawn shh "$py" "$tool" slowheader --port "$hport" --conns 70 --seconds 9
fn_spawn shm "$py" "$tool" slowheader --port "$mport" --conns 70 --seconds 9
for a in sb shh shm; do
    wait_until 100 grep -q '^opened=70' "$tmp/$a.out" || fail "$a: attacker did not open"
done
probes slow
probes_ok slow "70 slow-body + 2 x 70 slow-header clients"
for a in sb shh shm; do
    wait_until 150 grep -q '^slow' "$tmp/$a.out"
    line=$(grep '^slow' "$tmp/$a.out")
    echo "$line"
    last=$(echo "$line" | sed -n 's/.* last_close_s=\([0-9.-]*\).*/\1/p')
    check "$line: all 70 closed by the server within 8 s" eval \
        'echo "$line" | grep -q " closed_by_server=70 held_at_end=0 " &&
         awk -v l="$last" "BEGIN { exit !(l >= 0 && l < 8.0) }"'
done
check_log "slow bodies logged" 'event=http_body_too_slow listener=otlp/http:spine1 closed=[0-9]+'

# ---- 4. framing --------------------------------------------------------------------------
raw() { # PORT DATA [SECONDS] -> the raw line
    "$py" "$tool" raw --port "$1" --data "$2" --seconds "${3:-3}"
}
for port in "$mport" "$hport"; do
    if [ "$port" = "$mport" ]; then u=/metrics; l=prometheus; else u=/v1/metrics; l=otlp/http; fi
    ct='Content-Type: application/x-protobuf\r\n'
    for case in "duplicate Content-Length|POST $u HTTP/1.1\r\nHost: x\r\n${ct}Content-Length: 0\r\nContent-Length: 5\r\n\r\nhello" \
        "Content-Length + Transfer-Encoding|POST $u HTTP/1.1\r\nHost: x\r\n${ct}Content-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n" \
        "NUL in the target|GET /metrics%00.html HTTP/1.1\r\nHost: x\r\n\r\n" \
        "HTTP/1.1 without Host|GET $u HTTP/1.1\r\n\r\n"; do
        what=${case%%|*}
        got=$(raw "$port" "${case#*|}")
        echo "$l $what: $got"
        check "$l: $what -> 400, closed at once ($got)" \
            eval 'echo "$got" | grep -Eq "^raw status=400 closed=1 s=0\.[0-4]"'
    done
    chunk="POST $u HTTP/1.1\r\nHost: x\r\n${ct}Transfer-Encoding: chunked\r\n\r\nffffffffffffffff\r\nabc"
    got=$(raw "$port" "$chunk" 9)
    echo "$l chunk size 2^64-1: $got"
    if [ "$port" = "$mport" ]; then
        check "$l: a chunked body -> 413 at once ($got)" \
            eval 'echo "$got" | grep -Eq "^raw status=413 closed=1 s=0\.[0-4]"'
    else
        check "$l: chunk size 2^64-1 closed within 8 s ($got)" eval \
            '[ "$(echo "$got" | sed -n "s/^raw status=.* closed=\([01]\) s=\([0-9]*\)\..*/\1 \2/p")" \
               != "" ] && echo "$got" | grep -Eq "closed=1 s=[0-7]\."'
    fi
done
check_eq "still serving after the framing cases" "$(curl -s -o /dev/null -w '%{http_code}' \
    --max-time 5 "http://127.0.0.1:$mport/metrics")" 200

# ---- 5. gRPC calls without a message ------------------------------------------------------
fn_spawn st8 "$node" "$gtool" stall --grpc "127.0.0.1:$gport" --calls 8 --src 127.0.0.2 --seconds 10
wait_until 100 grep -q '^opened=8' "$tmp/st8.out" || fail "stalled gRPC calls not opened"
"$node" "$gtool" export --grpc "127.0.0.1:$gport" --count 4 --gap 1 >"$tmp/ex.out" 2>&1
grep '^export' "$tmp/ex.out"
line=$(grep '^export count' "$tmp/ex.out")
max=$(echo "$line" | sed -n 's/.* max_s=\([0-9.]*\)$/\1/p')
check "8 calls held without a message: 4 Exports OK within 2 s ($line)" eval \
    'echo "$line" | grep -q " ok=4 " && awk -v m="$max" "BEGIN { exit !(m != \"\" && m < 2.0) }"'
wait_until 150 grep -q '^stall ' "$tmp/st8.out"
line=$(grep '^stall ' "$tmp/st8.out")
echo "$line"
last=$(echo "$line" | sed -n 's/.* last_close_s=\([0-9.-]*\).*/\1/p')
check "$line: the 8 cancelled (DEADLINE_EXCEEDED) within 8 s" eval \
    'echo "$line" | grep -q "closed_by_server=8 held_at_end=0 .*statuses=4:8$" &&
     awk -v l="$last" "BEGIN { exit !(l >= 0 && l < 8.0) }"'
fn_spawn st40 "$node" "$gtool" stall --grpc "127.0.0.1:$gport" --calls 40 --src 127.0.0.3 --seconds 2
wait_until 100 grep -q '^stall ' "$tmp/st40.out"
line=$(grep '^stall ' "$tmp/st40.out")
echo "$line"
check "$line: 8 over max_calls_per_ip refused at once" \
    eval 'echo "$line" | grep -q "closed_by_server=8 held_at_end=32 .*statuses=8:8$"'
check_log "gRPC admission logged" 'event=otlp_grpc_admission source=spine1 refused_per_ip=[1-9]'

fn_stop_fsc
fn_sanitizer_check "$tmp/fsc.log"
if [ "$fails" -ne 0 ]; then
    echo "--- fabricscope log ---"
    grep -v "event=library" "$tmp/fsc.log" | cut -c1-300 | tail -30
fi
summary
