"""The Mind_AS server in one process: every method decides on crafted Q tables as the rules
say, asks its minds in parallel within its time-out, tells every mind what happened, lets
minds leave mid-run, shows each mind its sub-space, follows Mind URLs, competes as a Mind_i
in a higher-level AS, remembers winners, and Hierarchical Q-learning learns whom to obey."""

from __future__ import annotations

import asyncio
import time

import pytest
from society_minds import DirectionMind, Forager, Idle, PlainMind, SilentMind, TableMind

from wwm import Refusal
from wwm.client.runner import RunSettings, run
from wwm.selection import METHODS, ActionSelectionMind
from wwm.selection.ant import AntWorld

# the hand-computed table of test_as_rules: MBH a0, MWU a1, MCU = MCH a1
Q = ["a0:5,a1:4,a2:0", "a0:0,a1:3,a2:4", "a0:1,a1:2,a2:0"]


async def decide(method: str, q=Q, **kwargs) -> tuple[str | None, ActionSelectionMind]:
    as_ = ActionSelectionMind([TableMind(t) for t in q], method=method, seed=0, **kwargs)
    await as_.new_run()
    return (await as_.get_action("x")).action, as_


@pytest.mark.parametrize("method, expected", [
    ("w=q", "a0"), ("max-best-happiness", "a0"), ("static-w", "a0"),
    ("min-worst-unhappiness", "a1"), ("min-collective-unhappiness", "a1"),
    ("max-collective-happiness", "a1"), ("damn", "a1"), ("collective-equality", "a1"),
    ("negotiated-collective-w", "a1"), ("product-mch", "a1"), ("most-popular", None)])
async def test_each_method_on_a_crafted_table_over_the_suggested_actions(method, expected):
    # the minds suggest a0, a2 and a1, so the candidates are the whole table; by hand:
    # negotiated collective: W(a0) = 4+1, W(a2) = 5+2, W(a1) = 1+1 -> a1
    action, _ = await decide(method)
    if expected is not None:
        assert action == expected
    else:
        assert action in {"a0", "a1", "a2"}


@pytest.mark.parametrize("method, expected", [
    ("min-worst-unhappiness", "a1"), ("min-collective-unhappiness", "a1"),
    ("max-collective-happiness", "a1"), ("collective-equality", "a1"), ("product-mch", "a1")])
async def test_global_methods_over_the_shared_suite_find_the_compromise(method, expected):
    # mind 2's best action is a1 here, so make it prefer a0 to leave a1 a pure compromise
    q = [Q[0], Q[1], "a0:2,a1:1.5,a2:0"]
    action, as_ = await decide(method, q, candidates="shared", actions="a0,a1,a2")
    assert action == expected
    assert as_.last.winner is None and as_.last.note == "compromise action"


async def test_damn_weights_are_held_by_the_as():
    assert (await decide("damn", weights="1,1,1"))[0] == "a1"      # 6, 9, 4
    assert (await decide("damn", weights="1,0.1,0.1"))[0] == "a0"  # 5.1, 4.5, 0.4
    assert (await decide("damn", weights="1,10,1"))[0] == "a2"     # 6, 36, 40
    with pytest.raises(ValueError, match="weights gives 2 numbers for 3 minds"):
        ActionSelectionMind([TableMind(t) for t in Q], method="damn", weights="1,2")


async def test_negotiated_w_walks_to_the_mind_that_loses_most():
    # from every start the walk ends with mind 0 (a0) leading: it would lose 5 by a2
    for seed in range(5):
        as_ = ActionSelectionMind([TableMind(t) for t in Q], method="negotiated-w", seed=seed)
        await as_.new_run()
        assert (await as_.get_action("x")).action == "a0"
        assert as_.last.rounds >= 1
    first = ActionSelectionMind([TableMind(t) for t in Q], method="negotiated-w", start="first")
    await first.new_run()
    # start mind 0 (a0): losses (-, 4, 1) -> mind 1 leads with 4; vs a2: (5, -, 2): mind 0 with 5;
    # vs a0: (-, 4, 1): 4 < 5, stop. Mind 0 leads.
    assert (await first.get_action("x")).action == "a0"
    assert first.last.w == 5.0 and first.last.rounds == 3


async def test_asks_in_parallel_and_decides_within_its_time_out():
    # six silent minds: one time-out each, one after another, would be 1.8 s
    minds = [TableMind("a:1"), SilentMind(), TableMind("b:2"), *(SilentMind() for _ in range(5))]
    as_ = ActionSelectionMind(minds, method="w=q", timeout=0.3)
    await as_.new_run()
    t0 = time.monotonic()
    s = await as_.get_action("x")
    elapsed = time.monotonic() - t0
    assert s.action == "b" and 0.29 < elapsed < 1.2  # one time-out, not one per silent mind
    t0 = time.monotonic()
    await as_.inform("y", 1.0)  # the silent ones are told in the background, not waited for
    assert time.monotonic() - t0 < 0.2
    assert [m["misses"] for m in as_.status()] == [0, 1, 0] + [1] * 5
    assert as_.status()[1]["last_error"] == "no answer within the time-out"


async def test_every_mind_is_told_what_happened():
    minds = [TableMind("a:1,b:0"), TableMind("b:2,a:0"), TableMind("b:1,a:0.5")]
    minds[1].url = "http://winner.example/"
    plain = PlainMind("a")
    as_ = ActionSelectionMind(minds + [plain], method="w=q", views="*;*;*;i")
    await as_.new_run()
    assert (await as_.get_action("i=1 j=2")).action == "b"
    await as_.inform("i=3 j=4", 0.5)
    told = [m.told[-1] for m in minds]
    assert [t["obeyed"] for t in told] == [False, True, True]  # mind 2 wanted b too: obeyed
    assert {t["winner_url"] for t in told} == {"http://winner.example/"}
    assert {t["action"] for t in told} == {"b"} and {t["score"] for t in told} == {0.5}
    assert {t["state"] for t in told} == {"i=3 j=4"}
    assert plain.told == [("i=3", 0.5)]  # a plain Mind: Inform it about state, its own view


async def test_each_mind_sees_its_own_sub_space():
    minds = [TableMind("a:1"), TableMind("b:1"), TableMind("c:1")]
    as_ = ActionSelectionMind(minds, method="w=q", views="i,f;n;*")
    await as_.new_run()
    await as_.get_action("i=0 n=3 f=2 p=9")
    assert [m.states[-1] for m in minds] == ["i=0 f=2", "n=3", "i=0 n=3 f=2 p=9"]
    with pytest.raises(ValueError, match="views gives 2 sub-spaces for 3 minds"):
        ActionSelectionMind(minds, views="i;n")
    with pytest.raises(ValueError, match="needs 'views'"):
        ActionSelectionMind(minds, method="w-learning-subspaces")
    with pytest.raises(ValueError, match="give no 'views'"):
        ActionSelectionMind(minds, method="w-learning-full", views="i;n;*")


async def test_remove_mind_mid_run_tells_the_others_the_collection_changed():
    minds = [TableMind("a:1", url="http://one.example/"), TableMind("b:2", url="http://two.example/"),
             TableMind("c:0.5", url="http://three.example/")]
    as_ = ActionSelectionMind(minds, method="w=q")
    await as_.new_run()
    assert (await as_.get_action("x")).action == "b"
    await as_.remove_mind("http://two.example/")
    await asyncio.sleep(0.05)
    assert minds[1].ended
    assert [m.collection_changes for m in minds] == [1, 0, 1]
    assert (await as_.get_action("x")).action == "a"
    with pytest.raises(Refusal) as info:
        await as_.remove_mind("http://nowhere.example/")
    assert info.value.code == "bad-parameters" and "one.example" in info.value.text


async def test_add_mind_that_does_not_answer_is_refused():
    as_ = ActionSelectionMind([TableMind("a:1")], timeout=0.5)
    await as_.new_run()
    with pytest.raises(Refusal) as info:
        await as_.add_mind("http://127.0.0.1:9/")
    assert info.value.code == "mind-url-invalid" and "127.0.0.1:9" in info.value.text
    with pytest.raises(Refusal) as info:
        await as_.add_mind("not a url")
    assert info.value.code == "mind-url-invalid"
    assert len(as_.members) == 1


async def test_unknown_method_and_bad_minds_are_named():
    with pytest.raises(ValueError, match="unknown method 'best'; choose one of hierarchical-q"):
        ActionSelectionMind([], method="best")
    with pytest.raises(Refusal, match="not the URL of a Mind server"):
        ActionSelectionMind(["ftp://x"])
    for kwargs, text in [({"timeout": 0}, "timeout"), ({"candidates": "all"}, "candidates"),
                         ({"candidates": "shared"}, "shared suite"), ({"w_temperature": -1}, "temperature"),
                         ({"period": 0}, "period"), ({"gamma": 1.0}, "gamma"), ({"start": "last"}, "start")]:
        with pytest.raises(ValueError, match=text):
            ActionSelectionMind([], **kwargs)
    as_ = ActionSelectionMind([])
    await as_.new_run()
    assert not (await as_.get_action("x")).can_suggest


async def test_a_mind_url_is_followed_and_a_call_loop_is_cut():
    target = TableMind("z:0", url="http://target.example/")
    caller = TableMind("a:5", call="http://target.example/", url="http://caller.example/")
    as_ = ActionSelectionMind([caller, target, TableMind("b:1")], method="w=q")
    await as_.new_run()
    s = await as_.get_action("x")
    assert s.action == "z" and as_.last.note == "via http://target.example/"
    # A calls B, B calls A: the chain stops at max_depth and the next best mind acts
    a = TableMind("a:5", call="http://b.example/", url="http://a.example/")
    b = TableMind("b:4", call="http://a.example/", url="http://b.example/")
    loop = ActionSelectionMind([a, b, TableMind("c:1")], method="w=q", max_depth=3)
    await loop.new_run()
    assert (await loop.get_action("x")).action == "c"
    assert "gave no action" in loop.last.note and len(a.states) + len(b.states) == 2 + 3


async def test_an_as_competes_in_a_higher_level_as_passing_w_up_and_defeat_down():
    inner_minds = [TableMind("a:1,b:0", w=0.7), TableMind("b:1,a:0", w=0.2)]
    inner = ActionSelectionMind(inner_minds, method="static-w", strength=2.0)
    rival = TableMind("c:1", w=1.0, url="http://rival.example/")
    outer = ActionSelectionMind([inner, rival], method="static-w")
    await outer.new_run()
    assert (await outer.get_action("x")).action == "a"   # inner bids 2 * 0.7 = 1.4 > 1.0
    await outer.inform("y", 1.0)
    assert [m.told[-1]["obeyed"] for m in inner_minds] == [True, False]
    await inner.change_strength(1.0)                      # now it bids 0.7 < 1.0
    assert (await outer.get_action("x")).action == "c"
    await outer.inform("y", 0.0)
    for m in inner_minds:
        assert m.told[-1]["obeyed"] is False and m.told[-1]["action"] == "c"
        assert m.told[-1]["winner_url"] == "http://rival.example/"
    v = await inner.get_values("x", "b")
    assert v.w == 1.0 and v.q == 1.0  # the worst loss, and the best Q, among its minds


async def test_remembering_the_winner_saves_queries():
    minds = [TableMind(t) for t in Q]
    as_ = ActionSelectionMind(minds, method="negotiated-w", start="first", remember=True)
    await as_.new_run()
    first = (await as_.get_action("x")).action
    asked = as_.panel.queries
    assert (await as_.get_action("x")).action == first
    assert as_.panel.queries - asked == 1 and as_.memory.hits == 1
    await as_.remove_mind(as_.members[2].url)  # the collection changed: forget k(x)
    assert not as_.memory.winners


ANT_MINDS = lambda: [DirectionMind("f", 1.0, when="i=0"), DirectionMind("n", 0.8, when="i=1"),  # noqa: E731
                     DirectionMind("p", 0.6, flee=True)]


@pytest.mark.parametrize("method", sorted(METHODS))
async def test_every_method_runs_a_society_in_the_ant_world(method):
    kwargs = {"views": "*;*;*"} if method == "w-learning-subspaces" else {}
    as_ = ActionSelectionMind(ANT_MINDS(), method=method, seed=1, **kwargs)
    result = await run(as_, AntWorld(seed=4), RunSettings(steps=150, keepalive=None))
    assert result.status == "completed" and len(result.steps) == 150
    per_step = as_.panel.queries / 150 - 3  # minus the three informs
    kind = as_.method.kind
    if kind == "neither":
        assert per_step == pytest.approx(1.0)
    elif kind == "AS_s":
        assert per_step == pytest.approx(3.0)
    else:
        assert per_step > 3.0


async def _play(minds, method: str, steps: int = 300) -> list[str]:
    as_ = ActionSelectionMind(minds, method=method, seed=0)
    result = await run(as_, AntWorld(seed=6), RunSettings(steps=steps, keepalive=None))
    return [s.action for s in result.steps]


async def test_copies_of_a_mind_change_nothing_under_mwu_and_w_eq_q_but_do_under_mch():
    def society(copies: int):
        food, nest, flee = ANT_MINDS()
        return [food, nest, flee] + [DirectionMind("p", 0.6, flee=True) for _ in range(copies)]
    for method in ("min-worst-unhappiness", "w=q"):
        assert await _play(society(0), method) == await _play(society(3), method)
    assert await _play(society(0), "max-collective-happiness") != await _play(society(3), "max-collective-happiness")


async def test_hierarchical_q_learns_to_let_the_good_mind_through():
    """A useless mind (it stays still) and a good one (a forager): the switch learns Q(x,i)
    from the World's score alone. Learning curve: score and share of steps obeying the
    forager per window of 500 steps (printed with -s)."""
    as_ = ActionSelectionMind([Idle(), Forager()], method="hierarchical-q", seed=2,
                              q_temperature=0.05, run_length=2000, gamma=0.9)
    window, curve, obeyed = 500, [], []
    result = await run(as_, AntWorld(seed=2, predators=0), RunSettings(steps=4000, keepalive=None),
                       on_step=lambda step, r: obeyed.append(as_.last.winner.ident))
    scores = result.step_scores
    for i in range(0, len(scores), window):
        curve.append((sum(scores[i:i + window]), obeyed[i:i + window].count(1) / window))
    print("hierarchical Q-learning curve (score, share obeying the forager):", curve)
    assert curve[0][1] < 0.65 and min(share for _, share in curve[-3:]) > 0.9, curve
    late = sum(score for score, _ in curve[-3:]) / 3
    assert late > 1.2 * curve[0][0], curve


async def test_a_w_learning_society_with_a_twin_of_a_mind_acts_as_without_it(tmp_path, monkeypatch):
    """Section 6 item 5 with learning minds: W-learning minds learn Q alone first, then W in
    the society. A twin of the homer suggests what the homer suggests, so it is never
    overruled when the homer is not, and the society acts exactly as the one without it."""
    from wwm.selection.compare import childhood
    from wwm.selection.learning.qlearning import QLearningMind

    monkeypatch.setenv("WWM_KNOWLEDGE_DIR", str(tmp_path))
    client = await childhood("ant", seed=1, steps=1500)

    def mind(goal: str, view: str) -> QLearningMind:
        return QLearningMind(reward=goal, view=view, pretrained=client, q_temperature=0.0, w_initial=-0.01)

    def society(twin: bool):
        minds = [mind("ant.food", "i,f"), mind("ant.nest", "n"), mind("ant.predator", "p")]
        return minds + ([mind("ant.nest", "n")] if twin else [])

    alone, twinned = society(False), society(True)
    assert await _play(alone, "w-learning", 400) == await _play(twinned, "w-learning", 400)
    assert twinned[3].wtable.w == twinned[1].wtable.w  # the twins learnt the same W
    assert any(w > 0 for w in alone[1].wtable.w.values())


async def test_economy_of_mind_pays_the_previous_owner_and_conserves_wealth():
    minds = [TableMind("a:1", w=0.5), TableMind("b:1", w=0.8), TableMind("c:1", w=0.2)]
    as_ = ActionSelectionMind(minds, method="economy")
    await as_.new_run()
    assert (await as_.get_action("x")).action == "b"   # the highest bid; nobody to pay yet
    await as_.inform("y", 1.0)                         # the reward goes to b, in control
    assert [m.told[-1]["payment"] for m in minds] == [None, None, None]
    minds[0].w = 0.9                                   # a outbids b ...
    assert (await as_.get_action("x")).action == "a"
    await as_.inform("y", 2.0)                         # ... and pays b its bid (the W item)
    assert [m.told[-1]["payment"] for m in minds] == [-0.9, 0.9, None]
    assert as_.method.wealth == pytest.approx({1: 1.0 + 0.9, 0: 2.0 - 0.9})
    assert sum(as_.method.wealth.values()) == pytest.approx(3.0)  # only the rewards made money
    assert (await as_.get_action("x")).action == "a"   # still a: no payment to itself
    await as_.inform("y", 0.0)
    assert minds[0].told[-1]["payment"] is None


async def test_a_temperature_sent_with_the_step_reaches_every_mind():
    from wwm.selection.learning.qlearning import QLearningMind

    minds = [QLearningMind(reward="score", actions="a,b", q_temperature=50.0, seed=k) for k in range(3)]
    for m in minds:
        m.table.update("s", 1, 1.0, None)  # each prefers b, but explores wildly by itself
    as_ = ActionSelectionMind(minds, method="most-popular", seed=0)
    await as_.new_run()
    hot = {(await as_.get_action("s")).action for _ in range(30)}
    cold = {(await as_.get_action("s", q_temperature="0")).action for _ in range(30)}
    assert hot == {"a", "b"} and cold == {"b"}


async def test_an_inner_as_not_asked_this_step_says_nobody_was_obeyed():
    inner_minds = [TableMind("a:1"), TableMind("b:1")]
    inner = ActionSelectionMind(inner_minds, method="w=q")
    rival = TableMind("c:1", url="http://rival.example/")
    outer = ActionSelectionMind([inner, rival], method="rotation")  # asks one mind a step
    await outer.new_run()
    assert (await outer.get_action("x")).action == "a"   # the inner society's turn
    await outer.inform("y", 0.0)
    assert [m.told[-1]["obeyed"] for m in inner_minds] == [True, False]
    assert (await outer.get_action("x")).action == "c"   # the rival's turn: inner not asked
    await outer.inform("z", 0.0)
    for m in inner_minds:  # not asked, so neither obeyed nor overruled; told what was done
        assert m.told[-1]["obeyed"] is None and m.told[-1]["action"] == "c"
        assert m.told[-1]["winner_url"] == "http://rival.example/" and m.told[-1]["state"] == "z"


async def test_strengths_are_sent_to_the_minds_and_change_who_wins():
    minds = [TableMind("a:1"), TableMind("b:2")]
    weak = ActionSelectionMind(minds, method="w=q")
    await weak.new_run()
    assert (await weak.get_action("x")).action == "b"
    strong_a = [TableMind("a:1"), TableMind("b:2")]
    society = ActionSelectionMind(strong_a, method="w=q", strengths="3,1")
    await society.new_run()                              # "Change mind strength" at New run
    assert [m.strength for m in strong_a] == [3.0, 1.0]
    assert (await society.get_action("x")).action == "a"  # 3 * 1 > 2
    with pytest.raises(ValueError, match="strengths must be positive"):
        ActionSelectionMind(minds, strengths="1,0")


async def test_collective_w_learns_who_hurts_the_others_least_by_hand():
    """10.13: the AS keeps W(x,i), the sum of the losses the others report when i leads,
    and lets the lowest W lead. By hand, in state x (all W start at 0, ties to mind 0):
    step 1 mind 0 leads (a): the others lose 2 and 0.5 -> W(x,0) = 2.5;
    step 2 mind 1 leads (b): mind 0 loses 1, mind 2 nothing -> W(x,1) = 1;
    step 3 mind 2 leads (b): mind 0 loses 1 -> W(x,2) = 1; from then on mind 1 (tie, lower)."""
    minds = [TableMind("a:1,b:0"), TableMind("b:2,a:0"), TableMind("b:1,a:0.5")]
    as_ = ActionSelectionMind(minds, method="collective-w")
    await as_.new_run()
    leaders = []
    for _ in range(5):
        await as_.get_action("x")
        leaders.append(as_.last.winner.ident)
        await as_.inform("x", 0.0)
    assert leaders == [0, 1, 2, 1, 1]
    assert as_.method.table.w == {("x", 0): 2.5, ("x", 1): 1.0, ("x", 2): 1.0}


async def test_collective_w_learns_over_frozen_q_learning_minds(tmp_path, monkeypatch):
    """The goal minds of `wwm compare` (frozen after childhood, not asked when they do not
    lead) report their losses, so the AS's W(x,i) fills and more than one mind leads."""
    from wwm.selection.compare import WORLDS, childhood
    from wwm.selection.learning.qlearning import QLearningMind

    monkeypatch.setenv("WWM_KNOWLEDGE_DIR", str(tmp_path))
    client = await childhood("ant", seed=1, steps=1500)
    minds = [QLearningMind(reward=g, view=v, pretrained=client, learn=False, q_temperature=0.0, w="q")
             for g, v in WORLDS["ant"][1]]
    as_ = ActionSelectionMind(minds, method="collective-w", seed=0)
    leaders = []
    await run(as_, AntWorld(seed=1), RunSettings(steps=300, keepalive=None),
              on_step=lambda step, r: leaders.append(as_.last.winner.ident))
    assert len(as_.method.table.w) > 10
    assert len(set(leaders)) > 1


async def test_a_view_the_state_lacks_is_refused_by_name_not_taken_for_a_broken_link():
    """It used to read as every mind missing, so the run went on with no action at all."""
    as_ = ActionSelectionMind([TableMind("a:1"), TableMind("b:2")], method="w=q", views="*;zz")
    await as_.new_run()
    with pytest.raises(Refusal) as info:
        await as_.get_action("i=0 n=3 f=2 p=9")
    assert info.value.code == "bad-parameters"
    assert "sub-space names zz, which the state does not have (it has: i, n, f, p)" in info.value.text
    result = await run(as_, AntWorld(seed=1), RunSettings(steps=20, keepalive=None))
    assert result.status == "mind lost" and "names zz" in str([e.__dict__ for e in result.events])


async def test_a_mind_that_takes_no_strength_is_named_with_why():
    slow = TableMind("b:1", url="http://slow.example/")

    async def never(strength: float) -> None:
        await asyncio.sleep(3600)

    slow.change_strength = never
    as_ = ActionSelectionMind([TableMind("a:1"), slow], strengths="1,2", timeout=0.2)
    with pytest.raises(Refusal) as info:
        await as_.new_run()
    assert info.value.code == "bad-parameters"
    assert info.value.text == "http://slow.example/ did not take strength 2: no answer within the time-out"
    plain = ActionSelectionMind([PlainMind("a")], strengths="3")
    with pytest.raises(Refusal, match="did not take strength 3: .*change_strength"):
        await plain.new_run()


async def test_stochastic_highest_w_follows_the_w_temperature():
    """[PhD] 6.5: P(k) = e^{W_k/T} / SUM e^{W_j/T}; here W = 1.0 and 0.9."""
    async def picks(t: float) -> list[str]:
        as_ = ActionSelectionMind([TableMind("a:1"), TableMind("b:0.9")], method="w-learning-stochastic",
                                  w_temperature=t, seed=3)
        await as_.new_run()
        return [(await as_.get_action("x")).action for _ in range(400)]
    assert set(await picks(0.0)) == {"a"}                  # T = 0: the strict highest W
    share = (await picks(0.1)).count("a") / 400            # e^10 / (e^10 + e^9) = 0.731
    assert 0.66 < share < 0.80
    hot = (await picks(100.0)).count("a") / 400            # nearly a coin toss
    assert 0.42 < hot < 0.58


async def test_the_w_temperature_declines_over_a_declared_run_length():
    """7.3.1, 9.2.2 "Proposed length of W learning run": stochastic highest W explores at first,
    then, the W-temperature having declined to 0 over w_run_length steps, the highest W wins."""
    as_ = ActionSelectionMind([TableMind("a:1"), TableMind("b:0.9")], method="w-learning-stochastic",
                              w_temperature=5.0, w_run_length=40, seed=3)
    await as_.new_run()
    temperatures, picks = [], []
    for _ in range(80):
        temperatures.append(await as_.get_w_temperature())
        picks.append((await as_.get_action("x")).action)
    assert temperatures[0] == 5.0 and temperatures[20] == pytest.approx(2.5) and temperatures[40:] == [0.0] * 40
    assert all(a >= b for a, b in zip(temperatures, temperatures[1:], strict=False))
    assert picks[:20].count("b") >= 5                # hot: nearly a coin toss
    assert set(picks[40:]) == {"a"}                  # cold: the strict highest W
    await as_.send_w_temperature(2.0, run_length=10)  # a new schedule sent by the client
    assert await as_.get_w_temperature() == 2.0
    for _ in range(10):
        await as_.get_action("x")
    assert await as_.get_w_temperature() == 0.0
    with pytest.raises(ValueError, match="w_run_length must be a positive"):
        ActionSelectionMind([TableMind("a:1")], w_run_length=0)


class LateMind(TableMind):
    """Refuses New run the first ``down`` times (a server not up yet), then starts."""

    def __init__(self, q: str, down: int) -> None:
        super().__init__(q)
        self.down = down

    async def new_run(self, client_url=None, world_display_url=None, world_run_id=None):
        if self.down > 0:
            self.down -= 1
            raise Refusal("unreachable", "not up yet")
        return await super().new_run(client_url, world_display_url, world_run_id)


async def test_a_mind_admitted_late_is_sent_its_strength_and_the_others_are_told_the_collection_changed():
    """10.16 under min_members: when a mind that did not start is admitted, every other mind
    is sent "Reset W-Temperature / Collection has changed"; its strength reaches it then."""
    a, b, late = TableMind("a:1"), TableMind("b:2"), LateMind("z:1", down=2)
    as_ = ActionSelectionMind([a, b, late], method="w=q", min_members=2, retry=0.01, strengths="1,1,9")
    await as_.new_run()
    assert as_.members[-1].mind is not late and as_.waiting[0].mind is late
    assert [r["waiting"] for r in as_.status()] == [False, False, True]
    for _ in range(50):
        if (await as_.get_action("x")).action == "z":
            break
        await as_.inform("y", 0.0)
        await asyncio.sleep(0.02)
    assert as_.last.winner.mind is late and late.strength == 9   # z:1 at strength 9 beats b:2
    assert a.collection_changes == b.collection_changes == 1 and late.collection_changes == 0
    with pytest.raises(ValueError, match="min_members must be between 1 and the number of minds"):
        ActionSelectionMind([a, b], min_members=3)
