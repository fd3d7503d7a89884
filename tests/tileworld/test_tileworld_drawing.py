"""The Tileworld servers draw their run (``display_grid()``): a grid the display page and the
portal's run page turn into SVG, showing where the client's robot, the tiles, holes and
obstacles are now, and moving as the robot moves."""

from __future__ import annotations

import xml.etree.ElementTree as ET

from wwm.server.drawing import grid_svg
from wwm.tileworld.shared_world import SharedTileworld
from wwm.tileworld.wwm_world import TileworldWorld

SVG = "{http://www.w3.org/2000/svg}"


def cells_of(svg: str, kind: str) -> list[tuple[int, int]]:
    root = ET.fromstring(svg)
    return [(int(e.get("data-x")), int(e.get("data-y"))) for e in root.iter() if e.get("class") == kind]


async def test_the_world_draws_its_robot_where_the_engine_has_it_and_redraws_it_after_a_move():
    world = TileworldWorld(rows=7, columns=8, seed=3, dynamic=0)
    grid = world.display_grid()
    assert (grid["columns"], grid["rows"], grid["y_up"]) == (8, 7, False)
    robot = world.engine.agents[0].cell
    assert grid["marks"]["agent"] == [[robot[1], robot[0]]]
    assert sorted(map(tuple, grid["marks"]["tile"])) == sorted((c, r) for r, c in world.engine.tiles)
    assert "score 0" in grid["caption"]
    before = grid_svg(grid)
    assert cells_of(before, "agent") == [(robot[1], robot[0])]
    for move in ("north", "east", "south", "west", "north", "east"):
        await world.execute_action(move)
        if world.engine.agents[0].cell != robot:
            break
    moved = world.engine.agents[0].cell
    assert moved != robot, "the robot never moved"
    after = grid_svg(world.display_grid())
    assert cells_of(after, "agent") == [(moved[1], moved[0])] and after != before


async def test_a_shared_worlds_body_draws_its_own_robot_as_the_agent_and_the_others_as_robots():
    world = SharedTileworld(robots=2, rows=6, columns=6, seed=1)
    first, second = await world.join(), await world.join()
    a, b = first.display_grid(), second.display_grid()
    cell = lambda i: [world.engine.agents[i].cell[1], world.engine.agents[i].cell[0]]  # noqa: E731
    assert a["marks"]["agent"] == [cell(0)] and a["marks"]["robot"] == [cell(1)]
    assert b["marks"]["agent"] == [cell(1)] and b["marks"]["robot"] == [cell(0)]
    ET.fromstring(grid_svg(a))  # well-formed SVG
