"""The Q-learning / W-learning mind: temperature kept by the server or sent each step, strong
and weak versions of one mind (10.10), W-learning from losses, knowledge kept per client
(7.3), and the refusals of 9.2.1 / 9.2.2."""

from __future__ import annotations

import math
import random

import pytest

from wwm import Refusal
from wwm.selection.ant import AntWorld
from wwm.selection.learning.knowledge import KnowledgeStore
from wwm.selection.learning.qlearning import QLearningMind
from wwm.selection.learning.tables import Temperature, boltzmann_choice


@pytest.fixture(autouse=True)
def knowledge_dir(tmp_path, monkeypatch):
    monkeypatch.setenv("WWM_KNOWLEDGE_DIR", str(tmp_path))
    return tmp_path


def test_temperature_declines_over_the_declared_run_length_and_resets():
    t = Temperature(2.0, run_length=4)
    assert [t.tick() for _ in range(6)] == [2.0, 1.5, 1.0, 0.5, 0.0, 0.0]
    t.reset(run_length=2)
    assert [t.tick() for _ in range(3)] == [2.0, 1.0, 0.0]
    with pytest.raises(ValueError):
        Temperature(-1.0)


def test_boltzmann_choice_greedy_at_zero_and_spread_when_hot():
    rng = random.Random(0)
    assert boltzmann_choice([0.0, 1.0, 0.5], 0.0, rng) == 1
    picks = {boltzmann_choice([0.0, 1.0, 0.5], 100.0, rng) for _ in range(200)}
    assert picks == {0, 1, 2}


async def test_server_kept_temperature_and_the_temperature_queries():
    m = QLearningMind(reward="score", actions="a,b", q_temperature=1.0, run_length=10)
    await m.new_run()
    assert await m.get_q_temperature() == 1.0
    for _ in range(5):
        await m.get_action("s")
    assert await m.get_q_temperature() == pytest.approx(0.5)
    await m.reset_q_temperature()
    assert await m.get_q_temperature() == 1.0
    await m.send_q_temperature(3.0, run_length=3)
    assert [await m.get_q_temperature()] == [3.0]
    await m.get_action("s")
    assert await m.get_q_temperature() == pytest.approx(2.0)
    with pytest.raises(Refusal, match="negative"):
        await m.send_q_temperature(-1.0)


async def test_client_kept_temperature_per_step_even_as_text():
    m = QLearningMind(reward="score", actions="a,b", q_temperature=50.0, seed=1)
    await m.new_run()
    m.table.update("s", 1, 1.0, None)  # b is better
    # temperature 0 sent with the step: always the best action, whatever the server's
    assert {(await m.get_action("s", q_temperature="0")).action for _ in range(20)} == {"b"}
    before = await m.get_q_temperature()
    await m.get_action("s", q_temperature=0.0)
    assert await m.get_q_temperature() == before  # the server's schedule did not move
    with pytest.raises(Refusal, match='"Q-temperature" should be a number'):
        await m.get_action("s", q_temperature="hot")


async def _train_pair(c: float, steps: int = 3000):
    """Two minds, rewards r and c*r, shown exactly the same experience (a random behaviour
    they do not control, told as the executed action), both suggesting greedily."""
    minds = [QLearningMind(reward="ant.food", view="i,f", w_initial=0.0, q_temperature=0.0),
             QLearningMind(reward="ant.food", view="i,f", r=0.7 * c, w_initial=0.0, q_temperature=0.0)]
    worlds = [AntWorld(seed=5), AntWorld(seed=5)]
    rng = random.Random(9)
    for m in minds:
        await m.new_run()
    xs = [await w.get_state() for w in worlds]
    for _ in range(steps):
        a = str(rng.randrange(9))
        for i in range(2):
            await minds[i].get_suggestion(xs[i])
            o = await worlds[i].execute_action(a)
            await minds[i].inform_winner(o.state, obeyed=False, action=a, score=o.score)
            xs[i] = o.state
    return minds


@pytest.mark.parametrize("c", [3.0, 0.25])
async def test_multiplying_rewards_by_c_multiplies_q_and_w_by_c_and_keeps_the_policy(c):
    weak, strong = await _train_pair(c)
    assert weak.table.q.keys() == strong.table.q.keys() and len(weak.table.q) >= 10
    for x, row in weak.table.q.items():
        assert strong.table.q[x] == pytest.approx([c * v for v in row], rel=1e-9, abs=1e-12)
        assert strong.table.best(x) == weak.table.best(x)
    assert any(abs(v) > 1e-6 for v in weak.wtable.w.values())
    for x, w in weak.wtable.w.items():
        assert strong.wtable.w[x] == pytest.approx(c * w, rel=1e-9, abs=1e-12)


async def test_strength_multiplies_reported_q_and_w_without_changing_the_policy():
    m = QLearningMind(reward="score", actions="a,b,c", w="q", q_temperature=0.0)
    await m.new_run()
    m.table.update("s", 2, 2.0, None)
    m.table.update("s", 0, 1.0, None)
    weak = await m.get_suggestion("s")
    weak_values = await m.get_values("s", "a")
    await m.change_strength(5.0)
    assert await m.get_strength() == 5.0
    strong = await m.get_suggestion("s")
    assert strong.action == weak.action == "c"
    assert strong.w == pytest.approx(5 * weak.w) and strong.q == pytest.approx(5 * weak.q)
    strong_values = await m.get_values("s", "a")
    assert strong_values.w == pytest.approx(5 * weak_values.w) == pytest.approx(5.0)
    with pytest.raises(Refusal, match="positive"):
        await m.change_strength(0.0)
    with pytest.raises(ValueError, match="positive"):
        QLearningMind(strength=-1.0)


async def test_w_learning_learns_the_loss_of_not_being_obeyed_and_the_winner_waits():
    # one state, two actions: its own "good" pays 1 and "bad" pays nothing (gamma 0)
    m = QLearningMind(reward="score", actions="good,bad", gamma=0.0, q_temperature=0.0, w_initial=-0.5)
    await m.new_run()
    m.table.update("s", 0, 1.0, None)
    for _ in range(10):  # obeyed: the leader's W stays where it is (strict variant)
        await m.get_suggestion("s")
        await m.inform_winner("s", obeyed=True, score=1.0)
    assert m.wtable.value("s") == -0.5
    for _ in range(30):  # not obeyed: someone else's "bad" was executed
        s = await m.get_suggestion("s")
        assert s.action == "good"
        v = await m.inform_winner("s", obeyed=False, action="bad", score=0.0)
        assert v.w == pytest.approx(1.0)  # d = Q(x,good) - (r + 0) = 1
    assert m.wtable.value("s") == pytest.approx(1.0)
    assert (await m.get_suggestion("s")).w == pytest.approx(1.0)
    # with update_winner the winner's W decays towards its expected loss, 0
    u = QLearningMind(reward="score", actions="good,bad", gamma=0.0, q_temperature=0.0, update_winner=True)
    await u.new_run()
    u.table.update("s", 0, 1.0, None)
    u.wtable.w["s"] = 1.0
    for _ in range(20):
        await u.get_suggestion("s")
        await u.inform_winner("s", obeyed=True, score=1.0)
    assert abs(u.wtable.value("s")) < 0.1


async def test_a_mind_not_asked_still_reports_its_loss_even_when_frozen():
    """Collective W-learning asks one mind, then learns from the losses the others report
    (10.13): a mind not asked measures its loss against its own best action."""
    for learn in (True, False):
        m = QLearningMind(reward="score", actions="good,bad", gamma=0.5, q_temperature=0.0, learn=learn)
        await m.new_run()
        m.table.update("s", 0, 2.0, None)   # Q(s, good) = 2
        m.table.update("t", 0, 1.0, None)   # Q(t, good) = 1
        await m.inform("s")                 # (the run so far ended in s)
        v = await m.inform_winner("t", obeyed=None, action="bad", score=0.0)
        assert v.w == pytest.approx(2.0 - (0.0 + 0.5 * 1.0))  # d = Q(s,a_i) - (r + gamma max Q(t))
        assert m.wtable.w == {}  # not asked, so neither obeyed nor overruled: W unchanged
        assert m.table.value("s", 1) == (0.5 if learn else 0.0)  # Q learns only if not frozen


async def test_collection_changed_makes_w_learn_quickly_again():
    m = QLearningMind(reward="score", actions="good,bad", gamma=0.0, q_temperature=0.0)
    await m.new_run()
    m.table.update("s", 0, 1.0, None)
    for _ in range(50):
        await m.get_suggestion("s")
        await m.inform_winner("s", obeyed=False, action="bad", score=0.0)
    m.table.q["s"][0] = 3.0  # the loss is now 3
    await m.reset_w_temperature()
    await m.get_suggestion("s")
    await m.inform_winner("s", obeyed=False, action="bad", score=0.0)
    assert m.wtable.value("s") == pytest.approx(3.0)  # alpha back to 1


async def _teach(client: str | None, good: str, steps: int = 60, other: str | None = None) -> QLearningMind:
    m = QLearningMind(reward="score", actions="a,b", q_temperature=2.0, run_length=steps, seed=2)
    await m.new_run(client, other_client_url=other)
    for _ in range(steps):
        s = await m.get_action("s")
        await m.inform("s", 1.0 if s.action == good else 0.0)
    await m.end_run()
    return m


async def greedy(client: str | None, other: str | None = None) -> str:
    m = QLearningMind(reward="score", actions="a,b", q_temperature=2.0, run_length=60, seed=2)
    await m.new_run(client, other_client_url=other)
    return (await m.get_action("s", q_temperature=0)).action


async def test_knowledge_is_kept_per_client_and_given_only_when_asked_for(knowledge_dir):
    one, two, three = "http://one.example/", "http://two.example/", "http://three.example/"
    await _teach(one, "a")
    await _teach(two, "b")
    assert await greedy(one) == "a"
    assert await greedy(two) == "b"
    assert await greedy(three) == "a"  # nothing learnt yet: ties go to the first action
    assert await greedy(three, other=one) == "a"
    assert await greedy(three, other=two) == "b"
    # client three trains "client one's mind" towards b: one's own copy does not change
    identity = QLearningMind(reward="score", actions="a,b").identity
    before = KnowledgeStore(knowledge_dir).load(identity, one)
    await _teach(three, "b", steps=200, other=one)
    after = KnowledgeStore(knowledge_dir).load(identity, one)
    assert before is not None
    assert before == after
    assert await greedy(one) == "a"
    assert await greedy(three) == "b"


async def test_other_client_unknown_is_refused():
    m = QLearningMind(reward="score", actions="a,b")
    with pytest.raises(Refusal) as info:
        await m.new_run("http://me.example/", other_client_url="http://nobody.example/")
    assert info.value.code == "other-client-unknown" and "nobody.example" in info.value.text
    with pytest.raises(Refusal) as info:
        await QLearningMind(reward="score", actions="a,b", pretrained="urn:none").new_run()
    assert info.value.code == "other-client-unknown"
    with pytest.raises(Refusal) as info:
        await QLearningMind(reward="score", actions="a,b").new_run(other_client_url="client one")
    assert info.value.code == "client-url-invalid" and "'client one'" in info.value.text


@pytest.mark.parametrize("kwargs, text", [
    ({"reward": "fame"}, "unknown reward 'fame'"), ({"actions": ""}, "at least one action"),
    ({"actions": "a,a"}, "twice"), ({"gamma": 1.0}, "gamma"), ({"w": "big"}, "learned"),
    ({"view": "i,i"}, "twice")])
def test_bad_arguments_are_named(kwargs, text):
    with pytest.raises(ValueError, match=text):
        QLearningMind(**kwargs)


async def test_a_view_the_state_lacks_is_refused_by_name():
    m = QLearningMind(reward="ant.food", view="i,q")
    await m.new_run()
    with pytest.raises(Refusal, match="names q"):
        await m.get_action("i=0 n=1 f=9 p=9")


async def test_minds_bidding_at_one_w_temperature_win_by_boltzmann_over_w():
    """The Gumbel-max identity the W-temperature rests on (7.3.2): the highest of the bids of
    minds with W 1, 0.5, 0 at T picks mind k with probability e^{W_k/T} / SUM_j e^{W_j/T}."""
    t, ws, n = 0.5, (1.0, 0.5, 0.0), 4000
    minds = [QLearningMind(reward="score", actions="a", w_initial=w, learn=False, w_temperature=t,
                           w_run_length=1e9, seed=i) for i, w in enumerate(ws)]
    for m in minds:
        await m.new_run()
    wins = [0, 0, 0]
    for _ in range(n):
        bids = [(await m.get_suggestion("s")).w for m in minds]
        wins[bids.index(max(bids))] += 1
    total = sum(math.exp(w / t) for w in ws)
    for k, w in enumerate(ws):
        assert wins[k] / n == pytest.approx(math.exp(w / t) / total, abs=0.025)  # 3 sd ~0.02
    assert await minds[0].get_w_temperature() == pytest.approx(t, abs=1e-4)  # a long W run: barely moved


async def test_a_mind_saved_before_the_w_schedule_goes_on_with_its_w_temperature():
    """A --state server's run pickled by the version whose mind kept a bare ``w_temperature``
    is read back with that temperature, declining from there, and bids at once."""
    import pickle

    mind = QLearningMind(actions="a,b", w_temperature=0.0, run_length=100, seed=1)
    await mind.new_run()
    old = mind.__dict__.copy()
    del old["w_schedule"]
    old["w_temperature"] = 2.0
    mind.__dict__.clear()
    mind.__dict__.update(old)     # the object as the old version pickled it
    blob = pickle.dumps(mind)
    back = pickle.loads(blob)
    assert await back.get_w_temperature() == 2.0
    suggestion = await back.get_suggestion("x")
    assert suggestion.action in ("a", "b")
    assert await back.get_w_temperature() < 2.0      # the schedule moved one step down
