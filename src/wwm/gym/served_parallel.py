"""A PettingZoo parallel environment served as a shared WWM World, one body per agent.

:func:`pettingzoo_world` makes the World class; serve it from a file that names it::

    # pennies.py
    from wwm.gym.served_parallel import pettingzoo_world
    PenniesWorld = pettingzoo_world(my_game.parallel_env, rounds=10)

    wwm serve pennies.py:PenniesWorld --port 8300

The n-th client of a table of ``len(possible_agents)`` runs is the n-th agent; the episode
starts (``reset(seed=)``: the seed its first body's New run gives, else the server's seed
argument plus the table's number) when the table is full,
and a step is played when every live agent's body has sent its action. A body's state is its
observation's text, its points its reward; its run ends when its agent terminates or is
truncated. Later runs sit at the next table: a new episode. The card declares the spaces
(the agents' must be alike).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any, ClassVar

import gymnasium as gym
from pettingzoo import ParallelEnv

from ..protocol.errors import Refusal
from ..protocol.interfaces import World
from ..protocol.results import Outcome
from .spaces import SpaceError, encode_space, from_text, to_text


class Table:
    """One episode of the environment and the bodies playing it."""

    def __init__(self, world: PettingZooWorld, number: int, seed: int | None = None) -> None:
        self.world, self.number = world, number
        # the first body's seed, else the server's plus the table's number (None: unseeded)
        self.seed = seed if seed is not None else None if world.seed is None else world.seed + number - 1
        self.env: ParallelEnv[Any, Any, Any] = world.factory(**world.env_kwargs)
        self.names: list[Any] = list(self.env.possible_agents)
        self.bodies: list[AgentBody] = []
        self.full = asyncio.Event()
        self.observations: dict[Any, Any] = {}
        self.rewards: dict[Any, float] = {}
        self.ended: set[Any] = set()
        self.pending: dict[Any, Any] = {}
        self.played = asyncio.Condition()
        self.tick = 0

    def add(self, body: AgentBody) -> None:
        self.bodies.append(body)
        if len(self.bodies) == len(self.names):
            self.observations, _ = self.env.reset(seed=self.seed)
            self.full.set()

    async def act(self, agent: Any, action: Any) -> None:
        if agent in self.ended:
            raise Refusal("run-ended", f"{agent} is out of this episode; end the run")
        if agent in self.pending:
            raise Refusal("bad-parameters", f"{agent} has already acted in this step; wait for its answer")
        async with self.played:
            self.pending[agent] = action
            tick = self.tick
            if set(self.pending) >= set(self.env.agents):
                self._play()
            else:
                await self.played.wait_for(lambda: self.tick != tick)

    def _play(self) -> None:
        actions, self.pending = self.pending, {}
        observations, rewards, terminated, truncated, _ = self.env.step(actions)
        self.observations.update(observations)
        self.rewards = {a: float(r) for a, r in rewards.items()}
        self.ended |= {a for a in actions if terminated.get(a) or truncated.get(a)}
        self.tick += 1
        self.played.notify_all()


class AgentBody(World):
    """One client's agent at a :class:`Table`."""

    def __init__(self, table: Table, index: int) -> None:
        self.table, self.agent = table, table.names[index]

    async def _ready(self) -> None:
        try:
            await asyncio.wait_for(self.table.full.wait(), self.table.world.wait_seconds)
        except TimeoutError:
            raise Refusal("busy", f"the episode starts when {len(self.table.names)} bodies have joined; "
                          f"{len(self.table.bodies)} joined within {self.table.world.wait_seconds:g} s") from None

    def _state(self) -> str:
        w = self.table.world
        return to_text(w.state_space, w.observation, self.table.observations[self.agent])

    async def get_state(self) -> str:
        await self._ready()
        return self._state()

    async def execute_action(self, action: str) -> Outcome:
        w = self.table.world
        try:
            value = from_text(w.action_space, w.action, action)
        except SpaceError as exc:
            raise Refusal("bad-parameters", f"Execute action: {exc}") from None
        await self._ready()
        await self.table.act(self.agent, value)
        reward = self.table.rewards.get(self.agent, 0.0)
        self._score += reward
        return Outcome(self._state(), reward, finished=self.agent in self.table.ended)


class PettingZooWorld(World):
    """A PettingZoo parallel environment as a shared World (see the module's text)."""

    sharing = "shared"
    factory: ClassVar[Callable[..., ParallelEnv[Any, Any, Any]]]
    env_kwargs: ClassVar[dict[str, Any]] = {}
    observation: ClassVar[gym.Space[Any]]
    action: ClassVar[gym.Space[Any]]
    state_space: ClassVar[dict[str, Any]] = {}
    action_space: ClassVar[dict[str, Any]] = {}
    wait_seconds: ClassVar[float] = 60.0

    def __init__(self, seed: int | None = None) -> None:
        self.seed = seed
        self.table: Table | None = None

    async def join(self, client_url: str | None = None, **args: Any) -> World:
        given = args.pop("seed", None)
        if args:
            raise Refusal("bad-parameters", f"a body takes no arguments but seed (got "
                                            f"{', '.join(f'{k}={v}' for k, v in args.items())})")
        seed: int | None = None
        if given is not None:
            try:
                seed = int(given)
            except (TypeError, ValueError):
                seed = -1
            if seed < 0:
                raise Refusal("bad-parameters", f"seed must be a whole number, 0 or more, got {given!r}")
        if self.table is None or len(self.table.bodies) >= len(self.table.names):
            self.table = Table(self, 1 if self.table is None else self.table.number + 1, seed)
        elif seed is not None and seed != self.table.seed:
            raise Refusal("bad-parameters", f"the table this body joins plays from seed {self.table.seed}, "
                                            f"not {seed}")
        body = AgentBody(self.table, len(self.table.bodies))
        body.client_url = client_url
        self.table.add(body)
        return body

    async def get_state(self) -> str:
        raise Refusal("unsupported-query", "start a run to get a body in the environment")


def pettingzoo_world(factory: Callable[..., ParallelEnv[Any, Any, Any]], name: str | None = None,
                     **env_kwargs: Any) -> type[PettingZooWorld]:
    """A shared World class serving ``factory(**env_kwargs)``, a PettingZoo parallel env whose
    agents share one observation space and one action space (a ValueError otherwise)."""
    probe = factory(**env_kwargs)
    agents = list(probe.possible_agents)
    if not agents:
        raise ValueError("the environment has no possible agents")
    observation, action = probe.observation_space(agents[0]), probe.action_space(agents[0])
    if any(probe.observation_space(a) != observation or probe.action_space(a) != action for a in agents):
        raise ValueError("the agents' spaces differ: a served PettingZoo env needs one space for all")
    title = name or str(getattr(probe, "metadata", {}).get("name", factory.__name__))
    probe.close()
    doc = (f"The PettingZoo environment {title}, served as a shared World: the n-th run of each "
           f"table of {len(agents)} is the agent {agents[0]}, ... in order.\n\n"
           f"State: the agent's observation as JSON (state_space); action: JSON (action_space); "
           f"the points of a step are the agent's reward.")
    attrs: dict[str, Any] = {
        "__doc__": doc, "__module__": __name__, "title": title,
        "factory": staticmethod(factory), "env_kwargs": dict(env_kwargs),
        "observation": observation, "action": action,
        "state_space": encode_space(observation), "action_space": encode_space(action),
        "state_format": f"JSON of a value of {' '.join(str(observation).split())} (the card's state_space)",
        "action_format": f"JSON of a value of {' '.join(str(action).split())} (the card's action_space)",
    }
    return type("".join(ch for ch in title.title() if ch.isalnum()) + "World", (PettingZooWorld,), attrs)
