"""Carrying on a coroutine started by hand (its first step run at once, outside any task)
that stopped to wait: what the persistent bindings do with an answer that has to wait."""

from __future__ import annotations

import contextvars
from collections.abc import Coroutine, Generator
from typing import Any


class Resumed:
    """Awaiting this carries on a coroutine already started by hand, which stopped to wait for
    ``awaited`` (what its first ``send`` gave): the task awaiting it waits for that in its
    place, and what the task is sent or thrown (a cancellation) goes on to the coroutine, each
    step run in ``context`` (the coroutine's own, where it started), when given."""

    __slots__ = ("coroutine", "awaited", "context")

    def __init__(self, coroutine: Coroutine[Any, Any, Any], awaited: Any,
                 context: contextvars.Context | None = None) -> None:
        self.coroutine, self.awaited, self.context = coroutine, awaited, context

    def __await__(self) -> Generator[Any, Any, Any]:
        coroutine, awaited = self.coroutine, self.awaited
        run = self.context.run if self.context is not None else _call
        while True:
            try:
                sent = yield awaited
            except GeneratorExit:  # closed unfinished (its task was dropped): the coroutine too
                coroutine.close()
                raise
            except BaseException as exc:  # thrown into the task (a cancellation): the coroutine's to handle
                try:
                    awaited = run(coroutine.throw, exc)
                except StopIteration as done:
                    return done.value
                continue
            try:
                awaited = run(coroutine.send, sent)
            except StopIteration as done:
                return done.value


def _call(function: Any, argument: Any) -> Any:
    return function(argument)
