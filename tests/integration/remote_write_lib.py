#!/usr/bin/env python3
"""Helpers of tests/integration/remote_write_test.sh (stdlib only).

  remote_write_lib.py freeport
      Prints a free loopback TCP port.
  remote_write_lib.py serve LOG SCRIPT
      A remote_write receiver on 127.0.0.1 (free port, printed as
      "listening port=N"). SCRIPT is a comma-separated list of answers, one
      per request, e.g. "400,429:1,503,200"; "S:R" adds "Retry-After: R";
      after the list every request gets 200. Each request is appended to LOG
      as one JSON line: {"n", "status", "path", "headers", "series"}, the
      body decoded by the pure-Python snappy and protobuf readers below
      (series: [{"labels": [[name, value], ...], "samples": [[value, t_ms]]}]).
  remote_write_lib.py vmdump EXPORT
      Reads VictoriaMetrics /api/v1/export JSON lines and prints one line per
      series, sorted: "<labels> n=<points> v=<values> dt=<distinct steps>"
      with duplicate timestamps removed and steps between timestamps.
  remote_write_lib.py vmcount EXPORT
      Prints the number of distinct (series, timestamp) points.
  remote_write_lib.py requests LOG
      Facts about the requests `serve` logged, one "key=value" per line
      (statuses, whether retries carried the same body, headers, label order,
      the replay's known values, sample counts), for exact comparison.
"""
import json
import socket
import struct
import sys
from http.server import BaseHTTPRequestHandler, HTTPServer


def varint(b, i):
    shift = v = 0
    while True:
        c = b[i]
        i += 1
        v |= (c & 0x7F) << shift
        shift += 7
        if c < 0x80:
            return v, i


def unsnappy(b):
    """Decodes one snappy block (the raw format: a varint length, then
    literals and copies with 1-, 2- or 4-byte offsets)."""
    n, i = varint(b, 0)
    out = bytearray()
    while i < len(b):
        tag = b[i]
        i += 1
        kind = tag & 3
        if kind == 0:
            ln = tag >> 2
            if ln >= 60:
                nb = ln - 59
                ln = int.from_bytes(b[i:i + nb], "little")
                i += nb
            ln += 1
            out += b[i:i + ln]
            i += ln
            continue
        if kind == 1:
            ln = ((tag >> 2) & 7) + 4
            off = ((tag >> 5) << 8) | b[i]
            i += 1
        elif kind == 2:
            ln = (tag >> 2) + 1
            off = int.from_bytes(b[i:i + 2], "little")
            i += 2
        else:
            ln = (tag >> 2) + 1
            off = int.from_bytes(b[i:i + 4], "little")
            i += 4
        if off == 0 or off > len(out):
            raise ValueError("bad snappy offset")
        for _ in range(ln):
            out.append(out[-off])
    if len(out) != n:
        raise ValueError("snappy length %d != %d" % (len(out), n))
    return bytes(out)


def fields(b):
    """(field number, wire type, value) of one protobuf message."""
    i = 0
    while i < len(b):
        key, i = varint(b, i)
        num, wt = key >> 3, key & 7
        if wt == 0:
            v, i = varint(b, i)
        elif wt == 1:
            v = b[i:i + 8]
            i += 8
        elif wt == 2:
            ln, i = varint(b, i)
            v = b[i:i + ln]
            i += ln
        else:
            raise ValueError("wire type %d" % wt)
        yield num, wt, v


def write_request(b):
    """remote_write.proto's WriteRequest as plain lists."""
    series = []
    for num, wt, ts in fields(b):
        if num != 1 or wt != 2:
            raise ValueError("WriteRequest field %d" % num)
        labels, samples = [], []
        for n2, w2, v2 in fields(ts):
            if n2 == 1 and w2 == 2:
                lab = {1: b"", 2: b""}
                for n3, w3, v3 in fields(v2):
                    lab[n3] = v3
                labels.append([lab[1].decode(), lab[2].decode()])
            elif n2 == 2 and w2 == 2:
                val, t = 0.0, 0
                for n3, w3, v3 in fields(v2):
                    if n3 == 1 and w3 == 1:
                        val = struct.unpack("<d", v3)[0]
                    elif n3 == 2 and w3 == 0:
                        t = v3 - (1 << 64) if v3 >= 1 << 63 else v3
                samples.append([val, t])
            else:
                raise ValueError("TimeSeries field %d" % n2)
        series.append({"labels": labels, "samples": samples})
    return series


def serve(log, script):
    answers = [a for a in script.split(",") if a]
    state = {"n": 0}

    class H(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *a):
            pass

        def do_POST(self):
            body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
            n = state["n"]
            state["n"] += 1
            ans = answers[n] if n < len(answers) else "200"
            status, _, retry = ans.partition(":")
            try:
                series = write_request(unsnappy(body))
            except Exception as e:  # recorded: the test fails on it
                series = "undecodable: %s" % e
            rec = {"n": n, "status": int(status), "path": self.path,
                   "headers": {k: v for k, v in self.headers.items()}, "series": series}
            with open(log, "a") as f:
                f.write(json.dumps(rec, sort_keys=True) + "\n")
            reply = b"bad sample\n" if status == "400" else b""
            self.send_response(int(status))
            if retry:
                self.send_header("Retry-After", retry)
            self.send_header("Content-Length", str(len(reply)))
            self.end_headers()
            self.wfile.write(reply)

    srv = HTTPServer(("127.0.0.1", 0), H)
    print("listening port=%d" % srv.server_address[1], flush=True)
    srv.serve_forever()


def vm_points(path):
    out = {}
    with open(path) as f:
        for line in f:
            if not line.strip():
                continue
            d = json.loads(line)
            key = ",".join('%s="%s"' % (k, v) for k, v in sorted(d["metric"].items()))
            pts = out.setdefault(key, {})
            for v, t in zip(d["values"], d["timestamps"]):
                pts[t] = v
    return out


WANT_HEADERS = {
    "Content-Encoding": "snappy",
    "Content-Type": "application/x-protobuf",
    "X-Prometheus-Remote-Write-Version": "0.1.0",
    "User-Agent": "fabricscope/0.1.0",
    "X-Scope-OrgID": "gpu-fabric",
}


def requests(path):
    reqs = [json.loads(line) for line in open(path) if line.strip()]
    print("statuses=" + ",".join(str(r["status"]) for r in reqs[:4]))
    print("all_decoded=%s" % ("yes" if all(isinstance(r["series"], list) for r in reqs) else "no"))
    reqs = [r for r in reqs if isinstance(r["series"], list)]
    key = lambda r: json.dumps(r["series"], sort_keys=True)
    if len(reqs) >= 4:
        print("retry_same_body=%s" % ("yes" if key(reqs[1]) == key(reqs[2]) == key(reqs[3])
                                      else "no"))
        print("retry_differs_from_400=%s" % ("yes" if key(reqs[0]) != key(reqs[1]) else "no"))
    bad = [k for r in reqs for k, v in WANT_HEADERS.items() if r["headers"].get(k) != v]
    print("headers=%s" % ("ok" if not bad else ",".join(sorted(set(bad)))))
    print("path=%s" % ",".join(sorted({r["path"] for r in reqs})))
    print("auth=%s" % ",".join(sorted({r["headers"].get("Authorization", "") for r in reqs})))
    order_ok = all([l[0] for l in s["labels"]] == sorted(l[0] for l in s["labels"]) and
                   s["labels"][0][0] == "__name__" for r in reqs for s in r["series"])
    print("labels_sorted=%s" % ("yes" if order_ok else "no"))
    # Points per (series, time), each request's and all of them.
    def points(r):
        return {(json.dumps(s["labels"]), t): v for s in r["series"] for v, t in s["samples"]}
    rejected = points(reqs[0]) if reqs else {}
    accepted = {}
    for r in reqs:
        if 200 <= r["status"] < 300:
            accepted.update(points(r))
    print("rejected_samples=%d" % len(rejected))
    print("retried_samples=%d" % (len(points(reqs[1])) if len(reqs) > 1 else 0))
    print("rejected_resent=%s" % ("yes" if set(rejected) & set(accepted) else "no"))
    print("delivered_or_rejected=%d" % len(set(rejected) | set(accepted)))
    # The replay's values: counter k*step at time t0 + k s.
    step = {"fabric_port_tx_bytes_total": 5000000000, "fabric_nic_cnp_sent_total": 1200}
    allp = dict(rejected)
    allp.update(accepted)
    t0 = min(t for _, t in allp) if allp else 0
    vals_ok = all(dict(json.loads(lab))["__name__"] in step and (t - t0) % 1000 == 0 and
                  v == (t - t0) // 1000 * step[dict(json.loads(lab))["__name__"]]
                  for (lab, t), v in allp.items())
    print("values=%s" % ("ok" if vals_ok and allp else "wrong"))


def fmt(v):
    return ("%d" % v) if float(v) == int(v) else repr(float(v))


def main():
    cmd = sys.argv[1]
    if cmd == "freeport":
        s = socket.socket()
        s.bind(("127.0.0.1", 0))
        print(s.getsockname()[1])
        s.close()
    elif cmd == "serve":
        serve(sys.argv[2], sys.argv[3])
    elif cmd == "vmdump":
        for key, pts in sorted(vm_points(sys.argv[2]).items()):
            ts = sorted(pts)
            steps = sorted({b - a for a, b in zip(ts, ts[1:])})
            print("{%s} n=%d v=%s dt=%s" % (key, len(ts), ",".join(fmt(pts[t]) for t in ts),
                                            ",".join(str(s) for s in steps)))
    elif cmd == "requests":
        requests(sys.argv[2])
    elif cmd == "vmcount":
        print(sum(len(p) for p in vm_points(sys.argv[2]).values()))
    else:
        sys.exit("unknown command " + cmd)


if __name__ == "__main__":
    main()
