"""One connection that carries queries in order: each is written as soon as it is asked, and
each answer read off the wire goes to the oldest asker still waiting (first in, first out).
The lean HTTP/1.1 client and the TCP binding's client differ only in how they cut answers out
of the byte stream; this is the rest they share.

An asker that gave up (its future cancelled) still has its answer read and dropped in turn,
so the next asker never receives it. :meth:`Pipeline.fail` closes the connection and fails
every asker still waiting, for when the stream can no longer be trusted.

Time-outs: one timer per connection, set for the earliest deadline of the askers it watches
(:meth:`Pipeline.watch`), in place of a timer per query (0.9 µs of CPU each to set and
cancel, measured here): answered askers are dropped from the watch as new ones come.
"""

from __future__ import annotations

import asyncio
from collections import deque
from typing import Generic, TypeVar, cast

Answer = TypeVar("Answer")


class Pipeline(asyncio.Protocol, Generic[Answer]):
    loop: asyncio.AbstractEventLoop  # the connection's, from when it is made

    def __init__(self) -> None:
        self.transport: asyncio.Transport | None = None
        self.waiters: deque[asyncio.Future[Answer]] = deque()
        self.closed = False
        self.watched: deque[tuple[float, asyncio.Future[Answer]]] = deque()  # (deadline, asker)
        self.alarm: asyncio.TimerHandle | None = None  # set for the earliest deadline watched
        self.alarm_at = 0.0

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        # a stream connection's transport (uvloop's is one in all but its class, so no isinstance)
        self.transport = cast(asyncio.Transport, transport)
        self.loop = asyncio.get_running_loop()

    def connection_lost(self, exc: Exception | None) -> None:
        self.closed = True
        self._fail_waiters(ConnectionResetError("the server closed the connection"))

    def send_all(self, data: bytes, count: int) -> list[asyncio.Future[Answer]]:
        """Write ``data`` (``count`` queries) in one write; a future for each one's answer."""
        loop = asyncio.get_running_loop()
        waiters = [loop.create_future() for _ in range(count)]
        self.waiters.extend(waiters)
        if self.transport is None:
            raise ConnectionError("not connected")
        self.transport.write(data)
        return waiters

    def send_one(self, data: bytes) -> asyncio.Future[Answer]:
        """Write ``data`` (one query); a future for its answer."""
        if self.transport is None:
            raise ConnectionError("not connected")
        waiter = self.loop.create_future()
        self.waiters.append(waiter)
        self.transport.write(data)
        return waiter

    def send_watched(self, data: bytes, timeout: float | None) -> asyncio.Future[Answer]:
        """:meth:`send_one` and :meth:`watch` in one (a query's every step)."""
        waiter = self.send_one(data)
        if timeout is not None:
            self.watch(waiter, timeout)
        return waiter

    def deliver(self, answer: Answer) -> None:
        """Hand one answer read off the wire to the oldest asker."""
        if not self.waiters:  # an answer nobody asked for: the stream is out of step
            self.fail(ConnectionError("the server sent an answer to no query"))
            return
        waiter = self.waiters.popleft()
        if not waiter.done():  # a cancelled asker's answer is read and dropped
            waiter.set_result(answer)

    async def answer(self, waiter: asyncio.Future[Answer], timeout: float | None) -> Answer:
        """The answer ``waiter`` stands for, or TimeoutError when it takes over ``timeout`` s."""
        self.watch(waiter, timeout)
        return await waiter

    def watch(self, waiter: asyncio.Future[Answer], timeout: float | None) -> None:
        """Fail ``waiter`` with TimeoutError unless it is done within ``timeout`` s from now."""
        if timeout is None:
            return
        deadline = self.loop.time() + timeout
        watched = self.watched
        while watched and watched[0][1].done():
            watched.popleft()
        watched.append((deadline, waiter))
        if self.alarm is None or deadline < self.alarm_at:
            self._set_alarm(deadline)

    def _set_alarm(self, deadline: float) -> None:
        if self.alarm is not None:
            self.alarm.cancel()
        self.alarm_at = deadline
        self.alarm = self.loop.call_at(deadline, self._ring)

    def _ring(self) -> None:
        """The earliest deadline came: those past it fail; the alarm is set for the next."""
        self.alarm = None
        now = self.loop.time()
        left: deque[tuple[float, asyncio.Future[Answer]]] = deque()
        for deadline, waiter in self.watched:
            if waiter.done():
                continue
            if deadline <= now:
                expire(waiter)
            else:
                left.append((deadline, waiter))
        self.watched = left
        if left:
            self._set_alarm(min(deadline for deadline, _ in left))

    def fail(self, exc: BaseException) -> None:
        """Close the connection; every query still waiting on it fails with ``exc``."""
        self.closed = True
        if self.transport is not None:
            self.transport.close()
        self._fail_waiters(exc)

    def _fail_waiters(self, exc: BaseException) -> None:
        if self.alarm is not None:
            self.alarm.cancel()
            self.alarm = None
        self.watched.clear()
        while self.waiters:
            waiter = self.waiters.popleft()
            if not waiter.done():
                waiter.set_exception(exc)


def expire(waiter: asyncio.Future[Answer]) -> None:
    """A time-out's timer callback: the answer did not come in time."""
    if not waiter.done():
        waiter.set_exception(TimeoutError())


def shortest(timeout: float | None, within: float | None) -> float | None:
    """The time-out in force: the client's own, shortened to ``within`` when that is given."""
    if within is None:
        return timeout
    return within if timeout is None else min(timeout, within)
