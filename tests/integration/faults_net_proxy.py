#!/usr/bin/env python3
"""A TCP proxy on 127.0.0.1 that makes a TLS handshake slow (network fault
tests, faults_net_gnmi.sh).

    faults_net_proxy.py --target 127.0.0.1:PORT --delay S --delay-for S
                        --duration S

Prints `listening port=N` once bound. A connection accepted within
--delay-for seconds of the first connection has the client's first bytes (its ClientHello)
held back for --delay seconds before they reach the target; later
connections pass straight through. Everything is bounded: the proxy exits
after --duration seconds, and every connection with it.
stderr: one `conn N delayed=0|1` line per connection."""
import argparse
import asyncio
import sys
import time


async def pump(reader, writer):
    try:
        while True:
            data = await reader.read(65536)
            if not data:
                break
            writer.write(data)
            await writer.drain()
    except (ConnectionError, asyncio.CancelledError):
        pass
    finally:
        try:
            writer.close()
        except Exception:  # already closed by the other side
            pass


async def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--target", required=True)
    ap.add_argument("--delay", type=float, required=True)
    ap.add_argument("--delay-for", type=float, required=True)
    ap.add_argument("--duration", type=float, default=60)
    a = ap.parse_args()
    host, port = a.target.rsplit(":", 1)
    start = None
    count = 0

    async def on_conn(creader, cwriter):
        nonlocal count, start
        count += 1
        if start is None:
            start = time.monotonic()
        delayed = time.monotonic() - start < a.delay_for
        print(f"conn {count} delayed={int(delayed)}", file=sys.stderr, flush=True)
        try:
            sreader, swriter = await asyncio.open_connection(host, int(port))
        except OSError:
            cwriter.close()
            return
        if delayed:
            await asyncio.sleep(a.delay)
        await asyncio.gather(pump(creader, swriter), pump(sreader, cwriter))

    server = await asyncio.start_server(on_conn, "127.0.0.1", 0)
    print(f"listening port={server.sockets[0].getsockname()[1]}", flush=True)
    try:
        await asyncio.wait_for(server.serve_forever(), a.duration)
    except asyncio.TimeoutError:
        pass


if __name__ == "__main__":
    try:
        asyncio.run(main())
    except KeyboardInterrupt:
        pass
