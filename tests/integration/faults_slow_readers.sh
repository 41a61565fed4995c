#!/bin/sh
# shellcheck disable=SC2016 # single-quoted conditions are expanded by eval
# Slow readers of /metrics: 48 connections, one every 300 ms, each asking
# for a ~13 MB exposition (two synthetic switches of 1024 ports) and never
# reading it (faults_slow_readers.py). Bodies are streamed
# (exporters/prometheus/prom_http_stream.h): a render runs at most
# FSC_PROM_WINDOW segments (8 x 256 KiB) ahead of its slowest reader, and a
# reader that keeps that window from moving for 2 s is dropped, so a reader
# that never reads holds no body:
# - the daemon's peak RSS grows by less than 64 MiB (measured +19 to +31 MB:
#   48 connection threads, MHD's 128 KiB buffer per response, allocator
#   slack, a render's window and what it keeps for joining scrapes), far
#   below the 48 bodies the attack asks for;
# - a normal scrape during the attack is answered 200 within 10 s with a
#   complete body (curl fails on a body cut short);
# - the log says readers were dropped (event=prom_scrape_reader_dropped),
#   at most once per 10 s;
# - SIGTERM: exit 0.
#   faults_slow_readers.sh FABRICSCOPE PYTHON3
set -u
bin=$1
py=${2:-python3}
here=$(dirname "$0")
# shellcheck source=lib.sh source-path=SCRIPTDIR
. "$here/lib.sh"
# shellcheck source=faults_net_lib.sh source-path=SCRIPTDIR
. "$here/faults_net_lib.sh"
fn_init
# ASan keeps freed blocks in a quarantine (256 MiB by default): bodies freed
# by the bound would still count in RSS. 8 MiB keeps the measure honest.
ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}quarantine_size_mb=8"
export ASAN_OPTIONS

cat >"$tmp/fsc.yaml" <<YAML
state_dir: $tmp/state
sources:
  - {name: big1, type: synthetic, ports: 1024, interval: 1s}
  - {name: big2, type: synthetic, ports: 1024, interval: 1s}
exporters:
  prometheus:
    listen: "127.0.0.1:0"
    limits: {max_connections_per_ip: 64}
YAML
start_fsc "$tmp/fsc.yaml"
wait_exporter || exit 1
# Two scrapes: the body's size, and the first bodies made (RSS baseline).
body_bytes() {
    # curl fails (18) on a body shorter than its Content-Length.
    curl -s --max-time 10 -o "$tmp/body" -w '%{http_code} %{size_download}\n' \
        -H 'Accept-Encoding: identity' "http://127.0.0.1:$mport/metrics" >"$tmp/code" || return 1
    read -r code size <"$tmp/code"
    [ "$code" = 200 ] && [ "$size" -gt 0 ] && echo "$size"
}
check "the exposition grows past 10 MB" wait_until 100 eval \
    'b=$(body_bytes) && [ "$b" -gt 10000000 ]'
body=$(body_bytes)
body_bytes >/dev/null
rss0=$(fn_vm_hwm_kb "$fsc_pid")
echo "body $body bytes, peak RSS before $rss0 kB"

attack0=$(date +%s)
fn_spawn readers "$py" "$here/faults_slow_readers.py" --port "$mport" --count 48 --every-ms 300 \
    --hold-s 30
check "48 slow readers connected" wait_until 300 grep -q "^opened 48$" "$tmp/readers.out"
# A normal scrape while they hold their answers.
t0=$(date +%s%N)
got=$(body_bytes)
t1=$(date +%s%N)
check "a scrape during the attack is answered in full" [ -n "$got" ]
num_le "and within 10 s (ms)" $(((t1 - t0) / 1000000)) 10000
rss1=$(fn_vm_hwm_kb "$fsc_pid")
grown=$((rss1 - rss0))
bound=$((64 << 10))
echo "peak RSS after $rss1 kB: +$grown kB (bound $bound kB; 48 bodies would be $((48 * body / 1024)) kB)"
num_le "peak RSS growth under the bound (kB)" "$grown" "$bound"
check_log "slow readers dropped" "event=prom_scrape_reader_dropped"
attack_s=$(($(date +%s) - attack0 + 1))
check_eq "said at most once per 10 s" "$(grep -c 'event=prom_scrape_reader_dropped' "$tmp/fsc.log" |
    awk -v most=$((attack_s / 10 + 1)) '{print ($1 <= most) ? "ok" : $1}')" ok
cat "$tmp/readers.err"
fn_stop readers
fn_stop_fsc
summary
