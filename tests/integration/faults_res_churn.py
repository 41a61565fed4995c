#!/usr/bin/env python3
"""Series churn over OTLP/HTTP JSON for the series-limit fault test
(faults_res_limits.sh): every request carries POINTS gauge points, each of a
series never sent before (metric nvswitch_interface_if_in_octets, attribute
interface="churn<N>", one device), as fast as the receiver answers, until
SECONDS passed (or REQUESTS were sent).

    faults_res_churn.py PORT SECONDS [POINTS] [REQUESTS]

Prints "requests=R points=P series=S status=<code:count,...>" at the end;
exit status 1 when the receiver could not be reached at all.
"""
import http.client
import json
import sys
import time


def body(first, n, now_ns):
    pts = [{"asDouble": float(i), "timeUnixNano": str(now_ns),
            "attributes": [{"key": "interface", "value": {"stringValue": f"churn{first + i}"}}]}
           for i in range(n)]
    return json.dumps({"resourceMetrics": [{
        "resource": {"attributes": [{"key": "host.name", "value": {"stringValue": "churn-sw"}}]},
        "scopeMetrics": [{"metrics": [{"name": "nvswitch_interface_if_in_octets",
                                       "gauge": {"dataPoints": pts}}]}]}]}).encode()


def main():
    port, seconds = int(sys.argv[1]), float(sys.argv[2])
    points = int(sys.argv[3]) if len(sys.argv) > 3 else 200
    max_req = int(sys.argv[4]) if len(sys.argv) > 4 else 1 << 30
    end = time.monotonic() + seconds
    sent = reqs = 0
    status = {}
    conn = None
    while time.monotonic() < end and reqs < max_req:
        try:
            if conn is None:
                conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
            conn.request("POST", "/v1/metrics", body(sent, points, time.time_ns()),
                         {"Content-Type": "application/json"})
            r = conn.getresponse()
            r.read()
            status[r.status] = status.get(r.status, 0) + 1
        except OSError:
            status["conn_error"] = status.get("conn_error", 0) + 1
            conn = None
            time.sleep(0.05)
            continue
        reqs += 1
        sent += points
    print(f"requests={reqs} points={sent} series={sent} status="
          + ",".join(f"{k}:{v}" for k, v in sorted(status.items(), key=str)))
    return 0 if reqs > 0 else 1


if __name__ == "__main__":
    sys.exit(main())
