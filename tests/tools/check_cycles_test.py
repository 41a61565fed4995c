#!/usr/bin/env python3
"""Known-answer cases of check_cycles.py: small trees written to a temporary
directory, each with the exact output and exit status the lint must give.

Usage: check_cycles_test.py
Prints every failed case and exits 1 if there is one."""
import os
import subprocess
import sys
import tempfile

LINT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "check_cycles.py")

# A tree without circles, with the traps the lint must not fall into: the
# private header is its module's own, a struct tag and a member named like a
# function are no calls, a static function is nobody's, comments and strings
# naming a function call nothing. Any of them taken for a call would add the
# edge user -> other.
CLEAN = {
    "collector/base/store.h": "struct store_get { int n; };\nint store_get(void);\n",
    "collector/base/store_int.h": '#include "base/store.h"\n',
    "collector/base/store.c": '#include "base/store_int.h"\nint store_get(void) { return 1; }\n',
    "collector/base/user.h": '#include "base/store.h"\n',
    "collector/base/user.c": (
        '#include "base/user.h"\n'
        "/* not other() */\n"
        'static const char *why = "other()";\n'
        "static int helper(struct other_tag *s) { return s->other_tag; }\n"
        "int user_more(struct other_tag *s) { return helper(s) + store_get(); }\n"
    ),
    "collector/base/other.c": (
        "struct other_tag { int other_tag; };\n"
        "static int helper(void) { return 2; }\n"
        "int other(void) { return helper(); }\n"
        "int other_tag(void) { return 3; }\n"
    ),
}

# Headers that include each other's modules: <a>.h -> b, <b>.c -> a.
INCLUDES = {
    "collector/base/a.h": "#ifndef A_H\n#define A_H\n#include \"base/b.h\"\n#endif\n",
    "collector/base/a.c": '#include "base/a.h"\n',
    "collector/base/b.h": "struct b { int x; };\n",
    "collector/base/b.c": '#include "base/b.h"\n\n#include "base/a.h"\n',
}

# A hub whose private header declares its parts' functions: the include
# graph sees only part -> hub, the calls show both ways.
CALLS = {
    "collector/base/hub_int.h": "void part_run(void);\nint hub_helper(void);\n",
    "collector/base/hub.c": (
        '#include "base/hub_int.h"\n'
        "int hub_helper(void) { return 1; }\n"
        "void hub_go(void)\n{\n    part_run();\n}\n"
    ),
    "collector/base/part.c": (
        '#include "base/hub_int.h"\n'
        "void part_run(void)\n{\n    (void)hub_helper();\n}\n"
    ),
}

# One plugin, two folders: the circle runs across its subfolder.
PLUGIN = {
    "collector/sources/foo/foo.h": "struct foo;\n",
    "collector/sources/foo/foo.c": '#include "sources/foo/transport/wire.h"\n',
    "collector/sources/foo/transport/wire.h": '#include "sources/foo/foo.h"\n',
    "collector/sources/foo/transport/wire.c": '#include "sources/foo/transport/wire.h"\n',
    # A circle between two plugins is the layer lint's, not this one's.
    "collector/sources/bar/bar.c": '#include "sources/foo/foo.h"\n',
    "collector/sources/bar/bar.h": "",
}

CASES = [
    ("clean", CLEAN, 0,
     ["module cycles: none; 3 modules in 1 folders, 1 include and 1 call edges between them"]),
    ("includes", INCLUDES, 1,
     ["collector/base: a -> b -> a (includes)",
      "  a -> b: collector/base/a.h:3 b.h",
      "  b -> a: collector/base/b.c:3 a.h",
      "module cycles: 1 circle(s) inside folders"]),
    ("calls", CALLS, 1,
     ["collector/base: hub -> part -> hub (calls)",
      "  hub -> part: collector/base/hub.c:5 part_run()",
      "  part -> hub: collector/base/part.c:4 hub_helper()",
      "module cycles: 1 circle(s) inside folders"]),
    ("plugin", PLUGIN, 1,
     ["collector/sources/foo: foo -> transport/wire -> foo (includes)",
      "  foo -> transport/wire: collector/sources/foo/foo.c:1 wire.h",
      "  transport/wire -> foo: collector/sources/foo/transport/wire.h:1 foo.h",
      "module cycles: 1 circle(s) inside folders"]),
]


def run(files):
    """Writes files into a fresh tree and runs the lint on it: (status, lines)."""
    with tempfile.TemporaryDirectory() as root:
        for rel, text in files.items():
            path = os.path.join(root, rel)
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "w", encoding="utf-8") as f:
                f.write(text)
        p = subprocess.run([sys.executable, LINT, root], capture_output=True, text=True,
                           check=False)
        return p.returncode, p.stdout.splitlines()


def main():
    failed = 0
    for name, files, want_rc, want in CASES:
        rc, got = run(files)
        if rc != want_rc or got != want:
            failed += 1
            print(f"case {name}: exit {rc} (want {want_rc})")
            print("  got:  " + "\n        ".join(got))
            print("  want: " + "\n        ".join(want))
    print(f"check_cycles: {len(CASES) - failed} of {len(CASES)} cases pass")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
