"""Benchmark of the T-World proxy, one command:  python benchmarks/tworld_proxy.py [--seconds S]

A "round trip" is one real T-World percept (about 3 KB of JSON) sent by the world side and the
action ("north") coming back. Printed side by side, all measured in this run:
- baseline: the same round trip over one direct loopback TCP connection, no proxy;
- through the proxy (``wwm tworld proxy`` in its own process; the world side is a WebSocket,
  the agent a plain TCP socket), for 1 pair and for 50 concurrent pairs;
- through the proxy for 1 pair whose agent asked for XML or Prolog percepts
  (``CONNECT:<magic>:xml``): the proxy converts each JSON percept for it.
"""

from __future__ import annotations

import argparse
import asyncio
import subprocess
import sys
import time

from websockets.asyncio.client import connect

from wwm.server.process import free_port
from wwm.tileworld import percepts
from wwm.tileworld.config import Config
from wwm.tileworld.engine import Engine
from wwm.tileworld.proxy import CONNECTED

PERCEPT = percepts.percept(Engine(Config(seed=1)), 0)


async def agent_loop(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    try:
        while await reader.readline():
            writer.write(b"north\n")
            await writer.drain()
    except (asyncio.CancelledError, ConnectionError):
        pass
    finally:
        writer.close()


async def baseline(seconds: float) -> float:
    async def on_agent(reader, writer):  # the "agent" answers every percept
        await agent_loop(reader, writer)

    server = await asyncio.start_server(on_agent, "127.0.0.1", 0, limit=2**20)
    port = server.sockets[0].getsockname()[1]
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    n, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        writer.write(PERCEPT.encode())
        await writer.drain()
        await reader.readline()
        n += 1
    elapsed = time.perf_counter() - start
    writer.close()
    await writer.wait_closed()
    await asyncio.sleep(0.05)
    server.close()
    await server.wait_closed()
    return n / elapsed


async def through_proxy(port: int, pairs: int, seconds: float, form: str = "json") -> tuple[float, float]:
    async def pair(i: int, ready: asyncio.Event, stop: list[float]) -> list[float]:
        reader, writer = await asyncio.open_connection("127.0.0.1", port, limit=2**20)
        suffix = "" if form == "json" else f":{form}"
        writer.write(f"CONNECT:bench-{pairs}-{i}{suffix}\n".encode())
        await writer.drain()
        ws = await connect(f"ws://127.0.0.1:{port}/", max_size=2**22)
        await ws.send(f"CONNECT:bench-{pairs}-{i}{suffix}")  # (a distinct magic per run)
        assert await ws.recv() == CONNECTED
        agent = asyncio.create_task(agent_loop(reader, writer))
        await ready.wait()
        latencies = []
        while time.perf_counter() < stop[0]:
            t = time.perf_counter()
            await ws.send(PERCEPT)
            await ws.recv()
            latencies.append(time.perf_counter() - t)
        agent.cancel()
        writer.close()
        await ws.close()
        return latencies

    ready, stop = asyncio.Event(), [0.0]
    tasks = [asyncio.create_task(pair(i, ready, stop)) for i in range(pairs)]
    await asyncio.sleep(0.5 + pairs * 0.02)
    start = time.perf_counter()
    stop[0] = start + seconds
    ready.set()
    results = await asyncio.gather(*tasks)
    all_lat = sorted(x for r in results for x in r)
    total = len(all_lat)
    p99 = all_lat[int(0.99 * (total - 1))] * 1000 if all_lat else float("nan")
    return total / (time.perf_counter() - start), p99


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=3.0)
    args = parser.parse_args()
    port = free_port()
    proxy = subprocess.Popen([sys.executable, "-m", "wwm.cli.main", "tworld", "proxy", "--port", str(port)],
                             stdout=subprocess.PIPE, text=True)
    try:
        proxy.stdout.readline()  # "serving the T-World proxy at ..."
        base = asyncio.run(baseline(args.seconds))
        one, one_p99 = asyncio.run(through_proxy(port, 1, args.seconds))
        fifty, fifty_p99 = asyncio.run(through_proxy(port, 50, args.seconds))
        xml, xml_p99 = asyncio.run(through_proxy(port, 1, args.seconds, "xml"))
        prolog, prolog_p99 = asyncio.run(through_proxy(port, 1, args.seconds, "prolog"))
    finally:
        proxy.terminate()
        proxy.wait(5)
    print(f"percept: {len(PERCEPT)} bytes of JSON; action: 'north'")
    print(f"{'measure':44} {'round trips/s':>14} {'p99 ms':>8} {'vs baseline':>12}")
    print(f"{'baseline: direct TCP, no proxy':44} {base:14,.0f} {'':>8} {1:11.2f}x")
    print(f"{'proxy, 1 pair (WebSocket <-> TCP)':44} {one:14,.0f} {one_p99:8.2f} {one / base:11.2f}x")
    print(f"{'proxy, 50 concurrent pairs':44} {fifty:14,.0f} {fifty_p99:8.2f} {fifty / base:11.2f}x")
    print(f"{'proxy, 1 pair, percepts converted to XML':44} {xml:14,.0f} {xml_p99:8.2f} {xml / base:11.2f}x")
    print(f"{'proxy, 1 pair, percepts converted to Prolog':44} {prolog:14,.0f} {prolog_p99:8.2f} "
          f"{prolog / base:11.2f}x")
    print("reference: a T-World robot needs about 3 round trips per second (350 ms a move)")


if __name__ == "__main__":
    main()
