#!/usr/bin/env python3
"""Known answers for check_refs.py: a small tree with one reference of each
accepted form that holds and one that does not, and the exact violations
the lint must print for it (and nothing for what holds).

Usage: check_refs_test.py   (exits 1 and prints the difference on a mismatch)"""
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
# Split so that this file does not trip the lint it tests.
ISSUE = "is" "sue"
BARE_WORD = "DES" "IGN"

FILES = {
    "docs/DESIGN.md": (
        "# Design\n\n## The rate rules\n\n```\n# Not a heading\n```\n\n"
        "### gnmi: Juniper (Junos)\n\n"
        "[ok](#the-rate-rules) [bad](#nowhere) [ok](CONFIG.md#limits) [bad](GONE.md)\n"
    ),
    "docs/CONFIG.md": "# Config\n\n## Limits\n",
    "collector/engine/rate.h": "",
    "collector/engine/a.c": (
        '/* docs/DESIGN.md, "The rate rules"; (DESIGN.md "gnmi"); docs/CONFIG.md,\n'
        ' * "Limits". Wrong: docs/DESIGN.md, "Not a heading", docs/NONE.md "X",\n'
        " * engine/gone.h, collector/engine/rate.h, engine/rate.h, gone_file.c,\n"
        " * <stdio.h>, linux/ethtool.h, content/x/Vendor.md \"Y\". */\n"
        'const char *s = "engine/also_gone.h ' + ISSUE + ' 3";\n'
        "/* " + ISSUE + " 12, section \u00a7 4, " + BARE_WORD + " rule 5 */\n"
    ),
    "tests/t.py": (
        'x = 1  # tests/none.py and docs/DESIGN.md "The\n'
        '# rate rules"\n'
        'y = "#" + "engine/q.h"\n'
    ),
}

EXPECTED = [
    "collector/engine/a.c:2: docs/DESIGN.md has no heading \"Not a heading\"",
    "collector/engine/a.c:2: docs/NONE.md: no such file",
    "collector/engine/a.c:2: docs/NONE.md: no such file or folder",
    "collector/engine/a.c:3: engine/gone.h: no such file or folder",
    "collector/engine/a.c:3: gone_file.c: no such file in the repository",
    "collector/engine/a.c:5: '" + ISSUE + " 3': no issue numbers; say why in a sentence",
    "collector/engine/a.c:6: '" + ISSUE + " 12': no issue numbers; say why in a sentence",
    "collector/engine/a.c:6: bare '" + BARE_WORD + "': cite FILE.md, \"Heading\"",
    "collector/engine/a.c:6: section sign: cite the heading by name",
    "docs/DESIGN.md:11: GONE.md: no such file in the repository",
    "docs/DESIGN.md:11: link to #nowhere: no such heading anchor",
    "docs/DESIGN.md:11: link to GONE.md: no such file",
    "tests/t.py:1: tests/none.py: no such file or folder",
]


def main():
    with tempfile.TemporaryDirectory() as root:
        for d in ("collector", "exporters", "docs", "tests"):
            os.makedirs(os.path.join(root, d), exist_ok=True)
        for rel, text in FILES.items():
            path = os.path.join(root, rel)
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "w", encoding="utf-8") as f:
                f.write(text)
        run = subprocess.run([sys.executable, os.path.join(HERE, "check_refs.py"), root],
                             capture_output=True, text=True)
    got = sorted(run.stdout.splitlines())
    want = sorted(EXPECTED)
    if got != want or run.returncode != 1:
        print(f"exit {run.returncode} (want 1)")
        for line in want:
            if line not in got:
                print(f"missing: {line}")
        for line in got:
            if line not in want:
                print(f"unexpected: {line}")
        return 1
    print(f"refs self-test: {len(want)} planted violations found, nothing else")
    return 0


if __name__ == "__main__":
    sys.exit(main())
