"""What one query costs over the in-process binding, against HTTP on loopback, one command:
    python benchmarks/inprocess.py [--queries N]

Prints, all measured in this run: "Execute action" on a GridWorld server answered
- over HTTP on loopback (a ``wwm serve`` process; the baseline every ratio divides by),
- in process through the app's ASGI entry (``wwm.client.inprocess``: what the binding does),
- in process straight to the Dispatcher with the encoded body (``answer_bytes``), through the
  same client (the least an in-process binding through the same codecs could cost; not
  offered, measured to show what going through ASGI adds), and without the client,
- a local object called directly (no protocol at all).
Fails loudly when the server process does not start.
"""

from __future__ import annotations

import argparse
import asyncio
import time

from wwm.client.inprocess import InProcessTransport, host
from wwm.client.remote import RemoteWorld
from wwm.kit.grid import GridWorld
from wwm.protocol.jsoncodec import encode
from wwm.protocol.messages import Query
from wwm.server import make_app
from wwm.server.process import ServerProcess


async def per_query(world: RemoteWorld | GridWorld, n: int) -> float:
    """Seconds per Execute action, after a warm-up."""
    await world.new_run()
    for _ in range(50):
        await world.execute_action("north")
    started = time.perf_counter()
    for _ in range(n):
        await world.execute_action("north")
    return (time.perf_counter() - started) / n


class DispatcherTransport(InProcessTransport):
    """The remote object's encoded query handed to ``Dispatcher.answer_bytes``, no ASGI."""

    async def _post(self, query: Query) -> tuple[str | None, bytes]:
        codec, response = await self.app.dispatcher.answer_bytes(self.codec.encode(query))  # type: ignore[attr-defined]
        return codec.CONTENT_TYPE, codec.encode(response)


async def dispatcher_only(n: int) -> float:
    app = make_app(GridWorld, url="http://bench.dispatcher.test/")
    d = app.dispatcher
    started = await d.answer(Query("New run", {"steps": 10**9}))
    run_id = started.data["world run ID"]
    body = encode(Query("Execute action", {"world run ID": run_id, "action": "north"}))
    for _ in range(50):
        await d.answer_bytes(body)
    t0 = time.perf_counter()
    for _ in range(n):
        codec, response = await d.answer_bytes(body)
        codec.encode(response)
    return (time.perf_counter() - t0) / n


async def main(n: int) -> None:
    rows: list[tuple[str, float]] = []
    with ServerProcess("wwm.kit.grid:GridWorld") as server:
        async with RemoteWorld(server.url, steps=10**9) as world:
            rows.append(("HTTP on loopback (baseline)", await per_query(world, n)))
    app = make_app(GridWorld, url="http://bench.inprocess.test/")
    async with host(app), RemoteWorld(app.url, steps=10**9) as world:
        assert isinstance(world.transport, InProcessTransport)
        rows.append(("in process, through ASGI (the binding)", await per_query(world, n)))
    app = make_app(GridWorld, url="http://bench.direct.test/")
    async with RemoteWorld(DispatcherTransport(app), steps=10**9) as world:
        rows.append(("in process, client -> Dispatcher.answer_bytes", await per_query(world, n)))
    rows.append(("in process, Dispatcher.answer_bytes, no client", await dispatcher_only(n)))
    rows.append(("local object, no protocol", await per_query(GridWorld(steps=10**9), n)))
    base = rows[0][1]
    print(f"{'Execute action, one client':48} {'µs/query':>10} {'vs HTTP':>8}")
    for name, seconds in rows:
        print(f"{name:48} {seconds * 1e6:10.1f} {seconds / base:8.3f}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--queries", type=int, default=3000)
    asyncio.run(main(parser.parse_args().queries))
