"""Complexity measures of a Λ* environment: the Lempel-Ziv (1976) complexity of a movement
pattern in the Kaspar-Schuster form (an approximation of K(μ)), and the search-space
entropy H(μ) = log2 of the number of ordered placements of Good and Evil.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Sequence

import numpy as np


def lempel_ziv(sequence: Sequence[Hashable]) -> int:
    """The number of components c in the Lempel-Ziv (1976) parsing of ``sequence``, counted
    the Kaspar-Schuster way. Symbols are compared whole (a cell id is one symbol)."""
    s = list(sequence)
    n = len(s)
    if n == 0:
        return 0
    if n == 1:
        return 1
    # parsed: how much of s is already split into components (Kaspar and Schuster's l)
    c, i, k, k_max, parsed = 1, 0, 1, 1, 1
    while True:
        if s[i + k - 1] == s[parsed + k - 1]:
            k += 1
            if parsed + k > n:
                c += 1
                break
        else:
            if k > k_max:
                k_max = k
            i += 1
            if i == parsed:
                c += 1
                parsed += k_max
                if parsed + 1 > n:
                    break
                i, k, k_max = 0, 1, 1
            else:
                k = 1
    return c


def normalised_lempel_ziv(sequence: Sequence[Hashable]) -> float:
    """c / (n / log2 n): the complexity relative to that of a random sequence of length n."""
    n = len(sequence)
    if n < 2:
        raise ValueError("the normalised complexity needs a sequence of at least 2 symbols")
    return lempel_ziv(sequence) / (n / math.log2(n))


def search_entropy(rows: int, cols: int | None = None) -> float:
    """H(μ) in bits: log2 of mnP2 = N!/(N-2)!, the ordered placements of Good and Evil."""
    size = rows * (rows if cols is None else cols)
    if size < 2:
        raise ValueError("the grid needs at least two cells")
    return math.log2(size) + math.log2(size - 1)


# --- many sequences at once -------------------------------------------------------------
# The Kaspar-Schuster count is the number of components of the LZ76 parsing: from position
# p the next component is the longest prefix of s[p:] that also starts at some j < p
# (overlap allowed) plus one new symbol. ``lempel_ziv_rows`` finds that longest previous
# factor for every row and position at once: one backward scan over positions carries, for
# every shift d, the run of equal symbols s[m + t] == s[m + d + t]; then the rows are parsed
# in lockstep, one component per step. Same counts as ``lempel_ziv``, row by row.


def lempel_ziv_rows(rows: np.ndarray, lengths: np.ndarray | None = None) -> np.ndarray:
    """``lempel_ziv`` of every row of ``rows`` (``[E, n]`` whole-number symbols), row e
    cut to its first ``lengths[e]`` symbols (default: all n)."""
    rows = np.asarray(rows)
    count, n = rows.shape
    lengths = np.full(count, n) if lengths is None else np.asarray(lengths)
    if count == 0 or n == 0:
        return np.zeros(count, dtype=np.int32)
    width = 2 * n
    seq = np.empty((width, count), dtype=np.int64)
    seq[:n] = rows.T
    t = np.arange(width)[:, None]
    # past its length every row holds symbols no other position has, so no run crosses it
    seq = np.where(t < lengths[None, :], seq, int(min(0, rows.min())) - 1 - t)
    previous = _longest_previous(seq, n, n)
    return _count_components(previous, lengths, lengths)


def lempel_ziv_periodic(rows: np.ndarray, periods: np.ndarray) -> np.ndarray:
    """``lempel_ziv`` of every row of ``rows`` ``[E, n]`` when row e repeats with period
    ``periods[e]`` (``rows[e, t] == rows[e, t - L]``) and n >= 2L: a component that starts
    at p >= L copies s[p - L:] to the end, so only the first period needs parsing, and a
    run of equal symbols that lasts a whole period lasts to the end."""
    rows = np.asarray(rows)
    periods = np.asarray(periods)
    count, n = rows.shape
    if count == 0:
        return np.zeros(0, dtype=np.int32)
    top = int(periods.max())
    if top < 1 or 2 * top > n:
        raise ValueError(f"periods must be in 1..n/2 (n = {n}, longest period {top})")
    span = 3 * top
    t = np.arange(span)[:, None]
    seq = rows.T[t % periods[None, :], np.arange(count)[None, :]]
    previous = _longest_previous(seq, top, 2 * top)
    return _count_components(previous, np.full(count, n), periods, whole=periods)


def _longest_previous(seq: np.ndarray, positions: int, horizon: int) -> np.ndarray:
    """``out[p, e]`` for p < positions: the longest run ``seq[j + t, e] == seq[p + t, e]``
    over j < p, counting only t with j + t < horizon. ``seq`` is ``[horizon + positions, E]``."""
    count = seq.shape[1]
    dtype = np.uint8 if horizon < 255 else np.uint16 if horizon < 65535 else np.uint32
    run = np.zeros((positions, count), dtype=dtype)   # run[d, e]: equal run from m vs m + d
    same = np.empty((positions, count), dtype=bool)
    out = np.zeros((positions, count), dtype=dtype)
    for m in range(horizon - 1, -1, -1):
        np.equal(seq[m], seq[m:m + positions], out=same)
        run += 1
        run *= same
        if m < positions - 1:  # p = m + d
            np.maximum(out[m + 1:], run[1:positions - m], out=out[m + 1:])
    return out


def _count_components(previous: np.ndarray, lengths: np.ndarray, stop: np.ndarray,
                      whole: np.ndarray | None = None) -> np.ndarray:
    """Parse every row in lockstep. A component starting at p >= ``stop[e]`` reaches the
    end; a previous factor of ``whole[e]`` symbols or more (periodic rows) does too."""
    counts = np.where(lengths > 0, 1, 0).astype(np.int32)
    at = np.ones(len(lengths), dtype=np.int64)
    active = np.flatnonzero(lengths > 1)
    last = previous.shape[0] - 1
    while len(active):
        p = at[active]
        size = lengths[active]
        match = previous[np.minimum(p, last), active].astype(np.int64)
        if whole is not None:
            match[match >= whole[active]] = size.max()
        ends = (p >= stop[active]) | (p + match >= size)
        counts[active] += 1
        p = p + match + 1
        at[active] = p
        active = active[~ends & (p < size)]
    return counts
