"""The WebSocket binding's client on the wire, against a plain WebSocket server (the
``websockets`` library's, in this process): queries of every frame size arrive whole, answers
in fragments or as text are read as one, the server's pings are answered, wss works, and a
refused handshake or a server that closes is a refusal naming what happened."""

from __future__ import annotations

import asyncio
import contextlib
import json
import ssl
import subprocess
from collections.abc import AsyncIterator

import pytest
from websockets.asyncio.server import ServerConnection, serve
from websockets.exceptions import ConnectionClosed
from websockets.http11 import Response as HandshakeResponse

from wwm.client.ws_transport import WebSocketTransport
from wwm.protocol import jsoncodec
from wwm.protocol.errors import Refusal
from wwm.protocol.messages import Query, Response


def answer(query: Query, **extra: str) -> bytes:
    """The stand-in server's answer: the query's name and the size of its data, as it read them."""
    return jsoncodec.encode(Response(query.name, {"size": str(len(query.data.get("text", ""))), **extra}))


async def in_kind(ws: ServerConnection, query: Query) -> None:
    await ws.send(answer(query))


async def fragmented_text(ws: ServerConnection, query: Query) -> None:
    text = answer(query, padding="x" * 70_000).decode()
    await ws.send([text[:5], text[5:40_000], text[40_000:]])  # one message in three text frames


async def pinged_first(ws: ServerConnection, query: Query) -> None:
    pong = await ws.ping()
    await asyncio.wait_for(pong, 5)  # the client answered the ping
    await ws.send(answer(query, pinged="yes"))


async def closed_for_restart(ws: ServerConnection, query: Query) -> None:
    await ws.close(1012, "going down")


@pytest.fixture
async def server(request) -> AsyncIterator[str]:
    """A WebSocket server at /ws answering each query with ``request.param`` (a port of its own)."""
    async def handler(ws: ServerConnection) -> None:
        with contextlib.suppress(ConnectionClosed):
            async for message in ws:
                await request.param(ws, jsoncodec.decode(message if isinstance(message, bytes) else message.encode()))

    async with serve(handler, "127.0.0.1", 0, max_size=None) as ws_server:
        port = ws_server.sockets[0].getsockname()[1]
        yield f"http://127.0.0.1:{port}/"


@pytest.mark.parametrize("server", [in_kind], indirect=True)
async def test_queries_of_every_frame_size_arrive_whole(server):
    transport = WebSocketTransport(server, timeout=5)
    try:
        sizes = [0, 125, 126, 65_535, 65_536, 200_000]  # 7-bit, 16-bit and 64-bit frame lengths
        for size in sizes:
            response = await transport.exchange(Query("Echo", {"text": "y" * size}))
            assert response.data["size"] == str(size)
        answers = await transport.exchange_in_order([Query("Echo", {"text": "z" * s}) for s in sizes])
        assert [a.data["size"] for a in answers if isinstance(a, Response)] == [str(s) for s in sizes]
    finally:
        await transport.close()


@pytest.mark.parametrize("server", [fragmented_text], indirect=True)
async def test_an_answer_in_text_fragments_is_read_as_one(server):
    transport = WebSocketTransport(server, timeout=5)
    try:
        for _ in range(2):
            response = await transport.exchange(Query("Echo", {"text": "abc"}))
            assert response.data["size"] == "3" and len(response.data["padding"]) == 70_000
    finally:
        await transport.close()


@pytest.mark.parametrize("server", [pinged_first], indirect=True)
async def test_the_servers_pings_are_answered(server):
    transport = WebSocketTransport(server, timeout=5)
    try:
        assert (await transport.exchange(Query("Echo", {}))).data["pinged"] == "yes"
    finally:
        await transport.close()


@pytest.mark.parametrize("server", [closed_for_restart], indirect=True)
async def test_a_server_that_closes_is_a_refusal_naming_its_close_code(server):
    transport = WebSocketTransport(server, timeout=5)
    try:
        with pytest.raises(Refusal) as refused:
            await transport.exchange(Query("Echo", {}))
        assert refused.value.code == "unreachable" and "1012" in refused.value.text
        assert "going down" in refused.value.text
    finally:
        await transport.close()


async def test_a_refused_handshake_is_a_refusal_naming_the_address():
    def forbid(ws: ServerConnection, request: object) -> HandshakeResponse:
        return ws.respond(403, "no WebSockets here\n")

    async with serve(lambda ws: ws.wait_closed(), "127.0.0.1", 0, process_request=forbid) as ws_server:
        port = ws_server.sockets[0].getsockname()[1]
        transport = WebSocketTransport(f"http://127.0.0.1:{port}/", timeout=5)
        with pytest.raises(Refusal) as refused:
            await transport.exchange(Query("Echo", {}))
        await transport.close()
    assert refused.value.code == "unreachable"
    assert f"ws://127.0.0.1:{port}/ws" in refused.value.text and "403" in refused.value.text


async def test_wss_carries_queries_over_tls(tmp_path, monkeypatch):
    cert, key = tmp_path / "cert.pem", tmp_path / "key.pem"
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1",
                    "-subj", "/CN=localhost", "-addext", "subjectAltName=DNS:localhost",
                    "-keyout", str(key), "-out", str(cert)], check=True, capture_output=True)
    monkeypatch.setenv("SSL_CERT_FILE", str(cert))  # the client trusts this certificate alone
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(cert, key)

    async def handler(ws: ServerConnection) -> None:
        async for message in ws:
            query = jsoncodec.decode(message if isinstance(message, bytes) else message.encode())
            await ws.send(answer(query, secure=json.dumps(ws.transport.get_extra_info("ssl_object") is not None)))

    async with serve(handler, "127.0.0.1", 0, ssl=context) as ws_server:
        port = ws_server.sockets[0].getsockname()[1]
        transport = WebSocketTransport(f"https://localhost:{port}/", timeout=5)
        assert transport.ws_url == f"wss://localhost:{port}/ws"
        try:
            assert (await transport.exchange(Query("Echo", {"text": "tls"}))).data == {"size": "3", "secure": "true"}
        finally:
            await transport.close()


async def test_a_server_that_never_answers_the_handshake_is_a_time_out_and_is_let_go():
    gone = asyncio.Event()

    class Silent(asyncio.Protocol):
        def connection_lost(self, exc: Exception | None) -> None:
            gone.set()

    server = await asyncio.get_running_loop().create_server(Silent, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    transport = WebSocketTransport(f"http://127.0.0.1:{port}/", timeout=0.3)
    try:
        with pytest.raises(Refusal) as refused:
            await transport.exchange(Query("Echo", {}))
        assert refused.value.code == "timeout" and "did not accept a WebSocket within 0.3 s" in refused.value.text
        await asyncio.wait_for(gone.wait(), 5)  # the connection was closed, not left open
    finally:
        await transport.close()
        server.close()
