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
    "collector/demo/sim": 3,
    "collector/demo/nicfx": 3,
    "collector/plugin": 4,
    "collector/daemon": 7,
    "collector/demo": 8,
    "collector/commands": 9,
}
# Plugin folders are ranked by prefix, so a new plugin needs no line here:
# every folder under these roots (subfolders included) belongs to the plugin
# named by its first component, and plugins never include each other.
PLUGIN_ROOTS = {"collector/sources": 5, "exporters": 5}
# Generated protobuf-c headers (the build tree's proto/) count as rank 0.
GENERATED = re.compile(r"^[a-z_]+\.pb-c\.h$")
MAX_FILES = 25
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def plugin_of(folder):
    """The plugin a folder belongs to ("collector/sources/otlp" for
    collector/sources/otlp/decode), or None."""
    for root in PLUGIN_ROOTS:
        if folder.startswith(root + "/"):
            return root + "/" + folder[len(root) + 1:].split("/")[0]
    return None


def rank_of(folder):
    """A folder's layer rank, or None when it has none."""
    if folder in RANKS:
        return RANKS[folder]
    p = plugin_of(folder)
    return PLUGIN_ROOTS[os.path.dirname(p)] if p else None


def folder_of(rel):
    """The ranked folder a repository path belongs to, or None."""
    d = os.path.dirname(rel)
    return d if rank_of(d) is not None else None


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
                    if plugin_of(here) and plugin_of(here) == plugin_of(there):
                        continue  # a plugin's subfolders are one plugin
                    if there == "tests":
                        bad.append(f"{rel}:{line}: {here} -> tests: product code includes tests/")
                        continue
                    if rank_of(there) is None:
                        bad.append(f"{rel}:{line}: {here} -> {inc}: not a header of a layer")
                        continue
                    edges.add((here, there))
                    if rank_of(there) >= rank_of(here):
                        why = "same layer" if rank_of(there) == rank_of(here) else "upward"
                        bad.append(f"{rel}:{line}: {here} -> {there}: {why} include")
    for d, n in sorted(counts.items()):
        if n > MAX_FILES:
            bad.append(f"{d}:1: {d}: {n} source files (more than {MAX_FILES})")
    for b in bad:
        print(b)
    if bad:
        return 1
    print(f"layers: {len(counts)} folders, {len(edges)} folder edges, all downward; "
          f"largest folder {max(counts.values())} source files")
    return 0


if __name__ == "__main__":
    sys.exit(main())
