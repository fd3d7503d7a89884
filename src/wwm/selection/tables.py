"""What an AS server itself learns or remembers: the switch table Q(x,i) of Hierarchical
Q-learning (10.5), the table W(x,i) of Collective W-learning (10.13), and the remembered
winner k(x) or action a(x) of 10.15. Minds are named by their member id, so a mind that
joins or leaves mid-run (10.16) never shifts the others' entries.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class SwitchTable:
    """Q(x, i): how good it is to obey mind i in state x, with alpha = 1/n(x,i)."""

    gamma: float = 0.9
    q: dict[tuple[str, int], float] = field(default_factory=dict)
    n: dict[tuple[str, int], int] = field(default_factory=dict)

    def value(self, x: str, i: int) -> float:
        return self.q.get((x, i), 0.0)

    def best(self, y: str, members: list[int]) -> float:
        return max((self.value(y, i) for i in members), default=0.0)

    def update(self, x: str, i: int, reward: float, y: str, members: list[int]) -> float:
        key = (x, i)
        count = self.n.get(key, 0) + 1
        self.n[key] = count
        old = self.value(x, i)
        self.q[key] = old + (reward + self.gamma * self.best(y, members) - old) / count
        return self.q[key]


@dataclass
class CollectiveTable:
    """W(x, i): the loss mind i causes everyone else when it leads in x, averaged over the
    losses the others report (alpha = 1/n(x,i))."""

    w: dict[tuple[str, int], float] = field(default_factory=dict)
    n: dict[tuple[str, int], int] = field(default_factory=dict)

    def value(self, x: str, i: int) -> float:
        return self.w.get((x, i), 0.0)

    def update(self, x: str, i: int, loss: float) -> float:
        key = (x, i)
        count = self.n.get(key, 0) + 1
        self.n[key] = count
        old = self.value(x, i)
        self.w[key] = old + (loss - old) / count
        return self.w[key]


@dataclass
class WinnerMemory:
    """k(x) (a winning mind) or a(x) (a compromise action) per exact state (10.15). Valid only
    while the minds do not learn and the collection does not change: :meth:`forget` it then."""

    winners: dict[str, int] = field(default_factory=dict)
    actions: dict[str, str] = field(default_factory=dict)
    hits: int = 0

    def forget(self) -> None:
        self.winners.clear()
        self.actions.clear()
