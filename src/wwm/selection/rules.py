"""The decision rules of section 10, pure: each takes the Q and W values that came back from
the minds and says who or what wins. No I/O and no learning here (see :mod:`.tables` for the
tables an AS learns, :mod:`.methods` for how each method gathers its values).

Conventions: ``q[i][c]`` is mind i's Q for candidate action c, ``best[i]`` is Q_i(x, a_i);
unhappiness ``u[i][c] = best[i] - q[i][c]`` (section 3.4). Ties are broken by the lowest
candidate (or action) index, never by the mind's position, so that copying a mind cannot
change an individual-driven decision (section 6 item 5).
"""

from __future__ import annotations

import math
import random
from collections import Counter
from collections.abc import Generator, Sequence
from dataclasses import dataclass

Matrix = Sequence[Sequence[float]]


def _argbest(scores: Sequence[float], maximise: bool) -> int:
    if not scores:
        raise ValueError("no candidates to choose from")
    best = 0
    for c in range(1, len(scores)):
        if (scores[c] > scores[best]) if maximise else (scores[c] < scores[best]):
            best = c
    return best


def unhappiness(q: Matrix, best: Sequence[float] | None = None) -> list[list[float]]:
    """U_i(x,c) = Q_i(x,a_i) - Q_i(x,c); ``best`` defaults to each mind's best candidate."""
    if best is None:
        best = [max(row) for row in q]
    return [[b - v for v in row] for row, b in zip(q, best, strict=True)]


def _columns(m: Matrix) -> list[list[float]]:
    if not m:
        raise ValueError("no minds to decide among")
    width = len(m[0])
    if any(len(row) != width for row in m):
        raise ValueError("every mind needs a value for every candidate")
    return [[row[c] for row in m] for c in range(width)]


# ---- the four global decisions of 10.12 ---------------------------------------------------------

def max_best_happiness(q: Matrix) -> int:
    """(1) Maximize the Best Happiness, MAX_a MAX_i Q_i(x,a): the same as static W=Q."""
    return _argbest([max(col) for col in _columns(q)], True)


def min_worst_unhappiness(u: Matrix) -> int:
    """(2) Minimize the Worst Unhappiness, MIN_a MAX_i U_i(x,a)."""
    return _argbest([max(col) for col in _columns(u)], False)


def min_collective_unhappiness(u: Matrix) -> int:
    """(3) Minimize Collective Unhappiness, MIN_a SUM_i U_i(x,a)."""
    return _argbest([sum(col) for col in _columns(u)], False)


def max_collective_happiness(q: Matrix) -> int:
    """(4) Maximize Collective Happiness, MAX_a SUM_i Q_i(x,a)."""
    return _argbest([sum(col) for col in _columns(q)], True)


# ---- the other parallel rules of 10.13 and 10.14 --------------------------------------------------

def damn(q: Matrix, weights: Sequence[float]) -> int:
    """DAMN-style weighted voting (10.14): MAX_a SUM_i w_i Q_i(x,a)."""
    if len(weights) != len(q):
        raise ValueError(f"{len(q)} minds but {len(weights)} weights")
    return _argbest([sum(w * v for w, v in zip(weights, col, strict=True)) for col in _columns(q)], True)


def collective_equality(u: Matrix) -> int:
    """Collective Equality [PhD 12.4]: the action whose unhappiness is shared most evenly,
    MIN_a (MAX_i U_i - MIN_i U_i), ties to the lower total unhappiness.

    Project decision: the thesis's definition was not recoverable (reference notes 4.8);
    this is the spread-of-unhappiness reading the notes propose."""
    cols = _columns(u)
    spread = [max(col) - min(col) for col in cols]
    low = min(spread)
    tied = [c for c, s in enumerate(spread) if math.isclose(s, low, rel_tol=1e-12, abs_tol=1e-12)]
    return min(tied, key=lambda c: (sum(cols[c]), c))


def product_max_collective_happiness(q: Matrix) -> int:
    """Product Maximize Collective Happiness [PhD 15.5.2]: MAX_a PROD_i Q'_i(x,a).

    A product needs positive factors, so every value is shifted by one common constant
    until the smallest is 1: Q' = Q - min(Q) + 1 (project decision, reference notes 4.9).
    The product is compared through its logarithm, so many minds do not overflow."""
    cols = _columns(q)
    low = min(min(col) for col in cols)
    return _argbest([sum(math.log(v - low + 1.0) for v in col) for col in cols], True)


# ---- winner-take-all over bids (AS_s) ----------------------------------------------------------

@dataclass(frozen=True, slots=True)
class Bid:
    """One mind's answer to "Get suggested action with values"."""

    action: str
    value: float  # the W (or Q, for W=Q) the mind bids


def highest(bids: Sequence[Bid]) -> int:
    """The highest bid (static W, W=Q, strict W-learning). Ties go to the bid whose action
    sorts first, then the earliest bid: a copy of a mind never changes the winning action."""
    if not bids:
        raise ValueError("no bids")
    return min(range(len(bids)), key=lambda i: (-bids[i].value, bids[i].action, i))


def lowest(values: Sequence[float]) -> int:
    """The lowest value (Collective W-learning), ties to the lowest index."""
    return _argbest(list(values), False)


def boltzmann(values: Sequence[float], temperature: float, rng: random.Random,
              lowest_wins: bool = False) -> int:
    """Stochastic highest (or lowest) value: P(i) = e^{±v_i/T} / SUM_j e^{±v_j/T}.
    Temperature 0 is the strict rule."""
    if not values:
        raise ValueError("no values")
    sign = -1.0 if lowest_wins else 1.0
    if temperature <= 0:
        return _argbest(list(values), not lowest_wins)
    top = max(sign * v for v in values)
    weights = [math.exp((sign * v - top) / temperature) for v in values]
    return rng.choices(range(len(values)), weights=weights)[0]


# ---- the crude baselines of 3.3 --------------------------------------------------------------

def most_popular(actions: Sequence[str], rng: random.Random) -> str:
    """The action suggested most often; if several tie (e.g. none appears twice), a random
    one of them."""
    if not actions:
        raise ValueError("no actions")
    counts = Counter(actions)
    top = max(counts.values())
    return rng.choice(sorted(a for a, n in counts.items() if n == top))


def rotation(step: int, n: int, period: int = 1) -> int:
    """Time-based rotation: each mind has free rein for ``period`` steps in turn."""
    if n <= 0:
        raise ValueError("no minds to rotate among")
    return (step // max(1, period)) % n


# ---- Negotiated W-learning (10.13, [PhD 11]) ----------------------------------------------------

@dataclass(frozen=True, slots=True)
class Negotiated:
    leader: int
    w: float
    rounds: int


def negotiation(n: int, start: int) -> Generator[int, Sequence[float | None], Negotiated]:
    """The walk of [PhD 5.6] as a coroutine: it yields the current leader k and is sent back
    every mind's loss U_i(x, a_k) if a_k is executed (None for a mind that did not answer);
    it returns the final leader. W_k strictly increases, so it stops after at most n(n-1)
    changes of leader; at the end every other mind's loss is at most W_k."""
    if not 0 <= start < n:
        raise ValueError(f"start mind {start} is not one of {n} minds")
    leader, w_leader, rounds = start, 0.0, 0
    while True:
        losses = yield leader
        rounds += 1
        if len(losses) != n:
            raise ValueError(f"expected {n} losses, got {len(losses)}")
        challengers = [(i, w) for i, w in enumerate(losses) if i != leader and w is not None]
        if not challengers:
            return Negotiated(leader, w_leader, rounds)
        j, w_j = min(challengers, key=lambda t: (-t[1], t[0]))
        if w_j > w_leader:
            leader, w_leader = j, w_j
        else:
            return Negotiated(leader, w_leader, rounds)


def negotiate(u_of: Matrix, start: int) -> Negotiated:
    """Run :func:`negotiation` over a full matrix ``u_of[i][k]`` = U_i(x, a_k)."""
    walk = negotiation(len(u_of), start)
    k = next(walk)
    try:
        while True:
            k = walk.send([row[k] for row in u_of])
    except StopIteration as stop:
        done: Negotiated = stop.value
        return done


def negotiated_collective(u_of: Matrix) -> int:
    """Negotiated Collective W-learning [PhD 12.2.4]: W_k = SUM_{j != k} U_j(x, a_k), computed
    directly; the lowest W wins (MCU restricted to the suggested actions)."""
    n = len(u_of)
    return lowest([sum(u_of[j][k] for j in range(n) if j != k) for k in range(n)])
