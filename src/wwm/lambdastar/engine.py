"""The plain Λ* engine: one episode, played one iteration at a time, in the order the paper
gives (and the authors' code runs): observations from the current positions, then the
agents (communicate and) act, then Good and Evil move, then rewards at the new positions.

This is the reference the vectorised engine and the World server are checked against.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

import numpy as np

from .episodes import EpisodeSet


@dataclass(frozen=True, slots=True)
class Observation:
    """What one agent sees at one iteration: its own cell and, for each cell of its range-k
    Moore neighbourhood (row-major from the upper-left corner, own cell in the middle), the
    cell's index and the reward there. It sees no objects and no other agents."""

    cell: int
    cells: np.ndarray
    rewards: np.ndarray
    iteration: int


class EpisodeStart(Protocol):
    """What a team's ``begin`` reads of an episode: Good's cell at each iteration and where
    the agents start."""

    good: np.ndarray
    positions: np.ndarray


class Environment(EpisodeStart, Protocol):
    """What the harness plays: a Λ* :class:`Episode`, or an episode on a fitness landscape
    (:class:`~.landscape.LandscapeEpisode`)."""

    iterations: int

    def observe(self) -> list[Observation]: ...

    def step(self, actions: Sequence[int]) -> np.ndarray: ...

    def score(self) -> float: ...


class Episode:
    """One test episode of a set: ``observe()``, then ``step(actions)``, ϑ times."""

    def __init__(self, episodes: EpisodeSet, index: int, agents: int, *,
                 observation_range: int = 1, coordination: bool = False) -> None:
        if agents < 1:
            raise ValueError(f"an episode needs at least one agent (got {agents})")
        self.set = episodes
        self.index = index
        self.grid = episodes.grid
        self.profile = episodes.profile
        self.iterations = episodes.iterations
        self.k = observation_range
        self.coordination = coordination
        self.good = episodes.good[index]
        self.evil = episodes.evil[index]
        self.positions = episodes.starts(agents)[index].copy()
        self.neighbourhoods = self.grid.neighbourhood_table(observation_range)
        self.payoff = self.profile.reward_by_distance(observation_range, self.grid.size)
        distance = self.grid.distance
        # half-units of reward in every cell at every iteration: [ϑ+1, N]
        self.fields = (self.payoff[distance[self.good]].astype(np.int16)
                       - self.payoff[distance[self.evil]])
        self.iteration = 0  # iterations completed
        self.totals = np.zeros(agents)

    @property
    def agents(self) -> int:
        return len(self.positions)

    @property
    def done(self) -> bool:
        return self.iteration >= self.iterations

    def field(self, t: int) -> np.ndarray:
        """Half-units of reward in every cell when Good and Evil are at their iteration-t cells."""
        field: np.ndarray = self.fields[t]
        return field

    def observed_field(self) -> np.ndarray:
        """The reward grid the agents observe before iteration ``self.iteration + 1``."""
        if self.iteration == 0 and self.profile.first_observation_bug:
            grid = np.zeros(self.grid.size, dtype=np.int16)
            grid[0] = -1  # the objects were reset to cell 1: R(1) = -0.5, all else 0
            return grid
        return self.field(self.iteration)

    def observe(self) -> list[Observation]:
        if self.done:
            raise RuntimeError("the episode is over")
        grid = self.observed_field()
        out = []
        for pos in self.positions:
            cells = self.neighbourhoods[pos]
            out.append(Observation(int(pos), cells, grid[cells] / 2.0, self.iteration + 1))
        return out

    def step(self, actions: Sequence[int]) -> np.ndarray:
        """Move the agents (actions 0..8), then Good and Evil; return each agent's reward."""
        if self.done:
            raise RuntimeError("the episode is over")
        if len(actions) != self.agents:
            raise ValueError(f"expected {self.agents} actions, got {len(actions)}")
        if not all(0 <= a <= 8 for a in actions):
            raise ValueError(f"actions are 0..8 (got {list(actions)})")
        self.positions = self.grid.moves[self.positions, actions]
        self.iteration += 1
        rewards = self.rewards_at(self.positions, self.iteration)
        self.totals += rewards
        return rewards

    def rewards_at(self, positions: np.ndarray, t: int) -> np.ndarray:
        if not self.coordination:
            rewards: np.ndarray = self.fields[t][positions] / 2.0
            return rewards
        distance = self.grid.distance
        plus = self.payoff[distance[positions, self.good[t]]].astype(np.int16)
        if np.count_nonzero(distance[positions, self.good[t]] <= 1) < 2:
            plus = np.zeros_like(plus)  # Good pays only when two or more agents are next to it
        rewards = (plus - self.payoff[distance[positions, self.evil[t]]]) / 2.0
        return rewards

    def score(self) -> float:
        """Definition 2: the mean reward per agent per iteration so far."""
        return float(self.totals.sum() / (self.agents * max(1, self.iteration)))
