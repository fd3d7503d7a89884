"""Scores of portal runs as the run store recorded them, and the Top 10s made of them.

Only a portal run (``PortalRun`` with a ``run_store_id``) that completed the steps it asked
for (or that the World ended) is ranked, by the score the *World* reported at the run's end
(the run store's ``world_score``); nothing here takes a score from a client.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING

from .models import Combination, PortalRun

if TYPE_CHECKING:
    from ..store import RunStore

TOP = 10
FINISHED = ("completed", "ended by world")       # a run that made the steps it asked for


@dataclass(frozen=True)
class Scored:
    """A portal run with what the run store recorded of it."""

    run: PortalRun
    status: str
    steps: int | None
    world_score: float | None

    @property
    def ranked(self) -> bool:
        """Whether it may enter a Top 10: finished its steps (or ended by the World), with a
        score the World gave."""
        return (self.status in FINISHED and self.world_score is not None and math.isfinite(self.world_score)
                and self.run.steps_asked is not None)


def scored(runs: list[PortalRun], run_store: RunStore | None) -> list[Scored]:
    """Each portal run with its state as the run store has it (the one place a run's status
    lives); a run the store does not have (not started: "starting", "could not start") with
    the portal's own word for it."""
    states = run_store.states([r.run_store_id for r in runs if r.run_store_id is not None]) if run_store else {}
    out = []
    for run in runs:
        state = states.get(run.run_store_id) if run.run_store_id is not None else None
        if state is None:
            out.append(Scored(run, run.status, None, None))
        else:
            out.append(Scored(run, state.status, state.steps, state.world_score))
    return out


@dataclass
class Board:
    """A Top 10 over one number of steps: (combination, its best run) pairs, best first."""

    steps: int
    entries: list[tuple[Combination, Scored]]


def top_boards(combinations: list[Combination], runs: list[Scored]) -> list[Board]:
    """Per number of steps asked, the combinations ranked by their best World score."""
    by_id = {c.id: c for c in combinations}
    best: dict[int, dict[int, Scored]] = {}
    for s in runs:
        if not s.ranked or s.run.combination_id not in by_id:
            continue
        steps = int(s.run.steps_asked or 0)
        group = best.setdefault(steps, {})
        held = group.get(s.run.combination_id)
        assert s.world_score is not None
        if held is None or s.world_score > (held.world_score or -math.inf) or (
                s.world_score == held.world_score and s.run.id < held.run.id):
            group[s.run.combination_id] = s
    boards = []
    for steps in sorted(best):
        ranked = sorted(best[steps].values(), key=lambda s: (-(s.world_score or 0.0), s.run.id))[:TOP]
        boards.append(Board(steps, [(by_id[s.run.combination_id], s) for s in ranked]))
    return boards


def best_of(runs: list[Scored]) -> dict[int, Scored]:
    """Each combination's best ranked run (any number of steps)."""
    best: dict[int, Scored] = {}
    for s in runs:
        if s.ranked:
            held = best.get(s.run.combination_id)
            if held is None or (s.world_score or 0.0) > (held.world_score or 0.0):
                best[s.run.combination_id] = s
    return best
