"""HCH(A, n): the interpreter that lets copies of a text agent A work on a tree of messages.

An agent sees one observation at a time, rendered with pointers ``#k``/``@k`` numbered in its
own append-only environment, and types a command (``view``, ``ask``, ``reply``, ``reflect``,
``spawn``, ``note``). Every command costs one operation; an ask hands budget to the recipient
and is charged what it spent; at zero budget the agent's line is its reply. Mistakes come back
as observations. Semantics and costs follow the original ALBA ``amplify`` package.
"""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Literal, Protocol

from . import parser as P
from .agents import Agent
from .chain import Chain
from .ledger import Call, Step
from .messages import Channel, Message, Referent, addressed, digest

BudgetDisplay = Literal["exact", "rounded"]
Split = Literal["tenth", "all"]
NO_BUDGET = "\n[You have no budget, type a message to reply]"


@dataclass(frozen=True, eq=False, slots=True)
class HCHAgent:
    """A copy of A together with every referent it has been shown (its environment).

    ``env_key`` folds the environment's keys one by one, so equal environments have equal
    keys and extending one costs O(new referents), not O(environment).
    """

    a: Agent
    env: Chain[Referent] = field(default_factory=Chain)
    env_key: str = ""
    key: str = field(init=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "key", digest("h", self.a.key, self.env_key))

    @classmethod
    def build(cls, a: Agent, env: Sequence[Referent] = ()) -> HCHAgent:
        return cls(a).then(a, env)

    def then(self, a: Agent, shown: Sequence[Referent]) -> HCHAgent:
        """The successor: A moved on to ``a``, and ``shown`` appended to the environment."""
        env_key = self.env_key
        for referent in shown:
            env_key = digest(env_key, referent.key)
        return HCHAgent(a, self.env.extended(shown), env_key)


class Memo(Protocol):
    """Answers already given, keyed by (agent transcript, observation)."""

    def get(self, key: str) -> str | None: ...
    def put(self, key: str, action: str) -> None: ...


class DictMemo:
    """A memo in memory; :class:`wwm.meta.store.Store` gives one that persists."""

    def __init__(self) -> None:
        self.answers: dict[str, str] = {}

    def get(self, key: str) -> str | None:
        return self.answers.get(key)

    def put(self, key: str, action: str) -> None:
        self.answers[key] = action

    def invalidate(self, key: str) -> bool:
        return self.answers.pop(key, None) is not None


class AgentError(Exception):
    """A mistake by the acting agent; its text becomes the agent's next observation."""


@dataclass(slots=True)
class Answer:
    """What a top-level question produced: the reply, the agent after replying, the ledger."""

    reply: Message
    agent: HCHAgent
    call: Call


def budget_line(budget: int, display: BudgetDisplay = "exact") -> str:
    if budget <= 0:
        return NO_BUDGET
    if display == "rounded":
        return f"\n[Remaining budget is at least {10 ** (len(str(budget)) - 1)}]"  # exact, unlike log10
    return f"\n[Remaining budget is {budget}]"


@dataclass(slots=True)
class _Frame:
    """One question being answered: the agent, what it sees next, its budget, its ledger;
    for an ask, what was offered and what the asker had (to say so if it was cut)."""

    agent: HCHAgent
    obs: Message
    budget: int
    call: Call
    offered: int | None = None
    had: int = 0


@dataclass(frozen=True, slots=True)
class _Open:
    """An ask that opens a question below the current one."""

    frame: _Frame


YIELD_EVERY = 16  # steps between yields to the event loop, so a cancelled question stops


class HCH:
    """HCH(A, n): ``await HCH(A, n).ask(question)`` runs a fresh copy of A on it with budget n.

    ``memo`` answers situations already seen without calling A (A must then be a function
    of its transcript); ``loop_check`` refuses an ask that repeats, pointer for pointer, a
    question an agent above is still answering; ``on_step`` is called with each screen.
    ``split`` is what an ask without ``$b`` hands over: a tenth of the budget (the original)
    or all of it but the one operation the ask costs (unspent budget comes back either way).
    The tree runs on an explicit stack of questions, not Python's, so it may go as deep as
    the budget pays for; ``max_depth`` (None: no bound) refuses an ask deeper than it with a
    message. The interpreter yields to the event loop every few steps, so cancelling the
    task that awaits :meth:`ask` (a client that gave up) stops the computation at once;
    ``started``, when set to a list, collects the top-level questions begun, finished or
    not (what a stopped computation had done).
    """

    def __init__(self, a: Agent, budget: int = 10 ** 8, *, memo: Memo | None = None,
                 budget_display: BudgetDisplay = "exact", split: Split = "tenth", loop_check: bool = True,
                 max_depth: int | None = None, on_step: Callable[[Call, Step], None] | None = None) -> None:
        if budget < 0:
            raise ValueError(f"a budget cannot be negative (got {budget})")
        self.base = HCHAgent(a.fresh())
        self.budget = budget
        self.memo = memo
        self.budget_display = budget_display
        self.split = split
        self.loop_check = loop_check
        self.max_depth = max_depth
        self.on_step = on_step
        self.started: list[Call] | None = None
        self._steps = 0

    async def ask(self, question: Message, to: HCHAgent | None = None,
                  budget: int | None = None) -> Answer:
        """Put ``question`` to a fresh copy of A (or to the snapshot ``to``) with a fresh budget."""
        agent = to or self.base
        budget = self.budget if budget is None else budget
        call = Call(question, budget, agent.key)
        if self.started is not None:
            self.started.append(call)
        reply, final = await self._run(_Frame(agent, question, budget, call))
        return Answer(reply, final, call)

    # ---- the execution loop ---------------------------------------------------------------
    async def _run(self, frame: _Frame) -> tuple[Message, HCHAgent]:
        """Run the question of ``frame`` and every ask below it, depth first, on ``above``."""
        above: list[_Frame] = []
        asking: Counter[str] = Counter()  # the situations of the asks on the stack (loop check)
        while True:
            self._steps += 1
            if self._steps % YIELD_EVERY == 0:
                await asyncio.sleep(0)
            text = frame.obs.render(len(frame.agent.env)) + budget_line(frame.budget, self.budget_display)
            action, a = await self._act(frame.agent, text, frame.call)
            frame.agent = frame.agent.then(a, frame.obs.args)
            if frame.budget <= 0:
                reply = self._forced_reply(frame.agent, action)
                self._finish(frame, reply, 0)
            else:
                outcome = self._execute(frame.agent, action, frame.budget, frame.call, asking)
                if isinstance(outcome, _Open):
                    above.append(frame)
                    frame = outcome.frame
                    if frame.call.situation is not None:
                        asking[frame.call.situation] += 1
                    continue
                seen, done, cost = outcome
                frame.budget -= cost
                if done is None:
                    assert seen is not None  # a line that is not a reply shows the next observation
                    frame.obs = seen
                    continue
                reply = done
                self._finish(frame, reply, frame.budget)
            if not above:
                return reply, frame.agent
            child, frame = frame, above.pop()  # the asker sees the reply, and pays for it
            if child.call.situation is not None:
                asking[child.call.situation] -= 1
            observation = addressed(child.agent, reply)
            if child.offered is not None and child.offered > child.call.budget:
                observation = observation + Message.of(f"\n[you offered ${child.offered} but had {child.had}, "
                                                       f"so the ask handed over {child.call.budget}]")
            frame.obs = observation
            frame.budget -= 1 + child.call.spent

    def _finish(self, frame: _Frame, reply: Message, remaining: int) -> None:
        call = frame.call
        call.reply, call.remaining = reply, remaining
        call.final_agent, call.final_agent_key = frame.agent, frame.agent.key

    async def _act(self, agent: HCHAgent, text: str, call: Call) -> tuple[str, Agent]:
        memo = self.memo
        key = digest("memo", agent.a.key, text) if memo is not None else None
        action = memo.get(key) if memo is not None and key is not None else None
        if action is not None:
            step = Step(text, action, cached=True, memo_key=key)
            successor = agent.a.after(text, action)
        else:
            action, successor = await agent.a.act(text)
            step = Step(text, action, memo_key=key)
            if memo is not None and key is not None:
                memo.put(key, action)
        call.steps.append(step)
        if self.on_step is not None:
            self.on_step(call, step)
        return action, successor

    def _forced_reply(self, agent: HCHAgent, line: str) -> Message:
        try:
            return _as_message(resolve(P.parse_forced_reply(line), agent.env))
        except (P.ParseError, AgentError) as exc:
            return Message.of(f"<<malformed message: {_reason(exc)}>>")

    def _execute(self, agent: HCHAgent, line: str, budget: int, call: Call,
                 asking: Counter[str]) -> tuple[Message | None, Message | None, int] | _Open:
        """(next observation, reply if done, cost) for one typed line, or the ask it opens."""
        call.own_ops += 1
        try:
            command = P.parse_command(line)
            if isinstance(command, P.Ask):
                return self._ask(agent, command, budget, call, asking)
            if isinstance(command, P.Reply):
                return None, _as_message(resolve(command.body, agent.env)), 1
            if isinstance(command, (P.View, P.Note)):
                return _as_message(resolve(command.body, agent.env)), None, 1
            if isinstance(command, P.Reflect):
                return Message.of("you are []", Channel(agent)), None, 1
            return Message.of("you spawned []", Channel(self.base)), None, 1  # Spawn
        except P.ParseError as exc:
            return Message.of(exc.reason if exc.unknown_command else f"malformed command: {exc.reason}"), None, 1
        except AgentError as exc:
            return Message.of(str(exc)), None, 1

    def _ask(self, agent: HCHAgent, command: P.Ask, budget: int, call: Call,
             asking: Counter[str]) -> tuple[Message, None, int] | _Open:
        recipient = self.base if command.recipient is None else _snapshot(_channel(agent.env, command.recipient))
        question = addressed(agent, _as_message(resolve(command.body, agent.env)))
        default = budget // 10 if self.split == "tenth" else budget - 1
        sub_budget = max(0, min(budget - 1, default if command.budget is None else command.budget))
        if self.max_depth is not None and call.depth >= self.max_depth:
            call.events.append(f"depth: refused an ask {self.max_depth + 1} deep")
            return Message.of(f"too deep: this question is already {call.depth} asks below the top, the "
                              f"most this tree allows; answer it without asking"), None, 1
        situation = self._situation(recipient, question)
        if situation is not None and asking[situation] > 0:
            call.events.append(f"loop: refused an ask repeating {question.render(len(recipient.env))!r}")
            return Message.of("loop detected: an agent above you is already answering this very "
                              "question with these very pointers; asking it again would never end, "
                              "so answer another way"), None, 1
        child = call.child(question, sub_budget, recipient.key, situation)
        return _Open(_Frame(recipient, question, sub_budget, child, command.budget, budget))

    def _situation(self, recipient: HCHAgent, question: Message) -> str | None:
        """What makes two asks the same question: who is asked, the text they will see, and
        the messages (not the sender channels) its pointers lead to."""
        if not self.loop_check:
            return None
        pointers = [r.key if isinstance(r, Message) else "@" for r in question.args]
        return digest("loop", recipient.a.key, question.render(len(recipient.env)), *pointers)


# ---- resolving abstract pointers ----------------------------------------------------------
def resolve(body: P.Body, env: Sequence[Referent]) -> Referent:
    """The referent a parsed body denotes in ``env``; :class:`AgentError` if it cannot.

    Built bottom-up with an explicit stack, so a body nested any depth resolves."""
    if isinstance(body, P.Pointer):
        return _message(env, body.index) if body.symbol == "#" else _channel(env, body.index)
    done: dict[int, Referent] = {}
    stack: list[tuple[P.Literal, bool]] = [(body, False)]
    while stack:
        literal, expanded = stack.pop()
        if expanded:
            done[id(literal)] = Message(literal.texts, tuple(
                done[id(arg)] if isinstance(arg, P.Literal) else resolve(arg, env) for arg in literal.args))
            continue
        stack.append((literal, True))
        stack.extend((arg, False) for arg in literal.args if isinstance(arg, P.Literal) and id(arg) not in done)
    return done[id(body)]


def _lookup(env: Sequence[Referent], index: int, symbol: str) -> Referent:
    if index >= len(env):
        have = f"are numbered 0 to {len(env) - 1}" if env else "do not exist yet"
        raise AgentError(f"there is no {symbol}{index}: your pointers {have}")
    return env[index]


def _message(env: Sequence[Referent], index: int) -> Message:
    found = _lookup(env, index, "#")
    if not isinstance(found, Message):
        raise AgentError(f"#{index} is not a message but an agent: write @{index} to ask it")
    return found


def _channel(env: Sequence[Referent], index: int) -> Channel:
    found = _lookup(env, index, "@")
    if not isinstance(found, Channel):
        raise AgentError(f"@{index} is not an agent but a message: write #{index} to view it")
    return found


def _snapshot(channel: Channel) -> HCHAgent:
    """The agent a channel points to: channels in an HCH tree point to its own agents."""
    assert isinstance(channel.agent, HCHAgent)
    return channel.agent


def _as_message(referent: Referent) -> Message:
    return referent if isinstance(referent, Message) else Message(("", ""), (referent,))


def _reason(exc: Exception) -> str:
    return exc.reason if isinstance(exc, P.ParseError) else str(exc)
