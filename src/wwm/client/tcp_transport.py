"""The client side of the TCP binding (:mod:`wwm.server.tcp`): one persistent connection,
length-prefixed frames (a 4-byte big-endian length, then the message), answered in order.
Pipelining, time-outs and cancelled callers are :mod:`.persistent`'s, as for the WebSocket
binding; this is the framing.
"""

from __future__ import annotations

import asyncio
import struct
from urllib.parse import urlsplit

from ..protocol.errors import Refusal
from . import cards
from .persistent import Connection, PersistentTransport
from .transport import DEFAULT_TIMEOUT

HEADER = struct.Struct(">I")


class Frames(Connection):
    """One TCP connection: length-prefixed frames in, each handed to the oldest waiting asker."""

    def __init__(self) -> None:
        super().__init__()
        self.buffer = bytearray()

    def data_received(self, data: bytes) -> None:
        buffer = self.buffer
        if not buffer and not self.closed:  # the usual read: one whole answer
            (length,) = HEADER.unpack_from(data) if len(data) >= 4 else (-1,)
            if len(data) == 4 + length:
                self.deliver(data[4:])
                return
        buffer += data
        while len(buffer) >= 4 and not self.closed:
            (length,) = HEADER.unpack_from(buffer)
            if len(buffer) < 4 + length:
                return
            frame = bytes(buffer[4:4 + length])
            del buffer[:4 + length]
            self.deliver(frame)

    def frame_one(self, payload: bytes) -> bytes:
        return HEADER.pack(len(payload)) + payload

    def frame(self, payloads: list[bytes]) -> bytes:
        if len(payloads) == 1:
            return self.frame_one(payloads[0])
        return b"".join(HEADER.pack(len(p)) + p for p in payloads)


class TcpTransport(PersistentTransport):
    """``tcp://host:port`` (the ``tcp`` URL a server's card announces), or the server's own
    http(s) URL, whose card is read for it when the connection is first opened (in the event
    loop, never blocking it); ``server_url`` is the server's own URL, when known, to name it by."""

    def __init__(self, url: str, *, encoding: str = "json", timeout: float | None = DEFAULT_TIMEOUT,
                 server_url: str | None = None) -> None:
        parts = urlsplit(url)
        self.host: str | None = None
        self.port: int | None = None
        if parts.scheme in ("http", "https"):
            server_url = server_url or url
        elif parts.scheme != "tcp" or not parts.port:
            raise ValueError(f"a TCP binding URL looks like tcp://host:port, not {url!r}")
        else:
            self.host, self.port = parts.hostname or "127.0.0.1", parts.port
        super().__init__(server_url or url, server_url or url, encoding=encoding, timeout=timeout)

    async def _open(self, timeout: float | None) -> Connection:
        if self.host is None or self.port is None:  # (the card has a time-out of its own)
            await self._find_binding()
        return await super()._open(timeout)

    async def open(self, timeout: float | None) -> Frames:
        assert self.host is not None and self.port is not None
        _, conn = await asyncio.get_running_loop().create_connection(Frames, self.host, self.port)
        return conn

    async def _find_binding(self) -> None:
        """The host and port of the TCP binding the server's card announces."""
        card = await cards.fetch_card(self.url)
        bindings = card.get("bindings")
        tcp_url = bindings.get("tcp") if isinstance(bindings, dict) else None
        parts = urlsplit(tcp_url) if isinstance(tcp_url, str) else None
        if parts is None or parts.scheme != "tcp" or not parts.port:
            raise Refusal("unsupported-query", f"{self.url} offers no TCP binding (serve it with --tcp-port)")
        self.host, self.port = parts.hostname or "127.0.0.1", parts.port
