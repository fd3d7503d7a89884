"""A random mind: suggests an action drawn uniformly from a given action set (seeded).

The baseline every other mind should beat. The action set is an argument (a list, or one
text with the actions separated by commas), so one server fits any world's action format.
"""

from __future__ import annotations

import random
from typing import Annotated, ClassVar

from pydantic import Field

from ..protocol.interfaces import Mind
from ..protocol.results import Suggestion
from .scoring import KeepsScore


class RandomMind(KeepsScore, Mind):
    """Picks uniformly among ``actions``; the same ``seed`` gives the same choices."""

    seed_section: ClassVar[str] = "10 (the baseline any Action Selection beats)"

    action_format: ClassVar[str] = "one of the actions given in the 'actions' argument"

    def __init__(
            self,
            actions: Annotated[list[str] | str, Field(description="The actions it picks among, separated by "
                                                                  "commas; they must be the World's.")]
            = "north,south,east,west,stay",
            seed: Annotated[int | None, Field(description="Where its dice start: the same seed gives the same "
                                                          "choices.", json_schema_extra={"x-advanced": True})]
            = 0) -> None:
        names = actions.split(",") if isinstance(actions, str) else list(actions)
        self.actions = [a.strip() for a in names if a.strip()]
        if not self.actions:
            raise ValueError("RandomMind needs at least one action, e.g. actions='left,right'")
        self.seed = seed
        self.rng = random.Random(seed)
        self.steps = 0
        self.score = 0.0

    async def get_action(self, state: str) -> Suggestion:
        self.steps += 1
        return Suggestion(self.rng.choice(self.actions))
