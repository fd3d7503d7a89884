"""A Propose opens a conversation (FIPA Propose, SC00036): the proposer offers to do an
action; accepting it requests the action, which fires the offer, so both sides hold
interlocked persistent goals (a team) at once; the work then ends as a conversation for
action does. Declining, or withdrawing the offer, ends it with nothing owed."""

from __future__ import annotations

import pytest

from wwm.acl.agent import Agent, LocalBus
from wwm.acl.message import AID
from wwm.acl.tracker import Rejected


def pair() -> tuple[Agent, Agent]:
    bus = LocalBus()
    return bus.add(Agent("seller")), bus.add(Agent("buyer"))


async def test_a_proposal_opens_a_conversation_that_ends_in_success() -> None:
    seller, buyer = pair()
    offer = seller.compose("propose", AID("buyer"), "(deliver crates)", protocol="fipa-propose")
    await seller.send(offer)
    conv = offer.conversation_id
    assert buyer.talk(conv, "seller").state == "proposed"
    assert [(r.kind, r.holder) for r in buyer.tracker.obligations("seller")] == [("offer", "seller")]
    assert buyer.may_send(offer) == [("accept-proposal", "accept"), ("reject-proposal", "reject")]

    received = await buyer.receive(conv, timeout=1)
    await buyer.reply(received, "accept-proposal")
    for agent in (seller, buyer):   # accepting formed the team: both are committed
        assert agent.talk(conv, "buyer" if agent is seller else "seller").state == "accepted"
        assert agent.tracker.team(conv) == {"seller", "buyer"}
    accepted = await seller.receive(conv, timeout=1)
    await seller.reply(accepted, "inform", "(delivered crates)")
    report = await buyer.receive(conv, timeout=1)
    await buyer.reply(report, "inform", "thanks", act="declare")
    for agent in (seller, buyer):
        talk = agent.engine.talks_of(conv)[0]
        assert talk.state == "closed" and agent.engine.outcome(talk) == "success"
        assert agent.tracker.team(conv) == set()
        assert [r for r in agent.tracker.records(conv) if r.active] == []


@pytest.mark.parametrize(("who", "performative", "state"), [("buyer", "reject-proposal", "rejected"),
                                                            ("seller", "cancel", "withdrawn")])
async def test_a_proposal_declined_or_withdrawn_leaves_nothing_owed(who, performative, state) -> None:
    seller, buyer = pair()
    offer = seller.compose("propose", AID("buyer"), "(deliver crates)", protocol="fipa-propose")
    await seller.send(offer)
    if who == "buyer":
        await buyer.reply(await buyer.receive(offer.conversation_id, timeout=1), performative)
    else:
        await seller.send(seller.compose(performative, AID("buyer"), conversation=offer.conversation_id,
                                         protocol="fipa-propose"))
    for agent in (seller, buyer):
        talk = agent.engine.talks_of(offer.conversation_id)[0]
        assert talk.state == state and agent.engine.outcome(talk) == "countered-rejected"
        assert [r for r in agent.tracker.records(offer.conversation_id) if r.active] == []


async def test_only_the_proposer_can_do_what_it_offered_and_an_offer_opens_only_once() -> None:
    seller, buyer = pair()
    offer = seller.compose("propose", AID("buyer"), "(deliver crates)", protocol="fipa-propose")
    await seller.send(offer)
    with pytest.raises(Rejected, match="may not send inform"):   # nothing accepted yet
        await seller.send(seller.compose("inform", AID("buyer"), "(delivered)",
                                         conversation=offer.conversation_id, protocol="fipa-propose"))
    with pytest.raises(Rejected, match="may not send propose"):
        await seller.send(seller.compose("propose", AID("buyer"), "(more crates)",
                                         conversation=offer.conversation_id, protocol="fipa-propose"))
