"""Hand-coded minds for the Ant World (:mod:`.ant`): each pursues one goal by the compass
direction the state gives, with no learning, so a society of them behaves the same on every
run; the broken-links experiment (:mod:`.broken_links`) serves copies of them.
"""

from __future__ import annotations

from typing import Any, ClassVar

from ..protocol.interfaces import CompetingMind
from ..protocol.results import Suggestion, Values
from .learning.rewards import items


class HeadingMind(CompetingMind):
    """Heads the way the state item ``key`` points (``f`` food, ``n`` nest, ``p`` predator),
    or away from it with ``flee``, while ``when`` (``item=value``, e.g. ``i=0``: carrying
    nothing) holds. Q = ``value`` for that move, half of it for the two next to it, 0 for the
    others; W = Q(best) (10.7). With nothing to head for it suggests 8, stay, with Q = 0."""

    title: ClassVar[str] = "Ant World heading mind"
    state_format: ClassVar[str] = "the Ant World's: i=<0|1> n=<0-8> f=<0-9> p=<0-9>"
    action_format: ClassVar[str] = "0-7 (a compass move) or 8 (stay)"

    def __init__(self, key: str = "f", value: float = 1.0, flee: bool = False, when: str = "") -> None:
        if key not in ("f", "n", "p"):
            raise ValueError(f"key must be f (food), n (nest) or p (predator), not {key!r}")
        if value <= 0:
            raise ValueError("value must be positive")
        if when and (when.count("=") != 1 or not all(when.split("="))):
            raise ValueError(f"when must be item=value, e.g. i=0, not {when!r}")
        self.key, self.value, self.flee = key, value, flee
        self.when = tuple(when.split("=")) if when else None

    def qs(self, state: str) -> list[float]:
        x = items(state)
        q = [0.0] * 9
        if self.when and x.get(self.when[0]) != self.when[1]:
            return q
        d = int(x.get(self.key, "9"))
        if d >= 8:
            return q
        best = (d + 4) % 8 if self.flee else d
        q[best] = self.value
        q[(best + 1) % 8] = q[(best - 1) % 8] = self.value / 2
        return q

    async def get_action(self, state: str, **step: Any) -> Suggestion:
        q = self.qs(state)
        a = q.index(max(q)) if max(q) > 0 else 8
        return Suggestion(str(a), q=q[a])

    async def get_suggestion(self, state: str, **step: Any) -> Suggestion:
        s = await self.get_action(state)
        return Suggestion(s.action, q=s.q, w=s.q)

    async def get_values(self, state: str, action: str, **step: Any) -> Values:
        q = self.qs(state)
        if action not in [str(a) for a in range(9)]:
            return Values()
        a = int(action)
        return Values(q=q[a], w=max(q) - q[a])


# the three goals of the Ant World society ([PhD] ch. 7): forage while empty, go home while
# carrying, flee a predator in sight
GOALS: dict[str, dict[str, Any]] = {
    "forager": {"key": "f", "value": 1.0, "when": "i=0"},
    "homer": {"key": "n", "value": 0.8, "when": "i=1"},
    "fleer": {"key": "p", "value": 0.6, "flee": True},
}
