#!/bin/sh
# gnmi_sim --targets (docs/PERFORMANCE.md, "Many devices per collector"): one simulator
# process serves three independent QFX5240 targets on three ports, target K
# at utilization 0.1 + K x 0.1 with system_id <id>-K; the real daemon
# subscribes to each as its own gnmi source (device leafK) and /metrics must
# show three distinct devices, each port at its own target's exact rate
# (0.1 / 0.2 / 0.3 x 400G / 8 = 5e9 / 1e10 / 1.5e10 B/s, gnmi_sim.h), every
# source and stream up without sequence gaps. Threads stay bounded (a run
# of 40 targets has fewer than 40 threads: not one per target), and the
# simulator exits cleanly on SIGTERM. Everything on 127.0.0.1; processes stopped by PID; waits bounded.
#   gnmi_sim_targets_test.sh FABRICSCOPE GNMI_SIM
set -u
bin=$1
sim=$2
# shellcheck source=lib.sh source-path=SCRIPTDIR
. "$(dirname "$0")/lib.sh"
lib_init

threads() { sed -n 's/^Threads:[[:space:]]*//p' "/proc/$1/status" 2>/dev/null; }

# 40 targets from one process: fewer threads than targets.
"$sim" --listen 127.0.0.1:0 --targets 40 --ports 2 --duration 20s >"$tmp/sim40.out" 2>&1 &
sim_pid=$!
if wait_for "$tmp/sim40.out" '/target=39 /p' >/dev/null; then
    check_eq "40 listening lines" "$(grep -c '^listening port=' "$tmp/sim40.out")" 40
    num_le "threads of 40 targets" "$(threads "$sim_pid")" 39
else
    fail "40 targets did not start"
    cat "$tmp/sim40.out"
fi
stop_pid "$sim_pid" 100
sim_pid=""

"$sim" --listen 127.0.0.1:0 --targets 3 --ports 2 --queues 1 --interval 100ms \
    --utilization 0.1 --utilization-step 0.1 --system-id qfx --duration 60s \
    >"$tmp/sim.out" 2>"$tmp/sim.err" &
sim_pid=$!
wait_for "$tmp/sim.out" '/target=2 /p' >/dev/null || {
    fail "the simulator did not print three targets"
    cat "$tmp/sim.err"
    exit 1
}
check_eq "three listening lines" "$(grep -c '^listening port=[0-9]* target=[0-2] system_id=qfx-[0-2]$' "$tmp/sim.out")" 3
check_eq "three distinct ports" "$(sed -n 's/^listening port=\([0-9]*\) .*/\1/p' "$tmp/sim.out" | sort -u | wc -l)" 3
k=0
while [ "$k" -lt 3 ]; do
    check_eq "target $k's system_id" "$(sed -n "s/.* target=$k system_id=\\(.*\\)$/\\1/p" "$tmp/sim.out")" "qfx-$k"
    k=$((k + 1))
done

{
    echo "sources:"
    k=0
    while [ "$k" -lt 3 ]; do
        p=$(sed -n "s/^listening port=\\([0-9]*\\) target=$k .*/\\1/p" "$tmp/sim.out")
        cat <<YAML
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
topology:
  devices:
YAML
    k=0
    while [ "$k" -lt 3 ]; do
        cat <<YAML
    - name: leaf$k
      role: leaf
      ports:
        - {name: et-0/0/0, speed: 400G, role: downlink}
        - {name: et-0/0/1, speed: 400G, role: uplink}
YAML
        k=$((k + 1))
    done
} >"$tmp/fsc.yaml"
start_fsc "$tmp/fsc.yaml"
wait_exporter || exit 1

all_rates() {
    [ "$(grep -c '^fabric_port_bytes_per_second{.*direction="rx"' "$tmp/metrics" 2>/dev/null)" -ge 6 ]
}
poll_metrics 250 all_rates || fail "not every device's port rates on /metrics in 25 s"
check_eq "three devices with rates" \
    "$(sed -n 's/^fabric_port_bytes_per_second{.*device="\([^"]*\)".*/\1/p' "$tmp/metrics" | sort -u | tr '\n' ' ')" \
    "leaf0 leaf1 leaf2 "
for k in 0 1 2; do
    want=$((5000000000 * (k + 1)))
    for port in et-0/0/0 et-0/0/1; do
        check_eq "leaf$k $port rx rate (target $k's utilization)" \
            "$(series_value fabric_port_bytes_per_second device=leaf$k port=$port direction=rx)" "$want"
    done
    check_eq "leaf$k up" "$(value "fabricscope_up\\{source=\"leaf$k\",type=\"gnmi\"\\}")" 1
    check_eq "leaf$k stream up" \
        "$(value "fabricscope_gnmi_stream_up\\{source=\"leaf$k\",stream=\"interfaces\"\\}")" 1
done
check_eq "no sequence gap" \
    "$(grep -E '^fabricscope_gnmi_sequence_gaps_total' "$tmp/metrics" | awk '{s += $NF} END {print s + 0}')" 0

stop_pid "$fsc_pid" 100
fsc_pid=""
stop_pid "$sim_pid" 100 || fail "the simulator ignored SIGTERM"
sim_pid=""
check_eq "the simulator exits cleanly" "$stop_rc" 0
[ "$fails" -eq 0 ] || { echo "--- sim ---"; cat "$tmp/sim.err"; echo "--- fabricscope ---"; tail -20 "$tmp/fsc.log"; }
summary
