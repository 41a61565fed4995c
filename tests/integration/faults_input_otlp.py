#!/usr/bin/env python3
"""One OTLP/HTTP JSON export request for the hostile-input fault tests
(faults_input.sh).

  faults_input_otlp.py PORT POINT [POINT ...]

Each POINT is DEVICE,TIME,VALUE[,IFACE[,KIND[,KEY=VAL]]]: a Sum (cumulative,
monotonic) named nvswitch_interface_if_in_octets of resource host.name
DEVICE with attribute interface=IFACE (default swp1); TIME is ns since the
epoch or `now` (the local clock) or `now+S` / `now-S` (seconds); VALUE an
integer (sent as asInt, a string in OTLP/JSON, so 2^53 + 1 is exact) or,
with KIND `double`, sent as asDouble (KIND empty: int). KEY=VAL adds a
string attribute KEY with value VAL. Points of one DEVICE share a resource;
all go in one request. IFACE and KEY may be `A*N` for N copies of the
character A, `A*N+SUFFIX` for that followed by SUFFIX (long label values,
long attribute keys).

Prints `status=HTTP_CODE rejected=N message=TEXT` from the answer's
partialSuccess (0 and "" when absent) and exits 0 on any HTTP answer."""
import json
import sys
import time
import urllib.error
import urllib.request


def expand(s):
    if "*" not in s:
        return s
    ch, rest = s.split("*", 1)
    n, _, suffix = rest.partition("+")
    return ch * int(n) + suffix


def parse_time(s, now_ns):
    if s == "now":
        return now_ns
    if s.startswith("now+"):
        return now_ns + int(float(s[4:]) * 1e9)
    if s.startswith("now-"):
        return now_ns - int(float(s[4:]) * 1e9)
    return int(s)


def main():
    port = int(sys.argv[1])
    now_ns = time.time_ns()
    by_dev = {}
    for spec in sys.argv[2:]:
        parts = spec.split(",")
        dev, t, val = parts[0], parts[1], parts[2]
        iface = expand(parts[3]) if len(parts) > 3 else "swp1"
        kind = parts[4] if len(parts) > 4 and parts[4] else "int"
        attrs = [{"key": "interface", "value": {"stringValue": iface}}]
        if len(parts) > 5:
            key, _, aval = parts[5].partition("=")
            attrs.append({"key": expand(key), "value": {"stringValue": aval}})
        pt = {"timeUnixNano": str(parse_time(t, now_ns)), "attributes": attrs}
        if kind == "double":
            pt["asDouble"] = float(val)
        else:
            pt["asInt"] = str(int(val))
        by_dev.setdefault(dev, []).append(pt)
    rms = []
    for dev, pts in by_dev.items():
        rms.append({
            "resource": {"attributes": [{"key": "host.name", "value": {"stringValue": dev}}]},
            "scopeMetrics": [{"metrics": [{
                "name": "nvswitch_interface_if_in_octets",
                "sum": {"aggregationTemporality": 2, "isMonotonic": True, "dataPoints": pts},
            }]}],
        })
    body = json.dumps({"resourceMetrics": rms}).encode()
    req = urllib.request.Request(f"http://127.0.0.1:{port}/v1/metrics", data=body,
                                 headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(req, timeout=10) as r:
            code, text = r.status, r.read()
    except urllib.error.HTTPError as e:
        code, text = e.code, e.read()
    rej, msg = 0, ""
    try:
        ps = json.loads(text or b"{}").get("partialSuccess", {})
        rej, msg = int(ps.get("rejectedDataPoints", 0)), ps.get("errorMessage", "")
    except ValueError:
        msg = text[:200].decode(errors="replace")
    print(f"status={code} rejected={rej} message={msg}")


if __name__ == "__main__":
    main()
