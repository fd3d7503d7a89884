"""A lean HTTP/1.1 keep-alive client for queries: POST a body, read a Content-Length or
chunked response. It exists because a query is tiny and the general clients' per-request CPU
dominates a fast run (measured in ``benchmarks/network.py``: aiohttp ~240 µs of client CPU
per request here, this ~60 µs). It speaks only what a WWM query needs; anything else (GET
pages, WebSocket) goes through aiohttp.

One connection carries one request at a time; a small pool opens another when all are busy
(an AS server asking the same mind twice at once), and drops a connection that timed out or
broke, since its next bytes could belong to the abandoned request.
"""

from __future__ import annotations

import asyncio
from urllib.parse import urlsplit


class HttpError(Exception):
    """The server's reply was not a readable HTTP/1.1 response."""


class _Connection(asyncio.Protocol):
    def __init__(self) -> None:
        self.transport: asyncio.Transport | None = None
        self.buffer = bytearray()
        self.waiter: asyncio.Future | None = None
        self.closed = False
        self.answered_bytes = 0  # bytes received for the request in flight

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport  # type: ignore[assignment]

    def data_received(self, data: bytes) -> None:
        self.answered_bytes += len(data)
        self.buffer += data
        if self.waiter is not None and not self.waiter.done():
            self._try_complete()

    def connection_lost(self, exc: Exception | None) -> None:
        self.closed = True
        if self.waiter is not None and not self.waiter.done():
            self.waiter.set_exception(ConnectionResetError("the server closed the connection"))

    def _try_complete(self) -> None:
        end = self.buffer.find(b"\r\n\r\n")
        if end < 0:
            return
        head = bytes(self.buffer[:end]).decode("latin-1")
        lines = head.split("\r\n")
        try:
            status = int(lines[0].split(" ", 2)[1])
        except (IndexError, ValueError):
            self.waiter.set_exception(HttpError(f"bad status line {lines[0]!r}"))
            return
        headers = {}
        for line in lines[1:]:
            key, _, value = line.partition(":")
            headers[key.strip().lower()] = value.strip()
        start = end + 4
        if "content-length" in headers:
            length = int(headers["content-length"])
            if len(self.buffer) - start < length:
                return
            body = bytes(self.buffer[start:start + length])
            del self.buffer[:start + length]
        elif headers.get("transfer-encoding", "").lower() == "chunked":
            body, used = _dechunk(self.buffer, start)
            if body is None:
                return
            del self.buffer[:used]
        else:
            self.waiter.set_exception(HttpError("response without Content-Length or chunked encoding"))
            return
        if headers.get("connection", "").lower() == "close":
            self.closed = True
        self.waiter.set_result((status, headers, body))

    async def request(self, payload: bytes) -> tuple[int, dict[str, str], bytes]:
        self.answered_bytes = 0
        self.waiter = asyncio.get_running_loop().create_future()
        self.transport.write(payload)
        if self.buffer:
            self._try_complete()
        try:
            return await self.waiter
        finally:
            self.waiter = None

    def close(self) -> None:
        self.closed = True
        if self.transport is not None:
            self.transport.close()


def _dechunk(buffer: bytearray, start: int) -> tuple[bytes | None, int]:
    out = bytearray()
    pos = start
    while True:
        line_end = buffer.find(b"\r\n", pos)
        if line_end < 0:
            return None, 0
        size = int(bytes(buffer[pos:line_end]).split(b";")[0], 16)
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
    """POST to one URL over a pool of keep-alive connections."""

    def __init__(self, url: str, content_type: str) -> None:
        parts = urlsplit(url)
        if parts.scheme != "http":
            raise ValueError(f"the lean client speaks plain http://, not {parts.scheme}://")
        self.host = parts.hostname or "127.0.0.1"
        self.port = parts.port or 80
        path = parts.path or "/"
        if parts.query:
            path += "?" + parts.query
        self._head = (f"POST {path} HTTP/1.1\r\nHost: {parts.netloc}\r\nContent-Type: {content_type}\r\n"
                      f"Accept: {content_type}\r\nContent-Length: ").encode("latin-1")
        self._idle: list[_Connection] = []

    async def post(self, body: bytes) -> tuple[int, dict[str, str], bytes]:
        payload = self._head + str(len(body)).encode() + b"\r\n\r\n" + body
        connection = self._pooled()
        if connection is not None:
            try:
                return await self._send(connection, payload)
            except ConnectionResetError:
                # A kept-alive connection the server dropped (it restarted, or closed an idle
                # connection) before any byte of an answer: the request never reached a live
                # server process, so it is sent once more on a fresh connection.
                if connection.answered_bytes:
                    raise
        loop = asyncio.get_running_loop()
        _, connection = await loop.create_connection(_Connection, self.host, self.port)
        return await self._send(connection, payload)

    def _pooled(self) -> _Connection | None:
        while self._idle:
            candidate = self._idle.pop()
            if not candidate.closed:
                return candidate
        return None

    async def _send(self, connection: _Connection, payload: bytes) -> tuple[int, dict[str, str], bytes]:
        try:
            reply = await connection.request(payload)
        except BaseException:
            connection.close()  # a timed-out or broken connection is never reused
            raise
        if not connection.closed:
            self._idle.append(connection)
        return reply

    def close(self) -> None:
        for connection in self._idle:
            connection.close()
        self._idle.clear()
