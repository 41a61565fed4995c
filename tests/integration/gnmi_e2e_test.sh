#!/bin/sh
# gNMI end to end: the QFX5240 simulator (tests/sim/gnmi_sim) streams
# OpenConfig counters with ±30 % timestamp jitter and a 100 ms line-rate burst
# on one port; the real daemon subscribes on two parallel streams, and its
# /metrics must show the exact rate of a port at 25 % of 400G despite the
# jitter, the microburst on the right port with a ~100 ms duration, and the
# source up. Everything on 127.0.0.1; both processes stopped by PID; every
# wait bounded.
#   gnmi_e2e_test.sh FABRICSCOPE GNMI_SIM
set -u
bin=$1
sim=$2
# shellcheck source=lib.sh source-path=SCRIPTDIR
. "$(dirname "$0")/lib.sh"
lib_init

start_sim "$sim" --listen 127.0.0.1:0 --ports 4 --interval 100ms --jitter 0.3 --utilization 0.25 \
    --burst-port 1 --burst-every 3s --burst-length 100ms --duration 40s || exit 1

cat >"$tmp/fsc.yaml" <<YAML
sources:
  - name: leaf1
    type: gnmi
    address: "127.0.0.1:$sim_port"
    sample_interval: 100ms
    streams:      # two parallel Subscribe calls, the paths the simulator serves
      - {name: interfaces, paths: ["/interfaces/interface/state/counters"]}
      - {name: queues, paths: ["/junos/system/linecard/qmon-sw/"]}
exporters:
  prometheus:
    listen: "127.0.0.1:0"
# A microburst's END event waits for the windows of levels 0 and 1 around it
# to complete (its context utilization): short windows keep the test short.
engine:
  windows: [1s, 2s]
topology:
  devices:
    - name: leaf1
      role: leaf
      ports:
        - {name: et-0/0/0, speed: 400G, role: downlink}
        - {name: et-0/0/1, speed: 400G, role: downlink}
        - {name: et-0/0/2, speed: 400G, role: uplink}
        - {name: et-0/0/3, speed: 400G, role: uplink}
YAML
start_fsc "$tmp/fsc.yaml"
wait_exporter || exit 1

# Poll /metrics (bounded, 25 s) until the burst has been seen and rates exist.
burst_and_rates() {
    grep -q '^fabric_microbursts_total{.*port="et-0/0/1".*} [1-9]' "$tmp/metrics" &&
        grep -q '^fabric_port_bytes_per_second{.*port="et-0/0/0"' "$tmp/metrics"
}
poll_metrics 250 burst_and_rates

sel='device="leaf1",port="et-0/0/0"'
check "rx bytes counter of et-0/0/0" grep -q "^fabric_port_rx_bytes_total{$sel.*} [1-9]" "$tmp/metrics"
# 25 % of 400G = 12.5e9 bytes/s, exact despite ±30 % timestamp jitter.
check_eq "rx rate of et-0/0/0" "$(value "fabric_port_bytes_per_second\\{$sel.*direction=\"rx\"")" 12500000000
check_eq "utilization of et-0/0/0" "$(value "fabric_port_utilization_ratio\\{$sel.*direction=\"rx\"")" 0.25
# The burst is on et-0/0/1 only.
check "no microburst counted on et-0/0/1" \
    grep -Eq '^fabric_microbursts_total\{.*port="et-0/0/1".*\} [1-9]' "$tmp/metrics"
check_eq "no microburst on et-0/0/0" \
    "$(value "fabric_microbursts_total\\{$sel.*direction=\"rx\"")" 0
check_eq "source up" "$(value 'fabricscope_up\{source="leaf1",type="gnmi"\}')" 1
for st in interfaces queues; do
    check_eq "stream $st up" "$(value "fabricscope_gnmi_stream_up\\{source=\"leaf1\",stream=\"$st\"\\}")" 1
    check_eq "stream $st decode errors" \
        "$(value "fabricscope_gnmi_decode_errors_total\\{source=\"leaf1\",stream=\"$st\"\\}")" 0
    check "stream $st has no updates" \
        grep -Eq "^fabricscope_gnmi_updates_total\\{source=\"leaf1\",stream=\"$st\"\\} [1-9]" "$tmp/metrics"
done
# ~100 ms: one or two jittered 100 ms samples carry the burst.
burst_end='kind=microburst phase=end device=leaf1 port=et-0/0/1 .*duration_ms=([5-9][0-9]|1[0-9][0-9]|2[0-6][0-9])\.'
wait_until 100 grep -Eq "$burst_end" "$tmp/fsc.log"
check_log "microburst END event on et-0/0/1 with a ~100 ms duration" "$burst_end"

if [ "$fails" -ne 0 ]; then
    echo "--- fabricscope log ---"; grep -v "event=library" "$tmp/fsc.log" | cut -c1-400 | tail -25
    echo "--- simulator stderr ---"; tail -10 "$tmp/sim.err"
    echo "--- /metrics (et-0/0/0, et-0/0/1) ---"; grep -E 'et-0/0/[01]' "$tmp/metrics" | grep -v '_bucket' | head -40
fi
summary
