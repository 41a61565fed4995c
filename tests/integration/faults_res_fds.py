#!/usr/bin/env python3
"""File-descriptor exhaustion client (faults_res_limits.sh, part fds).

    faults_res_fds.py STATE_FILE RELEASE_FILE PORT:KIND [PORT:KIND ...]

KIND is prom (GET /metrics) or otlp (POST /v1/metrics, an empty OTLP/JSON
request). Opens COUNT=60 idle TCP connections per port (so more than the
daemon's descriptor limit), writes "opened=N" to STATE_FILE, waits (60 s at
most) until RELEASE_FILE exists, then sends one request on each connection
in turn (10 s timeout each) and closes it: each close frees a descriptor, so
connections still waiting in the listen backlog are accepted and answered
one after another. Appends "answered=A refused=R" to STATE_FILE (a closed
or reset connection counts as refused: the server's own connection limit).
"""
import os
import socket
import sys
import time

COUNT = 60


def request(kind, port):
    if kind == "prom":
        return f"GET /metrics HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nConnection: close\r\n\r\n".encode()
    body = b'{"resourceMetrics":[]}'
    return (f"POST /v1/metrics HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n"
            f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n"
            f"Connection: close\r\n\r\n").encode() + body


def main():
    state, release = sys.argv[1], sys.argv[2]
    targets = [(int(a.split(":")[0]), a.split(":")[1]) for a in sys.argv[3:]]
    conns = []
    for port, kind in targets:
        for _ in range(COUNT):
            s = socket.socket()
            s.settimeout(5)
            try:
                s.connect(("127.0.0.1", port))
                conns.append((s, port, kind))
            except OSError:
                s.close()
    with open(state, "w") as f:
        f.write(f"opened={len(conns)}\n")
    end = time.monotonic() + 60
    while not os.path.exists(release) and time.monotonic() < end:
        time.sleep(0.1)
    answered = refused = 0
    for s, port, kind in conns:
        try:
            s.settimeout(10)
            s.sendall(request(kind, port))
            data = b""
            while True:
                chunk = s.recv(65536)
                if not chunk:
                    break
                data += chunk
            if data.startswith(b"HTTP/1.1 200") or data.startswith(b"HTTP/1.0 200"):
                answered += 1
            else:
                refused += 1
        except OSError:
            refused += 1
        finally:
            s.close()
    with open(state, "a") as f:
        f.write(f"answered={answered} refused={refused}\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
