"""Maes' spreading activation network (Maes 1989; seed 000, sections 10.3.1 and 12.4 item 3)
built from Mind servers that know their preconditions and effects.

**What each mind is asked.** The network learns the links from the queries alone. At the
first state of a run it builds states of its own, as the seed suggests ("one server
constructing the state x for the server it is calling, putting the preconditions into x"):
every assignment of the state's 0/1 items (the propositions, at most :data:`MAX_PROPOSITIONS`)
written into a copy of x, and asks each mind "Ready to suggest action?" of each. A
proposition true in every state where a mind is ready is one of its *preconditions*; one
false in every such state is taken as its *effect* (project decision: a mind that stops being
ready once p holds is one whose job is to make p true; Maes' modules also have delete lists,
which cannot be read off "Ready?" and are left out). A mind is *executable* when it answers
ready to the real x.

**Activation lives in the minds.** Each step the network reads every mind's activation with
"Get mind strength", adds the excitation and subtracts the inhibition below, and sends the
result back with "Change mind strength" (12.4 item 3: excitation and inhibition flowing
through the network). Then the executable mind with the highest activation acts. (Maes has a
threshold theta, lowered by 10% in each time step in which no executable module reaches it;
here every step acts, as if the lowering were repeated within the step until one does:
project decision, so there is no theta argument.)

Per step, with the parameters Maes 1989 used (phi=20 state, gamma=70 goal, delta=50
protected goals, pi=20 mean level; quoted from the standard literature,
not checked against the paper here):

- *from the state*: a true proposition p gives phi / #(minds with p as precondition) to each;
- *from the goals*: a goal g not yet true gives gamma / #(minds whose effect is g) to each;
- *protected goals* (inhibition): a mind whose every effect already holds loses delta;
- *successor links*: an executable mind passes a*phi/gamma / #(minds with p as precondition)
  to each mind that has its false effect p as a precondition;
- *predecessor links*: a mind that is not executable passes a / #(minds whose effect is p)
  to each mind whose effect is its false precondition p;
- then every activation is clipped at 0 and scaled so that their mean is pi.

With ``spreading=false`` the network keeps every strength as it is and runs an executable
mind at random: the naive baseline of the tests (a society that knows what each mind can
do now, but not what leads to what).
"""

from __future__ import annotations

import asyncio
import itertools
import logging
import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar

from ..kit.region import CallsMinds, open_mind, state_variables
from ..protocol.errors import Refusal
from ..protocol.interfaces import Mind
from ..protocol.results import RunStarted, Suggestion

log = logging.getLogger("wwm.selection.maes")

#: at most this many 0/1 items of the state are treated as propositions (2**k probe states)
MAX_PROPOSITIONS = 6


@dataclass
class Links:
    """What the probing found out about one mind."""

    pre: set[str] = field(default_factory=set)
    adds: set[str] = field(default_factory=set)


def propositions(state: str) -> list[str]:
    """The state's 0/1 items, in the order they appear."""
    return [k for k, v in state_variables(state).items() if v in (0.0, 1.0)]


def with_values(state: str, values: Mapping[str, int]) -> str:
    """``state`` with the items named in ``values`` rewritten (``key=value`` text)."""
    out = []
    for item in state.split():
        key, sep, _ = item.partition("=")
        out.append(f"{key}={values[key]}" if sep and key in values else item)
    return " ".join(out)


class MaesNetwork(CallsMinds):
    """A spreading activation network (Maes 1989) over the Mind_i servers ``minds`` (wire name
    "mind URL", repeated), which answer "Ready to suggest action?" from their preconditions and
    hold their activation as their strength. ``goal``: the propositions to make true,
    comma-separated (0/1 items of the state, e.g. ``at_goal``); ``spreading`` (false: the
    naive baseline, an executable mind at random); ``phi``, ``gamma``, ``delta``, ``pi``:
    Maes' parameters; ``seed``; ``timeout`` (seconds per query)."""

    title: ClassVar[str] = "Maes spreading activation network (a Mind_M, sections 10.3.1, 12.4)"
    state_format: ClassVar[str] = "key=value items, of which the 0/1 items are the propositions"
    action_format: ClassVar[str] = "whatever its minds suggest"

    def __init__(self, minds: Sequence[str | Mapping[str, Any] | Mind] | str = (), goal: str = "",
                 spreading: bool = True, phi: float = 20.0, gamma: float = 70.0, delta: float = 50.0,
                 pi: float = 20.0, seed: int | None = 0, timeout: float = 5.0) -> None:
        from ..client.members import member_entries

        entries = member_entries(minds) if isinstance(minds, str) else list(minds)
        entries = [e for e in entries if not (isinstance(e, str) and not e.strip())]
        if len(entries) < 2:
            raise ValueError("MaesNetwork needs at least two minds ('mind URL') to choose between")
        self.goals = [g.strip() for g in goal.split(",") if g.strip()]
        if not self.goals:
            raise ValueError("MaesNetwork needs a goal: the 0/1 state items to make true, e.g. goal=at_goal")
        if min(phi, gamma, delta, pi) < 0 or gamma == 0 or pi == 0:
            raise ValueError("phi, gamma, delta and pi must be zero or more (gamma and pi positive)")
        self.minds: list[Mind] = [open_mind(e, timeout, f"minds[{i}]") for i, e in enumerate(entries)]
        self.spreading = spreading
        self.phi, self.gamma, self.delta, self.pi = phi, gamma, delta, pi
        self.rng = random.Random(seed)
        self.links: list[Links] | None = None
        self.activation: list[float] = []
        self.ran: list[int] = [0] * len(self.minds)

    async def new_run(self, client_url: str | None = None, world_display_url: str | None = None,
                      world_run_id: str | None = None) -> RunStarted | None:
        await super().new_run(client_url, world_display_url, world_run_id)   # starts every mind's run
        self.links = None
        return None

    # ---- the links, from "Ready to suggest action?" on constructed states -------------------
    async def probe(self, state: str) -> list[Links]:
        names = propositions(state)[:MAX_PROPOSITIONS]
        missing = [g for g in self.goals if g not in names]
        if missing:
            raise Refusal("bad-parameters", f"goal {', '.join(missing)} is not a 0/1 item of the state "
                                            f"(its 0/1 items: {', '.join(names) or 'none'})")
        worlds = [dict(zip(names, bits, strict=True)) for bits in itertools.product((0, 1), repeat=len(names))]
        built = [with_values(state, w) for w in worlds]
        answers = await asyncio.gather(*(asyncio.gather(*(m.ready_to_suggest(x) for x in built)) for m in self.minds))
        out = []
        for ready in answers:
            when = [w for w, r in zip(worlds, ready, strict=True) if r]
            out.append(Links({p for p in names if when and all(w[p] == 1 for w in when)},
                             {p for p in names if when and all(w[p] == 0 for w in when)}))
        return out

    # ---- one step of spreading activation -------------------------------------------------
    def spread(self, a: list[float], truth: Mapping[str, bool], executable: list[bool]) -> list[float]:
        assert self.links is not None
        links, n = self.links, len(a)
        new = list(a)
        having = {p: [j for j in range(n) if p in links[j].pre] for p in truth}
        making = {p: [j for j in range(n) if p in links[j].adds] for p in truth}
        for p, true in truth.items():
            if true:
                for j in having[p]:
                    new[j] += self.phi / len(having[p])
        for g in self.goals:
            if not truth.get(g, False):
                for j in making[g]:
                    new[j] += self.gamma / len(making[g])
        for i in range(n):
            if links[i].adds and all(truth.get(p, False) for p in links[i].adds):
                new[i] -= self.delta
            if executable[i]:
                for p in links[i].adds:
                    if not truth.get(p, False):
                        for j in having[p]:
                            new[j] += a[i] * self.phi / self.gamma / len(having[p])
            else:
                for p in links[i].pre:
                    if not truth.get(p, False):
                        for j in making[p]:
                            new[j] += a[i] / len(making[p])
        new = [max(0.0, v) for v in new]
        mean = sum(new) / n
        return [v * self.pi / mean for v in new] if mean > 0 else [self.pi] * n

    def choose(self, a: list[float], executable: list[bool]) -> int | None:
        ready = [i for i in range(len(a)) if executable[i]]
        if not ready:
            return None
        if not self.spreading:
            return self.rng.choice(ready)
        return max(ready, key=lambda i: a[i])

    async def get_action(self, state: str) -> Suggestion:
        if self.links is None:
            self.links = await self.probe(state)
        executable = list(await asyncio.gather(*(m.ready_to_suggest(state) for m in self.minds)))
        if self.spreading:
            strengths = await asyncio.gather(*(m.get_strength() for m in self.minds))  # type: ignore[attr-defined]
            a = [float(s) if s is not None else 0.0 for s in strengths]
            variables = state_variables(state)
            truth = {p: variables.get(p) == 1.0 for p in propositions(state)[:MAX_PROPOSITIONS]}
            a = self.spread(a, truth, executable)
            await asyncio.gather(*(m.change_strength(round(v, 6))  # type: ignore[attr-defined]
                                   for m, v in zip(self.minds, a, strict=True)))
            self.activation = a
        index = self.choose(self.activation or [1.0] * len(self.minds), executable)
        if index is None:
            return Suggestion.cannot("no mind of the network is executable in this state")
        self.ran[index] += 1
        return await self.minds[index].get_action(state)

    def display_details(self) -> dict[str, Any]:
        """For the run display page: each mind's links, activation and how often it ran."""
        rows = []
        for i, m in enumerate(self.minds):
            links = self.links[i] if self.links else None
            rows.append({"mind": getattr(m, "url", type(m).__name__),
                         "preconditions": sorted(links.pre) if links else None,
                         "effects": sorted(links.adds) if links else None,
                         "activation": round(self.activation[i], 3) if self.activation else None,
                         "ran": self.ran[i]})
        return {"minds": rows, "goal": self.goals, "spreading": self.spreading}


__all__ = ["MaesNetwork", "propositions", "with_values"]
