"""What an agent does when a reply it asked for by a deadline (reply-by) has not come.

The tracker only marks such records overdue: in joint-intention theory a persistent goal
lasts until achieved, impossible or irrelevant, so a deadline discharges nothing by itself.
A policy decides, at the deadline, on behalf of the agent that set it:

* :class:`Withdraw` -- drop the goal and say so: the withdrawal the protocol allows (cancel,
  the paper's A:Withdraw, ASSERT A B ¬(WAG A B (DONE B a) q)) ends the conversation and
  releases the other side's commitments;
* :class:`Reattempt` -- Def 3: an attempt whose minimal result (that the hearer knows of the
  goal) may have failed is made again: the same message is delivered again (same reply-with,
  so a receiver that had it takes it once), the deadline moved on, up to ``times`` times;
  then the policy ``then`` (Withdraw unless told otherwise);
* :class:`Escalate` -- call the hook the user gives with an :class:`Overdue`; it may act
  itself, and may return another policy to apply next (None: leave the conversation open);
* :class:`Mark` -- only mark (for code that handles its deadlines itself, e.g. Contract Net).

An agent's default is ``Agent(on_overdue=...)`` (:class:`Mark` unless given), a conversation's
is set with ``agent.on_overdue_in(conversation, policy)``, one message's with
``agent.send(msg, on_overdue=...)``; ``Agent.request`` uses :class:`Withdraw` unless told.
"""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

from .message import AID, ACLMessage
from .tracker import Commitment


@dataclass(frozen=True, slots=True)
class Overdue:
    """A reply not come by its deadline: the agent that asked (its name), the message that
    asked for it, the receiver that has not answered, the records it still holds, and how many
    re-attempts were made."""

    agent: str
    message: ACLMessage
    receiver: AID
    records: list[Commitment]
    attempts: int = 0

    @property
    def conversation(self) -> str:
        return self.message.conversation_id or ""


@dataclass(frozen=True, slots=True)
class Mark:
    """Do nothing but mark the records overdue (the tracker's own behaviour)."""


@dataclass(frozen=True, slots=True)
class Withdraw:
    """Withdraw: the conversation ends, the other side's commitments are released."""


@dataclass(frozen=True, slots=True)
class Reattempt:
    """Deliver the same message again, up to ``times`` times, each with a fresh deadline as
    long as the first; then apply ``then``."""

    times: int = 2
    then: Policy = field(default_factory=Withdraw)

    def __post_init__(self) -> None:
        if not isinstance(self.times, int) or self.times < 1:
            raise ValueError(f"Reattempt needs times >= 1, got {self.times!r}")


Hook = Callable[[Overdue], "Policy | None | Awaitable[Policy | None]"]


@dataclass(frozen=True, slots=True)
class Escalate:
    """Call ``hook(overdue)``; apply the policy it returns, if any."""

    hook: Hook


Policy = Mark | Withdraw | Reattempt | Escalate


def check_policy(policy: object) -> Policy:
    if not isinstance(policy, (Mark, Withdraw, Reattempt, Escalate)):
        raise TypeError(f"an overdue policy must be Mark(), Withdraw(), Reattempt(...) or Escalate(hook), "
                        f"not {policy!r}")
    return policy


async def decide(policy: Policy, overdue: Overdue) -> Policy | None:
    """The escalation hook's answer, or the policy itself for the others."""
    if not isinstance(policy, Escalate):
        return policy
    answer = policy.hook(overdue)
    if inspect.isawaitable(answer):
        answer = await answer
    return None if answer is None else check_policy(answer)
