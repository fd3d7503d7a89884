"""The portal's tables, as SQLAlchemy models. The schema itself is made by the alembic
migrations in ``migrations/versions`` (the first of them is this file, written out); a test
checks that the two agree.

Times are UTC (``UTCDateTime`` gives them back aware on every backend). A combination never
changes once saved: an UPDATE of one raises (editing saves a new one, ``derived_from`` the old).
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from sqlalchemy import (
    JSON,
    Boolean,
    DateTime,
    Dialect,
    Float,
    ForeignKey,
    Integer,
    String,
    Text,
    TypeDecorator,
    event,
)
from sqlalchemy.orm import DeclarativeBase, Mapped, Mapper, mapped_column


class UTCDateTime(TypeDecorator[datetime]):
    """A timezone-aware UTC time on every backend (SQLite gives back naive ones)."""

    impl = DateTime(timezone=True)
    cache_ok = True

    def process_result_value(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        if value is not None and value.tzinfo is None:
            value = value.replace(tzinfo=UTC)
        return value


def now() -> datetime:
    return datetime.now(UTC)


class Base(DeclarativeBase):
    pass


class Setting(Base):
    """The portal's own settings: its secret key (signs cookies and CSRF tokens)."""

    __tablename__ = "portal_settings"
    key: Mapped[str] = mapped_column(String(40), primary_key=True)
    value: Mapped[str] = mapped_column(Text)


class User(Base):
    """A visitor: anonymous (known by the cookie and a recovery link) or with an account."""

    __tablename__ = "portal_users"
    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    recovery_hash: Mapped[str] = mapped_column(String(64), unique=True)   # sha256 of the link's token
    username: Mapped[str | None] = mapped_column(String(40), unique=True)
    password_hash: Mapped[str | None] = mapped_column(Text)               # argon2id, never the password
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=now)


class SigninFailures(Base):
    """The failed sign-ins of one username or one client address (migration 0004), shared by
    every process of the portal: how many since the count last started, the last one, and
    until when further sign-ins are refused. Keyed by a SHA-256 (``"name:alice"``,
    ``"address:203.0.113.9"``): what visitors typed as a username is not kept. Times are
    Unix seconds (compared and computed in SQL alike on every backend)."""

    __tablename__ = "portal_signin_failures"
    key: Mapped[str] = mapped_column(String(64), primary_key=True)
    failures: Mapped[int] = mapped_column(Integer)
    last_failure: Mapped[float] = mapped_column(Float, index=True)
    refused_until: Mapped[float] = mapped_column(Float)


class Server(Base):
    """A registered server and what its card said, and how it answered when last checked."""

    __tablename__ = "portal_servers"
    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    url: Mapped[str] = mapped_column(String(2000), unique=True)
    role: Mapped[str] = mapped_column(String(20), index=True)
    name: Mapped[str] = mapped_column(String(200))
    summary: Mapped[str] = mapped_column(Text, default="")
    card: Mapped[dict[str, Any]] = mapped_column(JSON)
    added_at: Mapped[datetime] = mapped_column(UTCDateTime, default=now)
    added_by: Mapped[int | None] = mapped_column(ForeignKey("portal_users.id"))
    last_checked: Mapped[datetime | None] = mapped_column(UTCDateTime)
    up: Mapped[bool | None] = mapped_column(Boolean)
    latency_ms: Mapped[float | None] = mapped_column(Float)
    last_error: Mapped[str | None] = mapped_column(Text)


class Combination(Base):
    """A saved society (a World and its Mind, arguments at every level): never changed."""

    __tablename__ = "portal_combinations"
    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    author_id: Mapped[int] = mapped_column(ForeignKey("portal_users.id"), index=True)
    title: Mapped[str] = mapped_column(String(200))
    explanation: Mapped[str] = mapped_column(Text, default="")           # Markdown, sanitised when shown
    document: Mapped[dict[str, Any]] = mapped_column(JSON)                # the society document
    world_url: Mapped[str] = mapped_column(String(2000), index=True)
    derived_from: Mapped[int | None] = mapped_column(ForeignKey("portal_combinations.id"))
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=now)


class CombinationServer(Base):
    """Each server URL a combination's document names (filled when it is saved)."""

    __tablename__ = "portal_combination_servers"
    combination_id: Mapped[int] = mapped_column(ForeignKey("portal_combinations.id"), primary_key=True)
    url: Mapped[str] = mapped_column(String(2000), primary_key=True, index=True)


class PortalRun(Base):
    """A run started from the portal; its steps are in the run store (``run_store_id``, in
    the same database), its end secret in :class:`RunSecret`."""

    __tablename__ = "portal_runs"
    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    combination_id: Mapped[int] = mapped_column(ForeignKey("portal_combinations.id"), index=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("portal_users.id"), index=True)
    status: Mapped[str] = mapped_column(String(40))
    steps_asked: Mapped[int | None] = mapped_column(Integer)             # None: until ended
    run_store_id: Mapped[int | None] = mapped_column(Integer, index=True)   # wwm_runs.id
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=now)
    ended_at: Mapped[datetime | None] = mapped_column(UTCDateTime)


class RunSecret(Base):
    """The end secret of a portal run (migration 0002): only its SHA-256, who started the run,
    and when the end was asked for (a secret ends a run once). Read and written by
    :class:`wwm.portal.runs.RunService`; keyed by the run store's run ID."""

    __tablename__ = "portal_run_secrets"
    run_id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=False)   # wwm_runs.id
    secret_sha256: Mapped[str] = mapped_column(String(64))
    owner: Mapped[str] = mapped_column(String(200))
    created_at: Mapped[datetime] = mapped_column(UTCDateTime)
    end_requested_at: Mapped[datetime | None] = mapped_column(UTCDateTime)


class Search(Base):
    """An automated search (``wwm search --portal-db``, migration 0003): one per Optuna study,
    shared by every worker of it; ``start_id`` is the combination it started from, if any."""

    __tablename__ = "portal_searches"
    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    study: Mapped[str] = mapped_column(String(200), unique=True)
    sampler: Mapped[str] = mapped_column(String(20))
    space: Mapped[dict[str, Any]] = mapped_column(JSON)
    start_id: Mapped[int | None] = mapped_column(ForeignKey("portal_combinations.id"))
    author_id: Mapped[int] = mapped_column(ForeignKey("portal_users.id"))
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=now)


class SearchTrial(Base):
    """One candidate a search evaluated: its combination (saved like anyone's), how it ended,
    and the best combination of the search before it (what the sampler had to build on)."""

    __tablename__ = "portal_search_trials"
    search_id: Mapped[int] = mapped_column(ForeignKey("portal_searches.id"), primary_key=True)
    number: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=False)
    combination_id: Mapped[int | None] = mapped_column(ForeignKey("portal_combinations.id"), index=True)
    state: Mapped[str] = mapped_column(String(20))
    score: Mapped[float | None] = mapped_column(Float)
    reason: Mapped[str] = mapped_column(Text, default="")
    best_before: Mapped[int | None] = mapped_column(ForeignKey("portal_combinations.id"))
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=now)


class Challenge(Base):
    """A competition on a World (``kind`` "society": entries are combinations) or the Λ* test
    as a service (``kind`` "lambdastar": entries are lists of mind URLs). The portal runs
    every entry itself, with these steps and seeds; ``deadline`` closes it to new entries."""

    __tablename__ = "portal_challenges"
    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    kind: Mapped[str] = mapped_column(String(20))
    title: Mapped[str] = mapped_column(String(200))
    world_url: Mapped[str] = mapped_column(String(2000), index=True)
    steps: Mapped[int] = mapped_column(Integer)
    seeds: Mapped[list[int]] = mapped_column(JSON)
    settings: Mapped[dict[str, Any]] = mapped_column(JSON)
    deadline: Mapped[datetime | None] = mapped_column(UTCDateTime)
    created_by: Mapped[int] = mapped_column(ForeignKey("portal_users.id"))
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=now)


class Entry(Base):
    """An entry in a challenge and what the portal's own runs of it came to."""

    __tablename__ = "portal_entries"
    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    challenge_id: Mapped[int] = mapped_column(ForeignKey("portal_challenges.id"), index=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("portal_users.id"))
    combination_id: Mapped[int | None] = mapped_column(ForeignKey("portal_combinations.id"))
    minds: Mapped[list[str] | None] = mapped_column(JSON)
    status: Mapped[str] = mapped_column(String(40))          # queued, running, scored, failed
    score: Mapped[float | None] = mapped_column(Float)
    error: Mapped[float | None] = mapped_column(Float)        # the score's standard error
    detail: Mapped[dict[str, Any] | None] = mapped_column(JSON)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=now)
    finished_at: Mapped[datetime | None] = mapped_column(UTCDateTime)


class Evaluation(Base):
    """One run the portal made of an entry (one seed): the record a ranking rests on."""

    __tablename__ = "portal_evaluations"
    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    entry_id: Mapped[int] = mapped_column(ForeignKey("portal_entries.id"), index=True)
    seed: Mapped[int | None] = mapped_column(Integer)
    status: Mapped[str] = mapped_column(String(40))
    score: Mapped[float | None] = mapped_column(Float)
    run_store_id: Mapped[int | None] = mapped_column(Integer)
    reason: Mapped[str] = mapped_column(Text, default="")
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=now)


class ImmutableError(Exception):
    """A saved combination was about to be changed."""


@event.listens_for(Combination, "before_update")
def _never_update(_mapper: Mapper[Combination], _connection: object, target: Combination) -> None:
    raise ImmutableError(f"combination {target.id} is saved and never changes; save a new one "
                         "derived from it instead")
