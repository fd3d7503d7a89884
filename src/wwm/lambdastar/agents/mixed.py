"""Heterogeneous collectives (section 5.2 of the Λ* paper): one group whose members are of
different behaviours, e.g. two local searchers and a Q-learner, written ``local:2+qlearning:1``.

Member j of a mix is agent j of the test: it starts on the cell agent j starts on and uses
agent j's random draws, whatever its type, so a mix plays the very episodes its pure
collectives play. Members of one type form a sub-team and interact as their pure collective
does (two ``stigmergy`` members read each other's fake rewards); members of different types
share only the environment.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from ..engine import EpisodeStart, Observation
from .base import Team

MIX_JOIN = "+"


@dataclass(frozen=True, slots=True)
class Part:
    """``count`` members of one agent type."""

    agent: str
    count: int


def is_mix(key: str) -> bool:
    """Whether an agent key names a mixed collective (``type:count+type:count``)."""
    return MIX_JOIN in key or ":" in key


def parse_mix(key: str, known: Callable[[str], bool]) -> list[Part]:
    """``local:2+random:1`` -> [Part('local', 2), Part('random', 1)]; a count left out is 1
    and a type named twice is merged (in the order first named). Clear errors otherwise."""
    parts: dict[str, int] = {}
    for word in key.split(MIX_JOIN):
        agent, sep, count = word.strip().partition(":")
        agent = agent.strip()
        if not agent:
            raise ValueError(f"the mix {key!r} has an empty part (write it as type:count+type:count, "
                             f"e.g. local:2+random:1)")
        if not known(agent):
            raise ValueError(f"the mix {key!r} names an unknown agent type {agent!r}")
        try:
            n = int(count) if sep else 1
        except ValueError:
            raise ValueError(f"the mix {key!r}: {count!r} is not a whole number of {agent} agents") from None
        if n < 1:
            raise ValueError(f"the mix {key!r}: {agent} needs at least one agent (got {n})")
        parts[agent] = parts.get(agent, 0) + n
    return [Part(a, n) for a, n in parts.items()]


def mix_key(parts: list[Part]) -> str:
    """The canonical name of a mix."""
    return MIX_JOIN.join(f"{p.agent}:{p.count}" for p in parts)


def mix_size(parts: list[Part]) -> int:
    return sum(p.count for p in parts)


@dataclass(slots=True)
class _Start:
    """What one sub-team's ``begin`` reads: Good's cells, and its own members' start cells."""

    good: np.ndarray
    positions: np.ndarray


class MixedTeam(Team):
    """Sub-teams, one per type, over consecutive ranges of the members."""

    key, label = "mix", "Mixed collective"
    collective = True

    def __init__(self, parts: list[tuple[Team, Part]], size: int) -> None:
        first = parts[0][0]
        super().__init__(size, first.grid, first.profile, first.iterations, first.k)
        self.parts = [team for team, _ in parts]
        bounds = np.cumsum([0] + [p.count for _, p in parts])
        self.members = [np.arange(lo, hi) for lo, hi in zip(bounds[:-1], bounds[1:], strict=True)]
        if bounds[-1] != size:
            raise ValueError(f"the mix has {bounds[-1]} agents, not {size}")
        self.replays = max(team.replays for team in self.parts)
        self._training = False

    @property
    def training(self) -> bool:
        return self._training

    @training.setter
    def training(self, value: bool) -> None:
        self._training = value
        for team in getattr(self, "parts", ()):
            team.training = value

    def begin(self, episode: EpisodeStart) -> None:
        for team, idx in zip(self.parts, self.members, strict=True):
            team.begin(_Start(episode.good, episode.positions[idx]))

    def act(self, observations: list[Observation], draws: np.ndarray) -> list[int]:
        actions = [0] * self.size
        for team, idx in zip(self.parts, self.members, strict=True):
            for j, a in zip(idx, team.act([observations[j] for j in idx], draws[idx]), strict=True):
                actions[j] = int(a)
        return actions

    def feedback(self, rewards: np.ndarray, positions: np.ndarray) -> None:
        for team, idx in zip(self.parts, self.members, strict=True):
            team.feedback(rewards[idx], positions[idx])

    def end_episode(self) -> None:
        for team in self.parts:
            team.end_episode()
