"""The WebSocket binding on the wire, driven by a plain WebSocket client (the ``websockets``
library's, not wwm's): answers in kind and in order, an oversized message refused in its turn
with the connection kept, a message in fragments answered as one, one too large for the
server closed with 1009, the binding only at /ws, pings answered, and a server that stops
saying so; and, for both persistent bindings, an answer still being worked out is cancelled
when its client goes away."""

from __future__ import annotations

import asyncio
import json
import struct

import pytest
from probes import probe_server
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed, InvalidStatus

from wwm import Outcome, World
from wwm.server import make_app
from wwm.server.tcp import start

pytestmark = pytest.mark.slow


def served(http: str):
    with probe_server("ProbeWorld", extra=["--http", http]) as server:
        yield server.url.replace("http://", "ws://").rstrip("/") + "/ws"


@pytest.fixture(scope="module")
def uvicorn_ws_url():
    """The binding at /ws of a server on uvicorn: server/websocket.py."""
    yield from served("uvicorn")


@pytest.fixture(scope="module", params=["uvicorn", "granian"])
def ws_url(request, uvicorn_ws_url):
    """The binding at /ws on uvicorn, or on Granian (the ASGI app's own loop)."""
    if request.param == "uvicorn":
        yield uvicorn_ws_url
    else:
        yield from served("granian")


def query(name: str, **data: str) -> dict:
    return {"wwm": "1.0", "query": name, "data": data}


async def new_run(ws) -> str:
    await ws.send(json.dumps(query("New run")).encode())
    return json.loads(await ws.recv())["data"]["world run ID"]


async def test_answers_come_in_kind_and_in_order(ws_url):
    async with connect(ws_url) as ws:
        run_id = await new_run(ws)
        for k in range(1, 6):  # text and bytes, alternately, sent without waiting
            message = json.dumps(query("Execute action", **{"world run ID": run_id, "action": f"+{k}"}))
            await ws.send(message if k % 2 else message.encode())
        answers = [await ws.recv() for _ in range(5)]
    assert [type(a) for a in answers] == [str, bytes, str, bytes, str]
    assert [json.loads(a)["data"]["state"] for a in answers] == [f"n={sum(range(1, k + 1))}" for k in range(1, 6)]


async def test_an_oversized_message_is_refused_in_its_turn_and_the_connection_goes_on(ws_url):
    async with connect(ws_url, max_size=None) as ws:
        run_id = await new_run(ws)
        await ws.send(json.dumps(query("Execute action", **{"world run ID": run_id, "action": "+1"})).encode())
        await ws.send(b"{" + b" " * (1 << 20) + b"}")  # over the server's 1 MiB
        await ws.send(json.dumps(query("Execute action", **{"world run ID": run_id, "action": "+2"})).encode())
        first, refused, third = [json.loads(await ws.recv()) for _ in range(3)]
    assert first["data"]["state"] == "n=1" and third["data"]["state"] == "n=3"
    assert refused["refusal"]["code"] == "too-large" and "1048578 bytes" in refused["refusal"]["text"]


async def test_a_message_in_fragments_is_one_query_answered_in_kind(uvicorn_ws_url):
    async with connect(uvicorn_ws_url) as ws:
        run_id = await new_run(ws)
        message = json.dumps(query("Execute action", **{"world run ID": run_id, "action": "+4"}))
        await ws.send([message[:10], message[10:30], message[30:]])  # three frames, one message
        await ws.send([message[:7].encode(), message[7:].encode()])
        answers = [await ws.recv() for _ in range(2)]
    assert [type(a) for a in answers] == [str, bytes]
    assert [json.loads(a)["data"]["state"] for a in answers] == ["n=4", "n=8"]


async def test_a_message_over_the_largest_in_fragments_closes_the_connection_with_1009(uvicorn_ws_url):
    async with connect(uvicorn_ws_url, max_size=None) as ws:
        chunk = b" " * (4 << 20)
        with pytest.raises(ConnectionClosed) as closed:
            await ws.send([b"{"] + [chunk] * 5 + [b"}"])  # 20 MiB, over the 16 MiB a message may have
            await asyncio.wait_for(ws.recv(), 10)
    assert closed.value.rcvd is not None and closed.value.rcvd.code == 1009


async def test_the_binding_is_only_at_ws_and_pings_are_answered(uvicorn_ws_url):
    with pytest.raises(InvalidStatus) as refused:
        async with connect(uvicorn_ws_url.removesuffix("/ws") + "/elsewhere"):
            pass
    assert refused.value.response.status_code == 404 and b"/ws" in refused.value.response.body
    async with connect(uvicorn_ws_url) as ws:
        latency = await asyncio.wait_for(await ws.ping(), 3)
        assert latency >= 0


async def test_a_stopping_server_closes_its_websockets_with_service_restart():
    with probe_server("ProbeWorld") as server:
        url = server.url.replace("http://", "ws://").rstrip("/") + "/ws"
        async with connect(url) as ws:
            await new_run(ws)
            await asyncio.to_thread(server.stop)
            with pytest.raises(ConnectionClosed) as closed:
                await asyncio.wait_for(ws.recv(), 10)
    assert closed.value.rcvd is not None and closed.value.rcvd.code == 1012


class Waiting(World):
    """Execute action waits until cancelled, and says so."""

    cancelled = asyncio.Event()

    async def execute_action(self, action: str) -> Outcome:
        try:
            await asyncio.sleep(30)
        except asyncio.CancelledError:
            Waiting.cancelled.set()
            raise
        return Outcome("done")


async def test_an_answer_is_cancelled_when_its_tcp_client_goes_away():
    Waiting.cancelled = asyncio.Event()
    app = make_app(Waiting, url="http://127.0.0.1:1/")
    server = await start(app.dispatcher, "127.0.0.1", 0, 1 << 20)
    header = struct.Struct(">I")

    def frame(doc: dict) -> bytes:
        body = json.dumps(doc).encode()
        return header.pack(len(body)) + body

    try:
        reader, writer = await asyncio.open_connection("127.0.0.1", server.sockets[0].getsockname()[1])
        writer.write(frame(query("New run")))
        (length,) = header.unpack(await reader.readexactly(4))
        run_id = json.loads(await reader.readexactly(length))["data"]["world run ID"]
        writer.write(frame(query("Execute action", **{"world run ID": run_id, "action": "go"})))
        await writer.drain()
        await asyncio.sleep(0.2)
        assert not Waiting.cancelled.is_set()  # still being worked out
        writer.close()
        await asyncio.wait_for(Waiting.cancelled.wait(), 5)
    finally:
        server.close()
