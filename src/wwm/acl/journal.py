"""An agent's conversations and commitments kept in the project's database (SQLAlchemy).

Every message the agent's engine takes in (sent, received, or rolled back as undelivered)
is written, in order, before the agent goes on, as one row of ``acl_journal``. The engine is
a function of that sequence, so an agent server that restarts replays its rows through a
fresh engine and has every conversation, protocol state and commitment record it had (the
same record numbers included), and its conversation log with them.

The database is the run store's (``$WWM_DATABASE_URL``, else ``~/.local/share/wwm/runs.db``)
when given ``"default"``; any SQLAlchemy URL, or the path of an SQLite file, otherwise.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from sqlalchemy import Column, Integer, MetaData, String, Table, Text, insert, select
from sqlalchemy.exc import SQLAlchemyError

from ..store.engine import StoreError, make_engine, resolve_url
from .log import Entry, entry_from_dict
from .message import AclError

if TYPE_CHECKING:
    from .agent import Agent

schema = MetaData()
journal = Table("acl_journal", schema,
                Column("id", Integer, primary_key=True, autoincrement=True),
                Column("agent", String, nullable=False, index=True),
                Column("entry", Text, nullable=False))


def database_url(store: str) -> str | None:
    """The URL ``store`` names: None (the project's database) for "default", a URL as is,
    and a file path as an SQLite URL."""
    if store == "default":
        return None
    return store if "://" in store else f"sqlite:///{store}"


class Journal:
    """The rows of one agent (by name) in one database."""

    def __init__(self, store: str, agent: str) -> None:
        self.agent = agent
        try:
            url = resolve_url(database_url(store))
            self.engine = make_engine(url)
            schema.create_all(self.engine)
        except (StoreError, SQLAlchemyError) as exc:
            raise AclError(f"store={store!r} cannot keep {agent}'s conversations: {exc}") from None

    def append(self, entry: Entry) -> None:
        with self.engine.begin() as db:
            db.execute(insert(journal).values(agent=self.agent, entry=entry.as_json()))

    def entries(self) -> list[Entry]:
        with self.engine.connect() as db:
            rows = db.execute(select(journal.c.entry).where(journal.c.agent == self.agent)
                              .order_by(journal.c.id)).scalars().all()
        return [entry_from_dict(json.loads(row)) for row in rows]

    def close(self) -> None:
        self.engine.dispose()


def restore(agent: Agent, journal: Journal) -> int:
    """Replay ``journal`` into ``agent`` (a fresh one), then journal all it does from now on;
    how many entries were replayed."""
    entries = journal.entries()
    for entry in entries:
        if entry.direction == "undelivered":
            agent.engine.retract(entry.message)
        else:
            try:
                agent.engine.handle(entry.message)
            except AclError:  # refused then too (a message unfit for any conversation)
                pass
        agent.log.entries.append(entry)
    agent.log.journal = journal
    return len(entries)
