"""The Ant World of [PhD] ch. 7 (reference notes 5.2): a toroidal grid with food, a nest and
a wandering predator, where three minds with conflicting goals (find food, go home, flee)
share one body. :class:`AntEngine` holds the rules; :class:`AntWorld` serves them.

State x = ``i=<0|1> n=<0-8> f=<0-9> p=<0-9>``: carrying food; direction of the nest (known
from any distance, the ch. 7 version, not w.html's); direction of the nearest food and of
the nearest predator within the sensing radius, 9 = none visible. Directions: 0 N, 1 NE,
2 E, 3 SE, 4 S, 5 SW, 6 W, 7 NW, 8 = on the ant's own square. Action: one of 0-7 (move one
square that way) or 8 (stay, the "Do nothing").
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass, field
from typing import Any, ClassVar

from ..protocol.errors import Refusal
from ..protocol.interfaces import World
from ..protocol.results import Outcome, RunStarted

MOVES: tuple[tuple[int, int], ...] = (
    (0, -1), (1, -1), (1, 0), (1, 1), (0, 1), (-1, 1), (-1, 0), (-1, -1), (0, 0))
HERE, NONE = 8, 9
ACTIONS: tuple[str, ...] = tuple(str(a) for a in range(9))


def direction(dx: int, dy: int) -> int:
    """The compass sector (0 N .. 7 NW) of a displacement, 8 for none. y grows southwards."""
    if dx == 0 and dy == 0:
        return HERE
    return round(math.atan2(dx, -dy) / (math.pi / 4)) % 8


def parse_action(action: str) -> int:
    text = action.strip()
    if text not in ACTIONS:
        raise Refusal("bad-parameters", f"action {action[:20]!r} is not one of 0-7 (move) or 8 (stay)")
    return int(text)


@dataclass
class AntEngine:
    """The Ant World's rules, with no I/O.

    Each step the ant moves; on a food square it picks the food up if it carries none (a new
    piece appears on a random free square); on the nest it drops what it carries, scoring 1.
    Then each predator moves: towards the ant with probability ``chase`` when it can see it,
    otherwise at random. A predator on the ant's square costs 1 point and is scared off to a
    random square (project decisions: ch. 7 gives the scene, not these numbers)."""

    size: int = 12
    foods: int = 4
    predators: int = 1
    radius: int = 3
    chase: float = 0.2
    seed: int | None = 0
    rng: random.Random = field(init=False, repr=False)
    ant: tuple[int, int] = field(init=False)
    nest: tuple[int, int] = field(init=False)
    carrying: bool = field(init=False, default=False)
    food: set[tuple[int, int]] = field(init=False, default_factory=set)
    predator: list[tuple[int, int]] = field(init=False, default_factory=list)
    steps: int = field(init=False, default=0)
    delivered: int = field(init=False, default=0)
    caught: int = field(init=False, default=0)

    def __post_init__(self) -> None:
        if self.size < 3:
            raise ValueError("size must be at least 3")
        if not 0 <= self.foods < self.size * self.size - 1:
            raise ValueError(f"foods must be between 0 and {self.size * self.size - 2}")
        if not 0 <= self.predators <= self.size:
            raise ValueError(f"predators must be between 0 and {self.size}")
        if self.radius < 1:
            raise ValueError("radius must be at least 1")
        if not 0.0 <= self.chase <= 1.0:
            raise ValueError("chase is a probability between 0 and 1")
        self.reset()

    def reset(self) -> None:
        self.rng = random.Random(self.seed)
        self.nest = (self.size // 2, self.size // 2)
        self.ant = self.nest
        self.carrying = False
        self.food = set()
        for _ in range(self.foods):
            self.food.add(self._free_square())
        self.predator = [self._free_square(far=True) for _ in range(self.predators)]
        self.steps = self.delivered = self.caught = 0

    def _free_square(self, far: bool = False) -> tuple[int, int]:
        while True:
            cell = (self.rng.randrange(self.size), self.rng.randrange(self.size))
            if cell == self.ant or cell == self.nest or cell in self.food:
                continue
            if far and self.distance(cell, self.ant) <= self.radius:
                continue
            return cell

    def offset(self, a: tuple[int, int], b: tuple[int, int]) -> tuple[int, int]:
        """The shortest displacement from a to b on the torus."""
        half = self.size // 2
        return (((b[0] - a[0] + half) % self.size) - half, ((b[1] - a[1] + half) % self.size) - half)

    def distance(self, a: tuple[int, int], b: tuple[int, int]) -> int:
        dx, dy = self.offset(a, b)
        return max(abs(dx), abs(dy))

    def _nearest(self, cells: list[tuple[int, int]] | set[tuple[int, int]]) -> int:
        visible = [c for c in cells if self.distance(self.ant, c) <= self.radius]
        if not visible:
            return NONE
        target = min(visible, key=lambda c: (self.distance(self.ant, c), c))
        return direction(*self.offset(self.ant, target))

    def observe(self) -> str:
        nest = direction(*self.offset(self.ant, self.nest))
        return (f"i={int(self.carrying)} n={nest} f={self._nearest(self.food)} "
                f"p={self._nearest(self.predator)}")

    def _move(self, cell: tuple[int, int], move: int) -> tuple[int, int]:
        dx, dy = MOVES[move]
        return ((cell[0] + dx) % self.size, (cell[1] + dy) % self.size)

    def step(self, move: int) -> float:
        """Execute one action; return the points it scored."""
        score = 0.0
        self.steps += 1
        self.ant = self._move(self.ant, move)
        if self.ant in self.food and not self.carrying:
            self.food.discard(self.ant)
            self.carrying = True
            self.food.add(self._free_square())
        if self.ant == self.nest and self.carrying:
            self.carrying = False
            self.delivered += 1
            score += 1.0
        for k, cell in enumerate(self.predator):
            if self.distance(cell, self.ant) <= self.radius and self.rng.random() < self.chase:
                move_p = direction(*self.offset(cell, self.ant))
            else:
                move_p = self.rng.randrange(9)
            cell = self._move(cell, move_p)
            if cell == self.ant:
                score -= 1.0
                self.caught += 1
                cell = self._free_square(far=True)
            self.predator[k] = cell
        return score


class EngineWorld(World):
    """A World served from a plain engine (``observe()``, ``step(move) -> points``,
    ``reset()``) whose actions are 0-8; the run ends after ``steps`` actions (0: never)."""

    engine: Any
    steps: int = 0
    taken: int = 0

    async def new_run(self, client_url: str | None = None) -> RunStarted | None:
        self.client_url = client_url
        return None

    async def get_state(self) -> str:
        state: str = self.engine.observe()
        return state

    async def execute_action(self, action: str) -> Outcome:
        score = self.engine.step(parse_action(action))
        self._score += score
        self.taken += 1
        return Outcome(self.engine.observe(), score, bool(self.steps) and self.taken >= self.steps)

    async def reset(self) -> None:
        self.engine.reset()
        self._score = 0.0
        self.taken = 0


class AntWorld(EngineWorld):
    """The Ant World of [PhD] ch. 7: a toroidal grid with food, a nest and a predator.

    One point for each piece of food carried home, minus one each time the predator catches
    the ant. Arguments: ``size`` of the torus, number of ``foods`` and ``predators``, sensing
    ``radius``, predator ``chase`` probability, ``seed``, and ``steps`` after which the world
    ends the run (0: never)."""

    seed_section: ClassVar[str] = "12.3 ([PhD] ch. 7, the Ant World)"

    title: ClassVar[str] = "Ant World"
    state_format: ClassVar[str] = (
        "i=<0|1> n=<0-8> f=<0-9> p=<0-9>: carrying food; direction of the nest; of the "
        "nearest visible food; of the nearest visible predator. Directions 0 N, 1 NE, 2 E, "
        "3 SE, 4 S, 5 SW, 6 W, 7 NW, 8 here, 9 none visible")
    action_format: ClassVar[str] = "one of 0-7 (move one square in that direction) or 8 (stay)"
    # machine-readable (the JSON form of wwm.gym.spaces)
    state_space: ClassVar[dict[str, Any]] = {"type": "Dict", "form": "pairs", "spaces": {
        "i": {"type": "Discrete", "n": 2}, "n": {"type": "Discrete", "n": 9},
        "f": {"type": "Discrete", "n": 10}, "p": {"type": "Discrete", "n": 10}}}
    action_space: ClassVar[dict[str, Any]] = {"type": "Discrete", "n": 9}

    def __init__(self, size: int = 12, foods: int = 4, predators: int = 1, radius: int = 3,
                 chase: float = 0.2, seed: int | None = 0, steps: int = 0) -> None:
        if steps < 0:
            raise ValueError("steps must be 0 (never end) or positive")
        self.engine = AntEngine(size, foods, predators, radius, chase, seed)
        self.steps = steps
