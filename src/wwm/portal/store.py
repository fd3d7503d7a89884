""":class:`PortalStore`: the portal's users, servers, combinations and runs, in SQLite by
default (``portal.db`` beside the run store's ``runs.db``) or PostgreSQL by URL. Opening a
store brings its schema to the newest migration (alembic ``upgrade head``). Each operation is
one transaction: it is stored whole or not at all.

The store owns the engine and the session factory; the work is done by one repository per
aggregate (``wwm.portal.repos``), and each method here delegates to one of them, so callers keep
one object and the same names. Secrets (a recovery link's token here, an end-run URL's secret in
the run service) are returned once and kept only as their SHA-256; passwords only as their
argon2id hash.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Engine, text
from sqlalchemy.engine import URL
from sqlalchemy.exc import SQLAlchemyError
from sqlalchemy.orm import Session

from ..store.engine import StoreError, default_path, make_engine, resolve_url, shown
from .models import (
    Challenge,
    Combination,
    CombinationServer,
    Entry,
    Evaluation,
    PortalRun,
    Search,
    SearchTrial,
    Server,
    Setting,
    SigninFailures,
    User,
    now,
)
from .repos.base import Conflict, NotFound, PortalError, Taken, digest, get_or_404, reason, urls_in
from .repos.challenges import Challenges
from .repos.combinations import Combinations
from .repos.runs import Runs
from .repos.searches import Searches
from .repos.servers import Servers
from .repos.settings import Settings
from .repos.signin_failures import SigninFailureCounts
from .repos.users import MIN_PASSWORD, USERNAME, NewUser, Users, _hasher

__all__ = [
    "ENV_VAR", "MIGRATIONS", "MIGRATION_LOCK_KEY", "MIN_PASSWORD", "USERNAME", "Conflict", "NewUser", "NotFound",
    "PortalError", "PortalStore", "Repositories", "StoreError", "Taken", "default_url", "digest", "get_or_404",
    "migrate", "urls_in",
    # the models and helpers this module has always offered its importers
    "Challenge", "Combination", "CombinationServer", "Entry", "Evaluation", "PortalRun", "Search", "SearchTrial",
    "Server", "Setting", "SigninFailures", "User", "now", "_hasher", "_reason",
]

ENV_VAR = "WWM_PORTAL_DATABASE_URL"
MIGRATIONS = "wwm.portal:migrations"
MIGRATION_LOCK_KEY = 0x77776D5F706F7274  # "wwm_port": one process migrates at a time on PostgreSQL
_reason = reason


def default_url() -> str:
    """``$WWM_PORTAL_DATABASE_URL``, else ``portal.db`` in the run store's folder."""
    return os.environ.get(ENV_VAR) or f"sqlite:///{default_path().parent / 'portal.db'}"


def migrate(engine: Engine) -> None:
    """Bring the database to the newest schema (alembic ``upgrade head``)."""
    from alembic import command
    from alembic.config import Config

    config = Config()
    config.set_main_option("script_location", MIGRATIONS)
    with engine.begin() as conn:
        if conn.dialect.name == "postgresql":
            conn.execute(text("SELECT pg_advisory_xact_lock(:k)"), {"k": MIGRATION_LOCK_KEY})
        config.attributes["connection"] = conn
        command.upgrade(config, "head")


@dataclass(frozen=True)
class Repositories:
    """One repository per aggregate, all over the same session factory."""

    settings: Settings
    signin_failures: SigninFailureCounts
    users: Users
    servers: Servers
    combinations: Combinations
    runs: Runs
    searches: Searches
    challenges: Challenges


class PortalStore:
    """The portal's records in the database at ``url`` (default :func:`default_url`)."""

    def __init__(self, url: str | None = None) -> None:
        self.url: URL = resolve_url(url or default_url())
        self.engine = make_engine(self.url)
        try:
            migrate(self.engine)
        except SQLAlchemyError as exc:
            self.engine.dispose()
            raise StoreError(f"cannot open the portal's database at {shown(self.url)}: {reason(exc)}") from None
        s = self._session
        self.repos = Repositories(settings=Settings(s), signin_failures=SigninFailureCounts(s), users=Users(s),
                                  servers=Servers(s), combinations=Combinations(s), runs=Runs(s),
                                  searches=Searches(s), challenges=Challenges(s))

    def __repr__(self) -> str:
        return f"PortalStore({shown(self.url)!r})"

    def close(self) -> None:
        self.engine.dispose()

    @contextmanager
    def _session(self) -> Iterator[Session]:
        """One transaction: committed whole at the end, rolled back whole on any error."""
        with Session(self.engine, expire_on_commit=False) as session, session.begin():
            yield session

    # -- settings (Settings) ----------------------------------------------------

    def secret_key(self) -> str:
        return self.repos.settings.secret_key()

    def setting(self, key: str) -> str | None:
        return self.repos.settings.setting(key)

    def set_setting(self, key: str, value: str) -> None:
        return self.repos.settings.set_setting(key, value)

    # -- signin failures (SigninFailureCounts) ----------------------------------

    def refusals(self, keys: list[str], at: float) -> dict[str, float]:
        return self.repos.signin_failures.refusals(keys, at)

    def add_signin_failure(self, key: str, at: float, forget: float, refusal: Callable[[int], float]) -> float:
        return self.repos.signin_failures.add_signin_failure(key, at, forget, refusal)

    def clear_signin_failures(self, key: str) -> None:
        return self.repos.signin_failures.clear_signin_failures(key)

    # -- users (Users) ----------------------------------------------------------

    def new_user(self) -> NewUser:
        return self.repos.users.new_user()

    def user(self, user_id: int) -> User:
        return self.repos.users.user(user_id)

    def user_by_recovery(self, token: str) -> User:
        return self.repos.users.user_by_recovery(token)

    def new_recovery(self, user_id: int) -> str:
        return self.repos.users.new_recovery(user_id)

    def sign_up(self, user_id: int, username: str, password: str) -> User:
        return self.repos.users.sign_up(user_id, username, password)

    def sign_in(self, username: str, password: str) -> User:
        return self.repos.users.sign_in(username, password)

    def bot_user(self, username: str) -> int:
        return self.repos.users.bot_user(username)

    # -- servers (Servers) ------------------------------------------------------

    def add_server(self, url: str, card: dict[str, Any], *, added_by: int | None = None,
                   latency_ms: float | None = None) -> Server:
        return self.repos.servers.add_server(url, card, added_by=added_by, latency_ms=latency_ms)

    def server(self, server_id: int) -> Server:
        return self.repos.servers.server(server_id)

    def server_by_url(self, url: str) -> Server | None:
        return self.repos.servers.server_by_url(url)

    def servers(self, *, role: str | None = None, search: str | None = None,
                world: str | None = None) -> list[Server]:
        return self.repos.servers.servers(role=role, search=search, world=world)

    def worlds(self) -> list[Server]:
        return self.repos.servers.worlds()

    def record_check(self, server_id: int, *, up: bool, latency_ms: float | None = None,
                     error: str | None = None, card: dict[str, Any] | None = None) -> None:
        return self.repos.servers.record_check(server_id, up=up, latency_ms=latency_ms, error=error, card=card)

    # -- combinations (Combinations) --------------------------------------------

    def save_combination(self, *, author_id: int, title: str, document: dict[str, Any], world_url: str,
                         explanation: str = "", derived_from: int | None = None) -> Combination:
        return self.repos.combinations.save_combination(author_id=author_id, title=title, document=document,
                                                        world_url=world_url, explanation=explanation,
                                                        derived_from=derived_from)

    def combination(self, combination_id: int) -> Combination:
        return self.repos.combinations.combination(combination_id)

    def combinations_with(self, url: str) -> list[Combination]:
        return self.repos.combinations.combinations_with(url)

    def recent_combinations(self, limit: int = 100) -> list[Combination]:
        return self.repos.combinations.recent_combinations(limit)

    def combinations_of_world(self, world_url: str) -> list[Combination]:
        return self.repos.combinations.combinations_of_world(world_url)

    def combinations_by(self, author_id: int) -> list[Combination]:
        return self.repos.combinations.combinations_by(author_id)

    def derived_from_this(self, combination_id: int) -> list[Combination]:
        return self.repos.combinations.derived_from_this(combination_id)

    # -- runs (Runs) ------------------------------------------------------------

    def new_run(self, combination_id: int, user_id: int, steps_asked: int | None) -> PortalRun:
        return self.repos.runs.new_run(combination_id, user_id, steps_asked)

    def run(self, run_id: int) -> PortalRun:
        return self.repos.runs.run(run_id)

    def set_run(self, run_id: int, *, status: str | None = None, run_store_id: int | None = None,
                ended: bool = False) -> PortalRun:
        return self.repos.runs.set_run(run_id, status=status, run_store_id=run_store_id, ended=ended)

    def link_run(self, run_id: int, run_store_id: int) -> None:
        return self.repos.runs.link_run(run_id, run_store_id)

    def runs_of(self, combination_id: int) -> list[PortalRun]:
        return self.repos.runs.runs_of(combination_id)

    def runs_of_combinations(self, combination_ids: list[int]) -> list[PortalRun]:
        return self.repos.runs.runs_of_combinations(combination_ids)

    def runs_by(self, user_id: int, limit: int = 100) -> list[PortalRun]:
        return self.repos.runs.runs_by(user_id, limit)

    def runs_linked(self, run_store_ids: list[int], limit: int = 20) -> list[PortalRun]:
        return self.repos.runs.runs_linked(run_store_ids, limit)

    def runs_for_store_ids(self, run_store_ids: list[int]) -> dict[int, int]:
        return self.repos.runs.runs_for_store_ids(run_store_ids)

    # -- searches (Searches) ----------------------------------------------------

    def open_search(self, *, study: str, sampler: str, space: dict[str, Any], author_id: int,
                    start_id: int | None = None) -> Search:
        return self.repos.searches.open_search(study=study, sampler=sampler, space=space, author_id=author_id,
                                               start_id=start_id)

    def record_trial(self, search_id: int, number: int, *, state: str, combination_id: int | None,
                     score: float | None, reason: str = "", best_before: int | None = None) -> None:
        return self.repos.searches.record_trial(search_id, number, state=state, combination_id=combination_id,
                                                score=score, reason=reason, best_before=best_before)

    def searches(self) -> list[Search]:
        return self.repos.searches.searches()

    def search(self, search_id: int) -> Search:
        return self.repos.searches.search(search_id)

    def search_trials(self, search_id: int) -> list[SearchTrial]:
        return self.repos.searches.search_trials(search_id)

    def found_by(self, combination_id: int) -> tuple[Search, SearchTrial] | None:
        return self.repos.searches.found_by(combination_id)

    # -- challenges (Challenges) ------------------------------------------------

    def new_challenge(self, *, kind: str, title: str, world_url: str, steps: int, seeds: list[int],
                      settings: dict[str, Any], created_by: int, deadline: Any = None) -> Challenge:
        return self.repos.challenges.new_challenge(kind=kind, title=title, world_url=world_url, steps=steps,
                                                   seeds=seeds, settings=settings, created_by=created_by,
                                                   deadline=deadline)

    def challenge(self, challenge_id: int) -> Challenge:
        return self.repos.challenges.challenge(challenge_id)

    def challenges(self) -> list[Challenge]:
        return self.repos.challenges.challenges()

    def new_entry(self, challenge_id: int, user_id: int, *, combination_id: int | None = None,
                  minds: list[str] | None = None) -> Entry:
        return self.repos.challenges.new_entry(challenge_id, user_id, combination_id=combination_id, minds=minds)

    def entry(self, entry_id: int) -> Entry:
        return self.repos.challenges.entry(entry_id)

    def entries(self, challenge_id: int) -> list[Entry]:
        return self.repos.challenges.entries(challenge_id)

    def unfinished_entries(self) -> list[Entry]:
        return self.repos.challenges.unfinished_entries()

    def set_entry(self, entry_id: int, *, status: str, score: float | None = None, error: float | None = None,
                  detail: dict[str, Any] | None = None, finished: bool = False) -> None:
        return self.repos.challenges.set_entry(entry_id, status=status, score=score, error=error, detail=detail,
                                               finished=finished)

    def add_evaluation(self, entry_id: int, *, seed: int | None, status: str, score: float | None,
                       run_store_id: int | None = None, reason: str = "") -> None:
        return self.repos.challenges.add_evaluation(entry_id, seed=seed, status=status, score=score,
                                                    run_store_id=run_store_id, reason=reason)

    def evaluations(self, entry_id: int) -> list[Evaluation]:
        return self.repos.challenges.evaluations(entry_id)

    def clear_evaluations(self, entry_id: int) -> None:
        return self.repos.challenges.clear_evaluations(entry_id)
