#!/usr/bin/env python3
"""Checks everything under dashboards/ against promtool and the metric contract.

Steps (all by default; --only picks one group):
  rules        1. `promtool check rules` on alerts.yml and recording.yml, plus
                  conventions promtool does not check: every alert has `for:`,
                  labels.severity and summary + description annotations, and
                  runbook_url docs/runbooks/<alert>.md, a file with the title
                  and sections of a runbook; every runbook there belongs to
                  an alert (scripts/dashboard_runbooks.py);
               2. `promtool test rules` on dashboards/tests/*_test.yml, and every
                  alert has a test case where it fires and one where it is silent;
                  every alertname the tests name is an alert of alerts.yml.
  expressions  3. every PromQL expression of the rule files and of the Grafana
                  JSON (panel targets and variable queries, Grafana variables
                  replaced by stand-ins) parses: they are written into one
                  temporary rule file checked by `promtool check rules`. Also:
                  the dashboards are valid Grafana JSON (schemaVersion >= 37,
                  datasource, job and instance variables, every selector
                  with the job and instance matchers, unique panel ids,
                  grid) and match what
                  dashboards/grafana/generate.py writes; pending_metrics.txt and
                  the Pending section of docs/METRICS.md list the same names.
  metrics      4. with --metrics FILE or --metrics-url URL (a /metrics
                  exposition, text 0.0.4 or OpenMetrics): every metric name an
                  expression references (also each name a `__name__` matcher
                  lists: "a|b"), is in the exposition or listed in
                  dashboards/pending_metrics.txt. Recording-rule names from
                  recording.yml and names Prometheus itself makes (ALERTS, up,
                  scrape_*) are exempt; `_bucket` / `_sum` / `_count` of a
                  histogram family count as present. A bucket pinned by
                  `le="X"` must have that exact le value in the exposition.
  targets      5. with --prometheus-url URL (a Prometheus scraping fabricscope
                  and loading recording.yml): every Grafana variable query and
                  panel target, run as Grafana runs it (variables resolved in
                  order, "All" as `.*`, else the first value; range queries
                  over --range seconds ending --at, instant ones at its end),
                  returns at least one series, except the targets named by
                  --absent KEY (`file.json/Panel title/refId` or
                  `file.json/variable NAME`), which must return nothing (a
                  listed target with data fails: the list is stale).
                  scripts/dashboard_targets.py holds this step.
--self-test checks the checker: known-answer name extraction, a broken
expression fails step 3, a missing name fails step 4, an empty target and a
stale --absent entry fail step 5 (against a fake Prometheus on 127.0.0.1), a
missing, misnamed, incomplete and orphan runbook fail step 1.

Each step group is a module next to this file: dashboard_rules.py (1, 2),
dashboard_expressions.py (3; Grafana JSON in dashboard_grafana.py, the PromQL
name scan in dashboard_promql.py), dashboard_metrics.py (4),
dashboard_targets.py (5); dashboard_report.py holds what they share. This
file has the command line and the self-test.

Exit status 0 when every step run passed, 1 otherwise, 2 on bad usage.
Python 3 standard library only.
"""
import argparse
import json
import os
import sys
import tempfile
import time

sys.dont_write_bytecode = True  # no __pycache__ in the source tree (ctest runs this)

# The steps live in the dashboard_*.py modules next to this file.
import dashboard_targets  # noqa: E402
from dashboard_expressions import parse_with_promtool, step_expressions  # noqa: E402
from dashboard_grafana import (collector_matcher_problems, substitute_vars,  # noqa: E402
                               variable_query_expr)
from dashboard_metrics import step_metrics, unknown_names  # noqa: E402
from dashboard_promql import promql_names, promql_scan  # noqa: E402
from dashboard_report import ROOT, Failure, Report  # noqa: E402
from dashboard_rules import step_rules  # noqa: E402
from dashboard_runbooks import runbook_problems  # noqa: E402
# Not used here: tests/integration/dashboards_live_test.sh reaches them (and
# Report) through this module.
from dashboard_expressions import all_expressions  # noqa: E402,F401
from dashboard_promql import (IDENT_RE, _matchers, _skip_balanced,  # noqa: E402,F401
                              _skip_string, _skip_ws)


# --------------------------------------------------------------------------
# Self-test

def self_test(args, report):
    cases = [
        ('sum by (device, le) (rate(foo_bucket{device=~"$x", __name__="y"}[5m])) '
         '/ on (device) group_left (rail) bar offset 5m', {"foo_bucket", "y", "bar"}),
        ("histogram_quantile(0.99, sum by (le) (rate(a_bucket[5m:1m])))", {"a_bucket"}),
        ('count(ALERTS{alertstate="firing"}) or vector(0)', {"ALERTS"}),
        ("1e12 * x > bool 0.5 unless on () y and Inf", {"x", "y"}),
        ("max_over_time(lvl:rec:op[1h]) # no_name_in_comment\n - 1", {"lvl:rec:op"}),
        ('{__name__=~"a_per_second|b_per_second", port!="p"} unless on (port) c',
         {"a_per_second", "b_per_second", "c"}),
        ("sum without (port) (w) / count(w)", {"w"}),
        ('label_replace(m, "dst", "$1", "src", "(.*)")', {"m"}),
        ("topk(10, z > 0.5)", {"z"}),
    ]
    got = promql_scan('rate(h_bucket {le="0.8"}[5m]) / rate(h_count{le="1"}[5m]) + k{le="2"}')[1]
    if got != {("h_bucket", "0.8"), ("h_count", "1"), ("k", "2")}:
        report.fail(f"self-test: le matchers {got}")
    for expr, want_names in cases:
        got = promql_names(expr)
        if got != want_names:
            report.fail(f"self-test: names of {expr!r}: got {got}, want {want_names}")
    try:
        promql_names('{__name__=~"fabric_.*_per_second"}')
        report.fail("self-test: a __name__ pattern that is not a list of names was accepted")
    except Failure:
        pass
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
    # Every selector carries the collector matchers, save the listed ones.
    ji = 'job=~"$job", instance=~"$instance"'
    got = collector_matcher_problems([
        ("d.json variable job", "fabricscope_build_info"),
        ("d.json variable instance", 'fabricscope_build_info{job=~"$job"}'),
        ("d.json panel 'ok' A", f'rate(a{{{ji}, x="1"}}[5m]) / on () fabric:b or ALERTS'),
        ("d.json panel 'wide' A", f'c{{{ji}}} and on () count(fabric_port_info'
         '{rail!=""})'),
        ("d.json panel 'bare' A", f"sum(d) / e{{{ji}}}"),
        ("d.json panel 'half' A", 'f{job=~"$job"}'),
        ("d.json panel 'nameless' A", '{__name__=~"g|h"}'),
    ])
    want = ["d.json panel 'bare' A: d has no job=~\"$job\", instance=~\"$instance\"",
            "d.json panel 'half' A: f has no instance=~\"$instance\"",
            "d.json panel 'nameless' A: {__name__=~\"g|h\"} has no job=~\"$job\", "
            "instance=~\"$instance\""]
    if got != want:
        report.fail(f"self-test: collector matchers {got}, want {want}")
    # Step 3 must reject what promtool rejects.
    bad = parse_with_promtool(args.promtool, [("good", "rate(m[5m])"),
                                              ("broken", "sum by (a (rate(m[5m]))")])
    if [w for w, _, _ in bad] != ["broken"]:
        report.fail(f"self-test: parse step flagged {[w for w, _, _ in bad]}, want ['broken']")
    # Step 4 must report exactly the missing names.
    expo = ("# HELP h x\n# TYPE h histogram\nh_bucket{le=\"1\"} 1\nh_sum 1\nh_count 1\n"
            "# TYPE c counter\nc_total 3\n# TYPE om counter\n"
            "# TYPE c_per_second gauge\nc_per_second 1\n")
    exprs = [("e1", "rate(h_sum[5m]) / rate(h_count[5m])"),
             ("e2", "histogram_quantile(0.5, rate(h_bucket[5m])) + rate(om_total[5m])"),
             ("e3", '{__name__=~"c_per_second|gone_per_second"} + p_bucket'),
             ("e4", "rec:x + missing_metric + up"),
             ("e5", 'rate(h_bucket{le="1"}[5m]) + rate(h_bucket{le="1.0"}[5m])')]
    got = unknown_names(exprs, {"rec:x"}, expo, ["p"])
    want = ["gone_per_second", 'h_bucket{le="1.0"}', "missing_metric"]
    if sorted(got) != want:
        report.fail(f"self-test: unknown names {sorted(got)}, want {want}")
    for msg in dashboard_targets.self_test():
        report.fail(f"self-test: {msg}")
    for msg in self_test_runbooks():
        report.fail(f"self-test: {msg}")
    if not report.failed:
        report.ok("self-test: name extraction, substitution, parse, name and target checks")


def self_test_runbooks():
    """Step 1's runbook check on a planted tree: one alert of each fault and
    one good pair; returns what differs from the known answer."""
    good = "# {0}\n\n**warning** (ticket)\n\n## Meaning\n\n## Confirm\n\n## Causes\n\n## Action\n"
    rule = "\n        labels:\n          severity: {0}\n        annotations:\n          runbook_url: {1}\n"
    blocks = [(n, rule.format(sev, u)) for n, sev, u in (
        ("Good", "warning", "docs/runbooks/Good.md"), ("NoFile", "warning", "docs/runbooks/NoFile.md"),
        ("WrongUrl", "warning", "runbooks/WrongUrl.md"),
        ("NoSections", "warning", "docs/runbooks/NoSections.md"),
        ("WrongSeverity", "critical", "docs/runbooks/WrongSeverity.md"))]
    blocks.append(("NoUrl", "\n        annotations:\n          summary: x\n"))
    with tempfile.TemporaryDirectory() as root:
        os.makedirs(os.path.join(root, "docs", "runbooks"))
        for name, text in (("Good", good.format("Good")), ("WrongUrl", good.format("WrongUrl")),
                           ("NoUrl", good.format("NoUrl")),
                           ("WrongSeverity", good.format("WrongSeverity")),
                           ("NoSections", "# NoSections\n\n**warning**\n\n## Meaning\n\n## Action\n"),
                           ("Orphan", good.format("Orphan")), ("README", "# Runbooks\n")):
            with open(os.path.join(root, "docs", "runbooks", name + ".md"), "w") as f:
                f.write(text)
        got = runbook_problems(blocks, root)
    want = sorted([
        "NoFile: no runbook docs/runbooks/NoFile.md",
        "NoUrl: runbook_url is missing, want docs/runbooks/NoUrl.md",
        "WrongUrl: runbook_url is ['runbooks/WrongUrl.md'], want docs/runbooks/WrongUrl.md",
        "docs/runbooks/NoSections.md: sections ['Meaning', 'Action'], want ## Meaning, "
        "## Confirm, ## Causes, ## Action",
        "docs/runbooks/Orphan.md: a runbook of no alert in alerts.yml",
        "docs/runbooks/WrongSeverity.md: first paragraph does not say **critical** (the rule's "
        "severity)",
    ])
    return [] if got == want else [f"runbook check gave {got}, want {want}"]


# --------------------------------------------------------------------------
# Step 5: targets against a live Prometheus

def step_targets(args, report):
    absent = {}
    for item in args.absent or []:
        key, _, reason = item.partition("=")
        absent[key.strip()] = reason.strip() or "listed"
    gdir = os.path.join(ROOT, "dashboards", "grafana")
    dashboards = []
    for f in sorted(os.listdir(gdir)):
        if f.endswith(".json"):
            with open(os.path.join(gdir, f), encoding="utf-8") as fh:
                dashboards.append((f, json.load(fh)))
    w = dashboard_targets.Window(args.at or time.time(), args.range, args.step,
                                 args.scrape_interval)
    prom = dashboard_targets.Prometheus(args.prometheus_url)
    runs, problems = dashboard_targets.check_targets(dashboards, prom, w, absent)
    for key, msg in problems:
        report.fail(f"{key}: {msg}")
    if not problems:
        report.ok(f"{runs - len(absent)} of {runs} variable queries and targets return data "
                  f"from {args.prometheus_url}; {len(absent)} listed as absent return nothing")
        for key in sorted(absent):
            print(f"note absent: {key} ({absent[key]})")


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--promtool", default="promtool", help="promtool binary")
    ap.add_argument("--only", choices=("rules", "expressions", "metrics", "targets"),
                    help="run one step group only")
    ap.add_argument("--metrics", metavar="FILE", help="a /metrics exposition to compare with")
    ap.add_argument("--metrics-url", metavar="URL", help="fetch the exposition from URL")
    ap.add_argument("--prometheus-url", metavar="URL",
                    help="run every dashboard target against this Prometheus")
    ap.add_argument("--absent", metavar="KEY[=REASON]", action="append",
                    help="a target that must return nothing (repeatable)")
    ap.add_argument("--at", type=float, metavar="UNIX_S",
                    help="end of the queried range (default: now)")
    ap.add_argument("--range", type=int, default=60, metavar="S",
                    help="dashboard time range in seconds (default 60)")
    ap.add_argument("--step", type=int, default=5, metavar="S",
                    help="query step, Grafana's $__interval (default 5)")
    ap.add_argument("--scrape-interval", type=int, default=1, metavar="S",
                    help="Prometheus' scrape interval, for $__rate_interval (default 1)")
    ap.add_argument("--self-test", action="store_true", help="also test the checker itself")
    args = ap.parse_args(argv[1:])
    if args.only == "metrics" and not (args.metrics or args.metrics_url):
        ap.error("--only metrics needs --metrics FILE or --metrics-url URL")
    if args.only == "targets" and not args.prometheus_url:
        ap.error("--only targets needs --prometheus-url URL")
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
        if args.prometheus_url and args.only in (None, "targets"):
            step_targets(args, report)
    except (Failure, OSError) as e:
        report.fail(str(e))
    print("check_dashboards: " + ("FAILED" if report.failed else "all checks passed"))
    return 1 if report.failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
