"""The Mind_AS server (9.2.4): a Society of Mind behind one Mind interface.

Its minds are URLs of Mind servers (http(s)://, ws(s):// or tcp://, each reached over its
binding by :func:`wwm.connect`; never its own URL, see :mod:`.links`) or Mind objects, so a
local society and a society spread over the network are the same code. Each step it asks
its minds in parallel, decides by the method chosen at New run on whatever came back within
its time-out (8.3.1), and afterwards tells every mind what happened: obeyed or not, the
winner's URL, the action executed, y and the score (9.2.2). Minds can be added and removed
mid-run; the others are told the collection changed (10.16). It is itself a Mind_i, so it
can compete in a higher-level AS, passing its W upwards, and a Mind_L for the temperature
of the switch it learns in Hierarchical Q-learning. Its run display page shows each mind's
last answer and the winner (:meth:`ActionSelectionMind.display_details`).

This class is the facade: its arguments are declared and checked in :mod:`.as_config`, its
members started, retried, reopened and closed by :mod:`.as_members`, and what its method
learns kept per client by :mod:`.as_knowledge`; here are the deciding and the queries.
"""

from __future__ import annotations

import logging
import random
from collections.abc import Awaitable, Callable
from functools import partial
from typing import Any, ClassVar

from ..client.members import MemberError
from ..protocol.errors import Refusal
from ..protocol.interfaces import CompetingMind, LearningMind, SelectionMind
from ..protocol.results import RunStarted, Suggestion, Values
from .as_config import (
    ActionsArg,
    ASConfig,
    CandidatesArg,
    GammaArg,
    KeepArg,
    MaxDepthArg,
    MethodArg,
    MindsArg,
    MinMembersArg,
    PeriodArg,
    QTemperatureArg,
    RememberArg,
    RetryArg,
    RunLengthArg,
    SeedArg,
    StartArg,
    StrengthArg,
    StrengthsArg,
    TimeoutArg,
    TimeoutShareArg,
    ViewsArg,
    WeightsArg,
    WRunLengthArg,
    WTemperatureArg,
)
from .as_knowledge import KnowledgeKeeper
from .as_members import Membership
from .learning.knowledge import KnowledgeStore
from .learning.tables import Temperature
from .links import home_url, same_server
from .methods import METHODS, Decision, Method, Settings
from .panel import Member, Panel
from .tables import WinnerMemory

log = logging.getLogger("wwm.selection")


class ActionSelectionMind(SelectionMind, CompetingMind, LearningMind):
    """An Action Selection server: resolves competition among its minds by one method of
    section 10 (argument ``method``; see :data:`wwm.selection.methods.METHODS`).

    Arguments: ``minds`` (wire name "mind URL", repeated: http(s)://, ws(s)://host:port/ws
    or tcp://host:port; never this server's own URL; or a member ``{"url": ..., "args":
    {...}}``, as JSON text on the wire, whose ``args`` this server sends in that mind's own
    New run, see :mod:`wwm.client.members`); ``method``; ``timeout`` (seconds
    per round of queries); ``views`` (one sub-space per mind, e.g. "i,f;n;p", "*" for all of
    x); ``weights`` (DAMN) and ``strengths`` (sent to the minds as "Change mind strength"),
    comma-separated, one per mind; ``candidates`` ("suggested" actions or the "shared"
    suite in ``actions``); ``q_temperature``, ``run_length``, ``gamma`` (the Hierarchical Q
    switch); ``w_temperature`` (stochastic W), declining to 0 over ``w_run_length`` steps if
    given (7.3.1); ``period`` (rotation); ``start`` ("random" or
    "first" mind to lead a negotiation); ``remember`` (k(x), 10.15); ``max_depth`` (of a
    chain of Mind URLs, 10.17); ``strength`` (multiplies the W it presents upwards);
    ``min_members`` (broken links, section 6: start a run with the minds that answer New run
    if at least this many do, and keep trying the others every ``retry`` seconds, admitting
    each that comes back; fewer is a ``too-few-minds`` refusal; not given: every mind must
    start); ``timeout_share`` (a mind
    whose card declares a ``timeout`` argument is sent this share of this server's own in its
    New run, so time-outs shrink down a chain, 9.2 note 1; a mind that declares ``peers`` is
    sent the other minds' URLs, 10.17); ``seed``.

    What the method itself learns (Hierarchical Q's Q(x,i), Collective W's W(x,i)) is kept per
    client (7.3), by the minds' URLs and arguments: a client's next run starts from its own
    tables, and New run's "Other client URL" (9.2.1) starts from another client's instead
    (refused with ``other-client-unknown`` when there are none). ``keep=false``: every run
    learns from scratch and nothing is saved (an experiment over seeds).

    A member whose server lost its run (restarted without it, or, when this server resumes a
    run from its snapshot, forgot it or cannot be reached) is given a new run before the next
    decision, with the same arguments (its own learning with this client is its server's to
    keep). Where that fails the member waits to be started again every ``retry`` seconds,
    and that step's answer is "Cannot suggest action" saying ``degraded: member X lost at
    step k (why)``, k being the steps this run has been told of; the run display page says
    the society is degraded until the member is back."""

    title: ClassVar[str] = "Action Selection server (Mind_AS)"
    state_format: ClassVar[str] = ("whatever its minds read; with 'views', key=value items of "
                                   "which each mind is shown its own sub-space")
    action_format: ClassVar[str] = "whatever its minds suggest (or the shared 'actions' suite)"

    def __setstate__(self, state: dict[str, Any]) -> None:
        """A run taken back from a server's ``--state`` file. One saved before the AS was split
        into its configuration, membership and knowledge keeper has none of them and could not
        go on: it is refused here, so the server drops that run cleanly (its client is told the
        run is unknown) instead of serving a broken one."""
        missing = [part for part in ("config", "team", "knowledge") if part not in state]
        if missing:
            raise ValueError(f"an Action Selection run saved by an older wwm (no {', '.join(missing)})")
        self.__dict__.update(state)

    def __init__(self, minds: MindsArg = None, method: MethodArg = "w=q", timeout: TimeoutArg = 2.0,
                 views: ViewsArg = "", weights: WeightsArg = "", strengths: StrengthsArg = "",
                 candidates: CandidatesArg = "suggested", actions: ActionsArg = "",
                 q_temperature: QTemperatureArg = 1.0, run_length: RunLengthArg = 10_000.0,
                 w_temperature: WTemperatureArg = 0.1, gamma: GammaArg = 0.9, period: PeriodArg = 1,
                 start: StartArg = "random", remember: RememberArg = False, max_depth: MaxDepthArg = 4,
                 strength: StrengthArg = 1.0, min_members: MinMembersArg = None, retry: RetryArg = 2.0,
                 timeout_share: TimeoutShareArg = 0.8, w_run_length: WRunLengthArg = None,
                 keep: KeepArg = True, seed: SeedArg = None) -> None:
        config = ASConfig.check(minds, method, timeout, views, weights, strengths, candidates, actions,
                                q_temperature, run_length, w_temperature, gamma, period, start, remember,
                                max_depth, strength, min_members, retry, timeout_share, w_run_length, keep, seed)
        self.config = config
        self.timeout = timeout
        self.panel = Panel(timeout)
        self.team = Membership(self.panel, timeout=timeout, timeout_share=timeout_share, retry=retry,
                               min_members=min_members, on_change=self._collection_changed)
        for i, entry in enumerate(config.entries):
            view = config.views[i] if config.views else "*"
            self.team.members.append(self.team.make(entry, view, where=f"minds[{i}]"))
        self.strengths = config.strengths
        self.team.strength_of = {m.ident: s for m, s in zip(self.team.members, config.strengths, strict=False)}
        # 7.3.1, 9.2.2 "Proposed length of W learning run": the W-temperature of the stochastic
        # methods declines from w_temperature to 0 over this many steps (None: it stays)
        self.w_schedule = None if w_run_length is None else Temperature(w_temperature, w_run_length)
        self.settings = Settings(config.method.name, timeout, candidates, config.actions, q_temperature,
                                 run_length, w_temperature, gamma, period, start,
                                 # no weights given: an empty list, and no member gets one
                                 {m.ident: w for m, w in zip(self.team.members, config.weights, strict=False)})
        self.rng = random.Random(seed)
        self.method: Method = config.method(self.settings, self.panel, self.rng)
        self.memory = WinnerMemory() if remember else None
        self.max_depth = max_depth
        self.strength = strength
        self.initial_w_temperature = w_temperature
        self.last: Decision | None = None
        self.pending = False  # a decision made this step and not yet followed by its news
        self.last_x: str | None = None
        self.steps = 0     # decisions made
        self.informed = 0  # steps the client told this AS about (Inform it about state / winner)
        self.knowledge = KnowledgeKeeper(type(self), keep)

    # ---- the parts, by the names this class has always had --------------------------------
    @property
    def members(self) -> list[Member]:
        return self.team.members

    @members.setter
    def members(self, value: list[Member]) -> None:
        self.team.members = value

    @property
    def waiting(self) -> list[Member]:
        return self.team.waiting

    @property
    def returned(self) -> list[Member]:
        return self.team.returned

    @property
    def passive(self) -> dict[str, Member]:
        return self.team.passive

    @property
    def failure_codes(self) -> dict[str, str]:
        return self.team.failure_codes

    @property
    def min_members(self) -> int | None:
        return self.team.min_members

    @property
    def retry(self) -> float:
        return self.team.retry

    @property
    def timeout_share(self) -> float:
        return self.team.timeout_share

    @property
    def store(self) -> KnowledgeStore:
        return self.knowledge.store

    @store.setter
    def store(self, value: KnowledgeStore) -> None:
        self.knowledge.store = value

    @property
    def keep(self) -> bool:
        return self.knowledge.keep

    @property
    def learnt_from(self) -> str | None:
        return self.knowledge.learnt_from

    @property
    def identity(self) -> str:
        """What the saved learning is for: this method over these minds (any order)."""
        return self.knowledge.identity(self.method, self.settings.gamma, self.team.everyone)

    def _keep(self) -> None:
        self.knowledge.save(self.method, self.settings.gamma, self.team.everyone, self.client_url)

    # ---- the collection -------------------------------------------------------------------
    async def _collection_changed(self) -> None:
        """10.16: tell the remaining minds (Reset W-Temperature), forget k(x) and tables."""
        self.method.forget()
        if self.memory is not None:
            self.memory.forget()
        jobs = {m: partial(_reset_w_temperature, m) for m in self.members if m.competing is not False}
        await self.panel.gather(jobs)

    async def add_mind(self, mind_url: str) -> None:
        try:
            member = self.team.make(mind_url, where="mind URL")
        except MemberError as exc:
            raise Refusal("bad-parameters", str(exc)) from None
        await self.team.add(member)

    async def remove_mind(self, mind_url: str) -> None:
        await self.team.remove(mind_url)

    # ---- runs -----------------------------------------------------------------------------
    async def new_run(self, client_url: str | None = None, world_display_url: str | None = None,
                      world_run_id: str | None = None,
                      other_client_url: str | None = None) -> RunStarted | None:
        if same_server(client_url, home_url()):  # a run of this server made it a member, by any URL
            raise Refusal("mind-url-invalid", f"New run from {client_url}, this Action Selection "
                          "server itself: an AS cannot be its own member (it would call itself without end)")
        await super().new_run(client_url, world_display_url, world_run_id)
        self.knowledge.recall(self.method, self.settings.gamma, self.team.everyone, client_url, other_client_url)
        self.team.client_url, self.team.world_display_url = client_url, world_display_url
        await self.team.open()
        return None

    async def end_run(self, score: float | None = None) -> float | None:
        self._keep()
        await self.team.end(score)
        return score

    async def no_operation(self) -> None:
        await self.panel.gather({m: m.mind.no_operation for m in self.members})

    # ---- deciding -------------------------------------------------------------------------
    async def decide(self, state: str, step: dict[str, Any] | None = None) -> Decision:
        """One step's decision (every query the method needs, in parallel rounds). ``step``:
        the client's arguments for this step only (e.g. a Q-temperature), passed on to every
        mind asked (9.2.1, 9.2.2)."""
        self.panel.step = {k: v for k, v in (step or {}).items() if v is not None}
        try:
            return await self._decide(state)
        finally:
            self.panel.step = {}

    async def _decide(self, state: str) -> Decision:
        if self.w_schedule is not None:
            self.settings.w_temperature = self.w_schedule.tick()
        # the step as the run knows it: the steps it has been told about (a Get action sent
        # ahead with an Inform and never used is no step); without Informs, the decisions
        degraded = await self.team.before_step(self.informed or self.steps)
        if degraded:  # never a silent smaller society: this step's answer says so, and nothing is done
            self.last, self.last_x, self.pending = Decision(None, note="; ".join(degraded)), state, False
            self.steps += 1
            return self.last
        members = list(self.members)
        for m in members:  # a sub-space the state lacks is the client's error, not a broken link
            if m.view:
                try:
                    m.see(state)
                except Refusal as refusal:
                    raise Refusal("bad-parameters", f"views: the sub-space for {m.url}: {refusal.text}") from None
        d = await self._remembered(state, members)
        if d is None:
            d = await self.method.decide(state, members, self.steps)
            if d.mind_url is not None and d.action is None:
                await self._follow(d, state)
            if self.memory is not None and d.action is not None:
                if d.winner is not None:
                    self.memory.winners[state] = d.winner.ident
                else:
                    self.memory.actions[state] = d.action
        self.last, self.last_x, self.pending = d, state, True
        self.steps += 1
        return d

    async def _remembered(self, state: str, members: list[Member]) -> Decision | None:
        if self.memory is None:
            return None
        if state in self.memory.actions:
            self.memory.hits += 1
            return Decision(self.memory.actions[state], note="remembered a(x)")
        ident = self.memory.winners.get(state)
        member = next((m for m in members if m.ident == ident), None)
        if member is None:
            return None
        s = await self.panel.action(member, state)
        if s is None or s.action is None:
            return None
        self.memory.hits += 1
        return Decision(s.action, member, s.q, s.w, {member: s}, [member], note="remembered k(x)")

    async def _follow(self, d: Decision, state: str) -> None:
        """The winner answered with a Mind URL (10.17): call it, and so on down the chain,
        at most ``max_depth`` calls (call loops are the authors' problem, 3.5; this stops them)."""
        url, chain = d.mind_url, list[str]()
        while url is not None and len(chain) < self.max_depth:
            chain.append(url)
            member = await self.team.callee(url)
            s = await self.panel.action(member, state) if member is not None else None
            if s is None or not s.can_suggest:
                break
            if s.action is not None:
                d.action, d.note = s.action, "via " + " -> ".join(chain)
                return
            url = s.mind_url
        fallback = [(m, s) for m, s in d.suggestions.items() if s.action is not None]
        if fallback:
            m, s = max(fallback, key=lambda t: (t[1].w if t[1].w is not None else (t[1].q or 0.0)))
            d.action, d.winner, d.q, d.w = s.action, m, s.q, s.w
            d.note = f"call chain {' -> '.join(chain)} gave no action; next best mind"
        else:
            d.note = f"call chain {' -> '.join(chain)} gave no action"

    async def get_action(self, state: str, **step: Any) -> Suggestion:
        d = await self.decide(state, step)
        if d.action is None:
            return Suggestion.cannot(d.note or "no mind suggested an action")
        return Suggestion(d.action, q=d.q)

    # ---- telling the minds what happened --------------------------------------------------
    async def _tell(self, m: Member, y: str, obeyed: bool | None, winner_url: str | None,
                    action: str | None, score: float | None, payment: float | None = None) -> Values:
        if m.competing is not False:
            try:
                return await m.competing_mind.inform_winner(
                    m.see(y), obeyed=obeyed, payment=payment, winner_url=winner_url, action=action,
                    score=score)
            except Refusal as refusal:
                if refusal.code != "unsupported-query":
                    raise
                m.competing = False
            except AttributeError:
                m.competing = False
        await m.mind.inform(m.see(y), score)
        return Values()

    async def _inform_all(self, y: str, score: float | None, executed: str | None,
                          lost_above: bool = False, winner_url: str | None = None) -> dict[Member, Values]:
        d = self.last if self.pending else None  # not asked this step: nobody was obeyed
        self.pending = False
        self.informed += 1
        members = list(self.members)
        answered = d.suggestions if d is not None else {}
        asked = set(d.asked) if d is not None else set()
        winner = d.winner if d is not None and not lost_above else None
        url = winner_url if lost_above or d is None else (winner.url if winner is not None else None)
        pay = self.method.payments(d, score) if d is not None and not lost_above else {}
        jobs: dict[Member, Callable[[], Awaitable[Values]]] = {}
        for m in members:
            if m in answered:
                obeyed: bool | None = (not lost_above) and (m is winner or answered[m].action == executed)
            else:
                obeyed = None
            payment = pay.get(m.ident)
            if m in asked and m not in answered and m is not winner:
                # silent this step: tell it without waiting for it
                self.panel.background(self._tell(m, y, obeyed, url, executed, score, payment))
                continue
            jobs[m] = partial(self._tell, m, y, obeyed, url, executed, score, payment)
        reports = await self.panel.gather(jobs, {m: m for m in jobs})
        if d is not None and self.last_x is not None:
            self.method.learn(d, self.last_x, y, score, reports, members)
            self.knowledge.stepped(self.method, self.settings.gamma, self.team.everyone, self.client_url)
        return reports

    async def inform(self, state: str, score: float | None = None) -> float | None:
        executed = self.last.action if self.last is not None and self.pending else None
        await self._inform_all(state, score, executed)
        return None

    # ---- as a Mind_i in a higher-level AS (9.2.4) -------------------------------------------
    async def get_suggestion(self, state: str, **step: Any) -> Suggestion:
        d = await self.decide(state, step)
        if d.action is None:
            return Suggestion.cannot(d.note or "no mind suggested an action")
        w = d.w if d.w is not None else d.q
        return Suggestion(d.action, q=d.q, w=None if w is None else self.strength * w)

    async def get_values(self, state: str, action: str, **step: Any) -> Values:
        minds = [m for m in self.members if m.competing is not False]
        self.panel.step = {k: v for k, v in step.items() if v is not None}
        try:
            got = await self.panel.values([(m, action) for m in minds], state)
        finally:
            self.panel.step = {}
        qs = [v.q for v in got.values() if v.q is not None]
        ws = [v.w for v in got.values() if v.w is not None]
        combine = sum if self.method.collective else max
        return Values(q=combine(qs) * self.strength if qs else None,
                      w=combine(ws) * self.strength if ws else None)

    async def inform_winner(self, state: str, obeyed: bool | None = None,
                            payment: float | None = None, winner_url: str | None = None,
                            action: str | None = None, score: float | None = None) -> Values:
        ours = self.last.action if self.last is not None and self.pending else None
        lost_above = obeyed is False and (action is None or action != ours)
        executed = action if action is not None else (None if lost_above else ours)
        reports = await self._inform_all(state, score, executed, lost_above, winner_url)
        losses = [v.w for v in reports.values() if v.w is not None]
        combine = sum if self.method.collective else max
        return Values(q=score, w=combine(losses) * self.strength if losses else None)

    async def get_strength(self) -> float | None:
        return self.strength

    async def change_strength(self, strength: float) -> None:
        if strength <= 0:
            raise Refusal("bad-parameters", "strength must be positive")
        self.strength = strength

    async def get_w_temperature(self) -> float | None:
        """The W-temperature the next step will use."""
        return self.w_schedule.current if self.w_schedule is not None else self.settings.w_temperature

    async def send_w_temperature(self, w_temperature: float, run_length: float | None = None) -> None:
        """From now on this W-temperature; with a run length, declining to 0 over it."""
        if w_temperature < 0:
            raise Refusal("bad-parameters", "a W-temperature cannot be negative")
        if run_length is not None and run_length <= 0:
            raise Refusal("bad-parameters", "the run length must be positive")
        self.settings.w_temperature = w_temperature
        if run_length is not None or self.w_schedule is not None:
            length = run_length if run_length is not None else self.w_schedule.run_length  # type: ignore[union-attr]
            self.w_schedule = Temperature(w_temperature, length)

    async def reset_w_temperature(self, run_length: float | None = None) -> None:
        """The higher-level collection changed: the W-temperature starts again (over
        ``run_length`` steps if given), and the news goes down to every mind."""
        if run_length is not None and run_length <= 0:
            raise Refusal("bad-parameters", "the run length must be positive")
        self.settings.w_temperature = self.initial_w_temperature
        if run_length is not None or self.w_schedule is not None:
            length = run_length if run_length is not None else self.w_schedule.run_length  # type: ignore[union-attr]
            self.w_schedule = Temperature(self.initial_w_temperature, length)
        await self._collection_changed()

    # ---- as a Mind_L: the temperature of the switch it learns (Hierarchical Q) ------------
    async def get_q_temperature(self) -> float | None:
        t = getattr(self.method, "temperature", None)
        return t.current if t is not None else None

    async def reset_q_temperature(self, run_length: float | None = None) -> None:
        t = getattr(self.method, "temperature", None)
        if t is not None:
            try:
                t.reset(run_length)
            except ValueError as exc:
                raise Refusal("bad-parameters", str(exc)) from None

    async def send_q_temperature(self, q_temperature: float, run_length: float | None = None) -> None:
        t = getattr(self.method, "temperature", None)
        if t is None:
            raise Refusal("bad-parameters", f"method {self.method.name!r} learns no Q-values of its own")
        try:
            t.reset(run_length, start=q_temperature)
        except ValueError as exc:
            raise Refusal("bad-parameters", str(exc)) from None

    def status(self) -> list[dict[str, Any]]:
        """Each mind's answers and misses so far, and why it last missed."""
        return [{"url": m.url, "answers": m.answers, "misses": m.misses, "last_error": m.last_error,
                 "waiting": m in self.waiting, "degraded": self.team.lost.get(m.url)}
                for m in self.members + self.waiting]

    def display_details(self) -> dict[str, Any]:
        """For the run display page: each mind's answer at the last decision (its suggested
        action, Q and W, whether it won) with its answers and misses so far, and the decision."""
        d = self.last
        rows = []
        for m in self.members:
            s = d.suggestions.get(m) if d is not None else None
            rows.append({"mind": m.url, "suggested": _shown(s, d is not None and m in d.asked),
                         "Q": s.q if s else None, "W": s.w if s else None,
                         "won": d is not None and d.winner is m,
                         "display": getattr(m.mind, "display_url", None),
                         "answers": m.answers, "misses": m.misses, "last error": m.last_error})
        for m in self.waiting + self.returned:
            lost = self.team.lost.get(m.url)
            rows.append({"mind": m.url, "suggested": f"{lost or 'not started'}: tried again every "
                         f"{self.retry:g} s", "Q": None, "W": None, "won": False, "display": None,
                         "answers": m.answers, "misses": m.misses, "last error": m.last_error})
        decision: dict[str, Any] = {"method": self.method.name, "steps": self.steps, "timeout": self.timeout}
        if self.learnt_from is not None:  # the tables it started from: learnt with this client
            decision["learnt with"] = self.learnt_from
        if self.team.lost:  # members out because their runs were lost and could not be reopened
            decision["degraded"] = "; ".join(self.team.lost.values())
        if self.team.history:  # what happened to the members: runs reopened, members lost or back
            decision["members' history"] = "; ".join(self.team.history[-5:])
        if d is not None:
            decision.update(action=d.action, winner=d.winner.url if d.winner is not None else None,
                            note=d.note or None)
        return {"minds": rows, "decision": decision}


async def _reset_w_temperature(m: Member) -> None:
    await m.competing_mind.reset_w_temperature()  # (a plain Mind's AttributeError: a failed job)


def _shown(s: Suggestion | None, asked: bool) -> str:
    """What one mind answered at the last decision, in words."""
    if s is None:
        return "no action (see last error)" if asked else "not asked"
    if s.action is not None:
        return s.action
    return f"call {s.mind_url}" if s.mind_url else "cannot suggest"


ActionSelectionMind.__doc__ = (
    (ActionSelectionMind.__doc__ or "") + "\n\nMethods (argument ``method``):\n\n"
    + "\n".join(f"- ``{name}`` ({cls.kind}): {cls.doc}" for name, cls in METHODS.items() if cls.doc))

__all__ = ["ActionSelectionMind", "METHODS"]
