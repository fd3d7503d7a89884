"""Every Action Selection method of section 10 (and the crude baselines of 3.3) as the
queries it sends and the rule it applies to the answers. A method gathers values through
the :class:`~.panel.Panel`, decides with a pure rule of :mod:`.rules`, and may learn from
what the minds report afterwards. :data:`METHODS` maps the names a client passes at New run.
"""

from __future__ import annotations

import random
import re
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import partial
from typing import Any, ClassVar

from ..protocol.results import Suggestion, Values
from ..registry import Registry
from . import rules
from .learning.tables import Temperature
from .panel import Member, Panel
from .tables import CollectiveTable, SwitchTable


@dataclass
class Settings:
    """The AS arguments a method reads."""

    method: str
    timeout: float = 2.0
    candidates: str = "suggested"
    actions: tuple[str, ...] = ()
    q_temperature: float = 1.0
    run_length: float = 10_000.0
    w_temperature: float = 0.1
    gamma: float = 0.9
    period: int = 1
    start: str = "random"
    weights: dict[int, float] = field(default_factory=dict)

    def weight(self, member: Member) -> float:
        return self.weights.get(member.ident, 1.0)


@dataclass
class Decision:
    """What a method decided in state x: the action, the winning mind (None for a compromise
    action), the Q and W it passes upwards, and who was asked."""

    action: str | None
    winner: Member | None = None
    q: float | None = None
    w: float | None = None
    suggestions: dict[Member, Suggestion] = field(default_factory=dict)
    asked: list[Member] = field(default_factory=list)
    mind_url: str | None = None   # the winner answered with a Mind URL to call (10.17)
    rounds: int = 0
    note: str = ""


class Method:
    """One Action Selection method. ``kind`` is AS_s, AS_m or "neither" (10.6);
    ``collective`` says whether values are summed (True) or maxed over minds."""

    name: ClassVar[str] = ""
    kind: ClassVar[str] = "AS_s"
    collective: ClassVar[bool] = False
    doc: ClassVar[str] = ""

    def __init__(self, settings: Settings, panel: Panel, rng: random.Random) -> None:
        self.settings = settings
        self.panel = panel
        self.rng = rng

    async def decide(self, x: str, members: list[Member], step: int) -> Decision:
        raise NotImplementedError

    def learn(self, decision: Decision, x: str, y: str, score: float | None,
              reports: dict[Member, Values], members: list[Member]) -> None:
        """After the step: what the minds reported to "Inform it about winner"."""

    def forget(self) -> None:
        """The collection changed (10.16)."""

    def knowledge(self, names: dict[int, str]) -> dict[str, Any] | None:
        """What this method has learnt, to keep for the client (7.3), its minds named by
        ``names`` (member id -> a name that outlives the run); None: it learns nothing."""
        return None

    def load(self, data: dict[str, Any], idents: dict[str, int]) -> None:
        """Take back what :meth:`knowledge` gave, ``idents`` naming this run's members."""

    def payments(self, decision: Decision, score: float | None) -> dict[int, float]:
        """W-payments to send with "Inform it about winner", by member id (Economy of Mind)."""
        return {}


def _bid_key(s: Suggestion) -> str:
    return s.action if s.action is not None else f"mind:{s.mind_url}"


def _winner_take_all(suggestions: dict[Member, Suggestion], k: Member, note: str = "") -> Decision:
    s = suggestions[k]
    return Decision(s.action, k, s.q, s.w, suggestions, list(suggestions), s.mind_url if s.action is None else None,
                    note=note)


# ---- AS_s: one query per mind, highest W wins ---------------------------------------------------

class HighestW(Method):
    name = "static-w"
    doc = "Static W (10.7): the mind bidding the highest W wins; minds' own reasons for W."

    def bid(self, s: Suggestion) -> float | None:
        return s.w if s.w is not None else s.q

    def pick(self, bids: list[rules.Bid]) -> int:
        return rules.highest(bids)

    async def decide(self, x: str, members: list[Member], step: int) -> Decision:
        got = await self.panel.suggestions(members, x)
        bids = [(m, s, self.bid(s)) for m, s in got.items()]
        valued = [(m, s, v) for m, s, v in bids if v is not None] or [(m, s, 0.0) for m, s, _ in bids]
        if not valued:
            return Decision(None, suggestions=got, asked=list(members), note="no mind suggested an action")
        k = self.pick([rules.Bid(_bid_key(s), v) for _, s, v in valued])
        d = _winner_take_all(got, valued[k][0])
        d.asked = list(members)
        d.w = valued[k][2]
        return d


class DynamicW(HighestW):
    name = "dynamic-w"
    doc = ("Dynamic W (10.8): highest W wins, and every mind is told afterwards whether it was "
           "obeyed, so it can change its W next time.")


class WLearning(HighestW):
    name = "w-learning"
    doc = ("W-learning (10.9): highest W wins; the losers learn W from their losses (with the "
           "leader's W unchanged, the strict variant, unless the minds update the winner too). "
           "With 'views' each mind sees its own sub-space (W-learning with subspaces), without "
           "it the full space.")


class WLearningSubspaces(WLearning):
    name = "w-learning-subspaces"
    doc = "W-learning with subspaces ([PhD] 7-8): needs 'views', one sub-space per mind."


class WLearningFull(WLearning):
    name = "w-learning-full"
    doc = ("W-learning with full space ([PhD] 10): every mind sees all of x (its W is a lookup "
           "table over the full x here; the thesis used a neural network).")


class StochasticW(HighestW):
    name = "w-learning-stochastic"
    doc = "Stochastic highest W ([PhD] 6.5): P(k) = e^{W_k/T} / SUM e^{W_j/T}, T the W-temperature."

    def pick(self, bids: list[rules.Bid]) -> int:
        return rules.boltzmann([b.value for b in bids], self.settings.w_temperature, self.rng)


class WEqualsQ(HighestW):
    name = "w=q"
    doc = "W = Q, Maximize the Best Happiness (10.12(1)): the mind with the highest Q(x,a_i) wins."

    def bid(self, s: Suggestion) -> float | None:
        return s.q


class MaxBestHappiness(WEqualsQ):
    name = "max-best-happiness"


class Economy(HighestW):
    name = "economy"
    doc = ("Economy of Mind (10.20, Baum 1996): the highest bidder wins control and pays its bid W "
           "to the mind that held control before it; the World's reward goes to the mind in "
           "control. Payments travel in Inform it about winner (its W item); the AS keeps the "
           "books, so wealth changes only by the rewards.")

    def __init__(self, settings: Settings, panel: Panel, rng: random.Random) -> None:
        super().__init__(settings, panel, rng)
        self.wealth: dict[int, float] = {}
        self.owner: int | None = None

    def payments(self, decision: Decision, score: float | None) -> dict[int, float]:
        k = decision.winner
        if k is None:
            return {}
        out: dict[int, float] = {}
        bid = decision.w or 0.0
        if self.owner is not None and self.owner != k.ident and bid:
            out = {k.ident: -bid, self.owner: bid}
        for ident, amount in out.items():
            self.wealth[ident] = self.wealth.get(ident, 0.0) + amount
        self.wealth[k.ident] = self.wealth.get(k.ident, 0.0) + (score or 0.0)
        self.owner = k.ident
        return out


# ---- AS_m: value candidate actions, then a global rule -------------------------------------------

class Global(Method):
    """n x "Get suggested action with values", then n x |C| x "Get values for this action",
    then a rule over the matrix. Candidates are the suggested actions, or the shared suite."""

    kind = "AS_m"
    uses = "u"  # the matrix the rule reads: "u" (unhappiness) or "q"
    @staticmethod
    def matrix_rule(m: Sequence[Sequence[float]], /) -> int:
        """The rule of section 10.12 this method applies to its matrix (each subclass's own)."""
        raise NotImplementedError

    def rule(self, m: Sequence[Sequence[float]], members: list[Member]) -> int:
        return type(self).matrix_rule(m)

    async def decide(self, x: str, members: list[Member], step: int) -> Decision:
        got = await self.panel.suggestions(members, x)
        if not got:
            return Decision(None, asked=list(members), note="no mind suggested an action")
        if self.settings.candidates == "shared" and self.settings.actions:
            candidates = list(self.settings.actions)
        else:
            candidates = sorted({s.action for s in got.values() if s.action is not None})
        if not candidates:
            k = next(iter(got))
            return _winner_take_all(got, k, note="only Mind URLs were suggested")
        valuing = [m for m in got if m.competing is not False]
        values = await self.panel.values([(m, c) for m in valuing for c in candidates], x)
        rows_q: list[list[float]] = []
        rows_u: list[list[float]] = []
        used: list[Member] = []
        for m in valuing:
            vals = [values.get((m, c)) for c in candidates]
            known = [(value_q, v.w) for v in vals if v is not None and (value_q := v.q) is not None]
            if len(known) < len(vals):
                continue  # missing or foreign values: this mind sits this step out
            qs = [q for q, _ in known]
            own = got[m].q
            best = max([*qs, own if own is not None else max(qs)])
            rows_q.append(qs)
            rows_u.append([w if w is not None else best - q for q, w in known])
            used.append(m)
        if not used:
            k = max(got, key=lambda m: (got[m].q or 0.0))
            return _winner_take_all(got, k, note="no mind valued the candidates; highest Q")
        c = self.rule(rows_u if self.uses == "u" else rows_q, used)
        action = candidates[c]
        winner = next((m for m in members if m in got and got[m].action == action), None)
        col_u = [row[c] for row in rows_u]
        col_q = [row[c] for row in rows_q]
        q = sum(col_q) if self.collective else max(col_q)
        w = sum(col_u) if self.collective else max(col_u)
        return Decision(action, winner, q, w, got, list(members), rounds=2,
                        note="" if winner else "compromise action")


class MinWorstUnhappiness(Global):
    name = "min-worst-unhappiness"
    doc = "Minimize the Worst Unhappiness (10.12(2)): MIN_a MAX_i (Q_i(x,a_i) - Q_i(x,a))."
    matrix_rule = staticmethod(rules.min_worst_unhappiness)


class MinCollectiveUnhappiness(Global):
    name = "min-collective-unhappiness"
    collective = True
    doc = "Minimize Collective Unhappiness (10.12(3)): MIN_a SUM_i (Q_i(x,a_i) - Q_i(x,a))."
    matrix_rule = staticmethod(rules.min_collective_unhappiness)


class MaxCollectiveHappiness(Global):
    name = "max-collective-happiness"
    collective = True
    uses = "q"
    doc = "Maximize Collective Happiness (10.12(4)): MAX_a SUM_i Q_i(x,a)."
    matrix_rule = staticmethod(rules.max_collective_happiness)


class CollectiveEquality(Global):
    name = "collective-equality"
    collective = True
    doc = ("Collective Equality ([PhD] 12.4, 10.13(3)): the action whose unhappiness is shared "
           "most evenly (project reading; see rules.collective_equality).")
    matrix_rule = staticmethod(rules.collective_equality)


class ProductMCH(Global):
    name = "product-mch"
    collective = True
    uses = "q"
    doc = "Product Maximize Collective Happiness ([PhD] 15.5.2): MAX_a PROD_i Q'_i(x,a), Q shifted positive."
    matrix_rule = staticmethod(rules.product_max_collective_happiness)


class Damn(Global):
    name = "damn"
    collective = True
    uses = "q"
    doc = "DAMN-style weighted voting (10.14): MAX_a SUM_i w_i Q_i(x,a), weights held by the AS."

    def rule(self, m: Sequence[Sequence[float]], members: list[Member]) -> int:
        return rules.damn(m, [self.settings.weight(member) for member in members])


# ---- Negotiated W-learning and Negotiated Collective W-learning ---------------------------------

class NegotiatedW(Method):
    name = "negotiated-w"
    kind = "AS_m"
    doc = ("Negotiated W-learning ([PhD] 11, 10.13(1)): a leader is proposed; every other mind "
           "says what it would lose; the one losing most takes the lead if it loses more than the "
           "leader did; repeat. Start: a random mind, or the first with start='first'.")

    async def decide(self, x: str, members: list[Member], step: int) -> Decision:
        got = await self.panel.suggestions(members, x)
        bidders = [m for m in members if m in got]
        if not bidders:
            return Decision(None, asked=list(members), note="no mind suggested an action")
        start = 0 if self.settings.start == "first" else self.rng.randrange(len(bidders))
        walk = rules.negotiation(len(bidders), start)
        k = next(walk)
        try:
            while True:
                lead = got[bidders[k]]
                losses: list[float | None]
                if lead.action is None:
                    losses = [None] * len(bidders)
                else:
                    others = [m for i, m in enumerate(bidders) if i != k and m.competing is not False]
                    vals = await self.panel.values([(m, lead.action) for m in others], x)
                    losses = [None if i == k or (m, lead.action) not in vals else vals[(m, lead.action)].w
                              for i, m in enumerate(bidders)]
                k = walk.send(losses)
        except StopIteration as stop:
            result: rules.Negotiated = stop.value
        d = _winner_take_all(got, bidders[result.leader])
        d.asked, d.w, d.rounds = list(members), result.w, result.rounds
        return d


class NegotiatedCollectiveW(Method):
    name = "negotiated-collective-w"
    kind = "AS_m"
    collective = True
    doc = ("Negotiated Collective W-learning ([PhD] 12.2.4): each suggested action's W is the sum "
           "of what every other mind would lose by it, asked directly; the lowest W wins.")

    async def decide(self, x: str, members: list[Member], step: int) -> Decision:
        got = await self.panel.suggestions(members, x)
        proposed = {m: s.action for m, s in got.items() if s.action is not None}
        bidders = [m for m in members if m in proposed and m.competing is not False]
        if not bidders:
            return Decision(None, suggestions=got, asked=list(members), note="no mind suggested an action")
        pairs = [(j, proposed[k]) for k in bidders for j in bidders if j is not k]
        vals = await self.panel.values(pairs, x)
        # what j would lose by k's action, where j said
        loss = {(j, k): w for k in bidders for j in bidders if j is not k
                if (v := vals.get((j, proposed[k]))) is not None and (w := v.w) is not None}
        live = [m for m in bidders if all((m, k) in loss for k in bidders if k is not m)]
        if not live:
            live = bidders[:1]
        u = [[0.0 if j is k else loss[(j, k)] for k in live] for j in live]
        k = rules.negotiated_collective(u)
        d = _winner_take_all(got, live[k])
        d.asked, d.w, d.rounds = list(members), sum(u[j][k] for j in range(len(live)) if j != k), 2
        return d


# ---- neither AS_s nor AS_m: the AS learns whom to obey, then asks one mind ---------------------

class OneMind(Method):
    """Pick one mind by a table, then ask it alone for its action; if it does not answer,
    the next in order of preference, within one time-out."""

    kind = "neither"

    def order(self, x: str, members: list[Member]) -> list[Member]:
        raise NotImplementedError

    @staticmethod
    def ranked(members: list[Member], first: int, cost: list[float]) -> list[Member]:
        """``first``, then the others from the lowest cost up (ties by position)."""
        rest = sorted((i for i in range(len(members)) if i != first), key=lambda i: (cost[i], i))
        return [members[first]] + [members[i] for i in rest]

    async def decide(self, x: str, members: list[Member], step: int) -> Decision:
        if not members:
            return Decision(None, note="no minds")
        ordered = self.order(x, members)
        deadline = time.monotonic() + self.panel.timeout
        asked = []
        for m in ordered:
            left = deadline - time.monotonic()
            if left <= 0:
                break
            asked.append(m)
            got = await self.panel.gather({m: partial(m.mind.get_action, m.see(x), **self.panel.step)},
                                          {m: m}, timeout=left)
            s = got.get(m)
            if s is not None and s.can_suggest:
                return Decision(s.action, m, s.q, s.w, {m: s}, asked,
                                s.mind_url if s.action is None else None)
        return Decision(None, asked=asked, note="no mind answered")


class HierarchicalQ(OneMind):
    name = "hierarchical-q"
    doc = ("Hierarchical Q-learning (10.5, Lin 1993): the AS learns Q(x,i), which mind to obey, "
           "from the World's score; it asks only the chosen mind; Boltzmann exploration with a "
           "Q-temperature that declines over 'run_length'.")

    def __init__(self, settings: Settings, panel: Panel, rng: random.Random) -> None:
        super().__init__(settings, panel, rng)
        self.table = SwitchTable(settings.gamma)
        self.temperature = Temperature(settings.q_temperature, settings.run_length)

    def order(self, x: str, members: list[Member]) -> list[Member]:
        values = [self.table.value(x, m.ident) for m in members]
        t = self.temperature.tick()
        if t > 0:
            first = rules.boltzmann(values, t, self.rng)
        else:  # greedy, but ties at random: an unseen state must not always go to mind 0
            top = max(values)
            first = self.rng.choice([i for i, v in enumerate(values) if v == top])
        return self.ranked(members, first, [-v for v in values])

    def learn(self, decision: Decision, x: str, y: str, score: float | None,
              reports: dict[Member, Values], members: list[Member]) -> None:
        if decision.winner is not None:
            self.table.update(x, decision.winner.ident, score or 0.0, y, [m.ident for m in members])

    def knowledge(self, names: dict[int, str]) -> dict[str, Any] | None:
        return {"q": _rows(self.table.q, self.table.n, names)}

    def load(self, data: dict[str, Any], idents: dict[str, int]) -> None:
        self.table.q, self.table.n = _unrows(data.get("q", []), idents)


class CollectiveW(OneMind):
    name = "collective-w"
    collective = True
    doc = ("Collective W-learning ([PhD] 12.2, 10.13(2)): the AS learns W(x,i), the loss mind i "
           "causes all the others when it leads, from the losses they report; the lowest W leads.")
    stochastic = False

    def __init__(self, settings: Settings, panel: Panel, rng: random.Random) -> None:
        super().__init__(settings, panel, rng)
        self.table = CollectiveTable()

    def order(self, x: str, members: list[Member]) -> list[Member]:
        values = [self.table.value(x, m.ident) for m in members]
        t = self.settings.w_temperature if self.stochastic else 0.0
        first = rules.boltzmann(values, t, self.rng, lowest_wins=True)
        return self.ranked(members, first, values)

    def learn(self, decision: Decision, x: str, y: str, score: float | None,
              reports: dict[Member, Values], members: list[Member]) -> None:
        k = decision.winner
        if k is None:
            return
        losses = [v.w for m, v in reports.items() if m is not k and v.w is not None]
        if losses:
            self.table.update(x, k.ident, sum(losses))

    def knowledge(self, names: dict[int, str]) -> dict[str, Any] | None:
        return {"w": _rows(self.table.w, self.table.n, names)}

    def load(self, data: dict[str, Any], idents: dict[str, int]) -> None:
        self.table.w, self.table.n = _unrows(data.get("w", []), idents)


def _rows(values: dict[tuple[str, int], float], counts: dict[tuple[str, int], int],
          names: dict[int, str]) -> list[list[Any]]:
    """A table over (x, member id) as JSON rows [x, mind name, value, count]."""
    return [[x, names[i], v, counts.get((x, i), 0)] for (x, i), v in values.items() if i in names]


def _unrows(rows: list[list[Any]], idents: dict[str, int]) -> tuple[dict[tuple[str, int], float],
                                                                     dict[tuple[str, int], int]]:
    values: dict[tuple[str, int], float] = {}
    counts: dict[tuple[str, int], int] = {}
    for x, name, v, n in rows:
        if name in idents:
            values[(str(x), idents[name])] = float(v)
            counts[(str(x), idents[name])] = int(n)
    return values, counts


class StochasticCollectiveW(CollectiveW):
    name = "collective-w-stochastic"
    stochastic = True
    doc = "Collective W-learning with stochastic lowest W ([PhD] 12.2.2): P(k) ∝ e^{-W_k/T}."


# ---- the crude baselines of 3.3 ---------------------------------------------------------------

class MostPopular(Method):
    name = "most-popular"
    doc = "The action most minds suggest; a random one of the most popular if they tie (3.3)."

    async def decide(self, x: str, members: list[Member], step: int) -> Decision:
        got = await self.panel.suggestions(members, x)
        actions = [s.action for s in got.values() if s.action is not None]
        if not actions:
            return Decision(None, suggestions=got, asked=list(members), note="no mind suggested an action")
        action = rules.most_popular(actions, self.rng)
        winner = next(m for m in members if m in got and got[m].action == action)
        return Decision(action, winner, got[winner].q, got[winner].w, got, list(members))


class Rotation(OneMind):
    name = "rotation"
    doc = "Time-based rotation (3.3): each mind has free rein for 'period' steps in turn."

    def __init__(self, settings: Settings, panel: Panel, rng: random.Random) -> None:
        super().__init__(settings, panel, rng)
        self.step = 0

    def order(self, x: str, members: list[Member]) -> list[Member]:
        first = rules.rotation(self.step, len(members), self.settings.period)
        self.step += 1
        return members[first:] + members[:first]


class RandomMind(OneMind):
    name = "random"
    doc = "A random mind each step (3.3)."

    def order(self, x: str, members: list[Member]) -> list[Member]:
        shuffled = list(members)
        self.rng.shuffle(shuffled)
        return shuffled


METHODS: Registry[type[Method]] = Registry("method", group="wwm.as_methods")
for _method in [
    HierarchicalQ, HighestW, DynamicW, WLearning, WLearningSubspaces, WLearningFull, StochasticW,
    WEqualsQ, MaxBestHappiness, Economy, NegotiatedW, MinWorstUnhappiness, MinCollectiveUnhappiness,
    MaxCollectiveHappiness, CollectiveW, StochasticCollectiveW, NegotiatedCollectiveW,
    CollectiveEquality, ProductMCH, Damn, MostPopular, Rotation, RandomMind,
]:
    METHODS.register(_method)
for _alias, _name in {"mwu": "min-worst-unhappiness", "mcu": "min-collective-unhappiness",
                      "mch": "max-collective-happiness", "mbh": "max-best-happiness",
                      "hq": "hierarchical-q"}.items():
    METHODS.alias(_alias, _name)


_SENTENCE = re.compile(r"(.+?[.!?])(?=\s+[A-Z(\"']|$)")


def method_sentence(cls: type[Method]) -> str:
    """What ``cls`` does in one sentence, for the compose form's list of methods: the first
    of its own ``doc``, else of its own docstring (a plugin's method), else of the ``doc`` it
    inherits (a method that is another's under a second name)."""
    text = " ".join((cls.__dict__.get("doc") or cls.__doc__ or cls.doc or "").split())
    found = _SENTENCE.match(text)
    return found.group(1) if found else (text or f"The method {cls.name!r}.")


def method_class(name: str) -> type[Method]:
    """The method called ``name`` (or an alias: ``mwu``, ``hq``, ...), built in or a plugin's."""
    return METHODS.lookup(name)
