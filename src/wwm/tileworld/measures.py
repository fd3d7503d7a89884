"""The standard Tileworld measures, per agent, per team and for the run.

score (T-World's, charger fees and restores included); effectiveness ε = value of the holes
completed over the value of every hole that appeared (Kinny and Georgeff), independent of
partial rewards and multipliers; u = holes filled over holes that appeared (Wooldridge).
"""

from __future__ import annotations

from typing import Any

from .engine import Engine


def _ratio(a: float, b: float) -> float:
    return a / b if b else 0.0


def measure(engine: Engine) -> dict[str, Any]:
    """A JSON-ready summary: ``agents``, ``teams`` and ``totals`` of the run so far."""
    total_value, total_holes = engine.total_value, engine.total_holes
    agents = []
    for a in engine.agents:
        agents.append({"id": a.id, "team": a.team, **a.stats, "value_filled": a.value_filled,
                       "effectiveness": _ratio(a.value_filled, total_value),
                       "holes_fraction": _ratio(a.stats["filled_holes"], total_holes)})
    teams = []
    for t in engine.teams:
        team_cfg = engine.config.team_list[t.id]
        value = sum(engine.agents[m].value_filled for m in t.members)
        counts = engine.team_totals(t)
        teams.append({"id": t.id, "name": team_cfg.name, "color": team_cfg.color, "members": list(t.members),
                      "score": t.score, "battery": t.battery, **{k: v for k, v in counts.items() if k != "score"},
                      "value_filled": value, "effectiveness": _ratio(value, total_value),
                      "holes_fraction": _ratio(counts["filled_holes"], total_holes)})
    value = sum(a.value_filled for a in engine.agents)
    filled = sum(a.stats["filled_holes"] for a in engine.agents)
    totals = {"time": engine.time, "result": engine.result, "total_holes": total_holes,
              "total_cells": engine.total_cells, "total_value": total_value, "value_filled": value,
              "filled_holes": filled, "effectiveness": _ratio(value, total_value),
              "holes_fraction": _ratio(filled, total_holes), "score": sum(t.score for t in engine.teams)}
    return {"agents": agents, "teams": teams, "totals": totals}
