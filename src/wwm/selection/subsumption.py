"""The Subsumption Architecture as a hierarchy of Mind_M servers (seed 000, section 10.2).

"Each one sends the current state x to the server below it, and then either uses their
output or overrides it." A :class:`SubsumptionLayer` is one such server: it holds the URL
of the layer below (``below``; none for the bottom layer), sends it every state it gets,
and then overrides the answer with its own behaviour when its trigger region holds (the
region language of :mod:`wwm.kit.region`, e.g. ``hd<=2``), else passes the answer on. So
lower layers keep working when the higher ones are removed, and a third party can stack a
new layer on a running collection by naming its top URL as ``below``.

Behaviours for the grid World (:mod:`wwm.kit.grid`), bottom to top as built in the tests
and docs: ``wander`` (keep a heading, turn at random or at a wall), ``avoid`` (step away
from the nearest hazard; trigger ``hd<=2``), ``seek`` (walk to the nearest food; trigger
``hd>2``, so it never overrides the avoiding below it when a hazard is near).
"""

from __future__ import annotations

import asyncio
import logging
import random
from collections import Counter
from collections.abc import Callable, Mapping
from typing import Any, ClassVar, Protocol

from ..kit.grid import ACTIONS, GridView, GridWorld
from ..kit.grid_minds import FoodSeeker, HazardAvoider
from ..kit.region import Region, freeze, open_mind, parse_region, thaw
from ..protocol.errors import Refusal
from ..protocol.interfaces import Mind
from ..protocol.results import RunStarted, Suggestion

log = logging.getLogger("wwm.selection.subsumption")

MOVES = tuple(a for a in ACTIONS if a != "stay")

#: a layer's default trigger: where it overrides the layer below (project decision: a hazard
#: two steps away is close enough to flee; seeking yields to avoiding there)
TRIGGERS: dict[str, str] = {"wander": "", "avoid": "hd>=0 and hd<=2", "seek": "fd>=0 and (hd<0 or hd>2)"}


class _Behaviour(Protocol):
    """A layer's own behaviour: an action for a state."""

    async def get_action(self, state: str) -> Suggestion: ...


class _Wander:
    """Keep a heading; turn at random (``turn`` per step) or when the heading meets a wall."""

    def __init__(self, seed: int | None, turn: float = 0.2) -> None:
        self.rng = random.Random(seed)
        self.heading = self.rng.choice(MOVES)
        self.turn = turn

    async def get_action(self, state: str) -> Suggestion:
        view = GridView.parse(state)
        if self.rng.random() < self.turn or view.after(self.heading) == view.body:
            self.heading = self.rng.choice([m for m in MOVES if view.after(m) != view.body])
        return Suggestion(self.heading)


class SubsumptionLayer(Mind):
    """One layer of a Subsumption society (10.2): sends x to the layer ``below`` (a Mind URL,
    or none for the bottom layer), then overrides its answer with ``behaviour`` (``wander``,
    ``avoid`` or ``seek``) in the states where ``when`` holds (a region such as ``hd<=2``;
    default: the behaviour's own, see :data:`TRIGGERS`), else passes it on. The bottom layer
    always acts. ``seed`` seeds the wanderer."""

    title: ClassVar[str] = "Subsumption layer (a Mind_M over the layer below, section 10.2)"
    state_format: ClassVar[str] = GridWorld.state_format
    action_format: ClassVar[str] = GridWorld.action_format

    def __init__(self, behaviour: str = "wander", below: str | Mapping[str, Any] | Mind | None = None,
                 when: str = "", seed: int | None = 0, timeout: float = 5.0) -> None:
        makers: dict[str, Callable[[], _Behaviour]] = {
            "wander": lambda: _Wander(seed), "avoid": HazardAvoider, "seek": FoodSeeker}
        if behaviour not in makers:
            raise ValueError(f"behaviour must be one of {', '.join(makers)}, got {behaviour!r}")
        self.behaviour = behaviour
        self.own = makers[behaviour]()
        has_below = below is not None and not (isinstance(below, str) and not below.strip())
        self.below: Mind | None = open_mind(below, timeout, "below") if has_below else None  # type: ignore[arg-type]
        trigger = when.strip() or TRIGGERS[behaviour]
        if self.below is not None and not trigger:
            raise ValueError(f"a {behaviour} layer above another needs 'when': the region where it overrides")
        self.when: Region | None = parse_region(trigger) if self.below is not None else None
        self.counts: Counter[str] = Counter()  # "override" / "pass" / "own" (bottom)

    # a server's snapshot keeps the layer below as its URL and run ID (see kit.region)
    def __getstate__(self) -> dict[str, Any]:
        return {**self.__dict__, "below": None if self.below is None else freeze(self.below)}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state, below=None if state["below"] is None else thaw(state["below"]))

    async def new_run(self, client_url: str | None = None, world_display_url: str | None = None,
                      world_run_id: str | None = None) -> RunStarted | None:
        await super().new_run(client_url, world_display_url, world_run_id)
        if self.below is not None:
            await self.below.new_run(world_display_url=world_display_url, world_run_id=world_run_id)
        return None

    async def get_action(self, state: str) -> Suggestion:
        try:
            GridView.parse(state)
        except ValueError as exc:
            raise Refusal("bad-parameters", f"Get action: {exc}") from None
        # x goes down first: every layer sees every state and answers (10.2)
        lower = await self.below.get_action(state) if self.below is not None else None
        if lower is None:
            self.counts["own"] += 1
            return await self.own.get_action(state)
        assert self.when is not None
        if self.when(state) or not lower.can_suggest:
            mine = await self.own.get_action(state)
            if mine.can_suggest:
                self.counts["override"] += 1
                return mine
        self.counts["pass"] += 1
        return lower

    async def inform(self, state: str, score: float | None = None) -> float | None:
        if self.below is not None:
            await self.below.inform(state, score)
        return None

    async def end_run(self, score: float | None = None) -> float | None:
        if self.below is not None:
            try:
                await self.below.end_run(score)
            finally:
                close = getattr(self.below, "aclose", None)
                if close is not None:
                    await close()
        return None

    async def no_operation(self) -> None:
        if self.below is not None:
            await asyncio.gather(self.below.no_operation(), return_exceptions=True)

    def display_details(self) -> dict[str, Any]:
        """For the run display page: how often this layer overrode or passed on."""
        return {"behaviour": self.behaviour, "trigger": self.when.text if self.when else "always (bottom layer)",
                **dict(self.counts)}


__all__ = ["SubsumptionLayer", "TRIGGERS"]
