#!/usr/bin/env python3
"""Judges the daemon's rates against tests/interop/gnmi_js/target.js's
formulas (accuracy_gnmi_shapes_test.sh), stdlib only:

  gnmi_shapes_check.py --rw LOG --target-out FILE --scrapes DIR --stop-ms T
                       [--learn-s 20] [--windows-ms 1000,10000,60000]
                       [--verbose] -- TARGET_ARGS...

TARGET_ARGS are the options target.js ran with; the traffic of every port
is recomputed here from them (the formulas of target.js's header, written
again in Python, never from the collector's output). From the target's
stdout (FILE) come only facts of the run: START (`epoch`), the interval, the
read times of the batches it sent, lost or delayed, and when it ended its
streams (`restart`). LOG is what remote_write_lib.py `serve` received
(accuracy_rw_check.load_rw), DIR holds /metrics scrapes named m.<epoch ms>,
T is when the daemon was told to stop (ms), --windows-ms the config's
engine.windows (the default's here).

Truth. traffic_p(t) = bytes port p carried from START to t (ramp and flap
included; a counter clear or a lost report moves no byte). The truth of a
window (a, b] is (traffic(b) - traffic(a)) / (b - a), for a window and for
a fine interval alike. A copied port's fine interval is taken to end at its
stamp and to span one copy period P = 2 s (copy to copy), a live port's one
reporting interval. Each port is judged at its rate level W (docs/DESIGN.md,
"The rate rules", rule 9): the first of --windows-ms at least as long as its
update period (a copied port: 10 s; a live 100 ms port: 1 s).

Bounds (absolute, in B/s):
- window: |got - truth| <= 1 % of the highest rate the port ran at in the
  window, plus
  * ramp (rate r(t) = R + S t, a copied port): S P + S P^2 / (4 W).
    Derivation: the counter is known only at copies, and a device read once
    per copy period (as Junos reports) shows one new copy per read, taken
    anywhere in the period before it: the data locate the copy instants
    only to within P. Shifting every copy, so both window edges, by d <= P
    changes a window's bytes by (r(b) - r(a)) d = S W d: S d <= S P in
    rate, one copy period of rate change (S = 1e8 B/s per s, P = 2 s: 2e8
    B/s, 0.6 % of a 3.2e10 B/s port). Spreading a copy interval's delta
    evenly over it (docs/DESIGN.md, "The rate rules", rule 9) adds, at an
    edge x inside the copy interval [c, c + P],
    (S / 2)(x - c)(c + P - x) <= S P^2 / 8 bytes
    (linear interpolation of a quadratic): two edges, over W.
  * rate step (the flap's start and end, |dr| = the rate before or after
    it): |dr| P / W for each window edge within P of the step, plus, on a
    copied port, |dr| P / W when the step lies inside the window.
    Derivation: the step lies in one copy interval and the data say only
    how many bytes that interval held, not where in it they fell: any split
    is consistent, so one copy period of traffic at the edge (|dr| P bytes)
    is the most an estimate that honours the data can be off (even spreading
    of a placed interval is off by at most |dr| P / 4). And the placement
    shift of the ramp bound applies to a step as well: moving both edges by
    d <= P changes the window's bytes by (r(b) - r(a)) d, which is |dr| d
    when one step lies between the edges, however far from either (a window
    ending 2.5 s after a flap's start, its start in steady traffic, is high
    by one placement shift of line rate: seen at d = 0.95 s, batch 1).
- fine rate: |got - truth| <= 2 % of the highest rate in its interval,
  plus S P on a ramp (the same placement: the interval may be the one
  ending up to P earlier), plus |dr| when a rate step lies within P of the
  interval (which copy interval held the step is then not determined).
- zero: a window, fine rate or /metrics gauge at 0 (below 0.1 % of the
  truth) while the port is moving - traffic all through the interval and
  one copy period either side - is a `zero` failure of its own: a moving
  counter reported as 0.
- presence: every window of the port's level W ending in [first report +
  learn + W, T - lag] (lag = 2 P + interval + 2 s: the copy after the end,
  the report that shows it, remote_write's send) must be there, once;
  windows of a shorter width instead (a copied port's 1 s windows: the data
  cannot say how a 2 s copy's bytes fell into them) are a `window_level`
  failure, judged against their own truth all the same. Fine rates one
  copy period apart (10 %) from first report + learn to T - lag (a live
  port: at most 1 s apart): a longer step is allowed before first report +
  learn (counted as learning_holes) and where the data have a hole of their
  own (below; counted as excused_holes); a copied port's fine rates closer
  than 0.9 P are `fine_too_often` (the data hold one per copy).
- /metrics: each scrape taken after first report + learn + W + lag has
  every port's gauge, within the window bound of one of the four windows of
  width W that ended last (a gauge older than that is stale: wrong).

Faults, as documented in docs/ACCURACY.md ("Independent target: shapes and
faults"):
- lost batch K:B: its ports' interval spans two copies; no byte is lost, so
  the windows keep the full bound and must all be there; a fine-rate step
  over the lost copy is excused.
- late batch: the ports of one batch arrive after the next batch's; per
  series nothing is out of order: no excuse at all.
- clear at C on port p: the interval with the clear is a reset
  (docs/DESIGN.md, "The rate rules", rule 6), its delta may be dropped:
  windows overlapping [C - P, C + P] may be low by up to one copy period of
  traffic (never high) or missing; a fine step over it is excused.
- restart: every series' interval from its last report on the ended stream to
  its first on the new one may be a reset (a new stream_creation_timestamp,
  the same section's rule 4): windows overlapping that span (in value times)
  may be low by the traffic of the span or missing; fine steps over it are
  excused.
- flap: judged with the step bound; the windows must be there. The first
  repeat of the port that stops is held (it may be a read just before its
  copy): a fine-rate step of two copy periods at the flap's start is
  excused.

Prints FAIL lines (at most 12 per kind), per-port lines for ports that
failed (all with --verbose), and summary lines beginning `windows:` (present
= required and there; sent = all at the port's level, learning included),
`fine:`, `metrics:`, and a last line `result: ok` or `result: FAIL (...)`.
Exits 1 on any failure.
"""
import argparse
import math
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from accuracy_rw_check import FINE_NAME, WINDOW_NAME, load_rw  # noqa: E402

COPY_MS = 2000


def port_range(text):
    a, _, b = text.partition("-")
    return (int(a), int(b or a))


def target_args(argv):
    """The target.js options the truth depends on (others are ignored)."""
    ap = argparse.ArgumentParser(prog="TARGET_ARGS", add_help=False)
    ap.add_argument("--ports", type=int, default=24)
    ap.add_argument("--batch-ports", type=int, default=10)
    ap.add_argument("--batch-offsets-ms", default=None)
    ap.add_argument("--copy-phase-ms", type=int, default=0)
    ap.add_argument("--live-ports", type=port_range, default=None)
    ap.add_argument("--rate-unit", type=lambda x: int(float(x)), default=1000000000)
    ap.add_argument("--ramp-ports", type=port_range, default=None)
    ap.add_argument("--ramp-per-s", type=lambda x: int(float(x)), default=100000000)
    ap.add_argument("--clear-port", type=int, default=-1)
    ap.add_argument("--clear-at-s", type=float, default=-1)
    ap.add_argument("--flap-port", type=int, default=-1)
    ap.add_argument("--flap-at-s", type=float, default=-1)
    ap.add_argument("--flap-len-s", type=float, default=-1)
    ap.add_argument("--lose-batch", action="append", default=[])
    ap.add_argument("--late-batch", action="append", default=[])
    ap.add_argument("--restart-at-s", type=float, default=-1)
    a, _ = ap.parse_known_args(argv)
    return a


class Device:
    """target.js's traffic formulas; times are absolute ms, rates B/s."""

    def __init__(self, a, start_ms):
        self.a = a
        self.start = start_ms
        self.flap = None
        if a.flap_port >= 0:
            f = start_ms + round(a.flap_at_s * 1000)
            self.flap = (a.flap_port, f, f + round(a.flap_len_s * 1000))
        self.clear = None
        if a.clear_port >= 0:
            self.clear = (a.clear_port, start_ms + round(a.clear_at_s * 1000))

    @staticmethod
    def _in(r, p):
        return r is not None and r[0] <= p <= r[1]

    def live(self, p):
        return self._in(self.a.live_ports, p)

    def ramp(self, p):
        return self._in(self.a.ramp_ports, p)

    def params(self, p, tx):
        """(R, S): base rate B/s, rise B/s per s."""
        div = 2 if tx else 1
        r = (p + 1) * self.a.rate_unit // div
        s = self.a.ramp_per_s // div if self.ramp(p) else 0
        return r, s

    def _carried(self, r, s, e):
        b = r * e / 1000.0
        if e > 0:
            b += s * e * e / 2e6
        return b

    def traffic(self, p, tx, t):
        r, s = self.params(p, tx)
        e = t - self.start
        b = self._carried(r, s, e)
        if self.flap and self.flap[0] == p and t > self.flap[1]:
            f, up = self.flap[1] - self.start, self.flap[2] - self.start
            b -= self._carried(r, s, min(e, up)) - self._carried(r, s, f)
        return b

    def rate_at(self, p, tx, t):
        if self.flap and self.flap[0] == p and self.flap[1] <= t < self.flap[2]:
            return 0.0
        r, s = self.params(p, tx)
        return r + s * max(t - self.start, 0) / 1000.0

    def mean(self, p, tx, a, b):
        return (self.traffic(p, tx, b) - self.traffic(p, tx, a)) * 1000.0 / (b - a)

    def peak(self, p, tx, a, b):
        """The highest rate in [a, b] (rates are monotone between steps)."""
        ts = [a, b - 1]
        if self.flap and self.flap[0] == p:
            ts += [t for t in (self.flap[1] - 1, self.flap[2]) if a <= t <= b]
        return max(self.rate_at(p, tx, t) for t in ts)

    def moving(self, p, a, b):
        """Traffic all through [a - P, b + P]."""
        return not (self.flap and self.flap[0] == p and self.flap[1] < b + COPY_MS and
                    self.flap[2] > a - COPY_MS)

    def steps(self, p, tx):
        """(time, |rate change|) of the port's rate steps."""
        if not (self.flap and self.flap[0] == p):
            return []
        return [(self.flap[1], self.rate_at(p, tx, self.flap[1] - 1)),
                (self.flap[2], self.rate_at(p, tx, self.flap[2]))]

    def copy_at_or_before(self, t):
        base = self.start + self.a.copy_phase_ms
        return base + (t - base) // COPY_MS * COPY_MS

    def value_time(self, p, read_ms):
        return read_ms if self.live(p) else self.copy_at_or_before(read_ms)


def read_target_out(path):
    """Facts of the run from target.js's stdout."""
    out = {"start": None, "interval": None, "batches": [], "restarts": []}
    with open(path) as f:
        for line in f:
            m = re.match(r"epoch start_ms=(\d+) ", line)
            if m:
                out["start"] = int(m.group(1))
            m = re.match(r"cadence call=1 interval_ms=(\d+) ", line)
            if m:
                out["interval"] = int(m.group(1))
            m = re.match(r"batch call=(\d+) k=(\d+) b=(\d+) ports=(\d+)-(\d+) read_ms=(\d+) (\S+)", line)
            if m:
                g = m.groups()
                out["batches"].append({"call": int(g[0]), "k": int(g[1]), "b": int(g[2]),
                                       "ports": (int(g[3]), int(g[4])), "read": int(g[5]),
                                       "what": g[6]})
            m = re.match(r"restart call=(\d+) at_ms=(\d+)", line)
            if m:
                out["restarts"].append((int(m.group(1)), int(m.group(2))))
    return out


class Judge:
    def __init__(self, dev, facts, widths, learn_ms, stop_ms, verbose):
        self.dev = dev
        self.widths = widths
        self.verbose = verbose
        self.fails = {}
        self.shown = {}
        self.interval = facts["interval"] or COPY_MS
        sent = [b for b in facts["batches"] if b["what"] != "lost"]
        self.first_read = min(b["read"] for b in sent) if sent else stop_ms
        self.t_learn = self.first_read + learn_ms
        self.lag = 2 * COPY_MS + self.interval + 2000
        self.t_req_end = stop_ms - self.lag
        self.zones = self._zones(facts)

    # ---- faults: where the data themselves have a hole ---------------------

    def _zones(self, facts):
        """Per port: [(kind, a, b)] value-time spans of the run's faults."""
        dev, a = self.dev, self.dev.a
        zones = {p: [] for p in range(a.ports)}
        for key in a.lose_batch:
            k, b = (int(x) for x in key.split(":"))
            for bt in facts["batches"]:
                if bt["k"] == k and bt["b"] == b:
                    for p in range(bt["ports"][0], bt["ports"][1] + 1):
                        r = bt["read"]
                        zones[p].append(("lost", dev.value_time(p, r - self.interval),
                                         dev.value_time(p, r + self.interval)))
        if dev.clear:
            p, c = dev.clear
            zones[p].append(("clear", c - COPY_MS, c + COPY_MS))
        if dev.flap:
            # A busy port that stops repeats its value: the engine cannot
            # tell that from a read just before its copy (a straddle,
            # docs/DESIGN.md, "The rate rules", rule 5) and holds the first
            # repeat; the zero comes with the next reading, one fine rate over
            # two copy periods.
            p, f = dev.flap[0], dev.flap[1]
            zones[p].append(("stop", f - COPY_MS, f + 2 * COPY_MS))
        for call, at in facts["restarts"]:
            for p in range(a.ports):
                before = [b["read"] for b in facts["batches"] if b["call"] == call and
                          b["what"] != "lost" and b["ports"][0] <= p <= b["ports"][1] and b["read"] <= at]
                after = [b["read"] for b in facts["batches"] if b["call"] > call and
                         b["what"] != "lost" and b["ports"][0] <= p <= b["ports"][1]]
                lo = dev.value_time(p, max(before)) if before else at - COPY_MS
                hi = dev.value_time(p, min(after)) if after else at + 10 * COPY_MS
                zones[p].append(("restart", lo, hi))
        return zones

    def zone_hits(self, p, a, b, kinds):
        return [z for z in self.zones[p] if z[0] in kinds and z[1] < b and z[2] > a]

    # ---- bookkeeping -------------------------------------------------------

    def fail(self, kind, msg):
        self.fails[kind] = self.fails.get(kind, 0) + 1
        if self.fails[kind] <= 12:
            print("FAIL: %s: %s" % (kind, msg))

    # ---- bounds ------------------------------------------------------------

    def window_bound(self, p, tx, a, b):
        """(truth, tolerance, low_allowance, may_miss) of the window (a, b]."""
        dev, w_s = self.dev, (b - a) / 1000.0
        truth = dev.mean(p, tx, a, b)
        tol = 0.01 * dev.peak(p, tx, a, b)
        _, s = dev.params(p, tx)
        tol += s * COPY_MS / 1000.0 + s * (COPY_MS / 1000.0) ** 2 / (4 * w_s)
        for ts, dr in dev.steps(p, tx):
            tol += sum(dr * (COPY_MS / 1000.0) / w_s for x in (a, b) if abs(x - ts) <= COPY_MS)
            if not dev.live(p) and a < ts <= b:
                tol += dr * (COPY_MS / 1000.0) / w_s
        low = 0.0
        hits = self.zone_hits(p, a, b, ("clear", "restart"))
        for _, za, zb in hits:
            low += dev.peak(p, tx, za, zb) * (zb - za) / 1000.0 / w_s
        return truth, tol, low, bool(hits)

    # ---- remote_write windows ----------------------------------------------

    def level(self, p):
        """The port's rate level: the first configured window at least as long
        as its update period (docs/DESIGN.md, "The rate rules", rule 9): the
        reading interval for a live port, the copy period for a copied one."""
        period = self.interval if self.dev.live(p) else max(self.interval, COPY_MS)
        return next((w for w in self.widths if w >= period), self.widths[-1])

    def windows(self, series, p, tx, name, stats):
        label = "%s %s" % (name, "tx" if tx else "rx")
        pts = series.get((WINDOW_NAME, name, "tx" if tx else "rx"), [])
        times = [t for t, _ in pts]
        if len(set(times)) != len(times):
            self.fail("window_twice", "%s: a window sent twice" % label)
        got = dict(pts)
        w = self.level(p)
        # The width the engine sent this series at: its level when every
        # stamp is a multiple of it, else the longest shorter width that
        # divides every stamp (a window is stamped with its own end).
        width = w
        if any(t % w for t in got):
            width = next((x for x in reversed(self.widths) if x < w and not any(t % x for t in got)), None)
        if width is None:
            self.fail("window_misaligned", "%s: window stamps %s are no window ends" %
                      (label, ",".join(str(t) for t in sorted(got)[:4])))
            got = {}
        off_level = []
        for t in sorted(got):
            v = got[t]
            if width != w:
                off_level.append(width)
            truth, tol, low, _ = self.window_bound(p, tx, t - width, t)
            err = abs(v - truth) / truth if truth else abs(v)
            kind = "ramp" if self.dev.ramp(p) else "steady"
            if truth > 0 and v <= 1e-3 * truth and self.dev.moving(p, t - width, t):
                self.fail("window_zero", "%s %d ms window ending %d: %.6g B/s, truth %.6g" %
                          (label, width, t, v, truth))
                stats["zero"] += 1
            elif not (truth - tol - low <= v <= truth + tol):
                self.fail("window_wrong", "%s %d ms window ending %d: %.6g B/s, truth %.6g +- %.3g%s "
                          "(%.3f %%)" % (label, width, t, v, truth, tol, " - %.3g" % low if low else "",
                                         100 * err))
                stats["wrong"] += 1
            elif not low and not self.dev.steps(p, tx) and width == w:
                stats["max_err_" + kind] = max(stats["max_err_" + kind], err)
            if width == w:
                stats["present"] += 1
        if off_level:
            # The data cannot determine windows shorter than the update
            # period (a 2 s copy says nothing of how its bytes fell into 1 s).
            self.fail("window_level", "%s: %d windows of %d ms, want %d ms windows (the port's "
                      "update period)" % (label, len(off_level), min(off_level), w))
            stats["off_level"] += len(off_level)
        start = int(math.ceil((self.t_learn + w) / w)) * w
        required = 0
        for t in range(start, self.t_req_end + 1, w):
            if self.window_bound(p, tx, t - w, t)[3]:
                continue  # a reset in it: may be withheld
            required += 1
            if t not in got or width != w:
                stats["missing"] += 1
                self.fail("window_missing", "%s: no %d ms window ending %d (%.1f s after START)" %
                          (label, w, t, (t - self.dev.start) / 1000.0))
        stats["required"] += required

    # ---- remote_write fine rates -------------------------------------------

    def fine(self, series, p, tx, name, stats):
        dev = self.dev
        label = "%s %s" % (name, "tx" if tx else "rx")
        pts = sorted(set(series.get((FINE_NAME, name, "tx" if tx else "rx"), [])))
        span = self.interval if dev.live(p) else max(self.interval, COPY_MS)
        for t, v in pts:
            a = t - span
            truth = dev.mean(p, tx, a, t)
            _, s = dev.params(p, tx)
            tol = 0.02 * dev.peak(p, tx, a, t) + s * COPY_MS / 1000.0
            tol += sum(dr for ts, dr in dev.steps(p, tx) if a - COPY_MS <= ts <= t + COPY_MS)
            stats["fine"] += 1
            if truth > 0 and v <= 1e-3 * truth and dev.moving(p, a, t):
                self.fail("fine_zero", "%s fine rate at %d: %.6g B/s, truth %.6g" % (label, t, v, truth))
                stats["fine_zero"] += 1
            elif abs(v - truth) > tol:
                self.fail("fine_wrong", "%s fine rate at %d: %.6g B/s, truth %.6g +- %.3g" %
                          (label, t, v, truth, tol))
                stats["fine_wrong"] += 1
            elif truth > 0 and not dev.steps(p, tx):
                stats["max_fine_err"] = max(stats["max_fine_err"], abs(v - truth) / truth)
            if s and not dev.steps(p, tx):
                # On a ramp the error says where the interval really was:
                # it ended (truth - got) / S seconds before the stamp.
                stats["shifts"].append((truth - v) / s * 1000.0)
        ts = [t for t, _ in pts]
        if not ts:
            if self.t_req_end > self.t_learn:
                self.fail("fine_missing", "%s: no fine rate at all" % label)
                stats["holes"] += 1
            return
        max_step = 1000 if dev.live(p) else 1.1 * span
        if ts[0] > max(self.t_learn, self.first_read) + max_step:
            self.fail("fine_missing", "%s: first fine rate at %.1f s after START, learning ends at %.1f s" %
                      (label, (ts[0] - dev.start) / 1000.0, (self.t_learn - dev.start) / 1000.0))
            stats["holes"] += 1
        if ts[-1] < self.t_req_end - max_step:
            self.fail("fine_missing", "%s: last fine rate at %.1f s after START, want one by %.1f s" %
                      (label, (ts[-1] - dev.start) / 1000.0, (self.t_req_end - dev.start) / 1000.0))
            stats["holes"] += 1
        short = 0
        for a, b in zip(ts, ts[1:]):
            if b - a <= max_step and (dev.live(p) or b - a >= 0.9 * span):
                continue
            if b - a < 0.9 * span:
                short += 1  # more fine rates than copies: a copy period split up
            elif b <= self.t_learn:
                stats["learning_holes"] += 1
            elif self.zone_hits(p, a - COPY_MS, b + COPY_MS, ("lost", "clear", "restart", "stop")):
                stats["excused_holes"] += 1
            else:
                stats["holes"] += 1
                self.fail("fine_missing", "%s fine rates %d -> %d (%.1f s after START): %d ms apart" %
                          (label, a, b, (a - dev.start) / 1000.0, b - a))
        if short:
            self.fail("fine_too_often", "%s: %d fine rates less than 0.9 x %d ms after the one before "
                      "(one per copy period is all the data hold)" % (label, short, span))
            stats["too_often"] += short

    # ---- /metrics ----------------------------------------------------------

    def metrics(self, scrapes, stats):
        pat = re.compile(r'^fabric_port_bytes_per_second\{([^}]*)\} (\S+)')
        for ts, path in scrapes:
            if ts < self.t_learn + min(self.level(p) for p in range(self.dev.a.ports)) + self.lag:
                continue
            stats["scrapes"] += 1
            seen = {}
            with open(path) as f:
                for line in f:
                    m = pat.match(line)
                    if not m:
                        continue
                    lab = dict(re.findall(r'(\w+)="([^"]*)"', m.group(1)))
                    seen[(lab.get("port"), lab.get("direction"))] = float(m.group(2))
            for p in range(self.dev.a.ports):
                w = self.level(p)
                if ts < self.t_learn + w + self.lag:
                    continue
                for tx in (False, True):
                    name, d = "et-0/0/%d" % p, "tx" if tx else "rx"
                    end = ts // w * w
                    # The gauge holds the last completed window: one of the
                    # last four (a copied port's completes a report later).
                    cands = [self.window_bound(p, tx, e - w, e) for e in range(end - 3 * w, end + 1, w)]
                    if (name, d) not in seen:
                        if not any(c[3] for c in cands):
                            stats["m_missing"] += 1
                            self.fail("metrics_missing", "scrape %d: no rate of %s %s" % (ts, name, d))
                        continue
                    v = seen[(name, d)]
                    if all(c[0] > 0 and v <= 1e-3 * c[0] for c in cands) and \
                            self.dev.moving(p, end - 4 * w, end):
                        stats["m_zero"] += 1
                        self.fail("metrics_zero", "scrape %d: %s %s at %.6g B/s, truth %.6g" %
                                  (ts, name, d, v, cands[-1][0]))
                    elif not any(c[0] - c[1] - c[2] <= v <= c[0] + c[1] for c in cands):
                        stats["m_wrong"] += 1
                        self.fail("metrics_wrong", "scrape %d: %s %s at %.6g B/s, truths of the last "
                                  "%d ms windows %s" % (ts, name, d, v, w,
                                                        ",".join("%.6g" % c[0] for c in cands)))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rw", required=True)
    ap.add_argument("--target-out", required=True)
    ap.add_argument("--scrapes", required=True)
    ap.add_argument("--stop-ms", type=int, required=True)
    ap.add_argument("--learn-s", type=float, default=20.0)
    ap.add_argument("--windows-ms", default="1000,10000,60000")
    ap.add_argument("--verbose", action="store_true")
    ap.add_argument("target", nargs=argparse.REMAINDER)
    a = ap.parse_args()
    targs = target_args([x for x in a.target if x != "--"])
    facts = read_target_out(a.target_out)
    if facts["start"] is None:
        print("FAIL: no epoch line in %s" % a.target_out)
        print("result: FAIL (target output)")
        return 1
    dev = Device(targs, facts["start"])
    widths = sorted(int(x) for x in a.windows_ms.split(","))
    j = Judge(dev, facts, widths, int(a.learn_s * 1000), a.stop_ms, a.verbose)
    series, bad = load_rw(a.rw)
    for why in bad:
        j.fail("remote_write_request", why)

    keys = ("required", "present", "missing", "wrong", "zero", "off_level", "fine", "fine_wrong",
            "fine_zero", "holes", "too_often", "learning_holes", "excused_holes")
    total = dict.fromkeys(keys, 0)
    total.update(max_err_steady=0.0, max_err_ramp=0.0, max_fine_err=0.0)
    shifts = []
    none = 0  # series that had required windows and got none of them
    lines = []
    for p in range(targs.ports):
        for tx in (False, True):
            st = dict.fromkeys(keys, 0)
            st.update(max_err_steady=0.0, max_err_ramp=0.0, max_fine_err=0.0, shifts=shifts)
            name = "et-0/0/%d" % p
            j.windows(series, p, tx, name, st)
            j.fine(series, p, tx, name, st)
            for k in keys:
                total[k] += st[k]
            if st["required"] and st["missing"] == st["required"]:
                none += 1
            for k in ("max_err_steady", "max_err_ramp", "max_fine_err"):
                total[k] = max(total[k], st[k])
            bad_port = st["missing"] or st["wrong"] or st["zero"] or st["off_level"] or \
                st["fine_wrong"] or st["fine_zero"] or st["holes"] or st["too_often"]
            shape = "live" if dev.live(p) else "copied"
            shape += "+ramp" if dev.ramp(p) else ""
            shape += "+flap" if dev.flap and dev.flap[0] == p else ""
            shape += "+clear" if dev.clear and dev.clear[0] == p else ""
            r, _ = dev.params(p, tx)
            line = ("port %s %s (%s, %.4g B/s): %d ms windows %d/%d wrong=%d zero=%d other_width=%d "
                    "max_err=%.5f; fine=%d wrong=%d zero=%d holes=%d too_often=%d learning=%d "
                    "excused=%d max_fine_err=%.5f" %
                    (name, "tx" if tx else "rx", shape, r, j.level(p), st["present"], st["required"],
                     st["wrong"], st["zero"], st["off_level"],
                     max(st["max_err_steady"], st["max_err_ramp"]), st["fine"], st["fine_wrong"],
                     st["fine_zero"], st["holes"], st["too_often"], st["learning_holes"],
                     st["excused_holes"], st["max_fine_err"]))
            if bad_port or a.verbose:
                lines.append(line)
    scrapes = []
    for fn in os.listdir(a.scrapes):
        m = re.match(r"m\.(\d+)$", fn)
        if m:
            scrapes.append((int(m.group(1)), os.path.join(a.scrapes, fn)))
    mst = {"scrapes": 0, "m_missing": 0, "m_wrong": 0, "m_zero": 0}
    j.metrics(sorted(scrapes), mst)

    for line in lines[:70]:
        print(line)
    if len(lines) > 70:
        print("... %d more port lines" % (len(lines) - 70))
    print("windows: required=%d present=%d missing=%d sent=%d wrong=%d zero=%d other_width=%d "
          "max_err_steady=%.5f max_err_ramp=%.5f; series without any required window: %d of %d" %
          (total["required"], total["required"] - total["missing"], total["missing"], total["present"],
           total["wrong"], total["zero"], total["off_level"], total["max_err_steady"],
           total["max_err_ramp"], none, 2 * targs.ports))
    print("fine: n=%d wrong=%d zero=%d holes=%d too_often=%d learning_holes=%d excused_holes=%d "
          "max_fine_err=%.5f" %
          (total["fine"], total["fine_wrong"], total["fine_zero"], total["holes"], total["too_often"],
           total["learning_holes"], total["excused_holes"], total["max_fine_err"]))
    if shifts:
        print("ramp fine rates: the interval ended %.0f ms (min %.0f, max %.0f) before its stamp "
              "(the copy instants as the engine placed them; 0 = exact)" %
              (sum(shifts) / len(shifts), min(shifts), max(shifts)))
    print("metrics: scrapes=%d missing=%d wrong=%d zero=%d" %
          (mst["scrapes"], mst["m_missing"], mst["m_wrong"], mst["m_zero"]))
    print("judged: first report %.1f s after START, learning to %.1f s, windows required to %.1f s" %
          ((j.first_read - dev.start) / 1000.0, (j.t_learn - dev.start) / 1000.0,
           (j.t_req_end - dev.start) / 1000.0))
    if total["required"] == 0:
        j.fail("window_missing", "the run was too short: no window required")
    if j.fails:
        print("result: FAIL (%s)" % ", ".join("%s=%d" % kv for kv in sorted(j.fails.items())))
        return 1
    print("result: ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
