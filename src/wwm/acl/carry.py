"""ACL messages carried as text by worlds whose agents can only pass strings: T-World's
``team_message:<text>`` and ``message:<id>:<text>``, a Λ* collective's side channel, a
state or an action of any World.

``to_text`` writes one line (the FIPA string form, or JSON when the content has line
breaks a line-based wire would cut); ``from_text`` reads either form back.
"""

from __future__ import annotations

from . import fipa, jsonform
from .message import AclError, ACLMessage


def to_text(msg: ACLMessage) -> str:
    """One line that :func:`from_text` turns back into ``msg``."""
    if any(c in v for v in _texts(msg) for c in "\r\n"):
        return jsonform.dumps(msg)
    return fipa.dumps(msg, one_line=True)


def from_text(text: str) -> ACLMessage:
    """A message from its FIPA string or JSON form; :class:`AclError` if it is neither."""
    s = text.strip()
    if s.startswith("("):
        return fipa.loads(s)
    if s.startswith("{"):
        return jsonform.loads(s)
    shown = s if len(s) <= 40 else s[:37] + "..."
    raise AclError(f"not an ACL message (expected a FIPA '(performative ...)' or a JSON object): {shown!r}")


def is_acl(text: str) -> bool:
    try:
        from_text(text)
    except AclError:
        return False
    return True


def _texts(msg: ACLMessage) -> list[str]:
    values = [msg.content, msg.language, msg.encoding, msg.ontology, msg.protocol,
              msg.conversation_id, msg.reply_with, msg.in_reply_to]
    values += [v for _, v in msg.user]
    for aid in (msg.sender, *msg.receivers, *msg.reply_to):
        if aid is not None:
            values += [aid.name, *aid.addresses, *(v for _, v in aid.user)]
    return [v for v in values if v]
