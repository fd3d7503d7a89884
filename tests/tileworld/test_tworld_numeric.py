"""The Tileworld's numeric form (wwm.tileworld.numeric): a fixed shape whatever the grid, the
window's codes where the engine has things, the nearest tile and hole as offsets, and every
state inside the space the cards declare."""

from __future__ import annotations

import json

import pytest

from wwm.gym.spaces import decode_space, from_text
from wwm.tileworld.config import Config
from wwm.tileworld.engine import Engine
from wwm.tileworld.inbox import Inbox, state
from wwm.tileworld.numeric import STATE_SPACE, numeric


@pytest.mark.parametrize(("rows", "columns"), [(6, 7), (12, 15)])
def test_the_numeric_form_has_one_shape_and_says_where_things_are(rows, columns):
    engine = Engine(Config.from_dict({"rows": rows, "columns": columns, "seed": 5}))
    space = decode_space(STATE_SPACE)
    for step in range(30):
        data = numeric(engine, 0)
        r, c = engine.agents[0].cell
        assert data["window"][12] == 4                                   # the robot's own cell
        for i, code in enumerate(data["window"]):
            cell = (r + i // 5 - 2, c + i % 5 - 2)
            assert (code == 6) == (not engine.in_bounds(cell))
            assert (code == 1) == (cell in engine.tiles)
        if engine.tiles:
            nearest = min(abs(t[0] - r) + abs(t[1] - c) for t in engine.tiles)
            assert abs(data["tile"][0]) + abs(data["tile"][1]) == nearest
        text = state(engine, 0, "percept", Inbox(0), "numbers")
        assert text == json.dumps(data, separators=(",", ":"))
        assert from_text(STATE_SPACE, space, text) in space
        engine.step({0: ["north", "east", "south", "west"][step % 4]})
