"""End secrets of portal runs (issue 26, item 8): a run is ended by the person holding the
secret its start gave, checked here against the database, from any process on it.

**End secrets** live in the database (table ``portal_run_secrets``, made by the portal's
migrations, which :class:`~wwm.portal.runs.RunService` applies to the run store's database:
the portal keeps its own tables and the run records in one database): only their SHA-256 is
kept (a 256-bit random token needs no slow hash), and the comparison is constant-time. The
table also holds when the end was asked for, so a secret ends a run once and a reused one is
refused saying when it was used. Because the request is in the database, any process on it
can end any portal run: the process executing the run notices within ``poll`` seconds and
stops it (a portal with several workers).
"""

from __future__ import annotations

import asyncio
import hashlib
import hmac
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, Literal

from sqlalchemy import Connection, Table, insert, select, update

from ..store import RunStore, UnknownRun
from .models import RunSecret
from .runhost import RunHost, Running
from .runrecorder import ENDED_BY_OWNER

run_secrets: Table = RunSecret.__table__  # type: ignore[assignment]

_DUMMY = hashlib.sha256(b"no such run").hexdigest()


@dataclass(frozen=True)
class StartedRun:
    """A run just started: its run-store ID and the secret that ends it (shown once)."""

    run_id: int
    end_secret: str


@dataclass(frozen=True)
class EndedRun:
    run_id: int
    status: str
    steps: int


EndCode = Literal["unknown-run", "not-a-portal-run", "wrong-secret", "already-ended", "already-finished",
                  "still-running"]


class EndRefused(Exception):
    """``end`` did not end the run; ``code`` says which case, ``reason`` says it to a person."""

    def __init__(self, code: EndCode, reason: str) -> None:
        super().__init__(reason)
        self.code: EndCode = code
        self.reason = reason


def hash_secret(secret: str) -> str:
    return hashlib.sha256(secret.encode("utf-8", "surrogatepass")).hexdigest()


def record_secret(conn: Connection, run_id: int, secret: str, owner: str) -> None:
    """Keep the SHA-256 of ``run_id``'s end secret, and who started the run."""
    conn.execute(insert(run_secrets).values(run_id=run_id, secret_sha256=hash_secret(secret), owner=owner,
                                            created_at=datetime.now(UTC)))


def secret_row(store: RunStore, run_id: int) -> Any:
    """``run_id``'s row of ``portal_run_secrets`` (a mapping), or None: not a portal run."""
    if not isinstance(run_id, int):
        return None
    with store.reading() as conn:
        return conn.execute(select(run_secrets).where(run_secrets.c.run_id == run_id)).mappings().first()


def secret_matches(stored: Any, secret: str) -> bool:
    """Whether ``secret`` is the one whose hash ``stored`` (a secret row, or None) keeps,
    compared in constant time (a run without one is compared against a dummy)."""
    expected = stored["secret_sha256"] if stored is not None else _DUMMY
    given = hash_secret(secret) if isinstance(secret, str) else ""
    return hmac.compare_digest(given, expected) and stored is not None


def end_requests(store: RunStore, run_ids: list[int]) -> list[int]:
    """Which of ``run_ids`` their owners asked to end (from any process on the database)."""
    with store.reading() as conn:
        return list(conn.execute(select(run_secrets.c.run_id).where(run_secrets.c.run_id.in_(run_ids))
                                 .where(run_secrets.c.end_requested_at.is_not(None))).scalars())


def portal_run_ids(store: RunStore, run_ids: list[int]) -> set[int]:
    """Which of ``run_ids`` are portal runs (have an end secret)."""
    if not run_ids:
        return set()
    with store.reading() as conn:
        return set(conn.execute(select(run_secrets.c.run_id).where(run_secrets.c.run_id.in_(run_ids))).scalars())


def runs_of(store: RunStore, owner: str) -> list[int]:
    """The IDs of the runs ``owner`` started, newest first."""
    with store.reading() as conn:
        return list(conn.execute(select(run_secrets.c.run_id).where(run_secrets.c.owner == owner)
                                 .order_by(run_secrets.c.run_id.desc())).scalars())


def ask_end(store: RunStore, run_id: int) -> bool:
    """Record that ``run_id``'s owner asks to end it; False if that was asked already."""
    with store.writing() as conn:
        return bool(conn.execute(update(run_secrets).where(run_secrets.c.run_id == run_id)
                                 .where(run_secrets.c.end_requested_at.is_(None))
                                 .values(end_requested_at=datetime.now(UTC))).rowcount)


async def end(service: RunHost, run_id: int, secret: str) -> EndedRun:
    """:meth:`RunService.end <wwm.portal.runs.RunService.end>`: end ``run_id`` for its owner,
    here or (through the database) in the process executing it."""
    row = await asyncio.to_thread(service._secret_row, run_id)
    if row is None:
        try:
            await asyncio.to_thread(service.store.get_run, run_id, max_steps=0)
        except UnknownRun:
            raise EndRefused("unknown-run", f"there is no run {run_id}") from None
        raise EndRefused("not-a-portal-run", f"run {run_id} was not started from the portal; "
                                             "it has no end secret") from None
    if not service.check_end_secret(run_id, secret):
        raise EndRefused("wrong-secret", f"that is not the secret that ends run {run_id}; only the "
                                         "person who started it has it (the link given at its start)")
    if row["end_requested_at"] is not None:
        raise EndRefused("already-ended", f"run {run_id} was already ended by its owner "
                                          f"({_when(row['end_requested_at'])}); a secret ends a run once")
    local = service._runs.get(run_id)
    if local is None:
        await asyncio.to_thread(service.recover)  # a dead writer's run: resumed here, or interrupted
        service._resume_claimed()
        local = service._runs.get(run_id)
    if local is None:
        summary = await asyncio.to_thread(service.store.get_run, run_id, max_steps=0)
        if summary.status != "running":
            raise EndRefused("already-finished", f"run {run_id} has already finished ({summary.status}) "
                                                 f"after {summary.step_count} steps; there is nothing to end")
    if not await asyncio.to_thread(ask_end, service.store, run_id):   # a database write: off the loop
        raise EndRefused("already-ended", f"run {run_id} was already ended by its owner; a secret ends a run once")
    if local is not None:
        await _stop(local)
    else:  # executing in another process: it sees the request within its poll
        await _wait_elsewhere(service, run_id)
    summary = await asyncio.to_thread(service.store.get_run, run_id, max_steps=0)
    return EndedRun(run_id, summary.status, summary.step_count)


async def _stop(running: Running) -> None:
    running.recorder.by_owner = True
    running.task.cancel()
    await asyncio.wait([running.task])


async def _wait_elsewhere(service: RunHost, run_id: int) -> None:
    deadline = asyncio.get_running_loop().time() + service.end_wait
    while asyncio.get_running_loop().time() < deadline:
        summary = await asyncio.to_thread(service.store.get_run, run_id, max_steps=0)
        if summary.status == "interrupted":  # its process died meanwhile: ended all the same
            await asyncio.to_thread(service._mark, run_id, ENDED_BY_OWNER, "ended-by-owner",
                                    "the run was ended by its owner after its process had stopped")
            return
        if summary.status != "running":
            return
        await asyncio.sleep(min(service.poll, 0.2))
    raise EndRefused("still-running", f"run {run_id} is asked to end, but the process running it has not "
                                      f"stopped it within {service.end_wait:g} s; it will when it next looks")


def _when(value: datetime) -> str:
    value = value.replace(tzinfo=UTC) if value.tzinfo is None else value
    return value.astimezone(UTC).strftime("%Y-%m-%d %H:%M:%S UTC")
