"""Communicative acts with meaning (Smith & Cohen): two primitives, REQUEST and ASSERT, and
every other act built from them by specialising an assertion's content or by sequencing.

Propositions are small frozen values (``Done``, ``Not``, ``Always``, ``PWAG`` ...), so the
commitment tracker reads an act's effects from what it asserts rather than from its name,
and a new act is a new composition: ``counteroffer = refuse.then(offer)``.
"""

from __future__ import annotations

from dataclasses import dataclass


# ---- propositions ---------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class Done:
    """(DONE agent action): the agent has done the action."""
    agent: str
    action: str


@dataclass(frozen=True, slots=True)
class Not:
    p: Prop


@dataclass(frozen=True, slots=True)
class Always:
    """□p: p holds from now on."""
    p: Prop


@dataclass(frozen=True, slots=True)
class Eventually:
    """◇p."""
    p: Prop


@dataclass(frozen=True, slots=True)
class Bel:
    agent: str
    p: Prop


@dataclass(frozen=True, slots=True)
class Goal:
    agent: str
    p: Prop


@dataclass(frozen=True, slots=True)
class WAG:
    """(WAG holder other p q): a weak achievement goal relative to q."""
    holder: str
    other: str
    p: Prop
    q: Prop | str


@dataclass(frozen=True, slots=True)
class PWAG:
    """(PWAG holder other p q): a persistent weak achievement goal (Def 2)."""
    holder: str
    other: str
    p: Prop
    q: Prop | str


@dataclass(frozen=True, slots=True)
class Requested:
    """(DONE (REQ x y e a q)): x has requested y to do a."""
    x: str
    y: str
    action: str
    q: str = "q"


@dataclass(frozen=True, slots=True)
class Implies:
    if_: Prop
    then: Prop


@dataclass(frozen=True, slots=True)
class Fact:
    """Any other content: asserted, believed, but creating no commitment."""
    text: str


Prop = Done | Not | Always | Eventually | Bel | Goal | WAG | PWAG | Requested | Implies | Fact


def show(p: Prop | str) -> str:
    """The paper's notation for a proposition."""
    if isinstance(p, str):
        return p
    if isinstance(p, Done):
        return f"(DONE {p.agent} {p.action})"
    if isinstance(p, Not):
        return f"¬{show(p.p)}"
    if isinstance(p, Always):
        return f"□{show(p.p)}"
    if isinstance(p, Eventually):
        return f"◇{show(p.p)}"
    if isinstance(p, (Bel, Goal)):
        return f"({type(p).__name__.upper()} {p.agent} {show(p.p)})"
    if isinstance(p, (WAG, PWAG)):
        return f"({type(p).__name__} {p.holder} {p.other} {show(p.p)} {show(p.q)})"
    if isinstance(p, Requested):
        return f"(DONE (REQ {p.x} {p.y} {p.action} {p.q}))"
    if isinstance(p, Implies):
        return f"[{show(p.if_)} ⇒ {show(p.then)}]"
    return repr(p.text)


# ---- the two primitives ---------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class Request:
    """(REQ x y e a q), Def 4: x attempts to get y to do a, relative to q."""
    speaker: str
    hearer: str
    action: str
    q: str = "q"

    def __str__(self) -> str:
        return f"REQ {self.speaker} {self.hearer} {self.action} {self.q}"


@dataclass(frozen=True, slots=True)
class Assert:
    """(ASSERT x y e p), Def 5: x attempts to make it mutually believed that x believes p."""
    speaker: str
    hearer: str
    p: Prop

    def __str__(self) -> str:
        return f"ASSERT {self.speaker} {self.hearer} {show(self.p)}"


Primitive = Request | Assert


@dataclass(frozen=True, slots=True)
class Act:
    """A named communicative act: a sequence of primitives (``a;b``)."""
    name: str
    parts: tuple[Primitive, ...]

    def then(self, other: Act, name: str | None = None) -> Act:
        """Sequencing, the paper's way of building new acts: ``REFUSE;ASSERT``."""
        return Act(name or f"{self.name};{other.name}", self.parts + other.parts)

    def named(self, name: str) -> Act:
        return Act(name, self.parts)

    def __str__(self) -> str:
        return f"{self.name} = " + " ; ".join(str(p) for p in self.parts)


# ---- acts defined from the primitives (x requester / A, y performer / B) --------------------
def request(x: str, y: str, a: str, q: str = "q") -> Act:
    return Act("request", (Request(x, y, a, q),))


def inform(x: str, y: str, text: str) -> Act:
    """A plain assertion of some fact: believed, no commitment created."""
    return Act("inform", (Assert(x, y, Fact(text)),))


def query(x: str, y: str, p: str, q: str = "q") -> Act:
    """Embedding, the paper's third way to build acts: x requests that y perform an
    assertion, (REQ x y (ASSERT y x p) q) -- FIPA query-if / query-ref."""
    return Act("query", (Request(x, y, str(Assert(y, x, Fact(p))), q),))


def _pwag_of_request(x: str, y: str, a: str, q: str) -> PWAG:
    return PWAG(x, y, Done(y, a), q)


def refuse(y: str, x: str, a: str, q: str = "q") -> Act:
    """Def 6: ASSERT y x □¬(PWAG y x (DONE y a) (PWAG x y (DONE y a) q))."""
    return Act("refuse", (Assert(y, x, Always(Not(PWAG(y, x, Done(y, a), _pwag_of_request(x, y, a, q))))),))


def confirm(y: str, x: str, a: str, q: str = "q") -> Act:
    """Def 7 (W&F Promise, FIPA agree): ASSERT y x (PWAG y x (DONE y a) (PWAG x y (DONE y a) q))."""
    return Act("promise", (Assert(y, x, PWAG(y, x, Done(y, a), _pwag_of_request(x, y, a, q))),))


def offer(y: str, x: str, a1: str, q: str = "q") -> Act:
    """The ASSERT half of Def 8: if x requests a1, y will PWAG to do a1."""
    return Act("offer", (Assert(y, x, _offered(y, x, a1, q)),))


def _offered(y: str, x: str, a1: str, q: str) -> Implies:
    return Implies(Requested(x, y, a1, q), PWAG(y, x, Done(y, a1), WAG(x, y, Done(y, a1), q)))


def counteroffer(y: str, x: str, a: str, a1: str, q: str = "q") -> Act:
    """Def 8: (CO y x a a1 q) = (REFUSE y x a) ; (ASSERT y x offer-of-a1)."""
    return refuse(y, x, a, q).then(offer(y, x, a1, q), "counter")


def accept(x: str, y: str, a1: str, q: str = "q") -> Act:
    """W&F 6→3: accepting y's offer is requesting a1 (which fires the offer)."""
    return request(x, y, a1, q).named("accept")


def accept_by_assert(x: str, y: str, a1: str, q: str = "q") -> Act:
    """W&F 6→3 in the paper's other form: ASSERT x y (WAG x y (DONE y a1) q), x asserts it
    wants y to do a1, which "will accomplish the same goals" as the REQ: the offer fires."""
    return Act("accept", (Assert(x, y, WAG(x, y, Done(y, a1), q)),))


def reject_offer(x: str, y: str, a1: str, q: str = "q") -> Act:
    """W&F 6→8 A:Reject: x asserts it will never request a1."""
    return Act("reject", (Assert(x, y, Always(Not(Requested(x, y, a1, q)))),))


def counter_counter(x: str, y: str, a1: str, a2: str, q: str = "q") -> Act:
    """W&F 6→2 A:Counter: decline the offer of a1, then request a2."""
    return reject_offer(x, y, a1, q).then(request(x, y, a2, q), "counter")


def withdraw_offer(y: str, x: str, a1: str, q: str = "q") -> Act:
    """W&F 6→8 B:Withdraw: y retracts its conditional offer."""
    return Act("withdraw", (Assert(y, x, Not(_offered(y, x, a1, q))),))


def withdraw(x: str, y: str, a: str, q: str = "q") -> Act:
    """W&F A:Withdraw: ASSERT x y ¬(WAG x y (DONE y a) q)."""
    return Act("withdraw", (Assert(x, y, Not(WAG(x, y, Done(y, a), q))),))


def renege(y: str, x: str, a: str) -> Act:
    """W&F 3→7 B:Renege: ASSERT y x □¬(GOAL y ◇(DONE y a)). The team is violated (fn 5)."""
    return Act("renege", (Assert(y, x, Always(Not(Goal(y, Eventually(Done(y, a)))))),))


def fail(y: str, x: str, a: str) -> Act:
    """FIPA failure: y asserts a has become impossible, □¬(DONE y a). Unlike renege, not a
    change of mind: the persistent goals are dropped as impossible, not violated."""
    return Act("fail", (Assert(y, x, Always(Not(Done(y, a)))),))


def report_done(y: str, x: str, a: str) -> Act:
    """W&F 3→4 B:Assert: ASSERT y x (DONE y a)."""
    return Act("assert", (Assert(y, x, Done(y, a)),))


def declare_done(x: str, y: str, a: str) -> Act:
    """W&F 4→5 A:Declare (satisfied): ASSERT x y (BEL x (DONE y a)); Thm 5."""
    return Act("declare", (Assert(x, y, Bel(x, Done(y, a))),))


def declare_not_done(x: str, y: str, a: str) -> Act:
    """W&F 4→3 A:Declare (not satisfied): ASSERT x y ¬(DONE y a)."""
    return Act("declare-not", (Assert(x, y, Not(Done(y, a))),))


def promise_and_report(y: str, x: str, a: str, q: str = "q") -> Act:
    """FIPA's inform without a prior agree: CONFIRM ; ASSERT done (2→3→4 in one message)."""
    return confirm(y, x, a, q).then(report_done(y, x, a), "promise;assert")


def english(act: Act) -> str:
    """The act in plain words, for people taking part (the paper wants the same acts to
    serve humans and agents)."""
    return "; then ".join(_say(p) for p in act.parts)


def _say(part: Primitive) -> str:
    if isinstance(part, Request):
        embedded = f"ASSERT {part.hearer} {part.speaker} "
        if part.action.startswith(embedded):  # a query: a request for an assertion
            return f"{part.speaker} asks {part.hearer} to tell it {part.action[len(embedded):]}"
        return f"{part.speaker} asks {part.hearer} to do {part.action}"
    x, y, p = part.speaker, part.hearer, part.p
    match p:
        case Always(Not(PWAG(_, _, Done(_, a), _))):
            return f"{x} tells {y} it will not commit to {a} as asked"
        case PWAG(holder, _, Done(doer, a), _) if holder == doer:
            return f"{x} promises {y} to do {a}"
        case Implies(Requested(_, _, a1, _), _):
            return f"{x} offers to do {a1} if {y} asks"
        case Not(Implies(Requested(_, _, a1, _), _)):
            return f"{x} withdraws its offer to do {a1}"
        case Always(Not(Requested(_, _, a1, _))):
            return f"{x} tells {y} it will not ask for {a1}"
        case Not(WAG(_, _, Done(_, a), _)):
            return f"{x} tells {y} it no longer wants {a} done"
        case WAG(_, _, Done(_, a), _) | PWAG(_, _, Done(_, a), _):
            return f"{x} tells {y} it wants {a} done"
        case Always(Not(Goal(_, Eventually(Done(_, a))))):
            return f"{x} tells {y} it no longer intends to do {a}"
        case Always(Not(Done(_, a))):
            return f"{x} tells {y} that {a} cannot be done"
        case Done(_, a):
            return f"{x} tells {y} it has done {a}"
        case Bel(_, Done(_, a)):
            return f"{x} tells {y} it agrees {a} is done"
        case Not(Done(_, a)):
            return f"{x} tells {y} that {a} is not done yet"
        case Fact(text):
            return f"{x} tells {y}: {text}"
    return f"{x} tells {y} that {show(p)}"


ACTS = {
    # name -> (constructor, who speaks: "A" requester / "B" performer, arguments it takes)
    "request": (request, "A"), "promise": (confirm, "B"), "refuse": (refuse, "B"),
    "counter": (counteroffer, "B"), "accept": (accept, "A"), "accept-assert": (accept_by_assert, "A"),
    "reject": (reject_offer, "A"),
    "counter-counter": (counter_counter, "A"), "withdraw-offer": (withdraw_offer, "B"),
    "withdraw": (withdraw, "A"), "renege": (renege, "B"), "fail": (fail, "B"),
    "assert": (report_done, "B"), "declare": (declare_done, "A"),
    "declare-not": (declare_not_done, "A"), "promise;assert": (promise_and_report, "B"),
    "inform": (inform, "*"), "query": (query, "A"), "offer": (offer, "B"),
}

# paper / W&F act -> (FIPA performative, KQML performative or None); CONFIRM is FIPA agree.
PERFORMATIVE_MAP: dict[str, tuple[str, str | None]] = {
    "request": ("request", "achieve"),
    "query": ("query-ref", "ask-one"),
    "inform": ("inform", "tell"),
    "promise": ("agree", None),
    "refuse": ("refuse", "sorry"),
    "counter": ("propose", None),
    "offer": ("propose", None),
    "accept": ("accept-proposal", None),
    "accept-assert": ("inform", "tell"),
    "reject": ("reject-proposal", None),
    "counter-counter": ("request", None),
    "withdraw": ("cancel", "unachieve"),
    "withdraw-offer": ("cancel", None),
    "renege": ("inform", "untell"),
    "fail": ("failure", "sorry"),
    "assert": ("inform", "tell"),
    "declare-not": ("disconfirm", "deny"),
    "declare": ("inform", "tell"),
    "promise;assert": ("inform", "tell"),
}


def fipa_performative(act: str) -> str:
    return PERFORMATIVE_MAP[act][0]


def kqml_performative(act: str) -> str | None:
    return PERFORMATIVE_MAP[act][1]
