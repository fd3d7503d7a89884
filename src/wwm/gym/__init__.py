"""Gymnasium and PettingZoo, both ways (the optional extra ``wwm[gym]``).

- :mod:`.spaces`: the JSON form of Gymnasium spaces a card's ``state_space`` /
  ``action_space`` declares, and values of a space as state and action text;
- :mod:`.served`: ``wwm serve gym:CartPole-v1``, a registered environment as a World;
- :mod:`.env`: :class:`WorldEnv`, a ``gymnasium.Env`` over any World whose card declares
  its spaces, also made by ``gymnasium.make("wwm/World-v0", url=...)`` once this package
  is imported;
- :mod:`.parallel`: a PettingZoo ``ParallelEnv`` over a shared World, one body per agent;
- :mod:`.served_parallel`: a PettingZoo parallel environment served as a shared World.
"""

from __future__ import annotations

import gymnasium

from .env import WorldEnv, WorldError

__all__ = ["WorldEnv", "WorldError"]

if "wwm/World-v0" not in gymnasium.registry:
    gymnasium.register(id="wwm/World-v0", entry_point="wwm.gym.env:WorldEnv", disable_env_checker=True)
