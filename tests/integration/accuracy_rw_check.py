#!/usr/bin/env python3
"""Checks what remote_write_lib.py `serve` logged in the Junos accuracy run
(accuracy_junos_e2e_test.sh), stdlib only:

  accuracy_rw_check.py LOG RATE WINDOW_MS COPY_MS [LEARN_MS [OVERRUNS]]

RATE is the truth of every port's byte rate (bytes/s, from the simulator's
formula: utilization x 400 Gb/s / 8), or @FILE: a truth per series, one
line "PORT DIRECTION RATE" each (a series without a line is a miss;
gnmi_interop_junos_test.sh, whose ports run at different rates). For each
port series of
fabric_port_bytes_per_second: every timestamp a multiple of WINDOW_MS (the
window's own end), none twice, none missing between the first and the last,
every value within 1 % of RATE. For fabric_port_fine_bytes_per_second: every
timestamp once, consecutive ones COPY_MS apart within 10 %, every value
within 2 % of RATE; with LEARN_MS, a longer step that ends within LEARN_MS
of the first fine rate on the log is allowed and counted as a learning hole
(the copy grid is still learning the copy instants: intervals it cannot place
are no fine evidence, docs/DESIGN.md, "The rate rules", rule 5, so no fine
rate is sent for them).
OVERRUNS is a file of the simulator's skipped ticks, one line "TICK_MS
NEXT_MS" each (gnmi_sim --verbose logs them when its client reads too slowly
to take every tick): a longer step that overlaps one is allowed and counted
as an overrun hole (no sample was taken there, so the interval holds copies
nobody can place). Prints one FAIL line per miss and a summary line
"ports=N windows=N fine=N misses=N learning_holes=N overrun_holes=N
max_window_err=E max_fine_err=E" (the largest relative errors); exits 1 on a
miss.

load_rw() and RATE_NAMES are shared with gnmi_shapes_check.py, which judges
the same log against per-window truths from target.js's formulas.
"""
import json
import sys

WINDOW_NAME = "fabric_port_bytes_per_second"
FINE_NAME = "fabric_port_fine_bytes_per_second"
RATE_NAMES = (WINDOW_NAME, FINE_NAME)


def load_rw(log, names=RATE_NAMES):
    """The port rate points remote_write_lib.py `serve` logged in LOG:
    ({(name, port, direction): [(t_ms, value), ...]} in arrival order,
    [one sentence per request the receiver refused or could not decode])."""
    series = {}
    bad = []
    with open(log) as f:
        for line in f:
            rec = json.loads(line)
            if rec["status"] != 200 or isinstance(rec["series"], str):
                bad.append("request %d: status %s, %s" % (rec["n"], rec["status"],
                                                         str(rec["series"])[:80]))
                continue
            for s in rec["series"]:
                labels = dict(s["labels"])
                name = labels.get("__name__")
                if name not in names:
                    continue
                key = (name, labels.get("port"), labels.get("direction"))
                series.setdefault(key, []).extend((t, v) for v, t in s["samples"])
    return series, bad


def main():
    log, rate_arg, win_ms, copy_ms = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
    learn_ms = int(sys.argv[5]) if len(sys.argv) > 5 else 0
    overruns = []
    if len(sys.argv) > 6:
        with open(sys.argv[6]) as f:
            overruns = [tuple(int(x) for x in line.split()) for line in f if line.strip()]
    truth = {}
    if rate_arg.startswith("@"):
        with open(rate_arg[1:]) as f:
            for line in f:
                port, direction, r = line.split()
                truth[(port, direction)] = float(r)
    series, bad = load_rw(log)
    for why in bad:
        print("FAIL: " + why)
    misses = 0
    windows = fine = holes = overrun_holes = 0
    fine_times = [t for (name, _, _), pts in series.items()
                  if name == FINE_NAME for t, _ in pts]
    first_fine = min(fine_times) if fine_times else 0
    max_win = max_fine = 0.0
    ports = set()

    def miss(msg):
        nonlocal misses
        misses += 1
        if misses <= 20:
            print("FAIL: " + msg)

    for (name, port, direction), pts in sorted(series.items()):
        ports.add((port, direction))
        if not truth:
            rate = float(rate_arg)
        elif (port, direction) in truth:
            rate = truth[(port, direction)]
        else:
            miss("%s %s %s: no truth for the series" % (name, port, direction))
            continue
        times = [t for t, _ in pts]
        if len(set(times)) != len(times):
            miss("%s %s %s: a timestamp sent twice" % (name, port, direction))
        pts = sorted(set(pts))
        if name == WINDOW_NAME:
            for t, v in pts:
                windows += 1
                max_win = max(max_win, abs(v - rate) / rate)
                if t % win_ms != 0:
                    miss("%s %s window stamped %d, not a window end" % (port, direction, t))
                if abs(v - rate) > 0.01 * rate:
                    miss("%s %s window ending %d: %.6g B/s (truth %.6g)" % (port, direction, t, v, rate))
            ts = [t for t, _ in pts]
            for a, b in zip(ts, ts[1:]):
                if b - a != win_ms:
                    miss("%s %s windows %d -> %d: one missing or out of step" % (port, direction, a, b))
        else:
            for t, v in pts:
                fine += 1
                max_fine = max(max_fine, abs(v - rate) / rate)
                if abs(v - rate) > 0.02 * rate:
                    miss("%s %s fine rate at %d: %.6g B/s (truth %.6g)" % (port, direction, t, v, rate))
            ts = [t for t, _ in pts]
            for a, b in zip(ts, ts[1:]):
                if abs((b - a) - copy_ms) <= 0.1 * copy_ms:
                    continue
                if b - a > copy_ms and b <= first_fine + learn_ms:
                    holes += 1
                elif b - a > copy_ms and any(t < b and n > a for t, n in overruns):
                    overrun_holes += 1
                else:
                    miss("%s %s fine rates %d -> %d: not one copy apart" % (port, direction, a, b))
    print("ports=%d windows=%d fine=%d misses=%d learning_holes=%d overrun_holes=%d "
          "max_window_err=%.6f max_fine_err=%.6f" % (len(ports), windows, fine, misses, holes,
                                                     overrun_holes, max_win, max_fine))
    return 1 if misses or not windows or not fine else 0


if __name__ == "__main__":
    sys.exit(main())
