"""An agent server's conversations and commitments survive a restart: a contractor server
journals every message its engine takes in to the database (SQLAlchemy; an SQLite file
here), and a contractor killed with SIGKILL in the middle of a job comes back holding the
same conversation, in the same protocol state, with the same commitments."""

from __future__ import annotations

import asyncio

import pytest

from wwm.acl.agent import Agent
from wwm.acl.engine import Engine
from wwm.acl.journal import Journal
from wwm.acl.message import AID, AclError
from wwm.acl.network import serve_agent
from wwm.server.process import ServerProcess


@pytest.mark.slow
async def test_a_contractor_killed_mid_job_comes_back_with_its_commitments(tmp_path) -> None:
    db = tmp_path / "agents.db"
    with ServerProcess("wwm.acl.contractnet:Contractor",
                       args={"name": "c1", "work_seconds": 600, "store": db}) as server:
        boss = Agent("boss")
        async with serve_agent(boss):
            c1 = AID("c1", (server.url,))
            ask = boss.compose("request", c1, "(haul crates)", protocol="fipa-request")
            await boss.send(ask)
            conv = ask.conversation_id
            agreed = await boss.receive(conv, timeout=10)
            assert agreed.performative == "agree" and boss.tracker.team(conv) == {"boss", "c1"}
            before = Journal(str(db), "c1").entries()
            assert [e.direction for e in before] == ["received", "sent"]

            server.kill()   # SIGKILL while it works on the job it promised
            server.start()  # same port, same database

            # The contractor still knows the conversation: withdrawing the request is an arc
            # of its state "agreed" (a contractor that forgot it would answer not-understood,
            # and the boss would roll its cancel back).
            await boss.send(boss.compose("cancel", c1, conversation=conv, protocol="fipa-request",
                                         in_reply_to=agreed.reply_with))
            with pytest.raises(TimeoutError):
                await boss.receive(conv, timeout=1.0)
            assert boss.talk(conv, "c1").state == "cancelled-team"
    after = Journal(str(db), "c1").entries()
    assert after[:2] == before and after[2].direction == "received"
    assert after[2].message.performative == "cancel"
    assert after[2].verdicts[0]["accepted"] and after[2].verdicts[0]["after"] == "cancelled-team"
    # the contractor's engine, rebuilt from its journal, agrees: the team formed and was disbanded
    engine = Engine("c1")
    for entry in after:
        engine.handle(entry.message)
    talk = engine.talk(conv, "boss", "c1")
    assert talk is not None and talk.state == "cancelled-team" and engine.outcome(talk) == "withdrawn"
    assert [r for r in engine.tracker.records(conv) if r.active] == []


@pytest.mark.slow
async def test_the_journal_restores_states_and_record_numbers_exactly(tmp_path) -> None:
    # In process: an agent rebuilt from its journal holds the very records the old one held.
    from wwm.acl.agent import LocalBus
    from wwm.acl.contractnet import worker
    from wwm.acl.journal import restore

    db = str(tmp_path / "agents.db")
    bus = LocalBus()
    boss = bus.add(Agent("boss"))
    worker_agent = bus.add(Agent("w", handler=worker(1, "honest", 0.01)))
    restore(worker_agent, Journal(db, "w"))
    done = await boss.request(AID("w"), "(paint fence)", timeout=2)
    open_ = boss.compose("request", AID("w"), "(mend roof)", protocol="fipa-request")
    worker_agent.handler = None   # the second job stays promised: not reported yet
    await boss.send(open_)
    await asyncio.sleep(0.05)
    reborn = Agent("w")
    assert restore(reborn, Journal(db, "w")) == len(worker_agent.log.entries)

    def records(agent: Agent) -> list[tuple]:
        return [(r.id, r.kind, r.holder, r.action, r.status, r.reason) for r in agent.tracker.records()]
    assert records(reborn) == records(worker_agent) and any(r[4] == "active" for r in records(reborn))
    for conv in (done.id, open_.conversation_id):
        assert reborn.talk(conv, "boss").state == worker_agent.talk(conv, "boss").state


def test_a_store_that_cannot_be_opened_is_named(tmp_path) -> None:
    (tmp_path / "a-file").write_text("not a folder")
    with pytest.raises(AclError, match="store='.*a-file/x.db' cannot keep w's conversations"):
        Journal(str(tmp_path / "a-file" / "x.db"), "w")
    with pytest.raises(AclError, match="store='nosuch://x' cannot keep w's conversations"):
        Journal("nosuch://x", "w")
