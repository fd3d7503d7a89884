"""Contract Net, used for real: a manager allocates a task to the best bidders among agent
servers, forming a team with the winners and disbanding it when the work is acknowledged.

A participant that never answers is withdrawn from at the deadline (a bid crossing the
withdrawal is declined by it, and nothing of a round is left in the manager's mailbox); one
that reneges or fails leaves the team (its thread ends in state 7) and the manager calls for proposals again
among the agents it has not yet accepted and that did not stay silent or unreachable (those
who refused or lost a round may bid again). :class:`Contractor` is a participant served as a WWM
Mind (``wwm serve wwm.acl.contractnet:Contractor --arg name=b1 --arg price=5``).
"""

from __future__ import annotations

import asyncio
import logging
import re
from collections.abc import Awaitable
from dataclasses import dataclass, field

from .agent import Agent, Handler, Undeliverable
from .message import AID, ACLMessage, new_id
from .network import AgentMind, _services
from .overdue import Mark
from .tracker import Rejected

log = logging.getLogger("wwm.acl")

MODES = ("honest", "silent", "refuse", "renege", "fail", "late")
PROTOCOL = "fipa-contract-net"


def worker(price: float, mode: str = "honest", work_seconds: float = 0.05) -> Handler:
    """A participant's behaviour: bid ``price`` for every call, do the work when accepted;
    ``mode`` makes it silent, refuse, renege after accepting, fail, or bid late (after
    ``work_seconds``)."""
    if mode not in MODES:
        raise ValueError(f"mode must be one of {', '.join(MODES)}, not {mode!r}")

    async def handle(agent: Agent, msg: ACLMessage) -> None:
        try:
            await react(agent, msg)
        except Rejected as exc:  # the conversation moved on meanwhile (say, a withdrawal came)
            log.info("%s does not answer %s: %s", agent.name, msg.performative, exc)

    async def react(agent: Agent, msg: ACLMessage) -> None:
        if mode == "silent":
            return
        if msg.performative in ("cfp", "request", "query-ref", "query-if"):
            if mode == "refuse":
                await agent.reply(msg, "refuse", "(busy)")
            elif msg.performative == "cfp":
                if mode == "late":
                    await asyncio.sleep(work_seconds)
                await agent.reply(msg, "propose", f"({msg.content}) :price {price:g}")
            else:
                await agent.reply(msg, "agree")
                await _work(agent, msg)
        elif msg.performative == "accept-proposal" or msg.performative == "disconfirm":
            await _work(agent, msg)

    async def _work(agent: Agent, msg: ACLMessage) -> None:
        await asyncio.sleep(work_seconds)
        if mode == "renege":
            await agent.reply(msg, "inform", "(no longer intend to do it)", act="renege")
        elif mode == "fail":
            await agent.reply(msg, "failure", "(impossible)")
        else:
            await agent.reply(msg, "inform", f"(done {msg.content or ''})")

    return handle


class Contractor(AgentMind):
    """A contractor: bids for tasks by Contract Net (or does requested work) as an ACL agent.

    ``price`` is its bid; ``mode`` is honest, silent (never answers), refuse, renege (accepts,
    then backs out), fail, or late (bids after ``work_seconds``); ``log`` is a JSON-lines file
    for its conversation log; ``store`` a database that keeps its conversations and
    commitments across restarts (see :class:`AgentMind`).
    """

    title = "ACL contractor"

    def __init__(self, name: str = "contractor", services: str = "work", price: float = 10.0,
                 mode: str = "honest", work_seconds: float = 0.05, log: str = "", store: str = "") -> None:
        if mode not in MODES:
            raise ValueError(f"mode must be one of {', '.join(MODES)}, not {mode!r}")
        self.agent = self._agent(name=name, services=services, price=price, mode=mode,
                                 work_seconds=work_seconds, log=log, store=store)

    def make_agent(  # type: ignore[override]  # the hook takes its own class's constructor arguments
            self, *, address: str | None, name: str, services: str = "", price: float = 10.0,
            mode: str = "honest", work_seconds: float = 0.05, log: str = "") -> Agent:
        return Agent(name, address=address, services=_services(services),
                     handler=worker(price, mode, work_seconds), log_path=log or None)


# ---- the manager --------------------------------------------------------------------------
@dataclass(slots=True)
class Round:
    conversation: str
    called: list[str]
    proposals: dict[str, float] = field(default_factory=dict)
    refused: list[str] = field(default_factory=list)
    silent: list[str] = field(default_factory=list)
    unreachable: list[str] = field(default_factory=list)
    accepted: list[str] = field(default_factory=list)
    rejected: list[str] = field(default_factory=list)
    done: list[str] = field(default_factory=list)
    dropped: list[str] = field(default_factory=list)
    team: set[str] = field(default_factory=set)   # the team once the winners were accepted


@dataclass(slots=True)
class Allocation:
    task: str
    needed: int
    contractors: list[str] = field(default_factory=list)
    rounds: list[Round] = field(default_factory=list)

    @property
    def complete(self) -> bool:
        return len(self.contractors) == self.needed


def price_of(content: str | None) -> float:
    match = re.search(r":price\s+([-+0-9.eE]+)", content or "")
    if not match:
        raise ValueError(f"a proposal must state ':price N', got {content!r}")
    return float(match.group(1))


async def contract_net(manager: Agent, participants: list[AID], task: str, *, needed: int = 1,
                       deadline: float = 1.0, work_timeout: float = 5.0, rounds: int = 3) -> Allocation:
    """Allocate ``task`` to ``needed`` contractors: call for proposals, accept the cheapest,
    reject the rest, acknowledge completed work; call again for places left open by
    silence, reneging or failure. Every thread ends in a final state."""
    result = Allocation(task, needed)
    tried: set[str] = set()
    for _ in range(rounds):
        missing = needed - len(result.contractors)
        candidates = [p for p in participants if p.name not in tried]
        if missing <= 0 or not candidates:
            break
        r = Round(new_id("cnp"), [p.name for p in candidates])
        result.rounds.append(r)
        await _round(manager, r, candidates, task, missing, deadline, work_timeout)
        tried |= set(r.silent) | set(r.unreachable) | set(r.accepted)
        result.contractors += r.done
    return result


async def _round(manager: Agent, r: Round, candidates: list[AID], task: str, missing: int,
                 deadline: float, work_timeout: float) -> None:
    manager.on_overdue_in(r.conversation, Mark())   # this loop handles its deadlines itself
    cfp = manager.compose("cfp", candidates, task, conversation=r.conversation, protocol=PROTOCOL,
                          reply_by_seconds=deadline)
    try:
        await manager.send(cfp)
    except Undeliverable as exc:
        r.unreachable = [c.name for c in candidates if f"{c.name}:" in str(exc)]
    waiting = {c.name for c in candidates} - set(r.unreachable)
    proposals: dict[str, ACLMessage] = {}
    loop = asyncio.get_running_loop()
    until = loop.time() + deadline
    while waiting:
        try:
            msg = await manager.receive(r.conversation, timeout=max(0.0, until - loop.time()))
        except TimeoutError:
            break
        who = msg.sender.name if msg.sender else "?"
        waiting.discard(who)
        if msg.performative == "propose":
            try:
                r.proposals[who] = price_of(msg.content)
                proposals[who] = msg
            except ValueError:
                await manager.reply(msg, "reject-proposal", "(no price)")
                r.rejected.append(who)
        elif msg.performative == "refuse":
            r.refused.append(who)
    by_name = {c.name: c for c in candidates}
    for name in sorted(waiting):       # never answered: the manager withdraws its call (I7)
        r.silent.append(name)
        await _quietly(manager.send(manager.compose("cancel", by_name[name], conversation=r.conversation,
                                                    protocol=PROTOCOL, in_reply_to=cfp.reply_with)))
    ranked = sorted(proposals, key=lambda n: (r.proposals[n], n))
    for name in ranked[:missing]:
        await manager.reply(proposals[name], "accept-proposal", proposals[name].content,
                            reply_by_seconds=work_timeout)
        r.accepted.append(name)
    r.team = manager.tracker.team(r.conversation)
    for name in ranked[missing:]:
        await manager.reply(proposals[name], "reject-proposal", "(another bid won)")
        r.rejected.append(name)
    working = set(r.accepted)
    until = loop.time() + work_timeout
    while working:
        try:
            msg = await manager.receive(r.conversation, timeout=max(0.0, until - loop.time()),
                                        match=lambda m: m.sender is not None and m.sender.name in working)
        except TimeoutError:
            break
        assert msg.sender is not None  # (matched above)
        who = msg.sender.name
        talk = manager.talk(r.conversation, who)
        if talk is not None and manager.engine.wf_state(talk) == 4:
            await manager.reply(msg, "inform", "(done)", act="declare")   # Theorem 5: acknowledge
            r.done.append(who)
            working.discard(who)
        elif talk is None or talk.final:
            r.dropped.append(who)
            working.discard(who)
    for name in sorted(working):       # no result in time: withdraw, the team disbands
        r.dropped.append(name)
        await _quietly(manager.send(manager.compose("cancel", by_name[name], conversation=r.conversation,
                                                    protocol=PROTOCOL)))
    for msg in manager.take_all(r.conversation):   # what came past the round's end: kept in the log only
        log.info("%s: %s from %s after the round ended", r.conversation, msg.performative,
                 msg.sender.name if msg.sender else "?")


async def _quietly(send: Awaitable[object]) -> None:
    try:
        await send
    except Undeliverable:
        pass
