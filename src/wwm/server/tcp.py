"""The TCP binding: the same queries over one persistent plain-TCP connection, for clients
that want speed (``benchmarks/network.py`` measures it beside the WebSocket binding).

Framing: each message is a 4-byte big-endian length followed by that many bytes of one
message in XML or JSON (as on the HTTP binding); answers come back framed the same way, in
the encoding of the question, in order (:class:`~.connection.InOrder`). A frame over the size
limit is refused and the connection closed (its bytes cannot be trusted to resynchronise). A
client may send several frames without waiting (pipelining); their answers come back in order.
"""

from __future__ import annotations

import asyncio
import struct

from ..protocol import jsoncodec
from ..protocol.errors import Refusal
from ..protocol.messages import Response
from .connection import InOrder
from .dispatch import Dispatcher

HEADER = struct.Struct(">I")


class TcpBinding(InOrder):
    """One client connection: length-prefixed frames in, answers framed the same way."""

    def __init__(self, dispatcher: Dispatcher, max_body: int) -> None:
        super().__init__(dispatcher, max_body)
        self.buffer = bytearray()

    def data_received(self, data: bytes) -> None:
        buffer = self.buffer
        if not buffer and not self.waiting and not self.messages and self.last_words is None:
            # the usual read: one whole frame, nothing before it (answered straight from it)
            (length,) = HEADER.unpack_from(data) if len(data) >= 4 else (-1,)
            if len(data) == 4 + length and length <= self.max_body:
                self._answer(data[4:], False)
                return
        if self.last_words is not None:
            return
        buffer += data
        while len(buffer) >= 4:
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
            self.received(bytes(buffer[4:4 + length]))
            del buffer[:4 + length]
        self.answer_waiting()

    def write_answer(self, payload: bytes, as_text: bool) -> None:
        self.write(HEADER.pack(len(payload)) + payload)


async def start(dispatcher: Dispatcher, host: str, port: int, max_body: int) -> asyncio.Server:
    """The binding listening on ``host:port`` (port 0: any free port; the server's
    ``sockets`` say which)."""
    loop = asyncio.get_running_loop()
    return await loop.create_server(lambda: TcpBinding(dispatcher, max_body), host, port)
