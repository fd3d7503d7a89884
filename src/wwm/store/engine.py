"""Where the run store lives: the database URL (given, else ``$WWM_DATABASE_URL``, else an
SQLite file under ``$XDG_DATA_HOME/wwm``) and an SQLAlchemy engine tuned for it (SQLite in
WAL mode so readers never block the writer; ``postgresql://`` means the psycopg 3 driver).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from sqlalchemy import Engine, create_engine, event
from sqlalchemy.engine import URL, make_url
from sqlalchemy.engine.interfaces import DBAPIConnection
from sqlalchemy.exc import ArgumentError, NoSuchModuleError
from sqlalchemy.pool import ConnectionPoolEntry, StaticPool

from ..paths import data_home

ENV_VAR = "WWM_DATABASE_URL"


class StoreError(Exception):
    """The run store cannot do what was asked; the text says why, in a person's words."""


class NoStore(StoreError):
    """A store opened only to read is not there: no such SQLite file, or a database without
    the run tables. Nothing was made."""


def default_path() -> Path:
    """``$XDG_DATA_HOME/wwm/runs.db``, by default ``~/.local/share/wwm/runs.db``."""
    return data_home() / "runs.db"


def resolve_url(url: str | None = None, *, make_folder: bool = True) -> URL:
    """The database URL the store will use, with the driver filled in; an SQLite file's folder
    is made unless ``make_folder`` is false (a reader, which makes nothing)."""
    text = url or os.environ.get(ENV_VAR) or f"sqlite:///{default_path()}"
    try:
        parsed = make_url(text)
    except ArgumentError:
        raise StoreError(f"not a database URL: {text!r} (expected e.g. sqlite:///runs.db or "
                         "postgresql://user@host/dbname)") from None
    if parsed.drivername in ("postgresql", "postgres"):
        parsed = parsed.set(drivername="postgresql+psycopg")
    if make_folder and parsed.get_backend_name() == "sqlite" and parsed.database not in (None, "", ":memory:"):
        folder = Path(parsed.database).expanduser().parent
        try:
            folder.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise StoreError(f"cannot open the run store at {shown(parsed)}: cannot make the "
                             f"folder {str(folder)!r}: {exc.strerror or exc}") from None
    return parsed


def shown(url: URL) -> str:
    """The URL as it may be printed: without its password."""
    return url.render_as_string(hide_password=True)


def make_engine(url: URL) -> Engine:
    """An engine for ``url``; SQLite gets WAL, a busy time-out and ``synchronous=NORMAL``
    (a committed step survives the writing process being killed)."""
    backend = url.get_backend_name()
    kwargs: dict[str, Any] = {}
    if backend == "sqlite":
        kwargs["connect_args"] = {"timeout": 30, "check_same_thread": False}
        if url.database in (None, "", ":memory:"):  # one shared connection, or each thread
            kwargs["poolclass"] = StaticPool          # would see its own empty database
    elif backend == "postgresql":
        kwargs["pool_pre_ping"] = True
    try:
        engine = create_engine(url, **kwargs)
    except NoSuchModuleError:
        raise StoreError(f"no SQLAlchemy dialect for {url.drivername!r} in {shown(url)}") from None
    except ModuleNotFoundError as exc:
        hint = " (pip install 'psycopg[binary]')" if backend == "postgresql" else ""
        raise StoreError(f"the database driver for {shown(url)} is not installed: "
                         f"{exc.name}{hint}") from None
    if backend == "sqlite":
        event.listen(engine, "connect", _sqlite_pragmas)
    return engine


def _sqlite_pragmas(dbapi_connection: DBAPIConnection, _record: ConnectionPoolEntry) -> None:
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA synchronous=NORMAL")
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.close()
