"""PettingZoo both ways, over real server processes: ``SharedWorldEnv`` is a Parallel env
over shared Worlds (the Λ* world with a collective of two, a T-World team of two, episode
after episode), and a PettingZoo parallel env served as a shared World (one body per agent)
plays exactly as it does in process; PettingZoo's own ``parallel_api_test`` passes on each."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from pettingzoo.test import parallel_api_test

from wwm.gym import WorldError
from wwm.gym.parallel import SharedWorldEnv
from wwm.server.process import ServerProcess

pytestmark = pytest.mark.slow

PENNIES = Path(__file__).resolve().parents[2] / "examples" / "gym" / "pennies.py"


def run_out(env: SharedWorldEnv, action: int) -> tuple[int, dict[str, float]]:
    """Step every live agent with ``action`` until all are out; the steps and each one's points."""
    env.reset()
    steps, totals = 0, dict.fromkeys(env.possible_agents, 0.0)
    while env.agents:
        _, rewards, _, _, _ = env.step(dict.fromkeys(env.agents, action))
        steps += 1
        for agent, r in rewards.items():
            totals[agent] += r
    return steps, totals


def test_the_lambdastar_world_with_a_collective_of_two():
    args = {"agents": 2, "grid": 6, "iterations": 4, "episodes": 2}
    with ServerProcess("wwm.lambdastar.world:LambdaStarWorld", args) as server:
        env = SharedWorldEnv(server.url)                            # the card's spaces: numbers
        assert env.possible_agents == ["body_0", "body_1"]          # from the server's agents=2
        parallel_api_test(env, num_cycles=20)
        observations, _ = env.reset()
        assert all(o["iteration"].tolist() == [1] and o["episode"].tolist() == [1] for o in observations.values())
        with pytest.raises(WorldError, match="form=json: the card's spaces are those of form=numbers"):
            SharedWorldEnv(server.url, form="json")                 # JSON states are not in those spaces
        steps, _ = run_out(env, 5)                                  # "stay", every iteration
        assert steps == 4 * 2                                       # iterations x episodes, then the end
        env.close()


def test_a_tworld_team_of_two_episode_after_episode():
    args = {"robots": 2, "teams": "0,1", "speed": 40, "time": 20}
    with ServerProcess("wwm.gym.tileworld:EpisodicTileworld", args) as server:
        env = SharedWorldEnv(server.url)
        assert env.action_space("body_0").n == 5
        parallel_api_test(env, num_cycles=200)
        for _ in range(2):                                          # a fresh episode each time
            observations, _ = env.reset()
            assert all(o["score"].tolist() == [0] and o["window"][12] == 4 for o in observations.values())
            steps, _ = run_out(env, 0)
            assert 0 < steps < 200                                  # the world's clock ends it
        env.close()


def test_a_pettingzoo_env_served_as_a_shared_world_plays_as_in_process():
    sys.path.insert(0, str(PENNIES.parent))
    from pennies import Pennies

    with ServerProcess(f"{PENNIES}:PenniesWorld", {"seed": 3}) as server:
        card = server.card()
        assert card["sharing"] == "shared" and card["action_space"]["type"] == "Discrete"
        env = SharedWorldEnv(server.url, agents=2)
        parallel_api_test(env, num_cycles=30)
        local = Pennies(rounds=10)
        env.reset()
        local.reset()
        moves = [(0, 0), (0, 1), (1, 1), (1, 0), (1, 1), (0, 0), (1, 0), (0, 1), (1, 1), (0, 1)]
        for even, odd in moves:
            there = env.step({"body_0": even, "body_1": odd})
            here = local.step({"even": even, "odd": odd})
            assert [there[0]["body_0"], there[0]["body_1"]] == [here[0]["even"], here[0]["odd"]]
            assert [there[1]["body_0"], there[1]["body_1"]] == [here[1]["even"], here[1]["odd"]]
        assert env.agents == [] and there[2] == {"body_0": True, "body_1": True}   # 10 rounds: the end
        with pytest.raises(WorldError, match="no live agent body_0"):
            env.step({"body_0": 0})
        env.close()


def test_an_own_copy_world_is_no_shared_world():
    with ServerProcess("wwm.kit.grid:GridWorld") as server, pytest.raises(WorldError, match="not a shared World"):
        SharedWorldEnv(server.url, agents=2)
