"""Compare Action Selection methods: one society of goal minds, each method in turn, several
seeds, in the Ant World or the House Robot. Each goal mind first learns Q alone in the world
("childhood", [PhD] ch. 4); then every method runs the same minds, from that knowledge, in a
fresh world with the same seed. The W-learning methods go on learning W during their run.
"""

from __future__ import annotations

import asyncio
import math
import os
import statistics
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..client.runner import RunSettings, run
from ..protocol.interfaces import World
from .ant import AntWorld
from .house_robot import HouseRobotWorld
from .learning.qlearning import QLearningMind
from .methods import METHODS, method_class
from .mind_as import ActionSelectionMind

# world -> (factory, goal minds as (reward, view))
WORLDS: dict[str, tuple[Callable[[int], World], list[tuple[str, str]]]] = {
    "ant": (lambda seed: AntWorld(seed=seed),
            [("ant.food", "i,f"), ("ant.nest", "n"), ("ant.predator", "p")]),
    "house": (lambda seed: HouseRobotWorld(seed=seed),
              [("house.dirt", "dirt,full,wallinway"), ("house.plug", "plug,wallinway"),
               ("house.smoke", "smoke,wallinway"),
               ("house.intruder", "human,class"), ("house.family", "human,class")]),
}
LEARNS_W = {"w-learning", "w-learning-subspaces", "w-learning-full", "w-learning-stochastic", "dynamic-w"}


@dataclass
class Comparison:
    world: str
    steps: int
    train: int
    seeds: list[int]
    scores: dict[str, list[float]] = field(default_factory=dict)

    def rows(self) -> list[tuple[str, float, float, float, float]]:
        """(method, mean, standard deviation, min, max), best mean first."""
        out = []
        for method, values in self.scores.items():
            sd = statistics.stdev(values) if len(values) > 1 else 0.0
            out.append((method, statistics.fmean(values), sd, min(values), max(values)))
        return sorted(out, key=lambda r: (-r[1], r[0]))

    def as_dict(self) -> dict[str, Any]:
        return {"world": self.world, "steps": self.steps, "train": self.train, "seeds": self.seeds,
                "scores": self.scores,
                "summary": [dict(zip(("method", "mean", "sd", "min", "max"), r, strict=True)) for r in self.rows()]}


def mean_sd(mean: float, sd: float) -> str:
    """A score as the table prints it: mean ± standard deviation over the seeds."""
    return f"{mean:.1f} ± {sd:.1f}"


def parse_methods(text: str) -> list[str]:
    """Comma-separated method names (aliases allowed) or "all", each named once, in order."""
    if text.strip() in ("", "all"):
        return list(METHODS)
    names = [method_class(name).name for name in text.split(",") if name.strip()]
    if not names:
        raise ValueError(f"no method named in {text!r}; give method names or 'all'")
    return list(dict.fromkeys(names))


def check_strengths(world: str, strengths: str) -> None:
    """One positive number per goal mind of ``world``, or a ValueError naming what is wrong."""
    if not strengths:
        return
    goals = WORLDS[world][1]
    values = [v.strip() for v in strengths.split(",") if v.strip()]
    if len(values) != len(goals):
        raise ValueError(f"strengths needs {len(goals)} numbers, one per goal mind "
                         f"({', '.join(g for g, _ in goals)}), got {len(values)}")
    for v in values:
        try:
            number = float(v)
        except ValueError:
            raise ValueError(f"strengths must be numbers, got {v!r}") from None
        if not (number > 0 and math.isfinite(number)):
            raise ValueError(f"strengths must be positive finite numbers (10.10: c > 0), got {v}")


async def childhood(world: str, seed: int, steps: int, full: bool = False) -> str | None:
    """Each goal mind learns Q alone (over its own sub-space, or all of x with ``full``);
    returns the client URL its knowledge is kept under (None for no childhood: 0 steps)."""
    if steps == 0:
        return None
    make, goals = WORLDS[world]
    client = f"urn:wwm:compare:{world}:seed{seed}:train{steps}{':full' if full else ''}"
    for k, (goal, view) in enumerate(goals):
        mind = QLearningMind(reward=goal, view="" if full else view, q_temperature=None,
                             run_length=steps, seed=seed * 31 + k)
        await run(mind, make(seed * 1000 + k), RunSettings(steps=steps, keepalive=None, client_url=client))
    return client


async def one(world: str, method: str, seed: int, steps: int, client: str | None,
              temperature: float = 0.02, strengths: str = "") -> float:
    make, goals = WORLDS[world]
    learns = method in LEARNS_W
    full = method == "w-learning-full"  # every mind sees (and learnt over) all of x
    minds = [QLearningMind(reward=g, view="" if full else v, pretrained=client, learn=learns,
                           q_temperature=temperature, run_length=1e12,
                           w="learned" if learns else "q",
                           w_initial=-0.01, seed=seed) for g, v in goals]
    society = ActionSelectionMind(minds, method=method, seed=seed, run_length=steps, keep=False,  # each seed afresh
                                  q_temperature=0.1, strengths=strengths, views=";".join(v for _, v in goals)
                                  if method == "w-learning-subspaces" else "")
    result = await run(society, make(seed), RunSettings(steps=steps, keepalive=None))
    return result.total_score


async def compare(world: str, methods: list[str], seeds: list[int], steps: int, train: int,
                  progress: Callable[[str], None] | None = None,
                  temperature: float = 0.02, strengths: str = "") -> Comparison:
    """``temperature``: the goal minds' constant Q-temperature in the society runs (a little
    exploration keeps greedy minds from pushing into a wall for ever); ``strengths``: one
    "mind strength" per goal mind, comma-separated (10.10; the thesis searched for them)."""
    if world not in WORLDS:
        raise ValueError(f"unknown world {world!r}; choose one of {', '.join(WORLDS)}")
    if steps < 1 or train < 0:
        raise ValueError("steps must be at least 1 and train at least 0")
    if temperature < 0:
        raise ValueError("temperature cannot be negative")
    check_strengths(world, strengths)
    methods = list(dict.fromkeys(method_class(m).name for m in methods))  # each once, by its name
    if not methods:
        raise ValueError("no method to compare")
    out = Comparison(world, steps, train, seeds, {m: [] for m in methods})
    saved = os.environ.get("WWM_KNOWLEDGE_DIR")
    with tempfile.TemporaryDirectory(prefix="wwm-compare-") as tmp:
        os.environ["WWM_KNOWLEDGE_DIR"] = tmp  # childhood knowledge lives only for this comparison
        try:
            for seed in seeds:
                client = await childhood(world, seed, train)
                if "w-learning-full" in methods:
                    client_full = await childhood(world, seed, train, full=True)
                if progress:
                    progress(f"seed {seed}: childhood done")
                for method in methods:
                    source = client_full if method == "w-learning-full" else client
                    out.scores[method].append(await one(world, method, seed, steps, source, temperature,
                                                        strengths))
                    if progress:
                        progress(f"seed {seed}: {method}")
        finally:
            if saved is None:
                os.environ.pop("WWM_KNOWLEDGE_DIR", None)
            else:
                os.environ["WWM_KNOWLEDGE_DIR"] = saved
    return out


def plot(result: Comparison, path: str | Path) -> Path:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = result.rows()
    fig, ax = plt.subplots(figsize=(8, 0.35 * len(rows) + 1.5))
    names = [r[0] for r in rows][::-1]
    ax.barh(names, [r[1] for r in rows][::-1], xerr=[r[2] for r in rows][::-1], color="#5b8bd0", capsize=3)
    ax.set_xlabel(f"score over {result.steps} steps (mean ± sd over {len(result.seeds)} seeds)")
    ax.set_title(f"Action Selection methods in the {result.world} world")
    fig.tight_layout()
    path = Path(path)
    fig.savefig(path)
    plt.close(fig)
    return path


def run_compare(world: str, methods: list[str], seeds: list[int], steps: int, train: int,
                progress: Callable[[str], None] | None = None, temperature: float = 0.02,
                strengths: str = "") -> Comparison:
    return asyncio.run(compare(world, methods, seeds, steps, train, progress, temperature, strengths))
