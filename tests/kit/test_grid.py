"""The grid world: its rules, its documented state and action formats, and its World face."""

from __future__ import annotations

import pytest

from wwm import Outcome, Refusal
from wwm.kit.grid import ACTIONS, FOOD_REWARD, STING_PENALTY, GridEngine, GridView, GridWorld, distance, nearest


def engine(**kw) -> GridEngine:
    options = dict(size=6, food_count=0, hazard_count=0, chase=0.0, max_steps=50, seed=1)
    options.update(kw)
    return GridEngine(**options)


def test_state_has_the_documented_items():
    state = GridEngine(size=8, food_count=3, hazard_count=2, seed=4).state()
    items = dict(part.split("=", 1) for part in state.split())
    assert list(items) == ["size", "step", "x", "y", "fd", "hd", "food", "hazard"]
    assert items["size"] == "8" and items["step"] == "0" and (items["x"], items["y"]) == ("4", "4")
    food = [tuple(map(int, c.split(","))) for c in items["food"].split(";")]
    hazards = [tuple(map(int, c.split(","))) for c in items["hazard"].split(";")]
    assert len(food) == 3 and len(hazards) == 2
    assert int(items["fd"]) == nearest((4, 4), food) and int(items["hd"]) == nearest((4, 4), hazards)
    assert all(distance((4, 4), h) > 2 for h in hazards)  # hazards start away from the body


def test_view_reads_back_the_state():
    e = GridEngine(size=7, food_count=2, hazard_count=1, seed=9)
    view = GridView.parse(e.state())
    assert view.size == 7 and view.body == e.body
    assert list(view.food) == e.food and list(view.hazards) == e.hazards
    with pytest.raises(ValueError, match="not a grid-world state"):
        GridView.parse("hello there")


@pytest.mark.parametrize("action,cell", [("north", (3, 4)), ("south", (3, 2)), ("east", (4, 3)),
                                         ("west", (2, 3)), ("stay", (3, 3)), ("  NORTH \n", (3, 4))])
def test_moves(action, cell):
    e = engine()
    assert e.body == (3, 3)
    assert e.step(action) == 0.0
    assert e.body == cell and e.step_count == 1


def test_walls_stop_the_body():
    e = engine(size=3)
    e.step("east"), e.step("east"), e.step("north"), e.step("north")
    assert e.body == (2, 2)


def test_eating_food_scores_and_regrows_it():
    e = engine(food_count=1)
    e.food = [(4, 3)]
    assert e.step("east") == FOOD_REWARD
    assert len(e.food) == 1 and e.food[0] != (4, 3) and e.score == FOOD_REWARD


def test_a_hazard_that_reaches_the_body_stings_and_drifts_off():
    e = engine(hazard_count=1, chase=1.0)
    e.hazards = [(3, 5)]
    assert e.step("north") == STING_PENALTY      # body to (3,4); the hazard chases onto it
    assert distance(e.body, e.hazards[0]) > 1 and e.score == STING_PENALTY


def test_chasing_hazards_close_in():
    e = engine(size=20, hazard_count=1, chase=1.0)
    e.hazards = [(0, 0)]
    before = distance(e.body, e.hazards[0])
    e.step("stay")
    assert distance(e.body, e.hazards[0]) == before - 1


def test_the_run_ends_after_its_steps():
    e = engine(max_steps=2)
    e.step("stay")
    assert not e.finished
    e.step("stay")
    assert e.finished
    with pytest.raises(ValueError, match="over after 2 steps"):
        e.step("stay")


def test_same_seed_same_world_and_reset_restores_it():
    a, b = GridEngine(seed=5), GridEngine(seed=5)
    for action in ["north", "east", "east", "south", "stay"] * 4:
        assert a.step(action) == b.step(action)
        assert a.state() == b.state()
    first = GridEngine(seed=5).state()
    a.reset()
    assert a.state() == first and a.score == 0.0
    assert GridEngine(seed=6).state() != first


@pytest.mark.parametrize("kw,message", [
    ({"size": 2}, "size must be between 3 and 100"),
    ({"size": 3, "food_count": 5, "hazard_count": 4}, "do not fit"),
    ({"chase": 1.5}, "chase must be a probability"),
    ({"max_steps": -1}, r"steps must be 0 \(no limit\) or more"),
    ({"food_count": -1}, "counts of zero or more"),
])
def test_bad_parameters_are_named(kw, message):
    with pytest.raises(ValueError, match=message):
        engine(**kw)


async def test_world_interface():
    world = GridWorld(size=6, food=2, hazards=1, steps=3, seed=2)
    assert world.sharing == "own" and "north" in world.action_format and "hd" in world.state_format
    await world.new_run("urn:test")
    start = await world.get_state()
    outcome = await world.execute_action("stay")
    assert isinstance(outcome, Outcome) and outcome.state == await world.get_state()
    assert outcome.state != start                        # the step counter moved at least
    assert not outcome.finished
    await world.execute_action("west")
    last = await world.execute_action("east")
    assert last.finished
    assert await world.get_current_score() == world.engine.score
    with pytest.raises(Refusal) as ended:
        await world.execute_action("stay")
    assert ended.value.code == "run-ended"
    await world.reset()
    assert await world.get_state() == start
    await world.reset_score()
    assert await world.get_current_score() == 0.0
    assert await world.end_run() == 0.0


async def test_unknown_action_is_refused_by_name():
    world = GridWorld()
    with pytest.raises(Refusal) as refused:
        await world.execute_action("jump")
    assert refused.value.code == "bad-parameters"
    assert "'jump'" in refused.value.text and all(a in refused.value.text for a in ACTIONS)
    assert world.engine.step_count == 0


@pytest.mark.slow
async def test_served_grid_world_refuses_bad_input_by_name_and_serves_on():
    from wwm.client.remote import RemoteWorld
    from wwm.server.process import ServerProcess

    with ServerProcess("wwm.kit.grid:GridWorld") as server:
        for args, words in [({"size": 2}, "size must be between 3 and 100"),
                            ({"size": "big"}, "'size'"), ({"colour": "red"}, "unknown argument 'colour'")]:
            bad = RemoteWorld(server.url, encoding="xml", **args)
            with pytest.raises(Refusal) as refused:
                await bad.new_run()
            assert refused.value.code == "bad-parameters" and words in refused.value.text
            await bad.aclose()
        world = RemoteWorld(server.url, encoding="xml", size=5, seed=1)
        await world.new_run()
        with pytest.raises(Refusal) as refused:
            await world.execute_action("fly")
        assert refused.value.code == "bad-parameters" and "'fly'" in refused.value.text
        outcome = await world.execute_action("north")                 # the run goes on
        assert "size=5 step=1" in outcome.state
        await world.end_run()
        await world.aclose()


async def test_a_run_survives_a_snapshot():
    """Servers snapshot own-copy runs (pickle) so a restarted server resumes them."""
    import pickle

    world = GridWorld(seed=3)
    for action in ("north", "east", "east"):
        await world.execute_action(action)
    copy = pickle.loads(pickle.dumps(world))
    for action in ("south", "west", "stay", "north"):
        assert await copy.execute_action(action) == await world.execute_action(action)
