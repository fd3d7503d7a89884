"""The floor of a JSON request/response binding, for ``network.py``: the least any binding of
the protocol does per query, over the same sockets and event loop as the TCP binding.

python json_floor_server.py PORT [--world]   (PORT 0: any free port; prints "ready PORT" once it listens)

Each frame is a 4-byte big-endian length and a JSON query (as on the TCP binding); the server
parses it (orjson), reads the query's name and data, counts, and answers a JSON response
framed the same way: no protocol table, no run lookup, no checks. :class:`FloorClient` is the
matching least client (a future per query, matched first in, first out). What a real binding
costs above these two is the protocol's layers; what these cost above the bare echo is JSON
and awaiting an answer.

With ``--world`` (:class:`WorldFloorServer`, :class:`WorldFloorClient`) the floor does the least
a World server must: it also checks the query's name and items, finds the run, calls a counter
World's ``execute_action`` (as ``bench_servers.CounterWorld``), checks the ``Outcome``, notes
when the run was last seen, and the client reads the answer back into an ``Outcome``: the
ceiling of a binding written in Python, the protocol's checks and conveniences left out.
"""

from __future__ import annotations

import asyncio
import struct
import sys
import time
from collections import deque

import orjson
from bench_servers import CounterWorld

from wwm.protocol.results import Outcome

HEADER = struct.Struct(">I")


class FloorServer(asyncio.Protocol):
    def __init__(self) -> None:
        self.buffer = bytearray()
        self.n = 0

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport: asyncio.Transport = transport  # type: ignore[assignment]

    def data_received(self, data: bytes) -> None:
        buffer = self.buffer
        buffer += data
        while len(buffer) >= 4:
            (length,) = HEADER.unpack_from(buffer)
            if len(buffer) < 4 + length:
                return
            doc = orjson.loads(bytes(buffer[4:4 + length]))
            del buffer[:4 + length]
            self.n += 1
            data = doc.get("data", {})
            payload = orjson.dumps({"wwm": "1.0", "response": doc["query"],
                                    "data": {"state": f"n={self.n}", "score": 1.0, "run": data.get("world run ID")}})
            self.transport.write(HEADER.pack(len(payload)) + payload)


class FloorClient(asyncio.Protocol):
    """The least client: write a framed JSON query, await the decoded answer."""

    def __init__(self) -> None:
        self.buffer = bytearray()
        self.waiters: deque[asyncio.Future[dict]] = deque()

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport: asyncio.Transport = transport  # type: ignore[assignment]
        self.loop = asyncio.get_running_loop()

    def data_received(self, data: bytes) -> None:
        buffer = self.buffer
        buffer += data
        while len(buffer) >= 4:
            (length,) = HEADER.unpack_from(buffer)
            if len(buffer) < 4 + length:
                return
            frame = bytes(buffer[4:4 + length])
            del buffer[:4 + length]
            self.waiters.popleft().set_result(orjson.loads(frame))

    async def execute_action(self, action: str) -> tuple[str, float]:
        payload = orjson.dumps({"wwm": "1.0", "query": "Execute action",
                                "data": {"world run ID": "r", "action": action}})
        waiter = self.loop.create_future()
        self.waiters.append(waiter)
        self.transport.write(HEADER.pack(len(payload)) + payload)
        data = (await waiter)["data"]
        return data["state"], data["score"]


class _Run:
    __slots__ = ("world", "last_seen", "queries")

    def __init__(self, world: CounterWorld) -> None:
        self.world, self.last_seen, self.queries = world, 0.0, 0


class WorldFloorServer(FloorServer):
    """The floor with a World behind it: one run ("r"), the query checked, the method called."""

    runs = {"r": _Run(CounterWorld())}

    def data_received(self, data: bytes) -> None:
        buffer = self.buffer
        buffer += data
        while len(buffer) >= 4:
            (length,) = HEADER.unpack_from(buffer)
            if len(buffer) < 4 + length:
                return
            doc = orjson.loads(bytes(buffer[4:4 + length]))
            del buffer[:4 + length]
            self.transport.write(self.answer(doc))

    def answer(self, doc: dict) -> bytes:
        data = doc.get("data")
        if doc.get("query") != "Execute action" or type(data) is not dict:
            raise ValueError("not the query this floor answers")
        run, action = self.runs.get(data.get("world run ID")), data.get("action")
        if run is None or type(action) is not str:
            raise ValueError("no such run, or no action")
        coroutine = run.world.execute_action(action)
        try:
            coroutine.send(None)
            raise RuntimeError("the world waited")
        except StopIteration as done:
            outcome = done.value
        run.last_seen, run.queries = time.monotonic(), run.queries + 1
        if type(outcome) is not Outcome or type(outcome.state) is not str:
            raise TypeError("not an Outcome")
        out: dict = {"state": outcome.state}
        if outcome.score is not None:
            out["score"] = outcome.score
        if outcome.finished:
            out["run finished"] = True
        payload = orjson.dumps({"wwm": "1.0", "response": "Execute action", "data": out})
        return HEADER.pack(len(payload)) + payload


class WorldFloorClient(FloorClient):
    """The least client of a World: the answer read back into an ``Outcome``."""

    async def execute_action(self, action: str) -> Outcome:  # type: ignore[override]
        payload = orjson.dumps({"wwm": "1.0", "query": "Execute action",
                                "data": {"world run ID": "r", "action": action}})
        waiter = self.loop.create_future()
        self.waiters.append(waiter)
        self.transport.write(HEADER.pack(len(payload)) + payload)
        doc = await waiter
        data = doc.get("data") if type(doc) is dict and doc.get("response") == "Execute action" else None
        if type(data) is not dict or type(data.get("state")) is not str:
            raise ValueError("not the answer to Execute action")
        score = data.get("score")
        return Outcome(data["state"], None if score is None else float(score), data.get("run finished", False))


async def connect(port: int, world: bool = False) -> FloorClient:
    _, client = await asyncio.get_running_loop().create_connection(
        WorldFloorClient if world else FloorClient, "127.0.0.1", port)
    return client


async def main(port: int, world: bool = False) -> None:
    server = await asyncio.get_running_loop().create_server(WorldFloorServer if world else FloorServer,
                                                            "127.0.0.1", port)
    print(f"ready {server.sockets[0].getsockname()[1]}", flush=True)
    await server.serve_forever()


if __name__ == "__main__":
    try:
        import uvloop

        uvloop.install()
    except ImportError:
        pass
    asyncio.run(main(int(sys.argv[1]), "--world" in sys.argv[2:]))
