"""Tyrrell's world over real server processes: the World served by ``wwm serve``, goal minds
each served by a process of its own, a served Mind_AS over them by URL; the life lived over
the network is the life the same society lives in one process. The card carries the state
and action formats and spaces, the display page the picture, and bad input is refused by
name over the wire."""

from __future__ import annotations

import json
import urllib.request
from concurrent.futures import ThreadPoolExecutor

import pytest

from wwm import Refusal
from wwm.client.remote import RemoteMind, RemoteWorld
from wwm.client.runner import RunSettings, run
from wwm.selection.mind_as import ActionSelectionMind
from wwm.server.process import ServerProcess
from wwm.tyrrell import TyrrellWorld
from wwm.tyrrell.minds import FelineMind, HawkMind, MateMind, NutrientMind, SleepMind
from wwm.tyrrell.rules import ACTIONS

pytestmark = pytest.mark.slow

# five of the fourteen sub-problems, one server each (all fourteen would only cost start time)
MINDS = [("NutrientMind", {"nutrient": "carbohydrate"}), ("FelineMind", {}), ("HawkMind", {}),
         ("SleepMind", {}), ("MateMind", {})]
LOCAL = [NutrientMind("carbohydrate"), FelineMind(), HawkMind(), SleepMind(), MateMind()]


def get(url: str, accept: str = "text/html") -> str:
    request = urllib.request.Request(url, headers={"Accept": accept})
    with urllib.request.urlopen(request, timeout=10) as reply:
        return reply.read().decode()


def servers(specs: list[tuple[str, dict]]) -> list[ServerProcess]:
    procs = [ServerProcess(target, args=args) for target, args in specs]
    with ThreadPoolExecutor(len(procs)) as pool:
        list(pool.map(lambda p: p.start(), procs))
    return procs


async def test_a_served_society_of_goal_minds_lives_the_same_life_as_in_one_process():
    steps, seed = 150, 3
    minds = servers([(f"wwm.tyrrell.minds:{cls}", args) for cls, args in MINDS])
    world_server, as_server = servers([
        ("wwm.tyrrell:TyrrellWorld", {"seed": seed}),
        ("wwm.selection.mind_as:ActionSelectionMind", {"minds": " ".join(p.url for p in minds),
                                                      "method": "min-worst-unhappiness", "seed": seed,
                                                      "timeout": 20})])
    try:
        async with RemoteMind(as_server.url) as society, RemoteWorld(world_server.url) as world:
            remote = await run(society, world, RunSettings(steps=steps, keepalive=None, timeout=30))
        local_world = TyrrellWorld(seed=seed)
        local = await run(ActionSelectionMind(LOCAL, method="min-worst-unhappiness", seed=seed, timeout=20),
                          local_world, RunSettings(steps=steps, keepalive=None))
        assert remote.status == local.status and len(remote.steps) == len(local.steps) > 20
        assert [s.action for s in remote.steps] == [s.action for s in local.steps]
        assert remote.steps[-1].new_state == local.steps[-1].new_state
        assert remote.total_score == local.total_score == local_world.engine.fitness
        # the AS asked each goal mind server: its credit trail names them all
        trail = json.loads(get(as_server.url + "trail", "application/json"))
        assert {link["url"] for link in trail["calls"]} >= {p.url for p in minds}
        async with RemoteMind(minds[0].url) as goal:                 # a goal mind given another world's state
            await goal.new_run()
            with pytest.raises(Refusal) as info:
                await goal.get_action("n=4")
            assert info.value.code == "bad-parameters" and "not a Tyrrell world state" in info.value.text
    finally:
        for p in [*minds, world_server, as_server]:
            p.stop()


async def test_the_served_world_card_display_page_and_refusals():
    (server,) = servers([("wwm.tyrrell:TyrrellWorld", {"seed": 1})])
    try:
        card = json.loads(get(server.url, "application/json"))
        assert card["role"] == "world" and "key:value;" in card["state_format"]
        assert "predator1PerceptionStimulus" in card["state_format"] and "20 eat" in card["action_format"]
        assert card["action_space"] == {"type": "Discrete", "n": 25, "labels": list(ACTIONS)}
        assert card["state_space"]["spaces"]["fruitPerceptionStimulus"]["shape"] == [9]
        async with RemoteWorld(server.url) as world:
            started = await world.new_run()
            x = await world.get_state()
            assert x.startswith("step:0;fitness:0;alive:1;") and x.count(";") == 30
            out = await world.execute_action("move-N")
            assert out.state.startswith("step:1;")
            page = get(started.display_url)
            assert "<svg" in page and "step 1" in page and "matings 0" in page
            with pytest.raises(Refusal) as info:
                await world.execute_action("fly")
            assert info.value.code == "bad-parameters" and "'fly'" in info.value.text
            await world.end_run()
    finally:
        server.stop()
