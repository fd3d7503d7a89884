"""The client algorithm of section 8.2: drive one top-level Mind in one World.

New run on both; then repeat: get state x from the World, get action a from the Mind, execute
a in the World (new state y, score), inform the Mind of y; until the step limit or the World
ends the run; then End run on both.

Time is the client's (8.2.2). Every query has a time-out. When the Mind does not answer in
time the client either
- ``requery``: aborts the request, asks the World again for the current state, and asks the
  Mind again; or
- ``ignore-late``: waits for the Mind's late reply (so it knows the Mind is back), ignores
  it, asks the World again, and asks the Mind again.
A World that is down is waited out (the run is not ended). When it answers again, an Execute
action whose answer was lost is sent again with its sequence number, where the World keeps
them (:mod:`wwm.protocol.sequence`): done once either way, recorded once, its step noted as
recovered; a World that keeps none cannot say whether it executed it, so the Mind is asked
afresh with the World's state then, instead of the old action being executed blindly.

A server that is *down* (``unreachable``) or *late* (``timeout``) is not the same as one that
*answers* with ``server-error``: that server is up and says it failed (a Mind whose
``get_action`` raised, a program that printed garbage), and waiting does not mend it. So a
Mind that answers Get action with ``server-error`` is asked again at once (the World first, as
after a time-out: the state may have moved on), without a pause, and after ``mind_errors``
such answers in a row (default 3) the run ends as "mind failed", the server's own text as the
reason. Not at the first: a stochastic mind that fails once in a while, or a Mind_M whose
inner mind hiccupped, should not cost the run; a mind that fails every time is still
reported within milliseconds, not after ``mind_wait``. Every failure is an event the moment
it happens (``on_event``), with the server's text. A World that answers with a refusal other
than down or late ends the run at once ("world lost"): after a failed Execute action nobody
knows whether the action was done, so it is not sent again.
"No operation" keeps idle servers from expiring the run while the client waits.
The same code drives local objects and remote servers: it only sees the interfaces.

**Suspending and resuming** (a client that stops and starts again, such as the portal): the
run's state is the servers', under the run IDs they gave at New run; the client holds only
those and the step count. :meth:`Runner.suspend` stops the loop at the next step boundary
(a step recorded, nothing sent for the next) *without* End run, status "suspended": the
servers keep the run (until their idle time-out). ``Runner(..., first_step=k + 1)`` over remote
objects that already carry those run IDs sends no New run and carries the loop on from step
k + 1, Get state first; ``settings.steps`` is still the whole run's. A run suspended before
its first step is resumed with ``attached=True`` (and ``first_step=0``): no New run either.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, Literal, Protocol, TypeVar, runtime_checkable

from ..protocol.errors import Refusal
from ..protocol.interfaces import Mind, World
from ..protocol.queries import is_absolute_url
from ..protocol.records import Event as Event  # (the run records' home is protocol.records;
from ..protocol.records import Recorder as Recorder  # their old names here still import)
from ..protocol.records import RunResult as RunResult
from ..protocol.records import Step as Step
from ..protocol.results import Outcome, Suggestion
from .backoff import Backoff
from .identity import default_client_url as default_client_url  # (its old home: kept importable)
from .timeouts import offer_timeout

T = TypeVar("T")
Policy = Literal["requery", "ignore-late"]
_LATE = Refusal("timeout", "the Get action sent with Inform was not answered in time")
RETRY_CAP = 2.0  # seconds: the longest pause between two tries of a server that is down
_YIELD_EVERY = 0.02  # seconds of steps between two yields to the event loop


@dataclass(frozen=True)
class RunSettings:
    steps: int | None = 100              # None: until the World ends the run
    timeout: float = 5.0                 # seconds allowed for one query
    policy: Policy = "requery"
    keepalive: float | None = 10.0       # send "No operation" to a server idle this long
    world_wait: float = 120.0            # how long to wait out a World that is down
    mind_wait: float = 30.0              # how long a Mind may stay silent before the run ends
    mind_errors: int = 3                 # server-error answers to Get action in a row that end the run
    start_wait: float = 10.0             # before the run: how long to wait for a server not yet listening
    retry_pause: float = 0.2             # first pause between retries (doubles, at most RETRY_CAP)
    inform: bool = True                  # send "Inform it about state" after each action
    pipeline: bool = True                # Inform and the next Get action in one round trip, where ordered
    client_url: str | None = None

    def as_dict(self) -> dict[str, Any]:
        return {k: getattr(self, k) for k in self.__dataclass_fields__}


@runtime_checkable
class OrderedMind(Protocol):
    """A mind that takes several queries back to back and answers them in order (a remote
    one, :class:`~wwm.client.remote.RemoteMind`); ``pipelines`` says whether that saves round
    trips on its binding."""

    @property
    def pipelines(self) -> bool: ...

    async def query_in_order(self, *calls: tuple[str, dict[str, Any]],
                             within: float | None = None) -> list[Any]: ...


class _Lost(Exception):
    def __init__(self, status: str, text: str) -> None:
        super().__init__(text)
        self.status = status


class Runner:
    """One run of ``mind`` in ``world`` (local objects or remote servers)."""

    def __init__(self, mind: Mind, world: World, settings: RunSettings | None = None,
                 recorder: Recorder | None = None,
                 on_step: Callable[[Step, RunResult], None] | None = None,
                 on_event: Callable[[Event, RunResult], None] | None = None,
                 first_step: int = 0, attached: bool | None = None) -> None:
        self.mind = mind
        self._ordered = mind if isinstance(mind, OrderedMind) else None
        self.world = world
        self.settings = settings or RunSettings()
        self.recorder = recorder
        self.on_step = on_step
        self.on_event = on_event  # told of each event as it happens (a time-out, a mind's error)
        self.result = RunResult(status="running")
        self._last_query = {id(mind): time.monotonic(), id(world): time.monotonic()}
        self._late: asyncio.Task[Suggestion] | None = None
        self._mind_silent_since: float | None = None
        self._mind_last_failure = ""  # what the last failed Get action came to (for "mind lost")
        self._mind_errors = 0         # server-error answers to Get action in a row
        self._pipelining_failed = False
        self._world_down_since: float | None = None  # when the World's queries began to fail
        self.first_step = first_step  # the index of the first step this runner drives
        # the servers' runs exist (resuming): no New run; by default, when starting past step 0
        self.attached = first_step > 0 if attached is None else attached
        self._suspend = False          # suspend() asked: stop at the next step boundary
        self._stop = False             # stop() asked: end the run at the next step boundary
        self.detached = False          # no End run at the end: the servers keep the run
        self.at_boundary = True        # False from an Execute action until its step is recorded

    # ---- the loop -------------------------------------------------------------------------
    async def run(self) -> RunResult:
        s = self.settings
        started = time.monotonic()
        if self.attached:  # resumed: the servers' runs exist; the recorder knows the run
            self.result.world_display_url = getattr(self.world, "display_url", None)
            self.result.mind_display_url = getattr(self.mind, "display_url", None)
        else:
            world_run = await self._query(self.world, self.world.new_run(s.client_url), "New run")
            self.result.world_display_url = getattr(world_run, "display_url", None)
            # the mind is told the client's time-out, so it decides within it (9.2 New run)
            await offer_timeout(self.mind, s.timeout)
            # (a display URL the world gave that is not an http(s)/ws URL is not passed on: the
            # mind would refuse the run with world-display-url-invalid for the world's doing)
            shown = self.result.world_display_url
            mind_run = await self._query(self.mind, self.mind.new_run(
                s.client_url, world_display_url=shown if shown and is_absolute_url(shown) else None), "New run")
            self.result.mind_display_url = getattr(mind_run, "display_url", None)
            if self.recorder:
                self.recorder.on_start(self.result)
        keepalive = asyncio.create_task(self._keepalive()) if s.keepalive else None
        try:
            await self._loop()
            if self.result.status == "running":
                self.result.status = "completed"
        except _Lost as lost:
            self.result.status = lost.status
            self._event("run-ended", str(lost))
        except asyncio.CancelledError:
            self.result.status = "interrupted"
            raise
        finally:
            if keepalive:
                keepalive.cancel()
            if self._late is not None:
                self._late.cancel()
            if not self.detached:
                await self._end()
            self.result.seconds = time.monotonic() - started
            if self.recorder:
                self.recorder.on_finish(self.result)
        return self.result

    async def _loop(self) -> None:
        s = self.settings
        index = self.first_step
        t0 = time.perf_counter()
        x = await self._world(self.world.get_state, "Get state")
        t_state = time.perf_counter() - t0
        asked: Suggestion | Refusal | None = None  # the Mind's answer, got with the last Inform
        yielded = t0
        while s.steps is None or index < s.steps:
            if self._suspend:  # a step boundary: step index-1 recorded, nothing sent for index
                self.result.status = "suspended"
                return
            if self._stop:
                self.result.status = "stopped"
                return
            t1 = time.perf_counter()
            if t1 - yielded > _YIELD_EVERY:
                # Local minds and worlds answer without ever suspending, so without this the
                # loop would not run (Ctrl-C, keep-alives, other runs) until the run ended.
                await asyncio.sleep(0)
                yielded = t1
            suggestion = await self._ask_mind(x, index, asked)
            asked = None
            t2 = time.perf_counter()
            if suggestion is None:  # the Mind did not answer: the World again, then the Mind
                x = await self._world(self.world.get_state, "Get state")
                continue
            if not suggestion.can_suggest or suggestion.action is None:
                # "Cannot suggest action" is not "Do nothing": nothing is executed this step.
                step = Step(index, x, None, x, None, None, t_state, t2 - t1, 0.0, 0.0,
                            note=suggestion.reason or "cannot suggest action")
                self._record(step)
                index += 1
                x = await self._world(self.world.get_state, "Get state")
                continue
            self.at_boundary = False  # Execute action under way: done or not, it is not recorded yet
            executed = await self._execute(suggestion.action, index)
            t3 = time.perf_counter()
            if executed is None:  # the World was down; it is back: ask the Mind afresh
                x = await self._world(self.world.get_state, "Get state")
                continue
            outcome, note = executed
            q = None
            if s.inform:
                more = not outcome.finished and (s.steps is None or index + 1 < s.steps)
                if more and self._pipelines:
                    q, asked = await self._inform_and_ask(outcome, index)
                else:
                    q = await self._inform(outcome, index)
            t4 = time.perf_counter()
            self._record(Step(index, x, suggestion.action, outcome.state, outcome.score, q,
                              t_state, t2 - t1, t3 - t2, t4 - t3, note=note))
            index += 1
            x, t_state = outcome.state, 0.0
            if outcome.finished:
                self.result.status = "ended by world"
                return

    def stop(self) -> None:
        """End the run at the next step boundary, with End run as usual (status "stopped"):
        for a caller that has seen enough, such as a search pruning a poor candidate."""
        self._stop = True

    def suspend(self) -> None:
        """Stop at the next step boundary without End run (status "suspended"): the servers
        keep the run under their run IDs, to be resumed with ``first_step``. A caller that
        cannot wait for the boundary may cancel the run after this; End run is not sent
        then either, and ``at_boundary`` says whether a step was under way."""
        self._suspend = True
        self.detached = True

    def _record(self, step: Step) -> None:
        self.at_boundary = True
        self.result.steps.append(step)
        self.result.total_score += step.score or 0.0
        if self.recorder:
            self.recorder.on_step(step)
        if self.on_step:
            self.on_step(step, self.result)

    # ---- the Mind -------------------------------------------------------------------------
    async def _ask_mind(self, x: str, index: int, asked: Suggestion | Refusal | None = None) -> Suggestion | None:
        """The Mind's suggestion, or None after a time-out handled by the policy. ``asked`` is
        its answer to a Get action already sent with the last Inform (pipelined), if any: it
        stands for the first try."""
        s = self.settings
        if asked is _LATE:  # pipelining was turned off by its time-out: the World again first
            return None
        if self._mind_silent_since is None:
            self._mind_silent_since = time.monotonic()
        silent_since = self._mind_silent_since
        backoff = Backoff(s.retry_pause, RETRY_CAP)
        while True:
            if time.monotonic() - silent_since > s.mind_wait:
                raise _Lost("mind lost", self._mind_lost())
            if self._late is not None:  # ignore-late: first wait for the late reply
                await self._await_late(index, silent_since)
            self._touch(self.mind)
            # Only the ignore-late policy needs the request to outlive its time-out (a task);
            # requery simply abandons it, which a timeout scope does without a task per query.
            task = None
            request: Awaitable[Suggestion]
            if asked is not None:
                request, asked = _given(asked), None
            elif s.policy == "ignore-late":
                request = asyncio.shield(task := asyncio.ensure_future(self.mind.get_action(x)))
            else:
                request = self.mind.get_action(x)
            try:
                async with asyncio.timeout(s.timeout):
                    suggestion = await request
                self._mind_silent_since = None
                self._mind_errors = 0
                return suggestion
            except TimeoutError:
                self._mind_last_failure = f"no answer to Get action within the {s.timeout:g} s time-out"
                self._event("timeout", _timed_out("the mind", "Get action", s.timeout), index)
                if task is None:
                    self._event("abort-requery", "request aborted; asking the world again, then the mind", index)
                else:
                    self._late = task
                return None
            except Refusal as refusal:
                if task is not None:
                    task.cancel()
                if refusal.code == "server-error":  # up, but failing: see the module's docstring
                    self._mind_error(refusal, index)
                    return None
                if refusal.code not in ("unreachable", "timeout"):
                    raise _Lost("mind lost", f"the mind refused Get action: {refusal}") from None
                self._mind_last_failure = f"Get action: {refusal}"
                self._event("mind-down", f"Get action: {refusal}", index)
                await backoff.sleep()
            except Exception as exc:  # a local Mind's own error: what a server answers server-error for
                if task is not None:
                    task.cancel()
                self._mind_error(Refusal("server-error", _failed(self.mind, "get_action", exc)), index)
                return None

    def _mind_error(self, refusal: Refusal, index: int) -> None:
        """The Mind answered Get action with ``server-error``: an event now; the run ends as
        "mind failed" at the ``mind_errors``-th such answer with no good one between."""
        self._mind_silent_since = None  # it answered: it is up, not silent
        self._mind_errors += 1
        n, limit = self._mind_errors, max(1, self.settings.mind_errors)
        self._mind_last_failure = f"Get action: {refusal}"
        self._event("mind-error", f"Get action: {refusal}" + (
            f" (the run ends after {limit} in a row: mind_errors)" if n < limit else ""), index)
        if n >= limit:
            times = f" {n} times in a row" if n > 1 else ""
            raise _Lost("mind failed", f"the mind failed{times} answering Get action: {refusal}")

    def _mind_lost(self) -> str:
        s = self.settings
        last = f"; last: {self._mind_last_failure}" if self._mind_last_failure else ""
        return (f"the mind has not answered for {s.mind_wait:g} s (how long a mind that is down or late "
                f"is waited for: mind_wait, run: {{mind_wait: ...}} in a society document){last}")

    async def _await_late(self, index: int, silent_since: float) -> None:
        late, self._late = self._late, None
        assert late is not None
        remaining = max(0.0, self.settings.mind_wait - (time.monotonic() - silent_since))
        try:
            async with asyncio.timeout(remaining or 0.001):
                await late
            self._event("late-reply-ignored", "the mind answered late; its reply is ignored", index)
        except TimeoutError:
            raise _Lost("mind lost", self._mind_lost()) from None
        except Refusal as refusal:
            self._event("mind-error" if refusal.code == "server-error" else "mind-down",
                        f"Get action (late): {refusal}", index)

    async def _inform(self, outcome: Outcome, index: int) -> float | None:
        self._touch(self.mind)
        try:
            async with asyncio.timeout(self.settings.timeout):
                return await self.mind.inform(outcome.state, outcome.score)
        except TimeoutError:
            self._event("timeout", _timed_out("the mind", "Inform it about state", self.settings.timeout), index)
        except Refusal as refusal:
            self._event("inform-failed", str(refusal), index)
        return None

    @property
    def _pipelines(self) -> bool:
        """Whether Inform and the next Get action go to the Mind back to back, one round trip
        for both (section 8.4 leaves the client's algorithm free): only over an ordered binding,
        so the Mind still hears of y before it is asked about y, and only under the requery
        policy (ignore-late needs each Get action to outlive its time-out on its own)."""
        s = self.settings
        return (s.pipeline and not self._pipelining_failed and s.policy == "requery"
                and self._ordered is not None and self._ordered.pipelines)

    async def _inform_and_ask(self, outcome: Outcome, index: int) -> tuple[float | None, Suggestion | Refusal | None]:
        """Inform the Mind of y and ask its action for y in one round trip. Returns what
        Inform gave and the Get action answer (a Suggestion, a Refusal for :meth:`_ask_mind`
        to handle as its first try, ``_LATE`` to ask the World again first, or None to ask
        again).

        A server that answers the first of two queries sent together but not the second (a
        program that reads one request per read, or closes after each answer) has pipelining
        turned off for the rest of the run, with an event saying so."""
        assert self._ordered is not None  # (asked only when it pipelines)
        self._touch(self.mind)
        try:
            # Each answer is allowed the run's time-out (the transport times them out one by
            # one, so an answered Inform is kept when the Get action behind it is late).
            informed, asked = await self._ordered.query_in_order(
                ("inform", {"state": outcome.state, "score": outcome.score}),
                ("get_action", {"state": outcome.state}), within=self.settings.timeout)
        except Refusal as refusal:
            self._event("inform-failed", str(refusal), index)
            return None, None
        if isinstance(informed, Refusal):
            self._event("timeout" if informed.code == "timeout" else "inform-failed",
                        _timed_out("the mind", "Inform it about state", self.settings.timeout)
                        if informed.code == "timeout" else str(informed), index)
            informed = None
        elif isinstance(asked, Refusal) and asked.code in ("timeout", "unreachable"):
            self._pipelining_failed = True
            self._event("pipelining-off", f"the mind answered Inform but not the Get action sent with it "
                                          f"({asked.code}); asking one query at a time from now on", index)
            # A Get action that timed out is abandoned and the World asked again before the
            # Mind is (requery): its state may have moved on while the client waited.
            return informed, _LATE if asked.code == "timeout" else None
        return informed, asked

    # ---- the World ------------------------------------------------------------------------
    async def _execute(self, action: str, index: int) -> tuple[Outcome, str | None] | None:
        """The World's outcome of ``action``, with the note its step is recorded with (None
        but for an outcome recovered after the World was down); None when the World was down
        and nobody can tell whether it executed the action (it keeps no sequence numbers):
        then the Mind is asked afresh.

        A World that keeps sequence numbers (:mod:`wwm.protocol.sequence`) is sent the lost
        Execute action again once it is back, with its number: it answers from what it kept
        if it had executed the action (killed before its answer left, or the connection
        dropped), and executes it now if it had not. Either way the action is done once and
        recorded once, its step noted as recovered."""
        self._touch(self.world)
        try:
            async with asyncio.timeout(self.settings.timeout):
                outcome = await self.world.execute_action(action)
            self._world_down_since = None
            return outcome, None
        except (TimeoutError, Refusal) as exc:
            if isinstance(exc, Refusal) and exc.code not in ("unreachable", "timeout"):
                raise _Lost("world lost", f"the world refused Execute action: {exc}") from None
            self._event("world-down", self._world_down("Execute action", exc), index)
            return await self._recover(index)
        except Exception as exc:  # a local World's own error: what a server answers server-error for
            raise _Lost("world lost", f"the world failed on Execute action: "
                                      f"{_failed(self.world, 'execute_action', exc)}") from None

    async def _recover(self, index: int) -> tuple[Outcome, str] | None:
        """Once the World is back, the outcome of the Execute action whose answer was lost,
        sent again with its sequence number (see :meth:`_execute`); None when the World
        cannot tell."""
        while True:
            await self._wait_for_world(index)
            resend = getattr(self.world, "resend_lost", None)
            if not callable(resend) or getattr(self.world, "lost", None) != "Execute action":
                return None
            self._touch(self.world)
            try:
                async with asyncio.timeout(self.settings.timeout):
                    answer = await resend()
            except (TimeoutError, Refusal) as exc:
                if isinstance(exc, Refusal) and exc.code not in ("unreachable", "timeout"):
                    raise _Lost("world lost", f"the world refused Execute action sent again: {exc}") from None
                self._event("world-down", self._world_down("Execute action (sent again)", exc), index)
                continue
            if answer is None:
                return None
            outcome, repeated = answer
            if not isinstance(outcome, Outcome):
                raise _Lost("world lost", f"the world answered Execute action with {type(outcome).__name__}")
            self._world_down_since = None
            note = ("recovered: the world had executed the action before its answer was lost; "
                    "its kept answer" if repeated else
                    "recovered: the world had not executed the action; sent again with its sequence number")
            self._event("step-recovered", note, index)
            return outcome, note

    async def _world(self, call: Callable[[], Awaitable[T]], name: str) -> T:
        """A World query that waits out a World that is down."""
        while True:
            self._touch(self.world)
            try:
                async with asyncio.timeout(self.settings.timeout):
                    answer = await call()
                self._world_down_since = None
                return answer
            except (TimeoutError, Refusal) as exc:
                if isinstance(exc, Refusal) and exc.code not in ("unreachable", "timeout"):
                    raise _Lost("world lost", f"the world refused {name}: {exc}") from None
                self._event("world-down", self._world_down(name, exc), self._next_index)
                await self._wait_for_world(self._next_index)
            except Exception as exc:  # a local World's own error
                raise _Lost("world lost", f"the world failed on {name}: "
                                          f"{_failed(self.world, getattr(call, '__name__', name), exc)}") from None

    def _world_down(self, name: str, exc: Exception) -> str:
        s = self.settings
        what = f"{name}: {exc}" if isinstance(exc, Refusal) else _timed_out("the world", name, s.timeout)
        return f"{what}; waiting up to {s.world_wait:g} s for the world (world_wait)"

    async def _wait_for_world(self, index: int) -> None:
        """Wait until the World answers "No operation" again. ``world_wait`` counts from when
        it first failed, not from each wait: a World that answers No operation but never its
        real queries is lost in the end, not waited for forever."""
        s = self.settings
        if self._world_down_since is None:
            self._world_down_since = time.monotonic()
        deadline = self._world_down_since + s.world_wait
        backoff = Backoff(s.retry_pause, RETRY_CAP)
        while time.monotonic() < deadline:
            await backoff.sleep()
            try:
                async with asyncio.timeout(s.timeout):
                    await self.world.no_operation()
            except (TimeoutError, Refusal) as exc:
                if isinstance(exc, Refusal) and exc.code in ("unknown-run", "run-ended"):
                    raise _Lost("world lost", f"the world came back without this run: {exc}") from None
                continue
            self._event("world-back", "the world answers again", index)
            return
        raise _Lost("world lost", f"the world was down for more than {s.world_wait:g} s (how long a world that is "
                                  f"down is waited for: world_wait, run: {{world_wait: ...}} in a society document)")

    # ---- keep-alive, events, end ----------------------------------------------------------
    @property
    def _next_index(self) -> int:
        return self.first_step + len(self.result.steps)

    def _touch(self, server: Any) -> None:
        self._last_query[id(server)] = time.monotonic()

    async def _keepalive(self) -> None:
        period = self.settings.keepalive
        assert period
        while True:
            await asyncio.sleep(period / 2)
            now = time.monotonic()
            for server in (self.world, self.mind):
                if now - self._last_query[id(server)] >= period:
                    self._touch(server)
                    try:
                        async with asyncio.timeout(self.settings.timeout):
                            await server.no_operation()
                    except (TimeoutError, Refusal):
                        pass

    def _event(self, kind: str, text: str, step: int | None = None) -> None:
        event = Event(self._next_index if step is None else step, kind, text)
        self.result.events.append(event)
        if self.recorder:
            self.recorder.on_event(event)
        if self.on_event:
            self.on_event(event, self.result)

    async def _query(self, server: Any, coro: Awaitable[T], name: str) -> T:
        self._touch(server)
        try:
            async with asyncio.timeout(self.settings.timeout):
                return await coro
        except TimeoutError:
            who = "the world" if server is self.world else "the mind"
            raise Refusal("timeout", _timed_out(who, name, self.settings.timeout)) from None

    async def _end(self) -> None:
        s = self.settings
        try:
            async with asyncio.timeout(s.timeout):
                self.result.world_score = await self.world.end_run()
        except (TimeoutError, Refusal) as exc:
            self._event("end-run-failed", f"world: {str(exc) or 'no answer in time'}")
        try:
            async with asyncio.timeout(s.timeout):
                self.result.mind_score = await self.mind.end_run(self.result.world_score)
        except (TimeoutError, Refusal) as exc:
            self._event("end-run-failed", f"mind: {str(exc) or 'no answer in time'}")


def _timed_out(who: str, query: str, seconds: float) -> str:
    """A time-out's text: which query, which time-out, and where it is set."""
    return (f"{who} did not answer {query} within {seconds:g} s (the run's time-out: "
            f"--timeout on wwm run, or run: {{timeout: ...}} in a society document)")


def _failed(server: object, method: str, exc: Exception) -> str:
    """A local object's error in the words a server uses for its server-error refusal."""
    return f"{type(server).__name__}.{method} failed: {type(exc).__name__}: {exc}"


async def _given(answer: Suggestion | Refusal) -> Suggestion:
    """An answer already in hand, awaited as a fresh Get action would be: a pipelined Get
    action that timed out reads as a time-out, any other refusal is raised."""
    if isinstance(answer, Refusal):
        if answer.code == "timeout":
            raise TimeoutError
        raise answer
    return answer


async def run(mind: Mind, world: World, settings: RunSettings | None = None, **kwargs: Any) -> RunResult:
    """Run ``mind`` in ``world`` with the client algorithm of section 8.2."""
    return await Runner(mind, world, settings, **kwargs).run()
