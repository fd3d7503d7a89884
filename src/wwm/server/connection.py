"""What the persistent bindings' servers share (TCP frames, WebSocket messages): one client
connection whose messages are queries, answered one after another, in order, each answer
written as soon as it is ready (a slow Get action never holds back the answer to the Inform
before it). Holding the answers to messages that arrived together for one write was measured
slower: 2,060-2,370 against 2,280-2,500 full TCP steps/s.

A message is answered at once, inside the callback that read it, as far as its answer goes
without waiting (a World or Mind whose method returns without awaiting anything, the usual
case): no task is woken for it, which saved a turn of the event loop and about 2 µs of CPU
per query. An answer that has to wait goes on in a task of its own, in the same context, and
the messages behind it wait their turn. When the client goes away, an answer still being
worked out is cancelled (nobody is left to read it).

A binding is a subclass that cuts messages out of what it receives (calling
:meth:`InOrder.received`) and frames each answer (:meth:`InOrder.write_answer`).
"""

from __future__ import annotations

import asyncio
import contextvars
from collections import deque
from collections.abc import Coroutine
from typing import Any, cast

from .dispatch import Dispatcher
from .trail import current_server
from .unfinished import Resumed


class InOrder(asyncio.Protocol):
    """One client connection of a persistent binding; ``as_text`` of a message says whether
    its answer goes back as text (a WebSocket text message) or as bytes."""

    def __init__(self, dispatcher: Dispatcher, max_body: int) -> None:
        self.dispatcher = dispatcher
        self.max_body = max_body
        self.transport: asyncio.Transport | None = None
        # each message waiting: its bytes, whether it came as text, and whether those bytes
        # are its answer already (a refusal made on reading it)
        self.messages: deque[tuple[bytes, bool, bool]] = deque()
        self.open = True
        self.last_words: bytes | None = None  # written after the answers before it, then closed
        self.waiting: asyncio.Task[None] | None = None  # an answer that had to wait, still going

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        # a stream connection's transport (uvloop's is one in all but its class, so no isinstance)
        self.transport = cast(asyncio.Transport, transport)

    def connection_lost(self, exc: Exception | None) -> None:
        self.open = False
        if self.waiting is not None:  # nobody is left to read it
            self.waiting.cancel()

    def write_answer(self, payload: bytes, as_text: bool) -> None:
        """Frame and write one answer (the binding's own)."""
        raise NotImplementedError

    def received(self, message: bytes, as_text: bool = False) -> None:
        """One query arrived: answered now when nothing is ahead of it, else in its turn (by
        :meth:`answer_waiting`, which the binding calls once it has cut every message out of
        what it read)."""
        if self.messages or self.waiting is not None or not self.open:
            self.messages.append((message, as_text, False))
        else:
            self._answer(message, as_text)

    def answered(self, payload: bytes, as_text: bool = False) -> None:
        """A message refused on reading it (``payload``, its answer), to be written in its turn."""
        self.messages.append((payload, as_text, True))

    def close_after_answers(self, last_words: bytes) -> None:
        """Stop reading; write ``last_words`` after the answers to the messages before, then
        close (for a stream that can no longer be trusted to resynchronise)."""
        self.last_words = last_words
        if self.transport is not None:
            self.transport.pause_reading()

    def answer_waiting(self) -> None:
        """Answer the messages waiting, in order, until one's answer has to wait (it goes on
        in a task, which comes back here when done), then the last words, if any."""
        if self.waiting is not None:
            return
        messages = self.messages
        while messages and self.open and self.waiting is None:
            message, as_text, ready = messages.popleft()
            if ready:
                self.write_answer(message, as_text)
            else:
                self._answer(message, as_text)
        if self.waiting is not None:
            return
        if self.last_words is not None and self.open:
            self.write(self.last_words)
            if self.transport is not None:
                self.transport.close()
            self.open = False

    def _answer(self, message: bytes, as_text: bool) -> None:
        """Answer one message, written as soon as it is ready: at once, unless its answer has to
        wait (then a task finishes it, and :attr:`waiting` holds the messages behind it)."""
        dispatcher = self.dispatcher
        if current_server.get() is not dispatcher.trail:  # (set once in the connection's context)
            current_server.set(dispatcher.trail)
        context = contextvars.copy_context()  # the answer's context, kept if it goes on in a task
        answer = context.run(dispatcher.answer_at_once, message)
        if isinstance(answer, bytes):
            self.write_answer(answer, as_text)
            return
        if answer is None:  # not the usual query: the general way, as far as it goes at once
            answering = dispatcher.answer_in_general(message)
            try:
                awaited = context.run(answering.send, None)
            except StopIteration as done:
                self.write_answer(done.value, as_text)
                return
            finishing: Coroutine[Any, Any, bytes] = _carry_on(answering, awaited)
        else:
            finishing = dispatcher.finish(answer)
        self.waiting = asyncio.get_running_loop().create_task(self._finish(finishing, as_text), context=context)

    async def _finish(self, finishing: Coroutine[Any, Any, bytes], as_text: bool) -> None:
        try:
            self.write_answer(await finishing, as_text)
        finally:
            self.waiting = None
        self.answer_waiting()

    def write(self, data: bytes) -> None:
        if self.transport is not None and not self.transport.is_closing():
            self.transport.write(data)


async def _carry_on(answering: Coroutine[Any, Any, bytes], awaited: Any) -> bytes:
    """The rest of an answer whose coroutine was started by hand and had to wait."""
    answer: bytes = await Resumed(answering, awaited)
    return answer
