"""The buffered writer behind :meth:`RunStore.record_step`: the run loop only appends to a
queue; a background thread writes what is queued in one transaction at least every
``interval`` seconds, or sooner when ``batch`` rows wait, and keeps the runs' heartbeats.
"""

from __future__ import annotations

import collections
import logging
import math
import threading
import time
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any, overload

from sqlalchemy import Engine, insert, update
from sqlalchemy.exc import DataError, DBAPIError, IntegrityError

from ..protocol.records import Step
from . import schema
from .records import StepRecord

log = logging.getLogger(__name__)

HEARTBEAT_SECONDS = 5.0


@overload
def clean_text(value: str) -> str: ...
@overload
def clean_text(value: str | None) -> str | None: ...


def clean_text(value: str | None) -> str | None:
    """Text every backend can hold: NUL becomes U+FFFD (PostgreSQL text cannot hold NUL) and
    lone surrogates (not UTF-8) are written as backslash escapes. Other text is untouched."""
    if value is None:
        return None
    if not isinstance(value, str):
        value = str(value)
    if "\x00" in value:
        value = value.replace("\x00", "\ufffd")
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        value = value.encode("utf-8", "backslashreplace").decode("utf-8")
    return value


def number(value: Any) -> float | None:
    """A float column's value; NaN is stored as None (SQLite has no NaN; infinities stay)."""
    if value is None:
        return None
    value = float(value)
    return None if math.isnan(value) else value


STEP_COLUMNS = [c.name for c in schema.steps.columns if c.name != "id"]


def step_row(run_id: int, step: StepRecord | Step) -> tuple[Any, ...]:
    """The ``wwm_steps`` row for ``step`` (a record, or the run loop's own step), in
    the order of :data:`STEP_COLUMNS`; ValueError or TypeError when a field cannot be stored."""
    index = int(step.index)
    if not -(2**31) <= index < 2**31:
        raise ValueError(f"step index {index} is out of range")
    return (run_id, index, clean_text(step.state) or "", clean_text(step.action),
            clean_text(step.new_state) or "", number(step.score), number(step.mind_q),
            float(step.seconds_get_state), float(step.seconds_get_action),
            float(step.seconds_execute), float(step.seconds_inform), clean_text(step.note))


def event_row(run_id: int, step: int, kind: str, text: str) -> dict[str, Any]:
    """The ``wwm_events`` row of one event, stamped now."""
    return {"run_id": run_id, "step": int(step), "kind": clean_text(kind), "text": clean_text(text) or "",
            "at": datetime.now(UTC)}


def insert_steps(conn: Any, rows: list[tuple[Any, ...]]) -> None:
    """Insert step rows inside ``conn``'s transaction by the cheapest road each backend has:
    ``executemany`` on the sqlite3 cursor, ``COPY FROM STDIN`` on PostgreSQL (each ~2.5x
    faster than SQLAlchemy's executemany, measured in benchmarks/store_write.py), else Core."""
    dialect, columns = conn.dialect, ", ".join(STEP_COLUMNS)
    if dialect.name == "sqlite":
        sql = f"INSERT INTO {schema.steps.name} ({columns}) VALUES ({', '.join('?' * len(STEP_COLUMNS))})"
    elif dialect.name == "postgresql" and dialect.driver == "psycopg":
        sql = f"COPY {schema.steps.name} ({columns}) FROM STDIN"
    else:
        conn.execute(insert(schema.steps), [dict(zip(STEP_COLUMNS, row, strict=True)) for row in rows])
        return
    cursor = conn.connection.dbapi_connection.cursor()
    try:
        if dialect.name == "sqlite":
            cursor.executemany(sql, rows)
        else:
            with cursor.copy(sql) as copy:
                for row in rows:
                    copy.write_row(row)
    except dialect.loaded_dbapi.Error as exc:  # as SQLAlchemy's own errors, like Core's would be
        raise DBAPIError.instance(sql, None, exc, dialect.loaded_dbapi.Error, dialect=dialect) from exc
    finally:
        cursor.close()


class Writer:
    """Queues rows of steps and events and writes them from a daemon thread.

    ``lock`` serialises every use of the engine (shared with the store's readers), so an
    in-memory SQLite database on one connection works too. When the database is away, a
    failed write keeps its rows at the head of the queue and is retried on the next round.
    Rows the database refuses as data (say, their run was deleted meanwhile) are written one
    by one, and the refused ones are dropped and counted in ``dropped``, so they cannot
    block the rows behind them.
    """

    def __init__(self, engine: Engine, lock: threading.RLock, live_runs: Callable[[], list[int]],
                 *, batch: int = 1000, interval: float = 0.25) -> None:
        self.engine = engine
        self.lock = lock
        self.batch = batch
        self.interval = interval
        self.last_error: BaseException | None = None
        self.dropped = 0
        self._live_runs = live_runs
        self._queue: collections.deque[tuple[Any, ...] | dict[str, Any]] = collections.deque()
        self._wake = threading.Event()
        self._stop = False
        self._last_heartbeat = time.monotonic()
        self._thread = threading.Thread(target=self._loop, name="wwm-store-writer", daemon=True)
        self._thread.start()

    # ---- called by the run loop: cheap -----------------------------------------------------
    def add(self, row: tuple[Any, ...] | dict[str, Any]) -> None:
        """Queue a row: a tuple from :func:`step_row` or a dict from :func:`event_row`."""
        self._queue.append(row)
        if len(self._queue) >= self.batch:
            self._wake.set()

    @property
    def pending(self) -> int:
        return len(self._queue)

    # ---- writing -----------------------------------------------------------------------------
    def flush(self) -> None:
        """Write everything queued now, in this thread; raise if the database refuses."""
        with self.lock:
            while self._queue:
                self._write_some()

    def stop(self) -> None:
        self._stop = True
        self._wake.set()
        self._thread.join(timeout=10)

    def _loop(self) -> None:
        while not self._stop:
            self._wake.wait(self.interval)
            self._wake.clear()
            try:
                while self._queue:
                    with self.lock:  # one batch per hold, so readers get their turn
                        self._write_some()
                if time.monotonic() - self._last_heartbeat >= HEARTBEAT_SECONDS:
                    with self.lock:
                        self._beat(self._live_runs())
                self.last_error = None
            except Exception as exc:  # noqa: BLE001 - the database is away: keep the rows, try again later
                if self.last_error is None:
                    log.warning("run store: cannot write, will retry: %s", exc)
                self.last_error = exc
                time.sleep(min(self.interval * 4, 2.0))

    def _write_some(self) -> None:
        queue = self._queue
        taken = [queue.popleft() for _ in range(min(len(queue), self.batch * 4))]
        try:
            self._insert(taken)
        except (IntegrityError, DataError):  # refused as data, not for want of a database
            self._insert_one_by_one(taken)
        except BaseException:
            queue.extendleft(reversed(taken))
            raise

    def _insert(self, rows: list[tuple[Any, ...] | dict[str, Any]]) -> None:
        step_rows = [r for r in rows if isinstance(r, tuple)]
        event_rows = [r for r in rows if isinstance(r, dict)]
        run_ids = {r[0] for r in step_rows} | {r["run_id"] for r in event_rows}
        with self.engine.begin() as conn:
            if step_rows:
                insert_steps(conn, step_rows)
            if event_rows:
                conn.execute(insert(schema.events), event_rows)
            self._beat_in(conn, sorted(run_ids))

    def _insert_one_by_one(self, rows: list[tuple[Any, ...] | dict[str, Any]]) -> None:
        for k, row in enumerate(rows):
            try:
                self._insert([row])
            except (IntegrityError, DataError) as exc:
                self.dropped += 1
                log.warning("run store: the database refused a row, dropped: %s", str(exc.orig or exc).strip())
            except BaseException:  # the database went away meanwhile: keep what is left
                self._queue.extendleft(reversed(rows[k:]))
                raise

    def _beat(self, run_ids: list[int]) -> None:
        """Tell readers the runs of this process are alive, even when no step comes."""
        if run_ids:
            with self.engine.begin() as conn:
                self._beat_in(conn, run_ids)
        self._last_heartbeat = time.monotonic()

    @staticmethod
    def _beat_in(conn: Any, run_ids: list[int]) -> None:
        conn.execute(update(schema.runs).where(schema.runs.c.id.in_(run_ids))
                     .where(schema.runs.c.status == "running")
                     .values(heartbeat_at=datetime.now(UTC)))
