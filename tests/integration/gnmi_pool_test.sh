#!/bin/sh
# The gNMI worker pool (docs/DESIGN.md, "Threads and locks"): 20 gnmi
# sources, one per target of one gnmi_sim process, share the 2 worker threads
# FABRICSCOPE_GNMI_WORKERS=2 asks for (the pool is sized by the CPUs, not by
# its sources; 10 sources per worker here). Every stream comes up; a reload
# that removes one source stops it alone: the other 19 keep their one
# Subscribe call each (no reconnect, no resubscribe, no new call at the
# simulator, no call cancelled but the removed one's), keep receiving, and
# no sequence number goes missing. SIGTERM then stops the 19 together: the
# daemon tells every source to begin stopping before it waits for any, so
# the last source_stopped line comes within STOP_BOUND_MS of `stopping`,
# where one after the other costs up to a worker tick (100 ms) each, 1.9 s
# for 19. Everything on 127.0.0.1; processes stopped by PID; waits bounded.
#   gnmi_pool_test.sh FABRICSCOPE GNMI_SIM
set -u
bin=$1
sim=$2
n=20
gone=7
STOP_BOUND_MS=800
# shellcheck source=lib.sh source-path=SCRIPTDIR
. "$(dirname "$0")/lib.sh"
lib_init

threads() { sed -n 's/^Threads:[[:space:]]*//p' "/proc/$1/status" 2>/dev/null; }
# Milliseconds of the day of the first log line matching $1 (ts=...THH:MM:SS.mmmZ).
log_ms() {
    grep -E -- "$1" "$tmp/fsc.log" | sed -n "${2:-1}p" |
        sed -n 's/^ts=[^T]*T\([0-9][0-9]\):\([0-9][0-9]\):\([0-9][0-9]\)\.\([0-9][0-9][0-9]\).*/\1 \2 \3 \4/p' |
        awk '{print (($1 * 60 + $2) * 60 + $3) * 1000 + $4}'
}

"$sim" --listen 127.0.0.1:0 --targets "$n" --ports 2 --queues 1 --interval 100ms \
    --duration 120s --verbose >"$tmp/sim.out" 2>"$tmp/sim.err" &
sim_pid=$!
wait_for "$tmp/sim.out" "/target=$((n - 1)) /p" >/dev/null || {
    fail "the simulator did not print $n targets"
    cat "$tmp/sim.err"
    exit 1
}

# write_cfg SKIP: every target as source leafK but leaf$SKIP (-1: none).
write_cfg() {
    {
        echo "sources:"
        k=0
        while [ "$k" -lt "$n" ]; do
            p=$(sed -n "s/^listening port=\\([0-9]*\\) target=$k .*/\\1/p" "$tmp/sim.out")
            [ "$k" -eq "$1" ] || cat <<YAML
  - name: leaf$k
    type: gnmi
    address: "127.0.0.1:$p"
    sample_interval: 100ms
    sample_interval_grid: none
    streams:
      - {name: interfaces, paths: ["/interfaces/interface/state/counters"]}
YAML
            k=$((k + 1))
        done
        cat <<YAML
exporters:
  prometheus:
    listen: "127.0.0.1:0"
engine:
  windows: [1s, 2s]
YAML
    } >"$tmp/fsc.yaml.new"
    mv "$tmp/fsc.yaml.new" "$tmp/fsc.yaml"
}
write_cfg -1
: >"$tmp/fsc.out"
: >"$tmp/fsc.log"
FABRICSCOPE_GNMI_WORKERS=2 "$bin" run -c "$tmp/fsc.yaml" >"$tmp/fsc.out" 2>"$tmp/fsc.log" &
fsc_pid=$!
wait_exporter || exit 1

streams_up() { grep -c '^fabricscope_gnmi_stream_up{.*} 1$' "$tmp/metrics" 2>/dev/null; }
all_up() { [ "$(streams_up)" = "$n" ]; }
poll_metrics 300 all_up || fail "not every stream up in 30 s: $(streams_up) of $n"
check_log "a pool of 2 workers (FABRICSCOPE_GNMI_WORKERS=2)" 'event=gnmi_pool_started threads=2$'
check_eq "one pool" "$(grep -c 'event=gnmi_pool_started' "$tmp/fsc.log")" 1
# A thread per source would be n on top of the daemon's ~17 (engine, HTTP,
# the exporter's render thread once scraped, gRPC's own): n + 2 tells them apart.
num_le "daemon threads with $n gnmi sources (not one per source)" "$(threads "$fsc_pid")" $((n + 2))

sum_of() { # FAMILY [SOURCE_REGEX]: the sum of the family's samples
    grep -E "^$1\\{source=\"${2:-[^\"]*}\"" "$tmp/metrics" | awk '{s += $NF} END {print s + 0}'
}
messages_of() { series_value fabricscope_gnmi_messages_total "source=leaf$1" stream=interfaces; }
subs0=$(grep -c 'subscribe call=' "$tmp/sim.err")
check_eq "one Subscribe call per source" "$subs0" "$n"
retries0=$(($(sum_of fabricscope_gnmi_reconnects_total) + $(sum_of fabricscope_gnmi_resubscribes_total)))

# --- reload without leaf$gone: it stops alone -----------------------------------------
write_cfg "$gone"
kill -HUP "$fsc_pid"
wait_for "$tmp/fsc.log" '/event=reloaded /p' 100 >/dev/null || fail "no reloaded line"
check_log "leaf$gone stopped as removed" "event=source_stopped source=leaf$gone reason=removed"
check_eq "only leaf$gone stopped" "$(grep -c 'event=source_stopped' "$tmp/fsc.log")" 1
# Each other source receives 10 more messages (1 s of 100 ms samples).
all_moved() {
    _k=0
    while [ "$_k" -lt "$n" ]; do
        if [ "$_k" -ne "$gone" ]; then
            _m0=$(eval "echo \$m1_$_k")
            ge "$(messages_of $_k)" $((_m0 + 10)) || return 1
        fi
        _k=$((_k + 1))
    done
}
k=0
while [ "$k" -lt "$n" ]; do
    [ "$k" -eq "$gone" ] || eval "m1_$k=\$(messages_of $k)"
    k=$((k + 1))
done
poll_metrics 100 all_moved || fail "a remaining source stopped receiving after the reload"
check_eq "leaf$gone has no stream any more" "$(grep -c "^fabricscope_gnmi_stream_up{source=\"leaf$gone\"" "$tmp/metrics")" 0
check_eq "the other streams up" "$(streams_up)" $((n - 1))
check_eq "no reconnect or resubscribe" \
    $(($(sum_of fabricscope_gnmi_reconnects_total) + $(sum_of fabricscope_gnmi_resubscribes_total))) "$retries0"
check_eq "no sequence gap" "$(sum_of fabricscope_gnmi_sequence_gaps_total)" 0
check_eq "no new Subscribe call" "$(grep -c 'subscribe call=' "$tmp/sim.err")" "$subs0"
check_eq "one call cancelled by the client (leaf$gone's)" "$(grep -c 'client cancelled' "$tmp/sim.err")" 1
check_eq "still one pool" "$(grep -c 'event=gnmi_pool_started' "$tmp/fsc.log")" 1

# --- SIGTERM: the 19 stop together ------------------------------------------------------
stop_pid "$fsc_pid" 100 || fail "the daemon did not stop on SIGTERM in 10 s"
fsc_pid=""
check_eq "the daemon exits cleanly" "$stop_rc" 0
check_eq "every source stopped" "$(grep -c 'event=source_stopped' "$tmp/fsc.log")" "$n"
t0=$(log_ms 'event=stopping ')
t1=$(log_ms 'event=source_stopped' "$n")
if [ -n "$t0" ] && [ -n "$t1" ]; then
    echo "# $((n - 1)) sources stopped in $((t1 - t0)) ms"
    num_le "ms from stopping to the last source_stopped" $((t1 - t0)) "$STOP_BOUND_MS"
else
    fail "no stopping or source_stopped time in the log"
fi
check_log "the daemon stopped" 'event=stopped '
stop_pid "$sim_pid" 100
sim_pid=""
[ "$fails" -eq 0 ] || { echo "--- fabricscope ---"; tail -30 "$tmp/fsc.log"; }
summary
