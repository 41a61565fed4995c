#!/bin/sh
# End to end through the real daemon: the synthetic source feeds the engine in
# real time, the detectors fire, and the event log names device and port.
# Bounded: the daemon runs until the events below are in its log (30 s at
# most; about 11 s: the storm starts at 5.1 s and lasts 5 s) and is stopped
# by PID.
#   synthetic_test.sh BINARY
set -u
bin=$1
# shellcheck source=lib.sh source-path=SCRIPTDIR
. "$(dirname "$0")/lib.sh"
lib_init

cat >"$tmp/synth.yaml" <<'YAML'
sources:
  - name: synth
    type: synthetic
    device: leaf-t1
    ports: 4
    speed: 400G
    interval: 100ms
    utilization: 0.2
    burst_every: 2s
    burst_length: 100ms
    storm_every: 5100ms
    seed: 7
exporters:
  prometheus:
    enabled: false
engine:
  windows: [100ms, 1s]
YAML

start_fsc "$tmp/synth.yaml"
# The events the checks below look for: a microburst END and the CNP storm's
# START and END.
events_seen() {
    grep -q 'kind=microburst phase=end ' "$tmp/fsc.log" &&
        grep -q 'kind=cnp_spike phase=start ' "$tmp/fsc.log" &&
        grep -q 'kind=cnp_spike phase=end ' "$tmp/fsc.log"
}
check "microburst and CNP storm events within 30 s" wait_until 300 events_seen
stop_pid "$fsc_pid" 50
fsc_pid=""

check_eq "exit status" "$stop_rc" 0
check_log "started" "event=started config=.* sources=1 running=1"
# A 100 ms line-rate burst: one or two 100 ms samples depending on phase; the
# bounds leave room for a loaded machine delaying the generator's samples.
check_log "microburst end with labels" \
    "kind=microburst phase=end device=leaf-t1 port=swp[1-4] direction=tx .*duration_ms=([5-9][0-9]|[12][0-9]{2})\.[0-9]+ peak_utilization=(0\.[7-9]|1\.0)"
# The storm is 50000 CNP/s over a ~200/s baseline for 5 s.
check_log "cnp spike start" "kind=cnp_spike phase=start device=leaf-t1 port=swp[1-4] .*baseline_rate_per_second=[12][0-9]{2}\."
check_log "cnp spike end" "kind=cnp_spike phase=end device=leaf-t1 port=swp[1-4] .*duration_ms=(4[5-9]|5[0-4])[0-9]{2}\."
check_log "final stats" "event=stats series=16 samples=[0-9]+ intervals=[0-9]+ .*duplicates=0 out_of_order=0"
check_log "stopped" "event=stopped"
if [ "$fails" -ne 0 ]; then
    echo "--- daemon log ---"
    cut -c1-300 "$tmp/fsc.log"
fi
summary
