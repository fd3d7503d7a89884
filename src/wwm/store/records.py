"""The records the run store keeps and returns: one step, one event, a run's summary and
its full detail. Plain dataclasses, so the client, the CLI and the portal share one shape.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any


@dataclass(frozen=True, slots=True)
class StepRecord:
    """One step of the client loop: state x, the action a the Mind chose (None when it could
    not suggest one), the new state y and the score from the World, the Mind's Q reply to
    "Inform it about state", and the seconds each of the four queries took."""

    index: int
    state: str
    action: str | None
    new_state: str
    score: float | None = None
    mind_q: float | None = None
    seconds_get_state: float = 0.0
    seconds_get_action: float = 0.0
    seconds_execute: float = 0.0
    seconds_inform: float = 0.0
    note: str | None = None

    @property
    def seconds(self) -> float:
        return self.seconds_get_state + self.seconds_get_action + self.seconds_execute + self.seconds_inform


@dataclass(frozen=True, slots=True)
class EventRecord:
    """Something that happened during a run besides a step: "timeout", "retry",
    "world-down", "world-back", "mind-down", "late-reply-ignored", "run-ended", ..."""

    step: int
    kind: str
    text: str
    at: datetime | None = None


@dataclass(frozen=True, slots=True)
class RunSummary:
    """One line of ``wwm runs``. ``status`` is "running" while the writing process is alive,
    "interrupted" when it died before finishing the run, else what ``finish_run`` said."""

    id: int
    name: str
    status: str
    started_at: datetime
    finished_at: datetime | None
    mind_url: str
    world_url: str
    step_count: int
    total_score: float | None

    @property
    def seconds(self) -> float | None:
        if self.finished_at is None:
            return None
        return (self.finished_at - self.started_at).total_seconds()


@dataclass(frozen=True, slots=True)
class RunDetail(RunSummary):
    """Everything recorded about one run: the society document, the client's settings, the
    final scores the World and Mind reported, who wrote it, and its steps and events."""

    society: dict[str, Any] = field(default_factory=dict)
    settings: dict[str, Any] = field(default_factory=dict)
    world_score: float | None = None
    mind_score: float | None = None
    host: str = ""
    pid: int = 0
    steps: list[StepRecord] = field(default_factory=list)
    events: list[EventRecord] = field(default_factory=list)
