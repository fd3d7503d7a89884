"""The budget ledger: one :class:`Call` per question an agent answers, forming a tree.

Each call records the budget handed over, the operations its agent performed, its sub-calls
and what it handed back; ``spent == own_ops + sum(child spent)`` at every node, and
:meth:`Call.check` verifies that the whole tree adds up.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from .messages import Message

_ids = itertools.count(1)


@dataclass(slots=True)
class Step:
    """One screen an agent saw and the line it typed (``cached``: answered by the memo)."""

    observation: str
    action: str
    cached: bool = False
    memo_key: str | None = None


@dataclass(eq=False)
class Call:
    """A question put to an agent with a budget, and what came of it."""

    question: Message
    budget: int
    agent_key: str
    parent: Call | None = None
    id: int = field(default_factory=lambda: next(_ids))
    own_ops: int = 0
    remaining: int | None = None
    reply: Message | None = None
    final_agent_key: str | None = None
    final_agent: Any = field(default=None, repr=False)  # the HCHAgent after replying (not reloaded)
    children: list[Call] = field(default_factory=list)
    steps: list[Step] = field(default_factory=list)
    events: list[str] = field(default_factory=list)
    situation: str | None = None  # what loop detection compares (see HCH._situation)
    depth: int = 0                # asks between this call and the top-level question

    @property
    def done(self) -> bool:
        return self.remaining is not None

    @property
    def spent(self) -> int:
        return self.budget - (self.remaining if self.remaining is not None else self.budget)

    def child(self, question: Message, budget: int, agent_key: str, situation: str | None = None) -> Call:
        call = Call(question, budget, agent_key, parent=self, situation=situation, depth=self.depth + 1)
        self.children.append(call)
        return call

    def path(self) -> Iterator[Call]:
        """This call and the calls above it, up to the top-level question."""
        call: Call | None = self
        while call is not None:
            yield call
            call = call.parent

    def walk(self) -> Iterator[Call]:
        """This call and every call below it, depth first (an explicit stack: any depth)."""
        stack = [self]
        while stack:
            call = stack.pop()
            yield call
            stack.extend(reversed(call.children))

    def totals(self) -> dict[str, int]:
        calls = list(self.walk())
        return {
            "calls": len(calls),
            "ops": sum(c.own_ops for c in calls),
            "a_calls": sum(1 for c in calls for s in c.steps if not s.cached),
            "cache_hits": sum(1 for c in calls for s in c.steps if s.cached),
            "loops": sum(1 for c in calls for e in c.events if e.startswith("loop")),
        }

    def check(self) -> None:
        """Raise AssertionError naming the first node whose accounts do not add up."""
        for call in self.walk():
            if call.remaining is None:  # (not done)
                raise AssertionError(f"call {call.id} never finished")
            if not 0 <= call.remaining <= call.budget:
                raise AssertionError(f"call {call.id}: remaining {call.remaining} outside 0..{call.budget}")
            inner = call.own_ops + sum(c.spent for c in call.children)
            if call.spent != inner:
                raise AssertionError(f"call {call.id}: spent {call.spent} but own ops {call.own_ops} "
                                     f"+ sub-calls {inner - call.own_ops} = {inner}")
