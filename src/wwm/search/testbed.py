"""A World with a known best society, for searches to be measured on (and for students to
try a search by hand).

The Signal World shows one of a few signals each step (``signal=c``); the body scores +1
for answering the signal (action ``c``), loses 2 for ``harm``, and gets 0 for anything else.
Three kinds of mind, each a Mind_i whose W is its Q times its strength (10.10: "Change mind
strength" sets it):

- :class:`SpecialistMind` knows some signals (``knows="a,b"``): for those it suggests the
  answer with Q = ``q`` (1.0); for the others it suggests ``stay`` with Q = 0.
- :class:`GuesserMind` suggests a random signal with Q = ``q`` (0.5): right one time in
  four, useless beside a specialist, harmless under a method where the highest Q wins.
- :class:`SaboteurMind` suggests ``harm`` with Q = ``q`` (2.0): the loudest voice, ruinous
  unless left out or made weak (its strength below half a specialist's).

Two specialists that between them know every signal, under a method where the highest
Q wins (``w=q``), or the highest W (``static-w``) with the saboteurs left out or weakened,
answer every step right: the best score is the run's
number of steps, and it is known before any search starts. Served one per process, they make
the search's test bed (``tests/search``, ``benchmarks/search.py``, ``examples/search``).
"""

from __future__ import annotations

import random
from typing import ClassVar

from ..protocol.errors import Refusal
from ..protocol.interfaces import CompetingMind, World
from ..protocol.results import Outcome, Suggestion

SIGNALS = ("a", "b", "c", "d")
RIGHT, HARM = 1.0, -2.0


def _signal(state: str) -> str:
    key, _, value = state.partition("=")
    if key != "signal" or value not in SIGNALS:
        raise Refusal("bad-parameters", f"Get action: expected a state like 'signal=a', got {state[:40]!r}")
    return value


def _knows(text: str | list[str]) -> tuple[str, ...]:
    names = text.split(",") if isinstance(text, str) else list(text)
    known = tuple(n.strip() for n in names if n.strip())
    unknown = [n for n in known if n not in SIGNALS]
    if unknown:
        raise ValueError(f"knows: {', '.join(unknown)} is not a signal; signals are {', '.join(SIGNALS)}")
    return known


class SignalWorld(World):
    """Each step a random signal; answer it for +1, ``harm`` costs 2 (seeded, own copy)."""

    state_format: ClassVar[str] = "signal=S, S one of a, b, c, d"
    action_format: ClassVar[str] = "a | b | c | d (answer the signal: +1) | harm (-2) | stay (0)"

    def __init__(self, seed: int = 0) -> None:
        self.rng = random.Random(seed)
        self.signal = self.rng.choice(SIGNALS)
        self.score = 0.0

    async def get_state(self) -> str:
        return f"signal={self.signal}"

    async def execute_action(self, action: str) -> Outcome:
        if action not in (*SIGNALS, "harm", "stay"):
            raise Refusal("bad-parameters", f"Execute action: {action!r} is not an action; "
                                            f"give one of {', '.join(SIGNALS)}, harm or stay")
        reward = RIGHT if action == self.signal else HARM if action == "harm" else 0.0
        self.score += reward
        self.signal = self.rng.choice(SIGNALS)
        return Outcome(f"signal={self.signal}", reward)

    async def get_current_score(self) -> float | None:
        return self.score

    async def reset_score(self) -> None:
        self.score = 0.0


class _Strong(CompetingMind):
    """A Mind_i whose W is its Q times its strength."""

    strength: float = 1.0
    state_format: ClassVar[str] = SignalWorld.state_format
    action_format: ClassVar[str] = SignalWorld.action_format

    async def get_strength(self) -> float | None:
        return self.strength

    async def change_strength(self, strength: float) -> None:
        if not strength > 0:
            raise Refusal("bad-parameters", f"a strength must be positive, not {strength}")
        self.strength = float(strength)

    def suggest(self, action: str, q: float) -> Suggestion:
        return Suggestion(action, q=q, w=self.strength * q)


class SpecialistMind(_Strong):
    """Answers the signals it knows (Q = ``q``); for the rest, ``stay`` with Q = 0."""

    def __init__(self, knows: str | list[str] = "a,b", q: float = 1.0) -> None:
        self.knows = _knows(knows)
        self.q = float(q)

    async def get_action(self, state: str) -> Suggestion:
        signal = _signal(state)
        return self.suggest(signal, self.q) if signal in self.knows else self.suggest("stay", 0.0)


class GuesserMind(_Strong):
    """A random signal with Q = ``q``, whatever it sees (seeded)."""

    def __init__(self, q: float = 0.5, seed: int = 0) -> None:
        self.q = float(q)
        self.rng = random.Random(f"guesser:{seed}")   # never the World's own sequence (seeded by a number)

    async def get_action(self, state: str) -> Suggestion:
        _signal(state)
        return self.suggest(self.rng.choice(SIGNALS), self.q)


class SaboteurMind(_Strong):
    """Always ``harm``, with Q = ``q``: the mind a society must learn to leave out."""

    def __init__(self, q: float = 2.0) -> None:
        self.q = float(q)

    async def get_action(self, state: str) -> Suggestion:
        _signal(state)
        return self.suggest("harm", self.q)
