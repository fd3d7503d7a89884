"""The paper's two forms of A:Accept (6→3): after B's counteroffer, A's REQ of the offered
action and A's ASSERT that it wants B to do it "accomplish the same goals". Both, sent between
two agents with loopback HTTP endpoints, reach state 3 with the team formed on both sides."""

from __future__ import annotations

import pytest

from wwm.acl import acts as A
from wwm.acl.agent import Agent
from wwm.acl.network import serve_agent
from wwm.acl.protocols import CONVERSATION_FOR_ACTION as CFA
from wwm.acl.tracker import Rejected, Tracker

PROTOCOL = CFA.name


@pytest.mark.parametrize("form", ["accept", "accept-assert"])
async def test_accepting_a_counteroffer_by_request_or_by_assert_forms_the_team(form: str) -> None:
    a, b = Agent("A"), Agent("B")
    async with serve_agent(a), serve_agent(b):
        request = a.compose("request", b.aid, "(paint fence)", protocol=PROTOCOL)
        await a.send(request)
        got = await b.receive(request.conversation_id, timeout=5)
        await b.reply(got, "propose", "(paint fence blue)")               # B: Counter, 2→6
        counter = await a.receive(request.conversation_id, timeout=5)
        assert a.engine.wf_state(a.talk(counter.conversation_id or "", "B")) == 6
        performative = "accept-proposal" if form == "accept" else "inform"   # the ASSERT is an inform
        sent = await a.reply(counter, performative, act=form)
        assert (await b.receive(request.conversation_id, timeout=5)).reply_with == sent.reply_with
        conv = request.conversation_id or ""
        for agent, other in ((a, "B"), (b, "A")):
            talk = agent.talk(conv, other)
            assert talk is not None and talk.state == "3" and agent.engine.wf_state(talk) == 3
            assert agent.tracker.team(conv) == {"A", "B"}
            [promise] = [r for r in agent.tracker.obligations("B", conv) if r.kind == "pwag"]
            assert promise.action == "(paint fence blue)"                   # B now holds the PWAG
        # and the team does the work to the end the same way
        await b.send(b.compose("inform", a.aid, conversation=conv, protocol=PROTOCOL, act="assert"))
        await a.receive(conv, timeout=5)
        await a.send(a.compose("inform", b.aid, conversation=conv, protocol=PROTOCOL, act="declare"))
        await b.receive(conv, timeout=5)
        assert a.engine.outcome(a.talk(conv, "B")) == b.engine.outcome(b.talk(conv, "A")) == "success"


def test_asserting_a_want_with_no_offer_for_it_is_refused_as_a_request_would_be() -> None:
    tracker = Tracker()
    tracker.apply(A.request("A", "B", "paint"), "c")
    tracker.apply(A.counteroffer("B", "A", "paint", "paint-blue"), "c")
    with pytest.raises(Rejected, match="B offered 'paint-blue', not 'paint-red'"):
        tracker.apply(A.accept_by_assert("A", "B", "paint-red"), "c")
    assert tracker.state("c", "A", "B") == 6 and tracker.team("c") == set()
    assert A.english(A.accept_by_assert("A", "B", "paint-blue")) == "A tells B it wants paint-blue done"


def test_asserting_a_persistent_goal_that_the_hearer_act_accepts_too() -> None:
    tracker = Tracker()
    tracker.apply(A.request("A", "B", "paint"), "c")
    tracker.apply(A.counteroffer("B", "A", "paint", "paint-blue"), "c")
    wants = A.Act("accept", (A.Assert("A", "B", A.PWAG("A", "B", A.Done("B", "paint-blue"), "q")),))
    assert A.english(wants) == "A tells B it wants paint-blue done"
    assert tracker.apply(wants, "c").state == 3 and tracker.team("c") == {"A", "B"}
