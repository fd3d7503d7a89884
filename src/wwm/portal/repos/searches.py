"""The searches recorded on the portal (tables ``searches`` and ``search_trials``, written by
``wwm search --portal-db``): each search, its trials, and which search found a combination.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import select
from sqlalchemy.exc import IntegrityError

from ..models import Combination, Search, SearchTrial, now
from .base import PortalError, Sessions, get_or_404


class Searches:
    """Searches and their trials."""

    def __init__(self, sessions: Sessions) -> None:
        self._session = sessions

    def open_search(self, *, study: str, sampler: str, space: dict[str, Any], author_id: int,
                    start_id: int | None = None) -> Search:
        """The search of ``study``, made by its first worker and found by the others."""
        for _ in range(2):
            with self._session() as s:
                found = s.scalar(select(Search).where(Search.study == study))
                if found is not None:
                    return found
            try:
                with self._session() as s:
                    if start_id is not None:
                        get_or_404(s, Combination, start_id, f"there is no combination {start_id} to start from")
                    s.add(Search(study=study, sampler=sampler, space=space, author_id=author_id, start_id=start_id,
                                 created_at=now()))
            except IntegrityError:
                continue
        raise PortalError(f"could not record the search {study!r}")

    def record_trial(self, search_id: int, number: int, *, state: str, combination_id: int | None,
                     score: float | None, reason: str = "", best_before: int | None = None) -> None:
        with self._session() as s:
            trial = s.get(SearchTrial, (search_id, number))
            if trial is None:
                s.add(SearchTrial(search_id=search_id, number=number, combination_id=combination_id, state=state,
                                  score=score, reason=reason, best_before=best_before, created_at=now()))
            else:
                trial.state, trial.score, trial.reason = state, score, reason
                trial.combination_id = combination_id or trial.combination_id

    def searches(self) -> list[Search]:
        with self._session() as s:
            return list(s.scalars(select(Search).order_by(Search.id.desc())))

    def search(self, search_id: int) -> Search:
        with self._session() as s:
            return get_or_404(s, Search, search_id, f"there is no search {search_id}")

    def search_trials(self, search_id: int) -> list[SearchTrial]:
        query = select(SearchTrial).where(SearchTrial.search_id == search_id).order_by(SearchTrial.number)
        with self._session() as s:
            return list(s.scalars(query))

    def found_by(self, combination_id: int) -> tuple[Search, SearchTrial] | None:
        """The search (and its trial) that proposed this combination, if a search did."""
        query = (select(Search, SearchTrial).join(SearchTrial, SearchTrial.search_id == Search.id)
                 .where(SearchTrial.combination_id == combination_id))
        with self._session() as s:
            row = s.execute(query).first()
        return None if row is None else (row[0], row[1])
