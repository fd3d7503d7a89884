"""The fitness-landscape environment of section 6.2: a toroidal grid whose cells hold a
fitness in [-1, 1] with many local optima and one global optimum, optionally drifting (every
``drift`` iterations each peak and pit moves one random king step). Agents observe the
fitness of their Moore neighbourhood and earn the fitness of the cell they stand on.

It has the interface of :class:`~.episodes.EpisodeSet` and :class:`~.engine.Episode`, so the
same agents and harness play it; its "complexity" is the number of local optima, and
``good`` is the global optimum's cell over time (what the oracle heads for).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from .engine import Observation
from .episodes import AGENT_DRAWS, STARTS, TRAINING, stream
from .profiles import PAPER, Profile
from .torus import Grid, Torus, grid_shape, torus

LANDSCAPE = 7  # the random stream of the landscapes


@dataclass(slots=True)
class LandscapeSet:
    grid: Torus
    iterations: int
    seed: int
    fields: np.ndarray      # [ω, T+1 or 1, N] fitness per cell
    complexity: np.ndarray  # [ω] number of local optima at the start
    good: np.ndarray        # [ω, T+1] the global optimum's cell
    ids: np.ndarray
    profile: Profile = PAPER
    _starts: np.ndarray | None = field(default=None, repr=False)

    def __len__(self) -> int:
        return len(self.fields)

    @property
    def entropy(self) -> float:
        """log2 N: the uncertainty about where the global optimum is."""
        return float(np.log2(self.grid.size))

    def starts(self, agents: int) -> np.ndarray:
        if agents > self.grid.size:
            raise ValueError(f"{agents} agents do not fit on the grid")
        if self._starts is None:
            keys = stream(self.seed, STARTS).random((len(self), self.grid.size))
            self._starts = np.argsort(keys, axis=1).astype(np.int32)
        return self._starts[:, :agents]

    def all_draws(self, agents: int) -> np.ndarray:
        return np.stack([stream(self.seed, AGENT_DRAWS, j).random((len(self), self.iterations, 2))
                         for j in range(agents)], axis=2)

    def training_draws(self, episode: int, replays: int, agents: int) -> np.ndarray:
        out = np.empty((replays, self.iterations, agents, 2))
        for j in range(agents):
            rng = stream(self.seed, TRAINING, episode, j)
            out[:, :, j, :] = rng.random((replays, self.iterations, 2))
        return out

    def episode(self, index: int, agents: int, observation_range: int = 1,
                coordination: bool = False) -> LandscapeEpisode:
        if coordination:
            raise ValueError("the coordination rule belongs to Λ*, not to the fitness landscape")
        return LandscapeEpisode(self, index, agents, observation_range)


class LandscapeEpisode:
    """One episode on a landscape: ``observe()`` then ``step(actions)``, ϑ times."""

    def __init__(self, landscapes: LandscapeSet, index: int, agents: int,
                 observation_range: int = 1) -> None:
        self.grid = landscapes.grid
        self.iterations = landscapes.iterations
        self.fields = landscapes.fields[index]
        self.good = landscapes.good[index]
        self.positions = landscapes.starts(agents)[index].copy()
        self.neighbourhoods = self.grid.neighbourhood_table(observation_range)
        self.iteration = 0
        self.totals = np.zeros(agents)

    @property
    def agents(self) -> int:
        return len(self.positions)

    @property
    def done(self) -> bool:
        return self.iteration >= self.iterations

    def field(self, t: int) -> np.ndarray:
        frame: np.ndarray = self.fields[min(t, len(self.fields) - 1)]
        return frame

    def observe(self) -> list[Observation]:
        grid = self.field(self.iteration)
        cells = self.neighbourhoods
        return [Observation(int(p), cells[p], grid[cells[p]], self.iteration + 1)
                for p in self.positions]

    def step(self, actions: Sequence[int] | np.ndarray) -> np.ndarray:
        if self.done:
            raise RuntimeError("the episode is over")
        self.positions = self.grid.moves[self.positions, np.asarray(actions)]
        self.iteration += 1
        rewards: np.ndarray = self.field(self.iteration)[self.positions].astype(float)
        self.totals += rewards
        return rewards

    def score(self) -> float:
        return float(self.totals.sum() / (self.agents * max(1, self.iteration)))


def generate_landscapes(grid: Grid, iterations: int, episodes: int, seed: int = 0, drift: int = 0,
                        peaks: tuple[int, int] = (4, 9), pits: tuple[int, int] = (2, 5)) -> LandscapeSet:
    """``episodes`` landscapes: Gaussian bumps on the torus (one global peak, several lower
    peaks and some pits), scaled into [-1, 1] with the global optimum at exactly 1."""
    if drift < 0:
        raise ValueError(f"drift must be 0 (static) or a number of iterations (got {drift})")
    geo = torus(*grid_shape(grid))
    rng = stream(seed, LANDSCAPE)
    frames = iterations + 1 if drift else 1
    fields = np.empty((episodes, frames, geo.size), dtype=np.float64)
    complexity = np.empty(episodes, dtype=np.int32)
    for e in range(episodes):
        n_peaks, n_pits = rng.integers(*peaks), rng.integers(*pits)
        centres = rng.integers(0, geo.size, n_peaks + n_pits)
        heights = np.concatenate([[1.0], rng.uniform(0.3, 0.7, n_peaks - 1),
                                  -rng.uniform(0.4, 1.0, n_pits)])
        widths = rng.uniform(0.8, 1.8, len(centres))
        moves = rng.integers(0, 9, (iterations + 1, len(centres)))
        for f in range(frames):
            if drift and f and f % drift == 0:
                centres = geo.moves[centres, moves[f]]
            fields[e, f] = _surface(geo, centres, heights, widths)
        complexity[e] = _local_optima(geo, fields[e, 0])
    best = fields.argmax(axis=2)
    good = np.broadcast_to(best, (episodes, iterations + 1)) if frames == 1 else best
    return LandscapeSet(geo, iterations, seed, fields, complexity, np.ascontiguousarray(good),
                        np.arange(episodes))


def _surface(geo: Torus, centres: np.ndarray, heights: np.ndarray, widths: np.ndarray) -> np.ndarray:
    dr = np.abs(geo.row[:, None] - geo.row[centres][None, :])
    dc = np.abs(geo.col[:, None] - geo.col[centres][None, :])
    dr, dc = np.minimum(dr, geo.rows - dr), np.minimum(dc, geo.cols - dc)
    bumps = heights * np.exp(-(dr ** 2 + dc ** 2) / (2 * widths ** 2))
    f = bumps.sum(axis=1)
    top, bottom = f.max(), f.min()
    f = np.where(f > 0, f / top if top > 0 else f, f / -bottom if bottom < 0 else f)
    rounded: np.ndarray = np.round(f, 6)
    return rounded


def _local_optima(geo: Torus, f: np.ndarray) -> int:
    around = f[geo.neighbourhood_table(1)]
    return int(np.sum(f >= around.max(axis=1)))
