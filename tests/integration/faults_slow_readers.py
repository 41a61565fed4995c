#!/usr/bin/env python3
"""Clients that ask for /metrics and never read the answer (the slow-reader
attack on a large exposition), for tests/integration/faults_slow_readers.sh.

  faults_slow_readers.py --port P --count N --every-ms T --hold-s S

Opens N connections to 127.0.0.1:P, one every T ms (so most requests arrive
after the previous render began: few share one), each with a 4 KiB
receive buffer, sends `GET /metrics` (identity) and reads nothing; prints
`opened N` once all are open, then holds them S seconds and exits. Stdlib
only; every socket closed at exit."""
import argparse
import socket
import sys
import time


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--port", type=int, required=True)
    ap.add_argument("--count", type=int, required=True)
    ap.add_argument("--every-ms", type=int, required=True)
    ap.add_argument("--hold-s", type=float, required=True)
    a = ap.parse_args()
    conns = []
    try:
        for _ in range(a.count):
            s = socket.socket()
            s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
            s.connect(("127.0.0.1", a.port))
            s.sendall(b"GET /metrics HTTP/1.1\r\nHost: x\r\nAccept-Encoding: identity\r\n\r\n")
            conns.append(s)
            time.sleep(a.every_ms / 1000.0)  # pacing of the attack, not synchronisation
        print("opened %d" % len(conns), flush=True)
        time.sleep(a.hold_s)
    finally:
        for s in conns:
            s.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
