#!/bin/sh
# Every listening port of the real daemon with TLS and authentication
# (docs/SECURITY.md), the daemon running as nobody (setpriv, when the test
# runs as root):
#   Prometheus / status page: TLS, client certificate required, basic users
#     and bearer tokens. curl without and with a client certificate, a
#     certificate of another CA, no / bad / good credentials, plain HTTP;
#     the status page and APIs answer 405 to anything but GET/HEAD.
#   A real Prometheus 2.42 scrapes over TLS with a client certificate and
#     basic auth: its target turns "up".
#   OTLP/HTTP: TLS, client certificate requested (optional, verified when
#     given), bearer tokens: curl, and the OpenTelemetry JS SDK (HTTP/protobuf
#     over https with an Authorization header from OTEL_EXPORTER_OTLP_HEADERS).
#   OTLP/gRPC: the same TLS and tokens; the SDK over gRPC with a good token
#     succeeds, with a bad one fails (UNAUTHENTICATED).
#
#   security_listeners_test.sh BINARY [NODE] [SOURCE_DIR]
set -u
bin=$1
node=${2:-node}
src=${3:-$(cd "$(dirname "$0")/../.." && pwd)}
# shellcheck source=lib.sh source-path=SCRIPTDIR
. "$(dirname "$0")/lib.sh"
# shellcheck source=security_lib.sh source-path=SCRIPTDIR
. "$(dirname "$0")/security_lib.sh"
lib_init

sec_certs || { summary; exit 1; }
PW='scrape-Pw-4711'
TOKEN='tok-0123456789abcdef0123'
printf '# scrapers and senders\n%s\n' "$TOKEN" >"$tmp/tokens"
hash=$(sec_bcrypt "$PW")
mkdir -p "$tmp/state"

cat >"$tmp/fsc.yaml" <<YAML
state_dir: $tmp/state
sources:
  - name: syn
    type: synthetic
    device: leaf1
    ports: 2
  - name: sw
    type: otlp
    grpc_listen: "127.0.0.1:0"
    http_listen: "127.0.0.1:0"
    tls: {cert_file: $tmp/server.crt, key_file: $tmp/server.key, ca_file: $tmp/ca.crt, client_auth: request}
    auth: {bearer_tokens_file: $tmp/tokens}
exporters:
  prometheus:
    listen: "127.0.0.1:0"
    tls: {cert_file: $tmp/server.crt, key_file: $tmp/server.key, ca_file: $tmp/ca.crt}
    auth:
      basic_users: {prom: "$hash"}
      bearer_tokens_file: $tmp/tokens
YAML

# As nobody when we can: every file must then be readable by others.
runas=""
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null 2>&1; then
    runas="setpriv --reuid=65534 --regid=65534 --clear-groups"
    chmod 755 "$tmp"
    chmod 644 "$tmp"/*
    chmod 755 "$tmp/state"
    chown 65534:65534 "$tmp/state"
fi
: >"$tmp/fsc.out"
: >"$tmp/fsc.log"
# shellcheck disable=SC2086 # runas is a command prefix, split on purpose
$runas "$bin" run -c "$tmp/fsc.yaml" >"$tmp/fsc.out" 2>"$tmp/fsc.log" &
fsc_pid=$!
wait_exporter || { summary; exit 1; }
hport=$(wait_log_port 'otlp_listening .*transport=http( |$)') || fail "no OTLP/HTTP port"
gport=$(wait_log_port 'otlp_listening .*transport=grpc( |$)') || fail "no OTLP/gRPC port"
if [ -n "$runas" ]; then
    check_eq "daemon runs as uid 65534" "$(awk '/^Uid:/ {print $2}' "/proc/$fsc_pid/status")" 65534
    check_eq "daemon has no capabilities" \
        "$(awk '/^CapEff:/ {print $2}' "/proc/$fsc_pid/status")" 0000000000000000
fi
check_log "prometheus listener logs its security" \
    'prom_http_listening .* tls=on client_auth=require auth=on'
check_log "otlp/http logs its security" 'transport=http .*tls=on client_auth=request auth=on'
check_log "otlp/grpc logs its security" 'transport=grpc .*tls=on client_cert=requested auth=on'

P="https://127.0.0.1:$mport"
C="--cacert $tmp/ca.crt"
CC="$C --cert $tmp/client.crt --key $tmp/client.key"
RC="$C --cert $tmp/rogue.crt --key $tmp/rogue.key"
# --- Prometheus listener ---------------------------------------------------------
# shellcheck disable=SC2086 # $C, $CC, $RC are option lists
{
    check_eq "no client certificate" "$(sec_code $C -u "prom:$PW" "$P/metrics")" 403
    check_eq "client certificate of another CA" "$(sec_code $RC -u "prom:$PW" "$P/metrics")" 403
    check_eq "no credentials" "$(sec_code $CC "$P/metrics")" 401
    check_eq "bad password" "$(sec_code $CC -u "prom:wrong-$PW" "$P/metrics")" 401
    check_eq "unknown user" "$(sec_code $CC -u "nobody:$PW" "$P/metrics")" 401
    check_eq "bad token" "$(sec_code $CC -H "Authorization: Bearer ${TOKEN}x" "$P/metrics")" 401
    check_eq "basic auth" "$(sec_code $CC -u "prom:$PW" "$P/metrics")" 200
    check_eq "bearer token" "$(sec_code $CC -H "Authorization: Bearer $TOKEN" "$P/metrics")" 200
    check_eq "/-/healthy is behind auth too" "$(sec_code $CC "$P/-/healthy")" 401
    check_eq "/-/healthy with credentials" "$(sec_code $CC -u "prom:$PW" "$P/-/healthy")" 200
    check_eq "unknown path without credentials: 401, not 404" "$(sec_code $CC "$P/nope")" 401
    check_eq "status page" "$(sec_code $CC -u "prom:$PW" "$P/")" 200
    check_eq "GET /api/status" "$(sec_code $CC -u "prom:$PW" "$P/api/status")" 200
    check_eq "HEAD /api/ports" "$(sec_code $CC -u "prom:$PW" -I "$P/api/ports")" 200
    for m in POST PUT DELETE PATCH; do
        for path in / /api/status /api/ports /api/events /metrics; do
            check_eq "$m $path is refused" \
                "$(sec_code $CC -u "prom:$PW" -X "$m" -d x "$P$path")" 405
        done
    done
    curl -s -D "$tmp/h401" -o /dev/null --max-time 10 $CC "$P/metrics"
    check "401 carries WWW-Authenticate Basic" grep -qi '^WWW-Authenticate: Basic realm=' "$tmp/h401"
    check "401 carries WWW-Authenticate Bearer" grep -qi '^WWW-Authenticate: Bearer realm=' "$tmp/h401"
    check_eq "plain HTTP to the TLS port gets no HTTP answer" \
        "$(sec_code -u "prom:$PW" "http://127.0.0.1:$mport/metrics")" 000
    curl -s --max-time 10 $CC -u "prom:$PW" "$P/metrics" >"$tmp/metrics"
    check "the scrape has samples" grep -q '^fabricscope_' "$tmp/metrics"
}
# The refusals above, counted by reason: 401 without credentials on
# /metrics, /-/healthy, /nope and the WWW-Authenticate probe; 403 without a
# certificate and with the other CA's.
auth_failures() { # LISTENER -> "missing malformed unknown_user bad_password bad_token client_cert"
    for r in missing malformed unknown_user bad_password bad_token client_cert; do
        printf '%s ' "$(series_value fabricscope_listener_auth_failures_total listener="$1" reason=$r)"
    done
}
check_eq "prometheus refusals by reason" "$(auth_failures prometheus)" "4 0 1 1 1 2 "
check_log "auth failures are logged" 'listener_auth_failed listener=prometheus reason='
check_log "client certificate refusals are logged" \
    'listener_client_cert_refused listener=prometheus reason=(missing|untrusted)'

# --- OTLP/HTTP ----------------------------------------------------------------------
H="https://127.0.0.1:$hport/v1/metrics"
PB="-H Content-Type:application/x-protobuf --data-binary @/dev/null"
# shellcheck disable=SC2086
{
    check_eq "otlp/http without token" "$(sec_code $C $PB "$H")" 401
    check_eq "otlp/http bad token" "$(sec_code $C $PB -H "Authorization: Bearer x${TOKEN}" "$H")" 401
    check_eq "otlp/http good token, no client certificate (request)" \
        "$(sec_code $C $PB -H "Authorization: Bearer $TOKEN" "$H")" 200
    check_eq "otlp/http good token, client certificate" \
        "$(sec_code $CC $PB -H "Authorization: Bearer $TOKEN" "$H")" 200
    check_eq "otlp/http good token, certificate of another CA" \
        "$(sec_code $RC $PB -H "Authorization: Bearer $TOKEN" "$H")" 403
    curl -s --max-time 10 $CC -u "prom:$PW" "$P/metrics" >"$tmp/metrics"
}
check_eq "otlp/http refusals by reason" "$(auth_failures otlp/http:sw)" "1 0 0 0 1 1 "
check_eq "prometheus refusals unchanged by authenticated scrapes" \
    "$(auth_failures prometheus)" "4 0 1 1 1 2 "

# --- OpenTelemetry JS SDK over https and gRPC+TLS, with a bearer token --------------
js="$src/tests/interop/otlp_js"
if [ ! -d "$js/node_modules/@opentelemetry" ] || ! command -v "$node" >/dev/null 2>&1; then
    fail "node or $js/node_modules missing: run scripts/setup.sh"
else
    sdk() { # PROTOCOL ENDPOINT TOKEN HOST
        NODE_EXTRA_CA_CERTS="$tmp/ca.crt" OTEL_EXPORTER_OTLP_CERTIFICATE="$tmp/ca.crt" \
            OTEL_EXPORTER_OTLP_HEADERS="authorization=Bearer%20$3" \
            timeout 60 "$node" "$js/sender.js" --protocol "$1" --endpoint "$2" --exports 2 \
            --interval-ms 200 --host-name "$4" >"$tmp/sdk.$1.$4" 2>&1
    }
    sdk http-proto "$H" "$TOKEN" sdk-http
    check_eq "SDK over https with a bearer token" "$?" 0
    sdk grpc "https://127.0.0.1:$gport" "$TOKEN" sdk-grpc
    check_eq "SDK over gRPC+TLS with a bearer token" "$?" 0
    sdk grpc "https://127.0.0.1:$gport" "bad-$TOKEN" sdk-bad
    rc=$?
    check "SDK over gRPC with a bad token fails (exit $rc)" [ "$rc" -ne 0 ]
    check "the failure is UNAUTHENTICATED" grep -qi 'unauthenticated' "$tmp/sdk.grpc.sdk-bad"
    sdk http-proto "$H" "bad-$TOKEN" sdk-bad
    rc=$?
    check "SDK over https with a bad token fails (exit $rc)" [ "$rc" -ne 0 ]
    check "the failure is a 401" grep -qiE '401|unauthorized' "$tmp/sdk.http-proto.sdk-bad"
    grep -qiE '401|unauthorized' "$tmp/sdk.http-proto.sdk-bad" || cat "$tmp/sdk.http-proto.sdk-bad"
    for f in "$tmp"/sdk.*; do
        grep -q 'result=failure' "$f" && case $f in *sdk-bad) ;; *) echo "--- $f"; cat "$f" ;; esac
    done
    curl -s --max-time 10 $CC -u "prom:$PW" "$P/metrics" >"$tmp/metrics"
    check "SDK points reached the engine (http)" grep -q 'device="sdk-http"' "$tmp/metrics"
    check "SDK points reached the engine (grpc)" grep -q 'device="sdk-grpc"' "$tmp/metrics"
    check "bad-token points did not" eval '! grep -q "device=\"sdk-bad\"" "$tmp/metrics"'
    # The SDK's bad-token exports were refused by the gRPC credential check:
    # counted as bad_token only (the SDK does not retry UNAUTHENTICATED).
    # shellcheck disable=SC2046 # the six counts, split into $1..$6
    set -- $(auth_failures otlp/grpc:sw)
    check_eq "otlp/grpc refusals other than bad_token" "$1 $2 $3 $4 $6" "0 0 0 0 0"
    check "otlp/grpc bad_token refusals counted ($5)" [ "${5:-0}" -ge 1 ]
fi
check_log "otlp auth failures are logged" 'listener_auth_failed listener="?otlp/(grpc|http):sw'

# --- a real Prometheus 2.42 over TLS + client certificate + basic auth ---------------
if command -v prometheus >/dev/null 2>&1; then
    prom_port=$(free_ports 1)
    cat >"$tmp/prometheus.yml" <<YAML
global: {scrape_interval: 1s, evaluation_interval: 1s}
scrape_configs:
  - job_name: fabricscope
    scheme: https
    tls_config: {ca_file: $tmp/ca.crt, cert_file: $tmp/client.crt, key_file: $tmp/client.key}
    basic_auth: {username: prom, password: "$PW"}
    static_configs:
      - targets: ["127.0.0.1:$mport"]
YAML
    prometheus --config.file="$tmp/prometheus.yml" --storage.tsdb.path="$tmp/tsdb" \
        --web.listen-address="127.0.0.1:$prom_port" >"$tmp/prom.log" 2>&1 &
    peer_pid=$!
    health=""
    j=0
    while [ $j -lt 60 ]; do # 30 s at most
        health=$(curl -sf --max-time 5 "http://127.0.0.1:$prom_port/api/v1/targets" |
            python3 -c 'import json,sys
t = json.load(sys.stdin)["data"]["activeTargets"]
print(t[0]["health"] if t else "")' 2>/dev/null)
        [ "$health" = up ] && break
        sleep 0.5
        j=$((j + 1))
    done
    check_eq "Prometheus scrapes over TLS + basic auth" "$health" up
    [ "$health" = up ] || tail -5 "$tmp/prom.log"
else
    fail "prometheus not found: run scripts/setup.sh"
fi

stop_pid "$fsc_pid" 100
fsc_pid=""
check_eq "daemon exit status after SIGTERM" "$stop_rc" 0
check_eq "no password or token in the daemon's log" \
    "$(grep -c -e "$PW" -e "$TOKEN" -e "$hash" "$tmp/fsc.log" "$tmp/fsc.out" | awk -F: '{s += $2} END {print s}')" 0
check_eq "sanitizer reports" "$(grep -c -E 'ERROR: AddressSanitizer|runtime error:|ERROR: LeakSanitizer' "$tmp/fsc.log")" 0
if [ "$fails" -ne 0 ]; then
    echo "--- fabricscope log ---"
    cut -c1-300 "$tmp/fsc.log" | tail -30
fi
summary
