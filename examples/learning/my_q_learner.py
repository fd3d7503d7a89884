"""A tabular Q-learning mind of your own, for the grid world (wwm.kit.grid).

It learns from the points each "Inform it about state" brings. What it learns is kept per
client URL (section 7.3 of the World-Wide-Mind): each client teaches its own table, and a
client's next run goes on from where its last one stopped, so episodes build on each other.
"""

from __future__ import annotations

import random
from typing import ClassVar

from wwm import Mind, Suggestion

ACTIONS = ["north", "south", "east", "west", "stay"]


def sign(n: int) -> int:
    return (n > 0) - (n < 0)


def features(state: str) -> str:
    """What the table is indexed by: which way the nearest food is, and the nearest hazard
    when it is two steps away or closer. A state reads ``x=3 y=4 food=6,7;1,2 hazard=2,4 ...``."""
    items = dict(item.split("=", 1) for item in state.split())
    x, y = int(items["x"]), int(items["y"])

    def nearest(key: str) -> tuple[int, int] | None:
        cells = [tuple(map(int, cell.split(","))) for cell in items.get(key, "").split(";") if cell]
        return min(cells, key=lambda c: abs(c[0] - x) + abs(c[1] - y), default=None)

    food, hazard = nearest("food"), nearest("hazard")
    toward_food = f"{sign(food[0] - x)},{sign(food[1] - y)}" if food else "none"
    near = hazard is not None and abs(hazard[0] - x) + abs(hazard[1] - y) <= 2
    toward_hazard = f"{sign(hazard[0] - x)},{sign(hazard[1] - y)}" if near else "far"
    return f"food {toward_food} hazard {toward_hazard}"


class MyQLearner(Mind):
    """Q-learning by lookup table over which way the food and a near hazard are."""

    tables: ClassVar[dict[str, dict[str, list[float]]]] = {}  # one Q table per client URL

    def __init__(self, alpha: float = 0.3, gamma: float = 0.8, epsilon: float = 0.1, seed: int = 0) -> None:
        self.alpha, self.gamma, self.epsilon = alpha, gamma, epsilon
        self.rng = random.Random(seed)
        self.q: dict[str, list[float]] = {}
        self.last: tuple[str, int] | None = None  # the state and action of this step

    async def new_run(self, client_url=None, world_display_url=None, world_run_id=None):
        await super().new_run(client_url, world_display_url, world_run_id)
        self.q = self.tables.setdefault(client_url or "", {})
        self.last = None

    def row(self, key: str) -> list[float]:
        return self.q.setdefault(key, [0.0] * len(ACTIONS))

    async def get_action(self, state: str) -> Suggestion:
        key = features(state)
        values = self.row(key)
        if self.rng.random() < self.epsilon:
            a = self.rng.randrange(len(ACTIONS))
        else:
            a = max(range(len(ACTIONS)), key=lambda i: (values[i], self.rng.random()))
        self.last = (key, a)
        return Suggestion(ACTIONS[a])

    async def inform(self, state: str, score: float | None = None) -> None:
        if self.last is None:
            return
        key, a = self.last
        target = (score or 0.0) + self.gamma * max(self.row(features(state)))
        self.row(key)[a] += self.alpha * (target - self.row(key)[a])
