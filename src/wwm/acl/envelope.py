"""ACL messages inside the World-Wide-Mind protocol: the "Mind_ACL" query set.

A mind that talks ACL answers one more query, ``Send message``, whose data items are the FIPA
parameters by their wire names (``performative``, ``sender``, ``receiver`` repeated,
``content``, ``conversation-id``, ``reply-by``, ``X-...``), so a message travels in the XML of
section 11.2.1 or in JSON like any other query. An agent identifier is written as its bare
name, or as a FIPA ``(agent-identifier ...)`` expression when it carries addresses. The
response confirms delivery (the attempt's minimal result); replies travel as messages of
their own. The XML encoding trims white space at the edges of values, as for states. The
server hands :meth:`AgentMind.receive_message <wwm.acl.network.AgentMind.receive_message>` the
user-defined parameters in its ``wire_items`` dict under their wire names, so
``X-JADE-Priority`` arrives as sent (:meth:`ACLMessage.get` ignores case all the same).
"""

from __future__ import annotations

from typing import Any

from ..protocol import queries as Q
from ..protocol.messages import Query
from . import fipa
from .message import AID, AclError, ACLMessage

QUERY_SET = "Mind_ACL"
SEND = "Send message"

_TEXT_ITEMS = ("content", "language", "encoding", "ontology", "protocol", "conversation-id",
               "reply-with", "in-reply-to")

SEND_SPEC = Q.register(Q.QuerySpec(
    SEND, "mind", QUERY_SET, "receive_message",
    (Q.Field("performative", Q.Kind.ID),
     Q.Field("sender", Q.Kind.TEXT, optional=True),
     Q.Field("receiver", Q.Kind.URLS, optional=True, attr="receiver"),
     Q.Field("reply-to", Q.Kind.URLS, optional=True, attr="reply_to"),
     *(Q.Field(name, Q.Kind.TEXT, optional=True) for name in _TEXT_ITEMS),
     Q.Field("reply-by", Q.Kind.ID, optional=True)),
    Q.Returns.CONFIRM, open_arguments=True,
    doc="Deliver one FIPA ACL message to this agent (the items are its parameters; "
        "user-defined ones are X-... items). Replies come back as messages of their own.",
    refusals=("bad-parameters",)))


def aid_text(aid: AID) -> str:
    if not aid.addresses and not aid.resolvers and not aid.user and fipa.is_word(aid.name) \
            and aid.name == aid.name.strip():
        return aid.name
    return fipa.dump_aid(aid)


def aid_parse(text: str, where: str) -> AID:
    text = text.strip()
    if text.startswith("("):
        parser = fipa._Parser(text)
        try:
            aid = parser.aid()
            if parser.peek() != "":
                raise parser.fail("unexpected text after the agent-identifier")
        except fipa.FipaSyntaxError as exc:
            raise AclError(f'"{where}": {exc}') from None
        return aid
    if not text:
        raise AclError(f'"{where}" is empty')
    return AID(text)


def to_items(msg: ACLMessage) -> dict[str, Q.Wire]:
    """The data items of a ``Send message`` query carrying ``msg``."""
    data: dict[str, Q.Wire] = {"performative": msg.performative}
    if msg.sender is not None:
        data["sender"] = aid_text(msg.sender)
    if msg.receivers:
        data["receiver"] = [aid_text(a) for a in msg.receivers]
    if msg.reply_to:
        data["reply-to"] = [aid_text(a) for a in msg.reply_to]
    for key in _TEXT_ITEMS:
        value = getattr(msg, key.replace("-", "_"))
        if value is not None:
            data[key] = value
    if msg.reply_by is not None:
        data["reply-by"] = fipa.format_time(msg.reply_by)
    for key, value in msg.user:
        data[key] = value
    return data


def to_query(msg: ACLMessage, run_id: str | None = None) -> Query:
    data = to_items(msg)
    if run_id is not None:
        data = {SEND_SPEC.run_id_field: run_id, **data}
    return Query(SEND, data)


def from_items(items: dict[str, Any]) -> ACLMessage:
    """A message from ``Send message`` items, keyed by wire name or by the Python keyword the
    server hands a method for a named item (``conversation_id``). A user-defined parameter
    keeps the name it is given (``X-CamelCase``); one given as a snake-cased keyword
    (``x_act``, from a caller without the wire name) becomes ``X-act``."""
    fields: dict[str, Any] = {}
    user: list[tuple[str, str]] = []
    for key, value in items.items():
        if value is None:
            continue
        if key[:2].lower() == "x-":
            user.append((key, _one(value, key)))
            continue
        wire = key.replace("_", "-")
        if wire in ("mind-run-ID", "client-URL", "mind run ID", "client URL"):
            continue
        if wire == "performative":
            fields["performative"] = str(value).strip()
        elif wire == "sender":
            fields["sender"] = aid_parse(_one(value, wire), "sender")
        elif wire in ("receiver", "reply-to"):
            values = value if isinstance(value, list) else [value]
            fields["receivers" if wire == "receiver" else "reply_to"] = tuple(
                aid_parse(str(v), wire) for v in values)
        elif wire in _TEXT_ITEMS:
            fields[wire.replace("-", "_")] = _one(value, wire)
        elif wire == "reply-by":
            text = _one(value, wire).strip()
            parser = fipa._Parser(text)
            try:
                fields["reply_by"] = parser.datetime()
            except fipa.FipaSyntaxError as exc:
                raise AclError(f'"reply-by": {exc}') from None
        elif wire[:2].lower() == "x-":
            user.append(("X-" + wire[2:], _one(value, wire)))
        else:
            raise AclError(f'"{key}" is not a FIPA message parameter (user-defined ones start with X-)')
    if "performative" not in fields:
        raise AclError('a message needs the item "performative"')
    return ACLMessage(user=tuple(user), **fields)


def _one(value: Any, where: str) -> str:
    if isinstance(value, list):
        raise AclError(f'"{where}" takes one value, got {len(value)}')
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)
