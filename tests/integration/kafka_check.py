#!/usr/bin/env python3
"""Checks what a consumer read from the events topic against what the daemon
published (tests/integration/kafka_*_test.sh).

    kafka_check.py --run LOG [--run LOG ...] --consumed FILE [--consumed FILE ...]
                   [--delivered-before FILE] [--allow-duplicates] [--types T,T,...]

--run LOG       the daemon's stderr of one run, in order. Its kafka run id comes
                from the `event=exporter_started exporter=kafka ... run_id=R`
                line; its events are the `event=detect` lines, in bus order, so
                the i-th of them is event R-i.
--consumed FILE the messages one consumer read: kcat -J lines ({"partition",
                "offset", "key", "payload"}) or consume.js lines ({"partition",
                "offset", "key", "value"}). Each FILE is checked on its own.
--delivered-before FILE
                kcat -J lines of what was on the topic when the first run was
                killed: a message that appears twice is allowed (and counted)
                only when its first copy is in this file, i.e. the killed run
                had delivered it and had not yet recorded that in its spool.
--types         types that must occur among the messages.

Checks, for each consumer: every published event arrives, no message is
unknown, no event twice (beyond the allowed case above), each message's type,
phase, device and port are those of its log line, its key is "device/port",
and per key the events are in publication order (run by run, seq by seq), all
in one partition. Prints one line per problem and a summary line; exits 1
when anything failed.
"""
import argparse
import json
import re
import sys

FIELD = re.compile(r'(\w+)=("(?:[^"\\]|\\.)*"|\S+)')


def fields(line):
    out = {}
    for k, v in FIELD.findall(line):
        if v.startswith('"'):
            v = re.sub(r'\\(.)', r'\1', v[1:-1])
        out.setdefault(k, v)
    return out


def read_run(path):
    run_id, events, lost = None, [], 0
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            if not line.endswith("\n"):
                break  # a line cut by SIGKILL
            if "event=exporter_started exporter=kafka" in line:
                run_id = fields(line).get("run_id")
            elif " event=detect " in line:
                events.append(fields(line))
            elif " event=events_lost " in line:
                lost += 1
    return run_id, events, lost


def read_consumed(path):
    msgs = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.strip()
            if not line.startswith("{"):
                continue
            m = json.loads(line)
            value = m.get("payload", m.get("value"))
            msgs.append({"partition": int(m["partition"]), "offset": int(m["offset"]),
                         "key": m.get("key"), "doc": json.loads(value)})
    msgs.sort(key=lambda m: (m["partition"], m["offset"]))
    return msgs


def check(args, path, runs, before, fail):
    msgs = read_consumed(path)
    expected = {}  # id -> (run index, seq, the log line's fields)
    for r, (run_id, events, _) in enumerate(runs):
        for i, ev in enumerate(events, 1):
            expected[f"{run_id}-{i}"] = (r, i, ev)
    copies = {}
    for m in msgs:
        copies.setdefault(m["doc"].get("id"), []).append(m)
    dup_allowed = dup_bad = 0
    for mid, cs in copies.items():
        if mid not in expected:
            fail(f"{path}: message {mid} ({cs[0]['doc'].get('type')}) was never published")
            continue
        if len(cs) > 1:
            first = cs[0]
            ok = args.allow_duplicates or (len(cs) == 2 and (first["partition"], first["offset"]) in before)
            if ok:
                dup_allowed += len(cs) - 1
            else:
                dup_bad += len(cs) - 1
                fail(f"{path}: {mid} arrived {len(cs)} times (offsets "
                     f"{[(c['partition'], c['offset']) for c in cs]})")
        r, i, fl = expected[mid]
        doc = cs[0]["doc"]
        # The log line names what it knows: a series event its device and
        # port, a stream event its source and stream (a group event only its
        # number, which the document replaces by the group's name).
        for lk, dk in (("kind", "type"), ("phase", "phase"), ("device", "device"),
                       ("port", "port"), ("source", "source"), ("stream", "stream")):
            if (lk in fl or lk in ("kind", "phase")) and doc.get(dk) != fl.get(lk):
                fail(f"{path}: {mid} has {dk}={doc.get(dk)!r}, its log line says {fl.get(lk)!r}")
        want_key = f"{doc.get('device')}/{doc.get('port')}"
        if cs[0]["key"] != want_key:
            fail(f"{path}: {mid} has key {cs[0]['key']!r}, want {want_key!r}")
    missing = [mid for mid in expected if mid not in copies]
    for mid in missing[:10]:
        fl = expected[mid][2]
        fail(f"{path}: {mid} ({fl.get('kind')} {fl.get('phase')}) never arrived")
    if len(missing) > 10:
        fail(f"{path}: ... {len(missing) - 10} more never arrived")
    # Order per key: first copies in partition order, by (run, seq).
    by_key = {}
    seen = set()
    for m in msgs:
        mid = m["doc"].get("id")
        if mid in seen or mid not in expected:
            continue
        seen.add(mid)
        by_key.setdefault(m["key"], []).append(m)
    for key, ms in by_key.items():
        parts = {m["partition"] for m in ms}
        if len(parts) != 1:
            fail(f"{path}: key {key} spread over partitions {sorted(parts)}")
        order = [expected[m["doc"]["id"]][:2] for m in ms]
        for a, b in zip(order, order[1:]):
            if b <= a:
                fail(f"{path}: key {key}: event {b} after {a} (out of order)")
                break
    types = {m["doc"].get("type") for m in msgs}
    for t in args.types.split(",") if args.types else []:
        if t not in types:
            fail(f"{path}: no {t} event among the messages")
    print(f"{path}: {len(expected)} published, {len(msgs)} messages, {len(copies)} ids, "
          f"{len(missing)} missing, {dup_allowed} allowed duplicates, {dup_bad} bad duplicates, "
          f"{len(by_key)} keys, types {sorted(t for t in types if t)}")
    return dup_allowed


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--run", action="append", required=True)
    ap.add_argument("--consumed", action="append", required=True)
    ap.add_argument("--delivered-before")
    ap.add_argument("--allow-duplicates", action="store_true")
    ap.add_argument("--types", default="")
    args = ap.parse_args()
    failures = []

    def fail(msg):
        failures.append(msg)
        print("FAIL:", msg)

    runs = []
    for path in args.run:
        run_id, events, lost = read_run(path)
        if not run_id:
            fail(f"{path}: no kafka run_id in the log")
        if lost:
            fail(f"{path}: the event log lost events (events_lost)")
        if not events:
            fail(f"{path}: no event=detect line")
        runs.append((run_id, events, lost))
    before = set()
    if args.delivered_before:
        for m in read_consumed(args.delivered_before):
            before.add((m["partition"], m["offset"]))
    for path in args.consumed:
        check(args, path, runs, before, fail)
    print(f"kafka_check: {len(failures)} problems")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
