#!/bin/sh
# Every metric name the rules and dashboards (dashboards/) read must be one the
# exporter really emits: the real daemon is fed known samples by a replay
# source (tests/fixtures/replay/all_families.*), its live /metrics is fetched
# in both formats (text 0.0.4 and OpenMetrics) and compared with every PromQL
# expression by scripts/check_dashboards.py --only metrics (names not exposed
# and not in dashboards/pending_metrics.txt fail the test, with the checker's
# output).
#
# The fixture is checked first, with known-answer values and exact label
# sets: it must produce one event of each detector (microburst, CNP / ECN /
# reorder spike, PFC storm by pause time and by pause frames, queue-peak and
# buffer-threshold evidence) and its ports must have their topology (role,
# rail, peer) in fabric_port_info; a fixture that stopped doing so would
# make the checks below vacuous.
#
# Last, labels: every selector with label matchers (role="uplink", rail!="",
# queue!="", ...) must match at least one live series; one that matches none
# is a panel or rule that stays empty whatever the traffic (matchers on a
# Grafana variable are not judged).
#
# Everything listens on 127.0.0.1 only; the daemon is stopped by PID; every
# wait is bounded.
#   dashboards_live_test.sh FABRICSCOPE_BINARY SOURCE_DIR PROMTOOL PYTHON3
set -u
bin=$1
src=$2
promtool=$3
py=$4
# shellcheck source=lib.sh source-path=SCRIPTDIR
. "$(dirname "$0")/lib.sh"
lib_init

start_fsc "$src/tests/fixtures/replay/all_families.yaml"

# The exporter's port, then the end of the replay (instant mode: every sample
# is ingested before replay_done is logged). 10 s each at most.
wait_exporter || exit 1
if ! wait_until 100 grep -q 'event=replay_done' "$tmp/fsc.log"; then
    echo "FAIL: the replay did not finish"; cut -c1-300 "$tmp/fsc.log"; exit 1
fi

for fmt in text openmetrics; do
    if [ $fmt = openmetrics ]; then
        accept="application/openmetrics-text; version=1.0.0"
    else
        accept="text/plain"
    fi
    check "GET /metrics ($fmt)" fetch_metrics "$tmp/metrics.$fmt" "$accept"
done

# The fixture does what its header says (values of the text exposition,
# compared as label sets, not as text).
ok
"$py" - "$tmp/metrics.text" >"$tmp/known.out" 2>&1 <<'PY'
import re, sys
LINE = re.compile(r'^([A-Za-z_:][A-Za-z0-9_:]*)(?:\{(.*)\})? (\S+)$')
LABEL = re.compile(r'\s*([A-Za-z_]\w*)="((?:[^"\\]|\\.)*)"\s*,?')
have = {}
for line in open(sys.argv[1]):
    m = LINE.match(line.strip())
    if m:
        have[(m.group(1), frozenset(LABEL.findall(m.group(2) or "")))] = m.group(3)
# role / rail / peer come from the topology of all_families.yaml, in
# fabric_port_info (docs/METRICS.md, "Topology: the info families")
leaf = {"device": "leaf1", "port": "et-0/0/32"}
nic = {"device": "b300-1", "port": "ens1f0np0"}
want = [
    ("fabric_port_info", dict(leaf, role="uplink", rail="0", peer="spine1", peer_port="swp1"),
     "1"),
    ("fabric_port_info", dict(nic, role="nic", rail="0", peer="leaf1", peer_port="et-0/0/1"),
     "1"),
    # a spine port: no rail label
    ("fabric_port_info", {"device": "spine1", "port": "swp1", "role": "downlink",
                          "peer": "leaf1", "peer_port": "et-0/0/32"}, "1"),
    ("fabric_microbursts_total", dict(leaf, direction="tx"), "1"),
    ("fabric_microburst_duration_seconds_bucket", dict(leaf, direction="tx", le="0.1"), "1"),
    ("fabric_microburst_duration_seconds_bucket", dict(leaf, direction="tx", le="0.05"), "0"),
    ("fabric_port_fine_utilization_ratio_bucket", dict(leaf, direction="tx", le="0.8"), "49"),
    ("fabric_port_fine_utilization_ratio_count", dict(leaf, direction="tx"), "50"),
    ("fabric_cnp_spikes_total", dict(nic, signal="cnp_sent"), "1"),
    ("fabric_cnp_spikes_total", dict(nic, signal="cnp_handled"), "0"),
    ("fabric_ecn_spikes_total", dict(leaf, queue="3", signal="ecn_marked_packets"), "1"),
    ("fabric_reorder_spikes_total", dict(nic, signal="out_of_sequence"), "1"),
    ("fabric_pfc_storms_total", dict(leaf, priority="3", signal="pfc_rx_pause_frames"), "1"),
    ("fabric_pfc_storms_total", dict(nic, priority="3", signal="pfc_rx_pause_seconds"), "1"),
    ("fabric_pfc_storms_total", dict(nic, priority="3", signal="pfc_rx_pause_frames"), "0"),
    ("fabric_congestion_evidence_total", dict(leaf, queue="3", signal="queue_peak_bytes"), "1"),
    ("fabric_congestion_evidence_total", dict(nic, signal="rx_buffer_over_threshold"), "1"),
    # 45 x 1000 us + 5 x 50000 us, exposed in seconds
    ("fabric_port_pfc_rx_pause_seconds_total", dict(nic, priority="3"), "0.295"),
    ("fabric_port_tx_discards_total", leaf, "150"),
    ("fabric_port_pfc_tx_pause_frames_total", dict(nic, priority="3"), "250"),
    ("fabric_port_utilization_ratio",
     {"device": "leaf1", "port": "et-0/0/33", "direction": "tx"}, "0.05"),
    ("fabric_port_utilization_ratio", {"device": "spine1", "port": "swp1", "direction": "tx"},
     "0.2"),
    ("fabric_nic_cnp_sent_per_second", nic, "1000"),
    # the IB PMA bytes CNP per TB falls back to: 50 x 2.4e9
    ("fabric_nic_ib_port_rx_bytes_total", nic, "120000000000"),
    ("fabricscope_samples_total", {}, "1122"),
    ("fabricscope_events_total", {"kind": "pfc_storm"}, "2"),
]
bad = 0
for name, labels, value in want:
    got = have.get((name, frozenset(labels.items())))
    if got != value:
        print(f"{name}{labels} = {got}, want {value}")
        bad += 1
sys.exit(1 if bad else 0)
PY
rc=$?
[ "$rc" -eq 0 ] || fail "fixture known answers:
$(cat "$tmp/known.out")"

# The check itself, on both formats (Prometheus scrapes OpenMetrics when it
# can, text otherwise).
for fmt in text openmetrics; do
    ok
    "$py" "$src/scripts/check_dashboards.py" --promtool "$promtool" --only metrics \
        --metrics "$tmp/metrics.$fmt" >"$tmp/check.$fmt" 2>&1 ||
        fail "check_dashboards.py --only metrics on the live /metrics ($fmt):
$(cat "$tmp/check.$fmt")"
done

# Selectors that match no live series.
ok
"$py" - "$src/scripts" "$tmp/metrics.text" >"$tmp/selectors.out" 2>&1 <<'PY'
import os, re, sys
sys.path.insert(0, sys.argv[1])
import check_dashboards as cd

LINE = re.compile(r'^([A-Za-z_:][A-Za-z0-9_:]*)(?:\{(.*)\})? (\S+)$')
LABEL = re.compile(r'\s*([A-Za-z_]\w*)="((?:[^"\\]|\\.)*)"\s*,?')
series = {}
for line in open(sys.argv[2]):
    m = LINE.match(line.strip())
    if m:
        series.setdefault(m.group(1), []).append(dict(LABEL.findall(m.group(2) or "")))

def selectors(expr):
    """(metric name, [(label, op, value)]) of every `name{...}` in expr."""
    out, i = [], 0
    while i < len(expr):
        c = expr[i]
        if c in "\"'`":
            i, _ = cd._skip_string(expr, i)
        elif c == "[":
            i = cd._skip_balanced(expr, i, "[", "]")
        elif c == "{":  # a selector without a name, or after by/without lists
            i, _ = cd._matchers(expr, i)
        elif cd.IDENT_RE.match(expr, i) and (i == 0 or not (expr[i - 1].isalnum() or expr[i - 1] in "_.")):
            m = cd.IDENT_RE.match(expr, i)
            j = cd._skip_ws(expr, m.end())
            if j < len(expr) and expr[j] == "{":
                i, ms = cd._matchers(expr, j)
                out.append((m.group(0), ms))
            else:
                i = m.end()
        else:
            i += 1
    return out

def matches(labels, ms):
    for name, op, value in ms:
        if "stand_in" in value:  # a Grafana variable: any value will do
            continue
        have = labels.get(name, "")
        ok = {"=": have == value, "!=": have != value,
              "=~": re.fullmatch(value, have) is not None,
              "!~": re.fullmatch(value, have) is None}[op]
        if not ok:
            return False
    return True

# Selectors written for deployments this daemon is not, with the reason;
# each must match nothing here (else the entry is stale and fails too).
EXPECTED_EMPTY = {
    'fabricscope_shard_info{count!="1"}':
        "sharded collectors only (recording.yml job_count:fabricscope_shards:count); "
        "this daemon runs unsharded",
    'fabric_port_info{peer_node!="", link!=""}':
        "interfaces of a B300 cable plan only (recording.yml group fabricscope.cabling); "
        "the replay's topology has no cable plan (dashboards.alerts_demo has one)",
}
exprs, records = cd.all_expressions(cd.Report(quiet=True))
empty, used = {}, set()
for where, e in exprs:
    for name, ms in selectors(e):
        if name not in series or not ms:
            continue  # absent names are the name check's business
        sel = name + "{" + ", ".join(f'{a}{op}"{v}"' for a, op, v in ms) + "}"
        hit = any(matches(lbl, ms) for lbl in series[name])
        if sel in EXPECTED_EMPTY:
            used.add(sel)
            if hit:
                print(f"{sel} is listed as matching nothing ({EXPECTED_EMPTY[sel]}) "
                      f"but matches live series (used by {where})")
                empty.setdefault(sel, []).append(where)
        elif not hit:
            empty.setdefault(sel, []).append(where)
for sel in sorted(set(EXPECTED_EMPTY) - used):
    print(f"{sel} is listed as matching nothing but no expression uses it")
    empty.setdefault(sel, []).append("EXPECTED_EMPTY")
for sel in sorted(empty):
    if sel not in EXPECTED_EMPTY:
        print(f"{sel} matches no live series (used by {'; '.join(empty[sel])})")
sys.exit(1 if empty else 0)
PY
rc=$?
[ "$rc" -eq 0 ] || fail "label selectors that match no live series:
$(cat "$tmp/selectors.out")"

if [ "$fails" -ne 0 ]; then
    echo "--- fabricscope log (without detector events) ---"
    grep -v "event=detect " "$tmp/fsc.log" | cut -c1-300 | tail -20
fi
summary
