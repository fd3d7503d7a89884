"""A cheap load generator for the benchmarks, run as a separate process so the servers are not
slowed by the measuring client's own work. Two modes, each printing one JSON line
{"requests": N, "seconds": S, "p50_ms": .., "p99_ms": ..}:

- ``python loadgen.py URL CONNECTIONS SECONDS``: raw asyncio sockets, HTTP/1.1 keep-alive, one
  request in flight per connection; each connection starts its own run (New run) and then
  sends "Execute action" repeatedly; the latencies are those of single queries.
- ``python loadgen.py steps WORLD_URL MIND_URL RUNS SECONDS [BINDING]``: RUNS runs of the real
  run loop (:class:`wwm.client.runner.Runner`: Get action, Execute action, Inform, with Inform
  and the next Get action pipelined) at once, each with its own connections, over ``http``
  (the default) or ``tcp``; "requests" counts full steps, the latencies are a step's.
"""

from __future__ import annotations

import asyncio
import json
import sys
import time
from urllib.parse import urlsplit


def request(host: str, port: int, body: bytes) -> bytes:
    return (f"POST / HTTP/1.1\r\nHost: {host}:{port}\r\nContent-Type: application/json\r\n"
            f"Content-Length: {len(body)}\r\n\r\n").encode() + body


async def read_response(reader: asyncio.StreamReader) -> bytes:
    head = await reader.readuntil(b"\r\n\r\n")
    length = 0
    for line in head.split(b"\r\n"):
        if line[:15].lower() == b"content-length:":
            length = int(line[15:])
    return await reader.readexactly(length)


async def connection(host: str, port: int, deadline: float, latencies: list[float]) -> int:
    reader, writer = await asyncio.open_connection(host, port)
    writer.write(request(host, port, b'{"query":"New run"}'))
    run_id = json.loads(await read_response(reader))["data"]["world run ID"]
    execute = request(host, port, json.dumps(
        {"query": "Execute action", "data": {"world run ID": run_id, "action": "go"}}).encode())
    count = 0
    clock = time.perf_counter
    while True:
        t = clock()
        if t > deadline:
            break
        writer.write(execute)
        await read_response(reader)
        latencies.append(clock() - t)
        count += 1
    writer.close()
    return count


async def main(url: str, connections: int, seconds: float) -> None:
    parts = urlsplit(url)
    start = time.perf_counter()
    deadline = start + seconds
    latencies: list[float] = []
    counts = await asyncio.gather(*(connection(parts.hostname, parts.port, deadline, latencies)
                                    for _ in range(connections)))
    report(sum(counts), time.perf_counter() - start, latencies)


async def steps(world_url: str, mind_url: str, runs: int, seconds: float, binding: str = "http",
                warm_up: float = 0.5) -> None:
    """``runs`` runs of the real run loop at once for ``seconds`` (after ``warm_up`` seconds in
    which every run starts and its connections open); full steps counted and each timed."""
    from wwm.client import RemoteMind, RemoteWorld
    from wwm.client.runner import Runner, RunSettings

    clock = time.perf_counter
    latencies: list[float] = []
    counting = False
    settings = RunSettings(steps=None, timeout=10.0, keepalive=None, pipeline=True)

    def recorder():
        last = [clock()]

        def on_step(step, result) -> None:
            now = clock()
            if counting:
                latencies.append(now - last[0])
            last[0] = now
        return on_step

    pairs = [(RemoteWorld(world_url, transport=binding), RemoteMind(mind_url, transport=binding))
             for _ in range(runs)]
    tasks = [asyncio.ensure_future(Runner(mind, world, settings, on_step=recorder()).run())
             for world, mind in pairs]
    await asyncio.sleep(warm_up)
    counting, start = True, clock()
    await asyncio.sleep(seconds)
    counting, elapsed = False, clock() - start
    for task in tasks:
        task.cancel()
    results = await asyncio.gather(*tasks, return_exceptions=True)
    failed = [r for r in results if not isinstance(r, asyncio.CancelledError)]
    for world, mind in pairs:
        await world.aclose()
        await mind.aclose()
    if failed:
        raise SystemExit(f"{len(failed)} of {runs} runs ended early: {failed[0]!r}")
    report(len(latencies), elapsed, latencies)


def report(count: int, elapsed: float, latencies: list[float]) -> None:
    latencies.sort()

    def pick(q: float) -> float:
        return latencies[min(len(latencies) - 1, int(q * len(latencies)))] * 1000 if latencies else 0.0

    print(json.dumps({"requests": count, "seconds": elapsed, "p50_ms": pick(0.5), "p99_ms": pick(0.99)}))


if __name__ == "__main__":
    try:
        import uvloop
        uvloop.install()
    except ImportError:
        pass
    if sys.argv[1] == "steps":
        asyncio.run(steps(sys.argv[2], sys.argv[3], int(sys.argv[4]), float(sys.argv[5]), *sys.argv[6:7]))
    else:
        asyncio.run(main(sys.argv[1], int(sys.argv[2]), float(sys.argv[3])))
