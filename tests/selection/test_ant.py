"""The Ant World: its rules, its documented state and action format, its refusals, and the
single-mind behaviours the thesis reports (reference notes 5.2), learnt from scratch."""

from __future__ import annotations

import pytest

from wwm import Refusal
from wwm.selection.ant import AntEngine, AntWorld, direction
from wwm.selection.learning.qlearning import QLearningMind


def test_directions_are_compass_sectors():
    assert direction(0, -1) == 0 and direction(1, -1) == 1 and direction(1, 0) == 2
    assert direction(1, 1) == 3 and direction(0, 1) == 4 and direction(-1, 1) == 5
    assert direction(-1, 0) == 6 and direction(-1, -1) == 7 and direction(0, 0) == 8
    assert direction(3, -1) == 2  # mostly east


def test_torus_offsets_take_the_short_way_round():
    e = AntEngine(size=12, seed=0)
    assert e.offset((0, 0), (11, 0)) == (-1, 0)
    assert e.offset((11, 11), (0, 0)) == (1, 1)
    assert e.distance((0, 0), (11, 11)) == 1


def test_state_format_and_picking_up_and_delivering_food():
    e = AntEngine(size=12, foods=1, predators=0, seed=0)
    e.ant = (2, 2)
    e.food = {(3, 2)}
    state = dict(kv.split("=") for kv in e.observe().split())
    assert set(state) == {"i", "n", "f", "p"}
    assert state["f"] == "2" and state["p"] == "9" and state["i"] == "0"
    assert e.step(2) == 0.0          # east onto the food: picked up
    assert e.carrying and (3, 2) not in e.food and len(e.food) == 1
    e.ant = (e.nest[0] - 1, e.nest[1])
    assert e.step(2) == 1.0          # east onto the nest: delivered
    assert not e.carrying and e.delivered == 1
    assert e.observe().split()[1] == "n=8"


def test_the_predator_costs_a_point_and_is_scared_off():
    e = AntEngine(size=12, foods=1, predators=1, chase=1.0, seed=0)
    e.ant = (5, 5)
    e.predator = [(6, 5)]
    assert e.step(2) == -1.0 or e.caught == 1  # the ant walks into the predator's square
    assert e.caught == 1 and e.distance(e.predator[0], e.ant) > e.radius


def test_same_seed_same_world():
    a, b = AntEngine(seed=7), AntEngine(seed=7)
    for move in [0, 1, 2, 3, 4, 5, 6, 7, 8] * 20:
        assert a.step(move) == b.step(move)
        assert a.observe() == b.observe()


async def test_world_interface_scores_and_ends_after_steps():
    world = AntWorld(seed=1, steps=3)
    await world.new_run()
    state = await world.get_state()
    assert state.startswith("i=0 n=8 ")   # the ant starts at the nest
    outcomes = [await world.execute_action("8") for _ in range(3)]
    assert [o.finished for o in outcomes] == [False, False, True]
    assert await world.get_current_score() == sum(o.score for o in outcomes)
    assert "0-7" in AntWorld.action_format and "9 none visible" in AntWorld.state_format


@pytest.mark.parametrize("bad", ["9", "north", "", "-1"])
async def test_bad_actions_are_refused_by_name(bad):
    world = AntWorld()
    with pytest.raises(Refusal, match="not one of 0-7"):
        await world.execute_action(bad)


@pytest.mark.parametrize("kwargs, text", [({"size": 2}, "size"), ({"radius": 0}, "radius"),
                                          ({"chase": 2.0}, "chase"), ({"steps": -1}, "steps")])
def test_bad_arguments_are_named(kwargs, text):
    with pytest.raises(ValueError, match=text):
        AntWorld(**kwargs)


async def _train(goal: str, view: str, steps: int = 12000) -> QLearningMind:
    world = AntWorld(seed=3)
    mind = QLearningMind(reward=goal, view=view, q_temperature=0.3, run_length=steps, seed=3)
    await world.new_run()
    await mind.new_run()
    x = await world.get_state()
    for _ in range(steps):
        s = await mind.get_action(x)
        o = await world.execute_action(s.action)
        await mind.inform(o.state, o.score)
        x = o.state
    return mind


async def test_an_learns_to_head_for_the_nest(tmp_path, monkeypatch):
    monkeypatch.setenv("WWM_KNOWLEDGE_DIR", str(tmp_path))
    an = await _train("ant.nest", "n")
    # An: heads to the nest from any direction ([PhD] ch. 7)
    heading = [an.actions[an.table.best(f"n={d}")] == str(d) for d in range(8)]
    assert sum(heading) >= 7, an.table.q


async def test_af_learns_to_seek_food_while_not_carrying(tmp_path, monkeypatch):
    monkeypatch.setenv("WWM_KNOWLEDGE_DIR", str(tmp_path))
    af = await _train("ant.food", "i,f")
    seeking = [af.actions[af.table.best(f"i=0 f={d}")] == str(d) for d in range(8)]
    assert sum(seeking) >= 6, af.table.q
    # ... and, carrying, has nothing to gain: its Q-values there are flat and small
    carrying = af.table.row("i=1 f=9")
    assert max(carrying) - min(carrying) < 0.05
