"""Test batteries per Definition 3: ω environments of one size (so one search-space entropy
H(μ)) whose pattern complexities K(μ) are spread over a chosen range.

``blind`` sampling (``k_range=None``) draws patterns as the generator gives them, up to the
profile's limit on K (paper: K(μ) ∈ [2, 23], section 5.1; original: no limit, as the
authors' code); ``stratified`` sampling draws candidates (with no limit, so a range can
reach beyond 23) and keeps the same number of episodes from each of ``bins`` equal-width
bands of K in [k_min, k_max].
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .episodes import EpisodeSet, generate
from .torus import Grid, grid_shape, grid_text


@dataclass(frozen=True, slots=True)
class BatterySpec:
    grid: Grid  # its side (a square) or (rows, columns)
    iterations: int
    episodes: int
    profile: str = "paper"
    seed: int = 0
    k_range: tuple[int, int] | None = None  # None: blind sampling
    bins: int = 4


def bands(k_min: int, k_max: int, bins: int) -> list[tuple[int, int]]:
    """``bins`` contiguous integer bands covering [k_min, k_max]."""
    if k_min > k_max:
        raise ValueError(f"empty complexity range [{k_min}, {k_max}]")
    bins = max(1, min(bins, k_max - k_min + 1))
    edges = np.linspace(k_min, k_max + 1, bins + 1).round().astype(int)
    return [(int(lo), int(hi) - 1) for lo, hi in zip(edges[:-1], edges[1:], strict=True)]


def possible_range(spec: BatterySpec) -> tuple[int, int]:
    """The complexities a profile's patterns can have (reference notes 1.3 for ``original``:
    c of a segment of length L ≤ 2n-1; ``paper``: c of a ϑ-long sequence whose segment is at
    most ⌊ϑ/2⌋ long)."""
    if spec.profile == "original":
        return 2, 2 * grid_shape(spec.grid)[1] - 1
    return 1, max(2, spec.iterations // 2 + 1)


def build(spec: BatterySpec, attempts: int = 3) -> EpisodeSet:
    """The episodes of a battery (same seed, same battery)."""
    if spec.k_range is None:
        return generate(spec.grid, spec.iterations, spec.episodes, spec.profile, spec.seed)
    k_min, k_max = spec.k_range
    lo_ok, hi_ok = possible_range(spec)
    if k_max < lo_ok or k_min > hi_ok:
        raise ValueError(f"cannot fill the complexity range [{k_min}, {k_max}]: the {spec.profile} "
                         f"profile on a {grid_text(spec.grid)} grid with ϑ = {spec.iterations} gives "
                         f"K in [{lo_ok}, {hi_ok}]")
    wanted = bands(k_min, k_max, spec.bins)
    quota = np.diff(np.linspace(0, spec.episodes, len(wanted) + 1).round().astype(int))
    pool = generate(spec.grid, spec.iterations, max(4 * spec.episodes, 200), spec.profile, spec.seed,
                    k_max=None)
    for _ in range(attempts):
        chosen = []
        for (lo, hi), count in zip(wanted, quota, strict=True):
            hits = np.flatnonzero((pool.complexity >= lo) & (pool.complexity <= hi))
            if len(hits) < count:
                break
            chosen.append(hits[:count])
        else:
            return pool.select(np.sort(np.concatenate(chosen)))
        pool = generate(spec.grid, spec.iterations, len(pool) * 4, spec.profile, spec.seed, k_max=None)
    have = (int(pool.complexity.min()), int(pool.complexity.max()))
    raise ValueError(f"cannot fill the complexity range [{k_min}, {k_max}] with {spec.episodes} "
                     f"episodes on a {grid_text(spec.grid)} grid with ϑ = {spec.iterations} "
                     f"and the {spec.profile} profile (its patterns give K in {have[0]}..{have[1]})")
