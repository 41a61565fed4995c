"""Runbooks for check_dashboards.py (step 1): every alert of alerts.yml has
annotations.runbook_url = docs/runbooks/<alert>.md, that file exists and is
a runbook of that alert (title `# <alert>`, the rule's severity in bold in
its first paragraph, the four sections below), and
every runbook in docs/runbooks/ belongs to an alert (README.md, the index,
excepted). An orphan runbook is a renamed or deleted rule whose page stayed.

Python 3 standard library only.
"""
import os
import re

RUNBOOK_DIR = os.path.join("docs", "runbooks")
# The sections every runbook has, in this order: what the alert means, how
# to confirm it, the causes seen in the field, what to do.
SECTIONS = ("Meaning", "Confirm", "Causes", "Action")
URL_RE = re.compile(r"(?m)^\s+runbook_url:\s*(\S+)\s*$")
SEVERITY_RE = re.compile(r"(?m)^\s+severity:\s*(\w+)\s*$")


def runbook_problems(blocks, root):
    """blocks: [(alert name, text of its rule block)] (dashboard_rules.
    alert_blocks); root: the tree holding docs/runbooks/. Returns a sorted
    list of sentences, empty when every alert and runbook pair up."""
    problems = []
    names = set()
    for name, block in blocks:
        names.add(name)
        want = f"{RUNBOOK_DIR}/{name}.md".replace(os.sep, "/")
        urls = URL_RE.findall(block)
        if urls != [want]:
            problems.append(f"{name}: runbook_url is {urls or 'missing'}, want {want}")
        path = os.path.join(root, RUNBOOK_DIR, f"{name}.md")
        if not os.path.isfile(path):
            problems.append(f"{name}: no runbook {want}")
            continue
        with open(path, encoding="utf-8") as f:
            text = f.read()
        if not text.startswith(f"# {name}\n"):
            problems.append(f"{want}: does not start with the title '# {name}'")
        sev = SEVERITY_RE.findall(block)
        first = text.split("\n\n", 2)[1] if text.count("\n\n") >= 1 else ""
        if sev and f"**{sev[0]}**" not in first:
            problems.append(f"{want}: first paragraph does not say **{sev[0]}** (the rule's severity)")
        heads = [h for h in re.findall(r"(?m)^## (\S+)", text) if h in SECTIONS]
        if tuple(heads) != SECTIONS:
            problems.append(f"{want}: sections {heads}, want "
                            + ", ".join(f"## {s}" for s in SECTIONS))
    folder = os.path.join(root, RUNBOOK_DIR)
    present = sorted(f for f in os.listdir(folder) if f.endswith(".md")) \
        if os.path.isdir(folder) else []
    for f in present:
        if f != "README.md" and f[:-3] not in names:
            problems.append(f"{RUNBOOK_DIR}/{f}: a runbook of no alert in alerts.yml")
    return sorted(problems)
