"""Interaction protocols as data, each state annotated with its commitment state, and a
checker that explores a protocol against the commitment tracker.

A protocol is a set of arcs ``source --role: performative [act]--> target``. Winograd and
Flores' conversation for action is the 15-arc table of the reference notes (and the
ASSERT form of A:Accept the paper names beside it); FIPA Request,
Query, Contract Net (and Iterated), and Subscribe are written the same way, with the
acknowledgement the paper's Theorem 5 calls for. Every state names the W&F state its
commitments must be in, so the one engine can check the protocol against the tracker.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ..registry import Registry, UnknownName
from . import acts as A
from .tracker import FINAL_STATES, Rejected, Thread, Tracker


class ProtocolError(Rejected):
    """A protocol written as data is malformed; the text names the part."""


INITIATOR = "initiator"
PARTICIPANT = "participant"


@dataclass(frozen=True, slots=True)
class Arc:
    source: str
    target: str
    role: str          # who speaks: "initiator" (W&F's A) or "participant" (B)
    performative: str  # the FIPA performative on the wire
    act: str           # the act it performs (a key of acts.ACTS)
    label: str = ""    # the figure's label


@dataclass(frozen=True, slots=True)
class Protocol:
    name: str
    initial: str
    arcs: tuple[Arc, ...]
    states: dict[str, int]   # protocol state -> W&F state its commitments must be in
    opening: tuple[str, ...] = ()  # performatives that open it

    @property
    def final(self) -> frozenset[str]:
        return frozenset(s for s, wf in self.states.items() if wf in FINAL_STATES)

    def arcs_from(self, state: str, role: str, performative: str, act: str | None = None) -> list[Arc]:
        return [a for a in self.arcs if a.source == state and a.role == role
                and a.performative == performative and (act is None or a.act == act)]

    def expected(self, state: str) -> list[str]:
        return [f"{a.role} {a.performative}" + (f" [X-act {a.act}]" if self._needs_act(a) else "")
                for a in self.arcs if a.source == state]

    def _needs_act(self, arc: Arc) -> bool:
        same = [a for a in self.arcs if a.source == arc.source and a.role == arc.role
                and a.performative == arc.performative]
        return same.index(arc) > 0


def _arcs(rows: Sequence[tuple[str, ...]]) -> tuple[Arc, ...]:
    return tuple(Arc(*row) for row in rows)


INIT, PART = INITIATOR, PARTICIPANT  # short, for the tables below

CONVERSATION_FOR_ACTION = Protocol(
    "wf-conversation-for-action", "1",
    _arcs([
        ("1", "2", INIT, "request", "request", "A: Request"),
        ("2", "3", PART, "agree", "promise", "B: Promise"),
        ("2", "6", PART, "propose", "counter", "B: Counter"),
        ("2", "8", PART, "refuse", "refuse", "B: Reject"),
        ("2", "8", INIT, "cancel", "withdraw", "A: Withdraw"),
        ("6", "2", INIT, "request", "counter-counter", "A: Counter"),
        ("6", "3", INIT, "accept-proposal", "accept", "A: Accept"),
        ("6", "3", INIT, "inform", "accept-assert", "A: Accept (ASSERT A wants B to do a1)"),
        ("6", "8", INIT, "reject-proposal", "reject", "A: Reject"),
        ("6", "8", PART, "cancel", "withdraw-offer", "B: Withdraw"),
        ("3", "4", PART, "inform", "assert", "B: Assert"),
        ("3", "7", PART, "inform", "renege", "B: Renege"),
        ("3", "9", INIT, "cancel", "withdraw", "A: Withdraw"),
        ("4", "5", INIT, "inform", "declare", "A: Declare"),
        ("4", "3", INIT, "disconfirm", "declare-not", "A: Declare"),
        ("4", "9", INIT, "cancel", "withdraw", "A: Withdraw"),
    ]),
    {str(n): n for n in range(1, 10)},
    ("request",),
)


def _request_like(name: str, opening: str) -> Protocol:
    return Protocol(name, "start", _arcs([
        ("start", "requested", INIT, opening, "request"),
        ("requested", "agreed", PART, "agree", "promise"),
        ("requested", "refused", PART, "refuse", "refuse"),
        ("requested", "done", PART, "inform", "promise;assert"),
        ("requested", "failed", PART, "failure", "promise;fail"),
        ("requested", "cancelled", INIT, "cancel", "withdraw"),
        ("agreed", "done", PART, "inform", "assert"),
        ("agreed", "failed", PART, "failure", "fail"),
        ("agreed", "reneged", PART, "inform", "renege"),
        ("agreed", "cancelled-team", INIT, "cancel", "withdraw"),
        ("done", "acknowledged", INIT, "inform", "declare"),
        ("done", "agreed", INIT, "disconfirm", "declare-not"),
        ("done", "cancelled-team", INIT, "cancel", "withdraw"),
    ]), {"start": 1, "requested": 2, "agreed": 3, "done": 4, "acknowledged": 5, "refused": 8,
         "failed": 7, "reneged": 7, "cancelled": 8, "cancelled-team": 9}, (opening,))


FIPA_REQUEST = _request_like("fipa-request", "request")
FIPA_QUERY = Protocol("fipa-query", "start", FIPA_REQUEST.arcs[1:] + _arcs([
    ("start", "requested", INIT, "query-if", "query"),
    ("start", "requested", INIT, "query-ref", "query"),
]), FIPA_REQUEST.states, ("query-if", "query-ref"))

_CNP_ARCS = [
    ("start", "cfp-sent", INIT, "cfp", "request"),
    ("cfp-sent", "proposed", PART, "propose", "counter"),
    ("cfp-sent", "refused", PART, "refuse", "refuse"),
    ("cfp-sent", "cancelled", INIT, "cancel", "withdraw"),
    ("proposed", "accepted", INIT, "accept-proposal", "accept"),
    ("proposed", "rejected", INIT, "reject-proposal", "reject"),
    ("proposed", "rejected", INIT, "cancel", "reject"),   # FIPA's cancel, any time: declines the offer
    ("proposed", "withdrawn", PART, "cancel", "withdraw-offer"),
    ("accepted", "done", PART, "inform", "assert"),
    ("accepted", "failed", PART, "failure", "fail"),
    ("accepted", "reneged", PART, "inform", "renege"),
    ("accepted", "cancelled-team", INIT, "cancel", "withdraw"),
    ("done", "closed", INIT, "inform", "declare"),
    ("done", "accepted", INIT, "disconfirm", "declare-not"),
    ("done", "cancelled-team", INIT, "cancel", "withdraw"),
]
_CNP_STATES = {"start": 1, "cfp-sent": 2, "proposed": 6, "accepted": 3, "done": 4, "closed": 5,
               "refused": 8, "rejected": 8, "withdrawn": 8, "cancelled": 8, "failed": 7,
               "reneged": 7, "cancelled-team": 9}
FIPA_CONTRACT_NET = Protocol("fipa-contract-net", "start", _arcs(_CNP_ARCS), _CNP_STATES, ("cfp",))
FIPA_ITERATED_CONTRACT_NET = Protocol(
    "fipa-iterated-contract-net", "start",
    _arcs(_CNP_ARCS + [("proposed", "cfp-sent", INIT, "cfp", "counter-counter")]), _CNP_STATES, ("cfp",))

FIPA_SUBSCRIBE = Protocol("fipa-subscribe", "start", _arcs([
    ("start", "requested", INIT, "subscribe", "request"),
    ("requested", "agreed", PART, "agree", "promise"),
    ("requested", "refused", PART, "refuse", "refuse"),
    ("requested", "cancelled", INIT, "cancel", "withdraw"),
    ("agreed", "agreed", PART, "inform", "inform"),        # inform-result on each change
    ("agreed", "failed", PART, "failure", "fail"),
    ("agreed", "reneged", PART, "inform", "renege"),
    ("agreed", "cancelled-team", INIT, "cancel", "withdraw"),
]), {"start": 1, "requested": 2, "agreed": 3, "refused": 8, "cancelled": 8, "failed": 7,
     "reneged": 7, "cancelled-team": 9}, ("subscribe",))

# FIPA Propose (SC00036): a conversation opened by an offer. The proposer is W&F's B (it will
# do the action), the receiver its A: accepting requests the action, which fires the offer
# (a team at once, 6→3); then the work goes on as in the conversation for action.
FIPA_PROPOSE = Protocol("fipa-propose", "start", _arcs([
    ("start", "proposed", INIT, "propose", "offer"),
    ("proposed", "accepted", PART, "accept-proposal", "accept"),
    ("proposed", "rejected", PART, "reject-proposal", "reject"),
    ("proposed", "withdrawn", INIT, "cancel", "withdraw-offer"),
    ("accepted", "done", INIT, "inform", "assert"),
    ("accepted", "failed", INIT, "failure", "fail"),
    ("accepted", "reneged", INIT, "inform", "renege"),
    ("accepted", "cancelled-team", PART, "cancel", "withdraw"),
    ("done", "closed", PART, "inform", "declare"),
    ("done", "accepted", PART, "disconfirm", "declare-not"),
    ("done", "cancelled-team", PART, "cancel", "withdraw"),
]), {"start": 1, "proposed": 6, "accepted": 3, "done": 4, "closed": 5, "rejected": 8, "withdrawn": 8,
     "failed": 7, "reneged": 7, "cancelled-team": 9}, ("propose",))

PROTOCOLS: Registry[Protocol] = Registry("protocol", group="wwm.acl_protocols")
for _protocol in (CONVERSATION_FOR_ACTION, FIPA_REQUEST, FIPA_QUERY, FIPA_CONTRACT_NET,
                  FIPA_ITERATED_CONTRACT_NET, FIPA_SUBSCRIBE, FIPA_PROPOSE):
    PROTOCOLS.register(_protocol)
DEFAULT_PROTOCOL = CONVERSATION_FOR_ACTION.name


def protocol_named(name: str | None) -> Protocol:
    if name is None:
        return PROTOCOLS[DEFAULT_PROTOCOL]
    try:
        return PROTOCOLS.lookup(name)
    except UnknownName:
        raise Rejected(f"unknown protocol {name!r} (known: {', '.join(PROTOCOLS)})") from None


# ---- from an arc to an act with meaning ---------------------------------------------------
def build_act(name: str, speaker: str, hearer: str, thread: Thread | None, content: str | None) -> A.Act:
    """The act an arc performs, its arguments bound from the message and the records (the
    action promised is the one requested; the one accepted is the one offered)."""
    t = thread or Thread("", speaker, hearer)

    def held(kind: str, holder: str, what: str, doer: str | None = None) -> str:
        record = t.find(kind, holder, doer=doer)
        if record is None:
            raise Rejected(f"{name}: {holder} has no outstanding {what}")
        return record.action

    def text(what: str) -> str:
        if not content:
            raise Rejected(f"{name}: the content must say {what}")
        return content

    if name == "request":
        return A.request(speaker, hearer, text("the action requested"))
    if name == "query":
        return A.query(speaker, hearer, text("what is asked"))
    if name in ("promise", "refuse", "promise;assert"):
        a = held("pwag", hearer, "request", speaker)
        answer = {"promise": A.confirm, "refuse": A.refuse, "promise;assert": A.promise_and_report}[name]
        return answer(speaker, hearer, a)
    if name == "promise;fail":
        a = held("pwag", hearer, "request", speaker)
        return A.confirm(speaker, hearer, a).then(A.fail(speaker, hearer, a), name)
    if name == "counter":
        a = held("pwag", hearer, "request", speaker)
        return A.counteroffer(speaker, hearer, a, content or a)
    if name == "accept":
        return A.accept(speaker, hearer, held("offer", hearer, "offer"))
    if name == "accept-assert":
        return A.accept_by_assert(speaker, hearer, held("offer", hearer, "offer"))
    if name == "reject":
        return A.reject_offer(speaker, hearer, held("offer", hearer, "offer"))
    if name == "counter-counter":
        return A.counter_counter(speaker, hearer, held("offer", hearer, "offer"), text("the new action requested"))
    if name == "withdraw-offer":
        return A.withdraw_offer(speaker, hearer, held("offer", speaker, "offer"))
    if name == "withdraw":
        return A.withdraw(speaker, hearer, held("pwag", speaker, "request", hearer))
    if name in ("renege", "fail", "assert"):
        a = held("pwag", speaker, "promise", speaker)
        return {"renege": A.renege, "fail": A.fail, "assert": A.report_done}[name](speaker, hearer, a)
    if name in ("declare", "declare-not"):
        a = held("duty", hearer, "report of completion")
        return (A.declare_done if name == "declare" else A.declare_not_done)(speaker, hearer, a)
    if name == "inform":
        return A.inform(speaker, hearer, content or "")
    if name == "offer":
        return A.offer(speaker, hearer, text("the action offered"))
    raise Rejected(f"unknown act {name!r}")


# ---- the checker ----------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class Finding:
    protocol: str
    path: tuple[str, ...]
    problem: str

    def __str__(self) -> str:
        return f"{self.protocol}: after {' → '.join(self.path) or '(start)'}: {self.problem}"


def check(protocol: Protocol, max_depth: int = 12) -> list[Finding]:
    """Explore every path of ``protocol`` (loops unrolled up to ``max_depth`` arcs) through a
    real tracker and report: arcs the tracker rejects, states whose commitments differ from
    their annotation, final states that leave an obligation, non-final states that hold
    none, and non-final states with no way out ("missing arcs")."""
    findings: list[Finding] = []
    seen: set[tuple[str, int | None, tuple[tuple[str, str], ...]]] = set()  # state, W&F state, commitments
    queue: deque[tuple[str, tuple[Arc, ...]]] = deque([(protocol.initial, ())])
    while queue:
        state, path = queue.popleft()
        labels = tuple(f"{a.role[0].upper()}:{a.performative}[{a.act}]" for a in path)
        tracker, thread = _replay(path)
        wf = thread.state if thread is not None else 1
        key = (state, wf, tuple(sorted((r.kind, r.holder) for r in (thread.active() if thread else []))))
        if key in seen:
            continue
        seen.add(key)
        if protocol.states.get(state) != wf:
            findings.append(Finding(protocol.name, labels,
                                    f"state {state!r} is annotated W&F {protocol.states.get(state)} "
                                    f"but the commitments say {wf}"))
        active = thread.active() if thread else []
        if state in protocol.final and active:
            findings.append(Finding(protocol.name, labels, f"final state {state!r} leaves obligations: "
                                    + "; ".join(r.describe() for r in active)))
        out = [a for a in protocol.arcs if a.source == state]
        if state not in protocol.final and path and not active:
            findings.append(Finding(protocol.name, labels, f"state {state!r} is not final but holds no commitment"))
        if state not in protocol.final and not out:
            stuck = [r.describe() for r in active]
            findings.append(Finding(protocol.name, labels, f"state {state!r} is not final and has no arc out "
                                    f"(missing arc: commitments {stuck} cannot be discharged)"))
        if len(path) >= max_depth:
            continue
        for arc in out:
            try:
                _replay(path + (arc,))
            except Rejected as exc:
                findings.append(Finding(protocol.name, labels, f"the tracker rejects {arc.role}'s "
                                        f"{arc.performative} [{arc.act}] from {state!r}: {exc}"))
                continue
            queue.append((arc.target, path + (arc,)))
    return findings


def _replay(path: tuple[Arc, ...]) -> tuple[Tracker, Thread | None]:
    tracker = Tracker()
    thread = None
    for n, arc in enumerate(path):
        speaker, hearer = ("A", "B") if arc.role == INITIATOR else ("B", "A")
        act = build_act(arc.act, speaker, hearer, thread, f"a{n}")
        thread = tracker.apply(act, "c", f"m{n}")
    return tracker, thread


# ---- protocols from files ---------------------------------------------------------------------
def to_dict(protocol: Protocol) -> dict[str, Any]:
    """The protocol as plain data (what :func:`from_dict` and protocol files hold)."""
    return {"name": protocol.name, "initial": protocol.initial, "states": dict(protocol.states),
            "opening": list(protocol.opening),
            "arcs": [{"from": a.source, "to": a.target, "role": a.role, "performative": a.performative,
                      "act": a.act, **({"label": a.label} if a.label else {})} for a in protocol.arcs]}


def from_dict(doc: object) -> Protocol:
    """A protocol from plain data; :class:`ProtocolError` names what is wrong."""
    from .message import PERFORMATIVES

    if not isinstance(doc, dict):
        raise ProtocolError("a protocol must be a mapping with name, initial, states and arcs")
    for key in ("name", "initial", "states", "arcs"):
        if key not in doc:
            raise ProtocolError(f"a protocol needs {key!r}")
    states = doc["states"]
    if not isinstance(states, dict) or not all(
            type(v) is int and 1 <= v <= 9 and isinstance(k, (str, int)) for k, v in states.items()):
        raise ProtocolError("'states' must map each state to its W&F state (a number 1 to 9)")
    if not isinstance(doc["initial"], (str, int)) or doc["initial"] not in states:
        raise ProtocolError(f"the initial state {doc['initial']!r} is not among the states")
    arcs = []
    for n, arc in enumerate(doc["arcs"] if isinstance(doc["arcs"], list) else [None]):
        where = f"arc {n + 1}"
        if not isinstance(arc, dict):
            raise ProtocolError(f"{where} must be a mapping with from, to, role, performative, act")
        missing = [k for k in ("from", "to", "role", "performative", "act") if k not in arc]
        if missing:
            raise ProtocolError(f"{where} lacks {', '.join(missing)}")
        wrong = [k for k in ("from", "to", "role", "performative", "act")
                 if not isinstance(arc[k], (str, int)) or isinstance(arc[k], bool)]
        if wrong:
            raise ProtocolError(f"{where}: {', '.join(wrong)} must be a name, not a list or mapping")
        for end in ("from", "to"):
            if arc[end] not in states:
                raise ProtocolError(f"{where}: state {arc[end]!r} is not among the states")
        if arc["role"] not in (INITIATOR, PARTICIPANT):
            raise ProtocolError(f"{where}: role must be initiator or participant, not {arc['role']!r}")
        if arc["performative"] not in PERFORMATIVES:
            raise ProtocolError(f"{where}: {arc['performative']!r} is not a FIPA performative")
        if arc["act"] not in A.ACTS and arc["act"] != "promise;fail":
            raise ProtocolError(f"{where}: unknown act {arc['act']!r} (known: {', '.join(sorted(A.ACTS))})")
        arcs.append(Arc(str(arc["from"]), str(arc["to"]), arc["role"], arc["performative"], arc["act"],
                        str(arc.get("label", ""))))
    opening = doc.get("opening") or sorted({a.performative for a in arcs if a.source == str(doc["initial"])})
    if not isinstance(opening, list) or not all(p in PERFORMATIVES for p in opening):
        raise ProtocolError("'opening' must be a list of FIPA performatives")
    opening = tuple(opening)
    return Protocol(str(doc["name"]), str(doc["initial"]), tuple(arcs),
                    {str(k): v for k, v in states.items()}, opening)


def load(path: str) -> Protocol:
    """A protocol from a YAML or JSON file."""
    import yaml

    try:
        with open(path, encoding="utf-8") as f:
            doc = yaml.safe_load(f)
    except yaml.YAMLError as exc:
        where = getattr(exc, "problem_mark", None)
        at = f" (line {where.line + 1}, column {where.column + 1})" if where is not None else ""
        raise ProtocolError(f"{path}: not YAML or JSON{at}: {getattr(exc, 'problem', None) or exc}") from None
    except UnicodeDecodeError as exc:
        raise ProtocolError(f"{path}: not UTF-8 text (byte {exc.start})") from None
    try:
        return from_dict(doc)
    except ProtocolError as exc:
        raise ProtocolError(f"{path}: {exc}") from None


def register(protocol: Protocol) -> Protocol:
    """Make a protocol known to every engine in this process, by its name (the same as
    ``PROTOCOLS.register(protocol)``; another package adds one by an entry point in the
    ``wwm.acl_protocols`` group)."""
    return PROTOCOLS.register(protocol)
