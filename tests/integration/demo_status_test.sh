#!/bin/sh
# shellcheck disable=SC2016 # single-quoted conditions are expanded by eval
# The status page against `fabricscope demo`, and the demo -> report
# reproduction of docs/REPORT.md, in one demo run (ctest -L demo, -L web).
#   demo_status_test.sh FABRICSCOPE PYTHON3 BUILD_DIR
#
# 1. `fabricscope demo --duration 56 --listen 127.0.0.1:0 --state-dir DIR`.
#    56 s: one whole 30 s cycle (every fault once, the leaf2 burst at 30 s),
#    the second cycle's three storms (38-52 s) whole, and the end 4 s before
#    the second burst (60 s), so the report's counts are known exactly.
# 2. The API, once every fault was seen (bounded waits): /api/events holds
#    each injected fault with its device and port; /api/mesh has the plan's
#    32 links, exactly the two swapped cables' four links marked with `peer`
#    at both ends, and every link's utilization at the demo's known rates
#    (DEMO_B300_GBPS in collector/demo/demo_int.h: 100 + 5 x ((node +
#    device + seed) mod 16) Gb/s per interface, 0 on a mis-cabled one; a link
#    shows the larger of its two ends' rates over 400G).
# 3. `/` in headless Chromium (Debian package `chromium`, as
#    web_status_test.sh): the DOM after the script refreshed holds every
#    fault's event row (kind, device, port), the mesh table and SVG with the
#    swapped links highlighted and every link's utilization number, and no
#    console message; a screenshot is kept as BUILD_DIR/demo_status.png.
# 4. After the demo stopped by itself (exit 0): `fabricscope report
#    --state-dir DIR --out DIR/report` (the documented command), and in
#    report.csv and report.json the numbers the schedule determines: two
#    microbursts at each end of the B300 link b300-01 ens2f0np0 ->
#    b300-02 ens2f0np0 and two (long) bursts on spine1 swp5 tx, nothing else
#    (the leaves report at Junos cadence; leaf2 et-0/0/3's burst is a
#    queue_peak event, checked in /api/events), the CNP storms'
#    2 x 300 000 CNPs on b300-02 ens3f0np0, exactly those three link
#    directions with a fine peak over 70 %, leaf2 et-0/0/3's peak over its
#    4 s report intervals, no 1 s averages for the leaves, the B300 nodes'
#    transmit throughput;
#    report.html renders in Chromium with its tables and no console message.
set -u
bin=$1
py=$2
build=$3
# shellcheck source=lib.sh source-path=SCRIPTDIR
. "$(dirname "$0")/lib.sh"
lib_init

need_chromium

# ---- 1. the demo --------------------------------------------------------------------------
state="$tmp/demo"
"$bin" demo --duration 56 --listen 127.0.0.1:0 --state-dir "$state" >"$tmp/fsc.out" \
    2>"$tmp/fsc.log" &
fsc_pid=$!
# Sanitizer builds write the 4 x 16 device trees slowly: 30 s at most.
mport=$(wait_for "$tmp/fsc.log" \
    's/.*event=exporter_started exporter=prometheus .* port=\([0-9]*\).*/\1/p' 300) || {
    fail "the demo did not start its exporter"
    cut -c1-300 "$tmp/fsc.log"
    exit 1
}
base="http://127.0.0.1:$mport"

cat >"$tmp/check.py" <<'PY'
import csv, json, os, re, sys, time, urllib.request
sys.path.insert(0, os.environ["FSC_TEST_TOOLS"])  # the shared page tree
from html_tree import parse, rows  # noqa: E402
fails, checks = [], 0

def check(ok, what):
    global checks
    checks += 1
    if not ok:
        fails.append(what)

def api(base, path):
    with urllib.request.urlopen(base + path, timeout=10) as r:
        return json.loads(r.read().decode())

# ---- what the demo injects (collector/demo, docs/DEMO.md) ----
SEED = 1
SWAPPED = {(4, "ens6f0np0"), (4, "ens6f1np1"), (4, "ens1f0np0"), (4, "ens1f1np1"),
           (3, "ens6f0np0"), (3, "ens6f1np1"), (2, "ens1f0np0"), (2, "ens1f1np1")}
SWAPPED_LINKS = {"2-4-3", "2-4-4", "3-4-3", "3-4-4"}
DEVICE = {1: "b300-01", 2: "b300-02", 3: "b300-03", 4: "b300-04"}
# (kind, device, port, direction or None)
FAULTS = [("pcie_degraded", "b300-01", "ens7f0np0", None),
          ("ecn_spike", "spine1", "swp3", "tx"),
          ("cnp_spike", "b300-02", "ens3f0np0", "tx"),
          ("burst", "spine1", "swp5", "tx"),
          ("reorder_spike", "b300-03", "ens5f1np1", "rx"),
          ("microburst", "b300-01", "ens2f0np0", "tx"),
          ("microburst", "b300-02", "ens2f0np0", "rx"),
          ("queue_peak", "leaf2", "et-0/0/3", "tx")] + \
         [("cable_mismatch", DEVICE[n], p, None) for n, p in sorted(SWAPPED)]

def tx_ratio(node, port):
    """DEMO_B300_GBPS over 400G; ens<c+1>f<np>np<np> is device 2c + np."""
    if (node, port) in SWAPPED:
        return 0.0
    m = re.match(r"ens(\d)f(\d)np\d$", port)
    k = 2 * (int(m.group(1)) - 1) + int(m.group(2))
    return (100 + 5 * ((node + k + SEED) % 16)) / 400.0

def link_key(l):
    return "%d-%d-%d" % (l["a"]["node"], l["b"]["node"], l["link"])

def link_want(l):
    return max(tx_ratio(l["a"]["node"], l["a"]["port"]), tx_ratio(l["b"]["node"], l["b"]["port"]))

def mesh_problems(m):
    out = []
    if m["source"] != "plan" or len(m["links"]) != 32 or len(m["nodes"]) != 4:
        return ["mesh shape: source %s, %d links, %d nodes" %
                (m["source"], len(m["links"]), len(m["nodes"]))]
    for l in m["links"]:
        key, want = link_key(l), link_want(l)
        u = l["utilization"]
        if u is None or abs(u - want) > 0.01:
            out.append("link %s utilization %r, want %.4f" % (key, u, want))
        swapped = key in SWAPPED_LINKS
        mm = (l["a"]["mismatches"], l["b"]["mismatches"])
        if l["mismatch"] != swapped or mm != ((["peer"], ["peer"]) if swapped else ([], [])):
            out.append("link %s mismatch %r %r" % (key, l["mismatch"], mm))
    flat = sorted((x["device"], x["port"], x["kind"]) for x in m["mismatches"])
    want = sorted((DEVICE[n], p, "peer") for n, p in SWAPPED)
    if flat != want:
        out.append("mismatches %r" % flat)
    return out

def phase_api(base):
    def seen():
        ev = api(base, "/api/events?limit=1000")["events"]
        have = {(e["kind"], e["device"], e["port"], e["direction"]) for e in ev
                if e["phase"] in ("start", "instant")}
        missing = [f for f in FAULTS if not any(
            h[:3] == f[:3] and (f[3] is None or h[3] == f[3]) for h in have)]
        # the leaf burst: its queue and peak (queue 3 at 62.5 % of 165 MiB)
        qp = [e for e in ev if e["kind"] == "queue_peak" and e["device"] == "leaf2"]
        return missing, qp, ev
    missing = qp = ev = None
    for _ in range(900):  # 90 s: the burst comes 30 s after the start
        try:
            missing, qp, ev = seen()
            if not missing:
                break
        except (OSError, ValueError, KeyError):
            pass
        time.sleep(0.1)
    check(missing == [], "faults not in /api/events: %r" % (missing,))
    check(qp is not None and len(qp) == 1 and qp[0]["port"] == "et-0/0/3" and
          qp[0]["fields"].get("queue_peak_bytes") == 108134400,
          "leaf2 queue_peak events %r" % (qp,))
    if ev is not None:
        cm = [e for e in ev if e["kind"] == "cable_mismatch"]
        check(len(cm) == 8 and all(e["mismatch"] == "peer" for e in cm),
              "cable mismatch events %r" % [(e["device"], e["port"], e["mismatch"]) for e in cm])
    # The mesh: wait for every window to agree (a 1 s window straddling a
    # starved fixture step can be off for one second), 15 s at most.
    probs = ["no answer"]
    for _ in range(75):
        try:
            probs = mesh_problems(api(base, "/api/mesh"))
        except (OSError, ValueError, KeyError) as err:
            probs = ["mesh: %r" % err]
        if not probs:
            break
        time.sleep(0.2)
    check(not probs, "mesh:\n  " + "\n  ".join(probs[:10]))

# ---- DOM ----
def phase_dom(path):
    root = parse(path)
    htm = root.find("html")
    body = root.find("body")
    check(bool(htm) and htm[0].attrs.get("data-js") == "on" and bool(body) and
          int(body[0].attrs.get("data-refreshed", "0")) >= 1, "the page's script ran and refreshed")
    # every injected fault: an event row with its kind, device and port
    ev = [(r.cell("kind").texts(), r.cell("device").texts(), r.cell("port").texts(),
           r.cell("dir").texts(), r.cell("summary").texts())
          for r in rows(root, "events") if r.cell("kind") and r.cell("summary")]
    for kind, dev, port, d in FAULTS:
        hit = [e for e in ev if e[:3] == (kind, dev, port) and (d is None or e[3] == d)]
        check(bool(hit), "no event row %s %s %s %s" % (kind, dev, port, d or ""))
        if kind == "cable_mismatch" and hit:
            check("peer" in hit[0][4], "mismatch row %s %s says %r" % (dev, port, hit[0][4]))
    # the mesh table: 32 links, the swapped ones highlighted, utilization numbers
    ml = rows(root, "mesh-links")
    check(len(ml) == 32, "32 mesh rows, got %d" % len(ml))
    marked = {r.attrs.get("data-key") for r in ml if "mismatch" in r.cls()}
    check(marked == SWAPPED_LINKS, "highlighted mesh rows %r" % sorted(marked))
    for r in ml:
        key = r.attrs.get("data-key")
        a, b = r.cell("a").texts(), r.cell("b").texts()
        na, pa = int(a.split(":")[0]), a.split(":")[1]
        nb, pb = int(b.split(":")[0]), b.split(":")[1]
        want = max(tx_ratio(na, pa), tx_ratio(nb, pb))
        u = r.cell("util")
        v = u.attrs.get("data-value", "") if u else ""
        # a snapshot (no retry as for the API): 1 s windows under load. The
        # text is the value in % to one decimal; an exact half (26.25, the
        # B300 rates from their stamped ethtool files) may round either way
        # (JavaScript's toFixed rounds it up, Python's "%.1f" to even).
        txt = u.texts() if u else ""
        ok = v != "" and abs(float(v) - want) <= max(0.02, 0.08 * want) and \
            re.fullmatch(r"\d+\.\d %", txt) is not None and \
            abs(float(txt[:-2]) - float(v) * 100) <= 0.05 + 1e-9
        check(ok, "mesh row %s utilization %r (%r), want %.4f" % (key, v, u and u.texts(), want))
        if key in SWAPPED_LINKS:
            mm = r.cell("mm").texts()
            check(mm == "%d:%s peer, %d:%s peer" % (na, pa, nb, pb), "row %s says %r" % (key, mm))
    svg = root.find("svg", id="mesh-svg")
    lines = [n for n in svg[0].all() if n.tag == "line"] if svg else []
    red = {n.attrs.get("data-key") for n in lines if "mismatch" in n.cls() and
           n.attrs.get("stroke") == "#d00000"}
    check(len(lines) == 32 and red == SWAPPED_LINKS, "mesh svg: %d lines, red %r" %
          (len(lines), sorted(red)))
    titles = [n.texts() for n in lines]
    check(all(re.search(r", \d+\.\d %", t) for t in titles), "every link's title has its utilization")

# ---- the report ----
def phase_report(out):
    rep = json.load(open(out + "/report.json"))
    T = rep["tables"]
    with open(out + "/report.csv", newline="") as f:
        csv_rows = list(csv.reader(f))
    def csv_table(name):
        out, head = [], None
        for r in csv_rows:
            if r and r[0] == "table":
                head = r
            elif r and r[0] == name and head:
                out.append(dict(zip(head[1:], r[1:])))
        return out
    # bursts: one per cycle (23 s and 53 s, 18.5 s and 48.5 s) of the B300
    # link's microburst at both its ends and of the spine's 2 s burst, and
    # nothing else. The leaves report at Junos cadence (each port every
    # 4 s), where leaf2 et-0/0/3's 300 ms burst is a queue peak (phase_api),
    # not a microburst; its rows are there, at 0 (JSON and CSV)
    b = {(r["device"], r["port"], r["direction"]): r for r in T["bursts"]}
    for d in ("rx", "tx"):
        r = b.get(("leaf2", "et-0/0/3", d))
        check(r is not None and r["microbursts"] == 0 and r["long_bursts"] == 0,
              "json bursts leaf2 et-0/0/3 %s: %r" % (d, r))
    want_b = {("b300-01", "ens2f0np0", "tx"): (2, 0), ("b300-02", "ens2f0np0", "rx"): (2, 0),
              ("spine1", "swp5", "tx"): (0, 2)}
    got_b = {k: (r["microbursts"], r["long_bursts"]) for k, r in b.items()
             if r["microbursts"] or r["long_bursts"]}
    check(got_b == want_b, "json bursts %r" % got_b)
    cb = csv_table("bursts")
    got_cb = {(r["device"], r["port"], r["direction"]): (r["microbursts"], r["long_bursts"])
              for r in cb if r["microbursts"] not in ("", "0") or r["long_bursts"] not in ("", "0")}
    check(got_cb == {k: tuple(str(x) for x in v) for k, v in want_b.items()},
          "csv bursts rows %r" % got_cb)
    # the CNP storms: 2 x (3 s x 100 000/s) plus 20/s background
    cg = {(r["device"], r["port"]): r for r in T["congestion"]}
    c = cg.get(("b300-02", "ens3f0np0"))
    check(c is not None and 600000 <= c["cnp"] <= 602000, "json cnp of the storm port: %r" % c)
    others = [r["cnp"] for k, r in cg.items() if k != ("b300-02", "ens3f0np0") and r["cnp"]]
    check(others and max(others) <= 2000, "background CNPs elsewhere: max %r" % max(others or [0]))
    cc = [r for r in csv_table("congestion") if (r["device"], r["port"]) == ("b300-02", "ens3f0np0")]
    check(len(cc) == 1 and c is not None and int(cc[0]["cnp"]) == c["cnp"], "csv cnp %r" % cc)
    # the fine peaks over 70 %: the bursts' link directions, at most the
    # line rate; leaf2 et-0/0/3's 4 s report interval holding its burst:
    # 0.3 + 0.7 x 0.3 / 4 = 0.3525 when the burst falls into one interval, no
    # less than 0.3 + 0.7 x 0.15 / 4 when it is split over two
    L = T["links"]
    key = lambda r: (r["device"], r["port"], r["direction"])
    high = sorted((key(r), r["max_fine"]) for r in L if (r["max_fine"] or 0) >= 0.7)
    check([k for k, _ in high] == sorted(want_b) and all(v <= 1.0 + 1e-6 for _, v in high),
          "fine peaks over 70 %%: %r" % high)
    want = [("leaf2", "et-0/0/3", "rx"), ("leaf2", "et-0/0/3", "tx")]
    leaf = sorted((key(r), r["max_fine"]) for r in L if key(r) in want)
    check(len(leaf) == 2 and all(0.326 <= v <= 0.3526 for _, v in leaf),
          "leaf2 et-0/0/3 peaks %r" % leaf)
    # a series updated every 4 s has no 1 s windows (rate.h rule 9): the
    # leaves have no 1 s average (the rollup's maximum starts at 0 and no
    # window raises it, so the report reads 0 for unknown: docs/REPORT.md),
    # the spine's (1 s exports) are there
    leaf_1s = [(key(r), r["max_1s_avg"]) for r in L if r["device"] in ("leaf1", "leaf2")
               and r["max_1s_avg"] not in (None, 0)]
    check(leaf_1s == [], "leaf 1 s averages %r" % leaf_1s[:4])
    check(any(r["device"] == "spine1" and (r["max_1s_avg"] or 0) > 0.05 for r in L),
          "spine 1 s averages")
    rest = [r["max_fine"] for r in L if key(r) not in want_b and r["max_fine"] is not None]
    check(rest and max(rest) < 0.7, "no other link reaches the microburst threshold: %r" %
          max(rest or [0]))
    # Constant-load leaf ports (collector/demo/demo_leaf.c: leaf1 at 0.20 with
    # reads jittered +-5 % of 2 s, its copies 1 s away from them, leaf2 at
    # 0.30 without jitter, both from 2 s copies in Junos batches) peak at
    # most 1.25 x their load: each port's copies are placed on its reading
    # lattice and counted over whole periods (rate.h rule 5), so a fine rate
    # is the copies' own (measured 1.000 x with the lattice). What this
    # guards against: a copy's bytes spread over the wrong span
    # (2.15 x), or a copy counted twice (reads that straddle the copies, 1.5 x).
    load = {"leaf1": 0.20, "leaf2": 0.30}
    flat = [r for r in L if r["device"] in load and key(r) not in want]
    high = [(key(r), r["max_fine"], r["max_1s_avg"]) for r in flat
            if (r["max_fine"] or 0) > load[r["device"]] * 1.25 or
            (r["max_1s_avg"] or 0) > load[r["device"]] * 1.25]
    check(len(flat) >= 14 and not high,
          "constant-load leaf ports peak within 1.25 x their load: %d rows, above: %r" %
          (len(flat), high[:4]))
    # B300 nodes: transmit = the sum of DEMO_B300_GBPS over the node's 16
    # interfaces (2200 Gb/s) less its mis-cabled ones
    ports = ["ens%df%dnp%d" % (c + 1, n, n) for c in range(8) for n in (0, 1)]
    nodes = {(r["device"], r["direction"]): r for r in T["b300_nodes"]}
    for n in range(1, 5):
        want_bps = sum(tx_ratio(n, p) for p in ports) * 400e9
        r = nodes.get((DEVICE[n], "tx"))
        check(r is not None and abs(r["mean_bps"] - want_bps) <= 0.02 * want_bps,
              "%s tx mean %r, want %.0f" % (DEVICE[n], r and r["mean_bps"], want_bps))
    rx = sum(r["mean_bps"] for (d, di), r in nodes.items() if di == "rx")
    tx = sum(r["mean_bps"] for (d, di), r in nodes.items() if di == "tx")
    check(abs(rx - tx) <= 0.02 * tx, "the closed mesh receives what it sends: %r %r" % (rx, tx))
    s = " ".join(rep["summary"])
    check("4 microbursts" in s, "summary %r" % s)

def phase_report_dom(path):
    root = parse(path)
    for t in ("links", "bursts", "congestion", "b300_nodes", "saturation"):
        check(len(rows(root, "table-" + t)) >= 1, "report.html table %s has rows" % t)
    tr = [r for r in rows(root, "table-bursts")
          if "et-0/0/3" in r.texts() and "leaf2" in r.texts()]
    check(len(tr) == 2, "report.html: leaf2 et-0/0/3 burst rows %d" % len(tr))
    summ = root.find("section", id="summary") + root.find("div", id="summary") + \
        root.find("ul", id="summary")
    check(bool(summ) and "microbursts" in summ[0].texts(), "report.html summary")
    check(len(root.find("svg")) >= 2, "report.html charts")

mode = sys.argv[1]
try:
    if mode == "api":
        phase_api(sys.argv[2])
    elif mode == "dom":
        phase_dom(sys.argv[2])
    elif mode == "report":
        phase_report(sys.argv[2])
    else:
        phase_report_dom(sys.argv[2])
except (OSError, ValueError, KeyError, IndexError, TypeError, AttributeError) as err:
    check(False, "%s: %r" % (mode, err))
for f in fails:
    print("FAIL: " + f)
print("checks=%d fails=%d" % (checks, len(fails)))
PY

# chrome PROFILE ARGS...: headless, bounded, console to stderr ($tmp/PROFILE.err).
chrome() {
    _prof=$1
    shift
    timeout 60 "$chrome" --headless=new --disable-gpu --no-sandbox --no-first-run \
        --user-data-dir="$tmp/$_prof" --enable-logging=stderr --v=0 "$@" 2>"$tmp/$_prof.err"
}
console_clean() { ! grep -E 'CONSOLE|Uncaught' "$tmp/$1.err"; }

# ---- 2. the API ---------------------------------------------------------------------------
pycheck api "$base"

# ---- 3. the status page in Chromium -------------------------------------------------------
# No query parameters: the page's default event table (100 rows) must hold
# every fault of the demo's first cycle, as a newcomer sees it.
check "chromium dump of /" eval 'chrome js --virtual-time-budget=6000 --dump-dom "$base/" >"$tmp/dom.html"'
pycheck dom "$tmp/dom.html"
check "no console messages (/)" console_clean js
rm -f "$build/demo_status.png"
check "chromium screenshot" chrome shot --hide-scrollbars --virtual-time-budget=6000 \
    --window-size=1280,2400 --screenshot="$build/demo_status.png" "$base/"
check "screenshot is a PNG of some size" eval \
    '[ "$(head -c 8 "$build/demo_status.png" | od -An -tx1 | tr -d " \n")" = 89504e470d0a1a0a ] &&
     [ "$(wc -c <"$build/demo_status.png")" -gt 20000 ]'
check "no console messages (screenshot)" console_clean shot
check "the status page was read before the demo ended" kill -0 "$fsc_pid"

# ---- 4. the report ------------------------------------------------------------------------
check "demo stops after --duration" wait_until 900 eval '! kill -0 "$fsc_pid" 2>/dev/null'
stop_pid "$fsc_pid" 10
fsc_pid=""
check_eq "demo exit status" "$stop_rc" 0
check_log "demo stopped" "event=demo_stopped status=0"
check "rollups kept in the state directory" eval 'ls "$state"/rollup/rollup-*.fsr >/dev/null'
check "b300 trees removed" test ! -e "$state/b300-01"
"$bin" report --state-dir "$state" --out "$state/report" >"$tmp/report.out" 2>"$tmp/report.err"
check_eq "report exit status" "$?" 0
for f in report.html report.csv report.json; do
    check "$f written" test -s "$state/report/$f"
done
pycheck report "$state/report"
check "chromium dump of report.html" \
    eval 'chrome rep --dump-dom "file://$state/report/report.html" >"$tmp/report-dom.html"'
pycheck report-dom "$tmp/report-dom.html"
check "no console messages (report.html)" console_clean rep
check_eq "error lines" "$(grep -c 'level=error' "$tmp/fsc.log")" 0
check_eq "sanitizer reports" \
    "$(cat "$tmp/fsc.log" "$tmp/report.err" | grep -Ec 'AddressSanitizer|LeakSanitizer|runtime error')" 0
if [ "$fails" -ne 0 ]; then
    echo "--- demo log (tail) ---"
    tail -n 30 "$tmp/fsc.log" | cut -c1-300
fi
echo "screenshot: $build/demo_status.png"
summary
