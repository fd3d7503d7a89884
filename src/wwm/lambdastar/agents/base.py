"""What every Λ* agent group is: a :class:`Team` of one or more agents that sees the
observations of all its members, (communicates and) returns one action per member, and is
told the rewards. An isolated agent type is a team whose members ignore each other.

Random choices come from the ``draws`` the test hands out (two uniforms per agent per
iteration), so the plain and vectorised engines make the same choices.
"""

from __future__ import annotations

from typing import ClassVar

import numpy as np

from ..engine import EpisodeStart, Observation
from ..profiles import Profile
from ..torus import Torus


def pick_best(values: np.ndarray, u: float) -> int:
    """The position of a maximum of ``values``; ties broken by the uniform ``u`` (the
    ⌊u·count⌋-th maximum in order)."""
    best = np.flatnonzero(values == values.max())
    return int(best[int(u * len(best))])


class Team:
    """A group of ``size`` agents of one behaviour on the Λ* grid."""

    key: ClassVar[str] = ""
    label: ClassVar[str] = ""
    collective: ClassVar[bool] = False
    isolated_form: ClassVar[str | None] = None  # the isolated type a collective builds on
    needs_oracle: ClassVar[bool] = False        # reads Good's future (privileged)
    replays: int = 0                            # training replays before the scored run

    def __init__(self, size: int, grid: Torus, profile: Profile, iterations: int,
                 observation_range: int = 1) -> None:
        if size < 1:
            raise ValueError(f"a team needs at least one agent (got {size})")
        self.size = size
        self.grid = grid
        self.profile = profile
        self.iterations = iterations
        self.k = observation_range
        self.training = False

    def begin(self, episode: EpisodeStart) -> None:
        """A new episode (or a training replay of it) starts."""

    def act(self, observations: list[Observation], draws: np.ndarray) -> list[int]:
        raise NotImplementedError

    def feedback(self, rewards: np.ndarray, positions: np.ndarray) -> None:
        """The rewards of the iteration just played and where the agents now stand."""

    def end_episode(self) -> None:
        """The scored run is over: forget everything learnt in it."""

    # ---- helpers shared by behaviours -----------------------------------------------------
    def local_choice(self, obs: Observation, u: float) -> int:
        """Local search: the observed cell with the highest reward now (ties at random)."""
        return int(obs.cells[pick_best(obs.rewards, u)])

    def towards(self, target: int, cell: int) -> int:
        return int(self.grid.approach[target, cell])


class RandomTeam(Team):
    """The baseline: each agent takes one of the nine moves at random each iteration."""

    key, label = "random", "Random"

    def act(self, observations: list[Observation], draws: np.ndarray) -> list[int]:
        return [int(u * 9) for u in draws[:, 0]]


class LocalSearchTeam(Team):
    """Each agent steps towards the observed cell with the highest reward now (ties at random)."""

    key, label = "local", "Local search"

    def act(self, observations: list[Observation], draws: np.ndarray) -> list[int]:
        return [self.towards(self.local_choice(o, u), o.cell) for o, u in zip(observations, draws[:, 0], strict=True)]


class OracleTeam(Team):
    """The expert: knows Good's future. ``original``: one king step towards Good's next cell.
    ``paper``: heads for the earliest future cell of Good it can reach in time (so it goes
    the other way round the torus to intercept a Good running away), then follows Good."""

    key, label = "oracle", "Oracle"
    needs_oracle = True

    def begin(self, episode: EpisodeStart) -> None:
        self.good = episode.good

    def act(self, observations: list[Observation], draws: np.ndarray) -> list[int]:
        return [self.towards(self.target(o.cell, o.iteration), o.cell) for o in observations]

    def target(self, cell: int, i: int) -> int:
        if not self.profile.oracle_intercepts:
            return int(self.good[i])
        times = np.arange(i, len(self.good))
        reachable = self.grid.distance[cell, self.good[times]] <= times - i + 1
        return int(self.good[times[np.argmax(reachable)]] if reachable.any() else self.good[i])
