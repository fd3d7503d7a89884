"""Benchmark of the network layer, one command:  python benchmarks/network.py [--seconds S]

Prints side by side, all measured in this run on this machine:
- a bare loopback socket round trip (the floor any protocol pays),
- the in-process loop (local objects, no network),
- single queries per second ("Execute action" on a world) for one client, over HTTP with the
  wwm client and over the persistent bindings (WebSocket, and plain TCP frames),
- full client steps per second (Get action, Execute action, Inform) for one client over HTTP,
- queries per second and p99 latency for 50 concurrent runs on one server process, driven by
  a separate raw-socket load generator (``loadgen.py``),
- the same server on Granian instead of uvicorn, the measurement behind the default.
Reference figures from the issue (same kind of machine): gym-http-api ~770/s, dm_env_rpc
~1,600-2,300/s, Starlette+httpx ~2,000/s, websocket 5,000-11,000/s, bare echo ~15,000/s.
Targets: 5,000 single queries/s and 1,700 steps/s (HTTP, one client); 10,000 queries/s (a
persistent binding, one client); 8,000 queries/s with p99 < 20 ms (50 runs, one server process).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from bench_servers import ConstantMind, CounterWorld  # noqa: E402

from wwm.client import RemoteMind, RemoteWorld  # noqa: E402
from wwm.client.runner import RunSettings, Runner  # noqa: E402
from wwm.testing import ServerProcess, free_port  # noqa: E402

ENV = {"PYTHONPATH": os.pathsep.join([str(HERE), os.environ.get("PYTHONPATH", "")])}
TARGETS = {"http_query": 5000, "http_step": 1700, "ws_query": 10000, "concurrent": 8000}


async def echo_round_trips(seconds: float) -> float:
    async def handle(reader, writer):
        while data := await reader.read(4096):
            writer.write(data)
        writer.close()
    server = await asyncio.start_server(handle, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    n, deadline = 0, time.perf_counter() + seconds
    start = time.perf_counter()
    while time.perf_counter() < deadline:
        writer.write(b"x" * 100)
        await reader.read(4096)
        n += 1
    elapsed = time.perf_counter() - start
    writer.close()
    await writer.wait_closed()
    server.close()
    await server.wait_closed()
    return n / elapsed


async def timed(seconds: float, one) -> float:
    n, start = 0, time.perf_counter()
    deadline = start + seconds
    while time.perf_counter() < deadline:
        for _ in range(50):
            await one()
        n += 50
    return n / (time.perf_counter() - start)


async def in_process_steps(seconds: float) -> float:
    world, mind = CounterWorld(), ConstantMind()
    await world.new_run(); await mind.new_run()

    async def step():
        s = await mind.get_action(await world.get_state())
        o = await world.execute_action(s.action)
        await mind.inform(o.state, o.score)
    return await timed(seconds, step)


async def single_queries(url: str, seconds: float, transport: str) -> float:
    async with RemoteWorld(url, transport=transport) as world:
        await world.new_run()
        await timed(0.3, lambda: world.execute_action("go"))  # warm up
        rate = await timed(seconds, lambda: world.execute_action("go"))
        await world.end_run()
    return rate


async def full_steps(world_url: str, mind_url: str, seconds: float) -> float:
    steps = max(100, int(seconds * 3000))
    world, mind = RemoteWorld(world_url), RemoteMind(mind_url)
    done = []
    settings = RunSettings(steps=None, timeout=5.0, keepalive=None)
    runner = Runner(mind, world, settings, on_step=lambda s, r: done.append(time.perf_counter()))

    async def bounded():
        task = asyncio.ensure_future(runner.run())
        await asyncio.sleep(seconds)
        task.cancel()
        try:
            await task
        except asyncio.CancelledError:
            pass
    await bounded()
    await world.aclose(); await mind.aclose()
    if len(done) < 2:
        return 0.0
    return (len(done) - 1) / (done[-1] - done[0])


def concurrent(url: str, seconds: float, connections: int = 50) -> dict:
    out = subprocess.run([sys.executable, str(HERE / "loadgen.py"), url, str(connections), str(seconds)],
                         capture_output=True, text=True, check=True, env={**os.environ, **ENV})
    result = json.loads(out.stdout)
    result["rate"] = result["requests"] / result["seconds"]
    return result


def main() -> None:
    try:  # the client side runs on uvloop too, as wwm's own commands do
        import uvloop
        uvloop.install()
    except ImportError:
        pass
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=3.0, help="duration of each measurement")
    args = parser.parse_args()
    from rich.console import Console
    from rich.table import Table

    console = Console()
    rows = []
    with console.status("measuring...") as status:
        status.update("bare loopback echo")
        echo = asyncio.run(echo_round_trips(args.seconds))
        rows.append(("bare loopback socket round trip (asyncio echo)", echo, None, ""))
        status.update("in-process loop")
        local = asyncio.run(in_process_steps(args.seconds))
        rows.append(("in-process loop, full steps (no network)", local, None, ""))
        tcp_port = free_port()
        with ServerProcess("bench_servers:CounterWorld", env=ENV, extra=["--tcp-port", str(tcp_port)]) as world, \
                ServerProcess("bench_servers:ConstantMind", env=ENV) as mind:
            status.update("single queries over HTTP")
            rows.append(("HTTP, 1 client: Execute action queries", asyncio.run(single_queries(world.url, args.seconds, "http")),
                         TARGETS["http_query"], "queries/s"))
            status.update("single queries over WebSocket")
            rows.append(("WebSocket, 1 client: Execute action queries", asyncio.run(single_queries(world.url, args.seconds, "ws")),
                         TARGETS["ws_query"], "queries/s"))
            status.update("single queries over TCP")
            rows.append(("TCP binding, 1 client: Execute action queries", asyncio.run(single_queries(world.url, args.seconds, "tcp")),
                         TARGETS["ws_query"], "queries/s"))
            status.update("full steps over HTTP")
            rows.append(("HTTP, 1 client: full steps (get action, execute, inform)",
                         asyncio.run(full_steps(world.url, mind.url, args.seconds)), TARGETS["http_step"], "steps/s"))
            status.update("50 concurrent runs")
            c = concurrent(world.url, args.seconds)
            rows.append((f"HTTP, 50 concurrent runs, 1 server process (p50 {c['p50_ms']:.1f} ms, p99 {c['p99_ms']:.1f} ms)",
                         c["rate"], TARGETS["concurrent"], "queries/s"))
        with ServerProcess("bench_servers:CounterWorld", env=ENV, extra=["--http", "granian"]) as other:
            status.update("the same on granian, for comparison")
            rows.append(("  same server on granian: HTTP, 1 client", asyncio.run(single_queries(other.url, args.seconds, "http")),
                         None, "queries/s"))
            u = concurrent(other.url, args.seconds)
            rows.append((f"  same server on granian: 50 concurrent runs (p99 {u['p99_ms']:.1f} ms)", u["rate"], None, "queries/s"))
    table = Table(title="wwm network benchmark (loopback, this machine, this run)")
    table.add_column("measurement")
    table.add_column("per second", justify="right")
    table.add_column("vs bare echo", justify="right")
    table.add_column("target", justify="right")
    table.add_column("met", justify="center")
    for name, rate, target, _unit in rows:
        table.add_row(name, f"{rate:,.0f}", f"{rate / echo:.2f}", f"{target:,}" if target else "",
                      "" if target is None else ("yes" if rate >= target else "no"))
    console.print(table)
    console.print(f"50-run p99 latency: {c['p99_ms']:.1f} ms (target < 20 ms)")


if __name__ == "__main__":
    main()
