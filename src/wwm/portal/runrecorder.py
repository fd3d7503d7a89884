"""The recorder of a portal run, and the statuses a portal run ends with (issue 26, item 8):
what the run loop reports is written to the run store and published to the run's viewers.

:class:`PortalRecorder` is the store's recorder (:class:`wwm.store.StoreRecorder`) for a run
whose row :class:`~wwm.portal.runs.RunService` made already. Besides recording, it publishes
each step and event to the service's :class:`~wwm.portal.live.LiveHub`, names the portal's own
end statuses ("ended by its owner", "interrupted at step k"), keeps what resuming the run needs
(the servers' run IDs, in the run's row: never in its public events) and, when the service
closes without ending its runs, leaves the run "suspended at step k" for the next service.

Its database writes leave the event loop (issue 26, item 8): the run loop calls the recorder
in the loop's thread, where a step is only queued for the store's writer thread, but the
writes made at once (what resuming needs, the end, the suspension) go to a worker thread, one
after another in the order they were asked; what depends on a write (the viewers' ``end``,
the finished hook) follows it, back in the loop. :meth:`PortalRecorder.settle` waits for them
(the run's task does, before it is over). So a slow database holds up no run's viewers.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from typing import Any

from ..client.remote import RemoteMind, RemoteWorld
from ..client.runner import Runner
from ..client.society import Society
from ..protocol.records import Event, RunResult, Step
from ..store import RunStore, StoreError, StoreRecorder
from .live import LiveHub, end_message, step_message

log = logging.getLogger("wwm.portal.runs")

ENDED_BY_OWNER = "ended by its owner"
COULD_NOT_START = "could not start"
SUSPENDED = "suspended"   # "suspended at step k": a closed service left it to the next one

DISPLAY_EVENTS = {"world-display": "world", "mind-display": "mind"}   # event kind -> whose display URL


def interrupted_at(steps: int) -> str:
    """The status of a run that stopped without ending, after ``steps`` recorded steps."""
    return f"interrupted at step {steps - 1}" if steps else "interrupted before its first step"


def suspended_at(steps: int) -> str:
    """The status of a run a closing service left for the next one to resume."""
    return f"{SUSPENDED} at step {steps - 1}" if steps else f"{SUSPENDED} before its first step"


class PortalRecorder(StoreRecorder):
    """The store's recorder for a run whose row the service made already, which also
    publishes each step and event to the hub, names the portal's own end statuses, keeps
    what resuming the run needs (the servers' run IDs) and suspends it when the service
    closes without ending its runs."""

    def __init__(self, store: RunStore, hub: LiveHub, run_id: int, society: Society,
                 finished: Callable[[str], None] | None = None, *, steps: int = 0, total: float = 0.0,
                 resume: dict[str, Any] | None = None, resumable: bool = True) -> None:
        super().__init__(store, mind_url=society.mind.url or f"local:{society.mind.class_}",
                         world_url=society.world.url or f"local:{society.world.class_}")
        self.run_id = run_id
        self.hub = hub
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
        self.resumable = resumable       # the service keeps the servers' run IDs to resume the run
        self._writing: asyncio.Task[None] | None = None   # the last database write asked, in a thread

    def _write(self, what: str, write: Callable[[], object], after: Callable[[], None] | None = None) -> None:
        """Run ``write`` (a call to the store) in a worker thread after the writes asked before
        it, then ``after`` in the loop; a :class:`StoreError` is logged as ``what`` not recorded."""
        before = self._writing

        async def run() -> None:
            if before is not None:
                await asyncio.wait([before])
            try:
                await asyncio.to_thread(write)
            except StoreError as exc:
                self.error = f"run {self.run_id} is not fully recorded ({what}): {exc}"
                log.warning("%s", self.error)
                if what == "resume":
                    self.resume = None
            if after is not None:
                after()

        self._writing = asyncio.get_running_loop().create_task(run(), name=f"wwm-portal-run-{self.run_id}-write")

    async def settle(self) -> None:
        """Wait until every database write asked so far is done (and what follows each)."""
        while self._writing is not None and not self._writing.done():
            await asyncio.wait([asyncio.shield(self._writing)])

    def on_start(self, result: Any) -> None:  # the row exists: started by RunService.start
        result.record_id = self.run_id
        # The servers' own display pages of this run (section 9), kept as events: a run's
        # page links to them, live and afterwards.
        for kind, url in (("world-display", result.world_display_url), ("mind-display", result.mind_display_url)):
            if isinstance(url, str) and url:
                self.on_event(Event(0, kind, url))
        if self.resumable and self.servers is not None:
            mind, world = self.servers
            if isinstance(mind, RemoteMind) and isinstance(world, RemoteWorld):
                # Kept in the run's row, never in its events: a run ID is the key to the run
                # on its server, and the events are public (run pages, live streams).
                self.resume = resume = {"world": world.attachment(), "mind": mind.attachment(),
                                        "steps": self.steps_asked, "clean": False, "pace": self.pace}
                assert self.run_id is not None
                run_id = self.run_id
                self._write("resume", lambda: self.store.set_resume(run_id, resume))

    def on_step(self, step: Step) -> None:
        super().on_step(step)                 # queued in the store first, then published:
        self.total += step.score or 0.0       # a viewer's record then never lacks a pushed step
        self.steps += 1
        assert self.run_id is not None
        self.hub.publish_step(self.run_id, step_message(step, self.total))

    def on_event(self, event: Event) -> None:
        super().on_event(event)
        assert self.run_id is not None
        self.hub.publish_event(self.run_id, event.step, event.kind, event.text)

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
        run_id, status, steps, total = self.run_id, result.status, self.steps, self.total
        world_score, mind_score = result.world_score, result.mind_score

        def ended() -> None:          # in the loop, once the end is in the store
            self.hub.finish(run_id, end_message(status, steps, total, world_score, mind_score))
            if self.finished_hook is not None:
                try:
                    self.finished_hook(status)
                except Exception as exc:  # noqa: BLE001 - the run is recorded; the hook's record is extra
                    log.warning("portal run %s: after its end: %s", run_id, exc)

        self._write("end", lambda: self.store.finish_run(run_id, status, total, steps, world_score=world_score,
                                                         mind_score=mind_score), ended)

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
        run_id, resume, end = self.run_id, {**self.resume, "clean": clean}, end_message(
            status, self.steps, self.total, result.world_score, result.mind_score)
        self._write("suspension", lambda: self.store.suspend_run(run_id, status, resume),
                    lambda: self.hub.finish(run_id, end))

