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

**End secrets** live in the database (table ``portal_run_secrets``, made by the portal's
migrations, which the service applies to the run store's database: the portal keeps its own
tables and the run records in one database): only their SHA-256 is kept (a 256-bit random token needs no slow hash), and
the comparison is constant-time. The table also holds when the end was asked for, so a
secret ends a run once and a reused one is refused saying when it was used. Because the
request is in the database, any process on it can end any portal run: the process executing
the run notices within ``poll`` seconds and stops it (a portal with several workers).

**A portal that stops mid-run: its runs resume.** A run's state is the servers', under the
run IDs the World and the top Mind gave at New run; the client holds only those and the step
count. So the service keeps, in the run's row (the store's ``resume`` column, never in its
public events: a run ID is the key to the run on its server), the World's and the Mind's URLs,
bindings and run IDs and the steps asked, once New run has answered. Then:

- ``close()`` (Ctrl-C, SIGTERM: the portal's lifespan) *suspends* its runs: each stops at its
  next step boundary (cancelled after ``suspend_wait`` seconds if a query hangs), End run is
  *not* sent, and the run is left ``"suspended at step k"``. ``close(end_runs=True)`` (``wwm
  portal --end-runs-on-exit``) ends them instead, as before: End run, "interrupted at step k".
- A new service on the database (its constructor, and every ``sweep`` seconds) takes over each
  suspended run and each run whose writer died (the store knows: its process is gone from this
  host, or its heartbeat is older than 30 s), adopting it in the store (one process wins), and
  carries it on: the recorded run IDs re-attached (no New run), Get state first, then the run
  loop from step k + 1 to the steps asked, with the same run ID in the store, the same end
  secret, viewers as for any run (``recovered`` lists them as ``(run ID, "resuming")``).
- After a process that died (kill -9) the Execute action of step k + 1 may have been sent and
  not recorded (and a buffered moment of steps may not have been written): the resumed run
  says so in a ``step-maybe-lost`` event, comparing the World's state with the one step k left.
  Nothing is ever sent again.
- A server that no longer knows the run (``unknown-run``: its idle time-out passed, it
  restarted without snapshots) or does not answer within the run's ``start_wait`` leaves the
  run ``"interrupted at step k"``, with steps 0..k as recorded and the reason in its
  ``interrupted`` event. So does a run without a resume record (one that never got its run
  IDs), as before.

**How long a run can wait.** Servers drop a run silent for ``idle_seconds`` (``wwm serve
--idle-timeout``, 3600 s by default; swept every 30 s); an exclusive world frees itself for
another client after ``lease_seconds`` (30 s by default) without a query. A suspended run
resumes if the portal is back within that: an hour, on default servers. Only runs started by
a portal (with a secret) are taken over; ``wwm run``'s runs are left to ``wwm runs``.

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
import hashlib
import hmac
import logging
import math
import secrets
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, Literal, Protocol

from sqlalchemy import Table, func, insert, select, update
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route

from ..client.remote import RemoteMind, RemoteWorld
from ..client.runner import Runner, RunSettings
from ..client.session import check_servers
from ..client.society import Society, SocietyError, parse
from ..protocol.errors import Refusal
from ..protocol.records import Event, RunResult, Step
from ..store import RunStore, StoreError, StoreRecorder, UnknownRun, schema
from .live import LiveHub, end_message, live_events, step_message
from .models import RunSecret
from .store import migrate

log = logging.getLogger(__name__)

ENDED_BY_OWNER = "ended by its owner"
COULD_NOT_START = "could not start"
SUSPENDED = "suspended"   # "suspended at step k": a closed service left it to the next one

DISPLAY_EVENTS = {"world-display": "world", "mind-display": "mind"}   # event kind -> whose display URL

run_secrets: Table = RunSecret.__table__  # type: ignore[assignment]

_DUMMY = hashlib.sha256(b"no such run").hexdigest()


def interrupted_at(steps: int) -> str:
    """The status of a run that stopped without ending, after ``steps`` recorded steps."""
    return f"interrupted at step {steps - 1}" if steps else "interrupted before its first step"


def suspended_at(steps: int) -> str:
    """The status of a run a closing service left for the next one to resume."""
    return f"{SUSPENDED} at step {steps - 1}" if steps else f"{SUSPENDED} before its first step"


MAX_PACE = 100.0   # steps per second a paced run may ask for (beyond it, run flat out)


def check_pace(pace: float | None) -> float | None:
    """A run's pace (steps per second, None: flat out), checked; a ValueError says what is wrong."""
    if pace is None:
        return None
    if isinstance(pace, bool) or not isinstance(pace, (int, float)) or not math.isfinite(pace) \
            or not 0 < pace <= MAX_PACE:
        raise ValueError(f"the pace must be a number of steps per second above 0 and at most {MAX_PACE:g}, "
                         f"or none (flat out), not {pace!r}")
    return float(pace)


class _PacedRunner(Runner):
    """The run loop paced for watching: each step starts no sooner than 1/``pace`` seconds
    after the one before (the pause is at the step boundary, before the Mind is asked, so it
    counts against no query's time-out). ``clock`` and ``sleep`` are injectable for tests."""

    def __init__(self, *args: Any, pace: float, clock: Callable[[], float],
                 sleep: Callable[[float], Awaitable[object]], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.interval, self.clock, self.sleep = 1.0 / pace, clock, sleep
        self._last: float | None = None

    async def _ask_mind(self, *args: Any, **kwargs: Any) -> Any:
        if self._last is not None:
            wait = self._last + self.interval - self.clock()
            if wait > 0:
                await self.sleep(wait)
        self._last = self.clock()
        return await super()._ask_mind(*args, **kwargs)


class _CannotResume(Exception):
    """A suspended or orphaned run cannot be carried on; the text says why."""


@dataclass(frozen=True)
class StartedRun:
    """A run just started: its run-store ID and the secret that ends it (shown once)."""

    run_id: int
    end_secret: str


@dataclass(frozen=True)
class EndedRun:
    run_id: int
    status: str
    steps: int


EndCode = Literal["unknown-run", "not-a-portal-run", "wrong-secret", "already-ended", "already-finished",
                  "still-running"]


class EndRefused(Exception):
    """``end`` did not end the run; ``code`` says which case, ``reason`` says it to a person."""

    def __init__(self, code: EndCode, reason: str) -> None:
        super().__init__(reason)
        self.code: EndCode = code
        self.reason = reason


def _hash(secret: str) -> str:
    return hashlib.sha256(secret.encode("utf-8", "surrogatepass")).hexdigest()


class _PortalRecorder(StoreRecorder):
    """The store's recorder for a run whose row the service made already, which also
    publishes each step and event to the hub, names the portal's own end statuses, keeps
    what resuming the run needs (the servers' run IDs) and suspends it when the service
    closes without ending its runs."""

    def __init__(self, service: RunService, run_id: int, society: Society,
                 finished: Callable[[str], None] | None = None, *, steps: int = 0, total: float = 0.0,
                 resume: dict[str, Any] | None = None) -> None:
        super().__init__(service.store, mind_url=society.mind.url or f"local:{society.mind.class_}",
                         world_url=society.world.url or f"local:{society.world.class_}")
        self.run_id = run_id
        self.service = service
        self.total = total
        self.steps = steps
        self.finished = False
        self.by_owner = False
        self.suspending = False          # the service closes and leaves the servers' runs alive
        self.interrupted_because: str | None = None
        self.finished_hook = finished
        self.servers: tuple[Any, Any] | None = None   # (mind, world), once built
        self.runner: Runner | None = None
        self.resume = resume             # what re-attaches to the servers' runs (None: cannot)
        self.steps_asked: int | None = None
        self.pace: float | None = None   # steps per second (None: flat out)

    def on_start(self, result: Any) -> None:  # the row exists: started by RunService.start
        result.record_id = self.run_id
        # The servers' own display pages of this run (section 9), kept as events: a run's
        # page links to them, live and afterwards.
        for kind, url in (("world-display", result.world_display_url), ("mind-display", result.mind_display_url)):
            if isinstance(url, str) and url:
                self.on_event(Event(0, kind, url))
        if self.service.resumable and self.servers is not None:
            mind, world = self.servers
            if isinstance(mind, RemoteMind) and isinstance(world, RemoteWorld):
                # Kept in the run's row, never in its events: a run ID is the key to the run
                # on its server, and the events are public (run pages, live streams).
                self.resume = {"world": world.attachment(), "mind": mind.attachment(),
                               "steps": self.steps_asked, "clean": False,
                               "pace": self.pace}
                try:
                    assert self.run_id is not None
                    self.store.set_resume(self.run_id, self.resume)
                except StoreError as exc:
                    self.resume = None
                    log.warning("portal run %s will not be resumable: %s", self.run_id, exc)

    def on_step(self, step: Step) -> None:
        super().on_step(step)                 # queued in the store first, then published:
        self.total += step.score or 0.0       # a viewer's record then never lacks a pushed step
        self.steps += 1
        assert self.run_id is not None
        self.service.hub.publish_step(self.run_id, step_message(step, self.total))

    def on_event(self, event: Event) -> None:
        super().on_event(event)
        assert self.run_id is not None
        self.service.hub.publish_event(self.run_id, event.step, event.kind, event.text)

    def on_finish(self, result: RunResult) -> None:
        if self.finished:
            return
        self.finished = True
        if self.suspending and not self.by_owner and self.resume is not None \
                and result.status in ("suspended", "interrupted"):
            self._suspend(result)
            return
        # The steps counted here, not the result's: a run cancelled during End run (or before
        # its loop) finishes with an empty result, but its steps are recorded all the same.
        if result.status == "interrupted":
            if self.by_owner:
                result.status = ENDED_BY_OWNER
                self.on_event(Event(self.steps, "ended-by-owner",
                                    f"the run was ended by its owner after {self.steps} steps"))
            else:
                result.status = interrupted_at(self.steps)
                self.on_event(Event(self.steps, "interrupted",
                                    self.interrupted_because or "the portal stopped before the run ended"))
        assert self.run_id is not None
        try:
            self.store.finish_run(self.run_id, result.status, self.total, self.steps,
                                  world_score=result.world_score, mind_score=result.mind_score)
        except StoreError as exc:
            self.error = f"run {self.run_id} is not fully recorded: {exc}"
            log.warning("%s", self.error)
        self.service.hub.finish(self.run_id, end_message(result.status, self.steps, self.total,
                                                         result.world_score, result.mind_score))
        if self.finished_hook is not None:
            try:
                self.finished_hook(result.status)
            except Exception as exc:  # noqa: BLE001 - the run is recorded; the hook's record is extra
                log.warning("portal run %s: after its end: %s", self.run_id, exc)

    def _suspend(self, result: RunResult) -> None:
        """The service closes without ending the run: no End run was sent, the servers keep
        their runs; the run is left "suspended at step k" for the next service to resume."""
        assert self.run_id is not None and self.resume is not None
        status = suspended_at(self.steps)
        # Clean: stopped between steps, nothing sent for the next one. Otherwise an Execute
        # action may have been under way when the run was cancelled.
        clean = self.runner.at_boundary if self.runner is not None else bool(self.resume.get("clean"))
        self.on_event(Event(self.steps, "suspended",
                            f"the portal stopped; the run is {status}, its servers keep it (no End run was "
                            "sent), and it resumes when the portal starts again"
                            + ("" if clean else f" (step {self.steps} may have been executed but not recorded)")))
        try:
            self.store.suspend_run(self.run_id, status, {**self.resume, "clean": clean})
        except StoreError as exc:
            self.error = f"run {self.run_id} is not fully recorded: {exc}"
            log.warning("%s", self.error)
        self.service.hub.finish(self.run_id, end_message(status, self.steps, self.total,
                                                         result.world_score, result.mind_score))


class Executor(Protocol):
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


@dataclass
class _Running:
    task: asyncio.Task[None]
    recorder: _PortalRecorder


@dataclass
class _Claimed:
    """A run :meth:`RunService.recover` took over to resume (adopted in the store, not yet
    driven): its society document, its resume record, and how it was left."""

    run_id: int
    society: dict[str, Any]
    resume: dict[str, Any]
    left: str          # its status when claimed: "suspended at step k", or "interrupted" (a dead writer)


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
        self.pace_clock, self.pace_sleep = pace_clock, pace_sleep   # paced runs wait with these
        self._runs: dict[int, _Running] = {}
        self._claimed: list[_Claimed] = []
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
                conn.execute(insert(run_secrets).values(run_id=run_id, secret_sha256=_hash(secret), owner=owner,
                                                        created_at=datetime.now(UTC)))
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
        self._launch(run_id, society, settings, claimed=_Claimed(run_id, document, resume, resuming),
                     counted=(run.step_count, run.total_score or 0.0), pace=_pace_of(resume))

    def _launch(self, run_id: int, society: Society, settings: RunSettings,
                finished: Callable[[str], None] | None = None, claimed: _Claimed | None = None,
                counted: tuple[int, float] = (0, 0.0), pace: float | None = None) -> None:
        self.hub.open(run_id)
        if finished is None and self.on_finish is not None:
            on_finish = self.on_finish
            finished = lambda status: on_finish(run_id, status)  # noqa: E731
        recorder = _PortalRecorder(self, run_id, society, finished, steps=counted[0], total=counted[1],
                                   resume=claimed.resume if claimed is not None else None)
        recorder.steps_asked, recorder.pace = settings.steps, pace
        task = asyncio.create_task(self._drive(run_id, society, settings, recorder, claimed),
                                   name=f"wwm-portal-run-{run_id}")
        self._runs[run_id] = _Running(task, recorder)
        self._ensure_watcher()

    async def _drive(self, run_id: int, society: Society, settings: RunSettings,
                     recorder: _PortalRecorder, claimed: _Claimed | None = None) -> None:
        servers: list[Any] = []
        result = RunResult(status="running", record_id=run_id)
        try:
            if self.guard is not None:
                try:
                    await self.guard(society)
                except Exception as exc:
                    if claimed is not None:
                        raise _CannotResume(str(exc)) from None
                    raise
            if claimed is None:
                await check_servers(society, wait=settings.start_wait, timeout=settings.timeout)
            mind, world = society.build()
            servers = [mind, world]
            recorder.servers = (mind, world)
            if claimed is not None:
                await self._reattach(claimed, mind, world, settings, recorder)
            if recorder.suspending:  # the service closes meanwhile: left as it was
                recorder.on_finish(RunResult(status="suspended", record_id=run_id))
                return
            attached = claimed is not None
            runner = recorder.runner = (
                Runner(mind, world, settings, recorder=recorder, first_step=recorder.steps, attached=attached)
                if recorder.pace is None else
                _PacedRunner(mind, world, settings, recorder=recorder, first_step=recorder.steps, attached=attached,
                             pace=recorder.pace, clock=self.pace_clock, sleep=self.pace_sleep))
            result = await runner.run()
        except _CannotResume as exc:
            recorder.interrupted_because = f"the run could not be resumed: {exc}"
            recorder.on_finish(RunResult(status="interrupted", record_id=run_id))
        except asyncio.CancelledError:
            if not recorder.finished:  # ended before the first step (a slow New run), or while re-attaching
                if claimed is not None and recorder.by_owner:
                    await _end_runs(servers, settings.timeout)
                recorder.on_finish(RunResult(status="interrupted", record_id=run_id))
        except Exception as exc:  # noqa: BLE001 - whatever it was, the run ends saying so
            if not recorder.finished:
                text = exc.text if isinstance(exc, Refusal) else str(exc)
                recorder.on_event(Event(0, "run-ended", text or type(exc).__name__))
                result.status = COULD_NOT_START
                recorder.on_finish(result)
            else:
                log.warning("portal run %s: %s", run_id, exc)
        finally:
            for server in servers:
                close = getattr(server, "aclose", None)
                if close is not None:
                    with contextlib.suppress(Exception):
                        await close()
            self._runs.pop(run_id, None)

    # ---- ending ----------------------------------------------------------------------------
    def check_end_secret(self, run_id: int, secret: str) -> bool:
        """Whether ``secret`` is the end secret of ``run_id`` (used or not), compared in
        constant time (a run without one is compared against a dummy)."""
        stored = self._secret_row(run_id)
        expected = stored["secret_sha256"] if stored is not None else _DUMMY
        given = _hash(secret) if isinstance(secret, str) else ""
        return hmac.compare_digest(given, expected) and stored is not None

    async def end(self, run_id: int, secret: str) -> EndedRun:
        """End ``run_id`` for its owner: the run loop stops after its current query, End run
        goes to both servers, and the run is recorded as "ended by its owner" with the steps
        it made. Raises :class:`EndRefused` for a wrong secret, a used one, a finished run."""
        row = await asyncio.to_thread(self._secret_row, run_id)
        if row is None:
            try:
                await asyncio.to_thread(self.store.get_run, run_id, max_steps=0)
            except UnknownRun:
                raise EndRefused("unknown-run", f"there is no run {run_id}") from None
            raise EndRefused("not-a-portal-run", f"run {run_id} was not started from the portal; "
                                                 "it has no end secret") from None
        if not self.check_end_secret(run_id, secret):
            raise EndRefused("wrong-secret", f"that is not the secret that ends run {run_id}; only the "
                                             "person who started it has it (the link given at its start)")
        if row["end_requested_at"] is not None:
            raise EndRefused("already-ended", f"run {run_id} was already ended by its owner "
                                              f"({_when(row['end_requested_at'])}); a secret ends a run once")
        local = self._runs.get(run_id)
        if local is None:
            await asyncio.to_thread(self.recover)  # a dead writer's run: resumed here, or interrupted
            self._resume_claimed()
            local = self._runs.get(run_id)
        if local is None:
            summary = await asyncio.to_thread(self.store.get_run, run_id, max_steps=0)
            if summary.status != "running":
                raise EndRefused("already-finished", f"run {run_id} has already finished ({summary.status}) "
                                                     f"after {summary.step_count} steps; there is nothing to end")
        with self.store.writing() as conn:
            claimed = conn.execute(update(run_secrets).where(run_secrets.c.run_id == run_id)
                                   .where(run_secrets.c.end_requested_at.is_(None))
                                   .values(end_requested_at=datetime.now(UTC))).rowcount
        if not claimed:
            raise EndRefused("already-ended", f"run {run_id} was already ended by its owner; a secret ends a run once")
        if local is not None:
            await self._stop(run_id, local)
        else:  # executing in another process: it sees the request within its poll
            await self._wait_elsewhere(run_id)
        summary = await asyncio.to_thread(self.store.get_run, run_id, max_steps=0)
        return EndedRun(run_id, summary.status, summary.step_count)

    async def _stop(self, run_id: int, running: _Running) -> None:
        running.recorder.by_owner = True
        running.task.cancel()
        await asyncio.wait([running.task])

    async def _wait_elsewhere(self, run_id: int) -> None:
        deadline = asyncio.get_running_loop().time() + self.end_wait
        while asyncio.get_running_loop().time() < deadline:
            summary = await asyncio.to_thread(self.store.get_run, run_id, max_steps=0)
            if summary.status == "interrupted":  # its process died meanwhile: ended all the same
                self._mark(run_id, ENDED_BY_OWNER, "ended-by-owner",
                           "the run was ended by its owner after its process had stopped")
                return
            if summary.status != "running":
                return
            await asyncio.sleep(min(self.poll, 0.2))
        raise EndRefused("still-running", f"run {run_id} is asked to end, but the process running it has not "
                                          f"stopped it within {self.end_wait:g} s; it will when it next looks")

    def _secret_row(self, run_id: int) -> Any:
        if not isinstance(run_id, int):
            return None
        with self.store.reading() as conn:
            return conn.execute(select(run_secrets).where(run_secrets.c.run_id == run_id)).mappings().first()

    # ---- runs left by dead processes -------------------------------------------------------
    def recover(self) -> list[tuple[int, str]]:
        """Take over every portal run no process is driving: a run a closing service left
        "suspended at step k", and a run whose writing process is dead. With what resuming
        needs on record (the servers' run IDs) and a resumable service, the run is adopted
        here, to be carried on from step k + 1 (``(run ID, "resuming")``; :meth:`activate`
        drives it); otherwise it is marked "interrupted at step k" (steps 0..k stay as
        recorded), or "ended by its owner" if its end was asked for. Returns the (run ID,
        what was done) pairs. A service that is not resumable leaves runs that could be
        resumed to one that is; one that does not take over runs (a Ray worker's) does nothing."""
        if not self.takes_over:
            return []
        with self.store.reading() as conn:
            candidates = conn.execute(
                select(schema.runs.c.id, schema.runs.c.status, schema.runs.c.host, schema.runs.c.pid,
                       schema.runs.c.society, schema.runs.c.resume)
                .join(run_secrets, run_secrets.c.run_id == schema.runs.c.id)
                .where((schema.runs.c.status == "running") | schema.runs.c.status.like(f"{SUSPENDED} %"))
            ).mappings().all()
        done = []
        for row in candidates:
            run_id = row["id"]
            if run_id in self._runs or any(c.run_id == run_id for c in self._claimed):
                continue
            if self.executor is not None and self.executor.has(run_id):
                continue  # on one of this service's workers: a lost worker is the executor's to mark
            left = row["status"]
            if left == "running":
                try:
                    if self.store.get_run(run_id, max_steps=0).status != "interrupted":
                        continue  # alive in another process
                except StoreError:
                    continue
                left = "interrupted"
            resume = row["resume"] if isinstance(row["resume"], dict) else None
            secret = self._secret_row(run_id)
            asked_end = secret is not None and secret["end_requested_at"] is not None
            if resume is not None and not self.resumable:
                continue
            if resume is not None and not asked_end and not self._closed:
                if self.store.adopt_run(run_id, status=row["status"], host=row["host"], pid=row["pid"]):
                    self._claimed.append(_Claimed(run_id, dict(row["society"] or {}), resume, left))
                    done.append((run_id, "resuming"))
                continue
            why = ("the process running it stopped before the run ended" if left == "interrupted"
                   else "the portal that suspended it stopped")
            marked = self.mark_lost(run_id, why, current=row["status"], resumable=resume is not None)
            if marked is not None:
                done.append((run_id, marked))
        return done

    def mark_lost(self, run_id: int, why: str = "the process running it stopped before the run ended", *,
                  current: str = "running", resumable: bool = False,
                  writer: tuple[str, int] | None = None) -> str | None:
        """Finish a portal run whose executing process is gone, with the steps it recorded:
        "interrupted at step k", or "ended by its owner" if the end was asked for; None if
        the run was finished meanwhile (by its process, or by another sweep). ``current``:
        the status it is left with ("running", or "suspended at step k"); ``writer``: the
        (host, PID) that wrote it, when known: a run another process adopted since (a sweep
        that resumes it) is left alone."""
        row = self._secret_row(run_id)
        if row is not None and row["end_requested_at"] is not None:
            return self._mark(run_id, ENDED_BY_OWNER, "ended-by-owner",
                              "the run was ended by its owner after its process had stopped", current=current,
                              writer=writer)
        cannot = ("" if resumable else "; it cannot be resumed: the servers' run IDs were not recorded "
                  "(it never got to its first step)")
        return self._mark(run_id, None, "interrupted", f"{why}{cannot}", current=current, writer=writer)

    def _mark(self, run_id: int, status: str | None, kind: str, text: str, *,
              current: str = "running", writer: tuple[str, int] | None = None) -> str | None:
        """Finish a run nobody is writing any more, with its recorded steps; None if another
        process did it first (or, with ``writer``, adopted it since)."""
        with self.store.writing() as conn:
            count, total = conn.execute(select(func.count(), func.sum(schema.steps.c.score))
                                        .where(schema.steps.c.run_id == run_id)).one()
            status = status or interrupted_at(int(count))
            query = update(schema.runs).where(schema.runs.c.id == run_id).where(schema.runs.c.status == current)
            if writer is not None:
                query = query.where(schema.runs.c.host == writer[0]).where(schema.runs.c.pid == writer[1])
            done = conn.execute(query.values(status=status, finished_at=datetime.now(UTC), steps=int(count),
                                             total_score=total)).rowcount
            if not done:
                return None
            conn.execute(insert(schema.events).values(run_id=run_id, step=int(count), kind=kind, text=text,
                                                      at=datetime.now(UTC)))
        return status

    def _resume_claimed(self) -> None:
        """Drive the runs :meth:`recover` took over, each from the step after its last one:
        here, or on the service's executor (a Ray worker, which re-attaches to the servers'
        runs as this process would)."""
        claimed, self._claimed = self._claimed, []
        for claim in claimed:
            try:
                society = parse(claim.society, source="the society document")
                steps = claim.resume.get("steps")
                settings = dataclasses.replace(society.settings(),
                                               steps=steps if isinstance(steps, int) and steps > 0 else None)
                run = self.store.get_run(claim.run_id, max_steps=0)
            except (SocietyError, StoreError) as exc:
                with contextlib.suppress(StoreError):
                    self.store.finish_run(claim.run_id, "interrupted")
                self._mark_after(claim.run_id, f"the run could not be resumed: {exc}")
                continue
            if self.executor is not None:
                self.executor.submit(claim.run_id, claim.society, settings.steps, resuming=claim.left)
            else:
                self._launch(claim.run_id, society, settings, claimed=claim,
                             counted=(run.step_count, run.total_score or 0.0), pace=_pace_of(claim.resume))

    def _mark_after(self, run_id: int, text: str) -> None:
        """A run finished as "interrupted" by this store: its step in the status, and why."""
        with self.store.writing() as conn:
            count = int(conn.execute(select(func.count()).where(schema.steps.c.run_id == run_id)).scalar_one())
            conn.execute(update(schema.runs).where(schema.runs.c.id == run_id).values(status=interrupted_at(count)))
            conn.execute(insert(schema.events).values(run_id=run_id, step=count, kind="interrupted", text=text,
                                                      at=datetime.now(UTC)))

    async def _reattach(self, claim: _Claimed, mind: Any, world: Any, settings: RunSettings,
                        recorder: _PortalRecorder) -> None:
        """Re-attach ``mind`` and ``world`` to the servers' runs the claimed run had (no New
        run), check that both still know them (Get state first), and say in events how the
        run was left and where it carries on. Raises :class:`_CannotResume`."""
        run_id, k = claim.run_id, recorder.steps
        if not (isinstance(mind, RemoteMind) and isinstance(world, RemoteWorld)):
            raise _CannotResume("a World or a Mind made in the portal's process kept the run's state, "
                                "and that process is gone")
        try:
            world.reattach(claim.resume["world"])
            mind.reattach(claim.resume["mind"])
        except (KeyError, TypeError, ValueError) as exc:
            raise _CannotResume(f"the record of the servers' runs is incomplete ({exc})") from None
        await asyncio.to_thread(self.store.set_resume, run_id, {**claim.resume, "clean": False})
        state = await _still_there(world, mind, settings)
        if claim.left == "interrupted" or not claim.resume.get("clean"):
            last = await asyncio.to_thread(self.store.get_run, run_id, from_step=max(0, k - 1), max_steps=1)
            how = ("the portal process stopped without suspending the run (killed, or its machine lost)"
                   if claim.left == "interrupted" else "the portal stopped the run in the middle of a step")
            text = f"step {k} may have been executed but not recorded: {how}"
            if last.steps:
                text += ("; the world's state now is the one step {0} left, so probably it was not"
                         if last.steps[-1].new_state == state else
                         "; the world's state now is not the one step {0} left: steps after {0} were "
                         "executed and not recorded").format(k - 1)
            recorder.on_event(Event(k, "step-maybe-lost", text))
        recorder.on_event(Event(k, "resumed", f"the portal took the run up again at step {k}: the World's and the "
                                              "Mind's runs re-attached (no New run), the world asked for its state"))

    # ---- the watcher: end requests from other processes, dead workers ----------------------
    def _ensure_watcher(self) -> None:
        """A watcher on the running loop. A service made in one loop and served from another
        (an app built inside a test's loop, served by uvicorn in a thread) hands its watcher
        over to the loop that serves it; the old one is cancelled in its own loop."""
        loop = asyncio.get_running_loop()
        if self._watcher is not None and not self._watcher.done() and self._watcher.get_loop() is not loop:
            _cancel_elsewhere(self._watcher)
            self._watcher = None
        if self._watcher is None or self._watcher.done():
            self._watcher = asyncio.create_task(self._watch(), name="wwm-portal-run-watcher")

    async def _watch(self) -> None:
        loop = asyncio.get_running_loop()
        swept = loop.time()
        while True:
            await asyncio.sleep(self.poll)
            try:
                if self._runs:
                    ids = list(self._runs)
                    asked = await asyncio.to_thread(self._end_requests, ids)
                    for run_id in asked:
                        running = self._runs.get(run_id)
                        if running is not None and not running.recorder.by_owner:
                            running.recorder.by_owner = True
                            running.task.cancel()
                if loop.time() - swept >= self.sweep:
                    swept = loop.time()
                    await asyncio.to_thread(self.recover)
                    self._resume_claimed()
            except (StoreError, OSError) as exc:
                log.warning("portal run watcher: %s", exc)
            except Exception as exc:  # noqa: BLE001 - a database error: try again next round
                log.warning("portal run watcher: %s", exc)

    def _end_requests(self, run_ids: list[int]) -> list[int]:
        with self.store.reading() as conn:
            return list(conn.execute(select(run_secrets.c.run_id).where(run_secrets.c.run_id.in_(run_ids))
                                     .where(run_secrets.c.end_requested_at.is_not(None))).scalars())

    # ---- reading, live, closing ------------------------------------------------------------
    def is_running_here(self, run_id: int) -> bool:
        return run_id in self._runs

    def owner_of(self, run_id: int) -> str | None:
        row = self._secret_row(run_id)
        return None if row is None else str(row["owner"])

    def runs_of(self, owner: str) -> list[int]:
        """The IDs of the runs ``owner`` started, newest first."""
        with self.store.reading() as conn:
            return list(conn.execute(select(run_secrets.c.run_id).where(run_secrets.c.owner == owner)
                                     .order_by(run_secrets.c.run_id.desc())).scalars())

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
                _cancel_elsewhere(self._watcher)
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


def _cancel_elsewhere(task: asyncio.Task[None]) -> None:
    """Cancel ``task`` from outside its loop (thread-safe); nothing if that loop is closed."""
    with contextlib.suppress(RuntimeError):
        task.get_loop().call_soon_threadsafe(task.cancel)


def _pace_of(resume: dict[str, Any]) -> float | None:
    """The pace a run's resume record keeps (None: flat out, or a record that says nothing valid)."""
    try:
        return check_pace(resume.get("pace"))
    except ValueError:
        return None


def _when(value: datetime) -> str:
    value = value.replace(tzinfo=UTC) if value.tzinfo is None else value
    return value.astimezone(UTC).strftime("%Y-%m-%d %H:%M:%S UTC")


async def _still_there(world: RemoteWorld, mind: RemoteMind, settings: RunSettings) -> str:
    """The World's state under the re-attached run (Get state), after checking that the
    Mind still knows its run (No operation). A server that refuses the run (``unknown-run``:
    its idle time-out passed, it restarted) or stays down for ``start_wait`` seconds raises
    :class:`_CannotResume`."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + settings.start_wait
    pause = settings.retry_pause
    for who, call in (("world", world.get_state), ("mind", mind.no_operation)):
        while True:
            try:
                async with asyncio.timeout(settings.timeout):
                    answer = await call()
                break
            except (TimeoutError, Refusal) as exc:
                down = not isinstance(exc, Refusal) or exc.code in ("unreachable", "timeout")
                if not down:
                    raise _CannotResume(f"the {who} server no longer has the run: {exc}") from None
                if loop.time() >= deadline:
                    what = str(exc) if isinstance(exc, Refusal) else f"no answer within {settings.timeout:g} s"
                    raise _CannotResume(f"the {who} server does not answer ({what}; waited "
                                        f"{settings.start_wait:g} s: start_wait)") from None
                await asyncio.sleep(pause)
                pause = min(pause * 2, 2.0)
        if who == "world":
            state = answer
    return str(state)


async def _end_runs(servers: list[Any], timeout: float) -> None:
    """End run to re-attached servers (an owner's end before the resumed loop began)."""
    for server in servers:
        with contextlib.suppress(Exception):
            async with asyncio.timeout(timeout):
                await server.end_run()
