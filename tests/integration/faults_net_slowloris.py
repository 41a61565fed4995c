#!/usr/bin/env python3
"""Slowloris clients for the Prometheus endpoint fault test
(faults_net_prom.sh), and a burst of concurrent scrapes.

    faults_net_slowloris.py slowloris --port P --conns N --seconds S
        N connections to 127.0.0.1:P (opened together); each sends a request
        line, then one byte of an endless header every second, for at most S
        seconds. Prints `opened=N` once all are connected, and at the end
        `slowloris conns=N refused=R closed_by_server=C open_at_end=O
        first_close_s=F last_close_s=L` (F, L: seconds after the start; -1
        when none was closed).
    faults_net_slowloris.py scrapes --port P --count N --out DIR
        N concurrent GET /metrics, each on its own connection; body i goes to
        DIR/body.i. Prints `scrapes count=N ok=K statuses=...`.
Everything is bounded (S seconds, 30 s per scrape)."""
import argparse
import asyncio
import sys
import time


async def slow_client(port, seconds, start, stats):
    try:
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
    except OSError:
        stats["refused"] += 1
        return
    stats["opened"] += 1
    try:
        writer.write(b"GET /metrics HTTP/1.1\r\nHost: x\r\nX-Slow: ")
        await writer.drain()
        while time.monotonic() - start < seconds:
            # Anything from the server (an answer or EOF) means it gave up
            # on us; otherwise send one more byte after a second.
            try:
                data = await asyncio.wait_for(reader.read(1024), 1.0)
            except asyncio.TimeoutError:
                writer.write(b"a")
                await writer.drain()
                continue
            if not data:
                break
        else:
            stats["open_at_end"] += 1
            return
    except (ConnectionError, OSError):
        pass
    stats["closed"].append(time.monotonic() - start)
    writer.close()


async def slowloris(a):
    start = time.monotonic()
    stats = {"opened": 0, "refused": 0, "open_at_end": 0, "closed": []}
    tasks = [asyncio.create_task(slow_client(a.port, a.seconds, start, stats)) for _ in range(a.conns)]
    await asyncio.sleep(0.5)
    print(f"opened={stats['opened']}", flush=True)
    await asyncio.gather(*tasks)
    c = sorted(stats["closed"])
    print(
        f"slowloris conns={a.conns} refused={stats['refused']} closed_by_server={len(c)} "
        f"open_at_end={stats['open_at_end']} first_close_s={c[0] if c else -1:.1f} "
        f"last_close_s={c[-1] if c else -1:.1f}",
        flush=True,
    )


async def one_scrape(port, i, out):
    try:
        reader, writer = await asyncio.wait_for(asyncio.open_connection("127.0.0.1", port), 30)
        writer.write(b"GET /metrics HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        await writer.drain()
        data = await asyncio.wait_for(reader.read(-1), 30)
        writer.close()
    except (OSError, asyncio.TimeoutError) as e:
        return f"error:{type(e).__name__}"
    head, _, body = data.partition(b"\r\n\r\n")
    status = head.split(b" ", 2)[1].decode() if head.startswith(b"HTTP/1.1 ") else "bad"
    if b"transfer-encoding: chunked" in head.lower():
        status += "-chunked"  # not expected: MHD sends a Content-Length
    with open(f"{out}/body.{i}", "wb") as f:
        f.write(body)
    return status


async def scrapes(a):
    res = await asyncio.gather(*[one_scrape(a.port, i, a.out) for i in range(a.count)])
    counts = {}
    for r in res:
        counts[r] = counts.get(r, 0) + 1
    st = ",".join(f"{k}:{v}" for k, v in sorted(counts.items()))
    print(f"scrapes count={a.count} ok={counts.get('200', 0)} statuses={st}", flush=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("mode", choices=["slowloris", "scrapes"])
    ap.add_argument("--port", type=int, required=True)
    ap.add_argument("--conns", type=int, default=40)
    ap.add_argument("--seconds", type=float, default=10)
    ap.add_argument("--count", type=int, default=200)
    ap.add_argument("--out", default=".")
    a = ap.parse_args()
    asyncio.run(slowloris(a) if a.mode == "slowloris" else scrapes(a))


if __name__ == "__main__":
    sys.exit(main())
