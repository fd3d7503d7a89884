"""Challenges (competitions and the Λ* test as a service): tables ``challenges``, ``entries`` and
``evaluations`` — a challenge, the entries made to it, and each entry's evaluation per seed.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import select

from ..models import Challenge, Combination, Entry, Evaluation, now
from .base import Sessions, get_or_404


class Challenges:
    """Challenges, their entries and the entries' evaluations."""

    def __init__(self, sessions: Sessions) -> None:
        self._session = sessions

    def new_challenge(self, *, kind: str, title: str, world_url: str, steps: int, seeds: list[int],
                      settings: dict[str, Any], created_by: int, deadline: Any = None) -> Challenge:
        with self._session() as s:
            challenge = Challenge(kind=kind, title=title.strip()[:200], world_url=world_url, steps=steps, seeds=seeds,
                                  settings=settings, deadline=deadline, created_by=created_by, created_at=now())
            s.add(challenge)
        return challenge

    def challenge(self, challenge_id: int) -> Challenge:
        with self._session() as s:
            return get_or_404(s, Challenge, challenge_id, f"there is no challenge {challenge_id}")

    def challenges(self) -> list[Challenge]:
        with self._session() as s:
            return list(s.scalars(select(Challenge).order_by(Challenge.id.desc())))

    def new_entry(self, challenge_id: int, user_id: int, *, combination_id: int | None = None,
                  minds: list[str] | None = None) -> Entry:
        with self._session() as s:
            get_or_404(s, Challenge, challenge_id, f"there is no challenge {challenge_id}")
            if combination_id is not None:
                get_or_404(s, Combination, combination_id, f"there is no combination {combination_id}")
            entry = Entry(challenge_id=challenge_id, user_id=user_id, combination_id=combination_id, minds=minds,
                          status="queued", created_at=now())
            s.add(entry)
        return entry

    def entry(self, entry_id: int) -> Entry:
        with self._session() as s:
            return get_or_404(s, Entry, entry_id, f"there is no entry {entry_id}")

    def entries(self, challenge_id: int) -> list[Entry]:
        with self._session() as s:
            return list(s.scalars(select(Entry).where(Entry.challenge_id == challenge_id).order_by(Entry.id)))

    def unfinished_entries(self) -> list[Entry]:
        """Entries queued or under evaluation (a portal that stopped left them): judged again."""
        with self._session() as s:
            return list(s.scalars(select(Entry).where(Entry.status.in_(("queued", "running"))).order_by(Entry.id)))

    def set_entry(self, entry_id: int, *, status: str, score: float | None = None, error: float | None = None,
                  detail: dict[str, Any] | None = None, finished: bool = False) -> None:
        with self._session() as s:
            entry = get_or_404(s, Entry, entry_id, f"there is no entry {entry_id}")
            entry.status, entry.score, entry.error = status[:40], score, error
            if detail is not None:
                entry.detail = detail
            entry.finished_at = now() if finished else None

    def add_evaluation(self, entry_id: int, *, seed: int | None, status: str, score: float | None,
                       run_store_id: int | None = None, reason: str = "") -> None:
        with self._session() as s:
            s.add(Evaluation(entry_id=entry_id, seed=seed, status=status[:40], score=score, run_store_id=run_store_id,
                             reason=reason, created_at=now()))

    def evaluations(self, entry_id: int) -> list[Evaluation]:
        with self._session() as s:
            return list(s.scalars(select(Evaluation).where(Evaluation.entry_id == entry_id).order_by(Evaluation.id)))

    def clear_evaluations(self, entry_id: int) -> None:
        """An entry judged again starts afresh (its earlier, unfinished evaluation is dropped)."""
        with self._session() as s:
            for e in s.scalars(select(Evaluation).where(Evaluation.entry_id == entry_id)):
                s.delete(e)
