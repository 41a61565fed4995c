#!/usr/bin/env python3
"""Checks the folder-level include graph of the product code (docs/DESIGN.md,
"Layers"): every folder has a rank, and a file may include only headers of
its own folder or of a folder of lower rank; folders of the same rank (the
sources, the sinks) never include each other; nothing outside tests/
includes tests/; no folder holds more than MAX_FILES source files.

Usage: check_layers.py REPO_ROOT
Prints every violation as "file:line: folder -> folder: why" and exits 1 if
there is one, else prints a one-line summary and exits 0."""
import os
import re
import sys

# Lowest first. A folder may include folders of strictly lower rank.
RANKS = {
    "collector/base": 0,
    "collector/config": 1,
    "collector/model": 2,
    "collector/net": 3,
    "collector/engine": 3,
    "collector/sim": 3,
    "collector/plugin": 4,
    "collector/sources/gnmi": 5,
    "collector/sources/otlp": 5,
    "collector/sources/nic": 5,
    "collector/sources/synth": 5,
    "collector/sources/replay": 5,
    "exporters/prometheus": 5,
    "exporters/web": 5,
    "exporters/kafka": 5,
    "exporters/remote_write": 5,
    "collector/rollup": 5,
    "collector/report": 6,
    "collector/app": 7,
}
# Generated protobuf-c headers (the build tree's proto/) count as rank 0.
GENERATED = re.compile(r"^[a-z_]+\.pb-c\.h$")
MAX_FILES = 25
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def folder_of(rel):
    """The ranked folder a repository path belongs to, or None."""
    d = os.path.dirname(rel)
    return d if d in RANKS else None


def resolve(inc, here, root):
    """The repository folder an include names (include roots are collector/
    and exporters/; a bare name is the including file's folder)."""
    if "/" not in inc:
        if GENERATED.match(inc):
            return "generated"
        return here
    for base in ("collector", "exporters"):
        if os.path.exists(os.path.join(root, base, inc)):
            return os.path.dirname(os.path.join(base, inc))
    if inc.startswith("tests/") or inc.startswith("../"):
        return "tests"
    return None


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else "."
    bad = []
    edges = set()
    counts = {}
    for top in ("collector", "exporters"):
        for dp, dn, fn in os.walk(os.path.join(root, top)):
            for f in fn:
                if not f.endswith((".c", ".h")):
                    continue
                path = os.path.join(dp, f)
                rel = os.path.relpath(path, root)
                here = folder_of(rel)
                if here is None:
                    bad.append(f"{rel}:1: {os.path.dirname(rel)}: folder has no layer rank")
                    continue
                if f.endswith(".c"):
                    counts[here] = counts.get(here, 0) + 1
                text = open(path, encoding="utf-8", errors="replace").read()
                for m in INCLUDE.finditer(text):
                    line = text.count("\n", 0, m.start()) + 1
                    inc = m.group(1)
                    there = resolve(inc, here, root)
                    if there in ("generated", here):
                        continue
                    if there == "tests":
                        bad.append(f"{rel}:{line}: {here} -> tests: product code includes tests/")
                        continue
                    if there not in RANKS:
                        bad.append(f"{rel}:{line}: {here} -> {inc}: not a header of a layer")
                        continue
                    edges.add((here, there))
                    if RANKS[there] >= RANKS[here]:
                        why = "same layer" if RANKS[there] == RANKS[here] else "upward"
                        bad.append(f"{rel}:{line}: {here} -> {there}: {why} include")
    for d, n in sorted(counts.items()):
        if n > MAX_FILES:
            bad.append(f"{d}:1: {d}: {n} source files (more than {MAX_FILES})")
    for b in bad:
        print(b)
    if bad:
        return 1
    print(f"layers: {len(RANKS)} folders, {len(edges)} folder edges, all downward; "
          f"largest folder {max(counts.values())} source files")
    return 0


if __name__ == "__main__":
    sys.exit(main())
