"""The House Robot world (a reconstruction): the pinned state encoding, its rules, its
refusals, the thesis's two rewards read from it, and a society of goal minds run in it."""

from __future__ import annotations

import pytest

from wwm import Refusal
from wwm.client.runner import RunSettings, run
from wwm.selection import ActionSelectionMind
from wwm.selection.house_robot import HouseEngine, HouseRobotWorld
from wwm.selection.learning.qlearning import QLearningMind
from wwm.selection.learning.rewards import REWARDS, items

KEYS = ["dirt", "full", "plug", "wall", "human", "class", "smoke", "wallinway"]


def test_state_keeps_the_pinned_encoding_in_order():
    e = HouseEngine(seed=1)
    for move in [0, 1, 2, 3, 4, 5, 6, 7, 8] * 30:
        e.step(move)
        x = items(e.observe())
        assert list(x) == KEYS
        assert all(0 <= int(x[k]) <= 9 for k in ("dirt", "plug", "wall", "human", "smoke"))
        assert x["full"] in "01" and x["wallinway"] in "01" and x["class"] in "012"
        assert (x["human"] == "9") == (x["class"] == "2")


def test_dirt_is_reported_underfoot_then_sucked_up_and_the_plug_empties_the_bag():
    e = HouseEngine(seed=0, dirt_rate=0.0, fire_rate=0.0, visit_rate=0.0, capacity=1)
    e.dirt = {(3, e.robot[1])}
    before = items(e.observe())
    assert before["dirt"] == "2"
    assert e.step(2) == 0.0                        # onto the dirt: Adirt's good event
    after = items(e.observe())
    assert after["dirt"] == "8" and after["full"] == "0"
    assert REWARDS["house.dirt"](before, after, None, 1.0) == 1.0
    assert e.step(8) == 1.0 and items(e.observe())["full"] == "1"  # sucked up: now full
    e.robot = (e.plug[0] + 1, e.plug[1])
    x = items(e.observe())
    e.step(6)                                      # west onto the plug
    y = items(e.observe())
    assert y["plug"] == "8" and y["full"] == "0"
    assert REWARDS["house.plug"](x, y, None, 1.0) == 1.0


def test_walls_block_and_say_so():
    e = HouseEngine(seed=0)
    e.robot = (1, 1)
    e.step(0)                                      # north into the outer wall
    x = items(e.observe())
    assert e.robot == (1, 1) and x["wallinway"] == "1" and x["wall"] != "9"
    e.step(4)
    assert items(e.observe())["wallinway"] == "0"


def test_fires_and_people_score():
    e = HouseEngine(seed=0, fire_rate=0.0, visit_rate=0.0, dirt_rate=0.0)
    e.fire = (e.robot[0] + 1, e.robot[1])
    assert e.step(8) == pytest.approx(-0.1)        # it burns
    assert e.step(2) == pytest.approx(5.0)         # reached: out
    e.human, e.stranger, e.stay = (e.robot[0] + 1, e.robot[1]), True, 10
    assert items(e.observe())["class"] == "1"
    assert e.step(2) == 3.0 and e.human is None    # a stranger reached runs off
    e.human, e.stranger, e.stay = (e.robot[0], e.robot[1] - 1), False, 10
    assert e.step(0) == -1.0 and e.counts["bumps"] == 1


async def test_world_interface_refuses_bad_actions_and_arguments():
    world = HouseRobotWorld(seed=2, steps=2)
    await world.new_run()
    assert list(items(await world.get_state())) == KEYS
    assert not (await world.execute_action("3")).finished
    assert (await world.execute_action("8")).finished
    with pytest.raises(Refusal, match="not one of 0-7"):
        await world.execute_action("up")
    with pytest.raises(ValueError, match="dirt_rate"):
        HouseRobotWorld(dirt_rate=1.5)
    with pytest.raises(ValueError, match="width"):
        HouseRobotWorld(width=3)


async def test_goal_minds_learn_and_compete_in_the_house(tmp_path, monkeypatch):
    monkeypatch.setenv("WWM_KNOWLEDGE_DIR", str(tmp_path))
    goals = [("house.dirt", "dirt,full"), ("house.plug", "plug"), ("house.smoke", "smoke")]
    # childhood: each goal mind learns Q alone in the house
    for goal, view in goals:
        mind = QLearningMind(reward=goal, view=view, q_temperature=0.5, run_length=2500, seed=1)
        await run(mind, HouseRobotWorld(seed=3), RunSettings(steps=2500, keepalive=None,
                                                             client_url="urn:childhood"))
    plug = QLearningMind(reward="house.plug", view="plug", pretrained="urn:childhood", learn=False)
    await plug.new_run()
    heading = [plug.actions[plug.table.best(f"plug={d}")] == str(d) for d in range(8)
               if f"plug={d}" in plug.table.q]
    assert len(heading) >= 3 and sum(heading) >= len(heading) - 1
    # then the society: W = Q over the three, frozen, in a fresh house
    minds = [QLearningMind(reward=g, view=v, pretrained="urn:childhood", learn=False) for g, v in goals]
    society = ActionSelectionMind(minds, method="w=q")
    result = await run(society, HouseRobotWorld(seed=8), RunSettings(steps=600, keepalive=None))
    assert result.status == "completed" and all(s.action is not None for s in result.steps)


def test_an_unreached_fire_burns_out_and_its_smoke_is_sensed_from_anywhere():
    e = HouseEngine(seed=0, fire_rate=0.0, visit_rate=0.0, dirt_rate=0.0, burn=5, radius=1)
    e.fire = (e.width - 2, 1)                      # far beyond the sensing radius
    assert items(e.observe())["smoke"] not in ("8", "9")
    assert sum(e.step(8) for _ in range(5)) == pytest.approx(-0.5)
    assert e.fire is None and items(e.observe())["smoke"] == "9"


def test_two_rooms_have_a_wall_with_a_door():
    one, two = HouseEngine(seed=0), HouseEngine(seed=0, rooms=2)
    mid = two.width // 2
    assert (mid, 1) in two.walls and two.door not in two.walls and two.door[0] == mid
    assert (mid, 1) not in one.walls
    with pytest.raises(ValueError, match="rooms"):
        HouseEngine(rooms=3)
