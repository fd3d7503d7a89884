"""Pluralistic ignorance (section 6.3 of the Λ* paper): a group where most members privately
reject a norm can still settle on it, when each member sees what the others do and not what
they think.

The rule. A group of ``agents`` faces a binary public choice each round: enact the norm, or
the alternative. Each member privately rejects the norm with probability ``reject`` (drawn per
episode; the realised attitudes decide what "most privately reject" means in each episode);
the others endorse it and always enact it (the *true believers* of Centola, Willer and Macy's
emperor's dilemma, 2005). In each of ``rounds`` rounds the members act one after another, in
a fresh random order. A member who rejects the norm weighs the evidence it has: its own
attitude counts −1, and every other member who has acted so far counts +1 if it is seen for
the norm and −1 if against; it enacts the norm if the sum is positive, the alternative if it
is negative, and follows its own attitude on a tie. What is seen differs between the two
conditions, and nothing else does:

- ``public`` (the phenomenon): a member sees the others' latest public actions and reads them
  as their attitudes, the inference pluralistic ignorance rests on;
- ``shared`` (the contrast): the same members share their private attitudes as they act, so
  each sees what the others really think.

By default every member sees every other. With an observation range k the members sit on
distinct random cells of the Λ* torus (the smallest square that holds them, at least 3×3)
and each sees only those within Chebyshev distance k, as a Λ* agent sees only its range-k
neighbourhood.

The collective *settles on the norm* when more than half enact it after the last round. The
figure of interest is how often it does in episodes where more than half privately reject it.
Attitudes and orders come from named streams of the seed, the same in both conditions.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from .episodes import stream
from .torus import torus

if TYPE_CHECKING:
    from rich.table import Table

CONDITIONS = ("public", "shared")
PLURALISTIC = 31  # the random streams of this experiment (attitudes: 0, orders: 1, cells: 2)


@dataclass(slots=True)
class PluralisticResult:
    condition: str
    reject: float
    agents: int
    rounds: int
    seed: int
    episodes: int
    observation_range: int | None  # None: every member sees every other
    rejected: int            # episodes where more than half privately reject the norm
    settled: int             # ... of which the group settled on the norm
    norm_share: float        # the mean share enacting the norm at the end
    complying: float         # the mean share of rejecters who enact the norm at the end

    @property
    def frequency(self) -> float:
        """How often the group settles on the norm most of its members privately reject."""
        return self.settled / self.rejected if self.rejected else float("nan")

    @property
    def stderr(self) -> float:
        p, n = self.frequency, self.rejected
        return float(np.sqrt(p * (1 - p) / n)) if n > 1 else float("nan")

    def as_dict(self) -> dict[str, Any]:
        return {"condition": self.condition, "reject": self.reject, "agents": self.agents,
                "rounds": self.rounds, "seed": self.seed, "episodes": self.episodes,
                "observation_range": self.observation_range,
                "rejected": self.rejected, "settled_on_norm": self.settled,
                "frequency": None if not self.rejected else self.frequency,
                "norm_share": self.norm_share,
                "rejecters_complying": None if np.isnan(self.complying) else self.complying}


def check(reject: float, agents: int, rounds: int, episodes: int, observation_range: int | None = None) -> None:
    if not 0.0 <= reject <= 1.0:
        raise ValueError(f"--reject shares are between 0 and 1 (got {reject:g})")
    if agents < 2:
        raise ValueError(f"--agents must be at least 2 (got {agents})")
    if rounds < 1:
        raise ValueError(f"--rounds must be at least 1 (got {rounds})")
    if episodes < 1:
        raise ValueError(f"--episodes must be at least 1 (got {episodes})")
    if observation_range is not None and observation_range < 1:
        raise ValueError(f"--range must be at least 1 (got {observation_range})")


def side(agents: int) -> int:
    """The side of the smallest square torus (at least 3×3) with a cell for every member."""
    return max(3, int(np.ceil(np.sqrt(agents))))


def visibility(agents: int, observation_range: int | None, episodes: int, seed: int) -> np.ndarray | None:
    """``[E, n, n]``: whether member i sees member j (None: everyone sees everyone)."""
    if observation_range is None:
        return None
    geo = torus(side(agents))
    cells = np.argsort(stream(seed, PLURALISTIC, 2).random((episodes, geo.size)), axis=1)[:, :agents]
    return geo.distance[cells[:, :, None], cells[:, None, :]] <= observation_range


def play(condition: str, reject: float, agents: int = 25, rounds: int = 3, episodes: int = 400,
         seed: int = 0, observation_range: int | None = None) -> PluralisticResult:
    """``episodes`` groups at once (numpy over episodes), in one condition."""
    if condition not in CONDITIONS:
        raise ValueError(f"unknown condition {condition!r} (choose from {', '.join(CONDITIONS)})")
    check(reject, agents, rounds, episodes, observation_range)
    sees = visibility(agents, observation_range, episodes, seed)
    E, n = episodes, agents
    rows = np.arange(E)
    rejects = stream(seed, PLURALISTIC, 0).random((E, n)) < reject    # private attitudes
    orders = np.argsort(stream(seed, PLURALISTIC, 1).random((E, rounds, n)), axis=2)
    attitude_sign = np.where(rejects, -1, 1)
    public = np.zeros((E, n), dtype=np.int8)   # +1 norm, -1 alternative, 0 not acted yet
    for r in range(rounds):
        for k in range(n):
            j = orders[:, r, k]
            acted = public != 0
            acted[rows, j] = False                                   # the others only
            if sees is not None:
                acted &= sees[rows, j]                               # within its range
            seen = public if condition == "public" else attitude_sign
            evidence = (seen * acted).sum(axis=1) + attitude_sign[rows, j]
            conform = np.where(evidence > 0, 1, np.where(evidence < 0, -1, attitude_sign[rows, j]))
            public[rows, j] = np.where(rejects[rows, j], conform, 1)
    enact = public == 1
    majority_rejects = rejects.sum(axis=1) * 2 > n
    settled = enact.sum(axis=1) * 2 > n
    rejecters = rejects.sum(axis=1)
    some = rejecters > 0  # the share of rejecters who comply, over the groups that have any
    complying = float(((enact & rejects).sum(axis=1)[some] / rejecters[some]).mean()) if some.any() else float("nan")
    return PluralisticResult(condition, reject, agents, rounds, seed, episodes, observation_range,
                             int(majority_rejects.sum()), int((settled & majority_rejects).sum()),
                             float(enact.mean()), complying)


def sweep(shares: Sequence[float], agents: int = 25, rounds: int = 3, episodes: int = 400,
          seeds: Sequence[int] = (0,), progress: Callable[[int], None] | None = None,
          observation_range: int | None = None) -> list[PluralisticResult]:
    for share in shares:
        check(share, agents, rounds, episodes, observation_range)
    out = []
    for seed in seeds:
        for share in shares:
            for condition in CONDITIONS:
                out.append(play(condition, share, agents, rounds, episodes, seed, observation_range))
                if progress is not None:
                    progress(episodes)
    return out


def table(results: Sequence[PluralisticResult]) -> Table:
    from rich.table import Table

    r0 = results[0]
    seen = ("each sees all" if r0.observation_range is None else
            f"on a {side(r0.agents)}x{side(r0.agents)} torus, range {r0.observation_range}")
    t = Table(title=f"pluralistic ignorance: {r0.agents} agents ({seen}), {r0.rounds} rounds, "
                    f"{r0.episodes} groups per row")
    for column in ("reject", "seed", "seen", "groups", "on the norm", "± s.e.", "enact it", "rejecters"):
        t.add_column(column, justify="left" if column == "seen" else "right")
    t.caption = ("groups: those where most privately reject the norm; on the norm: the share of them that "
                 "settled on it; enact it: the share enacting it at the end; rejecters: the share of "
                 "rejecters enacting it")
    for r in results:
        t.add_row(f"{r.reject:g}", str(r.seed), r.condition, str(r.rejected),
                  "" if not r.rejected else f"{r.frequency:.3f}",
                  "" if not r.rejected else f"{r.stderr:.3f}", f"{r.norm_share:.3f}",
                  "" if np.isnan(r.complying) else f"{r.complying:.3f}")
    return t


def plot(results: Sequence[PluralisticResult], out: Path) -> Path:
    """``pluralistic.png``: against the share privately rejecting the norm, how often the group
    settles on it and how many rejecters enact it, seeing actions against sharing attitudes."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    seed = results[0].seed
    fig, axes = plt.subplots(1, 2, figsize=(11, 4.2))
    for condition, label in (("public", "each sees the others' actions"),
                             ("shared", "private attitudes shared")):
        mine = sorted((r for r in results if r.seed == seed and r.condition == condition),
                      key=lambda r: r.reject)
        x = [r.reject for r in mine]
        axes[0].errorbar(x, [r.frequency for r in mine], yerr=[r.stderr for r in mine], marker="o",
                         capsize=3, label=label)
        axes[1].plot(x, [r.complying for r in mine], marker="o", label=label)
    axes[0].set_title("groups settling on the norm most members privately reject", fontsize=9)
    axes[1].set_title("share of rejecters publicly enacting the norm", fontsize=9)
    for ax in axes:
        ax.set_xlabel("share of agents privately rejecting the norm")
        ax.set_ylim(-0.02, 1.02)
        ax.legend(fontsize=8)
    fig.suptitle("Λ*: pluralistic ignorance")
    fig.tight_layout()
    path = out / "pluralistic.png"
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path
