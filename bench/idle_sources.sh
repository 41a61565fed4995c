#!/bin/sh
# What a configured source costs before it has any series: the daemon with N
# gnmi sources pointed at a closed port on 127.0.0.1 (they connect, fail and
# back off, never stream) against the same daemon with none; prints RSS and
# threads after SECONDS. Numbers, not pass/fail (docs/CONFIG.md, "Limits").
#   bench/idle_sources.sh [-B BUILD_DIR] [-s SECONDS] [N]   (default build, 8 s, 1000)
set -u
build=build
secs=8
while getopts B:s: opt; do
    case $opt in
    B) build=$OPTARG ;;
    s) secs=$OPTARG ;;
    *) echo "usage: $0 [-B BUILD_DIR] [-s SECONDS] [N]" >&2; exit 2 ;;
    esac
done
shift $((OPTIND - 1))
n=${1:-1000}
tmp=$(mktemp -d)
pid=""
cleanup() {
    [ -z "$pid" ] || { kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null; }
    rm -rf "$tmp"
}
trap cleanup EXIT INT TERM
# A port nothing listens on: bound and closed here (refused at once).
closed=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
measure() { # COUNT
    {
        echo "state_dir: $tmp/state$1"
        echo "log: {level: error}"
        echo "exporters: {prometheus: {listen: \"127.0.0.1:0\"}}"
        if [ "$1" -eq 0 ]; then
            echo "sources: []"
        else
            echo "sources:"
            i=0
            while [ "$i" -lt "$1" ]; do
                echo "  - {name: g$i, type: gnmi, address: \"127.0.0.1:$closed\", device: d$i}"
                i=$((i + 1))
            done
        fi
    } >"$tmp/c$1.yaml"
    "$build/collector/fabricscope" run -c "$tmp/c$1.yaml" 2>"$tmp/log$1" &
    pid=$!
    sleep "$secs" # the measurement's duration, not synchronisation
    rss=$(awk '/^VmRSS:/ {print $2}' "/proc/$pid/status")
    threads=$(ls "/proc/$pid/task" | wc -l)
    kill "$pid"
    wait "$pid" 2>/dev/null
    pid=""
    echo "$1 $rss $threads"
}
set -- "$(measure 0)" "$(measure "$n")"
echo "$1" "$2" | awk '{printf "sources 0: RSS %d KiB, %d threads; sources %d: RSS %d KiB, %d threads; %.1f KiB per idle gnmi source\n", $2, $3, $4, $5, $6, ($5 - $2) / $4}'
