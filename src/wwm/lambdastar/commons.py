"""The tragedy of the commons (section 6.3 of the Λ* paper) as a variant of the Λ* world.

The rule. The m×m torus of Λ* and its king moves stay; Good and Evil go. Every cell holds a
stock s ∈ [0, 1] of a shared resource, full at the start. Each iteration:

1. every agent observes the stock of its Moore neighbourhood (as a Λ* agent observes rewards)
   and steps to the richest cell it sees (local search; ties broken by its draw);
2. the agents harvest where they stand, one after another in a random order (an agent's
   second draw): a *greedy* agent takes the share ``greed`` of the stock it finds (all of it by
   default); a *restrained* one takes only the stock above half the cell's capacity, which is
   where logistic regrowth is fastest (the maximum sustainable yield), and nothing below it;
   what an agent takes is its reward;
3. every cell regrows logistically, s ← s + g·s·(1 − s) + ε, capped at 1 (g = ``growth``,
   0.2 by default; ε = 0.002 re-seeds a bare cell, slowly, so depletion is not forever).

Why this rule: logistic regrowth is the textbook renewable resource (Gordon, Schaefer) and has
the property the tragedy needs, a stock taken below its most productive level yields less ever
after; the harvesters keep the Λ* observation and movement so that the only thing that differs
between the conditions is how much each agent takes. A greedy agent earns more than a
restrained one in the same place, so agents each maximising their own reward are greedy; with
enough of them the stock collapses and all earn less than restrained agents would.

Policies: ``greedy`` (all agents greedy), ``restrained`` (all restrained), ``one-greedy``
(agent 1 greedy among restrained ones: what a single defector earns). Starts and draws come
from named streams of the seed, agent j's the same whatever the policy and group size, so the
conditions are compared on identical episodes.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from .episodes import stream
from .torus import torus
from .vector import pick_best_last

if TYPE_CHECKING:
    from rich.table import Table

POLICIES = ("greedy", "restrained", "one-greedy")
COMMONS = 30  # the random streams of this experiment (starts: 0, agent j's draws: 1, j)


@dataclass(frozen=True, slots=True)
class Rules:
    grid: int = 10
    iterations: int = 200
    growth: float = 0.2
    greed: float = 1.0
    seeding: float = 0.002

    def check(self) -> None:
        if self.grid < 3:
            raise ValueError(f"the grid side must be at least 3 (got {self.grid})")
        if self.iterations < 1:
            raise ValueError(f"--iterations must be at least 1 (got {self.iterations})")
        if not 0.0 < self.growth <= 1.0:
            raise ValueError(f"--growth must be in (0, 1] (got {self.growth:g})")
        if not 0.0 < self.greed <= 1.0:
            raise ValueError(f"--greed must be in (0, 1], the share of a cell a greedy agent takes "
                             f"(got {self.greed:g})")


@dataclass(slots=True)
class CommonsResult:
    """One policy and group size over ``episodes`` episodes (figures per iteration)."""

    policy: str
    agents: int
    seed: int
    rules: Rules
    total: np.ndarray        # [E] the group's reward per iteration
    stock: np.ndarray        # [T] the mean stock over the grid after each iteration (mean of episodes)
    final: np.ndarray        # [E] the mean stock over the grid at the end
    greedy: np.ndarray       # [E] the greedy agents' mean reward per iteration (nan if none)
    restrained: np.ndarray   # [E] the restrained agents' mean reward per iteration (nan if none)

    @property
    def per_agent(self) -> float:
        return float(self.total.mean() / self.agents)

    def as_dict(self) -> dict[str, Any]:
        def mean(a: np.ndarray) -> float | None:
            return None if np.isnan(a).all() else float(a.mean())
        return {"policy": self.policy, "agents": self.agents, "seed": self.seed,
                "rules": asdict(self.rules), "episodes": len(self.total),
                "total": float(self.total.mean()), "total_stderr": _stderr(self.total),
                "per_agent": self.per_agent, "greedy_agent": mean(self.greedy),
                "restrained_agent": mean(self.restrained), "final_stock": float(self.final.mean()),
                "stock": self.stock.tolist()}


def _stderr(a: np.ndarray) -> float | None:
    return float(a.std(ddof=1) / np.sqrt(len(a))) if len(a) > 1 else None


def play(policy: str, agents: int, rules: Rules = Rules(), episodes: int = 20, seed: int = 0) -> CommonsResult:
    """Play ``episodes`` episodes of the commons at once (numpy over episodes)."""
    if policy not in POLICIES:
        raise ValueError(f"unknown policy {policy!r} (choose from {', '.join(POLICIES)})")
    rules.check()
    geo = torus(rules.grid)
    if not 1 <= agents <= geo.size:
        raise ValueError(f"{agents} agents do not fit on distinct cells of a {rules.grid}x{rules.grid} grid")
    if episodes < 1:
        raise ValueError(f"--episodes must be at least 1 (got {episodes})")
    E, T, N = episodes, rules.iterations, geo.size
    rows = np.arange(E)
    near = geo.neighbourhood_table(1).astype(np.intp)            # [N, 9], in action order
    pos = np.argsort(stream(seed, COMMONS, 0).random((E, N)), axis=1)[:, :agents].astype(np.intp)
    draws = np.stack([stream(seed, COMMONS, 1, j).random((E, T, 2)) for j in range(agents)], axis=2)
    greedy = np.zeros(agents, dtype=bool)
    greedy[:] = policy == "greedy"
    greedy[0] |= policy == "one-greedy"
    stock = np.ones((E, N))
    earned = np.zeros((E, agents))
    level = np.empty(T)
    for t in range(T):
        seen = near[pos]                                          # [E, n, 9]
        pos = np.take_along_axis(seen, pick_best_last(stock[rows[:, None, None], seen],
                                                      draws[:, t, :, 0])[..., None], axis=2)[..., 0]
        order = np.argsort(draws[:, t, :, 1], axis=1)
        for k in range(agents):
            j = order[:, k]
            cell = pos[rows, j]
            s = stock[rows, cell]
            take = np.where(greedy[j], rules.greed * s, np.maximum(0.0, s - 0.5))
            stock[rows, cell] = s - take
            earned[rows, j] += take
        stock = np.minimum(1.0, stock + rules.growth * stock * (1.0 - stock) + rules.seeding)
        level[t] = stock.mean()
    per_iteration = earned / T

    def mean_of(which: np.ndarray) -> np.ndarray:
        return per_iteration[:, which].mean(axis=1) if which.any() else np.full(E, np.nan)

    return CommonsResult(policy, agents, seed, rules, per_iteration.sum(axis=1), level,
                         stock.mean(axis=1), mean_of(greedy), mean_of(~greedy))


def sweep(policies: Sequence[str], counts: Sequence[int], rules: Rules = Rules(), episodes: int = 20,
          seeds: Sequence[int] = (0,), progress: Callable[[int], None] | None = None) -> list[CommonsResult]:
    """Every policy at every group size and seed; ``progress`` is told the episodes done."""
    unknown = [p for p in policies if p not in POLICIES]
    if unknown or not policies:
        raise ValueError(f"unknown policy {', '.join(unknown) or '(none given)'} "
                         f"(choose from {', '.join(POLICIES)})")
    rules.check()
    out = []
    for seed in seeds:
        for policy in policies:
            for n in counts:
                out.append(play(policy, n, rules, episodes, seed))
                if progress is not None:
                    progress(episodes)
    return out


def table(results: Sequence[CommonsResult]) -> Table:
    from rich.table import Table

    r0 = results[0].rules
    t = Table(title=f"the tragedy of the commons: {r0.grid}x{r0.grid} cells, {r0.iterations} iterations, "
                    f"regrowth {r0.growth:g}, greed {r0.greed:g} (rewards per iteration)")
    for column in ("policy", "n", "seed", "total", "± s.e.", "per agent", "a greedy", "a restrained",
                   "stock left"):
        t.add_column(column, justify="left" if column == "policy" else "right", no_wrap=column == "policy")
    for r in results:
        d = r.as_dict()
        t.add_row(r.policy, str(r.agents), str(r.seed),
                  f"{d['total']:.3f}", f"{d['total_stderr'] or 0:.3f}", f"{r.per_agent:.4f}",
                  "" if d["greedy_agent"] is None else f"{d['greedy_agent']:.4f}",
                  "" if d["restrained_agent"] is None else f"{d['restrained_agent']:.4f}",
                  f"{d['final_stock']:.3f}")
    return t


def plot(results: Sequence[CommonsResult], out: Path) -> Path:
    """``commons.png``: total and per-agent reward and the stock left, against the number of
    agents, one line per policy (the first seed), and the stock over time at the largest group."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    seed = results[0].seed
    rows = [r for r in results if r.seed == seed]
    fig, axes = plt.subplots(1, 4, figsize=(17, 4.2))
    for policy in dict.fromkeys(r.policy for r in rows):
        mine = sorted((r for r in rows if r.policy == policy), key=lambda r: r.agents)
        n = [r.agents for r in mine]
        axes[0].errorbar(n, [r.total.mean() for r in mine], yerr=[_stderr(r.total) or 0 for r in mine],
                         marker="o", capsize=3, label=policy)
        if policy == "one-greedy":  # the defector against the restrained members beside it
            axes[1].plot(n[1:], [r.greedy.mean() for r in mine][1:], marker="^", ls=":",
                         label="one-greedy: the greedy one")
            axes[1].plot(n[1:], [r.restrained.mean() for r in mine][1:], marker="v", ls=":",
                         label="one-greedy: a restrained one")
        else:
            axes[1].plot(n, [r.per_agent for r in mine], marker="o", label=policy)
        axes[2].plot(n, [r.final.mean() for r in mine], marker="o", label=policy)
        big = mine[-1]
        axes[3].plot(np.arange(1, len(big.stock) + 1), big.stock, label=f"{policy} ×{big.agents}")
    titles = ("the group's reward per iteration", "reward per agent per iteration",
              "stock left at the end (mean per cell)", "stock over time, largest group")
    for ax, title in zip(axes, titles, strict=True):
        ax.set_title(title, fontsize=9)
        ax.legend(fontsize=7)
    for ax in axes[:3]:
        ax.set_xscale("log", base=2)
        ax.set_xlabel("number of agents")
    axes[3].set_xlabel("iteration")
    fig.suptitle("Λ* commons: agents each maximising their own harvest against restrained ones")
    fig.tight_layout()
    path = out / "commons.png"
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path
