"""The FIPA ACL XML representation (SC00071E), beside the string one of :mod:`.fipa`.

``dumps(message)`` writes one ``<fipa-message act="...">`` document; ``loads(text)`` reads one
back. Elements follow the specification's DTD: ``sender``, ``receiver`` and ``reply-to`` hold
``agent-identifier`` elements (``<name id="..."/>``, ``<addresses><url href="..."/></addresses>``,
``<resolvers>``, ``<user-defined href="X-...">``); the text parameters are elements with
their value as text; ``<reply-by time="YYYYMMDDThhmmssmmm[Z]"/>``; user-defined message
parameters are ``<user-defined href="X-name">value</user-defined>``. Values come back exactly
as sent: a carriage return travels as ``&#13;``, and attribute values escape their new lines
and tabs, which XML would otherwise normalise to spaces.

Reading goes through defusedxml (no DTDs, entities or external references). A character XML
1.0 cannot carry at all (U+0000 and most other control characters, U+FFFE, U+FFFF) is refused
when writing, naming the parameter, since no XML reader could give it back; such a message
travels in the string or JSON encoding. Anything malformed raises :class:`AclError` naming
the element or the position.
"""

from __future__ import annotations

import re
from datetime import datetime
from typing import Any
from xml.etree.ElementTree import Element, ParseError
from xml.sax.saxutils import escape, quoteattr

from defusedxml import DefusedXmlException
from defusedxml.ElementTree import fromstring

from .fipa import FipaSyntaxError, _Parser, format_time
from .message import AID, AclError, ACLMessage

_TEXT = ("content", "language", "encoding", "ontology", "protocol", "conversation-id", "reply-with",
         "in-reply-to")
_CR = {"\r": "&#13;"}  # a literal CR would be read back as a new line (XML 1.0, section 2.11)
_NOT_XML = re.compile("[^\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


# ---- writing --------------------------------------------------------------------------------
def _checked(value: str, where: str) -> str:
    bad = _NOT_XML.search(value)
    if bad is not None:
        raise AclError(f"{where}: XML 1.0 cannot carry the character U+{ord(bad.group()):04X} "
                       f"(at character {bad.start()}); send this message in the string or JSON encoding")
    return value


def _text(value: str, where: str) -> str:
    return escape(_checked(value, where), _CR)


def _attr(value: str, where: str) -> str:
    return quoteattr(_checked(value, where))  # escapes new lines and tabs as character references


def _aid(aid: AID, where: str) -> str:
    parts = [f"<agent-identifier><name id={_attr(aid.name, where + ' name')}/>"]
    if aid.addresses:
        parts.append("<addresses>" + "".join(f"<url href={_attr(a, where + ' address')}/>"
                                             for a in aid.addresses) + "</addresses>")
    if aid.resolvers:
        parts.append("<resolvers>" + "".join(_aid(r, where + " resolver") for r in aid.resolvers)
                     + "</resolvers>")
    for key, value in aid.user:
        parts.append(f"<user-defined href={_attr(key, where)}>{_text(value, f'{where} {key}')}</user-defined>")
    return "".join(parts) + "</agent-identifier>"


def dumps(msg: ACLMessage) -> str:
    """One message as a ``<fipa-message>`` document (no XML declaration; UTF-8 when encoded)."""
    out = [f"<fipa-message act={quoteattr(msg.performative)}>"]
    if msg.sender is not None:
        out.append(f"<sender>{_aid(msg.sender, 'sender')}</sender>")
    if msg.receivers:
        out.append("<receiver>" + "".join(_aid(a, "receiver") for a in msg.receivers) + "</receiver>")
    if msg.reply_to:
        out.append("<reply-to>" + "".join(_aid(a, "reply-to") for a in msg.reply_to) + "</reply-to>")
    for key in _TEXT:
        value = getattr(msg, key.replace("-", "_"))
        if value is not None:
            out.append(f"<{key}>{_text(value, key)}</{key}>")
    if msg.reply_by is not None:
        out.append(f"<reply-by time={quoteattr(format_time(msg.reply_by))}/>")
    for key, value in msg.user:
        out.append(f"<user-defined href={_attr(key, 'message')}>{_text(value, key)}</user-defined>")
    return "".join(out) + "</fipa-message>"


# ---- reading --------------------------------------------------------------------------------
def loads(text: str | bytes) -> ACLMessage:
    """Read one ``<fipa-message>``; raise :class:`AclError` saying what is wrong and where."""
    if not isinstance(text, (str, bytes)):
        raise AclError(f"a FIPA XML message must be text, not {type(text).__name__}")
    try:
        root = fromstring(text)
    except ParseError as exc:
        line, column = exc.position
        raise AclError(f"not well-formed XML at line {line}, column {column + 1}: {exc}") from None
    except DefusedXmlException as exc:
        raise AclError(f"refused XML: {type(exc).__name__} (DTDs, entities and external references "
                       "are not accepted)") from None
    if root.tag != "fipa-message":
        raise AclError(f"expected a <fipa-message> element, got <{root.tag}>")
    act = root.get("act")
    if act is None:
        raise AclError('<fipa-message> needs the attribute act="..." (the performative)')
    fields: dict[str, Any] = {}
    user: list[tuple[str, str]] = []
    seen: set[str] = set()
    conversation = root.get("conversation-id")  # the DTD allows it as an attribute too
    if conversation is not None:
        fields["conversation_id"] = conversation
    for child in root:
        tag = child.tag
        if tag != "user-defined":
            if tag in seen:
                raise AclError(f"<{tag}> appears twice in the message")
            seen.add(tag)
        if tag == "sender":
            agents = _agents(child, tag)
            if len(agents) != 1:
                raise AclError(f"<sender> holds one agent-identifier, not {len(agents)}")
            fields["sender"] = agents[0]
        elif tag in ("receiver", "reply-to"):
            fields["receivers" if tag == "receiver" else "reply_to"] = tuple(_agents(child, tag))
        elif tag in _TEXT:
            _no_children(child)
            fields[tag.replace("-", "_")] = child.text or ""
        elif tag == "reply-by":
            fields["reply_by"] = _time(child)
        elif tag == "user-defined":
            user.append((_href(child, "message"), child.text or ""))
        else:
            raise AclError(f"unknown element <{tag}> in <fipa-message>")
    return ACLMessage(act, user=tuple(user), **fields)


def _agents(parent: Element, where: str) -> list[AID]:
    if (parent.text or "").strip():
        raise AclError(f"<{where}> holds agent-identifier elements, not text")
    agents = []
    for child in parent:
        if child.tag != "agent-identifier":
            raise AclError(f"<{where}> holds agent-identifier elements, not <{child.tag}>")
        agents.append(_aid_from(child, where))
    return agents


def _aid_from(element: Element, where: str) -> AID:
    name: str | None = None
    addresses: list[str] = []
    resolvers: list[AID] = []
    user: list[tuple[str, str]] = []
    for child in element:
        if child.tag == "name":
            name = child.get("id") or child.get("refid")
            if not name:
                raise AclError(f'{where}: <name> needs id="..." (the agent\'s name)')
        elif child.tag == "addresses":
            for url in child:
                if url.tag != "url" or url.get("href") is None:
                    raise AclError(f'{where}: <addresses> holds <url href="..."/> elements')
                addresses.append(url.get("href", ""))
        elif child.tag == "resolvers":
            resolvers.extend(_agents(child, f"{where} resolvers"))
        elif child.tag == "user-defined":
            user.append((_href(child, where), child.text or ""))
        else:
            raise AclError(f"{where}: unknown element <{child.tag}> in <agent-identifier>")
    if name is None:
        raise AclError(f"{where}: an <agent-identifier> needs <name id=\"...\"/>")
    return AID(name, tuple(addresses), tuple(resolvers), tuple(user))


def _href(element: Element, where: str) -> str:
    key = element.get("href")
    if not key:
        raise AclError(f'{where}: <user-defined> needs href="X-..." (the parameter\'s name)')
    return key


def _no_children(element: Element) -> None:
    if len(element):
        raise AclError(f"<{element.tag}> holds text, not elements (escape '<' as &lt;)")


def _time(element: Element) -> datetime:
    stamp = element.get("time")
    if stamp is None:
        raise AclError('<reply-by> needs time="YYYYMMDDThhmmssmmm[Z]"')
    parser = _Parser(stamp)
    try:
        moment = parser.datetime()
    except FipaSyntaxError as exc:
        raise AclError(f"<reply-by time={stamp!r}>: {exc}") from None
    if parser.peek() != "":
        raise AclError(f"<reply-by time={stamp!r}>: expected a time YYYYMMDDThhmmssmmm[Z]")
    return moment
