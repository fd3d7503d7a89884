"""The one engine that runs every protocol: each message is checked against its protocol's
arcs and against the commitment tracker, then applied to both, or refused with the reason.

It keeps one :class:`Talk` per conversation thread (one initiator, one participant; a message
to n receivers opens n threads). It handles ``not-understood`` (the attempt named by
``in-reply-to`` failed its minimal result: it is rolled back and noted as unacknowledged) and
crossing messages (sent before the sender saw the other side's latest): both sides put the
participant's message first, so both reach the same state; a message that is then no longer
possible is void on both sides.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .acts import Act
from .clock import Clock
from .message import AclError, ACLMessage
from .protocols import INITIATOR, PARTICIPANT, Arc, Protocol, build_act, protocol_named
from .tracker import FINAL_STATES, Rejected, Thread, Tracker, wf_state


@dataclass(slots=True)
class Talk:
    """The protocol's view of one thread: its state and the messages applied, in order."""

    conversation: str
    initiator: str
    participant: str
    protocol: Protocol
    state: str
    applied: list[tuple[ACLMessage, Arc]] = field(default_factory=list)
    void: list[ACLMessage] = field(default_factory=list)
    unacknowledged: list[ACLMessage] = field(default_factory=list)

    @property
    def final(self) -> bool:
        return self.state in self.protocol.final

    def role(self, agent: str) -> str:
        return INITIATOR if agent == self.initiator else PARTICIPANT


@dataclass(slots=True)
class Verdict:
    """What the engine made of one message on one thread."""

    message: ACLMessage
    sender: str
    receiver: str
    accepted: bool
    arc: Arc | None = None
    before: str | None = None
    after: str | None = None
    reason: str | None = None
    crossed: bool = False
    voided: list[ACLMessage] = field(default_factory=list)
    duplicate: bool = False
    act: Act | None = None   # the act with meaning the message performed

    def __str__(self) -> str:
        head = f"{self.sender} → {self.receiver}: {self.message.performative}"
        if self.arc is not None:
            head += f" [{self.arc.act}] {self.before} → {self.after}"
        if not self.accepted:
            head += f" REFUSED: {self.reason}"
        if self.crossed:
            head += " (crossed)"
        return head


class Engine:
    """Validates and applies messages for one party (``me``) or for an observer (None)."""

    def __init__(self, me: str | None = None, clock: Clock | None = None) -> None:
        self.me = me
        self.tracker = Tracker(clock)
        self.talks: dict[tuple[str, frozenset[str]], Talk] = {}

    # ---- lookup ---------------------------------------------------------------------------
    def talk(self, conversation: str, a: str, b: str) -> Talk | None:
        return self.talks.get((conversation, frozenset((a, b))))

    def talks_of(self, conversation: str) -> list[Talk]:
        return [t for t in self.talks.values() if t.conversation == conversation]

    def thread(self, talk: Talk) -> Thread | None:
        return self.tracker.thread(talk.conversation, talk.initiator, talk.participant)

    # ---- the entry point ------------------------------------------------------------------
    def handle(self, msg: ACLMessage) -> list[Verdict]:
        """Check and apply ``msg`` on every thread it belongs to (from this party's view)."""
        sender = _addressed(msg)
        out = []
        for receiver in msg.receivers:
            if self.me is not None and self.me not in (sender, receiver.name):
                continue
            out.append(self._one(msg, sender, receiver.name))
        return out

    def check(self, msg: ACLMessage) -> None:
        """Raise :class:`Rejected` if this party may not send ``msg`` now (nothing changes)."""
        sender = _addressed(msg)
        for receiver in msg.receivers:
            talk = self.talk(msg.conversation_id or "", sender, receiver.name)
            if msg.performative == "not-understood":
                continue
            if talk is None:
                talk = self._new_talk(msg, sender, receiver.name)
            try:
                arc, act = self._arc(talk, msg, sender)
                self._probe(talk, arc, act)
            except Rejected as exc:
                raise Rejected(f"{msg.performative} to {receiver.name}: {exc}") from None

    def _probe(self, talk: Talk, arc: Arc, act: Act) -> None:
        want = talk.protocol.states[arc.target]
        state = self.tracker.probe(act, talk.conversation)
        if state != want:
            raise Rejected(f"{arc.act}: the commitments would be in W&F state {state}, but "
                           f"{talk.protocol.name} state {arc.target!r} needs {want}")

    def _one(self, msg: ACLMessage, sender: str, receiver: str) -> Verdict:
        conversation = msg.conversation_id or ""
        if msg.performative == "not-understood":
            return self._not_understood(msg, sender, receiver)
        talk = self.talk(conversation, sender, receiver)
        if talk is not None and msg.reply_with and any(
                m.reply_with == msg.reply_with and m.sender == msg.sender for m, _ in talk.applied):
            return Verdict(msg, sender, receiver, True, before=talk.state, after=talk.state,
                           reason="a duplicate of a message already applied", duplicate=True)
        fresh = talk is None
        try:
            if talk is None:
                talk = self._new_talk(msg, sender, receiver)
            before = talk.state
            arc, act = self._step(talk, msg, sender)
        except Rejected as exc:
            if talk is not None and not fresh:
                crossed = self._crossing(talk, msg, sender, receiver)
                if crossed is not None:
                    return crossed
            return Verdict(msg, sender, receiver, False, reason=str(exc))
        if fresh:
            self.talks[(conversation, frozenset((sender, receiver)))] = talk
        return Verdict(msg, sender, receiver, True, arc, before, talk.state, act=act)

    def _new_talk(self, msg: ACLMessage, sender: str, receiver: str) -> Talk:
        protocol = protocol_named(msg.protocol)
        return Talk(msg.conversation_id or "", sender, receiver, protocol, protocol.initial)

    def _arc(self, talk: Talk, msg: ACLMessage, sender: str) -> tuple[Arc, Act]:
        if msg.protocol is not None and msg.protocol.lower() != talk.protocol.name:
            raise Rejected(f"the message says protocol {msg.protocol!r} but this conversation "
                           f"follows {talk.protocol.name}")
        if talk.final:
            raise Rejected(f"the conversation is over (state {talk.state!r} of {talk.protocol.name})")
        role = talk.role(sender)
        arcs = talk.protocol.arcs_from(talk.state, role, msg.performative, msg.act)
        if not arcs:
            expected = ", ".join(talk.protocol.expected(talk.state)) or "nothing"
            named = f" [X-act {msg.act}]" if msg.act else ""
            raise Rejected(f"out of sequence: in state {talk.state!r} of {talk.protocol.name} the "
                           f"{role} may not send {msg.performative}{named} (expected: {expected})")
        arc = arcs[0]
        act = build_act(arc.act, sender, talk.participant if sender == talk.initiator else talk.initiator,
                        self.thread(talk), msg.content)
        return arc, act

    def _step(self, talk: Talk, msg: ACLMessage, sender: str) -> tuple[Arc, Act]:
        arc, act = self._arc(talk, msg, sender)
        want = talk.protocol.states[arc.target]
        try:
            self.tracker.apply(act, talk.conversation, msg.reply_with, msg.reply_by, expect=want)
        except Rejected as exc:
            raise Rejected(f"{exc} (state {arc.target!r} of {talk.protocol.name})") from None
        talk.state = arc.target
        talk.applied.append((msg, arc))
        return arc, act

    # ---- crossing messages and not-understood ---------------------------------------------
    def _crossing(self, talk: Talk, msg: ACLMessage, sender: str, receiver: str) -> Verdict | None:
        ids = [m.reply_with for m, _ in talk.applied]
        if not msg.in_reply_to or msg.in_reply_to not in ids:
            return None
        i = ids.index(msg.in_reply_to)
        after = [m for m, _ in talk.applied[i + 1:]]
        if not any(m.sender is not None and m.sender.name == receiver for m in after):
            return None  # the sender had seen everything: a plain out-of-sequence message
        before_state = talk.state
        if talk.role(sender) == PARTICIPANT:
            mine = [m for m in after if _sender(m) == sender]
            theirs = [m for m in after if _sender(m) != sender]
            order = [m for m, _ in talk.applied[:i + 1]] + mine + [msg] + theirs
            voided = self._rebuild(talk, order)
            accepted = msg not in voided
        else:  # the initiator's message comes after the participant's: it is void
            voided = [msg]
            accepted = False
        talk.void.extend(voided)
        arc = next((a for m, a in talk.applied if m is msg), None)
        return Verdict(msg, sender, receiver, accepted, arc, before_state, talk.state,
                       None if accepted else "crossed a message that ended this possibility",
                       crossed=True, voided=voided)

    def _rebuild(self, talk: Talk, order: list[ACLMessage]) -> list[ACLMessage]:
        """Re-apply ``order`` from the start; return the messages no longer possible."""
        self.tracker.forget(talk.conversation, talk.initiator, talk.participant)
        talk.state = talk.protocol.initial
        talk.applied.clear()
        voided = []
        for m in order:
            try:
                self._step(talk, m, _sender(m))
            except Rejected:
                voided.append(m)
        return voided

    def _not_understood(self, msg: ACLMessage, sender: str, receiver: str) -> Verdict:
        talk = self.talk(msg.conversation_id or "", sender, receiver)
        if talk is None:
            return Verdict(msg, sender, receiver, True, reason="nothing of the conversation was applied")
        target = next((m for m, _ in talk.applied if m.reply_with and m.reply_with == msg.in_reply_to
                       and m.sender is not None and m.sender.name == receiver), None)
        before = talk.state
        if target is None:
            return Verdict(msg, sender, receiver, True, before=before, after=before,
                           reason="the message not understood had not been applied")
        talk.unacknowledged.append(target)
        self._rebuild(talk, [m for m, _ in talk.applied if m is not target])
        if not talk.applied:
            del self.talks[(talk.conversation, frozenset((sender, receiver)))]
            self.tracker.forget(talk.conversation, sender, receiver)
        return Verdict(msg, sender, receiver, True, before=before, after=talk.state,
                       reason=f"{receiver}'s {target.performative} was not understood: rolled back, "
                              "a re-attempt is expected")

    def retract(self, msg: ACLMessage) -> None:
        """Undo a message this party applied but could not deliver (delivery failure)."""
        for receiver in msg.receivers:
            talk = self.talk(msg.conversation_id or "", _sender(msg), receiver.name)
            sent = next((m for m, _ in talk.applied if m.reply_with == msg.reply_with), None) if talk else None
            if talk is None or sent is None:
                continue
            talk.unacknowledged.append(sent)
            self._rebuild(talk, [m for m, _ in talk.applied if m is not sent])
            if not talk.applied:
                del self.talks[(talk.conversation, frozenset((talk.initiator, talk.participant)))]
                self.tracker.forget(talk.conversation, talk.initiator, talk.participant)

    def moves(self, conversation: str, me: str, other: str) -> list[Arc]:
        """The arcs ``me`` may take now in its thread with ``other``: each one's performative
        and act, with the tracker's preconditions already checked."""
        talk = self.talk(conversation, me, other)
        if talk is None or talk.final:
            return []
        out = []
        for arc in talk.protocol.arcs:
            if arc.source != talk.state or arc.role != talk.role(me):
                continue
            try:
                act = build_act(arc.act, me, other, self.thread(talk), "(the offered action)")
                if self.tracker.probe(act, conversation) == talk.protocol.states[arc.target]:
                    out.append(arc)
            except Rejected:
                continue
        return out

    # ---- summaries ------------------------------------------------------------------------
    def finished(self, conversation: str) -> bool:
        talks = self.talks_of(conversation)
        return bool(talks) and all(t.final for t in talks)

    def outcome(self, talk: Talk) -> str | None:
        thread = self.thread(talk)
        return thread.outcome if thread is not None else None

    def wf_state(self, talk: Talk) -> int:
        return wf_state(self.thread(talk))


def _addressed(msg: ACLMessage) -> str:
    """The sender's name of a message fit for a conversation, or an AclError saying why not."""
    sender = _sender(msg)
    if not msg.receivers:
        raise AclError("a message in a conversation needs at least one receiver")
    if not msg.conversation_id:
        raise AclError("a message in a conversation needs a conversation-id")
    return sender


def _sender(msg: ACLMessage) -> str:
    if msg.sender is None:
        raise AclError("a message in a conversation needs a sender")
    return msg.sender.name


__all__ = ["FINAL_STATES", "Engine", "Rejected", "Talk", "Verdict"]
