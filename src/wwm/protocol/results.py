"""Typed values that World and Mind queries return (section 9's "Return data" columns).

Queries whose return is a single value (a state, a score, a URL, a flag) return plain Python
values; the ones with several fields return these small frozen dataclasses.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class RunStarted:
    """What "New run" returns besides the run ID (which only the server layer mints)."""

    display_url: str | None = None


@dataclass(frozen=True, slots=True)
class Outcome:
    """What "Execute action" returns: the new state y, the points this action scored, and
    whether the world has ended the run (a condition the server detected, section 8)."""

    state: str
    score: float | None = None
    finished: bool = False


@dataclass(frozen=True, slots=True)
class Suggestion:
    """A mind's answer to "Get action" (9.2), "Get suggested action with values" (9.2.2) or
    "Take me to state" (9.2.3).

    Either ``action`` (the text of an action), or ``mind_url`` (the Mind server that will
    generate the action, 9.2.2), or neither: "Cannot suggest action at this time or in this
    state", which is *not* the action "Do nothing". ``q`` predicts how good the action is
    for this mind, ``w`` how much it would pay to win the competition.
    """

    action: str | None = None
    q: float | None = None
    w: float | None = None
    mind_url: str | None = None
    reason: str | None = None  # optional text with "Cannot suggest action"

    @classmethod
    def cannot(cls, reason: str | None = None) -> Suggestion:
        """The "Cannot suggest action" reply."""
        return cls(reason=reason)

    @property
    def can_suggest(self) -> bool:
        return self.action is not None or self.mind_url is not None


@dataclass(frozen=True, slots=True)
class Values:
    """Q and W for one action (9.2.2 "Get values for this action", "Inform it about winner";
    9.2.3 "How good/bad is this action")."""

    q: float | None = None
    w: float | None = None
