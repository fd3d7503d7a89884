"""Headless runs of built-in agents in the discrete core, and sweeps over γ and dynamism.

:func:`play` runs one seeded game to its end; :func:`sweep` runs every (agent, γ, dynamism,
trial) combination and reports mean effectiveness, the data of the ε-against-γ plot.
"""

from __future__ import annotations

import statistics
from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from . import percepts
from .agents import make_agent
from .config import Config, Range
from .engine import Engine
from .measures import measure
from .recording import save_recording


def play(config: Config, agents: list[str], record: str | Path | None = None) -> dict[str, Any]:
    """One game: agent ``i`` is the built-in named ``agents[i]``; returns :func:`measure`.
    With ``record``, every percept is logged and the run saved there as a recording."""
    if len(agents) != config.agents:
        raise ValueError(f"the config has {config.agents} agents but {len(agents)} were named")
    engine = Engine(config)
    players = [make_agent(name, seed=config.seed + i) for i, name in enumerate(agents)]
    headers = dict.fromkeys(range(len(players)), "start")
    while not engine.finished:
        actions = {}
        for i, player in enumerate(players):
            data = percepts.full(engine, i)
            if record is not None:
                engine.log.append(["sent", i, percepts.message(headers[i], data)])
            actions[i] = player.act(data)
        results = engine.step(actions)
        headers = {i: "ready_for_next_action" if r.kind in ("good_move", "bad_move") else "percept"
                   for i, r in results.items()}
    if record is not None:
        for i in range(len(players)):
            engine.log.append(["sent", i, percepts.percept(engine, i, "end")])
        save_recording(engine, record)
    return measure(engine)


@dataclass(frozen=True)
class Point:
    agent: str
    gamma: float
    dynamism: int
    trials: int
    effectiveness: float
    effectiveness_sd: float
    holes_fraction: float
    score: float


def sweep(base: Config, agents: Iterable[str], gammas: Iterable[float], dynamisms: Iterable[int], trials: int,
          on_game: Callable[[], None] | None = None, record: Path | None = None) -> list[Point]:
    """Mean measures of each agent at each γ and dynamism ``d``..``2d`` (holes recur every
    ``d+2``..``2d+2`` world seconds and live as long), over ``trials`` seeds shared by every agent; with
    ``record``, each game is saved in that folder."""
    points = []
    for agent in agents:
        for dyn in dynamisms:
            for gamma in gammas:
                runs = []
                for trial in range(trials):
                    cfg = replace(base, gamma=gamma, dynamism=Range(dyn, 2 * dyn), seed=base.seed + trial)
                    path = record / f"{agent}-g{gamma:g}-d{dyn}-t{trial}.json" if record else None
                    runs.append(play(cfg, [agent], path)["totals"])
                    if on_game:
                        on_game()
                eff = [r["effectiveness"] for r in runs]
                points.append(Point(agent, gamma, dyn, trials, statistics.fmean(eff),
                                    statistics.pstdev(eff), statistics.fmean(r["holes_fraction"] for r in runs),
                                    statistics.fmean(r["score"] for r in runs)))
    return points
