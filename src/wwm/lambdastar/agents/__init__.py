"""The built-in Λ* agents and collectives, by key (``random``, ``local``, ``stigmergy``, ...).

``make(key, size, grid, profile, iterations, observation_range, **params)`` builds a team;
a key such as ``local:2+random:1`` builds a mixed collective (``mixed.py``).
"""

from __future__ import annotations

from typing import Any

from ...registry import Registry
from ..profiles import Profile
from ..torus import Torus
from .base import LocalSearchTeam, OracleTeam, RandomTeam, Team
from .collectives import BiddingTeam, CrowdTeam, DictatorTeam, ImitativeTeam, StigmergyTeam
from .learners import QLearningTeam, SarsaTeam, SharedQTeam, SharedSarsaTeam
from .mixed import MixedTeam, is_mix, mix_size, parse_mix

TEAMS: Registry[type[Team]] = Registry("agent type", group="wwm.lambdastar_agents",
                                      name_of=lambda cls: cls.key)
for _team in (RandomTeam, LocalSearchTeam, OracleTeam, QLearningTeam, SarsaTeam, StigmergyTeam,
              CrowdTeam, BiddingTeam, DictatorTeam, ImitativeTeam, SharedQTeam, SharedSarsaTeam):
    TEAMS.register(_team)


def make(key: str, size: int, grid: Torus, profile: Profile, iterations: int,
         observation_range: int = 1, **params: Any) -> Team:
    """A team of ``size`` agents of type ``key``; ``params`` go to the behaviours that take
    them (``gamma`` for stigmergy, ``replays`` for the learners) and are ignored by others."""
    if is_mix(key):
        parts = parse_mix(key, lambda agent: agent in TEAMS)
        if mix_size(parts) != size:
            raise ValueError(f"the mix {key!r} has {mix_size(parts)} agents, not {size}")
        return MixedTeam([(make(p.agent, p.count, grid, profile, iterations, observation_range,
                                **params), p) for p in parts], size)
    cls = TEAMS.get(key)
    if cls is None:
        raise ValueError(f"unknown agent type {key!r} (choose from {', '.join(TEAMS)})")
    import inspect
    accepted = set(inspect.signature(cls.__init__).parameters)
    own = {k: v for k, v in params.items() if k in accepted}
    return cls(size, grid, profile, iterations, observation_range, **own)


__all__ = ["TEAMS", "MixedTeam", "Team", "is_mix", "make", "mix_size", "parse_mix"]
