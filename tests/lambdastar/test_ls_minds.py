"""The built-in agents as Mind objects (in process): they read the Λ* state and answer."""

import json
import re

import pytest

from wwm.lambdastar.minds import LocalSearchMind, OracleMind, QLearningMind, RandomMind
from wwm.protocol.errors import Refusal


def state(**extra):
    doc = {"test": "lambdastar", "grid": [5, 5], "episode": 1, "iteration": 1, "iterations": 3,
           "cell": 7, "cells": [1, 2, 3, 6, 7, 8, 11, 12, 13],
           "rewards": [0, 0, 0, 0, 0, 1.0, 0, 0, -0.5], "finished": False}
    doc.update(extra)
    return json.dumps(doc)


async def test_local_search_steps_to_the_best_cell():
    assert (await LocalSearchMind().get_action(state())).action == "6"


async def test_oracle_needs_hints():
    assert not (await OracleMind().get_action(state())).can_suggest
    assert (await OracleMind().get_action(state(**{"good next": 13}))).action == "9"


async def test_random_mind_and_the_end_of_the_test():
    acts = {(await RandomMind(seed=s).get_action(state())).action for s in range(30)}
    assert acts <= {str(a) for a in range(1, 10)} and len(acts) > 5
    assert not (await RandomMind().get_action(state(finished=True))).can_suggest


async def test_q_learning_mind_learns_from_inform():
    m = QLearningMind(team="t1")
    first = (await m.get_action(state())).action
    q = await m.inform(state(iteration=2, cell=8), score=1.0)
    assert q == pytest.approx(0.3)
    assert (await m.get_action(state())).action == first   # it now prefers what paid


async def test_not_a_lambdastar_state():
    with pytest.raises(Refusal, match="not JSON"):
        await LocalSearchMind().get_action("<xml/>")
    with pytest.raises(Refusal, match="not a Λ\\* state"):
        await LocalSearchMind().get_action("{}")


async def test_team_mind_refuses_learners_and_unknown_types():
    from wwm.lambdastar.minds import TeamMind
    with pytest.raises(ValueError, match="QLearningMind"):
        TeamMind(agent="qlearning")
    with pytest.raises(ValueError, match="not 'genius'"):
        TeamMind(agent="genius")
    solo = TeamMind(agent="dictator", team="solo-test")
    assert (await solo.get_action(state(agents=1, agent=1))).action == "6"


async def test_sarsa_mind_updates_when_the_next_action_is_chosen():
    from wwm.lambdastar.minds import SarsaMind
    m = SarsaMind(team="sarsa-test")
    await m.get_action(state())
    assert await m.inform(state(iteration=2, cell=8), score=1.0) is None   # waits for a'
    await m.get_action(state(iteration=2, cell=8))
    assert max(m.values((0, 1), 1, 7)) == pytest.approx(0.3)


async def test_q_learning_minds_of_one_team_share_their_table():
    a, b, private = QLearningMind(team="share-test"), QLearningMind(team="share-test"), QLearningMind()
    await a.get_action(state())
    await a.inform(state(iteration=2, cell=8), score=1.0)
    assert max(b.values((0, 1), 1, 7)) == pytest.approx(0.3)        # b sees what a learnt
    assert max(private.values((0, 1), 1, 7)) == 0.0                  # a private table does not
    assert (await b.get_action(state())).action == (await a.get_action(state())).action


@pytest.mark.parametrize("broken, message", [
    ({"rewards": None}, "lacks rewards"),
    ({"rewards": "x"}, '"rewards" must be one number per cell'),
    ({"rewards": [0, 1]}, '"rewards" must be one number per cell'),
    ({"cells": [0, 2, 3, 6, 7, 8, 11, 12, 13]}, "cell numbers 1..25"),
    ({"grid": [5]}, '"grid" must be [rows, columns]'),
    ({"iteration": 0}, '"iteration" must be whole numbers from 1'),
])
async def test_a_malformed_state_is_refused_by_name(broken, message):
    doc = json.loads(state())
    doc.update(broken)
    doc = {k: v for k, v in doc.items() if v is not None}
    for mind in (LocalSearchMind(), QLearningMind(), RandomMind()):
        with pytest.raises(Refusal, match=re.escape(message)):
            await mind.get_action(json.dumps(doc))


async def test_a_team_needs_its_size_in_the_state():
    from wwm.lambdastar.minds import TeamMind
    with pytest.raises(Refusal, match='"agent", "agents" and "iterations"'):
        await TeamMind(agent="woc", team="no-size").get_action(state())
