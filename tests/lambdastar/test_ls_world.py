"""The shared Λ* World in process: bodies in a cohort, an iteration played when all have
acted, actions with marks (stigmergy through the environment), and bad actions refused."""

import asyncio
import json
import re

import numpy as np
import pytest

from wwm.lambdastar.world import LambdaStarWorld, parse_action
from wwm.protocol.errors import Refusal


def test_action_text():
    assert parse_action("6") == (5, None)
    assert parse_action(" Down-Right ") == (8, None)
    assert parse_action("mark 0.25") == (None, 0.25)
    for bad in ("0", "10", "jump", "mark x", "mark nan", "6 7"):
        with pytest.raises(Refusal, match="not"):
            parse_action(bad)
    with pytest.raises(Refusal, match="a mark is an action of its own"):
        parse_action("1 mark 0.25")


async def test_marks_are_seen_in_the_iteration_they_are_laid():
    """A mark is answered once every body has marked or moved in this iteration, with the
    marks of this iteration (before, a mark went with the move and showed next iteration)."""
    world = LambdaStarWorld(grid=7, iterations=5, episodes=1, agents=2, seed=2)
    a, b = await world.join(), await world.join()
    first = [json.loads(await x.get_state()) for x in (a, b)]
    assert "marks" not in first[0]
    marked = asyncio.ensure_future(a.execute_action("mark 0.5"))
    await asyncio.sleep(0.05)
    assert not marked.done()            # b has neither marked nor moved yet
    answers = [await b.execute_action("mark 0.25"), await marked]
    docs = [json.loads(x.state) for x in answers[::-1]]
    assert [d["iteration"] for d in docs] == [1, 1] and answers[0].score is None
    for me, other, mine, theirs in ((0, 1, 0.5, 0.25), (1, 0, 0.25, 0.5)):
        cells = set(docs[other]["cells"])
        for cell, r, m in zip(docs[me]["cells"], docs[me]["rewards"], docs[me]["marks"], strict=True):
            assert m == r + max(mine, theirs if cell in cells else mine)
    with pytest.raises(Refusal, match="already marked"):
        await a.execute_action("mark 1")
    await asyncio.gather(a.execute_action("5"), b.execute_action("5"))
    assert "marks" not in json.loads(await a.get_state())   # the layer is cleared every iteration


async def test_an_iteration_waits_for_every_body():
    world = LambdaStarWorld(grid=5, iterations=3, episodes=2, agents=2)
    a, b = await world.join(), await world.join()
    first = asyncio.ensure_future(a.execute_action("1"))
    await asyncio.sleep(0.05)
    assert not first.done()
    with pytest.raises(Refusal, match="already moved"):
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


@pytest.mark.parametrize("minds, settings, message", [
    ([], {}, "minds: give a list of at least one mind URL"),
    ("http://127.0.0.1:9/", {}, "minds: give a list"),
    (["127.0.0.1:9"], {}, "'127.0.0.1:9' is not a URL"),
    (["http://127.0.0.1:9/"], {"episodes": 0}, "episodes and iterations must be at least 1"),
    (["http://127.0.0.1:9/"], {"profile": "book"}, "profile must be one of paper, original"),
    (["http://127.0.0.1:9/"], {"grid": 5, "observation_range": 3}, "observation_range 3 does not fit"),
    (["http://127.0.0.1:9/"], {"timeout": 0}, "timeout must be more than 0"),
    (["http://127.0.0.1:9/"], {"seed": 1.5}, "seed must be a whole number"),
])
def test_the_service_names_a_bad_setting_before_calling_any_mind(minds, settings, message):
    from wwm.lambdastar.service import administer_test

    with pytest.raises(ValueError, match=re.escape(message)):
        asyncio.run(administer_test(minds, **settings))


async def test_a_cohort_sits_the_test_from_its_first_body_s_seed_and_form():
    world = LambdaStarWorld(grid=7, iterations=5, episodes=2, agents=2, seed=0)

    async def cohort(seed, form="json"):
        bodies = [await world.join(seed=seed, form=form), await world.join(seed=seed, form=form)]
        return bodies, [await b.get_state() for b in bodies]

    _, default = await cohort(None)
    _, zero = await cohort(0)
    _, five = await cohort(5)
    strip = [{k: v for k, v in json.loads(s).items() if k != "cohort"} for s in (*default, *zero, *five)]
    assert strip[:2] == strip[2:4] and strip[:2] != strip[4:]        # seed 0 is the world's; 5 another test
    numbered, states = await cohort(5, "numbers")
    doc = json.loads(states[0])
    assert doc["rewards"] == json.loads(five[0])["rewards"] and doc["iteration"] == [1] and doc["episode"] == [1]
    await world.join(seed=7)                                         # a new cohort from seed 7 ...
    with pytest.raises(Refusal, match="sits the test from seed 7, not 8"):
        await world.join(seed=8)                                     # ... that a seed-8 body cannot join
    with pytest.raises(Refusal, match="unknown form 'yaml'"):
        await world.join(form="yaml")
