"""The client side of the WebSocket binding (``ws://host:port/ws`` beside a server's URL): one
persistent connection per remote object, each query one message, answered in order.

The WebSocket protocol itself (handshake, framing, masking, pings, closing) is the
``websockets`` library's Sans-I/O :class:`~websockets.client.ClientProtocol`; this module feeds
it from an asyncio connection. Pipelining, time-outs and cancelled callers are
:mod:`.persistent`'s, as for the TCP binding.

It replaced aiohttp's WebSocket client here, which cost about twice the CPU per query
(an ``asyncio.timeout`` and a lock per exchange, an awaited send, aiohttp's reader queue).
"""

from __future__ import annotations

import asyncio
import ssl

from websockets.client import ClientProtocol
from websockets.exceptions import InvalidURI, WebSocketException
from websockets.frames import Frame, Opcode
from websockets.http11 import Response as HandshakeResponse
from websockets.protocol import State
from websockets.uri import parse_uri

from .persistent import Connection, PersistentTransport
from .transport import DEFAULT_TIMEOUT

_DATA = (Opcode.BINARY, Opcode.TEXT, Opcode.CONT)


class Messages(Connection):
    """One WebSocket connection: messages in, each handed to the oldest waiting asker."""

    def __init__(self, protocol: ClientProtocol) -> None:
        super().__init__()
        self.ws = protocol
        self.handshake: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self.fragments: list[bytes] = []

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        super().connection_made(transport)
        self.ws.send_request(self.ws.connect())
        self._flush()

    def data_received(self, data: bytes) -> None:
        ws = self.ws
        ws.receive_data(data)
        for event in ws.events_received():
            if isinstance(event, Frame):
                if event.opcode not in _DATA:
                    continue  # pings are answered by the protocol (flushed below)
                if not event.fin:  # a message in fragments: kept until its last
                    self.fragments.append(bytes(event.data))
                elif self.fragments:
                    self.fragments.append(bytes(event.data))
                    message, self.fragments = b"".join(self.fragments), []
                    self.deliver(message)
                else:
                    self.deliver(bytes(event.data))
            elif isinstance(event, HandshakeResponse):
                self._set_handshake(ws.handshake_exc)
        self._flush()  # pongs, and the reply to a close
        if ws.state is State.CLOSED or ws.close_rcvd is not None:
            self.fail(ConnectionResetError(f"the server closed the WebSocket ({ws.close_rcvd or 'no close frame'})"))

    def frame(self, payloads: list[bytes]) -> bytes:
        for payload in payloads:
            self.ws.send_binary(payload)
        return b"".join(self.ws.data_to_send())

    def connection_lost(self, exc: Exception | None) -> None:
        self._set_handshake(exc or ConnectionResetError("the server closed the connection"))
        super().connection_lost(exc)

    def _set_handshake(self, exc: BaseException | None) -> None:
        if not self.handshake.done():
            if exc is None:
                self.handshake.set_result(None)
            else:
                self.handshake.set_exception(exc)

    def _flush(self) -> None:
        pending = self.ws.data_to_send()
        if pending and self.transport is not None and not self.transport.is_closing():
            self.transport.write(b"".join(pending))

    def close(self) -> None:
        """Say goodbye (a close frame) and close; queries still waiting fail."""
        if self.transport is not None and not self.transport.is_closing() and self.ws.state is State.OPEN:
            self.ws.send_close()
            self._flush()
        super().close()


class WebSocketTransport(PersistentTransport):
    """One persistent WebSocket per remote object (``ws://host:port/ws``)."""

    accepts = "a WebSocket"
    failures = (OSError, WebSocketException)

    def __init__(self, url: str, *, encoding: str = "json", timeout: float | None = DEFAULT_TIMEOUT) -> None:
        super().__init__(url, _ws_url(url), encoding=encoding, timeout=timeout)
        self.ws_url = self.address

    async def open(self, timeout: float | None) -> Messages:
        try:
            uri = parse_uri(self.address)
        except InvalidURI as exc:
            raise OSError(f"not a WebSocket URL: {exc}") from None
        protocol = ClientProtocol(uri, max_size=None)
        context = ssl.create_default_context() if uri.secure else None
        conn: Messages | None = None
        try:
            _, conn = await asyncio.get_running_loop().create_connection(
                lambda: Messages(protocol), uri.host, uri.port, ssl=context)
            await conn.handshake
        except BaseException:
            if conn is not None:
                conn.fail(ConnectionResetError("the WebSocket was not opened"))
            raise
        return conn


def _ws_url(url: str) -> str:
    base = url.rstrip("/")
    base = base.replace("https://", "wss://", 1).replace("http://", "ws://", 1)
    return base if base.endswith("/ws") else base + "/ws"
