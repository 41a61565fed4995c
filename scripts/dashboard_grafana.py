"""Grafana for check_dashboards.py (step 3): a dashboard's JSON is valid
Grafana (schemaVersion >= 37, datasource variable, unique panel ids, grid),
and its expressions with the Grafana variables replaced by stand-ins that
keep PromQL valid.

Python 3 standard library only.
"""
import json
import os
import re

from dashboard_promql import promql_selectors
from dashboard_report import Failure
from dashboard_targets import VAR_RE

# Grafana's built-in variables and the stand-ins that keep PromQL valid.
GRAFANA_BUILTINS = {
    "__rate_interval": "5m", "__interval": "5m", "__range": "5m",
    "__range_s": "300", "__range_ms": "300000", "__interval_ms": "300000",
}



# Every selector of a dashboard carries these (a sharded deployment runs
# several collectors; the job and instance variables pick them), except:
JOB = ("job", "=~", "$job")
INSTANCE = ("instance", "=~", "$instance")
# recording rules that sum over every collector, and Prometheus' ALERTS
# (alert labels carry no job or instance);
ALL_COLLECTORS = ("fabric:", "rail_direction:")
# and selectors that ask a question of the whole fabric, with the reason.
FABRIC_WIDE = {
    ("fabric_port_info", (("rail", "!=", ""),)):
        "is the fabric rail-optimized: any port of any collector with a rail",
}


def collector_matcher_problems(exprs):
    """exprs: [(where, expression as written, Grafana variables unreplaced)].
    Returns a sentence per selector without the job / instance matchers;
    the job variable's own query is exempt, the instance variable's needs
    job only."""
    out = []
    for where, expr in exprs:
        if where.endswith(" variable job"):
            continue
        need = [JOB] if where.endswith(" variable instance") else [JOB, INSTANCE]
        for name, ms in promql_selectors(expr):
            if name == "ALERTS" or name.startswith(ALL_COLLECTORS):
                continue
            if (name, tuple(ms)) in FABRIC_WIDE:
                continue
            missing = [f'{k}{op}"{v}"' for k, op, v in need if (k, op, v) not in ms]
            if missing:
                out.append(f"{where}: {name} has no {', '.join(missing)}")
    return out


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
    for v in ("job", "instance"):
        if variables.get(v) != "query":
            problems.append(f"no query template variable named '{v}' (one per collector)")
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
    problems += collector_matcher_problems(exprs)
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
