"""Agents that talk: an async API to send, receive, wait for replies with time-outs and follow
a protocol as initiator or responder, over an in-process bus or the WWM network.

Every message an agent sends is checked by its engine first (an act it may not perform is
refused before it leaves); every message it receives is checked and, if it fits no protocol
arc, answered with ``not-understood``. A message that cannot be delivered is rolled back.
A message sent with a reply-by is watched: if its reply has not come by then, the agent's
overdue policy acts (:mod:`.overdue`: withdraw, re-attempt, escalate, or only mark).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Coroutine
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any, Protocol

from .clock import Clock, SystemClock, aware
from .engine import Engine, Talk, Verdict
from .log import ConversationLog
from .message import AID, AclError, ACLMessage, new_id
from .overdue import Mark, Overdue, Policy, Reattempt, Withdraw, check_policy, decide
from .tracker import Rejected, Tracker

POLL = 0.05   # seconds between looks at the clock while a deadline is pending (a manual clock moves by hand)

log = logging.getLogger("wwm.acl")

Handler = Callable[["Agent", ACLMessage], Awaitable[None]]


class Undeliverable(AclError):
    """A message could not be delivered; its effects were rolled back."""


class Transport(Protocol):
    async def deliver(self, message: ACLMessage, to: AID) -> None: ...

    async def close(self) -> None: ...


class LocalBus:
    """In-process delivery between agents registered by name (tests, simulations)."""

    def __init__(self) -> None:
        self.agents: dict[str, Agent] = {}

    def add(self, agent: Agent) -> Agent:
        self.agents[agent.name] = agent
        agent.transport = self
        return agent

    async def deliver(self, message: ACLMessage, to: AID) -> None:
        agent = self.agents.get(to.name)
        if agent is None:
            raise Undeliverable(f"no agent named {to.name!r} on this bus")
        await agent.deliver(message)

    async def close(self) -> None:
        return None


@dataclass(slots=True)
class Conversation:
    """How one conversation this agent initiated ended, thread by thread."""

    id: str
    outcomes: dict[str, str | None] = field(default_factory=dict)
    states: dict[str, str] = field(default_factory=dict)
    messages: list[ACLMessage] = field(default_factory=list)


class Agent:
    """One agent: a name, an address (its server's URL, if on the network), an engine with
    its commitment tracker, a mailbox, an optional responder ``handler``, and what it does
    when a reply it asked for by a deadline does not come (``on_overdue``, :mod:`.overdue`;
    :class:`~.overdue.Mark` unless given: only marked)."""

    def __init__(self, name: str, *, address: str | None = None, transport: Transport | None = None,
                 clock: Clock | None = None, handler: Handler | None = None,
                 log_path: str | None = None, services: tuple[str, ...] = (),
                 on_overdue: Policy | None = None) -> None:
        self.name = name
        self.address = address
        self.transport = transport
        self.clock = clock or SystemClock()
        self.engine = Engine(me=name, clock=self.clock)
        self.handler = handler
        self.services = services
        self.log = ConversationLog(log_path)
        self._mail: list[ACLMessage] = []
        self._arrived: asyncio.Condition | None = None
        self._tasks: set[asyncio.Task[None]] = set()
        self.on_overdue: Policy = check_policy(on_overdue or Mark())
        self._policies: dict[str, Policy] = {}                          # per conversation
        self._watches: dict[tuple[str, str], asyncio.Task[None]] = {}      # (reply-with, receiver)

    def __repr__(self) -> str:
        return f"Agent({self.name!r}, address={self.address!r})"

    @property
    def aid(self) -> AID:
        return AID(self.name, (self.address,) if self.address else ())

    @property
    def tracker(self) -> Tracker:
        return self.engine.tracker

    def _condition(self) -> asyncio.Condition:
        if self._arrived is None:
            self._arrived = asyncio.Condition()
        return self._arrived

    # ---- sending ----------------------------------------------------------------------------
    def compose(self, performative: str, to: AID | list[AID], content: str | None = None, *,
                conversation: str | None = None, protocol: str | None = None,
                reply_by_seconds: float | None = None, act: str | None = None,
                in_reply_to: str | None = None) -> ACLMessage:
        receivers = tuple(to) if isinstance(to, list) else (to,)
        reply_by = self.clock.now() + timedelta(seconds=reply_by_seconds) if reply_by_seconds else None
        msg = ACLMessage(performative, sender=self.aid, receivers=receivers, content=content,
                         protocol=protocol, conversation_id=conversation or new_id("c"),
                         reply_with=new_id("r"), in_reply_to=in_reply_to, reply_by=reply_by)
        return msg.with_user("X-act", act) if act else msg

    def on_overdue_in(self, conversation: str, policy: Policy) -> None:
        """The overdue policy for one conversation (instead of the agent's)."""
        self._policies[conversation] = check_policy(policy)

    def policy_for(self, conversation: str | None) -> Policy:
        return self._policies.get(conversation or "", self.on_overdue)

    async def send(self, msg: ACLMessage, *, on_overdue: Policy | None = None) -> list[Verdict]:
        """Check ``msg`` against this agent's engine, apply it, deliver it to every receiver.
        Raises :class:`Rejected` (nothing sent) or :class:`Undeliverable` (rolled back).
        With a reply-by, the reply is awaited under ``on_overdue`` (else the conversation's
        or the agent's policy)."""
        if msg.sender is None or msg.sender.name != self.name:
            msg = msg.with_(sender=self.aid)
        if msg.reply_with is None:
            msg = msg.with_(reply_with=new_id("r"))
        if msg.conversation_id is None:
            msg = msg.with_(conversation_id=new_id("c"))
        self.engine.check(msg)
        verdicts = self.engine.handle(msg)
        self.log.record(self.name, "sent", msg, verdicts)
        if self.transport is None:
            raise Undeliverable(f"agent {self.name} has no transport to send with")
        results = await asyncio.gather(*(self.transport.deliver(msg, to) for to in msg.receivers),
                                       return_exceptions=True)
        failures = []
        for to, result in zip(msg.receivers, results, strict=True):
            if isinstance(result, BaseException):  # a refusal, an unreachable server, no such agent
                if isinstance(result, asyncio.CancelledError):
                    raise result
                failures.append(f"{to.name}: {result}")
                lost = msg.with_(receivers=(to,))
                self.engine.retract(lost)
                self.log.record(self.name, "undelivered", lost, [])
        if failures:
            raise Undeliverable(f"{msg.performative} not delivered to " + "; ".join(failures))
        policy = check_policy(on_overdue) if on_overdue is not None else self.policy_for(msg.conversation_id)
        if msg.reply_by is not None and msg.reply_with and not isinstance(policy, Mark):
            for to in msg.receivers:
                self._watches[(msg.reply_with, to.name)] = self._spawn(self._watch(msg, to, policy))
        return verdicts

    # ---- deadlines --------------------------------------------------------------------------
    async def _watch(self, msg: ACLMessage, to: AID, policy: Policy) -> None:
        """At ``msg``'s reply-by, if ``to`` has not answered, apply ``policy``."""
        assert msg.reply_by is not None
        deadline = aware(msg.reply_by)
        period = timedelta(seconds=max(0.0, (deadline - self.clock.now()).total_seconds()))
        try:
            await self._until(deadline)
            await self._apply(msg, to, policy, period)
        finally:
            if self._watches.get((msg.reply_with or "", to.name)) is asyncio.current_task():
                del self._watches[(msg.reply_with or "", to.name)]
        await self._wake()

    async def _apply(self, msg: ACLMessage, to: AID, policy: Policy, period: timedelta) -> None:
        attempts = 0
        current: Policy | None = policy
        while current is not None:
            late = self.tracker.pending(msg.reply_with, to.name)
            if not late:
                return   # answered in time, or the conversation ended otherwise
            step = await decide(current, Overdue(self.name, msg, to, late, attempts))
            if step is None or isinstance(step, Mark):
                log.info("%s: %s's reply to %s is overdue; left open", self.name, to.name, msg.performative)
                break
            if isinstance(step, Withdraw):
                await self.withdraw(msg, to)
                break
            if isinstance(step, Reattempt) and attempts >= step.times:
                current = step.then
                continue
            deadline = self.clock.now() + period
            self.tracker.renew(late, deadline)
            if isinstance(step, Reattempt):
                attempts += 1
                await self._resend(msg, to)
            # (an Escalate hook that answers Escalate is asked again after another period)
            current = step
            await self._until(deadline)

    async def _until(self, deadline: datetime) -> None:
        while (left := (deadline - self.clock.now()).total_seconds()) > 0:
            await asyncio.sleep(min(left, POLL))

    async def _resend(self, msg: ACLMessage, to: AID) -> None:
        """Def 3's re-attempt: the same message again (same reply-with: taken once)."""
        self.log.record(self.name, "sent", msg.with_(receivers=(to,)), [])
        try:
            if self.transport is None:
                raise Undeliverable(f"agent {self.name} has no transport to send with")
            await self.transport.deliver(msg, to)
        except Exception as exc:   # the re-attempt failed too: the next deadline decides
            log.info("%s could not re-send %s to %s: %s", self.name, msg.performative, to.name, exc)

    async def withdraw(self, msg: ACLMessage, to: AID) -> ACLMessage | None:
        """Withdraw from the conversation ``msg`` belongs to, as its protocol allows this agent
        now (cancel: the paper's A:Withdraw, or the withdrawal of an offer); None if no
        withdrawal is open (the conversation is over) or it could not be delivered."""
        conversation = msg.conversation_id or ""
        talk = self.talk(conversation, to.name)
        if talk is None or talk.final:
            return None
        arc = next((a for a in self.engine.moves(conversation, self.name, to.name)
                    if a.act in ("withdraw", "withdraw-offer")), None)
        if arc is None:
            log.info("%s: no withdrawal open in state %s of %s", self.name, talk.state, talk.protocol.name)
            return None
        cancel = self.compose(arc.performative, to, conversation=conversation, protocol=talk.protocol.name,
                              in_reply_to=msg.reply_with, act=arc.act)
        try:
            await self.send(cancel)
        except (Undeliverable, Rejected) as exc:
            log.info("%s could not withdraw from %s: %s", self.name, to.name, exc)
            return None
        await self._wake()
        return cancel

    async def _wake(self) -> None:
        cond = self._condition()
        async with cond:
            cond.notify_all()

    async def reply(self, to: ACLMessage, performative: str, content: str | None = None, *,
                    act: str | None = None, reply_by_seconds: float | None = None) -> ACLMessage:
        msg = to.reply(performative, content, sender=self.aid, act=act)
        if reply_by_seconds:
            msg = msg.with_(reply_by=self.clock.now() + timedelta(seconds=reply_by_seconds))
        await self.send(msg)
        return msg

    # ---- receiving --------------------------------------------------------------------------
    async def deliver(self, msg: ACLMessage) -> list[Verdict]:
        """A message arrives: check it, log it, answer not-understood if it fits nothing,
        else put it in the mailbox and let the handler react."""
        try:
            verdicts = self.engine.handle(msg)
        except AclError as exc:
            verdicts = [Verdict(msg, msg.sender.name if msg.sender else "?", self.name, False, reason=str(exc))]
        self.log.record(self.name, "received", msg, verdicts)
        if verdicts and all(v.duplicate for v in verdicts):
            return verdicts  # delivered twice (a retry): already in hand
        refused = [v for v in verdicts if not v.accepted and not v.crossed]
        if refused and msg.performative != "not-understood" and msg.sender is not None:
            self._spawn(self._not_understood(msg, refused[0].reason or "not understood"))
            return verdicts
        if any(v.accepted for v in verdicts):
            cond = self._condition()
            async with cond:
                self._mail.append(msg)
                cond.notify_all()
            if self.handler is not None and msg.performative != "not-understood":
                self._spawn(self._handle(self.handler, msg))
        return verdicts

    async def _not_understood(self, msg: ACLMessage, reason: str) -> None:
        answer = msg.reply("not-understood", reason, sender=self.aid)
        self.log.record(self.name, "sent", answer, self.engine.handle(answer))
        try:
            if self.transport is None:
                raise Undeliverable(f"agent {self.name} has no transport to send with")
            await self.transport.deliver(answer, answer.receivers[0])
        except Exception as exc:
            log.info("%s could not send not-understood to %s: %s", self.name, answer.receivers[0].name, exc)

    async def _handle(self, handler: Handler, msg: ACLMessage) -> None:
        try:
            await handler(self, msg)
        except Exception:
            log.exception("%s failed handling %s", self.name, msg.performative)

    def _spawn(self, coro: Coroutine[Any, Any, None]) -> asyncio.Task[None]:
        task = asyncio.get_running_loop().create_task(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return task

    async def receive(self, conversation: str | None = None, *, timeout: float | None = None,
                      match: Callable[[ACLMessage], bool] | None = None) -> ACLMessage:
        """The next message (of this conversation, matching ``match``) from the mailbox;
        raises :class:`TimeoutError` after ``timeout`` seconds."""
        def wanted(m: ACLMessage) -> bool:
            return (conversation is None or m.conversation_id == conversation) and (match is None or match(m))

        cond = self._condition()
        async with cond:
            async with asyncio.timeout(timeout):
                while True:
                    for i, m in enumerate(self._mail):
                        if wanted(m):
                            return self._mail.pop(i)
                    await cond.wait()

    # ---- following a protocol ------------------------------------------------------------
    def may_send(self, msg: ACLMessage) -> list[tuple[str, str]]:
        """As the responder to ``msg``: the (performative, act) pairs the protocol and this
        agent's commitments allow it to answer with now."""
        other = msg.sender.name if msg.sender else ""
        return [(a.performative, a.act) for a in self.engine.moves(msg.conversation_id or "", self.name, other)]

    def talk(self, conversation: str, other: str) -> Talk | None:
        return self.engine.talk(conversation, self.name, other)

    async def request(self, to: AID, action: str, *, protocol: str = "fipa-request",
                      performative: str = "request", timeout: float = 10.0,
                      acknowledge: bool = True, on_overdue: Policy | None = None) -> Conversation:
        """Ask ``to`` to do ``action`` and follow the protocol to its end: acknowledge a
        reported completion (Theorem 5). The first reply is asked for within ``timeout``
        (reply-by); if none comes, ``on_overdue`` acts (else the agent's policy, if it has one
        other than :class:`~.overdue.Mark`, else :class:`~.overdue.Withdraw`); a policy that
        leaves the request open ends the wait with the thread as it is. Each later step
        (the report of the work) is awaited ``timeout`` seconds, then the request is withdrawn.
        With ``acknowledge=False`` it returns at the completion report, as plain FIPA does:
        the thread stays in state "done", the performer's duty to reach mutual belief open."""
        msg = self.compose(performative, to, action, protocol=protocol, reply_by_seconds=timeout)
        policy = on_overdue or (self.on_overdue if not isinstance(self.on_overdue, Mark) else Withdraw())
        await self.send(msg, on_overdue=policy)
        conv = Conversation(msg.conversation_id or "", messages=[msg])
        talk = self.talk(conv.id, to.name)
        while talk is not None and not talk.final:
            watch = self._watches.get((msg.reply_with or "", to.name))
            if watch is None and self.tracker.pending(msg.reply_with, to.name):
                break   # overdue, and the policy left the request open
            try:
                answer = await self._next(conv.id, watch, timeout)
            except TimeoutError:   # no further step in time: withdraw, which meets the duty to inform (I7)
                await self.withdraw(msg, to)
                break
            if answer is None:     # the policy acted: look again
                continue
            conv.messages.append(answer)
            if answer.performative == "not-understood":
                talk = self.talk(conv.id, to.name)
                break
            if self.engine.wf_state(talk) == 4:
                if not acknowledge:   # plain FIPA: stop at the report, awaiting acknowledgement
                    break
                ack = answer.reply("inform", "done", sender=self.aid, act="declare")
                await self.send(ack)
                conv.messages.append(ack)
        # a reply that ended the thread while this agent was still sending never went through
        # receive(): take it from the mailbox, so the conversation shows it and nothing is left
        conv.messages += self.take_all(conv.id)
        self._summarise(conv)
        return conv

    async def _next(self, conversation: str, watch: asyncio.Task[None] | None, timeout: float) -> ACLMessage | None:
        """The next message of ``conversation``; None when ``watch`` (a deadline's policy) ends
        first. With no watch, TimeoutError after ``timeout`` seconds."""
        if watch is None:
            return await self.receive(conversation, timeout=timeout)
        get = asyncio.ensure_future(self.receive(conversation))
        await asyncio.wait({get, watch}, return_when=asyncio.FIRST_COMPLETED)
        if not get.done():
            get.cancel()
            await asyncio.gather(get, return_exceptions=True)
        if get.done() and not get.cancelled() and get.exception() is None:
            return get.result()
        return None

    def take_all(self, conversation: str) -> list[ACLMessage]:
        """Every message of ``conversation`` waiting in the mailbox, removed from it (what came
        after the one waiting for it stopped waiting, so that nothing is left behind)."""
        taken = [m for m in self._mail if m.conversation_id == conversation]
        self._mail = [m for m in self._mail if m.conversation_id != conversation]
        return taken

    def _summarise(self, conv: Conversation) -> None:
        for t in self.engine.talks_of(conv.id):
            other = t.participant if t.initiator == self.name else t.initiator
            conv.states[other] = t.state
            conv.outcomes[other] = self.engine.outcome(t)

    async def close(self) -> None:
        for task in list(self._tasks):
            task.cancel()
        if self.transport is not None:
            await self.transport.close()
