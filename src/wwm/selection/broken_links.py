"""The broken-links experiment (section 6, objections 3-5): a society of duplicated mind
servers runs while its servers die one by one, and its score is measured as they go.

Copies of three hand-coded Ant World minds (:mod:`.ant_minds`: forager, homer, fleer) are
served as real processes on loopback; one Action Selection server (in this process) runs
them in the Ant World for ``segments`` equal parts of a run, and after each part one more
server is killed (SIGKILL), in an order that takes one copy of each mind in turn. Over
several seeds (the world's), each method gives the score per part against the fraction of
servers lost, beside the same run (same seed, same method) with every server alive, so a
part's score is read against what the world gave in that part anyway: an individual-driven
method (W=Q) should hold its score while one copy of each mind is left and then degrade
gradually, one lost skill at a time (6.5).
"""

from __future__ import annotations

import asyncio
import statistics
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..client.runner import RunSettings, run
from .ant import AntWorld
from .ant_minds import GOALS
from .methods import method_class
from .mind_as import ActionSelectionMind

TARGET = "wwm.selection.ant_minds:HeadingMind"


@dataclass
class BrokenLinks:
    """Per method, per seed, one row per part of the run: (score, share of steps acted)."""

    copies: int
    segment: int
    seeds: list[int]
    parts: dict[str, list[list[tuple[float, float]]]] = field(default_factory=dict)
    intact: dict[str, list[list[tuple[float, float]]]] = field(default_factory=dict)  # no server killed

    @property
    def servers(self) -> int:
        return self.copies * len(GOALS)

    def lost(self, k: int) -> float:
        """The fraction of servers dead during part k."""
        return k / self.servers

    def rows(self, method: str, intact: bool = False) -> list[tuple[float, float, float, float]]:
        """(fraction lost, mean score, its sd over seeds, mean share of steps acted), by part;
        ``intact``: of the runs with every server alive."""
        runs = (self.intact if intact else self.parts)[method]
        out = []
        for k in range(self.servers + 1):
            scores = [r[k][0] for r in runs]
            sd = statistics.stdev(scores) if len(scores) > 1 else 0.0
            out.append((self.lost(k), statistics.fmean(scores), sd, statistics.fmean(r[k][1] for r in runs)))
        return out

    def as_dict(self) -> dict[str, Any]:
        return {"copies": self.copies, "servers": self.servers, "segment": self.segment, "seeds": self.seeds,
                "parts": {m: [[{"score": s, "acted": a} for s, a in r] for r in runs]
                          for m, runs in self.parts.items()},
                "intact": {m: [[{"score": s, "acted": a} for s, a in r] for r in runs]
                           for m, runs in self.intact.items()},
                "summary": {m: [dict(zip(("lost", "mean", "sd", "acted"), row, strict=True))
                                for row in self.rows(m)] for m in self.parts},
                "summary_intact": {m: [dict(zip(("part", "mean", "sd", "acted"), row, strict=True))
                                       for row in self.rows(m, intact=True)] for m in self.intact}}


def kill_order(copies: int) -> list[int]:
    """Server indices (copy c of goal g at c * goals + g), killed one copy of each goal in
    turn: fleer, homer, forager of the first copy, then of the second, ..."""
    goals = len(GOALS)
    return [c * goals + g for c in range(copies) for g in reversed(range(goals))]


async def one_run(urls: list[str], kill: Callable[[int], None], method: str, seed: int, copies: int,
                  segment: int, timeout: float) -> list[tuple[float, float]]:
    """One run of (servers + 1) parts, a server killed after each; (score, acted) per part."""
    order = kill_order(copies)
    society = ActionSelectionMind(urls, method=method, timeout=timeout, seed=seed, keep=False)

    def on_step(step: Any, result: Any) -> None:
        if (step.index + 1) % segment == 0 and order:
            kill(order.pop(0))

    parts = len(urls) + 1
    result = await run(society, AntWorld(seed=seed, foods=8), RunSettings(steps=segment * parts, keepalive=None,
                                                                           timeout=timeout + 5), on_step=on_step)
    if result.status != "completed":
        raise RuntimeError(f"the run under {method}, seed {seed}, stopped: {result.status}")
    scores = result.step_scores
    out = []
    for k in range(parts):
        steps = result.steps[k * segment:(k + 1) * segment]
        out.append((sum(scores[k * segment:(k + 1) * segment]),
                    sum(1 for s in steps if s.action is not None) / segment))
    return out


def experiment(methods: list[str], seeds: list[int], copies: int = 3, segment: int = 100, timeout: float = 1.0,
               progress: Callable[[str], None] | None = None) -> BrokenLinks:
    """Serve ``copies`` of each goal mind, and for each method and seed run the society while
    they die (each run starts with every server alive again)."""
    from ..server.process import ServerProcess

    if copies < 1 or segment < 1 or not seeds:
        raise ValueError("copies and segment must be at least 1, and at least one seed given")
    if timeout <= 0:
        raise ValueError("timeout must be positive")
    methods = list(dict.fromkeys(method_class(m).name for m in methods))
    result = BrokenLinks(copies, segment, list(seeds), {m: [] for m in methods}, {m: [] for m in methods})
    specs = [GOALS[g] for _ in range(copies) for g in GOALS]
    procs = [ServerProcess(TARGET, args=args) for args in specs]

    def start_all(which: list[ServerProcess]) -> None:
        with ThreadPoolExecutor(max(1, len(which))) as pool:
            list(pool.map(lambda p: p.start(), which))

    try:
        start_all(procs)
        if progress:
            progress(f"{len(procs)} mind servers up")
        for method in methods:
            for seed in seeds:
                urls = [p.url for p in procs]
                result.intact[method].append(asyncio.run(one_run(urls, lambda i: None, method, seed, copies,
                                                                 segment, timeout)))
                parts = asyncio.run(one_run(urls, lambda i: procs[i].kill(), method, seed, copies, segment,
                                            timeout))
                result.parts[method].append(parts)
                start_all([p for p in procs if not p.alive])  # every server alive for the next run
                if progress:
                    progress(f"{method}, seed {seed}")
    finally:
        for p in procs:
            p.stop()
    return result


def plot(result: BrokenLinks, path: str | Path) -> Path:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 4))
    n = len(result.parts)
    for i, method in enumerate(result.parts):
        dodge = (i - (n - 1) / 2) * 0.008  # methods side by side where their points coincide
        rows = result.rows(method)
        line = ax.errorbar([r[0] + dodge for r in rows], [r[1] for r in rows], yerr=[r[2] for r in rows],
                           marker="o", capsize=3, label=f"{method}: servers dying")
        base = result.rows(method, intact=True)
        ax.plot([r[0] + dodge for r in base], [r[1] for r in base], linestyle="--", marker=".",
                color=line[0].get_color(), alpha=0.6, label=f"{method}: all alive (same seeds)")
    ax.set_xlabel(f"fraction of the {result.servers} mind servers lost ({result.copies} copies of 3 minds)"
                  " / part of the run")
    ax.set_ylabel(f"score per {result.segment} steps (mean ± sd)")
    ax.set_title(f"Broken links in the Ant World, {len(result.seeds)} seed(s)")
    ax.axhline(0, color="#999", linewidth=0.8)
    ax.legend(fontsize="small")
    fig.tight_layout()
    path = Path(path)
    fig.savefig(path)
    plt.close(fig)
    return path
