#!/bin/sh
# shellcheck disable=SC2016 # single-quoted conditions are expanded by eval
# `fabricscope demo` as a test (ctest -L demo): the README's first command,
# run for a bounded time; every injected fault must be detected exactly once
# with the right device and port, and nothing else may be.
#   demo_test.sh FABRICSCOPE PYTHON3
#
# The fault schedule is collector/demo/demo_schedule.c (docs/DEMO.md): from
# the start a PCIe link at Gen5 x8 (b300-01 ens7f0np0) and a swapped pair of
# cables (b300-04's ports 4 and 5 hold each other's cable: the host check
# reads each node's fixture addresses and neighbour table and finds the peer
# of eight interfaces unreachable, four on b300-04, two on b300-03, two on
# b300-02); then, repeating every 30 s, an ECN storm on spine1 swp3 tc 3 at
# 8-14 s, a CNP storm on b300-02 ens3f0np0 at 15-18 s, a 2 s line-rate burst
# out of a 40 % load on spine1 swp5 at 18.5-20.5 s, a reordering burst on
# b300-03 ens5f1np1 at 20-22 s, a 300 ms line-rate microburst from b300-01
# ens2f0np0 to b300-02 ens2f0np0 at 23-23.3 s and a 300 ms line-rate burst on
# leaf2 et-0/0/3 at 30 s.
# - The B300 ports are polled every 100 ms and their fine utilization comes
#   from the fixture's ethtool files (rx/tx_bytes_phy), stamped with the
#   time their values were made: the microburst is found on the sender's tx
#   and on the receiver's rx, each START and END once, at 23.0 s (+-0.2 s,
#   about one poll), 300 ms long (+-200 ms), its peak the line rate (the
#   injected shape puts every interval between the port's load, 0.30 with
#   seed 1, and 1.0; detection needs 0.7), and nothing else on the 64 B300
#   ports reads as one (no false microburst on a loaded machine).
# - The spine exports once a second (+-150 ms): its 2 s burst holds at least
#   one whole export interval (peak 1.0) and is a `burst` (longer than the
#   1 s microburst limit), START and END once, its start and end within one
#   export interval (1.3 s) of 18.5 s and 20.5 s.
# - Both leaves report at Junos cadence (2 s grid, 4 of their 8 ports per
#   interval, so each port every 4 s): the leaf burst moves the port's rate
#   by 5 points, no microburst; it is found through its egress queue 3's qmon
#   peak (108134400 B of a 165 MiB buffer) in the report whose interval holds
#   it, one queue_peak event. The port is a downlink without a peer in the
#   demo (the B300 mesh is switchless), so the event carries no peer
#   evidence.
# Times are from the demo clock's zero: the last `event=demo_fault` log line,
# which the demo prints right before it starts its clock and simulators.
#
# Why --duration 36 rather than 60: the schedule's cycle is 30 s and its
# last fault, the leaf's burst, starts at 30 s (the gNMI simulator places its
# first burst one period after its start). 36 s gives that burst 5.7 s to be
# reported (its port's next qmon report comes at most 4 s after it) and ends
# before the second cycle's first storm (38 s), so in this run every fault
# happens exactly once; at 60 s the storms would come twice.
#
# 1. Usage: `help demo`, bad options (status 2), --port-base's range.
# 2. Running (XDG_STATE_HOME and TMPDIR under the test's directory): the
#    exporter's port from the log, the banner (status page, /metrics,
#    config path, the rollup directory and the report command), the
#    generated config passes check-config, all seven sources up.
# 3. /metrics once the leaf burst is counted: each fault's detector counter
#    is 1 on its series and the family totals say nothing else fired; events
#    per kind; the leaves' Junos cadence is visible (each port every 4 s, no
#    sequence gap, leaf1's jitter above leaf2's); the spine's OTLP exports
#    all ok; every B300 port has its fine utilization.
# 4. After the demo stopped by itself: exit status 0, clean shutdown lines,
#    the temporary state directory removed, the rollups kept where the banner
#    said, the exit message's report command runs on them and counts the
#    bursts; the event log's START and INSTANT lines of fault kinds are
#    exactly the expected set (kind, device, port, direction, queue,
#    mismatch); the spikes and bursts ended once each, at the times and with
#    the peaks above.
set -u
bin=$1
py=$2
# shellcheck source=lib.sh source-path=SCRIPTDIR
. "$(dirname "$0")/lib.sh"
lib_init

# ---- 1. usage ---------------------------------------------------------------------------
check "help demo" eval '"$bin" help demo | grep -q "^Usage: fabricscope demo \[--duration D\]"'
check "demo in the command list" eval '"$bin" help | grep -q "^  demo "'
"$bin" demo --bogus >/dev/null 2>&1
check_eq "unknown option: status" "$?" 2
"$bin" demo --duration 0 >/dev/null 2>&1
check_eq "zero duration: status" "$?" 2
for bad in 0 65533 x9000 ""; do
    "$bin" demo --port-base "$bad" >/dev/null 2>"$tmp/u.err"
    check_eq "--port-base '$bad': status" "$?" 2
    check "--port-base '$bad': said" grep -qF -- "--port-base wants a port 1..65532" "$tmp/u.err"
done
"$bin" demo --port-base 9000 --otlp-port 9002 >/dev/null 2>"$tmp/u.err"
check_eq "--port-base and an option on one port: status" "$?" 2
check "--port-base and an option on one port: said" grep -qF "name one port twice: '9002'" "$tmp/u.err"
"$bin" demo --help >"$tmp/h.out"
check "help: --port-base's layout" grep -q "^  --port-base N  *every port from N: the status page on 127.0.0.1:N, the$" "$tmp/h.out"
check "help: the faults it injects" eval 'grep -q "two swapped$" "$tmp/h.out" &&
    grep -q "a 300 ms line-rate microburst from one B300$" "$tmp/h.out" &&
    ! grep -q "planned interface missing" "$tmp/h.out"'

# ---- 2. running -------------------------------------------------------------------------
# TMPDIR: the demo's temporary state directory goes under $tmp, so even a
# crashed run leaves nothing behind.
# XDG_STATE_HOME: where the demo keeps its rollups by default.
XDG_STATE_HOME="$tmp/xdg" TMPDIR="$tmp" "$bin" demo --duration 36 --listen 127.0.0.1:0 \
    >"$tmp/fsc.out" 2>"$tmp/fsc.log" &
fsc_pid=$!
# Sanitizer builds write the 4 x 16 device trees slowly: 30 s at most.
mport=$(wait_for "$tmp/fsc.log" \
    's/.*event=exporter_started exporter=prometheus .* port=\([0-9]*\).*/\1/p' 300) || {
    fail "the demo did not start its exporter"
    cut -c1-300 "$tmp/fsc.log"
    exit 1
}
check "demo ready" wait_until 100 grep -q "event=demo_ready status_page=http://127.0.0.1:$mport/ " "$tmp/fsc.log"
check_log "all sources running" "event=started config=.* sources=7 running=7 "
state=$(sed -n 's/.*event=demo_started config=[^ ]* state_dir=\([^ ]*\) .*/\1/p' "$tmp/fsc.log")
config=$(sed -n 's/.*event=demo_started config=\([^ ]*\) .*/\1/p' "$tmp/fsc.log")
under_tmp() { case "$1" in "$tmp"/fabricscope-demo.?*) true ;; *) false ;; esac; }
check "state directory under TMPDIR ($state)" under_tmp "$state"
check "banner: status page" wait_until 50 grep -q "^  status page  http://127.0.0.1:$mport/\$" "$tmp/fsc.out"
check "banner: metrics" grep -q "^  metrics      http://127.0.0.1:$mport/metrics\$" "$tmp/fsc.out"
check "banner: config" grep -q "^  config     $config\$" "$tmp/fsc.out"
rollups="$tmp/xdg/fabricscope-demo"
check "banner: rollups kept" grep -qF "  rollups    $rollups/rollup (kept: fabricscope report --state-dir $rollups --out $rollups/report)" "$tmp/fsc.out"
check "banner: schedule" grep -q "^  30-30.3 s   leaf2    et-0/0/3   queue_peak " "$tmp/fsc.out"
check "banner: the NIC microburst" grep -q "^  23-23.3 s   b300-01  ens2f0np0  microburst " "$tmp/fsc.out"
check "banner: the spine burst" grep -q "^  18.5-20.5 s spine1   swp5       burst " "$tmp/fsc.out"
check "generated config is valid" eval '"$bin" check-config "$config" >/dev/null 2>"$tmp/check.err"'
# 2 s streams on the Junos grid: nothing for check-config to round or warn
check_eq "check-config warnings" "$(grep -c 'warning' "$tmp/check.err")" 0
check_eq "host checks read the fixtures' addresses and neighbours" \
    "$(grep -c 'event=nic_host_check_fixture ' "$tmp/fsc.log")" 4

# ---- 3. /metrics once the last fault of the cycle is counted ---------------------------
check "leaf burst counted" poll_metrics 450 \
    '[ "$(series_value fabric_congestion_evidence_total device=leaf2 port=et-0/0/3 queue=3 signal=queue_peak_bytes)" = 1 ]'
sum() { awk -v n="$1" 'index($0, n "{") == 1 || index($0, n " ") == 1 { s += $NF } END { print s + 0 }' "$tmp/metrics"; }
check_eq "B300 microburst, sender" "$(series_value fabric_microbursts_total device=b300-01 port=ens2f0np0 direction=tx)" 1
check_eq "B300 microburst, receiver" "$(series_value fabric_microbursts_total device=b300-02 port=ens2f0np0 direction=rx)" 1
check_eq "spine burst" "$(series_value fabric_bursts_total device=spine1 port=swp5 direction=tx)" 1
check_eq "no microburst in 4 s rates rx" "$(series_value fabric_microbursts_total device=leaf2 port=et-0/0/3 direction=rx)" 0
check_eq "no microburst in 4 s rates tx" "$(series_value fabric_microbursts_total device=leaf2 port=et-0/0/3 direction=tx)" 0
check_eq "the burst port's other queue" "$(series_value fabric_congestion_evidence_total device=leaf2 port=et-0/0/3 queue=2 signal=queue_peak_bytes)" 0
check_eq "spine ECN spike" "$(series_value fabric_ecn_spikes_total device=spine1 port=swp3 queue=3)" 1
check_eq "B300 CNP spike" "$(series_value fabric_cnp_spikes_total device=b300-02 port=ens3f0np0 signal=cnp_sent)" 1
check_eq "B300 reorder spike" "$(series_value fabric_reorder_spikes_total device=b300-03 port=ens5f1np1 signal=out_of_sequence)" 1
# the swapped cables: every end of both, kind peer, and nothing else
swapped="b300-04:ens6f0np0 b300-04:ens6f1np1 b300-04:ens1f0np0 b300-04:ens1f1np1
b300-03:ens6f0np0 b300-03:ens6f1np1 b300-02:ens1f0np0 b300-02:ens1f1np1"
for e in $swapped; do
    check_eq "cable mismatch peer $e" \
        "$(series_value fabric_cable_mismatch device="${e%:*}" port="${e#*:}" kind=peer)" 1
    check_eq "cable address ok $e" \
        "$(series_value fabric_cable_mismatch device="${e%:*}" port="${e#*:}" kind=address)" 0
done
check_eq "a correctly cabled port's peer" \
    "$(series_value fabric_cable_mismatch device=b300-04 port=ens8f0np0 kind=peer)" 0
# B300 traffic (IB PMA byte counters): a mis-cabled port carries nothing
# (RoCE cannot resolve its peer), a well-cabled one does
check "a well-cabled B300 port carries traffic" awk -v v="$(series_value \
    fabric_nic_ib_port_tx_bytes_total device=b300-01 port=ens1f0np0)" 'BEGIN { exit !(v + 0 > 1e9) }' 
check_eq "a swapped port carries nothing" \
    "$(series_value fabric_nic_ib_port_tx_bytes_total device=b300-04 port=ens6f1np1)" 0
# nothing else, anywhere
check_eq "all microbursts" "$(sum fabric_microbursts_total)" 2
check_eq "all bursts" "$(sum fabric_bursts_total)" 1
check_eq "all ECN spikes" "$(sum fabric_ecn_spikes_total)" 1
check_eq "all CNP spikes" "$(sum fabric_cnp_spikes_total)" 1
check_eq "all reorder spikes" "$(sum fabric_reorder_spikes_total)" 1
check_eq "all PFC storms" "$(sum fabric_pfc_storms_total)" 0
check_eq "all congestion evidence" "$(sum fabric_congestion_evidence_total)" 1
check_eq "all imbalance events" "$(sum fabric_uplink_imbalance_events_total)" 0
check_eq "all cable mismatches" "$(sum fabric_cable_mismatch)" 8
check_eq "all degraded PCIe links" "$(sum fabric_pcie_link_degraded)" 1
for kv in microburst=2 burst=1 queue_peak=1 buffer_threshold=0 cnp_spike=1 ecn_spike=1 \
    reorder_spike=1 pfc_storm=0 uplink_imbalance=0 cable_mismatch=8 pcie_degraded=1; do
    check_eq "events ${kv%=*}" "$(series_value fabricscope_events_total kind="${kv%=*}")" "${kv#*=}"
done
for s in leaf1 leaf2 spines b300-01 b300-02 b300-03 b300-04; do
    check_eq "$s up" "$(series_value fabricscope_up source=$s)" 1
done
for n in 1 2 3 4; do
    check_eq "b300-0$n ports" "$(series_value fabricscope_nic_ports source=b300-0$n)" 16
done
check_eq "B300 read errors" "$(sum fabricscope_nic_read_errors_total)" 0
# every B300 port's fine utilization from its ethtool file (64 x 2 directions)
check_eq "B300 ports with utilization" "$(grep -c '^fabric_port_utilization_ratio{.*device="b300-0' "$tmp/metrics")" 128
# Junos cadence: 2 s intervals, half the ports each, so every port's
# records come every 4 s (the observed cadence), in order (no sequence gap);
# leaf1 jitters its timestamps, leaf2 does not
for s in leaf1 leaf2; do
    for st in interfaces queues; do
        c=$(series_value fabricscope_gnmi_stream_cadence_seconds source=$s stream=$st)
        check "$s $st cadence $c s is 4 s" awk -v c="$c" 'BEGIN { exit !(c > 3.9 && c < 4.1) }'
        check_eq "$s $st sequence gaps" \
            "$(series_value fabricscope_gnmi_sequence_gaps_total source=$s stream=$st)" 0
    done
done
j1=$(series_value fabricscope_gnmi_stream_jitter_seconds source=leaf1 stream=interfaces)
j2=$(series_value fabricscope_gnmi_stream_jitter_seconds source=leaf2 stream=interfaces)
check "leaf1 jitter ($j1 s) above leaf2's ($j2 s)" awk -v a="$j1" -v b="$j2" 'BEGIN { exit !(a > 0.01 && a > 10 * b) }'
check "spine exports ok" ge "$(series_value fabricscope_otlp_requests_total source=spines result=ok)" 20
check_eq "spine exports refused" "$(series_value fabricscope_otlp_rejected_points_total source=spines)" 0
check "spine counters as counters" eval '[ -n "$(series_value fabric_port_rx_bytes_total device=spine1 port=swp1)" ]'

# ---- 4. after the demo stopped by itself -----------------------------------------------
check "demo stops after --duration" wait_until 300 eval '! kill -0 "$fsc_pid" 2>/dev/null'
stop_pid "$fsc_pid" 10
fsc_pid=""
check_eq "exit status" "$stop_rc" 0
check_log "duration over" "event=demo_duration_over duration_s=36"
check_log "clean daemon stop" "event=stopping signal=SIGTERM"
check_log "daemon stopped" "event=stopped config="
check_log "demo stopped" "event=demo_stopped status=0"
check "state directory removed" test -n "$state" -a ! -e "$state"
check "rollups kept" eval 'ls "$rollups"/rollup/rollup-*.fsr >/dev/null'
check_log "rollups in the stop line" "event=demo_stopped status=0 rollups=$rollups/rollup\$"
check "exit message: the report command" grep -qxF "  fabricscope report --state-dir $rollups --out $rollups/report" "$tmp/fsc.out"
"$bin" report --state-dir "$rollups" --out "$rollups/report" >"$tmp/report.out" 2>"$tmp/report.err"
check_eq "report on the kept rollups: status" "$?" 0
# bursts table: device port direction microbursts long_bursts, non-zero rows only
"$py" - "$rollups/report/report.json" >"$tmp/bursts.txt" <<'PY' 2>&1
import json, sys
for r in json.load(open(sys.argv[1]))["tables"]["bursts"]:
    if r["microbursts"] or r["long_bursts"]:
        print(r["device"], r["port"], r["direction"], r["microbursts"], r["long_bursts"])
PY
check_eq "report: the bursts" "$(sort "$tmp/bursts.txt" | tr '\n' ';')" \
    "b300-01 ens2f0np0 tx 1 0;b300-02 ens2f0np0 rx 1 0;spine1 swp5 tx 0 1;"
check_eq "error lines" "$(grep -c 'level=error' "$tmp/fsc.log")" 0
check_eq "sanitizer reports" "$(grep -Ec 'AddressSanitizer|LeakSanitizer|runtime error' "$tmp/fsc.log")" 0

# kind device port [direction] [queue] [mismatch] of every START / INSTANT
# line of a fault kind (the detectors' and the NIC source's; health events
# such as a stream's state or a counter reset are not faults of the fabric)
faults='microburst|burst|queue_peak|buffer_threshold|cnp_spike|ecn_spike|reorder_spike|pfc_storm|uplink_imbalance|cable_mismatch|pcie_degraded'
grep -E "event=detect kind=($faults) phase=(start|instant) " "$tmp/fsc.log" | awk '{
    k = d = p = dir = q = m = ""
    for (i = 1; i <= NF; i++) {
        eq = index($i, "="); key = substr($i, 1, eq - 1); v = substr($i, eq + 1)
        if (key == "kind") k = v; else if (key == "device") d = v; else if (key == "port") p = v
        else if (key == "direction") dir = " " v; else if (key == "queue") q = " queue=" v
        else if (key == "mismatch") m = " mismatch=" v
    }
    print k " " d " " p dir q m
}' | sort >"$tmp/got.txt"
sort >"$tmp/want.txt" <<'EOF'
pcie_degraded b300-01 ens7f0np0
cable_mismatch b300-04 ens6f0np0 mismatch=peer
cable_mismatch b300-04 ens6f1np1 mismatch=peer
cable_mismatch b300-04 ens1f0np0 mismatch=peer
cable_mismatch b300-04 ens1f1np1 mismatch=peer
cable_mismatch b300-03 ens6f0np0 mismatch=peer
cable_mismatch b300-03 ens6f1np1 mismatch=peer
cable_mismatch b300-02 ens1f0np0 mismatch=peer
cable_mismatch b300-02 ens1f1np1 mismatch=peer
ecn_spike spine1 swp3 tx queue=3
cnp_spike b300-02 ens3f0np0 tx
burst spine1 swp5 tx
reorder_spike b300-03 ens5f1np1 rx
microburst b300-01 ens2f0np0 tx
microburst b300-02 ens2f0np0 rx
queue_peak leaf2 et-0/0/3 tx queue=3
EOF
if cmp -s "$tmp/got.txt" "$tmp/want.txt"; then
    ok
else
    fail "the event log's START/INSTANT lines differ from the fault schedule (got < > want):"
    diff "$tmp/got.txt" "$tmp/want.txt"
fi
check_log "queue peak numbers" "kind=queue_peak phase=instant device=leaf2 port=et-0/0/3 queue=3 .*queue_peak_bytes=108134400 buffer_share=0.6250"
check_log "PCIe numbers" "kind=pcie_degraded phase=start .*port=ens7f0np0 .*speed_gts=32 max_speed_gts=64 width=8 max_width=16"
for k in ecn_spike cnp_spike reorder_spike burst; do
    check_eq "$k ended once" "$(grep -c "event=detect kind=$k phase=end " "$tmp/fsc.log")" 1
done
check_eq "microbursts ended once each" "$(grep -c "event=detect kind=microburst phase=end " "$tmp/fsc.log")" 2

# The bursts' END lines against the injected windows (seconds from the demo
# clock's zero): start and end within TOL of the window's edges, peak
# utilization between the detector's rise (0.7) and the line rate (1.0).
# epoch TIME: an RFC 3339 UTC time in seconds since the epoch.
epoch() { date -u -d "$1" +%s.%N; }
zero=$(epoch "$(sed -n 's/^ts=\([^ ]*\) .*event=demo_fault .*/\1/p' "$tmp/fsc.log" | tail -n 1)")
# burst_end KIND DEVICE PORT DIRECTION FROM TO TOL
burst_end() {
    _l=$(grep "event=detect kind=$1 phase=end .*device=$2 .*port=$3 .*direction=$4 " "$tmp/fsc.log" | head -n 1)
    _s=$(epoch "$(echo "$_l" | sed -n 's/.* start=\([^ ]*\) .*/\1/p')")
    _e=$(epoch "$(echo "$_l" | sed -n 's/.* end=\([^ ]*\) .*/\1/p')")
    _p=$(echo "$_l" | sed -n 's/.* peak_utilization=\([^ ]*\) .*/\1/p')
    echo "$1 $2 $3 $4: $(awk -v s="$_s" -v e="$_e" -v z="$zero" 'BEGIN { printf "%.3f-%.3f s", s - z, e - z }'), peak $_p"
    awk -v s="$_s" -v e="$_e" -v z="$zero" -v p="$_p" -v a="$5" -v b="$6" -v t="$7" 'BEGIN {
        s -= z; e -= z
        exit !(p != "" && s >= a - t && s <= a + t && e >= b - t && e <= b + t && p >= 0.7 && p <= 1.0)
    }'
}
check "NIC microburst, sender" burst_end microburst b300-01 ens2f0np0 tx 23 23.3 0.2
check "NIC microburst, receiver" burst_end microburst b300-02 ens2f0np0 rx 23 23.3 0.2
check "spine burst" burst_end burst spine1 swp5 tx 18.5 20.5 1.3

summary
