#!/bin/sh
# shellcheck disable=SC2016 # single-quoted conditions are expanded by eval
# OTLP network faults against the real daemon (one otlp source,
# both transports, max_body 4 MiB, max_decompressed 32 MiB), driven by
# tests/tools/otlp_faults.js (node; grpc-js from tests/interop/otlp_js):
#   1. 1000 concurrent senders, each on its own connection (500 HTTP, 500
#      gRPC), 2 requests of 2 points each: every point counted exactly once
#      (points_total, requests_total{ok}, 2000 series with their exact last
#      values), no request refused.
#   2. Senders that go away mid-request: 50 HTTP requests reset after 1000 of
#      their 4096 body bytes, 50 after half of their headers; 50 gRPC streams
#      cancelled (RST_STREAM) after 1000 of 4096 message bytes, 50 whose TCP
#      connection is destroyed instead. Nothing of them is ingested; HTTP
#      ones are not counted as requests (no answer went out), gRPC ones at
#      most once each as bad_request.
#   3. A 5 MiB body (over max_body): 413 over HTTP, RESOURCE_EXHAUSTED (8)
#      over gRPC.
#   4. Gzip bombs: 1 GiB of zeros behind a valid protobuf prefix, ~1 MiB on
#      the wire (faults_net_bomb.py), 4 at once over HTTP (413) and 2 over
#      gRPC (8). The daemon's peak RSS (VmHWM, /proc) grows by less than
#      BOMB_RSS_MIB: nothing is inflated beyond max_decompressed.
#   5. Invalid UTF-8 in attribute values (protobuf; over HTTP and gRPC):
#      accepted, each invalid byte becomes '?' (docs/CONFIG.md, otlp), every
#      point of the request survives. Raw invalid UTF-8 in an OTLP/JSON body
#      is malformed JSON: 400, nothing of it ingested.
# Then the daemon still serves, exits 0 on SIGTERM; the Sanitize build
# reports nothing.
#   faults_net_otlp.sh FABRICSCOPE SOURCE_DIR NODE PYTHON3
set -u
bin=$1
src=$2
node=${3:-node}
py=${4:-python3}
here=$(dirname "$0")
mods="$src/tests/interop/otlp_js/node_modules"
tool="$src/tests/tools/otlp_faults.js"
BOMB_RSS_MIB=200

if [ ! -d "$mods/@grpc/grpc-js" ]; then
    echo "FAIL: $mods is missing or incomplete: run scripts/setup.sh" \
        "(it runs npm ci --prefix tests/interop/otlp_js)"
    exit 1
fi
# shellcheck source=lib.sh source-path=SCRIPTDIR
. "$here/lib.sh"
# shellcheck source=faults_net_lib.sh source-path=SCRIPTDIR
. "$here/faults_net_lib.sh"
fn_init

cat >"$tmp/fsc.yaml" <<'YAML'
sources:
  - {name: spine1, type: otlp, grpc_listen: "127.0.0.1:0", http_listen: "127.0.0.1:0",
     max_body: 4MiB, max_decompressed: 32MiB}
exporters:
  prometheus:
    listen: "127.0.0.1:0"
YAML
# ASan keeps freed blocks in a quarantine (256 MiB by default), which would
# show in VmHWM as if the bombs had been inflated; a small one keeps the
# RSS check meaningful in the Sanitize build. No effect elsewhere.
ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}quarantine_size_mb=8"
export ASAN_OPTIONS
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
url="http://127.0.0.1:$hport/v1/metrics"
rq() { series_value fabricscope_otlp_requests_total source=spine1 transport="$1" result="$2"; }
# all requests of a transport, every result
rq_all() {
    grep -E "^fabricscope_otlp_requests_total\\{source=\"spine1\",transport=\"$1\"" "$tmp/metrics" |
        awk '{s += $NF} END {print s + 0}'
}
pts() { series_value fabricscope_otlp_points_total source=spine1 transport="$1"; }
post() { # CONTENT_TYPE FILE [CURL_ARGS...]: prints the HTTP status
    _ct=$1
    _f=$2
    shift 2
    curl -s --max-time 30 -o "$tmp/resp" -w '%{http_code}' -H "Content-Type: $_ct" "$@" \
        --data-binary "@$_f" "$url"
}
tool() { timeout 90 "$node" "$tool" "$mods" "$@"; }

# ---- 1. 1000 concurrent senders ---------------------------------------------------
tool flood --http "$url" --grpc "127.0.0.1:$gport" --senders 1000 --requests 2 --points 2 \
    >"$tmp/flood.out" 2>&1
cat "$tmp/flood.out"
check "flood: every request answered with success" \
    grep -Eq '^flood senders=1000 requests=2 points=2 ok=2000 retries=[0-9]+ failed=0$' "$tmp/flood.out"
fetch_metrics || fail "GET /metrics"
num_eq "flood: http points_total" "$(pts http)" 2000
num_eq "flood: grpc points_total" "$(pts grpc)" 2000
num_eq "flood: http requests ok" "$(rq http ok)" 1000
num_eq "flood: grpc requests ok" "$(rq grpc ok)" 1000
num_eq "flood: http requests, every result" "$(rq_all http)" 1000
num_eq "flood: grpc requests, every result" "$(rq_all grpc)" 1000
flood_series() { grep -E '^fabric_[a-z]+_fault_flood_bytes[a-z_]*\{' "$tmp/metrics"; }
check_eq "flood: one series per sender and interface" "$(flood_series | wc -l)" 2000
# Last values: sender i, interface p: (i * 1000 + 1) * 1000 + p; summed over
# i < 1000, p < 2: 999002001000 (exact in a double).
num_eq "flood: sum of the last values" "$(flood_series | awk '{s += $NF} END {printf "%.0f", s}')" \
    999002001000
num_eq "flood: f999 swp1" "$(flood_series | grep -F 'device="f999"' | grep -F 'swp1' |
    awk '{print $NF}')" 999001001
points_before=$(($(pts http) + $(pts grpc)))
# Open descriptors of the daemon now: back to at most this once every
# connection of the aborting senders below has been torn down.
sockets() { find "/proc/$fsc_pid/fd" -mindepth 1 -maxdepth 1 -lname 'socket:*' 2>/dev/null | wc -l; }
# shellcheck disable=SC2034 # read in the eval string below
sockets_before=$(sockets)

# ---- 2. senders that go away mid-request --------------------------------------------
tool abort-http --http "$url" --count 50 >"$tmp/abort.out" 2>&1
tool abort-grpc --grpc "127.0.0.1:$gport" --count 50 >>"$tmp/abort.out" 2>&1
check "aborts sent" eval 'grep -q "^abort-http sent=100$" "$tmp/abort.out" &&
    grep -q "^abort-grpc sent=100$" "$tmp/abort.out"'
# The daemon may still be tearing the last ones down: wait (10 s at most)
# until it holds no more sockets than before them, then scrape.
check "aborts: every aborted connection closed by the daemon" \
    wait_until 100 eval '[ "$(sockets)" -le "$sockets_before" ]'
fetch_metrics || fail "GET /metrics"
num_eq "aborts: no point ingested" "$(($(pts http) + $(pts grpc)))" "$points_before"
num_eq "aborts: HTTP ones are no answered request" "$(rq_all http)" 1000
ab=$(rq grpc bad_request)
check "aborts: gRPC ones counted at most once each as bad_request (got '$ab')" \
    eval '[ -n "$ab" ] && [ "$ab" -le 100 ]'
num_eq "aborts: no other gRPC result" "$(($(rq_all grpc) - ${ab:-0}))" 1000

# ---- 3. over max_body ----------------------------------------------------------------
{
    printf '\172\200\200\300\002' # field 15, LEN 5 MiB: a valid request if it were let in
    head -c 5242880 /dev/zero
} >"$tmp/big.pb"
check_eq "5 MiB body over HTTP" "$(post application/x-protobuf "$tmp/big.pb")" 413
check_eq "5 MiB body over HTTP: Status{code 8}" "$(od -An -tx1 -N2 "$tmp/resp" | tr -d ' \n')" 0808
tool grpc-file --grpc "127.0.0.1:$gport" --file "$tmp/big.pb" >"$tmp/g.out" 2>&1
check "5 MiB message over gRPC: RESOURCE_EXHAUSTED ($(cat "$tmp/g.out"))" \
    grep -q '^grpc-file status=8 ' "$tmp/g.out"

# ---- 4. gzip bombs -------------------------------------------------------------------
"$py" "$here/faults_net_bomb.py" "$tmp/bomb.gz" 1024 || fail "cannot write the bomb"
bsize=$(wc -c <"$tmp/bomb.gz")
check "the bomb is ~1 MiB on the wire, under max_body (got $bsize)" \
    eval '[ "$bsize" -gt 500000 ] && [ "$bsize" -lt 2000000 ]'
rss0=$(fn_vm_rss_kb "$fsc_pid")
hwm0=$(fn_vm_hwm_kb "$fsc_pid")
for k in 1 2 3 4; do
    curl -s --max-time 60 -o /dev/null -w '%{http_code}\n' -H 'Content-Type: application/x-protobuf' \
        -H 'Content-Encoding: gzip' --data-binary "@$tmp/bomb.gz" "$url" >"$tmp/bomb.$k" 2>&1 &
    eval "bomb_pid$k=\$!"
done
for k in 1 2; do
    tool grpc-file --grpc "127.0.0.1:$gport" --file "$tmp/bomb.gz" --gzip 1 >"$tmp/gbomb.$k" 2>&1 &
    eval "gbomb_pid$k=\$!"
done
# shellcheck disable=SC2154 # set by eval above
wait "$bomb_pid1" "$bomb_pid2" "$bomb_pid3" "$bomb_pid4" "$gbomb_pid1" "$gbomb_pid2"
for k in 1 2 3 4; do check_eq "HTTP bomb $k" "$(cat "$tmp/bomb.$k")" 413; done
for k in 1 2; do
    check "gRPC bomb $k: RESOURCE_EXHAUSTED ($(cat "$tmp/gbomb.$k"))" grep -q '^grpc-file status=8 ' "$tmp/gbomb.$k"
done
hwm1=$(fn_vm_hwm_kb "$fsc_pid")
echo "bombs: VmRSS before ${rss0} kB, VmHWM before ${hwm0} kB, after ${hwm1} kB"
check "bombs: peak RSS grew by less than $BOMB_RSS_MIB MiB (VmRSS before $rss0 kB, VmHWM after $hwm1 kB)" \
    eval '[ -n "$hwm1" ] && [ $((hwm1 - rss0)) -lt $((BOMB_RSS_MIB * 1024)) ]'

# ---- 5. invalid UTF-8 ----------------------------------------------------------------
tool write-utf8 --out "$tmp/utf8.pb" || fail "cannot write the UTF-8 request"
check_eq "invalid UTF-8 attributes over HTTP" "$(post application/x-protobuf "$tmp/utf8.pb")" 200
check_eq "  and nothing refused (empty response)" "$(wc -c <"$tmp/resp")" 0
tool grpc-file --grpc "127.0.0.1:$gport" --file "$tmp/utf8.pb" >"$tmp/g.out" 2>&1
check "invalid UTF-8 attributes over gRPC: OK ($(cat "$tmp/g.out"))" grep -q '^grpc-file status=0 ' "$tmp/g.out"
printf '{"resourceMetrics":[{"resource":{"attributes":[{"key":"host.name","value":{"stringValue":"u8json"}}]},"scopeMetrics":[{"metrics":[{"name":"fault_flood_bytes","gauge":{"dataPoints":[{"timeUnixNano":"1700000000000000000","asInt":"5","attributes":[{"key":"interface","value":{"stringValue":"swp\377x"}}]}]}}]}]}]}' \
    >"$tmp/utf8.json"
check_eq "raw invalid UTF-8 in OTLP/JSON" "$(post application/json "$tmp/utf8.json")" 400
fetch_metrics || fail "GET /metrics"
u8() { flood_series | grep -F 'device="u8"' | grep -F "$1" | awk '{print $NF}'; }
num_eq "utf8: the valid point" "$(u8 'port="swp1"')" 111
num_eq "utf8: the invalid interface, bytes replaced by ?" "$(u8 'port="swp??2"')" 222
num_eq "utf8: the invalid second attribute, byte replaced by ?" "$(u8 'note="?("')" 333
check_eq "utf8: nothing of the JSON request" "$(grep -c 'u8json' "$tmp/metrics")" 0

# ---- still serving -------------------------------------------------------------------
: >"$tmp/empty"
check_eq "still serving after all that" "$(post application/x-protobuf "$tmp/empty")" 200
fn_stop_fsc
fn_sanitizer_check "$tmp/fsc.log"
if [ "$fails" -ne 0 ]; then
    echo "--- fabricscope log ---"
    grep -v "event=library" "$tmp/fsc.log" | cut -c1-300 | tail -30
    echo "--- /metrics (otlp, u8) ---"
    grep -E '^fabricscope_otlp|device="u8"' "$tmp/metrics" | head -40
fi
summary
