"""The W-temperature of a served Q-learning / W-learning mind (7.3.2, 9.2.2), over HTTP: its
schedule over the proposed length of the W learning run (a New run argument), Reset and Send
explicit W-Temperature with a run length, the per-step W-temperature; and what it does in a
collection: served minds bidding at one W-temperature under a served "highest W" AS win with
the Boltzmann probabilities of the stochastic highest W ([PhD] 6.5), and as the temperature
anneals to 0 over the W run the weaker mind stops winning on schedule."""

from __future__ import annotations

import json
import math
import statistics

import pytest

from wwm import Refusal
from wwm.client.remote import RemoteMind
from wwm.server.process import ServerProcess

pytestmark = pytest.mark.slow

AS = "wwm.selection.mind_as:ActionSelectionMind"
Q = "wwm.selection.learning.qlearning:QLearningMind"


@pytest.fixture(scope="module")
def q_server(tmp_path_factory):
    env = {"WWM_KNOWLEDGE_DIR": str(tmp_path_factory.mktemp("knowledge"))}
    with ServerProcess(Q, env=env) as server:
        yield server


@pytest.fixture(scope="module")
def as_server():
    with ServerProcess(AS) as server:
        yield server


async def test_the_w_temperature_follows_its_schedule_and_the_queries(q_server):
    m = RemoteMind(q_server.url, reward="score", actions="a,b", w_temperature=2.0, w_run_length=10, seed=1)
    await m.new_run("http://client.example/")
    assert await m.get_w_temperature() == 2.0
    bids = [(await m.get_suggestion("s")).w for _ in range(5)]
    assert await m.get_w_temperature() == pytest.approx(1.0)     # half-way down the W run
    assert len(set(bids)) == 5 and any(b != 0.0 for b in bids)    # it explores: W (0 here) plus noise
    assert (await m.get_suggestion("s", w_temperature="0")).w == 0.0  # per step: exact, schedule kept
    assert await m.get_w_temperature() == pytest.approx(1.0)
    for _ in range(5):
        await m.get_suggestion("s")
    assert await m.get_w_temperature() == 0.0                     # the W run is over: exact bids
    assert {(await m.get_suggestion("s")).w for _ in range(5)} == {0.0}
    await m.reset_w_temperature(run_length=4)                     # collection changed
    assert await m.get_w_temperature() == 2.0
    await m.get_suggestion("s")
    await m.get_suggestion("s")
    assert await m.get_w_temperature() == pytest.approx(1.0)     # over the new length, 4
    await m.send_w_temperature(3.0, run_length=3)
    await m.get_suggestion("s")
    assert await m.get_w_temperature() == pytest.approx(2.0)
    with pytest.raises(Refusal) as info:
        await m.get_suggestion("s", w_temperature="warm")
    assert info.value.code == "bad-parameters" and "W-temperature" in info.value.text
    with pytest.raises(Refusal) as info:
        await m.send_w_temperature(1.0, run_length=-5)
    assert info.value.code == "bad-parameters" and "run length" in info.value.text
    await m.end_run()
    bad = RemoteMind(q_server.url, reward="score", actions="a,b", w_run_length=0)
    with pytest.raises(Refusal) as info:
        await bad.new_run("http://client.example/")
    assert info.value.code == "bad-parameters" and "w_run_length" in info.value.text


async def test_a_hot_mind_bids_its_w_spread_by_the_temperature(q_server):
    """The bid of a mind whose W is 1: centred on 1, spread as T pi / sqrt(6) (a Gumbel draw)."""
    for t in (0.5, 2.0):
        m = RemoteMind(q_server.url, reward="score", actions="a", w_initial=1.0, learn=False,
                       w_temperature=t, w_run_length=1e9, seed=4)
        await m.new_run("http://client.example/")
        bids = [(await m.get_suggestion("s")).w for _ in range(150)]
        await m.end_run()
        spread = t * math.pi / math.sqrt(6)
        assert statistics.fmean(bids) == pytest.approx(1.0, abs=0.3 * spread)
        assert statistics.stdev(bids) == pytest.approx(spread, rel=0.25)


def member(url: str, action: str, w: float, **args) -> str:
    """A frozen member that suggests ``action`` and whose learnt W is ``w`` in every state."""
    return json.dumps({"url": url, "args": {"reward": "score", "actions": action, "w_initial": w,
                                            "learn": False, **args}})


async def wins_of_b(society: RemoteMind, steps: int, **step) -> list[bool]:
    out = []
    for _ in range(steps):
        out.append((await society.get_action("s", **step)).action == "b")
        await society.inform("s", 0.0)
    return out


async def test_highest_w_over_hot_minds_is_the_stochastic_highest_w(q_server, as_server):
    """Two served minds (W 1 and W 0) under a served AS that lets the highest W through: cold,
    the stronger always wins; both at W-temperature T, the weaker wins with probability
    1 / (1 + e^{1/T}); a W-temperature of 0 sent with each step through the AS is exact again."""
    cold = RemoteMind(as_server.url, method="w-learning",
                      minds=[member(q_server.url, "a", 1.0), member(q_server.url, "b", 0.0)])
    await cold.new_run("http://client.example/")
    assert not any(await wins_of_b(cold, 40))
    await cold.end_run()
    for t, seed in ((1.0, 11), (3.0, 12)):
        hot = RemoteMind(as_server.url, method="w-learning", minds=[
            member(q_server.url, "a", 1.0, w_temperature=t, w_run_length=1e9, seed=seed),
            member(q_server.url, "b", 0.0, w_temperature=t, w_run_length=1e9, seed=seed + 100)])
        await hot.new_run("http://client.example/")
        share = statistics.fmean(await wins_of_b(hot, 250))
        assert share == pytest.approx(1 / (1 + math.exp(1 / t)), abs=0.08)  # 0.27, 0.42; 3 sd 0.09
        assert not any(await wins_of_b(hot, 30, w_temperature=0))
        await hot.end_run()


async def test_the_weaker_mind_stops_winning_as_the_w_run_anneals(q_server, as_server):
    """W-temperature 2 declining to 0 over a proposed W learning run of 120 steps: the weaker
    mind wins often early, less later, never once the run is over."""
    society = RemoteMind(as_server.url, method="w-learning", minds=[
        member(q_server.url, "a", 1.0, w_temperature=2.0, w_run_length=120, seed=21),
        member(q_server.url, "b", 0.0, w_temperature=2.0, w_run_length=120, seed=22)])
    await society.new_run("http://client.example/")
    wins = await wins_of_b(society, 180)
    await society.end_run()
    early, late, after = sum(wins[:60]), sum(wins[60:120]), sum(wins[120:])
    expected_early = sum(1 / (1 + math.exp(1 / (2.0 * (1 - t / 120)))) for t in range(60))  # 21.5
    assert early == pytest.approx(expected_early, abs=11)
    assert early > late + 5 and late > 0
    assert after == 0
