"""The soccer World draws a player's run (``display_grid()``): the field in 3 m cells with both
goals, every player (the client's own as the agent) and the ball, redrawn as the match moves."""

from __future__ import annotations

import asyncio
import xml.etree.ElementTree as ET

from wwm.server.drawing import grid_svg
from wwm.soccer.world import SoccerWorld


async def test_a_player_sees_the_field_the_goals_the_players_and_the_ball_move():
    world = SoccerWorld(players=1, half=50, synch=True, cycle_ms=2000,
                        config='{"player_rand": 0, "ball_rand": 0}')
    left, right = await world.join(team="A"), await world.join(team="B")
    grid = left.display_grid()
    assert (grid["columns"], grid["rows"]) == (35, 23)
    assert len(grid["marks"]["agent"]) == 1 and len(grid["marks"]["right-team"]) == 1
    assert {x for x, _ in grid["marks"]["goal"]} == {0, 34} and grid["marks"]["ball"] == [[17, 11]]
    assert grid["caption"].startswith("A 0 : 0 B")
    assert right.display_grid()["marks"]["agent"] == grid["marks"]["right-team"]
    svg = grid_svg(grid)
    root = ET.fromstring(svg)
    assert root.get("data-columns") == "35" and any(e.get("class") == "ball" for e in root.iter())
    assert grid["marks"]["agent"] != [[14, 14]]
    # before the kick off a player may be moved anywhere in its half: (-10, 10) is cell (14, 14)
    await asyncio.gather(left.execute_action("(move -10 10)"), right.execute_action("(turn 0)"))
    assert left.display_grid()["marks"]["agent"] == [[14, 14]]
