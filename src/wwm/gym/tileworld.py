"""The Tileworld for PettingZoo: the real-time shared T-World episode after episode
(``EpisodicTileworld``), and a lock-step one (``TileworldParallel``, served as the shared
World ``SteppedTileworld``, ``wwm serve tileworld-stepped``) whose runs seeded alike play alike.

:class:`~wwm.tileworld.shared_world.SharedTileworld` runs on the server's clock: what a
robot sees depends on when its actions arrive, so no two runs are the same. The lock-step
Tileworld is T-World's discrete core (:meth:`Engine.step`): a step is played when every
robot has chosen its move, then the world advances γ seconds; its states are the numeric
form (:mod:`wwm.tileworld.numeric`), its actions the five moves; a robot's points are its
team's gain. Each table of robots plays from the seed its first body's New run gives
(:mod:`.served_parallel`), so PettingZoo's own seed tests pass on it over the network.
"""

from __future__ import annotations

import functools
import json
from typing import Any

import gymnasium as gym
import numpy as np
from pettingzoo import ParallelEnv

from ..tileworld.config import Config
from ..tileworld.engine import Engine
from ..tileworld.numeric import MOVES, STATE_SPACE, numeric
from ..tileworld.shared_world import SharedTileworld
from .served_parallel import pettingzoo_world
from .spaces import decode_space, from_text

_FORM = {k: v for k, v in STATE_SPACE.items() if k != "new_run"}  # served as the env's own JSON


class EpisodicTileworld(SharedTileworld):
    """The shared real-time T-World (its spaces are SharedTileworld's, declared on its card);
    kept under this name for the servers and notes that use it."""


# pettingzoo ships no types: its ParallelEnv is Any to mypy
class TileworldParallel(ParallelEnv[str, Any, Any]):  # type: ignore[misc]
    """T-World's discrete core for ``robots`` robots (one team each) on a ``rows`` x
    ``columns`` grid, over after ``time`` world seconds (γ = ``gamma`` per step)."""

    metadata: dict[str, Any] = {"name": "tileworld_stepped_v0", "render_modes": []}

    def __init__(self, robots: int = 2, rows: int = 9, columns: int = 10, time: float = 60.0,
                 gamma: float = 0.35) -> None:
        self.settings = {"rows": rows, "columns": columns, "gamma": gamma, "agents": robots,
                         "end": {"neutral": {"time": time}}}
        Config.from_dict({**self.settings, "seed": 0})  # a ConfigError now, not at reset
        self.possible_agents = [f"robot_{i}" for i in range(robots)]
        self.agents: list[str] = []
        self.engine: Engine | None = None
        self._space = decode_space(_FORM)
        self._scores: list[int] = []

    @functools.cache  # noqa: B019 (one space object per agent, as PettingZoo asks)
    def observation_space(self, agent: str) -> gym.Space[Any]:
        return self._space

    @functools.cache  # noqa: B019
    def action_space(self, agent: str) -> gym.Space[Any]:
        return gym.spaces.Discrete(len(MOVES))

    def _observe(self, engine: Engine) -> dict[str, Any]:
        return {a: from_text(_FORM, self._space, json.dumps(numeric(engine, i)))
                for i, a in enumerate(self.possible_agents)}

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None
              ) -> tuple[dict[str, Any], dict[str, dict[str, Any]]]:
        self.engine = Engine(Config.from_dict({**self.settings, "seed": 0 if seed is None else seed}))
        self.agents = list(self.possible_agents)
        self._scores = [self._score(i) for i in range(len(self.possible_agents))]
        return self._observe(self.engine), {a: {} for a in self.agents}

    def _score(self, robot: int) -> int:
        assert self.engine is not None
        return self.engine.teams[self.engine.agents[robot].team].score

    def step(self, actions: dict[str, Any]) -> tuple[dict[str, Any], dict[str, float], dict[str, bool],
                                                      dict[str, bool], dict[str, dict[str, Any]]]:
        if self.engine is None:
            raise RuntimeError("call reset() before step()")
        index = {a: i for i, a in enumerate(self.possible_agents)}
        self.engine.step({index[a]: MOVES[int(np.asarray(m))] for a, m in actions.items() if a in self.agents})
        scores = [self._score(i) for i in range(len(self.possible_agents))]
        rewards = {a: float(scores[index[a]] - self._scores[index[a]]) for a in self.agents}
        self._scores = scores
        over = self.engine.finished
        observations = {a: o for a, o in self._observe(self.engine).items() if a in self.agents}
        live = list(self.agents)
        if over:
            self.agents = []
        return (observations, rewards, dict.fromkeys(live, over), dict.fromkeys(live, False),
                {a: {} for a in live})


#: The lock-step Tileworld as a shared World (``wwm serve tileworld-stepped``): two robots.
SteppedTileworld: type[Any] = pettingzoo_world(TileworldParallel, name="Tileworld, lock-step")
SteppedTileworld.__module__ = __name__
SteppedTileworld.__qualname__ = SteppedTileworld.__name__ = "SteppedTileworld"
