"""The SQLite store (SQLAlchemy Core): messages, agents, transcripts, ledgers and the memo.

Everything is keyed by content, so an identical tree is stored once, and nothing is updated
in place except the memo. A computation saved here outlives the process: its ledger can be
shown as a tree, its messages reloaded, and its agent snapshots asked again (forked) later.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from sqlalchemy import (
    Column,
    Connection,
    Integer,
    MetaData,
    String,
    Table,
    Text,
    create_engine,
    delete,
    event,
    insert,
    select,
)
from sqlalchemy.engine.interfaces import DBAPIConnection
from sqlalchemy.pool import ConnectionPoolEntry

from .agents import Agent, Policy, Transcript
from .hch import HCHAgent
from .ledger import Call, Step
from .messages import Channel, Message, Referent

# What a load has rebuilt so far: a message's key -> the Message or Channel, and
# ("row", key) -> the database row read for it (two kinds of entry in one dict, on purpose:
# the stack-driven load looks both up by what it meets).
_Memo = dict[Any, Any]

schema = MetaData()
messages = Table("messages", schema, Column("key", String, primary_key=True),
                 Column("texts", Text, nullable=False), Column("args", Text, nullable=False))
hch_agents = Table("hch_agents", schema, Column("key", String, primary_key=True),
                   Column("policy", String, nullable=False), Column("transcript", String),
                   Column("env", Text, nullable=False))
transcripts = Table("transcripts", schema, Column("key", String, primary_key=True),
                    Column("parent", String), Column("observation", Text, nullable=False),
                    Column("action", Text, nullable=False))
memo = Table("memo", schema, Column("key", String, primary_key=True),
             Column("action", Text, nullable=False), Column("created", String, nullable=False))
computations = Table("computations", schema, Column("id", Integer, primary_key=True),
                     Column("label", Text, nullable=False), Column("created", String, nullable=False))
calls = Table("calls", schema, Column("computation", Integer, primary_key=True),
              Column("number", Integer, primary_key=True), Column("parent", Integer),
              Column("question", String, nullable=False), Column("budget", Integer, nullable=False),
              Column("agent", String, nullable=False), Column("own_ops", Integer, nullable=False),
              Column("remaining", Integer), Column("reply", String), Column("final_agent", String),
              Column("steps", Text, nullable=False), Column("events", Text, nullable=False))


class UnavailablePolicy:
    """Stands in for a policy this process does not have (a reloaded snapshot can be shown,
    not asked, until its policy is supplied)."""

    def __init__(self, name: str) -> None:
        self.name = name

    async def decide(self, observations: Sequence[str], actions: Sequence[str]) -> str:
        raise LookupError(f"the policy {self.name!r} of this stored agent is not available here; "
                          f"pass it to Store.load_agent(..., policies={{{self.name!r}: ...}})")


class Store:
    """A meta-execution database in one SQLite file (or ``":memory:"``)."""

    def __init__(self, path: str | Path = ":memory:") -> None:
        self.path = str(path)
        self.engine = create_engine(f"sqlite:///{self.path}")
        event.listen(self.engine, "connect", _pragmas)
        schema.create_all(self.engine)
        self._saved: set[str] = set()
        self._rows: dict[Table, list[dict[str, Any]]] = {}
        self.memo = SqlMemo(self)

    # ---- writing --------------------------------------------------------------------------
    def _queue(self, table: Table, key: str, row: dict[str, Any]) -> bool:
        if key in self._saved:
            return False
        self._saved.add(key)
        self._rows.setdefault(table, []).append(row)
        return True

    def save(self, referent: Referent | HCHAgent) -> str:
        """Queue a message, channel or agent snapshot (and all it points to); its key."""
        stack: list[Referent | HCHAgent] = [referent]
        while stack:
            node = stack.pop()
            if isinstance(node, Message):
                if self._queue(messages, node.key, {"key": node.key, "texts": json.dumps(node.texts),
                                                     "args": json.dumps([a.key for a in node.args])}):
                    stack.extend(node.args)
            elif isinstance(node, Channel):
                if not isinstance(node.agent, HCHAgent):
                    raise TypeError(f"a channel to a {type(node.agent).__name__} cannot be saved, "
                                    "only one to an HCH agent")
                stack.append(node.agent)
            else:
                row = {"key": node.key, "policy": node.a.policy.name,
                       "transcript": node.a.transcript.key if node.a.transcript else None,
                       "env": json.dumps([r.key for r in node.env])}
                if self._queue(hch_agents, node.key, row):
                    stack.extend(node.env)
                    self._save_transcript(node.a.transcript)
        return referent.key

    def _save_transcript(self, node: Transcript | None) -> None:
        while node is not None and self._queue(transcripts, node.key, {
                "key": node.key, "parent": node.parent.key if node.parent else None,
                "observation": node.observation, "action": node.action}):
            node = node.parent

    def record(self, label: str, roots: Iterable[Call], agents: Iterable[HCHAgent] = ()) -> int:
        """Save a finished computation (its ledgers, every message and agent snapshot in them,
        and any other ``agents``); its number."""
        with self.engine.begin() as db:
            inserted = db.execute(insert(computations).values(label=label, created=_now())).inserted_primary_key
            assert inserted is not None  # (an INSERT of one row)
            number: int = inserted[0]
        rows = []
        for root in roots:
            for call in root.walk():
                self.save(call.question)
                if call.reply is not None:
                    self.save(call.reply)
                if call.final_agent is not None:  # so it can be asked again after a restart
                    self.save(call.final_agent)
                rows.append({"computation": number, "number": call.id,
                             "parent": call.parent.id if call.parent else None,
                             "question": call.question.key, "budget": call.budget, "agent": call.agent_key,
                             "own_ops": call.own_ops, "remaining": call.remaining,
                             "reply": call.reply.key if call.reply else None,
                             "final_agent": call.final_agent_key,
                             "steps": json.dumps([[s.observation, s.action, s.cached, s.memo_key]
                                                  for s in call.steps]),
                             "events": json.dumps(call.events)})
        for agent in agents:
            self.save(agent)
        self._rows.setdefault(calls, []).extend(rows)
        self.flush()
        return number

    def flush(self) -> None:
        """Write everything queued in one transaction."""
        pending, self._rows = self._rows, {}
        with self.engine.begin() as db:
            for table, rows in pending.items():
                if rows:
                    db.execute(insert(table).prefix_with("OR IGNORE"), rows)
            self.memo._write(db)

    # ---- reading --------------------------------------------------------------------------
    def load_message(self, key: str, policies: dict[str, Policy] | None = None) -> Message:
        with self.engine.connect() as db:
            found = self._load(db, key, policies or {}, {})
        if not isinstance(found, Message):
            raise KeyError(f"{key} is an agent, not a message")
        return found

    def load_agent(self, key: str, policies: dict[str, Policy] | None = None) -> HCHAgent:
        """An agent snapshot; with its policy given it can be asked again (a fork)."""
        with self.engine.connect() as db:
            return self._load_agent(db, key, policies or {}, {})

    def _load(self, db: Connection, key: str, policies: dict[str, Policy], memo: _Memo) -> Referent:
        """Rebuild a referent bottom-up with an explicit stack (trees of any depth)."""
        stack = [key]
        while stack:
            top = stack[-1]
            if top in memo:
                stack.pop()
                continue
            if top.startswith("@"):
                memo[top] = Channel(self._load_agent(db, top[1:], policies, memo))
                stack.pop()
                continue
            row = memo.get(("row", top)) or db.execute(select(messages).where(messages.c.key == top)).one_or_none()
            if row is None:
                raise KeyError(f"no message {top} in {self.path}")
            memo[("row", top)] = row
            missing = [k for k in json.loads(row.args) if k not in memo]
            if missing:
                stack.extend(missing)
                continue
            memo[top] = Message(tuple(json.loads(row.texts)), tuple(memo[k] for k in json.loads(row.args)))
            stack.pop()
        found: Referent = memo[key]
        return found

    def _load_message(self, db: Connection, key: str, memo: _Memo) -> Message:
        """A question or a reply: a message, never a channel."""
        message = self._load(db, key, {}, memo)
        if not isinstance(message, Message):
            raise KeyError(f"{key} in {self.path} is a channel, not a message")
        return message

    def _load_agent(self, db: Connection, key: str, policies: dict[str, Policy], memo: _Memo) -> HCHAgent:
        row = db.execute(select(hch_agents).where(hch_agents.c.key == key)).one_or_none()
        if row is None:
            raise KeyError(f"no agent {key} in {self.path}")
        chain = []
        tkey = row.transcript
        while tkey is not None:
            t = db.execute(select(transcripts).where(transcripts.c.key == tkey)).one()
            chain.append(t)
            tkey = t.parent
        transcript = None
        for t in reversed(chain):
            transcript = Transcript(transcript, t.observation, t.action)
        policy = policies.get(row.policy) or UnavailablePolicy(row.policy)
        env = tuple(self._load(db, k, policies, memo) for k in json.loads(row.env))
        agent = HCHAgent.build(Agent(policy, transcript), env)
        if agent.key != key:
            raise ValueError(f"agent {key} reloaded with a different key {agent.key}: the store is corrupt")
        return agent

    def computations(self) -> list[tuple[int, str, str]]:
        with self.engine.connect() as db:
            return [tuple(r) for r in db.execute(select(computations).order_by(computations.c.id))]

    def load_calls(self, computation: int) -> list[Call]:
        """The ledger trees of a saved computation (top-level questions in order)."""
        with self.engine.connect() as db:
            rows = db.execute(select(calls).where(calls.c.computation == computation)
                              .order_by(calls.c.number)).all()
            if not rows:
                raise KeyError(f"no computation {computation} in {self.path}")
            cache: _Memo = {}
            built: dict[int, Call] = {}
            roots: list[Call] = []
            for r in rows:
                parent = built.get(r.parent) if r.parent is not None else None
                call = Call(self._load_message(db, r.question, cache), r.budget, r.agent, parent=parent,
                            id=r.number, own_ops=r.own_ops, remaining=r.remaining,
                            reply=self._load_message(db, r.reply, cache) if r.reply else None,
                            final_agent_key=r.final_agent,
                            steps=[Step(*s) for s in json.loads(r.steps)], events=json.loads(r.events))
                built[r.number] = call
                (parent.children if parent else roots).append(call)
        return roots


class SqlMemo:
    """The memo kept in the store: read into memory once, and written back as a journal:
    at each flush, at once when ``durable`` (a person's answers), or, when ``interval`` is
    set, with the first answer given ``interval`` seconds or more after the last write (a
    served Meta(A): a process killed in the middle of a question loses only A's latest
    answers, and replays the rest from here when it is asked again)."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self.interval: float | None = None
        with store.engine.connect() as db:
            self.answers: dict[str, str] = {r.key: r.action for r in db.execute(select(memo))}
        self._new: dict[str, str] = {}
        self._dropped: set[str] = set()
        self._written = time.monotonic()

    @property
    def durable(self) -> bool:
        return self.interval == 0

    @durable.setter
    def durable(self, value: bool) -> None:
        self.interval = 0 if value else None

    def get(self, key: str) -> str | None:
        return self.answers.get(key)

    def put(self, key: str, action: str) -> None:
        self.answers[key] = action
        self._new[key] = action
        self._dropped.discard(key)
        if self.interval is not None and time.monotonic() - self._written >= self.interval:
            self.write()

    def write(self) -> None:
        """Write the answers not yet written, in one transaction."""
        with self.store.engine.begin() as db:
            self._write(db)

    def invalidate(self, key_prefix: str) -> int:
        """Forget every cached answer whose key starts with ``key_prefix``; how many."""
        if len(key_prefix) < 4:
            raise ValueError("give at least 4 characters of the memo key to forget")
        gone = [k for k in self.answers if k.startswith(key_prefix)]
        for k in gone:
            del self.answers[k]
            self._new.pop(k, None)
            self._dropped.add(k)
        self.store.flush()
        return len(gone)

    def _write(self, db: Connection) -> None:
        if self._new:
            db.execute(insert(memo).prefix_with("OR REPLACE"),
                       [{"key": k, "action": a, "created": _now()} for k, a in self._new.items()])
        if self._dropped:
            db.execute(delete(memo).where(memo.c.key.in_(self._dropped)))
        self._new, self._dropped = {}, set()
        self._written = time.monotonic()


def _pragmas(connection: DBAPIConnection, _record: ConnectionPoolEntry) -> None:
    cursor = connection.cursor()
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA synchronous=NORMAL")
    cursor.close()


def _now() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
