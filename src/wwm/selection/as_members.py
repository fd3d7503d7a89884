"""The members of an Action Selection server through their lives: made from URLs or objects,
started (New run, after their card's trail of credit is checked), closed, added and removed
mid-run, tried again when they did not start, admitted when they come back, reopened when
their server lost their run, and the passive minds a chain of Mind URLs calls (10.17.2).

Kept apart from the AS's deciding so that "who is in the society now, and why not the others"
is one object, and the record of a society that lost a member is written in one place: a
member whose run is gone (its server restarted without it, or the AS itself was resumed from
a snapshot and the member is gone or forgot the run) is given a new run at once; where that
fails the society is *degraded*, which :attr:`Membership.history` and the AS's answer say
(``degraded: member X lost at step k``), never a silent smaller society.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

from ..client.cards import card_url
from ..client.members import MemberSpec, connect_member, read_member
from ..client.remote import RemoteMind
from ..kit.wrappers import parse_keys
from ..protocol.errors import Refusal
from ..protocol.interfaces import CompetingMind, Mind
from .links import check_acknowledged, check_mind_url, check_trail, home_url, refuse_self
from .panel import Member, Panel

log = logging.getLogger("wwm.selection")

LOST_CODES = ("unknown-run", "run-ended")  # a member's server no longer has its run
HISTORY = 50  # lines of what happened to the members kept for the display page


def _number_or_none(value: Any) -> float | None:
    try:
        return float(value)
    except (TypeError, ValueError):
        return None


class Membership:
    """Who is in one AS's collection. ``members`` answer this step; ``waiting`` did not
    start a run and are tried again every ``retry`` seconds; ``returned`` have since started
    one and join at the next step; ``passive`` are minds called through a chain of Mind URLs,
    outside the competition. ``on_change`` is called when the collection changes (10.16)."""

    def __init__(self, panel: Panel, *, timeout: float, timeout_share: float, retry: float,
                 min_members: int | None, on_change: Callable[[], Awaitable[None]]) -> None:
        self.panel = panel
        self.timeout = timeout
        self.timeout_share = timeout_share
        self.retry = retry
        self.min_members = min_members
        self.on_change = on_change
        self.members: list[Member] = []
        self.waiting: list[Member] = []   # minds that did not start a run; tried again every `retry` s
        self.returned: list[Member] = []  # minds that have since started one, admitted at the next step
        self.passive: dict[str, Member] = {}
        self.failure_codes: dict[str, str] = {}  # why each mind last failed to start, as a refusal code
        self.strength_of: dict[int, float] = {}  # by member, not by position: a late mind keeps its strength
        self.history: list[str] = []      # what happened to the members during the run, newest last
        self.lost: dict[str, str] = {}    # members out of the society because their run was lost: url -> text
        self.client_url: str | None = None
        self.world_display_url: str | None = None
        self.resumed = False              # restored from a server's snapshot: check the members' runs
        self._retry_task: asyncio.Task[None] | None = None
        self._last_try = 0.0
        self._next_ident = 0

    def __getstate__(self) -> dict[str, Any]:  # (a server's snapshot: no live task)
        return {**self.__dict__, "_retry_task": None}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self.resumed = True  # its members' servers may have lost their runs meanwhile

    @property
    def everyone(self) -> list[Member]:
        """Every member, started or not, in the order they were made."""
        return sorted(self.members + self.waiting + self.returned, key=lambda m: m.ident)

    def note(self, text: str) -> None:
        self.history = [*self.history[-(HISTORY - 1):], text]

    # ---- making and starting members ------------------------------------------------------
    def make(self, entry: str | Mapping[str, Any] | Mind, view: str = "*", where: str = "minds") -> Member:
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

    def offer(self, m: Member, card: Mapping[str, Any]) -> None:
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

    async def start(self, members: list[Member]) -> list[tuple[Member, str]]:
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
            self.offer(m, card)
            await m.mind.new_run(self.client_url, world_display_url=self.world_display_url)
            home = home_url()
            if home is not None:  # served: the mind must now list this server as calling it
                try:
                    check_acknowledged(m.url, await fetch_card(described), home)
                except Refusal:
                    await self.close([m])
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

    async def close(self, members: list[Member], score: float | None = None) -> None:
        """End run on each (ignoring failures), and close the connections this AS opened."""
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

    async def close_unstarted(self, members: list[Member]) -> None:
        for m in members:
            closer = getattr(m.mind, "aclose", None) if m.owned else None
            if closer is not None:
                await closer()

    async def send_strength(self, m: Member) -> None:
        """Its strength, if one was given for it (10.10)."""
        s = self.strength_of.get(m.ident)
        if s is None:
            return
        try:
            await asyncio.wait_for(m.competing_mind.change_strength(s), self.timeout)
        except Exception as exc:  # (not a cancellation of this New run: that goes on up)
            why = exc.text if isinstance(exc, Refusal) else (str(exc) or "no answer within the time-out")
            raise Refusal("bad-parameters", f"{m.url} did not take strength {s:g}: {why}") from None

    # ---- a run --------------------------------------------------------------------------
    async def open(self) -> None:
        """New run on every member; under ``min_members`` the run starts with those that
        answer (at least that many) and the others wait; otherwise every one must start."""
        everyone = self.everyone
        self.members, self.waiting, self.returned = everyone, [], []
        self.history, self.lost, self.resumed = [], {}, False
        failed = dict(await self.start(everyone))
        started = [m for m in everyone if m not in failed]
        why = "; ".join(f"minds[{everyone.index(m)}] {m.url}: {text}" for m, text in failed.items())
        if failed and self.min_members is None:
            await self.close(started)
            trail = all(self.failure_codes.get(m.url) == "credit-trail-failed" for m in failed)
            raise Refusal("credit-trail-failed" if trail else "mind-url-invalid", why)
        if failed and len(started) < (self.min_members or 0):
            await self.close(started)
            raise Refusal("too-few-minds", f"{len(started)} of {len(everyone)} minds started a run and "
                          f"min_members is {self.min_members}: {why}")
        if failed:
            log.warning("starting with %d of %d minds (min_members %s); trying again every %gs: %s",
                        len(started), len(everyone), self.min_members, self.retry, why)
        self.members, self.waiting = started, list(failed)
        self._last_try = time.monotonic()
        for m in started:
            await self.send_strength(m)

    async def end(self, score: float | None) -> None:
        if self._retry_task is not None:
            self._retry_task.cancel()
        await self.close(self.members + self.returned + list(self.passive.values()), score)
        await self.close_unstarted(self.waiting)
        self.passive.clear()

    async def add(self, member: Member) -> None:
        """A mind added mid-run (10.16): started, or refused naming why."""
        failed = await self.start([member])
        if failed:
            await self.close([member])
            code = "credit-trail-failed" if self.failure_codes.get(member.url) == "credit-trail-failed" \
                else "mind-url-invalid"
            raise Refusal(code, f"{member.url} did not start a run: {failed[0][1]}")
        await self.on_change()
        self.members.append(member)

    async def remove(self, mind_url: str) -> None:
        url = mind_url.strip()
        gone = [m for m in self.members if m.url == url]
        unstarted = [m for m in self.waiting + self.returned if m.url == url]
        self.waiting = [m for m in self.waiting if m.url != url]
        self.returned = [m for m in self.returned if m.url != url]
        self.lost.pop(url, None)
        await self.close_unstarted(unstarted)
        if unstarted and not gone:
            return  # it had not started: the collection the others know is unchanged
        if not gone:
            have = ", ".join(m.url for m in self.members) or "no minds"
            raise Refusal("bad-parameters", f"{url} is not in this collection (it has: {have})")
        self.members = [m for m in self.members if m.url != url]
        for m in gone:
            self.panel.background(self.close([m]))
        await self.on_change()

    async def callee(self, url: str) -> Member | None:
        """The member or passive mind at ``url`` (a passive one started on first call)."""
        for m in self.members:
            if m.url == url:
                return m
        if url in self.passive:
            return self.passive[url]
        try:
            member = self.make(url)
        except (Refusal, ValueError):
            return None
        if await self.start([member]):
            return None
        self.passive[url] = member  # a passive mind, outside the competition (10.17.2)
        return member

    # ---- before each step: members that come back, and members that lost their run -------
    async def before_step(self, step: int) -> list[str]:
        """Admit the minds that came back, reopen the runs members lost, retry the waiting;
        the texts of members lost this step that could not be reopened (``degraded: ...``)."""
        await self._admit_returned(step)
        if self.resumed:
            await self._check_resumed()
        degraded = await self._reopen_lost(step)
        self._try_waiting()
        return degraded

    async def _check_resumed(self) -> None:
        """Restored from a snapshot: ask each member whether it still has its run (No
        operation); one that forgot it, or whose server cannot be reached, is lost."""
        self.resumed = False

        async def probe(m: Member) -> None:
            try:
                await asyncio.wait_for(m.mind.no_operation(), self.timeout)
            except Refusal as refusal:
                if refusal.code in (*LOST_CODES, "unreachable"):
                    m.lost_run = True
                    m.last_error = refusal.text
            except Exception:  # slow, or failing: not known to be lost
                pass

        await asyncio.gather(*(probe(m) for m in self.members))

    async def _reopen_lost(self, step: int) -> list[str]:
        """A member whose server no longer knows its run (``unknown-run``: restarted without
        it) gets a new one at once, with the same arguments (its server keeps what it learnt
        with this AS's client, 7.3). One that cannot be given one leaves the collection and
        waits with the others to be started again, and the society is degraded, said in the
        answer of this step and on the display page; the others are told (10.16)."""
        lost = [m for m in self.members if m.lost_run]
        if not lost:
            return []
        for m in lost:
            m.lost_run = False
        failed = dict(await self.start(lost))
        for m in lost:
            if m in failed:
                continue
            try:
                await self.send_strength(m)
            except Refusal as refusal:
                failed[m] = refusal.text
                continue
            self.note(f"step {step}: {m.url} had lost its run; a new run was opened with it")
            log.info("%s had lost its run: a new one was opened at step %d", m.url, step)
        if not failed:
            return []
        texts = []
        for m, why in failed.items():
            text = f"degraded: member {m.url} lost at step {step} ({why})"
            self.lost[m.url] = text
            self.note(text)
            texts.append(text)
            log.warning("%s", text)
        self.members = [m for m in self.members if m not in failed]
        self.waiting.extend(failed)
        await self.on_change()
        return texts

    def _try_waiting(self) -> None:
        """Every ``retry`` seconds, in the background, New run on the minds still waiting."""
        if not self.waiting or (self._retry_task is not None and not self._retry_task.done()):
            return
        if time.monotonic() - self._last_try < self.retry:
            return
        self._last_try = time.monotonic()
        self._retry_task = asyncio.ensure_future(self._retry_waiting(list(self.waiting)))

    async def _retry_waiting(self, waiting: list[Member]) -> None:
        failed = dict(await self.start(waiting))
        for m in waiting:
            if m not in failed and m in self.waiting:
                self.waiting.remove(m)
                self.returned.append(m)

    async def _admit_returned(self, step: int) -> None:
        """Minds that started late join the collection; the others are told it changed (10.16)."""
        if not self.returned:
            return
        back, self.returned = self.returned, []
        for m in back:
            try:
                await self.send_strength(m)
            except Refusal as refusal:
                log.warning("%s started late but is left out: %s", m.url, refusal.text)
                await self.close([m])
                continue
            log.info("%s answers again: admitted to the collection", m.url)
            if self.lost.pop(m.url, None) is not None:
                self.note(f"step {step}: {m.url} is back with a new run")
            await self.on_change()
            self.members.append(m)


__all__ = ["LOST_CODES", "Membership"]
