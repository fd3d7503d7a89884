"""Agents that talk: an async API to send, receive, wait for replies with time-outs and follow
a protocol as initiator or responder, over an in-process bus or the WWM network.

Every message an agent sends is checked by its engine first (an act it may not perform is
refused before it leaves); every message it receives is checked and, if it fits no protocol
arc, answered with ``not-understood``. A message that cannot be delivered is rolled back.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Protocol

from .clock import Clock, SystemClock
from .engine import Engine, Talk, Verdict
from .log import ConversationLog
from .message import AID, AclError, ACLMessage, new_id

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
    its commitment tracker, a mailbox, and an optional responder ``handler``."""

    def __init__(self, name: str, *, address: str | None = None, transport: Transport | None = None,
                 clock: Clock | None = None, handler: Handler | None = None,
                 log_path: str | None = None, services: tuple[str, ...] = ()) -> None:
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
        self._tasks: set[asyncio.Task] = set()

    def __repr__(self) -> str:
        return f"Agent({self.name!r}, address={self.address!r})"

    @property
    def aid(self) -> AID:
        return AID(self.name, (self.address,) if self.address else ())

    @property
    def tracker(self):
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

    async def send(self, msg: ACLMessage) -> list[Verdict]:
        """Check ``msg`` against this agent's engine, apply it, deliver it to every receiver.
        Raises :class:`Rejected` (nothing sent) or :class:`Undeliverable` (rolled back)."""
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
        return verdicts

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

    def _spawn(self, coro) -> None:
        task = asyncio.get_running_loop().create_task(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

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
                      acknowledge: bool = True) -> Conversation:
        """Ask ``to`` to do ``action`` and follow the protocol to its end: acknowledge a
        reported completion (Theorem 5), withdraw if no answer comes within ``timeout``.
        With ``acknowledge=False`` it returns at the completion report, as plain FIPA does:
        the thread stays in state "done", the performer's duty to reach mutual belief open."""
        msg = self.compose(performative, to, action, protocol=protocol, reply_by_seconds=timeout)
        await self.send(msg)
        conv = Conversation(msg.conversation_id or "", messages=[msg])
        talk = self.talk(conv.id, to.name)
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while talk is not None and not talk.final:
            try:
                answer = await self.receive(conv.id, timeout=max(0.0, deadline - loop.time()))
            except TimeoutError:
                try:  # no answer in time: withdraw, which meets the duty to inform (I7)
                    await self.send(self.compose("cancel", to, conversation=conv.id, protocol=protocol,
                                                 in_reply_to=msg.reply_with))
                except Undeliverable as exc:
                    log.info("%s could not withdraw from %s: %s", self.name, to.name, exc)
                break
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
