"""Steps 1 and 2 of check_dashboards.py: `promtool check rules` and the
conventions it does not check, `promtool test rules` and alert test
coverage; and the expressions of the rule files (step 3 parses them).

Python 3 standard library only.
"""
import json
import os
import re

from dashboard_report import ROOT, Failure, run
from dashboard_runbooks import runbook_problems

# --------------------------------------------------------------------------
# YAML scalars of the rule files. Only what rule files need: `key: value`
# with plain, quoted or block (| >) values. PromQL treats newlines as spaces,
# so folding details do not matter for expressions.

KEY_RE = re.compile(r"^(\s*)(-\s+)?([A-Za-z_][\w]*):(?:\s+(.*))?$")


def yaml_values(path, keys):
    """Returns [(key, value, line_number)] for every `key:` in keys."""
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    out = []
    i = 0
    while i < len(lines):
        m = KEY_RE.match(lines[i])
        if not m or m.group(3) not in keys:
            i += 1
            continue
        col = len(m.group(1)) + len(m.group(2) or "")
        raw = (m.group(4) or "").rstrip()
        lineno = i + 1
        i += 1
        # Following lines that belong to this value: more indented, or blank.
        cont = []
        while i < len(lines) and (not lines[i].strip() or
                                  len(lines[i]) - len(lines[i].lstrip()) > col):
            cont.append(lines[i])
            i += 1
        while cont and not cont[-1].strip():
            cont.pop()
        if raw[:1] in ("|", ">"):
            value = "\n".join(c.strip() for c in cont)
        elif raw.startswith('"'):
            text = " ".join([raw] + [c.strip() for c in cont])
            try:
                value = json.loads(text)
            except ValueError as e:
                raise Failure(f"{path}:{lineno}: unsupported double-quoted scalar ({e})")
        elif raw.startswith("'"):
            text = " ".join([raw] + [c.strip() for c in cont])
            if not text.endswith("'"):
                raise Failure(f"{path}:{lineno}: unterminated single-quoted scalar")
            value = text[1:-1].replace("''", "'")
        else:
            raw = re.sub(r"\s+#.*$", "", raw)
            value = " ".join([raw] + [c.strip() for c in cont if not c.strip().startswith("#")])
        out.append((m.group(3), value.strip(), lineno))
    return out


# --------------------------------------------------------------------------
# promtool: steps 1 and 2

def check_rule_files(promtool, files, report):
    """promtool check rules; returns {file: rule count} from its output."""
    rc, out = run([promtool, "check", "rules"] + files)
    if rc != 0:
        report.fail("promtool check rules:\n" + out)
        return {}
    counts = {}
    for f in files:
        m = re.search(r"Checking " + re.escape(f) + r"\s+SUCCESS: (\d+) rules found", out)
        counts[f] = int(m.group(1)) if m else -1
    report.ok("promtool check rules: " + ", ".join(
        f"{os.path.relpath(f, ROOT)} ({n} rules)" for f, n in counts.items()))
    return counts


def alert_blocks(path):
    """[(alert name, text of its rule block)] of an alerting rule file."""
    with open(path, encoding="utf-8") as f:
        text = f.read()
    parts = re.split(r"(?m)^\s*-\s+(?:alert|record):", text)[1:]
    kinds = re.findall(r"(?m)^\s*-\s+(alert|record):", text)
    out = []
    for kind, part in zip(kinds, parts):
        if kind == "alert":
            out.append((part.split("\n", 1)[0].strip(), part))
    return out


def check_alert_conventions(alerts_file, report):
    bad = []
    for name, block in alert_blocks(alerts_file):
        for what, pattern in (("for:", r"(?m)^\s+for:\s*\d"),
                              ("labels.severity", r"(?m)^\s+severity:\s*(critical|warning|info)\s*$"),
                              ("annotations.summary", r"(?m)^\s+summary:"),
                              ("annotations.description", r"(?m)^\s+description:")):
            if not re.search(pattern, block):
                bad.append(f"{name}: no {what}")
    for msg in bad:
        report.fail(f"alerts.yml: {msg}")
    if not bad:
        report.ok("alerts.yml: every alert has for, severity, summary and description")


def alert_test_coverage(test_files):
    """{alertname: (cases that fire, cases that are silent)} from alert_rule_test."""
    cov = {}
    for path in test_files:
        with open(path, encoding="utf-8") as f:
            lines = f.read().split("\n")
        current = None
        for line in lines:
            m = re.match(r"^\s*(?:-\s+)?alertname:\s*(\S+)", line)
            if m:
                current = m.group(1)
                cov.setdefault(current, [0, 0])
                continue
            m = re.match(r"^\s*exp_alerts:\s*(.*)$", line)
            if m and current:
                cov[current][1 if m.group(1).strip() == "[]" else 0] += 1
                current = None
    return cov


def step_rules(args, report):
    d = os.path.join(ROOT, "dashboards")
    rule_files = [os.path.join(d, "alerts.yml"), os.path.join(d, "recording.yml")]
    tests = sorted(os.path.join(d, "tests", f) for f in os.listdir(os.path.join(d, "tests"))
                   if f.endswith("_test.yml"))
    check_rule_files(args.promtool, rule_files, report)
    check_alert_conventions(rule_files[0], report)
    blocks = alert_blocks(rule_files[0])
    problems = runbook_problems(blocks, ROOT)
    for msg in problems:
        report.fail(msg)
    if not problems:
        report.ok(f"every alert ({len(blocks)}) has its runbook docs/runbooks/<alert>.md "
                  "and every runbook an alert")
    rc, out = run([args.promtool, "test", "rules"] + tests)
    if rc != 0:
        report.fail("promtool test rules:\n" + out)
    else:
        report.ok("promtool test rules: " + ", ".join(os.path.relpath(t, ROOT) for t in tests))
    cov = alert_test_coverage(tests)
    missing = []
    for name, _ in alert_blocks(rule_files[0]):
        fires, silent = cov.get(name, [0, 0])
        if not fires:
            missing.append(f"{name} has no test case where it fires")
        if not silent:
            missing.append(f"{name} has no test case where it stays silent")
    # A case for a name that is no alert (a typo, a renamed rule) is vacuous:
    # promtool finds no such alert and an `exp_alerts: []` case passes.
    names = {n for n, _ in alert_blocks(rule_files[0])}
    for name in sorted(set(cov) - names):
        missing.append(f"tests name {name}, which is no alert in alerts.yml")
    for msg in missing:
        report.fail(msg)
    if not missing:
        report.ok(f"every alert ({len(alert_blocks(rule_files[0]))}) has a firing and a silent case")


# --------------------------------------------------------------------------
# The rule files' expressions (step 3 parses them)

def rule_file_expressions():
    d = os.path.join(ROOT, "dashboards")
    out, records = [], set()
    for fname in ("alerts.yml", "recording.yml"):
        path = os.path.join(d, fname)
        for key, value, line in yaml_values(path, {"expr", "record"}):
            if key == "expr":
                out.append((f"{fname}:{line}", value))
            elif fname == "recording.yml":
                records.add(value)
    return out, records
