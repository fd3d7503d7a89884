"""T-World's JSON percepts, built from an :class:`Engine`: ``{"header": H, "data": D}``.

``data`` has three compartments (environment, agent, builtin_knowledge) in the schema of
``shared/reference/tileworld.md`` §2.1; :func:`observer_view` is the same environment plus
every team and agent, for the browser and for recordings.
"""

from __future__ import annotations

import json
from typing import Any

from .config import DYNAMIC, END_KEYS
from .engine import BATTERY_COST, Engine

HEADERS = ("start", "percept", "ready_for_next_action", "message", "pause", "error", "end")
COSTS_MS = {"good_move": 350, "bad_move": 1000, "filled_hole": 1000}


def grid(engine: Engine) -> list[list[str | int]]:
    """The grid in T-World's cell codes."""
    rows: list[list[str | int]] = [[" "] * engine.config.columns for _ in range(engine.config.rows)]
    for r, c in engine.chargers:
        rows[r][c] = "C"
    for cell, hole in engine.hole_at.items():
        rows[cell[0]][cell[1]] = hole.id
    for r, c in engine.obstacles:
        rows[r][c] = "#"
    for r, c in engine.tiles:
        rows[r][c] = "T"
    for r, c in engine.agent_at:
        rows[r][c] = "A"
    return rows


def _loc(cell: tuple[int, int]) -> dict[str, int]:
    return {"row": cell[0], "column": cell[1]}


def _timing(engine: Engine, born: float, expires: float | None) -> dict[str, int]:
    if engine.config.dynamic != DYNAMIC or expires is None:
        return {}
    return {"time_elapsed": int(engine.time - born), "lifetime_left": max(0, int(expires - engine.time))}


def environment(engine: Engine) -> dict[str, Any]:
    return {
        "grid": grid(engine),
        "time": int(engine.time),
        "battery_chargers": [_loc(c) for c in engine.chargers],
        "agents": [agent_summary(engine, a.id) for a in engine.agents],
        "holes": [{"id": h.id, "cells": [_loc(c) for c in h.cells], "size": h.size, "value": h.value,
                   **_timing(engine, h.born, h.expires)} for h in engine.holes.values()],
        "tiles": [{"id": t.id, **_loc(t.cell), **_timing(engine, t.born, t.expires)}
                  for t in sorted(engine.tiles.values(), key=lambda t: t.id)],
        "obstacles": [{"id": o.id, **_loc(o.cell), **_timing(engine, o.born, o.expires)}
                      for o in sorted(engine.obstacles.values(), key=lambda o: o.id)],
        "stats": {"time": round(engine.time * 1000), "game_result": engine.result,
                  "total_holes": engine.total_holes, "total_cells": engine.total_cells,
                  "total_score": engine.total_value},
    }


def agent_summary(engine: Engine, agent_id: int) -> dict[str, Any]:
    agent = engine.agents[agent_id]
    team = engine.teams[agent.team]
    return {"id": agent.id, "team_id": agent.team, "location": _loc(agent.cell), "score": team.score,
            "battery": team.battery}


def builtin_knowledge(engine: Engine) -> dict[str, Any]:
    """The run's constants (computed once per engine: config and teams never change)."""
    cached = engine.knowledge
    if cached is None:
        cached = engine.knowledge = _builtin_knowledge(engine)
    return cached


def _builtin_knowledge(engine: Engine) -> dict[str, Any]:
    cfg = engine.config
    end = {group: {k: cfg.end.get(group, {}).get(k) for k in END_KEYS} for group in ("neutral", "success", "failure")}
    moa = cfg.model_of_action
    return {
        "grid_total_rows": cfg.rows, "grid_total_columns": cfg.columns,
        "easy": cfg.easy,  # an addition to T-World's schema: walking onto a hole fills it
        "teams": [{"id": t.id, "leader": t.leader, "members": list(t.members)} for t in engine.teams],
        "end": end,
        "costs": {**COSTS_MS, "battery": dict(BATTERY_COST) if cfg.battery else None},
        "probability": {
            "holes_size": cfg.holes_size.as_json(), "num_holes": cfg.num_holes.as_json(),
            "num_obstacles": cfg.num_obstacles.as_json(), "difficulty": cfg.difficulty.as_json(),
            "dynamism": cfg.dynamism.as_json(), "hostility": cfg.hostility.as_json(),
            "model_of_action": {"intended": moa.intended / 1000, "left": moa.left / 1000, "right": moa.right / 1000,
                                "backward": moa.backward / 1000, "refuses": moa.refuses / 1000}},
    }


def full(engine: Engine, agent_id: int) -> dict[str, Any]:
    """The data of a full percept for one agent (its window, under partial observability)."""
    agent = engine.agents[agent_id]
    data = {"environment": environment(engine),
            "agent": {**agent_summary(engine, agent_id), "stats": dict(agent.stats)},
            "builtin_knowledge": builtin_knowledge(engine)}
    return _window(engine, agent.cell, data) if engine.config.partial else data


def _window(engine: Engine, centre: tuple[int, int], data: dict[str, Any]) -> dict[str, Any]:
    """T-World's partial view: a (2r+1)-square centred on the robot, out of bounds shown as
    ``"#"``, coordinates re-based to the window, objects outside left out; with noise, each
    tile, obstacle and hole cell is dropped with probability ``noise_prob``."""
    cfg = engine.config
    r, size = cfg.radius, 2 * cfg.radius + 1
    top, left = centre[0] - r, centre[1] - r
    full_grid = data["environment"]["grid"]

    def local(row: int, column: int) -> dict[str, int] | None:
        lr, lc = row - top, column - left
        return {"row": lr, "column": lc} if 0 <= lr < size and 0 <= lc < size else None

    def noisy() -> bool:
        return cfg.noise and engine.noise_rng.random() < cfg.noise_prob

    grid: list[list[str | int]] = [
        [full_grid[top + i][left + j] if engine.in_bounds((top + i, left + j)) else "#" for j in range(size)]
        for i in range(size)]
    env = data["environment"]
    things: dict[str, list[dict[str, Any]]] = {}
    for key in ("tiles", "obstacles"):
        kept = []
        for thing in env[key]:
            spot = local(thing["row"], thing["column"])
            if spot is None:
                continue
            if noisy():
                grid[spot["row"]][spot["column"]] = " "
                continue
            kept.append({**thing, **spot})
        things[key] = kept
    holes = []
    for hole in env["holes"]:
        cells = []
        for cell in hole["cells"]:
            spot = local(cell["row"], cell["column"])
            if spot is None:
                continue
            if noisy():
                grid[spot["row"]][spot["column"]] = " "
                continue
            cells.append(spot)
        if cells:
            shown = len(cells) if cfg.noise else hole["size"]
            holes.append({**hole, "cells": cells, "size": shown, "value": hole["value"] * shown // hole["size"]})
    agents = [{**a, "location": spot} for a in env["agents"]
              if (spot := local(a["location"]["row"], a["location"]["column"])) is not None]
    chargers = [spot for c in env["battery_chargers"] if (spot := local(c["row"], c["column"])) is not None]
    me = data["agent"]
    return {"environment": {**env, "grid": grid, "agents": agents, "holes": holes, "battery_chargers": chargers,
                            **things},
            "agent": {**me, "location": {"row": r, "column": r}},
            "builtin_knowledge": {**data["builtin_knowledge"], "grid_total_rows": size, "grid_total_columns": size}}


def message(header: str, data: Any) -> str:
    """One wire message: compact JSON terminated by a newline, as T-World sends it."""
    if header not in HEADERS:
        raise ValueError(f"unknown percept header {header!r}")
    return json.dumps({"header": header, "data": data}, separators=(",", ":")) + "\n"


def percept(engine: Engine, agent_id: int, header: str = "percept") -> str:
    return message(header, full(engine, agent_id))


def observer_view(engine: Engine) -> dict[str, Any]:
    """What the browser draws: the environment, every team and agent with stats, messages."""
    from .measures import measure

    env = environment(engine)
    m = measure(engine)
    return {"environment": env, "rows": engine.config.rows, "columns": engine.config.columns,
            "time": round(engine.time, 3), "time_left": engine.time_left(), "result": engine.result,
            "battery": engine.config.battery, "multiplier": [t.multiplier for t in engine.teams],
            "teams": m["teams"], "agents": m["agents"], "totals": m["totals"],
            "messages": engine.messages[-12:]}
