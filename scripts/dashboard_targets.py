"""Step 5 of check_dashboards.py: every Grafana panel target and variable
query run against a live Prometheus must return data.

Grafana is imitated where the answer depends on it:
  - variables are resolved in the order of the dashboard's template list,
    each query with the values of the variables before it substituted (the
    port variable reads $device);
  - `label_values(SELECTOR, LABEL)` is Prometheus' /api/v1/series over the
    dashboard's time range, `query_result(EXPR)` an instant query at its end
    whose lines are written as Grafana writes them
    (`name{k="v", k2="v2"} value timestamp_ms`) before the variable's regex
    picks the value (its first capture group when it has one);
  - a variable with "All" takes its allValue (`.*`, what a dashboard opened
    fresh uses). A single-select one (the drill-down's device) takes `.*`
    as well, which Grafana would not (it opens on the first value): the
    question is whether a target can return data at all, and a drill-down
    opened on a NIC port has no switch-queue panel to fill. Its query must
    still return values;
  - a custom variable with "All" takes `.*`;
  - $__interval is the step, $__rate_interval max($__interval + scrape
    interval, 4 x scrape interval) (Grafana's definition), $__range the range;
  - a target with `instant: true` is an instant query at the range's end,
    others range queries over the range at the step.
"Returns nothing" is an empty result: no series (a series of zeros is data).

Python 3 standard library only; check_dashboards.py imports this module.
"""
import http.server
import json
import re
import threading
import urllib.error
import urllib.parse
import urllib.request

# $var, ${var} / ${var:format}, [[var]]: Grafana's three spellings.
VAR_RE = re.compile(r"\$\{([A-Za-z_]\w*)(?::[^}]*)?\}|\$([A-Za-z_]\w*)|\[\[([A-Za-z_]\w*)\]\]")


class Window:
    """The dashboard time range and step the queries use (seconds)."""

    def __init__(self, end, range_s, step_s, scrape_s):
        self.end = float(end)
        self.range_s = int(range_s)
        self.step_s = int(step_s)
        self.scrape_s = int(scrape_s)

    @property
    def start(self):
        return self.end - self.range_s

    def builtins(self):
        """Values of Grafana's built-in interval variables."""
        rate = max(self.step_s + self.scrape_s, 4 * self.scrape_s)
        return {
            "__interval": f"{self.step_s}s", "__interval_ms": str(self.step_s * 1000),
            "__rate_interval": f"{rate}s", "__range": f"{self.range_s}s",
            "__range_s": str(self.range_s), "__range_ms": str(self.range_s * 1000),
        }


class Prometheus:
    """The three HTTP API calls Grafana makes for these dashboards. Each
    returns the API's `data` (or its `result`); raises OSError / ValueError
    on a transport or API error (the message names the query)."""

    def __init__(self, base, timeout=10):
        self.base = base.rstrip("/")
        self.timeout = timeout

    def _get(self, path, params):
        url = self.base + path + "?" + urllib.parse.urlencode(params, doseq=True)
        try:
            with urllib.request.urlopen(url, timeout=self.timeout) as r:
                body = json.load(r)
        except urllib.error.HTTPError as e:  # 400: the API's error text is in the body
            try:
                msg = json.load(e).get("error", str(e))
            except ValueError:
                msg = str(e)
            raise ValueError(f"{path} {params}: {msg}") from None
        if body.get("status") != "success":
            raise ValueError(f"{path} {params}: {body.get('error')}")
        return body["data"]

    def instant(self, expr, at):
        return self._get("/api/v1/query", {"query": expr, "time": f"{at:.3f}"})["result"]

    def range(self, expr, w):
        return self._get("/api/v1/query_range", {
            "query": expr, "start": f"{w.start:.3f}", "end": f"{w.end:.3f}",
            "step": f"{w.step_s}s"})["result"]

    def series(self, selector, w):
        return self._get("/api/v1/series", {
            "match[]": selector, "start": f"{w.start:.3f}", "end": f"{w.end:.3f}"})


def _prom_string(value):
    """A value inside a PromQL double-quoted matcher string."""
    return value.replace("\\", "\\\\").replace('"', '\\"')


def substitute(expr, values, builtins):
    """expr with every Grafana variable replaced by its value; KeyError names
    a variable that has none."""
    def repl(m):
        name = m.group(1) or m.group(2) or m.group(3)
        if name in builtins:
            return builtins[name]
        return values[name]
    return VAR_RE.sub(repl, expr)


def _grafana_line(sample):
    """One query_result line as Grafana's Prometheus data source writes it."""
    metric = dict(sample.get("metric", {}))
    name = metric.pop("__name__", "")
    labels = ", ".join(f'{k}="{v}"' for k, v in metric.items())
    ts, value = sample.get("value", [0, ""])
    return f"{name}{{{labels}}} {value} {int(float(ts) * 1000)}"


def variable_values(var, prom, w, values, builtins):
    """Resolves one query variable: (the values it offers, the PromQL run).
    Raises ValueError for a query form this checker does not know."""
    query = var.get("query", "")
    if isinstance(query, dict):
        query = query.get("query", "")
    query = substitute(query.strip(), values, builtins)
    m = re.fullmatch(r"label_values\((.*),\s*([A-Za-z_]\w*)\s*\)", query, re.S)
    if m:
        sel, label = m.group(1).strip(), m.group(2)
        texts = [s[label] for s in prom.series(sel, w) if label in s]
        expr = sel
    else:
        m = re.fullmatch(r"query_result\((.*)\)", query, re.S)
        if not m:
            raise ValueError(f"unsupported variable query {query!r}")
        expr = m.group(1).strip()
        texts = [_grafana_line(s) for s in prom.instant(expr, w.end)]
    regex = var.get("regex") or ""
    if regex:
        rm = re.fullmatch(r"/(.*)/([a-z]*)", regex, re.S)
        rx = re.compile(rm.group(1) if rm else regex,
                        re.I if rm and "i" in rm.group(2) else 0)
        picked = []
        for t in texts:
            hit = rx.search(t)
            if hit:
                picked.append(hit.group(1) if rx.groups else hit.group(0))
        texts = picked
    return sorted(set(texts)), expr


def _walk(panels):
    for p in panels:
        yield p
        yield from _walk(p.get("panels", []))


def check_dashboard(name, dash, prom, w):
    """Runs one dashboard's variable queries and panel targets. Returns
    ([(key, expr, series count)], [(key, problem)]); key is
    `name/variable VAR` or `name/PANEL TITLE/REFID`."""
    builtins = w.builtins()
    values, results, problems = {}, [], []
    for var in dash.get("templating", {}).get("list", []):
        vname, vtype = var.get("name"), var.get("type")
        key = f"{name}/variable {vname}"
        if vtype == "datasource":
            continue
        if vtype == "custom":
            opts = [o.strip() for o in str(var.get("query", "")).split(",") if o.strip()]
            results.append((key, var.get("query", ""), len(opts)))
            values[vname] = (var.get("allValue") or ".*") if var.get("includeAll") else \
                _prom_string(opts[0] if opts else "")
            continue
        if vtype == "interval":
            opts = [o.strip() for o in str(var.get("query", "")).split(",") if o.strip()]
            values[vname] = opts[0] if opts else builtins["__interval"]
            continue
        try:
            opts, expr = variable_values(var, prom, w, values, builtins)
        except (OSError, ValueError, KeyError) as e:
            problems.append((key, f"query failed: {e}"))
            values[vname] = ".*"
            continue
        results.append((key, expr, len(opts)))
        values[vname] = var.get("allValue") or ".*"
    for p in _walk(dash.get("panels", [])):
        if p.get("type") == "row":
            continue
        for t in p.get("targets", []):
            key = f"{name}/{p.get('title', '?')}/{t.get('refId')}"
            try:
                expr = substitute(t.get("expr", ""), values, builtins)
                res = prom.instant(expr, w.end) if t.get("instant") else prom.range(expr, w)
            except KeyError as e:
                problems.append((key, f"unknown variable {e}"))
                continue
            except (OSError, ValueError) as e:
                problems.append((key, f"query failed: {e}"))
                continue
            results.append((key, expr, len(res)))
    return results, problems


def check_targets(dashboards, prom, w, absent):
    """Every target and variable query of dashboards ([(file name, parsed
    JSON)]) against prom. absent: {key: reason} of targets for parts the
    caller's Prometheus does not see. Returns (number of queries run,
    [(key, problem)]): a query that returns nothing and is not listed, a
    listed one that returns data (the list is stale), a listed key that
    names no target, a query Prometheus refuses."""
    problems, seen, runs = [], set(), 0
    for name, dash in dashboards:
        results, errs = check_dashboard(name, dash, prom, w)
        problems += errs
        seen.update(k for k, _ in errs)
        for key, expr, n in results:
            runs += 1
            seen.add(key)
            if n == 0 and key not in absent:
                problems.append((key, f"returns nothing: {expr}"))
            elif n and key in absent:
                problems.append((key, f"listed as absent ({absent[key]}) but returns {n} "
                                      "series: remove it from the list"))
    for key in sorted(set(absent) - seen):
        problems.append((key, "listed as absent but no such target or variable"))
    return runs, problems


# --------------------------------------------------------------------------
# Self-test: a fake Prometheus on 127.0.0.1 answering from canned results.

class _FakeProm(http.server.ThreadingHTTPServer):
    def __init__(self, canned):
        super().__init__(("127.0.0.1", 0), _FakeHandler)
        self.canned = canned  # (path, query) -> result
        self.seen = []

    def url(self):
        host, port = self.server_address[:2]
        return f"http://{host}:{port}"


class _FakeHandler(http.server.BaseHTTPRequestHandler):
    def do_GET(self):  # noqa: N802 (the http.server API)
        u = urllib.parse.urlparse(self.path)
        q = urllib.parse.parse_qs(u.query)
        expr = (q.get("query") or q.get("match[]") or [""])[0]
        self.server.seen.append((u.path, expr))
        if "syntax error" in expr:
            code, body = 400, {"status": "error", "errorType": "bad_data", "error": "parse"}
        else:
            data = self.server.canned.get((u.path, expr), [])
            if u.path != "/api/v1/series":
                data = {"resultType": "matrix" if u.path.endswith("range") else "vector",
                        "result": data}
            code, body = 200, {"status": "success", "data": data}
        raw = json.dumps(body).encode()
        self.send_response(code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(raw)))
        self.end_headers()
        self.wfile.write(raw)

    def log_message(self, *args):  # quiet
        pass


def self_test():
    """Returns [] when the step flags exactly what it must, else messages."""
    series = {"metric": {"__name__": "m", "device": "b300-01"}, "value": [1, "1"]}
    row = {"metric": {"device": "b300-01"}, "values": [[1, "1"]]}
    canned = {
        ("/api/v1/query", 'group by (device) (m)'): [
            {"metric": {"device": "b300-02"}, "value": [1, "1"]}, series],
        ("/api/v1/series", 'n{device=~".*"}'): [{"__name__": "n", "port": "p1"},
                                              {"__name__": "n", "port": "p0"}],
        ("/api/v1/query_range", 'rate(m{device=~".*", port=~".*"}[6s])'): [row],
        ("/api/v1/query", 'topk(1, m{port=~".*"})'): [series],
        ("/api/v1/query_range", "kafka_x"): [row],
    }
    dash = {"templating": {"list": [
        {"name": "datasource", "type": "datasource"},
        {"name": "device", "type": "query", "query": "query_result(group by (device) (m))",
         "regex": '/device="([^"]+)"/', "includeAll": False, "sort": 1},
        {"name": "port", "type": "query", "query": 'label_values(n{device=~"$device"}, port)',
         "includeAll": True, "allValue": ".*"},
        {"name": "dir", "type": "custom", "query": "rx,tx", "includeAll": True}]},
        "panels": [{"type": "row", "title": "r", "panels": [
            {"title": "ok", "targets": [
                {"refId": "A", "expr": 'rate(m{device=~"$device", port=~"$port"}[$__rate_interval])'},
                {"refId": "B", "expr": 'topk(1, m{port=~"${port:regex}"})', "instant": True}]}]},
            {"title": "empty", "targets": [{"refId": "A", "expr": 'm{direction=~"$dir"}'}]},
            {"title": "kafka", "targets": [{"refId": "A", "expr": "kafka_y"},
                                           {"refId": "B", "expr": "kafka_x"},
                                           {"refId": "C", "expr": "syntax error"},
                                           {"refId": "D", "expr": "m{a=\"$nope\"}"}]}]}
    srv = _FakeProm(canned)
    th = threading.Thread(target=srv.serve_forever, daemon=True)
    th.start()
    msgs = []
    try:
        w = Window(1000, 60, 5, 1)
        absent = {"d.json/kafka/A": "no Kafka", "d.json/kafka/B": "no Kafka",
                  "d.json/gone/A": "renamed"}
        runs, problems = check_targets([("d.json", dash)], Prometheus(srv.url()), w, absent)
        # The regex picks b300-01 and b300-02 out of query_result's lines;
        # label_values gives the two ports.
        counts = {k: n for k, _, n in check_dashboard("d.json", dash, Prometheus(srv.url()), w)[0]}
        for var in ("device", "port"):
            if counts.get(f"d.json/variable {var}") != 2:
                msgs.append(f"variable {var}: {counts.get(f'd.json/variable {var}')} values, want 2")
    finally:
        srv.shutdown()
        srv.server_close()
    got = sorted(k for k, _ in problems)
    want = ["d.json/empty/A", "d.json/gone/A", "d.json/kafka/B", "d.json/kafka/C",
            "d.json/kafka/D"]
    if got != want:
        msgs.append(f"targets step flagged {got}, want {want}: {problems}")
    # 3 variable queries (device, port, the custom dir) + 5 targets answered
    # (kafka C is refused, kafka D never sent).
    if runs != 8:
        msgs.append(f"targets step ran {runs} queries, want 8")
    # The single-select device, the all-valued port and the custom dir all
    # became .* in the port query and the targets (the canned answers above
    # are keyed by the substituted text); $__rate_interval max(5+1, 4x1) = 6s.
    for path, expr in (("/api/v1/series", 'n{device=~".*"}'),
                       ("/api/v1/query_range", 'm{direction=~".*"}')):
        if (path, expr) not in srv.seen:
            msgs.append(f"targets step did not query {path} {expr!r}: {srv.seen}")
    return msgs

