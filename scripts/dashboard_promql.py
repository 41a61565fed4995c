"""PromQL for check_dashboards.py: metric names referenced by an expression
(a tokenizer, not a parser: promtool has already said the expression is
valid), written as names or as a `__name__` matcher listing names, and the
histogram buckets it pins.

Python 3 standard library only.
"""
import re

from dashboard_report import Failure

# PromQL words that are never metric names in our expressions.
AGGREGATIONS = {"sum", "min", "max", "avg", "group", "stddev", "stdvar", "count",
                "count_values", "bottomk", "topk", "quantile"}
LABEL_LIST_WORDS = {"by", "without", "on", "ignoring", "group_left", "group_right"}
OPERATOR_WORDS = {"and", "or", "unless", "bool", "offset", "atan2"}
NUMBER_WORDS = {"inf", "nan"}

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
    """Returns the metric names the expression reads."""
    return promql_scan(expr)[0]


def promql_scan(expr):
    """Returns (metric names, {(metric, le value)} of selectors that pin a
    histogram bucket such as m_bucket{le="0.8"})."""
    names, les, _ = _scan(expr)
    return names, les


def promql_selectors(expr):
    """Returns [(metric name, [(label, op, value)])], one per vector
    selector in order of appearance (a bare name has no matchers; a
    selector without a name, `{__name__=~"a|b"}`, is named by its braces)."""
    return _scan(expr)[2]


def _name_matcher(op, value, expr):
    """The names a `__name__` matcher selects: one name (=) or a list of
    names (=~ "a|b"); anything else cannot be checked against /metrics."""
    alts = value.split("|") if op == "=~" else [value]
    if op not in ("=", "=~") or not all(IDENT_RE.fullmatch(a) for a in alts):
        raise Failure(f"cannot check a __name__ matcher that is not a list of names: {expr}")
    return alts


def _scan(expr):
    names, les, selectors = set(), set(), []
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
            start = i
            i, ms = _matchers(s, i)
            if selector_of:
                selectors[-1] = (selector_of, ms)
            else:
                selectors.append((s[start:i], ms))
            for name, op, value in ms:
                if name == "le" and op == "=" and selector_of:
                    les.add((selector_of, value))
                if name == "__name__":
                    names.update(_name_matcher(op, value, expr))
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
                selectors.append((word, []))
                i = j if nxt == "{" else m.end()
                selector_of = word if nxt == "{" else None
                continue
        else:
            i += 1
        selector_of = None
    return names, les, selectors
