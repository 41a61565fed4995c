#!/bin/bash
# CPU per Prometheus scrape, side by side in one run: fabricscope (a replay
# source in instant mode), prometheus-node-exporter (textfile collector only)
# and collectd's write_prometheus (fed over its unixsock plugin), each serving
# about N series on 127.0.0.1.
#
#   bench/scrape_compare.sh [-b BIN] [-k K] [-m MS] [-r ROUNDS] [-i IDLE_S] [-s DIR] [N ...]
#
#   N         series each server should expose (default: 10000 100000)
#   -b        fabricscope binary (default: the newest build*/collector/fabricscope
#             outside *-san builds; the header names its build type)
#   -k        scrapes per batch (default 50); batches repeat until the server
#             has used -m ms of CPU, at most 20 batches
#   -m        CPU ms a measurement needs at least (default 1000: 100 ticks)
#   -r        rounds: each round measures every server once, in turn (default 3)
#   -i        seconds of the idle baseline, taken before and after the rounds (default 5)
#   -s DIR    save one scrape of each server per N there (N-server.txt)
#
# What is measured: the server process's utime+stime (/proc/PID/stat, all
# threads, clock ticks) across back-to-back scrapes by curl (batches of K over
# one keep-alive connection, like Prometheus), repeated until the server has
# used enough CPU for the tick to be ~1 %, plus 0.5 s for work that trails the
# last response (Go's GC), minus the idle rate measured over the idle windows
# times that wall time. Only the server's CPU is counted, never curl's.
# Scrapes ask for identity encoding (no Accept-Encoding), and again with
# "Accept-Encoding: gzip" (what Prometheus sends) for fabricscope and
# node_exporter; collectd's write_prometheus does not compress.
#
# Inputs: fabricscope gets a replay file of ports with 20 Junos-profile counters
# each, 11 samples 100 ms apart; fabricscope derives families from them (rates,
# utilization histograms, window peaks), so the number of ports is calibrated
# with two small runs until it *exposes* about N series. node_exporter reads a
# .prom file with N series of the same names and labels; collectd receives N
# PUTVAL values (type derive, one family per counter as in the others). The table reports exposed series
# (lines of one scrape not starting with '#'), not generated ones.
#
# Installs nothing (scripts/setup.sh --bench does): a missing tool is named and the
# script exits 2. Every process it starts is stopped by PID; every wait is
# bounded.
set -u

usage() {
    sed -n '7,18p' "$0" | sed 's/^# \{0,1\}//'
    exit 2
}

repo=$(cd "$(dirname "$0")/.." && pwd)
fsc_bin=""
scrapes=50
rounds=3
idle_s=5
save_dir=""
min_cpu_ms=1000
while getopts "b:k:r:i:m:s:h" opt; do
    case $opt in
    b) fsc_bin=$OPTARG ;;
    k) scrapes=$OPTARG ;;
    r) rounds=$OPTARG ;;
    i) idle_s=$OPTARG ;;
    s) save_dir=$OPTARG ;;
    m) min_cpu_ms=$OPTARG ;;
    *) usage ;;
    esac
done
shift $((OPTIND - 1))
sizes=("$@")
[ ${#sizes[@]} -eq 0 ] && sizes=(10000 100000)
for v in "$scrapes" "$rounds" "$idle_s" "$min_cpu_ms" "${sizes[@]}"; do
    case $v in
    '' | *[!0-9]*) echo "scrape_compare: '$v' is not a positive integer" >&2; usage ;;
    esac
    [ "$v" -gt 0 ] || { echo "scrape_compare: '$v' must be > 0" >&2; usage; }
done
for n in "${sizes[@]}"; do
    if [ "$n" -lt 200 ] || [ "$n" -gt 2000000 ]; then
        echo "scrape_compare: N=$n is outside 200..2000000" >&2
        exit 2
    fi
done

# ---- tools -----------------------------------------------------------------
missing=()
need() { # need COMMAND DEBIAN_PACKAGE
    command -v "$1" >/dev/null 2>&1 || missing+=("$1 (Debian package $2)")
}
need curl curl
need python3 python3
need getconf libc-bin
node_bin=$(command -v prometheus-node-exporter || command -v node_exporter || true)
[ -n "$node_bin" ] || missing+=("prometheus-node-exporter (Debian package prometheus-node-exporter)")
collectd_bin=$(command -v collectd || { [ -x /usr/sbin/collectd ] && echo /usr/sbin/collectd; } || true)
[ -n "$collectd_bin" ] || missing+=("collectd (Debian package collectd-core)")
plugdir=/usr/lib/collectd
typesdb=/usr/share/collectd/types.db
for f in "$plugdir/unixsock.so" "$plugdir/write_prometheus.so" "$typesdb"; do
    [ -e "$f" ] || missing+=("$f (Debian package collectd-core)")
done
# collectd-core only suggests the libraries its plugins link: write_prometheus
# needs libprotobuf-c1 and libmicrohttpd12, and fails to load without them.
if [ -e "$plugdir/write_prometheus.so" ] && command -v ldd >/dev/null 2>&1; then
    for lib in $(ldd "$plugdir/write_prometheus.so" 2>/dev/null | awk '/not found/ {print $1}'); do
        case $lib in
        libprotobuf-c.so.*) pkg=libprotobuf-c1 ;;
        libmicrohttpd.so.*) pkg=libmicrohttpd12 ;;
        *) pkg="the package that ships it" ;;
        esac
        missing+=("$lib for write_prometheus.so (Debian package $pkg)")
    done
fi
if [ -z "$fsc_bin" ]; then
    # shellcheck disable=SC2012,SC2010 # newest build wins; paths are the repo's own
    fsc_bin=$(ls -t "$repo"/build*/collector/fabricscope 2>/dev/null | grep -v -- '-san/' | head -1)
fi
if [ -z "$fsc_bin" ] || [ ! -x "$fsc_bin" ]; then
    missing+=("fabricscope binary (build it: cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo && make -C build fabricscope; or pass -b)")
fi
if [ ${#missing[@]} -ne 0 ]; then
    echo "scrape_compare: missing:" >&2
    printf '  %s\n' "${missing[@]}" >&2
    echo "scripts/setup.sh --bench installs the Debian packages." >&2
    exit 2
fi
hz=$(getconf CLK_TCK)

tmp=$(mktemp -d /tmp/scrape_compare.XXXXXX)
pids=()
cleanup() {
    for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done
    for p in "${pids[@]}"; do wait "$p" 2>/dev/null; done
    rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

die() {
    echo "scrape_compare: $*" >&2
    exit 1
}

# stop PID: TERM, up to 10 s, then KILL.
stop() {
    local p=$1 i=0
    kill "$p" 2>/dev/null
    while [ $i -lt 100 ] && kill -0 "$p" 2>/dev/null; do
        sleep 0.1
        i=$((i + 1))
    done
    kill -9 "$p" 2>/dev/null
    wait "$p" 2>/dev/null
    local keep=()
    for q in "${pids[@]}"; do [ "$q" = "$p" ] || keep+=("$q"); done
    pids=("${keep[@]}")
}

free_port() {
    python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# cpu_ticks PID: utime+stime of every thread, live and exited (fields 14, 15;
# the comm field may hold spaces, so cut after its closing parenthesis).
cpu_ticks() {
    sed 's/^.*) //' "/proc/$1/stat" | awk '{print $12 + $13}'
}

# series URL [ACCEPT_ENCODING]: samples in one scrape (lines not starting with '#').
series() {
    curl -sf --max-time 60 "$1" 2>/dev/null | grep -cv '^#\|^$'
}

# wait_stable URL MIN [SECONDS]: waits (bounded, default 180 s) until the
# series count is at least MIN and unchanged over 1 s; prints it.
wait_stable() {
    local url=$1 min=$2 bound=${3:-180} prev=-1 cur i=0
    while [ $i -lt "$bound" ]; do
        cur=$(series "$url")
        cur=${cur:-0}
        if [ "$cur" -ge "$min" ] && [ "$cur" -eq "$prev" ]; then
            echo "$cur"
            return 0
        fi
        prev=$cur
        sleep 1
        i=$((i + 1))
    done
    echo "$prev"
    return 1
}

# ---- inputs ------------------------------------------------------------------
# gen KIND PORTS FILE: KIND fsc (replay file), node (.prom), collectd (PUTVAL).
# Ports are grouped 64 to a device (leafD, et-0/0/P), 20 counters each.
gen() {
    python3 - "$@" <<'PY'
import random, sys
kind, ports, path = sys.argv[1], int(sys.argv[2]), sys.argv[3]
rng = random.Random(20261130)
names = ["rx_bytes", "tx_bytes", "rx_packets", "tx_packets", "rx_unicast_packets",
         "tx_unicast_packets", "rx_multicast_packets", "tx_multicast_packets",
         "rx_broadcast_packets", "tx_broadcast_packets", "rx_errors", "tx_errors",
         "rx_discards", "tx_discards", "rx_fcs_errors", "rx_pause_frames",
         "tx_pause_frames", "carrier_transitions", "ecn_marked_packets", "ecn_marked_bytes"]
STEPS = 11  # samples 100 ms apart: 1 s of history, so rates and windows exist

def port_series(p):
    """Yields (name, list of STEPS cumulative values) for port p."""
    per100 = {}
    for d in ("rx", "tx"):
        u = rng.uniform(0.05, 0.6)  # share of 400G line rate
        per100[d] = 400e9 / 8 * 0.1 * u
    out = []
    for n in names:
        d = n[:2]
        start = rng.randrange(1 << 40)
        v, vals = start, []
        for k in range(STEPS):
            if k:
                if n.endswith("bytes") and d in per100:
                    inc = per100[d] * rng.uniform(0.8, 1.2)
                elif n.endswith("packets") and d in per100:
                    inc = per100[d] / 1000 * rng.uniform(0.8, 1.2)
                    inc *= {"unicast": 0.98, "multicast": 0.015, "broadcast": 0.005}.get(n.split("_")[1], 1)
                elif n == "ecn_marked_bytes":
                    inc = rng.uniform(0, 2e6)
                elif n == "ecn_marked_packets":
                    inc = rng.uniform(0, 2e3)
                elif n == "carrier_transitions":
                    inc = 0
                else:  # errors, discards, pause frames: rare
                    inc = rng.choice((0, 0, 0, 0, 1, 3))
                v += int(inc)
            vals.append(v)
        out.append(("fabric_port_" + n + "_total" if n != "carrier_transitions"
                    else "fabric_port_carrier_transitions_total", n, vals))
    return out

with open(path, "w") as f:
    if kind == "node":
        rows = {}
        for p in range(ports):
            dev, port = f"leaf{p // 64 + 1}", f"et-0/0/{p % 64}"
            for metric, _, vals in port_series(p):
                rows.setdefault(metric, []).append(
                    f'{metric}{{device="{dev}",port="{port}"}} {vals[-1]}\n')
        for metric, lines in rows.items():
            f.write(f"# HELP {metric} Port counter.\n# TYPE {metric} counter\n")
            f.writelines(lines)
    elif kind == "collectd":
        for p in range(ports):
            dev, port = f"leaf{p // 64 + 1}", f"et-0-0-{p % 64}"
            # One family per counter, as in the other two: write_prometheus
            # names a family after plugin and type, so the counter is the
            # plugin and the port its instance. Taking values into one family
            # costs collectd time quadratic in the family's size (measured:
            # 100 k values in one family had not all appeared after 3 min;
            # 20 families of 5 k appear in ~50 s).
            for _, short, vals in port_series(p):
                f.write(f"PUTVAL {dev}/{short}-{port}/derive interval=10 N:{vals[-1]}\n")
    else:
        series = []
        for p in range(ports):
            dev, port = f"leaf{p // 64 + 1}", f"et-0/0/{p % 64}"
            for metric, _, vals in port_series(p):
                series.append((f'{metric}{{device="{dev}",port="{port}"}}', vals))
        for k in range(STEPS):
            t = k * 100
            f.writelines(f"{t} {s} {vals[k]}\n" for s, vals in series)
PY
}

# ---- servers -----------------------------------------------------------------
# start_fsc DIR REPLAY: starts fabricscope; sets fsc_pid and fsc_port.
start_fsc() {
    local dir=$1
    cat >"$dir/fsc.yaml" <<YAML
sources:
  - name: bench
    type: replay
    file: $2
    mode: instant
    max_series: 16777216
exporters:
  prometheus:
    listen: "127.0.0.1:0"
    stale_after: 24h
YAML
    "$fsc_bin" run -c "$dir/fsc.yaml" 2>"$dir/fsc.log" &
    fsc_pid=$!
    pids+=("$fsc_pid")
    fsc_port=""
    local i=0
    while [ $i -lt 300 ] && [ -z "$fsc_port" ] && kill -0 "$fsc_pid" 2>/dev/null; do
        fsc_port=$(sed -n 's/.*event=exporter_started exporter=prometheus .* port=\([0-9]*\).*/\1/p' "$dir/fsc.log")
        [ -n "$fsc_port" ] || sleep 0.1
        i=$((i + 1))
    done
    [ -n "$fsc_port" ] || { cut -c1-300 "$dir/fsc.log" | tail -5 >&2; die "fabricscope did not start its exporter"; }
}

# fsc_exposed PORTS: series a fabricscope fed PORTS ports exposes.
fsc_exposed() {
    local d="$tmp/cal$1"
    mkdir -p "$d"
    gen fsc "$1" "$d/bench.replay"
    start_fsc "$d" "$d/bench.replay"
    local got
    got=$(wait_stable "http://127.0.0.1:$fsc_port/metrics" 1) || die "fabricscope ($1 ports) did not settle"
    stop "$fsc_pid"
    rm -rf "$d"
    echo "$got"
}

start_node() {
    local dir=$1
    node_port=$(free_port)
    "$node_bin" --collector.disable-defaults --collector.textfile \
        --collector.textfile.directory="$dir/textfile" --web.disable-exporter-metrics \
        --web.listen-address="127.0.0.1:$node_port" --log.level=warn >"$dir/node.log" 2>&1 &
    node_pid=$!
    pids+=("$node_pid")
}

start_collectd() {
    local dir=$1
    collectd_port=$(free_port)
    mkdir -p "$dir/collectd"
    # Interval 10 s as collectd's default; Timeout (in intervals) far beyond the
    # run so the fed values never go "missing" (write_prometheus drops those).
    cat >"$dir/collectd.conf" <<CONF
Hostname "bench"
FQDNLookup false
BaseDir "$dir/collectd"
PIDFile "$dir/collectd/collectd.pid"
PluginDir "$plugdir"
TypesDB "$typesdb"
AutoLoadPlugin false
Interval 10
Timeout 100000
LoadPlugin logfile
<Plugin logfile>
  LogLevel info
  File "$dir/collectd.log"
</Plugin>
LoadPlugin unixsock
<Plugin unixsock>
  SocketFile "$dir/collectd.sock"
  SocketGroup "$(id -gn)"
  SocketPerms "0600"
</Plugin>
LoadPlugin write_prometheus
<Plugin write_prometheus>
  Host "127.0.0.1"
  Port "$collectd_port"
</Plugin>
CONF
    "$collectd_bin" -f -C "$dir/collectd.conf" >"$dir/collectd.out" 2>&1 &
    collectd_pid=$!
    pids+=("$collectd_pid")
    local i=0
    while [ $i -lt 100 ] && [ ! -S "$dir/collectd.sock" ]; do
        kill -0 "$collectd_pid" 2>/dev/null || break
        sleep 0.1
        i=$((i + 1))
    done
    [ -S "$dir/collectd.sock" ] || { tail -5 "$dir/collectd.out" "$dir/collectd.log" >&2; die "collectd did not open its unixsock socket"; }
}

# feed_collectd SOCKET FILE: sends the PUTVAL lines, 500 per exchange, and
# checks every answer ("0 Success: ..."); bounded by a 120 s socket timeout.
feed_collectd() {
    python3 - "$1" "$2" <<'PY'
import socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.settimeout(120)
s.connect(sys.argv[1])
r = s.makefile("rb")
lines = open(sys.argv[2], "rb").read().splitlines(keepends=True)
for i in range(0, len(lines), 500):
    chunk = lines[i:i + 500]
    s.sendall(b"".join(chunk))
    for line in chunk:
        answer = r.readline()
        if not answer.startswith(b"0 "):
            sys.exit(f"collectd answered {answer!r} to {line!r}")
s.close()
PY
}

# ---- measurement ---------------------------------------------------------------
# measure LABEL PID URL HEADER_OR_EMPTY: batches of K scrapes until the server
# has used min_cpu_ms of CPU (at most 20 batches), so that the 1-tick
# resolution of /proc/PID/stat stays near 1 %; appends one record to $rec.
measure() {
    local label=$1 pid=$2 url=$3 hdr=$4 args=() i b c0 c1 t0 t1
    for ((i = 0; i < scrapes; i++)); do args+=(-o /dev/null "$url"); done
    [ -n "$hdr" ] && args=(-H "$hdr" "${args[@]}")
    : >"$tmp/curl.out"
    c0=$(cpu_ticks "$pid")
    t0=$EPOCHREALTIME
    for ((b = 0; b < 20; b++)); do
        curl -s --max-time 600 -w '%{http_code} %{size_download} %{time_total}\n' "${args[@]}" \
            >>"$tmp/curl.out" || die "$label: curl failed"
        [ $(($(cpu_ticks "$pid") - c0)) -ge $((min_cpu_ms * hz / 1000)) ] && break
    done
    sleep 0.5
    c1=$(cpu_ticks "$pid")
    t1=$EPOCHREALTIME
    awk -v n="$n" -v l="$label" -v r="$round" -v c=$((c1 - c0)) \
        -v w="$(awk -v a="$t0" -v b="$t1" 'BEGIN {print b - a}')" '
        $1 != 200 { bad++ } { bytes += $2; secs += $3; cnt++ }
        END { if (bad || cnt == 0) { print "bad " l > "/dev/stderr"; exit 1 }
              printf "%s\t%s\t%s\t%d\t%d\t%.6f\t%.0f\t%.6f\n", n, l, r, cnt, c, w, bytes / cnt, secs / cnt }' \
        "$tmp/curl.out" >>"$rec" || die "$label: a scrape did not answer 200"
}

# idle_window: ticks of each server over idle_s seconds, appended to $idle.
idle_window() {
    local a1 a2 a3 b1 b2 b3 t0 t1
    a1=$(cpu_ticks "$fsc_pid"); a2=$(cpu_ticks "$node_pid"); a3=$(cpu_ticks "$collectd_pid")
    t0=$EPOCHREALTIME
    sleep "$idle_s"
    b1=$(cpu_ticks "$fsc_pid"); b2=$(cpu_ticks "$node_pid"); b3=$(cpu_ticks "$collectd_pid")
    t1=$EPOCHREALTIME
    local w
    w=$(awk -v a="$t0" -v b="$t1" 'BEGIN {print b - a}')
    printf '%s\tfabricscope\t%d\t%s\n%s\tnode_exporter\t%d\t%s\n%s\tcollectd\t%d\t%s\n' \
        "$n" $((b1 - a1)) "$w" "$n" $((b2 - a2)) "$w" "$n" $((b3 - a3)) "$w" >>"$idle"
}

rec="$tmp/records.tsv"
idle="$tmp/idle.tsv"
meta="$tmp/meta.tsv"
: >"$rec"
: >"$idle"
: >"$meta"

echo "scrape_compare: $(date -u +%Y-%m-%dT%H:%MZ), $(nproc) CPUs, CLK_TCK=$hz, batches of $scrapes scrapes until ${min_cpu_ms} ms CPU (max 20) x $rounds rounds, idle 2x${idle_s}s"
fsc_type=$(sed -n 's/^CMAKE_BUILD_TYPE:[A-Z]*=//p' "$(dirname "$fsc_bin")/../CMakeCache.txt" 2>/dev/null)
echo "  fabricscope:   $fsc_bin ($("$fsc_bin" version 2>&1 | head -1), build type ${fsc_type:-unknown})"
echo "  node_exporter: $("$node_bin" --version 2>&1 | head -1)"
echo "  collectd:      $("$collectd_bin" -h 2>&1 | sed -n 's/^collectd \([0-9][^,]*\),.*/\1/p' | head -1)$(dpkg-query -W -f=' (collectd-core ${Version})' collectd-core 2>/dev/null)"

# Calibration: the exposed series of fabricscope grow linearly with ports.
e1=$(fsc_exposed 8)
e2=$(fsc_exposed 16)
per_port=$(((e2 - e1) / 8))
fixed=$((e1 - 8 * per_port))
[ "$per_port" -gt 0 ] || die "calibration failed: 8 ports -> $e1 series, 16 ports -> $e2"
echo "  calibration: fabricscope exposes $per_port series per port of 20 counters + $fixed fixed"

for n in "${sizes[@]}"; do
    dir="$tmp/n$n"
    mkdir -p "$dir/textfile"
    fsc_ports=$(((n - fixed + per_port / 2) / per_port))
    [ "$fsc_ports" -ge 1 ] || fsc_ports=1
    raw_ports=$(((n + 10) / 20))
    echo "N=$n: generating (fabricscope $fsc_ports ports = $((fsc_ports * 20)) counters; others $raw_ports ports = $((raw_ports * 20)) series)"
    gen fsc "$fsc_ports" "$dir/bench.replay"
    gen node "$raw_ports" "$dir/textfile/.bench.prom.tmp"
    mv "$dir/textfile/.bench.prom.tmp" "$dir/textfile/bench.prom"
    gen collectd "$raw_ports" "$dir/putval.txt"

    start_fsc "$dir" "$dir/bench.replay"
    start_node "$dir"
    start_collectd "$dir"
    t_feed=$EPOCHREALTIME
    feed_collectd "$dir/collectd.sock" "$dir/putval.txt" || die "feeding collectd failed"

    fsc_url="http://127.0.0.1:$fsc_port/metrics"
    node_url="http://127.0.0.1:$node_port/metrics"
    cd_url="http://127.0.0.1:$collectd_port/metrics"
    s_fsc=$(wait_stable "$fsc_url" $((n / 2))) || die "fabricscope did not settle (last count $s_fsc)"
    s_node=$(wait_stable "$node_url" "$((raw_ports * 20))") || die "node_exporter did not serve the textfile (last count $s_node)"
    s_cd=$(wait_stable "$cd_url" "$((raw_ports * 20))" 600) || { tail -5 "$dir/collectd.log" >&2; die "collectd did not expose the fed values (last count $s_cd)"; }
    echo "  servers ready; collectd took $(awk -v a="$t_feed" -v b="$EPOCHREALTIME" 'BEGIN {printf "%.0f", b - a}') s from the first PUTVAL to a stable exposition"
    printf '%s\tfabricscope\t%s\t%s\n%s\tfabricscope gzip\t%s\t%s\n%s\tnode_exporter\t%s\t%s\n%s\tnode_exporter gzip\t%s\t%s\n%s\tcollectd\t%s\t%s\n' \
        "$n" $((fsc_ports * 20)) "$s_fsc" "$n" $((fsc_ports * 20)) "$s_fsc" \
        "$n" $((raw_ports * 20)) "$s_node" "$n" $((raw_ports * 20)) "$s_node" \
        "$n" $((raw_ports * 20)) "$s_cd" >>"$meta"

    if [ -n "$save_dir" ]; then
        mkdir -p "$save_dir" || die "cannot create $save_dir"
        curl -sf -o "$save_dir/$n-fabricscope.txt" "$fsc_url"
        curl -sf -o "$save_dir/$n-node_exporter.txt" "$node_url"
        curl -sf -o "$save_dir/$n-collectd.txt" "$cd_url"
    fi
    # Warm-up: the first scrapes pay for buffers and page faults once.
    for u in "$fsc_url" "$node_url" "$cd_url"; do
        curl -s -o /dev/null -o /dev/null "$u" "$u" || die "warm-up scrape of $u failed"
    done
    for u in "$fsc_url" "$node_url"; do
        curl -s -o /dev/null -o /dev/null -H 'Accept-Encoding: gzip' "$u" "$u"
    done

    round=0
    idle_window
    for ((round = 1; round <= rounds; round++)); do
        measure fabricscope "$fsc_pid" "$fsc_url" ""
        measure "fabricscope gzip" "$fsc_pid" "$fsc_url" "Accept-Encoding: gzip"
        measure node_exporter "$node_pid" "$node_url" ""
        measure "node_exporter gzip" "$node_pid" "$node_url" "Accept-Encoding: gzip"
        measure collectd "$collectd_pid" "$cd_url" ""
    done
    idle_window
    stop "$fsc_pid"
    stop "$node_pid"
    stop "$collectd_pid"
    rm -rf "$dir"
done

python3 - "$rec" "$idle" "$meta" "$hz" <<'PY'
import sys
from collections import defaultdict
rec, idle, meta, hz = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
idle_t, idle_w = defaultdict(int), defaultdict(float)
for line in open(idle):
    n, srv, ticks, w = line.rstrip("\n").split("\t")
    idle_t[(n, srv)] += int(ticks)
    idle_w[(n, srv)] += float(w)
info = {}
for line in open(meta):
    n, label, gen, exp = line.rstrip("\n").split("\t")
    info[(n, label)] = (int(gen), int(exp))
runs = defaultdict(list)
order = []
for line in open(rec):
    n, label, r, k, ticks, wall, nbytes, secs = line.rstrip("\n").split("\t")
    if (n, label) not in runs:
        order.append((n, label))
    runs[(n, label)].append((int(k), int(ticks), float(wall), float(nbytes), float(secs)))

def ms_per_scrape(n, label):
    srv = label.split()[0]
    rate = idle_t[(n, srv)] / idle_w[(n, srv)] if idle_w[(n, srv)] else 0.0  # ticks/s
    per = [((t - rate * w) / hz * 1000 / k) for k, t, w, _, _ in runs[(n, label)]]
    k_all = sum(r[0] for r in runs[(n, label)])
    t_all = sum(r[1] - rate * r[2] for r in runs[(n, label)])
    return t_all / hz * 1000 / k_all, min(per), max(per), rate / hz * 1000

print()
# The ratios compare like with like: a gzip row with fabricscope gzip, the
# others with fabricscope identity.
print("| N | server | generated | series exposed | bytes/scrape | wall ms/scrape | CPU ms/scrape (min–max of rounds) | ns CPU/series | × fabricscope per scrape | × fabricscope per series |")
print("|---|---|---|---|---|---|---|---|---|---|")
for n, label in order:
    gen, exp = info[(n, label)]
    ms, lo, hi, idle_ms = ms_per_scrape(n, label)
    rs = runs[(n, label)]
    nbytes = sum(r[3] for r in rs) / len(rs)
    wall = sum(r[4] for r in rs) / len(rs) * 1000
    ns = ms * 1e6 / exp
    ref = "fabricscope gzip" if label.endswith("gzip") else "fabricscope"
    fms, _, _, _ = ms_per_scrape(n, ref)
    fns = fms * 1e6 / info[(n, ref)][1]
    ratio = lambda a, b: f"{a / b:.2f}" if b > 0 else "n/a"
    print(f"| {int(n):,} | {label} | {gen:,} | {exp:,} | {nbytes:,.0f} | {wall:.2f} | "
          f"{ms:.2f} ({lo:.2f}–{hi:.2f}) | {ns:.0f} | {ratio(ms, fms)} | {ratio(ns, fns)} |".replace(",", " "))
print()
for (n, srv), t in sorted(idle_t.items(), key=lambda x: (int(x[0][0]), x[0][1])):
    print(f"idle N={n} {srv}: {t} ticks in {idle_w[(n, srv)]:.1f} s "
          f"({t / hz * 1000 / idle_w[(n, srv)]:.2f} ms CPU per s, subtracted)")
for n, label in order:
    k_all = sum(r[0] for r in runs[(n, label)])
    print(f"N={n} {label}: {k_all} scrapes in {len(runs[(n, label)])} rounds, "
          f"1 tick = {1000 / hz / k_all * 1000:.1f} µs per scrape")
PY
