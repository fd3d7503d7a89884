"""The environments μ of a test: Good's and Evil's trajectories, the agents' start cells and
the agents' random draws for every episode, generated up front (as the authors' code writes
its pattern lines before the test starts).

Both engines (plain and vectorised) read the same :class:`EpisodeSet`, so for the same seed
they make the same choices. Every random draw comes from a named stream of the seed, so
adding agents or selecting episodes does not disturb the other draws.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .complexity import lempel_ziv
from .profiles import Profile
from .profiles import profile as get_profile
from .torus import Torus, torus

# named random streams of one seed
PATTERNS, EVIL, COLLISIONS, STARTS, AGENT_DRAWS, TRAINING = range(6)


def stream(seed: int, *names: int) -> np.random.Generator:
    """The random generator of one named stream of ``seed``."""
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise ValueError(f"the seed must be a whole number, 0 or more (got {seed!r})")
    return np.random.default_rng([seed, *names])


@dataclass(slots=True)
class EpisodeSet:
    """ω environments of one size and profile, with everything random drawn already."""

    grid: Torus
    profile: Profile
    iterations: int
    seed: int
    good: np.ndarray        # [ω, ϑ+1] Good's cell at iteration 0..ϑ
    evil: np.ndarray        # [ω, ϑ+1]
    segment: np.ndarray     # [ω] length of the recurrent segment
    complexity: np.ndarray  # [ω] LZ complexity K(μ)
    ids: np.ndarray         # [ω] each episode's number in the stream it was drawn from
    _starts: np.ndarray | None = field(default=None, repr=False)
    _draws: dict[int, np.ndarray] = field(default_factory=dict, repr=False)

    def __len__(self) -> int:
        return len(self.good)

    @property
    def entropy(self) -> float:
        return self.grid.entropy()

    def starts(self, agents: int) -> np.ndarray:
        """``[ω, agents]``: distinct random start cells, re-drawn every episode; agent j
        starts on the same cell whatever the size of its group."""
        if agents > self.grid.size:
            raise ValueError(f"{agents} agents do not fit on distinct cells of a "
                             f"{self.grid.rows}x{self.grid.cols} grid")
        if self._starts is None:
            keys = stream(self.seed, STARTS).random((int(self.ids.max()) + 1, self.grid.size))
            self._starts = np.argsort(keys, axis=1)[self.ids].astype(np.int32)
        return self._starts[:, :agents]

    def draws(self, agent: int) -> np.ndarray:
        """``[ω, ϑ, 2]`` uniforms in [0, 1) that agent number ``agent`` uses to break ties and
        act at random, the same in every engine."""
        if agent not in self._draws:
            table = stream(self.seed, AGENT_DRAWS, agent).random(
                (int(self.ids.max()) + 1, self.iterations, 2))
            self._draws[agent] = table[self.ids]
        return self._draws[agent]

    def all_draws(self, agents: int) -> np.ndarray:
        """``[ω, ϑ, agents, 2]``."""
        return np.stack([self.draws(j) for j in range(agents)], axis=2)

    def training_draws(self, episode: int, replays: int, agents: int) -> np.ndarray:
        """``[replays, ϑ, agents, 2]`` uniforms for a learner's training replays of one
        episode; agent j's draws do not depend on the size of its group."""
        out = np.empty((replays, self.iterations, agents, 2))
        for j in range(agents):
            rng = stream(self.seed, TRAINING, int(self.ids[episode]), j)
            out[:, :, j, :] = rng.random((replays, self.iterations, 2))
        return out

    def select(self, which: np.ndarray) -> EpisodeSet:
        """The episodes at positions ``which`` (a battery picks some out of candidates)."""
        starts = None if self._starts is None else self._starts[which]
        return EpisodeSet(self.grid, self.profile, self.iterations, self.seed, self.good[which],
                          self.evil[which], self.segment[which], self.complexity[which],
                          self.ids[which], starts, {j: d[which] for j, d in self._draws.items()})

    def split(self, parts: int) -> list[EpisodeSet]:
        chunks = np.array_split(np.arange(len(self)), parts)
        return [self.select(chunk) for chunk in chunks if len(chunk)]


def generate(grid: int | tuple[int, int], iterations: int, episodes: int,
             profile: str | Profile = "paper", seed: int = 0,
             segment: tuple[int, int] | None = None) -> EpisodeSet:
    """``episodes`` environments. ``segment`` limits the recurrent segment length (paper
    profile), which is how a battery aims at a range of K."""
    prof = get_profile(profile)
    rows, cols = (grid, grid) if isinstance(grid, int) else grid
    if iterations < 1:
        raise ValueError(f"an episode needs at least one iteration (got {iterations})")
    if episodes < 1:
        raise ValueError(f"a test needs at least one episode (got {episodes})")
    geo = torus(rows, cols)
    if prof.cyclic_patterns:
        good, evil, seg_len, segs = _paper_patterns(geo, iterations, episodes, seed, segment)
        complexity = np.array([lempel_ziv(row[1:].tolist()) for row in good] if prof.k_on_sequence
                              else [lempel_ziv(s) for s in segs], dtype=np.int32)
    else:
        if rows != cols:
            raise ValueError(f"the original profile runs on square grids only (got {rows}x{cols})")
        good, evil, seg_len, segs = _original_patterns(geo, iterations, episodes, seed)
        complexity = np.array([lempel_ziv(s) for s in segs], dtype=np.int32)
    return EpisodeSet(geo, prof, iterations, seed, good, evil, seg_len, complexity,
                      np.arange(episodes))


def _original_patterns(geo: Torus, iterations: int, episodes: int, seed: int):
    """A random Moore walk of L ∈ [n, 2n-1] cells (stay allowed), then seg, reverse(seg),
    seg, ... ; Evil is Good's linear index shifted by ⌊N/3⌋ + 1 (reference notes 1.2)."""
    n, size = geo.cols, geo.size
    rng = stream(seed, PATTERNS)
    cell = rng.integers(0, size, episodes)
    length = rng.integers(n, 2 * n, episodes)
    steps = rng.integers(0, 9, (episodes, 2 * n - 1))
    walk = np.empty((episodes, 2 * n - 1), dtype=np.int32)
    for m in range(2 * n - 1):
        cell = geo.moves[cell, steps[:, m]]
        walk[:, m] = cell
    t = np.arange(iterations + 1)
    phase = t[None, :] % (2 * length[:, None])
    index = np.where(phase < length[:, None], phase, 2 * length[:, None] - 1 - phase)
    good = np.take_along_axis(walk, index, axis=1).astype(np.int32)
    evil = ((good + 1 + size // 3) % size).astype(np.int32)
    segs = [walk[e, :length[e]].tolist() for e in range(episodes)]
    return good, evil, length.astype(np.int32), segs


def _paper_patterns(geo: Torus, iterations: int, episodes: int, seed: int,
                    segment: tuple[int, int] | None):
    """Good's and Evil's paper patterns, then their collisions resolved by a coin."""
    pattern_good, pattern_evil, length = paper_pattern_pair(geo, iterations, episodes, seed, segment)
    good, evil = _resolve_collisions(pattern_good, pattern_evil, stream(seed, COLLISIONS))
    segs = [pattern_good[e, :length[e]].tolist() for e in range(episodes)]
    return good, evil, length.astype(np.int32), segs


def paper_pattern_pair(geo: Torus, iterations: int, episodes: int, seed: int,
                       segment: tuple[int, int] | None = None):
    """A closed king-move walk of L ∈ [1, ⌊ϑ/2⌋] cells, repeated cyclically; Evil follows the
    image of Good's pattern under a random symmetry of the torus (so it is a different
    pattern with exactly the same LZ complexity). Returns both ``[ω, ϑ+1]`` patterns (before
    collisions) and L."""
    rng = stream(seed, PATTERNS)
    top = max(1, iterations // 2)
    lo, hi = segment if segment is not None else (1, top)
    lo, hi = max(1, lo), min(top, hi)
    if lo > hi:
        asked = segment or (1, top)
        raise ValueError(f"no segment length fits in [{asked[0]}, {asked[1]}] "
                         f"with ϑ = {iterations} (at most {top})")
    start = rng.integers(0, geo.size, episodes)
    length = rng.integers(lo, hi + 1, episodes)
    width = int(length.max())
    axes = []
    for _ in range(2):  # rows, then columns: equal numbers of +1 and -1 steps, shuffled
        ups = rng.integers(0, length // 2 + 1)
        k = np.arange(width)[None, :]
        raw = np.where(k < ups[:, None], 1, np.where(k < 2 * ups[:, None], -1, 0))
        keys = np.where(k < length[:, None], rng.random((episodes, width)), 2.0)
        axes.append(np.take_along_axis(raw, np.argsort(keys, axis=1), axis=1))
    dr, dc = (np.cumsum(a, axis=1) for a in axes)
    r0, c0 = geo.row[start], geo.col[start]
    seg_rows = (r0[:, None] + np.concatenate([np.zeros((episodes, 1), int), dr[:, :-1]], 1)) % geo.rows
    seg_cols = (c0[:, None] + np.concatenate([np.zeros((episodes, 1), int), dc[:, :-1]], 1)) % geo.cols
    t = np.arange(iterations + 1)
    index = t[None, :] % length[:, None]
    rows = np.take_along_axis(seg_rows, index, axis=1)
    cols = np.take_along_axis(seg_cols, index, axis=1)
    pattern_good = (rows * geo.cols + cols).astype(np.int32)
    pattern_evil = _symmetric_image(geo, rows, cols, stream(seed, EVIL))
    return pattern_good, pattern_evil, length


def _symmetric_image(geo: Torus, rows: np.ndarray, cols: np.ndarray,
                     rng: np.random.Generator) -> np.ndarray:
    """Map each episode's pattern by a random torus isometry (a symmetry of the square, or of
    the rectangle, then a translation) that is not the identity and does not put Evil on
    Good's start cell."""
    episodes = len(rows)
    square = geo.rows == geo.cols
    out = np.empty_like(rows)
    todo = np.arange(episodes)
    while len(todo):
        sym = rng.integers(0, 8 if square else 4, len(todo))
        tr = rng.integers(0, geo.rows, len(todo))
        tc = rng.integers(0, geo.cols, len(todo))
        r, c = rows[todo], cols[todo]
        rr, cc = _apply_symmetry(sym[:, None], r, c, geo.rows, geo.cols)
        rr, cc = (rr + tr[:, None]) % geo.rows, (cc + tc[:, None]) % geo.cols
        image = rr * geo.cols + cc
        bad = (image[:, 0] == r[:, 0] * geo.cols + c[:, 0]) | ((sym == 0) & (tr == 0) & (tc == 0))
        out[todo[~bad]] = image[~bad]
        todo = todo[bad]
    return out.astype(np.int32)


def _apply_symmetry(sym, r, c, m, n):
    """The 8 symmetries of a square (the first 4 also fit a rectangle)."""
    fr, fc = (m - 1 - r) % m, (n - 1 - c) % n
    choices = [(r, c), (fr, c), (r, fc), (fr, fc), (c, r), (fc, r), (c, fr), (fc, fr)]
    rr = np.select([sym == s for s in range(8)], [x for x, _ in choices])
    cc = np.select([sym == s for s in range(8)], [y for _, y in choices])
    return rr, cc


def _resolve_collisions(pattern_good: np.ndarray, pattern_evil: np.ndarray,
                        rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """Good and Evil never share a cell: when both would enter the same cell, a coin picks
    the one that moves; the other keeps its old cell (paper, section 4.1.1). An object that
    already sits on the contested cell keeps it."""
    good, evil = pattern_good.copy(), pattern_evil.copy()
    coins = rng.random(good.shape) < 0.5
    for t in range(1, good.shape[1]):
        g, e = pattern_good[:, t], pattern_evil[:, t]
        clash = g == e
        if not clash.any():
            good[:, t], evil[:, t] = g, e
            continue
        og, oe = good[:, t - 1], evil[:, t - 1]
        good_moves = np.where(og == g, True, np.where(oe == e, False, coins[:, t]))
        good[:, t] = np.where(clash & ~good_moves, og, g)
        evil[:, t] = np.where(clash & good_moves, oe, e)
    return good, evil
