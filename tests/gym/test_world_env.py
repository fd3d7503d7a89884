"""Gymnasium both ways, over real server processes: ``wwm serve gym:CartPole-v1`` serves a
Gymnasium environment as a World, and ``WorldEnv`` (and ``gymnasium.make("wwm/World-v0")``)
stands a ``gymnasium.Env`` on any World whose card declares its spaces -- Gymnasium's own
checker passes on it over the grid World, the Ant World (HTTP and the TCP binding) and the
served CartPole; and a Mind in C balances that CartPole through the network."""

from __future__ import annotations

import subprocess
import sys
import warnings
from pathlib import Path

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

from wwm.client.remote import RemoteMind, RemoteWorld
from wwm.client.runner import RunSettings, run
from wwm.gym import WorldEnv, WorldError
from wwm.server.process import ServerProcess

pytestmark = pytest.mark.slow

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "gym"


@pytest.fixture(scope="module")
def cartpole():
    with ServerProcess("gym:CartPole-v1") as server:
        yield server


@pytest.fixture(scope="module")
def grid():
    with ServerProcess("wwm.kit.grid:GridWorld", {"steps": 30}) as server:
        yield server


@pytest.fixture(scope="module")
def ant():
    with ServerProcess("wwm.selection.ant:AntWorld", extra=["--tcp-port", "0"]) as server:
        yield server


def checked(env: gym.Env) -> None:
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=".*infinity.*")  # CartPole's own Box bounds
        check_env(env, skip_render_check=True)


def test_the_served_cartpole_declares_its_spaces_and_passes_the_checker(cartpole):
    card = cartpole.card()
    assert card["state_space"]["type"] == "Box" and card["state_space"]["shape"] == [4]
    assert card["action_space"] == {"type": "Discrete", "n": 2, "start": 0}
    assert card["max_episode_steps"] == 500
    env = gym.make("wwm/World-v0", url=cartpole.url)
    checked(env.unwrapped)
    # the remote episode is the local one: same seed, same actions, same observations
    local = gym.make("CartPole-v1")
    there, _ = env.reset(seed=5)
    here, _ = local.reset(seed=5)
    assert np.array_equal(there, here)
    for action in [0, 1, 1, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1]:
        there_step, here_step = env.step(action), local.step(action)
        assert np.array_equal(there_step[0], here_step[0]) and there_step[1:4] == here_step[1:4]
        if here_step[2]:
            break
    assert here_step[2] and there_step[2]             # the pole fell: terminated, both sides
    with pytest.raises(Exception, match="episode is over"):
        env.step(0)
    env.close()


def test_a_time_limit_is_truncation_not_termination(cartpole):
    env = WorldEnv(cartpole.url)
    obs, _ = env.reset(seed=1)
    steps, terminated, truncated = 0, False, False
    while not (terminated or truncated):
        obs, reward, terminated, truncated, _ = env.step(int(obs[2] + 0.5 * obs[3] > 0))
        steps += 1
    assert (steps, terminated, truncated) == (500, False, True)
    env.close()


def test_the_grid_world_and_the_ant_world_pass_the_checker(grid, ant):
    for env in (WorldEnv(grid.url), WorldEnv(ant.url), WorldEnv(ant.url, transport="tcp")):
        checked(env)
        obs, _ = env.reset(seed=2)
        assert obs in env.observation_space
        env.close()
    env = WorldEnv(grid.url)
    env.reset(seed=3)
    ends = [env.step(4)[2] for _ in range(30)]        # "stay" 30 times: the world's steps=30
    assert ends == [False] * 29 + [True]
    env.close()


def test_a_world_without_spaces_is_a_clear_error(probe_world):
    with pytest.raises(WorldError, match="declares no state_space"):
        WorldEnv(probe_world.url)


def test_bad_gym_targets_are_one_line_errors():
    for target, message in (("gym:NoSuchEnv-v0", "no Gymnasium environment 'NoSuchEnv-v0'"),
                            ("gym:CartPole-v1", "bad --arg")):
        done = subprocess.run([sys.executable, "-m", "wwm.cli.main", "serve", target, "--port", "0",
                               "--arg", "wobble=3"], capture_output=True, text=True, timeout=60)
        assert done.returncode == 2 and message in done.stderr and "Traceback" not in done.stderr


def test_a_c_mind_balances_the_served_cartpole(cartpole, tmp_path):
    binary = tmp_path / "cartpole_mind"
    subprocess.run(["cc", "-O2", "-std=c99", "-Wall", "-Wextra", "-Werror", "-o", str(binary),
                    str(EXAMPLES / "cartpole_mind.c")], check=True, capture_output=True)
    command = [sys.executable, "-m", "wwm.cli.main", "serve-exec", "--mode", "persistent", "--port", "0",
               "--", str(binary)]
    with ServerProcess("serve-exec", port=0, command=command) as mind_server:
        import asyncio

        async def drive():
            mind, world = RemoteMind(mind_server.url, encoding="xml"), RemoteWorld(cartpole.url, seed=4)
            try:
                return await run(mind, world, RunSettings(steps=None, keepalive=None, timeout=10.0))
            finally:
                await mind.aclose()
                await world.aclose()

        result = asyncio.run(drive())
    assert result.status == "ended by world"
    assert len(result.steps) == 500 == result.total_score        # balanced to the time limit
    assert {s.action for s in result.steps} == {"0", "1"}


async def test_a_world_env_made_inside_a_running_loop_steps_from_it(grid):
    """A notebook cell runs in an event loop: the env then runs its client on a thread."""
    env = WorldEnv(grid.url)
    assert env._sync.threaded
    first, _ = env.reset(seed=3)
    again, _ = env.reset(seed=3)
    assert first == again and env.step(0)[0] in env.observation_space
    env.close()


def test_closing_an_env_whose_server_has_gone_is_quiet():
    with ServerProcess("wwm.kit.grid:GridWorld") as server:
        env = WorldEnv(server.url)
        env.reset(seed=1)
    env.close()                                       # the server is gone: nothing to end
    env.close()
