"""A run's kept answers: what lets a server answer a query sent again (its answer lost on
the way, or its server killed after acting) without acting on it twice.

See :mod:`wwm.protocol.sequence` for the protocol: a query that changes a run may carry a
``sequence number``; the answers of a run's last few numbered queries are kept here (and
saved by the run table with the run's own state, in one row, so a ``kill -9`` cannot keep
the one without the other); a number among them is answered from what was kept. A number
being acted on when it comes again (a slow method whose client timed out and sent the query
once more) waits for the first to finish, then is answered with its answer.
"""

from __future__ import annotations

import asyncio
from collections import deque

import orjson

from ..protocol.errors import Refusal
from ..protocol.queries import Wire
from ..protocol.sequence import KEPT, REPEATED, SEQUENCE


class Answers:
    """The answers kept for one run, newest last: ``(number, method, data)`` each."""

    __slots__ = ("kept", "acting")

    def __init__(self, kept: list[tuple[int, str, dict[str, Wire]]] | None = None) -> None:
        self.kept: deque[tuple[int, str, dict[str, Wire]]] = deque(kept or (), maxlen=KEPT)
        self.acting: dict[int, asyncio.Event] = {}  # numbers being acted on now

    def fresh(self, number: int) -> bool:
        """Whether ``number`` is neither kept nor being acted on (then it is acted on)."""
        if number in self.acting:
            return False
        for kept in self.kept:  # noqa: SIM110 - a loop: asked on every numbered step, all() costs a generator
            if kept[0] == number:
                return False
        return True

    async def repeat(self, number: int, method: str, query: str) -> dict[str, Wire] | None:
        """The kept answer to ``number`` marked as repeated (after waiting for it, if it is
        being acted on now); None when it is to be acted on. A number kept for another
        query is refused: the client reused it by mistake."""
        while (acting := self.acting.get(number)) is not None:
            await acting.wait()
        for kept, kept_method, data in self.kept:
            if kept == number:
                if kept_method != method:
                    raise Refusal("bad-parameters", f'{query}: "{SEQUENCE}" {number} was given to another '
                                  f"query of this run ({kept_method}); a query sent again keeps its own number")
                return {**data, REPEATED: True}
        return None

    def begin(self, number: int) -> None:
        """``number`` is being acted on: a repeat of it waits (:meth:`repeat`)."""
        self.acting[number] = asyncio.Event()

    def done(self, number: int) -> None:
        event = self.acting.pop(number, None)
        if event is not None:
            event.set()

    def keep(self, number: int, method: str, data: dict[str, Wire]) -> None:
        self.kept.append((number, method, data))  # (the oldest drops out: maxlen)

    # ---- in a snapshot ----------------------------------------------------------------------
    def dumps(self) -> str:
        return orjson.dumps(list(self.kept)).decode()

    @classmethod
    def loads(cls, text: str | None) -> Answers | None:
        """The answers saved as ``text`` (None: none were, or they cannot be read)."""
        if not text:
            return None
        try:
            rows = orjson.loads(text)
            kept = [(int(number), str(method), dict(data)) for number, method, data in rows]
        except (orjson.JSONDecodeError, TypeError, ValueError):
            return None
        return cls(kept[-KEPT:])
