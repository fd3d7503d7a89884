"""What the persistent bindings' servers share (TCP frames, WebSocket messages): one client
connection whose messages are queries, answered one after another, in order, each answer
written as soon as it is ready (a slow Get action never holds back the answer to the Inform
before it). Holding the answers to messages that arrived together for one write was measured
slower: 2,060-2,370 against 2,280-2,500 full TCP steps/s.

A message is answered at once, inside the callback that read it, as far as its answer goes
without waiting (a World or Mind whose method returns without awaiting anything, the usual
case): no task is woken for it, which saved a turn of the event loop and about 2 µs of CPU
per query. It runs as the connection's own task all the same (entered for the while), so a
method sees a current task (``asyncio.timeout``, ``TaskGroup`` and ``current_task`` work as
over HTTP), and each answer runs in a context of its own (a context variable set while
answering one query is not seen by the next). An answer that has to wait goes on in that
task, and the messages behind it wait their turn. When the client goes away, an answer still
being worked out is cancelled (nobody is left to read it).

A binding is a subclass that cuts messages out of what it receives (calling
:meth:`InOrder.received`) and frames each answer (:meth:`InOrder.write_answer`).

A client that does not read is not read either (back-pressure): reading stops while the
answers written wait in the transport's buffer past its high-water mark
(:meth:`InOrder.pause_writing`) and while :data:`~wwm.protocol.limits.WAITING` messages wait
behind an answer; so what one connection makes the server hold is bounded whatever it sends.
Each connection takes its place at the server's :class:`~.gate.Gate` (connections per address,
and closed when silent).
"""

from __future__ import annotations

import asyncio
import contextvars
from collections import deque
from collections.abc import Coroutine
from typing import Any, cast

from ..protocol import limits
from ..protocol.context import current_server
from .dispatch import Dispatcher, Unfinished
from .gate import Gate, peer
from .resumed import Resumed

_enter_task, _leave_task = asyncio.tasks._enter_task, asyncio.tasks._leave_task  # (what a task's step does)


class InOrder(asyncio.Protocol):
    """One client connection of a persistent binding; ``as_text`` of a message says whether
    its answer goes back as text (a WebSocket text message) or as bytes."""

    def __init__(self, dispatcher: Dispatcher, max_body: int, gate: Gate | None = None) -> None:
        self.gate = gate
        self.address: str | None = None  # its place at the gate
        self.silence: asyncio.TimerHandle | None = None  # closes it unless a message comes first
        self.stopped: set[str] = set()  # why reading is paused ("writing", "waiting", "turn")
        self.dispatcher = dispatcher
        self.answer_at_once = dispatcher.answer_at_once
        self.max_body = max_body
        self.transport: asyncio.Transport | None = None
        # each message waiting: its bytes, whether it came as text, and whether those bytes
        # are its answer already (a refusal made on reading it)
        self.messages: deque[tuple[bytes, bool, bool]] = deque()
        self.open = True
        self.last_words: bytes | None = None  # written after the answers before it, then closed
        self.waiting = False  # an answer had to wait: the task finishes it and answers the rest
        self.task: asyncio.Task[None] | None = None  # the connection's own, started when first needed
        self.loop: asyncio.AbstractEventLoop  # the task's (set with it)
        self.wake: asyncio.Future[tuple[bytes | None, Any, contextvars.Context, bool]] | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        # a stream connection's transport (uvloop's is one in all but its class, so no isinstance)
        self.transport = cast(asyncio.Transport, transport)
        if self.gate is not None:
            self.address = self.gate.enter(transport)
            if self.address is None:
                self.refused_at_gate(self.gate.refusal())
                return
            self.silence = self.gate.watch(self.transport.close)

    def refused_at_gate(self, text: str) -> None:
        """Too many connections from this one's address: closed (a binding may say why first)."""
        if self.transport is not None:
            self.transport.close()

    def heard(self) -> None:
        """A whole message came: the connection is not silent."""
        if self.silence is not None:
            self.silence.cancel()
            self.silence = None

    # ---- back-pressure ---------------------------------------------------------------------
    def stop_reading(self, why: str) -> None:
        if not self.stopped and self.transport is not None:
            self.transport.pause_reading()
        self.stopped.add(why)

    def read_on(self, why: str) -> None:
        if why in self.stopped:
            self.stopped.discard(why)
            if not self.stopped and self.transport is not None and self.open and self.last_words is None:
                self.transport.resume_reading()

    def pause_writing(self) -> None:
        self.stop_reading("writing")

    def resume_writing(self) -> None:
        self.read_on("writing")

    def connection_lost(self, exc: Exception | None) -> None:
        self.heard()
        if self.gate is not None:
            self.gate.leave(self.address)
            self.address = None
        self.open = False
        if self.task is not None:  # an answer still being worked out: nobody is left to read it
            self.task.cancel()

    def write_answer(self, payload: bytes, as_text: bool) -> None:
        """Frame and write one answer (the binding's own)."""
        raise NotImplementedError

    def received(self, message: bytes, as_text: bool = False) -> None:
        """One query arrived: answered now when nothing is ahead of it, else in its turn (by
        :meth:`answer_waiting`, which the binding calls once it has cut every message out of
        what it read)."""
        if self.messages or self.waiting or not self.open:
            self.messages.append((message, as_text, False))
            if len(self.messages) >= limits.WAITING:
                self.stop_reading("waiting")
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
        """Answer the messages waiting, in order, until one's answer has to wait (the task then
        answers the rest), then the last words, if any."""
        messages = self.messages
        while messages and self.open and not self.waiting:
            message, as_text, ready = messages.popleft()
            if ready:
                self.write_answer(message, as_text)
            else:
                self._answer(message, as_text)
        if len(messages) < limits.WAITING // 2:
            self.read_on("waiting")
        if not self.waiting:
            self._last_words()

    def _answer(self, message: bytes, as_text: bool) -> None:
        """Answer one message as the connection's task, written at once if it is ready, else
        handed to the task to finish (:attr:`waiting` then holds the messages behind it)."""
        task = self.task if self.task is not None else self._start()
        context = contextvars.copy_context()  # the answer's own
        loop = self.loop
        try:
            _enter_task(loop, task)
        except RuntimeError:  # called from inside a task (not a read): started by the connection's
            self._hand_on(None, message, context, as_text)
            return
        try:
            started = self._started(message, context)
        finally:
            _leave_task(loop, task)
        if isinstance(started, bytes):
            self.write_answer(started, as_text)
        else:
            self._hand_on(started, message, context, as_text)

    def _started(self, message: bytes, context: contextvars.Context) -> bytes | Coroutine[Any, Any, bytes]:
        """The answer to ``message`` if it is ready without waiting, else what finishes it."""
        answer = context.run(self.answer_at_once, message)
        return answer if isinstance(answer, bytes) else self._going_on(message, context, answer)

    def _going_on(self, message: bytes, context: contextvars.Context,
                  answer: Unfinished | None) -> bytes | Coroutine[Any, Any, bytes]:
        """What finishes an answer the short way could not give at once (``answer``: its
        method, waiting; None: the message is not the usual query, answered the general way,
        as far as it goes at once)."""
        dispatcher = self.dispatcher
        if answer is not None:
            return dispatcher.finish(answer, context)
        answering = dispatcher.answer_in_general(message)
        try:
            awaited = context.run(answering.send, None)
        except StopIteration as done:
            payload: bytes = done.value
            return payload
        return _carry_on(answering, awaited, context)

    def _hand_on(self, started: Coroutine[Any, Any, bytes] | None, message: bytes,
                 context: contextvars.Context, as_text: bool) -> None:
        """The task finishes this answer (or, with ``started`` None, works it out), then the
        messages behind it."""
        self.waiting = True
        assert self.wake is not None
        self.wake.set_result((None if started is not None else message, started, context, as_text))

    def _start(self) -> asyncio.Task[None]:
        """The connection's own task, in a context where :data:`current_server` names this
        server (each answer's context a copy of it)."""
        trail = self.dispatcher.trail
        if current_server.get() is not trail:
            current_server.set(trail)
        if self.address is not None:
            peer.set(self.address)  # (whose share a New run counts in)
        self.loop = loop = asyncio.get_running_loop()
        self.wake = loop.create_future()
        self.task = loop.create_task(self._work())
        return self.task

    async def _work(self) -> None:
        """The connection's task: it finishes each answer that had to wait, then answers the
        messages that came meanwhile, until one is left to answer at once again."""
        loop = asyncio.get_running_loop()
        while True:
            assert self.wake is not None
            wake = self.wake
            try:
                message, started, context, as_text = await wake
            except asyncio.CancelledError:
                # A cancellation that came before this task took over the answer it was meant
                # for (a time-out already over when its method started waiting): passed on.
                if not self.open or not wake.done() or wake.cancelled():
                    raise
                message, started, context, as_text = wake.result()
                task = cast(asyncio.Task[None], asyncio.current_task())
                task.uncancel()
                task.cancel()
            self.wake = loop.create_future()
            try:
                while True:
                    if started is None:
                        assert message is not None
                        started = self._started(message, context)
                    answer = started if isinstance(started, bytes) else await started
                    self.write_answer(answer, as_text)
                    if not self.messages or not self.open:
                        break
                    message, as_text, ready = self.messages.popleft()
                    started, context = (message if ready else None), contextvars.copy_context()
                    if len(self.messages) < limits.WAITING // 2:
                        self.read_on("waiting")
            finally:
                self.waiting = False
            self._last_words()

    def _last_words(self) -> None:
        if self.last_words is not None and self.open and not self.messages:
            self.write(self.last_words)
            if self.transport is not None:
                self.transport.close()
            self.open = False

    def write(self, data: bytes) -> None:
        if self.transport is not None and not self.transport.is_closing():
            self.transport.write(data)


async def _carry_on(answering: Coroutine[Any, Any, bytes], awaited: Any, context: contextvars.Context) -> bytes:
    """The rest of an answer whose coroutine was started by hand and had to wait."""
    answer: bytes = await Resumed(answering, awaited, context)
    return answer
