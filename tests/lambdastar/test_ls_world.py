"""The shared Λ* World in process: bodies in a cohort, an iteration played when all have
acted, actions with marks (stigmergy through the environment), and bad actions refused."""

import asyncio
import json

import numpy as np
import pytest

from wwm.lambdastar.world import LambdaStarWorld, parse_action
from wwm.protocol.errors import Refusal


def test_action_text():
    assert parse_action("6") == (5, None)
    assert parse_action(" Down-Right ") == (8, None)
    assert parse_action("1 mark 0.25") == (0, 0.25)
    for bad in ("0", "10", "jump", "6 mark x", "6 mark nan", "6 7"):
        with pytest.raises(Refusal, match="not"):
            parse_action(bad)


async def test_marks_are_laid_on_the_cells_the_depositor_saw():
    world = LambdaStarWorld(grid=7, iterations=5, episodes=1, agents=2, seed=2)
    a, b = await world.join(), await world.join()
    first = [json.loads(await x.get_state()) for x in (a, b)]
    assert first[0]["marks"] == [None] * 9
    await asyncio.gather(a.execute_action("5 mark 0.5"), b.execute_action("5"))
    seen = [json.loads(await x.get_state()) for x in (a, b)]
    # a stayed where it was, so its cells now carry what it saw there plus 0.5
    assert seen[0]["cells"] == first[0]["cells"]
    assert seen[0]["marks"] == [r + 0.5 for r in first[0]["rewards"]]
    overlap = set(first[0]["cells"]) & set(seen[1]["cells"])
    for cell, mark in zip(seen[1]["cells"], seen[1]["marks"], strict=True):
        assert (mark is not None) == (cell in overlap)
    await asyncio.gather(a.execute_action("5"), b.execute_action("5"))
    assert json.loads(await a.get_state())["marks"] == [None] * 9   # trails last one iteration


async def test_an_iteration_waits_for_every_body():
    world = LambdaStarWorld(grid=5, iterations=3, episodes=2, agents=2)
    a, b = await world.join(), await world.join()
    first = asyncio.ensure_future(a.execute_action("1"))
    await asyncio.sleep(0.05)
    assert not first.done()
    with pytest.raises(Refusal, match="already acted"):
        await a.execute_action("2")
    second = await b.execute_action("2")
    assert (await first).state and json.loads(second.state)["iteration"] == 2
    for _ in range(5):   # the rest of the test: 2 episodes of 3 iterations
        out = await asyncio.gather(a.execute_action("5"), b.execute_action("5"))
    assert all(o.finished for o in out)
    assert np.isfinite(await a.end_run())
    with pytest.raises(Refusal, match="over"):
        await a.execute_action("5")


def test_bad_settings_are_named():
    with pytest.raises(ValueError, match="observation range 3"):
        LambdaStarWorld(grid=5, observation_range=3)
    with pytest.raises(ValueError, match="agents"):
        LambdaStarWorld(agents=0)
    with pytest.raises(ValueError, match="the seed must be a whole number, 0 or more"):
        LambdaStarWorld(seed=-1)
