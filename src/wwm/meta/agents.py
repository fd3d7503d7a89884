"""Text agents as values: ``act(observation) -> (action, new agent)``, the old one untouched.

An :class:`Agent` is a policy plus the transcript it has seen so far (a persistent chain with
a content key), so snapshotting is free and asking an old snapshot forks it. A policy is any
object with a ``name`` and ``decide(observations, actions)``: a person at the terminal, a
scripted or programmatic policy, or a WWM mind (:class:`MindPolicy`).
"""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Protocol

from ..protocol.interfaces import Mind
from .chain import Chain
from .messages import digest

PROMPT = ">>> "


class Policy(Protocol):
    """Chooses the next line from the transcript; ``len(observations) == len(actions) + 1``."""

    name: str

    async def decide(self, observations: Sequence[str], actions: Sequence[str]) -> str: ...


_EMPTY: Chain[str] = Chain()
_DERIVED: Chain[str] = Chain()  # a Transcript's default: its histories are its parent's, extended


@dataclass(frozen=True, eq=False, slots=True)
class Transcript:
    """One step of a transcript, linked to the steps before it (shared, never copied)."""

    parent: Transcript | None
    observation: str
    action: str
    observations: Chain[str] = field(default_factory=lambda: _DERIVED, repr=False)
    actions: Chain[str] = field(default_factory=lambda: _DERIVED, repr=False)
    key: str = field(init=False)

    def __post_init__(self) -> None:
        before = self.parent.key if self.parent else ""
        object.__setattr__(self, "key", digest("t", before, self.observation, self.action))
        if self.observations is _DERIVED:
            observations, actions = _histories(self.parent)
            object.__setattr__(self, "observations", observations.extended([self.observation]))
            object.__setattr__(self, "actions", actions.extended([self.action]))

    @property
    def length(self) -> int:
        return len(self.actions)

    def steps(self) -> list[tuple[str, str]]:
        return list(zip(self.observations, self.actions, strict=True))


def _histories(node: Transcript | None) -> tuple[Chain[str], Chain[str]]:
    return (node.observations, node.actions) if node is not None else (_EMPTY, _EMPTY)


@dataclass(frozen=True, eq=False, slots=True)
class Agent:
    """A policy and its history: an immutable agent value."""

    policy: Policy
    transcript: Transcript | None = None
    key: str = field(init=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "key", digest("a", self.policy.name,
                                               self.transcript.key if self.transcript else ""))

    def history(self) -> tuple[Chain[str], Chain[str]]:
        return _histories(self.transcript)

    async def act(self, observation: str) -> tuple[str, Agent]:
        observations, actions = self.history()
        seen = observations.extended([observation])
        action = await self.policy.decide(seen, actions)
        if not isinstance(action, str):
            raise TypeError(f"policy {self.policy.name!r} returned {type(action).__name__}, not a line of text")
        return action, Agent(self.policy, Transcript(self.transcript, observation, action,
                                                     seen, actions.extended([action])))

    def after(self, observation: str, action: str) -> Agent:
        """The successor that saw ``observation`` and typed ``action`` (no policy call)."""
        return Agent(self.policy, Transcript(self.transcript, observation, action))

    def fresh(self) -> Agent:
        """A copy of the original agent, with nothing seen yet."""
        return Agent(self.policy)


def render_transcript(observations: Sequence[str], actions: Sequence[str]) -> str:
    """The screen a person would see: each observation, then ``>>> action``."""
    parts: list[str] = []
    for i, observation in enumerate(observations):
        parts.append(observation)
        if i < len(actions):
            parts.append(PROMPT + actions[i])
    return "\n".join(parts)


Decide = Callable[[Sequence[str], Sequence[str]], str | Awaitable[str]]


class FunctionPolicy:
    """A Python function of the transcript (plain or async) as a policy."""

    def __init__(self, name: str, function: Decide) -> None:
        self.name = name
        self.function = function

    async def decide(self, observations: Sequence[str], actions: Sequence[str]) -> str:
        result = self.function(observations, actions)
        if inspect.isawaitable(result):
            result = await result
        return result


class OutOfLines(RuntimeError):
    """A scripted policy was asked for more lines than its script holds."""


class LinesPolicy:
    """Lines typed in order by whichever copy is acting, as a scripted stdin would be.

    Every copy shares the one script, so this reproduces a recorded terminal session;
    ``seen`` keeps each screen (observation) in the order it was shown.
    """

    def __init__(self, lines: Iterable[str], name: str = "lines") -> None:
        self.name = name
        self._lines: Iterator[str] = iter(lines)
        self.seen: list[str] = []

    async def decide(self, observations: Sequence[str], actions: Sequence[str]) -> str:
        self.seen.append(observations[-1])
        try:
            return next(self._lines)
        except StopIteration:
            raise OutOfLines(f"the script ran out of lines at the observation {observations[-1]!r}") from None


class MindPolicy:
    """Any WWM Mind (local or remote) as A: the state it sees is the rendered transcript.

    "Cannot suggest action" becomes an empty line, which the interpreter answers with the
    list of valid commands, as it would answer a person.
    """

    def __init__(self, mind: Mind, name: str | None = None) -> None:
        self.mind = mind
        self.name = name or f"mind:{getattr(mind, 'url', type(mind).__name__)}"

    async def decide(self, observations: Sequence[str], actions: Sequence[str]) -> str:
        suggestion = await self.mind.get_action(render_transcript(observations, actions))
        return suggestion.action or ""


def parse_transcript(text: str) -> tuple[list[str], list[str]]:
    """Inverse of :func:`render_transcript` (actions are single lines)."""
    chunks = text.split("\n" + PROMPT)
    observations, actions = [chunks[0]], []
    for chunk in chunks[1:]:
        action, _, observation = chunk.partition("\n")
        actions.append(action)
        observations.append(observation)
    return observations, actions
