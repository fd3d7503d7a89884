"""The master of Feudal servants (9.2.3, 10.18, 10.19): a Mind with goals of its own that
drives Mind_Feu servers by URL with "Take me to state c".

A Feudal mind "does not have its own goals, and is only used via this call by another Mind
server which has goals". :class:`FeudalLord` is that other server. It has a reward of its
own (a named goal or the World's score, as a Q-learner's), a list of orders it may give
(destination states c, written in the sub-space of x its servants are shown: the master
"drives the slave server by explicitly altering the state for it", 10.18), and it learns
Q(x, order), which order to give in which state ([PhD] 18.2, 10.19: the sub-symbolic
society). An order stands until the servant arrives at c, the lord's own reward comes, the
servant cannot go on, or ``patience`` steps pass; the lord's update for it is the
semi-Markov one: the discounted rewards of those k steps plus gamma^k max Q(y, .).

A servant may answer with a Mind URL instead of an action ("the URL of a server that will
generate the action", 9.2.3): the lord starts a run there, sends it the same order (or, if
it is no Mind_Feu, "Get action" with the servant's view of x), and so on down the chain, at
most ``max_depth`` calls; every mind so called hears each new state afterwards so it can
learn. What the lord learns is kept per client (7.3), as the other learning minds keep theirs.
"""

from __future__ import annotations

import asyncio
import logging
import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from ...kit.region import CallsMinds, freeze, open_mind, speak_as_described, thaw
from ...kit.wrappers import parse_keys, project
from ...protocol.errors import Refusal
from ...protocol.interfaces import FeudalMind, LearningMind, Mind
from ...protocol.results import RunStarted, Suggestion
from .knowledge import KnowledgeStore
from .qlearning import step_number
from .rewards import items
from .rewards import reward as find_reward
from .tables import QTable, Temperature, TemperatureQueries, boltzmann_choice

log = logging.getLogger("wwm.selection.lord")


def parse_orders(orders: str | Sequence[str]) -> list[str]:
    """Destination states, separated by ``;`` (each a state text, e.g. ``pos=5`` or ``x=1 y=3``)."""
    parts = orders.split(";") if isinstance(orders, str) else list(orders)
    out = [" ".join(p.split()) for p in parts if p.strip()]
    if not out:
        raise ValueError("orders must name at least one destination state c, e.g. orders='pos=0;pos=9'")
    if len(set(out)) != len(out):
        raise ValueError("a destination is named twice in orders")
    return out


@dataclass
class Order:
    """The order now standing: given in state ``x`` (the lord's key), choice ``choice``."""

    x: str
    choice: int
    steps: int = 0
    reward: float = 0.0   # the discounted sum of the lord's rewards since it was given


class FeudalLord(TemperatureQueries, CallsMinds, LearningMind):
    """Orders its Feudal servants ``minds`` (wire name "mind URL", repeated; URLs, members
    ``{"url", "args"}`` or Mind objects) to the states of ``orders`` (";"-separated), and
    learns which order to give in which state from its own ``reward`` (a goal of
    :mod:`.rewards`, or "score"; ``r`` its size). ``view``: the keys of x its servants are
    shown and its orders are written in (default all of x); ``lord_view``: the keys its own
    table reads (default all of x). ``patience``: the most steps an order stands. ``gamma``,
    ``q_temperature`` (default r/2) declining over ``run_length`` steps, ``learn``,
    ``pretrained`` (start from what it learnt with this client URL), ``max_depth`` (of a chain
    of Mind URLs a servant answers with), ``timeout`` (seconds per query), ``seed``."""

    title: ClassVar[str] = "Feudal lord (the master of Mind_Feu servants, 10.18)"
    state_format: ClassVar[str] = ("key=value items; its servants are shown the keys of 'view', "
                                   "and its orders are states in that view")
    action_format: ClassVar[str] = "whatever its servants suggest"

    def __init__(self, minds: Sequence[str | Mapping[str, Any] | Mind] | str = (),
                 orders: str | list[str] = "", reward: str = "score", r: float | None = None,
                 view: str = "", lord_view: str = "", patience: int = 50, gamma: float = 0.9,
                 q_temperature: float | None = None, run_length: float = 10_000.0, learn: bool = True,
                 pretrained: str | None = None, max_depth: int = 4, timeout: float = 5.0,
                 seed: int | None = None) -> None:
        from ...client.members import member_entries

        entries = member_entries(minds) if isinstance(minds, str) else list(minds)
        entries = [e for e in entries if not (isinstance(e, str) and not e.strip())]
        if not entries:
            raise ValueError("a Feudal lord needs at least one Feudal servant ('mind URL')")
        if timeout <= 0:
            raise ValueError("timeout must be a positive number of seconds")
        if patience < 1:
            raise ValueError("patience must be at least 1 step")
        if max_depth < 0:
            raise ValueError("max_depth cannot be negative")
        if not 0.0 <= gamma < 1.0:
            raise ValueError("gamma must be in [0, 1)")
        self.orders = parse_orders(orders)
        self.goal = find_reward(reward)
        self.r = self.goal.size if r is None else float(r)
        self.view = parse_keys(view) if view else None
        self.lord_view = parse_keys(lord_view) if lord_view else None
        self.timeout = timeout
        self.minds: list[Mind] = [open_mind(e, timeout, f"minds[{i}]") for i, e in enumerate(entries)]
        # one choice per (servant, destination)
        self.choices = [(i, c) for i in range(len(self.minds)) for c in self.orders]
        names = [f"{i}:{c}" for i, c in self.choices]
        self.table = QTable(names, gamma)
        start = abs(self.r) / 2 if q_temperature is None else q_temperature
        self.temperature = Temperature(start, run_length)
        self.patience = patience
        self.learn = learn
        self.pretrained = pretrained
        self.max_depth = max_depth
        self.rng = random.Random(seed)
        self.store = KnowledgeStore()
        self.client: str | None = None
        self.order: Order | None = None
        self.x: str | None = None                  # the state of this step, as received
        self.followed: dict[str, Mind] = {}        # minds a servant's Mind URL led to, by URL
        self.called: list[Mind] = []               # who gave this step's action (told the news)
        self.given = 0                             # orders given this run
        self.arrivals = 0                          # orders a servant carried out
        self.total = 0.0                           # the lord's own points this run
        self.last_note = ""
        self.other_client: str | None = None

    # ---- snapshots (the server pickles own runs): remote minds kept as URL and run ID ----------
    def __getstate__(self) -> dict[str, Any]:
        state = super().__getstate__()
        refs: dict[int, Any] = {}
        state["followed"] = {url: refs.setdefault(id(m), freeze(m)) for url, m in self.followed.items()}
        state["called"] = []
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        super().__setstate__(state)
        self.followed = {url: thaw(kept) for url, kept in state["followed"].items()}

    # ---- identity and knowledge (7.3) -------------------------------------------------------
    @property
    def identity(self) -> str:
        servants = ",".join(getattr(m, "url", type(m).__name__) for m in self.minds)
        view = ",".join(self.view) if self.view else "*"
        mine = ",".join(self.lord_view) if self.lord_view else "*"
        return (f"{type(self).__module__}.{type(self).__qualname__}|{self.goal.name}|{self.r:g}|"
                f"{';'.join(self.orders)}|{view}|{mine}|{self.table.gamma:g}|{servants}")

    async def new_run(self, client_url: str | None = None, world_display_url: str | None = None,
                      world_run_id: str | None = None,
                      other_client_url: str | None = None) -> RunStarted | None:
        self.client_url, self.world_display_url, self.world_run_id = client_url, world_display_url, world_run_id
        self.client = client_url
        data = self.store.recall(self.identity, client_url, other_client_url or self.pretrained,
                                 detail=" (with these orders, views and servants)")
        if data is not None:
            table = QTable.from_json(data["q"])
            if table.actions != self.table.actions:
                raise Refusal("bad-parameters", "the saved knowledge is for other orders")
            self.table = table

        self.other_client = other_client_url or self.pretrained

        async def start(mind: Mind) -> None:
            await speak_as_described(mind)
            await self._start_servant(mind, world_run_id)

        await asyncio.gather(*(start(m) for m in self._distinct()))
        return None

    async def _start_servant(self, mind: Mind, world_run_id: str | None = None) -> None:
        """New run on a servant for this client; asked for the Mind learnt with client c, the
        lord asks each servant for what it learnt serving this lord for c (the whole hierarchy
        comes back, not the lord's table alone)."""
        kwargs: dict[str, Any] = {"world_display_url": self.world_display_url, "world_run_id": world_run_id}
        if self.other_client and await _learns(mind):
            from ...client.members import MemberMind, on_behalf_of
            from ..links import home_url

            home = home_url()
            other = self.other_client
            if isinstance(mind, MemberMind) and home and other != home:
                other = on_behalf_of(home, other)
            kwargs["other_client_url"] = other
        await mind.new_run(self.client_url, **kwargs)

    # ---- acting -------------------------------------------------------------------------------
    def servant_view(self, state: str) -> str:
        """The state the lord constructs for its servants (10.18): the keys of ``view``."""
        if self.view is None:
            return " ".join(state.split())
        try:
            return project(state, self.view)
        except Refusal as refusal:
            raise Refusal("bad-parameters", f"view: {refusal.text}") from None

    def key(self, state: str) -> str:
        if self.lord_view is None:
            return " ".join(state.split())
        try:
            return project(state, self.lord_view)
        except Refusal as refusal:
            raise Refusal("bad-parameters", f"lord_view: {refusal.text}") from None

    def _give_order(self, state: str, t: float, sent: bool) -> Order:
        x = self.key(state)
        here = self.servant_view(state)
        row = self.table.row(x)
        # an order to the state it is in is no order: it is chosen only if nothing else is left
        allowed = [i for i, (_, c) in enumerate(self.choices) if c != here] or list(range(len(self.choices)))
        pick = boltzmann_choice([row[i] for i in allowed], t if self.learn or sent else 0.0, self.rng)
        self.given += 1
        return Order(x, allowed[pick])

    async def get_action(self, state: str, q_temperature: Any = None, **step: Any) -> Suggestion:
        self.x = state
        sent = step_number(q_temperature, "Q-temperature")
        t = self.temperature.tick() if sent is None else sent  # one step of the schedule per step
        if self.order is None:
            self.order = self._give_order(state, t, sent is not None)
        servant, c = self.choices[self.order.choice]
        seen = self.servant_view(state)
        # this step's own arguments (a Q-temperature: 0 is "your best, from what you have
        # learnt", 7.3.1) go down to whoever is asked, as a Mind_AS passes them to its minds
        passed = {k: v for k, v in {"q_temperature": q_temperature, **step}.items() if v is not None}
        self.called = []
        mind: Mind = self.minds[servant]
        chain: list[str] = []
        for _ in range(self.max_depth + 1):
            answer = await self._ask(mind, seen, c, passed)
            self.called.append(mind)
            url = answer.mind_url
            if answer.action is not None or url is None or not answer.can_suggest:
                break
            if len(chain) == self.max_depth:
                answer = Suggestion.cannot(f"the chain of Mind URLs is longer than max_depth={self.max_depth}")
                break
            chain.append(url)
            mind = await self._callee(url)
        via = f" via {' -> '.join(chain)}" if chain else ""
        if answer.action is None:
            self.last_note = f"order {c!r}: {answer.reason or 'no action'}{via}"
            self._close_order(state, arrived=False)  # the next step gives a new order
            return Suggestion.cannot(self.last_note)
        self.last_note = f"order {c!r} to servant {servant}{via}"
        q = self.table.value(self.order.x, self.order.choice) if self.order is not None else None
        return Suggestion(answer.action, q=q, reason=via.strip() or None)

    async def _ask(self, mind: Mind, seen: str, c: str, step: dict[str, Any]) -> Suggestion:
        """"Take me to state c" (9.2.3); a mind without it is asked "Get action" for the state."""
        try:
            if isinstance(mind, FeudalMind) or hasattr(mind, "take_me_to"):
                return await asyncio.wait_for(mind.take_me_to(seen, c, **step), self.timeout)
        except Refusal as refusal:
            if refusal.code != "unsupported-query":
                raise
        return await asyncio.wait_for(mind.get_action(seen, **step), self.timeout)

    async def _callee(self, url: str) -> Mind:
        """The mind at a URL a servant answered with: started once per run, for this client."""
        mind = self.followed.get(url)
        if mind is not None:
            return mind
        for known in self.minds:
            if getattr(known, "url", None) == url:
                return known
        try:
            mind = open_mind(url, self.timeout, "the Mind URL a servant answered with")
        except ValueError as exc:
            raise Refusal("mind-url-invalid", str(exc)) from None
        await speak_as_described(mind)
        await self._start_servant(mind)
        self.followed[url] = mind
        return mind

    # ---- learning ------------------------------------------------------------------------------
    def _close_order(self, y: str, arrived: bool) -> None:
        order, self.order = self.order, None
        if order is None:
            return
        self.arrivals += int(arrived)
        if self.learn:
            gamma = self.table.gamma
            self.table.update(order.x, order.choice, order.reward, self.key(y),
                              discount=gamma ** max(1, order.steps))

    async def inform(self, state: str, score: float | None = None) -> float | None:
        x, self.x = self.x, state
        seen = self.servant_view(state)
        told = list(dict.fromkeys(self.minds + self.called, None))  # every servant, and whoever acted
        answers = await asyncio.gather(*(m.inform(seen, score) for m in told), return_exceptions=True)
        for mind, answer in zip(told, answers, strict=True):
            if isinstance(answer, BaseException):  # a servant that missed the news: logged, not fatal
                log.warning("informing %r failed: %s", mind, answer)
        self.called = []
        r = self.goal(items(x), items(state), score, self.r) if x is not None else 0.0
        self.total += r
        order = self.order
        if order is None:
            return r
        order.reward += (self.table.gamma ** order.steps) * r
        order.steps += 1
        arrived = seen == self.choices[order.choice][1]
        if arrived or r != 0.0 or order.steps >= self.patience:
            self._close_order(state, arrived)
        return r

    # ---- scores and the end of the run -------------------------------------------------------
    async def get_current_score(self, score: float | None = None) -> float | None:
        return self.total

    async def reset_score(self) -> None:
        self.total = 0.0

    async def end_run(self, score: float | None = None) -> float | None:
        if self.learn:
            self.store.save(self.identity, self.client, {"q": self.table.to_json()})
        minds = list(dict.fromkeys(self.minds + list(self.followed.values())))
        await asyncio.gather(*(m.end_run(score) for m in minds), return_exceptions=True)
        for mind in minds:
            close = getattr(mind, "aclose", None)
            if close is not None:
                await close()
        self.followed.clear()
        return self.total

    def display_details(self) -> dict[str, Any]:
        """For the run display page: the order standing, how many were given and carried out,
        each servant and where it displays its run."""
        standing = None
        if self.order is not None:
            servant, c = self.choices[self.order.choice]
            standing = {"servant": servant, "destination": c, "steps": self.order.steps}
        return {"order": standing, "orders given": self.given, "orders carried out": self.arrivals,
                "points": self.total, "note": self.last_note,
                "servants": [{"mind": getattr(m, "url", type(m).__name__),
                              "display": getattr(m, "display_url", None)} for m in self.minds],
                "followed": [{"mind": url, "display": getattr(m, "display_url", None)}
                             for url, m in sorted(self.followed.items())]}


async def _learns(mind: Mind) -> bool:
    """Whether ``mind`` is a Mind_L (9.2.1), which takes "Other client URL" in New run: a local
    object by its class, a remote one by the query sets on its card."""
    from ...client.remote import RemoteMind

    if not isinstance(mind, RemoteMind):
        return isinstance(mind, LearningMind)
    if not mind.url.lower().startswith(("http://", "https://")):
        return True  # no card to read (TCP): ask, and let it refuse
    try:
        card = await mind.describe()
    except Refusal:
        return True
    sets = card.get("query_sets")
    return not isinstance(sets, list) or "Mind_L" in sets


__all__ = ["FeudalLord", "parse_orders"]
