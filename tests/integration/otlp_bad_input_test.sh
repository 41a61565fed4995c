#!/bin/sh
# OTLP bad input against the real daemon (max_body 64 KiB, max_decompressed
# 1 MiB), over HTTP with curl and over gRPC with the independent grpc-js
# client (tests/interop/otlp_js/replay.js --grpc-raw):
#   malformed protobuf (truncated length, invalid wire type)
#       -> HTTP 400 + a protobuf google.rpc.Status {code 3, message}; gRPC 3
#   malformed JSON -> 400 + JSON Status whose message names line and column;
#       JSON that is not a request -> 400, the message names the key's path
#       (otlp_point.h)
#   body over max_body (valid JSON padded with 100 KiB of blanks; a valid
#       protobuf with a 100 KiB unknown field over gRPC)
#       -> 413 / gRPC RESOURCE_EXHAUSTED (8): the cap, not a parse error
#   gzip bomb: ~9 KiB compressed, 8 MiB decompressed (a valid request padded
#       with blanks / an unknown field, so only the cap can refuse it)
#       -> 413 / RESOURCE_EXHAUSTED
#   wrong Content-Type -> 415; empty protobuf body and `{}` -> 200
#   one point without timeUnixNano among valid ones (JSON: bad1, protobuf:
#       bad2) -> 200 with partialSuccess rejectedDataPoints = 1 and a message;
#       the other points (swp1 123456789, swp3 987654321, a Sum 4242) are in
#       /metrics, swp2 is not
# and the daemon keeps serving (a last valid request succeeds), exits 0 on
# SIGTERM, and the Sanitize build reports nothing.
# Fixtures: tests/fixtures/otlp/bad_*. bad_one_point_no_time.pb is
# bad_one_point_no_time.json with host.name bad2, encoded with protobufjs from
# proto/otlp_metrics_service.proto.
#   otlp_bad_input_test.sh FABRICSCOPE SOURCE_DIR [NODE]
set -u
bin=$1
src=$2
node=${3:-node}
js="$src/tests/interop/otlp_js"
fx="$src/tests/fixtures/otlp"

if ! command -v "$node" >/dev/null 2>&1; then
    echo "FAIL: node ($node) not found: run scripts/setup.sh"
    exit 1
fi
if [ ! -d "$js/node_modules/@grpc/grpc-js" ]; then
    echo "FAIL: $js/node_modules is missing or incomplete: run scripts/setup.sh" \
        "(it runs npm ci --prefix tests/interop/otlp_js)"
    exit 1
fi

# shellcheck source=lib.sh source-path=SCRIPTDIR
. "$(dirname "$0")/lib.sh"
lib_init

cat >"$tmp/fsc.yaml" <<'YAML'
sources:
  # The fixtures' points carry fixed times of 2023: the time guard's lower
  # bound (max_time_behind, 24 h by default) is off here.
  - {name: spine1, type: otlp, grpc_listen: "127.0.0.1:0", http_listen: "127.0.0.1:0",
     max_body: 64KiB, max_decompressed: 1MiB, max_time_behind: 0s}
exporters:
  prometheus:
    listen: "127.0.0.1:0"
YAML
start_fsc "$tmp/fsc.yaml"
wait_exporter || exit 1
gport=$(wait_log_port 'otlp_listening .*transport=grpc( |$)') || {
    fail "no otlp_listening transport=grpc line"
    cut -c1-300 "$tmp/fsc.log"
    exit 1
}
hport=$(wait_log_port 'otlp_listening .*transport=http( |$)') || {
    fail "no otlp_listening transport=http line"
    cut -c1-300 "$tmp/fsc.log"
    exit 1
}
url="http://127.0.0.1:$hport/v1/metrics"

# post CONTENT_TYPE FILE [EXTRA_CURL_ARGS...]: the response body goes to
# $tmp/resp, prints the status code (000 when there was no answer).
post() {
    _ct=$1
    _f=$2
    shift 2
    curl -s --max-time 10 -o "$tmp/resp" -w '%{http_code}' -H "Content-Type: $_ct" "$@" \
        --data-binary "@$_f" "$url"
}
# The first N bytes of the response, as hex.
head_hex() { od -An -tx1 -N"$1" "$tmp/resp" | tr -d ' \n'; }
# grpc FILE [--gzip]: one raw Export call; prints the status code.
grpc() {
    timeout 30 "$node" "$js/replay.js" --grpc-raw "$1" --grpc-target "127.0.0.1:$gport" ${2:+"$2"} \
        >"$tmp/grpc.out" 2>"$tmp/grpc.err"
    sed -n 's/^grpc code=\([0-9]*\).*/\1/p' "$tmp/grpc.out"
}

# Inputs made here: the big ones are not worth committing.
{
    printf '{"resourceMetrics":[]}'
    head -c 102400 /dev/zero | tr '\0' ' '
} >"$tmp/big.json"
{
    printf '{"resourceMetrics":[]}'
    head -c 8388608 /dev/zero | tr '\0' ' '
} | gzip -9 >"$tmp/bomb.json.gz"
# Unknown field 15 (tag 0x7a), LEN: 100 KiB (varint 80 a0 06) and 8 MiB
# (varint 80 80 80 04). Decoders skip unknown fields, so both are valid.
{
    printf '\172\200\240\006'
    head -c 102400 /dev/zero
} >"$tmp/big.pb"
{
    printf '\172\200\200\200\004'
    head -c 8388608 /dev/zero
} >"$tmp/bomb.pb"
gzip -9 -c "$tmp/bomb.pb" >"$tmp/bomb.pb.gz"
: >"$tmp/empty"
printf '{}' >"$tmp/empty.json"
# shellcheck disable=SC2016 # eval expands it
check "bomb is small on the wire" eval '[ "$(wc -c <"$tmp/bomb.json.gz")" -lt 65536 ] && [ "$(wc -c <"$tmp/bomb.pb.gz")" -lt 65536 ]'

# ---- HTTP --------------------------------------------------------------------
check_eq "truncated protobuf: status" "$(post application/x-protobuf "$fx/bad_truncated.pb")" 400
check_eq "truncated protobuf: Status{code 3, message}" "$(head_hex 3)" 080312
check_eq "invalid wire type: status" "$(post application/x-protobuf "$fx/bad_wiretype.pb")" 400
check_eq "invalid wire type: Status{code 3, message}" "$(head_hex 3)" 080312

check_eq "truncated JSON: status" "$(post application/json "$fx/bad_truncated.json")" 400
check "truncated JSON: message with line and column" \
    grep -Eq '"code": *3.*"message": *"[^"]*line [0-9]+, column [0-9]+' "$tmp/resp"
check_eq "JSON not a request: status" "$(post application/json "$fx/bad_not_request.json")" 400
check "JSON not a request: message with the path" \
    grep -Eq '"message": *"resourceMetrics: expected an array"' "$tmp/resp"

check_eq "body over max_body" "$(post application/json "$tmp/big.json")" 413
check_eq "gzip bomb (JSON)" "$(post application/json "$tmp/bomb.json.gz" -H 'Content-Encoding: gzip')" 413
check_eq "gzip bomb (protobuf)" \
    "$(post application/x-protobuf "$tmp/bomb.pb.gz" -H 'Content-Encoding: gzip')" 413
check_eq "wrong Content-Type" "$(post text/plain "$fx/bad_one_point_no_time.json")" 415
check_eq "empty protobuf body" "$(post application/x-protobuf "$tmp/empty")" 200
check_eq "empty JSON request" "$(post application/json "$tmp/empty.json")" 200

check_eq "one bad point (JSON): status" "$(post application/json "$fx/bad_one_point_no_time.json")" 200
check "one bad point (JSON): partialSuccess rejectedDataPoints 1 with a message" \
    grep -Eq '"partialSuccess": *\{.*"rejectedDataPoints": *"?1"?[,}].*' "$tmp/resp"
check "one bad point (JSON): errorMessage" grep -Eq '"errorMessage": *"[^"]+"' "$tmp/resp"
check_eq "one bad point (protobuf): status" \
    "$(post application/x-protobuf "$fx/bad_one_point_no_time.pb")" 200
# ExportMetricsServiceResponse{partial_success(1){rejected_data_points(1)=1, ...}}
# shellcheck disable=SC2016 # eval expands it
check "one bad point (protobuf): partial_success rejected_data_points 1" \
    eval 'head_hex 4 | grep -Eq "^0a[0-9a-f]{2}0801$"'

# ---- gRPC --------------------------------------------------------------------
check_eq "gRPC truncated protobuf: INVALID_ARGUMENT" "$(grpc "$fx/bad_truncated.pb")" 3
check_eq "gRPC empty request: OK" "$(grpc "$tmp/empty")" 0
check_eq "gRPC message over max_body: RESOURCE_EXHAUSTED" "$(grpc "$tmp/big.pb")" 8
check_eq "gRPC gzip bomb: RESOURCE_EXHAUSTED" "$(grpc "$tmp/bomb.pb" --gzip)" 8
check_eq "gRPC one bad point: OK" "$(grpc "$fx/bad_one_point_no_time.pb")" 0
check "gRPC one bad point: partial_success rejected_data_points 1" \
    grep -Eq '^grpc code=0 response_hex=0a[0-9a-f]{2}0801' "$tmp/grpc.out"

# ---- what survived -------------------------------------------------------------
check_eq "still serving after all that" "$(post application/x-protobuf "$tmp/empty")" 200
fetch_metrics || fail "GET /metrics"
for h in bad1 bad2; do
    num_eq "$h: swp1 survived" "$(series_value fabric_port_rx_bytes_total device=$h port=swp1)" 123456789
    num_eq "$h: swp3 survived" "$(series_value fabric_port_rx_bytes_total device=$h port=swp3)" 987654321
    check_eq "$h: swp2 (no time) absent" "$(series_value fabric_port_rx_bytes_total device=$h port=swp2)" ""
    num_eq "$h: the Sum of the same request survived" \
        "$(series_value fabric_cumulus_nvswitch_control_plane_rx_packets_total device=$h)" 4242
done

# ---- the receiver's own account of it (fabricscope_otlp_*) ------------------------
# HTTP: 3 ok (2 empty bodies, the last one), 2 partial, 4 malformed (2 protobuf,
# 2 JSON), 3 too large (1 body, 2 bombs), 1 other (415). gRPC: 1 ok, 1
# partial, 1 malformed, 2 too large.
rq() { series_value fabricscope_otlp_requests_total source=spine1 transport="$1" result="$2"; }
num_eq "http requests ok" "$(rq http ok)" 3
num_eq "http requests partial" "$(rq http partial)" 2
num_eq "http requests bad_request" "$(rq http bad_request)" 4
num_eq "http requests too_large" "$(rq http too_large)" 3
num_eq "http requests error (415)" "$(rq http error)" 1
num_eq "grpc requests ok" "$(rq grpc ok)" 1
num_eq "grpc requests partial" "$(rq grpc partial)" 1
num_eq "grpc requests bad_request" "$(rq grpc bad_request)" 1
num_eq "grpc requests too_large" "$(rq grpc too_large)" 2
num_eq "http rejected points" \
    "$(series_value fabricscope_otlp_rejected_points_total source=spine1 transport=http)" 2
num_eq "grpc rejected points" \
    "$(series_value fabricscope_otlp_rejected_points_total source=spine1 transport=grpc)" 1

ok
if stop_pid "$fsc_pid" 100; then
    [ "$stop_rc" -eq 0 ] || fail "fabricscope exit status $stop_rc after SIGTERM"
else
    fail "fabricscope still running 10 s after SIGTERM"
fi
fsc_pid=""
check_eq "sanitizer reports in the fabricscope log" \
    "$(grep -Ec 'ERROR: (AddressSanitizer|LeakSanitizer)|runtime error:' "$tmp/fsc.log")" 0

if [ "$fails" -ne 0 ]; then
    echo "--- fabricscope log ---"
    grep -v "event=library" "$tmp/fsc.log" | cut -c1-400 | tail -30
    echo "--- last grpc call ---"
    cat "$tmp/grpc.out" "$tmp/grpc.err" | cut -c1-300
    echo "--- /metrics (bad*) ---"
    grep 'device="bad' "$tmp/metrics" | head -20
fi
summary
