"""The JSON form of an ACL message: one object whose keys are the FIPA parameter names.

``{"performative": "request", "sender": {"name": "a", "addresses": ["http://..."]},
"receiver": [{"name": "b"}], "content": "...", "reply-by": "2026-11-22T03:00:00.000Z",
"X-act": "renege"}``. Text is kept exactly; a wrong shape raises :class:`AclError` naming
the parameter.
"""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any

from .message import AID, AclError, ACLMessage

_TEXT = ("content", "language", "encoding", "ontology", "protocol", "conversation-id",
         "reply-with", "in-reply-to")


def aid_to_dict(aid: AID) -> dict[str, Any]:
    out: dict[str, Any] = {"name": aid.name}
    if aid.addresses:
        out["addresses"] = list(aid.addresses)
    if aid.resolvers:
        out["resolvers"] = [aid_to_dict(r) for r in aid.resolvers]
    out.update(dict(aid.user))
    return out


def aid_from_dict(doc: Any, where: str) -> AID:
    if isinstance(doc, str):
        return AID(doc)
    if not isinstance(doc, dict):
        raise AclError(f"{where}: an agent identifier must be an object or a name, not {type(doc).__name__}")
    name = doc.get("name")
    if not isinstance(name, str) or not name:
        raise AclError(f'{where}: an agent identifier needs a non-empty "name"')
    addresses = doc.get("addresses", [])
    if not isinstance(addresses, list) or not all(isinstance(a, str) for a in addresses):
        raise AclError(f'{where}: "addresses" must be a list of URLs')
    resolvers = doc.get("resolvers", [])
    if not isinstance(resolvers, list):
        raise AclError(f'{where}: "resolvers" must be a list of agent identifiers')
    user = []
    for key, value in doc.items():
        if key in ("name", "addresses", "resolvers"):
            continue
        if not key[:2].lower() == "x-" or not isinstance(value, str):
            raise AclError(f"{where}: unknown agent-identifier member {key!r} "
                           "(user-defined ones start with X- and are text)")
        user.append((key, value))
    return AID(name, tuple(addresses), tuple(aid_from_dict(r, where + ".resolvers") for r in resolvers),
               tuple(user))


def to_dict(msg: ACLMessage) -> dict[str, Any]:
    out: dict[str, Any] = {"performative": msg.performative}
    if msg.sender is not None:
        out["sender"] = aid_to_dict(msg.sender)
    if msg.receivers:
        out["receiver"] = [aid_to_dict(a) for a in msg.receivers]
    if msg.reply_to:
        out["reply-to"] = [aid_to_dict(a) for a in msg.reply_to]
    for key in _TEXT:
        value = getattr(msg, key.replace("-", "_"))
        if value is not None:
            out[key] = value
    if msg.reply_by is not None:
        out["reply-by"] = format_iso(msg.reply_by)
    out.update(dict(msg.user))
    return out


def format_iso(moment: datetime) -> str:
    text = moment.isoformat(timespec="milliseconds")
    return text.replace("+00:00", "Z")


def parse_iso(text: Any, where: str) -> datetime:
    if not isinstance(text, str):
        raise AclError(f"{where} must be an ISO 8601 time string")
    try:
        return datetime.fromisoformat(text.replace("Z", "+00:00") if text.endswith("Z") else text)
    except ValueError:
        raise AclError(f"{where}: {text!r} is not an ISO 8601 time") from None


def from_dict(doc: Any) -> ACLMessage:
    if not isinstance(doc, dict):
        raise AclError(f"an ACL message in JSON must be an object, not {type(doc).__name__}")
    if "performative" not in doc:
        raise AclError('an ACL message needs "performative"')
    fields: dict[str, Any] = {}
    user: list[tuple[str, str]] = []
    for key, value in doc.items():
        if key == "performative":
            if not isinstance(value, str):
                raise AclError('"performative" must be text')
            fields["performative"] = value
        elif key == "sender":
            fields["sender"] = aid_from_dict(value, "sender")
        elif key in ("receiver", "reply-to"):
            if not isinstance(value, list):
                raise AclError(f'"{key}" must be a list of agent identifiers')
            fields["receivers" if key == "receiver" else "reply_to"] = tuple(
                aid_from_dict(v, key) for v in value)
        elif key in _TEXT:
            if not isinstance(value, str):
                raise AclError(f'"{key}" must be text, not {type(value).__name__}')
            fields[key.replace("-", "_")] = value
        elif key == "reply-by":
            fields["reply_by"] = parse_iso(value, '"reply-by"')
        elif key[:2].lower() == "x-":
            if not isinstance(value, str):
                raise AclError(f'user-defined parameter "{key}" must be text')
            user.append((key, value))
        else:
            raise AclError(f"unknown message parameter {key!r}")
    return ACLMessage(user=tuple(user), **fields)


def dumps(msg: ACLMessage) -> str:
    return json.dumps(to_dict(msg), ensure_ascii=False, separators=(",", ":"))


def loads(text: str | bytes) -> ACLMessage:
    try:
        doc = json.loads(text)
    except (ValueError, RecursionError) as exc:
        raise AclError(f"not valid JSON: {exc}") from None
    return from_dict(doc)
