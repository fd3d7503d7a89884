"""Where the time of a Λ* test goes: the code marks its phases (patterns, complexity, start
cells and draws, agents, scoring) and a caller that wants the breakdown collects them.

Phases are exclusive: a phase entered inside another pauses it, so the parts add up to the
whole. When nobody collects, marking a phase costs one test of a global.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from time import perf_counter

_totals: dict[str, float] | None = None
_open: list[tuple[str, float]] = []  # (name, start of its current stretch), innermost last


@contextmanager
def phase(name: str) -> Iterator[None]:
    """Charge the time spent inside to ``name`` (not to the enclosing phase)."""
    totals = _totals
    if totals is None:
        yield
        return
    now = perf_counter()
    if _open:  # pause the enclosing phase
        outer, since = _open[-1]
        totals[outer] = totals.get(outer, 0.0) + now - since
    _open.append((name, now))
    try:
        yield
    finally:
        now = perf_counter()
        _, since = _open.pop()
        totals[name] = totals.get(name, 0.0) + now - since
        if _open:
            _open[-1] = (_open[-1][0], now)  # the enclosing phase resumes


@contextmanager
def collect() -> Iterator[dict[str, float]]:
    """Seconds per phase of everything run inside."""
    global _totals
    saved, saved_open = _totals, _open[:]
    _totals = {}
    _open.clear()
    try:
        yield _totals
    finally:
        _totals = saved
        _open[:] = saved_open
