"""Clocks for deadlines: the system clock, and a manual one tests move by hand.

Reply-by deadlines only ever compare against ``clock.now()``, so a test can make an
obligation overdue in a microsecond by calling :meth:`ManualClock.advance`.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Protocol


class Clock(Protocol):
    def now(self) -> datetime: ...


class SystemClock:
    def now(self) -> datetime:
        return datetime.now(UTC)


class ManualClock:
    """A clock that stands still until told to move."""

    def __init__(self, start: datetime | None = None) -> None:
        self._now = start or datetime(2026, 1, 1, tzinfo=UTC)

    def now(self) -> datetime:
        return self._now

    def advance(self, seconds: float) -> datetime:
        self._now += timedelta(seconds=seconds)
        return self._now

    def set(self, moment: datetime) -> None:
        self._now = moment


def aware(moment: datetime) -> datetime:
    """Deadlines without a zone are read as UTC."""
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)
