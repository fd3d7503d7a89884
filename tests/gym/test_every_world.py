"""Every single-agent World the package lists (the registry, ``wwm list worlds``) is a
Gymnasium environment Stable-Baselines3 learns on: it declares its spaces on its card, in
forms SB3 accepts; Gymnasium's and SB3's own ``check_env`` pass on a ``WorldEnv`` over its
served process, and PPO trains on it through the network. A World added to the registry
without spaces fails here, unless it is named below with the reason it has none."""

from __future__ import annotations

import warnings
from typing import Any

import gymnasium as gym
import pytest
from gymnasium.utils.env_checker import check_env

from wwm.gym import WorldEnv
from wwm.gym.spaces import decode_space
from wwm.registry import WORLDS
from wwm.server.process import ServerProcess

#: Worlds with no fixed space of states, and why (anything else must declare its spaces).
NO_SPACES = {
    "eliza-world": "a conversation: its states are sentences",
    "mind-as-world": "its states are the answers of whichever Mind it stands for",
    "person-world": "its states are what a person types",
    "subspace": "its states are another World's, cut down: that World's space",
}
#: New run arguments for the served check (the grid with no food: its distance is -1).
ARGS: dict[str, dict[str, Any]] = {"grid": {"food": 0}, "keydoor": {"steps": 40}}

SINGLE = sorted(n for n in WORLDS if getattr(WORLDS[n], "sharing", "own") != "shared")


def sb3_trouble(space: gym.Space[Any], where: str = "") -> list[str]:
    """What Stable-Baselines3 refuses or mistrains on in an observation space."""
    if isinstance(space, gym.spaces.Dict):
        return [t for k, s in space.spaces.items() for t in sb3_trouble(s, f"{where}.{k}")]
    if isinstance(space, gym.spaces.Discrete) and space.start != 0:
        return [f"{where}: a Discrete starting at {space.start}"]
    if isinstance(space, gym.spaces.Box) and len(space.shape) != 1:
        return [f"{where}: a Box of shape {space.shape} (SB3 wants a vector)"]
    if isinstance(space, gym.spaces.Discrete) and space.n > 1000:
        return [f"{where}: a Discrete of {space.n} values (one input each to a policy)"]
    if not isinstance(space, (gym.spaces.Box, gym.spaces.Discrete, gym.spaces.MultiDiscrete,
                              gym.spaces.MultiBinary)):
        return [f"{where}: a {type(space).__name__} space"]
    return []


@pytest.mark.parametrize("name", SINGLE)
def test_each_single_agent_world_declares_spaces_sb3_takes(name):
    cls = WORLDS[name]
    if name in NO_SPACES:
        assert not getattr(cls, "state_space", None), f"{name} has spaces now: take it off NO_SPACES"
        return
    for field in ("state_space", "action_space"):
        assert isinstance(getattr(cls, field, None), dict), f"{name} declares no {field} on its card"
    assert sb3_trouble(decode_space(cls.state_space)) == []
    assert isinstance(decode_space(cls.action_space), gym.spaces.Discrete | gym.spaces.Box)


def test_the_list_holds_the_worlds_the_brief_names():
    assert {"grid", "ant", "corridor", "keydoor", "house-robot", "tyrrell", "tileworld"} <= set(SINGLE)


@pytest.mark.slow
@pytest.mark.parametrize("name", [n for n in SINGLE if n not in NO_SPACES])
def test_the_peers_checkers_pass_and_ppo_trains_through_the_network(name):
    import torch
    from stable_baselines3 import PPO
    from stable_baselines3.common.env_checker import check_env as sb3_check_env

    torch.set_num_threads(1)
    with ServerProcess(name, ARGS.get(name, {})) as server:
        env = WorldEnv(server.url)
        try:
            check_env(env, skip_render_check=True)
            with warnings.catch_warnings():
                warnings.simplefilter("error")          # a space SB3 only warns about is a failure
                sb3_check_env(env, warn=True)
            policy = "MultiInputPolicy" if isinstance(env.observation_space, gym.spaces.Dict) else "MlpPolicy"
            model = PPO(policy, env, n_steps=64, batch_size=32, n_epochs=1, device="cpu", seed=0)
            model.learn(total_timesteps=128)
            assert model.num_timesteps == 128
        finally:
            env.close()
