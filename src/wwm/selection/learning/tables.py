"""Lookup tables for tabular reinforcement learning: Q(x,a) with the count-based learning rate
alpha = 1/n(x,a) of [PhD] (reference notes 3), W(x) with alpha_W = 1/n(x), Boltzmann
exploration, and a temperature that declines over a declared run length (section 7.3.1).
Plain data with a JSON form, so knowledge can be stored per client and read back.
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from ...protocol.errors import Refusal


def boltzmann_choice(values: Sequence[float], temperature: float, rng: random.Random) -> int:
    """P(a) = e^{Q(a)/T} / SUM_b e^{Q(b)/T}; T <= 0 is greedy (ties to the lowest index)."""
    if temperature <= 0:
        best = max(values)
        return next(i for i, v in enumerate(values) if v == best)
    top = max(values)
    weights = [math.exp((v - top) / temperature) for v in values]
    return rng.choices(range(len(values)), weights=weights)[0]


@dataclass
class QTable:
    """Q(x, a) over a fixed list of actions; unseen states read as ``initial``."""

    actions: list[str]
    gamma: float = 0.9
    initial: float = 0.0
    q: dict[str, list[float]] = field(default_factory=dict)
    n: dict[str, list[int]] = field(default_factory=dict)

    def row(self, x: str) -> list[float]:
        return self.q.get(x) or [self.initial] * len(self.actions)

    def value(self, x: str, a: int) -> float:
        return self.row(x)[a]

    def best(self, x: str) -> int:
        row = self.row(x)
        top = max(row)
        return row.index(top)

    def max(self, x: str) -> float:
        return max(self.row(x))

    def update(self, x: str, a: int, reward: float, y: str | None, discount: float | None = None) -> float:
        """One Q-learning step; returns the target r + gamma max_b Q(y,b). ``discount``
        replaces gamma for a choice that lasted k steps (gamma^k, with ``reward`` the
        discounted sum of the k rewards: the master of a Feudal servant, whose order stands
        until it is reached)."""
        if x not in self.q:
            self.q[x] = [self.initial] * len(self.actions)
            self.n[x] = [0] * len(self.actions)
        factor = self.gamma if discount is None else discount
        target = reward + (factor * self.max(y) if y is not None else 0.0)
        self.n[x][a] += 1
        alpha = 1.0 / self.n[x][a]
        self.q[x][a] += alpha * (target - self.q[x][a])
        return target

    def to_json(self) -> dict[str, Any]:
        return {"actions": self.actions, "gamma": self.gamma, "initial": self.initial,
                "q": self.q, "n": self.n}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> QTable:
        return cls(list(data["actions"]), float(data["gamma"]), float(data.get("initial", 0.0)),
                   {k: [float(v) for v in row] for k, row in data["q"].items()},
                   {k: [int(v) for v in row] for k, row in data["n"].items()})


@dataclass
class WTable:
    """W(x): how much a mind stands to lose in x when it is not obeyed, learnt from samples
    of the loss d with alpha_W = 1/n(x). Unseen states start at ``initial`` (the thesis starts
    W random negative for the strict variant: pass a negative value)."""

    initial: float = 0.0
    w: dict[str, float] = field(default_factory=dict)
    n: dict[str, int] = field(default_factory=dict)

    def value(self, x: str) -> float:
        return self.w.get(x, self.initial)

    def update(self, x: str, sample: float) -> float:
        count = self.n.get(x, 0) + 1
        self.n[x] = count
        old = self.value(x)
        self.w[x] = old + (sample - old) / count
        return self.w[x]

    def forget_counts(self) -> None:
        """Collection changed: keep the values but learn quickly again (alpha back to 1)."""
        self.n.clear()

    def to_json(self) -> dict[str, Any]:
        return {"initial": self.initial, "w": self.w, "n": self.n}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> WTable:
        return cls(float(data.get("initial", 0.0)), {k: float(v) for k, v in data["w"].items()},
                   {k: int(v) for k, v in data["n"].items()})


@dataclass
class Temperature:
    """A temperature kept by the server: it starts at ``start`` and declines linearly to
    ``floor`` over ``run_length`` steps (section 7.3.1, "server maintains temperature")."""

    start: float
    run_length: float = 10_000.0
    floor: float = 0.0
    steps: int = 0
    current: float = -1.0

    def __post_init__(self) -> None:
        if self.start < 0 or self.floor < 0:
            raise ValueError("a temperature cannot be negative")
        if self.run_length <= 0:
            raise ValueError("the run length must be positive")
        if self.current < 0:
            self.current = self.start

    def tick(self) -> float:
        """The temperature for this step; then move one step down the schedule."""
        value = self.current
        self.steps += 1
        fraction = min(1.0, self.steps / self.run_length)
        self.current = self.floor + (self.start - self.floor) * (1.0 - fraction)
        return value

    def reset(self, run_length: float | None = None, start: float | None = None) -> None:
        if run_length is not None:
            if run_length <= 0:
                raise ValueError("the run length must be positive")
            self.run_length = run_length
        if start is not None:
            if start < 0:
                raise ValueError("a temperature cannot be negative")
            self.start = start
        self.steps = 0
        self.current = self.start


class TemperatureQueries:
    """The Mind_L Q-temperature queries (9.2.1) for a mind that keeps a :class:`Temperature`
    in ``self.temperature``: get it, reset it ("World has changed"), or set it explicitly."""

    temperature: Temperature

    async def get_q_temperature(self) -> float | None:
        return self.temperature.current

    async def reset_q_temperature(self, run_length: float | None = None) -> None:
        try:
            self.temperature.reset(run_length)
        except ValueError as exc:
            raise Refusal("bad-parameters", str(exc)) from None

    async def send_q_temperature(self, q_temperature: float, run_length: float | None = None) -> None:
        try:
            self.temperature.reset(run_length, start=q_temperature)
        except ValueError as exc:
            raise Refusal("bad-parameters", str(exc)) from None
