"""Saved combinations (tables ``combinations`` and ``combination_servers``): saved once and never
changed, with the servers each names, and the listings compose, lineage and the Top 10 read.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import select
from sqlalchemy.exc import IntegrityError

from ..models import Combination, CombinationServer, now
from .base import PortalError, Sessions, get_or_404, reason, urls_in


class Combinations:
    """Combinations and their listings."""

    def __init__(self, sessions: Sessions) -> None:
        self._session = sessions

    def save_combination(self, *, author_id: int, title: str, document: dict[str, Any], world_url: str,
                         explanation: str = "", derived_from: int | None = None) -> Combination:
        """Save a combination (never changed afterwards), with the servers its document names."""
        if not title.strip():
            raise PortalError("a combination needs a title")
        try:
            with self._session() as s:
                if derived_from is not None:
                    get_or_404(s, Combination, derived_from,
                               f"there is no combination {derived_from} to derive from")
                combination = Combination(author_id=author_id, title=title.strip()[:200],
                                          explanation=explanation, document=document, world_url=world_url,
                                          derived_from=derived_from, created_at=now())
                s.add(combination)
                s.flush()
                for url in sorted(urls_in(document) | {world_url}):
                    s.add(CombinationServer(combination_id=combination.id, url=url))
        except IntegrityError as exc:
            raise PortalError(f"the combination could not be saved: {reason(exc)}") from None
        return combination

    def combination(self, combination_id: int) -> Combination:
        with self._session() as s:
            return get_or_404(s, Combination, combination_id, f"there is no combination {combination_id}")

    def combinations_with(self, url: str) -> list[Combination]:
        """The combinations whose document names ``url`` (newest first)."""
        query = (select(Combination).join(CombinationServer).where(CombinationServer.url == url)
                 .order_by(Combination.created_at.desc(), Combination.id.desc()))
        with self._session() as s:
            return list(s.scalars(query))

    def recent_combinations(self, limit: int = 100) -> list[Combination]:
        """The newest combinations first."""
        query = select(Combination).order_by(Combination.id.desc()).limit(limit)
        with self._session() as s:
            return list(s.scalars(query))

    def combinations_of_world(self, world_url: str) -> list[Combination]:
        """The combinations run in the World at ``world_url`` (newest first)."""
        query = select(Combination).where(Combination.world_url == world_url).order_by(Combination.id.desc())
        with self._session() as s:
            return list(s.scalars(query))

    def combinations_by(self, author_id: int) -> list[Combination]:
        query = select(Combination).where(Combination.author_id == author_id).order_by(Combination.id.desc())
        with self._session() as s:
            return list(s.scalars(query))

    def derived_from_this(self, combination_id: int) -> list[Combination]:
        """The combinations saved by editing this one (its "derived by" lineage), oldest first."""
        query = select(Combination).where(Combination.derived_from == combination_id).order_by(Combination.id)
        with self._session() as s:
            return list(s.scalars(query))
