"""Runs' states read many at a time, and the runs a client left unfinished (issue 26, item 8).

The run store is the one place a run's status lives: a client that shows runs (the portal's
pages and lists) reads their states here, in one query for any number of runs, and a client
that takes over runs left behind (the portal's recovery) finds and finishes them through
:class:`~wwm.store.RunStore`'s methods built on these functions, never by querying the tables.
A status is read as the store reads it anywhere: a "running" run whose writer died (its
process gone from this host, or its heartbeat older than :data:`STALE_AFTER`) reads as
"interrupted".
"""

from __future__ import annotations

import os
import socket
from collections.abc import Callable, Collection
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from sqlalchemy import Connection, func, insert, select, update

from . import schema
from .writer import HEARTBEAT_SECONDS

HOST = socket.gethostname()
STALE_AFTER = timedelta(seconds=6 * HEARTBEAT_SECONDS)  # no heartbeat this long: interrupted


@dataclass(frozen=True, slots=True)
class RunState:
    """What a list or a page shows of a run: its status (live: see the module), its steps
    (recorded so far, for an unfinished run), total score, the World's and the Mind's final
    scores, and when it finished (None: not finished)."""

    id: int
    status: str
    steps: int
    total_score: float | None
    world_score: float | None
    mind_score: float | None
    finished_at: datetime | None


@dataclass(frozen=True, slots=True)
class Unfinished:
    """A run left unfinished: "running" (as recorded, its writer perhaps dead) or under a
    status a client gave it to carry it on later ("suspended at step k"); who wrote it, its
    society document and what the client kept to resume it (None: nothing)."""

    id: int
    status: str
    host: str
    pid: int
    society: dict[str, Any]
    resume: dict[str, Any] | None


def pid_alive(pid: int) -> bool:
    """Whether process ``pid`` of this host exists and is not a zombie."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            return f.read().rsplit(b")", 1)[1].split()[0] != b"Z"
    except (OSError, IndexError):
        return True


def utc(value: datetime | None) -> datetime | None:
    if value is None:
        return None
    return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)


def live_status(run_id: int, status: str, heartbeat_at: datetime | None, host: str, pid: int,
                here: Collection[int] = ()) -> str:
    """``status`` as readers see it: a "running" run not written ``here`` (by this store)
    whose writer is gone reads "interrupted"."""
    if status != "running" or run_id in here:
        return status
    beat = utc(heartbeat_at)
    if beat is None or datetime.now(UTC) - beat > STALE_AFTER:
        return "interrupted"
    if host == HOST and not pid_alive(pid):
        return "interrupted"
    return "running"


def read_states(conn: Connection, run_ids: Collection[int], here: Collection[int] = ()) -> dict[int, RunState]:
    """The state of each of ``run_ids`` that is in the store (unknown IDs are left out)."""
    ids = sorted({int(i) for i in run_ids})
    if not ids:
        return {}
    runs = schema.runs
    rows = conn.execute(select(runs.c.id, runs.c.status, runs.c.steps, runs.c.total_score, runs.c.world_score,
                               runs.c.mind_score, runs.c.finished_at, runs.c.heartbeat_at, runs.c.host,
                               runs.c.pid).where(runs.c.id.in_(ids))).mappings().all()
    counting = [r["id"] for r in rows if r["steps"] is None]
    counted: dict[int, tuple[int, float | None]] = {}
    if counting:
        steps = schema.steps
        counted = {int(i): (int(n), t) for i, n, t in conn.execute(
            select(steps.c.run_id, func.count(), func.sum(steps.c.score))
            .where(steps.c.run_id.in_(counting)).group_by(steps.c.run_id)).all()}
    out = {}
    for r in rows:
        n, total = (r["steps"], r["total_score"]) if r["steps"] is not None else counted.get(r["id"], (0, None))
        out[int(r["id"])] = RunState(int(r["id"]), live_status(r["id"], r["status"], r["heartbeat_at"], r["host"],
                                                               r["pid"], here),
                                     int(n), total, r["world_score"], r["mind_score"], utc(r["finished_at"]))
    return out


def read_running(conn: Connection, limit: int, here: Collection[int] = ()) -> list[int]:
    """The IDs of up to ``limit`` runs being written now (their writers alive), newest first."""
    runs = schema.runs
    rows = conn.execute(select(runs.c.id, runs.c.status, runs.c.heartbeat_at, runs.c.host, runs.c.pid)
                        .where(runs.c.status == "running").order_by(runs.c.id.desc())).all()
    alive = [int(i) for i, s, beat, host, pid in rows if live_status(i, s, beat, host, pid, here) == "running"]
    return alive[:limit]


def read_unfinished(conn: Connection, like: str | None = None) -> list[Unfinished]:
    """The runs recorded "running" (whatever their writers' state) and, with ``like`` (an SQL
    LIKE pattern such as ``"suspended %"``), those whose status matches it; oldest first."""
    runs = schema.runs
    where = runs.c.status == "running"
    if like is not None:
        where = where | runs.c.status.like(like)
    rows = conn.execute(select(runs.c.id, runs.c.status, runs.c.host, runs.c.pid, runs.c.society, runs.c.resume)
                        .where(where).order_by(runs.c.id)).mappings().all()
    return [Unfinished(int(r["id"]), str(r["status"]), str(r["host"]), int(r["pid"]),
                       dict(r["society"]) if isinstance(r["society"], dict) else {},
                       r["resume"] if isinstance(r["resume"], dict) else None) for r in rows]


def close_left(conn: Connection, run_id: int, status: str | Callable[[int], str], kind: str, text: str, *,
               current: str, writer: tuple[str, int] | None = None) -> str | None:
    """Finish ``run_id``, which nobody writes any more, if it still has status ``current``
    (and, with ``writer``, was written by that (host, PID)): its steps counted as recorded,
    ``status`` (or ``status(steps recorded)``), and an event ``kind`` saying ``text``. The
    status given, or None when another process finished or adopted the run first."""
    runs, steps = schema.runs, schema.steps
    count, total = conn.execute(select(func.count(), func.sum(steps.c.score)).where(steps.c.run_id == run_id)).one()
    given = status(int(count)) if callable(status) else status
    query = update(runs).where(runs.c.id == run_id).where(runs.c.status == current)
    if writer is not None:
        query = query.where(runs.c.host == writer[0]).where(runs.c.pid == writer[1])
    now = datetime.now(UTC)
    done = conn.execute(query.values(status=given, finished_at=now, steps=int(count), total_score=total)).rowcount
    if not done:
        return None
    conn.execute(insert(schema.events).values(run_id=run_id, step=int(count), kind=kind, text=text, at=now))
    return given
