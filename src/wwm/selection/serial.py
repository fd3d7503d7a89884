"""A serial model (seed 000, section 10.3): a Mind_M that knows only the order of a chain
of Mind servers, and lets each tell it, through "Ready to suggest action?", when it is
time to run it. Each step it asks its minds, in chain order starting with the one now
running, whether they are ready in this state, and runs the first that is; the minds
themselves know their preconditions and when their goal is done (e.g. the step minds of
:mod:`.keydoor`). When none is ready it answers "Cannot suggest action".
"""

from __future__ import annotations

import logging
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

from ..kit.region import CallsMinds, open_mind
from ..protocol.interfaces import Mind
from ..protocol.results import RunStarted, Suggestion

log = logging.getLogger("wwm.selection.serial")


class SerialMind(CallsMinds):
    """Runs whichever mind of the chain ``minds`` (wire name "mind URL", repeated; URLs or
    members ``{"url", "args"}``, in chain order) says it is ready, asking the one now
    running first and then the rest in order; ``timeout`` is seconds per query."""

    title: ClassVar[str] = "Serial model (a Mind_M over a chain of minds, section 10.3)"
    state_format: ClassVar[str] = "whatever the minds of the chain read"
    action_format: ClassVar[str] = "whatever the minds of the chain suggest"

    def __init__(self, minds: Sequence[str | Mapping[str, Any] | Mind] | str = (), timeout: float = 5.0) -> None:
        from ..client.members import member_entries

        entries = member_entries(minds) if isinstance(minds, str) else list(minds)
        entries = [e for e in entries if not (isinstance(e, str) and not e.strip())]
        if not entries:
            raise ValueError("SerialMind needs a chain of at least one mind ('mind URL')")
        if timeout <= 0:
            raise ValueError("timeout must be a positive number of seconds")
        self.minds: list[Mind] = [open_mind(e, timeout, f"minds[{i}]") for i, e in enumerate(entries)]
        self.current = 0
        self.ran: Counter[int] = Counter()
        self.switches = 0

    async def new_run(self, client_url: str | None = None, world_display_url: str | None = None,
                      world_run_id: str | None = None) -> RunStarted | None:
        await super().new_run(client_url, world_display_url, world_run_id)   # starts every mind's run
        self.current = 0
        return None

    async def ready_to_suggest(self, state: str | None = None) -> bool:
        return await self._ready(state) is not None

    async def _ready(self, state: str | None) -> int | None:
        """The mind to run: the one now running if it is still ready, else the first ready
        one in chain order."""
        n = len(self.minds)
        for i in [self.current] + [j for j in range(n) if j != self.current]:
            if await self.minds[i].ready_to_suggest(state):
                return i
        return None

    async def get_action(self, state: str) -> Suggestion:
        index = await self._ready(state)
        if index is None:
            return Suggestion.cannot("no mind of the chain is ready in this state")
        if index != self.current:
            self.switches += 1
            self.current = index
        self.ran[index] += 1
        return await self.minds[index].get_action(state)

    def display_details(self) -> dict[str, Any]:
        """For the run display page: the chain, which mind runs now and how often each ran."""
        return {"chain": [getattr(m, "url", type(m).__name__) for m in self.minds],
                "running": self.current, "steps run": {str(i): n for i, n in sorted(self.ran.items())},
                "switches": self.switches}


__all__ = ["SerialMind"]
