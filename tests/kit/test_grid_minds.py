"""The two hand-coded grid minds: each does its one job."""

from __future__ import annotations

import pytest

from wwm import Refusal
from wwm.kit.grid import GridEngine, GridView, distance
from wwm.kit.grid_minds import FoodSeeker, HazardAvoider


def state(body, food=(), hazards=(), size=8) -> str:
    e = GridEngine(size=size, food_count=0, hazard_count=0)
    e.body, e.food, e.hazards = body, list(food), list(hazards)
    return e.state()


async def test_food_seeker_walks_to_the_nearest_food():
    mind = FoodSeeker()
    s = state((2, 2), food=[(7, 7), (2, 5)])
    assert (await mind.get_action(s)).action == "north"
    s = state((2, 2), food=[(0, 2)], hazards=[(1, 2)])              # it ignores the hazard
    assert (await mind.get_action(s)).action == "west"
    assert not (await mind.get_action(state((2, 2)))).can_suggest    # no food: cannot suggest


async def test_hazard_avoider_steps_away():
    mind = HazardAvoider()
    s = state((4, 4), hazards=[(5, 4)])
    got = (await mind.get_action(s)).action
    view = GridView.parse(s)
    assert distance(view.after(got), (5, 4)) == 2 and got == "west"   # straight away
    s = state((0, 4), hazards=[(1, 4)])                              # against the wall: sideways
    assert (await mind.get_action(s)).action in ("north", "south")
    assert (await mind.get_action(state((4, 4)))).action == "stay"  # nothing to avoid


async def test_a_state_of_another_world_is_refused_by_name():
    with pytest.raises(Refusal) as refused:
        await FoodSeeker().get_action("n=5")
    assert refused.value.code == "bad-parameters" and "not a grid-world state" in refused.value.text
