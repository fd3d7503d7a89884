"""Where one query over the TCP binding spends its CPU, phase by phase, in one process (no
sockets: a stand-in transport takes the writes), so the figures do not depend on the machine's
load or on wake-ups:  python benchmarks/binding_phases.py

Each figure is the best of 30 batches of 2,000 ``Execute action`` queries on a counter world, in
CPU time of this thread (microseconds per query); the two "all" rows run the real protocol
classes (the server's :class:`~wwm.server.tcp.TcpBinding`, the client's
:class:`~wwm.client.tcp_transport.TcpTransport`) on the event loop, turns of the loop included,
and the two "floor" rows the same for the least JSON request/response of
``json_floor_server.py`` (parse, count, answer: no protocol), what any binding costs at least.
The two "loopback" rows put the real client and server of each persistent binding (TCP, and
WebSocket: picows's protocol on both sides, the client's own frames) in this one thread over a
loopback socket: a whole round trip's CPU, system calls included, with no wake-ups between
processes, so their difference is what the WebSocket's framing costs over the TCP binding's.
The "cold" rows time each query (wall clock, one at a time) after touching 16 MB, more than the
last-level cache holds, as a process finds its caches after the other ran: a query then costs
about what it touches rather than what it executes, and the gap between the TCP binding and the
least World binding here (both sides together) matches the one ``network.py`` measures between
processes, where warm it is a third of that.
``network.py`` measures the same queries between processes, with the CPU each process spent.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Coroutine
from typing import Any

from bench_servers import CounterWorld
from json_floor_server import FloorClient, FloorServer, WorldFloorClient, WorldFloorServer

from wwm.client.remote import RemoteWorld
from wwm.client.tcp_transport import Frames, TcpTransport
from wwm.client.transport import decode_response
from wwm.client.ws_transport import Messages, WebSocketTransport
from wwm.protocol import encoding, jsoncodec
from wwm.protocol.messages import Query
from wwm.server import make_app, tcp
from wwm.server.tcp import HEADER, TcpBinding
from wwm.server.websocket import WebSocketBinding

BATCHES, BATCH = 30, 2000
COLD, EVICT = 2000, 16 << 20  # queries timed cold, and the bytes touched to empty the caches before each


def best(one: Callable[[], object]) -> float:
    """The CPU microseconds of one call, best of the batches."""
    out = float("inf")
    for _ in range(BATCHES):
        start = time.thread_time()
        for _ in range(BATCH):
            one()
        out = min(out, (time.thread_time() - start) / BATCH * 1e6)
    return out


def at_once(coroutine: Coroutine[Any, Any, Any]) -> Any:
    """The value of a coroutine that finishes without waiting (these handlers all do)."""
    try:
        coroutine.send(None)
    except StopIteration as done:
        return done.value
    raise RuntimeError("the coroutine waited")


class Sink:
    """A stand-in for a connection's transport: keeps what is written."""

    def __init__(self) -> None:
        self.written: list[bytes] = []

    def write(self, data: bytes) -> None:
        self.written.append(data)

    def is_closing(self) -> bool:
        return False

    def close(self) -> None:
        pass


def framed(payload: bytes) -> bytes:
    return HEADER.pack(len(payload)) + payload


def main() -> None:
    from rich.console import Console
    from rich.table import Table

    try:
        import uvloop
    except ImportError:
        uvloop = None
    run = uvloop.run if uvloop is not None else asyncio.run
    dispatcher = make_app(CounterWorld, url="http://127.0.0.1:1/").dispatcher
    run_id = at_once(dispatcher.answer(Query("New run", {}))).data["world run ID"]
    query = Query("Execute action", {"world run ID": run_id, "action": "go"})
    raw = jsoncodec.encode(query)
    reply = at_once(dispatcher.answer(query))
    payload = jsoncodec.encode(reply)
    world = CounterWorld()
    client = RemoteWorld("tcp://127.0.0.1:1")
    client.run_id = run_id
    spec, built = client._build("execute_action", {"action": "go"})
    decoded = decode_response("tcp://127.0.0.1:1", built, None, payload)
    ws_frames = Messages()
    rows = [
        ("server", "decode the query (codec choice + JSON)", best(lambda: encoding.choose(None, raw).decode(raw))),
        ("server", "the handler alone (CounterWorld.execute_action)",
         best(lambda: at_once(world.execute_action("go")))),
        ("server", "dispatch with the handler (answer a decoded query, the general way)",
         best(lambda: at_once(dispatcher.answer(query)))),
        ("server", "a frame's bytes to its answer's (answer_payload: the short way, with the handler)",
         best(lambda: at_once(dispatcher.answer_payload(raw)))),
        ("server", "encode and frame the reply", best(lambda: framed(jsoncodec.encode(reply)))),
        ("client", "build the query", best(lambda: client._build("execute_action", {"action": "go"}))),
        ("client", "encode and frame it", best(lambda: framed(jsoncodec.encode(built)))),
        ("client", "frame it for TCP (length header)", best(lambda: framed(raw))),
        ("client", "frame it for WebSocket (header, mask, masked payload)", best(lambda: ws_frames.frame([raw]))),
        ("client", "decode the reply", best(lambda: decode_response("tcp://127.0.0.1:1", built, None, payload))),
        ("client", "the Outcome from the reply", best(lambda: client._result(spec, decoded))),
    ]

    async def server_all(floor: bool = False) -> float:
        binding: Any = FloorServer() if floor else TcpBinding(dispatcher, 1 << 20)
        sink = Sink()
        binding.connection_made(sink)  # type: ignore[arg-type]
        frame = framed(raw)

        def batches() -> float:  # run as the loop runs a read: a callback, outside any task
            out = float("inf")
            for _ in range(BATCHES):
                start = time.thread_time()
                for _ in range(BATCH):
                    binding.data_received(frame)
                    sink.written.clear()
                out = min(out, (time.thread_time() - start) / BATCH * 1e6)
            return out

        done: asyncio.Future[float] = asyncio.get_running_loop().create_future()
        asyncio.get_running_loop().call_soon(lambda: done.set_result(batches()))
        best = await done
        assert sink.written == [] and not getattr(binding, "waiting", False), "an answer had to wait"
        return best

    async def client_all(floor: bool = False) -> float:
        loop = asyncio.get_running_loop()
        connection: Any = FloorClient() if floor else Frames()
        connection.connection_made(Sink())
        remote: Any = connection
        if not floor:
            transport = TcpTransport("tcp://127.0.0.1:1")
            transport._conn = connection
            remote = RemoteWorld(transport)
            remote.run_id = run_id
        frame = framed(payload)
        out = float("inf")
        for _ in range(BATCHES):
            start = time.thread_time()
            for _ in range(BATCH):
                loop.call_soon(connection.data_received, frame)  # the answer arrives on the next turn
                await remote.execute_action("go")
            out = min(out, (time.thread_time() - start) / BATCH * 1e6)
        return out

    evicted = bytearray(EVICT)

    def evict() -> None:
        """Touch a cache line in every 64 bytes of more memory than the last-level cache holds."""
        evicted[::64] = bytes(EVICT // 64)

    def cold_trips(one: Callable[[], object]) -> float:
        """Mean wall µs of ``one()`` with the caches emptied before each call (less an empty
        call's), as between processes, where the other process ran meanwhile."""
        clock = time.perf_counter_ns
        total = empty = 0
        for _ in range(COLD):
            evict()
            start = clock()
            one()
            total += clock() - start
            evict()
            start = clock()
            empty += clock() - start
        return (total - empty) / COLD / 1000

    async def server_cold(kind: str) -> float:
        binding: Any = {"ours": lambda: TcpBinding(dispatcher, 1 << 20), "floor": FloorServer,
                        "world": WorldFloorServer}[kind]()
        sink = Sink()
        binding.connection_made(sink)
        frame = framed(raw if kind == "ours" else jsoncodec.encode(
            Query("Execute action", {"world run ID": "r", "action": "go"})))

        def one() -> None:
            binding.data_received(frame)
            sink.written.clear()

        for _ in range(100):
            one()
        done: asyncio.Future[float] = asyncio.get_running_loop().create_future()
        asyncio.get_running_loop().call_soon(lambda: done.set_result(cold_trips(one)))  # outside any task
        return await done

    async def client_cold(kind: str) -> float:
        loop = asyncio.get_running_loop()
        connection: Any = {"ours": Frames, "floor": FloorClient, "world": WorldFloorClient}[kind]()
        connection.connection_made(Sink())
        remote: Any = connection
        if kind == "ours":
            transport = TcpTransport("tcp://127.0.0.1:1")
            transport._conn = connection
            remote = RemoteWorld(transport)
            remote.run_id = run_id
        frame = framed(payload)
        clock = time.perf_counter_ns
        total = empty = 0
        for i in range(COLD + 100):
            evict()
            start = clock()
            loop.call_soon(connection.data_received, frame)
            await remote.execute_action("go")
            took = clock() - start
            evict()
            start = clock()
            loop.call_soon(int)
            await asyncio.sleep(0)
            if i >= 100:
                total, empty = total + took, empty + clock() - start
        return (total - empty) / COLD / 1000

    async def loopback(binding: str) -> float:
        """CPU per Execute action round trip, client and server of ``binding`` in this thread."""
        loop = asyncio.get_running_loop()
        if binding == "tcp":
            server = await tcp.start(dispatcher, "127.0.0.1", 0, 1 << 20)
            port = server.sockets[0].getsockname()[1]
            remote = RemoteWorld(TcpTransport(f"tcp://127.0.0.1:{port}"))
        else:  # picows's server side, as under uvicorn once the connection is upgraded
            server = await loop.create_server(lambda: WebSocketBinding(dispatcher, 1 << 20, set()), "127.0.0.1", 0)
            port = server.sockets[0].getsockname()[1]
            remote = RemoteWorld(WebSocketTransport(f"http://127.0.0.1:{port}/"))
        remote.run_id = run_id
        out = float("inf")
        try:
            await remote.execute_action("go")  # connected
            for _ in range(BATCHES // 3):
                start = time.thread_time()
                for _ in range(BATCH):
                    await remote.execute_action("go")
                out = min(out, (time.thread_time() - start) / BATCH * 1e6)
        finally:
            await remote.aclose()
            server.close()
        return out

    rows.append(("server", "all: frame in, reply written", run(server_all())))
    rows.append(("client", "all: execute_action called to returned", run(client_all())))
    rows.append(("floor", "the least JSON server: frame in, reply written", run(server_all(floor=True))))
    rows.append(("floor", "the least JSON client: execute_action called to returned", run(client_all(floor=True))))
    rows.append(("loopback", "TCP: execute_action called to returned, client and server here", run(loopback("tcp"))))
    rows.append(("loopback", "WebSocket: the same", run(loopback("ws"))))
    for kind, label in (("ours", "the TCP binding"),
                        ("world", "the least World binding (json_floor_server.py --world)"),
                        ("floor", "the least JSON request/response")):
        rows.append(("cold", f"server, caches emptied before each query: {label}", run(server_cold(kind))))
    for kind, label in (("ours", "the TCP binding"), ("world", "the least World binding"),
                        ("floor", "the least JSON request/response")):
        rows.append(("cold", f"client, the same: {label}", run(client_cold(kind))))
    table = Table(title="CPU per Execute action query over the persistent bindings, by phase (µs, in process)")
    table.add_column("side")
    table.add_column("phase")
    table.add_column("µs", justify="right")
    for side, phase, micros in rows:
        table.add_row(side, phase, f"{micros:.2f}")
    Console().print(table)


if __name__ == "__main__":
    main()
