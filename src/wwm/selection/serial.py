"""A serial model (seed 000, section 10.3): a Mind_M that knows only the order of a chain
of Mind servers, and lets each tell it, through "Ready to suggest action?", when it is
time to run it. Each step it asks its minds, in chain order starting with the one now
running, whether they are ready in this state, and runs the first that is; the minds
themselves know their preconditions and when their goal is done (e.g. the step minds of
:mod:`.keydoor`). When none is ready it answers "Cannot suggest action".

:class:`SuccessorMind` is the same model without a master (10.3's third variant): each link
runs its own mind until that mind's goal is completed, then passes every later request on to
its successor, so a client talks to the first link of the chain only.
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


class SuccessorMind(CallsMinds):
    """The serial model without a master (10.3, third variant): "each server, when its goal is
    completed, will pass all requests for actions thereafter on to its successor server
    (which it knows about). Then we simply interact with the Society through the first mind
    server in the chain."

    One link of such a chain: ``mind`` (its own behaviour: a URL, a member ``{"url", "args"}``
    or a Mind object) and ``successor`` (the next link, in the same forms; none for the last).
    It runs its own mind while that mind is ready ("Ready to suggest action?"); once the mind,
    having run, is no longer ready, its goal is completed and from then on every "Ready to
    suggest action?" and "Get action" goes to the successor, which in turn does the same.
    Every mind of the chain hears each new state. ``timeout``: seconds per query."""

    title: ClassVar[str] = "Serial link (a mind that hands over to its successor, section 10.3)"
    state_format: ClassVar[str] = "whatever its own mind and its successor read"
    action_format: ClassVar[str] = "whatever its own mind and its successor suggest"

    def __init__(self, mind: str | Mapping[str, Any] | Mind = "",
                 successor: str | Mapping[str, Any] | Mind | None = None, timeout: float = 5.0) -> None:
        if timeout <= 0:
            raise ValueError("timeout must be a positive number of seconds")
        if isinstance(mind, str) and not mind.strip():
            raise ValueError("a serial link needs its own mind ('mind': a URL or {url, args})")
        self.own = open_mind(mind, timeout, "mind")
        self.successor = None if successor is None or successor == "" else open_mind(successor, timeout, "successor")
        self.minds: list[Mind] = [self.own] + ([self.successor] if self.successor is not None else [])
        self.started = False    # its own mind has run
        self.completed = False  # ... and its goal is done: everything goes to the successor
        self.completed_at: int | None = None
        self.steps = 0

    def __setstate__(self, state: dict[str, Any]) -> None:
        super().__setstate__(state)
        self.own = self.minds[0]
        self.successor = self.minds[1] if len(self.minds) > 1 else None

    async def new_run(self, client_url: str | None = None, world_display_url: str | None = None,
                      world_run_id: str | None = None) -> RunStarted | None:
        await super().new_run(client_url, world_display_url, world_run_id)  # starts its mind and successor
        self.started = self.completed = False
        self.completed_at, self.steps = None, 0
        return None

    async def _handing_over(self, state: str | None) -> bool:
        """Whether this request goes to the successor: its goal was completed before, or its
        own mind, having run, is no longer ready now."""
        if not self.completed and self.started and not await self.own.ready_to_suggest(state):
            self.completed, self.completed_at = True, self.steps
            log.info("goal completed at step %d: passing requests on to %s", self.steps,
                     getattr(self.successor, "url", self.successor))
        return self.completed

    async def ready_to_suggest(self, state: str | None = None) -> bool:
        if await self._handing_over(state):
            return self.successor is not None and await self.successor.ready_to_suggest(state)
        return await self.own.ready_to_suggest(state)

    async def get_action(self, state: str) -> Suggestion:
        self.steps += 1
        if await self._handing_over(state):
            if self.successor is None:
                return Suggestion.cannot("the chain is done: its last mind completed its goal")
            return await self.successor.get_action(state)
        if not await self.own.ready_to_suggest(state):
            return Suggestion.cannot("not ready: its own mind's preconditions do not hold yet")
        self.started = True
        return await self.own.get_action(state)

    def display_details(self) -> dict[str, Any]:
        """For the run display page: its own mind, its successor, and whether it has handed over."""
        return {"mind": getattr(self.own, "url", type(self.own).__name__),
                "successor": getattr(self.successor, "url", None),
                "handed over": self.completed, "at step": self.completed_at, "steps": self.steps}


__all__ = ["SerialMind", "SuccessorMind"]
