"""A Mind serving as another Mind's World (section 3.2): "each Mind serves as the World for
the other", like two chat programs connected together.

:class:`MindAsWorld` wraps a mind (a Mind object, or the URL of a Mind server). Its state is
what the wrapped mind last said; executing an action hands that action to the wrapped mind
as its state, and the wrapped mind's answer is the new state. The wrapped mind is told what
became of its previous answer ("Inform it about state") before it is asked again, just as
the client algorithm of 8.2 would. A turn scores 1 when the wrapped mind answers, and the
run ends when it cannot suggest anything more.
"""

from __future__ import annotations

from typing import Any, ClassVar

from ..protocol.interfaces import Mind, World
from ..protocol.results import Outcome, RunStarted

REPLY_POINTS = 1.0


class MindAsWorld(World):
    """The World face of a Mind: x is its last answer, a is what it is told next."""

    seed_section: ClassVar[str] = "3.5 (Mind_M), 10.17 (nested Mind servers)"

    sharing = "own"
    state_format: ClassVar[str] = "the wrapped mind's last action, as text"
    action_format: ClassVar[str] = "text the wrapped mind receives as its state"

    def __init__(self, mind: str | Mind, opening: str = "Hello.", timeout: float = 10.0) -> None:
        from .region import open_mind  # one way to open a mind entry everywhere

        self.mind = open_mind(mind, timeout)
        self.opening = opening
        self.said = opening
        self.answered = False   # the wrapped mind has given an answer not yet informed about
        self.turns = 0

    def __getstate__(self) -> dict[str, Any]:
        from .region import freeze  # a snapshot keeps a remote mind as URL + run ID

        return {**self.__dict__, "mind": freeze(self.mind)}

    def __setstate__(self, state: dict[str, Any]) -> None:
        from .region import thaw

        self.__dict__.update(state, mind=thaw(state["mind"]))

    async def new_run(self, client_url: str | None = None) -> RunStarted | None:
        self.client_url = client_url
        await self.mind.new_run()
        return None

    async def get_state(self) -> str:
        return self.said

    async def execute_action(self, action: str) -> Outcome:
        if self.answered:
            await self.mind.inform(action)
        suggestion = await self.mind.get_action(action)
        self.turns += 1
        if not suggestion.can_suggest or suggestion.action is None:
            self.answered = False
            return Outcome(self.said, 0.0, finished=True)
        self.said, self.answered = suggestion.action, True
        self._score += REPLY_POINTS
        return Outcome(self.said, REPLY_POINTS)

    async def no_operation(self) -> None:
        await self.mind.no_operation()

    async def end_run(self) -> float | None:
        try:
            await self.mind.end_run(self._score)
        finally:
            close = getattr(self.mind, "aclose", None)
            if close is not None:
                await close()
        return self._score
