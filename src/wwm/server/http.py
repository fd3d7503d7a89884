"""uvicorn's HTTP protocol (httptools) with the bounds a server on the open internet needs,
as uvicorn's ``http`` setting (a protocol class) takes it.

uvicorn bounds none of these (measured, ``tests/server/test_floods.py``): a request head is
read whatever its size (ten 50 MB headers left the server at 615 MB), and a client that
pipelines requests without reading the answers is read on after every answer, each read
queueing a whole buffer of requests (100,000 unread requests: 307 MB, kept). Here:

- a request's line and headers are at most :data:`~wwm.protocol.limits.HEAD_BYTES`
  (else 431 and the connection closed);
- at most :data:`~wwm.protocol.limits.PIPELINED` requests wait behind the one being answered:
  what is read past them is held unparsed (its bytes, a fraction of a parsed request's
  size) and reading stops until they are answered; an answer the client does not read stops
  the next one (uvicorn waits for its write buffer to drain), so reading stops with it;
- the connections of one address are limited and a connection that sends no whole request
  head in time is closed (:class:`~.gate.Gate`).

Granian, the other server ``wwm serve --http`` offers, held flat under the same floods
without any of this (its own limits).
"""

from __future__ import annotations

import asyncio
from typing import Any

from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

from ..protocol import limits
from .gate import Gate

SLICE = 16 * 1024  # bytes parsed at a time, so a buffer of pipelined requests stops at the limit


def bounded_http(gate: Gate, head_bytes: int = limits.HEAD_BYTES,
                 pipelined: int = limits.PIPELINED) -> type[HttpToolsProtocol]:
    """The protocol class for uvicorn's ``http`` setting, with these bounds."""
    return type("BoundedHttp", (BoundedHttp,), {"gate": gate, "head_bytes": head_bytes, "pipelined": pipelined})


class BoundedHttp(HttpToolsProtocol):
    gate: Gate
    head_bytes: int
    pipelined: int

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self.held = b""    # bytes read past the pipelined requests' limit, not parsed yet
        self.head = 0      # bytes of the request head being read (-1: none being read)
        self.address = self.gate.enter(transport)
        self.silence: asyncio.TimerHandle | None = None
        if self.address is None:
            self._refuse(503, self.gate.refusal())
            return
        self.silence = self.gate.watch(self._silent)

    def connection_lost(self, exc: Exception | None) -> None:
        self._let_go()
        super().connection_lost(exc)

    def _let_go(self) -> None:
        if self.silence is not None:
            self.silence.cancel()
            self.silence = None
        self.gate.leave(self.address)
        self.address = None

    def _silent(self) -> None:
        self.silence = None
        if not self.transport.is_closing():
            self.transport.close()

    def _refuse(self, status: int, text: str) -> None:
        reason = {431: b"Request Header Fields Too Large", 503: b"Service Unavailable"}[status]
        body = text.encode() + b"\n"
        self.transport.write(b"HTTP/1.1 %d %s\r\ncontent-type: text/plain; charset=utf-8\r\n"
                             b"content-length: %d\r\nconnection: close\r\n\r\n%s" % (status, reason, len(body), body))
        self.transport.close()

    def data_received(self, data: bytes) -> None:
        if self.held or len(self.pipeline) >= self.pipelined:
            self.held += data
            self.flow.pause_reading()
            return
        if len(data) <= SLICE:
            self._parse(data)
            return
        view = memoryview(data)
        for start in range(0, len(data), SLICE):
            if self.transport.is_closing():
                return
            if len(self.pipeline) >= self.pipelined:
                self.held = bytes(view[start:])
                self.flow.pause_reading()
                return
            self._parse(view[start:start + SLICE])

    def _parse(self, data: Any) -> None:
        if self.head >= 0:
            self.head += len(data)
            if self.head > self.head_bytes:
                self._refuse(431, f"the request's line and headers are over {self.head_bytes} bytes, "
                                  "the most this server reads")
                return
        super().data_received(data)

    def on_message_begin(self) -> None:
        super().on_message_begin()
        self.head = 0

    def on_headers_complete(self) -> None:
        self.head = -1
        if self.silence is not None:
            self.silence.cancel()
            self.silence = None
        super().on_headers_complete()

    def handle_websocket_upgrade(self) -> None:
        self._let_go()  # (the WebSocket binding takes its own place at the gate)
        super().handle_websocket_upgrade()

    def on_response_complete(self) -> None:
        super().on_response_complete()  # (reads on, and starts the next request waiting)
        if self.transport.is_closing():
            return
        if self.held and len(self.pipeline) < self.pipelined:
            held, self.held = self.held, b""
            self.data_received(held)
        elif self.held or len(self.pipeline) >= self.pipelined:
            self.flow.pause_reading()
