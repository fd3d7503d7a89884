"""The shared T-World, episode after episode, for PettingZoo: ``EpisodicTileworld``.

:class:`~wwm.tileworld.shared_world.SharedTileworld` starts a fresh game (the same seed, the
same layout) once the last is over or every robot's run has ended, so
:class:`~wwm.gym.parallel.SharedWorldEnv` can ``reset()``; this subclass declares its spaces
(the state as text, the moves as labels). Serve it with ``wwm serve
wwm.gym.tileworld:EpisodicTileworld --arg robots=2 --arg teams=0,1`` (a team of two).
"""

from __future__ import annotations

from typing import Any, ClassVar

from ..tileworld.shared_world import SharedTileworld
from .parallel import TEXT_STATE

MOVES = ["north", "south", "east", "west", "none"]


class EpisodicTileworld(SharedTileworld):
    """The shared real-time T-World with its spaces declared (see the module's text)."""

    state_space: ClassVar[dict[str, Any]] = TEXT_STATE
    action_space: ClassVar[dict[str, Any]] = {"type": "Discrete", "n": len(MOVES), "labels": MOVES}
