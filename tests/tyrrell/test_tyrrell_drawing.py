"""Tyrrell's world draws its run (``display_grid()``): terrain, food, predators and the animal,
redrawn as the animal moves."""

from __future__ import annotations

import xml.etree.ElementTree as ET

from wwm.server.drawing import grid_svg
from wwm.tyrrell.world import TyrrellWorld


async def test_the_animal_is_drawn_where_it_is_and_the_picture_follows_it():
    world = TyrrellWorld(seed=2)
    grid = world.display_grid()
    e = world.engine
    assert grid["columns"] == grid["rows"] == e.rules.size
    assert grid["marks"]["agent"] == [list(e.pos)] and grid["marks"]["nest"] == [list(e.den)]
    assert grid["caption"].startswith("step 0")
    before = grid_svg(grid)
    ET.fromstring(before)
    start = tuple(e.pos)
    for _ in range(20):
        await world.execute_action("move-N")
        if tuple(e.pos) != start or not e.alive:
            break
    after = world.display_grid()
    assert after["caption"] != grid["caption"]
    if e.alive:
        assert after["marks"]["agent"] == [list(e.pos)]
