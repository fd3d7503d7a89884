"""Q-learning and SARSA agents, alone or sharing one table (the cooperative collectives).

A state is (iteration, cell), so |S| = N·ϑ, with 9 actions. Before the scored run each
episode is replayed ``replays`` times with the same start cells and trajectories (by default
the profile's: ``paper`` once, "each test episode of ϑ iterations is equivalent to one
training session", Algorithm 1; ``original`` 100 times, the authors' code); the table is kept
across replays and dropped after the episode. Actions are
greedy with random ties; ``original`` starts the table at an optimistic 2 (which does the
exploring), ``paper`` at 0. The scored run is greedy and does not learn. ``original`` keeps
the code's quirks: training rewards ×10 and the bootstrap read from the first time slice.
"""

from __future__ import annotations

import numpy as np

from ..engine import EpisodeStart, Observation
from ..profiles import Profile
from ..torus import Torus
from .base import Team, pick_best


class QLearningTeam(Team):
    """Each agent learns its own Q-table over (iteration, cell) by Q-learning."""

    key, label = "qlearning", "Q-learning"
    shared = False
    alpha, gamma = 0.3, 0.3

    def __init__(self, size: int, grid: Torus, profile: Profile, iterations: int,
                 observation_range: int = 1, *, replays: int | None = None) -> None:
        super().__init__(size, grid, profile, iterations, observation_range)
        if replays is None:  # the profile's: paper one training session, original 100 replays
            replays = self.profile.replays
        if replays < 0:
            raise ValueError(f"replays must be 0 or more (got {replays})")
        self.replays = replays
        self.q: np.ndarray | None = None

    def tables(self) -> int:
        return 1 if self.shared else self.size

    def begin(self, episode: EpisodeStart) -> None:
        if self.q is None:
            self.q = np.full((self.tables(), self.iterations, self.grid.size, 9),
                             self.profile.q_initial)
        self.slice = 0

    def end_episode(self) -> None:
        self.q = None

    def table(self, j: int) -> np.ndarray:
        assert self.q is not None  # (made by begin)
        table: np.ndarray = self.q[0 if self.shared else j]
        return table

    def act(self, observations: list[Observation], draws: np.ndarray) -> list[int]:
        self.slice = observations[0].iteration - 1
        self.before = [o.cell for o in observations]
        self.actions = [pick_best(self.table(j)[self.slice, o.cell], u)
                        for j, (o, u) in enumerate(zip(observations, draws[:, 0], strict=True))]
        return self.actions

    def next_slice(self) -> int | None:
        """The time slice the bootstrap reads (None: the episode has ended)."""
        if self.profile.q_bootstrap_first_slice:
            return 0
        return self.slice + 1 if self.slice + 1 < self.iterations else None

    def feedback(self, rewards: np.ndarray, positions: np.ndarray) -> None:
        if not self.training:
            return
        nxt = self.next_slice()
        for j in range(self.size):
            q = self.table(j)
            future = 0.0 if nxt is None else q[nxt, positions[j]].max()
            s, c, a = self.slice, self.before[j], self.actions[j]
            target = rewards[j] * self.profile.q_training_scale + self.gamma * future
            q[s, c, a] += self.alpha * (target - q[s, c, a])


class SharedQTeam(QLearningTeam):
    """The Q-learning collective: every agent reads and updates one shared Q-table."""

    key, label = "shared-q", "Shared Q-table collective"
    shared, collective, isolated_form = True, True, "qlearning"


class SarsaTeam(QLearningTeam):
    """SARSA: the bootstrap is the value of the action the agent will really take next,
    chosen greedily at (iteration+1, cell') with the agent's second draw. ``original`` reads
    that value from the current time slice instead, as the authors' Sarsa.cpp does."""

    key, label = "sarsa", "SARSA"

    def begin(self, episode: EpisodeStart) -> None:
        super().begin(episode)
        self.planned: list[int | None] = [None] * self.size

    def act(self, observations: list[Observation], draws: np.ndarray) -> list[int]:
        actions = super().act(observations, draws)
        if self.training:
            self.actions = [p if p is not None else a for p, a in zip(self.planned, actions, strict=True)]
        self.draws = draws
        return self.actions

    def feedback(self, rewards: np.ndarray, positions: np.ndarray) -> None:
        if not self.training:
            return
        following = self.slice + 1
        for j in range(self.size):
            q = self.table(j)
            s, c, a = self.slice, self.before[j], self.actions[j]
            if following < self.iterations:
                nxt = pick_best(q[following, positions[j]], self.draws[j, 1])
                self.planned[j] = nxt
                read = s if self.profile.q_bootstrap_first_slice else following
                future = q[read, positions[j], nxt]
            else:
                future = 0.0
            target = rewards[j] * self.profile.q_training_scale + self.gamma * future
            q[s, c, a] += self.alpha * (target - q[s, c, a])


class SharedSarsaTeam(SarsaTeam):
    """The SARSA collective: every agent reads and updates one shared table."""

    key, label = "shared-sarsa", "Shared SARSA collective"
    shared, collective, isolated_form = True, True, "sarsa"
