#!/bin/sh
# The globals bin, tmp, fsc_pid, peer_pid and mport are shared with lib.sh.
# shellcheck disable=SC2034,SC2154
# NIC poller vs its peers, in one run: CPU per counter read of fabricscope's
# nic source, prometheus-node-exporter 1.5 and collectd 5.12 reading the same
# interfaces. One tool runs at a time, each under the same background load,
# so they do not compete for the (possibly few) cores.
#
# Part 1, fixture tree (fabricscope-nic-fixture: N interfaces x 100
# counter files, regular files on disk, advanced every 100 ms by a stepper):
#   ours           nic source, sysfs_root = the fixture, every INTERVAL ms
#   node_exporter  --path.sysfs=<fixture>/sys, infiniband + netclass collectors
#   collectd       not run: infiniband.so hard-codes /sys/class/infiniband
#                  (a format string and a glob in the binary, no option)
# Part 2, real kernel interfaces (root only): namespace A holds K veth ends
# (their peers in namespace B, so traffic really crosses the veths; with
# both ends in one namespace the kernel would deliver over lo), UDP flows
# A->B on every veth, and every tool runs inside A (ip netns exec):
#   ours           nic source, ethtool on, pcie off; the veths are listed as
#                  devices with a placeholder rdma name, because the config
#                  requires `rdma` (a netdev-only device does not exist);
#                  the RDMA directories are then absent and skipped
#   node_exporter  ethtool + netclass collectors, only the veths
#   collectd       ethstat + interface plugins, Interval = INTERVAL, only the
#                  veths, no write plugin (a PostCache chain that stops)
#
# Per tool: counters read per second from the tool's own output (a "counter"
# is one value the tool reports, whatever it is)
#   ours           fabricscope_nic_poll_counters x polls/s (self-metrics)
#   node_exporter  collector samples per scrape (node_infiniband_*,
#                  node_network_*, node_ethtool_*; not go_/process_/promhttp_/
#                  node_scrape_) x scrapes/s. Scrapes come from ONE curl
#                  process (--rate RATE/s, keep-alive, no gzip) whose own CPU
#                  is not counted; the achieved rate is reported (at 100/s
#                  node_exporter saturates a core and gets fewer).
#   collectd       values per interval (its unixsock LISTVAL: identifiers x
#                  data sources of their types.db type) x 1000/INTERVAL, the
#                  configured read rate. Whether it kept up: its "took ...
#                  above its read interval" warnings, the oldest value's age
#                  at the end, and (with perf) its syscalls counted for 3 s
#                  after the window: interface opens /proc/net/dev once per
#                  read, ethstat one socket per interface per read.
# and the process CPU (utime + stime of every thread, /proc/PID/stat) over
# the same fixed window of WINDOW seconds, after WARM seconds of warm-up:
# CPU ns per counter read and % of one core. Numbers, not pass/fail.
#
#   bench/nic_peers.sh [-b FABRICSCOPE] [-w WINDOW] [-i INTERVAL_MS]
#                      [-n FIXTURE_INTERFACES] [-k VETHS] [-r 'SCRAPE_RATES']
#                      [-p PARTS]
# Defaults: WINDOW 20, INTERVAL_MS 10, 16 interfaces, 16 veths, node_exporter
# scraped at 10/s and at 100/s (one row each), PARTS 12 (1, 2 or both; part
# 2 is skipped without root).
set -u
bin=build/collector/fabricscope
window=20
ival=10
devices=16
veths=16
rates="10 100"
parts=12
warm=3
usage="usage: $0 [-b FABRICSCOPE] [-w WINDOW] [-i INTERVAL_MS] [-n IFACES] [-k VETHS] [-r 'RATE...'] [-p PARTS]"
while getopts b:w:i:n:k:r:p: opt; do
    case $opt in
    b) bin=$OPTARG ;;
    w) window=$OPTARG ;;
    i) ival=$OPTARG ;;
    n) devices=$OPTARG ;;
    k) veths=$OPTARG ;;
    r) rates=$OPTARG ;;
    p) parts=$OPTARG ;;
    *) echo "$usage" >&2; exit 2 ;;
    esac
done
for v in "$window" "$ival" "$devices" "$veths" $rates; do
    case $v in '' | *[!0-9]*) echo "$usage (integers)" >&2; exit 2 ;; esac
done
[ "$ival" -ge 10 ] || { echo "the nic source polls every 10 ms at most" >&2; exit 2; }
if [ "$veths" -lt 1 ] || [ "$veths" -gt 200 ]; then echo "-k: 1..200" >&2; exit 2; fi
here=$(cd "$(dirname "$0")" && pwd)
fixture="$(dirname "$bin")/fabricscope-nic-fixture"
ne=$(command -v prometheus-node-exporter || command -v node_exporter || echo "")
cd_bin=$(command -v collectd || echo /usr/sbin/collectd)
cd_plugins=/usr/lib/collectd
types_db=/usr/share/collectd/types.db
# shellcheck source=tests/integration/lib.sh
. "$here/../tests/integration/lib.sh"
[ -x "$bin" ] || { echo "no fabricscope at $bin (-b)" >&2; exit 2; }
[ -x "$fixture" ] || { echo "no fabricscope-nic-fixture beside $bin (the default build makes it)" >&2; exit 2; }
lib_init

nsa="fscpeers-$$-a"
nsb="fscpeers-$$-b"
ns_made=0
ne_pid=""
curl_pid=""
cd_pid=""
traffic_pid=""
peers_cleanup() {
    for _p in $curl_pid $ne_pid $cd_pid $traffic_pid; do stop_pid "$_p" 30; done
    curl_pid=""
    ne_pid=""
    cd_pid=""
    traffic_pid=""
    if [ "$ns_made" = 1 ]; then
        ip netns del "$nsa" 2>/dev/null
        ip netns del "$nsb" 2>/dev/null
    fi
    lib_cleanup
}
trap peers_cleanup EXIT

hz=$(getconf CLK_TCK)
inns=""      # command prefix running a command inside namespace A (part 2)
rows="$tmp/rows"
: >"$rows"
notes="$tmp/notes"
: >"$notes"

ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }
now() { date +%s.%N; }
note() { echo "$*" >>"$notes"; }

# row PART TOOL RATE_TEXT VALUES_PER_CYCLE CYCLES SECONDS TICKS
row() {
    awk -v part="$1" -v tool="$2" -v rt="$3" -v per="$4" -v cyc="$5" -v secs="$6" \
        -v tk="$7" -v hz="$hz" 'BEGIN {
        cpu = tk / hz; vals = per * cyc
        ns = "-"
        if (vals > 0)
            ns = sprintf("%.0f", cpu / vals * 1e9)
        printf "| %s | %s | %s | %d | %.1f | %.0f | %.2f | %s |\n", part, tool, rt, per,
            cyc / secs, vals / secs, cpu / secs * 100, ns
    }' >>"$rows"
}

free_port() {
    python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# Our metrics, fetched in the tool's namespace.
fetch() { $inns curl -sf --max-time 10 "http://127.0.0.1:$mport/metrics" >"$tmp/metrics" 2>/dev/null; }

# ---- ours ---------------------------------------------------------------------------
# run_ours PART CONFIG: starts the daemon, measures, stops it.
run_ours() {
    : >"$tmp/fsc.log"
    $inns "$bin" run -c "$2" >"$tmp/fsc.out" 2>"$tmp/fsc.log" &
    fsc_pid=$!
    wait_exporter || return 1
    sleep "$warm"
    fetch || { fail "ours: no metrics"; return 1; }
    p0=$(series_value fabricscope_nic_polls_total source=peers)
    o0=$(series_value fabricscope_nic_poll_overruns_total source=peers)
    c0=$(ticks "$fsc_pid")
    t0=$(now)
    sleep "$window"
    c1=$(ticks "$fsc_pid")
    t1=$(now)
    fetch
    p1=$(series_value fabricscope_nic_polls_total source=peers)
    o1=$(series_value fabricscope_nic_poll_overruns_total source=peers)
    n=$(series_value fabricscope_nic_poll_counters source=peers)
    e=$(series_value fabricscope_nic_read_errors_total source=peers)
    stop_pid "$fsc_pid"
    fsc_pid=""
    secs=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", b - a }')
    row "$1" "fabricscope nic" "every ${ival} ms" "$n" "$((p1 - p0))" "$secs" "$((c1 - c0))"
    note "part $1 ours: counters_per_poll=$n polls=$((p1 - p0)) overruns=$((o1 - o0)) read_errors_total=$e"
}

# ---- node_exporter ------------------------------------------------------------------
# run_ne PART PORT ARGS...: starts node_exporter, scrapes it with one curl at
# up to $rate/s, measures, stops both.
run_ne() {
    _part=$1
    _port=$2
    shift 2
    : >"$tmp/ne.log"
    $inns "$ne" --web.listen-address="127.0.0.1:$_port" --collector.disable-defaults "$@" \
        >"$tmp/ne.log" 2>&1 &
    ne_pid=$!
    url="http://127.0.0.1:$_port/metrics"
    # shellcheck disable=SC2086 # $inns is a command prefix, split on purpose
    wait_until 100 $inns curl -sf -o /dev/null "$url" || {
        fail "node_exporter did not answer"
        cat "$tmp/ne.log"
        return 1
    }
    $inns curl -sf "$url" >"$tmp/ne.prom"
    : >"$tmp/scrapes"
    # One process, one keep-alive connection, at most $rate requests a second,
    # bounded by the request count (stopped after the window anyway).
    $inns curl -s --rate "${rate}/s" "$url?n=[1-$(((window + warm + 30) * rate))]" \
        -w '%{stderr}%{http_code} %{size_download}\n' >/dev/null 2>"$tmp/scrapes" &
    curl_pid=$!
    sleep "$warm"
    s0=$(grep -c '^200 ' "$tmp/scrapes")
    c0=$(ticks "$ne_pid")
    t0=$(now)
    sleep "$window"
    c1=$(ticks "$ne_pid")
    t1=$(now)
    s1=$(grep -c '^200 ' "$tmp/scrapes")
    stop_pid "$curl_pid" 20
    curl_pid=""
    bad=$(grep -vc '^200 ' "$tmp/scrapes")
    $inns curl -sf "$url" >"$tmp/ne.prom"
    stop_pid "$ne_pid"
    ne_pid=""
    per=$(grep -cE '^node_(infiniband|network|ethtool)_' "$tmp/ne.prom")
    all=$(grep -vc '^#' "$tmp/ne.prom")
    okc=$(grep -c '^node_scrape_collector_success{.*} 1$' "$tmp/ne.prom")
    nc=$(grep -c '^node_scrape_collector_success{' "$tmp/ne.prom")
    secs=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", b - a }')
    row "$_part" "node_exporter" "scraped at $(awk -v s=$((s1 - s0)) -v t="$secs" \
        'BEGIN { printf "%.1f", s / t }')/s (asked $rate/s)" "$per" "$((s1 - s0))" "$secs" "$((c1 - c0))"
    note "part $_part node_exporter: collector samples per scrape=$per (all samples $all)" \
        "collectors ok=$okc/$nc failed_scrapes=$bad bytes_per_scrape=$(wc -c <"$tmp/ne.prom")"
    [ "$rate" = "${rates##* }" ] && note "part $_part node_exporter families: $(grep -E '^node_(infiniband|network|ethtool)_' \
        "$tmp/ne.prom" | sed 's/[{ ].*//' | sort -u | tr '\n' ' ')"
}

# ---- part 1: fixture ----------------------------------------------------------------
part1() {
    root="$tmp/fx"
    "$fixture" init "$root" --devices "$devices" --cnp-rate 1000 --oos-rate 100 || return 1
    # 24 more hw_counters files per port (the optional per-flow and RoCE
    # counters of a CX-8), as bench/nic_poll_bench.sh: 100 files per port.
    extra="cc_rx_ce_pkts cc_rx_cnp_pkts cc_tx_cnp_pkts rdma_tx_packets rdma_tx_bytes
rdma_rx_packets rdma_rx_bytes roce_adp_retrans_extra bind_mw_errs lkey_violation_errs
rx_dct_ops req_rnr_naks resp_rnr_naks tx_atomic_requests tx_read_requests tx_write_requests
rx_send_requests tx_send_requests rx_atomic_errs rx_read_errs rx_write_errs tx_atomic_errs
tx_read_errs tx_write_errs"
    k=0
    while [ "$k" -lt "$devices" ]; do
        for x in $extra; do echo 0 >"$root/sys/class/infiniband/mlx5_$k/ports/1/hw_counters/$x"; done
        k=$((k + 1))
    done
    # Advances the fixture by 100 ms every 100 ms until the deadline.
    "$fixture" run "$root" --dt-ms 100 --steps $((60 * (window + warm + 15))) &
    peer_pid=$!
    cat >"$tmp/p1.yaml" <<YAML
sources:
  - name: peers
    type: nic
    interval: ${ival}ms
    sysfs_root: $root
    fixture: true
exporters:
  prometheus: {listen: "127.0.0.1:0"}
YAML
    inns=""
    run_ours 1 "$tmp/p1.yaml"
    if [ -n "$ne" ]; then
        for rate in $rates; do
            run_ne 1 "$(free_port)" --path.sysfs="$root/sys" --collector.infiniband \
                --collector.netclass
        done
    else
        note "part 1 node_exporter: not installed"
    fi
    echo "| 1 | collectd infiniband | not run: infiniband.so hard-codes /sys/class/infiniband | - | - | - | - | - |" >>"$rows"
    stop_pid "$peer_pid"
    peer_pid=""
}

# ---- part 2: veths in a namespace ---------------------------------------------------
part2() {
    if [ "$(id -u)" != 0 ] || ! command -v ip >/dev/null 2>&1; then
        note "part 2 skipped: needs root and iproute2"
        return 0
    fi
    ip netns add "$nsa" || return 1
    ns_made=1
    ip netns add "$nsb" || return 1
    for ns in "$nsa" "$nsb"; do
        ip netns exec "$ns" sh -c 'echo 1 >/proc/sys/net/ipv6/conf/all/disable_ipv6 &&
            echo 1 >/proc/sys/net/ipv6/conf/default/disable_ipv6' || return 1
        ip -n "$ns" link set lo up || return 1
    done
    k=0
    devs=""
    ifs=""
    while [ "$k" -lt "$veths" ]; do
        a=$((k / 250))
        b=$((k % 250))
        ip link add "pv$k" netns "$nsa" type veth peer name "pw$k" netns "$nsb" || return 1
        ip -n "$nsa" addr add "10.$((96 + a)).$b.1/30" dev "pv$k" || return 1
        ip -n "$nsb" addr add "10.$((96 + a)).$b.2/30" dev "pw$k" || return 1
        ip -n "$nsa" link set "pv$k" up || return 1
        ip -n "$nsb" link set "pw$k" up || return 1
        devs="$devs    - {rdma: nordma$k, netdev: pv$k}
"
        ifs="$ifs  Interface \"pv$k\"
"
        k=$((k + 1))
    done
    inns="ip netns exec $nsa"
    # shellcheck disable=SC2016 # expanded by eval
    check "veths up" wait_until 50 eval \
        '[ "$($inns cat /sys/class/net/pv$((veths - 1))/operstate)" = up ]'

    # Traffic on every veth for the whole part: 200 UDP datagrams of 1000
    # bytes a second per veth, A -> B (discarded in B: no listener there).
    cat >"$tmp/traffic.py" <<'PY'
import socket, sys, time
n, secs = int(sys.argv[1]), float(sys.argv[2])
dst = [("10.%d.%d.2" % (96 + k // 250, k % 250), 9) for k in range(n)]
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
payload = bytes(1000)
end = time.monotonic() + secs
nxt = time.monotonic()
while time.monotonic() < end:
    for d in dst:
        try:
            s.sendto(payload, d)
        except OSError:
            pass
    nxt += 0.005
    time.sleep(max(0.0, nxt - time.monotonic()))
PY
    $inns python3 "$tmp/traffic.py" "$veths" $((8 * (window + warm + 15))) &
    traffic_pid=$!
    txp() { $inns cat /proc/net/dev | awk '$1 == "pv0:" { print $11 }'; }
    tx0=$(txp)
    tt0=$(now)

    cat >"$tmp/p2.yaml" <<YAML
sources:
  - name: peers
    type: nic
    interval: ${ival}ms
    pcie: false
    ethtool: true
    devices:
$devs
exporters:
  prometheus: {listen: "127.0.0.1:0"}
YAML
    run_ours 2 "$tmp/p2.yaml"
    sleep 1
    if [ -n "$ne" ]; then
        for rate in $rates; do
            run_ne 2 19101 --collector.ethtool --collector.netclass \
                --collector.ethtool.device-include='^pv[0-9]+$' \
                --collector.netclass.ignored-devices='^(lo|pw[0-9]+)$'
            sleep 1
        done
    else
        note "part 2 node_exporter: not installed"
    fi
    sleep 1
    run_collectd
    note "part 2 traffic: pv0 sent $(awk -v a="$tx0" -v b="$(txp)" -v t0="$tt0" -v t1="$(now)" \
        'BEGIN { printf "%.0f", (b - a) / (t1 - t0) }') packets/s during the part (every veth alike)"
}

# ---- collectd -----------------------------------------------------------------------
run_collectd() {
    if [ ! -x "$cd_bin" ] || [ ! -f "$cd_plugins/ethstat.so" ]; then
        note "part 2 collectd: not installed"
        return 0
    fi
    mkdir -p "$tmp/cd"
    isec=$(awk -v i="$ival" 'BEGIN { printf "%.3f", i / 1000 }')
    cat >"$tmp/cd/collectd.conf" <<CONF
Hostname "bench"
FQDNLookup false
Interval $isec
BaseDir "$tmp/cd"
PIDFile "$tmp/cd/collectd.pid"
PluginDir "$cd_plugins"
TypesDB "$types_db"
AutoLoadPlugin false
LoadPlugin logfile
<Plugin logfile>
  LogLevel info
  File "$tmp/cd/log"
  Timestamp true
</Plugin>
LoadPlugin unixsock
<Plugin unixsock>
  SocketFile "$tmp/cd/sock"
  SocketGroup "$(id -gn)"
</Plugin>
LoadPlugin ethstat
<Plugin ethstat>
$ifs  MappedOnly false
</Plugin>
LoadPlugin interface
<Plugin interface>
  Interface "/^pv[0-9]+\$/"
  IgnoreSelected false
</Plugin>
# Write nothing, quietly: values are read, dispatched and cached (LISTVAL
# sees them), then the chain stops. Without this, every value list goes to
# the built-in write target, which finds no writer and logs an INFO line
# per dispatch (a file open and append each), a cost no real setup has.
PostCacheChain "PostCache"
<Chain "PostCache">
  Target "stop"
</Chain>
CONF
    cat >"$tmp/listval.py" <<'PY'
# LISTVAL over collectd's unix socket: prints "plugin values max_age_ms" per
# plugin, values = identifiers x data sources of their type (types.db).
import socket, sys, time
sock, types_db = sys.argv[1], sys.argv[2]
ds = {}
for line in open(types_db):
    f = line.split(None, 1)
    if len(f) == 2 and not f[0].startswith("#"):
        ds[f[0]] = len(f[1].split(","))
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.settimeout(5)
s.connect(sock)
s.sendall(b"LISTVAL\n")
f = s.makefile("r")
head = f.readline()
n = int(head.split()[0])
t_now = time.time()
per = {}
for _ in range(n):
    t, ident = f.readline().split(None, 1)
    parts = ident.strip().split("/")
    plugin, typ = parts[1].split("-")[0], parts[2].split("-")[0]
    c, age = per.get(plugin, (0, 0.0))
    per[plugin] = (c + ds.get(typ, 1), max(age, (t_now - float(t)) * 1000))
for p, (c, age) in sorted(per.items()):
    print(p, c, "%.0f" % age)
PY
    : >"$tmp/cd/log"
    $inns "$cd_bin" -f -C "$tmp/cd/collectd.conf" >"$tmp/cd/out" 2>&1 &
    cd_pid=$!
    wait_until 100 test -S "$tmp/cd/sock" || {
        fail "collectd did not open its socket"
        cat "$tmp/cd/out" "$tmp/cd/log"
        return 1
    }
    sleep "$warm"
    slow0=$(grep -c 'above its read interval' "$tmp/cd/log")
    c0=$(ticks "$cd_pid")
    t0=$(now)
    sleep "$window"
    c1=$(ticks "$cd_pid")
    t1=$(now)
    slow1=$(grep -c 'above its read interval' "$tmp/cd/log")
    python3 "$tmp/listval.py" "$tmp/cd/sock" "$types_db" >"$tmp/cd/listval" || fail "LISTVAL failed"
    # A check of the read rate, after the window (tracing costs a little):
    # syscalls counted in the kernel for 3 s. interface opens /proc/net/dev
    # once per read; ethstat opens one socket per interface per read.
    if command -v perf >/dev/null 2>&1 &&
        perf stat -x, -e syscalls:sys_enter_openat,syscalls:sys_enter_socket,syscalls:sys_enter_ioctl \
            -p "$cd_pid" -o "$tmp/cd/perf" -- sleep 3 2>/dev/null; then
        note "part 2 collectd read rate check (perf, 3 s after the window):" \
            "$(awk -F, -v k="$veths" '
                $3 ~ /openat/ { o = $1 } $3 ~ /socket/ { s = $1 } $3 ~ /ioctl/ { i = $1 }
                END { printf "openat/s=%.1f (interface reads/s) sockets/s/veth=%.1f (ethstat reads/s) ioctls/s/veth=%.1f", o / 3, s / 3 / k, i / 3 / k }' "$tmp/cd/perf")"
    else
        note "part 2 collectd read rate check: perf not usable here"
    fi
    stop_pid "$cd_pid"
    cd_pid=""
    per=$(awk '$1 == "ethstat" || $1 == "interface" { s += $2 } END { print s + 0 }' "$tmp/cd/listval")
    secs=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", b - a }')
    cycles=$(awk -v s="$secs" -v i="$ival" 'BEGIN { printf "%.0f", s * 1000 / i }')
    row 2 "collectd ethstat+interface" "Interval ${ival} ms (configured)" "$per" "$cycles" \
        "$secs" "$((c1 - c0))"
    note "part 2 collectd: values per interval by plugin (values, oldest age ms at the end):" \
        "$(tr '\n' ';' <"$tmp/cd/listval") slow-read warnings in the window: $((slow1 - slow0))" \
        "errors logged: $(grep -ciE 'error|fail' "$tmp/cd/log")"
    grep -iE 'error|fail|above its read' "$tmp/cd/log" | sed 's/^\[[^]]*\] //' | sort | uniq -c |
        sort -rn | head -n 3 | sed 's/^/part 2 collectd log: /' >>"$notes"
}

load0=$(cut -d' ' -f1-3 /proc/loadavg)
case $parts in *1*) part1 ;; esac
case $parts in *2*) part2 ;; esac

echo "machine: $(nproc) CPUs, $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1)," \
    "kernel $(uname -r); window ${window} s per tool after ${warm} s warm-up;" \
    "load average before $load0, after $(cut -d' ' -f1-3 /proc/loadavg)"
echo "node_exporter: $([ -n "$ne" ] && "$ne" --version 2>&1 | head -n 1)"
echo "collectd: $("$cd_bin" -h 2>&1 | sed -n 's/^collectd \([0-9.]*\).*/\1/p' | head -n 1)"
echo
echo "| part | tool | rate | counters per read cycle | cycles/s | counters/s | CPU % of a core | CPU ns per counter |"
echo "|---|---|---|---:|---:|---:|---:|---:|"
cat "$rows"
echo
cat "$notes"
[ "$fails" -eq 0 ]
