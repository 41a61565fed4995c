#!/usr/bin/env python3
"""Connection-admission attacks on the HTTP listeners (faults_admit.sh),
python3 stdlib only (sockets, selectors). Attackers bind their
sockets to other loopback addresses (127.0.0.2 and up) so that a per-address
cap can be told apart from a global one; the legitimate client uses
127.0.0.1.

    faults_admit.py idle --port P --conns N --addrs K --seconds S [--stop-file F]
        N connections from K source addresses (127.0.0.2 ... 127.0.0.K+1,
        round robin) that send nothing; a connection the server closes is
        opened again (at most N reopenings a second), for S seconds or
        until the file F exists (the test's probes are done). Prints
        `opened=N` once the first N connects were attempted, then at the
        end `idle conns=N addrs=K connects=C closed_by_server=X
        held_at_end=H max_held=M` (H: connections open for more than 1 s
        at the end, M: most sockets open at once, connecting ones included).
    faults_admit.py slowbody --port P --conns N --path PATH --seconds S
        N connections, each from its own address (127.0.0.2 + i), each
        sending a POST to PATH with Content-Length 100000 and then one body
        byte every 2 s, for S seconds or until the server closed all N.
        Prints `opened=N`, then `slowbody conns=N closed_by_server=X
        held_at_end=H first_close_s=F last_close_s=L`.
    faults_admit.py slowheader --port P --conns N --seconds S
        The same with a request header sent one byte every 2 s.
    faults_admit.py probe --port P --kind scrape|otlp --count N --gap G [--src A]
        N requests from A (default 127.0.0.1), one every G seconds, each on a new
        connection (GET /metrics, or POST /v1/metrics with an empty
        protobuf body); each must be answered 200. Prints one line per
        request and `probe kind=K count=N ok=O max_s=T` (T: the slowest
        answer, connect included; a failed one counts as its 5 s bound).
    faults_admit.py raw --port P --data BYTES [--seconds S]
        Sends BYTES (Python escapes: \\r\\n) from 127.0.0.1 and reads until
        the server closes or S seconds (default 3) pass. Prints `raw
        status=N closed=C s=T` (N: the first answer's status, -1 for none;
        C: 1 when the server closed within S; T: seconds to the close or
        to the end of the wait).
    faults_admit.py rawlist --file F [--seconds S]
        raw for each line `PORT<tab>BYTES` of F, one after another in one
        process (no interpreter start between them), one `raw ...` line each.
Everything is bounded: S seconds for attacks, 5 s per probe request."""
import argparse
import errno
import os
import resource
import selectors
import socket
import sys
import time


def raise_nofile(need):
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < need:
        resource.setrlimit(resource.RLIMIT_NOFILE, (min(need, hard), hard))
    soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < need:
        sys.exit(f"RLIMIT_NOFILE {soft} < {need}: cannot open the connections")


def src_addr(i):
    return f"127.0.{(i + 2) // 256}.{(i + 2) % 256}"


def open_conn(port, src):
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.setblocking(False)
    s.bind((src, 0))
    try:
        s.connect(("127.0.0.1", port))
    except BlockingIOError:
        pass
    except OSError:
        s.close()
        return None
    return s


def attack(a, kind):
    raise_nofile(a.conns + 64)
    sel = selectors.DefaultSelector()
    start = time.monotonic()
    naddrs = a.addrs if kind == "idle" else a.conns
    state = {}  # sock -> [addr index, bytes to trickle, next send time]
    stats = {"connects": 0, "closed": [], "max_held": 0}
    pending = list(range(a.conns))  # slots waiting to be (re)opened
    budget_t, budget = start, a.conns

    if kind == "slowbody":
        head = (f"POST {a.path} HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-protobuf\r\n"
                "Content-Length: 100000\r\n\r\n").encode()
        trickle = b"\n" * 100000
    else:
        head = b""
        trickle = b"GET /metrics HTTP/1.1\r\nHost: x\r\nX-Slow: " + b"a" * 100000

    def open_slot(i):
        s = open_conn(a.port, src_addr(i % naddrs))
        stats["connects"] += 1
        if s is None:
            stats["closed"].append(time.monotonic() - start)
            return False
        sel.register(s, selectors.EVENT_READ | selectors.EVENT_WRITE)
        state[s] = [i, trickle, time.monotonic(), head, time.monotonic()]
        return True

    printed = False
    while time.monotonic() - start < a.seconds:
        if a.stop_file and os.path.exists(a.stop_file):
            break
        if kind != "idle" and printed and not state:
            break  # the server closed every slow client: nothing left to see
        now = time.monotonic()
        if now - budget_t >= 1.0:
            budget_t, budget = now, a.conns
        while pending and budget > 0 and (kind == "idle" or not printed):
            budget -= 1
            i = pending.pop()
            if not open_slot(i) and kind == "idle":
                pending.insert(0, i)
        if not printed and not pending:
            print(f"opened={a.conns}", flush=True)
            printed = True
        stats["max_held"] = max(stats["max_held"], len(state))
        for key, ev in sel.select(timeout=0.2):
            s = key.fileobj
            st = state[s]
            err = 0
            if ev & selectors.EVENT_WRITE:
                # connected (or failed): send the head once, then read only
                err = s.getsockopt(socket.SOL_SOCKET, socket.SO_ERROR)
                if err == 0 and st[3]:
                    try:
                        s.send(st[3])
                    except OSError:
                        err = errno.EPIPE
                    st[3] = b""
                if err == 0:
                    sel.modify(s, selectors.EVENT_READ)
                    continue
            try:
                data = s.recv(4096) if err == 0 else b""
            except OSError:
                data = b""
            if not data:
                stats["closed"].append(time.monotonic() - start)
                sel.unregister(s)
                del state[s]
                s.close()
                if kind == "idle":
                    pending.append(st[0])
        if kind != "idle":
            now = time.monotonic()
            for s, st in list(state.items()):
                if now >= st[2] and st[1]:
                    try:
                        s.send(st[1][:1])
                    except OSError:
                        continue  # the close shows up as EOF
                    st[1] = st[1][1:]
                    st[2] = now + 2.0
    # held: open for more than a second (not one just reopened, which the
    # server has not seen yet)
    end = time.monotonic()
    held = sum(1 for st in state.values() if end - st[4] > 1.0)
    for s in list(state):
        s.close()
    c = sorted(stats["closed"])
    if kind == "idle":
        print(f"idle conns={a.conns} addrs={a.addrs} connects={stats['connects']} "
              f"closed_by_server={len(c)} held_at_end={held} max_held={stats['max_held']}",
              flush=True)
    else:
        print(f"{kind} conns={a.conns} closed_by_server={len(c)} held_at_end={held} "
              f"first_close_s={c[0] if c else -1:.1f} last_close_s={c[-1] if c else -1:.1f}",
              flush=True)


last_connect_s = -1.0  # the connect's share of the latest one_request


def one_request(port, kind, src="127.0.0.1"):
    if kind == "scrape":
        req = b"GET /metrics HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
    else:
        req = (b"POST /v1/metrics HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-protobuf\r\n"
               b"Content-Length: 0\r\nConnection: close\r\n\r\n")
    t0 = time.monotonic()
    global last_connect_s
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=5,
                                      source_address=(src, 0)) as s:
            last_connect_s = time.monotonic() - t0
            s.settimeout(max(0.1, 5 - (time.monotonic() - t0)))
            s.sendall(req)
            data = b""
            while b"\r\n\r\n" not in data:
                chunk = s.recv(65536)
                if not chunk:
                    break
                data += chunk
    except OSError as e:
        return f"error:{type(e).__name__}", 5.0
    dt = time.monotonic() - t0
    if not data.startswith(b"HTTP/1.1 "):
        return "no-answer", 5.0
    return data.split(b" ", 2)[1].decode(), dt


def probe(a):
    ok, worst = 0, 0.0
    for k in range(a.count):
        t0 = time.monotonic()
        status, dt = one_request(a.port, a.kind, a.src)
        print(f"probe {k} status={status} s={dt:.3f} connect_s={last_connect_s:.3f}", flush=True)
        if status == "200":
            ok += 1
        worst = max(worst, dt)
        time.sleep(max(0.0, a.gap - (time.monotonic() - t0)))
    print(f"probe kind={a.kind} count={a.count} ok={ok} max_s={worst:.3f}", flush=True)


def raw(a):
    raw_one(a.port, a.data, a.seconds)


def rawlist(a):
    with open(a.file) as f:
        for line in f:
            port, data = line.rstrip("\n").split("\t", 1)
            raw_one(int(port), data, a.seconds)


def raw_one(port, text, seconds):
    data = text.encode().decode("unicode_escape").encode("latin-1")
    t0 = time.monotonic()
    got, closed = b"", 0
    with socket.create_connection(("127.0.0.1", port), timeout=5) as s:
        s.sendall(data)
        while time.monotonic() - t0 < seconds:
            s.settimeout(max(0.05, seconds - (time.monotonic() - t0)))
            try:
                chunk = s.recv(65536)
            except socket.timeout:
                break
            except OSError:
                closed = 1
                break
            if not chunk:
                closed = 1
                break
            got += chunk
    status = got.split(b" ", 2)[1].decode() if got.startswith(b"HTTP/1.") else "-1"
    print(f"raw status={status} closed={closed} s={time.monotonic() - t0:.2f}", flush=True)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("mode", choices=["idle", "slowbody", "slowheader", "probe", "raw", "rawlist"])
    p.add_argument("--data", default="")
    p.add_argument("--file", default="")
    p.add_argument("--port", type=int)  # every mode but rawlist
    p.add_argument("--conns", type=int, default=2000)
    p.add_argument("--addrs", type=int, default=1)
    p.add_argument("--seconds", type=float, default=10)
    p.add_argument("--stop-file", default="")
    p.add_argument("--path", default="/v1/metrics")
    p.add_argument("--kind", default="scrape", choices=["scrape", "otlp"])
    p.add_argument("--src", default="127.0.0.1")
    p.add_argument("--count", type=int, default=5)
    p.add_argument("--gap", type=float, default=1.0)
    a = p.parse_args()
    if a.port is None and a.mode != "rawlist":
        p.error("--port is required")
    if a.mode == "probe":
        probe(a)
    elif a.mode == "raw":
        raw(a)
    elif a.mode == "rawlist":
        rawlist(a)
    else:
        attack(a, a.mode)


if __name__ == "__main__":
    main()
