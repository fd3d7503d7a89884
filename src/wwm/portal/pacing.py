"""Runs paced for watching (issue 26, item 3): a run may ask for a number of steps per second,
so a person can follow it; this module checks that pace and holds the run loop that keeps it.
"""

from __future__ import annotations

import math
from collections.abc import Awaitable, Callable
from typing import Any

from ..client.runner import Runner

MAX_PACE = 100.0   # steps per second a paced run may ask for (beyond it, run flat out)


def check_pace(pace: float | None) -> float | None:
    """A run's pace (steps per second, None: flat out), checked; a ValueError says what is wrong."""
    if pace is None:
        return None
    if isinstance(pace, bool) or not isinstance(pace, (int, float)) or not math.isfinite(pace) \
            or not 0 < pace <= MAX_PACE:
        raise ValueError(f"the pace must be a number of steps per second above 0 and at most {MAX_PACE:g}, "
                         f"or none (flat out), not {pace!r}")
    return float(pace)


class PacedRunner(Runner):
    """The run loop paced for watching: each step starts no sooner than 1/``pace`` seconds
    after the one before (the pause is at the step boundary, before the Mind is asked, so it
    counts against no query's time-out). ``clock`` and ``sleep`` are injectable for tests."""

    def __init__(self, *args: Any, pace: float, clock: Callable[[], float],
                 sleep: Callable[[float], Awaitable[object]], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.interval, self.clock, self.sleep = 1.0 / pace, clock, sleep
        self._last: float | None = None

    async def _ask_mind(self, *args: Any, **kwargs: Any) -> Any:
        if self._last is not None:
            wait = self._last + self.interval - self.clock()
            if wait > 0:
                await self.sleep(wait)
        self._last = self.clock()
        return await super()._ask_mind(*args, **kwargs)


def pace_of(resume: dict[str, Any]) -> float | None:
    """The pace a run's resume record keeps (None: flat out, or a record that says nothing valid)."""
    try:
        return check_pace(resume.get("pace"))
    except ValueError:
        return None
