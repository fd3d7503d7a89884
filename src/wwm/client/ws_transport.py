"""The client side of the WebSocket binding (``ws://host:port/ws`` beside a server's URL): one
persistent connection per remote object, each query one message, answered in order.

The WebSocket protocol (handshake, reading frames, pongs, closing) is picows's
(:func:`picows.ws_connect`, written in Cython); :class:`Messages` is its listener, handed each
frame read. Queries are framed here, as :class:`~.persistent.Connection` asks (the bytes of
several messages at once, for the persistent transport to write): a binary frame's header and
a fresh mask, the payload masked by websockets' C ``apply_mask``. Pipelining, time-outs and
cancelled callers are :mod:`.persistent`'s, as for the TCP binding.

With websockets' Sans-I/O protocol here (a generator-based parser and frame writer) the
client spent 60 µs of CPU per query between processes; with picows 47-50, no more than the
TCP binding's 48-56 in the same runs (``benchmarks/network.py --only bindings``).
"""

from __future__ import annotations

import logging
import os
import struct
from typing import cast

from picows import WSCloseCode, WSError, WSFrame, WSListener, WSMsgType, WSTransport, ws_connect
from websockets.speedups import apply_mask

from .persistent import Connection, PersistentTransport
from .transport import DEFAULT_TIMEOUT

_TEXT, _BINARY, _CONT, _CLOSE = WSMsgType.TEXT, WSMsgType.BINARY, WSMsgType.CONTINUATION, WSMsgType.CLOSE
_MEDIUM = struct.Struct(">BBH")  # a header with a 16-bit length
_LARGE = struct.Struct(">BBQ")  # with a 64-bit length
_FIN_BINARY, _MASKED = 0x82, 0x80
_SMALL = [bytes((_FIN_BINARY, _MASKED | size)) for size in range(126)]  # the headers with a 7-bit length
_MASKS = 4096  # bytes of masks drawn from the system's random source at a time
log = logging.getLogger("wwm.client.ws")


class Messages(Connection, WSListener):
    """One WebSocket connection: messages in, each handed to the oldest waiting asker."""

    def __init__(self) -> None:
        Connection.__init__(self)
        self.ws: WSTransport | None = None
        self.fragments: list[bytes] = []
        self.masks = b""
        self.at = _MASKS

    def on_ws_connected(self, transport: WSTransport) -> None:
        self.ws = transport
        self.connection_made(transport.underlying_transport)

    def on_ws_disconnected(self, transport: WSTransport) -> None:
        self.connection_lost(None)

    def on_ws_frame(self, transport: WSTransport, frame: WSFrame) -> None:
        kind = frame.msg_type
        if kind is _BINARY or kind is _TEXT or kind is _CONT:
            if not frame.fin:  # a message in fragments: kept until its last
                self.fragments.append(frame.get_payload_as_bytes())
            elif self.fragments:
                self.fragments.append(frame.get_payload_as_bytes())
                message, self.fragments = b"".join(self.fragments), []
                self.deliver(message)
            else:
                self.deliver(frame.get_payload_as_bytes())
        elif kind is _CLOSE:  # (pings are answered by picows)
            code, reason = frame.get_close_code(), frame.get_close_reason()
            transport.send_close(WSCloseCode.OK if code == WSCloseCode.NO_INFO else code)
            said = f"{code.value} {reason}" if reason else str(code.value)
            self.fail(ConnectionResetError(f"the server closed the WebSocket ({said})"))

    def frame(self, payloads: list[bytes]) -> bytes:
        if len(payloads) == 1:
            return self._frame(payloads[0])
        return b"".join([self._frame(p) for p in payloads])

    def frame_one(self, payload: bytes) -> bytes:
        return self._frame(payload)

    def _frame(self, payload: bytes) -> bytes:
        """One binary message's frame: header, mask, masked payload (RFC 6455 section 5.2)."""
        at = self.at
        if at >= _MASKS:  # masks must be unpredictable (section 10.3): drawn in bulk, used once
            self.masks, at = os.urandom(_MASKS), 0
        mask = self.masks[at:at + 4]
        self.at = at + 4
        size = len(payload)
        if size < 126:
            return _SMALL[size] + mask + apply_mask(payload, mask)
        if size < 65536:
            return _MEDIUM.pack(_FIN_BINARY, _MASKED | 126, size) + mask + apply_mask(payload, mask)
        return _LARGE.pack(_FIN_BINARY, _MASKED | 127, size) + mask + apply_mask(payload, mask)

    def close(self) -> None:
        """Say goodbye (a close frame) and close; queries still waiting fail."""
        if self.ws is not None and not self.ws.is_disconnected:
            self.ws.send_close(WSCloseCode.OK)
        super().close()


class WebSocketTransport(PersistentTransport):
    """One persistent WebSocket per remote object (``ws://host:port/ws``)."""

    accepts = "a WebSocket"
    failures = (OSError, WSError)

    def __init__(self, url: str, *, encoding: str = "json", timeout: float | None = DEFAULT_TIMEOUT) -> None:
        super().__init__(url, _ws_url(url), encoding=encoding, timeout=timeout)
        self.ws_url = self.address

    async def open(self, timeout: float | None) -> Messages:
        # picows's own handshake time-out closes the connection when the caller's time-out
        # (around this) gives up on it; no redirects, no largest frame (answers of any size)
        _, conn = await ws_connect(
            lambda *_: Messages(), self.address, websocket_handshake_timeout=timeout,
            max_redirects=0, max_frame_size=1 << 62, logger_name=log, use_aiofastnet=False)
        return cast(Messages, conn)


def _ws_url(url: str) -> str:
    base = url.rstrip("/")
    base = base.replace("https://", "wss://", 1).replace("http://", "ws://", 1)
    return base if base.endswith("/ws") else base + "/ws"
