"""A Mind that starts runs but refuses every "Get action": an A that fails in the middle of
a computation. Served with ``wwm serve broken_mind:BrokenMind`` (tests put this folder on
PYTHONPATH)."""

from __future__ import annotations

from wwm import Mind
from wwm.protocol.errors import Refusal
from wwm.protocol.results import Suggestion


class BrokenMind(Mind):
    state_format = "anything"
    action_format = "never given"

    async def get_action(self, state: str) -> Suggestion:
        raise Refusal("server-error", "this mind is broken on purpose")
