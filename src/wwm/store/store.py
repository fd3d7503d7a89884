""":class:`RunStore`: start a run, record its steps and events, finish it; list and read
runs back. Steps are buffered (see :mod:`.writer`); reads work from any process, and a run
whose writing process died reads as "interrupted".
"""

from __future__ import annotations

import atexit
import contextlib
import dataclasses
import math
import os
import sys
import threading
import time
from collections.abc import Callable, Collection, Iterator, Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Self, overload

from sqlalchemy import Connection, RowMapping, func, insert, inspect, select, text, update
from sqlalchemy.exc import IntegrityError, OperationalError, ProgrammingError, SQLAlchemyError
from sqlalchemy.pool import StaticPool

from ..protocol.records import Step
from . import schema
from .engine import NoStore, StoreError, make_engine, resolve_url, shown
from .records import EventRecord, RunDetail, RunSummary, StepRecord
from .states import (
    HOST,
    STALE_AFTER,
    RunState,
    Unfinished,
    close_left,
    live_status,
    pid_alive,
    read_running,
    read_states,
    read_unfinished,
)
from .writer import Writer, clean_text, event_row, number, step_row

__all__ = ["HOST", "STALE_AFTER", "RunStore", "UnknownRun", "pid_alive"]
MAX_KIND, MAX_STATUS, MAX_NAME = 60, 40, 200
SCHEMA_LOCK_KEY = 0x77776D5F72756E73  # "wwm_runs": serialises table creation on PostgreSQL


class UnknownRun(StoreError, LookupError):
    """No run with that ID in this store."""


@dataclasses.dataclass(frozen=True)
class _End:
    """How a run ended, as ``finish_run`` was told (None: count it from the steps)."""

    status: str
    at: datetime
    steps: int | None = None
    total_score: float | None = None
    world_score: float | None = None
    mind_score: float | None = None


class RunStore:
    """The run records, in the database at ``url`` (see :func:`.engine.resolve_url`).

    ``batch`` steps waiting, or ``interval`` seconds passing, make the writer thread write;
    use the store as a context manager, or call :meth:`close`, to write the rest.

    ``create=False`` opens only a store that is there, for a reader such as ``wwm runs``: a
    missing SQLite file, or a database without the run tables, raises :class:`NoStore` and
    nothing is made (no folder, no file, no table).
    """

    def __init__(self, url: str | None = None, *, batch: int = 1000, interval: float = 0.25,
                 create: bool = True) -> None:
        self.url = resolve_url(url, make_folder=create)
        if not create:
            _check_file(self.url)
        self.engine = make_engine(self.url)
        self._lock = threading.RLock()
        # Readers take the writer's lock only where everything shares one connection (an
        # in-memory SQLite database); elsewhere each reader has a connection of its own and the
        # database isolates it (SQLite in WAL mode, PostgreSQL): a page never waits for a batch.
        self._read_lock: contextlib.AbstractContextManager[Any] = (
            self._lock if isinstance(self.engine.pool, StaticPool) else contextlib.nullcontext())
        self._open: set[int] = set()                     # started here, not yet finished
        self._ending: dict[int, _End] = {}               # finished, end not yet written
        try:
            with self._lock:
                if not create and not inspect(self.engine).has_table(schema.runs.name):
                    raise NoStore(f"{shown(self.url)} holds no run records: it has no {schema.runs.name!r} table")
                _create_tables(self.engine)
        except SQLAlchemyError as exc:
            self.engine.dispose()
            raise StoreError(f"cannot open the run store at {shown(self.url)}: {_reason(exc)}") from None
        except StoreError:
            self.engine.dispose()
            raise
        self._writer = Writer(self.engine, self._lock, self._live_run_ids, batch=batch, interval=interval)
        self._closed = False
        atexit.register(self._close_at_exit)

    def __repr__(self) -> str:
        return f"RunStore({shown(self.url)!r})"

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ---- writing a run ---------------------------------------------------------------------
    def start_run(self, *, mind_url: str, world_url: str, society: Any = None,
                  settings: Any = None, name: str | None = None) -> int:
        """Record a new run as "running" and return its ID. ``society`` and ``settings`` may be
        mappings, dataclasses or pydantic models; they are stored as JSON."""
        society_doc = _plain(society) if society is not None else {}
        settings_doc = _plain(settings) if settings is not None else {}
        if not isinstance(society_doc, dict) or not isinstance(settings_doc, dict):
            raise StoreError("society and settings must be mappings (or dataclasses / models)")
        if name is None:
            name = str(society_doc.get("name") or "")
        now = datetime.now(UTC)
        row = {"name": clean_text(name)[:MAX_NAME], "status": "running", "started_at": now,
               "heartbeat_at": now, "mind_url": clean_text(str(mind_url)),
               "world_url": clean_text(str(world_url)), "society": society_doc,
               "settings": settings_doc, "host": HOST, "pid": os.getpid()}
        with self._lock, self._database("start a run"), self.engine.begin() as conn:
            run_id = int(conn.execute(insert(schema.runs).values(row)
                                      .returning(schema.runs.c.id)).scalar_one())
        self._open.add(run_id)
        return run_id

    def record_step(self, run_id: int, step: StepRecord | Step) -> None:
        """Queue one step (a :class:`StepRecord`, or the run loop's :class:`~wwm.protocol.records.Step`)."""
        if run_id not in self._open:
            raise StoreError(self._not_open(run_id))
        try:
            row = step_row(run_id, step)
        except (AttributeError, TypeError, ValueError) as exc:
            raise StoreError(f"cannot record step {getattr(step, 'index', '?')!r} of run {run_id}: "
                             f"{exc}") from None
        self._writer.add(row)

    def record_event(self, run_id: int, step_index: int, kind: str, text: str) -> None:
        """Queue an event: ``kind`` is a short word such as "timeout" or "world-down"."""
        if run_id not in self._open:
            raise StoreError(self._not_open(run_id))
        if not isinstance(kind, str) or not kind or len(kind) > MAX_KIND:
            raise StoreError(f"an event kind is 1 to {MAX_KIND} characters, not {kind!r}")
        try:
            row = event_row(run_id, step_index, kind, text)
        except (TypeError, ValueError) as exc:
            raise StoreError(f"cannot record event {kind!r} of run {run_id}: {exc}") from None
        self._writer.add(row)

    def finish_run(self, run_id: int, status: str, total_score: float | None = None,
                   steps: int | None = None, *, world_score: float | None = None,
                   mind_score: float | None = None) -> None:
        """Write the run's queued steps, then its end: ``status`` ("completed", "ended by
        world", "mind lost", "interrupted", ...), total score and step count (both counted
        from the recorded steps when not given), and the final World and Mind scores."""
        if run_id not in self._open:
            raise StoreError(self._not_open(run_id))
        if not isinstance(status, str) or not status or len(status) > MAX_STATUS or status == "running":
            raise StoreError(f"a finished run's status is 1 to {MAX_STATUS} characters and not "
                             f"'running', not {status!r}")
        try:
            end = _End(status, datetime.now(UTC), None if steps is None else int(steps),
                       *(None if v is None else float(v) for v in (total_score, world_score, mind_score)))
        except (TypeError, ValueError) as exc:
            raise StoreError(f"cannot finish run {run_id}: {exc}") from None
        self._ending[run_id] = end
        self._open.discard(run_id)
        self._write_end(run_id)

    def _write_end(self, run_id: int) -> None:
        """Write a finished run's end (kept in ``_ending`` until it is written)."""
        end = self._ending[run_id]
        self.flush()
        with self._lock, self._database("finish a run"), self.engine.begin() as conn:
            steps, total = end.steps, end.total_score
            if steps is None or total is None:
                count, counted_total = conn.execute(
                    select(func.count(), func.sum(schema.steps.c.score))
                    .where(schema.steps.c.run_id == run_id)).one()
                steps = count if steps is None else steps
                total = counted_total if total is None else total
            conn.execute(update(schema.runs).where(schema.runs.c.id == run_id).values(
                status=end.status, finished_at=end.at, steps=int(steps), total_score=number(total),
                world_score=number(end.world_score), mind_score=number(end.mind_score)))
        del self._ending[run_id]

    # ---- suspending and resuming (a client that stops and starts again: the portal) --------
    def set_resume(self, run_id: int, resume: dict[str, Any] | None) -> None:
        """Keep what a client needs to carry ``run_id`` on after a restart (the servers' run
        IDs, ...; see the ``resume`` column); None forgets it."""
        with self._lock, self._database("record how to resume a run"), self.engine.begin() as conn:
            conn.execute(update(schema.runs).where(schema.runs.c.id == run_id)
                         .values(resume=None if resume is None else _plain(resume)))

    def resume_of(self, run_id: int) -> dict[str, Any] | None:
        """What :meth:`set_resume` kept for ``run_id`` (None: nothing)."""
        with self._lock, self._database("read how to resume a run"), self.engine.connect() as conn:
            found = conn.execute(select(schema.runs.c.resume).where(schema.runs.c.id == run_id)).scalar()
        return found if isinstance(found, dict) else None

    def suspend_run(self, run_id: int, status: str, resume: dict[str, Any] | None = None) -> None:
        """Write the run's queued steps, then leave it unfinished under ``status`` (such as
        "suspended at step k": not "running", no end time, its steps counted as they are) and
        stop writing it from this process; ``resume`` replaces what :meth:`set_resume` kept.
        :meth:`adopt_run` takes it up again."""
        if run_id not in self._open:
            raise StoreError(self._not_open(run_id))
        if not isinstance(status, str) or not status or len(status) > MAX_STATUS or status == "running":
            raise StoreError(f"a suspended run's status is 1 to {MAX_STATUS} characters and not 'running', "
                             f"not {status!r}")
        self.flush()
        values: dict[str, Any] = {"status": status, "heartbeat_at": datetime.now(UTC)}
        if resume is not None:
            values["resume"] = _plain(resume)
        with self._lock, self._database("suspend a run"), self.engine.begin() as conn:
            conn.execute(update(schema.runs).where(schema.runs.c.id == run_id).values(**values))
        self._open.discard(run_id)

    def adopt_run(self, run_id: int, *, status: str = "running", host: str | None = None,
                  pid: int | None = None) -> bool:
        """Make this process the writer of ``run_id``, recorded by another process: its row names
        this host and PID, its status is "running" again, and this store takes its steps and
        beats its heartbeat. Taken only if the row still has ``status`` (and, when given, the
        dead writer's ``host`` and ``pid``): of several processes adopting the same run, one
        wins. Whether this one did."""
        query = update(schema.runs).where(schema.runs.c.id == run_id).where(schema.runs.c.status == status)
        if host is not None:
            query = query.where(schema.runs.c.host == host)
        if pid is not None:
            query = query.where(schema.runs.c.pid == pid)
        with self._lock, self._database("adopt a run"), self.engine.begin() as conn:
            taken = conn.execute(query.values(status="running", host=HOST, pid=os.getpid(),
                                              heartbeat_at=datetime.now(UTC))).rowcount
        if taken:
            self._open.add(run_id)
        return bool(taken)

    def release_run(self, run_id: int) -> None:
        """Stop writing ``run_id`` from this process (no heartbeat from here, not finished when
        the store closes): another process writes it now (one that adopted it: a worker)."""
        self._open.discard(run_id)

    def flush(self) -> None:
        """Write every queued step and event now."""
        with self._database("write steps"):
            self._writer.flush()

    @property
    def pending(self) -> int:
        """Steps and events queued and not yet written."""
        return self._writer.pending

    @property
    def dropped(self) -> int:
        """Rows the database refused as data (e.g. their run was deleted meanwhile)."""
        return self._writer.dropped

    @property
    def write_error(self) -> str | None:
        """Why the last background write failed, while the database is refusing writes (the
        rows stay queued and are retried); None when writing works."""
        error = self._writer.last_error
        return None if error is None else f"cannot write to {shown(self.url)}: {_reason(error)}"

    def close(self) -> None:
        """Write what is queued and the ends of finished runs not yet written; runs left
        open are finished as "interrupted"."""
        if self._closed:
            return
        self._closed = True
        atexit.unregister(self._close_at_exit)
        try:
            for run_id in sorted(self._open):
                self._ending[run_id] = _End("interrupted", datetime.now(UTC))
            self._open.clear()
            for run_id in sorted(self._ending):
                self._write_end(run_id)
        finally:
            self._writer.stop()
            self.engine.dispose()

    def _live_run_ids(self) -> list[int]:
        return sorted(self._open.copy() | self._ending.keys())

    def _close_at_exit(self) -> None:
        try:
            self.close()
        except StoreError as exc:  # one line, not a traceback, as the interpreter exits
            print(f"wwm: run records not fully written: {exc}", file=sys.stderr)

    # ---- reading ---------------------------------------------------------------------------
    def list_runs(self, limit: int = 20, status: str | None = None) -> list[RunSummary]:
        """The latest ``limit`` runs, newest first (only those with ``status`` if given)."""
        if limit < 1:
            raise StoreError(f"limit must be at least 1, not {limit}")
        query = select(schema.runs).order_by(schema.runs.c.id.desc())
        if status in ("running", "interrupted"):
            query = query.where(schema.runs.c.status.in_(["running", "interrupted"]))
        elif status is not None:
            query = query.where(schema.runs.c.status == status)
        if status is None:
            query = query.limit(limit)
        with self._read_lock, self._database("list runs"), self.engine.connect() as conn:
            rows = conn.execute(query).mappings().all()
            summaries = [self._summary(conn, row) for row in rows]
        if status is not None:
            summaries = [s for s in summaries if s.status == status][:limit]
        return summaries

    def get_run(self, run_id: int, *, max_steps: int | None = None, from_step: int = 0) -> RunDetail:
        """Everything about one run, with its steps from ``from_step`` (at most ``max_steps``
        of them; all when None) and all its events."""
        with self._read_lock, self._database("read a run"), self.engine.connect() as conn:
            row = conn.execute(select(schema.runs).where(schema.runs.c.id == run_id)).mappings().first()
            if row is None:
                raise UnknownRun(f"there is no run {run_id} in {shown(self.url)}")
            summary = self._summary(conn, row)
            query = (select(schema.steps).where(schema.steps.c.run_id == run_id)
                     .where(schema.steps.c.step >= from_step)
                     .order_by(schema.steps.c.step, schema.steps.c.id))
            if max_steps is not None:
                query = query.limit(max(0, max_steps))
            steps = [_step(r) for r in conn.execute(query).mappings()]
            events = [EventRecord(r["step"], r["kind"], r["text"], _utc(r["at"])) for r in conn.execute(
                select(schema.events).where(schema.events.c.run_id == run_id)
                .order_by(schema.events.c.id)).mappings()]
        return RunDetail(**{f.name: getattr(summary, f.name) for f in dataclasses.fields(RunSummary)},
                         society=row["society"] or {}, settings=row["settings"] or {},
                         world_score=row["world_score"], mind_score=row["mind_score"],
                         host=row["host"], pid=row["pid"], steps=steps, events=events)

    def step_scores(self, run_id: int) -> list[tuple[int, float | None]]:
        """(step index, score) for every recorded step of a run, in order (for plots)."""
        self.get_run(run_id, max_steps=0)  # raises UnknownRun
        with self._read_lock, self._database("read scores"), self.engine.connect() as conn:
            rows = conn.execute(select(schema.steps.c.step, schema.steps.c.score)
                                .where(schema.steps.c.run_id == run_id)
                                .order_by(schema.steps.c.step, schema.steps.c.id)).all()
        return [(int(i), s) for i, s in rows]

    # ---- states of many runs, and runs left unfinished (the portal: wwm.store.states) --------
    def states(self, run_ids: Collection[int]) -> dict[int, RunState]:
        """The state (live status, steps, scores, end) of each of ``run_ids`` in the store,
        in one query: what a page listing runs shows. Unknown IDs are left out."""
        with self._read_lock, self._database("read runs' states"), self.engine.connect() as conn:
            return read_states(conn, run_ids, self._open | self._ending.keys())

    def running(self, limit: int = 20) -> list[int]:
        """The IDs of up to ``limit`` runs being written now (writers alive), newest first."""
        with self._read_lock, self._database("list running runs"), self.engine.connect() as conn:
            return read_running(conn, limit, self._open | self._ending.keys())

    def unfinished(self, like: str | None = None) -> list[Unfinished]:
        """The runs recorded "running" (their writers alive or not) and, with ``like`` (an SQL
        LIKE pattern such as ``"suspended %"``), those whose status matches: the runs a client
        that resumes runs may take over (:meth:`adopt_run`) or close (:meth:`close_left`)."""
        with self._read_lock, self._database("list unfinished runs"), self.engine.connect() as conn:
            return read_unfinished(conn, like)

    def close_left(self, run_id: int, status: str | Callable[[int], str], kind: str, text: str, *,
                   current: str = "running", writer: tuple[str, int] | None = None) -> str | None:
        """Finish a run no process writes any more, if its status is still ``current`` (and,
        with ``writer``, its row names that (host, PID)): its recorded steps counted, its
        status ``status`` (or ``status(steps)``), an event ``kind`` with ``text``. The status,
        or None if another process finished or adopted it first."""
        with self._lock, self._database("finish a run left behind"), self.engine.begin() as conn:
            return close_left(conn, run_id, status, kind, text, current=current, writer=writer)

    @contextlib.contextmanager
    def reading(self) -> Iterator[Connection]:
        """A connection for reading the run tables directly, beside the writer (which it does
        not wait for, except on an in-memory database, where everything shares one connection)."""
        with self._read_lock, self.engine.connect() as conn:
            yield conn

    @contextlib.contextmanager
    def writing(self) -> Iterator[Connection]:
        """A transaction on the run tables, taken in turn with the store's own writes (its
        step writer's included): for a caller that updates them beside the store (the
        portal's run service marks, adopts and ends runs this way)."""
        with self._lock, self.engine.begin() as conn:
            yield conn

    # ---- helpers ---------------------------------------------------------------------------
    def _summary(self, conn: Connection, row: RowMapping) -> RunSummary:
        status, steps, total = row["status"], row["steps"], row["total_score"]
        if status == "running":
            status = self._live_status(row)
        if steps is None:  # not finished: count what has been recorded so far
            steps, total = conn.execute(select(func.count(), func.sum(schema.steps.c.score))
                                        .where(schema.steps.c.run_id == row["id"])).one()
        return RunSummary(id=row["id"], name=row["name"], status=status,
                          started_at=_utc(row["started_at"]), finished_at=_utc(row["finished_at"]),
                          mind_url=row["mind_url"], world_url=row["world_url"],
                          step_count=int(steps), total_score=total)

    def _live_status(self, row: RowMapping) -> str:
        return live_status(row["id"], row["status"], row["heartbeat_at"], row["host"], row["pid"],
                           self._open | self._ending.keys())

    def _not_open(self, run_id: int) -> str:
        return f"run {run_id} is not open in this store (never started here, or finished)"

    def _database(self, doing: str) -> _Translate:
        return _Translate(f"cannot {doing} in {shown(self.url)}")


class _Translate:
    """Turn a database failure into a :class:`StoreError` that says what was being done."""

    def __init__(self, prefix: str) -> None:
        self.prefix = prefix

    def __enter__(self) -> None:
        return None

    def __exit__(self, kind: object, exc: BaseException | None, tb: object) -> None:
        if isinstance(exc, SQLAlchemyError):
            raise StoreError(f"{self.prefix}: {_reason(exc)}") from exc


def _check_file(url: Any) -> None:
    """Raise :class:`NoStore` if ``url`` names an SQLite database that is not there (opening
    it would make an empty file)."""
    if url.get_backend_name() != "sqlite":
        return
    if url.database in (None, "", ":memory:"):
        raise NoStore(f"{shown(url)} is an in-memory database: it holds no runs of another process")
    if not Path(url.database).expanduser().is_file():
        raise NoStore(f"{shown(url)} holds no run records: there is no file {url.database!r}")


def _create_tables(engine: Any, attempts: int = 4) -> None:
    """Create the tables that are missing. Several processes may open a new database at the
    same moment: on PostgreSQL they queue on an advisory lock; elsewhere the loser of a race
    finds the tables made and tries again."""
    for attempt in range(attempts):
        try:
            with engine.begin() as conn:
                if conn.dialect.name == "postgresql":
                    conn.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": SCHEMA_LOCK_KEY})
                schema.metadata.create_all(conn)
                _add_columns(conn)
                _check_version(conn)
            return
        except (OperationalError, IntegrityError, ProgrammingError):
            if attempt == attempts - 1:
                raise
            time.sleep(0.05 * (attempt + 1))


def _add_columns(conn: Any) -> None:
    """Columns added to version 1's tables since they were first made (nullable, so rows
    written by an older wwm stay valid and an older wwm reading them ignores them)."""
    have = {c["name"] for c in inspect(conn).get_columns(schema.runs.name)}
    for column in schema.runs.columns:
        if column.name not in have and column.nullable:
            kind = column.type.compile(dialect=conn.dialect)
            conn.execute(text(f'ALTER TABLE {schema.runs.name} ADD COLUMN "{column.name}" {kind}'))


def _check_version(conn: Any) -> None:
    found = conn.execute(select(schema.meta.c.value).where(schema.meta.c.key == "schema version")).scalar()
    if found is None:
        conn.execute(insert(schema.meta).values(key="schema version", value=str(schema.VERSION)))
    elif int(found) > schema.VERSION:
        raise StoreError(f"the run store at {shown(conn.engine.url)} was made by a newer wwm (its "
                         f"tables are version {found}; this wwm knows version {schema.VERSION})")


def _reason(exc: BaseException) -> str:
    text = str(getattr(exc, "orig", None) or exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__


@overload
def _utc(value: datetime) -> datetime: ...
@overload
def _utc(value: datetime | None) -> datetime | None: ...


def _utc(value: datetime | None) -> datetime | None:
    if value is None:
        return None
    return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)


def _step(row: RowMapping) -> StepRecord:
    return StepRecord(row["step"], row["state"], row["action"], row["new_state"], row["score"],
                      row["mind_q"], row["seconds_get_state"], row["seconds_get_action"],
                      row["seconds_execute"], row["seconds_inform"], row["note"])


def _plain(value: Any) -> Any:
    """A JSON document every backend accepts: models and dataclasses become dicts, tuples and
    sets lists, non-finite floats strings, anything else unknown its ``str``."""
    if hasattr(value, "model_dump"):
        value = value.model_dump(mode="json", by_alias=True)
    elif dataclasses.is_dataclass(value) and not isinstance(value, type):
        value = dataclasses.asdict(value)
    if isinstance(value, Mapping):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple, set, frozenset)):
        return [_plain(v) for v in value]
    if isinstance(value, float) and not math.isfinite(value):
        return str(value)
    if value is None or isinstance(value, (bool, int, float)):
        return value
    if isinstance(value, str):
        return clean_text(value)
    return str(value)
