"""A body of the shared Λ* world draws its test (``display_grid()``): Good, Evil, itself and the
other bodies on the torus, redrawn after each iteration."""

from __future__ import annotations

import asyncio
import xml.etree.ElementTree as ET

from wwm.lambdastar.world import LambdaStarWorld
from wwm.server.drawing import grid_svg


async def test_bodies_draw_good_evil_themselves_and_each_other_and_it_moves():
    world = LambdaStarWorld(grid="5x6", iterations=5, episodes=1, agents=2, seed=4)
    one, two = await world.join(), await world.join()
    env = one.cohort.env
    grid = one.display_grid()
    assert (grid["columns"], grid["rows"]) == (6, 5)
    at = lambda cell: [int(cell) % 6, int(cell) // 6]  # noqa: E731
    assert grid["marks"]["good"] == [at(env.good[0])] and grid["marks"]["evil"] == [at(env.evil[0])]
    assert grid["marks"]["agent"] == [at(env.positions[0])] and grid["marks"]["body"] == [at(env.positions[1])]
    assert two.display_grid()["marks"]["agent"] == [at(env.positions[1])]
    assert "iteration 1 of 5" in grid["caption"]
    ET.fromstring(grid_svg(grid))
    await asyncio.gather(one.execute_action("right"), two.execute_action("down"))
    later = one.display_grid()
    assert "iteration 2 of 5" in later["caption"] and later["marks"]["agent"] == [at(env.positions[0])]
    assert later["marks"]["good"] == [at(env.good[1])]


async def test_a_body_waiting_for_its_cohort_draws_an_empty_torus_saying_so():
    world = LambdaStarWorld(grid=5, iterations=3, episodes=1, agents=2)
    one = await world.join()
    grid = one.display_grid()
    assert grid["marks"] == {} and "waiting for 1 more bodies" in grid["caption"]
