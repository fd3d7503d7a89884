"""The environments μ of a test: Good's and Evil's trajectories, the agents' start cells and
the agents' random draws for every episode, generated up front (as the authors' code writes
its pattern lines before the test starts).

Both engines (plain and vectorised) read the same :class:`EpisodeSet`, so for the same seed
they make the same choices. Every random draw comes from a named stream of the seed, so
adding agents or selecting episodes does not disturb the other draws.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache

import numpy as np

from .complexity import lempel_ziv_periodic, lempel_ziv_rows
from .phases import phase
from .profiles import Profile
from .profiles import profile as get_profile
from .torus import Grid, Torus, grid_shape, torus

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
        if self._starts is None or self._starts.shape[1] < agents:
            with phase("starts and draws"):
                self._starts = self._draw_starts(agents)
        return self._starts[:, :agents]

    def _draw_starts(self, agents: int) -> np.ndarray:
        """The first ``agents`` cells of each episode's random permutation of the cells."""
        keys = stream(self.seed, STARTS).random((int(self.ids.max()) + 1, self.grid.size))[self.ids]
        if 4 * agents < self.grid.size:  # the first few cells of the permutation only
            lowest = np.argpartition(keys, agents, axis=1)[:, :agents]
            order = np.argsort(np.take_along_axis(keys, lowest, axis=1), axis=1)
            return np.take_along_axis(lowest, order, axis=1).astype(np.int32)
        return np.argsort(keys, axis=1).astype(np.int32)

    def draws(self, agent: int) -> np.ndarray:
        """``[ω, ϑ, 2]`` uniforms in [0, 1) that agent number ``agent`` uses to break ties and
        act at random, the same in every engine."""
        if agent not in self._draws:
            with phase("starts and draws"):
                table = stream(self.seed, AGENT_DRAWS, agent).random(
                    (int(self.ids.max()) + 1, self.iterations, 2))
                whole = len(table) == len(self.ids) and bool((self.ids == np.arange(len(table))).all())
                self._draws[agent] = table if whole else table[self.ids]
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


PROFILE_LIMIT = "profile"
"""``generate(k_max=PROFILE_LIMIT)``: the profile's own K limit (``Profile.k_max``)."""


def generate(grid: Grid, iterations: int, episodes: int,
             profile: str | Profile = "paper", seed: int = 0,
             segment: tuple[int, int] | None = None,
             k_max: int | str | None = PROFILE_LIMIT) -> EpisodeSet:
    """``episodes`` environments on a ``grid`` (its side, or (rows, columns)). ``segment``
    limits the recurrent segment length (paper profile), which is how a battery aims at a
    range of K. ``k_max`` is the highest K(μ) drawn: by default the profile's (paper: 23,
    section 5.1; original: none); None: no limit.

    Under a limit the paper profile draws segments of at most ``k_max - 1`` cells (a cyclic
    sequence of period L has K ≤ L + 1), and the rare episode a Good/Evil collision pushes
    above the limit is left out: a few spare episodes are drawn for that."""
    prof = get_profile(profile)
    if iterations < 1:
        raise ValueError(f"an episode needs at least one iteration (got {iterations})")
    if episodes < 1:
        raise ValueError(f"a test needs at least one episode (got {episodes})")
    limit = prof.k_max if k_max == PROFILE_LIMIT else k_max
    if limit is None:
        return _generate(grid, iterations, episodes, prof, seed, segment)
    if isinstance(limit, str) or limit < 2:
        raise ValueError(f"the highest pattern complexity K must be at least 2 (got {limit!r})")
    if prof.cyclic_patterns and prof.k_on_sequence:
        lo, hi = segment if segment is not None else (1, max(1, iterations // 2))
        if lo > limit - 1:
            raise ValueError(f"segments of {lo} cells or more give K above {limit}")
        segment = (lo, min(hi, limit - 1))
    pool = episodes + episodes // 50 + 4
    for _ in range(6):
        found = _generate(grid, iterations, pool, prof, seed, segment)
        fits = np.flatnonzero(found.complexity <= limit)
        if len(fits) >= episodes:
            return found.select(fits[:episodes])
        pool *= 2
    raise ValueError(f"the {prof.name} profile's patterns rarely have K <= {limit} "
                     f"(found {len(fits)} of {episodes} episodes)")


def _generate(grid: Grid, iterations: int, episodes: int, prof: Profile,
              seed: int, segment: tuple[int, int] | None) -> EpisodeSet:
    rows, cols = grid_shape(grid)
    geo = torus(rows, cols)
    if not prof.cyclic_patterns and rows != cols:
        raise ValueError(f"the original profile runs on square grids only (got {rows}x{cols})")
    if prof.cyclic_patterns:
        with phase("patterns"):
            good, evil, seg_len, periodic, pattern = _paper_patterns(geo, iterations, episodes,
                                                                     seed, segment)
        with phase("complexity"):
            complexity = (_sequence_complexity(good[:, 1:], seg_len, periodic) if prof.k_on_sequence
                          else lempel_ziv_rows(pattern, seg_len))
    else:
        with phase("patterns"):
            good, evil, seg_len, walk = _original_patterns(geo, iterations, episodes, seed)
        with phase("complexity"):
            complexity = lempel_ziv_rows(walk, seg_len)
    return EpisodeSet(geo, prof, iterations, seed, good, evil, seg_len, complexity,
                      np.arange(episodes))


def _original_patterns(geo: Torus, iterations: int, episodes: int, seed: int
                       ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
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
    return good, evil, length.astype(np.int32), walk


def _paper_patterns(geo: Torus, iterations: int, episodes: int, seed: int,
                    segment: tuple[int, int] | None
                    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Good's and Evil's paper patterns, then their collisions resolved by a coin."""
    pattern_good, pattern_evil, length = paper_pattern_pair(geo, iterations, episodes, seed, segment)
    good, evil, clashed = _resolve_collisions(pattern_good, pattern_evil, stream(seed, COLLISIONS))
    return good, evil, length.astype(np.int32), ~clashed, pattern_good


def _sequence_complexity(sequences: np.ndarray, length: np.ndarray, periodic: np.ndarray) -> np.ndarray:
    """K of each ϑ-long sequence: the periodic shortcut for the episodes whose pattern no
    collision changed, the general count for the others."""
    out = np.empty(len(sequences), dtype=np.int32)
    if 2 * int(length.max()) <= sequences.shape[1]:
        out[periodic] = lempel_ziv_periodic(sequences[periodic], length[periodic])
    else:  # ϑ = 1: a single cell
        periodic = np.zeros_like(periodic)
    out[~periodic] = lempel_ziv_rows(sequences[~periodic])
    return out


def paper_pattern_pair(geo: Torus, iterations: int, episodes: int, seed: int,
                       segment: tuple[int, int] | None = None
                       ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
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
    # the segment's cells: the start, then the running sums of the steps (the last step
    # closes the walk, so it is not needed)
    r0, c0 = geo.row[start], geo.col[start]
    seg_rows, seg_cols = np.empty((2, episodes, width), dtype=np.int64)
    seg_rows[:, 0], seg_cols[:, 0] = r0, c0
    np.cumsum(axes[0][:, :-1], axis=1, out=seg_rows[:, 1:])
    np.cumsum(axes[1][:, :-1], axis=1, out=seg_cols[:, 1:])
    seg_rows[:, 1:] += r0[:, None]
    seg_cols[:, 1:] += c0[:, None]
    segment_cells = (seg_rows % geo.rows) * geo.cols + seg_cols % geo.cols
    # repeated cyclically: iteration t is the segment's cell t mod L
    index = np.arange(iterations + 1)[None, :] % length[:, None]
    index += (np.arange(episodes) * width)[:, None]
    pattern_good = segment_cells.ravel().take(index).astype(np.int32)
    pattern_evil = _symmetric_image(geo, pattern_good, stream(seed, EVIL))
    return pattern_good, pattern_evil, length


def _symmetric_image(geo: Torus, pattern: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Map each episode's pattern by a random torus isometry (a symmetry of the square, or of
    the rectangle, then a translation) that is not the identity and does not put Evil on
    Good's start cell."""
    episodes = len(pattern)
    square = geo.rows == geo.cols
    sym = np.empty(episodes, dtype=np.int64)
    tr, tc = np.empty_like(sym), np.empty_like(sym)
    todo = np.arange(episodes)
    sr, sc = _symmetry_tables(geo.rows, geo.cols)
    while len(todo):  # draw until the start cell moves (only the first cell decides)
        s = rng.integers(0, 8 if square else 4, len(todo))
        dr = rng.integers(0, geo.rows, len(todo))
        dc = rng.integers(0, geo.cols, len(todo))
        start = pattern[todo, 0]
        image = ((sr[s, start] + dr) % geo.rows) * geo.cols + (sc[s, start] + dc) % geo.cols
        bad = (image == start) | ((s == 0) & (dr == 0) & (dc == 0))
        keep = todo[~bad]
        sym[keep], tr[keep], tc[keep] = s[~bad], dr[~bad], dc[~bad]
        todo = todo[bad]
    # each episode's isometry as a table cell -> cell, then one gather over its pattern
    cells = ((sr[sym] + tr[:, None]) % geo.rows) * geo.cols + (sc[sym] + tc[:, None]) % geo.cols
    flat = pattern + (np.arange(episodes) * geo.size)[:, None]
    return cells.ravel().take(flat).astype(np.int32)


@lru_cache(maxsize=16)
def _symmetry_tables(m: int, n: int) -> tuple[np.ndarray, np.ndarray]:
    """``[8, m*n]`` row and column of each cell's image under the 8 symmetries of a square
    (the first 4 also fit a rectangle)."""
    r, c = np.divmod(np.arange(m * n), n)
    fr, fc = (m - 1 - r) % m, (n - 1 - c) % n
    if m != n:  # the diagonal symmetries do not map a rectangle onto itself: never drawn
        return np.stack([r, fr, r, fr] * 2), np.stack([c, c, fc, fc] * 2)
    choices = [(r, c), (fr, c), (r, fc), (fr, fc), (c, r), (fc, r), (c, fr), (fc, fr)]
    return np.stack([x for x, _ in choices]), np.stack([y for _, y in choices])


def _resolve_collisions(pattern_good: np.ndarray, pattern_evil: np.ndarray,
                        rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Good and Evil never share a cell: when both would enter the same cell, a coin picks
    the one that moves; the other keeps its old cell (paper, section 4.1.1). An object that
    already sits on the contested cell keeps it. Also returns which episodes had a clash."""
    good, evil = pattern_good.copy(), pattern_evil.copy()
    coins = rng.random(good.shape) < 0.5
    clash = pattern_good == pattern_evil
    clash[:, 0] = False
    clashed = clash.any(axis=1)
    rows = np.flatnonzero(clashed)
    if not len(rows):
        return good, evil, clashed
    g_all, e_all, c_all = pattern_good[rows], pattern_evil[rows], coins[rows]
    g_out, e_out = good[rows], evil[rows]
    # only the iterations where some episode has a clash need the sequential rule; the
    # others keep the pattern, so the cell before a clash is already final when it is read
    for t in np.flatnonzero(clash[rows].any(axis=0)):
        g, e = g_all[:, t], e_all[:, t]
        hit = g == e
        og, oe = g_out[:, t - 1], e_out[:, t - 1]
        good_moves = np.where(og == g, True, np.where(oe == e, False, c_all[:, t]))
        g_out[:, t] = np.where(hit & ~good_moves, og, g)
        e_out[:, t] = np.where(hit & good_moves, oe, e)
    good[rows], evil[rows] = g_out, e_out
    return good, evil, clashed
