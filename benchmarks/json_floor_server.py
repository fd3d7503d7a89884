"""The floor of a JSON request/response binding, for ``network.py``: the least any binding of
the protocol does per query, over the same sockets and event loop as the TCP binding.

python json_floor_server.py PORT   (PORT 0: any free port; prints "ready PORT" once it listens)

Each frame is a 4-byte big-endian length and a JSON query (as on the TCP binding); the server
parses it (orjson), reads the query's name and data, counts, and answers a JSON response
framed the same way: no protocol table, no run lookup, no checks. :class:`FloorClient` is the
matching least client (a future per query, matched first in, first out). What a real binding
costs above these two is the protocol's layers; what these cost above the bare echo is JSON
and awaiting an answer.
"""

from __future__ import annotations

import asyncio
import struct
import sys
from collections import deque

import orjson

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


async def connect(port: int) -> FloorClient:
    _, client = await asyncio.get_running_loop().create_connection(FloorClient, "127.0.0.1", port)
    return client


async def main(port: int) -> None:
    server = await asyncio.get_running_loop().create_server(FloorServer, "127.0.0.1", port)
    print(f"ready {server.sockets[0].getsockname()[1]}", flush=True)
    await server.serve_forever()


if __name__ == "__main__":
    try:
        import uvloop

        uvloop.install()
    except ImportError:
        pass
    asyncio.run(main(int(sys.argv[1])))
