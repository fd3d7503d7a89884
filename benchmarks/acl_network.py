"""Conversations per second over loopback, one command:
    .venv/bin/python benchmarks/acl_network.py [--seconds S] [--encoding json|xml]

A manager agent (in this process, with its own loopback endpoint) asks a contractor agent
(a ``wwm serve`` process) to do work by FIPA Request until acknowledged success: four ACL
messages, each a ``Send message`` query over HTTP, each checked by both engines. Printed
side by side, all measured in this run against the same contractor server:
- baseline: plain WWM queries ("No operation") per second, one after another,
- ACL conversations per second one after another, and with 16 in flight.
"""

from __future__ import annotations

import argparse
import asyncio
import time

from wwm.acl.agent import Agent
from wwm.acl.message import AID
from wwm.acl.network import serve_agent
from wwm.client.remote import RemoteMind
from wwm.server.process import ServerProcess


async def measure(url: str, seconds: float, encoding: str) -> list[tuple[str, float, float]]:
    rows = []
    mind = RemoteMind(url, encoding=encoding)
    await mind.new_run()
    n, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        await mind.no_operation()
        n += 1
    rows.append(("baseline: WWM queries, one at a time", n / (time.perf_counter() - start), 1))
    await mind.aclose()

    boss = Agent("boss")
    async with serve_agent(boss, encoding=encoding):
        worker = AID("bench", (url,))
        await boss.request(worker, "(warm up)")
        n, start = 0, time.perf_counter()
        while time.perf_counter() - start < seconds:
            conv = await boss.request(worker, f"(job {n})")
            assert conv.outcomes == {"bench": "success"}, conv.outcomes
            n += 1
        rows.append(("ACL conversations, one at a time", n / (time.perf_counter() - start), 4))

        async def many(k: int) -> None:
            results = await asyncio.gather(*(boss.request(worker, f"(job {k}.{i})") for i in range(16)))
            assert all(r.outcomes == {"bench": "success"} for r in results)

        n, start = 0, time.perf_counter()
        while time.perf_counter() - start < seconds:
            await many(n)
            n += 16
        rows.append(("ACL conversations, 16 in flight", n / (time.perf_counter() - start), 4))
        await boss.close()
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seconds", type=float, default=3.0)
    parser.add_argument("--encoding", choices=("json", "xml"), default="json")
    args = parser.parse_args()
    if not args.seconds > 0:
        parser.error("--seconds must be a positive number")
    with ServerProcess("wwm.acl.contractnet:Contractor",
                       args={"name": "bench", "work_seconds": 0}) as server:
        rows = asyncio.run(measure(server.url, args.seconds, args.encoding))
    print(f"loopback, {args.encoding.upper()} messages, {args.seconds:g} s per figure")
    base = rows[0][1]
    for name, per_second, messages in rows:
        unit = "queries/s" if messages == 1 else "conversations/s"
        print(f"  {name:38} {per_second:9,.1f} {unit:16} = {per_second * messages:8,.0f} messages/s"
              f"   ({per_second * messages / base:4.2f} x the baseline's query rate)")


if __name__ == "__main__":
    main()
