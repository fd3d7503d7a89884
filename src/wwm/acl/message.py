"""The FIPA ACL message (SC00061G): all thirteen parameters plus user-defined ``X-`` ones.

An :class:`AID` names an agent (its name, the URLs it receives at, its resolvers);
an :class:`ACLMessage` is one communicative act on the wire. Both are frozen dataclasses, so
a message can be logged, hashed, compared and replayed as a value.
"""

from __future__ import annotations

import itertools
import secrets
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Any

PERFORMATIVES: tuple[str, ...] = (
    "accept-proposal", "agree", "cancel", "cfp", "confirm", "disconfirm", "failure", "inform",
    "inform-if", "inform-ref", "not-understood", "propagate", "propose", "proxy", "query-if",
    "query-ref", "refuse", "reject-proposal", "request", "request-when", "request-whenever",
    "subscribe",
)
"""The 22 communicative acts of the FIPA library (SC00037J)."""

PARAMETERS: tuple[str, ...] = (
    "performative", "sender", "receiver", "reply-to", "content", "language", "encoding",
    "ontology", "protocol", "conversation-id", "reply-with", "in-reply-to", "reply-by",
)
"""The thirteen FIPA message parameters, by their wire names."""


class AclError(ValueError):
    """A message or one of its parts is not valid ACL; the text says what and where."""


@dataclass(frozen=True, slots=True)
class AID:
    """An agent identifier: a name unique on its platform, the transport addresses it
    receives at (here: the URL of its WWM server), resolvers, and ``X-`` properties."""

    name: str
    addresses: tuple[str, ...] = ()
    resolvers: tuple[AID, ...] = ()
    user: tuple[tuple[str, str], ...] = ()

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not self.name:
            raise AclError("an agent identifier needs a non-empty name")
        _check_user(self.user, "agent identifier")

    @property
    def url(self) -> str | None:
        """The first address, where messages to this agent are posted."""
        return self.addresses[0] if self.addresses else None

    def __str__(self) -> str:
        return self.name


@dataclass(frozen=True, slots=True)
class ACLMessage:
    """One FIPA ACL message. Only the performative is mandatory.

    ``user`` holds the user-defined parameters as ``(("X-name", "value"), ...)`` in order;
    ``reply_by`` is a :class:`datetime` (aware, UTC, when the wire said ``Z``).
    """

    performative: str
    sender: AID | None = None
    receivers: tuple[AID, ...] = ()
    reply_to: tuple[AID, ...] = ()
    content: str | None = None
    language: str | None = None
    encoding: str | None = None
    ontology: str | None = None
    protocol: str | None = None
    conversation_id: str | None = None
    reply_with: str | None = None
    in_reply_to: str | None = None
    reply_by: datetime | None = None
    user: tuple[tuple[str, str], ...] = field(default=())

    def __post_init__(self) -> None:
        if not isinstance(self.performative, str) or self.performative.lower() not in PERFORMATIVES:
            raise AclError(f"unknown performative {self.performative!r} "
                           f"(FIPA defines: {', '.join(PERFORMATIVES)})")
        if self.performative != self.performative.lower():
            object.__setattr__(self, "performative", self.performative.lower())
        if isinstance(self.receivers, list):
            object.__setattr__(self, "receivers", tuple(self.receivers))
        if isinstance(self.reply_to, list):
            object.__setattr__(self, "reply_to", tuple(self.reply_to))
        _check_user(self.user, "message")
        if self.reply_by is not None and self.reply_by.microsecond % 1000:
            # the wire carries milliseconds: keep exactly what a round trip gives back
            object.__setattr__(self, "reply_by", self.reply_by.replace(
                microsecond=self.reply_by.microsecond // 1000 * 1000))

    # ---- user-defined parameters ---------------------------------------------------------
    def get(self, name: str, default: str | None = None) -> str | None:
        """A user-defined parameter by name (``X-`` prefix optional, case-insensitive)."""
        key = _user_key(name).lower()
        for k, v in self.user:
            if k.lower() == key:
                return v
        return default

    def with_user(self, name: str, value: str) -> ACLMessage:
        key = _user_key(name)
        kept = tuple((k, v) for k, v in self.user if k.lower() != key.lower())
        return replace(self, user=(*kept, (key, value)))

    @property
    def act(self) -> str | None:
        """The act this message performs when the performative alone does not say it
        (the ``X-act`` parameter, e.g. ``renege``), else None."""
        return self.get("X-act")

    def with_(self, **changes: Any) -> ACLMessage:
        return replace(self, **changes)

    def reply(self, performative: str, content: str | None = None, *, sender: AID | None = None,
              act: str | None = None, reply_with: str | None = None) -> ACLMessage:
        """The reply JADE's ``createReply`` would make: to ``reply-to`` or the sender, in the
        same conversation and protocol, ``in-reply-to`` set from this message's ``reply-with``."""
        to = self.reply_to or ((self.sender,) if self.sender else ())
        msg = ACLMessage(performative, sender=sender or (self.receivers[0] if self.receivers else None),
                         receivers=to, content=content, language=self.language,
                         encoding=self.encoding, ontology=self.ontology, protocol=self.protocol,
                         conversation_id=self.conversation_id,
                         reply_with=reply_with or new_id("r"), in_reply_to=self.reply_with)
        return msg.with_user("X-act", act) if act else msg


def _user_key(name: str) -> str:
    return name if name[:2].lower() == "x-" else f"X-{name}"


def _check_user(user: tuple[tuple[str, str], ...], where: str) -> None:
    for pair in user:
        if (not isinstance(pair, tuple) or len(pair) != 2 or not isinstance(pair[0], str)
                or not isinstance(pair[1], str)):
            raise AclError(f"user-defined parameters of a {where} must be (name, text) pairs, got {pair!r}")
        if pair[0][:2].lower() != "x-" or len(pair[0]) < 3 or any(c <= " " or c in '()"' for c in pair[0]):
            raise AclError(f"user-defined parameter {pair[0]!r} of a {where} must start with 'X-' "
                           "and hold no spaces, quotes or parentheses")


_counter = itertools.count(1)
_prefix = secrets.token_hex(3)


def new_id(kind: str = "m") -> str:
    """A fresh identifier for conversation-id or reply-with, unique across processes."""
    return f"{kind}{_prefix}-{next(_counter)}"
