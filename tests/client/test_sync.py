"""The synchronous facade (wwm.client.sync): ``wwm.connect(url).sync()`` and friends, over real
servers on loopback, called from plain code and from inside a running event loop (as in
Jupyter), with refusals raised as they are by the async client."""

from __future__ import annotations

import asyncio
from concurrent.futures import ThreadPoolExecutor

import pytest

import wwm
from wwm import Refusal
from wwm.client import sync
from wwm.client.remote import RemoteMind, RemoteWorld
from wwm.kit.grid_minds import FoodSeeker
from wwm.server.process import ServerProcess

pytestmark = pytest.mark.slow

GRID = {"size": 6, "seed": 4}


@pytest.fixture(scope="module")
def servers():
    procs = {"world": ServerProcess("wwm.kit.grid:GridWorld"), "mind": ServerProcess("wwm.kit.grid_minds:FoodSeeker")}
    with ThreadPoolExecutor(2) as pool:
        list(pool.map(lambda p: p.start(), procs.values()))
    yield {name: p.url for name, p in procs.items()}
    for p in procs.values():
        p.stop()


def test_queries_are_plain_calls(servers):
    world = wwm.connect(servers["world"], **GRID).sync()
    mind = wwm.connect(servers["mind"]).sync()
    assert isinstance(world, sync.SyncWorld) and isinstance(world.remote, RemoteWorld)
    assert isinstance(mind, sync.SyncMind) and isinstance(mind.remote, RemoteMind)
    assert world.describe()["role"] == "world"
    with pytest.raises(Refusal) as info:  # a refusal surfaces as the async client raises it
        world.get_state()
    assert info.value.code == "unknown-run"
    world.new_run("http://script.example/")
    mind.new_run("http://script.example/")
    eaten = 0.0
    for _ in range(15):
        state = world.get_state()
        action = mind.get_action(state).action
        assert action in {"north", "south", "east", "west", "stay"}
        outcome = world.execute_action(action)
        mind.inform(outcome.state, outcome.score)
        eaten += outcome.score or 0.0
    assert world.get_current_score() == pytest.approx(eaten)
    assert world.end_run() == pytest.approx(eaten)
    mind.end_run()
    world.close()
    mind.close()


async def test_it_works_inside_a_running_event_loop_as_in_jupyter(servers):
    asyncio.get_running_loop()  # this test runs in one, as a notebook's cells do
    result = sync.run(sync.connect_mind(servers["mind"]), sync.connect_world(servers["world"], **GRID), steps=20)
    assert result.status == "completed" and len(result.steps) == 20
    local = sync.run(FoodSeeker(), sync.connect_world(servers["world"], **GRID), steps=20)
    assert [s.action for s in local.steps] == [s.action for s in result.steps]  # the same mind, local or served


def test_a_society_document_runs_to_its_end(servers):
    doc = {"world": {"url": servers["world"], "args": GRID},
           "mind": {"class": "wwm.selection.mind_as:ActionSelectionMind",
                    "args": {"method": "rotation", "minds": [{"url": servers["mind"]},
                                                             {"class": "wwm.kit.random_mind:RandomMind"}]}},
           "run": {"steps": 50}}
    result = sync.run_society(doc, steps=12)
    assert result.status == "completed" and len(result.steps) == 12


def test_calling_the_facade_from_its_own_loop_is_a_clear_error_not_a_deadlock():
    async def inside() -> None:
        sync.wait(asyncio.sleep(0))

    with pytest.raises(RuntimeError, match="its own event loop"):
        sync.wait(inside())
