"""A small grid world: a body gathers food while drifting hazards try to sting it.

The rules live in the plain engine :class:`GridEngine`; :class:`GridWorld` serves it on the
World interface (own copy per client, seeded, synchronous).

**State** (one line of ``key=value`` items separated by spaces)::

    size=8 step=3 x=2 y=5 fd=3 hd=4 food=1,2;6,6;4,0 hazard=2,1;7,7

``x``/``y`` is the body (0..size-1; east is +x, north is +y), ``food`` and ``hazard`` list
cells as ``x,y`` joined by ``;``, ``fd`` / ``hd`` are the Manhattan distances from the body to
the nearest food / hazard (senses a simple mind can use, and a region wrapper can test, e.g.
``hd<=1``), ``step`` counts the actions taken so far.

**Action**: ``north``, ``south``, ``east``, ``west`` or ``stay`` (the "Do nothing" action of
section 9.1); case and surrounding white space are ignored. Walking into a wall stays put.

**Score**: +1 for each food eaten (the food grows again on a random free cell), -3 each time
a hazard reaches the body (the hazard then drifts off to a far cell). After each action every
hazard moves one cell, toward the body with probability ``chase``, else at random. The world
ends the run after ``steps`` actions if ``steps`` is set; by default (0) it never does, and the
client's step limit (``wwm run --steps``) decides how long a run is.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Annotated, Any, ClassVar

from pydantic import Field

from ..protocol.errors import Refusal
from ..protocol.interfaces import World
from ..protocol.results import Outcome, RunStarted

Cell = tuple[int, int]

MOVES: dict[str, Cell] = {"north": (0, 1), "south": (0, -1), "east": (1, 0), "west": (-1, 0), "stay": (0, 0)}
ACTIONS: tuple[str, ...] = tuple(MOVES)
FOOD_REWARD = 1.0
STING_PENALTY = -3.0


def distance(a: Cell, b: Cell) -> int:
    return abs(a[0] - b[0]) + abs(a[1] - b[1])


def nearest(origin: Cell, cells: list[Cell]) -> int:
    """Manhattan distance from ``origin`` to the nearest of ``cells`` (-1 when there are none)."""
    return min((distance(origin, c) for c in cells), default=-1)


@dataclass
class GridEngine:
    """The rules of the grid world, with no network and no async in sight."""

    size: int = 8
    food_count: int = 3
    hazard_count: int = 2
    chase: float = 0.5
    max_steps: int = 0  # 0: no limit of the world's own
    seed: int = 0
    body: Cell = (0, 0)
    food: list[Cell] = field(default_factory=list)
    hazards: list[Cell] = field(default_factory=list)
    step_count: int = 0
    score: float = 0.0
    rng: random.Random = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if not 3 <= self.size <= 100:
            raise ValueError(f"size must be between 3 and 100, got {self.size}")
        if self.food_count < 0 or self.hazard_count < 0:
            raise ValueError("food and hazards must be counts of zero or more")
        if self.food_count + self.hazard_count >= self.size * self.size:
            raise ValueError(f"{self.food_count} food and {self.hazard_count} hazards do not fit "
                             f"on a {self.size}x{self.size} grid")
        if not 0.0 <= self.chase <= 1.0:
            raise ValueError(f"chase must be a probability between 0 and 1, got {self.chase}")
        if self.max_steps < 0:
            raise ValueError(f"steps must be 0 (no limit) or more, got {self.max_steps}")
        self.reset()

    def reset(self) -> None:
        """The world as it is at the start of a run (same seed, same layout)."""
        self.rng = random.Random(self.seed)
        self.body = (self.size // 2, self.size // 2)
        self.food, self.hazards = [], []
        for _ in range(self.food_count):
            self.food.append(self._free_cell())
        for _ in range(self.hazard_count):
            self.hazards.append(self._free_cell(far_from_body=2))
        self.step_count = 0
        self.score = 0.0

    def _free_cell(self, far_from_body: int = 0) -> Cell:
        taken = {self.body, *self.food, *self.hazards}
        cells = [(x, y) for x in range(self.size) for y in range(self.size)
                 if (x, y) not in taken and distance((x, y), self.body) > far_from_body]
        if not cells:  # a crowded grid: any cell not occupied
            cells = [(x, y) for x in range(self.size) for y in range(self.size) if (x, y) not in taken]
        return self.rng.choice(cells)

    @property
    def finished(self) -> bool:
        return 0 < self.max_steps <= self.step_count

    def step(self, action: str) -> float:
        """Take one action; return the points it scored."""
        move = MOVES.get(action.strip().lower())
        if move is None:
            raise ValueError(f"unknown action {action.strip()[:40]!r}: use one of {', '.join(ACTIONS)}")
        if self.finished:
            raise ValueError(f"the run is over after {self.max_steps} steps")
        reward = 0.0
        self.body = self._clamp(self.body[0] + move[0], self.body[1] + move[1])
        if self.body in self.food:
            self.food.remove(self.body)
            reward += FOOD_REWARD
            self.food.append(self._free_cell())
        self.hazards = [self._drift(h) for h in self.hazards]
        for i, hazard in enumerate(self.hazards):
            if hazard == self.body:
                reward += STING_PENALTY
                self.hazards[i] = self._free_cell(far_from_body=self.size // 2)
        self.step_count += 1
        self.score += reward
        return reward

    def _clamp(self, x: int, y: int) -> Cell:
        return min(max(x, 0), self.size - 1), min(max(y, 0), self.size - 1)

    def _drift(self, hazard: Cell) -> Cell:
        if self.rng.random() < self.chase:
            dx, dy = self.body[0] - hazard[0], self.body[1] - hazard[1]
            if dx and (not dy or self.rng.random() < 0.5):
                return self._clamp(hazard[0] + (1 if dx > 0 else -1), hazard[1])
            if dy:
                return self._clamp(hazard[0], hazard[1] + (1 if dy > 0 else -1))
            return hazard
        move = MOVES[self.rng.choice(ACTIONS)]
        return self._clamp(hazard[0] + move[0], hazard[1] + move[1])

    def state(self) -> str:
        """The state in the documented text format (see the module docstring)."""

        def cells(cs: list[Cell]) -> str:
            return ";".join(f"{x},{y}" for x, y in cs)

        return (f"size={self.size} step={self.step_count} x={self.body[0]} y={self.body[1]} "
                f"fd={nearest(self.body, self.food)} hd={nearest(self.body, self.hazards)} "
                f"food={cells(self.food)} hazard={cells(self.hazards)}")


@dataclass(frozen=True)
class GridView:
    """A grid state read back from its text: what a Python mind for this world works from."""

    size: int
    step: int
    body: Cell
    food: tuple[Cell, ...]
    hazards: tuple[Cell, ...]

    @classmethod
    def parse(cls, state: str) -> GridView:
        items = dict(part.partition("=")[::2] for part in state.split())
        try:
            return cls(size=int(items["size"]), step=int(items.get("step", 0)),
                       body=(int(items["x"]), int(items["y"])),
                       food=_cells(items.get("food", "")), hazards=_cells(items.get("hazard", "")))
        except (KeyError, ValueError) as exc:
            raise ValueError(f"not a grid-world state ({exc}): {state[:60]!r}") from None

    def after(self, action: str) -> Cell:
        move = MOVES[action]
        x, y = self.body[0] + move[0], self.body[1] + move[1]
        return min(max(x, 0), self.size - 1), min(max(y, 0), self.size - 1)


def _cells(text: str) -> tuple[Cell, ...]:
    out = []
    for pair in filter(None, text.split(";")):
        x, y = pair.split(",")
        out.append((int(x), int(y)))
    return tuple(out)


class GridWorld(World):
    """The grid world on the World interface: a new seeded copy for each client."""

    seed_section: ClassVar[str] = "3.6 (states and actions), 12.3 (test beds)"

    sharing = "own"
    state_format: ClassVar[str] = (
        "one line of key=value items: size=N step=K x=X y=Y fd=D hd=D food=x,y;x,y;... "
        "hazard=x,y;...  (east is +x, north is +y; fd/hd: distance to the nearest food/hazard)")
    action_format: ClassVar[str] = "north | south | east | west | stay  (stay is 'Do nothing')"
    # machine-readable (the JSON form of wwm.gym.spaces): the body's cell and its senses read
    # from the state's key=value items; the action a label of a Discrete space
    state_space: ClassVar[dict[str, Any]] = {"type": "Dict", "form": "pairs", "spaces": {
        "x": {"type": "Discrete", "n": 100}, "y": {"type": "Discrete", "n": 100},
        # a distance, -1 when there is none: a Box (a Discrete starting at -1 is one SB3 refuses)
        "fd": {"type": "Box", "shape": [1], "low": -1, "high": 199},
        "hd": {"type": "Box", "shape": [1], "low": -1, "high": 199}}}
    action_space: ClassVar[dict[str, Any]] = {"type": "Discrete", "n": len(ACTIONS), "labels": list(ACTIONS)}

    # what the portal's compose form shows of each argument; the range is published, not
    # enforced here (GridEngine checks the values and names them in its own words)
    def __init__(
            self,
            size: Annotated[int, Field(description="Width and height of the square grid, in cells.",
                                       json_schema_extra={"minimum": 3, "maximum": 100})] = 8,
            food: Annotated[int, Field(description="How many food cells there are at any time.",
                                       json_schema_extra={"minimum": 0})] = 3,
            hazards: Annotated[int, Field(description="How many hazards drift about the grid.",
                                          json_schema_extra={"minimum": 0})] = 2,
            chase: Annotated[float, Field(description="How often a hazard steps toward the body rather than at "
                                                      "random (0 never, 1 always).",
                                          json_schema_extra={"minimum": 0, "maximum": 1})] = 0.5,
            steps: Annotated[int, Field(description="The world ends the run after this many actions; 0 for no "
                                                    "limit of its own.",
                                        json_schema_extra={"minimum": 0, "x-advanced": True})] = 0,
            seed: Annotated[int, Field(description="Where the world's dice start: the same seed gives the same "
                                                   "world.", json_schema_extra={"x-advanced": True})] = 0) -> None:
        self.engine = GridEngine(size=size, food_count=food, hazard_count=hazards, chase=chase,
                                 max_steps=steps, seed=seed)

    async def new_run(self, client_url: str | None = None) -> RunStarted | None:
        self.client_url = client_url
        return None

    async def get_state(self) -> str:
        return self.engine.state()

    async def execute_action(self, action: str) -> Outcome:
        if self.engine.finished:
            raise Refusal("run-ended", f"the grid world ended this run after {self.engine.max_steps} steps")
        try:
            reward = self.engine.step(action)
        except ValueError as exc:
            raise Refusal("bad-parameters", f"Execute action: {exc}") from None
        return Outcome(self.engine.state(), reward, finished=self.engine.finished)

    async def reset(self) -> None:
        self.engine.reset()

    async def reset_score(self) -> None:
        self.engine.score = 0.0

    async def get_current_score(self) -> float | None:
        return self.engine.score

    def display_grid(self) -> dict[str, Any]:
        """The run's picture on its display page (drawn by :mod:`wwm.server.drawing`)."""
        e = self.engine
        return {"columns": e.size, "rows": e.size, "y_up": True,
                "marks": {"food": e.food, "hazard": e.hazards, "agent": [e.body]},
                "caption": f"step {e.step_count}{f' of {e.max_steps}' if e.max_steps else ''} · score {e.score:g}"}
