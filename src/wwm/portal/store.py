""":class:`PortalStore`: the portal's users, servers, combinations and runs, in SQLite by
default (``portal.db`` beside the run store's ``runs.db``) or PostgreSQL by URL. Opening a
store brings its schema to the newest migration (alembic ``upgrade head``). Each operation is
one transaction: it is stored whole or not at all.

Secrets (a recovery link's token here, an end-run URL's secret in the run service) are
returned once and kept only as their SHA-256; passwords only as their argon2id hash.
"""

from __future__ import annotations

import hashlib
import os
import re
import secrets
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import argon2
from sqlalchemy import Engine, Select, case, delete, func, or_, select, text, update
from sqlalchemy.engine import URL
from sqlalchemy.exc import IntegrityError, SQLAlchemyError
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

ENV_VAR = "WWM_PORTAL_DATABASE_URL"
MIGRATIONS = "wwm.portal:migrations"
MIGRATION_LOCK_KEY = 0x77776D5F706F7274  # "wwm_port": one process migrates at a time on PostgreSQL
USERNAME = re.compile(r"[A-Za-z0-9_.-]{3,40}")
MIN_PASSWORD = 8
_hasher = argon2.PasswordHasher()


class PortalError(Exception):
    """What the portal cannot do, in one sentence a visitor can read."""


class NotFound(PortalError, LookupError):
    pass


class Conflict(PortalError):
    pass


class Taken(Conflict):
    """A username someone has already (sign-up): it tells that the name exists."""


def default_url() -> str:
    """``$WWM_PORTAL_DATABASE_URL``, else ``portal.db`` in the run store's folder."""
    return os.environ.get(ENV_VAR) or f"sqlite:///{default_path().parent / 'portal.db'}"


def digest(secret: str) -> str:
    return hashlib.sha256(secret.encode()).hexdigest()


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


def urls_in(document: Any) -> set[str]:
    """Every http(s) URL a society document names, at any depth."""
    found: set[str] = set()
    if isinstance(document, str):
        if document.startswith(("http://", "https://")):
            found.add(document)
    elif isinstance(document, dict):
        for value in document.values():
            found |= urls_in(value)
    elif isinstance(document, list):
        for value in document:
            found |= urls_in(value)
    return found


@dataclass(frozen=True)
class NewUser:
    user: User
    recovery_token: str        # shown once, as the recovery link; only its hash is kept


class PortalStore:
    """The portal's records in the database at ``url`` (default :func:`default_url`)."""

    def __init__(self, url: str | None = None) -> None:
        self.url: URL = resolve_url(url or default_url())
        self.engine = make_engine(self.url)
        try:
            migrate(self.engine)
        except SQLAlchemyError as exc:
            self.engine.dispose()
            reason = str(getattr(exc, "orig", None) or exc).strip().splitlines()[0]
            raise StoreError(f"cannot open the portal's database at {shown(self.url)}: {reason}") from None

    def __repr__(self) -> str:
        return f"PortalStore({shown(self.url)!r})"

    def close(self) -> None:
        self.engine.dispose()

    @contextmanager
    def _session(self) -> Iterator[Session]:
        """One transaction: committed whole at the end, rolled back whole on any error."""
        with Session(self.engine, expire_on_commit=False) as session, session.begin():
            yield session

    # -- settings -------------------------------------------------------------------------

    def secret_key(self) -> str:
        """The portal's secret (signs cookies and CSRF tokens), made on first use and kept, so
        cookies stay valid across restarts."""
        found = self.setting("secret_key")
        if found is not None:
            return found
        try:
            with self._session() as s:
                s.add(Setting(key="secret_key", value=secrets.token_urlsafe(32)))
        except IntegrityError:
            pass  # another process made it first
        made = self.setting("secret_key")
        assert made is not None
        return made

    def setting(self, key: str) -> str | None:
        """A value the portal keeps for itself under ``key`` (None: never set)."""
        with self._session() as s:
            found = s.get(Setting, key)
            return None if found is None else found.value

    def set_setting(self, key: str, value: str) -> None:
        with self._session() as s:
            s.merge(Setting(key=key, value=value))

    # -- users ----------------------------------------------------------------------------

    def new_user(self) -> NewUser:
        """An anonymous user, and the token of its recovery link."""
        token = secrets.token_urlsafe(24)
        with self._session() as s:
            user = User(recovery_hash=digest(token), created_at=now())
            s.add(user)
        return NewUser(user, token)

    def user(self, user_id: int) -> User:
        with self._session() as s:
            user = s.get(User, user_id)
        if user is None:
            raise NotFound(f"there is no user {user_id}")
        return user

    def user_by_recovery(self, token: str) -> User:
        with self._session() as s:
            user = s.scalar(select(User).where(User.recovery_hash == digest(token)))
        if user is None:
            raise NotFound("that recovery link is not valid (it may have been replaced by a newer one)")
        return user

    def new_recovery(self, user_id: int) -> str:
        """A new recovery token for the user; the old link stops working."""
        token = secrets.token_urlsafe(24)
        with self._session() as s:
            user = s.get(User, user_id)
            if user is None:
                raise NotFound(f"there is no user {user_id}")
            user.recovery_hash = digest(token)
        return token

    def sign_up(self, user_id: int, username: str, password: str) -> User:
        """Give the (anonymous) user an account: a username and a password, kept as its
        argon2id hash."""
        if not USERNAME.fullmatch(username):
            raise PortalError("a username is 3 to 40 letters, digits, dots, dashes or underscores")
        if len(password) < MIN_PASSWORD:
            raise PortalError(f"a password has at least {MIN_PASSWORD} characters")
        hashed = _hasher.hash(password)
        try:
            with self._session() as s:
                user = s.get(User, user_id)
                if user is None:
                    raise NotFound(f"there is no user {user_id}")
                if user.username is not None:
                    raise Conflict(f"you already have an account, {user.username}")
                user.username, user.password_hash = username, hashed
        except IntegrityError:
            raise Taken(f"the username {username!r} is taken; choose another") from None
        return user

    def sign_in(self, username: str, password: str) -> User:
        """The user with that username and password (one message for both kinds of mistake)."""
        with self._session() as s:
            user = s.scalar(select(User).where(User.username == username))
        wrong = PortalError("no account has that username and password")
        if user is None or user.password_hash is None:
            _hasher.hash(password)   # the same work either way: the time does not tell which
            raise wrong
        try:
            _hasher.verify(user.password_hash, password)
        except argon2.exceptions.VerificationError:
            raise wrong from None
        except argon2.exceptions.InvalidHashError:
            raise wrong from None
        return user

    # -- failed sign-ins (the policy is signins.py's) ----------------------------------------

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

    # -- servers --------------------------------------------------------------------------

    def add_server(self, url: str, card: dict[str, Any], *, added_by: int | None = None,
                   latency_ms: float | None = None) -> Server:
        """Register the server at ``url`` with the card it published (role and name from it)."""
        at = now()
        server = Server(url=url, role=str(card.get("role", "")), name=str(card.get("name") or url)[:200],
                        summary=str(card.get("summary") or ""), card=card, added_at=at, added_by=added_by,
                        last_checked=at, up=True, latency_ms=latency_ms, last_error=None)
        try:
            with self._session() as s:
                s.add(server)
        except IntegrityError:
            raise Conflict(f"{url} is registered already") from None
        return server

    def server(self, server_id: int) -> Server:
        with self._session() as s:
            server = s.get(Server, server_id)
        if server is None:
            raise NotFound(f"there is no server {server_id} on this portal")
        return server

    def server_by_url(self, url: str) -> Server | None:
        with self._session() as s:
            return s.scalar(select(Server).where(Server.url == url))

    def servers(self, *, role: str | None = None, search: str | None = None,
                world: str | None = None) -> list[Server]:
        """The servers, by name: of one role, matching a search (name, URL, summary, any
        case), and with ``world`` a World's URL, that World and every server that took part in a
        combination with it."""
        query: Select[Server] = select(Server).order_by(func.lower(Server.name), Server.id)
        if role:
            query = query.where(Server.role == role)
        if search:
            pattern = "%" + search.lower().replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"
            query = query.where(or_(*(func.lower(column).like(pattern, escape="\\")
                                      for column in (Server.name, Server.url, Server.summary))))
        if world:
            partners = (select(CombinationServer.url).join(Combination)
                        .where(Combination.world_url == world))
            query = query.where(or_(Server.url == world, Server.url.in_(partners)))
        with self._session() as s:
            return list(s.scalars(query))

    def worlds(self) -> list[Server]:
        return self.servers(role="world")

    def record_check(self, server_id: int, *, up: bool, latency_ms: float | None = None,
                     error: str | None = None, card: dict[str, Any] | None = None) -> None:
        """What a check of the server found; a new card (if it answered) replaces the old."""
        with self._session() as s:
            server = s.get(Server, server_id)
            if server is None:
                raise NotFound(f"there is no server {server_id} on this portal")
            server.last_checked, server.up, server.latency_ms = now(), up, latency_ms
            server.last_error = error
            if card is not None:
                server.card = card
                server.name = str(card.get("name") or server.url)[:200]
                server.summary = str(card.get("summary") or "")

    # -- combinations ---------------------------------------------------------------------

    def save_combination(self, *, author_id: int, title: str, document: dict[str, Any], world_url: str,
                         explanation: str = "", derived_from: int | None = None) -> Combination:
        """Save a combination (never changed afterwards), with the servers its document names."""
        if not title.strip():
            raise PortalError("a combination needs a title")
        try:
            with self._session() as s:
                if derived_from is not None and s.get(Combination, derived_from) is None:
                    raise NotFound(f"there is no combination {derived_from} to derive from")
                combination = Combination(author_id=author_id, title=title.strip()[:200],
                                          explanation=explanation, document=document, world_url=world_url,
                                          derived_from=derived_from, created_at=now())
                s.add(combination)
                s.flush()
                for url in sorted(urls_in(document) | {world_url}):
                    s.add(CombinationServer(combination_id=combination.id, url=url))
        except IntegrityError as exc:
            raise PortalError(f"the combination could not be saved: {_reason(exc)}") from None
        return combination

    def combination(self, combination_id: int) -> Combination:
        with self._session() as s:
            combination = s.get(Combination, combination_id)
        if combination is None:
            raise NotFound(f"there is no combination {combination_id}")
        return combination

    def combinations_with(self, url: str) -> list[Combination]:
        """The combinations whose document names ``url`` (newest first)."""
        query = (select(Combination).join(CombinationServer).where(CombinationServer.url == url)
                 .order_by(Combination.created_at.desc(), Combination.id.desc()))
        with self._session() as s:
            return list(s.scalars(query))

    # -- combinations: listings (compose, link, Top 10; see combinations.py) ----------------

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

    def live_runs(self, limit: int = 20) -> list[PortalRun]:
        """The runs going on now (starting or running), newest first."""
        query = (select(PortalRun).where(PortalRun.status.in_(("starting", "running")))
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

    # -- runs -----------------------------------------------------------------------------

    def new_run(self, combination_id: int, user_id: int, steps_asked: int | None) -> PortalRun:
        """A run of the combination, "starting" (its end secret is the run service's:
        :class:`wwm.portal.runs.RunService`, table ``portal_run_secrets``)."""
        try:
            with self._session() as s:
                if s.get(Combination, combination_id) is None:
                    raise NotFound(f"there is no combination {combination_id}")
                run = PortalRun(combination_id=combination_id, user_id=user_id, status="starting",
                                steps_asked=steps_asked, created_at=now())
                s.add(run)
        except IntegrityError as exc:
            raise PortalError(f"the run could not be saved: {_reason(exc)}") from None
        return run

    def run(self, run_id: int) -> PortalRun:
        with self._session() as s:
            run = s.get(PortalRun, run_id)
        if run is None:
            raise NotFound(f"there is no run {run_id}")
        return run

    def set_run(self, run_id: int, *, status: str | None = None, run_store_id: int | None = None,
                ended: bool = False) -> PortalRun:
        with self._session() as s:
            run = s.get(PortalRun, run_id)
            if run is None:
                raise NotFound(f"there is no run {run_id}")
            if status is not None:
                run.status = status
            if run_store_id is not None:
                run.run_store_id = run_store_id
            if ended:
                run.ended_at = now()
        return run

    def link_run(self, run_id: int, run_store_id: int) -> None:
        """The run has started as the run store's ``run_store_id``: "running", unless its end
        (which may come first, from the run's own task) was recorded already."""
        with self._session() as s:
            run = s.get(PortalRun, run_id)
            if run is None:
                raise NotFound(f"there is no run {run_id}")
            run.run_store_id = run_store_id
            if run.status == "starting":
                run.status = "running"

    def sync_runs(self) -> int:
        """Give every unfinished portal run the status its run-store run has (a portal that
        died mid-run: its runs are "interrupted at step k" once the run service recovered
        them); the number of runs changed."""
        from ..store import schema

        changed = 0
        with self._session() as s:
            rows = s.execute(select(PortalRun, schema.runs.c.status, schema.runs.c.finished_at)
                             .join(schema.runs, schema.runs.c.id == PortalRun.run_store_id)
                             .where(PortalRun.status.in_(("starting", "running")))
                             .where(schema.runs.c.status != "running")
                             .where(schema.runs.c.status.not_like("suspended %"))).all()
            for run, status, finished_at in rows:
                run.status = str(status)[:40]
                run.ended_at = finished_at or now()
                changed += 1
        return changed

    def runs_of(self, combination_id: int) -> list[PortalRun]:
        query = (select(PortalRun).where(PortalRun.combination_id == combination_id)
                 .order_by(PortalRun.id.desc()))
        with self._session() as s:
            return list(s.scalars(query))

    # -- searches (wwm search --portal-db) -------------------------------------------------

    def bot_user(self, username: str) -> int:
        """The ID of the account ``username`` made for a program (no password: it cannot sign
        in), made on first use; an account a person holds under that name is refused."""
        for _ in range(2):
            with self._session() as s:
                user = s.scalar(select(User).where(User.username == username))
                if user is not None:
                    if user.password_hash is not None:
                        raise Conflict(f"the username {username!r} belongs to a person's account")
                    return user.id
            try:
                with self._session() as s:
                    s.add(User(recovery_hash=digest(secrets.token_urlsafe(24)), username=username, created_at=now()))
            except IntegrityError:
                continue  # another worker made it first
        raise PortalError(f"could not make the account {username!r}")

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
                    if start_id is not None and s.get(Combination, start_id) is None:
                        raise NotFound(f"there is no combination {start_id} to start from")
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
            found = s.get(Search, search_id)
        if found is None:
            raise NotFound(f"there is no search {search_id}")
        return found

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

    # -- challenges: competitions and the Λ* test as a service --------------------------------

    def new_challenge(self, *, kind: str, title: str, world_url: str, steps: int, seeds: list[int],
                      settings: dict[str, Any], created_by: int, deadline: Any = None) -> Challenge:
        with self._session() as s:
            challenge = Challenge(kind=kind, title=title.strip()[:200], world_url=world_url, steps=steps, seeds=seeds,
                                  settings=settings, deadline=deadline, created_by=created_by, created_at=now())
            s.add(challenge)
        return challenge

    def challenge(self, challenge_id: int) -> Challenge:
        with self._session() as s:
            challenge = s.get(Challenge, challenge_id)
        if challenge is None:
            raise NotFound(f"there is no challenge {challenge_id}")
        return challenge

    def challenges(self) -> list[Challenge]:
        with self._session() as s:
            return list(s.scalars(select(Challenge).order_by(Challenge.id.desc())))

    def new_entry(self, challenge_id: int, user_id: int, *, combination_id: int | None = None,
                  minds: list[str] | None = None) -> Entry:
        with self._session() as s:
            if s.get(Challenge, challenge_id) is None:
                raise NotFound(f"there is no challenge {challenge_id}")
            if combination_id is not None and s.get(Combination, combination_id) is None:
                raise NotFound(f"there is no combination {combination_id}")
            entry = Entry(challenge_id=challenge_id, user_id=user_id, combination_id=combination_id, minds=minds,
                          status="queued", created_at=now())
            s.add(entry)
        return entry

    def entry(self, entry_id: int) -> Entry:
        with self._session() as s:
            entry = s.get(Entry, entry_id)
        if entry is None:
            raise NotFound(f"there is no entry {entry_id}")
        return entry

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
            entry = s.get(Entry, entry_id)
            if entry is None:
                raise NotFound(f"there is no entry {entry_id}")
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


def _reason(exc: BaseException) -> str:
    return str(getattr(exc, "orig", None) or exc).strip().splitlines()[0]
