"""A Feudal ("slave") Q-learner (9.2.3, 10.18, Watkins 1989): it has no goals of its own and
learns to take its master to the state c it is ordered to reach. It learns on augmented
states (x, c), rewarded for transitions (*, c), a -> (c, c); a master drives it with
"Take me to state" and asks "How good is this action" to weigh its orders.
"""

from __future__ import annotations

import random
from typing import Any, ClassVar

from ...protocol.interfaces import FeudalMind, LearningMind
from ...protocol.results import RunStarted, Suggestion, Values
from .knowledge import KnowledgeStore
from .qlearning import DEFAULT_ACTIONS, parse_actions, step_number
from .tables import QTable, Temperature, TemperatureQueries, boltzmann_choice


class FeudalQMind(TemperatureQueries, FeudalMind, LearningMind):
    """Learns Q((x,c), a), rewarded ``r`` on arriving at c (the state text, compared without
    surrounding white space). Arguments: ``actions``, ``gamma``, ``r``, ``q_temperature``
    over ``run_length`` steps, ``learn``, ``pretrained`` (a client URL), ``seed``."""

    title: ClassVar[str] = "Feudal Q-learning mind (Mind_Feu)"
    state_format: ClassVar[str] = "any text; the destination c is a state of the same world"
    action_format: ClassVar[str] = "one of the 'actions' argument"

    def __init__(self, actions: str | list[str] = DEFAULT_ACTIONS, gamma: float = 0.9,
                 r: float = 1.0, q_temperature: float = 0.5, run_length: float = 10_000.0,
                 learn: bool = True, pretrained: str | None = None, seed: int | None = None) -> None:
        self.actions = parse_actions(actions)
        if not 0.0 <= gamma < 1.0:
            raise ValueError("gamma must be in [0, 1)")
        if r <= 0:
            raise ValueError("the reward r for arriving must be positive")
        self.table = QTable(self.actions, gamma)
        self.r = r
        self.temperature = Temperature(q_temperature, run_length)
        self.learn = learn
        self.pretrained = pretrained
        self.rng = random.Random(seed)
        self.store = KnowledgeStore()
        self.client: str | None = None
        self.x: str | None = None
        self.c: str | None = None
        self.a: int | None = None
        self.arrivals = 0
        self.orders = 0       # "Take me to state" queries this run
        self.informed = 0     # "Inform it about state" queries this run

    @property
    def identity(self) -> str:
        cls = type(self)
        return f"{cls.__module__}.{cls.__qualname__}|{','.join(self.actions)}|{self.table.gamma:g}|{self.r:g}"

    @staticmethod
    def key(state: str, destination: str) -> str:
        return f"{state.strip()} -> {destination.strip()}"

    async def new_run(self, client_url: str | None = None, world_display_url: str | None = None,
                      world_run_id: str | None = None,
                      other_client_url: str | None = None) -> RunStarted | None:
        await super().new_run(client_url, world_display_url, world_run_id)
        self.client = client_url
        data = self.store.recall(self.identity, client_url, other_client_url or self.pretrained)
        if data is not None:
            self.table = QTable.from_json(data["q"])
        return None

    async def get_action(self, state: str, **step: Any) -> Suggestion:
        return Suggestion.cannot("a Feudal mind has no goals of its own: send it Take me to state")

    async def take_me_to(self, state: str, destination: str, q_temperature: Any = None,
                         **step: Any) -> Suggestion:
        sent = step_number(q_temperature, "Q-temperature")
        t = self.temperature.tick() if sent is None else sent
        key = self.key(state, destination)
        row = self.table.row(key)
        a = boltzmann_choice(row, t if self.learn or sent is not None else 0.0, self.rng)
        self.x, self.c, self.a = state, destination, a
        self.orders += 1
        return Suggestion(self.actions[a], q=row[a], w=max(row) - min(row))

    async def how_good(self, state: str, destination: str, action: str, **step: Any) -> Values:
        if action not in self.actions:
            return Values()
        row = self.table.row(self.key(state, destination))
        q = row[self.actions.index(action)]
        return Values(q=q, w=max(row) - q)

    async def inform(self, state: str, score: float | None = None) -> float | None:
        self.informed += 1
        if self.x is None or self.c is None or self.a is None:
            return None
        arrived = state.strip() == self.c.strip()
        reward = self.r if arrived else 0.0
        self.arrivals += int(arrived)
        if self.learn:
            y = None if arrived else self.key(state, self.c)  # arriving ends the order
            self.table.update(self.key(self.x, self.c), self.a, reward, y)
        self.x, self.a = state, None
        return reward

    def display_details(self) -> dict[str, Any]:
        """For the run display page: the orders this run ("Take me to state"), the last one,
        the news heard, the arrivals, and how many (x, c) the table knows."""
        return {"orders": self.orders, "last order": {"x": self.x, "c": self.c} if self.c is not None else None,
                "informed": self.informed, "arrivals": self.arrivals, "states known": len(self.table.q)}

    async def end_run(self, score: float | None = None) -> float | None:
        if self.learn:
            self.store.save(self.identity, self.client, {"q": self.table.to_json()})
        return float(self.arrivals)
