"""A cheap load generator for the benchmarks: raw asyncio sockets, HTTP/1.1 keep-alive, one
request in flight per connection, latencies recorded. Run as a separate process so the
server has a core to itself:  python loadgen.py URL CONNECTIONS SECONDS
Each connection starts its own run (New run) and then sends "Execute action" repeatedly.
Prints one JSON line: {"requests": N, "seconds": S, "p50_ms": .., "p99_ms": ..}.
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
    elapsed = time.perf_counter() - start
    latencies.sort()

    def pick(q: float) -> float:
        return latencies[min(len(latencies) - 1, int(q * len(latencies)))] * 1000

    print(json.dumps({"requests": sum(counts), "seconds": elapsed, "p50_ms": pick(0.5), "p99_ms": pick(0.99)}))


if __name__ == "__main__":
    try:
        import uvloop
        uvloop.install()
    except ImportError:
        pass
    asyncio.run(main(sys.argv[1], int(sys.argv[2]), float(sys.argv[3])))
