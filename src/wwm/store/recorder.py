""":class:`StoreRecorder`: the run store behind the client run loop's ``recorder`` hooks
(``on_start``, ``on_step``, ``on_event``, ``on_finish``: :class:`wwm.protocol.records.Recorder`),
so ``Runner(mind, world, settings, recorder=StoreRecorder(store, ...))`` records the run.

A step whose note says the society is degraded (a Mind_AS that lost a member and could not
reopen its run answers ``degraded: member X lost at step k (why)``: issue 26, item 7) is also
recorded as a ``degraded`` event, so the run's record says so where its events are read
(``wwm runs``, the portal's run page and its status line), not only in that step's row.
"""

from __future__ import annotations

import logging

from ..protocol.records import Event, RunResult, Step
from .engine import StoreError
from .store import RunStore

log = logging.getLogger(__name__)

DEGRADED = "degraded:"   # how a society's answer says it lost a member (wwm.selection.as_members)


class StoreRecorder:
    """Records one client run in ``store``; ``run_id`` is known once the run has started
    (and is copied to the run result's ``record_id``). A database that fails at the end of
    the run does not take the run's result with it: ``error`` says what was not recorded
    (the store keeps the rows queued, and :meth:`RunStore.close` tries once more)."""

    def __init__(self, store: RunStore, *, mind_url: str, world_url: str, society: object = None,
                 settings: object = None, name: str | None = None) -> None:
        self.store = store
        self.run_id: int | None = None
        self.mind_url, self.world_url, self.name = mind_url, world_url, name
        self.society, self.settings = society, settings  # mappings, dataclasses or pydantic models
        self._early: list[Event] = []  # events before the run started (e.g. a slow New run)
        self.error: str | None = None

    def on_start(self, result: RunResult) -> None:
        self.run_id = self.store.start_run(mind_url=self.mind_url, world_url=self.world_url, society=self.society,
                                           settings=self.settings, name=self.name)
        result.record_id = self.run_id
        for event in self._early:
            self.on_event(event)
        self._early.clear()

    def on_step(self, step: Step) -> None:
        assert self.run_id is not None, "on_step before on_start"
        self.store.record_step(self.run_id, step)
        note = step.note
        if isinstance(note, str) and note.startswith(DEGRADED):
            for part in note.split("; "):      # a step may say several members were lost
                if part.startswith(DEGRADED):
                    self.on_event(Event(step.index, "degraded", part[len(DEGRADED):].strip()))

    def on_event(self, event: Event) -> None:
        if self.run_id is None:
            self._early.append(event)
            return
        self.store.record_event(self.run_id, event.step, event.kind, event.text)

    def on_finish(self, result: RunResult) -> None:
        if self.run_id is None:  # the run never started: record it, so the failure shows
            self.on_start(result)
        assert self.run_id is not None
        try:
            self.store.finish_run(self.run_id, result.status, result.total_score, len(result.steps),
                                  world_score=result.world_score, mind_score=result.mind_score)
        except StoreError as exc:
            self.error = f"run {self.run_id} is not fully recorded: {exc}"
            log.warning("%s", self.error)
