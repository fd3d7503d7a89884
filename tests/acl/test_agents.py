"""Agents talking in process (a local bus): requests followed to the end, not-understood for
out-of-sequence messages, crossing messages, time-outs, and a Contract Net with a team of
three. The same engine and API run over the network in test_network.py."""

from __future__ import annotations

import asyncio

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from wwm.acl.agent import Agent, LocalBus, Undeliverable
from wwm.acl.contractnet import contract_net, worker
from wwm.acl.engine import Engine
from wwm.acl.log import read, replay, show
from wwm.acl.message import AID, AclError, ACLMessage
from wwm.acl.protocols import PROTOCOLS
from wwm.acl.tracker import Rejected


def society(**workers: tuple[float, str]) -> tuple[LocalBus, Agent]:
    bus = LocalBus()
    boss = bus.add(Agent("boss"))
    for name, (price, mode) in workers.items():
        bus.add(Agent(name, handler=worker(price, mode, 0.2 if mode == "renege" else 0.01)))
    return bus, boss


async def test_a_request_is_followed_to_acknowledged_success() -> None:
    bus, boss = society(w=(1, "honest"))
    conv = await boss.request(AID("w"), "(paint fence)", timeout=2)
    assert conv.outcomes == {"w": "success"} and conv.states == {"w": "acknowledged"}
    assert [m.performative for m in conv.messages] == ["request", "agree", "inform", "inform"]
    await asyncio.sleep(0.01)
    w = bus.agents["w"]
    assert w.tracker.obligations("w") == [] and boss.tracker.obligations("boss") == []
    assert w.engine.talk(conv.id, "boss", "w").state == "acknowledged"   # both sides agree


async def test_without_acknowledgement_the_request_stops_at_the_report() -> None:
    bus, boss = society(w=(1, "honest"))
    loop = asyncio.get_running_loop()
    start = loop.time()
    conv = await boss.request(AID("w"), "(paint fence)", timeout=2, acknowledge=False)
    assert loop.time() - start < 1                   # no wait for a time-out, no withdrawal
    assert conv.states == {"w": "done"} and conv.outcomes == {"w": None}
    assert [m.performative for m in conv.messages] == ["request", "agree", "inform"]
    assert {r.kind for r in boss.tracker.obligations("w")} == {"pwag", "duty"}   # awaiting acknowledgement
    assert boss.tracker.team(conv.id) == {"boss", "w"}


async def test_a_refusal_that_ends_the_thread_before_send_returns_is_in_the_conversation() -> None:
    # on a local bus (and on a busy machine over HTTP) the refusal arrives while the request
    # is still being sent: the thread is over before request() waits for anything
    bus, boss = society(no=(1, "refuse"))
    conv = await boss.request(AID("no"), "(x)", timeout=2)
    assert conv.outcomes == {"no": "refused"}
    assert [(m.performative, m.content) for m in conv.messages] == [("request", "(x)"), ("refuse", "(busy)")]
    with pytest.raises(TimeoutError):                # and nothing of it is left in the mailbox
        await boss.receive(conv.id, timeout=0.05)


async def test_failure_and_renege_are_kept_distinct() -> None:
    bus, boss = society(f=(1, "fail"), r=(1, "renege"))
    failed = await boss.request(AID("f"), "(x)", timeout=2)
    reneged = await boss.request(AID("r"), "(x)", timeout=2)
    assert failed.outcomes == {"f": "failed"} and reneged.outcomes == {"r": "reneged"}
    records = boss.tracker.records(reneged.id)
    assert any(r.violated and r.holder == "r" for r in records)
    assert not any(r.violated for r in boss.tracker.records(failed.id))


async def test_silence_is_overdue_then_withdrawn() -> None:
    bus, boss = society(s=(1, "silent"))
    conv = await boss.request(AID("s"), "(x)", timeout=0.1)
    assert conv.outcomes == {"s": "withdrawn"} and conv.states == {"s": "cancelled"}
    assert boss.tracker.obligations("boss") == []


async def test_an_act_the_sender_may_not_perform_never_leaves() -> None:
    bus, boss = society(w=(1, "honest"))
    with pytest.raises(Rejected, match="out of sequence"):
        await boss.send(boss.compose("accept-proposal", AID("w"), "(x)", protocol="fipa-contract-net"))
    assert bus.agents["w"].log.entries == []


async def test_out_of_sequence_is_answered_not_understood_and_rolled_back() -> None:
    bus = LocalBus()
    a = bus.add(Agent("a"))
    b = bus.add(Agent("b"))
    # a rogue message sent around a's engine: b has no request to agree to
    rogue = ACLMessage("agree", a.aid, (b.aid,), conversation_id="c1", reply_with="r1",
                       protocol="fipa-request")
    await b.deliver(rogue)
    answer = await a.receive("c1", timeout=1)
    assert answer.performative == "not-understood" and answer.in_reply_to == "r1"
    assert "out of sequence" in (answer.content or "")
    # a real request that b then does not understand is rolled back on a's side
    request = a.compose("request", b.aid, "(x)", conversation="c2", protocol="fipa-request")
    await a.send(request)
    assert a.talk("c2", "b").state == "requested"
    await a.deliver(request.reply("not-understood", "what?", sender=b.aid))
    assert a.talk("c2", "b") is None and a.tracker.obligations("a") == []


async def test_undeliverable_messages_are_rolled_back() -> None:
    bus = LocalBus()
    a = bus.add(Agent("a"))
    with pytest.raises(Undeliverable, match="nobody"):
        await a.send(a.compose("request", AID("nobody"), "(x)", conversation="c"))
    assert a.talk("c", "nobody") is None and a.tracker.obligations("a") == []


def test_crossing_messages_reach_the_same_state_on_both_sides() -> None:
    def start() -> tuple[Engine, Engine, ACLMessage]:
        a, b = Engine("A"), Engine("B")
        msgs = [ACLMessage("request", AID("A"), (AID("B"),), content="(x)", conversation_id="c", reply_with="m1"),
                ACLMessage("agree", AID("B"), (AID("A"),), conversation_id="c", reply_with="m2", in_reply_to="m1")]
        for m in msgs:
            a.handle(m)
            b.handle(m)
        return a, b, msgs[1]

    # A withdraws while B reports done: participant first, so 3 -4- then A's withdraw 4→9
    a, b, agree = start()
    cancel = ACLMessage("cancel", AID("A"), (AID("B"),), conversation_id="c", reply_with="m3", in_reply_to="m2")
    done = ACLMessage("inform", AID("B"), (AID("A"),), content="(done)", conversation_id="c", reply_with="m4",
                      in_reply_to="m2")
    a.handle(cancel), b.handle(done)
    [va], [vb] = a.handle(done), b.handle(cancel)
    assert va.crossed and va.accepted and vb.accepted
    assert a.talk("c", "A", "B").state == b.talk("c", "A", "B").state == "9"
    assert [r.reason for r in a.tracker.records("c")] == [r.reason for r in b.tracker.records("c")]

    # A withdraws while B reneges: B's renege comes first and A's withdraw is void on both sides
    a, b, agree = start()
    renege = done.with_(content="(no)", user=(("X-act", "renege"),))
    a.handle(cancel), b.handle(renege)
    [va], [vb] = a.handle(renege), b.handle(cancel)
    assert va.crossed and va.accepted and vb.crossed and not vb.accepted
    assert va.voided == [cancel] and vb.voided == [cancel]
    assert a.talk("c", "A", "B").state == b.talk("c", "A", "B").state == "7"
    assert a.tracker.obligations("A") == b.tracker.obligations("B") == []


async def test_contract_net_in_process_with_a_team_of_three(tmp_path) -> None:
    bus, boss = society(cheap=(1, "renege"), good=(3, "honest"), ok=(5, "honest"), pricey=(9, "honest"),
                        mute=(0.5, "silent"), no=(2, "refuse"))
    boss.log.path = tmp_path / "boss.jsonl"
    everyone = [AID(n) for n in ("cheap", "good", "ok", "pricey", "mute", "no")]
    result = await contract_net(boss, everyone, "(move piano)", needed=2, deadline=0.2, work_timeout=2)
    assert result.complete and sorted(result.contractors) == ["good", "ok"]
    first, second = result.rounds
    assert first.silent == ["mute"] and first.refused == ["no"] and first.accepted == ["cheap", "good"]
    assert first.team == {"boss", "cheap", "good"}            # a team of three, while it lasted
    assert first.dropped == ["cheap"] and second.accepted == ["ok"]
    for r in result.rounds:                                  # every team disbanded, nothing owed
        assert boss.tracker.team(r.conversation) == set()
        assert all(t.final for t in boss.engine.talks_of(r.conversation))
    assert boss.tracker.obligations("boss", soft=True) == []
    outcomes = {t.participant: boss.engine.outcome(t) for t in boss.engine.talks_of(first.conversation)}
    assert outcomes == {"cheap": "reneged", "good": "success", "ok": "countered-rejected",
                        "pricey": "countered-rejected", "mute": "withdrawn", "no": "refused"}
    # the log replays to the same account, and shows the commitments after each act
    entries = read(boss.log.path)
    assert all(step.agrees for step in replay(entries))
    text = show(entries, first.conversation)
    assert "reneged (violated)" in text and "team: boss, cheap, good" in text


async def test_fipa_query_is_answered_and_acknowledged() -> None:
    bus, boss = society(oracle=(1, "honest"))
    conv = await boss.request(AID("oracle"), "(iota ?x (price plum ?x))", protocol="fipa-query",
                              performative="query-ref", timeout=2)
    assert conv.outcomes == {"oracle": "success"} and conv.states == {"oracle": "acknowledged"}


async def test_fipa_subscribe_reports_in_a_team_until_cancelled() -> None:
    async def publisher(agent: Agent, msg: ACLMessage) -> None:
        if msg.performative == "subscribe":
            await agent.reply(msg, "agree")
            for n in range(3):
                await agent.reply(msg, "inform", f"(temperature {20 + n})")

    bus = LocalBus()
    reader = bus.add(Agent("reader"))
    bus.add(Agent("station", handler=publisher))
    sub = reader.compose("subscribe", AID("station"), "(temperature ?t)", protocol="fipa-subscribe")
    await reader.send(sub)
    got = [await reader.receive(sub.conversation_id, timeout=1) for _ in range(4)]
    assert [m.performative for m in got] == ["agree", "inform", "inform", "inform"]
    assert [m.content for m in got[1:]] == ["(temperature 20)", "(temperature 21)", "(temperature 22)"]
    assert reader.talk(sub.conversation_id, "station").state == "agreed"
    assert reader.tracker.team(sub.conversation_id) == {"reader", "station"}
    await reader.send(reader.compose("cancel", AID("station"), conversation=sub.conversation_id,
                                     protocol="fipa-subscribe"))
    for agent in (reader, bus.agents["station"]):
        assert agent.engine.talk(sub.conversation_id, "reader", "station").state == "cancelled-team"
        assert agent.tracker.team(sub.conversation_id) == set()
        assert [r for r in agent.tracker.records(sub.conversation_id) if r.active] == []


@pytest.mark.parametrize("missing, words", [("sender", "needs a sender"), ("receivers", "at least one receiver"),
                                            ("conversation_id", "needs a conversation-id")])
def test_checking_a_message_without_an_address_is_named(missing: str, words: str) -> None:
    msg = ACLMessage("request", AID("A"), (AID("B"),), content="(x)", conversation_id="c")
    msg = msg.with_(**{missing: () if missing == "receivers" else None})
    for step in (Engine("A").check, Engine("A").handle):
        with pytest.raises(AclError, match=words):
            step(msg)


def test_a_message_naming_another_protocol_is_refused() -> None:
    e = Engine("B")
    e.handle(ACLMessage("request", AID("A"), (AID("B"),), content="(x)", conversation_id="c",
                        reply_with="m1", protocol="fipa-request"))
    [v] = e.handle(ACLMessage("agree", AID("B"), (AID("A"),), conversation_id="c", reply_with="m2",
                              in_reply_to="m1", protocol="fipa-query"))
    assert not v.accepted and "follows fipa-request" in v.reason
    [v] = e.handle(ACLMessage("agree", AID("B"), (AID("A"),), conversation_id="c", reply_with="m2",
                              in_reply_to="m1", protocol="fipa-fandango"))
    assert not v.accepted and "'fipa-fandango' but this conversation follows fipa-request" in v.reason
    [v] = e.handle(ACLMessage("request", AID("A"), (AID("B"),), content="(x)", conversation_id="c2",
                              protocol="fipa-fandango"))
    assert not v.accepted and "unknown protocol 'fipa-fandango'" in v.reason


async def test_a_message_delivered_twice_is_taken_once() -> None:
    bus, boss = society(w=(1, "honest"))
    msg = boss.compose("request", AID("w"), "(x)", protocol="fipa-request")
    await boss.send(msg)
    [again] = await bus.agents["w"].deliver(msg)
    assert again.accepted and again.duplicate
    await asyncio.sleep(0.05)
    replies = [e.message.performative for e in bus.agents["w"].log.entries if e.direction == "sent"]
    assert replies == ["agree", "inform"]          # one reaction, not two


async def test_fipa_request_without_agree_is_promise_and_report_in_one_act() -> None:
    async def hasty(agent: Agent, msg: ACLMessage) -> None:
        if msg.performative == "request":
            await agent.reply(msg, "inform" if "easy" in (msg.content or "") else "failure", "(result)")

    bus = LocalBus()
    boss = bus.add(Agent("boss"))
    bus.add(Agent("h", handler=hasty))
    easy = await boss.request(AID("h"), "(easy)", timeout=1)
    hard = await boss.request(AID("h"), "(hard)", timeout=1)
    assert easy.outcomes == {"h": "success"} and hard.outcomes == {"h": "failed"}
    inform = next(e for e in boss.log.entries if e.message.performative == "inform" and e.direction == "received")
    assert inform.verdicts[0]["act"] == "promise;assert" and inform.verdicts[0]["after"] == "done"


_PERFS = ["request", "agree", "refuse", "inform", "failure", "cancel", "cfp", "propose",
          "accept-proposal", "reject-proposal", "disconfirm", "subscribe", "query-ref", "not-understood"]


@settings(max_examples=300, deadline=None)
@given(st.data())
def test_random_messages_never_break_the_engine_or_its_invariants(data) -> None:
    protocol = PROTOCOLS[data.draw(st.sampled_from(sorted(PROTOCOLS)))]
    e = Engine()
    sent: list[str] = []
    for n in range(data.draw(st.integers(0, 14))):
        talk = e.talk("c", "A", "B")
        here = [a for a in protocol.arcs if a.source == (talk.state if talk else protocol.initial)]
        if here and data.draw(st.booleans()):      # a move the protocol allows now...
            arc = data.draw(st.sampled_from(here))
            who, perf = ("A" if arc.role == "initiator" else "B"), arc.performative
            act = arc.act if arc.act in ("renege", "declare") else None
        else:                                       # ...or noise
            who, perf = data.draw(st.sampled_from("AB")), data.draw(st.sampled_from(_PERFS))
            act = data.draw(st.sampled_from([None, "renege", "bogus"]))
        s, r = ("A", "B") if who == "A" else ("B", "A")
        msg = ACLMessage(perf, AID(s), (AID(r),), content=f"(t{n % 2})", conversation_id="c",
                         protocol=protocol.name, reply_with=f"m{n}",
                         in_reply_to=sent[-1] if sent and data.draw(st.booleans()) else None,
                         user=(("X-act", act),) if act else ())
        [v] = e.handle(msg)
        if v.accepted:
            sent.append(f"m{n}")
        talk = e.talk("c", "A", "B")
        if talk is None:
            continue
        thread = e.thread(talk)
        wf = thread.state if thread else 1
        assert wf == protocol.states[talk.state]                 # protocol and commitments agree
        assert talk.final == (wf in (5, 7, 8, 9))
        if talk.final:
            assert thread is None or thread.active() == []       # nothing dangling
        assert (thread is not None and thread.team) == (wf in (3, 4))


async def test_an_agents_deadlines_run_on_its_own_clock() -> None:
    from wwm.acl.clock import ManualClock

    clock = ManualClock()
    bus = LocalBus()
    boss = bus.add(Agent("boss", clock=clock))
    bus.add(Agent("s", handler=worker(1, "silent")))
    msg = boss.compose("request", AID("s"), "(x)", protocol="fipa-request", reply_by_seconds=5)
    await boss.send(msg)
    clock.advance(4)
    assert boss.tracker.overdue() == []
    clock.advance(2)
    [late] = boss.tracker.overdue()
    assert (late.holder, late.kind, late.active) == ("s", "expect", True)
    assert boss.talk(msg.conversation_id, "s").state == "requested"   # overdue, not discharged


def test_a_contractor_with_an_unknown_mode_is_refused_by_name() -> None:
    from wwm.acl.contractnet import Contractor

    with pytest.raises(ValueError, match="mode must be one of honest, silent, refuse, renege, fail, late, not 'lazy'"):
        Contractor(name="x", mode="lazy")


async def test_a_responder_is_told_the_moves_open_to_it() -> None:
    bus = LocalBus()
    boss = bus.add(Agent("boss"))
    w = bus.add(Agent("w"))
    request = boss.compose("request", w.aid, "(x)", protocol="fipa-request")
    await boss.send(request)
    got = await w.receive(request.conversation_id, timeout=1)
    assert w.may_send(got) == [("agree", "promise"), ("refuse", "refuse"), ("inform", "promise;assert"),
                               ("failure", "promise;fail")]
    await w.reply(got, "agree")
    assert w.may_send(got) == [("inform", "assert"), ("failure", "fail"), ("inform", "renege")]
    cfp = boss.compose("cfp", w.aid, "(y)", protocol="fipa-contract-net")
    await boss.send(cfp)
    got = await w.receive(cfp.conversation_id, timeout=1)
    assert [p for p, _ in w.may_send(got)] == ["propose", "refuse"]


async def test_a_bid_after_the_withdrawal_is_not_sent() -> None:
    bus = LocalBus()
    boss = bus.add(Agent("boss"))
    bus.add(Agent("ok", handler=worker(5, "honest", 0.01)))
    late = bus.add(Agent("late", handler=worker(1, "late", 0.3)))
    result = await contract_net(boss, [AID("ok"), AID("late")], "(x)", deadline=0.1)
    assert result.contractors == ["ok"] and result.rounds[0].silent == ["late"]
    await asyncio.sleep(0.4)                      # the late bidder saw the withdrawal: no bid
    conv = result.rounds[0].conversation
    for agent in (boss, late):
        assert agent.engine.talk(conv, "boss", "late").state == "cancelled"
        assert [r for r in agent.tracker.records(conv) if r.active] == []
    assert not any(e.direction == "sent" for e in late.log.entries)


@pytest.mark.parametrize("delay", [0.09, 0.1, 0.11])
async def test_a_bid_crossing_the_deadline_leaves_nothing_in_the_mailbox_and_no_commitment_open(delay: float) -> None:
    """A bid that reaches the manager as its deadline passes (bidding after exactly the
    deadline lands it there, crossing the withdrawal) used to stay in the manager's mailbox for
    good: a long-running manager piled them up. Whatever the timing, the round now leaves no
    message behind and no commitment open."""
    bus = LocalBus()
    boss = bus.add(Agent("boss"))
    bus.add(Agent("ok", handler=worker(5, "honest", 0.01)))
    late = bus.add(Agent("late", handler=worker(1, "late", delay)))
    result = await contract_net(boss, [AID("ok"), AID("late")], "(x)", deadline=0.1)
    await asyncio.sleep(0.25)
    r = result.rounds[0]
    assert boss.take_all(r.conversation) == []
    for agent in (boss, late):
        assert [c for c in agent.tracker.records(r.conversation) if c.active] == []
        assert agent.engine.talk(r.conversation, "boss", "late").final
    if "late" not in result.contractors:   # too late (at 0.1 s: crossing the withdrawal, which declined it)
        assert r.silent == ["late"] and boss.engine.talk(r.conversation, "boss", "late").state in (
            "rejected", "cancelled")


def test_a_late_bid_crossing_the_withdrawal_ends_rejected_on_both_sides() -> None:
    boss, late = Engine("boss"), Engine("late")
    cfp = ACLMessage("cfp", AID("boss"), (AID("late"),), content="(x)", conversation_id="c",
                     reply_with="m1", protocol="fipa-contract-net")
    cancel = ACLMessage("cancel", AID("boss"), (AID("late"),), conversation_id="c", reply_with="m2",
                        in_reply_to="m1", protocol="fipa-contract-net")
    bid = ACLMessage("propose", AID("late"), (AID("boss"),), content="(x) :price 1", conversation_id="c",
                     reply_with="m3", in_reply_to="m1", protocol="fipa-contract-net")
    for e in (boss, late):
        e.handle(cfp)
    boss.handle(cancel), late.handle(bid)          # each sent before seeing the other's
    [at_boss], [at_late] = boss.handle(bid), late.handle(cancel)
    assert at_boss.crossed and at_boss.accepted and at_late.accepted
    for e in (boss, late):
        talk = e.talk("c", "boss", "late")
        assert talk.state == "rejected" and e.outcome(talk) == "countered-rejected"
        assert [r for r in e.tracker.records("c") if r.active] == []
