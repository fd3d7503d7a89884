"""Built-in Tileworld agents that read T-World percept data and return action strings.

:class:`ReactiveAgent` re-chooses its tile, hole and push every step (no commitment).
:class:`DeliberativeAgent` plans a whole push sequence by search over (robot, tile) positions,
spends ``planning_steps`` agent steps thinking (sending ``none``) and commits to the plan
until it breaks: a bold agent in Kinny and Georgeff's sense, whose cost grows with γ.
:class:`CautiousAgent` re-plans every two moves, paying the planning time each time.
"""

from __future__ import annotations

import random
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

from ..registry import Registry, UnknownName

Cell = tuple[int, int]
MOVES: dict[str, Cell] = {"north": (-1, 0), "south": (1, 0), "east": (0, 1), "west": (0, -1)}


class Agent(Protocol):
    def act(self, data: dict[str, Any]) -> str:
        """The action for one full percept's ``data``."""


@dataclass(frozen=True)
class View:
    """The parts of a percept a tile-pusher uses."""

    rows: int
    columns: int
    me: Cell
    tiles: frozenset[Cell]
    holes: dict[Cell, int]
    blocked: frozenset[Cell]  # obstacles and other robots
    easy: bool = False  # easy mode: walking onto a hole cell fills it

    @classmethod
    def parse(cls, data: dict[str, Any]) -> View:
        grid = data["environment"]["grid"]
        loc = data["agent"]["location"]
        me = (loc["row"], loc["column"])
        tiles, holes, blocked = set(), {}, set()
        for r, row in enumerate(grid):
            for c, code in enumerate(row):
                if code == "T":
                    tiles.add((r, c))
                elif code == "#" or (code == "A" and (r, c) != me):
                    blocked.add((r, c))
                elif isinstance(code, int):
                    holes[(r, c)] = code
        easy = bool(data.get("builtin_knowledge", {}).get("easy", False))
        return cls(len(grid), len(grid[0]) if grid else 0, me, frozenset(tiles), holes, frozenset(blocked), easy)

    def inside(self, cell: Cell) -> bool:
        return 0 <= cell[0] < self.rows and 0 <= cell[1] < self.columns

    def walkable(self, cell: Cell) -> bool:
        return self.inside(cell) and cell not in self.tiles and cell not in self.holes and cell not in self.blocked


def out_of_battery(data: dict[str, Any]) -> bool:
    """An empty battery in a run with batteries: no move works until the robot restores it
    (for half its score)."""
    costs = data.get("builtin_knowledge", {}).get("costs") or {}
    return costs.get("battery") is not None and data["agent"].get("battery", 1) <= 0


def _dist(a: Cell, b: Cell) -> int:
    return abs(a[0] - b[0]) + abs(a[1] - b[1])


def _add(a: Cell, d: Cell) -> Cell:
    return a[0] + d[0], a[1] + d[1]


def path_to(view: View, goal: Cell) -> list[str] | None:
    """Shortest walk from the robot to ``goal`` over walkable cells (BFS), or None."""
    if view.me == goal:
        return []
    return _shortest_walk(view, goal.__eq__, view.walkable)


def path_to_nearest(view: View, goals: set[Cell]) -> list[str] | None:
    """Shortest walk onto the nearest of ``goals`` (which may be unwalkable cells such as holes
    in easy mode), or None."""
    return _shortest_walk(view, goals.__contains__, lambda cell: cell in goals or view.walkable(cell))


def _shortest_walk(view: View, is_goal: Callable[[Cell], bool],
                   may_enter: Callable[[Cell], bool]) -> list[str] | None:
    """Breadth-first search from the robot over cells it ``may_enter``: the moves onto the first
    cell that ``is_goal``, or None when no such cell can be reached."""
    back: dict[Cell, tuple[Cell, str]] = {view.me: (view.me, "")}
    queue = deque([view.me])
    while queue:
        here = queue.popleft()
        for name, d in MOVES.items():
            nxt = _add(here, d)
            if nxt in back or not may_enter(nxt):
                continue
            back[nxt] = (here, name)
            if is_goal(nxt):
                moves = []
                while nxt != view.me:
                    nxt, move = back[nxt]
                    moves.append(move)
                return moves[::-1]
            queue.append(nxt)
    return None


def easy_move(view: View) -> str | None:
    """Easy mode: the first step onto the nearest hole cell."""
    if not view.easy or not view.holes:
        return None
    path = path_to_nearest(view, set(view.holes))
    return path[0] if path else None


def candidate_pairs(view: View, limit: int) -> list[tuple[Cell, Cell]]:
    """(tile, hole cell) pairs, the cheapest-looking first."""
    pairs = [(t, h) for t in view.tiles for h in view.holes]
    pairs.sort(key=lambda p: (_dist(view.me, p[0]) + 2 * _dist(p[0], p[1]), p))
    return pairs[:limit]


class ReactiveAgent:
    """Every step: the best-looking tile and hole, the push that brings the tile nearer, and
    one step toward the cell behind the tile."""

    def __init__(self, seed: int = 0, pairs: int = 6) -> None:
        self.rng = random.Random(seed)
        self.pairs = pairs

    def act(self, data: dict[str, Any]) -> str:
        if out_of_battery(data):
            return "restore"
        view = View.parse(data)
        if move := easy_move(view):
            return move
        best: tuple[int, str] | None = None
        for tile, hole in candidate_pairs(view, self.pairs):
            for name, d in MOVES.items():
                after = _add(tile, d)
                if _dist(after, hole) >= _dist(tile, hole):
                    continue
                if not (view.inside(after) and (after == hole or view.walkable(after))):
                    continue
                stand = (tile[0] - d[0], tile[1] - d[1])
                if stand != view.me and not view.walkable(stand):
                    continue
                path = path_to(view, stand)
                if path is None:
                    continue
                cost = len(path) + _dist(tile, hole)
                if best is None or cost < best[0]:
                    best = (cost, path[0] if path else name)
        if best is not None:
            return best[1]
        moves = [n for n, d in MOVES.items() if view.walkable(_add(view.me, d))]
        return self.rng.choice(moves) if moves else "none"


def plan_push(view: View, tile: Cell, hole: Cell, max_states: int = 20000) -> list[str] | None:
    """Moves that push ``tile`` into ``hole``: BFS over (robot, tile) positions, with every
    other tile and hole treated as a wall."""
    def tile_ok(cell: Cell) -> bool:
        return cell == hole or view.walkable(cell)

    start = (view.me, tile)
    back: dict[tuple[Cell, Cell], tuple[tuple[Cell, Cell], str]] = {start: (start, "")}
    queue = deque([start])
    while queue and len(back) < max_states:
        state = queue.popleft()
        robot, t = state
        for name, d in MOVES.items():
            nxt = _add(robot, d)
            if nxt == t:
                beyond = _add(t, d)
                if not tile_ok(beyond):
                    continue
                new = (nxt, beyond)
            elif view.walkable(nxt) or nxt == view.me:
                new = (nxt, t)
            else:
                continue
            if new in back:
                continue
            back[new] = (state, name)
            if new[1] == hole:
                moves = []
                while new != start:
                    new, move = back[new]
                    moves.append(move)
                return moves[::-1]
            queue.append(new)
    return None


class DeliberativeAgent:
    """Plans a full push sequence, thinks ``planning_steps`` steps, then commits to it until
    the target hole is gone or the next move no longer does what the plan expected (bold).
    With ``reconsider=k`` it also stops to re-plan after every k moves (cautious)."""

    def __init__(self, seed: int = 0, planning_steps: int = 2, pairs: int = 3, reconsider: int | None = None) -> None:
        self.rng = random.Random(seed)
        self.planning_steps = planning_steps
        self.pairs = pairs
        self.reconsider = reconsider
        self.moved = 0
        self.plan: list[str] = []
        self.target: Cell | None = None
        self.expect: Cell | None = None
        self.thinking = 0

    def act(self, data: dict[str, Any]) -> str:
        if out_of_battery(data):
            return "restore"
        view = View.parse(data)
        fresh = self.reconsider is None or self.moved < self.reconsider
        if self.plan and fresh and self.target in view.holes and view.me == self.expect:
            return self._follow(view)
        if self.thinking < self.planning_steps:
            self.thinking += 1
            return "none"
        self.thinking, self.moved = 0, 0
        self.plan, self.target = [], None
        if view.easy and view.holes:  # easy mode: walk onto the holes
            plan = path_to_nearest(view, set(view.holes))
            if plan:
                self.plan, self.target, self.expect = plan, _add_all(view.me, plan), view.me
                return self._follow(view)
        for tile, hole in candidate_pairs(view, self.pairs):
            plan = plan_push(view, tile, hole)
            if plan:
                self.plan, self.target = plan, hole
                self.expect = view.me
                return self._follow(view)
        moves = [n for n, d in MOVES.items() if view.walkable(_add(view.me, d))]
        return self.rng.choice(moves) if moves else "none"

    def _follow(self, view: View) -> str:
        self.moved += 1
        move = self.plan.pop(0)
        self.expect = _add(view.me, MOVES[move])
        return move


def _add_all(cell: Cell, moves: list[str]) -> Cell:
    for move in moves:
        cell = _add(cell, MOVES[move])
    return cell


class CautiousAgent(DeliberativeAgent):
    """Kinny and Georgeff's cautious agent: re-plans (and pays the planning time) after every
    two moves instead of committing to the whole plan."""

    def __init__(self, seed: int = 0) -> None:
        super().__init__(seed=seed, reconsider=2)


BUILTIN: Registry[Callable[..., Agent]] = Registry("built-in agent", group="wwm.tileworld_agents")
BUILTIN.register(ReactiveAgent, name="reactive")
BUILTIN.register(DeliberativeAgent, name="deliberative")
BUILTIN.register(CautiousAgent, name="cautious")


def make_agent(name: str, seed: int = 0) -> Agent:
    """A built-in agent by name (``reactive``, ``deliberative`` = bold, or ``cautious``)."""
    try:
        return BUILTIN.lookup(name)(seed=seed)
    except UnknownName:
        raise ValueError(f"no built-in agent {name!r}: choose {', '.join(BUILTIN)}") from None
