"""Small minds for the society tests, with known Q-values, that record what they are told.
Served with ``wwm serve society_minds:<Class>`` (the tests put this folder on PYTHONPATH)."""

from __future__ import annotations

import asyncio
import random
from typing import Any

from wwm import CompetingMind, Mind, Outcome, RunStarted, Suggestion, Values, World
from wwm.protocol.interfaces import FeudalMind
from wwm.selection.ant_minds import HeadingMind
from wwm.selection.learning.rewards import items


class TableMind(CompetingMind):
    """Q(x, a) = ``q[a]`` in every state (``q`` as "a:1,b:0.5"); suggests its best action,
    or the Mind URL ``call`` instead; W = Q(best) unless ``w`` is given. Records every
    "Inform it about winner" and "Inform it about state"."""

    def __init__(self, q: str | dict[str, float] = "a:1", w: float | None = None,
                 call: str | None = None, url: str | None = None, label: str = "") -> None:
        if isinstance(q, str):
            q = {k: float(v) for k, v in (p.split(":") for p in q.split(","))}
        self.q = dict(q)
        self.w = w
        self.call = call
        if url:
            self.url = url
        self.label = label
        self.told: list[dict[str, Any]] = []
        self.collection_changes = 0
        self.ended = False
        self.strength = 1.0
        self.states: list[str] = []

    async def new_run(self, client_url=None, world_display_url=None, world_run_id=None) -> RunStarted:
        return RunStarted()

    def best(self) -> str:
        return max(sorted(self.q), key=lambda a: self.q[a])

    async def get_action(self, state: str, **step: Any) -> Suggestion:
        self.states.append(state)
        if self.call:
            return Suggestion(mind_url=self.call, q=self.strength * self.q[self.best()])
        return Suggestion(self.best(), q=self.strength * self.q[self.best()])

    async def get_suggestion(self, state: str, **step: Any) -> Suggestion:
        s = await self.get_action(state)
        w = self.w if self.w is not None else self.q[self.best()]
        return Suggestion(s.action, q=s.q, w=self.strength * w, mind_url=s.mind_url)

    async def get_values(self, state: str, action: str, **step: Any) -> Values:
        if action not in self.q:
            return Values()
        return Values(q=self.strength * self.q[action],
                      w=self.strength * (self.q[self.best()] - self.q[action]))

    async def inform_winner(self, state: str, obeyed=None, payment=None, winner_url=None,
                            action=None, score=None) -> Values:
        self.told.append({"state": state, "obeyed": obeyed, "winner_url": winner_url,
                          "action": action, "score": score, "payment": payment})
        loss = 0.0 if obeyed or action is None else self.q[self.best()] - self.q.get(action, 0.0)
        return Values(q=score, w=loss)

    async def inform(self, state: str, score: float | None = None) -> float | None:
        self.told.append({"state": state, "score": score, "plain": True})
        return None

    async def change_strength(self, strength: float) -> None:
        self.strength = strength

    async def get_strength(self) -> float | None:
        return self.strength

    async def reset_w_temperature(self, run_length: float | None = None) -> None:
        self.collection_changes += 1

    async def end_run(self, score: float | None = None) -> float | None:
        self.ended = True
        return None


class PlainMind(Mind):
    """A plain Mind (no Mind_i queries): always ``action``; records what it is told."""

    def __init__(self, action: str = "a") -> None:
        self.action = action
        self.told: list[tuple[str, float | None]] = []

    async def get_action(self, state: str, **step: Any) -> Suggestion:
        return Suggestion(self.action, q=0.0)

    async def inform(self, state: str, score: float | None = None) -> float | None:
        self.told.append((state, score))
        return None


class SilentMind(CompetingMind):
    """Never answers a suggestion (a server that hangs)."""

    async def get_action(self, state: str, **step: Any) -> Suggestion:
        await asyncio.sleep(3600)
        raise AssertionError("unreachable")

    async def get_suggestion(self, state: str, **step: Any) -> Suggestion:
        return await self.get_action(state)


# a hand-coded Ant World mind (heads for, or flees, what an item points at): the one
# `wwm broken-links` serves, under the name these tests have always used
DirectionMind = HeadingMind


class Forager(Mind):
    """A plain hand-coded forager for the Ant World: to the food (wandering at random while
    none is in sight), then home."""

    def __init__(self, seed: int = 0) -> None:
        self.rng = random.Random(seed)

    async def get_action(self, state: str, **step: Any) -> Suggestion:
        x = items(state)
        if x["i"] == "0":
            return Suggestion(x["f"] if x["f"] not in ("8", "9") else str(self.rng.randrange(8)))
        return Suggestion(x["n"])


class Idle(Mind):
    """A useless plain mind: always stays still."""

    async def get_action(self, state: str, **step: Any) -> Suggestion:
        return Suggestion("8")


class TimeoutProbe(Mind):
    """Answers every "Get action" with the time-out it was started with (a probe of how
    time-outs shrink down a chain, section 9.2 note 1)."""

    def __init__(self, timeout: float = 0.0) -> None:
        self.timeout = timeout

    async def get_action(self, state: str, **step: Any) -> Suggestion:
        return Suggestion(f"{self.timeout:g}")


class Delegate(FeudalMind):
    """A Feudal servant that answers every "Take me to state" with the Mind URL ``to`` (the
    server that will generate the action, 9.2.3), and counts the orders."""

    def __init__(self, to: str = "") -> None:
        self.to = to
        self.orders = 0

    async def take_me_to(self, state: str, destination: str, **step: Any) -> Suggestion:
        self.orders += 1
        return Suggestion(mind_url=self.to)  # (per-step items such as a Q-temperature: ignored)

    async def get_action(self, state: str, **step: Any) -> Suggestion:
        return Suggestion.cannot("a Feudal servant takes orders only")

    def display_details(self) -> dict[str, Any]:
        return {"orders": self.orders}


class Cycle(World):
    """States ``s=0 .. s=n-1`` in turn; the action ``good`` scores 1, any other 0."""

    def __init__(self, n: int = 10, good: str = "a") -> None:
        self.n, self.good, self.steps = n, good, 0

    async def get_state(self) -> str:
        return f"s={self.steps % self.n}"

    async def execute_action(self, action: str) -> Outcome:
        self.steps += 1
        score = 1.0 if action == self.good else 0.0
        self._score += score
        return Outcome(await self.get_state(), score)
