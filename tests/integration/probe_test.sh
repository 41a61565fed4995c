#!/bin/sh
# `fabricscope probe` (collector/commands/probe_cmd.c) against real peers:
# - gNMI: gnmi_sim (collector/demo/sim, Junos OS Evolved) with 2 ports and 1
#   queue at 100 ms; the probe of the first source (the default) for 3 s
#   must print exactly the 48 canonical series of the Junos profile for what
#   the simulator serves (16 interface counters + 6 queue leaves + 2 FEC
#   words, x 2 ports), the exact mapping lines (24 vendor paths, all mapped),
#   values that obey the simulator's model (gnmi_sim.h: in-pkts = in-octets
#   / 4096, in-octets = out-octets, queue 0's max-queue-len = 0.3 x 1e6 and
#   avg-queue-len half that), 10..31 samples per series (one per 100 ms;
#   none doubled), and exit 0;
# - OTLP: the real OpenTelemetry JS SDK (tests/interop/otlp_js/sender.js, 3
#   collections over gRPC) into the probed otlp source (--source spine1);
#   the probe is ended by SIGINT once the sender is done: exact series names,
#   the sender's known values after 3 collections, samples=3 each, the three
#   unmapped Cumulus names listed, exit 0;
# - the same otlp source with no sender: exit 1 and "nothing arrived";
# - usage and config errors: exit 2;
# - no exporter listens (the config's fixed Prometheus port stays closed while
#   a probe runs) and nothing is written (the state directory never appears).
# Everything on 127.0.0.1; processes stopped by PID; every wait bounded.
#   probe_test.sh FABRICSCOPE GNMI_SIM SOURCE_DIR NODE PYTHON
# awk programs and eval'd conditions are single-quoted on purpose:
# shellcheck disable=SC2016
set -u
bin=$1
sim=$2
src=$3
node=$4
py=$5
js="$src/tests/interop/otlp_js"
# shellcheck source=lib.sh source-path=SCRIPTDIR
. "$(dirname "$0")/lib.sh"
lib_init

if [ ! -d "$js/node_modules/@opentelemetry/sdk-metrics" ]; then
    echo "FAIL: $js/node_modules is missing: run scripts/setup.sh (npm ci --prefix tests/interop/otlp_js)"
    exit 1
fi
for v in $(env | sed -n 's/^\(OTEL_[A-Za-z0-9_]*\)=.*/\1/p'); do unset "$v"; done

# A free port for the exporter the probe must not start.
pport=$(free_ports 1)

start_sim "$sim" --listen 127.0.0.1:0 --ports 2 --queues 1 --interval 100ms --utilization 0.3 \
    --duration 60s || exit 1

cat >"$tmp/fsc.yaml" <<YAML
state_dir: $tmp/state
sources:
  - name: leaf1
    type: gnmi
    address: "127.0.0.1:$sim_port"
    sample_interval: 100ms
    sample_interval_grid: none # a simulator: 100 ms as asked
    streams:
      - {name: interfaces, paths: ["/interfaces/interface/state/counters"]}
      - {name: queues, paths: ["/qos/interfaces/interface/output/queues/queue/state"]}
      - {name: links, paths: ["/state/interfaces/interface/ethernet/counters"]}
  - {name: spine1, type: otlp, grpc_listen: "127.0.0.1:0", http_listen: "127.0.0.1:0",
     device_attribute: host.name}
exporters:
  prometheus:
    listen: "127.0.0.1:$pport"
YAML

# probe_bg OUT ERR ARGS...: starts a probe in the background (pid in probe_pid).
probe_pid=""
probe_bg() {
    _out=$1
    _err=$2
    shift 2
    : >"$_out"
    : >"$_err"
    "$bin" probe "$@" >"$_out" 2>"$_err" &
    probe_pid=$!
    peer_pid=$probe_pid # lib_cleanup stops it if the script ends early
}
# probe_wait: waits for the background probe (bounded: 40 s) and sets probe_rc.
probe_wait() {
    _n=0
    while kill -0 "$probe_pid" 2>/dev/null && [ "$_n" -lt 400 ]; do
        sleep 0.1
        _n=$((_n + 1))
    done
    stop_pid "$probe_pid"
    probe_rc=$stop_rc
    peer_pid=""
}
# The sorted distinct metric names of the `series` lines of FILE.
names_of() { sed -n 's/^series \([a-zA-Z_:][a-zA-Z0-9_:]*\)[{ ].*/\1/p' "$1" | sort -u; }
# The last= / samples= field of the series line starting with SERIES (exact text).
field_of() { awk -v s="series $2 " -v f=" $1=" 'index($0, s) == 1 {
        i = index($0, f); v = substr($0, i + length(f)); sub(/ .*/, "", v); print v; exit }' "$3"; }

# ---- gNMI ---------------------------------------------------------------------
probe_bg "$tmp/g.out" "$tmp/g.err" -c "$tmp/fsc.yaml" --seconds 3
check "gnmi probe started" wait_until 50 grep -q "event=probe_started source=leaf1 type=gnmi profile=junos seconds=3" "$tmp/g.err"
check "no exporter listens while probing" eval '! curl -s --max-time 2 -o /dev/null "http://127.0.0.1:$pport/metrics"'
probe_wait
check_eq "gnmi probe exit status" "$probe_rc" 0

sort >"$tmp/g.names.want" <<EOF
fabric_port_carrier_transitions_total
fabric_port_fec_corrected_codewords_total
fabric_port_fec_uncorrectable_codewords_total
fabric_port_queue_avg_bytes
fabric_port_queue_dropped_bytes_total
fabric_port_queue_dropped_packets_total
fabric_port_queue_peak_bytes
fabric_port_queue_tx_bytes_total
fabric_port_queue_tx_packets_total
fabric_port_rx_broadcast_packets_total
fabric_port_rx_bytes_total
fabric_port_rx_discards_total
fabric_port_rx_errors_total
fabric_port_rx_fcs_errors_total
fabric_port_rx_multicast_packets_total
fabric_port_rx_packets_total
fabric_port_rx_unicast_packets_total
fabric_port_tx_broadcast_packets_total
fabric_port_tx_bytes_total
fabric_port_tx_discards_total
fabric_port_tx_errors_total
fabric_port_tx_multicast_packets_total
fabric_port_tx_packets_total
fabric_port_tx_unicast_packets_total
EOF
names_of "$tmp/g.out" >"$tmp/g.names"
check "gnmi canonical names exact: $(diff "$tmp/g.names.want" "$tmp/g.names" | tr '\n' ' ')" \
    cmp -s "$tmp/g.names.want" "$tmp/g.names"
check_eq "gnmi series count (24 names x 2 ports)" "$(grep -c '^series ' "$tmp/g.out")" 48

I=/interfaces/interface/state/counters
Q=/qos/interfaces/interface/output/queues/queue/state
F=/state/interfaces/interface/ethernet/counters
cat >"$tmp/g.map.want" <<EOF
map $I/carrier-transitions -> fabric_port_carrier_transitions_total series=2
map $I/in-broadcast-pkts -> fabric_port_rx_broadcast_packets_total series=2
map $I/in-discards -> fabric_port_rx_discards_total series=2
map $I/in-errors -> fabric_port_rx_errors_total series=2
map $I/in-fcs-errors -> fabric_port_rx_fcs_errors_total series=2
map $I/in-multicast-pkts -> fabric_port_rx_multicast_packets_total series=2
map $I/in-octets -> fabric_port_rx_bytes_total series=2
map $I/in-pkts -> fabric_port_rx_packets_total series=2
map $I/in-unicast-pkts -> fabric_port_rx_unicast_packets_total series=2
map $I/out-broadcast-pkts -> fabric_port_tx_broadcast_packets_total series=2
map $I/out-discards -> fabric_port_tx_discards_total series=2
map $I/out-errors -> fabric_port_tx_errors_total series=2
map $I/out-multicast-pkts -> fabric_port_tx_multicast_packets_total series=2
map $I/out-octets -> fabric_port_tx_bytes_total series=2
map $I/out-pkts -> fabric_port_tx_packets_total series=2
map $I/out-unicast-pkts -> fabric_port_tx_unicast_packets_total series=2
map $Q/avg-queue-len -> fabric_port_queue_avg_bytes series=2
map $Q/dropped-octets -> fabric_port_queue_dropped_bytes_total series=2
map $Q/dropped-pkts -> fabric_port_queue_dropped_packets_total series=2
map $Q/max-queue-len -> fabric_port_queue_peak_bytes series=2
map $Q/transmit-octets -> fabric_port_queue_tx_bytes_total series=2
map $Q/transmit-pkts -> fabric_port_queue_tx_packets_total series=2
map $F/fec-corrected-words -> fabric_port_fec_corrected_codewords_total series=2
map $F/fec-uncorrectable-words -> fabric_port_fec_uncorrectable_codewords_total series=2
EOF
grep -E '^(map|unmapped|derived) ' "$tmp/g.out" >"$tmp/g.map"
check "gnmi mapping lines exact: $(diff "$tmp/g.map.want" "$tmp/g.map" | tr '\n' ' ')" \
    cmp -s "$tmp/g.map.want" "$tmp/g.map"
check "gnmi series line names its native path" grep -q \
    "^series fabric_port_rx_bytes_total{device=\"leaf1\",port=\"et-0/0/0\"} native=$I/in-octets last=[1-9][0-9]* samples=[0-9]*$" "$tmp/g.out"
check "gnmi summary line" grep -Eq \
    '^probe source=leaf1 type=gnmi profile=junos seconds=3\.[0-9] series=48 series_with_samples=48 samples=[0-9]+ device_samples=[1-9][0-9]* native_names=24 mapped=24 unmapped=0$' "$tmp/g.out"

# The simulator's model (gnmi_sim.h) in the last values of one notification.
for p in et-0/0/0 et-0/0/1; do
    sel="{device=\"leaf1\",port=\"$p\"}"
    oct=$(field_of last "fabric_port_rx_bytes_total$sel" "$tmp/g.out")
    pkt=$(field_of last "fabric_port_rx_packets_total$sel" "$tmp/g.out")
    tx=$(field_of last "fabric_port_tx_bytes_total$sel" "$tmp/g.out")
    check "$p in-pkts = in-octets / 4096 ($pkt, $oct)" \
        awk -v o="$oct" -v k="$pkt" 'BEGIN { exit !(o > 0 && k == int(o / 4096)) }'
    check_eq "$p in-octets = out-octets" "$tx" "$oct"
    check_eq "$p queue 0 peak = 0.3 x 1e6" \
        "$(field_of last "fabric_port_queue_peak_bytes{device=\"leaf1\",port=\"$p\",queue=\"0\"}" "$tmp/g.out")" 300000
    check_eq "$p queue 0 average = peak / 2" \
        "$(field_of last "fabric_port_queue_avg_bytes{device=\"leaf1\",port=\"$p\",queue=\"0\"}" "$tmp/g.out")" 150000
done
# One sample per 100 ms for 3 s: at most 31 per series (30 ticks + the first
# update; a sample counted twice would exceed it), at least 10 (the stream
# kept going; a slow connect on a loaded machine costs some).
check "gnmi samples per series in 10..31: $(grep '^series ' "$tmp/g.out" | sed 's/.*samples=//' | sort -n | uniq -c | tr '\n' ' ')" \
    awk '/^series / { n = $NF; sub(/samples=/, "", n); if (n < 10 || n > 31) bad = 1 } END { exit bad }' "$tmp/g.out"

# ---- OTLP with the OpenTelemetry JS SDK --------------------------------------
probe_bg "$tmp/o.out" "$tmp/o.err" -c "$tmp/fsc.yaml" --source spine1 --seconds 60
gport=$(wait_for "$tmp/o.err" 's/.*event=otlp_listening transport=grpc port=\([0-9]*\) source=spine1.*/\1/p') ||
    fail "the probed otlp source did not log its gRPC port"
check "no exporter listens while probing otlp" eval '! curl -s --max-time 2 -o /dev/null "http://127.0.0.1:$pport/metrics"'
timeout 60 "$node" "$js/sender.js" --protocol grpc --endpoint "http://127.0.0.1:${gport:-0}" \
    --exports 3 --interval-ms 300 --host-name sw1 >"$tmp/sender.out" 2>"$tmp/sender.err"
check_eq "sender: every export succeeded" "$(tail -n 1 "$tmp/sender.out")" "done exports=3 failures=0"
kill -INT "$probe_pid" 2>/dev/null # every export was answered: everything is in
probe_wait
check_eq "otlp probe exit status" "$probe_rc" 0
check "otlp probe ended by SIGINT" grep -q "event=probe_interrupted signal=SIGINT" "$tmp/o.err"

H=fabric_cumulus_nvswitch_interface_egress_buffer
cat >"$tmp/o.names.want" <<EOF
fabric_cumulus_nvswitch_control_plane_rx_bytes
fabric_cumulus_nvswitch_control_plane_rx_packets
${H}_bucket
${H}_count
${H}_sum
fabric_port_queue_histogram_peak_bytes
fabric_port_queue_peak_bytes
fabric_port_rx_bytes_total
fabric_port_tx_bytes_total
EOF
names_of "$tmp/o.out" >"$tmp/o.names"
check "otlp canonical names exact: $(diff "$tmp/o.names.want" "$tmp/o.names" | tr '\n' ' ')" \
    cmp -s "$tmp/o.names.want" "$tmp/o.names"
# 2 ports x rx/tx, 1 watermark, 2 control-plane sums, 10 buckets + count +
# sum, and the histogram's peak gauge (docs/METRICS.md): a cumulative
# histogram's first export has no interval, so it has 2 samples, the others 3
check_eq "otlp series count" "$(grep -c '^series ' "$tmp/o.out")" 20
check "every otlp series has samples=3 (the peak gauge 2)" \
    awk '/^series / { w = index($0, "fabric_port_queue_histogram_peak_bytes{") == 8 ? "samples=2" : "samples=3"; if ($NF != w) bad = 1 } END { exit bad }' "$tmp/o.out"
cat >"$tmp/o.map.want" <<EOF
map nvswitch_interface_if_in_octets -> fabric_port_rx_bytes_total series=2
map nvswitch_interface_if_out_octets -> fabric_port_tx_bytes_total series=2
map nvswitch_interface_shared_buffer_port_tc_watermark -> fabric_port_queue_peak_bytes series=1
unmapped nvswitch_control_plane_rx_bytes -> fabric_cumulus_nvswitch_control_plane_rx_bytes series=1
unmapped nvswitch_control_plane_rx_packets -> fabric_cumulus_nvswitch_control_plane_rx_packets series=1
unmapped nvswitch_histogram_interface_egress_buffer -> ${H}_bucket,${H}_count,${H}_sum series=12
derived -> fabric_port_queue_histogram_peak_bytes series=1
EOF
grep -E '^(map|unmapped|derived) ' "$tmp/o.out" >"$tmp/o.map"
check "otlp mapping lines exact: $(diff "$tmp/o.map.want" "$tmp/o.map" | tr '\n' ' ')" \
    cmp -s "$tmp/o.map.want" "$tmp/o.map"
# sender.js's script after N = 3 collections.
sw1='device="sw1",port="swp1"'
sw2='device="sw1",port="swp2"'
check_eq "rx bytes swp1 = 1e12 + 3 x 1e9" "$(field_of last "fabric_port_rx_bytes_total{$sw1}" "$tmp/o.out")" 1003000000000
check_eq "rx bytes swp2 = 2e12 + 3 x 5e8" "$(field_of last "fabric_port_rx_bytes_total{$sw2}" "$tmp/o.out")" 2001500000000
check_eq "tx bytes swp1 = 3e12 + 3 x 2.5e8" "$(field_of last "fabric_port_tx_bytes_total{$sw1}" "$tmp/o.out")" 3000750000000
check_eq "tx bytes swp2 = 4e12 + 3 x 1e8" "$(field_of last "fabric_port_tx_bytes_total{$sw2}" "$tmp/o.out")" 4000300000000
check_eq "watermark = 1000 x 3" "$(field_of last "fabric_port_queue_peak_bytes{$sw1,queue=\"3\"}" "$tmp/o.out")" 3000
check_eq "control-plane packets = 50 x 3 x 4" \
    "$(field_of last 'fabric_cumulus_nvswitch_control_plane_rx_packets{device="sw1"}' "$tmp/o.out")" 600
check_eq "control-plane bytes = 750.125 x 12" \
    "$(field_of last 'fabric_cumulus_nvswitch_control_plane_rx_bytes{device="sw1"}' "$tmp/o.out")" 9001.5
check_eq "histogram count = 6 x 3" "$(field_of last "${H}_count{$sw1,queue=\"0\"}" "$tmp/o.out")" 18
check_eq "histogram sum = 512020 x 3" "$(field_of last "${H}_sum{$sw1,queue=\"0\"}" "$tmp/o.out")" 1536060
# 300000 is past the last bound in every collection: the last bound is reached
check_eq "histogram peak = last bound 245760" \
    "$(field_of last "fabric_port_queue_histogram_peak_bytes{$sw1,queue=\"0\"}" "$tmp/o.out")" 245760
check "otlp series line names its native name" grep -q \
    "^series fabric_port_rx_bytes_total{$sw1} native=nvswitch_interface_if_in_octets last=1003000000000 samples=3$" "$tmp/o.out"
check "otlp summary line" grep -Eq \
    '^probe source=spine1 type=otlp profile=cumulus seconds=[0-9.]+ series=20 series_with_samples=20 samples=59 device_samples=59 native_names=6 mapped=3 unmapped=3$' "$tmp/o.out"

# ---- OTLP with nobody sending ------------------------------------------------
"$bin" probe -c "$tmp/fsc.yaml" --source spine1 --seconds 1 >"$tmp/n.out" 2>"$tmp/n.err"
check_eq "probe with nothing arriving: exit status" "$?" 1
check "nothing arrived: said on stderr" grep -Eq "fabricscope probe: nothing arrived from the device of source spine1 \(otlp\) in 1\.[0-9] s" "$tmp/n.err"
check "nothing arrived: summary with no series" grep -Eq '^probe source=spine1 .* series=0 series_with_samples=0 samples=0 ' "$tmp/n.out"

# ---- a NIC source on a host with no RDMA device --------------------------------
# Its own poll statistics arrive (fabricscope_nic_*), nothing from a device:
# exit 1, as for a switch that sends nothing.
mkdir -p "$tmp/nosys/sys/class/infiniband" "$tmp/nosys/sys/class/net"
cat >"$tmp/nic.yaml" <<YAML
sources:
  - name: nic
    type: nic
    device: b300-01
    sysfs_root: $tmp/nosys
YAML
"$bin" probe -c "$tmp/nic.yaml" --seconds 1 >"$tmp/nic.out" 2>"$tmp/nic.err"
check_eq "probe of a NIC source with no device: exit status" "$?" 1
check "no device: own statistics arrived" grep -Eq '^series fabricscope_nic_polls_total\{source="nic"\} native=- last=[1-9][0-9]* samples=[1-9]' "$tmp/nic.out"
check "no device: device_samples=0" grep -Eq '^probe source=nic .* device_samples=0 ' "$tmp/nic.out"
check "no device: said on stderr" grep -q "nothing arrived from the device of source nic (nic)" "$tmp/nic.err"

# ---- usage and configuration errors: exit 2 -----------------------------------
expect2() { # DESCRIPTION STDERR_TEXT ARGS...
    _what=$1
    _text=$2
    shift 2
    "$bin" probe "$@" >"$tmp/e.out" 2>"$tmp/e.err"
    check_eq "$_what: exit status" "$?" 2
    check "$_what: says '$_text'" grep -qF -- "$_text" "$tmp/e.err"
}
expect2 "unknown source" "has no source named 'nosuch' (sources: leaf1 spine1)" \
    -c "$tmp/fsc.yaml" --source nosuch
expect2 "--seconds 0" "--seconds wants a whole number 1..300, not '0'" -c "$tmp/fsc.yaml" --seconds 0
expect2 "--seconds 301" "--seconds wants a whole number 1..300, not '301'" -c "$tmp/fsc.yaml" --seconds 301
expect2 "no config" "missing -c FILE"
printf 'sources:\n  - {name: x, type: gnmi, address: "nohost"}\n' >"$tmp/bad.yaml"
expect2 "bad config" "$tmp/bad.yaml:2:" -c "$tmp/bad.yaml"
"$bin" probe --help >"$tmp/h.out" 2>&1
check_eq "probe --help exit status" "$?" 0
check "probe --help shows its usage" grep -q '^Usage: fabricscope probe -c FILE \[--source NAME\] \[--seconds N\]' "$tmp/h.out"

# Nothing written: no rollups, no state directory, by any probe above.
check "no state written" test ! -e "$tmp/state"
summary
