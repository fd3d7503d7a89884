"""The key-and-door World: a task where the steps must happen in order (fetch the key, open
the door, reach the goal), for the serial models of section 10.3 and Maes networks (10.3.1);
and the three step minds, each a server that knows its preconditions and its effect.

**World.** A ``size`` x ``size`` grid cut in two by a wall on column ``size // 2``, with one
door in it. The body starts on the west side; the key lies on the west side, the goal on
the east side (placed by ``seed``). The door opens only when the body stands next to it
holding the key; the goal can only be reached through the open door.

**State** (one line of ``key=value`` items)::

    size=7 step=4 x=1 y=3 key=2,5 door=3,1 goal=6,4 has_key=0 door_open=0 at_goal=0

``key=-`` once the key is held. **Action**: ``north``, ``south``, ``east``, ``west``,
``pick`` (take the key when on its cell), ``open`` (open the door when next to it with the
key), ``stay``. A useless ``pick`` or ``open`` does nothing. **Score**: 1 when the body
reaches the goal (the run ends there), 0 otherwise; a client's measure is whether the goal
was reached and in how many steps. The world ends a run after ``steps`` actions (default 100).

**Minds** (:class:`FetchKey`, :class:`OpenDoor`, :class:`ReachGoal`): each answers "Ready to
suggest action?" from its preconditions (:attr:`StepMind.pre`, e.g. ``has_key==1 and
door_open==0``) and its goal not yet achieved, so a serial Mind_M only has to know the order;
each declares its effect (:attr:`StepMind.adds`) on its server page for a Maes network.
"""

from __future__ import annotations

import random
from collections import deque
from dataclasses import dataclass
from typing import Any, ClassVar

from ..kit.region import Region, parse_region, state_variables
from ..protocol.errors import Refusal
from ..protocol.interfaces import CompetingMind, World
from ..protocol.results import Outcome, Suggestion

Cell = tuple[int, int]
MOVES: dict[str, Cell] = {"north": (0, 1), "south": (0, -1), "east": (1, 0), "west": (-1, 0)}
ACTIONS: tuple[str, ...] = (*MOVES, "pick", "open", "stay")


@dataclass
class KeyDoorView:
    """A key-and-door state read back from its text."""

    size: int
    body: Cell
    key: Cell | None
    door: Cell
    goal: Cell
    has_key: bool
    door_open: bool
    at_goal: bool

    @classmethod
    def parse(cls, state: str) -> KeyDoorView:
        items = dict(part.partition("=")[::2] for part in state.split())
        try:
            return cls(int(items["size"]), (int(items["x"]), int(items["y"])),
                       None if items["key"] == "-" else _cell(items["key"]), _cell(items["door"]),
                       _cell(items["goal"]), items["has_key"] == "1", items["door_open"] == "1",
                       items["at_goal"] == "1")
        except (KeyError, ValueError) as exc:
            raise ValueError(f"not a key-and-door state ({exc}): {state[:60]!r}") from None

    def passable(self, cell: Cell) -> bool:
        x, y = cell
        if not (0 <= x < self.size and 0 <= y < self.size):
            return False
        return x != self.door[0] or (cell == self.door and self.door_open)

    def path_step(self, target: Cell, adjacent: bool = False) -> str | None:
        """The first move of a shortest path to ``target`` (to a cell next to it if
        ``adjacent``); "stay" if already there; None if it cannot be reached."""
        def done(c: Cell) -> bool:
            return abs(c[0] - target[0]) + abs(c[1] - target[1]) == 1 if adjacent else c == target
        if done(self.body):
            return "stay"
        first: dict[Cell, str | None] = {self.body: None}
        queue = deque([self.body])
        while queue:
            cell = queue.popleft()
            for name, (dx, dy) in MOVES.items():
                nxt = (cell[0] + dx, cell[1] + dy)
                if nxt in first or not self.passable(nxt):
                    continue
                first[nxt] = first[cell] or name
                if done(nxt):
                    return first[nxt]
                queue.append(nxt)
        return None


def _next_to(a: Cell, b: Cell) -> bool:
    return abs(a[0] - b[0]) + abs(a[1] - b[1]) == 1


def _cell(text: str) -> Cell:
    x, y = text.split(",")
    return int(x), int(y)


class KeyDoorWorld(World):
    """Fetch the key, open the door, reach the goal, in that order: a World for serial models
    and Maes networks (own copy per client, seeded)."""

    seed_section: ClassVar[str] = "10.3 (serial models), 10.3.1 (Maes networks)"

    sharing = "own"
    state_format: ClassVar[str] = (
        "one line of key=value items: size=N step=K x=X y=Y key=x,y (or -) door=x,y goal=x,y "
        "has_key=0|1 door_open=0|1 at_goal=0|1; the wall is the column x=door's x, east is +x, north +y")
    action_format: ClassVar[str] = ("north | south | east | west | pick (the key, on its cell) | "
                                    "open (the door, next to it with the key) | stay")
    # machine-readable (the JSON form of wwm.gym.spaces), for the largest grid (size 50);
    # key=- (held) reads as -1,-1
    state_space: ClassVar[dict[str, Any]] = {"type": "Dict", "form": "pairs", "spaces": {
        "x": {"type": "Discrete", "n": 50}, "y": {"type": "Discrete", "n": 50},
        "key": {"type": "Box", "shape": [2], "low": -1, "high": 49, "absent": "-"},
        "door": {"type": "Box", "shape": [2], "low": 0, "high": 49},
        "goal": {"type": "Box", "shape": [2], "low": 0, "high": 49},
        **{flag: {"type": "Discrete", "n": 2} for flag in ("has_key", "door_open", "at_goal")}}}
    action_space: ClassVar[dict[str, Any]] = {"type": "Discrete", "n": len(ACTIONS), "labels": list(ACTIONS)}

    def __init__(self, size: int = 7, steps: int = 100, seed: int = 0) -> None:
        if not 5 <= size <= 50:
            raise ValueError(f"size must be between 5 and 50, got {size}")
        if steps < 1:
            raise ValueError(f"steps must be at least 1, got {steps}")
        self.size, self.max_steps, self.seed = size, steps, seed
        rng = random.Random(seed)
        wall = size // 2
        west = [(x, y) for x in range(wall) for y in range(size)]
        self.start, self.key = rng.sample(west, 2)
        self.door = (wall, rng.randrange(size))
        self.goal = (rng.randrange(wall + 1, size), rng.randrange(size))
        self.body: Cell = self.start
        self.has_key = self.door_open = self.at_goal = False
        self.steps = 0

    @property
    def view(self) -> KeyDoorView:
        return KeyDoorView(self.size, self.body, None if self.has_key else self.key, self.door, self.goal,
                           self.has_key, self.door_open, self.at_goal)

    async def get_state(self) -> str:
        key = "-" if self.has_key else f"{self.key[0]},{self.key[1]}"
        return (f"size={self.size} step={self.steps} x={self.body[0]} y={self.body[1]} key={key} "
                f"door={self.door[0]},{self.door[1]} goal={self.goal[0]},{self.goal[1]} "
                f"has_key={int(self.has_key)} door_open={int(self.door_open)} at_goal={int(self.at_goal)}")

    @property
    def finished(self) -> bool:
        return self.at_goal or self.steps >= self.max_steps

    async def execute_action(self, action: str) -> Outcome:
        name = action.strip().lower()
        if name not in ACTIONS:
            raise Refusal("bad-parameters", f"Execute action: unknown action {action.strip()[:40]!r}: "
                                            f"use one of {', '.join(ACTIONS)}")
        if self.finished:
            raise Refusal("run-ended", "the key-and-door run is over")
        view = self.view
        if name in MOVES:
            dx, dy = MOVES[name]
            cell = (self.body[0] + dx, self.body[1] + dy)
            if view.passable(cell):
                self.body = cell
        elif name == "pick" and not self.has_key and self.body == self.key:
            self.has_key = True
        elif name == "open" and self.has_key and _next_to(self.body, self.door):
            self.door_open = True
        self.steps += 1
        reward = 0.0
        if self.body == self.goal and not self.at_goal:
            self.at_goal, reward = True, 1.0
            self._score += reward
        return Outcome(await self.get_state(), reward, finished=self.finished)

    def display_grid(self) -> dict[str, Any]:
        """The run's picture on its display page."""
        wall = [(self.door[0], y) for y in range(self.size) if (self.door[0], y) != self.door]
        marks: dict[str, Any] = {"wall": wall, "goal": [self.goal], "agent": [self.body],
                                 ("open door" if self.door_open else "door"): [self.door]}
        if not self.has_key:
            marks["key"] = [self.key]
        return {"columns": self.size, "rows": self.size, "y_up": True, "marks": marks,
                "caption": f"step {self.steps} · key {'held' if self.has_key else 'not held'} · "
                           f"door {'open' if self.door_open else 'shut'}"}


class StepMind(CompetingMind):
    """One step of the task: ready when its preconditions ``pre`` hold and its effect ``adds``
    does not yet; then it suggests the moves toward its own goal. Its strength (a Mind_i's
    "Change mind strength") is the activation a Maes network gives it."""

    pre: ClassVar[str] = ""
    adds: ClassVar[str] = ""
    state_format: ClassVar[str] = KeyDoorWorld.state_format
    action_format: ClassVar[str] = KeyDoorWorld.action_format

    def __init__(self) -> None:
        self.strength = 1.0
        self._pre: Region | None = parse_region(self.pre) if self.pre else None
        self._adds = parse_region(self.adds)

    def _view(self, state: str) -> KeyDoorView:
        try:
            return KeyDoorView.parse(state)
        except ValueError as exc:
            raise Refusal("bad-parameters", f"{type(self).__name__}: {exc}") from None

    def holds(self, state: str) -> bool:
        """Preconditions true and the effect not yet achieved."""
        self._view(state)
        variables = state_variables(state)
        return (self._pre is None or self._pre(variables)) and not self._adds(variables)

    async def ready_to_suggest(self, state: str | None = None) -> bool:
        return state is not None and self.holds(state)

    async def get_action(self, state: str) -> Suggestion:
        if not self.holds(state):
            return Suggestion.cannot(f"not ready: needs {self.pre or 'nothing'} and not {self.adds}")
        action = self.act(self._view(state))
        return Suggestion(action) if action else Suggestion.cannot("no way there")

    def act(self, view: KeyDoorView) -> str | None:
        raise NotImplementedError

    async def get_strength(self) -> float | None:
        return self.strength

    async def change_strength(self, strength: float) -> None:
        if not strength >= 0:
            raise Refusal("bad-parameters", f"a strength must be zero or more, got {strength}")
        self.strength = strength


class FetchKey(StepMind):
    """Walk to the key and pick it up."""

    pre: ClassVar[str] = ""
    adds: ClassVar[str] = "has_key==1"

    def act(self, view: KeyDoorView) -> str | None:
        assert view.key is not None
        step = view.path_step(view.key)
        return "pick" if step == "stay" else step


class OpenDoor(StepMind):
    """With the key, walk next to the door and open it."""

    pre: ClassVar[str] = "has_key==1"
    adds: ClassVar[str] = "door_open==1"

    def act(self, view: KeyDoorView) -> str | None:
        step = view.path_step(view.door, adjacent=True)
        return "open" if step == "stay" else step


class ReachGoal(StepMind):
    """Through the open door, walk to the goal."""

    pre: ClassVar[str] = "door_open==1"
    adds: ClassVar[str] = "at_goal==1"

    def act(self, view: KeyDoorView) -> str | None:
        return view.path_step(view.goal)


class Explore(CompetingMind):
    """A distractor: always ready, it wanders at random (``seed``) and achieves nothing the
    task needs. A network that does not know what leads to the goal runs it as readily as
    the steps that do."""

    state_format: ClassVar[str] = KeyDoorWorld.state_format
    action_format: ClassVar[str] = KeyDoorWorld.action_format

    def __init__(self, seed: int | None = 0) -> None:
        self.rng = random.Random(seed)
        self.strength = 1.0

    async def get_action(self, state: str) -> Suggestion:
        return Suggestion(self.rng.choice(tuple(MOVES)))

    async def get_strength(self) -> float | None:
        return self.strength

    async def change_strength(self, strength: float) -> None:
        if not strength >= 0:
            raise Refusal("bad-parameters", f"a strength must be zero or more, got {strength}")
        self.strength = strength


__all__ = ["Explore", "FetchKey", "KeyDoorView", "KeyDoorWorld", "OpenDoor", "ReachGoal", "StepMind"]
