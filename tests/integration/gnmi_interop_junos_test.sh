#!/bin/sh
# gNMI interop at Junos cadence with an independent gRPC
# implementation: tests/interop/gnmi_js/target.js --junos-cadence on
# @grpc/grpc-js (HTTP/2 and protobuf in JavaScript, nothing shared with our
# gRPC C core, nor with gnmi_sim's C mode of the same name) reports as
# Juniper documents a QFX5240: intervals only in multiples of 2 s, PFE
# counters copied every 2 s, 10 of 24 ports per interval (each port every
# 6 s), the Juniper header with per-sensor sequence numbers and eom per
# batch, payload stamps jittered by up to 1 ms (more is withheld, not
# wrong: sampled at its copy period, the engine places an interval only when
# its span is a whole number of copies to 0.1 %, 2 ms; at +-5 ms a third of
# the 10 s windows are withheld for placement). Two sensors in one stream
# (interface and ethernet counters) number their messages separately. The
# config asks for 100 ms with the Junos profile's grid and copy defaults:
# - check-config warns at the value (2 s granularity, 2s used);
# - the daemon subscribes at 2 s (as the target decoded it: 2000000000 ns);
# - every port's rx and tx 10 s window on /metrics within 1 % of the
#   target's formula, written out here independently of target.js:
#   port et-0/0/p rx (p+1) x 1e9 B/s, tx (p+1) x 5e8 B/s; none of the
#   24 ports x 2 directions missing;
# - remote_write carries every 10 s window of the 48 port series once, none
#   missing between the first and the last, within 1 % (accuracy_rw_check.py
#   with a truth per series; fine rates one port report = 6 s apart, 2 %);
# - no sequence gap (batches and two sensors are not gaps), no decode error,
#   no stream_down event, no resubscribe.
# node_modules must exist (scripts/setup.sh runs `npm ci` there); the test
# installs nothing. Everything on 127.0.0.1; every process stopped by PID;
# every wait bounded. About 40-60 s.
#   gnmi_interop_junos_test.sh FABRICSCOPE SOURCE_DIR [NODE]
set -u
bin=$1
src=$2
node=${3:-node}
here=$(dirname "$0")
js="$src/tests/interop/gnmi_js"
ports=24
batch=10

# shellcheck source=lib.sh source-path=SCRIPTDIR
. "$here/lib.sh"
lib_init
need_gnmi_js "$node" "$js"

start_sim "$node" "$js/target.js" --listen 127.0.0.1:0 --proto-dir "$src/proto" \
    --junos-cadence --ports "$ports" --batch-ports "$batch" --jitter-ms 1 || exit 1

start_rw_receiver || exit 1

# The truth of every port series, from the formula alone.
i=0
while [ "$i" -lt "$ports" ]; do
    echo "et-0/0/$i rx $(((i + 1) * 1000000000))"
    echo "et-0/0/$i tx $(((i + 1) * 500000000))"
    i=$((i + 1))
done >"$tmp/truth"

# sample_interval stays on line 5, column 22 (the warning names it). No
# sample_interval_grid and no counter_copy: the Junos profile's defaults.
{
    cat <<YAML
sources:
  - name: leaf1
    type: gnmi
    address: "127.0.0.1:$sim_port"
    sample_interval: 100ms
    streams:
      - name: interfaces
        paths: [/interfaces/interface/state/counters, /interfaces/interface/ethernet/state/counters]
exporters:
  prometheus:
    listen: "127.0.0.1:0"
  remote_write:
    url: http://127.0.0.1:$rw_port/api/v1/write
    interval: 1s
    resolution: 200ms
    series: [window_rates, fine_rates]
engine:
  windows: [1s, 10s]
topology:
  devices:
    - name: leaf1
      role: leaf
      ports:
YAML
    leaf_port_lines "$ports"
} >"$tmp/fsc.yaml"

"$bin" check-config "$tmp/fsc.yaml" >"$tmp/check.out" 2>"$tmp/check.err"
check_eq "check-config accepts the 100 ms config" "$?" 0
check "check-config warns at the value: 2 s granularity, 2s used" grep -Fq \
    "fsc.yaml:5:22: sources[0].sample_interval: warning: Junos reports only on multiples of 2 s (Juniper, \"Guidelines for Specifying Data Reporting Intervals\"): \"100ms\" is subscribed as 2s" \
    "$tmp/check.err"
check "the effective config subscribes at 2 s" grep -q '^    sample_interval: 2s$' "$tmp/check.out"

start_fsc "$tmp/fsc.yaml"
wait_exporter || exit 1
check_log "the daemon logs the warning" "event=config_warning"

# Every port series' 10 s window on /metrics and six window ends on
# remote_write (bounded, 90 s; about 35 s when all goes well: a port is
# reported every 6 s, a window needs a report after its end).
all_ports() {
    n=$(grep -c '^fabric_port_bytes_per_second{.*device="leaf1"' "$tmp/metrics" 2>/dev/null)
    w=$(grep -c '"fabric_port_bytes_per_second"' "$tmp/rw.log" 2>/dev/null)
    [ "${n:-0}" -ge $((ports * 2)) ] && [ "${w:-0}" -ge 6 ]
}
poll_metrics 900 all_ports || fail "not every port's 10 s window on /metrics and remote_write in 90 s"

# What the independent implementation decoded from our SubscribeRequest.
check_eq "subscribe calls (no resubscribe)" "$(grep -c '^subscribe ' "$tmp/sim.out")" 1
check_eq "the daemon subscribes at 2 s" "$(sed -n 's/^subscribe call=1 //p' "$tmp/sim.out")" \
    "mode=STREAM encoding=PROTO updates_only=0 subscriptions=/interfaces/interface/state/counters:SAMPLE:2000000000,/interfaces/interface/ethernet/state/counters:SAMPLE:2000000000"
check "the target reports every 2 s, 10 of 24 ports, both sensors" grep -q \
    '^cadence call=1 interval_ms=2000 ports=24 batch_ports=10 rounds=3 sensors=sensor_1000_1_1,sensor_1002_1_1$' \
    "$tmp/sim.out"

# Every port, both directions, against the formula (not fabricscope's own
# numbers); the largest relative error goes to the log for docs/ACCURACY.md.
maxerr=0
i=0
while [ "$i" -lt "$ports" ]; do
    for dir in rx tx; do
        want=$(awk -v p="$i" -v d="$dir" '$1 == "et-0/0/" p && $2 == d {print $3}' "$tmp/truth")
        got=$(value "fabric_port_bytes_per_second\\{device=\"leaf1\",port=\"et-0/0/$i\".*direction=\"$dir\"")
        num_near "$dir 10 s rate of et-0/0/$i" "$got" "$want" 0.01
        maxerr=$(awk -v g="${got:-0}" -v w="$want" -v m="$maxerr" \
            'BEGIN { e = (g - w) / w; if (e < 0) e = -e; print (e > m ? e : m) }')
    done
    i=$((i + 1))
done
echo "max relative error of the 10 s rates on /metrics: $maxerr"

st='source="leaf1",stream="interfaces"'
check_eq "no sequence gap (batches and two sensors are not gaps)" \
    "$(value "fabricscope_gnmi_sequence_gaps_total\\{$st\\}")" 0
check_eq "no decode error" "$(value "fabricscope_gnmi_decode_errors_total\\{$st\\}")" 0
check_eq "no resubscribe" "$(value "fabricscope_gnmi_resubscribes_total\\{$st\\}")" 0
check_eq "stream up" "$(value "fabricscope_gnmi_stream_up\\{$st\\}")" 1
check_eq "no stream down" \
    "$(value 'fabricscope_events_total\{kind="stream_down"\}' | awk '{print $1 + 0}')" 0
check "messages counted" ge "$(value "fabricscope_gnmi_messages_total\\{$st\\}" | cut -d. -f1)" 100

# Stop the daemon first: its last reading and flush reach the receiver.
stop_pid "$fsc_pid" 100
fsc_pid=""
python3 "$here/accuracy_rw_check.py" "$tmp/rw.log" "@$tmp/truth" 10000 6000 >"$tmp/rwcheck.out"
rc=$?
tail -5 "$tmp/rwcheck.out"
check_eq "remote_write: every port's 10 s windows once, none missing, within 1 %" "$rc" 0
check "remote_write carried 48 port series" grep -q '^ports=48 ' "$tmp/rwcheck.out"

if [ "$fails" -ne 0 ]; then
    echo "--- fabricscope log ---"; grep -v "event=library" "$tmp/fsc.log" | cut -c1-300 | tail -20
    echo "--- target stdout/stderr ---"; head -8 "$tmp/sim.out"; tail -10 "$tmp/sim.err"
    echo "--- /metrics ---"
    grep -E 'bytes_per_second\{.*et-0/0/(0|1|23)"|sequence|copy_|withheld' "$tmp/metrics" | head -30
fi
summary
