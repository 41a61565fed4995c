#!/usr/bin/env python3
"""Checks everything under dashboards/ against promtool and the metric contract.

Steps (all by default; --only picks one group):
  rules        1. `promtool check rules` on alerts.yml and recording.yml, plus
                  conventions promtool does not check: every alert has `for:`,
                  labels.severity and summary + description annotations;
               2. `promtool test rules` on dashboards/tests/*_test.yml, and every
                  alert has a test case where it fires and one where it is silent;
                  every alertname the tests name is an alert of alerts.yml.
  expressions  3. every PromQL expression of the rule files and of the Grafana
                  JSON (panel targets and variable queries, Grafana variables
                  replaced by stand-ins) parses: they are written into one
                  temporary rule file checked by `promtool check rules`. Also:
                  the dashboards are valid Grafana JSON (schemaVersion >= 37,
                  datasource variable, unique panel ids, grid) and match what
                  dashboards/grafana/generate.py writes; pending_metrics.txt and
                  the Pending section of docs/METRICS.md list the same names.
  metrics      4. with --metrics FILE or --metrics-url URL (a /metrics
                  exposition, text 0.0.4 or OpenMetrics): every metric name an
                  expression references, and every canonical name used as a
                  `counter` label value, is in the exposition or listed in
                  dashboards/pending_metrics.txt. Recording-rule names from
                  recording.yml and names Prometheus itself makes (ALERTS, up,
                  scrape_*) are exempt; `_bucket` / `_sum` / `_count` of a
                  histogram family count as present. A bucket pinned by
                  `le="X"` must have that exact le value in the exposition.
--self-test checks the checker: known-answer name extraction, a broken
expression fails step 3, a missing name fails step 4.

Exit status 0 when every step run passed, 1 otherwise, 2 on bad usage.
Python 3 standard library only.
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import urllib.request

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# Names Prometheus creates itself; an expression may use them without the
# exporter producing them.
PROMETHEUS_NAMES = {
    "ALERTS", "ALERTS_FOR_STATE", "up", "scrape_duration_seconds", "scrape_samples_scraped",
    "scrape_samples_post_metric_relabeling", "scrape_series_added",
}

# PromQL words that are never metric names in our expressions.
AGGREGATIONS = {"sum", "min", "max", "avg", "group", "stddev", "stdvar", "count",
                "count_values", "bottomk", "topk", "quantile"}
LABEL_LIST_WORDS = {"by", "without", "on", "ignoring", "group_left", "group_right"}
OPERATOR_WORDS = {"and", "or", "unless", "bool", "offset", "atan2"}
NUMBER_WORDS = {"inf", "nan"}

# Grafana's built-in variables and the stand-ins that keep PromQL valid.
GRAFANA_BUILTINS = {
    "__rate_interval": "5m", "__interval": "5m", "__range": "5m",
    "__range_s": "300", "__range_ms": "300000", "__interval_ms": "300000",
}


class Failure(Exception):
    pass


class Report:
    """Prints one line per check; a quiet report only records failure (for
    steps that reuse another step's machinery)."""

    def __init__(self, quiet=False):
        self.failed = False
        self.quiet = quiet

    def ok(self, msg):
        if not self.quiet:
            print(f"ok   {msg}")

    def fail(self, msg):
        self.failed = True
        if not self.quiet:
            print(f"FAIL {msg}")


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
# PromQL: metric names referenced by an expression (a tokenizer, not a
# parser: promtool has already said the expression is valid).

IDENT_RE = re.compile(r"[A-Za-z_:][A-Za-z0-9_:]*")
NUMBER_RE = re.compile(r"0[xX][0-9a-fA-F]+|(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?[A-Za-z]*")


def _skip_string(s, i):
    quote = s[i]
    j = i + 1
    buf = []
    while j < len(s) and s[j] != quote:
        if s[j] == "\\" and quote != "`" and j + 1 < len(s):
            buf.append(s[j:j + 2])
            j += 2
            continue
        buf.append(s[j])
        j += 1
    if j >= len(s):
        raise Failure(f"unterminated string in: {s}")
    return j + 1, "".join(buf)


def _skip_ws(s, i):
    while i < len(s) and s[i].isspace():
        i += 1
    return i


def _skip_balanced(s, i, open_ch, close_ch):
    depth = 0
    while i < len(s):
        c = s[i]
        if c in "\"'`":
            i, _ = _skip_string(s, i)
            continue
        if c == open_ch:
            depth += 1
        elif c == close_ch:
            depth -= 1
            if depth == 0:
                return i + 1
        i += 1
    raise Failure(f"unbalanced {open_ch}{close_ch} in: {s}")


def _matchers(s, i):
    """Parses `{name op "value", ...}` from s[i] == '{'. Returns (end, [(name, op, value)])."""
    out = []
    i += 1
    while True:
        i = _skip_ws(s, i)
        if i >= len(s):
            raise Failure(f"unterminated label matchers in: {s}")
        if s[i] == "}":
            return i + 1, out
        if s[i] == ",":
            i += 1
            continue
        m = IDENT_RE.match(s, i)
        if not m:
            raise Failure(f"bad label matcher at {i} in: {s}")
        name = m.group(0)
        i = _skip_ws(s, m.end())
        op = re.match(r"=~|!~|!=|=", s[i:])
        if not op:
            raise Failure(f"bad label matcher operator at {i} in: {s}")
        i = _skip_ws(s, i + len(op.group(0)))
        if i >= len(s) or s[i] not in "\"'`":
            raise Failure(f"label matcher without a string at {i} in: {s}")
        i, value = _skip_string(s, i)
        out.append((name, op.group(0), value))


def promql_names(expr):
    """Returns (metric names, canonical names used as `counter` label values)."""
    names, counters, _ = promql_scan(expr)
    return names, counters


def promql_scan(expr):
    """Returns (metric names, counter label values, {(metric, le value)} of
    selectors that pin a histogram bucket such as m_bucket{le="0.8"})."""
    names, counters, les = set(), set(), set()
    s = expr
    i = 0
    selector_of = None  # metric name right before a '{'
    while i < len(s):
        c = s[i]
        if c.isspace():
            i += 1
        elif c == "#":
            nl = s.find("\n", i)
            i = len(s) if nl < 0 else nl + 1
        elif c in "\"'`":
            i, _ = _skip_string(s, i)
        elif c == "[":
            i = _skip_balanced(s, i, "[", "]")
        elif c == "{":
            i, ms = _matchers(s, i)
            for name, op, value in ms:
                if name == "le" and op == "=" and selector_of:
                    les.add((selector_of, value))
                if name == "__name__" and op == "=":
                    names.add(value)
                elif name == "__name__":
                    raise Failure(f"cannot check a __name__ regex: {expr}")
                if name == "counter" and op in ("=", "=~"):
                    for alt in value.split("|") if op == "=~" else [value]:
                        if not IDENT_RE.fullmatch(alt):
                            raise Failure(f"counter matcher is not a plain name list: {expr}")
                        counters.add(alt)
        elif c.isdigit() or (c == "." and i + 1 < len(s) and s[i + 1].isdigit()):
            i = NUMBER_RE.match(s, i).end()
        elif IDENT_RE.match(s, i):
            m = IDENT_RE.match(s, i)
            word = m.group(0)
            j = _skip_ws(s, m.end())
            nxt = s[j] if j < len(s) else ""
            lw = word.lower()
            if word in LABEL_LIST_WORDS:
                i = _skip_balanced(s, j, "(", ")") if nxt == "(" else j
            elif word in OPERATOR_WORDS or lw in NUMBER_WORDS:
                i = m.end()
            elif word in AGGREGATIONS and (nxt == "(" or s.startswith(("by", "without"), j)):
                i = m.end()
            elif nxt == "(":
                i = m.end()  # a function call
            else:
                names.add(word)
                i = j if nxt == "{" else m.end()
                selector_of = word if nxt == "{" else None
                continue
        else:
            i += 1
        selector_of = None
    return names, counters, les


# --------------------------------------------------------------------------
# Grafana

VAR_RE = re.compile(r"\$\{([A-Za-z_]\w*)(?::[^}]*)?\}|\$([A-Za-z_]\w*)|\[\[([A-Za-z_]\w*)\]\]")


def substitute_vars(expr, variables):
    """Replaces Grafana variables with stand-ins: built-in intervals with
    durations, interval variables with 5m, everything else (used inside label
    matcher strings) with a word. Unknown variables are an error."""
    def repl(m):
        name = m.group(1) or m.group(2) or m.group(3)
        if name in GRAFANA_BUILTINS:
            return GRAFANA_BUILTINS[name]
        if name not in variables:
            raise Failure(f"unknown Grafana variable ${name} in: {expr}")
        return "5m" if variables[name] == "interval" else "stand_in"
    return VAR_RE.sub(repl, expr)


def variable_query_expr(query):
    """PromQL inside a Prometheus variable query, or None (label_names() etc.)."""
    if isinstance(query, dict):
        query = query.get("query", "")
    query = query.strip()
    m = re.fullmatch(r"label_values\((.*),\s*[A-Za-z_]\w*\s*\)", query, re.S)
    if m:
        return m.group(1).strip()
    m = re.fullmatch(r"query_result\((.*)\)", query, re.S)
    if m:
        return m.group(1).strip()
    return None


def walk_panels(panels):
    for p in panels:
        yield p
        yield from walk_panels(p.get("panels", []))


def grafana_expressions(path, report):
    """Validates one dashboard; returns [(where, substituted expr)]."""
    with open(path, encoding="utf-8") as f:
        try:
            dash = json.load(f)
        except ValueError as e:
            report.fail(f"{path}: not JSON: {e}")
            return []
    name = os.path.basename(path)
    problems = []
    if not isinstance(dash.get("schemaVersion"), int) or dash["schemaVersion"] < 37:
        problems.append(f"schemaVersion {dash.get('schemaVersion')!r} < 37")
    for key in ("uid", "title", "panels", "templating"):
        if not dash.get(key):
            problems.append(f"missing {key}")
    variables = {}
    for v in dash.get("templating", {}).get("list", []):
        variables[v.get("name")] = v.get("type")
    if variables.get("datasource") != "datasource":
        problems.append("no datasource template variable named 'datasource'")
    ds = {"type": "prometheus", "uid": "${datasource}"}
    exprs = []
    ids = set()
    for v in dash.get("templating", {}).get("list", []):
        if v.get("type") == "query":
            if v.get("datasource") != ds:
                problems.append(f"variable {v.get('name')}: datasource is not ${{datasource}}")
            q = variable_query_expr(v.get("query", ""))
            if q:
                exprs.append((f"{name} variable {v.get('name')}", q))
    for p in walk_panels(dash.get("panels", [])):
        title = p.get("title", "?")
        if p.get("id") in ids:
            problems.append(f"duplicate panel id {p.get('id')}")
        ids.add(p.get("id"))
        g = p.get("gridPos", {})
        if not all(isinstance(g.get(k), int) for k in "hwxy") or g["x"] + g["w"] > 24:
            problems.append(f"panel {title!r}: bad gridPos {g}")
        if p.get("type") == "row":
            continue
        if p.get("datasource") != ds:
            problems.append(f"panel {title!r}: datasource is not ${{datasource}}")
        targets = p.get("targets", [])
        if not targets:
            problems.append(f"panel {title!r}: no targets")
        refs = [t.get("refId") for t in targets]
        if len(set(refs)) != len(refs) or None in refs:
            problems.append(f"panel {title!r}: missing or duplicate refId")
        for t in targets:
            if t.get("datasource") != ds or not t.get("expr"):
                problems.append(f"panel {title!r} {t.get('refId')}: no expr or datasource")
                continue
            exprs.append((f"{name} panel {title!r} {t.get('refId')}", t["expr"]))
    out = []
    for where, e in exprs:
        try:
            out.append((where, substitute_vars(e, variables)))
        except Failure as err:
            problems.append(f"{where}: {err}")
    if problems:
        for msg in problems:
            report.fail(f"{name}: {msg}")
    else:
        report.ok(f"{name}: Grafana JSON valid ({len(ids)} panels, {len(exprs)} expressions)")
    return out


# --------------------------------------------------------------------------
# promtool

def run(cmd):
    proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    return proc.returncode, proc.stdout


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
# Step 3: expressions parse

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


def all_expressions(report):
    exprs, records = rule_file_expressions()
    gdir = os.path.join(ROOT, "dashboards", "grafana")
    for f in sorted(os.listdir(gdir)):
        if f.endswith(".json"):
            exprs += grafana_expressions(os.path.join(gdir, f), report)
    return exprs, records


def parse_with_promtool(promtool, exprs):
    """Returns [] when every expression parses, else [(where, expr, promtool output)]."""
    def attempt(batch):
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "expressions.yml")
            with open(path, "w", encoding="utf-8") as f:
                f.write("groups:\n  - name: check_dashboards\n    rules:\n")
                for n, (_, e) in enumerate(batch):
                    # A JSON string is a valid YAML double-quoted scalar.
                    f.write(f"      - record: check_dashboards:expr_{n}\n")
                    f.write(f"        expr: {json.dumps(e)}\n")
            return run([promtool, "check", "rules", path])
    rc, out = attempt(exprs)
    if rc == 0:
        return []
    if len(exprs) <= 1:
        return [(w, e, out) for w, e in exprs]
    bad = []
    for one in exprs:  # find the culprits one by one
        if attempt([one])[0] != 0:
            bad.append((one[0], one[1], attempt([one])[1]))
    return bad or [("(all)", "", out)]


def check_pending_list(report):
    pending = read_pending(os.path.join(ROOT, "dashboards", "pending_metrics.txt"))
    with open(os.path.join(ROOT, "docs", "METRICS.md"), encoding="utf-8") as f:
        text = f.read()
    m = re.search(r"(?ms)^## Pending\n(.*?)(?=^## |\Z)", text)
    documented = set(re.findall(r"(?m)^\| `([A-Za-z_:][\w:]*)` \|", m.group(1))) if m else set()
    if documented != set(pending):
        report.fail("pending_metrics.txt and docs/METRICS.md 'Pending' differ: "
                    f"only in the txt {sorted(set(pending) - documented)}, "
                    f"only in METRICS.md {sorted(documented - set(pending))}")
    else:
        report.ok(f"pending_metrics.txt matches docs/METRICS.md ({len(pending)} names)")


def check_generated(report):
    gdir = os.path.join(ROOT, "dashboards", "grafana")
    gen = os.path.join(gdir, "generate.py")
    if not os.path.exists(gen):
        return
    with tempfile.TemporaryDirectory() as tmp:
        rc, out = run([sys.executable, gen, tmp])
        if rc != 0:
            report.fail("generate.py failed:\n" + out)
            return
        stale = []
        for f in sorted(os.listdir(tmp)):
            with open(os.path.join(tmp, f), encoding="utf-8") as a:
                want = a.read()
            try:
                with open(os.path.join(gdir, f), encoding="utf-8") as b:
                    have = b.read()
            except OSError:
                have = None
            if want != have:
                stale.append(f)
    if stale:
        report.fail("dashboards/grafana/ out of date with generate.py (re-run it): "
                    + ", ".join(stale))
    else:
        report.ok("dashboards/grafana/*.json are what generate.py writes")


def step_expressions(args, report):
    exprs, _ = all_expressions(report)
    rule_exprs, _ = rule_file_expressions()
    # The extractor must have found as many expressions as promtool finds rules.
    d = os.path.join(ROOT, "dashboards")
    quiet = Report(quiet=True)
    counts = check_rule_files(args.promtool, [os.path.join(d, "alerts.yml"),
                                              os.path.join(d, "recording.yml")], quiet)
    if quiet.failed:
        report.fail("promtool check rules fails on the rule files (run --only rules)")
    found = len(rule_exprs)
    if counts and sum(counts.values()) != found:
        report.fail(f"extracted {found} rule expressions, promtool counts "
                    f"{sum(counts.values())} rules")
    bad = parse_with_promtool(args.promtool, exprs)
    for where, e, out in bad:
        report.fail(f"{where}: does not parse: {e}\n{out}")
    if not bad:
        report.ok(f"{len(exprs)} expressions parse ({found} from rule files, "
                  f"{len(exprs) - found} from Grafana)")
    for where, e in exprs:
        try:
            promql_names(e)
        except Failure as err:
            report.fail(f"{where}: {err}")
    check_generated(report)
    check_pending_list(report)


# --------------------------------------------------------------------------
# Step 4: names against an exposition

def read_pending(path):
    names = []
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            fields = line.split()
            if not IDENT_RE.fullmatch(fields[0]) or len(fields) < 2 or \
                    not re.fullmatch(r"issue=\d+", fields[1]):
                raise Failure(f"{path}:{n}: want 'NAME issue=N ...'")
            names.append(fields[0])
    return names


def read_exposition(text):
    """(names of samples and families, {family: type}, {sample name: set of
    le values}) of a /metrics body."""
    names, types, les = set(), {}, {}
    for line in text.split("\n"):
        line = line.strip()
        if not line:
            continue
        if line.startswith("#"):
            parts = line.split(None, 3)
            if len(parts) >= 3 and parts[1] in ("TYPE", "HELP", "UNIT"):
                names.add(parts[2])
                if parts[1] == "TYPE" and len(parts) == 4:
                    types[parts[2]] = parts[3].strip()
            continue
        m = IDENT_RE.match(line)
        if m:
            names.add(m.group(0))
            le = re.search(r'[{,]\s*le="([^"]*)"', line)
            if le:
                les.setdefault(m.group(0), set()).add(le.group(1))
    return names, types, les


def present(name, names, types, pending):
    if name in names or name in pending:
        return True
    for suffix in ("_bucket", "_sum", "_count"):
        base = name[:-len(suffix)]
        if name.endswith(suffix) and (types.get(base) in ("histogram", "summary") or
                                      base in pending):
            return True
    # OpenMetrics names a counter family without its _total suffix.
    return name.endswith("_total") and types.get(name[:-6]) == "counter"


def unknown_names(exprs, records, exposition_text, pending):
    """{name: [where, ...]} of names neither exposed nor pending."""
    names, types, bucket_les = read_exposition(exposition_text)
    missing = {}
    for where, e in exprs:
        metric_names, counters, les = promql_scan(e)
        for n in (metric_names - records - PROMETHEUS_NAMES) | counters:
            if not present(n, names, types, pending):
                missing.setdefault(n, []).append(where)
        # A bucket boundary must be spelled as the exporter spells it
        # (le="0.8", not "0.80"), or the selector silently matches nothing.
        for n, le in les:
            if n in bucket_les and le not in bucket_les[n]:
                missing.setdefault(f'{n}{{le="{le}"}}', []).append(where)
    return missing


def step_metrics(args, report):
    if args.metrics:
        with open(args.metrics, encoding="utf-8") as f:
            text = f.read()
        src = args.metrics
    else:
        with urllib.request.urlopen(args.metrics_url, timeout=10) as r:
            text = r.read().decode("utf-8")
        src = args.metrics_url
    pending = read_pending(os.path.join(ROOT, "dashboards", "pending_metrics.txt"))
    quiet = Report(quiet=True)
    exprs, records = all_expressions(quiet)
    if quiet.failed:
        report.fail("the dashboards are not valid (run --only expressions)")
    missing = unknown_names(exprs, records, text, pending)
    for n in sorted(missing):
        uses = missing[n]
        report.fail(f"{n}: not in {src} nor pending (used by {uses[0]}"
                    + (f" and {len(uses) - 1} more" if len(uses) > 1 else "") + ")")
    if not missing:
        report.ok(f"every referenced metric is in {src} or pending")
    names, _, _ = read_exposition(text)
    landed = sorted(set(pending) & names)
    if landed:
        print("note pending names now exposed (remove them from pending_metrics.txt and the "
              "METRICS.md Pending section): " + ", ".join(landed))


# --------------------------------------------------------------------------
# Self-test

def self_test(args, report):
    cases = [
        ('sum by (device, le) (rate(foo_bucket{device=~"$x", __name__="y"}[5m])) '
         '/ on (device) group_left (rail) bar offset 5m', {"foo_bucket", "y", "bar"}, set()),
        ("histogram_quantile(0.99, sum by (le) (rate(a_bucket[5m:1m])))", {"a_bucket"}, set()),
        ('count(ALERTS{alertstate="firing"}) or vector(0)', {"ALERTS"}, set()),
        ("1e12 * x > bool 0.5 unless on () y and Inf", {"x", "y"}, set()),
        ("max_over_time(lvl:rec:op[1h]) # no_name_in_comment\n - 1", {"lvl:rec:op"}, set()),
        ('fabric_rate_per_second{counter=~"a_total|b_total", port!="p"}',
         {"fabric_rate_per_second"}, {"a_total", "b_total"}),
        ("sum without (port) (w) / count(w)", {"w"}, set()),
        ('label_replace(m, "dst", "$1", "src", "(.*)")', {"m"}, set()),
        ("topk(10, z > 0.5)", {"z"}, set()),
    ]
    got = promql_scan('rate(h_bucket {le="0.8"}[5m]) / rate(h_count{le="1"}[5m]) + k{le="2"}')[2]
    if got != {("h_bucket", "0.8"), ("h_count", "1"), ("k", "2")}:
        report.fail(f"self-test: le matchers {got}")
    for expr, want_names, want_counters in cases:
        got = promql_names(expr)
        if got != (want_names, want_counters):
            report.fail(f"self-test: names of {expr!r}: got {got}, want "
                        f"{(want_names, want_counters)}")
    vars_ = {"device": "query", "win": "interval"}
    got = substitute_vars('rate(m{device=~"${device:regex}"}[$__rate_interval]) '
                          '+ rate(m[$win]) + n{d="[[device]]"}', vars_)
    want = 'rate(m{device=~"stand_in"}[5m]) + rate(m[5m]) + n{d="stand_in"}'
    if got != want:
        report.fail(f"self-test: substitution gave {got!r}, want {want!r}")
    try:
        substitute_vars("m{d=~\"$devce\"}", vars_)
        report.fail("self-test: an unknown Grafana variable was accepted")
    except Failure:
        pass
    if variable_query_expr({"query": 'label_values(m{d="x"}, port)'}) != 'm{d="x"}':
        report.fail("self-test: label_values() selector not extracted")
    # Step 3 must reject what promtool rejects.
    bad = parse_with_promtool(args.promtool, [("good", "rate(m[5m])"),
                                              ("broken", "sum by (a (rate(m[5m]))")])
    if [w for w, _, _ in bad] != ["broken"]:
        report.fail(f"self-test: parse step flagged {[w for w, _, _ in bad]}, want ['broken']")
    # Step 4 must report exactly the missing names.
    expo = ("# HELP h x\n# TYPE h histogram\nh_bucket{le=\"1\"} 1\nh_sum 1\nh_count 1\n"
            "# TYPE c counter\nc_total 3\n# TYPE om counter\n"
            'fabric_rate_per_second{counter="c_total"} 1\n')
    exprs = [("e1", "rate(h_sum[5m]) / rate(h_count[5m])"),
             ("e2", "histogram_quantile(0.5, rate(h_bucket[5m])) + rate(om_total[5m])"),
             ("e3", 'fabric_rate_per_second{counter=~"c_total|gone_total"} + p_bucket'),
             ("e4", "rec:x + missing_metric + up"),
             ("e5", 'rate(h_bucket{le="1"}[5m]) + rate(h_bucket{le="1.0"}[5m])')]
    got = unknown_names(exprs, {"rec:x"}, expo, ["p"])
    want = ["gone_total", 'h_bucket{le="1.0"}', "missing_metric"]
    if sorted(got) != want:
        report.fail(f"self-test: unknown names {sorted(got)}, want {want}")
    if not report.failed:
        report.ok("self-test: name extraction, substitution, parse and name checks")


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--promtool", default="promtool", help="promtool binary")
    ap.add_argument("--only", choices=("rules", "expressions", "metrics"),
                    help="run one step group only")
    ap.add_argument("--metrics", metavar="FILE", help="a /metrics exposition to compare with")
    ap.add_argument("--metrics-url", metavar="URL", help="fetch the exposition from URL")
    ap.add_argument("--self-test", action="store_true", help="also test the checker itself")
    args = ap.parse_args(argv[1:])
    if args.only == "metrics" and not (args.metrics or args.metrics_url):
        ap.error("--only metrics needs --metrics FILE or --metrics-url URL")
    report = Report()
    try:
        if args.self_test:
            self_test(args, report)
        if args.only in (None, "rules"):
            step_rules(args, report)
        if args.only in (None, "expressions"):
            step_expressions(args, report)
        if (args.metrics or args.metrics_url) and args.only in (None, "metrics"):
            step_metrics(args, report)
    except (Failure, OSError) as e:
        report.fail(str(e))
    print("check_dashboards: " + ("FAILED" if report.failed else "all checks passed"))
    return 1 if report.failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
