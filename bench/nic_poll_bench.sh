#!/bin/sh
# The globals bin, tmp, fsc_pid and peer_pid are shared with lib.sh.
# shellcheck disable=SC2034,SC2154
# NIC poller cost: the real daemon with one nic source polling a fixture
# sysfs tree (fabricscope-nic-fixture, built beside FABRICSCOPE) of 16 interfaces x 100 counter
# files (76 of the generator's + 24 extra hw_counters files, the optional
# per-flow and RoCE counters of a CX-8) at 100 Hz, while a stepper advances
# the tree every 100 ms. Prints the daemon's CPU (% of one core, from
# /proc/PID/stat over the window, every thread of the process included) and
# the poll's own cost from its self-metrics: seconds per poll and ns per
# counter read (pread + parse + the engine ingest of the sample). The files
# are regular files on the bench's disk, not sysfs: a real sysfs attribute
# costs about twice a regular file's pread (tests/unit/test_nic_readers.c,
# read_cost_100_files vs sysfs_pread_fresh). Numbers, not pass/fail.
#   bench/nic_poll_bench.sh [-b FABRICSCOPE] [-w SECONDS] [-i INTERVAL] [-n DEVICES]
set -u
bin=build/collector/fabricscope
window=20
interval=10ms
devices=16
while getopts b:w:i:n: opt; do
    case $opt in
    b) bin=$OPTARG ;;
    w) window=$OPTARG ;;
    i) interval=$OPTARG ;;
    n) devices=$OPTARG ;;
    *) echo "usage: $0 [-b FABRICSCOPE] [-w SECONDS] [-i INTERVAL] [-n DEVICES]" >&2; exit 2 ;;
    esac
done
here=$(cd "$(dirname "$0")" && pwd)
fixture="$(dirname "$bin")/fabricscope-nic-fixture"
[ -x "$fixture" ] || { echo "no fabricscope-nic-fixture beside $bin (the default build makes it)" >&2; exit 2; }
# shellcheck source=tests/integration/lib.sh
. "$here/../tests/integration/lib.sh"
lib_init

root="$tmp/fx"
"$fixture" init "$root" --devices "$devices" --cnp-rate 1000 --oos-rate 100 || exit 1
extra="cc_rx_ce_pkts cc_rx_cnp_pkts cc_tx_cnp_pkts rdma_tx_packets rdma_tx_bytes rdma_rx_packets
rdma_rx_bytes roce_adp_retrans_extra bind_mw_errs lkey_violation_errs rx_dct_ops
req_rnr_naks resp_rnr_naks tx_atomic_requests tx_read_requests tx_write_requests
rx_send_requests tx_send_requests rx_atomic_errs rx_read_errs rx_write_errs
tx_atomic_errs tx_read_errs tx_write_errs"
k=0
while [ "$k" -lt "$devices" ]; do
    for n in $extra; do
        echo 0 >"$root/sys/class/infiniband/mlx5_$k/ports/1/hw_counters/$n"
    done
    k=$((k + 1))
done

cat >"$tmp/bench.yaml" <<YAML
sources:
  - name: bench
    type: nic
    interval: $interval
    sysfs_root: $root
    fixture: true
exporters:
  prometheus: {listen: "127.0.0.1:0"}
YAML
start_fsc "$tmp/bench.yaml"
wait_exporter || exit 1

# The stepper: one process, one step every 100 ms (fixture time = real time).
"$fixture" run "$root" --dt-ms 100 --steps $(((window + 5) * 10)) &
peer_pid=$!

ticks() { awk '{print $14 + $15}' "/proc/$fsc_pid/stat"; }
self() { series_value "$1" source=bench; }
sleep 3
fetch_metrics
p0=$(self fabricscope_nic_polls_total)
b0=$(self fabricscope_nic_poll_busy_seconds_total)
o0=$(self fabricscope_nic_poll_overruns_total)
c0=$(ticks)
t0=$(date +%s.%N)
sleep "$window"
c1=$(ticks)
t1=$(date +%s.%N)
fetch_metrics
p1=$(self fabricscope_nic_polls_total)
b1=$(self fabricscope_nic_poll_busy_seconds_total)
o1=$(self fabricscope_nic_poll_overruns_total)
n=$(self fabricscope_nic_poll_counters)
mx=$(self fabricscope_nic_poll_max_seconds)
hz=$(getconf CLK_TCK)
awk -v c0="$c0" -v c1="$c1" -v t0="$t0" -v t1="$t1" -v hz="$hz" -v p0="$p0" -v p1="$p1" \
    -v b0="$b0" -v b1="$b1" -v o0="$o0" -v o1="$o1" -v n="$n" -v mx="$mx" -v d="$devices" \
    -v iv="$interval" 'BEGIN {
    secs = t1 - t0; polls = p1 - p0; busy = b1 - b0
    printf "interfaces=%d counters_per_poll=%d interval=%s window_s=%.1f\n", d, n, iv, secs
    printf "polls=%d polls_per_s=%.1f overruns=%d\n", polls, polls / secs, o1 - o0
    printf "daemon_cpu_percent_of_core=%.2f\n", (c1 - c0) / hz / secs * 100
    printf "poll_busy_percent_of_core=%.2f\n", busy / secs * 100
    printf "poll_us_mean=%.1f poll_us_max_last_10_20s=%.1f\n", busy / polls * 1e6, mx * 1e6
    printf "ns_per_counter=%.0f\n", busy / polls / n * 1e9
}'
