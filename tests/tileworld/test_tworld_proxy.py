"""The T-World proxy over real loopback sockets: pairing in both orders, relaying both ways,
50 concurrent pairs, and peers that vanish, send garbage or send before connecting."""

from __future__ import annotations

import asyncio
import json

import pytest
from websockets.asyncio.client import connect as ws_connect

from wwm.tileworld.proxy import CONNECTED, DISCONNECTED, WORLD_CLOSED, Proxy, parse_connect


@pytest.fixture
async def proxy():
    p = await Proxy(port=0).start()
    yield p
    await p.close()


async def agent(proxy: Proxy, magic: str | None = None):
    reader, writer = await asyncio.open_connection("127.0.0.1", proxy.port)
    if magic is not None:
        writer.write(f"CONNECT:{magic}\n".encode())
        await writer.drain()
    return reader, writer


async def world(proxy: Proxy, magic: str):
    ws = await ws_connect(f"ws://127.0.0.1:{proxy.port}/")
    await ws.send(f"CONNECT:{magic}")
    return ws


async def read_line(reader: asyncio.StreamReader) -> str:
    return (await asyncio.wait_for(reader.readline(), 5)).decode()


def test_parse_connect_rules():
    assert parse_connect("connect:Robot-1 \r\n") == "robot-1"
    for bad, words in [("north", "expected CONNECT"), ("CONNECT:", "empty"), ("CONNECT:" + "x" * 200, "at most")]:
        with pytest.raises(ValueError, match=words):
            parse_connect(bad)


@pytest.mark.parametrize("agent_first", [True, False])
async def test_pairs_in_either_order_and_relays_both_ways(proxy, agent_first):
    if agent_first:
        reader, writer = await agent(proxy, "Bob")
        await asyncio.sleep(0.05)
        ws = await world(proxy, "BOB")
    else:
        ws = await world(proxy, "bob")
        await asyncio.sleep(0.05)
        reader, writer = await agent(proxy, "Bob")
    assert await asyncio.wait_for(ws.recv(), 5) == CONNECTED
    percept = json.dumps({"header": "start", "data": {"x": 1}}) + "\n"
    await ws.send(percept)
    assert await read_line(reader) == percept
    writer.write(b"north\n")
    await writer.drain()
    assert await asyncio.wait_for(ws.recv(), 5) == "north\n"
    assert proxy.pairs == 1 and proxy.waiting_count() == 0
    writer.close()
    await ws.close()


async def test_same_magic_pairs_one_to_one(proxy):
    a1 = await agent(proxy, "twin")
    a2 = await agent(proxy, "twin")
    w1 = await world(proxy, "twin")
    w2 = await world(proxy, "twin")
    for w in (w1, w2):
        assert await asyncio.wait_for(w.recv(), 5) == CONNECTED
    await w1.send("one\n")
    await w2.send("two\n")
    assert {await read_line(a1[0]), await read_line(a2[0])} == {"one\n", "two\n"}
    for _, writer in (a1, a2):
        writer.close()
    for w in (w1, w2):
        await w.close()


async def test_fifty_concurrent_pairs_relay_correctly_for_two_seconds(proxy):
    loop = asyncio.get_running_loop()
    stop = loop.time() + 2.0

    async def pair(i: int) -> int:
        reader, writer = await agent(proxy, f"robot-{i}")
        ws = await world(proxy, f"robot-{i}")
        assert await asyncio.wait_for(ws.recv(), 10) == CONNECTED
        k = 0
        while loop.time() < stop:
            await ws.send(json.dumps({"header": "percept", "data": {"pair": i, "k": k}}) + "\n")
            got = json.loads(await read_line(reader))
            assert got["data"] == {"pair": i, "k": k}
            writer.write(f"message:{i}:{k}\n".encode())
            await writer.drain()
            assert await asyncio.wait_for(ws.recv(), 10) == f"message:{i}:{k}\n"
            k += 1
        writer.close()
        await ws.close()
        return k

    rounds = await asyncio.wait_for(asyncio.gather(*(pair(i) for i in range(50))), 30)
    assert proxy.pairs == 50
    assert min(rounds) >= 5, f"some pair starved: {sorted(rounds)[:5]}"


async def test_agent_that_vanishes_is_reported_to_the_world(proxy):
    _, writer = await agent(proxy, "ghost")
    ws = await world(proxy, "ghost")
    assert await asyncio.wait_for(ws.recv(), 5) == CONNECTED
    writer.transport.abort()
    assert await asyncio.wait_for(ws.recv(), 5) == DISCONNECTED


async def test_world_that_vanishes_is_reported_to_the_agent(proxy):
    reader, _ = await agent(proxy, "orphan")
    ws = await world(proxy, "orphan")
    assert await asyncio.wait_for(ws.recv(), 5) == CONNECTED
    ws.transport.abort()  # no close handshake: the process died
    line = json.loads(await read_line(reader))
    assert line == {"header": "error", "data": WORLD_CLOSED}
    assert await asyncio.wait_for(reader.read(), 5) == b""


async def test_unpaired_peers_that_vanish_leave_no_slot(proxy):
    _, writer = await agent(proxy, "lonely")
    ws = await world(proxy, "other")
    await asyncio.sleep(0.1)
    assert proxy.waiting_count() == 2
    writer.close()
    await ws.close()
    for _ in range(50):
        if proxy.waiting_count() == 0:
            break
        await asyncio.sleep(0.02)
    assert proxy.waiting_count() == 0
    # a fresh pair with the same magic still works
    _, writer = await agent(proxy, "lonely")
    ws = await world(proxy, "lonely")
    assert await asyncio.wait_for(ws.recv(), 5) == CONNECTED
    writer.close()


async def test_send_before_connect_and_garbage_get_errors_then_connect_works(proxy):
    reader, writer = await agent(proxy)
    writer.write(b"north\n")
    await writer.drain()
    err = json.loads(await read_line(reader))
    assert err["header"] == "error" and "CONNECT:<magic string>" in err["data"]
    writer.write(b"\xff\xfe\x00garbage\x9c\n")
    await writer.drain()
    assert "expected CONNECT" in json.loads(await read_line(reader))["data"]
    writer.write(b"CONNECT:late\n")
    await writer.drain()
    await asyncio.sleep(0.05)
    writer.write(b"south\n")  # paired with nobody yet
    await writer.drain()
    assert "still waiting" in json.loads(await read_line(reader))["data"]
    ws = await world(proxy, "late")
    assert await asyncio.wait_for(ws.recv(), 5) == CONNECTED
    await ws.send("hello\n")
    assert await read_line(reader) == "hello\n"


async def test_world_side_garbage_and_plain_http_do_not_break_the_proxy(proxy):
    ws = await ws_connect(f"ws://127.0.0.1:{proxy.port}/")
    await ws.send("nonsense")
    assert (await asyncio.wait_for(ws.recv(), 5)).startswith("_ERROR_:expected CONNECT")
    await ws.send(b"\x00\x01binary")
    assert (await asyncio.wait_for(ws.recv(), 5)).startswith("_ERROR_:")
    reader, writer = await asyncio.open_connection("127.0.0.1", proxy.port)
    writer.write(b"GET / HTTP/1.1\r\nHost: x\r\n\r\n")  # HTTP, but no WebSocket upgrade
    await writer.drain()
    reply = await asyncio.wait_for(reader.read(), 5)
    assert reply.startswith(b"HTTP/1.1 426")
    reader, writer = await asyncio.open_connection("127.0.0.1", proxy.port)
    writer.write(b"GET garbage\r\n\r\n")  # not even HTTP: answered at once, not after a timeout
    await writer.drain()
    reply = await asyncio.wait_for(reader.read(), 2)
    assert reply.startswith(b"HTTP/1.1 400") and b"not a WebSocket handshake" in reply
    _, alive = await agent(proxy, "still-alive")
    await ws.send("CONNECT:still-alive")
    assert await asyncio.wait_for(ws.recv(), 5) == CONNECTED
    alive.close()


async def test_without_forwarding_only_the_agent_speaks():
    quiet = await Proxy(port=0, forward_to_agent=False).start()
    reader, writer = await agent(quiet, "mute")
    ws = await world(quiet, "mute")
    assert await asyncio.wait_for(ws.recv(), 5) == CONNECTED
    await ws.send("a percept nobody should see\n")
    writer.write(b"north\n")
    await writer.drain()
    assert await asyncio.wait_for(ws.recv(), 5) == "north\n"
    with pytest.raises(asyncio.TimeoutError):
        await asyncio.wait_for(reader.readline(), 0.3)
    writer.close()
    await ws.close()
    await quiet.close()


async def test_text_after_connect_in_the_same_chunk_is_relayed_once_paired_or_refused():
    proxy_ = await Proxy(port=0).start()
    ws = await world(proxy_, "eager")
    _, writer = await asyncio.open_connection("127.0.0.1", proxy_.port)
    writer.write(b"CONNECT:eager\nnorth\n")
    await writer.drain()
    assert await asyncio.wait_for(ws.recv(), 5) == CONNECTED
    assert await asyncio.wait_for(ws.recv(), 5) == "north\n"
    r2, w2 = await asyncio.open_connection("127.0.0.1", proxy_.port)
    w2.write(b"CONNECT:early-bird\nsouth\n")  # nobody to relay to yet
    await w2.drain()
    assert "still waiting" in json.loads(await read_line(r2))["data"]
    for w in (writer, w2):
        w.close()
    await ws.close()
    await proxy_.close()


async def test_a_full_proxy_says_so_and_frees_slots_as_peers_leave():
    small = await Proxy(port=0, max_connections=2).start()
    first = await agent(small, "a")
    second = await agent(small, "b")
    reader, _ = await agent(small)
    assert "the proxy is full (2 connections)" in json.loads(await read_line(reader))["data"]
    first[1].close()
    second[1].close()
    for _ in range(50):
        if small.connections == 0:
            break
        await asyncio.sleep(0.02)
    _, w = await agent(small, "c")
    ws = await world(small, "c")
    assert await asyncio.wait_for(ws.recv(), 5) == CONNECTED
    w.close()
    await ws.close()
    await small.close()
