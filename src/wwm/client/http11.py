"""A lean HTTP/1.1 keep-alive client for queries: POST a body, read a Content-Length or
chunked response. It exists because a query is tiny and the general clients' per-request CPU
dominates a fast run (measured in ``benchmarks/network.py``: aiohttp ~240 µs of client CPU
per request here, this ~60 µs). It speaks only what a WWM query needs; anything else (GET
pages, WebSocket) goes through aiohttp.

A pool keeps idle connections; concurrent requests (an AS server asking the same mind twice
at once) each take one or open another. A caller that wants several queries answered in
order in one round trip writes them back to back on one connection (:meth:`post_in_order`,
HTTP/1.1 pipelining). A connection that timed out or broke is dropped, since its next bytes
could belong to the abandoned request.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from urllib.parse import urlsplit

from .pipeline import Pipeline, shortest

Reply = tuple[int, dict[str, str], bytes]  # status, headers (lower-cased names), body


class HttpError(Exception):
    """The server's reply was not a readable HTTP/1.1 response."""


class _Connection(Pipeline[Reply]):
    """One keep-alive connection; replies are handed to askers first in, first out, so
    requests written back to back (pipelined) each get their own."""

    def __init__(self) -> None:
        super().__init__()
        self.buffer = bytearray()
        self.answered_bytes = 0  # bytes received since the last requests were written

    def data_received(self, data: bytes) -> None:
        self.answered_bytes += len(data)
        self.buffer += data
        while self.waiters and self.buffer:
            try:
                reply = _parse(self.buffer)
            except HttpError as exc:
                self.fail(exc)
                return
            if reply is None:
                return
            self.deliver(reply)
            if reply[1].get("connection", "").lower() == "close":
                self.fail(ConnectionResetError("the server closed the connection"))
                return
        if self.buffer and not self.waiters:
            # Bytes after the last answer asked for: kept, they would be read as the next
            # request's answer, so the connection goes.
            self.fail(HttpError("the server sent bytes no request asked for"))

    def send(self, payloads: list[bytes]) -> list[asyncio.Future[Reply]]:
        """Write these requests in one write; a future for each one's reply."""
        self.answered_bytes = 0
        return self.send_all(b"".join(payloads), len(payloads))

    @property
    def idle(self) -> bool:
        return not self.closed and not self.waiters


def _parse(buffer: bytearray) -> Reply | None:
    """Take one whole response off the front of ``buffer``; None while it is incomplete."""
    end = buffer.find(b"\r\n\r\n")
    if end < 0:
        return None
    lines = bytes(buffer[:end]).decode("latin-1").split("\r\n")
    try:
        status = int(lines[0].split(" ", 2)[1])
    except (IndexError, ValueError):
        raise HttpError(f"bad status line {lines[0]!r}") from None
    headers = {}
    for line in lines[1:]:
        key, _, value = line.partition(":")
        headers[key.strip().lower()] = value.strip()
    start = end + 4
    if "content-length" in headers:
        try:
            length = int(headers["content-length"])
        except ValueError:
            raise HttpError(f"bad Content-Length {headers['content-length']!r}") from None
        if length < 0:
            raise HttpError(f"bad Content-Length {headers['content-length']!r}")
        if len(buffer) - start < length:
            return None
        body = bytes(buffer[start:start + length])
        del buffer[:start + length]
    elif headers.get("transfer-encoding", "").lower() == "chunked":
        try:
            chunked, used = _dechunk(buffer, start)
        except ValueError:
            raise HttpError("bad chunk size in a chunked response") from None
        if chunked is None:
            return None
        body = chunked
        del buffer[:used]
    else:
        raise HttpError("response without Content-Length or chunked encoding")
    return status, headers, body


def _dechunk(buffer: bytearray, start: int) -> tuple[bytes | None, int]:
    out = bytearray()
    pos = start
    while True:
        line_end = buffer.find(b"\r\n", pos)
        if line_end < 0:
            return None, 0
        size = int(bytes(buffer[pos:line_end]).split(b";")[0], 16)
        if size < 0:  # (int() takes a sign; a negative size would walk back over the buffer)
            raise ValueError(size)
        pos = line_end + 2
        if size == 0:
            trailer_end = buffer.find(b"\r\n", pos)
            if trailer_end < 0:
                return None, 0
            return bytes(out), trailer_end + 2
        if len(buffer) < pos + size + 2:
            return None, 0
        out += buffer[pos:pos + size]
        pos += size + 2


class Http11Client:
    """POST to one URL over a pool of keep-alive connections. ``timeout`` (seconds) bounds
    each answer; a connection whose answer timed out is closed, never reused."""

    def __init__(self, url: str, content_type: str, timeout: float | None = None) -> None:
        parts = urlsplit(url)
        if parts.scheme != "http":
            raise ValueError(f"the lean client speaks plain http://, not {parts.scheme}://")
        self.host = parts.hostname or "127.0.0.1"
        self.port = parts.port or 80
        self.timeout = timeout
        path = parts.path or "/"
        if parts.query:
            path += "?" + parts.query
        self._start = f"POST {path} HTTP/1.1\r\nHost: {parts.netloc}\r\n"
        self.speak(content_type)
        self._idle: list[_Connection] = []
        self._closings = 0  # how often close() was called: a connection busy then is not pooled

    def speak(self, content_type: str) -> None:
        """Send (and accept) ``content_type`` from the next request on."""
        self._head = (f"{self._start}Content-Type: {content_type}\r\n"
                      f"Accept: {content_type}\r\nContent-Length: ").encode("latin-1")

    def _request(self, body: bytes) -> bytes:
        return self._head + str(len(body)).encode() + b"\r\n\r\n" + body

    async def post(self, body: bytes) -> Reply:
        """One request on an idle kept-alive connection (or a new one)."""
        (reply,) = await self.post_in_order([body])
        if isinstance(reply, BaseException):
            raise reply
        return reply

    async def post_in_order(self, bodies: Sequence[bytes], *, within: float | None = None
                            ) -> list[Reply | Exception]:
        """Write these requests back to back on one connection (HTTP/1.1 pipelining: the
        server answers them in order) and return each one's reply, or the exception that
        ended it: a failure fails the request it hit and every one after it. ``within``
        shortens the client's time-out for these replies."""
        timeout = shortest(self.timeout, within)
        payloads = [self._request(body) for body in bodies]
        connection = self._pooled()
        if connection is not None:
            replies = await self._send(connection, payloads, timeout)
            # A kept-alive connection the server dropped (it restarted, or closed an idle
            # connection) before any byte of an answer: the requests never reached a live
            # server process, so they are sent once more on a fresh connection.
            if not (isinstance(replies[0], ConnectionResetError) and not connection.answered_bytes):
                return replies
        connection = await self._connect(timeout)
        return await self._send(connection, payloads, timeout)

    async def _connect(self, timeout: float | None) -> _Connection:
        loop = asyncio.get_running_loop()
        connecting = loop.create_connection(_Connection, self.host, self.port)
        if timeout is None:
            _, connection = await connecting
        else:
            async with asyncio.timeout(timeout):
                _, connection = await connecting
        return connection

    def _pooled(self) -> _Connection | None:
        while self._idle:
            candidate = self._idle.pop()
            if candidate.idle:
                return candidate
        return None

    async def _send(self, connection: _Connection, payloads: list[bytes], timeout: float | None
                    ) -> list[Reply | Exception]:
        closings = self._closings
        waiters = connection.send(payloads)
        replies: list[Reply | Exception] = []
        try:
            for waiter in waiters:
                try:
                    replies.append(await connection.answer(waiter, timeout))
                except Exception as exc:  # noqa: BLE001 - handed back to the caller with its reply slot
                    # A timed-out or broken exchange: the connection is never reused, since its
                    # next bytes could belong to the abandoned request; what was queued behind
                    # it fails the same way.
                    connection.fail(exc)
                    replies.append(exc)
        except BaseException:  # cancelled: the caller gave up on these requests
            for waiter in waiters:
                waiter.cancel()
            connection.fail(ConnectionResetError("the request was abandoned"))
            raise
        if self._closings != closings:  # close() was called while these were in flight
            connection.fail(ConnectionResetError("the client was closed"))
        elif connection.idle:
            self._idle.append(connection)
        return replies

    def close(self) -> None:
        """Close the idle connections, and each busy one when its replies are in. The client
        may still be used afterwards: it opens connections anew."""
        self._closings += 1
        for connection in self._idle:
            connection.fail(ConnectionResetError("the client was closed"))
        self._idle.clear()
