"""What the run service's modules share (issue 26, item 8): the service as its parts see it,
so driving, ending and recovering runs each live in a module of their own below the service.

:class:`RunHost` is :class:`~wwm.portal.runs.RunService` as :mod:`.rundriving`,
:mod:`.runsecrets` and :mod:`.runrecovery` use it (they take the service, and never import
the module that defines it); :class:`Running` is a run executing in the service's process,
:class:`Claimed` one taken over to resume and not yet driven.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, Protocol

from ..client.runner import RunSettings
from ..client.society import Society
from ..store import RunStore
from .live import LiveHub
from .runrecorder import PortalRecorder


@dataclass
class Running:
    """A run executing in this process: its task and its recorder."""

    task: asyncio.Task[None]
    recorder: PortalRecorder


@dataclass
class Claimed:
    """A run :meth:`RunService.recover` took over to resume (adopted in the store, not yet
    driven): its society document, its resume record, and how it was left."""

    run_id: int
    society: dict[str, Any]
    resume: dict[str, Any]
    left: str          # its status when claimed: "suspended at step k", or "interrupted" (a dead writer)


class Submits(Protocol):
    """What the service's parts ask of its executor (the whole of it: ``runs.Executor``)."""

    def submit(self, run_id: int, document: dict[str, Any], steps: int | None, *,
               resuming: str | None = None) -> None: ...

    def has(self, run_id: int) -> bool: ...


class RunHost(Protocol):
    """The run service, as the modules that drive, end and recover its runs use it."""

    _runs: dict[int, Running]
    _claimed: list[Claimed]
    _watcher: asyncio.Task[None] | None

    @property
    def store(self) -> RunStore: ...
    @property
    def hub(self) -> LiveHub: ...
    @property
    def poll(self) -> float: ...
    @property
    def sweep(self) -> float: ...
    @property
    def end_wait(self) -> float: ...
    @property
    def resumable(self) -> bool: ...
    @property
    def takes_over(self) -> bool: ...
    @property
    def _closed(self) -> bool: ...
    @property
    def executor(self) -> Submits | None: ...
    @property
    def on_finish(self) -> Callable[[int, str], None] | None: ...
    @property
    def guard(self) -> Callable[[Society], Awaitable[None]] | None: ...
    @property
    def pace_clock(self) -> Callable[[], float]: ...
    @property
    def pace_sleep(self) -> Callable[[float], Awaitable[object]]: ...

    def recover(self) -> list[tuple[int, str]]: ...

    def mark_lost(self, run_id: int, why: str = ..., *, current: str = "running", resumable: bool = False,
                  writer: tuple[str, int] | None = None) -> str | None: ...

    def check_end_secret(self, run_id: int, secret: str) -> bool: ...

    def _secret_row(self, run_id: int) -> Any: ...

    def _mark(self, run_id: int, status: str | None, kind: str, text: str, *,
              current: str = "running", writer: tuple[str, int] | None = None) -> str | None: ...

    def _resume_claimed(self) -> None: ...

    def _launch(self, run_id: int, society: Society, settings: RunSettings,
                finished: Callable[[str], None] | None = None, claimed: Claimed | None = None,
                counted: tuple[int, float] = (0, 0.0), pace: float | None = None) -> None: ...
