"""The client side of the TCP binding (:mod:`wwm.server.tcp`): one persistent connection,
length-prefixed frames, one query in flight (a second caller waits its turn)."""

from __future__ import annotations

import asyncio
import struct
from urllib.parse import urlsplit

from ..protocol import jsoncodec, xmlcodec
from ..protocol.errors import Refusal
from ..protocol.messages import Query, Response

HEADER = struct.Struct(">I")


class _Framed(asyncio.Protocol):
    def __init__(self) -> None:
        self.buffer = bytearray()
        self.waiter: asyncio.Future | None = None
        self.transport: asyncio.Transport | None = None
        self.closed = False

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport  # type: ignore[assignment]

    def data_received(self, data: bytes) -> None:
        self.buffer += data
        if len(self.buffer) >= 4 and self.waiter is not None and not self.waiter.done():
            (length,) = HEADER.unpack_from(self.buffer)
            if len(self.buffer) >= 4 + length:
                frame = bytes(self.buffer[4:4 + length])
                del self.buffer[:4 + length]
                self.waiter.set_result(frame)

    def connection_lost(self, exc: Exception | None) -> None:
        self.closed = True
        if self.waiter is not None and not self.waiter.done():
            self.waiter.set_exception(ConnectionResetError("the server closed the connection"))


class TcpTransport:
    """``tcp://host:port`` (the ``tcp`` URL a server's card announces)."""

    def __init__(self, url: str, *, encoding: str = "json", timeout: float | None = 60.0,
                 server_url: str | None = None) -> None:
        parts = urlsplit(url)
        if parts.scheme != "tcp" or not parts.port:
            raise ValueError(f"a TCP binding URL looks like tcp://host:port, not {url!r}")
        self.host, self.port = parts.hostname or "127.0.0.1", parts.port
        self.url = server_url or url
        self.codec = jsoncodec if encoding == "json" else xmlcodec
        self.timeout = timeout
        self._conn: _Framed | None = None
        self._lock = asyncio.Lock()

    async def exchange(self, query: Query) -> Response:
        async with self._lock:
            try:
                async with asyncio.timeout(self.timeout):
                    if self._conn is None or self._conn.closed:
                        _, self._conn = await asyncio.get_running_loop().create_connection(
                            _Framed, self.host, self.port)
                    conn = self._conn
                    body = self.codec.encode(query)
                    conn.waiter = asyncio.get_running_loop().create_future()
                    conn.transport.write(HEADER.pack(len(body)) + body)
                    conn.data_received(b"")
                    frame = await conn.waiter
            except TimeoutError:
                self._drop()
                raise Refusal("timeout", f"{self.url} did not answer {query.name!r} within {self.timeout:g} s") from None
            except OSError as exc:
                self._drop()
                raise Refusal("unreachable", f"{self.url} could not be reached: {type(exc).__name__}: {exc}") from None
        from .transport import _response

        return _response(self.url, query, None, frame)

    def _drop(self) -> None:
        if self._conn is not None:
            if self._conn.transport is not None:
                self._conn.transport.close()
            self._conn = None

    async def close(self) -> None:
        self._drop()
