"""Matching pennies, a two-player PettingZoo parallel environment, served as a shared WWM
World (one body per player) with ``wwm serve examples/gym/pennies.py:PenniesWorld``.

Each round both players show heads (0) or tails (1): ``even`` scores +1 when they match and
-1 when they differ, ``odd`` the opposite. A player observes what the other showed last
round (2 before the first). The episode is truncated after ``rounds`` rounds.
"""

from __future__ import annotations

from typing import Any

from gymnasium import spaces
from pettingzoo import ParallelEnv

from wwm.gym.served_parallel import pettingzoo_world


class Pennies(ParallelEnv):
    metadata = {"name": "pennies_v0", "render_modes": []}

    def __init__(self, rounds: int = 10) -> None:
        if rounds < 1:
            raise ValueError(f"rounds must be 1 or more, got {rounds}")
        self.rounds = rounds
        self.possible_agents = ["even", "odd"]
        self.agents: list[str] = []
        self._observation = spaces.Discrete(3)
        self._action = spaces.Discrete(2)
        self.played = 0

    def observation_space(self, agent: str) -> spaces.Space:
        return self._observation

    def action_space(self, agent: str) -> spaces.Space:
        return self._action

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None):
        if seed is not None:
            self._action.seed(seed)
        self.agents, self.played = list(self.possible_agents), 0
        return {a: 2 for a in self.agents}, {a: {} for a in self.agents}

    def step(self, actions: dict[str, int]):
        even, odd = int(actions["even"]), int(actions["odd"])
        self.played += 1
        points = 1.0 if even == odd else -1.0
        observations = {"even": odd, "odd": even}
        rewards = {"even": points, "odd": -points}
        over = self.played >= self.rounds
        terminated = dict.fromkeys(self.agents, False)
        truncated = dict.fromkeys(self.agents, over)
        infos: dict[str, dict[str, Any]] = {a: {} for a in self.agents}
        if over:
            self.agents = []
        return observations, rewards, terminated, truncated, infos


PenniesWorld = pettingzoo_world(Pennies, rounds=10)
