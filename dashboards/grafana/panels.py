"""Building blocks of the fabricscope Grafana dashboards: a grid layout, the
template variables and the panel types (timeseries, stat, table, heatmap),
all bound to the Prometheus data source chosen in the `datasource` variable.
Used by generate.py."""

SCHEMA_VERSION = 37  # Grafana 9.x; newer Grafana migrates it on load
DS = {"type": "prometheus", "uid": "${datasource}"}


class Dashboard:
    """Collects panels and lays them out left to right, top to bottom on
    Grafana's 24-column grid, with a row header before each section."""

    def __init__(self, uid, title, description, tags):
        self.uid = uid
        self.title = title
        self.description = description
        self.tags = tags
        self.panels = []
        # The collector that serves a device comes first: a sharded
        # deployment runs several, and every panel selects on them.
        self.variables = [datasource_var(), *collector_vars()]
        self.next_id = 1
        self.x = 0
        self.y = 0
        self.row_h = 0

    def _id(self):
        pid = self.next_id
        self.next_id += 1
        return pid

    def row(self, title):
        self._newline()
        self.panels.append({
            "collapsed": False,
            "gridPos": {"h": 1, "w": 24, "x": 0, "y": self.y},
            "id": self._id(),
            "panels": [],
            "title": title,
            "type": "row",
        })
        self.y += 1

    def _newline(self):
        if self.x > 0:
            self.x = 0
            self.y += self.row_h
            self.row_h = 0

    def add(self, panel, w, h):
        if self.x + w > 24:
            self._newline()
        panel["gridPos"] = {"h": h, "w": w, "x": self.x, "y": self.y}
        panel["id"] = self._id()
        self.panels.append(panel)
        self.x += w
        self.row_h = max(self.row_h, h)

    def to_json(self):
        return {
            "annotations": {"list": [{
                "builtIn": 1,
                "datasource": {"type": "grafana", "uid": "-- Grafana --"},
                "enable": True,
                "hide": True,
                "iconColor": "rgba(0, 211, 255, 1)",
                "name": "Annotations & Alerts",
                "type": "dashboard",
            }]},
            "description": self.description,
            "editable": True,
            "fiscalYearStartMonth": 0,
            "graphTooltip": 1,
            "id": None,
            "links": [{
                "asDropdown": True,
                "icon": "external link",
                "includeVars": False,
                "keepTime": True,
                "tags": ["fabricscope"],
                "targetBlank": False,
                "title": "fabricscope",
                "type": "dashboards",
            }],
            "liveNow": False,
            "panels": self.panels,
            "refresh": "30s",
            "schemaVersion": SCHEMA_VERSION,
            "style": "dark",
            "tags": self.tags,
            "templating": {"list": self.variables},
            "time": {"from": "now-6h", "to": "now"},
            "timepicker": {},
            "timezone": "",
            "title": self.title,
            "uid": self.uid,
            "version": 1,
            "weekStart": "",
        }


# ---- template variables ----

def datasource_var():
    return {
        "current": {},
        "hide": 0,
        "includeAll": False,
        "label": "Data source",
        "multi": False,
        "name": "datasource",
        "options": [],
        "query": "prometheus",
        "refresh": 1,
        "regex": "",
        "skipUrlSync": False,
        "type": "datasource",
    }


def collector_vars():
    """`job` and `instance`: the Prometheus scrape job and target of each
    collector, read from fabricscope_build_info (every collector has it)."""
    return [query_var("job", "Job", "label_values(fabricscope_build_info, job)"),
            query_var("instance", "Collector",
                      'label_values(fabricscope_build_info{job=~"$job"}, instance)')]


def query_var(name, label, query, multi=True, include_all=True, regex=""):
    return {
        "allValue": ".*" if include_all else None,
        "current": {},
        "datasource": DS,
        "definition": query,
        "hide": 0,
        "includeAll": include_all,
        "label": label,
        "multi": multi,
        "name": name,
        "options": [],
        "query": query,  # the string form: every Grafana since 7 reads it
        "refresh": 2,
        "regex": regex,
        "skipUrlSync": False,
        "sort": 1,
        "type": "query",
    }


def custom_var(name, label, values):
    return {
        "allValue": ".*",
        "current": {"selected": True, "text": ["All"], "value": ["$__all"]},
        "hide": 0,
        "includeAll": True,
        "label": label,
        "multi": True,
        "name": name,
        "options": [],
        "query": ",".join(values),
        "skipUrlSync": False,
        "type": "custom",
    }


# ---- panels ----

def target(expr, legend="", ref="A", fmt=None, instant=False):
    t = {
        "datasource": DS,
        "editorMode": "code",
        "expr": expr,
        "legendFormat": legend or "__auto",
        "range": not instant,
        "instant": instant,
        "refId": ref,
    }
    if fmt:
        t["format"] = fmt
    return t


def targets(*pairs):
    """targets(("expr", "legend"), ...) with refIds A, B, C, ..."""
    return [target(e, l, chr(ord("A") + i)) for i, (e, l) in enumerate(pairs)]


def thresholds(*steps):
    out = [{"color": "green", "value": None}]
    for value, color in steps:
        out.append({"color": color, "value": value})
    return {"mode": "absolute", "steps": out}


def timeseries(title, description, tgts, unit="short", vmin=None, vmax=None, steps=(),
               bars=False, stack=False, threshold_line=False):
    custom = {
        "axisCenteredZero": False,
        "axisPlacement": "auto",
        "drawStyle": "bars" if bars else "line",
        "fillOpacity": 60 if bars else 10,
        "gradientMode": "none",
        "lineInterpolation": "linear",
        "lineWidth": 1,
        "pointSize": 4,
        "showPoints": "never",
        "spanNulls": False,
        "stacking": {"group": "A", "mode": "normal" if stack else "none"},
        "thresholdsStyle": {"mode": "dashed" if threshold_line else "off"},
    }
    defaults = {
        "color": {"mode": "palette-classic"},
        "custom": custom,
        "thresholds": thresholds(*steps),
        "unit": unit,
    }
    if vmin is not None:
        defaults["min"] = vmin
    if vmax is not None:
        defaults["max"] = vmax
    return {
        "datasource": DS,
        "description": description,
        "fieldConfig": {"defaults": defaults, "overrides": []},
        "options": {
            "legend": {"calcs": ["mean", "max"], "displayMode": "table",
                       "placement": "bottom", "showLegend": True},
            "tooltip": {"mode": "multi", "sort": "desc"},
        },
        "targets": tgts,
        "title": title,
        "type": "timeseries",
    }


def stat(title, description, expr, unit="short", steps=(), decimals=None):
    defaults = {
        "color": {"mode": "thresholds"},
        "mappings": [],
        "thresholds": thresholds(*steps),
        "unit": unit,
    }
    if decimals is not None:
        defaults["decimals"] = decimals
    return {
        "datasource": DS,
        "description": description,
        "fieldConfig": {"defaults": defaults, "overrides": []},
        "options": {
            "colorMode": "value",
            "graphMode": "area",
            "justifyMode": "auto",
            "orientation": "auto",
            "reduceOptions": {"calcs": ["lastNotNull"], "fields": "", "values": False},
            "textMode": "auto",
        },
        "targets": [target(expr, "", "A")],
        "title": title,
        "type": "stat",
    }


def table(title, description, expr, value_title, unit, link=None, steps=(), columns=None):
    """An instant query as a table (one row per series); `link` adds a data
    link on the device column, e.g. to the port drill-down; `columns` keeps
    only those labels, in that order, before the value (else every label)."""
    overrides = [{
        "matcher": {"id": "byName", "options": "Value"},
        "properties": [
            {"id": "displayName", "value": value_title},
            {"id": "unit", "value": unit},
            {"id": "custom.displayMode", "value": "color-background"},
        ],
    }]
    if link:
        overrides.append({
            "matcher": {"id": "byName", "options": "device"},
            "properties": [{"id": "links", "value": [{"title": "Port drill-down", "url": link}]}],
        })
    return {
        "datasource": DS,
        "description": description,
        "fieldConfig": {
            "defaults": {
                "color": {"mode": "thresholds"},
                "custom": {"align": "auto", "displayMode": "auto", "inspect": False},
                "mappings": [],
                "thresholds": thresholds(*steps),
            },
            "overrides": overrides,
        },
        "options": {"footer": {"show": False, "reducer": ["sum"], "fields": ""},
                    "showHeader": True, "sortBy": [{"desc": True, "displayName": value_title}]},
        "targets": [target(expr, "", "A", fmt="table", instant=True)],
        "transformations": table_columns(columns),
        "title": title,
        "type": "table",
    }


def table_columns(columns):
    """Grafana transformations of a table: every label but the time and the
    metric name, or only `columns` and the value, in that order."""
    if not columns:
        return [{"id": "organize", "options": {
            "excludeByName": {"Time": True, "__name__": True},
            "indexByName": {}, "renameByName": {}}}]
    keep = list(columns) + ["Value"]
    return [{"id": "filterFieldsByName", "options": {"include": {"names": keep}}},
            {"id": "organize", "options": {
                "excludeByName": {}, "indexByName": {n: i for i, n in enumerate(keep)},
                "renameByName": {}}}]


def heatmap(title, description, expr, unit):
    """A Prometheus histogram as a heatmap: buckets per time step (format
    heatmap sorts le and de-accumulates the cumulative counts)."""
    return {
        "datasource": DS,
        "description": description,
        "fieldConfig": {"defaults": {"custom": {"hideFrom": {"legend": False, "tooltip": False,
                                                              "viz": False},
                                                "scaleDistribution": {"type": "linear"}}},
                        "overrides": []},
        "options": {
            "calculate": False,
            "cellGap": 1,
            "color": {"exponent": 0.5, "fill": "dark-orange", "mode": "scheme",
                      "reverse": False, "scale": "exponential", "scheme": "Oranges",
                      "steps": 64},
            "exemplars": {"color": "rgba(255,0,255,0.7)"},
            "filterValues": {"le": 1e-9},
            "legend": {"show": True},
            "rowsFrame": {"layout": "le"},
            "tooltip": {"show": True, "yHistogram": True},
            "yAxis": {"axisPlacement": "left", "reverse": False, "unit": unit},
        },
        "targets": [dict(target(expr, "{{le}}", "A", fmt="heatmap"))],
        "title": title,
        "type": "heatmap",
    }
