"""The random mind: seeded, uniform over the action set it is given."""

from __future__ import annotations

from collections import Counter

import pytest

from wwm.kit.random_mind import RandomMind


async def choices(mind: RandomMind, n: int) -> list[str]:
    return [(await mind.get_action("any state")).action for _ in range(n)]


async def test_same_seed_same_choices_and_all_actions_used():
    a, b = await choices(RandomMind(seed=3), 200), await choices(RandomMind(seed=3), 200)
    assert a == b
    counts = Counter(a)
    assert set(counts) == {"north", "south", "east", "west", "stay"}
    assert all(20 <= c <= 60 for c in counts.values())            # roughly uniform (40 expected)
    assert a != await choices(RandomMind(seed=4), 200)


@pytest.mark.parametrize("actions", ["cooperate, defect", ["cooperate", "defect"]])
async def test_the_action_set_is_an_argument(actions):
    got = set(await choices(RandomMind(actions=actions, seed=0), 50))
    assert got == {"cooperate", "defect"}


def test_an_empty_action_set_is_refused_by_name():
    with pytest.raises(ValueError, match="at least one action"):
        RandomMind(actions=" , ")


async def test_it_keeps_the_score_it_is_told():
    mind = RandomMind()
    await mind.inform("y", 2.0)
    await mind.inform("y", None)
    await mind.inform("y", -0.5)
    assert await mind.get_current_score() == 1.5
    await mind.reset_score()
    await mind.inform("y", 1.0)
    assert await mind.end_run(7.0) == 1.0
