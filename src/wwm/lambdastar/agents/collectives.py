"""Collectives of local-search agents that interact: stigmergy (fake rewards left in the
environment, Algorithm 2), the wisdom of the crowd (a shared map of averaged rewards),
bidding, a dictator, and imitation of a hidden oracle. Each interacts in the communication
phase, after the observations and before anyone moves.
"""

from __future__ import annotations

import numpy as np

from ..engine import EpisodeStart, Observation
from ..profiles import Profile
from ..torus import Torus
from .base import Team, pick_best


class StigmergyTeam(Team):
    """Local search on fake rewards. ``paper`` (Algorithm 2): each iteration the fake layer
    starts empty; agent j writes R(c) + r̂ on its cells with r̂ = γ·r_max + (1-γ)·r_min (where
    neighbourhoods overlap the highest fake reward stays, the paper being silent). ``original``:
    one persistent layer F; f = 0.4·(r_max + r_min); if f ≠ 0, F(c) ← (F(c) + R(c) + f)/3.
    Each agent then steps to its cell of highest fake reward. Fake rewards never score."""

    key, label = "stigmergy", "Stigmergy (fake rewards) collective"
    collective, isolated_form = True, "local"

    def __init__(self, size: int, grid: Torus, profile: Profile, iterations: int,
                 observation_range: int = 1, *, gamma: float = 0.5) -> None:
        super().__init__(size, grid, profile, iterations, observation_range)
        if not 0.0 < gamma < 1.0:
            raise ValueError(f"the fake-reward factor γ must be in (0, 1) (got {gamma})")
        self.gamma = gamma

    def begin(self, episode: EpisodeStart) -> None:
        self.fake = np.zeros(self.grid.size)

    def act(self, observations: list[Observation], draws: np.ndarray) -> list[int]:
        if self.profile.stigmergy_persistent:
            for o in observations:
                f = (o.rewards.max() + o.rewards.min()) * 0.4
                if f != 0:
                    self.fake[o.cells] = (self.fake[o.cells] + o.rewards + f) / 3
        else:
            self.fake[:] = -np.inf
            for o in observations:
                rhat = self.gamma * o.rewards.max() + (1 - self.gamma) * o.rewards.min()
                self.fake[o.cells] = np.maximum(self.fake[o.cells], o.rewards + rhat)
        return [self.towards(int(o.cells[pick_best(self.fake[o.cells], u)]), o.cell)
                for o, u in zip(observations, draws[:, 0], strict=True)]


class CrowdTeam(Team):
    """Wisdom of the crowd: a shared map A, A(c) ← (A(c) + R(c))/2 for every observed c with
    R(c) ≠ 0; each agent steps towards a global maximum of A (a random cell if A is flat)."""

    key, label = "woc", "Wisdom-of-crowd collective"
    collective, isolated_form = True, "local"

    def begin(self, episode: EpisodeStart) -> None:
        self.map = np.zeros(self.grid.size)

    def act(self, observations: list[Observation], draws: np.ndarray) -> list[int]:
        for o in observations:
            seen = o.rewards != 0
            cells = o.cells[seen]
            self.map[cells] = (self.map[cells] + o.rewards[seen]) / 2
        return [self.towards(pick_best(self.map, u), o.cell) for o, u in zip(observations, draws[:, 0], strict=True)]


class BiddingTeam(Team):
    """Each agent in turn bids the best reward it sees; whoever bids at least the highest bid
    so far sets everyone's target to its local-search choice. ``original``: the highest bid
    only ratchets up within an episode; ``paper`` profile: bidding starts afresh each iteration."""

    key, label = "bidding", "Bidding collective"
    collective, isolated_form = True, "local"

    def begin(self, episode: EpisodeStart) -> None:
        self.highest = -np.inf
        self.target: int | None = None

    def act(self, observations: list[Observation], draws: np.ndarray) -> list[int]:
        if not self.profile.bidding_ratchets:  # the paper profile: a fresh auction
            self.highest = -np.inf
        for o, u in zip(observations, draws[:, 0], strict=True):
            bid = o.rewards.max()
            if bid >= self.highest:
                self.highest, self.target = bid, self.local_choice(o, u)
        target = self.target
        assert target is not None  # (every bid beats -inf)
        return [self.towards(target, o.cell) for o in observations]


class DictatorTeam(Team):
    """Agent 0's local-search choice is everyone's target."""

    key, label = "dictator", "Dictator collective"
    collective, isolated_form = True, "local"

    def act(self, observations: list[Observation], draws: np.ndarray) -> list[int]:
        target = self.local_choice(observations[0], draws[0, 0])
        return [self.towards(target, o.cell) for o in observations]


class ImitativeTeam(Team):
    """Local searchers who follow a hidden oracle whenever it is next to them. The oracle
    starts on the last agent's cell and approaches Good's next cell (``original``: once per
    agent per iteration, as the authors' loop does; ``paper`` profile: once per iteration)."""

    key, label = "imitative", "Imitative collective"
    collective, isolated_form = True, "local"
    needs_oracle = True

    def begin(self, episode: EpisodeStart) -> None:
        self.good = episode.good
        self.oracle = int(episode.positions[-1])

    def act(self, observations: list[Observation], draws: np.ndarray) -> list[int]:
        i = observations[0].iteration

        def step() -> int:
            return int(self.grid.moves[self.oracle, self.grid.approach[self.good[i], self.oracle]])

        if not self.profile.imitative_moves_per_agent:
            self.oracle = int(step())
        actions = []
        for o, u in zip(observations, draws[:, 0], strict=True):
            if self.profile.imitative_moves_per_agent:
                self.oracle = int(step())
            if self.grid.distance[o.cell, self.oracle] <= 1:
                actions.append(self.towards(self.oracle, o.cell))
            else:
                actions.append(self.towards(self.local_choice(o, u), o.cell))
        return actions
