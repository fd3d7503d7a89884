"""The lean HTTP/1.1 client against servers that answer in the other shapes HTTP allows:
chunked bodies, several replies in one read, replies cut at any byte, and broken replies."""

from __future__ import annotations

import asyncio

import pytest

from wwm.client.http11 import Http11Client, HttpError
from wwm.client.transport import HttpTransport
from wwm.protocol.errors import Refusal
from wwm.protocol.messages import Query


def chunked(body: bytes, pieces: int = 3) -> bytes:
    size = max(1, len(body) // pieces)
    parts = [body[i:i + size] for i in range(0, len(body), size)]
    return (b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n"
            + b"".join(b"%x;ext=1\r\n%s\r\n" % (len(p), p) for p in parts) + b"0\r\n\r\n")


def sized(body: bytes) -> bytes:
    return b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n" % len(body) + body


async def serve(answer, *, dribble: bool = False):
    """A server that answers the n-th request with answer(n) (bytes, or a list of bytes
    written 50 ms apart); with ``dribble`` every byte of the answer goes in its own write."""
    count = 0

    async def handle(reader, writer):
        nonlocal count
        while True:
            try:
                head = await reader.readuntil(b"\r\n\r\n")
            except (asyncio.IncompleteReadError, ConnectionError):
                break
            length = int(next(line for line in head.split(b"\r\n") if line.lower().startswith(b"content-length"))
                         .split(b":")[1])
            await reader.readexactly(length)
            count += 1
            data = answer(count)
            if isinstance(data, list):
                for i, part in enumerate(data):
                    if i:
                        await asyncio.sleep(0.05)
                    writer.write(part)
                    await writer.drain()
            elif dribble:
                for i in range(len(data)):
                    writer.write(data[i:i + 1])
                    await writer.drain()
                    await asyncio.sleep(0)
            else:
                writer.write(data)
        writer.close()

    server = await asyncio.start_server(handle, "127.0.0.1", 0)
    return server, f"http://127.0.0.1:{server.sockets[0].getsockname()[1]}/"


@pytest.mark.parametrize("dribble", [False, True])
async def test_pipelined_chunked_and_sized_replies_each_reach_their_request(dribble):
    server, url = await serve(lambda n: (chunked if n % 2 else sized)(b'{"n": %d, "pad": "%s"}' % (n, b"x" * n)),
                              dribble=dribble)
    client = Http11Client(url, "application/json", timeout=5)
    try:
        replies = await client.post_in_order([b"{}"] * 5)
        again = await client.post(b"{}")
    finally:
        client.close()
        server.close()
    expected = [b'{"n": %d, "pad": "%s"}' % (n, b"x" * n) for n in range(1, 6)]
    assert [body for _status, _headers, body in replies] == expected
    assert again[2].startswith(b'{"n": 6')


@pytest.mark.parametrize("reply, words", [
    (b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nabc\r\n0\r\n\r\n", "bad chunk size"),
    (b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n\r\n{}", "without Content-Length"),
    (b"garbage\r\n\r\n", "bad status line"),
    (b"HTTP/1.1 200 OK\r\nContent-Length: many\r\n\r\n", "bad Content-Length"),
])
async def test_a_broken_reply_is_a_clear_error_not_a_hang(reply, words):
    server, url = await serve(lambda n: reply)
    client = Http11Client(url, "application/json", timeout=5)
    try:
        with pytest.raises(HttpError, match=words):
            await asyncio.wait_for(client.post(b"{}"), 3)
        transport = HttpTransport(url, timeout=5)
        with pytest.raises(Refusal) as refused:
            await asyncio.wait_for(transport.exchange(Query("Get state", {"world run ID": "r"})), 3)
        assert refused.value.code == "unreachable" and words in refused.value.text
        await transport.close()
    finally:
        client.close()
        server.close()


async def test_closing_the_client_while_a_request_is_in_flight_leaves_no_connection_open():
    async def slow(reader, writer):
        await reader.readuntil(b"\r\n\r\n")
        await reader.readexactly(2)
        await asyncio.sleep(0.2)
        writer.write(sized(b"{}"))
        await writer.drain()
        await reader.read()  # until the client closes its end
        closed.set()

    closed = asyncio.Event()
    server = await asyncio.start_server(slow, "127.0.0.1", 0)
    client = Http11Client(f"http://127.0.0.1:{server.sockets[0].getsockname()[1]}/", "application/json", timeout=5)
    try:
        request = asyncio.ensure_future(client.post(b"{}"))
        await asyncio.sleep(0.05)
        client.close()
        assert (await request)[2] == b"{}"           # the request in flight still gets its reply
        await asyncio.wait_for(closed.wait(), 3)     # and its connection is then closed, not pooled
        assert client._pooled() is None
    finally:
        server.close()


async def test_bytes_nobody_asked_for_never_answer_the_next_request():
    """A server that sends two replies to one request: the extra reply stayed in the pooled
    connection's buffer and was handed to the next request as its answer."""
    server, url = await serve(lambda n: [sized(b'{"n": %d}' % n), sized(b'{"extra": %d}' % n)])
    client = Http11Client(url, "application/json", timeout=5)
    try:
        first = await client.post(b"{}")
        await asyncio.sleep(0.2)  # the extra reply has arrived on the idle connection
        second = await client.post(b"{}")
    finally:
        client.close()
        server.close()
    assert first[2] == b'{"n": 1}'
    assert second[2] == b'{"n": 2}'
