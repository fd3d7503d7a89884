"""The conversation for action explained by commitments: the tracker alone, reading the
content of REQUEST and ASSERT, accepts exactly the arcs of Winograd and Flores' figure, ends
the paths the paper names in the states it names, has a team in states 3 and 4 only, and
leaves nothing owed in a final state. Property tests drive random act sequences."""

from __future__ import annotations

import dataclasses

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from wwm.acl import acts as A
from wwm.acl.clock import ManualClock
from wwm.acl.protocols import CONVERSATION_FOR_ACTION as CFA
from wwm.acl.protocols import FIPA_REQUEST, PROTOCOLS, build_act, check
from wwm.acl.tracker import FINAL_STATES, Rejected, Tracker, derive_state

WF_ACTS = ["request", "promise", "counter", "refuse", "withdraw", "counter-counter", "accept", "accept-assert",
           "reject", "withdraw-offer", "assert", "renege", "declare", "declare-not"]
TABLE = {(int(a.source), "A" if a.role == "initiator" else "B", a.act): int(a.target) for a in CFA.arcs}
# the reference notes' arc table, written out independently of the protocol data
REFERENCE = {
    (1, "A", "request"): 2, (2, "B", "promise"): 3, (2, "B", "counter"): 6, (2, "B", "refuse"): 8,
    (2, "A", "withdraw"): 8, (6, "A", "counter-counter"): 2, (6, "A", "accept"): 3,
    (6, "A", "accept-assert"): 3,   # "an (ASSERT A B (WAG A B (DONE B a1) q)) will accomplish the same goals"
    (6, "A", "reject"): 8, (6, "B", "withdraw-offer"): 8, (3, "B", "assert"): 4,
    (3, "B", "renege"): 7, (3, "A", "withdraw"): 9, (4, "A", "declare"): 5,
    (4, "A", "declare-not"): 3, (4, "A", "withdraw"): 9,
}
PATH_TO = {1: [], 2: ["A:request"], 6: ["A:request", "B:counter"], 3: ["A:request", "B:promise"],
           4: ["A:request", "B:promise", "B:assert"]}


def play(steps: list[str], tracker: Tracker | None = None, conv: str = "c"):
    tracker = tracker or Tracker()
    thread = tracker.thread(conv, "A", "B")
    for n, step in enumerate(steps):
        who, name = step.split(":")
        speaker, hearer = ("A", "B") if who == "A" else ("B", "A")
        act = build_act(name, speaker, hearer, thread, f"task{n}")
        thread = tracker.apply(act, conv, f"m{n}")
    return tracker, thread


def test_the_protocol_data_is_the_reference_table() -> None:
    assert TABLE == REFERENCE and len(CFA.arcs) == 16
    assert CFA.final == frozenset({"5", "7", "8", "9"})


@pytest.mark.parametrize("state", [1, 2, 6, 3, 4, 5, 7, 8, 9])
def test_the_tracker_alone_accepts_exactly_the_arcs(state: int) -> None:
    prefix = PATH_TO[state] if state in PATH_TO else next(
        PATH_TO[s] + [f"{w}:{a}"] for (s, w, a), t in REFERENCE.items() if t == state and s in PATH_TO)
    for who in "AB":
        for name in WF_ACTS:
            tracker, thread = play(prefix)
            assert (thread.state if thread else 1) == state
            if state == 1 and who == "B":
                continue  # whoever opens with a request is, by definition, W&F's A
            speaker, hearer = ("A", "B") if who == "A" else ("B", "A")
            try:
                act = build_act(name, speaker, hearer, thread, "other-task")
                after = tracker.apply(act, "c", "x").state
            except Rejected:
                after = None
            assert after == REFERENCE.get((state, who, name)), (state, who, name, after)


NAMED_PATHS = [  # (path as in the paper, acts, final state, outcome)
    ("1-2-8", ["A:request", "B:refuse"], 8, "refused"),
    ("1-2-8 (A withdraws)", ["A:request", "A:withdraw"], 8, "withdrawn"),
    ("1-(2-6)*-2*-8", ["A:request", "B:counter", "A:counter-counter", "B:counter", "A:reject"], 8,
     "countered-rejected"),
    ("1-(2-6)*-2-8", ["A:request", "B:counter", "A:counter-counter", "B:refuse"], 8, "refused"),
    ("1-2-6-8 (B withdraws)", ["A:request", "B:counter", "B:withdraw-offer"], 8, "countered-rejected"),
    ("3-7", PATH_TO[3] + ["B:renege"], 7, "reneged"),
    ("3-9", PATH_TO[3] + ["A:withdraw"], 9, "withdrawn"),
    ("3-(4-3)*-7", PATH_TO[3] + ["B:assert", "A:declare-not", "B:renege"], 7, "reneged"),
    ("3-(4-3)*-9", PATH_TO[3] + ["B:assert", "A:declare-not", "B:assert", "A:declare-not", "A:withdraw"], 9,
     "withdrawn"),
    ("3-(4-3)*-5", PATH_TO[3] + ["B:assert", "A:declare-not", "B:assert", "A:declare"], 5, "success"),
    ("1-(2-6)*-3-4-5", ["A:request", "B:counter", "A:accept", "B:assert", "A:declare"], 5, "success"),
    ("4-9", PATH_TO[4] + ["A:withdraw"], 9, "withdrawn"),
]


@pytest.mark.parametrize("name, steps, final, outcome", NAMED_PATHS, ids=[p[0] for p in NAMED_PATHS])
def test_named_paths_end_where_the_paper_says(name, steps, final, outcome) -> None:
    tracker, thread = play(steps)
    assert thread.state == final and thread.outcome == outcome
    assert tracker.obligations("A") == [] and tracker.obligations("B") == []
    assert tracker.team("c") == set()
    if outcome == "reneged":
        assert any(r.violated for r in thread.records)


def test_teams_exist_in_states_3_and_4_only_and_disband_on_success() -> None:
    tracker = Tracker()
    seen = {}
    thread = None
    for n, step in enumerate(["A:request", "B:promise", "B:assert", "A:declare-not", "B:assert", "A:declare"]):
        who, name = step.split(":")
        s, h = ("A", "B") if who == "A" else ("B", "A")
        thread = tracker.apply(build_act(name, s, h, thread, "fix the roof"), "c", f"m{n}")
        seen[thread.state] = tracker.team("c")
    assert seen == {2: set(), 3: {"A", "B"}, 4: {"A", "B"}, 5: set()}
    # Theorem 5: all three records discharged as achieved, each by the declaring message
    assert {(r.kind, r.holder, r.reason) for r in thread.records if r.discharged_by == "m5"} == {
        ("pwag", "A", "achieved"), ("pwag", "B", "achieved"), ("duty", "B", "achieved")}
    assert [r.reason for r in thread.records if r.kind == "duty"] == ["superseded", "achieved"]


def test_obligations_per_state_match_the_reference_oracle() -> None:
    expect = {2: ({"pwag"}, set()), 6: (set(), {"offer"}), 3: ({"pwag"}, {"pwag"}),
              4: ({"pwag"}, {"pwag", "duty"})}
    for state, (a_holds, b_holds) in expect.items():
        tracker, _ = play(PATH_TO[state])
        assert {r.kind for r in tracker.obligations("A")} == a_holds
        assert {r.kind for r in tracker.obligations("B")} == b_holds


# ---- random act sequences -------------------------------------------------------------------
@settings(max_examples=300, deadline=None)
@given(st.data(), st.integers(0, 16))
def test_random_sequences_records_and_machine_agree(data, steps: int) -> None:
    tracker = Tracker()
    thread = None
    machine = 1
    for n in range(steps):
        # three moves in four are one of the figure's arcs out of the state reached (so sequences
        # do reach 3, 4 and every final state), the rest any act by either party
        legal = sorted((w, a) for (s, w, a) in TABLE if s == machine)
        if legal and data.draw(st.integers(0, 3)) > 0:
            who, name = data.draw(st.sampled_from(legal))
        else:
            who, name = data.draw(st.sampled_from("AB")), data.draw(st.sampled_from(WF_ACTS))
        task = data.draw(st.sampled_from(["a", "b"]))
        s, h = ("A", "B") if who == "A" else ("B", "A")
        if machine == 1 and who == "B":
            continue  # whoever opens is, by definition, W&F's A
        try:
            act = build_act(name, s, h, thread, task)
            thread = tracker.apply(act, "c", f"m{n}")
        except Rejected:
            assert (machine, who, name) not in TABLE or machine in FINAL_STATES, (machine, who, name)
            continue
        if machine == 6 and name == "request":
            name = "accept"                       # the paper: Accept(a1) *is* (REQ A B a1 q)
        machine = TABLE[(machine, who, name)]     # accepted ⇒ the figure has this arc
        assert derive_state(thread) == machine    # I4: state from the records alone
        active = thread.active()
        assert thread.team == (machine in (3, 4))  # I1
        if machine in FINAL_STATES:
            assert active == []                    # I2: nothing dangling,
            assert [r for r in thread.records if r.active] == []   # not even an expected reply
        else:
            assert active                          # I3


# ---- acts and their composition ----------------------------------------------------------
def test_acts_are_built_from_the_two_primitives() -> None:
    co = A.counteroffer("B", "A", "paint", "paint blue")
    assert co.parts == A.refuse("B", "A", "paint").parts + A.offer("B", "A", "paint blue").parts
    for act in (A.renege("B", "A", "x"), A.withdraw("A", "B", "x"), A.declare_done("A", "B", "x"),
                A.counter_counter("A", "B", "x", "y"), A.promise_and_report("B", "A", "x")):
        assert all(isinstance(p, (A.Request, A.Assert)) for p in act.parts)
    assert isinstance(A.accept("A", "B", "x").parts[0], A.Request)
    assert A.fipa_performative("promise") == "agree"       # the paper's CONFIRM is FIPA agree
    assert A.fipa_performative("declare-not") == "disconfirm"
    assert A.kqml_performative("request") == "achieve" and A.kqml_performative("assert") == "tell"
    assert "□¬(PWAG B A (DONE B paint)" in str(A.refuse("B", "A", "paint"))
    # embedding: a query is a request whose action is the hearer's assertion
    assert str(A.query("A", "B", "(price plum)")) == "query = REQ A B ASSERT B A '(price plum)' q"


def test_every_act_reads_in_plain_words() -> None:
    assert A.english(A.counteroffer("B", "A", "paint", "paint blue")) == (
        "B tells A it will not commit to paint as asked; then B offers to do paint blue if A asks")
    assert A.english(A.renege("B", "A", "paint")) == "B tells A it no longer intends to do paint"
    assert A.english(A.declare_done("A", "B", "paint")) == "A tells B it agrees paint is done"
    assert A.english(A.query("A", "B", "(price plum)")) == "A asks B to tell it '(price plum)'"
    every = [A.request("A", "B", "x"), A.confirm("B", "A", "x"), A.refuse("B", "A", "x"),
             A.counteroffer("B", "A", "x", "y"), A.accept("A", "B", "y"), A.reject_offer("A", "B", "y"),
             A.counter_counter("A", "B", "y", "z"), A.withdraw_offer("B", "A", "y"), A.withdraw("A", "B", "x"),
             A.renege("B", "A", "x"), A.fail("B", "A", "x"), A.report_done("B", "A", "x"),
             A.declare_done("A", "B", "x"), A.declare_not_done("A", "B", "x"), A.inform("A", "B", "hi"),
             A.query("A", "B", "p")]
    words = [A.english(act) for act in every]
    assert len(set(words)) == len(words) and not any("DONE" in w or "PWAG" in w for w in words)


def test_a_new_act_composed_by_sequencing_gets_its_meaning_for_free() -> None:
    # "promise and report": a CONFIRM then an ASSERT of DONE in one message, never hand-coded
    tracker = Tracker()
    tracker.apply(A.request("A", "B", "ship"), "c", "m1")
    quick = A.confirm("B", "A", "ship").then(A.report_done("B", "A", "ship"), "promise-and-report")
    assert tracker.apply(quick, "c", "m2").state == 4
    assert {r.kind for r in tracker.obligations("B")} == {"pwag", "duty"}


def test_preconditions_are_rejected_with_the_reason() -> None:
    tracker = Tracker()
    with pytest.raises(Rejected, match="outstanding"):
        tracker.apply(A.confirm("B", "A", "x"), "c", "m1")          # CONFIRM with no REQ
    tracker.apply(A.request("A", "B", "x"), "c", "m1")
    with pytest.raises(Rejected, match="not promised"):
        tracker.apply(A.renege("B", "A", "x"), "c", "m2")           # renege with no P_B
    with pytest.raises(Rejected, match="not reported"):
        tracker.apply(A.declare_done("A", "B", "x"), "c", "m2")     # declare with no report
    with pytest.raises(Rejected, match="offer"):
        tracker.apply(A.accept("A", "B", "y"), "c", "m2")           # accept with no offer
    tracker.apply(A.refuse("B", "A", "x"), "c", "m2")
    with pytest.raises(Rejected, match="is over"):
        tracker.apply(A.request("A", "B", "x"), "c", "m3")          # any act in a final state


# ---- deadlines and duties -----------------------------------------------------------------
def test_reply_by_marks_overdue_without_discharging() -> None:
    clock = ManualClock()
    tracker = Tracker(clock)
    tracker.apply(A.request("A", "B", "x"), "c", "m1", deadline=clock.now().replace(second=30))
    assert tracker.overdue() == []
    clock.advance(31)
    [late] = tracker.overdue()
    assert late.kind == "expect" and late.holder == "B" and late.active
    assert tracker.state("c", "A", "B") == 2                        # nothing discharged
    assert "OVERDUE" in late.describe(clock.now())
    tracker.apply(A.confirm("B", "A", "x"), "c", "m2")
    assert tracker.overdue() == [] and late.reason == "answered"


def test_a_dropped_goal_owes_an_inform_until_the_withdraw_is_sent() -> None:
    tracker, _ = play(PATH_TO[3])
    record = tracker.drop("c", "A", "B", "irrelevant")
    assert record.active and "owes-inform (irrelevant)" in record.describe()
    tracker.apply(A.withdraw("A", "B", "task0"), "c", "m9")
    assert not record.active and tracker.state("c", "A", "B") == 9


def test_a_performers_owed_inform_is_met_by_its_report() -> None:
    tracker, _ = play(PATH_TO[3])
    record = tracker.drop("c", "B", "A", "achieved")
    assert "owes-inform (achieved)" in record.describe()
    with pytest.raises(Rejected, match="already reported"):   # rejected whole: the flag stays
        tracker.apply(A.report_done("B", "A", "task0").then(A.renege("B", "A", "task0")), "c", "m8")
    assert record.owes_inform == "achieved" and tracker.state("c", "A", "B") == 3
    tracker.apply(A.report_done("B", "A", "task0"), "c", "m9")
    assert record.active and record.owes_inform is None and tracker.state("c", "A", "B") == 4


# ---- protocols checked against the tracker ------------------------------------------------
@pytest.mark.parametrize("name", sorted(PROTOCOLS))
def test_every_shipped_protocol_passes_the_checker(name: str) -> None:
    assert check(PROTOCOLS[name]) == []


def test_the_checker_finds_fipa_requests_missing_acknowledgement() -> None:
    strict = dataclasses.replace(FIPA_REQUEST, name="strict-fipa-request",
                                 arcs=tuple(a for a in FIPA_REQUEST.arcs if a.source != "done"),
                                 states={**FIPA_REQUEST.states, "done": 5})
    problems = [str(f) for f in check(strict)]
    assert any("final state 'done' leaves obligations" in p and "duty" in p for p in problems)
    broken = dataclasses.replace(CFA, arcs=CFA.arcs[:-3])   # drop the arcs out of 4
    assert any("state '4' is not final and has no arc out" in str(f) for f in check(broken))


def test_the_engine_on_the_wire_accepts_exactly_the_arcs() -> None:
    from wwm.acl.engine import Engine
    from wwm.acl.message import AID, ACLMessage

    wire = {("A", "request"): "request", ("B", "promise"): "agree", ("B", "counter"): "propose",
            ("B", "refuse"): "refuse", ("A", "withdraw"): "cancel", ("A", "counter-counter"): "request",
            ("A", "accept"): "accept-proposal", ("A", "reject"): "reject-proposal",
            ("B", "withdraw-offer"): "cancel", ("B", "assert"): "inform", ("B", "renege"): "inform",
            ("A", "declare"): "inform", ("A", "declare-not"): "disconfirm"}
    performatives = sorted({p for p in wire.values()} | {"failure", "confirm", "cfp"})

    def message(n: int, who: str, perf: str, act: str | None) -> ACLMessage:
        s, r = ("A", "B") if who == "A" else ("B", "A")
        return ACLMessage(perf, AID(s), (AID(r),), content=f"task{n}", conversation_id="c",
                          reply_with=f"m{n}", user=(("X-act", act),) if act else ())

    def reach(state: int) -> Engine:
        e = Engine()
        prefix = PATH_TO[state] if state in PATH_TO else next(
            PATH_TO[s] + [f"{w}:{a}"] for (s, w, a), t in REFERENCE.items() if t == state and s in PATH_TO)
        for n, step in enumerate(prefix):
            who, name = step.split(":")
            [v] = e.handle(message(n, who, wire[(who, name)], name if name in ("renege", "declare") else None))
            assert v.accepted, v.reason
        return e

    for state in (1, 2, 6, 3, 4, 5, 7, 8, 9):
        for who in "AB":
            for perf in performatives:
                for act in (None, "renege", "declare"):
                    if state == 1 and who == "B":
                        continue
                    e = reach(state)
                    [v] = e.handle(message(99, who, perf, act))
                    arcs = [a for a in CFA.arcs if int(a.source) == state and a.performative == perf
                            and (a.role == "initiator") == (who == "A") and (act is None or a.act == act)]
                    assert v.accepted == bool(arcs), (state, who, perf, act, v.reason)
                    if arcs:
                        assert v.arc == arcs[0] and int(v.after) == REFERENCE[(state, who, arcs[0].act)]
