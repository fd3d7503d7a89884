"""The portal's runs (table ``portal_runs``): a run of a combination by a user, linked to its
run-store run. A linked run's status lives in the run store only (issue 26, item 8): pages and
lists read it there (:func:`wwm.portal.rankings.scored`, ``RunStore.states``); the ``status``
column says only what the run store cannot: "starting" until the run store has the run,
"could not start" if it never did, "started" once linked (its status: the run store's).
"""

from __future__ import annotations

from sqlalchemy import select
from sqlalchemy.exc import IntegrityError

from ..models import Combination, PortalRun, now
from .base import PortalError, Sessions, get_or_404, reason

STARTED = "started"   # a linked run's column: its status is the run store's


class Runs:
    """Portal runs and their listings."""

    def __init__(self, sessions: Sessions) -> None:
        self._session = sessions

    def new_run(self, combination_id: int, user_id: int, steps_asked: int | None) -> PortalRun:
        """A run of the combination, "starting" (its end secret is the run service's:
        :class:`wwm.portal.runs.RunService`, table ``portal_run_secrets``)."""
        try:
            with self._session() as s:
                get_or_404(s, Combination, combination_id, f"there is no combination {combination_id}")
                run = PortalRun(combination_id=combination_id, user_id=user_id, status="starting",
                                steps_asked=steps_asked, created_at=now())
                s.add(run)
        except IntegrityError as exc:
            raise PortalError(f"the run could not be saved: {reason(exc)}") from None
        return run

    def run(self, run_id: int) -> PortalRun:
        with self._session() as s:
            return get_or_404(s, PortalRun, run_id, f"there is no run {run_id}")

    def set_run(self, run_id: int, *, status: str | None = None, run_store_id: int | None = None,
                ended: bool = False) -> PortalRun:
        with self._session() as s:
            run = get_or_404(s, PortalRun, run_id, f"there is no run {run_id}")
            if status is not None:
                run.status = status
            if run_store_id is not None:
                run.run_store_id = run_store_id
            if ended:
                run.ended_at = now()
        return run

    def link_run(self, run_id: int, run_store_id: int) -> None:
        """The run has started as the run store's ``run_store_id``, where its status is from now
        on (the column says "started")."""
        with self._session() as s:
            run = get_or_404(s, PortalRun, run_id, f"there is no run {run_id}")
            run.run_store_id = run_store_id
            if run.status == "starting":
                run.status = STARTED

    def runs_of(self, combination_id: int) -> list[PortalRun]:
        query = (select(PortalRun).where(PortalRun.combination_id == combination_id)
                 .order_by(PortalRun.id.desc()))
        with self._session() as s:
            return list(s.scalars(query))

    def runs_of_combinations(self, combination_ids: list[int]) -> list[PortalRun]:
        """The portal runs of any of these combinations, newest first."""
        if not combination_ids:
            return []
        query = (select(PortalRun).where(PortalRun.combination_id.in_(combination_ids))
                 .order_by(PortalRun.id.desc()))
        with self._session() as s:
            return list(s.scalars(query))

    def runs_by(self, user_id: int, limit: int = 100) -> list[PortalRun]:
        """The runs a user started, newest first."""
        query = select(PortalRun).where(PortalRun.user_id == user_id).order_by(PortalRun.id.desc()).limit(limit)
        with self._session() as s:
            return list(s.scalars(query))

    def runs_linked(self, run_store_ids: list[int], limit: int = 20) -> list[PortalRun]:
        """The portal runs of these run-store runs (say, the ones running now), newest first."""
        if not run_store_ids:
            return []
        query = (select(PortalRun).where(PortalRun.run_store_id.in_(run_store_ids))
                 .order_by(PortalRun.id.desc()).limit(limit))
        with self._session() as s:
            return list(s.scalars(query))

    def runs_for_store_ids(self, run_store_ids: list[int]) -> dict[int, int]:
        """The portal run of each of these run-store runs that has one: {run store ID: run ID}."""
        if not run_store_ids:
            return {}
        query = select(PortalRun.run_store_id, PortalRun.id).where(PortalRun.run_store_id.in_(run_store_ids))
        with self._session() as s:
            return {int(a): int(b) for a, b in s.execute(query).all() if a is not None}
