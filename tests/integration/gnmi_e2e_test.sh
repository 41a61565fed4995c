#!/bin/sh
# gNMI end to end: the QFX5240 simulator (tests/sim/gnmi_sim) streams
# OpenConfig counters with ±30 % timestamp jitter and a 100 ms line-rate burst
# on one port; the real daemon subscribes on three parallel streams, and its
# /metrics must show the exact rate of a port at 25 % of 400G despite the
# jitter, the microburst on the right port with a ~100 ms duration, the
# source up, every stream's observed cadence near the 100 ms interval with
# the jitter the simulator injects, and the queue and ethernet counters of
# the second and third streams (queue drops, peak and average occupancy,
# pause and PFC frames, FEC words) with the exact values of the simulator's
# model (collector/demo/sim/gnmi_sim.h). Everything on 127.0.0.1; both
# processes stopped by PID; every wait bounded.
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
    sample_interval_grid: none # a simulator: 100 ms as asked (Junos would get 2 s)
    streams:      # three parallel Subscribe calls, the paths the simulator serves
      - {name: interfaces, paths: ["/interfaces/interface/state/counters"]}
      - {name: queues, paths: ["/qos/interfaces/interface/output/queues/queue/state"]}
      - name: ethernet
        paths: ["/interfaces/interface/ethernet/state/counters",
                "/state/interfaces/interface/ethernet/counters"]
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
for st in interfaces queues ethernet; do
    check_eq "stream $st up" "$(value "fabricscope_gnmi_stream_up\\{source=\"leaf1\",stream=\"$st\"\\}")" 1
    check_eq "stream $st decode errors" \
        "$(value "fabricscope_gnmi_decode_errors_total\\{source=\"leaf1\",stream=\"$st\"\\}")" 0
    check "stream $st has no updates" \
        grep -Eq "^fabricscope_gnmi_updates_total\\{source=\"leaf1\",stream=\"$st\"\\} [1-9]" "$tmp/metrics"
done
# Observed cadence: every stream samples each port every 100 ms of device
# time (within 20 %). The simulator moves each payload timestamp by a uniform
# ±30 ms, so an interval deviates by the difference of two such draws
# (triangular on ±60 ms) whose mean absolute value is 2 × 30 / 3 = 20 ms
# (19.5 ms with the simulator's whole-ms truncation): the jitter gauge must
# read about 0.02 s. The EWMA spans ~64 intervals, so its spread is ~1.3 ms;
# ±40 % keeps a random draw from failing the test (> 5 sigma) while a wrong
# definition (e.g. the interval itself, or a per-message rather than
# per-series interval) still fails.
for st in interfaces queues ethernet; do
    cad=$(value "fabricscope_gnmi_stream_cadence_seconds\\{source=\"leaf1\",stream=\"$st\"\\}")
    jit=$(value "fabricscope_gnmi_stream_jitter_seconds\\{source=\"leaf1\",stream=\"$st\"\\}")
    num_near "stream $st cadence within 20 % of 100 ms" "$cad" 0.1 0.2
    num_near "stream $st jitter present, finite, ~20 ms" "$jit" 0.02 0.4
done

# Second and third streams, exact model values (gnmi_sim.h): pause frames =
# 10 (rx) and 4 (tx) per ms the port spent bursting, so 0 on et-0/0/0 and
# rx = 1000 per completed 100 ms burst on et-0/0/1 between bursts, the same
# in PFC priority 3; queue drops = transmit packets / 1e6 (bytes x 4096);
# et-0/0/0's queue 0 peaks at 0.25 x 1e6 (no burst there), its average is
# half; FEC corrected words grow with the bytes. The values of one port come
# from several messages stamped apart, so poll (bounded, 10 s) for a scrape
# between bursts where all of them agree.
model_ok() {
    sel0="device=leaf1 port=et-0/0/0"
    sel1="device=leaf1 port=et-0/0/1"
    p0=$(series_value fabric_port_rx_pause_frames_total $sel0)
    tp0=$(series_value fabric_port_tx_pause_frames_total $sel0)
    p1=$(series_value fabric_port_rx_pause_frames_total $sel1)
    tp1=$(series_value fabric_port_tx_pause_frames_total $sel1)
    pfc1=$(series_value fabric_port_pfc_rx_pause_frames_total $sel1 priority=3)
    tpfc1=$(series_value fabric_port_pfc_tx_pause_frames_total $sel1 priority=3)
    t0=$(series_value fabric_port_queue_tx_packets_total $sel0 queue=0)
    d0=$(series_value fabric_port_queue_dropped_packets_total $sel0 queue=0)
    db0=$(series_value fabric_port_queue_dropped_bytes_total $sel0 queue=0)
    pk0=$(series_value fabric_port_queue_peak_bytes $sel0 queue=0)
    av0=$(series_value fabric_port_queue_avg_bytes $sel0 queue=0)
    fec0=$(series_value fabric_port_fec_corrected_codewords_total $sel0)
    awk -v p0="$p0" -v tp0="$tp0" -v p1="$p1" -v tp1="$tp1" -v pfc1="$pfc1" -v tpfc1="$tpfc1" \
        -v t0="$t0" -v d0="$d0" -v db0="$db0" -v pk0="$pk0" -v av0="$av0" -v fec0="$fec0" 'BEGIN {
        n = split(p0 " " tp0 " " p1 " " tp1 " " pfc1 " " tpfc1 " " t0 " " d0 " " db0 " " pk0 \
                  " " av0 " " fec0, v, " ")
        if (n != 12) exit 1
        exit !(p0 == 0 && tp0 == 0 && p1 >= 1000 && p1 % 1000 == 0 && tp1 * 10 == p1 * 4 &&
               pfc1 == p1 && tpfc1 == tp1 && t0 > 0 && d0 == int(t0 / 1000000) &&
               db0 == d0 * 4096 && pk0 == 250000 && av0 == 125000 && fec0 > 0) }'
}
ok
if ! poll_metrics 100 model_ok; then
    fail "queue/ethernet model values: rx pause et-0/0/0=$p0 et-0/0/1=$p1 tx pause $tp0 $tp1;" \
        "pfc 3 et-0/0/1 $pfc1 $tpfc1; et-0/0/0 q0 drops $d0 ($db0 B) of tx $t0, peak $pk0," \
        "avg $av0; fec $fec0"
fi

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
