"""A served Meta(A) journals A's answers as they come (in its SQLite store, through
SQLAlchemy): killed with SIGKILL in the middle of a question and restarted, it answers the
question again without asking A anything already journaled, from the Meta state the run had
reached, and gives the same answer."""

from __future__ import annotations

import asyncio
import os
import sqlite3
import time
from pathlib import Path

import pytest

from wwm.client.remote import connect_mind
from wwm.meta.session import Session, Settings
from wwm.meta.store import Store
from wwm.protocol.errors import Refusal
from wwm.server.process import ServerProcess

HERE = Path(__file__).resolve().parent
ENV = {"PYTHONPATH": os.pathsep.join(filter(None, [str(HERE), os.environ.get("PYTHONPATH")]))}
SETTINGS = {"budget": 100_000, "split": "all", "budget_display": "rounded"}


def journal(db: Path) -> set[str]:
    """The memo keys of A's answers written to the store so far."""
    with sqlite3.connect(db) as connection:
        return {key for (key,) in connection.execute("SELECT key FROM memo")}


async def a_calls_without_a_crash(observation: str) -> int:
    """How many lines A types for a first step when nothing goes wrong (same A, in-process)."""
    session = await Session.open(Settings(amplify="scripted", **SETTINGS))
    return sum(c.totals()["a_calls"] for c in (await session.meta.step(observation)).calls)


@pytest.mark.slow
async def test_a_server_killed_mid_question_resumes_from_its_journal(tmp_path):
    db = tmp_path / "meta.db"
    with ServerProcess("slow_mind:SlowScriptedMind", env=ENV) as a, \
            ServerProcess("wwm.meta.mind:MetaMind", args={"amplify": a.url, "store": db, **SETTINGS},
                          state=True) as server:
        mind = connect_mind(server.url, timeout=60)
        await mind.new_run()
        asking = asyncio.ensure_future(mind.get_action("hi"))
        deadline = time.monotonic() + 30
        while (not db.exists() or len(journal(db)) < 6) and time.monotonic() < deadline:
            await asyncio.sleep(0.02)
        server.kill()  # SIGKILL, in the middle of the question
        with pytest.raises(Refusal):
            await asking
        journaled = journal(db)
        assert len(journaled) >= 6
        server.start()  # same port, same snapshot file: the run is still there
        resumed = await mind.get_action("hi")  # the client asks again, with the same run ID
        server.kill()  # killed again, between two questions
        server.start()
        second = await mind.get_action("again")
        await mind.aclose()
    assert (resumed.action, second.action) == ("hi", "again")
    store = Store(db)
    numbers = {label: number for number, label, _ in store.computations()}
    steps = [s for root in store.load_calls(numbers["step 1: hi"]) for call in root.walk() for s in call.steps]
    replayed = {s.memo_key for s in steps if s.cached}
    asked = [s.memo_key for s in steps if not s.cached]
    assert journaled <= replayed  # every answer journaled before the crash is replayed, not asked again
    assert not journaled & set(asked)
    assert len(asked) + len(journaled) == await a_calls_without_a_crash("hi")
    # Meta's state outlived the second kill: step 2's question carries the state step 1 left
    question = store.load_calls(numbers["step 2: again"])[0].question
    assert question.args[0].expand().startswith("the state of an agent who last saw (the string")
