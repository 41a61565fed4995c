#!/bin/sh
# Soak: the demo fabric's kinds of sources at about 10x the demo's rates
# (collector/demo/demo_config.c), for a while, on the real daemon; reports
# the RSS slope, CPU and error lines. Built from a generated config (the
# demo itself is not changed):
#   - 2 gNMI leaves on gnmi_sim (tests/sim), 32 ports each, a 100 ms
#     line-rate burst every 2 s on port 1: interfaces every 10 ms (demo:
#     100 ms / 1 s), queues every 200 ms (2 s), the rest every 200 ms / 1 s;
#   - an OTLP/gRPC spine fed by bench/otlp_load (4 devices x 32 interfaces
#     x 4 metrics at 5120 points/s, i.e. each series every 100 ms);
#   - 2 synthetic leaves at 10 ms (16 ports, bursts, CNP storms) in place of
#     the demo's NIC nodes at 100 ms;
#   - the rollup store (state_dir in the scratch directory) and a scrape of
#     /metrics and /api/status every 2 s.
# RSS (VmRSS) is read from /proc every 5 s. The slope is a least-squares fit
# over the second half of the run (the first half includes warm-up: series
# creation, window rings filling, allocator arenas), in KiB per minute; CPU
# is the daemon's user + system time over the run / wall time. Errors: log
# lines at level=error plus sanitizer reports (ASan, UBSan, LeakSanitizer at
# exit) in the daemon's stderr, and failed scrapes.
#
#   bench/soak.sh BUILD_DIR SECONDS [GROWTH_BOUND_KIB]
#
# BUILD_DIR holds collector/fabricscope, tests/sim/gnmi_sim and
# bench/otlp_load (a RelWithDebInfo or Sanitize build). With
# GROWTH_BOUND_KIB the exit status is 1 when there was an error or the RSS
# grew by more than that over the second half (faults.soak_short); without
# it, the figures are printed and the status is 0 unless the run failed.
# ASAN_OPTIONS gets quarantine_size_mb=16 (ASan keeps freed blocks up to its
# quarantine size, 256 MiB by default, which would show as growth).
# The last line is machine-readable:
#   soak: seconds=S rss_start_kib=A rss_end_kib=B rss_mid_kib=M
#         growth_second_half_kib=G slope_kib_per_min=K cpu_pct=C errors=E
set -u
build=${1:?usage: soak.sh BUILD_DIR SECONDS [GROWTH_BOUND_KIB]}
secs=${2:?usage: soak.sh BUILD_DIR SECONDS [GROWTH_BOUND_KIB]}
bound=${3:-}
bin=$build/collector/fabricscope
sim=$build/tests/sim/gnmi_sim
load=$build/bench/otlp_load
for f in "$bin" "$sim" "$load"; do
    [ -x "$f" ] || {
        echo "soak: $f missing (build fabricscope, gnmi_sim and otlp_load)" >&2
        exit 2
    }
done
ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}quarantine_size_mb=16"
export ASAN_OPTIONS

tmp=$(mktemp -d) || exit 2
pids=""
fsc=""
cleanup() {
    for p in $pids $fsc; do kill "$p" 2>/dev/null; done
    for p in $pids $fsc; do
        n=0
        while kill -0 "$p" 2>/dev/null && [ "$n" -lt 50 ]; do
            sleep 0.1
            n=$((n + 1))
        done
        kill -KILL "$p" 2>/dev/null
        wait "$p" 2>/dev/null
    done
    rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

# Prints N of the first `PREFIX=N` of FILE (10 s at most).
port_of() {
    n=0
    while [ "$n" -lt 100 ]; do
        v=$(sed -n "$2" "$1" 2>/dev/null | head -n 1)
        [ -n "$v" ] && {
            echo "$v"
            return 0
        }
        sleep 0.1
        n=$((n + 1))
    done
    return 1
}

simdur=$((secs + 120))
for i in 1 2; do
    "$sim" --listen 127.0.0.1:0 --os junos --ports 32 --interval 10ms --utilization 0.3 --burst-port 1 \
        --burst-every 2s --burst-length 100ms --duration "${simdur}s" --seed "$i" \
        >"$tmp/sim$i.out" 2>"$tmp/sim$i.err" &
    pids="$pids $!"
    port=$(port_of "$tmp/sim$i.out" 's/^listening port=\([0-9]*\)$/\1/p') || {
        echo "soak: gnmi_sim $i did not start" >&2
        exit 2
    }
    eval "sim_port$i=$port"
done

# shellcheck disable=SC2154 # sim_port1/2 are set by the eval above
cat >"$tmp/soak.yaml" <<EOF
state_dir: $tmp/state
sources:
  - name: leaf1
    type: gnmi
    address: "127.0.0.1:$sim_port1"
    streams:
      - {name: interfaces, paths: [/interfaces/interface/state/counters], sample_interval: 10ms}
      - name: queues
        paths: [/qos/interfaces/interface/output/queues/queue/state, /junos/system/linecard/qmon-sw/]
        sample_interval: 200ms
      - name: rest
        paths: [/interfaces/interface/ethernet/state/counters, /junos/system/linecard/interface/]
        sample_interval: 1s
  - name: leaf2
    type: gnmi
    address: "127.0.0.1:$sim_port2"
    streams:
      - {name: interfaces, paths: [/interfaces/interface/state/counters], sample_interval: 10ms}
      - name: queues
        paths: [/qos/interfaces/interface/output/queues/queue/state, /junos/system/linecard/qmon-sw/]
        sample_interval: 200ms
      - name: rest
        paths: [/interfaces/interface/ethernet/state/counters, /junos/system/linecard/interface/]
        sample_interval: 200ms
  - {name: spines, type: otlp, grpc_listen: "127.0.0.1:0", http_listen: ""}
  - {name: nic1, type: synthetic, device: node1, ports: 16, interval: 10ms, burst_every: 3s,
     burst_length: 50ms, storm_every: 7s, seed: 1}
  - {name: nic2, type: synthetic, device: node2, ports: 16, interval: 10ms, burst_every: 5s,
     burst_length: 50ms, storm_every: 11s, seed: 2}
exporters:
  prometheus: {listen: "127.0.0.1:0"}
EOF

"$bin" run -c "$tmp/soak.yaml" >"$tmp/fsc.out" 2>"$tmp/fsc.log" &
fsc=$!
mport=$(port_of "$tmp/fsc.log" 's/.*event=exporter_started exporter=prometheus .* port=\([0-9]*\).*/\1/p') || {
    echo "soak: fabricscope did not start" >&2
    cut -c1-300 "$tmp/fsc.log" >&2
    exit 2
}
gport=$(port_of "$tmp/fsc.log" 's/.*event=otlp_listening transport=grpc port=\([0-9]*\).*/\1/p') || {
    echo "soak: no OTLP/gRPC listener" >&2
    exit 2
}
"$load" --grpc "127.0.0.1:$gport" --devices 4 --interfaces 32 --metrics 4 --rate 5120 \
    --duration "$((secs + 60))" >"$tmp/load.out" 2>"$tmp/load.err" &
pids="$pids $!"

cpu_ticks() { awk '{print $14 + $15}' "/proc/$1/stat" 2>/dev/null; }
hz=$(getconf CLK_TCK)
t0=$(date +%s)
c0=$(cpu_ticks "$fsc")
: >"$tmp/rss"
scrape_fail=0
next_rss=0
i=0
while [ "$i" -lt $((secs / 2)) ]; do
    kill -0 "$fsc" 2>/dev/null || break
    now=$(($(date +%s) - t0))
    [ "$now" -ge "$secs" ] && break
    if [ "$now" -ge "$next_rss" ]; then
        echo "$now $(awk '/^VmRSS:/ {print $2}' "/proc/$fsc/status")" >>"$tmp/rss"
        next_rss=$((next_rss + 5))
    fi
    curl -sf --max-time 10 "http://127.0.0.1:$mport/metrics" >"$tmp/metrics" ||
        scrape_fail=$((scrape_fail + 1))
    curl -sf --max-time 10 -o /dev/null "http://127.0.0.1:$mport/api/status" ||
        scrape_fail=$((scrape_fail + 1))
    sleep 2
    i=$((i + 1))
done
alive=1
kill -0 "$fsc" 2>/dev/null || alive=0
c1=$(cpu_ticks "$fsc")
wall=$(($(date +%s) - t0))
echo "$wall $(awk '/^VmRSS:/ {print $2}' "/proc/$fsc/status" 2>/dev/null)" >>"$tmp/rss"
samples=$(awk '/^fabricscope_samples_total / {print $NF}' "$tmp/metrics")
kill "$fsc"
n=0
while kill -0 "$fsc" 2>/dev/null && [ "$n" -lt 300 ]; do
    sleep 0.1
    n=$((n + 1))
done
wait "$fsc"
rc=$?
fsc=""

errors=$(grep -Ec 'level=error|ERROR: AddressSanitizer|runtime error:|ERROR: LeakSanitizer' \
    "$tmp/fsc.log")
if [ "$errors" -gt 0 ]; then
    echo "--- error lines ---"
    grep -E 'level=error|ERROR: AddressSanitizer|runtime error:|ERROR: LeakSanitizer' \
        "$tmp/fsc.log" | cut -c1-300 | head -20
fi
echo "RSS (s KiB): $(tr '\n' ',' <"$tmp/rss")"
echo "samples ingested (last scrape): ${samples:-?}; exit status $rc; failed scrapes $scrape_fail"
awk -v secs="$wall" -v c0="${c0:-0}" -v c1="${c1:-0}" -v hz="$hz" -v err="$errors" \
    -v sf="$scrape_fail" -v rc="$rc" -v alive="$alive" -v bound="$bound" '
    { t[NR] = $1; r[NR] = $2 }
    END {
        n = NR; h = int(n / 2); if (h < 1) h = 1
        sx = sy = sxx = sxy = m = 0
        for (i = h; i <= n; i++) { m++; sx += t[i]; sy += r[i]; sxx += t[i] * t[i]; sxy += t[i] * r[i] }
        d = m * sxx - sx * sx
        slope = d > 0 ? (m * sxy - sx * sy) / d * 60 : 0
        growth = r[n] - r[h]
        cpu = secs > 0 ? (c1 - c0) / hz / secs * 100 : 0
        e = err + sf + (rc != 0) + (alive == 0)
        printf "soak: seconds=%d rss_start_kib=%d rss_end_kib=%d rss_mid_kib=%d growth_second_half_kib=%d slope_kib_per_min=%.1f cpu_pct=%.1f errors=%d\n", secs, r[1], r[n], r[h], growth, slope, cpu, e
        if (bound != "" && (e > 0 || growth > bound + 0)) exit 1
        if (alive == 0 || rc != 0) exit 1
    }' "$tmp/rss"
