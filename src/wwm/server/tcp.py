"""The TCP binding: the same queries over one persistent plain-TCP connection, for clients
that want speed (``benchmarks/network.py`` measures it beside the WebSocket binding).

Framing: each message is a 4-byte big-endian length followed by that many bytes of one
message in XML or JSON (as on the HTTP binding); answers come back framed the same way, in
the encoding of the question, in order (:class:`~.connection.InOrder`). A frame over the size
limit is refused and the connection closed (its bytes cannot be trusted to resynchronise). A
client may send several frames without waiting (pipelining); their answers come back in order.

A client that sends frames faster than it reads, or a flood of them, is slowed, not everyone
else: at most :data:`~wwm.protocol.limits.TURN` frames of one read are answered before the
other connections have their turn (the rest is kept, and reading paused, until the next
turn of the event loop), and reading stops while answers wait unread (:mod:`.connection`).
"""

from __future__ import annotations

import asyncio
import struct

from ..protocol import jsoncodec, limits
from ..protocol.errors import Refusal
from ..protocol.messages import Response
from .connection import InOrder
from .dispatch import Dispatcher
from .gate import Gate

HEADER = struct.Struct(">I")


class TcpBinding(InOrder):
    """One client connection: length-prefixed frames in, answers framed the same way."""

    def __init__(self, dispatcher: Dispatcher, max_body: int, gate: Gate | None = None) -> None:
        super().__init__(dispatcher, max_body, gate)
        self.buffer = bytearray()
        self.turn: asyncio.Handle | None = None  # the next turn of frames kept, if any

    def data_received(self, data: bytes) -> None:
        buffer = self.buffer
        if not buffer and not self.waiting and not self.messages and self.last_words is None:
            # the usual read: one whole frame, nothing before it (answered straight from it)
            (length,) = HEADER.unpack_from(data) if len(data) >= 4 else (-1,)
            if len(data) == 4 + length and length <= self.max_body:
                if self.silence is not None:
                    self.heard()
                self._answer(data[4:], False)
                return
        if self.last_words is not None:
            return
        buffer += data
        if self.turn is None:
            self._frames()

    def _frames(self) -> None:
        """Answer the whole frames read, at most a turn's worth; the rest on the next turn."""
        self.turn = None
        buffer = self.buffer
        frames = 0
        while len(buffer) >= 4:
            if frames == limits.TURN and self.open:  # the others' turn: the rest on the next
                self.stop_reading("turn")
                self.turn = asyncio.get_running_loop().call_soon(self._frames)
                break
            (length,) = HEADER.unpack_from(buffer)
            if length > self.max_body:
                # Refused, and the connection closed, after the answers to the frames before
                # it (written now, it would be read as the answer to one of them).
                payload = jsoncodec.encode(Response.refused("?", Refusal(
                    "too-large", f"the frame is {length} bytes; this server accepts at most {self.max_body}")))
                buffer.clear()
                self.close_after_answers(HEADER.pack(len(payload)) + payload)
                break
            if len(buffer) < 4 + length:
                break
            frames += 1
            self.received(bytes(buffer[4:4 + length]))
            del buffer[:4 + length]
        if frames:
            self.heard()
        if self.turn is None:
            self.read_on("turn")
        self.answer_waiting()

    def connection_lost(self, exc: Exception | None) -> None:
        if self.turn is not None:
            self.turn.cancel()
            self.turn = None
        super().connection_lost(exc)

    def refused_at_gate(self, text: str) -> None:
        payload = jsoncodec.encode(Response.refused("?", Refusal("busy", text)))
        self.write(HEADER.pack(len(payload)) + payload)
        super().refused_at_gate(text)

    def write_answer(self, payload: bytes, as_text: bool) -> None:
        self.write(HEADER.pack(len(payload)) + payload)


async def start(dispatcher: Dispatcher, host: str, port: int, max_body: int,
                gate: Gate | None = None) -> asyncio.Server:
    """The binding listening on ``host:port`` (port 0: any free port; the server's
    ``sockets`` say which), its connections passing ``gate``."""
    loop = asyncio.get_running_loop()
    return await loop.create_server(lambda: TcpBinding(dispatcher, max_body, gate), host, port)
