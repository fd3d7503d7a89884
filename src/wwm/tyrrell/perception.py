"""What the animal perceives: 9-element direction vectors (w2mind's convention, index 0 the
animal's own cell, 1 N ... 8 NW), each element the summed nearness 1/(1+d) of the things of
one kind that lie in that compass sector, d the Chebyshev distance. Computed with numpy over
all things of a kind at once; noise is added by the caller (:mod:`.engine`)."""

from __future__ import annotations

import numpy as np

SECTOR = np.pi / 4


def sectors(dx: np.ndarray, dy: np.ndarray) -> np.ndarray:
    """The direction index (0 here, 1 N .. 8 NW) of each displacement; y grows southwards."""
    s = 1 + (np.rint(np.arctan2(dx, -dy) / SECTOR).astype(np.int64) % 8)
    return np.where((dx == 0) & (dy == 0), 0, s)


def stimulus(origin: tuple[int, int], cells: np.ndarray, radius: int,
             weights: np.ndarray | None = None) -> np.ndarray:
    """The 9-vector of ``cells`` (an (n, 2) array of x, y) seen from ``origin`` within
    ``radius`` cells; ``weights`` scales each thing (0 hides it)."""
    out = np.zeros(9)
    if len(cells) == 0:
        return out
    dx = cells[:, 0] - origin[0]
    dy = cells[:, 1] - origin[1]
    dist = np.maximum(np.abs(dx), np.abs(dy))
    seen = dist <= radius
    if weights is not None:
        seen &= weights > 0
    if not seen.any():
        return out
    near = 1.0 / (1.0 + dist[seen])
    if weights is not None:
        near = near * weights[seen]
    return np.bincount(sectors(dx[seen], dy[seen]), weights=near, minlength=9)


def direction(origin: tuple[int, int], target: tuple[int, int]) -> int:
    """The direction index of ``target`` from ``origin``."""
    return int(sectors(np.array([target[0] - origin[0]]), np.array([target[1] - origin[1]]))[0])


def stimuli(origin: tuple[int, int], cells: np.ndarray, kinds: np.ndarray, radius: np.ndarray,
            weights: np.ndarray, count: int) -> np.ndarray:
    """:func:`stimulus` for ``count`` kinds of things at once: ``cells`` (n, 2), the kind of
    each (``kinds``), the radius and weight each is seen with; a (count, 9) array, one
    bincount over everything (an order of magnitude faster than a call per kind)."""
    dx = cells[:, 0] - origin[0]
    dy = cells[:, 1] - origin[1]
    dist = np.maximum(np.abs(dx), np.abs(dy))
    seen = (dist <= radius) & (weights > 0)
    near = weights[seen] / (1.0 + dist[seen])
    index = kinds[seen] * 9 + sectors(dx[seen], dy[seen])
    return np.bincount(index, weights=near, minlength=count * 9).reshape(count, 9)
