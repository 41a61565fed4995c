#!/bin/sh
# Junos cadence end to end: the QFX5240 simulator reports as
# Juniper documents ("Guidelines for Specifying Data Reporting Intervals":
# intervals only in multiples of 2 s, a subset of the interfaces per
# interval): --junos-cadence, 20 ports, 10 per 2 s interval (each port every
# 4 s), eom per batch, 2 s counter copies, and --min-interval 2s, so a
# subscription below 2 s would be refused. The config asks for 100 ms:
# - check-config warns (file:line:col, the 2 s granularity, the 2s it uses)
#   and prints sample_interval: 2s;
# - the daemon subscribes at 2 s (the simulator accepts it) with the default
#   plan of Junos OS Evolved (queue peaks in max-queue-len, FEC and speeds
#   in the links stream);
# - every port's rx and tx 10 s window on /metrics within 1 % of the
#   formula 0.2 x 400 Gb/s / 8 = 1e10 B/s, none of the 20 ports missing;
# - remote_write carries every 10 s window of the 40 port series once, none
#   missing between the first and the last, within 1 % (accuracy_rw_check.py,
#   fine rates one port report = 4 s apart);
# - no sequence gap and no stream down (batches are not gaps); the queue
#   peaks (max-queue-len) are the formula's utilization x 1e6 >> queue.
# Everything on 127.0.0.1; every process stopped by PID; every wait bounded.
#   accuracy_junos_cadence_test.sh FABRICSCOPE GNMI_SIM
set -u
bin=$1
sim=$2
here=$(dirname "$0")
# shellcheck source=lib.sh source-path=SCRIPTDIR
. "$here/lib.sh"
lib_init

start_sim "$sim" --listen 127.0.0.1:0 --ports 20 --junos-cadence --batch-ports 10 \
    --min-interval 2s --utilization 0.2 --queues 2 --duration 100s || exit 1

start_rw_receiver || exit 1

{
    cat <<YAML
sources:
  - name: leaf1
    type: gnmi
    address: "127.0.0.1:$sim_port"
    sample_interval: 100ms
exporters:
  prometheus:
    listen: "127.0.0.1:0"
  remote_write:
    url: http://127.0.0.1:$rw_port/api/v1/write
    interval: 1s
    resolution: 200ms
    series: [window_rates, fine_rates]
engine:
  windows: [1s, 10s]
topology:
  devices:
    - name: leaf1
      role: leaf
      ports:
YAML
    leaf_port_lines 20
} >"$tmp/fsc.yaml"

"$bin" check-config "$tmp/fsc.yaml" >"$tmp/check.out" 2>"$tmp/check.err"
check_eq "check-config accepts the 100 ms config" "$?" 0
check "check-config warns at the value: 2 s granularity, 2s used" grep -Fq \
    "fsc.yaml:5:22: sources[0].sample_interval: warning: Junos reports only on multiples of 2 s (Juniper, \"Guidelines for Specifying Data Reporting Intervals\"): \"100ms\" is subscribed as 2s" \
    "$tmp/check.err"
check "the effective config subscribes at 2 s" grep -q '^    sample_interval: 2s$' "$tmp/check.out"

start_fsc "$tmp/fsc.yaml"
wait_exporter || exit 1
check_log "the daemon logs the warning" "event=config_warning"

# All 20 ports' 10 s windows, both directions, and five windows on
# remote_write (bounded, 70 s).
all_ports() {
    n=$(grep -c '^fabric_port_bytes_per_second{.*device="leaf1"' "$tmp/metrics" 2>/dev/null)
    w=$(grep -c '"fabric_port_bytes_per_second"' "$tmp/rw.log" 2>/dev/null)
    [ "${n:-0}" -ge 40 ] && [ "${w:-0}" -ge 5 ]
}
poll_metrics 700 all_ports || fail "not every port's 10 s window on /metrics in 70 s"

i=0
while [ "$i" -lt 20 ]; do
    for dir in rx tx; do
        v=$(value "fabric_port_bytes_per_second\\{device=\"leaf1\",port=\"et-0/0/$i\".*direction=\"$dir\"")
        check "$dir rate of et-0/0/$i within 1 % of 1e10 ($v)" \
            awk -v v="$v" 'BEGIN { exit !(v != "" && v > 0.99e10 && v < 1.01e10) }'
    done
    i=$((i + 1))
done
check_eq "no sequence gap (batches are not gaps)" \
    "$(grep -E '^fabricscope_gnmi_sequence_gaps_total' "$tmp/metrics" | awk '{s += $NF} END {print s + 0}')" 0
check_eq "no stream down" \
    "$(value 'fabricscope_events_total\{kind="stream_down"\}' | awk '{print $1 + 0}')" 0
check_eq "queue peak of et-0/0/7 queue 0 (0.2 x 1e6)" \
    "$(value 'fabric_port_queue_peak_bytes\{device="leaf1",port="et-0/0/7",queue="0"')" 200000
check_eq "queue peak of et-0/0/19 queue 1 (0.2 x 1e6 >> 1)" \
    "$(value 'fabric_port_queue_peak_bytes\{device="leaf1",port="et-0/0/19",queue="1"')" 100000
check_eq "one copy grid" "$(value 'fabricscope_copy_groups ')" 1

stop_pid "$fsc_pid" 100
fsc_pid=""
python3 "$here/accuracy_rw_check.py" "$tmp/rw.log" 10000000000 10000 4000 >"$tmp/rwcheck.out"
rc=$?
tail -5 "$tmp/rwcheck.out"
check_eq "remote_write: every port's 10 s windows once, none missing, within 1 %" "$rc" 0
check "remote_write carried 40 port series" grep -q '^ports=40 ' "$tmp/rwcheck.out"

if [ "$fails" -ne 0 ]; then
    echo "--- fabricscope log ---"; grep -v "event=library" "$tmp/fsc.log" | cut -c1-300 | tail -20
    echo "--- /metrics ---"; grep -E 'bytes_per_second\{.*et-0/0/1[0-9]?"|sequence|copy_' "$tmp/metrics" | head -20
fi
summary
