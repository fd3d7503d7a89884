"""A simple soccer player (:mod:`.players`) as a Mind server: one run per player, the state
the soccer world's JSON, the action a soccer-server command. Serve with
``wwm serve wwm.soccer.mind:SoccerMind`` and give each run its ``role``."""

from __future__ import annotations

import json
from typing import ClassVar

from ..protocol.errors import Refusal
from ..protocol.interfaces import Mind
from ..protocol.results import Suggestion
from .players import ROLES, decide
from .world import ACTION_FORMAT, STATE_FORMAT


class SoccerMind(Mind):
    """A soccer player that chases the ball (``role=chaser``), keeps its place
    (``role=keeper``) or keeps the goal (``role=goalie``), from what it senses alone."""

    state_format: ClassVar[str] = STATE_FORMAT
    action_format: ClassVar[str] = ACTION_FORMAT

    def __init__(self, role: str = "chaser") -> None:
        if role not in ROLES:
            raise Refusal("bad-parameters", f"role must be one of {', '.join(ROLES)}, got {role!r}")
        self.part = role  # (``role`` is every Mind's class attribute: "mind")

    async def get_action(self, state: str) -> Suggestion:
        try:
            data = json.loads(state)
            if data["playmode"] == "time_over":
                return Suggestion.cannot("the match is over")
            return Suggestion(decide(data, self.part))
        except (ValueError, KeyError, TypeError, IndexError) as exc:
            raise Refusal("bad-parameters", f"not a soccer state: {exc!s:.80}") from None
