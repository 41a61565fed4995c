#!/bin/sh
# Config reload on SIGHUP and clean shutdown on SIGTERM. The daemon runs
# gNMI target A (gnmi_sim) and synthetic B; the file is rewritten to A + C
# and SIGHUP sent: A's stream must stay the same call (its reconnect
# counters unchanged, no Subscribe call cancelled or made at the simulator, messages still
# flowing), B stops, C starts. A broken file + SIGHUP: the running config
# stays, the error is logged with file:line:col and counted. An OTLP source
# changed to a port something else holds runs on with its previous settings
# (kept=previous, still answering). Then 20 SIGHUPs
# alternating two valid files while /metrics is scraped in a loop: no crash,
# no failed scrape, every reload counted. SIGTERM: exit status 0 with the
# stop lines.
#   reload_test.sh FABRICSCOPE GNMI_SIM
set -u
bin=$1
sim=$2
# shellcheck source=lib.sh source-path=SCRIPTDIR
. "$(dirname "$0")/lib.sh"
lib_init

start_sim "$sim" --listen 127.0.0.1:0 --ports 2 --interval 200ms --duration 120s --verbose || exit 1

cfg=$tmp/fsc.yaml
# write_cfg SOURCE_LINES...: the config file with these source entries.
write_cfg() {
    {
        echo "sources:"
        for s in "$@"; do echo "  - $s"; done
        cat <<YAML
exporters:
  prometheus:
    listen: "127.0.0.1:0"
state_dir: $tmp/state
rollup: {enabled: false}
YAML
    } >"$cfg.new"
    mv "$cfg.new" "$cfg" # whole files only: the daemon never reads half of one
}
A="{name: A, type: gnmi, address: \"127.0.0.1:$sim_port\", sample_interval: 200ms, sample_interval_grid: none}"
B="{name: B, type: synthetic, device: devB, ports: 2, interval: 100ms}"
C="{name: C, type: synthetic, device: devC, ports: 2, interval: 100ms}"
D="{name: D, type: synthetic, device: devD, ports: 1, interval: 100ms}"

write_cfg "$A" "$B"
start_fsc "$cfg"
wait_exporter || exit 1

a_streaming() {
    [ "$(series_value fabricscope_up source=A type=gnmi)" = 1 ] &&
        grep -q '^fabric_port_rx_bytes_total{device="devB"' "$tmp/metrics"
}
poll_metrics 200 a_streaming || fail "A never streamed or B never sampled"
reconnects() {
    grep -E '^fabricscope_gnmi_(reconnects|resubscribes)_total\{source="A"' "$tmp/metrics" |
        awk '{s += $NF} END {print s + 0}'
}
messages() {
    grep -E '^fabricscope_gnmi_messages_total\{source="A"' "$tmp/metrics" | awk '{s += $NF} END {print s + 0}'
}
streams_a=$(grep -c '^fabricscope_gnmi_stream_up{source="A"' "$tmp/metrics")
check "A has streams" ge "$streams_a" 1
rc0=$(reconnects)
msg0=$(messages)
subs0=$(grep -c 'gnmi_sim: subscribe call=' "$tmp/sim.err")
check_eq "one Subscribe call per stream of A" "$subs0" "$streams_a"

# --- 1. A + C: B stops, C starts, A untouched ------------------------------------
write_cfg "$A" "$C"
kill -HUP "$fsc_pid"
c_up() {
    [ "$(series_value fabricscope_up source=C type=synthetic)" = 1 ] &&
        grep -q '^fabric_port_rx_bytes_total{device="devC"' "$tmp/metrics" &&
        [ "$(messages)" -gt "$msg0" ]
}
poll_metrics 100 c_up || fail "C did not start after SIGHUP"
check_eq "fabricscope_up of B is gone" "$(series_value fabricscope_up source=B)" ""
check_eq "reloads ok" "$(series_value fabricscope_config_reloads_total result=ok)" 1
check_eq "reloads error" "$(series_value fabricscope_config_reloads_total result=error)" 0
check_eq "A reconnects/resubscribes unchanged" "$(reconnects)" "$rc0"
check_eq "A streams still up" "$(grep -c '^fabricscope_gnmi_stream_up{source="A",.*} 1$' "$tmp/metrics")" \
    "$streams_a"
check_eq "no Subscribe call cancelled at the simulator" "$(grep -c 'client cancelled' "$tmp/sim.err")" 0
check_eq "no new Subscribe call" "$(grep -c 'gnmi_sim: subscribe call=' "$tmp/sim.err")" "$subs0"
check_eq "A started once" "$(grep -c 'event=source_started source=A ' "$tmp/fsc.log")" 1
check_eq "A never stopped" "$(grep -c 'event=source_stopped source=A' "$tmp/fsc.log")" 0
check_log "B stopped as removed" 'event=source_stopped source=B reason=removed'
check_log "reload summary" 'event=reloaded .*unchanged=1 stopped=1 removed=1 started=1 failed=0'
ts=$(series_value fabricscope_config_last_reload_success_timestamp_seconds)
check "last reload timestamp is recent" \
    awk -v t="$ts" -v now="$(date +%s)" 'BEGIN { exit !(t > now - 60 && t <= now + 1) }'

# --- 2. a broken file: the running config stays ------------------------------------
printf 'sources:\n  - {name: A, type: gnmi, address: "127.0.0.1:%s"}\n  - {name: C, type: synthetic, ports: two}\n' \
    "$sim_port" >"$cfg.new"
mv "$cfg.new" "$cfg"
kill -HUP "$fsc_pid"
errored() { [ "$(series_value fabricscope_config_reloads_total result=error)" = 1 ]; }
poll_metrics 100 errored || fail "the broken reload was not counted"
check_log "error logged with file:line:col" \
    "event=reload_failed config=$cfg reason=\"$cfg:3:39: sources\\[1\\]\\.ports: "
check_eq "reloads ok still 1" "$(series_value fabricscope_config_reloads_total result=ok)" 1
check_eq "C still up" "$(series_value fabricscope_up source=C type=synthetic)" 1
check_eq "A still up" "$(series_value fabricscope_up source=A type=gnmi)" 1
check_eq "timestamp of the last success unchanged" \
    "$(series_value fabricscope_config_last_reload_success_timestamp_seconds)" "$ts"

reloaded_since() { [ "$(grep -c 'event=reloaded ' "$tmp/fsc.log")" -gt "$1" ]; }

# --- 2b. a changed source that cannot start runs on with its previous settings -----
p1=$(free_ports 1)
p2=$(free_ports 1)
O1="{name: O, type: otlp, grpc_listen: \"\", http_listen: \"127.0.0.1:$p1\"}"
O2="{name: O, type: otlp, grpc_listen: \"\", http_listen: \"127.0.0.1:$p2\"}"
otlp_code() { # PORT -> HTTP status of an empty OTLP/HTTP export (000: no answer)
    curl -s -o /dev/null -w '%{http_code}' --max-time 5 -X POST \
        -H 'Content-Type: application/x-protobuf' --data-binary '' "http://127.0.0.1:$1/v1/metrics"
}
write_cfg "$A" "$C" "$O1"
kill -HUP "$fsc_pid"
o_up() { [ "$(series_value fabricscope_up source=O type=otlp)" = 1 ]; }
poll_metrics 100 o_up || fail "O did not start"
check_eq "O answers on its first port" "$(otlp_code "$p1")" 200
# Something else holds the second port: O's new settings cannot start.
python3 -c 'import socket, time, sys
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.1", int(sys.argv[1]))); s.listen(1); time.sleep(60)' "$p2" &
peer_pid=$!
port_held() { ss -ltn | grep -q ":$p2 "; }
wait_until 50 port_held || fail "the port holder did not listen"
before=$(grep -c 'event=reloaded ' "$tmp/fsc.log")
write_cfg "$A" "$C" "$O2"
kill -HUP "$fsc_pid"
wait_until 100 reloaded_since "$before" || fail "the O2 reload did not finish"
check_log "O's new settings failed, the previous ones kept" \
    'event=source_failed source=O reason=.* kept=previous'
check_log "reload summary counts the failure" 'event=reloaded .*started=0 failed=1'
check_eq "O still answers on its first port" "$(otlp_code "$p1")" 200
fetch_metrics
check_eq "O still up" "$(series_value fabricscope_up source=O type=otlp)" 1
kill "$peer_pid" 2>/dev/null
wait "$peer_pid" 2>/dev/null
peer_pid=""
before=$(grep -c 'event=reloaded ' "$tmp/fsc.log")
write_cfg "$A" "$C"
kill -HUP "$fsc_pid"
wait_until 100 reloaded_since "$before" || fail "the reload without O did not finish"
check_log "O stopped as removed" 'event=source_stopped source=O reason=removed'

# --- 3. scrape during reload: 20 SIGHUPs, alternating A+C and A+C+D ------------------
: >"$tmp/scrapes"
(
    n=0
    while [ "$n" -lt 2000 ] && [ ! -e "$tmp/scrape.stop" ]; do
        if curl -sf --max-time 10 "http://127.0.0.1:$mport/metrics" -o "$tmp/scrape.out"; then
            echo ok >>"$tmp/scrapes"
        else
            echo fail >>"$tmp/scrapes"
        fi
        curl -sf --max-time 10 "http://127.0.0.1:$mport/api/status" -o /dev/null 2>&1
        n=$((n + 1))
    done
) &
scraper=$!
peer_pid=$scraper
i=0
while [ "$i" -lt 20 ]; do
    if [ $((i % 2)) -eq 0 ]; then write_cfg "$A" "$C" "$D"; else write_cfg "$A" "$C"; fi
    before=$(grep -c 'event=reloaded ' "$tmp/fsc.log")
    kill -HUP "$fsc_pid"
    # One reload at a time (signals sent faster would merge); bounded.
    wait_until 100 reloaded_since "$before" || fail "reload $i did not finish"
    i=$((i + 1))
done
touch "$tmp/scrape.stop"
wait "$scraper"
peer_pid=""
check "the daemon survived" kill -0 "$fsc_pid"
check_eq "no failed scrape during reloads" "$(grep -c fail "$tmp/scrapes")" 0
check "scrapes happened during reloads" ge "$(grep -c ok "$tmp/scrapes")" 1
fetch_metrics
check_eq "reloads ok after the loop" "$(series_value fabricscope_config_reloads_total result=ok)" 24
check_eq "reloads error after the loop" "$(series_value fabricscope_config_reloads_total result=error)" 1
check_eq "D stopped again (last file is A + C)" "$(series_value fabricscope_up source=D)" ""
check_eq "A never reconnected" "$(reconnects)" "$rc0"
check_eq "still no Subscribe call cancelled" "$(grep -c 'client cancelled' "$tmp/sim.err")" 0
check_eq "still no new Subscribe call" "$(grep -c 'gnmi_sim: subscribe call=' "$tmp/sim.err")" "$subs0"
check_eq "A started once in all" "$(grep -c 'event=source_started source=A ' "$tmp/fsc.log")" 1

# --- 4. SIGTERM: clean exit --------------------------------------------------------------
stop_pid "$fsc_pid" 100
check_eq "SIGTERM exit status" "$stop_rc" 0
fsc_pid=""
check_log "stopping line" 'event=stopping signal=SIGTERM'
check_log "A stopped" 'event=source_stopped source=A$'
check_log "C stopped" 'event=source_stopped source=C$'
check_log "stopped line" "event=stopped config=$cfg"

summary
