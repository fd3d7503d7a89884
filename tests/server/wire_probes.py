"""Probe minds for the tests of how open-ended items reach a method (``wire_items``), served
with ``wwm serve wire_probes:<Class>`` (the tests put this folder on PYTHONPATH). Every answer
is the JSON of what the method received, so a test can see each name as it arrived."""

from __future__ import annotations

import json
from typing import Any

from wwm import CompetingMind, Suggestion


class WireItemsMind(CompetingMind):
    """``get_action`` takes the open items by their wire names; ``get_suggestion`` (same
    query row shape) keeps the old way, snake-cased ``**step``. The constructor takes
    ``label`` by name and every other New run item in its own ``wire_items``."""

    def __init__(self, label: str = "probe", wire_items: dict[str, Any] | None = None) -> None:
        self.label = label
        self.made_with = dict(wire_items or {})

    async def get_action(self, state: str, wire_items: dict[str, Any] | None = None) -> Suggestion:
        return Suggestion(json.dumps({"state": state, "label": self.label, "made_with": self.made_with,
                                      "wire_items": wire_items}, sort_keys=True))

    async def get_suggestion(self, state: str, **step: Any) -> Suggestion:
        return Suggestion(json.dumps({"state": state, "step": step}, sort_keys=True))
