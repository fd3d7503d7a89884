"""Learning minds as servers: every Mind_L, Mind_i and Mind_Feu query in both encodings with
their refusals, and learning per client over HTTP (two clients train one Q-learning server
differently, each gets its own policy back, a third gets client 1's by asking for it)."""

from __future__ import annotations

import pytest

from wwm import Outcome, Refusal, World
from wwm.client.remote import RemoteMind
from wwm.client.runner import RunSettings, run
from wwm.server.process import ServerProcess

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def knowledge(tmp_path_factory):
    return tmp_path_factory.mktemp("knowledge")


@pytest.fixture(scope="module")
def q_server(knowledge):
    with ServerProcess("wwm.selection.learning.qlearning:QLearningMind",
                       env={"WWM_KNOWLEDGE_DIR": str(knowledge)}) as server:
        yield server


@pytest.fixture(scope="module")
def feudal_server(knowledge):
    with ServerProcess("wwm.selection.learning.feudal:FeudalQMind", args={"actions": "left,right"},
                       env={"WWM_KNOWLEDGE_DIR": str(knowledge)}) as server:
        yield server


# the mind's arguments, sent with every New run
ARGS = {"reward": "score", "actions": "a,b", "q_temperature": 2.0, "seed": 1}


class Bandit(World):
    """One state; the action named ``good`` scores 1, any other 0."""

    def __init__(self, good: str) -> None:
        self.good = good

    async def get_state(self) -> str:
        return "s"

    async def execute_action(self, action: str) -> Outcome:
        score = 1.0 if action == self.good else 0.0
        self._score += score
        return Outcome("s", score)


@pytest.mark.parametrize("encoding", ["xml", "json"])
async def test_every_mind_l_and_mind_i_query(q_server, encoding):
    m = RemoteMind(q_server.url, encoding=encoding, **ARGS, run_length=100)
    await m.new_run("http://queries.example/")
    assert await m.get_q_temperature() == 2.0
    await m.send_q_temperature(1.0, run_length=10)
    assert await m.get_q_temperature() == 1.0
    await m.get_action("s")
    assert await m.get_q_temperature() == pytest.approx(0.9)
    await m.reset_q_temperature(run_length=50)
    assert await m.get_q_temperature() == 1.0
    s = await m.get_action("s", q_temperature="0")     # per-step temperature
    assert s.action == "a" and s.q == 0.0
    with pytest.raises(Refusal) as info:
        await m.get_action("s", q_temperature="warm")
    assert info.value.code == "bad-parameters" and "Q-temperature" in info.value.text
    assert await m.get_strength() == 1.0
    await m.change_strength(4.0)
    assert await m.get_strength() == 4.0
    with pytest.raises(Refusal) as info:
        await m.change_strength(-2.0)
    assert info.value.code == "bad-parameters"
    assert await m.get_w_temperature() == 0.0
    await m.send_w_temperature(0.5)
    assert await m.get_w_temperature() == 0.5
    await m.reset_w_temperature(run_length=20)
    s = await m.get_suggestion("s", q_temperature=0, w_temperature=0)  # bids its W exactly
    assert s.action == "a" and s.w == 0.0
    v = await m.inform_winner("s", obeyed=False, payment=0.25, winner_url="http://winner.example/",
                              action="b", score=0.0)
    assert v.q == 0.0 and v.w == 0.0
    assert (await m.get_values("s", "b")) .q == 0.0
    with pytest.raises(Refusal, match="cannot value that action"):   # an action it does not understand:
        await m.get_values("s", "zz")                                  # refused, not an empty answer
    assert await m.end_run() == 0.0


@pytest.mark.parametrize("encoding", ["xml", "json"])
async def test_every_mind_feu_query(feudal_server, encoding):
    m = RemoteMind(feudal_server.url, encoding=encoding)
    await m.new_run("http://lord.example/")
    s = await m.take_me_to("pos=1", "pos=3", q_temperature=0)
    assert s.action == "left" and s.q == 0.0 and s.w == 0.0
    assert await m.inform("pos=2") == 0.0
    await m.take_me_to("pos=2", "pos=3", q_temperature=0)
    assert await m.inform("pos=3") == 1.0          # arrived: rewarded
    v = await m.how_good("pos=2", "pos=3", "left")
    assert v.q == 1.0 and v.w == 0.0
    assert (await m.how_good("pos=2", "pos=3", "up")).q is None
    assert not (await m.get_action("pos=2")).can_suggest  # no goals of its own
    await m.end_run()


async def test_learning_is_kept_per_client_over_http(q_server):
    one, two, three = "http://one.example/", "http://two.example/", "http://three.example/"
    # client one teaches b, which a mind that learnt nothing would not pick (ties go to a)
    for client, good in ((one, "b"), (two, "a")):
        mind = RemoteMind(q_server.url, **ARGS, run_length=80)
        result = await run(mind, Bandit(good), RunSettings(steps=80, keepalive=None, client_url=client))
        assert result.status == "completed"

    async def best(client: str, other: str | None = None) -> str:
        mind = RemoteMind(q_server.url, **ARGS)
        await mind.new_run(client, other_client_url=other)
        action = (await mind.get_action("s", q_temperature=0)).action
        await mind.no_operation()
        return action

    assert await best(one) == "b"
    assert await best(two) == "a"
    assert await best(three) == "a"                 # nothing learnt with three yet
    assert await best(three, other=one) == "b"
    assert await best(three, other=two) == "a"
    with pytest.raises(Refusal) as info:
        await best(three, other="http://stranger.example/")
    assert info.value.code == "other-client-unknown"
    # a malicious client three, "training" client one's mind to prefer a, changes only its own
    mind = RemoteMind(q_server.url, **ARGS, run_length=200)
    await mind.new_run(three, other_client_url=one)
    for _ in range(200):
        s = await mind.get_action("s")
        await mind.inform("s", 1.0 if s.action == "a" else 0.0)
    await mind.end_run()
    assert await best(three) == "a" and await best(one) == "b"
