#!/usr/bin/env python3
"""Checks one consumer's messages against one daemon run when some events are
expected to be missing (tests/integration/faults_res_kafka.sh, "too large").

    faults_res_check.py --run LOG --consumed FILE --missing N

Uses kafka_check.py's readers (the run's event ids are <run_id>-<i> for the
i-th `event=detect` line). Checks: exactly N published events never arrived,
no message arrived twice, no message is unknown, and per key the events that
did arrive are in publication order and in one partition. Prints the ids of
the missing events and a summary line; exits 1 on any problem.
"""
import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from kafka_check import read_consumed, read_run  # noqa: E402


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--run", required=True)
    ap.add_argument("--consumed", required=True)
    ap.add_argument("--missing", type=int, required=True)
    args = ap.parse_args()
    problems = []
    run_id, events, lost = read_run(args.run)
    if not run_id or not events or lost:
        problems.append(f"{args.run}: run id {run_id!r}, {len(events)} events, lost {lost}")
    expected = {f"{run_id}-{i}": i for i in range(1, len(events) + 1)}
    msgs = read_consumed(args.consumed)
    seen, by_key = set(), {}
    for m in msgs:
        mid = m["doc"].get("id")
        if mid not in expected:
            problems.append(f"message {mid} was never published")
            continue
        if mid in seen:
            problems.append(f"{mid} arrived twice")
            continue
        seen.add(mid)
        by_key.setdefault(m["key"], []).append(m)
    missing = [mid for mid in expected if mid not in seen]
    if len(missing) != args.missing:
        problems.append(f"{len(missing)} events missing ({missing[:10]}), want {args.missing}")
    for key, ms in by_key.items():
        if len({m["partition"] for m in ms}) != 1:
            problems.append(f"key {key} spread over partitions")
        order = [expected[m["doc"]["id"]] for m in ms]
        if order != sorted(order):
            problems.append(f"key {key}: out of order {order}")
    for p in problems:
        print("FAIL:", p)
    print(f"faults_res_check: {len(expected)} published, {len(msgs)} messages, "
          f"missing {missing}, {len(problems)} problems")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
