"""The WebSocket binding (``ws://host:port/ws``, on the server's own port): each message one
query, answered in its encoding and in kind (text for text, bytes for bytes), in order.

The WebSocket protocol itself (the opening handshake, framing, unmasking, pongs) is picows's
(:class:`picows.picows.WSProtocol`, written in Cython); the answering is the TCP binding's
(:class:`~.connection.InOrder`). Under uvicorn, :class:`WebSocketBinding` takes the connection
over from uvicorn's HTTP protocol at the upgrade (uvicorn's ``ws`` setting names the protocol
class to hand upgraded connections to; it hands over the upgrade request's bytes): no ASGI
event dicts, queue or task per message. With websockets' Sans-I/O protocol here the server
spent 53-57 µs of CPU per query between processes, with picows 42-43, less than the TCP
binding's 45-49 (``benchmarks/network.py --only bindings``: picows parses and unmasks in C and
writes with one ``send`` call). Servers that are not uvicorn (Granian) answer ``/ws`` through
the ASGI app (``ServerApp``) instead.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from picows import (
    WSAutoPingStrategy,
    WSCloseCode,
    WSFrame,
    WSListener,
    WSMsgType,
    WSTransport,
    WSUpgradeRequest,
    WSUpgradeResponse,
    WSUpgradeResponseWithListener,
)
from picows.picows import WSProtocol  # type: ignore[attr-defined]  # (what picows's own servers use)

from ..protocol import jsoncodec, limits
from ..protocol.errors import Refusal
from ..protocol.messages import Response
from .connection import InOrder
from .dispatch import Dispatcher
from .gate import Gate

log = logging.getLogger("wwm.server.ws")

PATH = "/ws"
MAX_MESSAGE = 16 * 1024 * 1024  # larger messages close the connection (1009); over max_body are refused
CLOSING_GRACE = 10.0  # seconds a client has to answer our close frame before the connection is cut
_TEXT, _BINARY, _CONT, _CLOSE = WSMsgType.TEXT, WSMsgType.BINARY, WSMsgType.CONTINUATION, WSMsgType.CLOSE


class Answers(InOrder, WSListener):
    """One client connection's messages, from the handshake on: each a query, answered in turn
    (picows calls it with each frame read)."""

    def __init__(self, dispatcher: Dispatcher, max_body: int, gate: Gate | None = None) -> None:
        InOrder.__init__(self, dispatcher, max_body, gate)
        self.ws: WSTransport | None = None
        self.fragments: list[bytes] = []
        self.fragments_text = False
        self.size = 0  # of the fragments kept
        self.closing: asyncio.TimerHandle | None = None  # set once our close frame is sent
        self.in_turn = 0  # messages answered at once from the buffer being read
        self.next_turn: asyncio.Handle | None = None  # the rest of a flood's, after the others' turn

    def on_ws_connected(self, transport: WSTransport) -> None:
        self.ws = transport
        self.connection_made(transport.underlying_transport)

    def on_ws_disconnected(self, transport: WSTransport) -> None:
        if self.closing is not None:
            self.closing.cancel()
        if self.next_turn is not None:
            self.next_turn.cancel()
        self.connection_lost(None)

    def refused_at_gate(self, text: str) -> None:
        if self.ws is not None:
            self.ws.send_close(WSCloseCode.TRY_AGAIN_LATER, text.encode()[:120])
            self.ws.disconnect()

    def on_ws_frame(self, transport: WSTransport, frame: WSFrame) -> None:
        if self.silence is not None:
            self.heard()
        kind = frame.msg_type
        if self.closing is not None:  # our close frame is sent: what follows is read and dropped
            if kind is _CLOSE:  # until the client's answers it (RFC 6455, 7.1.1)
                transport.disconnect()
            return
        if kind is _BINARY or kind is _TEXT:
            if frame.fin:
                message = frame.get_payload_as_bytes()
                if len(message) > self.max_body:
                    self._too_large(len(message), kind is _TEXT)
                elif self.in_turn < limits.TURN or self.messages or self.waiting:
                    self.in_turn += 1
                    self.received(message, kind is _TEXT)
                else:  # a turn's worth answered from this read: the rest after the others' turn
                    self.messages.append((message, kind is _TEXT, False))
            else:  # the first of a message in fragments: kept until its last
                self.fragments = [frame.get_payload_as_bytes()]
                self.fragments_text = kind is _TEXT
                self.size = frame.payload_size
        elif kind is _CONT:
            self._fragment(transport, frame)
        elif kind is _CLOSE:  # the client's goodbye: answered, then closed
            code = frame.get_close_code()
            transport.send_close(WSCloseCode.OK if code == WSCloseCode.NO_INFO else code)
            transport.disconnect()
            return
        if frame.last_in_buffer:
            self.in_turn = 0
            if self.messages and not self.waiting and self.next_turn is None:
                self._turn()

    def _turn(self) -> None:
        """Answer the messages waiting, a turn's worth (:data:`~wwm.protocol.limits.TURN`); the
        rest on the next turn of the event loop, reading paused meanwhile, so a client that
        floods is slowed, not the others."""
        self.next_turn = None
        messages = self.messages
        answered = 0
        while messages and self.open and not self.waiting and answered < limits.TURN:
            message, as_text, ready = messages.popleft()
            answered += 1
            if ready:
                self.write_answer(message, as_text)
            else:
                self._answer(message, as_text)
        if messages and self.open and not self.waiting:
            self.stop_reading("turn")
            self.next_turn = asyncio.get_running_loop().call_soon(self._turn)
            return
        self.read_on("turn")
        if len(messages) < limits.WAITING // 2:
            self.read_on("waiting")
        if not self.waiting:
            self._last_words()

    def _fragment(self, transport: WSTransport, frame: WSFrame) -> None:
        self.size += frame.payload_size
        if self.size > MAX_MESSAGE:
            self._close(transport, WSCloseCode.MESSAGE_TOO_BIG, f"a message over {MAX_MESSAGE} bytes")
            return
        self.fragments.append(frame.get_payload_as_bytes())
        if frame.fin:
            message, self.fragments = b"".join(self.fragments), []
            if len(message) > self.max_body:
                self._too_large(len(message), self.fragments_text)
            else:
                self.received(message, self.fragments_text)

    def _close(self, transport: WSTransport, code: WSCloseCode, reason: str) -> None:
        """Send our close frame, then read and drop until the client answers it or
        :data:`CLOSING_GRACE` passes: cutting the connection at once, with the client's frames
        still unread, makes the kernel reset it, and the client may never read why."""
        transport.send_close(code, reason.encode())
        self.fragments, self.size = [], 0
        self.closing = asyncio.get_running_loop().call_later(CLOSING_GRACE, transport.disconnect)

    def _too_large(self, size: int, as_text: bool) -> None:
        """Refused in its turn, after the answers before it; the connection goes on."""
        payload = jsoncodec.encode(Response.refused("?", Refusal(
            "too-large", f"the message is {size} bytes; this server accepts at most {self.max_body}")))
        self.answered(payload, as_text)

    def write_answer(self, payload: bytes, as_text: bool) -> None:
        ws = self.ws
        if ws is not None:  # (picows drops what is sent once the close frame is)
            ws.send(_TEXT if as_text else _BINARY, payload)


class WebSocketBinding(WSProtocol):  # type: ignore[misc]
    """An upgraded connection under uvicorn: picows's protocol, given the upgrade request's
    bytes by uvicorn (:meth:`data_received`, called once, before the transport is handed
    over), and closed with 1012 (service restart) when the server stops (:meth:`shutdown`).

    ``connections`` is the server's set of open connections (uvicorn's)."""

    def __init__(self, dispatcher: Dispatcher, max_body: int, connections: set[Any],
                 gate: Gate | None = None) -> None:
        super().__init__(
            None, None, False,  # host, path (a client's), is the client side
            lambda request: _route(request, dispatcher, max_body, gate),
            log, True,  # the logger; disconnect when answering raises (it does not: refusals are answers)
            None,  # no handshake time-out: uvicorn read the whole request already
            False, 20, 20, WSAutoPingStrategy.PING_WHEN_IDLE,  # no pings of its own
            True,  # pings answered
            MAX_MESSAGE, None, 16 * 1024)  # the largest frame, extra headers, first buffer size
        self.connections = connections

    @classmethod
    def for_uvicorn(cls, dispatcher: Dispatcher, max_body: int, gate: Gate | None = None) -> Any:
        """The protocol factory for uvicorn's ``ws`` setting (called with its config and state)."""
        def make(config: Any, server_state: Any, app_state: Any) -> WebSocketBinding:
            return cls(dispatcher, max_body, server_state.connections, gate)
        return make

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        super().connection_made(transport)
        self.connections.add(self)

    def connection_lost(self, exc: Exception | None) -> None:
        self.connections.discard(self)
        super().connection_lost(exc)

    def data_received(self, data: bytes) -> None:
        """Bytes read for this protocol by another (the upgrade request, from uvicorn's);
        picows reads into its own buffer, which grows as it fills."""
        view = memoryview(data)
        while view:
            space = self.get_buffer(-1)
            n = min(len(space), len(view))
            space[:n] = view[:n]
            view = view[n:]
            self.buffer_updated(n)

    def shutdown(self) -> None:
        """The server is stopping: say so (1012, service restart) and close."""
        if self.transport is not None and not self.transport.is_disconnected:
            self.transport.send_close(WSCloseCode.SERVICE_RESTART)
            self.transport.disconnect()


def _route(request: WSUpgradeRequest, dispatcher: Dispatcher, max_body: int, gate: Gate | None = None
           ) -> Answers | WSUpgradeResponseWithListener:
    path = request.path.split(b"?", 1)[0].decode("latin-1")
    if path != PATH:
        response = WSUpgradeResponse.create_error_response(
            404, f"the WebSocket binding is at {PATH}, not {path}\n".encode(),
            {"Content-Type": "text/plain; charset=utf-8"})
        return WSUpgradeResponseWithListener(response, None)
    return Answers(dispatcher, max_body, gate)
