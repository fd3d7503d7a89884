"""Live updates of portal runs (issue 14, item 5): a pub/sub hub the run loop publishes to,
and a server-sent-events stream any number of viewers follow.

Messages (each an SSE ``event:`` name with a JSON ``data:``):

- ``record``: sent first to every viewer, the run so far from the run store: ``run`` (its
  summary: status, URLs, step count, total, scores), ``steps`` (the last ``max_record_steps``
  of them, ``first_step`` the index of the first one sent, ``total_before`` the score of the
  steps left out) and ``events``.
- ``step``: one step as the run loop recorded it: ``step``, ``state``, ``action``,
  ``new_state``, ``score``, ``total`` (the score so far), ``note``, ``at`` (the publisher's
  clock, seconds since the epoch, for measuring the delay to a viewer).
- ``event``: ``seq`` (0, 1, ... within the run), ``step``, ``kind`` ("mind-error",
  "timeout", "world-down", "ended-by-owner", ...) and ``text``.
- ``gap``: ``dropped``, the number of messages a slow viewer missed (see below).
- ``picture``: the World's latest drawing of the run (:mod:`.pictures`): ``svg``, ``caption``,
  ``legend`` and ``version``; sent after the record and after steps, when the drawing changed
  (only to the streams given a :class:`~.pictures.Pictures`: the run pages').
- ``end``: the run's final ``status``, ``steps``, ``total_score``, ``world_score`` and
  ``mind_score``, and ``says``: the status in plain words; the stream closes after it.

A viewer never misses or repeats a step between the record and the pushed steps: it
subscribes first, then the store's queue is written and the record read, and pushed steps
the record already holds are skipped (by step index; events by ``seq``).

**Slow viewers never slow the run.** Publishing only appends to each viewer's bounded queue
(``queue_size`` messages, 256 by default) and wakes it; a viewer that falls behind loses the
*oldest* queued messages (drop-oldest), and is told how many with a ``gap`` message before
the next one it gets, so a page can re-read the record if it cares. The ``end`` message is
kept apart from the queue and is never dropped.

**One encoding per message, one write per wake-up.** A published message is encoded to JSON
once, by the first viewer that sends it, and shared by every viewer of the run (a viewer adds
only its own ``id:`` line). A viewer sends everything queued when it wakes as one chunk (one
socket write), and the hub wakes a run's viewers at most every ``flush_every`` seconds
(0.05 by default; a run that steps more slowly is sent each step at once): with a fast run
and many viewers the cost is per wake-up, not per step and viewer.

**Runs executed by another process** (another portal worker): the hub of this process has no
channel for them, so the stream follows the run store instead, reading new steps and events
every ``poll`` seconds until the run finishes (or its writer is found dead: "interrupted").
"""

from __future__ import annotations

import asyncio
import collections
import json
import time
from collections.abc import AsyncGenerator, AsyncIterator
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from sse_starlette import EventSourceResponse
from starlette.responses import PlainTextResponse, Response

from ..store import RunStore, StepRecord, UnknownRun
from ..store.records import EventRecord, RunDetail
from .pictures import Picture, Pictures
from .watching import status_words

Message = dict[str, Any]


def step_message(step: Any, total: float) -> Message:
    """A ``step`` message from a run loop step (or a :class:`StepRecord`)."""
    return {"step": step.index, "state": step.state, "action": step.action, "new_state": step.new_state,
            "score": step.score, "total": total, "note": step.note, "at": time.time()}


def event_message(seq: int, step: int, kind: str, text: str, at: datetime | None = None) -> Message:
    return {"seq": seq, "step": step, "kind": kind, "text": text,
            "at": at.timestamp() if at is not None else time.time()}


def end_message(status: str, steps: int, total_score: float | None, world_score: float | None = None,
                mind_score: float | None = None) -> Message:
    return {"status": status, "steps": steps, "total_score": total_score, "world_score": world_score,
            "mind_score": mind_score, "says": status_words(status, steps, total_score)}


class Shared(dict[str, Any]):
    """A published message, shared by every viewer of its run: its JSON is made once."""

    __slots__ = ("_json",)

    def json(self) -> str:
        try:
            return self._json
        except AttributeError:
            self._json: str = json.dumps(self, allow_nan=False, default=str)
            return self._json


@dataclass(eq=False)
class Subscription:
    """One viewer's queue on one run: bounded, drop-oldest, with the end kept apart."""

    size: int
    queue: collections.deque[tuple[str, Message]] = field(init=False)
    dropped: int = 0           # messages lost since the viewer last read (reported as a gap)
    dropped_total: int = 0
    end: Message | None = None
    _ended: bool = False
    _wake: asyncio.Event = field(default_factory=asyncio.Event)

    def __post_init__(self) -> None:
        self.queue = collections.deque()

    def put(self, kind: str, message: Message, *, wake: bool = True) -> None:
        """Queue a message; ``wake=False`` leaves waking the viewer to :meth:`wake` (the hub
        wakes a run's viewers together, at most every ``flush_every`` seconds)."""
        if len(self.queue) >= self.size:
            self.queue.popleft()
            self.dropped += 1
            self.dropped_total += 1
        self.queue.append((kind, message))
        if wake:
            self._wake.set()

    def wake(self) -> None:
        self._wake.set()

    def finish(self, message: Message) -> None:
        self.end = message
        self._wake.set()

    def _take(self) -> tuple[str, Message] | None:
        """The next message if there is one now (the end once, after the rest), else None."""
        if self.dropped:
            dropped, self.dropped = self.dropped, 0
            return "gap", {"dropped": dropped}
        if self.queue:
            return self.queue.popleft()
        if self.end is not None and not self._ended:
            self._ended = True
            return "end", self.end
        return None

    async def next(self) -> tuple[str, Message] | None:
        """The next message (``gap`` first if some were dropped); ``("end", ...)`` after the
        last one, then None."""
        while (item := self._take()) is None:
            if self._ended:
                return None
            self._wake.clear()
            await self._wake.wait()
        return item

    async def batch(self) -> list[tuple[str, Message]]:
        """Every message there is now, waiting for the first one (in :meth:`next`'s order);
        empty once the end has been taken."""
        first = await self.next()
        if first is None:
            return []
        got = [first]
        while got[-1][0] != "end" and (item := self._take()) is not None:
            got.append(item)
        return got


class _Channel:
    def __init__(self) -> None:
        self.subscribers: set[Subscription] = set()
        self.events = 0  # events published so far: the next one's seq
        self.flushed = 0.0  # when the viewers were last woken (the loop's clock)
        self.timer: asyncio.TimerHandle | None = None

    def flush(self) -> None:
        self.timer = None
        self.flushed = asyncio.get_running_loop().time()
        for sub in self.subscribers:
            sub.wake()


class LiveHub:
    """Channels of the runs this process executes; the run loop publishes, viewers subscribe.
    Every method is called from the event loop's thread (publishing is synchronous and cheap)."""

    def __init__(self, queue_size: int = 256, flush_every: float = 0.05) -> None:
        self.queue_size = queue_size
        self.flush_every = flush_every
        self._channels: dict[int, _Channel] = {}

    def open(self, run_id: int) -> None:
        """A run starts here: viewers may subscribe to it from now on."""
        self._channels.setdefault(run_id, _Channel())

    def is_live(self, run_id: int) -> bool:
        return run_id in self._channels

    def viewers(self, run_id: int) -> int:
        channel = self._channels.get(run_id)
        return len(channel.subscribers) if channel else 0

    def subscribe(self, run_id: int) -> Subscription | None:
        """A new viewer's queue, or None when the run is not executing in this process."""
        channel = self._channels.get(run_id)
        if channel is None:
            return None
        sub = Subscription(self.queue_size)
        channel.subscribers.add(sub)
        return sub

    def unsubscribe(self, run_id: int, sub: Subscription) -> None:
        channel = self._channels.get(run_id)
        if channel is not None:
            channel.subscribers.discard(sub)

    def publish_step(self, run_id: int, message: Message) -> None:
        self._publish(run_id, "step", message)

    def publish_event(self, run_id: int, step: int, kind: str, text: str) -> None:
        channel = self._channels.get(run_id)
        if channel is None:
            return
        message = event_message(channel.events, step, kind, text)
        channel.events += 1
        self._publish(run_id, "event", message)

    def finish(self, run_id: int, message: Message) -> None:
        """The run has ended (and its end is in the store): every viewer gets ``end`` after
        what it has queued, and the channel goes; later viewers read the store."""
        channel = self._channels.pop(run_id, None)
        if channel is not None:
            if channel.timer is not None:
                channel.timer.cancel()
            for sub in channel.subscribers:
                sub.finish(message)

    def _publish(self, run_id: int, kind: str, message: Message) -> None:
        channel = self._channels.get(run_id)
        if channel is None or not channel.subscribers:
            return
        shared = Shared(message)
        for sub in channel.subscribers:
            sub.put(kind, shared, wake=False)
        if channel.timer is None:  # wake the viewers now, or once flush_every has passed
            loop = asyncio.get_running_loop()
            wait = channel.flushed + self.flush_every - loop.time()
            if wait <= 0:
                channel.flush()
            else:
                channel.timer = loop.call_later(wait, channel.flush)


def _step_dict(step: StepRecord, total: float) -> Message:
    return {"step": step.index, "state": step.state, "action": step.action, "new_state": step.new_state,
            "score": step.score, "total": total, "note": step.note}


def _run_dict(run: RunDetail) -> Message:
    return {"id": run.id, "name": run.name, "status": run.status, "mind_url": run.mind_url,
            "world_url": run.world_url, "step_count": run.step_count, "total_score": run.total_score,
            "world_score": run.world_score, "mind_score": run.mind_score,
            "started_at": run.started_at.isoformat(),
            "finished_at": run.finished_at.isoformat() if run.finished_at else None}


def _sse(kind: str, message: Message, seq: int) -> bytes:
    """One SSE message, as ``sse_starlette`` would write it (``id``, ``event``, ``data``)."""
    return _frame(kind, message, seq).encode()


def _frame(kind: str, message: Message, seq: int) -> str:
    data = message.json() if isinstance(message, Shared) else json.dumps(message, allow_nan=False, default=str)
    return f"id: {seq}\r\nevent: {kind}\r\ndata: {data}\r\n\r\n"   # JSON has no line breaks


UNSETTLED_FOR = 30.0  # seconds a viewer waits for a dead process's run to be marked or resumed


PICTURE_WAIT = 0.1   # seconds a viewer's stream waits for a drawing being fetched (else: the next time)


class _Drawings:
    """One viewer's side of the World's pictures: where the World shows the run (its
    ``world-display`` event), and the version of the picture the viewer has."""

    def __init__(self, run_id: int, pictures: Pictures | None, events: list[EventRecord]) -> None:
        self.run_id, self.pictures, self.version = run_id, pictures, 0
        self.url = next((e.text for e in events if e.kind == "world-display"), None)

    def saw(self, kind: str, message: Message) -> None:
        if kind == "event" and message.get("kind") == "world-display":
            self.url = str(message.get("text") or "") or None

    async def frame(self, seq: int) -> str | None:
        """The ``picture`` frame if the World's drawing changed since this viewer's last."""
        if self.pictures is None or self.url is None:
            return None
        picture: Picture | None = await self.pictures.latest(self.run_id, self.url, wait=PICTURE_WAIT)
        if picture is None or picture.version <= self.version:
            return None
        self.version = picture.version
        return f"id: {seq}\r\nevent: picture\r\ndata: {picture.encoded}\r\n\r\n"   # encoded once, for all


async def stream(run_id: int, hub: LiveHub, store: RunStore, *, poll: float = 0.5,
                 max_record_steps: int = 5000, pictures: Pictures | None = None) -> AsyncGenerator[bytes, None]:
    """The SSE messages of one viewer of ``run_id`` (see the module's docstring). Raises
    :class:`~wwm.store.UnknownRun` before the first message if there is no such run.
    ``pictures``: the World's drawings are sent too, as they change."""
    sub = hub.subscribe(run_id)  # first, so nothing published from now on is missed
    try:
        if sub is not None:
            await asyncio.to_thread(store.flush)  # everything published before is in the store
        head = await asyncio.to_thread(store.get_run, run_id, max_steps=0)
        first = max(0, head.step_count - max_record_steps)
        record = await asyncio.to_thread(store.get_run, run_id, from_step=first)
        sent = 0
        before = (record.total_score or 0.0) - sum(s.score or 0.0 for s in record.steps)
        total = before
        steps = []
        for s in record.steps:
            total += s.score or 0.0
            steps.append(_step_dict(s, total))
        last_step = record.steps[-1].index if record.steps else -1
        events_seen = len(record.events)
        yield _sse("record", {"run": _run_dict(record), "first_step": first, "total_before": before,
                              "steps": steps, "events": [event_message(i, e.step, e.kind, e.text, e.at)
                                                         for i, e in enumerate(record.events)]}, sent)
        drawings = _Drawings(run_id, pictures, record.events)
        if (drawn := await drawings.frame(sent + 1)) is not None:
            sent += 1
            yield drawn.encode()
        if sub is not None:
            while batch := await sub.batch():  # everything queued, as one chunk (one write)
                frames, end = [], None
                for kind, message in batch:
                    if kind == "step" and message["step"] <= last_step:
                        continue
                    if kind == "event" and message["seq"] < events_seen:
                        continue
                    drawings.saw(kind, message)
                    sent += 1
                    if kind == "end":
                        end = message
                    else:
                        frames.append(_frame(kind, message, sent))
                if frames:
                    yield "".join(frames).encode()
                if (drawn := await drawings.frame(sent + 1)) is not None:   # the World as it is now
                    sent += 1
                    yield drawn.encode()
                if end is not None:
                    sent += 1
                    yield _sse("end", end, sent)
            return
        # Not executing here: finished, or run by another process (follow the store). A run not
        # finished that is not running either (its process died and it reads as "interrupted", or
        # it is "suspended at step k") is about to be marked, or resumed, by a portal's sweep:
        # followed a while longer, so the viewer learns which (and the step it stopped at).
        run = record
        loop = asyncio.get_running_loop()
        unsettled_since: float | None = None
        while run.status == "running" or run.finished_at is None:
            if run.status == "running":
                unsettled_since = None
            elif unsettled_since is None:
                unsettled_since = loop.time()
            elif loop.time() - unsettled_since > UNSETTLED_FOR:
                break  # nobody marks or resumes it: the viewer is told what the store says
            await asyncio.sleep(poll)
            run = await asyncio.to_thread(store.get_run, run_id, from_step=last_step + 1)
            for s in run.steps:
                total += s.score or 0.0
                sent += 1
                yield _sse("step", {**_step_dict(s, total), "at": None}, sent)
                last_step = s.index
            new: list[EventRecord] = run.events[events_seen:]
            for i, e in enumerate(new, start=events_seen):
                sent += 1
                yield _sse("event", event_message(i, e.step, e.kind, e.text, e.at), sent)
            events_seen = len(run.events)
            for e in new:
                drawings.saw("event", {"kind": e.kind, "text": e.text})
            if (run.steps or new) and (drawn := await drawings.frame(sent + 1)) is not None:
                sent += 1
                yield drawn.encode()
        sent += 1
        yield _sse("end", end_message(run.status, run.step_count, run.total_score, run.world_score,
                                      run.mind_score), sent)
    finally:
        if sub is not None:
            hub.unsubscribe(run_id, sub)


async def live_events(run_id: int, hub: LiveHub, store: RunStore, *, poll: float = 0.5,
                      max_record_steps: int = 5000, ping: float = 15.0, pictures: Pictures | None = None) -> Response:
    """The SSE response for one viewer of ``run_id``: 404 with a sentence for a run that
    does not exist. ``pictures``: the World's drawings are sent too."""
    messages = stream(run_id, hub, store, poll=poll, max_record_steps=max_record_steps, pictures=pictures)
    try:
        first = await anext(messages)
    except UnknownRun:
        await messages.aclose()
        return PlainTextResponse(f"there is no run {run_id}", status_code=404)

    async def everything() -> AsyncIterator[bytes]:
        try:
            yield first
            async for message in messages:
                yield message
        finally:
            await messages.aclose()

    return EventSourceResponse(everything(), ping=ping, send_timeout=30.0,
                               headers={"Cache-Control": "no-store"})
