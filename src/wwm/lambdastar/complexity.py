"""Complexity measures of a Λ* environment: the Lempel-Ziv (1976) complexity of a movement
pattern in the Kaspar-Schuster form (an approximation of K(μ)), and the search-space
entropy H(μ) = log2 of the number of ordered placements of Good and Evil.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Sequence


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
