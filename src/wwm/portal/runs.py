"""The portal's run service (issue 14, items 5, 6 and 8): start a society's run in the
portal's process, end it with its owner's secret, and follow it live.

:class:`RunService` drives the project's own run loop (:class:`wwm.client.runner.Runner`,
with its time-outs and recovery policies) as an asyncio task, recording into the run store
(:class:`wwm.store.RunStore`) and publishing every step and event to a :class:`LiveHub`
(:mod:`.live`)::

    service = RunService("sqlite:///portal.db")       # resumes runs a stopped process left
    started = await service.start(document, steps=200, owner="user:42")
    started.run_id, started.end_secret                  # the secret is shown once, never kept
    service.check_end_secret(run_id, secret) -> bool    # constant-time
    await service.end(run_id, secret) -> EndedRun       # or EndRefused(code, reason)
    Mount("/", routes=service.routes())                 # GET /live/{run_id}: server-sent events
    await service.close()                               # its runs suspended, resumed by the next
                                                        # service (close(end_runs=True): ended)

This module is the service's one entry point (others import from it); each of its jobs has a
module of its own: :mod:`.rundriving` (the runs' tasks and the watcher), :mod:`.runsecrets`
(end secrets: how a run is ended, from any process on the database), :mod:`.runrecovery`
(a portal that stops mid-run: its runs resume; read there how, and how long a run can wait),
:mod:`.runrecorder` (what is recorded and published, and the statuses) and :mod:`.pacing`
(runs paced for watching).

**Runs beyond one machine** (item 8): ``RunService(db, executor=RayExecutor(address))``
(:mod:`.workers`) records the run here and executes it on a worker of a Ray cluster, which
adopts it in the store and drives it with a service of its own (``takes_over=False``: it
keeps its run's resume record and suspends it, but never takes runs over); everything above
holds there too, through the database: ``close()`` has the workers suspend their runs, and
the runs this service takes over go to new workers, which re-attach to the servers' runs
(see :mod:`.workers`).

Statuses a portal run ends with: the run loop's ("completed", "ended by world", "mind lost",
"mind failed", "world lost"), ``"ended by its owner"``, ``"interrupted at step k"`` (or
``"interrupted before its first step"``), and ``"could not start"`` (a server of the wrong
role, nothing listening, a refused New run: the reason is the run's ``run-ended`` event).
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import secrets
import time
from collections.abc import Awaitable, Callable
from typing import Any, Protocol

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route

from ..client.runner import RunSettings
from ..client.society import Society, SocietyError, parse
from ..store import RunStore, StoreError
from . import rundriving, runrecovery, runsecrets
from .fetching import Policy
from .live import LiveHub, live_events
from .pacing import MAX_PACE, check_pace, pace_of
from .runhost import Claimed, Running, Submits
from .runrecorder import COULD_NOT_START, DISPLAY_EVENTS, ENDED_BY_OWNER, SUSPENDED, interrupted_at, suspended_at
from .runsecrets import EndCode, EndedRun, EndRefused, StartedRun, run_secrets
from .store import migrate

__all__ = ["COULD_NOT_START", "DISPLAY_EVENTS", "ENDED_BY_OWNER", "MAX_PACE", "SUSPENDED", "EndCode", "EndedRun",
           "EndRefused", "Executor", "RunService", "StartedRun", "check_pace", "interrupted_at", "run_secrets",
           "suspended_at"]


class Executor(Submits, Protocol):
    """Where a started run executes when not in the portal's process (issue 14, item 8):
    :class:`wwm.portal.workers.RayExecutor` is the one there is. The service records the run
    and its secret first, then hands it over with ``submit``; the executor reports nothing
    back through the service except by the store (steps, end, status), and marks a run whose
    worker it lost with :meth:`RunService.mark_lost`. Runs the service takes over to resume
    (:meth:`RunService.recover`) are handed over the same way, with ``resuming``."""

    def bind(self, service: RunService) -> None:
        """Called once by the service it was given to; refuse a store the workers cannot reach."""

    def submit(self, run_id: int, document: dict[str, Any], steps: int | None, *,
               resuming: str | None = None) -> None:
        """Execute run ``run_id`` (recorded as "running", open in the service's store) on a
        worker, which adopts it in the store; returns at once (the executor follows the run in
        tasks of the running loop). ``resuming``: the run is carried on from its last recorded
        step under the servers' runs of its resume record, and was left so ("suspended at step
        k", or "interrupted": its writer died); None: a new run."""

    def has(self, run_id: int) -> bool:
        """Whether ``run_id`` is one of this executor's runs still executing."""

    async def wait(self, run_id: int) -> None:
        """Wait until ``run_id``'s worker is done with it (finished, or lost and marked)."""

    async def close(self, *, end_runs: bool = False) -> None:
        """Stop every run still executing and let the workers go: each run is suspended ("suspended
        at step k", resumed by the next service), or ended ("interrupted at step k") with
        ``end_runs``."""


class RunService:
    """Starts, ends and shows portal runs; see the module's docstring.

    ``db``: the run store's database URL (None: the store's default), or pass ``store``.
    ``poll``: how often the service looks for end requests made through the database;
    ``sweep``: how often it looks for runs whose process died.
    ``executor``: where started runs execute; None (the default) is this process, as tasks
    of its event loop; a :class:`wwm.portal.workers.RayExecutor` runs each on a worker of a
    Ray cluster, which writes its steps to the same store (the end request reaches it
    through the database, and viewers follow it through the store); the runs it takes over
    to resume go to the executor too.
    ``takes_over``: whether the service takes over the runs no process drives (:meth:`recover`);
    a Ray worker's service does not (finding them is the portals' job), but records and
    suspends its run as any resumable service does."""

    def __init__(self, db: str | None = None, *, store: RunStore | None = None, hub: LiveHub | None = None,
                 poll: float = 0.5, sweep: float = 10.0, end_wait: float = 30.0,
                 executor: Executor | None = None, resumable: bool = True, suspend_wait: float = 5.0,
                 takes_over: bool = True, on_finish: Callable[[int, str], None] | None = None,
                 pace_clock: Callable[[], float] = time.monotonic,
                 pace_sleep: Callable[[float], Awaitable[object]] = asyncio.sleep) -> None:
        self.store = store if store is not None else RunStore(db)
        self._own_store = store is None
        self.hub = hub or LiveHub()
        self.poll, self.sweep, self.end_wait = poll, sweep, end_wait
        self.resumable, self.suspend_wait, self.takes_over = resumable, suspend_wait, takes_over
        self.on_finish = on_finish
        # checks a society's servers before each connection (the portal's address policy:
        # fetching.society_guard); raises to refuse the run
        self.guard: Callable[[Society], Awaitable[None]] | None = None
        self.policy: Policy | None = None   # that policy, for the executor's workers to check it too
        self.pace_clock, self.pace_sleep = pace_clock, pace_sleep   # paced runs wait with these
        self._runs: dict[int, Running] = {}
        self._claimed: list[Claimed] = []
        self._watcher: asyncio.Task[None] | None = None
        self._closed = False
        with self.store._lock:
            migrate(self.store.engine)  # the portal's tables, the secrets' among them
        self.executor = executor
        if executor is not None:   # may refuse the store (an SQLite file, workers elsewhere)
            executor.bind(self)
        self.recovered = self.recover()
        # The sweep for runs whose process died runs from now on, not from the first run this
        # service starts, and the runs recover() took over resume now: a portal process that
        # only serves pages marks the runs of lost workers too. Made outside an event loop,
        # the service does both at activate() (the portal's lifespan), or with its first run.
        try:
            asyncio.get_running_loop()
        except RuntimeError:
            pass
        else:
            self.activate()

    def activate(self) -> None:
        """Start the watcher and resume the runs :meth:`recover` took over (call inside the
        event loop; done by the constructor when made in one)."""
        if self._closed:
            return
        self._ensure_watcher()
        self._resume_claimed()

    # ---- starting --------------------------------------------------------------------------
    async def start(self, document: dict[str, Any] | Society, *, steps: int | None, owner: str,
                    finished: Callable[[str], None] | None = None, pace: float | None = None) -> StartedRun:
        """Start ``document`` (a society document or a parsed :class:`Society`) for ``steps``
        steps (None: until ended, or until the World ends it) as a task of this process (or on
        the service's executor: a Ray worker); ``finished(status)`` is called (in the event
        loop) once the end is recorded by this process. ``pace``: steps per second, for
        watching (None, the default: flat out); kept in the resume record, so a resumed run
        keeps it (a run on an executor runs flat out).
        Raises :class:`~wwm.client.society.SocietyError` for a document that cannot run; a
        server that is down or of the wrong role is the run's own end ("could not start")."""
        if self._closed:
            raise RuntimeError("the run service is closed")
        society = document if isinstance(document, Society) else parse(document, source="the society document")
        if steps is not None and (not isinstance(steps, int) or isinstance(steps, bool) or steps < 1):
            raise SocietyError(f"steps must be a whole number of at least 1, or none (until ended), not {steps!r}")
        if not isinstance(owner, str) or not owner or len(owner) > 200:
            raise ValueError("owner must be 1 to 200 characters")
        pace = check_pace(pace)
        settings = dataclasses.replace(society.settings(), steps=steps)
        secret = secrets.token_urlsafe(32)
        self.activate()

        def record() -> int:
            run_id = self.store.start_run(
                mind_url=society.mind.url or f"local:{society.mind.class_}",
                world_url=society.world.url or f"local:{society.world.class_}",
                society=society.model_dump(by_alias=True, exclude_none=True),
                settings=settings.as_dict(), name=society.name)
            with self.store.writing() as conn:
                runsecrets.record_secret(conn, run_id, secret, owner)
            return run_id

        run_id = await asyncio.to_thread(record)
        refused = await self._refused_here(society) if self.executor is not None else None
        if refused is not None:        # checked before a worker connects: the run ends saying why
            await asyncio.to_thread(self._mark, run_id, COULD_NOT_START, "run-ended", refused)
        elif self.executor is not None:  # executed elsewhere: its hub is the worker's, viewers follow the store
            self.executor.submit(run_id, society.model_dump(by_alias=True, exclude_none=True), steps)
            self._ensure_watcher()
        else:
            self._launch(run_id, society, settings, finished, pace=pace)
        return StartedRun(run_id, secret)

    async def _refused_here(self, society: Society) -> str | None:
        """Why the guard refuses ``society`` (None: allowed, or no guard)."""
        if self.guard is None:
            return None
        try:
            await self.guard(society)
        except Exception as exc:  # noqa: BLE001 - the guard's refusal, said to the run's viewers
            return str(exc)
        return None

    async def execute(self, run_id: int, document: dict[str, Any], steps: int | None, *,
                      resuming: str | None = None) -> None:
        """Drive run ``run_id``, recorded by another process's :meth:`start` and adopted by
        this process's store (a worker of :mod:`.workers`), as a task of this process; end
        requests reach it through the database, as for any run of this service.
        ``resuming`` (how the run was left: "suspended at step k", or "interrupted"): carry it
        on from its last recorded step under the servers' runs of its resume record, as
        :meth:`recover` and :meth:`activate` do with the runs they take over."""
        if self._closed:
            raise RuntimeError("the run service is closed")
        society = parse(document, source="the society document")
        settings = dataclasses.replace(society.settings(), steps=steps)
        if resuming is None:
            self._launch(run_id, society, settings)
            return
        resume = await asyncio.to_thread(self.store.resume_of, run_id)
        if resume is None:
            raise StoreError(f"run {run_id} has no resume record (the servers' run IDs); it cannot be resumed")
        run = await asyncio.to_thread(self.store.get_run, run_id, max_steps=0)
        self._launch(run_id, society, settings, claimed=Claimed(run_id, document, resume, resuming),
                     counted=(run.step_count, run.total_score or 0.0), pace=pace_of(resume))

    def _launch(self, run_id: int, society: Society, settings: RunSettings,
                finished: Callable[[str], None] | None = None, claimed: Claimed | None = None,
                counted: tuple[int, float] = (0, 0.0), pace: float | None = None) -> None:
        rundriving.launch(self, run_id, society, settings, finished, claimed, counted, pace)

    # ---- ending (:mod:`.runsecrets`) --------------------------------------------------------
    def check_end_secret(self, run_id: int, secret: str) -> bool:
        """Whether ``secret`` is the end secret of ``run_id`` (used or not), compared in
        constant time (a run without one is compared against a dummy)."""
        return runsecrets.secret_matches(self._secret_row(run_id), secret)

    async def end(self, run_id: int, secret: str) -> EndedRun:
        """End ``run_id`` for its owner: the run loop stops after its current query, End run
        goes to both servers, and the run is recorded as "ended by its owner" with the steps
        it made. Raises :class:`EndRefused` for a wrong secret, a used one, a finished run."""
        return await runsecrets.end(self, run_id, secret)

    def _secret_row(self, run_id: int) -> Any:
        return runsecrets.secret_row(self.store, run_id)

    # ---- runs left by dead processes (:mod:`.runrecovery`) ----------------------------------
    def recover(self) -> list[tuple[int, str]]:
        """Take over every portal run no process is driving (see :func:`.runrecovery.recover`):
        resumed here (``(run ID, "resuming")``, driven by :meth:`activate`), or marked
        "interrupted at step k" or "ended by its owner". Returns the (run ID, what was done)
        pairs."""
        return runrecovery.recover(self)

    def mark_lost(self, run_id: int, why: str = "the process running it stopped before the run ended", *,
                  current: str = "running", resumable: bool = False,
                  writer: tuple[str, int] | None = None) -> str | None:
        """Finish a portal run whose executing process is gone, with the steps it recorded
        (see :func:`.runrecovery.mark_lost`); None if the run was finished meanwhile."""
        return runrecovery.mark_lost(self, run_id, why, current=current, resumable=resumable, writer=writer)

    def _mark(self, run_id: int, status: str | None, kind: str, text: str, *,
              current: str = "running", writer: tuple[str, int] | None = None) -> str | None:
        return runrecovery.mark(self.store, run_id, status, kind, text, current=current, writer=writer)

    def _resume_claimed(self) -> None:
        runrecovery.resume_claimed(self)

    def _ensure_watcher(self) -> None:
        rundriving.ensure_watcher(self)

    # ---- reading, live, closing ------------------------------------------------------------
    def is_running_here(self, run_id: int) -> bool:
        return run_id in self._runs

    def owner_of(self, run_id: int) -> str | None:
        row = self._secret_row(run_id)
        return None if row is None else str(row["owner"])

    def runs_of(self, owner: str) -> list[int]:
        """The IDs of the runs ``owner`` started, newest first."""
        return runsecrets.runs_of(self.store, owner)

    async def wait(self, run_id: int) -> str:
        """Wait for a run executing here (or on this service's executor) to finish; its status."""
        running = self._runs.get(run_id)
        if running is not None:
            await asyncio.wait([running.task])
        elif self.executor is not None and self.executor.has(run_id):
            await self.executor.wait(run_id)
        return (await asyncio.to_thread(self.store.get_run, run_id, max_steps=0)).status

    async def live_events(self, run_id: int) -> Response:
        """Server-sent events of ``run_id`` for one viewer (see :mod:`.live`)."""
        return await live_events(run_id, self.hub, self.store, poll=self.poll)

    def routes(self) -> list[BaseRoute]:
        """``GET /live/{run_id}``: the live updates of a run, as server-sent events."""

        async def live(request: Request) -> Response:
            return await self.live_events(request.path_params["run_id"])

        return [Route("/live/{run_id:int}", live, methods=["GET"])]

    async def close(self, *, end_runs: bool = False) -> None:
        """Stop the watcher and this process's runs, then close the store if the service
        opened it. By default (a resumable service) the runs are *suspended*: each stops at
        its next step boundary (or after ``suspend_wait`` seconds, cancelled), End run is not
        sent, so the servers keep their runs, and the run is left "suspended at step k" for the
        next service on the database to resume. ``end_runs=True`` (or a service that is not
        resumable) ends them instead: End run to the servers, "interrupted at step k"."""
        if self._closed:
            return
        self._closed = True
        if self._watcher is not None:
            if self._watcher.get_loop() is asyncio.get_running_loop():
                self._watcher.cancel()
                await asyncio.wait([self._watcher])
            else:  # awaiting a task of another loop would never wake this one
                rundriving.cancel_elsewhere(self._watcher)
        suspend = self.resumable and not end_runs
        for claim in self._claimed:  # taken over but never driven: suspended again, for the next service
            with contextlib.suppress(StoreError):
                count = (await asyncio.to_thread(self.store.get_run, claim.run_id, max_steps=0)).step_count
                await asyncio.to_thread(self.store.suspend_run, claim.run_id, suspended_at(count))
        self._claimed.clear()
        running = list(self._runs.values())
        if suspend and running:
            for r in running:
                r.recorder.suspending = True
                if r.recorder.runner is not None:
                    r.recorder.runner.suspend()
            await asyncio.wait([r.task for r in running], timeout=self.suspend_wait)
        tasks = [r.task for r in running if not r.task.done()]
        for task in tasks:
            task.cancel()
        if tasks:
            await asyncio.wait(tasks)
        if self.executor is not None:  # its runs stop as this process's do, before the store closes
            await self.executor.close(end_runs=not suspend)
        if self._own_store:
            await asyncio.to_thread(self.store.close)

    async def __aenter__(self) -> RunService:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

