"""Overdue replies: a request to an agent that never answers, between two agents with
loopback HTTP endpoints, under each policy the agent may choose: only marked (the default of
a plain send), withdrawn at the deadline, re-attempted then withdrawn, or escalated to a hook."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import pytest

from wwm.acl.agent import Agent
from wwm.acl.network import serve_agent
from wwm.acl.overdue import Escalate, Mark, Overdue, Reattempt, Withdraw

REPLY_BY = 0.3


@asynccontextmanager
async def pair(**boss_options) -> AsyncIterator[tuple[Agent, Agent]]:
    boss, silent = Agent("boss", **boss_options), Agent("silent")   # no handler: never answers
    async with serve_agent(boss), serve_agent(silent):
        yield boss, silent


async def settled(agent: Agent, conversation: str, other: str, seconds: float = 10) -> str:
    """The thread's protocol state once final (or as it is after ``seconds``)."""
    for _ in range(int(seconds / 0.02)):
        talk = agent.talk(conversation, other)
        if talk is not None and talk.final:
            break
        await asyncio.sleep(0.02)
    talk = agent.talk(conversation, other)
    assert talk is not None
    return talk.state


def copies(agent: Agent, reply_with: str | None) -> int:
    return sum(1 for e in agent.log.entries if e.direction == "received" and e.message.reply_with == reply_with)


async def test_a_plain_send_is_only_marked_but_an_agent_that_withdraws_ends_the_conversation() -> None:
    async with pair() as (boss, silent):       # the default: Mark
        msg = boss.compose("request", silent.aid, "(x)", protocol="fipa-request", reply_by_seconds=REPLY_BY)
        await boss.send(msg)
        await asyncio.sleep(REPLY_BY + 0.3)
        conv = msg.conversation_id or ""
        assert boss.talk(conv, "silent").state == "requested"        # overdue, not discharged
        assert [(r.holder, r.kind) for r in boss.tracker.overdue(conv)] == [("silent", "expect")]
    async with pair(on_overdue=Withdraw()) as (boss, silent):
        msg = boss.compose("request", silent.aid, "(x)", protocol="fipa-request", reply_by_seconds=REPLY_BY)
        await boss.send(msg)
        conv = msg.conversation_id or ""
        assert boss.talk(conv, "silent").state == "requested"
        assert await settled(boss, conv, "silent") == "cancelled"
        assert await settled(silent, conv, "boss") == "cancelled"    # the withdrawal reached it
        for agent, other in ((boss, "silent"), (silent, "boss")):
            assert agent.engine.outcome(agent.talk(conv, other)) == "withdrawn"
        assert boss.tracker.obligations("boss") == [] and silent.tracker.obligations("silent", soft=True) == []
        cancel = boss.log.entries[-1].message
        assert cancel.performative == "cancel" and cancel.in_reply_to == msg.reply_with


async def test_a_policy_chosen_per_conversation_overrides_the_agents() -> None:
    async with pair(on_overdue=Withdraw()) as (boss, silent):
        boss.on_overdue_in("kept-open", Mark())
        msg = boss.compose("request", silent.aid, "(x)", conversation="kept-open", protocol="fipa-request",
                           reply_by_seconds=REPLY_BY)
        await boss.send(msg)
        await asyncio.sleep(REPLY_BY + 0.3)
        assert boss.talk("kept-open", "silent").state == "requested"


async def test_a_reattempt_sends_the_request_again_then_withdraws() -> None:
    async with pair() as (boss, silent):
        conv = await boss.request(silent.aid, "(x)", timeout=REPLY_BY, on_overdue=Reattempt(times=2))
        request = conv.messages[0]
        assert copies(silent, request.reply_with) == 3        # the first and two re-attempts
        assert conv.outcomes == {"silent": "withdrawn"} and conv.states == {"silent": "cancelled"}
        assert await settled(silent, conv.id, "boss") == "cancelled"
        got = await silent.receive(conv.id, timeout=1)   # the request is in its mailbox once
        assert got.reply_with == request.reply_with
        assert (await silent.receive(conv.id, timeout=1)).performative == "cancel"
        with pytest.raises(TimeoutError):
            await silent.receive(conv.id, timeout=0.1)


async def test_a_reattempt_that_is_answered_goes_on_to_success() -> None:
    async with pair() as (boss, silent):
        async def late_worker() -> None:   # answers only once the request came again
            got = await silent.receive(timeout=5)
            while copies(silent, got.reply_with) < 2:
                await asyncio.sleep(0.01)
            await silent.reply(got, "agree")
            await silent.reply(got, "inform", "(done)", act="assert")

        worker = asyncio.create_task(late_worker())
        conv = await boss.request(silent.aid, "(x)", timeout=REPLY_BY, on_overdue=Reattempt(times=3))
        await worker
        assert copies(silent, conv.messages[0].reply_with) >= 2
        assert conv.outcomes == {"silent": "success"}


async def test_escalation_calls_the_hook_which_may_withdraw_or_leave_it_open() -> None:
    seen: list[Overdue] = []

    async def supervisor(overdue: Overdue):
        seen.append(overdue)
        return Withdraw() if len(seen) == 1 else None

    async with pair(on_overdue=Escalate(supervisor)) as (boss, silent):
        first = await boss.request(silent.aid, "(x)", timeout=REPLY_BY)
        assert first.outcomes == {"silent": "withdrawn"}
        [told] = seen
        assert (told.agent, told.receiver.name, told.conversation, told.attempts) == ("boss", "silent", first.id, 0)
        assert [(r.holder, r.kind) for r in told.records] == [("silent", "expect")]
        second = await boss.request(silent.aid, "(y)", timeout=REPLY_BY)   # the hook leaves it open
        assert len(seen) == 2 and second.states == {"silent": "requested"} and second.outcomes == {"silent": None}
        assert [r.kind for r in boss.tracker.overdue(second.id)] == ["expect"]


def test_a_bad_policy_is_named() -> None:
    with pytest.raises(TypeError, match="an overdue policy must be"):
        Agent("x", on_overdue="withdraw")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="Reattempt needs times >= 1, got 0"):
        Reattempt(times=0)
