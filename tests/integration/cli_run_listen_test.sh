#!/bin/sh
# `fabricscope run --listen HOST:PORT` (collector/daemon/run_listen.c): the
# Prometheus exporter (and the status page) listens where the option says,
# not where exporters.prometheus.listen of the file says, also after a SIGHUP
# reload (which must not report the exporters as changed); IPv6 [::1]:PORT
# works; a bad value, a disabled exporter or a clash with a source's
# listener stop `run` with exit status 2 and a sentence naming the problem;
# a port in use is a runtime failure (exit 1) that names the address.
# Ports: free ones found by binding port 0 first (python). Everything on
# loopback; the daemon stopped by PID; every wait bounded.
#   cli_run_listen_test.sh FABRICSCOPE PYTHON
# eval'd conditions are single-quoted on purpose:
# shellcheck disable=SC2016
set -u
bin=$1
py=$2
# shellcheck source=lib.sh source-path=SCRIPTDIR
. "$(dirname "$0")/lib.sh"
lib_init

file_port=$(free_ports 1)
cli_port=$(free_ports 1)
while [ "$cli_port" = "$file_port" ]; do cli_port=$(free_ports 1); done

# A synthetic device (the README's example) and a file exporter address.
cat >"$tmp/fsc.yaml" <<YAML
state_dir: $tmp/state
sources:
  - {name: syn, type: synthetic, device: synth-leaf1, ports: 2, speed: 400G, interval: 100ms,
     utilization: 0.25}
exporters:
  prometheus:
    listen: "127.0.0.1:$file_port"
YAML

# ---- the override, and a reload -----------------------------------------------
"$bin" run -c "$tmp/fsc.yaml" --listen "127.0.0.1:$cli_port" >"$tmp/fsc.out" 2>"$tmp/fsc.log" &
fsc_pid=$!
wait_exporter || exit 1
check_eq "exporter on the --listen port" "$mport" "$cli_port"
check_log "exporter_started names the --listen address" \
    "event=exporter_started exporter=prometheus listen=127.0.0.1:$cli_port port=$cli_port"
check "/metrics served on --listen" poll_metrics 50 \
    'grep -q "^fabric_port_rx_bytes_total{device=\"synth-leaf1\",port=\"swp1\"} [1-9]" "$tmp/metrics"'
check "/-/ready on --listen" curl -sf --max-time 5 -o /dev/null "http://127.0.0.1:$cli_port/-/ready"
check "nothing on the file's port" eval '! curl -s --max-time 2 -o /dev/null "http://127.0.0.1:$file_port/metrics"'
kill -HUP "$fsc_pid"
check "reload done" wait_until 100 grep -q "event=reloaded" "$tmp/fsc.log"
check "reload does not see the exporters changed" eval '! grep -q "event=reload_needs_restart" "$tmp/fsc.log"'
check "still served on --listen after the reload" curl -sf --max-time 5 -o /dev/null \
    "http://127.0.0.1:$cli_port/metrics"
stop_pid "$fsc_pid"
fsc_pid=""
check_eq "run --listen exits 0 on SIGTERM" "$stop_rc" 0

# ---- IPv6 -----------------------------------------------------------------------
if v6_port=$(free_ports 1 ::1 2>/dev/null); then
    # Emptied before the start: the backgrounded shell truncates it only when
    # it runs, and wait_exporter could read the first run's line meanwhile.
    : >"$tmp/fsc.log"
    "$bin" run -c "$tmp/fsc.yaml" --listen "[::1]:$v6_port" >"$tmp/fsc.out" 2>"$tmp/fsc.log" &
    fsc_pid=$!
    wait_exporter || exit 1
    check_log "exporter_started on [::1]" "event=exporter_started exporter=prometheus listen=\\[::1\\]:$v6_port port=$v6_port"
    grep -q "listen=\\[::1\\]:$v6_port " "$tmp/fsc.log" || {
        echo "--- log ---"
        cut -c1-300 "$tmp/fsc.log" | head -20
    }
    check "/metrics on [::1]" wait_until 50 eval \
        'curl -sfg --max-time 5 "http://[::1]:$v6_port/metrics" | grep -q "^fabric_port_rx_bytes_total{"'
    stop_pid "$fsc_pid"
    fsc_pid=""
else
    skip_part "an IPv6 loopback address (::1)"
fi

# ---- errors -----------------------------------------------------------------------
# expect RC DESCRIPTION STDERR_TEXT ARGS...
expect() {
    _rc=$1
    _what=$2
    _text=$3
    shift 3
    timeout 20 "$bin" run "$@" >"$tmp/e.out" 2>"$tmp/e.err"
    check_eq "$_what: exit status" "$?" "$_rc"
    check "$_what: says '$_text'" grep -qF -- "$_text" "$tmp/e.err"
}
for bad in nope 127.0.0.1 127.0.0.1:70000 ::1:9464 127.0.0.1:-1 "127.0.0.1:"; do
    expect 2 "--listen '$bad'" "--listen wants HOST:PORT (127.0.0.1:9464, [::1]:9464), not '$bad'" \
        -c "$tmp/fsc.yaml" --listen "$bad"
done
expect 2 "--listen without a value" "missing HOST:PORT after '--listen'" -c "$tmp/fsc.yaml" --listen
sed 's/^    listen:.*/    enabled: false/' "$tmp/fsc.yaml" >"$tmp/off.yaml"
expect 2 "--listen with the exporter disabled" "exporters.prometheus is disabled in $tmp/off.yaml" \
    -c "$tmp/off.yaml" --listen "127.0.0.1:$cli_port"
otlp_port=$(free_ports 1)
cat >"$tmp/clash.yaml" <<YAML
state_dir: $tmp/state
sources:
  - {name: spine1, type: otlp, grpc_listen: "127.0.0.1:$otlp_port"}
exporters:
  prometheus:
    listen: "127.0.0.1:$file_port"
YAML
expect 2 "--listen on a source's port" "--listen '0.0.0.0:$otlp_port' is already used by source spine1 (grpc_listen)" \
    -c "$tmp/clash.yaml" --listen "0.0.0.0:$otlp_port"
# A port somebody listens on: the exporter cannot bind it (runtime, exit 1).
# SO_REUSEADDR: a TIME_WAIT of an earlier run's connection must not fail it.
"$py" -c 'import socket, sys, time
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.1", int(sys.argv[1]))); s.listen(1)
print("listening", flush=True); time.sleep(30)' "$cli_port" >"$tmp/busy.out" &
peer_pid=$!
check "busy listener up" wait_until 50 grep -q listening "$tmp/busy.out"
expect 1 "--listen on a port in use" "127.0.0.1:$cli_port" -c "$tmp/fsc.yaml" --listen "127.0.0.1:$cli_port"
check "port in use: the reason" grep -q "in use" "$tmp/e.err"

# ---- help ---------------------------------------------------------------------------
"$bin" run --help >"$tmp/h.out"
check "run --help shows --listen" grep -q "^  --listen HOST:PORT    where the Prometheus exporter" "$tmp/h.out"
check "run --help says what it overrides" grep -q "overrides exporters.prometheus.listen" "$tmp/h.out"
"$bin" help >"$tmp/h.out"
check "help lists probe" grep -q "^  probe -c FILE " "$tmp/h.out"
summary
