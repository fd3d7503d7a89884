"""The Tileworld rules as one plain, seeded engine: no clock, no network, no async.

Time moves only through :meth:`Engine.advance` (world seconds, T-World ticks of 1 s) and
agents act only through :meth:`Engine.act`; the discrete core calls ``step`` (every agent acts
once, then the world advances γ seconds) and the real-time driver calls the two by wall clock.
Every call is logged, so replaying the log on a fresh engine gives back the same run.
"""

from __future__ import annotations

import math
import random
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from .actions import DIRECTIONS, NONE, Action, ActionError, parse_action
from .config import DYNAMIC, FAILURE, NEUTRAL, SEMIDYNAMIC, SUCCESS, Config, ConfigError

Cell = tuple[int, int]
HOLE_MULTIPLIER = 10
CELL_MULTIPLIER = 2
FULL_BATTERY = 1000
BATTERY_COST = {"good_move": 20, "bad_move": 5, "slide_tile": 10}
CHARGER_FEE = 10
CHARGER_PERIOD = 10.0
TILE_DELAY = 2
_LEFT = {"north": "west", "west": "south", "south": "east", "east": "north"}
_RIGHT = {v: k for k, v in _LEFT.items()}
_BACK = {"north": "south", "south": "north", "east": "west", "west": "east"}
STAT_KEYS = ("good_moves", "bad_moves", "filled_cells", "filled_holes", "battery_used",
             "battery_recharge", "battery_restore", "total_score")


@dataclass
class Hole:
    id: int
    cells: list[Cell]
    size: int
    value: int
    born: float
    lifetime: int
    expires: float | None


@dataclass
class Thing:
    """A tile or an obstacle: one cell with a lifetime (``expires`` None = forever)."""

    id: int
    cell: Cell
    born: float
    expires: float | None


@dataclass
class AgentState:
    id: int
    team: int
    cell: Cell
    stats: dict[str, int] = field(default_factory=lambda: dict.fromkeys(STAT_KEYS, 0))
    value_filled: int = 0  # sum of the values of the holes this agent completed


@dataclass
class TeamState:
    id: int
    members: tuple[int, ...]
    score: int = 0
    battery: int = FULL_BATTERY
    multiplier: int = 1
    multiplier_until: float = 0.0
    charging_since: dict[int, float] = field(default_factory=dict)

    @property
    def leader(self) -> int:
        return self.members[0]


@dataclass(frozen=True, slots=True)
class ActResult:
    """What one action did: ``kind`` is good_move, bad_move, none, restore, message or
    console; ``points`` what it scored; ``filled`` the hole ids it completed."""

    kind: str
    points: int = 0
    filled: tuple[int, ...] = ()
    deliveries: tuple[tuple[int, str], ...] = ()


class Engine:
    """One Tileworld run. Build it from a :class:`Config`; the same config and seed and the
    same sequence of calls always give the same world."""

    def __init__(self, config: Config) -> None:
        self.config = config
        self.knowledge: dict[str, Any] | None = None  # the run's constants (percepts.builtin_knowledge)
        self.rng = random.Random(config.seed)
        self.action_rng = random.Random(config.seed * 7919 + 1)
        self.noise_rng = random.Random(config.seed * 104729 + 2)  # partial-view noise only
        self.time = 0.0
        self.next_tick = 1
        self.result = 0
        self.holes: dict[int, Hole] = {}
        self.tiles: dict[Cell, Thing] = {}
        self.obstacles: dict[Cell, Thing] = {}
        self.hole_at: dict[Cell, Hole] = {}
        self.chargers: list[Cell] = []
        self.agents: list[AgentState] = []
        self.agent_at: dict[Cell, AgentState] = {}
        self.teams: list[TeamState] = [TeamState(i, t.members) for i, t in enumerate(config.team_list)]
        self.team_of = {m: i for i, t in enumerate(config.team_list) for m in t.members}
        self.pending_tiles: list[tuple[float, int, Cell, int]] = []  # (due, hole id, hole cell, L)
        self.messages: list[dict[str, Any]] = []
        self.log: list[list[Any]] = []
        self.counter = 0
        self.steps = 0
        self.total_holes = 0
        self.total_cells = 0
        self.total_value = 0  # the value of every hole that appeared (as last valued)
        self.next_holes = math.inf
        self.next_obstacles = math.inf
        self._build()

    # ---- construction -------------------------------------------------------------------------
    def _build(self) -> None:
        cfg = self.config
        agent_cells: list[Cell] = []
        if cfg.initial_state is not None:
            holes: dict[int, list[Cell]] = {}
            for r, row in enumerate(cfg.initial_state):
                for c, code in enumerate(row):
                    cell = (r, c)
                    if isinstance(code, int) and not isinstance(code, bool):
                        holes.setdefault(code, []).append(cell)
                    elif code == "T":
                        self.tiles[cell] = Thing(self._new_id(), cell, 0.0, None)
                    elif code == "#":
                        self.obstacles[cell] = Thing(self._new_id(), cell, 0.0, None)
                    elif code == "C":
                        self.chargers.append(cell)
                    elif code == "A":
                        agent_cells.append(cell)
                    elif code != " ":
                        raise ConfigError(f"initial_state cell {cell} has unknown code {code!r}: "
                                          "use ' ', 'T', '#', 'A', 'C' or a hole id")
            for _, cells in sorted(holes.items()):
                self._add_hole(cells, with_tiles=False)
        else:
            self._hole_batch(initial=True)
            self._obstacle_batch()
        if len(agent_cells) > cfg.agents:
            raise ConfigError(f"initial_state places {len(agent_cells)} agents but the run has {cfg.agents}")
        while len(self.chargers) < cfg.charger_count:
            self.chargers.append(self._random_free_cell())
        for i in range(cfg.agents):
            cell = agent_cells[i] if i < len(agent_cells) else self._random_free_cell()
            agent = AgentState(i, self.team_of[i], cell)
            self.agents.append(agent)
            self.agent_at[cell] = agent
        if cfg.dynamic == DYNAMIC:
            self.next_holes = cfg.dynamism.draw(self.rng) + TILE_DELAY
            if cfg.initial_state is None:
                self.next_obstacles = cfg.hostility.draw(self.rng)
        self._check_end()

    def _new_id(self) -> int:
        self.counter += 1
        return self.counter

    def in_bounds(self, cell: Cell) -> bool:
        return 0 <= cell[0] < self.config.rows and 0 <= cell[1] < self.config.columns

    def is_free(self, cell: Cell) -> bool:
        """Empty: no tile, obstacle, hole cell, agent or charger."""
        return (cell not in self.tiles and cell not in self.obstacles and cell not in self.hole_at
                and cell not in self.agent_at and cell not in self.chargers)

    def _free_cells(self) -> list[Cell]:
        return [(r, c) for r in range(self.config.rows) for c in range(self.config.columns) if self.is_free((r, c))]

    def _random_free_cell(self) -> Cell:
        cell = self._some_free_cell()
        if cell is None:
            raise ConfigError(f"the {self.config.rows}x{self.config.columns} grid has no free cell left")
        return cell

    def _some_free_cell(self) -> Cell | None:
        """A uniformly random free cell (a few random probes, then a scan), or None if full."""
        rows, cols = self.config.rows, self.config.columns
        for _ in range(32):
            cell = (self.rng.randrange(rows), self.rng.randrange(cols))
            if self.is_free(cell):
                return cell
        cells = self._free_cells()
        return self.rng.choice(cells) if cells else None

    # ---- spawning -----------------------------------------------------------------------------
    def _hole_batch(self, initial: bool = False) -> None:
        for _ in range(self.config.num_holes.draw(self.rng)):
            start = self._some_free_cell()
            if start is None:
                return
            size = self.config.holes_size.draw(self.rng)
            cells, frontier = [start], [start]
            seen = {start}
            while frontier and len(cells) < size:  # grow a connected group, breadth first
                here = frontier.pop(0)
                around = [(here[0] + dr, here[1] + dc) for dr, dc in DIRECTIONS.values()]
                self.rng.shuffle(around)
                for nxt in around:
                    if len(cells) < size and nxt not in seen and self.in_bounds(nxt) and self.is_free(nxt):
                        seen.add(nxt)
                        cells.append(nxt)
                        frontier.append(nxt)
            self._add_hole(cells, with_tiles=True, immediate=initial)

    def _hole_value(self, size: int) -> int:
        return math.floor(size * HOLE_MULTIPLIER * (1 - self.rng.random() * self.config.scores_variability))

    def _add_hole(self, cells: list[Cell], with_tiles: bool, immediate: bool = False) -> None:
        cfg = self.config
        lifetime = cfg.dynamism.draw(self.rng)
        expires = self.time + lifetime + TILE_DELAY if cfg.dynamic == DYNAMIC else None
        if cfg.dynamic == SEMIDYNAMIC:
            expires = self.time + lifetime  # the next halving of its value
        hole = Hole(self._new_id(), list(cells), len(cells), self._hole_value(len(cells)), self.time, lifetime, expires)
        self.holes[hole.id] = hole
        for cell in cells:
            self.hole_at[cell] = hole
        self.total_holes += 1
        self.total_cells += len(cells)
        self.total_value += hole.value
        if with_tiles and not cfg.easy:
            for cell in cells:
                if immediate or cfg.dynamic != DYNAMIC:  # placed now, not 2 s later: live 2 s longer,
                    self._place_tile(hole.id, cell, lifetime + TILE_DELAY)  # so they outlive their hole by 1 s
                else:
                    self.pending_tiles.append((self.time + TILE_DELAY, hole.id, cell, lifetime))

    def _place_tile(self, hole_id: int, hole_cell: Cell, lifetime: int) -> None:
        cfg = self.config
        wanted = max(1, cfg.difficulty.draw(self.rng))
        limit = cfg.rows + cfg.columns
        for d in [*range(wanted, 0, -1), *range(wanted + 1, limit)]:
            ring = [(hole_cell[0] + dr, hole_cell[1] + (d - abs(dr)) * s)
                    for dr in range(-d, d + 1) for s in ((1, -1) if d - abs(dr) else (1,))]
            ring = [c for c in ring if self.in_bounds(c) and self.is_free(c)]
            if ring:
                cell = self.rng.choice(ring)
                break
        else:
            return  # a full grid: no tile this time
        if cfg.dynamic != DYNAMIC:
            expires = None
        elif cfg.async_tiles:
            expires = self.time + cfg.dynamism_tiles.draw(self.rng) + 1
        else:
            expires = self.time + lifetime + 1
        self.tiles[cell] = Thing(self._new_id(), cell, self.time, expires)

    def _obstacle_batch(self) -> None:
        cfg = self.config
        for _ in range(cfg.num_obstacles.draw(self.rng)):
            cell = self._some_free_cell()
            if cell is None:
                return
            expires = self.time + cfg.hostility.draw(self.rng) + 1 if cfg.dynamic == DYNAMIC else None
            self.obstacles[cell] = Thing(self._new_id(), cell, self.time, expires)

    # ---- time ---------------------------------------------------------------------------------
    def advance(self, seconds: float) -> None:
        """Move the world clock on by ``seconds`` (world time), ticking every whole second."""
        if seconds < 0:
            raise ValueError(f"time only moves forward, got {seconds} s")
        if self.result:
            return
        self.log.append(["advance", seconds])
        target = self.time + seconds
        while self.next_tick <= target + 1e-9 and not self.result:
            self.time = float(self.next_tick)
            self.next_tick += 1
            self._tick()
        if not self.result:
            self.time = target

    def _tick(self) -> None:
        cfg = self.config
        now = self.time
        for team in self.teams:
            if cfg.multiplier and team.multiplier > 1 and now >= team.multiplier_until:
                team.multiplier = 1
            for agent_id, since in list(team.charging_since.items()):
                if now - since >= CHARGER_PERIOD:
                    team.charging_since[agent_id] = since + CHARGER_PERIOD
                    team.score = max(0, team.score - CHARGER_FEE)
                    team.battery = FULL_BATTERY
        if cfg.dynamic == SEMIDYNAMIC:
            for hole in self.holes.values():
                if hole.expires is not None and now >= hole.expires:
                    old, hole.value = hole.value, hole.value // 2
                    self.total_value += hole.value - old
                    hole.expires = now + cfg.dynamism.draw(self.rng)
        if cfg.dynamic != DYNAMIC:
            self._check_end()
            return
        for hole in [h for h in self.holes.values() if h.expires is not None and now >= h.expires]:
            self._expire_hole(hole)
        for things in (self.tiles, self.obstacles):
            for cell in [c for c, t in things.items() if t.expires is not None and now >= t.expires]:
                del things[cell]
        due = [p for p in self.pending_tiles if p[0] <= now]
        self.pending_tiles = [p for p in self.pending_tiles if p[0] > now]
        for _, hole_id, cell, lifetime in due:
            if hole_id in self.holes:
                self._place_tile(hole_id, cell, lifetime)
        if now >= self.next_holes:
            self._hole_batch()
            self.next_holes = now + cfg.dynamism.draw(self.rng) + TILE_DELAY
        if now >= self.next_obstacles:
            self._obstacle_batch()
            self.next_obstacles = now + cfg.hostility.draw(self.rng)
        self._check_end()

    def _expire_hole(self, hole: Hole) -> None:
        if self.config.hard_bounds or len(hole.cells) <= 1:
            for cell in hole.cells:
                del self.hole_at[cell]
            del self.holes[hole.id]
            return
        cell = self.rng.choice(hole.cells)  # soft bounds: the hole shrinks by one cell
        hole.cells.remove(cell)
        del self.hole_at[cell]
        hole.size -= 1
        old, hole.value = hole.value, self._hole_value(hole.size)
        self.total_value += hole.value - old
        hole.lifetime = self.config.dynamism.draw(self.rng)
        hole.expires = self.time + hole.lifetime

    # ---- actions ------------------------------------------------------------------------------
    def step(self, actions: Mapping[int, str | Action]) -> dict[int, ActResult]:
        """The discrete core: each listed agent acts once, then the world advances γ seconds.
        Who moves first rotates from step to step, so no robot always wins a race for a cell.
        Unparseable action strings raise :class:`ActionError` before anything moves."""
        parsed = {i: a if isinstance(a, Action) else parse_action(a) for i, a in actions.items()}
        order = sorted(parsed)
        if order:
            k = self.steps % len(order)
            order = order[k:] + order[:k]
        results = {i: self.act(i, parsed[i]) for i in order}
        self.steps += 1
        self.advance(self.config.gamma)
        return results

    def act(self, agent_id: int, action: str | Action) -> ActResult:
        """One agent's action, applied at once."""
        if not 0 <= agent_id < len(self.agents):
            raise ValueError(f"no agent {agent_id}: this run has agents 0..{len(self.agents) - 1}")
        if isinstance(action, str):
            action = parse_action(action)
        if self.result:
            return ActResult("none")
        self.log.append(["act", agent_id, str(action)])
        agent = self.agents[agent_id]
        team = self.teams[agent.team]
        if action.kind == "message" or action.kind == "team_message":
            return self._message(agent, action)
        if action.kind == "console" or action.kind == "none":
            return ActResult(action.kind)
        if action.kind == "restore":
            if self.config.battery and team.battery <= 0:
                team.battery = FULL_BATTERY
                team.score -= team.score // 2
                agent.stats["battery_restore"] += 1
                self._check_end()
            return ActResult("restore")
        result = self._move(agent, team, self._resolve(str(action.direction)))
        self._check_end()
        return result

    def _resolve(self, direction: str) -> str | None:
        m = self.config.model_of_action
        if m.intended == 1000:
            return direction
        outcome = self.action_rng.choices(range(5), weights=(m.intended, m.left, m.right, m.backward, m.refuses))[0]
        return (direction, _LEFT[direction], _RIGHT[direction], _BACK[direction], None)[outcome]

    def _move(self, agent: AgentState, team: TeamState, direction: str | None) -> ActResult:
        if direction is None:
            return ActResult("none")
        battery = self.config.battery
        if battery and team.battery <= 0:
            return self._bad_move(agent, team)
        dr, dc = DIRECTIONS[direction]
        target = (agent.cell[0] + dr, agent.cell[1] + dc)
        points, pushed = 0, 0
        filled: tuple[int, ...] = ()
        if self.config.easy and target in self.hole_at:  # easy mode: the robot fills the cell itself
            points, filled = self._fill(agent, team, target)
        elif (not self.in_bounds(target) or target in self.obstacles or target in self.hole_at
              or target in self.agent_at):
            return self._bad_move(agent, team)
        if target in self.tiles:
            row = [target]
            beyond = (target[0] + dr, target[1] + dc)
            while beyond in self.tiles:
                row.append(beyond)
                beyond = (beyond[0] + dr, beyond[1] + dc)
            if (not self.in_bounds(beyond) or beyond in self.obstacles or beyond in self.agent_at):
                return self._bad_move(agent, team)
            for cell in reversed(row):  # shift the row one cell, farthest tile first
                tile = self.tiles.pop(cell)
                tile.cell = (cell[0] + dr, cell[1] + dc)
                self.tiles[tile.cell] = tile
            pushed = len(row)
            if beyond in self.hole_at:
                del self.tiles[beyond]
                points, filled = self._fill(agent, team, beyond)
        del self.agent_at[agent.cell]
        team.charging_since.pop(agent.id, None)
        agent.cell = target
        self.agent_at[target] = agent
        agent.stats["good_moves"] += 1
        if battery:
            self._drain(agent, team, BATTERY_COST["good_move"] + BATTERY_COST["slide_tile"] * pushed)
            if target in self.chargers:
                team.battery = FULL_BATTERY
                team.score = max(0, team.score - CHARGER_FEE)
                team.charging_since[agent.id] = self.time
                agent.stats["battery_recharge"] += 1
        return ActResult("good_move", points, filled)

    def _bad_move(self, agent: AgentState, team: TeamState) -> ActResult:
        agent.stats["bad_moves"] += 1
        if self.config.battery:
            self._drain(agent, team, BATTERY_COST["bad_move"])
        return ActResult("bad_move")

    def _drain(self, agent: AgentState, team: TeamState, amount: int) -> None:
        used = min(amount, team.battery)
        team.battery -= used
        agent.stats["battery_used"] += used

    def _fill(self, agent: AgentState, team: TeamState, cell: Cell) -> tuple[int, tuple[int, ...]]:
        hole = self.hole_at.pop(cell)
        hole.cells.remove(cell)
        agent.stats["filled_cells"] += 1
        if hole.cells:
            if not self.config.partial_rewards or self.config.dynamic == SEMIDYNAMIC:
                return 0, ()
            return self._earn(agent, team, CELL_MULTIPLIER * (hole.size - len(hole.cells))), ()
        del self.holes[hole.id]
        agent.stats["filled_holes"] += 1
        agent.value_filled += hole.value
        points = self._earn(agent, team, hole.value)
        if self.config.multiplier:
            team.multiplier += 1
            team.multiplier_until = self.time + self.config.multiplier_timeout
        return points, (hole.id,)

    def _earn(self, agent: AgentState, team: TeamState, points: int) -> int:
        if self.config.multiplier:
            points *= team.multiplier
        team.score += points
        agent.stats["total_score"] += points
        return points

    def _message(self, agent: AgentState, action: Action) -> ActResult:
        mates = self.teams[agent.team].members
        if action.kind == "message":
            to = [action.to] if action.to in mates and action.to != agent.id else []
        else:
            to = [m for m in mates if m != agent.id]
        for m in to:
            self.messages.append({"time": round(self.time, 3), "step": self.steps, "from": agent.id, "to": m,
                                  "team": action.kind == "team_message", "text": action.text})
        return ActResult("message", deliveries=tuple((m, action.text) for m in to))

    # ---- the end ------------------------------------------------------------------------------
    def team_totals(self, team: TeamState) -> dict[str, int]:
        totals = {k: sum(self.agents[m].stats[k] for m in team.members) for k in STAT_KEYS}
        totals["score"] = team.score
        return totals

    def _holds(self, key: str, value: Any) -> bool:
        if key == "time":
            return self.time >= float(value) - 1e-9
        if key == "agents_location":
            cells = [(int(c["row"]), int(c["column"])) if isinstance(c, dict) else tuple(c) for c in value]
            return all(c in self.agent_at for c in cells)
        return any(self.team_totals(t)[key] >= value for t in self.teams)

    def _check_end(self) -> None:
        if self.result:
            return
        end = self.config.end
        success = end.get("success", {})
        if success and all(self._holds(k, v) for k, v in success.items()):
            self.result = SUCCESS
        elif any(self._holds(k, v) for k, v in end.get("failure", {}).items()):
            self.result = FAILURE
        elif any(self._holds(k, v) for k, v in end.get("neutral", {}).items()):
            self.result = NEUTRAL

    @property
    def finished(self) -> bool:
        return self.result != 0

    def time_left(self) -> float | None:
        limits = [float(c["time"]) for c in self.config.end.values() if "time" in c]
        return max(0.0, min(limits) - self.time) if limits else None

    # ---- replay -------------------------------------------------------------------------------
    @classmethod
    def replay(cls, config: Config, log: Iterable[list[Any]]) -> Engine:
        """A fresh engine with the logged calls applied again, in order."""
        engine = cls(config)
        for entry in log:
            if entry[0] == "advance":
                engine.advance(float(entry[1]))
            elif entry[0] == "act":
                engine.act(int(entry[1]), str(entry[2]))
            else:
                raise ValueError(f"unknown log entry {entry!r}")
        return engine


__all__ = ["NONE", "ActResult", "ActionError", "AgentState", "Cell", "Engine", "Hole", "TeamState", "Thing"]
