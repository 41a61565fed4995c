# shellcheck shell=sh
# $tmp, $fsc_pid and the check helpers come from lib.sh (SC2154).
# shellcheck disable=SC2154
# Helpers of the resource / Kafka fault tests (faults_res_*.sh), sourced after
# lib.sh (and kafka_lib.sh where Kafka is used) and lib_init.
#
# fr_replay FILE
#     Writes the replay of kafka_restart_test.sh: device leafr, ports p1..p4,
#     100 ms samples for 9 s, 6 line-rate microbursts per port (48 START/END
#     events, a port's bursts 800 ms apart, ports staggered by 200 ms, so
#     no two events are produced within linger.ms of each other) and one
#     64-bit counter reset per port (4 counter_reset events): 52 events.
# fr_rss_kib PID
#     VmRSS of PID in KiB from /proc (empty when the process is gone).
# fr_fds PID
#     Number of open file descriptors of PID.
# fr_sum_metric NAME
#     Sum of every sample line of NAME (with any labels) in $tmp/metrics.
# fr_log_count ERE
#     Lines of $tmp/fsc.log matching ERE.
# fr_error_lines
#     Lines of $tmp/fsc.log at level=error, plus ASan / UBSan reports.

fr_replay() {
    python3 - "$1" <<'PY'
import sys
with open(sys.argv[1], "w") as f:
    tx = [0] * 5
    rx = [10**12] * 5
    for k in range(0, 91):
        for j in range(1, 5):
            if k > 0:
                burst = 8 <= k <= 48 + 2 * (j - 1) and k % 8 == 2 * (j - 1)
                tx[j] += 5000000000 if burst else 1250000000
                rx[j] = 1000 if k == 25 + 10 * j else rx[j] + 1000000000
            f.write(f'{k * 100} fabric_port_tx_bytes_total{{device="leafr",port="p{j}"}} {tx[j]}\n')
            f.write(f'{k * 100} fabric_port_rx_bytes_total{{device="leafr",port="p{j}"}} {rx[j]}\n')
PY
}

fr_rss_kib() { awk '/^VmRSS:/ {print $2}' "/proc/$1/status" 2>/dev/null; }

fr_fds() { find "/proc/$1/fd" -mindepth 1 -maxdepth 1 2>/dev/null | wc -l; }

fr_sum_metric() {
    awk -v n="$1" '$1 == n || index($1, n "{") == 1 {s += $NF} END {print s + 0}' "$tmp/metrics"
}

fr_log_count() { grep -Ec -- "$1" "$tmp/fsc.log"; }

fr_error_lines() {
    grep -Ec 'level=error|ERROR: AddressSanitizer|runtime error:|LeakSanitizer' "$tmp/fsc.log"
}
