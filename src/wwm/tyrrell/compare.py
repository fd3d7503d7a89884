"""The Action Selection benchmark of Tyrrell's world: the same society of goal minds
(:mod:`.minds`) under each method of section 10, one life per seed, scored by genetic fitness
(matings over the life) with the length of the life beside it. Each method meets the same
worlds (seed s is the same world and the same noise for every method).
"""

from __future__ import annotations

import asyncio
import statistics
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..client.runner import RunSettings, run
from ..selection.methods import METHODS, method_class
from ..selection.mind_as import ActionSelectionMind
from .minds import GOALS, society
from .rules import ACTIONS
from .world import TyrrellWorld

# methods whose minds learn W as they go (the rest use W = Q, static)
LEARNS_W = {"w-learning", "w-learning-full", "w-learning-stochastic", "dynamic-w"}
# a method needing arguments this society does not have: sub-space views (each goal mind
# already reads only its own part of the state, so plain w-learning is that variant here)
NEEDS_VIEWS = {"w-learning-subspaces"}


def parse_weights(text: str) -> list[float]:
    """``goal=weight,...`` (goals named as in :data:`~.minds.GOALS`, the rest weighing 1) as
    one weight per goal mind in that order: DAMN's votes (10.14). A ValueError names what is
    wrong."""
    weights = dict.fromkeys(GOALS, 1.0)
    for part in filter(None, (p.strip() for p in text.split(","))):
        goal, sep, value = part.partition("=")
        goal = goal.strip()
        if not sep or goal not in weights:
            raise ValueError(f"weights: {part!r} is not goal=number with a goal among {', '.join(GOALS)}")
        try:
            number = float(value)
        except ValueError:
            number = -1.0
        if not number > 0 or number == float("inf"):
            raise ValueError(f"weights: {goal} needs a positive number, got {value.strip()!r}")
        weights[goal] = number
    return list(weights.values())


def default_methods() -> list[str]:
    return [name for name in METHODS if name not in NEEDS_VIEWS]


@dataclass
class Lives:
    """Fitness (matings) and lifespan (steps) per method, one entry per seed."""

    seeds: list[int]
    lifetime: int
    candidates: str
    weights: list[float] = field(default_factory=list)
    fitness: dict[str, list[float]] = field(default_factory=dict)
    lifespan: dict[str, list[int]] = field(default_factory=dict)
    causes: dict[str, list[str]] = field(default_factory=dict)

    def rows(self) -> list[tuple[str, float, float, float, float]]:
        """(method, mean fitness, sd, mean lifespan, sd), best fitness first (longer life
        breaks ties)."""
        out = []
        for m, values in self.fitness.items():
            span = self.lifespan[m]
            out.append((m, statistics.fmean(values), statistics.stdev(values) if len(values) > 1 else 0.0,
                        statistics.fmean(span), statistics.stdev(span) if len(span) > 1 else 0.0))
        return sorted(out, key=lambda r: (-r[1], -r[3], r[0]))

    def as_dict(self) -> dict[str, Any]:
        return {"seeds": self.seeds, "lifetime": self.lifetime, "candidates": self.candidates,
                "weights": dict(zip(GOALS, self.weights, strict=True)) if self.weights else None,
                "fitness": self.fitness, "lifespan": self.lifespan, "causes": self.causes,
                "summary": [dict(zip(("method", "fitness", "fitness_sd", "lifespan", "lifespan_sd"), r, strict=True))
                            for r in self.rows()]}


async def one_life(method: str, seed: int, lifetime: int, candidates: str = "suggested",
                   weights: list[float] | None = None) -> tuple[int, int, str]:
    """(matings, steps lived, cause of death) of one animal under ``method``; ``weights``, one
    per goal mind, are DAMN's votes (the other methods ignore them)."""
    world = TyrrellWorld(seed=seed, lifetime=lifetime)
    minds = society("learned" if method in LEARNS_W else "q")
    shared = candidates == "shared"
    mind = ActionSelectionMind(minds, method=method, seed=seed, run_length=lifetime, q_temperature=0.05,
                               candidates=candidates, actions=list(ACTIONS) if shared else "",
                               weights=weights or "")
    await run(mind, world, RunSettings(steps=lifetime, keepalive=None))
    e = world.engine
    return e.fitness, e.step_count, e.cause or "alive"


async def compare(methods: list[str], seeds: list[int], lifetime: int, candidates: str = "suggested",
                  progress: Callable[[str], None] | None = None, weights: list[float] | None = None) -> Lives:
    if lifetime < 1:
        raise ValueError("lifetime must be at least 1 step")
    if candidates not in ("suggested", "shared"):
        raise ValueError("candidates must be 'suggested' or 'shared'")
    names = list(dict.fromkeys(method_class(m).name for m in methods))
    if not names:
        raise ValueError("no method to compare")
    refused = [m for m in names if m in NEEDS_VIEWS]
    if refused:
        raise ValueError(f"{', '.join(refused)} needs one sub-space view per mind; the Tyrrell goal minds "
                         "read their own part of the state already: use w-learning")
    out = Lives(seeds, lifetime, candidates, list(weights or []), {m: [] for m in names}, {m: [] for m in names},
                {m: [] for m in names})
    for seed in seeds:
        for m in names:
            fitness, span, cause = await one_life(m, seed, lifetime, candidates, weights)
            out.fitness[m].append(float(fitness))
            out.lifespan[m].append(span)
            out.causes[m].append(cause)
            if progress:
                progress(f"seed {seed}: {m}")
    return out


def run_compare(methods: list[str], seeds: list[int], lifetime: int, candidates: str = "suggested",
                progress: Callable[[str], None] | None = None, weights: list[float] | None = None) -> Lives:
    return asyncio.run(compare(methods, seeds, lifetime, candidates, progress, weights))


def plot(result: Lives, path: str | Path) -> Path:
    """Two bar charts side by side: fitness and lifespan per method, mean ± sd over the seeds."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = result.rows()[::-1]
    names = [r[0] for r in rows]
    fig, (left, right) = plt.subplots(1, 2, sharey=True, figsize=(10, 0.32 * len(rows) + 1.6))
    left.barh(names, [r[1] for r in rows], xerr=[r[2] for r in rows], color="#5b8bd0", capsize=3)
    left.set_xlabel("genetic fitness: matings in a life")
    right.barh(names, [r[3] for r in rows], xerr=[r[4] for r in rows], color="#9ca3af", capsize=3)
    right.set_xlabel(f"lifespan in steps (old age at {result.lifetime})")
    fig.suptitle(f"Action Selection methods in Tyrrell's world (mean ± sd over {len(result.seeds)} seeds)")
    fig.tight_layout()
    path = Path(path)
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path
