"""A House Robot world ([PhD] ch. 4, reference notes 5.1): a wandering vacuum cleaner that is
also a smoke alarm and a security camera, with parallel and conflicting goals, one mind per
goal. A RECONSTRUCTION: the thesis gives the state encoding and two rewards; the floor plan,
the dynamics and the score below are this project's decisions (TR-426 ch. 4 has the originals).

State x keeps the pinned encoding of the thesis's code sketch, in its observe() order:
``dirt=<0-9> full=<0|1> plug=<0-9> wall=<0-9> human=<0-9> class=<0-2> smoke=<0-9>
wallinway=<0|1>``. Directions: 0 N, 1 NE, 2 E, 3 SE, 4 S, 5 SW, 6 W, 7 NW, 8 on the
robot's square, 9 none visible. class: 0 family, 1 stranger, 2 no one in sight. Actions:
0-7 move one square (blocked by walls: then wallinway=1), 8 stay. Not a torus: the robot
can get stuck in corners.
"""

from __future__ import annotations

import random
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, ClassVar

from .ant import HERE, MOVES, NONE, EngineWorld, direction

Cell = tuple[int, int]


@dataclass
class HouseEngine:
    """The rules, with no I/O. One room (or, with ``rooms=2``, two joined by a door); the plug
    in the top left corner; people come in at the door.

    Each step: the robot moves (or bumps into a wall); on dirt and not full it sucks it up
    (+1; ``capacity`` pieces fill it); on the plug it empties. Dirt appears at random
    (``dirt_rate``); a fire may start (``fire_rate``), costing 0.1 a step until the robot
    reaches it (+5) or it burns out after ``burn`` steps; its smoke is sensed from anywhere
    in the house. People come in at the door now and then, wander, and leave; a stranger
    (``stranger_rate`` of them) reached by the robot scores +3 and runs off; walking into a
    family member costs 1."""

    width: int = 11
    height: int = 8
    capacity: int = 3
    dirt_rate: float = 0.05
    fire_rate: float = 0.01
    visit_rate: float = 0.03
    stranger_rate: float = 0.4
    radius: int = 4
    seed: int | None = 0
    rooms: int = 1
    burn: int = 60
    rng: random.Random = field(init=False, repr=False)
    walls: set[Cell] = field(init=False, default_factory=set)
    robot: Cell = field(init=False)
    plug: Cell = field(init=False)
    door: Cell = field(init=False)
    dirt: set[Cell] = field(init=False, default_factory=set)
    load: int = field(init=False, default=0)
    fire: Cell | None = field(init=False, default=None)
    human: Cell | None = field(init=False, default=None)
    burning: int = field(init=False, default=0)
    stranger: bool = field(init=False, default=False)
    stay: int = field(init=False, default=0)
    blocked: bool = field(init=False, default=False)
    counts: dict[str, int] = field(init=False, default_factory=dict)

    def __post_init__(self) -> None:
        if self.width < 6 or self.height < 5:
            raise ValueError("the house needs width >= 6 and height >= 5")
        for name in ("dirt_rate", "fire_rate", "visit_rate", "stranger_rate"):
            if not 0.0 <= getattr(self, name) <= 1.0:
                raise ValueError(f"{name} is a probability between 0 and 1")
        if self.capacity < 1 or self.radius < 1 or self.burn < 1:
            raise ValueError("capacity, radius and burn must be at least 1")
        if self.rooms not in (1, 2):
            raise ValueError("rooms must be 1 or 2")
        self.reset()

    def reset(self) -> None:
        self.rng = random.Random(self.seed)
        w, h = self.width, self.height
        self.walls = {(x, y) for x in range(w) for y in range(h) if x in (0, w - 1) or y in (0, h - 1)}
        mid = w // 2
        if self.rooms == 2:
            self.door = (mid, h // 2)
            self.walls |= {(mid, y) for y in range(h) if (mid, y) != self.door}
        else:
            self.door = (w - 2, h // 2)  # just inside the front door
        self.plug = (1, 1)
        self.robot = (2, h - 2)
        self.dirt, self.load, self.fire, self.human = set(), 0, None, None
        self.stranger, self.stay, self.blocked = False, 0, False
        self.counts = {"dirt": 0, "fires": 0, "strangers": 0, "bumps": 0}
        for _ in range(3):
            self.dirt.add(self._floor())

    def _floor(self) -> Cell:
        while True:
            cell = (self.rng.randrange(1, self.width - 1), self.rng.randrange(1, self.height - 1))
            if cell not in self.walls and cell != self.plug and cell != self.robot:
                return cell

    def _sense(self, cell: Cell | None, anywhere: bool = False) -> int:
        if cell is None:
            return NONE
        dx, dy = cell[0] - self.robot[0], cell[1] - self.robot[1]
        if max(abs(dx), abs(dy)) > self.radius and not anywhere:
            return NONE
        return direction(dx, dy)

    def _nearest(self, cells: Iterable[Cell]) -> int:
        near = [c for c in cells if max(abs(c[0] - self.robot[0]), abs(c[1] - self.robot[1])) <= self.radius]
        if not near:
            return NONE
        return self._sense(min(near, key=lambda c: (max(abs(c[0] - self.robot[0]), abs(c[1] - self.robot[1])), c)))

    def observe(self) -> str:
        wall = self._nearest([c for c in self.walls if max(abs(c[0] - self.robot[0]), abs(c[1] - self.robot[1])) <= 1])
        human = self._sense(self.human)
        cls = 2 if human == NONE else int(self.stranger)
        plug = self._sense(self.plug)
        if plug == NONE:  # the plug is known from anywhere, like the Ant World's nest
            plug = direction(self.plug[0] - self.robot[0], self.plug[1] - self.robot[1])
        return (f"dirt={self._nearest(self.dirt)} full={int(self.load >= self.capacity)} plug={plug} "
                f"wall={wall} human={human} class={cls} smoke={self._sense(self.fire, anywhere=True)} "
                f"wallinway={int(self.blocked)}")

    def _step_cell(self, cell: Cell, move: int) -> Cell:
        dx, dy = MOVES[move]
        return (cell[0] + dx, cell[1] + dy)

    def step(self, move: int) -> float:
        score = 0.0
        # the robot sucks up the dirt it is standing on (it was "at" it, dirt=8, last step)
        if self.robot in self.dirt and self.load < self.capacity:
            self.dirt.discard(self.robot)
            self.load += 1
            self.counts["dirt"] += 1
            score += 1.0
        target = self._step_cell(self.robot, move)
        self.blocked = target in self.walls
        if not self.blocked:
            self.robot = target
        if self.robot == self.plug:
            self.load = 0
        if self.fire is not None:
            if self.robot == self.fire:
                self.fire = None
                self.counts["fires"] += 1
                score += 5.0
            else:
                score -= 0.1
                self.burning += 1
                if self.burning >= self.burn:
                    self.fire = None
        elif self.rng.random() < self.fire_rate:
            self.fire, self.burning = self._floor(), 0
        if self.rng.random() < self.dirt_rate and len(self.dirt) < 10:
            self.dirt.add(self._floor())
        score += self._people()
        return score

    def _people(self) -> float:
        if self.human is None:
            if self.rng.random() < self.visit_rate:
                self.human, self.stranger, self.stay = self.door, self.rng.random() < self.stranger_rate, 40
            return 0.0
        if self.human == self.robot:
            if self.stranger:
                self.counts["strangers"] += 1
                self.human = None
                return 3.0
            self.counts["bumps"] += 1
            self.human = None
            return -1.0
        self.stay -= 1
        if self.stay <= 0:
            self.human = None
            return 0.0
        moved = self._step_cell(self.human, self.rng.randrange(9))
        if moved not in self.walls:
            self.human = moved
        return 0.0


class HouseRobotWorld(EngineWorld):
    """A House Robot ([PhD] ch. 4), reconstructed: vacuum cleaner, smoke alarm and security
    camera in one body. +1 per dirt picked up, +5 per fire reached (-0.1 per step it burns),
    +3 per stranger reached, -1 per family member walked into. Arguments: ``width``,
    ``height``, ``capacity``, ``dirt_rate``, ``fire_rate``, ``visit_rate``,
    ``stranger_rate``, sensing ``radius``, ``seed``, ``rooms`` (1 or 2), ``burn`` (steps a
    fire burns if not reached), ``steps`` (0: never end)."""

    seed_section: ClassVar[str] = "12.3 ([PhD] ch. 4, the House Robot)"

    title: ClassVar[str] = "House Robot (reconstruction)"
    state_format: ClassVar[str] = (
        "dirt=<0-9> full=<0|1> plug=<0-9> wall=<0-9> human=<0-9> class=<0 family|1 stranger|2 none> "
        "smoke=<0-9> wallinway=<0|1> (the code.houserobot order); directions 0 N .. 7 NW, "
        "8 on the robot's square, 9 none visible")
    action_format: ClassVar[str] = "one of 0-7 (move one square that way, unless a wall is in the way) or 8 (stay)"
    # machine-readable (the JSON form of wwm.gym.spaces)
    state_space: ClassVar[dict[str, Any]] = {"type": "Dict", "form": "pairs", "spaces": {
        **{k: {"type": "Discrete", "n": 10} for k in ("dirt", "plug", "wall", "human", "smoke")},
        "full": {"type": "Discrete", "n": 2}, "class": {"type": "Discrete", "n": 3},
        "wallinway": {"type": "Discrete", "n": 2}}}
    action_space: ClassVar[dict[str, Any]] = {"type": "Discrete", "n": 9}

    def __init__(self, width: int = 11, height: int = 8, capacity: int = 3, dirt_rate: float = 0.05,
                 fire_rate: float = 0.01, visit_rate: float = 0.03, stranger_rate: float = 0.4,
                 radius: int = 4, seed: int | None = 0, rooms: int = 1, burn: int = 60,
                 steps: int = 0) -> None:
        if steps < 0:
            raise ValueError("steps must be 0 (never end) or positive")
        self.engine = HouseEngine(width, height, capacity, dirt_rate, fire_rate, visit_rate,
                                  stranger_rate, radius, seed, rooms, burn)
        self.steps = steps


__all__ = ["HERE", "HouseEngine", "HouseRobotWorld"]
