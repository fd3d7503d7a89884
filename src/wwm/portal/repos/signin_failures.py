"""The failed sign-ins counted per key (table ``signin_failures``); the policy (which keys, how
long a refusal) is ``wwm.portal.signins``'s, the atomic counting across processes is here.
"""

from __future__ import annotations

from collections.abc import Callable

from sqlalchemy import case, delete, select, update
from sqlalchemy.exc import IntegrityError

from ..models import SigninFailures
from .base import PortalError, Sessions


class SigninFailureCounts:
    """Failed sign-ins and the refusals they earned."""

    def __init__(self, sessions: Sessions) -> None:
        self._session = sessions

    def refusals(self, keys: list[str], at: float) -> dict[str, float]:
        """Of these keys, those refused at Unix time ``at``, each with when its refusal ends."""
        query = select(SigninFailures.key, SigninFailures.refused_until).where(
            SigninFailures.key.in_(keys), SigninFailures.refused_until > at)
        with self._session() as s:
            return {key: float(until) for key, until in s.execute(query)}

    def add_signin_failure(self, key: str, at: float, forget: float, refusal: Callable[[int], float]) -> float:
        """Count one more failure under ``key`` at Unix time ``at`` (the count starts again when
        the last failure is more than ``forget`` seconds old) and refuse the key for
        ``refusal(count)`` seconds from now (a refusal in force is never shortened); that length.
        Atomic across processes: the UPDATE holds the row until the transaction ends, and of two
        processes inserting a new key at once the second counts on the first's row."""
        table = SigninFailures.__table__.c
        stale = table.last_failure < at - forget
        for _ in range(2):
            try:
                with self._session() as s:
                    counted = s.execute(update(SigninFailures).where(table.key == key).values(
                        failures=case((stale, 1), else_=table.failures + 1), last_failure=at,
                        refused_until=case((stale, 0.0), else_=table.refused_until)))
                    if not counted.rowcount:  # type: ignore[attr-defined]
                        s.add(SigninFailures(key=key, failures=1, last_failure=at, refused_until=0.0))
                        s.flush()
                    row = s.get(SigninFailures, key, populate_existing=True)
                    assert row is not None
                    seconds = refusal(row.failures)
                    if seconds > 0:
                        row.refused_until = max(row.refused_until, at + seconds)
                    s.execute(delete(SigninFailures).where(table.last_failure < at - forget,
                                                           table.refused_until < at))
                return seconds
            except IntegrityError:
                continue        # another process counted this key's first failure just now
        raise PortalError("the sign-in could not be counted; try again")

    def clear_signin_failures(self, key: str) -> None:
        with self._session() as s:
            s.execute(delete(SigninFailures).where(SigninFailures.__table__.c.key == key))
