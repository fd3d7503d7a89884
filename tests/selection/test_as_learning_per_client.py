"""What an Action Selection server itself learns is kept per client (7.3, 9.2.1, 10.5): a
served Hierarchical-Q AS over two served minds, in a served world of ten states where one
mind is always right. Client one's second run starts from its own Q(x,i); client two starts
fresh; client two asking for one's learning ("Other client URL") gets it; a client nobody
learnt with is refused with ``other-client-unknown``."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from wwm import Refusal
from wwm.client.remote import RemoteMind, RemoteWorld
from wwm.client.runner import RunSettings, run
from wwm.server.process import ServerProcess, start_all

pytestmark = pytest.mark.slow

HERE = Path(__file__).resolve().parent
STATES = 10


@pytest.fixture(scope="module")
def procs(tmp_path_factory):
    env = {"WWM_KNOWLEDGE_DIR": str(tmp_path_factory.mktemp("knowledge")),
           "PYTHONPATH": os.pathsep.join(filter(None, [str(HERE), os.environ.get("PYTHONPATH")]))}
    specs = [("wwm.selection.mind_as:ActionSelectionMind", {}), ("society_minds:TableMind", {"q": "a:1"}),
             ("society_minds:TableMind", {"q": "b:1"}), ("society_minds:Cycle", {"n": STATES, "good": "a"})]
    started = start_all([ServerProcess(target, args=args, env=env) for target, args in specs])
    yield started
    for p in started:
        p.stop()


def society(procs, **args) -> RemoteMind:
    as_server, good, bad, _ = procs
    return RemoteMind(as_server.url, minds=[good.url, bad.url], method="hierarchical-q", gamma=0.0, seed=3,
                      **args)


async def first_steps(procs, client: str, other: str | None = None, steps: int = STATES) -> list[float]:
    """The scores of a greedy run's first steps (Q-temperature 0: "your best, from what you
    have learnt", 7.3.1), one visit to each state."""
    mind = society(procs, q_temperature=0.0)
    await mind.new_run(client, other_client_url=other)
    world = RemoteWorld(procs[3].url)
    await world.new_run(client)
    scores = []
    state = await world.get_state()
    for _ in range(steps):
        out = await world.execute_action((await mind.get_action(state)).action)
        await mind.inform(out.state, out.score)
        scores.append(out.score)
        state = out.state
    await mind.end_run()
    await world.end_run()
    return scores


async def test_the_as_keeps_what_it_learns_per_client_over_http(procs):
    one, two = "http://one.example/", "http://two.example/"
    learning = society(procs, q_temperature=1.0, run_length=200)
    result = await run(learning, RemoteWorld(procs[3].url), RunSettings(steps=200, keepalive=None, client_url=one))
    assert result.status == "completed" and result.total_score > 100
    # client one's second run obeys the right mind from its very first step, in every state
    assert await first_steps(procs, one) == [1.0] * STATES
    # client two starts fresh: in states it has never seen, its greedy choice is a coin flip
    assert 0.0 in await first_steps(procs, two)
    # asking for the mind learnt with client one, client three gets one's tables
    assert await first_steps(procs, "http://three.example/", other=one) == [1.0] * STATES
    with pytest.raises(Refusal) as info:
        await society(procs).new_run("http://four.example/", other_client_url="http://stranger.example/")
    assert info.value.code == "other-client-unknown" and "stranger.example" in info.value.text
    with pytest.raises(Refusal) as info:   # a method that learns nothing has nothing to give
        await RemoteMind(procs[0].url, minds=[procs[1].url], method="w=q").new_run(two, other_client_url=one)
    assert info.value.code == "other-client-unknown"
    with pytest.raises(Refusal) as info:   # nor one told to keep nothing (an experiment over seeds)
        await society(procs, keep=False).new_run(two, other_client_url=one)
    assert info.value.code == "other-client-unknown" and "keep=false" in info.value.text
