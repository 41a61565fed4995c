#!/usr/bin/env python3
"""Checks the file-level graphs inside each folder (docs/DESIGN.md, "Layers"):
the modules of one folder form no circle, neither by includes nor by calls.

A module is the files of one stem: <x>.c, <x>.h and <x>_int.h are module x. Two
graphs join the modules of a folder, and each must be free of circles:
  includes  a file of module a includes <b>.h or <b>_int.h: a reads b's types;
  calls     <a>.c calls a function that <b>.c defines.
A private header that declares the functions of several files hides their
calls from the include graph; the call graph shows them. The two are kept
apart so that a file split off a hub may use the hub's private types while
the hub calls it: types go one way, calls the other, and neither loops.

Each folder is checked on its own; a plugin (collector/sources/<type>,
exporters/<sink>) is checked as one, subfolders included, and names its
modules by their path inside the plugin (transport/otlp_http). Headers of
other folders are the layer lint's business (check_layers.py).

Usage: check_cycles.py REPO_ROOT
Prints every circle as "folder: a -> b -> a (includes|calls)", each edge
below it with the file:line that makes it, and exits 1 if there is one; else
prints a one-line summary and exits 0."""
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from check_layers import plugin_of, resolve  # noqa: E402

INCLUDE = re.compile(r'^[ \t]*#[ \t]*include[ \t]+"([^"]+)"', re.M)
PRIVATE = "_int"
KINDS = ("includes", "calls")
# Comments, string and character literals and preprocessor lines: blanked
# (newlines kept) before functions are looked for.
NOISE = re.compile(r'/\*.*?\*/|//[^\n]*|"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\''
                   r'|^[ \t]*#(?:[^\n]*\\\n)*[^\n]*', re.S | re.M)
# The name before a parameter list that ends a declaration head.
DEFINED = re.compile(r'\b([A-Za-z_]\w*)\s*\((?:[^()]|\([^()]*\))*\)\s*$')
# A name that may be a function: not a member (.x, ->x) nor a tag (struct x).
WORD = re.compile(r'(?<![.>\w])(?<!struct )(?<!union )(?<!enum )[A-Za-z_]\w*')


def stem_of(name):
    """The module a file name belongs to: x for <x>.c, <x>.h and <x>_int.h."""
    base = os.path.splitext(os.path.basename(name))[0]
    if base.endswith(PRIVATE):
        base = base[: -len(PRIVATE)]
    return base


def unit_of(folder):
    """The folder whose modules are checked together: the plugin for a
    plugin's subfolders, else the folder itself."""
    return plugin_of(folder) or folder


def module_name(unit, folder, stem):
    """A module's name inside its unit: the stem, prefixed by the subfolder
    when the module lives below the unit's root."""
    sub = os.path.relpath(folder, unit)
    return stem if sub == "." else f"{sub}/{stem}"


def blank(text):
    """text with comments, literals and preprocessor lines blanked out, line
    numbers kept."""
    return NOISE.sub(lambda m: re.sub(r"[^\n]", " ", m.group(0)), text)


def functions_defined(code):
    """The functions a blanked .c file defines with external linkage (the
    name before the parameter list of each body at file scope)."""
    names, depth, start = [], 0, 0
    for m in re.finditer(r"[{};]", code):
        c = m.group(0)
        if depth == 0 and c == "{":
            head = code[start:m.start()]
            d = DEFINED.search(head)
            if d and "=" not in head and "static" not in head.split():
                names.append(d.group(1))
        if c == "{":
            depth += 1
        elif c == "}":
            depth -= 1
        if depth == 0 and c in ";}":
            start = m.end()
    return names


def add_edge(graphs, kind, unit, a, b, where):
    """Records in the graph of kind that module a of unit depends on module b
    because of where (file:line)."""
    if a != b:
        g = graphs.setdefault((unit, kind), {})
        g.setdefault(a, {}).setdefault(b, []).append(where)


def read_graph(root):
    """Per unit and kind, the module graph: {(unit, kind): {a: {b: [where,
    ...]}}}, plus the modules seen per unit."""
    graphs, modules, files = {}, {}, []
    owner = {}  # (unit, function) -> the module whose .c defines it
    for top in ("collector", "exporters"):
        for dp, dn, fn in os.walk(os.path.join(root, top)):
            dn.sort()
            for f in sorted(fn):
                if not f.endswith((".c", ".h")):
                    continue
                rel = os.path.relpath(os.path.join(dp, f), root)
                here = os.path.dirname(rel)
                unit = unit_of(here)
                me = module_name(unit, here, stem_of(f))
                modules.setdefault(unit, set()).add(me)
                with open(os.path.join(dp, f), encoding="utf-8", errors="replace") as fh:
                    text = fh.read()
                files.append((rel, here, unit, me, text))
                if f.endswith(".c"):
                    for name in functions_defined(blank(text)):
                        owner[(unit, name)] = me
    for rel, here, unit, me, text in files:
        for m in INCLUDE.finditer(text):
            inc = m.group(1)
            if not inc.endswith(".h"):
                continue
            there = resolve(inc, here, root)
            if there is None or unit_of(there) != unit:
                continue
            line = text.count("\n", 0, m.start()) + 1
            add_edge(graphs, "includes", unit, me, module_name(unit, there, stem_of(inc)),
                     f"{rel}:{line} {os.path.basename(inc)}")
        if not rel.endswith(".c"):
            continue
        code, called = blank(text), set()
        for w in WORD.finditer(code):
            dep = owner.get((unit, w.group(0)))
            if dep is None or dep == me or (dep, w.group(0)) in called:
                continue
            called.add((dep, w.group(0)))
            line = code.count("\n", 0, w.start()) + 1
            add_edge(graphs, "calls", unit, me, dep, f"{rel}:{line} {w.group(0)}()")
    return graphs, modules


def components(graph):
    """The strongly connected components of more than one module (Tarjan,
    iterative so a deep folder cannot overflow the stack)."""
    index, low, on, stack, out = {}, {}, set(), [], []
    nodes = sorted(set(graph) | {b for a in graph for b in graph[a]})
    counter = 0
    for start in nodes:
        if start in index:
            continue
        work = [(start, iter(sorted(graph.get(start, {}))))]
        index[start] = low[start] = counter
        counter += 1
        stack.append(start)
        on.add(start)
        while work:
            v, it = work[-1]
            advanced = False
            for w in it:
                if w not in index:
                    index[w] = low[w] = counter
                    counter += 1
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(sorted(graph.get(w, {})))))
                    advanced = True
                    break
                if w in on:
                    low[v] = min(low[v], index[w])
            if advanced:
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                comp = []
                while True:
                    w = stack.pop()
                    on.discard(w)
                    comp.append(w)
                    if w == v:
                        break
                if len(comp) > 1:
                    out.append(sorted(comp))
    return out


def shortest_cycle(graph, start, members):
    """The shortest circle through start inside one component, as a list of
    modules that begins and ends with start."""
    prev = {start: None}
    queue = [start]
    for v in queue:
        for w in sorted(graph.get(v, {})):
            if w not in members:
                continue
            if w == start:
                path = [v]
                while prev[path[-1]] is not None:
                    path.append(prev[path[-1]])
                return list(reversed(path)) + [start]
            if w not in prev:
                prev[w] = v
                queue.append(w)
    return None


def cycles_of(graph):
    """One shortest circle through every module that sits on one, each circle
    once whatever module it is read from."""
    seen, out = set(), []
    for comp in components(graph):
        members = set(comp)
        for m in comp:
            cyc = shortest_cycle(graph, m, members)
            key = frozenset(zip(cyc, cyc[1:]))
            if key not in seen:
                seen.add(key)
                out.append(cyc)
    return out


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else "."
    graphs, modules = read_graph(root)
    found = 0
    for unit, kind in sorted(graphs):
        g = graphs[(unit, kind)]
        for cyc in cycles_of(g):
            found += 1
            print(f"{unit}: {' -> '.join(cyc)} ({kind})")
            for a, b in zip(cyc, cyc[1:]):
                print(f"  {a} -> {b}: {', '.join(g[a][b])}")
    if found:
        print(f"module cycles: {found} circle(s) inside folders")
        return 1
    edges = {k: sum(len(deps) for (u, kind), g in graphs.items() if kind == k
                    for deps in g.values()) for k in KINDS}
    print(f"module cycles: none; {sum(len(m) for m in modules.values())} modules in "
          f"{len(modules)} folders, {edges['includes']} include and {edges['calls']} "
          f"call edges between them")
    return 0


if __name__ == "__main__":
    sys.exit(main())
