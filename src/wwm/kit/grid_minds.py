"""Two hand-coded minds for the grid world (:mod:`wwm.kit.grid`), each good in one part of
its state space: :class:`FoodSeeker` walks to the nearest food and ignores hazards;
:class:`HazardAvoider` steps away from the nearest hazard and never looks for food. A region
wrapper (:mod:`wwm.kit.region`) that picks between them does better than either.
"""

from __future__ import annotations

from typing import ClassVar

from ..protocol.errors import Refusal
from ..protocol.interfaces import Mind
from ..protocol.results import Suggestion
from .grid import ACTIONS, GridView, GridWorld, distance


def _view(state: str) -> GridView:
    try:
        return GridView.parse(state)
    except ValueError as exc:
        raise Refusal("bad-parameters", f"Get action: {exc}") from None


GRID_EXAMPLE = "size=8 step=0 x=4 y=4 fd=2 hd=3 food=6,4;1,7 hazard=4,1"  # a state as the grid world writes it


class FoodSeeker(Mind):
    """Greedy: the move that brings the body closest to the nearest food (ties: fixed order)."""

    seed_section: ClassVar[str] = "3.6, 12.3 (grid world test bed)"

    state_format: ClassVar[str] = GridWorld.state_format
    action_format: ClassVar[str] = GridWorld.action_format
    state_example: ClassVar[str | None] = GRID_EXAMPLE

    async def get_action(self, state: str) -> Suggestion:
        view = _view(state)
        if not view.food:
            return Suggestion.cannot("no food in sight")
        goal = min(view.food, key=lambda f: distance(view.body, f))
        best = min(ACTIONS, key=lambda a: distance(view.after(a), goal))
        return Suggestion(best, q=-float(distance(view.after(best), goal)))


class HazardAvoider(Mind):
    """Cautious: the move that keeps the body farthest from every hazard (staying if tied)."""

    seed_section: ClassVar[str] = "3.6, 12.3 (grid world test bed)"
    state_format: ClassVar[str] = GridWorld.state_format
    action_format: ClassVar[str] = GridWorld.action_format
    state_example: ClassVar[str | None] = GRID_EXAMPLE

    async def get_action(self, state: str) -> Suggestion:
        view = _view(state)
        if not view.hazards:
            return Suggestion("stay", q=0.0)

        def safety(action: str) -> tuple[int, int, int]:
            # nearest hazard first, then all of them; straight away beats sideways
            cell = view.after(action)
            gaps = sorted(distance(cell, h) for h in view.hazards)
            squares = sum((cell[0] - h[0]) ** 2 + (cell[1] - h[1]) ** 2 for h in view.hazards)
            return gaps[0], sum(gaps), squares

        order = ("stay",) + tuple(a for a in ACTIONS if a != "stay")
        best = max(order, key=safety)
        return Suggestion(best, q=float(safety(best)[0]))
