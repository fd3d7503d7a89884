"""The records of one run the client drives (section 8.2): each step, each event, the result,
and the hooks a recorder gives the run loop; shared by the client, the run store and the portal.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Protocol


@dataclass
class Step:
    index: int
    state: str
    action: str | None
    new_state: str
    score: float | None
    mind_q: float | None
    seconds_get_state: float
    seconds_get_action: float
    seconds_execute: float
    seconds_inform: float      # pipelined: Inform and the next step's Get action together,
                               # and that step's seconds_get_action is then ~0
    note: str | None = None


@dataclass
class Event:
    step: int
    kind: str       # "timeout", "late-reply-ignored", "mind-down", "world-down", "world-back", ...
    text: str


@dataclass
class RunResult:
    status: str                    # "completed", "ended by world", "mind lost", "mind failed", "world lost",
                                   # "interrupted", "suspended" (stopped at a step boundary, no End run),
                                   # "stopped" (Runner.stop(): ended early, with End run)
    steps: list[Step] = field(default_factory=list)
    events: list[Event] = field(default_factory=list)
    total_score: float = 0.0
    world_score: float | None = None
    mind_score: float | None = None
    world_display_url: str | None = None
    mind_display_url: str | None = None
    seconds: float = 0.0
    record_id: int | None = None

    @property
    def step_scores(self) -> list[float]:
        return [s.score or 0.0 for s in self.steps]


class Recorder(Protocol):
    def on_start(self, result: RunResult) -> None: ...
    def on_step(self, step: Step) -> None: ...
    def on_event(self, event: Event) -> None: ...
    def on_finish(self, result: RunResult) -> None: ...
