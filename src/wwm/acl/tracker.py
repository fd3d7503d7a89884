"""The commitment tracker: what every act creates and discharges, for each party.

For each conversation thread (a requester A and a performer B) it keeps records of the
persistent weak achievement goals (PWAG), conditional offers, duties to reach mutual belief
and soft expectations of a reply, each with the message that created and discharged it.
The effects are read from the content of each primitive (REQ or ASSERT), never from an act's
name; an act whose preconditions fail is rejected with the reason. From the records alone
it derives the Winograd-Flores state, whether a team (a joint persistent goal) exists, and
how the conversation ended. Reply-by deadlines mark records overdue without discharging them
(what an agent then does is its policy, :mod:`.overdue`).
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import datetime
from typing import Literal, overload

from .acts import (
    PWAG,
    WAG,
    Act,
    Always,
    Assert,
    Bel,
    Done,
    Eventually,
    Goal,
    Implies,
    Not,
    Request,
    Requested,
    show,
)
from .clock import Clock, SystemClock, aware
from .message import AclError

FINAL_STATES = frozenset({5, 7, 8, 9})

OUTCOMES = {5: "success", 7: "failed", 8: "not formed", 9: "withdrawn"}


class Rejected(AclError):
    """An act whose preconditions do not hold; the text gives the reason."""


# what an undo puts back in a record: its status, reason, discharged_by, violated, owes_inform
_Saved = tuple[str, str | None, str | None, bool, str | None]


@dataclass(slots=True)
class Commitment:
    """One record: ``kind`` is "pwag", "offer", "duty" (to make something mutually believed)
    or "expect" (the soft expectation of a reply, not an obligation in the semantics)."""

    id: int
    kind: str
    holder: str
    counterparty: str
    action: str
    goal: str
    relative_to: int | None = None
    created_by: str | None = None
    deadline: datetime | None = None
    status: str = "active"
    reason: str | None = None
    discharged_by: str | None = None
    violated: bool = False
    owes_inform: str | None = None
    doer: str = ""  # who is to do the action (the counterparty for a requester's PWAG)

    @property
    def active(self) -> bool:
        return self.status == "active"

    def overdue(self, now: datetime) -> bool:
        return self.active and self.deadline is not None and aware(self.deadline) < now

    def describe(self, now: datetime | None = None) -> str:
        label = {"pwag": "PWAG", "offer": "offer", "duty": "duty", "expect": "expected to answer"}[self.kind]
        text = f"#{self.id} {self.holder}: {label} {self.goal}"
        if self.active:
            flags = []
            if self.owes_inform:
                flags.append(f"owes-inform ({self.owes_inform})")
            if now is not None and self.overdue(now):
                flags.append("OVERDUE")
            return text + (f" [{', '.join(flags)}]" if flags else "")
        return text + f" — discharged: {self.reason}" + (" (violated)" if self.violated else "")


@dataclass(slots=True)
class Thread:
    """The records between one requester and one performer in one conversation."""

    conversation: str
    initiator: str
    responder: str
    records: list[Commitment] = field(default_factory=list)
    acts: list[tuple[str | None, Act]] = field(default_factory=list)
    settled: int = 1  # the state after the last act applied (derive_state, cached)

    @property
    def key(self) -> tuple[str, str, str]:
        return (self.conversation, self.initiator, self.responder)

    def find(self, kind: str, holder: str, action: str | None = None, *, doer: str | None = None,
             active: bool = True) -> Commitment | None:
        for r in reversed(self.records):
            if r.kind == kind and r.holder == holder and (action is None or r.action == action) \
                    and (doer is None or r.doer == doer) and (r.active or not active):
                return r
        return None

    def active(self) -> list[Commitment]:
        return [r for r in self.records if r.active and r.kind != "expect"]

    @property
    def state(self) -> int | None:
        return derive_state(self)

    @property
    def team(self) -> bool:
        return _team(self) is not None

    @property
    def outcome(self) -> str | None:
        """success / refused / countered-rejected / reneged / failed / withdrawn, once final."""
        state = self.state
        if state not in FINAL_STATES:
            return None
        last = self.acts[-1][0]
        reasons = [r.reason for r in self.records if r.kind in ("pwag", "offer") and r.discharged_by == last]
        if state == 5:
            return "success"
        if state == 7:
            return "reneged" if "reneged" in reasons else "failed"
        if state == 9:
            return "withdrawn"
        if "withdrawn" in reasons:
            return "withdrawn"
        if "declined_offer" in reasons or "offer_withdrawn" in reasons:
            return "countered-rejected"
        return "refused"


def _team(t: Thread) -> tuple[Commitment, Commitment] | None:
    for pb in t.records:
        if pb.kind == "pwag" and pb.active and pb.holder == t.responder:
            pa = next((r for r in t.records if r.id == pb.relative_to), None)
            if pa is not None and pa.active:
                return pa, pb
    return None


def wf_state(t: Thread | None) -> int:
    """The W&F state of a thread, 1 before it starts. A thread always has one: an act that
    would leave its records matching no state is rejected (:meth:`Tracker.apply`)."""
    if t is None:
        return 1
    state = t.state
    assert state is not None
    return state


def derive_state(t: Thread) -> int | None:
    """The Winograd-Flores state computed from the records alone (invariant I4)."""
    if not t.acts:
        return 1
    active = t.active()
    if not active:
        pb = [r for r in t.records if r.kind == "pwag" and r.holder == t.responder]
        if any(r.reason in ("reneged", "impossible") for r in pb):
            return 7
        if any(r.reason == "achieved" for r in pb):
            return 5
        if pb:
            return 9
        return 8
    kinds = {(r.kind, r.holder == t.initiator) for r in active}
    if _team(t) is not None:
        duty = any(r.kind == "duty" and r.holder == t.responder for r in active)
        return 4 if duty else 3
    if kinds == {("pwag", True)}:
        return 2
    if kinds == {("offer", False)}:
        return 6
    return None


class Tracker:
    """Commitment records for every conversation this party knows."""

    def __init__(self, clock: Clock | None = None) -> None:
        self.clock: Clock = clock or SystemClock()
        self.threads: dict[tuple[str, str, str], Thread] = {}
        self._pairs: dict[tuple[str, frozenset[str]], Thread] = {}
        self._ids = itertools.count(1)

    # ---- finding threads ------------------------------------------------------------------
    def thread(self, conversation: str, a: str, b: str) -> Thread | None:
        return self._pairs.get((conversation, frozenset((a, b))))

    def threads_of(self, conversation: str) -> list[Thread]:
        return [t for t in self.threads.values() if t.conversation == conversation]

    def _thread_for(self, conversation: str, speaker: str, hearer: str) -> Thread:
        t = self.thread(conversation, speaker, hearer)
        if t is None:
            t = Thread(conversation, speaker, hearer)
        return t

    def forget(self, conversation: str, a: str, b: str) -> None:
        t = self._pairs.pop((conversation, frozenset((a, b))), None)
        if t is not None:
            self.threads.pop(t.key, None)

    # ---- applying acts --------------------------------------------------------------------
    def check(self, act: Act, conversation: str) -> Thread:
        """Raise :class:`Rejected` if ``act`` would be rejected; else the thread as it would
        be after it (a scratch copy: nothing changes)."""
        return self._run(act, conversation, None, None, commit=False)

    def probe(self, act: Act, conversation: str) -> int:
        """The W&F state ``act`` would lead to; raise :class:`Rejected` if it would be
        rejected. Nothing changes."""
        return self._run(act, conversation, None, None, commit=False, clone=False)

    def apply(self, act: Act, conversation: str, message_id: str | None = None,
              deadline: datetime | None = None, expect: int | None = None) -> Thread:
        """Apply one act (all its primitives, in order) or reject it whole; with ``expect``,
        also reject it if it would not lead to that W&F state."""
        return self._run(act, conversation, message_id, deadline, commit=True, expect=expect)

    # committed, or a scratch copy: the thread; a probe (no copy): the state it would reach
    @overload
    def _run(self, act: Act, conversation: str, message_id: str | None, deadline: datetime | None,
             commit: bool, clone: Literal[True] = True, expect: int | None = None) -> Thread: ...
    @overload
    def _run(self, act: Act, conversation: str, message_id: str | None, deadline: datetime | None,
             commit: Literal[False], clone: Literal[False], expect: int | None = None) -> int: ...

    def _run(self, act: Act, conversation: str, message_id: str | None,
             deadline: datetime | None, commit: bool, clone: bool = True,
             expect: int | None = None) -> Thread | int:
        if not act.parts:
            raise Rejected(f"{act.name}: an act needs at least one primitive")
        first = act.parts[0]
        if isinstance(first, Assert) and isinstance(first.p, Implies):  # an offer opening a thread:
            current = self._thread_for(conversation, first.hearer, first.speaker)  # the hearer is A
        else:
            current = self._thread_for(conversation, first.speaker, first.hearer)
        before = current.settled if current.acts else 1
        if before in FINAL_STATES:
            raise Rejected(f"{act.name}: the conversation between {current.initiator} and "
                           f"{current.responder} is over (state {before}, {current.outcome}); "
                           "a new commitment needs a new conversation")
        undo: list[tuple[Commitment, _Saved]] = []
        size, done = len(current.records), len(current.acts)
        new_ids = self._ids if commit else itertools.count(10**9)
        try:
            for index, part in enumerate(act.parts):
                if {part.speaker, part.hearer} != {current.initiator, current.responder}:
                    raise Rejected(f"{act.name}: {part.speaker}→{part.hearer} is not a party pair of this thread")
                _Effects(current, act, index, message_id, deadline, new_ids, undo).apply(part)
            current.acts.append((message_id, act))
            after = derive_state(current)
            if after is None:
                raise Rejected(f"{act.name}: the act would leave commitments that match no state of "
                               f"the conversation for action ({_kinds(current)})")
            if expect is not None and after != expect:
                raise Rejected(f"{act.name}: the commitments would be in W&F state {after}, where "
                               f"the protocol expects {expect}")
            if not commit:
                if not clone:
                    return after
                return Thread(current.conversation, current.initiator, current.responder,
                              [_clone(r) for r in current.records], list(current.acts), after)
        except BaseException:
            commit = False
            raise
        finally:
            if not commit:  # undo in place: the records callers hold are never replaced
                for record, old in reversed(undo):
                    (record.status, record.reason, record.discharged_by, record.violated,
                     record.owes_inform) = old
                del current.records[size:]
                del current.acts[done:]
        current.settled = after
        if current.key not in self.threads:
            self.threads[current.key] = current
            self._pairs[(conversation, frozenset((current.initiator, current.responder)))] = current
        return current

    # ---- what it knows --------------------------------------------------------------------
    def state(self, conversation: str, a: str, b: str) -> int:
        return wf_state(self.thread(conversation, a, b))

    def team(self, conversation: str) -> set[str]:
        """The members of the team in this conversation (empty when none exists): everyone
        whose persistent goal is active and interlocked with another's."""
        members: set[str] = set()
        for t in self.threads_of(conversation):
            if t.team:
                members |= {t.initiator, t.responder}
        return members

    def records(self, conversation: str | None = None) -> list[Commitment]:
        return [r for t in self.threads.values() if conversation in (None, t.conversation)
                for r in t.records]

    def obligations(self, agent: str, conversation: str | None = None, *,
                    soft: bool = False) -> list[Commitment]:
        """The active records ``agent`` holds (with ``soft``, also expectations of replies)."""
        return [r for r in self.records(conversation) if r.active and r.holder == agent
                and (soft or r.kind != "expect")]

    def overdue(self, conversation: str | None = None) -> list[Commitment]:
        now = self.clock.now()
        return [r for r in self.records(conversation) if r.overdue(now)]

    def pending(self, message_id: str | None, holder: str) -> list[Commitment]:
        """The active records ``holder`` holds with a reply-by set by message ``message_id``
        (the reply that message asked for has not come)."""
        return [r for r in self.records() if message_id is not None and r.created_by == message_id
                and r.holder == holder and r.active and r.deadline is not None]

    def renew(self, records: list[Commitment], deadline: datetime) -> None:
        """Move the reply-by of ``records`` (a re-attempt asks for the reply again)."""
        for record in records:
            record.deadline = deadline

    def explain(self, record: Commitment) -> str:
        made = f"created by message {record.created_by}" if record.created_by else "created"
        if record.active:
            return f"{record.describe(self.clock.now())}; {made}; active"
        return f"{record.describe()}; {made}; discharged by message {record.discharged_by}"

    def drop(self, conversation: str, holder: str, other: str, why: str) -> Commitment:
        """The application tells the tracker ``holder`` believes its goal is achieved,
        impossible or irrelevant (I7): the record now shows a duty to inform the other side,
        met only by the matching assertion (withdraw, fail or report)."""
        if why not in ("achieved", "impossible", "irrelevant"):
            raise ValueError("why must be 'achieved', 'impossible' or 'irrelevant'")
        t = self.thread(conversation, holder, other)
        record = t.find("pwag", holder) if t else None
        if record is None:
            raise Rejected(f"{holder} holds no persistent goal towards {other} in {conversation!r}")
        record.owes_inform = why
        return record


def _clone(r: Commitment) -> Commitment:
    return Commitment(r.id, r.kind, r.holder, r.counterparty, r.action, r.goal, r.relative_to,
                      r.created_by, r.deadline, r.status, r.reason, r.discharged_by, r.violated,
                      r.owes_inform, r.doer)


def _kinds(t: Thread) -> str:
    return ", ".join(f"{r.kind} of {r.holder}" for r in t.active()) or "none active"


class _Effects:
    """Apply one primitive to a scratch thread: check its preconditions, then its effects."""

    def __init__(self, t: Thread, act: Act, index: int, message_id: str | None,
                 deadline: datetime | None, ids: Iterator[int], undo: list[tuple[Commitment, _Saved]]) -> None:
        self.t, self.act, self.index = t, act, index
        self.msg, self.deadline, self.ids, self.undo = message_id, deadline, ids, undo

    def new(self, kind: str, holder: str, other: str, action: str, goal: str,
            relative_to: int | None = None, doer: str | None = None) -> Commitment:
        # reply-by is when the sender wants the hearer's reply: it binds what the hearer holds
        speaker = self.act.parts[self.index].speaker
        record = Commitment(next(self.ids), kind, holder, other, action, goal, relative_to,
                            self.msg, self.deadline if holder != speaker else None, doer=doer or holder)
        self.t.records.append(record)
        return record

    def close(self, record: Commitment, reason: str, violated: bool = False) -> None:
        self.undo.append((record, (record.status, record.reason, record.discharged_by,
                                   record.violated, record.owes_inform)))
        record.status = "discharged"
        record.reason = reason
        record.discharged_by = self.msg
        record.violated = violated
        record.owes_inform = None

    def answered(self, holder: str) -> None:
        for r in self.t.records:
            if r.kind == "expect" and r.holder == holder and r.active:
                self.close(r, "answered")

    def reject(self, why: str) -> Rejected:
        return Rejected(f"{self.act.name}: {why}")

    def earlier(self, kind: type) -> bool:
        return any(isinstance(p, Assert) and isinstance(p.p, kind) for p in self.act.parts[:self.index])

    def later_offer(self) -> bool:
        return any(isinstance(p, Assert) and isinstance(p.p, Implies) for p in self.act.parts[self.index + 1:])

    # ---- dispatch on the primitive and its content ----------------------------------------
    def apply(self, part: Request | Assert) -> None:
        if isinstance(part, Request):
            return self.request(part)
        x, y, p = part.speaker, part.hearer, part.p
        match p:
            case Always(Not(PWAG(holder, _, Done(doer, a), _))) if holder == x == doer:
                return self.refuse(x, y, a)
            case PWAG(holder, _, Done(doer, a), _) if holder == x == doer:
                return self.confirm(x, y, a)
            case WAG(holder, _, Done(doer, a), q) | PWAG(holder, _, Done(doer, a), q) if holder == x and doer == y:
                # "x wants y to do a": the paper's other form of A:Accept (6→3), a request in all
                # but form; it has REQ's effects (and preconditions) wherever REQ may be performed
                return self.request(Request(x, y, a, show(q)))
            case Implies(Requested(_, _, a1, _), PWAG()):
                return self.offer(x, y, a1)
            case Not(Implies(Requested(_, _, a1, _), PWAG())):
                return self.withdraw_offer(x, y, a1)
            case Always(Not(Requested(_, _, a1, _))):
                return self.reject_offer(x, y, a1)
            case Not(WAG(holder, _, Done(doer, a), _)) if holder == x and doer == y:
                return self.withdraw(x, y, a)
            case Always(Not(Goal(holder, Eventually(Done(doer, a))))) if holder == x == doer:
                return self.give_up(x, y, a, "reneged")
            case Always(Not(Done(doer, a))) if doer == x:
                return self.give_up(x, y, a, "impossible")
            case Done(doer, a) if doer == x:
                return self.report(x, y, a)
            case Bel(believer, Done(doer, a)) if believer == x and doer == y:
                return self.declare(x, y, a, done=True)
            case Not(Done(doer, a)) if doer == y:
                return self.declare(x, y, a, done=False)
        return None  # an assertion of some other fact: believed, no commitment

    def request(self, part: Request) -> None:
        x, y, a = part.speaker, part.hearer, part.action
        t = self.t
        offer = t.find("offer", y, a)
        if offer is None and t.acts and not self.earlier(Always):
            pending = t.find("offer", y)
            if pending is not None:
                raise self.reject(f"{y} offered {pending.action!r}, not {a!r}: accept that, or decline it first")
            raise self.reject(f"{x} may request only to open a conversation, to accept an offer, or "
                              "after declining one")
        if t.find("pwag", x, doer=y) is not None:
            raise self.reject(f"{x} already has a request outstanding")
        pa = self.new("pwag", x, y, a, show(PWAG(x, y, Done(y, a), part.q)), doer=y)
        if offer is not None:  # the conditional offer fires: y now holds the PWAG (6→3)
            self.close(offer, "superseded")
            self.new("pwag", y, x, a, show(PWAG(y, x, Done(y, a), f"P_{x}")), relative_to=pa.id)
        else:
            self.new("expect", y, x, a, f"the request {a!r}", relative_to=pa.id, doer=y)

    def _pending_request(self, x: str, y: str, a: str, what: str) -> Commitment:
        pa = self.t.find("pwag", y, a, doer=x)
        if pa is None:
            raise self.reject(f"{x} can {what} only a request of {y}'s that is outstanding (none for {a!r})")
        if self.t.find("pwag", x, doer=x) is not None:
            raise self.reject(f"{x} has already promised")
        return pa

    def refuse(self, x: str, y: str, a: str) -> None:
        pa = self._pending_request(x, y, a, "refuse")
        self.close(pa, "countered" if self.later_offer() else "refused")
        self.answered(x)

    def confirm(self, x: str, y: str, a: str) -> None:
        pa = self._pending_request(x, y, a, "promise")
        self.new("pwag", x, y, a, show(PWAG(x, y, Done(x, a), f"P_{y}")), relative_to=pa.id)
        self.answered(x)

    def offer(self, x: str, y: str, a1: str) -> None:
        opening = not self.t.acts and self.index == 0 and x == self.t.responder
        if not opening and not (self.index > 0 and self.earlier(Always)):
            raise self.reject("an offer must open a conversation (a proposal) or follow the refusal of "
                              "a request in the same act (a counteroffer)")
        if self.t.find("offer", x) is not None:
            raise self.reject(f"{x} already has an offer outstanding")
        self.new("offer", x, y, a1, f"if {y} requests {a1!r}, {x} will adopt PWAG to do it")

    def withdraw_offer(self, x: str, y: str, a1: str) -> None:
        offer = self.t.find("offer", x, a1)
        if offer is None:
            raise self.reject(f"{x} has no outstanding offer of {a1!r} to withdraw")
        self.close(offer, "offer_withdrawn")

    def reject_offer(self, x: str, y: str, a1: str) -> None:
        offer = self.t.find("offer", y, a1)
        if offer is None:
            raise self.reject(f"{y} has no outstanding offer of {a1!r} for {x} to reject")
        self.close(offer, "declined_offer")

    def withdraw(self, x: str, y: str, a: str) -> None:
        pa = self.t.find("pwag", x, a, doer=y)
        if pa is None:
            raise self.reject(f"{x} has no outstanding request of {a!r} to withdraw")
        self.close(pa, "withdrawn")
        for r in self.t.records:
            if r.active and r.holder == y and r.action == a:
                self.close(r, "irrelevant" if r.kind != "expect" else "withdrawn")

    def give_up(self, x: str, y: str, a: str, reason: str) -> None:
        pb = self.t.find("pwag", x, a, doer=x)
        if pb is None:
            raise self.reject(f"{x} has not promised {a!r}, so has nothing to "
                              + ("renege on" if reason == "reneged" else "fail at"))
        if self.t.find("duty", x, a) is not None:
            raise self.reject(f"{x} has already reported {a!r} done; only {y} may act now")
        self.close(pb, reason, violated=reason == "reneged")
        pa = self.t.find("pwag", y, a, doer=x)
        if pa is not None:
            self.close(pa, "impossible")

    def report(self, x: str, y: str, a: str) -> None:
        pb = self.t.find("pwag", x, a, doer=x)
        if pb is None:
            raise self.reject(f"{x} has not promised {a!r}, so cannot report it done")
        if self.t.find("duty", x, a) is not None:
            raise self.reject(f"{x} has already reported {a!r} done and awaits {y}'s declaration")
        if pb.owes_inform == "achieved":   # the report is the assertion that duty called for
            self.undo.append((pb, (pb.status, pb.reason, pb.discharged_by, pb.violated, pb.owes_inform)))
            pb.owes_inform = None
        self.new("duty", x, y, a, f"make it mutually believed that {show(Done(x, a))}")

    def declare(self, x: str, y: str, a: str, done: bool) -> None:
        duty = self.t.find("duty", y, a)
        if duty is None:
            raise self.reject(f"{y} has not reported {a!r} done, so {x} has nothing to declare")
        if done:
            for r in self.t.records:
                if r.active and r.action == a:
                    self.close(r, "achieved")
        else:
            self.close(duty, "superseded")
