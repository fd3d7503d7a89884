"""The shuttle corridor: a World for Feudal hierarchies (10.18), where a master that orders
"take me to the end" meets a servant that knows how to get anywhere.

**World.** Cells ``0 .. length-1`` in a row. The body starts at ``start`` with the goal at
the east end; each time it reaches the goal end it scores 1 and the goal moves to the other
end, so a good mind shuttles to and fro. The world ends a run after ``steps`` actions
(default 0: never; the client's step limit decides).

**State**: ``pos=3 goal=east``. **Action**: ``left``, ``right`` or ``stay``. **Score**: 1 on
arriving at the goal end, else 0.
"""

from __future__ import annotations

from typing import Any, ClassVar

from ..protocol.errors import Refusal
from ..protocol.interfaces import World
from ..protocol.results import Outcome

ACTIONS: tuple[str, ...] = ("left", "right", "stay")


class CorridorWorld(World):
    """A row of cells where each arrival at the goal end scores 1 and moves the goal to the
    other end: a World for Feudal hierarchies (own copy per client, deterministic)."""

    seed_section: ClassVar[str] = "10.18 (Feudal Mind servers)"

    sharing = "own"
    state_format: ClassVar[str] = "pos=K goal=east|west (K from 0, the west end, to length-1, the east end)"
    action_format: ClassVar[str] = "left | right | stay"
    # machine-readable (the JSON form of wwm.gym.spaces): pos up to the longest corridor
    state_space: ClassVar[dict[str, Any]] = {"type": "Dict", "form": "pairs", "spaces": {
        "pos": {"type": "Discrete", "n": 1000}, "goal": {"type": "Discrete", "n": 2, "labels": ["west", "east"]}}}
    action_space: ClassVar[dict[str, Any]] = {"type": "Discrete", "n": len(ACTIONS), "labels": list(ACTIONS)}

    def __init__(self, length: int = 8, start: int = 0, steps: int = 0) -> None:
        if not 3 <= length <= 1000:
            raise ValueError(f"length must be between 3 and 1000, got {length}")
        if not 0 <= start < length - 1:
            raise ValueError(f"start must be a cell from 0 to {length - 2} (not the goal end), got {start}")
        if steps < 0:
            raise ValueError(f"steps cannot be negative, got {steps}")
        self.length, self.start, self.max_steps = length, start, steps
        self.pos, self.goal_east, self.steps, self.arrivals = start, True, 0, 0

    async def get_state(self) -> str:
        return f"pos={self.pos} goal={'east' if self.goal_east else 'west'}"

    @property
    def finished(self) -> bool:
        return self.max_steps > 0 and self.steps >= self.max_steps

    async def execute_action(self, action: str) -> Outcome:
        name = action.strip().lower()
        if name not in ACTIONS:
            raise Refusal("bad-parameters", f"Execute action: unknown action {action.strip()[:40]!r}: "
                                            f"use one of {', '.join(ACTIONS)}")
        if self.finished:
            raise Refusal("run-ended", "the corridor run is over")
        step = {"left": -1, "right": 1, "stay": 0}[name]
        self.pos = max(0, min(self.length - 1, self.pos + step))
        self.steps += 1
        reward = 0.0
        if self.pos == (self.length - 1 if self.goal_east else 0):
            reward, self.goal_east = 1.0, not self.goal_east
            self.arrivals += 1
            self._score += reward
        return Outcome(await self.get_state(), reward, finished=self.finished)

    def display_grid(self) -> dict[str, Any]:
        """The run's picture on its display page."""
        goal = (self.length - 1, 0) if self.goal_east else (0, 0)
        return {"columns": self.length, "rows": 1, "y_up": True,
                "marks": {"goal": [goal], "agent": [(self.pos, 0)]},
                "caption": f"step {self.steps} · {self.arrivals} arrivals"}


__all__ = ["ACTIONS", "CorridorWorld"]
