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
import contextvars
import struct
from collections import deque
from collections.abc import Coroutine, Generator
from typing import Any, cast

from ..protocol import jsoncodec
from ..protocol.encoding import Codec
from ..protocol.errors import Refusal
from ..protocol.messages import Response
from .dispatch import Dispatcher

HEADER = struct.Struct(">I")


class TcpBinding(asyncio.Protocol):
    """One client connection. Frames are answered one after another, in order, each answer
    written as soon as it is ready (a slow Get action never holds back the answer to the
    Inform before it). Holding the answers to frames that arrived together for one write
    was measured slower: 2,060-2,370 against 2,280-2,500 full TCP steps/s.

    A frame is answered at once, inside the callback that read it, as far as its answer goes
    without waiting (a World or Mind whose method returns without awaiting anything, the
    usual case): no task is woken for it, which saved a turn of the event loop and about 2 µs
    of CPU per query. An answer that has to wait goes on in a task of its own, in the same
    context, and the frames behind it wait their turn."""

    def __init__(self, dispatcher: Dispatcher, max_body: int) -> None:
        self.dispatcher = dispatcher
        self.max_body = max_body
        self.buffer = bytearray()
        self.transport: asyncio.Transport | None = None
        self.frames: deque[bytes] = deque()
        self.open = True
        self.last_words: bytes | None = None  # the refusal of an oversized frame, sent last
        self.waiting: asyncio.Task[None] | None = None  # an answer that had to wait, still going

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        # a stream connection's transport (uvloop's is one in all but its class, so no isinstance)
        self.transport = cast(asyncio.Transport, transport)

    def data_received(self, data: bytes) -> None:
        if self.last_words is not None:
            return
        buffer = self.buffer
        buffer += data
        while len(buffer) >= 4:
            (length,) = HEADER.unpack_from(buffer)
            if length > self.max_body:
                # Refused, and the connection closed, after the answers to the frames before
                # it (written now, it would be read as the answer to one of them).
                payload = jsoncodec.encode(Response.refused("?", Refusal(
                    "too-large", f"the frame is {length} bytes; this server accepts at most {self.max_body}")))
                self.last_words = HEADER.pack(len(payload)) + payload
                buffer.clear()
                if self.transport is not None:
                    self.transport.pause_reading()
                break
            if len(buffer) < 4 + length:
                break
            self.frames.append(bytes(buffer[4:4 + length]))
            del buffer[:4 + length]
        if self.waiting is None:
            self._answer_frames()

    def connection_lost(self, exc: Exception | None) -> None:
        self.open = False

    def _answer_frames(self) -> None:
        """Answer the frames waiting, in order, until one's answer has to wait (it goes on in
        a task, which comes back here when done), then the last words, if any."""
        while self.frames and self.open:
            context = contextvars.copy_context()  # the answer's context, kept if it goes on in a task
            answering = self.dispatcher.answer_bytes(self.frames.popleft())
            try:
                awaited = context.run(answering.send, None)
            except StopIteration as done:
                self._reply(*done.value)
                continue
            self.waiting = asyncio.get_running_loop().create_task(
                self._finish(answering, awaited), context=context)
            return
        if self.last_words is not None and self.open:
            self._write(self.last_words)
            if self.transport is not None:
                self.transport.close()
            self.open = False

    async def _finish(self, answering: Coroutine[Any, Any, tuple[Codec, Response]], awaited: Any) -> None:
        try:
            self._reply(*await _Resumed(answering, awaited))
        finally:
            self.waiting = None
        self._answer_frames()

    def _reply(self, codec: Codec, response: Response) -> None:
        payload = codec.encode(response)
        self._write(HEADER.pack(len(payload)) + payload)

    def _write(self, frame: bytes) -> None:
        if self.transport is not None and not self.transport.is_closing():
            self.transport.write(frame)


class _Resumed:
    """Awaiting this carries on a coroutine already started by hand, which stopped to wait for
    ``awaited`` (what its first ``send`` gave): the task awaiting it waits for that in its
    place, and what the task is sent or thrown (a cancellation) goes on to the coroutine."""

    __slots__ = ("coroutine", "awaited")

    def __init__(self, coroutine: Coroutine[Any, Any, Any], awaited: Any) -> None:
        self.coroutine, self.awaited = coroutine, awaited

    def __await__(self) -> Generator[Any, Any, Any]:
        coroutine, awaited = self.coroutine, self.awaited
        while True:
            try:
                sent = yield awaited
            except GeneratorExit:  # closed unfinished (its task was dropped): the coroutine too
                coroutine.close()
                raise
            except BaseException as exc:  # thrown into the task (a cancellation): the coroutine's to handle
                try:
                    awaited = coroutine.throw(exc)
                except StopIteration as done:
                    return done.value
                continue
            try:
                awaited = coroutine.send(sent)
            except StopIteration as done:
                return done.value


async def start(dispatcher: Dispatcher, host: str, port: int, max_body: int) -> asyncio.Server:
    """The binding listening on ``host:port`` (port 0: any free port; the server's
    ``sockets`` say which)."""
    loop = asyncio.get_running_loop()
    return await loop.create_server(lambda: TcpBinding(dispatcher, max_body), host, port)
