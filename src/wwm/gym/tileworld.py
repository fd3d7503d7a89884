"""The shared T-World, episode after episode, for PettingZoo: ``EpisodicTileworld``.

:class:`~wwm.tileworld.shared_world.SharedTileworld` plays one episode per server: once every
robot has a client, later runs are refused. This subclass declares its spaces (the state as
text, the moves as labels) and, when every robot's run has ended, lets a new set of clients
join a fresh episode (the same seed, the same layout), so :class:`~wwm.gym.parallel.SharedWorldEnv`
can ``reset()``. Serve it with ``wwm serve wwm.gym.tileworld:EpisodicTileworld --arg robots=2
--arg teams=0,1`` (a team of two).
"""

from __future__ import annotations

from typing import Any, ClassVar

from ..protocol.errors import Refusal
from ..protocol.interfaces import World
from ..tileworld.engine import Engine
from ..tileworld.forms import FormError, check_form
from ..tileworld.shared_world import RobotBody, SharedTileworld
from .parallel import TEXT_STATE

MOVES = ["north", "south", "east", "west", "none"]


class EpisodicBody(RobotBody):
    """A robot whose End run the world counts, to know when an episode is over for all."""

    ended = False

    async def end_run(self) -> float | None:
        self.ended = True
        return await self.get_current_score()


class EpisodicTileworld(SharedTileworld):
    """The shared real-time T-World, a fresh episode for each full set of clients (see the
    module's text)."""

    state_space: ClassVar[dict[str, Any]] = TEXT_STATE
    action_space: ClassVar[dict[str, Any]] = {"type": "Discrete", "n": len(MOVES), "labels": MOVES}

    async def join(self, client_url: str | None = None, form: str = "json", **args: Any) -> World:
        if self.started and all(isinstance(b, EpisodicBody) and b.ended for b in self.bodies):
            self.engine, self.bodies = Engine(self.config), []
        if self.started:
            raise Refusal("busy", f"all {self.config.agents} robots of this Tileworld have clients")
        try:
            chosen = check_form(form)
        except FormError as exc:
            raise Refusal("bad-parameters", f"shared Tileworld: {exc}") from None
        body = EpisodicBody(self, len(self.bodies), chosen)
        body.client_url = client_url
        self.bodies.append(body)
        return body
