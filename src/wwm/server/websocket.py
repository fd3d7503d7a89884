"""The WebSocket binding (``ws://host:port/ws``, on the server's own port): each message one
query, answered in its encoding and in kind (text for text, bytes for bytes), in order.

The WebSocket protocol itself (handshake, framing, pings, closing) is the ``websockets``
library's Sans-I/O :class:`~websockets.server.ServerProtocol`; the answering is the TCP
binding's (:class:`~.connection.InOrder`). Under uvicorn this class takes the connection over
from uvicorn's HTTP protocol at the upgrade (uvicorn's ``ws`` setting names the protocol class
to hand upgraded connections to): no ASGI event dicts, queue or task per message. With
uvicorn's own WebSocket the server spent 67-92 µs of CPU per query, with this 52-69
(``docs/benchmarks.md``). Servers that are not uvicorn (Granian) answer ``/ws`` through the
ASGI app (``ServerApp``) instead.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from websockets.exceptions import InvalidState
from websockets.frames import CloseCode, Frame, Opcode
from websockets.http11 import Request
from websockets.protocol import State
from websockets.server import ServerProtocol

from ..protocol import jsoncodec
from ..protocol.errors import Refusal
from ..protocol.messages import Response
from .connection import InOrder
from .dispatch import Dispatcher

log = logging.getLogger("wwm.server")

PATH = "/ws"
MAX_MESSAGE = 16 * 1024 * 1024  # larger messages close the connection (1009); over max_body are refused
_DATA = (Opcode.BINARY, Opcode.TEXT, Opcode.CONT)


class WebSocketBinding(InOrder):
    """One client connection, from its opening handshake (the HTTP upgrade request) on.

    ``connections`` is the server's set of open connections (uvicorn's, so that a shutdown
    closes this one too: :meth:`shutdown`)."""

    def __init__(self, dispatcher: Dispatcher, max_body: int, connections: set[Any] | None = None) -> None:
        super().__init__(dispatcher, max_body)
        self.ws = ServerProtocol(max_size=MAX_MESSAGE, logger=log)
        self.connections = connections if connections is not None else set()
        self.fragments: list[bytes] = []
        self.fragments_text = False

    @classmethod
    def for_uvicorn(cls, dispatcher: Dispatcher, max_body: int) -> Any:
        """The protocol factory for uvicorn's ``ws`` setting (called with its config and state)."""
        def make(config: Any, server_state: Any, app_state: Any) -> WebSocketBinding:
            return cls(dispatcher, max_body, server_state.connections)
        return make

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        super().connection_made(transport)
        self.connections.add(self)

    def connection_lost(self, exc: Exception | None) -> None:
        self.connections.discard(self)
        super().connection_lost(exc)

    def data_received(self, data: bytes) -> None:
        ws = self.ws
        ws.receive_data(data)
        for event in ws.events_received():
            if isinstance(event, Frame):
                if event.opcode in _DATA:
                    self._message(event)
            elif isinstance(event, Request):
                self._handshake(event)
        self.answer_waiting()
        self._flush()  # the handshake's answer, pongs, the reply to a close
        if ws.close_expected() and self.transport is not None:
            self.transport.close()

    def _handshake(self, request: Request) -> None:
        ws = self.ws
        path = request.path.split("?", 1)[0]
        if path != PATH:
            response = ws.reject(404, f"the WebSocket binding is at {PATH}, not {path}\n")
        else:
            response = ws.accept(request)
        ws.send_response(response)

    def _message(self, frame: Frame) -> None:
        if frame.opcode is not Opcode.CONT:
            self.fragments_text = frame.opcode is Opcode.TEXT
        if not frame.fin:  # a message in fragments: kept until its last
            self.fragments.append(bytes(frame.data))
            return
        if self.fragments:
            self.fragments.append(bytes(frame.data))
            message, self.fragments = b"".join(self.fragments), []
        else:
            message = bytes(frame.data)
        if len(message) > self.max_body:
            payload = jsoncodec.encode(Response.refused("?", Refusal(
                "too-large", f"the message is {len(message)} bytes; this server accepts at most {self.max_body}")))
            self.answered(payload, self.fragments_text)  # in its turn, after the answers before it
            return
        self.received(message, self.fragments_text)

    def write_answer(self, payload: bytes, as_text: bool) -> None:
        ws = self.ws
        if ws.state is not State.OPEN:
            return
        if as_text:
            ws.send_text(payload)
        else:
            ws.send_binary(payload)
        self._flush()

    def _flush(self) -> None:
        pending = self.ws.data_to_send()
        if pending:
            self.write(b"".join(pending))

    def shutdown(self) -> None:
        """The server is stopping: say so (1012, service restart) and close."""
        try:
            self.ws.send_close(CloseCode.SERVICE_RESTART)
        except InvalidState:
            pass
        self._flush()
        if self.transport is not None:
            self.transport.close()
