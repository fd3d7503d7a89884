"""The Tileworld's numeric form: a robot's state as numbers of a fixed shape, whatever the
grid's size, for learners that take an array (Gymnasium, Stable-Baselines3, PettingZoo).

T-World's own forms (JSON, XML, Prolog) carry the whole grid and lists of varying length,
which a policy network cannot take; this form is chosen at New run with ``form=numbers``
and declared on the worlds' cards as :data:`STATE_SPACE` (the JSON form of
``wwm.gym.spaces``). The state is a JSON object:

- ``window``: the 5 x 5 cells around the robot as one list of 25 (row by row, north
  first; a flat vector, as SB3 prefers to a 5 x 5 array), each a code:
  0 empty, 1 tile, 2 hole, 3 obstacle, 4 another robot, 5 charger, 6 off the grid (the
  robot's own cell is 4);
- ``tile`` / ``hole``: ``[rows, columns]`` from the robot to the nearest tile / hole cell
  (fewest steps), ``[0, 0]`` when there is none;
- ``score``: ``[the robot's team's score]``; ``time``: ``[the game's clock in seconds]``
  (one-number lists: SB3 takes no zero-dimensional Box).

Messages are not part of this form (a learner that wants them uses JSON).
"""

from __future__ import annotations

from typing import Any

from .engine import Engine

#: The moves a learner chooses among (T-World's action strings; messages and restore left out).
MOVES: tuple[str, ...] = ("north", "south", "east", "west", "none")
RADIUS = 2
EMPTY, TILE, HOLE, OBSTACLE, ROBOT, CHARGER, OFF = range(7)
FAR = 1000  # bound of an offset: larger than any grid

_OFFSET = {"type": "Box", "shape": [2], "low": -FAR, "high": FAR}
#: The numeric form's space, as a card declares it (the New run argument that asks for it included).
STATE_SPACE: dict[str, Any] = {
    "type": "Dict", "form": "json", "new_run": {"form": "numbers"}, "spaces": {
        "window": {"type": "Box", "shape": [(2 * RADIUS + 1) ** 2], "low": 0, "high": OFF},
        "tile": _OFFSET, "hole": _OFFSET,
        "score": {"type": "Box", "shape": [1], "low": -10**6, "high": 10**6},
        "time": {"type": "Box", "shape": [1], "low": 0, "high": 10**7}}}


def numeric(engine: Engine, robot: int) -> dict[str, Any]:
    """Robot ``robot``'s state in the numeric form (see the module's text)."""
    agent = engine.agents[robot]
    row, column = agent.cell
    window = [_code(engine, (row + dr, column + dc)) for dr in range(-RADIUS, RADIUS + 1)
              for dc in range(-RADIUS, RADIUS + 1)]
    return {"window": window, "tile": _nearest(agent.cell, engine.tiles),
            "hole": _nearest(agent.cell, engine.hole_at),
            "score": [engine.teams[agent.team].score], "time": [min(int(engine.time), 10**7)]}


def _code(engine: Engine, cell: tuple[int, int]) -> int:
    if not engine.in_bounds(cell):
        return OFF
    for code, things in ((TILE, engine.tiles), (HOLE, engine.hole_at), (OBSTACLE, engine.obstacles),
                         (ROBOT, engine.agent_at)):
        if cell in things:
            return code
    return CHARGER if cell in engine.chargers else EMPTY


def _nearest(cell: tuple[int, int], things: Any) -> list[int]:
    best = min(things, key=lambda t: (abs(t[0] - cell[0]) + abs(t[1] - cell[1]), t), default=None)
    if best is None:
        return [0, 0]
    return [max(-FAR, min(FAR, best[0] - cell[0])), max(-FAR, min(FAR, best[1] - cell[1]))]
