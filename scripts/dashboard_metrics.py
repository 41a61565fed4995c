"""Step 4 of check_dashboards.py: every metric name an expression
references (by name or in a `__name__` matcher) is in a /metrics exposition
(text 0.0.4 or OpenMetrics) or pending; a bucket pinned by `le="X"` has that
exact le value there.

Python 3 standard library only.
"""
import os
import re
import urllib.request

from dashboard_expressions import all_expressions, read_pending
from dashboard_promql import IDENT_RE, promql_scan
from dashboard_report import ROOT, Report

# Names Prometheus creates itself; an expression may use them without the
# exporter producing them.
PROMETHEUS_NAMES = {
    "ALERTS", "ALERTS_FOR_STATE", "up", "scrape_duration_seconds", "scrape_samples_scraped",
    "scrape_samples_post_metric_relabeling", "scrape_series_added",
}


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
        metric_names, les = promql_scan(e)
        for n in metric_names - records - PROMETHEUS_NAMES:
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
