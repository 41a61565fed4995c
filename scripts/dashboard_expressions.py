"""Step 3 of check_dashboards.py: every PromQL expression of the rule files
and the Grafana JSON parses (`promtool check rules` on one temporary rule
file), the dashboards are what dashboards/grafana/generate.py writes, and
pending_metrics.txt and the Pending section of docs/METRICS.md list the
same names.

Python 3 standard library only.
"""
import json
import os
import re
import sys
import tempfile

from dashboard_grafana import grafana_expressions
from dashboard_promql import IDENT_RE, promql_names
from dashboard_report import ROOT, Failure, Report, run
from dashboard_rules import check_rule_files, rule_file_expressions


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


# dashboards/pending_metrics.txt: names not yet exposed (step 4 accepts them).
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
