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
"""

from __future__ import annotations

import asyncio
import json
import logging
import random
import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from functools import partial
from typing import Any, ClassVar

from ..client.members import MemberError, MemberSpec, connect_member, member_entries, read_member
from ..client.remote import RemoteMind
from ..kit.wrappers import parse_keys
from ..protocol.errors import Refusal
from ..protocol.interfaces import CompetingMind, LearningMind, Mind, SelectionMind
from ..protocol.results import RunStarted, Suggestion, Values
from .learning.knowledge import KnowledgeStore
from .learning.tables import Temperature
from .links import card_url, check_acknowledged, check_mind_url, check_trail, home_url, refuse_self, same_server
from .methods import METHODS, Decision, Method, Settings, method_class
from .panel import Member, Panel
from .tables import WinnerMemory

log = logging.getLogger("wwm.selection")

SAVE_EVERY = 1000  # steps between saves of what the AS learns (and at End run)


def _split(value: str | list[Any] | None, sep: str = ",") -> list[Any]:
    if value is None:
        return []
    if isinstance(value, str):
        return [p.strip() for p in value.split(sep)] if value.strip() else []
    return list(value)


def _numbers(value: str | list[Any] | None, what: str, n: int) -> list[float]:
    items = _split(value)
    if not items:
        return []
    try:
        out = [float(v) for v in items]
    except (TypeError, ValueError):
        raise ValueError(f"{what} must be numbers separated by commas, got {value!r}") from None
    if len(out) != n:
        raise ValueError(f"{what} gives {len(out)} numbers for {n} minds")
    return out


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
    each that comes back, as also a mind whose server restarted without its run; fewer is a
    ``too-few-minds`` refusal; not given: every mind must start); ``timeout_share`` (a mind
    whose card declares a ``timeout`` argument is sent this share of this server's own in its
    New run, so time-outs shrink down a chain, 9.2 note 1; a mind that declares ``peers`` is
    sent the other minds' URLs, 10.17); ``seed``.

    What the method itself learns (Hierarchical Q's Q(x,i), Collective W's W(x,i)) is kept per
    client (7.3), by the minds' URLs and arguments: a client's next run starts from its own
    tables, and New run's "Other client URL" (9.2.1) starts from another client's instead
    (refused with ``other-client-unknown`` when there are none). ``keep=false``: every run
    learns from scratch and nothing is saved (an experiment over seeds)."""

    title: ClassVar[str] = "Action Selection server (Mind_AS)"
    state_format: ClassVar[str] = ("whatever its minds read; with 'views', key=value items of "
                                   "which each mind is shown its own sub-space")
    action_format: ClassVar[str] = "whatever its minds suggest (or the shared 'actions' suite)"

    def __init__(self, minds: Sequence[str | Mapping[str, Any] | Mind] | str | None = None, method: str = "w=q",
                 timeout: float = 2.0, views: str | list[str] = "", weights: str | list[float] = "",
                 strengths: str | list[float] = "", candidates: str = "suggested",
                 actions: str | list[str] = "", q_temperature: float = 1.0,
                 run_length: float = 10_000.0, w_temperature: float = 0.1, gamma: float = 0.9,
                 period: int = 1, start: str = "random", remember: bool = False,
                 max_depth: int = 4, strength: float = 1.0, min_members: int | None = None,
                 retry: float = 2.0, timeout_share: float = 0.8, w_run_length: float | None = None,
                 keep: bool = True, seed: int | None = None) -> None:
        cls = method_class(method)
        if timeout <= 0:
            raise ValueError("timeout must be positive")
        if candidates not in ("suggested", "shared"):
            raise ValueError("candidates must be 'suggested' or 'shared'")
        if start not in ("random", "first"):
            raise ValueError("start must be 'random' or 'first'")
        if strength <= 0:
            raise ValueError("strength must be positive")
        if max_depth < 0:
            raise ValueError("max_depth cannot be negative")
        if q_temperature < 0 or w_temperature < 0:
            raise ValueError("a temperature cannot be negative")
        if run_length <= 0 or period < 1:
            raise ValueError("run_length must be positive and period at least 1")
        if not 0.0 <= gamma < 1.0:
            raise ValueError("gamma must be in [0, 1)")
        shared = tuple(a for a in _split(actions) if a)
        if candidates == "shared" and not shared:
            raise ValueError("candidates='shared' needs the shared suite in 'actions'")
        # one text: URLs separated by white space or commas (or a JSON list of members)
        entries: list[Any] = [minds] if isinstance(minds, Mind) else member_entries(minds)
        self.timeout = timeout
        self.members: list[Member] = []
        self._next_ident = 0
        view_list = _split(views, ";") if isinstance(views, str) else list(views)
        if view_list and len(view_list) != len(entries):
            raise ValueError(f"views gives {len(view_list)} sub-spaces for {len(entries)} minds")
        for i, entry in enumerate(entries):
            view = view_list[i] if view_list else "*"
            self.members.append(self._member(entry, view, where=f"minds[{i}]"))
        weight_list = _numbers(weights, "weights", len(self.members))
        self.strengths = _numbers(strengths, "strengths", len(self.members))
        if any(s <= 0 for s in self.strengths):
            raise ValueError("strengths must be positive")
        # by member, not by position: a mind that starts late keeps its strength
        self.strength_of = {m.ident: s for m, s in zip(self.members, self.strengths, strict=False)}
        if min_members is not None and not 1 <= min_members <= len(self.members):
            raise ValueError(f"min_members must be between 1 and the number of minds ({len(self.members)}), "
                             f"got {min_members}")
        if retry <= 0:
            raise ValueError("retry must be a positive number of seconds")
        if not 0 < timeout_share < 1:
            raise ValueError("timeout_share must be between 0 and 1 (a member's time-out is that share of this one's)")
        self.timeout_share = timeout_share
        if w_run_length is not None and w_run_length <= 0:
            raise ValueError("w_run_length must be a positive number of steps")
        # 7.3.1, 9.2.2 "Proposed length of W learning run": the W-temperature of the stochastic
        # methods declines from w_temperature to 0 over this many steps (None: it stays)
        self.w_schedule = None if w_run_length is None else Temperature(w_temperature, w_run_length)
        self.min_members = min_members
        self.retry = retry
        self.waiting: list[Member] = []   # minds that did not start a run; tried again every `retry` s
        self.returned: list[Member] = []  # minds that have since started one, admitted at the next step
        self._retry_task: asyncio.Task[None] | None = None
        self.failure_codes: dict[str, str] = {}  # why each mind last failed to start, as a refusal code
        self._last_try = 0.0
        self.settings = Settings(cls.name, timeout, candidates, shared, q_temperature, run_length,
                                 w_temperature, gamma, period, start,
                                 # no weights given: an empty list, and no member gets one
                                 {m.ident: w for m, w in zip(self.members, weight_list, strict=False)})
        if cls.name == "w-learning-subspaces" and not view_list:
            raise ValueError("w-learning-subspaces needs 'views': one sub-space per mind")
        if cls.name == "w-learning-full" and any(v.strip() not in ("", "*") for v in view_list):
            raise ValueError("w-learning-full shows every mind all of x: give no 'views'")
        self.rng = random.Random(seed)
        self.panel = Panel(timeout)
        self.method: Method = cls(self.settings, self.panel, self.rng)
        self.memory = WinnerMemory() if remember else None
        self.max_depth = max_depth
        self.strength = strength
        self.initial_w_temperature = w_temperature
        self.passive: dict[str, Member] = {}
        self.last: Decision | None = None
        self.pending = False  # a decision made this step and not yet followed by its news
        self.last_x: str | None = None
        self.steps = 0
        self.store = KnowledgeStore()   # what the method learns (Q(x,i), W(x,i)), per client (7.3)
        self.keep = keep
        self.learnt_from: str | None = None
        self.learnt_steps = 0

    def __getstate__(self) -> dict[str, Any]:  # (a server's snapshot: no live task)
        return {**self.__dict__, "_retry_task": None}

    # ---- the collection -------------------------------------------------------------------
    def _member(self, entry: str | Mapping[str, Any] | Mind, view: str = "*", where: str = "minds") -> Member:
        """One member: a Mind object, a URL, or ``{url, args}`` (its JSON text on the wire),
        whose ``args`` go in the New run this server sends it (3.5). A member of the wrong
        shape is a ValueError naming its path (``minds[1].args: ...``)."""
        keys = None if view.strip() in ("", "*") else parse_keys(view)
        if isinstance(entry, Mind):
            ident, self._next_ident = self._next_ident, self._next_ident + 1
            name = getattr(entry, "url", None) or f"local:{type(entry).__name__}#{ident}"
            return Member(ident, name, entry, keys, competing=True if isinstance(entry, CompetingMind) else None)
        spec = read_member(entry, where)
        url = check_mind_url(spec.url)
        refuse_self(url, home_url())
        try:  # the binding follows the scheme: HTTP, WebSocket or TCP
            remote = connect_member(MemberSpec(url, spec.args, spec.token), timeout=self.timeout)
        except ValueError as exc:
            raise Refusal("mind-url-invalid", f"{url}: {exc}") from None
        ident, self._next_ident = self._next_ident, self._next_ident + 1
        return Member(ident, url, remote, keys, owned=True, args=dict(spec.args))

    def _offer(self, m: Member, card: Mapping[str, Any]) -> None:
        """The arguments of ``m``'s New run: those written for it, and what this AS hands down
        to a mind whose card declares the argument. ``timeout``: a share (``timeout_share``) of
        this AS's own, so time-outs shrink down a chain (9.2, note 1); ``peers``: the URLs of
        the other minds of the collection, which a Nested mind may call (10.17: "it passes the
        list to each of the servers"). One written for it stays: each server receives exactly
        the arguments written for it."""
        if not isinstance(m.mind, RemoteMind):
            return
        schema = card.get("arguments")
        names = schema.get("properties", {}) if isinstance(schema, Mapping) else {}
        args = dict(m.args)
        if "timeout" in names:
            limit = round(self.timeout * self.timeout_share, 6)
            if "timeout" not in args:
                args["timeout"] = limit
            elif (_number_or_none(args["timeout"]) or 0.0) >= self.timeout:
                log.warning("%s: the time-out written for it (%s s) is not below this server's own (%g s)",
                            m.url, args["timeout"], self.timeout)
        if "peers" in names and "peers" not in args:
            args["peers"] = [o.url for o in self.members + self.waiting + self.returned
                             if o is not m and o.owned and o.url.startswith(("http://", "https://"))]
        m.mind.args = args

    async def _start(self, members: list[Member]) -> list[tuple[Member, str]]:
        """New run on each member, in parallel; the failures, with why (a refusal's code is
        kept in :attr:`failure_codes` by URL)."""
        async def start(m: Member) -> None:
            described = card_url(m.url) if m.owned else None
            if described is None:  # a local object, or a TCP URL (whose binding carries queries only)
                await m.mind.new_run(self.client_url, world_display_url=self.world_display_url)
                return
            from ..client.cards import fetch_card

            # a Mind server, whose trail of credit can be followed (7.2, 9.2.4), before its run
            card = await fetch_card(described)
            role = card.get("role")
            if role != "mind":
                raise Refusal("mind-url-invalid", f"it is a {role or 'non-WWM'} server, not a Mind server")
            check_trail(m.url, card)
            if isinstance(m.mind, RemoteMind):  # an encoding its card lists, from the first query on
                m.mind.speak_as(card)
            self._offer(m, card)
            await m.mind.new_run(self.client_url, world_display_url=self.world_display_url)
            home = home_url()
            if home is not None:  # served: the mind must now list this server as calling it
                try:
                    check_acknowledged(m.url, await fetch_card(described), home)
                except Refusal:
                    await self._close([m])
                    raise

        timeout = max(self.timeout, 5.0)
        tasks = {m: asyncio.ensure_future(asyncio.wait_for(start(m), timeout)) for m in members}
        await asyncio.gather(*tasks.values(), return_exceptions=True)
        failed = []
        for m, task in tasks.items():
            exc = task.exception()
            if exc is not None:
                self.failure_codes[m.url] = exc.code if isinstance(exc, Refusal) else "mind-url-invalid"
                if isinstance(exc, Refusal):
                    why = exc.text
                elif isinstance(exc, TimeoutError):
                    why = "no answer within the time-out"
                else:
                    why = f"{type(exc).__name__}: {exc}"
                failed.append((m, why))
        return failed

    async def _close(self, members: list[Member], score: float | None = None) -> None:
        async def close(m: Member) -> None:
            try:
                await asyncio.wait_for(m.mind.end_run(score), self.timeout)
            except (Exception, asyncio.CancelledError):
                pass
            if m.owned:
                closer = getattr(m.mind, "aclose", None)
                if closer is not None:
                    await closer()

        await asyncio.gather(*(close(m) for m in members), return_exceptions=True)

    async def _collection_changed(self) -> None:
        """10.16: tell the remaining minds (Reset W-Temperature), forget k(x) and tables."""
        self.method.forget()
        if self.memory is not None:
            self.memory.forget()
        jobs = {m: partial(_reset_w_temperature, m) for m in self.members if m.competing is not False}
        await self.panel.gather(jobs)

    async def add_mind(self, mind_url: str) -> None:
        try:
            member = self._member(mind_url, where="mind URL")
        except MemberError as exc:
            raise Refusal("bad-parameters", str(exc)) from None
        failed = await self._start([member])
        if failed:
            await self._close([member])
            code = "credit-trail-failed" if self.failure_codes.get(member.url) == "credit-trail-failed" \
                else "mind-url-invalid"
            raise Refusal(code, f"{mind_url} did not start a run: {failed[0][1]}")
        await self._collection_changed()
        self.members.append(member)

    async def remove_mind(self, mind_url: str) -> None:
        url = mind_url.strip()
        gone = [m for m in self.members if m.url == url]
        unstarted = [m for m in self.waiting + self.returned if m.url == url]
        self.waiting = [m for m in self.waiting if m.url != url]
        self.returned = [m for m in self.returned if m.url != url]
        await self._close_unstarted(unstarted)
        if unstarted and not gone:
            return  # it had not started: the collection the others know is unchanged
        if not gone:
            have = ", ".join(m.url for m in self.members) or "no minds"
            raise Refusal("bad-parameters", f"{url} is not in this collection (it has: {have})")
        self.members = [m for m in self.members if m.url != url]
        for m in gone:
            self.panel.background(self._close([m]))
        await self._collection_changed()

    # ---- runs -----------------------------------------------------------------------------
    # ---- what the AS itself learns, kept per client (7.3, 9.2.1) ------------------------------
    def _names(self) -> dict[int, str]:
        """Each member's name in a saved table: its URL, with the arguments written for it
        (the same server with other arguments is another mind); a repeat gets #2, #3, ..."""
        names: dict[int, str] = {}
        seen: dict[str, int] = {}
        for m in sorted(self.members + self.waiting + self.returned, key=lambda m: m.ident):
            name = m.url + (" " + json.dumps(m.args, sort_keys=True) if m.args else "")
            seen[name] = seen.get(name, 0) + 1
            names[m.ident] = name if seen[name] == 1 else f"{name}#{seen[name]}"
        return names

    @property
    def identity(self) -> str:
        """What the saved learning is for: this method over these minds (any order)."""
        minds = "\n".join(sorted(self._names().values()))
        return (f"{type(self).__module__}.{type(self).__qualname__}|{self.method.name}|"
                f"{self.settings.gamma:g}|{minds}")

    def _recall(self, client_url: str | None, other_client_url: str | None) -> None:
        """Start from what this method learnt with this client, or with ``other_client_url``
        ("the Mind you learnt with client c", which must exist: ``other-client-unknown``)."""
        if self.method.knowledge({}) is None or not self.keep:  # a method that learns nothing
            if other_client_url:
                why = "keeps nothing (keep=false)" if not self.keep else \
                    f"runs method {self.method.name!r}, which learns nothing of its own"
                raise Refusal("other-client-unknown", f"this Action Selection server {why}, so nothing "
                              "was learnt with any client")
            return
        data = self.store.recall(self.identity, client_url, other_client_url,
                                 detail=f" (with method {self.method.name!r} over these minds)")
        if data is not None:
            self.method.load(data, {name: ident for ident, name in self._names().items()})
            self.learnt_from = other_client_url or client_url

    def _keep(self) -> None:
        if not self.keep:
            return
        data = self.method.knowledge(self._names())
        if data is not None:
            self.store.save(self.identity, self.client_url, data)

    async def new_run(self, client_url: str | None = None, world_display_url: str | None = None,
                      world_run_id: str | None = None,
                      other_client_url: str | None = None) -> RunStarted | None:
        if same_server(client_url, home_url()):  # a run of this server made it a member, by any URL
            raise Refusal("mind-url-invalid", f"New run from {client_url}, this Action Selection "
                          "server itself: an AS cannot be its own member (it would call itself without end)")
        await super().new_run(client_url, world_display_url, world_run_id)
        self._recall(client_url, other_client_url)
        everyone = sorted(self.members + self.waiting + self.returned, key=lambda m: m.ident)
        self.members, self.waiting, self.returned = everyone, [], []
        failed = dict(await self._start(everyone))
        started = [m for m in everyone if m not in failed]
        why = "; ".join(f"minds[{everyone.index(m)}] {m.url}: {text}" for m, text in failed.items())
        if failed and self.min_members is None:
            await self._close(started)
            trail = all(self.failure_codes.get(m.url) == "credit-trail-failed" for m in failed)
            raise Refusal("credit-trail-failed" if trail else "mind-url-invalid", why)
        if failed and len(started) < (self.min_members or 0):
            await self._close(started)
            raise Refusal("too-few-minds", f"{len(started)} of {len(everyone)} minds started a run and "
                          f"min_members is {self.min_members}: {why}")
        if failed:
            log.warning("starting with %d of %d minds (min_members %s); trying again every %gs: %s",
                        len(started), len(everyone), self.min_members, self.retry, why)
        self.members, self.waiting = started, list(failed)
        self._last_try = time.monotonic()
        for m in started:
            await self._send_strength(m)
        return None

    async def _send_strength(self, m: Member) -> None:
        """Its strength, if one was given for it (10.10)."""
        s = self.strength_of.get(m.ident)
        if s is None:
            return
        try:
            await asyncio.wait_for(m.competing_mind.change_strength(s), self.timeout)
        except Exception as exc:  # (not a cancellation of this New run: that goes on up)
            why = exc.text if isinstance(exc, Refusal) else (str(exc) or "no answer within the time-out")
            raise Refusal("bad-parameters", f"{m.url} did not take strength {s:g}: {why}") from None

    # ---- minds that did not start: tried again, admitted when they answer (section 6) -----
    def _try_waiting(self) -> None:
        """Every ``retry`` seconds, in the background, New run on the minds still waiting."""
        if not self.waiting or (self._retry_task is not None and not self._retry_task.done()):
            return
        if time.monotonic() - self._last_try < self.retry:
            return
        self._last_try = time.monotonic()
        self._retry_task = asyncio.ensure_future(self._retry_waiting(list(self.waiting)))

    async def _retry_waiting(self, waiting: list[Member]) -> None:
        failed = dict(await self._start(waiting))
        for m in waiting:
            if m not in failed and m in self.waiting:
                self.waiting.remove(m)
                self.returned.append(m)

    async def _drop_lost_runs(self) -> None:
        """Under ``min_members``: a mind whose server no longer knows its run (restarted
        without it: ``unknown-run``) leaves the collection and waits with the others to be
        started again, so a server that comes back rejoins; the others are told (10.16)."""
        lost = [m for m in self.members if m.lost_run] if self.min_members is not None else []
        if not lost:
            return
        for m in lost:
            log.warning("%s lost its run (%s): out of the collection until it starts a new one",
                        m.url, m.last_error)
            m.lost_run = False
        self.members = [m for m in self.members if m not in lost]
        self.waiting.extend(lost)
        await self._collection_changed()

    async def _admit_returned(self) -> None:
        """Minds that started late join the collection; the others are told it changed (10.16)."""
        if not self.returned:
            return
        back, self.returned = self.returned, []
        for m in back:
            try:
                await self._send_strength(m)
            except Refusal as refusal:
                log.warning("%s started late but is left out: %s", m.url, refusal.text)
                await self._close([m])
                continue
            log.info("%s answers again: admitted to the collection", m.url)
            await self._collection_changed()
            self.members.append(m)

    async def end_run(self, score: float | None = None) -> float | None:
        self._keep()
        if self._retry_task is not None:
            self._retry_task.cancel()
        await self._close(self.members + self.returned + list(self.passive.values()), score)
        await self._close_unstarted(self.waiting)
        self.passive.clear()
        return score

    async def _close_unstarted(self, members: list[Member]) -> None:
        for m in members:
            closer = getattr(m.mind, "aclose", None) if m.owned else None
            if closer is not None:
                await closer()

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
        await self._admit_returned()
        await self._drop_lost_runs()
        self._try_waiting()
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
            member = await self._callee(url)
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

    async def _callee(self, url: str) -> Member | None:
        for m in self.members:
            if m.url == url:
                return m
        if url in self.passive:
            return self.passive[url]
        try:
            member = self._member(url)
        except (Refusal, ValueError):
            return None
        if await self._start([member]):
            return None
        self.passive[url] = member  # a passive mind, outside the competition (10.17.2)
        return member

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
            self.learnt_steps += 1
            if self.learnt_steps % SAVE_EVERY == 0:  # a run that never ends keeps its learning too
                self._keep()
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
                 "waiting": m in self.waiting} for m in self.members + self.waiting]

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
            rows.append({"mind": m.url, "suggested": "not started: tried again every "
                         f"{self.retry:g} s", "Q": None, "W": None, "won": False, "display": None,
                         "answers": m.answers, "misses": m.misses, "last error": m.last_error})
        decision: dict[str, Any] = {"method": self.method.name, "steps": self.steps, "timeout": self.timeout}
        if self.learnt_from is not None:  # the tables it started from: learnt with this client
            decision["learnt with"] = self.learnt_from
        if d is not None:
            decision.update(action=d.action, winner=d.winner.url if d.winner is not None else None,
                            note=d.note or None)
        return {"minds": rows, "decision": decision}


def _number_or_none(value: Any) -> float | None:
    try:
        return float(value)
    except (TypeError, ValueError):
        return None


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
