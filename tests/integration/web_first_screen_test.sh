#!/bin/sh
# shellcheck disable=SC2016 # single-quoted conditions are expanded by eval
# The status page's first screen names every active fault of the demo, in
# words (docs/API.md, "The page"; docs/DEMO.md, "What to look at").
#   web_first_screen_test.sh FABRICSCOPE PYTHON3 BUILD_DIR
#
# 1. `fabricscope demo --duration 120 --listen 127.0.0.1:0`: every port is
#    chosen free (the listener by the kernel, the simulators' by the demo);
#    the bound port is read from the log. What it injects is read from its
#    own banner ("Fault schedule": device, port, event kind, what), so the
#    expected words come from the demo's fault definitions
#    (collector/demo/demo_schedule.c), not from the page.
# 2. /api/health is polled (60 s at most) until the standing faults are
#    active (the swapped cables, the degraded PCIe link) and one of the
#    scheduled CNP / ECN / reorder faults is; the transient ones active then
#    are the set the page must name.
# 3. Headless Chromium (Debian `chromium`) over the DevTools protocol
#    (tests/tools/cdp_pipe.py) opens `/` with a 1400 x 1000 viewport. The
#    browser computes where each condition line lies; every line that names
#    a fault must end above 1000 px (the first screen): the swapped cables
#    with their device and both physical ports, the PCIe link with its
#    device, port and trained and maximum speed and width (numbers as the
#    definition gives them), each active transient fault with its device,
#    port and kind word (it may have ended by then: a recent line counts).
#    Every such line carries a date-and-zone time. The collector's own
#    tables start below the first screen. Checked twice: as the server
#    rendered it, and after the page's script refreshed it (bounded wait on
#    data-refreshed). No console message; a screenshot is kept as
#    BUILD_DIR/web_first_screen.png.
# Every wait is bounded; the demo and the browser are stopped by PID.
set -u
bin=$1
py=$2
build=$3
# shellcheck source=lib.sh source-path=SCRIPTDIR
. "$(dirname "$0")/lib.sh"
lib_init

need_chromium

# Its own state home: the demo keeps (and locks) its rollups there, and a
# demo running elsewhere on the machine must not make this one exit.
XDG_STATE_HOME="$tmp/xdg" "$bin" demo --duration 120 --listen 127.0.0.1:0 >"$tmp/fsc.out" \
    2>"$tmp/fsc.log" &
fsc_pid=$!
# Sanitizer builds write the 4 x 16 device trees slowly: 30 s at most.
mport=$(wait_for "$tmp/fsc.log" \
    's/.*event=exporter_started exporter=prometheus .* port=\([0-9]*\).*/\1/p' 300) || {
    fail "the demo did not start its exporter"
    cut -c1-300 "$tmp/fsc.log"
    exit 1
}
check "the demo printed its fault schedule" wait_until 100 grep -q '^Stop with' "$tmp/fsc.out"

cat >"$tmp/check.py" <<'PY'
import json, os, re, sys, time, urllib.request
sys.path.insert(0, os.environ["FSC_TEST_TOOLS"])
from cdp_pipe import Browser  # noqa: E402
base, banner, chrome, tmp, shot = sys.argv[1:6]
W, H = 1400, 1000
fails, checks = [], 0

def check(ok, what):
    global checks
    checks += 1
    if not ok:
        fails.append(what)

def api(path):
    with urllib.request.urlopen(base + path, timeout=10) as r:
        return json.loads(r.read().decode())

# ---- the demo's faults, from its banner -----------------------------------------------
ROW = re.compile(r"^\s+(always|\S+ s)\s+(\S+)\s+(\S+)\s+([a-z_]+)\s+(.*)$")
faults, inside = [], False
for line in open(banner):
    if line.startswith("Fault schedule"):
        inside = True
    elif inside and not line.strip():
        break
    elif inside:
        m = ROW.match(line.rstrip("\n"))
        if m:
            faults.append({"always": m.group(1) == "always", "device": m.group(2),
                           "port": m.group(3), "kind": m.group(4), "what": m.group(5)})
SPEEDS = re.compile(r"(\d+(?:\.\d+)?) GT/s x(\d+)")
def speeds(text):
    return [(float(a), int(b)) for a, b in SPEEDS.findall(text)]
swap = [f for f in faults if f["always"] and f["kind"] == "cable_mismatch"]
pcie = [f for f in faults if f["always"] and f["kind"] == "pcie_degraded"]
TRANSIENT = ("cnp_spike", "ecn_spike", "reorder_spike")
storms = [f for f in faults if not f["always"] and f["kind"] in TRANSIENT]
check(len(swap) == 1 and len(pcie) == 1 and storms, "the banner's faults: %r" % faults)
if fails:  # nothing to look for
    print("FAIL: " + fails[0])
    print("checks=%d fails=%d" % (checks, len(fails)))
    sys.exit(0)
swap, pcie = swap[0], pcie[0]
swap_ports = [int(p) for p in re.findall(r"\d+", swap["port"])]  # "ports-4-5"
pcie_speeds = speeds(pcie["what"])  # trained, then max
check(len(swap_ports) == 2 and len(pcie_speeds) == 2, "fault definitions %r %r" % (swap, pcie))

# ---- 2. wait until they are active --------------------------------------------------------
def active_storms(h):
    return [f for f in storms if any(c["kind"] == f["kind"] and c["device"] == f["device"] and
                                     c["port"] == f["port"] for c in h["active"])]
def standing(h):
    kinds = {(c["kind"], c["device"], c.get("port")) for c in h["active"]}
    sw = any(c["kind"] == "cables_swapped" and c["device"] == swap["device"] and
             sorted(c["physical_ports"]) == sorted(swap_ports) for c in h["active"])
    return sw and ("pcie_degraded", pcie["device"], pcie["port"]) in kinds
want, h = None, None
for _ in range(600):  # 60 s: the first storm starts 8 s after the simulators
    try:
        h = api("/api/health")
        if standing(h) and active_storms(h):
            want = active_storms(h)
            break
    except (OSError, ValueError, KeyError):
        pass
    time.sleep(0.1)
check(want is not None, "the demo's standing faults and a storm active in /api/health: %r" %
      (h and [c["sentence"] for c in h["active"]]))
want = want or []

# ---- 3. the first screen, in the browser ----------------------------------------------------
# Where every condition line and the collector's tables are, in page
# coordinates; the text of the first screen as the layout placed it.
LAYOUT = r"""(() => {
  const y = (r) => r.top + window.scrollY;
  const conds = Array.from(document.querySelectorAll('li.cond')).map((li) => {
    const r = li.getBoundingClientRect();
    return {top: y(r), bottom: y(r) + r.height, state: li.getAttribute('data-state'),
            text: li.textContent.replace(/\s+/g, ' ')};
  });
  const d = document.getElementById('internals');
  return {width: window.innerWidth, height: window.innerHeight, conds: conds,
          internals: d ? y(d.getBoundingClientRect()) : null,
          refreshed: Number(document.body.getAttribute('data-refreshed') || 0)};
})()"""
WHEN = re.compile(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC")

def first_screen(lay, label):
    check(lay["width"] == W and lay["height"] == H, "%s: viewport %rx%r" %
          (label, lay["width"], lay["height"]))
    seen = [c for c in lay["conds"] if c["bottom"] <= H]
    def named(what, ok, active_only):
        hit = [c for c in seen if ok(c["text"]) and (c["state"] == "active" or not active_only)]
        check(len(hit) >= 1, "%s: no line above %d px names %s; lines: %r" %
              (label, H, what, [(round(c["bottom"]), c["text"][:160]) for c in lay["conds"]]))
        for c in hit:
            check(WHEN.search(c["text"]) is not None, "%s: no date and zone in %r" %
                  (label, c["text"]))
    named("the swapped cables of %s ports %s" % (swap["device"], swap_ports),
          lambda t: swap["device"] in t and "swapped" in t and
          all(re.search(r"\bport %d\b" % p, t) for p in swap_ports), True)
    named("the PCIe link of %s %s at %r" % (pcie["device"], pcie["port"], pcie_speeds),
          lambda t: pcie["device"] in t and pcie["port"] in t and "PCIe" in t and
          speeds(t) == pcie_speeds, True)
    for f in want:
        word = f["kind"].split("_")[0]  # ecn, cnp, reorder
        named("the %s of %s %s" % (f["kind"], f["device"], f["port"]),
              lambda t, f=f, word=word: f["device"] in t and f["port"] in t and
              word in t.lower(), False)
    check(lay["internals"] is not None and lay["internals"] >= H,
          "%s: the collector's tables start at %r, inside the first screen" %
          (label, lay["internals"]))

try:
    with Browser(chrome, os.path.join(tmp, "profile"), os.path.join(tmp, "chrome.err")) as b:
        page = b.open(base + "/", W, H)
        first_screen(page.evaluate(LAYOUT), "as served")
        page.screenshot(shot)
        lay = None
        for _ in range(150):  # the script refreshes every 5 s: 15 s at most
            lay = page.evaluate(LAYOUT)
            if lay["refreshed"] >= 1:
                break
            time.sleep(0.1)
        check(lay["refreshed"] >= 1, "the page's script did not refresh within 15 s")
        first_screen(lay, "after the script's refresh")
        check(b.console == [], "console: %r" % b.console)
except (OSError, RuntimeError, TimeoutError, ValueError, KeyError, IndexError) as err:
    check(False, "chromium over the DevTools protocol: %r" % err)
for f in fails:
    print("FAIL: " + f)
print("checks=%d fails=%d" % (checks, len(fails)))
PY

rm -f "$build/web_first_screen.png"
pycheck "http://127.0.0.1:$mport" "$tmp/fsc.out" "$chrome" "$tmp" "$build/web_first_screen.png"
check "screenshot kept" test -s "$build/web_first_screen.png"
check "the demo ran the whole time" kill -0 "$fsc_pid"
stop_pid "$fsc_pid" 100
fsc_pid=""
check_eq "demo exit status" "$stop_rc" 0
check_eq "error lines" "$(grep -c 'level=error' "$tmp/fsc.log")" 0
check_eq "sanitizer reports" "$(grep -Ec 'AddressSanitizer|LeakSanitizer|runtime error' "$tmp/fsc.log")" 0
if [ "$fails" -ne 0 ]; then
    echo "--- demo log (tail) ---"
    tail -n 20 "$tmp/fsc.log" | cut -c1-300
fi
echo "screenshot: $build/web_first_screen.png"
summary
