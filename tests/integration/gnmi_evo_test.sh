#!/bin/sh
# A Junos OS Evolved leaf as a new user would point the collector at it: the
# built-in subscription plan (no streams configured, `os` left at evo), NO
# link speed anywhere in the config, zero suppression on. The simulator
# (tests/sim/gnmi_sim, EVO-shaped: queue occupancy in max-queue-len, speeds
# in port-speed / negotiated-port-speed / high-speed, zeros left out) runs
# 4 ports at 30 % of 400G with a 300 ms line-rate burst on et-0/0/1 every
# 3 s. /metrics must show:
# - utilization of every loaded port at 0.30 (speed from the device);
#   fabricscope_ports_without_speed 0;
# - queue-peak evidence on et-0/0/1 from max-queue-len (12e6 bytes on queue
#   0 in an interval holding a burst, above 0.5 x the 16 MiB buffer), none on
#   et-0/0/0 (0.3 x 1e6 bytes);
# - pause frames of the ports that never paused as 0 (the device suppresses
#   them; et-0/0/1 reports its own), counted in
#   fabricscope_gnmi_zero_filled_samples_total;
# - no ECN family (Junos OS Evolved renders none).
# Everything on 127.0.0.1; both processes stopped by PID; every wait bounded.
#   gnmi_evo_test.sh FABRICSCOPE GNMI_SIM
set -u
bin=$1
sim=$2
# shellcheck source=lib.sh source-path=SCRIPTDIR
. "$(dirname "$0")/lib.sh"
lib_init

start_sim "$sim" --listen 127.0.0.1:0 --ports 4 --utilization 0.3 --packet-size 512 --zero-suppress \
    --burst-port 1 --burst-every 3s --burst-length 300ms --duration 60s || exit 1

cat >"$tmp/fsc.yaml" <<YAML
sources:
  - name: leaf1
    type: gnmi
    address: "127.0.0.1:$sim_port"
    sample_interval: 2s
exporters:
  prometheus:
    listen: "127.0.0.1:0"
engine:
  windows: [2s, 4s]
topology:
  devices:
    - name: leaf1
      role: leaf
      buffer: 16MiB
YAML
start_fsc "$tmp/fsc.yaml"
wait_exporter || exit 1

sel0='device="leaf1",port="et-0/0/0"'
ready() {
    grep -q "^fabric_port_utilization_ratio{$sel0.*direction=\"rx\"" "$tmp/metrics" &&
        grep -Eq '^fabric_congestion_evidence_total\{.*port="et-0/0/1".*\} [1-9]' "$tmp/metrics" &&
        grep -Eq '^fabricscope_gnmi_zero_filled_samples_total\{.*stream="rest"\} [1-9]' "$tmp/metrics" &&
        grep -q "^fabric_port_rx_pause_frames_total{$sel0}" "$tmp/metrics"
}
poll_metrics 400 ready

# 30 % of 400G on every port, the speed from the device: 0.3 exactly (the
# simulator's counters are the integral of the rate at the payload times).
for p in 0 2 3; do
    u=$(series_value fabric_port_utilization_ratio device=leaf1 port=et-0/0/$p direction=rx)
    num_near "utilization of et-0/0/$p from the device's speed" "$u" 0.3 0.01
done
check_eq "no port without a speed" \
    "$(value 'fabricscope_ports_without_speed\{source="leaf1",device="leaf1"\}')" 0

# Queue-peak evidence from max-queue-len on the burst port only.
ev1=$(series_value fabric_congestion_evidence_total device=leaf1 port=et-0/0/1 queue=0 \
    signal=queue_peak_bytes)
check "queue-peak evidence on et-0/0/1 queue 0 ($ev1)" ge "$ev1" 1
check "no queue-peak evidence on et-0/0/0" eval \
    "! grep -Eq '^fabric_congestion_evidence_total\\{.*port=\"et-0/0/0\".*\\} [1-9]' \"$tmp/metrics\""
check_eq "queue 0 peak of et-0/0/0 (0.3 x 1e6)" \
    "$(series_value fabric_port_queue_peak_bytes device=leaf1 port=et-0/0/0 queue=0)" 300000

# Zero suppression: et-0/0/0 never paused, so the device never sent its pause
# frames; they read 0 once the port reports its ethernet counters at all (its
# CRC errors, in-errors = packets / 1e8, pass 1 within ~4 s at 512-byte
# packets) and the burst port has shown the leaf. The burst port reports its
# own (10 per ms in bursts).
check_eq "suppressed rx pause frames of et-0/0/0 read 0" \
    "$(series_value fabric_port_rx_pause_frames_total device=leaf1 port=et-0/0/0)" 0
check_eq "suppressed tx pause frames of et-0/0/2 read 0" \
    "$(series_value fabric_port_tx_pause_frames_total device=leaf1 port=et-0/0/2)" 0
p1=$(series_value fabric_port_rx_pause_frames_total device=leaf1 port=et-0/0/1)
check "et-0/0/1 reports its pause frames (a multiple of 10)" \
    awk -v v="$p1" 'BEGIN { exit !(v > 0 && v % 10 == 0) }'
check "no ECN family from a Junos OS Evolved leaf" eval \
    "! grep -q '^fabric_port_ecn_marked' \"$tmp/metrics\""
check_eq "source up" "$(value 'fabricscope_up\{source="leaf1",type="gnmi"\}')" 1

summary
