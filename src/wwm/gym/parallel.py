"""``SharedWorldEnv(url)``: a PettingZoo ``ParallelEnv`` over a shared WWM World (section
4.1.2: several bodies in one instance), one agent per body.

``reset()`` ends the bodies' runs and starts one run per agent on the server (so each is a
body of the shared world: the Λ* world makes them the next cohort, a T-World a team when the
server's ``teams`` says so); ``step(actions)`` sends every live agent's Execute action at
once (a synchronous shared world plays the iteration when all have moved) and returns each
body's state, points and end. Observation and action spaces come from the card's
``state_space`` / ``action_space``, or from ``state_space=`` / ``action_space=`` (the JSON
form of :mod:`.spaces`) for a world that declares none; the New run arguments a space asks
for (its ``new_run``: a numeric ``form``) go with every body's New run. ``reset(seed=)``
seeds the spaces and, when the world takes a ``seed`` argument, is every body's New run
seed: a shared world that seeds each group of bodies from it (the Λ* world's cohorts, a
served PettingZoo env's tables) plays two environments seeded alike alike.
"""

from __future__ import annotations

import asyncio
import functools
import string
from collections.abc import Coroutine
from typing import Any, TypeVar

import gymnasium as gym
from pettingzoo import ParallelEnv

from ..client.cards import fetch_card_sync
from ..client.remote import RemoteWorld
from ..protocol.errors import Refusal
from ..protocol.results import Outcome
from .env import WorldError, new_run_args
from .loop import SyncLoop
from .spaces import Encoded, SpaceError, decode_space, from_text, to_text

T = TypeVar("T")

#: A state as text of up to 64 KiB of printable ASCII (JSON, XML...): for worlds whose state
#: has no fixed shape.
TEXT_STATE: Encoded = {"type": "Text", "form": "text", "max_length": 1 << 16, "min_length": 1,
                       "charset": string.printable}

# pettingzoo ships no types (no py.typed, no stubs package): its ParallelEnv is Any to mypy
class SharedWorldEnv(ParallelEnv[str, Any, Any]):  # type: ignore[misc]
    """A PettingZoo Parallel environment over the shared World at ``url`` with ``agents``
    bodies (default: the server's ``agents`` or ``robots`` argument); ``args`` are New run
    arguments every body sends."""

    metadata: dict[str, Any] = {"name": "wwm_shared_world_v0", "render_modes": []}

    def __init__(self, url: str, agents: int | None = None, *, state_space: Encoded | None = None,
                 action_space: Encoded | None = None, transport: str = "http", timeout: float = 60.0,
                 **args: Any) -> None:
        card = fetch_card_sync(url)
        if card.get("role") != "world" or card.get("sharing") != "shared":
            raise WorldError(f"{url} is not a shared World (role {card.get('role')!r}, "
                             f"sharing {card.get('sharing')!r})")
        in_force = card.get("arguments_in_force", {})
        count = agents or next((int(in_force[k]["value"]) for k in ("agents", "robots") if k in in_force), 0)
        if count < 1:
            raise WorldError(f"{url}: say how many agents (its card gives no agents or robots argument)")
        self._forms: dict[str, Encoded] = {}
        for field, given in (("state_space", state_space), ("action_space", action_space)):
            form = card.get(field) or given
            if not isinstance(form, dict):
                raise WorldError(f"{url} declares no {field} on its card: give {field}= (the JSON form "
                                 f"of wwm.gym.spaces)")
            self._forms[field] = form
        try:
            self._observation_space = decode_space(self._forms["state_space"], "state_space")
            self._action_space = decode_space(self._forms["action_space"], "action_space")
        except SpaceError as exc:
            raise WorldError(f"{url}: {exc}") from None
        self.url, self.card = url, card
        self.possible_agents = [f"body_{i}" for i in range(count)]
        self.agents: list[str] = []
        self._transport, self._timeout = transport, timeout
        self._args = new_run_args({"state_space": self._forms["state_space"],
                                   "action_space": self._forms["action_space"]}, args)
        self._takes_seed = "seed" in card.get("arguments", {}).get("properties", {})
        self._bodies: dict[str, RemoteWorld] = {}
        self._sync = SyncLoop()
        self._closed = False

    @functools.cache  # noqa: B019 (one space object per agent, as PettingZoo asks)
    def observation_space(self, agent: str) -> gym.Space[Any]:
        return self._observation_space

    @functools.cache  # noqa: B019
    def action_space(self, agent: str) -> gym.Space[Any]:
        return self._action_space

    def _call(self, coro: Coroutine[Any, Any, T]) -> T:
        return self._sync.run(coro)

    def _observation(self, text: str) -> Any:
        try:
            return from_text(self._forms["state_space"], self._observation_space, text)
        except SpaceError as exc:
            raise WorldError(f"{self.url} sent a state outside its state_space: {exc}") from None

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None
              ) -> tuple[dict[str, Any], dict[str, dict[str, Any]]]:
        if seed is not None:
            self._observation_space.seed(seed)
            self._action_space.seed(seed)
            if self._takes_seed:           # the world's own dice: the bodies' New run carries it
                self._args["seed"] = seed
        states = self._call(self._start())
        self.agents = list(self.possible_agents)
        return ({a: self._observation(s) for a, s in zip(self.agents, states, strict=True)},
                {a: {} for a in self.agents})

    async def _start(self) -> list[str]:
        await self._end()
        for agent in self.possible_agents:  # joined in order: body i is the world's i-th
            body = RemoteWorld(self.url, transport=self._transport, timeout=self._timeout, run_args=self._args)
            await body.new_run()
            self._bodies[agent] = body
        return list(await asyncio.gather(*(b.get_state() for b in self._bodies.values())))

    async def _end(self) -> None:
        bodies, self._bodies = list(self._bodies.values()), {}
        await asyncio.gather(*(b.end_run() for b in bodies if b.run_id), return_exceptions=True)
        await asyncio.gather(*(b.aclose() for b in bodies), return_exceptions=True)

    def step(self, actions: dict[str, Any]) -> tuple[dict[str, Any], dict[str, float], dict[str, bool],
                                                      dict[str, bool], dict[str, dict[str, Any]]]:
        unknown = [a for a in actions if a not in self.agents]
        if unknown:
            raise WorldError(f"no live agent {', '.join(map(str, unknown))} (live: {', '.join(self.agents)})")
        acting = [a for a in self.agents if a in actions]
        texts = [to_text(self._forms["action_space"], self._action_space, actions[a]) for a in acting]
        outcomes = self._call(self._act(acting, texts))
        observations = {a: self._observation(o.state) for a, o in zip(acting, outcomes, strict=True)}
        rewards = {a: float(o.score or 0.0) for a, o in zip(acting, outcomes, strict=True)}
        ended = {a: o.finished for a, o in zip(acting, outcomes, strict=True)}
        self.agents = [a for a in self.agents if not ended.get(a, False)]
        return observations, rewards, ended, dict.fromkeys(acting, False), {a: {} for a in acting}

    async def _act(self, agents: list[str], texts: list[str]) -> list[Outcome]:
        return list(await asyncio.gather(*(self._act_one(self._bodies[a], t)
                                           for a, t in zip(agents, texts, strict=True))))

    @staticmethod
    async def _act_one(body: RemoteWorld, text: str) -> Outcome:
        try:
            return await body.execute_action(text)
        except Refusal as exc:  # the world ended the run as this body's action came: its end
            if exc.code != "run-ended":
                raise
            return Outcome(await body.get_state(), 0.0, finished=True)

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        try:
            self._call(self._end())
        finally:
            self._sync.close()
