"""The TCP binding: the same queries over one persistent plain-TCP connection, for clients
that want speed (about twice the WebSocket binding's rate here; ``benchmarks/network.py``).

Framing: each message is a 4-byte big-endian length followed by that many bytes of one
message in XML or JSON (as on the HTTP binding); answers come back framed the same way, in
the encoding of the question, in order. A frame over the size limit is refused and the
connection closed (its bytes cannot be trusted to resynchronise). A client may send several
frames without waiting (pipelining); their answers come back in order.
"""

from __future__ import annotations

import asyncio
import struct
from collections import deque
from typing import cast

from ..protocol import jsoncodec
from ..protocol.errors import Refusal
from ..protocol.messages import Response
from .dispatch import Dispatcher

HEADER = struct.Struct(">I")


class TcpBinding(asyncio.Protocol):
    """One client connection. Frames are answered one after another, in order, each answer
    written as soon as it is ready (a slow Get action never holds back the answer to the
    Inform before it). Holding the answers to frames that arrived together for one write
    was measured slower: 2,060-2,370 against 2,280-2,500 full TCP steps/s."""

    def __init__(self, dispatcher: Dispatcher, max_body: int) -> None:
        self.dispatcher = dispatcher
        self.max_body = max_body
        self.buffer = bytearray()
        self.transport: asyncio.Transport | None = None
        self.frames: deque[bytes] = deque()
        self.wakeup: asyncio.Future[None] | None = None  # set while the worker waits for frames
        self.open = True
        self.last_words: bytes | None = None  # the refusal of an oversized frame, sent last
        self.worker: asyncio.Task[None] | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        # a stream connection's transport (uvloop's is one in all but its class, so no isinstance)
        self.transport = cast(asyncio.Transport, transport)
        self.worker = asyncio.get_running_loop().create_task(self._work())

    def data_received(self, data: bytes) -> None:
        if self.last_words is not None:
            return
        self.buffer += data
        while len(self.buffer) >= 4:
            (length,) = HEADER.unpack_from(self.buffer)
            if length > self.max_body:
                # Refused, and the connection closed, after the answers to the frames before
                # it (written now, it would be read as the answer to one of them).
                payload = jsoncodec.encode(Response.refused("?", Refusal(
                    "too-large", f"the frame is {length} bytes; this server accepts at most {self.max_body}")))
                self.last_words = HEADER.pack(len(payload)) + payload
                self.buffer.clear()
                if self.transport is not None:
                    self.transport.pause_reading()
                break
            if len(self.buffer) < 4 + length:
                break
            self.frames.append(bytes(self.buffer[4:4 + length]))
            del self.buffer[:4 + length]
        self._wake()

    def connection_lost(self, exc: Exception | None) -> None:
        self.open = False
        self._wake()

    def _wake(self) -> None:
        if (self.wakeup is not None and not self.wakeup.done()
                and (self.frames or not self.open or self.last_words is not None)):
            self.wakeup.set_result(None)

    async def _work(self) -> None:
        loop = asyncio.get_running_loop()
        while self.open:
            if not self.frames:
                if self.last_words is not None:
                    self._write(self.last_words)
                    if self.transport is not None:
                        self.transport.close()
                    return
                self.wakeup = loop.create_future()
                await self.wakeup
                self.wakeup = None
                continue
            codec, response = await self.dispatcher.answer_bytes(self.frames.popleft())
            payload = codec.encode(response)
            self._write(HEADER.pack(len(payload)) + payload)

    def _write(self, frame: bytes) -> None:
        if self.transport is not None and not self.transport.is_closing():
            self.transport.write(frame)


async def start(dispatcher: Dispatcher, host: str, port: int, max_body: int) -> asyncio.AbstractServer:
    loop = asyncio.get_running_loop()
    return await loop.create_server(lambda: TcpBinding(dispatcher, max_body), host, port)
