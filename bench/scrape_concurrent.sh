#!/bin/sh
# What a /metrics scrape costs the collector, alone and with concurrent
# scrapes (docs/PERFORMANCE.md "Streamed /metrics"): numbers, not pass/fail;
# not in ctest.
#
#   bench/scrape_concurrent.sh [-B BUILD_DIR] [-s SOURCES] [-p PORTS] [-r ROUNDS]
#   default: build, 8 synthetic sources of 1024 ports (~46 MB of exposition),
#   5 rounds per case
#
# One collector with S synthetic sources of P ports at 1 s; after 3 scrapes
# (indexes built, caches warm), for 1, 2 and 8 concurrent scrapes (each on
# its own connection, identity, then gzip) and R rounds each: the wall time
# of the slowest scrape of the round (curl time_total), the collector's CPU
# per round (utime + stime from /proc/PID/stat, all threads, ingest
# included: the same for every case), and at the end VmRSS and VmHWM. The
# collector is stopped by PID.
set -u
build=build
sources=8
ports=1024
rounds=5
while getopts B:s:p:r: o; do
    case $o in
    B) build=$OPTARG ;;
    s) sources=$OPTARG ;;
    p) ports=$OPTARG ;;
    r) rounds=$OPTARG ;;
    *) exit 2 ;;
    esac
done
bin=$build/collector/fabricscope
[ -x "$bin" ] || {
    echo "no $bin: build the fabricscope target" >&2
    exit 2
}
tmp=$(mktemp -d)
pid=
cleanup() {
    [ -n "$pid" ] && kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null
    rm -rf "$tmp"
}
trap cleanup EXIT INT TERM

{
    echo "state_dir: $tmp/state"
    echo "sources:"
    i=0
    while [ "$i" -lt "$sources" ]; do
        echo "  - {name: syn$i, type: synthetic, ports: $ports, interval: 1s}"
        i=$((i + 1))
    done
    echo "exporters:"
    echo "  prometheus:"
    echo '    listen: "127.0.0.1:0"'
} >"$tmp/fsc.yaml"
"$bin" run -c "$tmp/fsc.yaml" >"$tmp/fsc.out" 2>"$tmp/fsc.log" &
pid=$!
port=
for _ in $(seq 100); do
    port=$(sed -n 's/.*event=exporter_started exporter=prometheus .* port=\([0-9]*\).*/\1/p' \
        "$tmp/fsc.log" | head -1)
    [ -n "$port" ] && break
    sleep 0.1 # polling the log for the port, bounded
done
[ -n "$port" ] || {
    echo "the collector did not start its exporter" >&2
    exit 1
}

# CPU seconds of the collector (all threads) so far.
cpu_s() {
    awk -v hz="$(getconf CLK_TCK)" '{print ($14 + $15) / hz}' "/proc/$pid/stat"
}
# One scrape: prints its time_total and bytes.
scrape() {
    curl -s --max-time 120 -o /dev/null -w '%{time_total} %{size_download}\n' \
        -H "Accept-Encoding: $1" "http://127.0.0.1:$port/metrics"
}
for _ in 1 2 3; do
    scrape identity >/dev/null
done

echo "| encoding | concurrent scrapes | slowest scrape s (median of $rounds) | collector CPU s per round (median) | MB per scrape |"
echo "|---|---|---|---|---|"
for enc in identity gzip; do
    for n in 1 2 8; do
        : >"$tmp/rounds"
        r=0
        while [ "$r" -lt "$rounds" ]; do
            c0=$(cpu_s)
            k=0
            pids=
            while [ "$k" -lt "$n" ]; do
                scrape "$enc" >"$tmp/s.$k" &
                pids="$pids $!"
                k=$((k + 1))
            done
            # shellcheck disable=SC2086 # one word per PID
            wait $pids
            c1=$(cpu_s)
            slow=$(cat "$tmp"/s.* | sort -n | tail -1)
            echo "$slow $(awk -v a="$c0" -v b="$c1" 'BEGIN {print b - a}')" >>"$tmp/rounds"
            rm -f "$tmp"/s.*
            r=$((r + 1))
        done
        t=$(awk '{print $1}' "$tmp/rounds" | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}')
        c=$(awk '{print $3}' "$tmp/rounds" | sort -n | awk '{a[NR]=$1} END {printf "%.2f", a[int((NR+1)/2)]}')
        mb=$(awk '{print $2}' "$tmp/rounds" | head -1 | awk '{printf "%.1f", $1 / 1e6}')
        echo "| $enc | $n | $t | $c | $mb |"
    done
done
awk '/^VmRSS|^VmHWM/ {printf "%s %d MiB\n", $1, $2 / 1024}' "/proc/$pid/status"
