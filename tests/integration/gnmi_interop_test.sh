#!/bin/sh
# gNMI interop with an independent gRPC implementation: a tiny target written
# on @grpc/grpc-js (tests/interop/gnmi_js/target.js: HTTP/2 and protobuf in
# JavaScript, nothing shared with our gRPC C core) streams a fixed script of
# 25 SubscribeResponses; the real daemon must decode every one of them. The
# known answers below are the script's numbers, written out independently of
# target.js:
#   - the Subscribe request as the target decoded it (path, STREAM, PROTO,
#     SAMPLE, sample_interval in ns);
#   - the last scripted value of every counter (uint_val, double_val,
#     json_val bare number and quoted string, string_val);
#   - fabricscope_gnmi_updates_total = 96, messages = 25, decode errors 0,
#     sequence gaps 0;
#   - et-0/0/0's rx rate is exactly 5e9 B/s, which holds only when the Junos
#     header's payload_get_timestamp (ms) is used: its Notification.timestamp
#     runs 150 ms apart and would give 3.33e9. et-0/0/1 has no header: its
#     rate (12.5e9) comes from Notification.timestamp (ns).
# node_modules must exist (scripts/setup.sh runs `npm ci` there); the test
# does not install anything. Both processes stopped by PID; waits bounded.
#   gnmi_interop_test.sh FABRICSCOPE SOURCE_DIR [NODE]
set -u
bin=$1
src=$2
node=${3:-node}
js="$src/tests/interop/gnmi_js"

# shellcheck source=lib.sh source-path=SCRIPTDIR
. "$(dirname "$0")/lib.sh"
lib_init
need_gnmi_js "$node" "$js"

# The grpc-js target: its stdout and stderr are $tmp/sim.out and sim.err.
start_sim "$node" "$js/target.js" --listen 127.0.0.1:0 --proto-dir "$src/proto" || exit 1

# stall_intervals 100 x sample_interval 100ms: the daemon would resubscribe
# only after 10 s of silence, long after the script (about 0.5 s) is done and
# the stream has gone quiet. counter_copy live: the script's values change at
# every 100 ms tick, as no real Junos export does (its PFE copies come every
# 2 s); read as live values from the first sample on, the first 1 s window is
# whole (the profile's copy grid would need three samples to find the device
# live and leave that window out).
cat >"$tmp/fsc.yaml" <<YAML
sources:
  - name: leaf1
    type: gnmi
    address: "127.0.0.1:$sim_port"
    sample_interval: 100ms
    sample_interval_grid: none # a simulator: 100 ms as asked (Junos would get 2 s)
    stall_intervals: 100
    counter_copy: live
    max_time_behind: 0s # the script's fixed times (2026-01-01, target.js T0_MS) are its known answers
    streams:
      - {name: interfaces, paths: ["/interfaces/interface/state/counters"]}
exporters:
  prometheus:
    listen: "127.0.0.1:0"
engine:
  windows: [1s]
topology:
  devices:
    - name: leaf1
      role: leaf
      ports:
        - {name: et-0/0/0, speed: 400G, role: downlink}
        - {name: et-0/0/1, speed: 400G, role: uplink}
YAML
start_fsc "$tmp/fsc.yaml"
wait_exporter || exit 1

# Poll /metrics (bounded, 20 s) until all 96 updates have been counted. The
# client counts a message's updates after the engine applied its samples
# (fsc_engine_ingest is synchronous), so 96 means every value is in.
st='source="leaf1",stream="interfaces"'
poll_metrics 200 'grep -q "^fabricscope_gnmi_updates_total{$st} 96\$" "$tmp/metrics"'

# What the independent implementation decoded from our SubscribeRequest.
check_eq "subscribe calls" "$(grep -c '^subscribe ' "$tmp/sim.out")" 1
check_eq "subscribe request" "$(sed -n 's/^subscribe call=1 //p' "$tmp/sim.out")" \
    "mode=STREAM encoding=PROTO updates_only=0 subscriptions=/interfaces/interface/state/counters:SAMPLE:100000000"
check_eq "script sent" "$(sed -n 's/^script_done call=1 //p' "$tmp/sim.out")" "responses=25"
check_log "Capabilities answer (models=1 encodings=2 version 0.10.0)" \
    'event=gnmi_capabilities source=leaf1 device=leaf1 models=1 encodings=2 version=0\.10\.0$'

# Stream health: every response decoded, nothing lost.
check_eq "updates" "$(value "fabricscope_gnmi_updates_total\\{$st\\}")" 96
check_eq "messages" "$(value "fabricscope_gnmi_messages_total\\{$st\\}")" 25
check_eq "decode errors" "$(value "fabricscope_gnmi_decode_errors_total\\{$st\\}")" 0
check_eq "sequence gaps" "$(value "fabricscope_gnmi_sequence_gaps_total\\{$st\\}")" 0
check_eq "resubscribes" "$(value "fabricscope_gnmi_resubscribes_total\\{$st\\}")" 0
check_eq "stream up" "$(value "fabricscope_gnmi_stream_up\\{$st\\}")" 1
check_eq "source up" "$(value 'fabricscope_up\{source="leaf1",type="gnmi"\}')" 1

# The last scripted value (tick 11) of every counter, per value encoding.
p0='device="leaf1",port="et-0/0/0"'
p1='device="leaf1",port="et-0/0/1"'
check_eq "et-0/0/0 in-octets (uint_val)" "$(value "fabric_port_rx_bytes_total\\{${p0}[,}]")" 1005500000000
check_eq "et-0/0/0 out-octets (double_val)" "$(value "fabric_port_tx_bytes_total\\{${p0}[,}]")" 4750000000
check_eq "et-0/0/0 in-pkts (json_val number)" "$(value "fabric_port_rx_packets_total\\{${p0}[,}]")" 7011000
check_eq "et-0/0/0 out-pkts (string_val)" "$(value "fabric_port_tx_packets_total\\{${p0}[,}]")" 3005500
check_eq "et-0/0/1 in-octets (uint_val)" "$(value "fabric_port_rx_bytes_total\\{${p1}[,}]")" 513750000000
check_eq "et-0/0/1 out-octets (double_val)" "$(value "fabric_port_tx_bytes_total\\{${p1}[,}]")" 2100000000
check_eq "et-0/0/1 in-pkts (json_val quoted)" "$(value "fabric_port_rx_packets_total\\{${p1}[,}]")" 9022000
check_eq "et-0/0/1 in-errors (string_val)" "$(value "fabric_port_rx_errors_total\\{${p1}[,}]")" 21

# Window [T0, T0+1s) on device time. Header ms time: 10 x 5e8 B in 1 s.
check_eq "et-0/0/0 rx rate on header time" \
    "$(value "fabric_port_bytes_per_second\\{$p0.*direction=\"rx\"")" 5000000000
check_eq "et-0/0/0 rx utilization" \
    "$(value "fabric_port_utilization_ratio\\{$p0.*direction=\"rx\"")" 0.1
check_eq "et-0/0/0 tx rate on header time" \
    "$(value "fabric_port_bytes_per_second\\{$p0.*direction=\"tx\"")" 2500000000
# No header: Notification.timestamp ns, 100 ms apart.
check_eq "et-0/0/1 rx rate on notification time" \
    "$(value "fabric_port_bytes_per_second\\{$p1.*direction=\"rx\"")" 12500000000
check_eq "et-0/0/1 rx utilization" \
    "$(value "fabric_port_utilization_ratio\\{$p1.*direction=\"rx\"")" 0.25

# Stop the daemon by PID while the target still holds the stream open: it
# must exit 0 within 10 s, and (in the Sanitize build) report nothing.
ok
if stop_pid "$fsc_pid" 100; then
    [ "$stop_rc" -eq 0 ] || fail "fabricscope exit status $stop_rc after SIGTERM"
else
    fail "fabricscope still running 10 s after SIGTERM"
fi
fsc_pid=""
check_eq "sanitizer reports in the fabricscope log" \
    "$(grep -Ec 'ERROR: (AddressSanitizer|LeakSanitizer)|runtime error:' "$tmp/fsc.log")" 0

if [ "$fails" -ne 0 ]; then
    echo "--- fabricscope log ---"; grep -v "event=library" "$tmp/fsc.log" | cut -c1-400 | tail -40
    echo "--- target stdout/stderr ---"; tail -5 "$tmp/sim.out"; tail -10 "$tmp/sim.err"
    echo "--- /metrics (leaf1) ---"
    grep -E 'leaf1' "$tmp/metrics" | grep -v '_bucket' | head -60
fi
summary
