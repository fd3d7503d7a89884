"""The TCP binding: the same queries over one persistent plain-TCP connection, for clients
that want speed (about twice the WebSocket binding's rate here; ``benchmarks/network.py``).

Framing: each message is a 4-byte big-endian length followed by that many bytes of one
message in XML or JSON (as on the HTTP binding); answers come back framed the same way, in
the encoding of the question, in order. A frame over the size limit is refused and the
connection closed (its bytes cannot be trusted to resynchronise).
"""

from __future__ import annotations

import asyncio
import struct

from ..protocol import jsoncodec
from ..protocol.errors import Refusal
from ..protocol.messages import Response
from .dispatch import Dispatcher

HEADER = struct.Struct(">I")


class TcpBinding(asyncio.Protocol):
    def __init__(self, dispatcher: Dispatcher, max_body: int) -> None:
        self.dispatcher = dispatcher
        self.max_body = max_body
        self.buffer = bytearray()
        self.transport: asyncio.Transport | None = None
        self.queue: asyncio.Queue[bytes | None] = asyncio.Queue()
        self.worker: asyncio.Task | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport  # type: ignore[assignment]
        self.worker = asyncio.get_running_loop().create_task(self._work())

    def data_received(self, data: bytes) -> None:
        self.buffer += data
        while len(self.buffer) >= 4:
            (length,) = HEADER.unpack_from(self.buffer)
            if length > self.max_body:
                self._send(jsoncodec.encode(Response.refused("?", Refusal(
                    "too-large", f"the frame is {length} bytes; this server accepts at most {self.max_body}"))))
                self.transport.close()
                self.buffer.clear()
                return
            if len(self.buffer) < 4 + length:
                return
            self.queue.put_nowait(bytes(self.buffer[4:4 + length]))
            del self.buffer[:4 + length]

    def connection_lost(self, exc: Exception | None) -> None:
        self.queue.put_nowait(None)

    async def _work(self) -> None:
        while (raw := await self.queue.get()) is not None:
            codec, response = await self.dispatcher.answer_bytes(raw)
            self._send(codec.encode(response))

    def _send(self, payload: bytes) -> None:
        if self.transport is not None and not self.transport.is_closing():
            self.transport.write(HEADER.pack(len(payload)) + payload)


async def start(dispatcher: Dispatcher, host: str, port: int, max_body: int) -> asyncio.AbstractServer:
    loop = asyncio.get_running_loop()
    return await loop.create_server(lambda: TcpBinding(dispatcher, max_body), host, port)
