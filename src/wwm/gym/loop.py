"""Synchronous calls into the async client, for Gymnasium's and PettingZoo's synchronous
APIs: :class:`SyncLoop` runs coroutines on one event loop for the life of an env (the
client's connections belong to it).

Made where no event loop runs (a script, a training loop) it is an ``asyncio.Runner`` driven
in the caller's thread (asyncio's own loop: uvloop starts each run_until_complete slower, and
a step is one of those). Made inside a running
loop (a notebook cell) it runs its loop in a thread of its own, and each call hops to it
(the hop is two thread wake-ups; benchmarks/gym_env.py measures both).
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Coroutine
from typing import Any, TypeVar

T = TypeVar("T")


class SyncLoop:
    """One event loop to run an env's coroutines to completion, synchronously."""

    def __init__(self) -> None:
        try:
            asyncio.get_running_loop()
            inside_a_loop = True
        except RuntimeError:
            inside_a_loop = False
        self._runner: asyncio.Runner | None = None
        self._thread: threading.Thread | None = None
        if inside_a_loop:
            self._loop = asyncio.new_event_loop()
            self._thread = threading.Thread(target=self._loop.run_forever, name="wwm-gym-loop", daemon=True)
            self._thread.start()
        else:
            self._runner = asyncio.Runner()

    @property
    def threaded(self) -> bool:
        return self._thread is not None

    def run(self, coro: Coroutine[Any, Any, T]) -> T:
        if self._runner is not None:
            return self._runner.run(coro)
        return asyncio.run_coroutine_threadsafe(coro, self._loop).result()

    def close(self) -> None:
        if self._runner is not None:
            self._runner.close()
        elif self._thread is not None:
            self._loop.call_soon_threadsafe(self._loop.stop)
            self._thread.join(timeout=5)
            self._loop.close()
