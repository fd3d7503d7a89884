"""The minds of an AS server and how it asks them: every round of queries goes to all the
minds at once and is decided on whatever came back within the time-out (section 8.3.1);
a mind that is slow, down or gone is simply left out of that round (broken links, 6.5).
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable, Hashable, Mapping
from dataclasses import dataclass, field
from functools import partial
from typing import Any, Protocol, TypeVar, cast

from ..kit.wrappers import project
from ..protocol.errors import Refusal
from ..protocol.interfaces import CompetingMind, Mind
from ..protocol.results import Suggestion, Values

log = logging.getLogger("wwm.selection")

K = TypeVar("K", bound=Hashable)
T = TypeVar("T")


class MindI(Protocol):
    """The Mind_i queries (section 9.2.2) an AS asks a member not known to be a plain Mind: a
    local CompetingMind, a RemoteMind (whose server may refuse them: unsupported-query), or
    any mind with these methods. A plain local Mind has none of them, and the AttributeError
    of asking marks it plain."""

    async def get_suggestion(self, state: str, **step: Any) -> Suggestion: ...

    async def get_values(self, state: str, action: str, **step: Any) -> Values: ...

    async def inform_winner(self, state: str, obeyed: bool | None = None, payment: float | None = None,
                            winner_url: str | None = None, action: str | None = None,
                            score: float | None = None) -> Values: ...

    async def change_strength(self, strength: float) -> None: ...

    async def reset_w_temperature(self, run_length: float | None = None) -> None: ...


@dataclass(eq=False)
class Member:
    """One mind in the collection. ``url`` names it (for a local object, a ``local:`` name);
    ``view`` is the sub-space of x it is shown (None: all of x, 10.11.3)."""

    ident: int
    url: str
    mind: Mind
    view: tuple[str, ...] | None = None
    competing: bool | None = None  # answers the Mind_i queries? None: not known yet
    owned: bool = False            # opened from a URL by this server (so closed by it)
    args: dict[str, Any] = field(default_factory=dict)  # its New run's, as written for it
    answers: int = 0
    misses: int = 0
    last_error: str | None = None
    lost_run: bool = False         # its server no longer knows its run (restarted without it)
    last_seen: float = field(default_factory=time.monotonic)

    def see(self, state: str) -> str:
        return project(state, self.view) if self.view else state

    @property
    def competing_mind(self) -> MindI:
        """The mind, to be asked the Mind_i queries (see :class:`MindI`)."""
        return cast(MindI, self.mind)

    # A server restarted from its snapshot file resumes an AS's run (section 8.2.2): a remote
    # mind is saved as its URL and run ID, and reconnected, not as a live connection.
    def __getstate__(self) -> dict[str, Any]:
        state = dict(self.__dict__)
        run_id = getattr(self.mind, "run_id", None)
        transport = getattr(self.mind, "transport", None)
        if self.owned and transport is not None:
            state["mind"] = ("remote", self.url, run_id, getattr(self.mind, "client_url", None),
                             getattr(transport, "timeout", None))
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        mind = state.get("mind")
        if isinstance(mind, tuple) and mind and mind[0] == "remote":
            from ..client.members import MemberMind

            _, url, run_id, client_url, timeout = mind
            remote = MemberMind(url, timeout=timeout, client_url=client_url)
            remote.run_id = run_id
            state["mind"] = remote
        self.__dict__.update(state)

    def __repr__(self) -> str:
        return f"Member({self.ident}, {self.url!r})"


class Panel:
    """Parallel queries to members with one time-out per round."""

    def __getstate__(self) -> dict[str, Any]:
        return {**self.__dict__, "_background": set(), "step": {}}

    def __init__(self, timeout: float) -> None:
        if timeout <= 0:
            raise ValueError("timeout must be positive")
        self.timeout = timeout
        self.queries = 0            # queries sent (for the counts of 10.6)
        self.step: dict[str, Any] = {}  # this step's own arguments (e.g. Q-temperature), passed on
        self._background: set[asyncio.Task[None]] = set()

    async def gather(self, jobs: Mapping[K, Callable[[], Awaitable[T]]],
                     members: dict[K, Member] | None = None,
                     timeout: float | None = None) -> dict[K, T]:
        """Run every job at once; return the results that came back in time. Late and
        failed jobs are cancelled and left out; their members are marked as missing."""
        if not jobs:
            return {}
        tasks = {asyncio.ensure_future(job()): key for key, job in jobs.items()}
        self.queries += len(tasks)
        try:
            done, pending = await asyncio.wait(tasks, timeout=self.timeout if timeout is None else timeout)
        except asyncio.CancelledError:  # the run is cancelled (Ctrl-C): leave no query behind
            for task in tasks:
                task.cancel()
            raise
        for task in pending:
            task.cancel()
        out: dict[K, T] = {}
        now = time.monotonic()
        for task, key in tasks.items():
            member = members.get(key) if members else None
            if task in done and not task.cancelled() and task.exception() is None:
                out[key] = task.result()
                if member is not None:
                    member.answers += 1
                    member.last_seen = now
                    member.last_error = None
            elif member is not None:
                member.misses += 1
                if task in pending:
                    member.last_error = "no answer within the time-out"
                elif not task.cancelled():
                    exc = task.exception()
                    member.last_error = exc.text if isinstance(exc, Refusal) else f"{type(exc).__name__}: {exc}"
                    member.lost_run = isinstance(exc, Refusal) and exc.code in ("unknown-run", "run-ended")
        return out

    def background(self, job: Awaitable[Any], timeout: float | None = None) -> None:
        """Send a query without waiting for it (to a mind that did not answer this step)."""
        async def run() -> None:
            try:
                await asyncio.wait_for(job, self.timeout if timeout is None else timeout)
            except (Exception, asyncio.CancelledError):
                pass

        task = asyncio.ensure_future(run())
        self._background.add(task)
        task.add_done_callback(self._background.discard)

    # ---- the queries an AS sends ----------------------------------------------------------
    async def suggest(self, member: Member, state: str) -> Suggestion:
        """"Get suggested action with values", or "Get action" for a plain Mind."""
        x = member.see(state)
        if member.competing is None and isinstance(member.mind, CompetingMind):
            member.competing = True
        if member.competing is not False:
            try:
                return await member.competing_mind.get_suggestion(x, **self.step)
            except Refusal as refusal:
                if refusal.code != "unsupported-query":
                    raise
                member.competing = False
            except AttributeError:
                member.competing = False
        return await member.mind.get_action(x, **self.step)

    async def suggestions(self, members: list[Member], state: str) -> dict[Member, Suggestion]:
        jobs = {m: partial(self.suggest, m, state) for m in members}
        got = await self.gather(jobs, {m: m for m in members})
        return {m: s for m, s in got.items() if s.can_suggest}

    async def values(self, pairs: list[tuple[Member, str]], state: str) -> dict[tuple[Member, str], Values]:
        async def ask(member: Member, action: str) -> Values:
            if member.competing is False:
                raise Refusal("unsupported-query", "a plain Mind cannot value an action")
            return await member.competing_mind.get_values(member.see(state), action, **self.step)

        jobs = {(m, a): partial(ask, m, a) for m, a in pairs}
        return await self.gather(jobs, {(m, a): m for m, a in pairs})

    async def action(self, member: Member, state: str) -> Suggestion | None:
        got = await self.gather({member: lambda: member.mind.get_action(member.see(state), **self.step)},
                                {member: member})
        return got.get(member)
