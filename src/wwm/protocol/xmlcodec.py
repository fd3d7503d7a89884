"""The XML encoding of section 11.2.1, exactly as the seed prints it::

    <xml>
    <query name="Get action">
    <data name="mind run ID"> 5505 </data>
    <data name="state">
    x
    </data>
    </query>
    </xml>

Responses use ``<response name="...">``; a refused query is answered with
``<refusal code="unknown-run">text</refusal>`` inside the response. A repeated data name is a
list (the Mind_AS list of Mind URLs). The root may carry ``wwm="1.0"``, the protocol version.
White space around every data value is not part of it (the seed pads values with spaces and
new lines); a state or action whose edges matter should travel as JSON.

Elements this codec does not know -- inside ``<query>`` / ``<response>`` or beside them in
``<xml>`` -- are ignored, not refused: section 11.2 wants tags added later not to break old
servers (:data:`~wwm.protocol.queries.UNDERSTANDS`, on every card, says so).

Parsing goes through defusedxml: DTDs, entity declarations and external references are
refused (``forbidden-xml``), so an entity bomb costs nothing.
"""

from __future__ import annotations

from xml.etree.ElementTree import ParseError
from xml.sax.saxutils import escape, quoteattr

from defusedxml import DefusedXmlException
from defusedxml.ElementTree import fromstring

from .errors import Refusal
from .messages import Message, Query, Response
from .queries import PROTOCOL_VERSION, SUPPORTED_VERSIONS, Wire

CONTENT_TYPE = "application/xml"
_CR = {"\r": "&#13;"}  # a literal CR would be read back as a new line (XML 1.0, section 2.11)


def decode(body: bytes | str) -> Message:
    """Parse one message; refuse with ``malformed-message`` naming what is wrong."""
    try:
        root = fromstring(body, forbid_dtd=True, forbid_entities=True, forbid_external=True)
    except DefusedXmlException as exc:
        raise Refusal("forbidden-xml", f"forbidden XML construct: {type(exc).__name__}") from None
    except ParseError as exc:
        raise Refusal("malformed-message", f"not well-formed XML: {exc}") from None
    except (ValueError, TypeError) as exc:
        raise Refusal("malformed-message", f"could not read the XML: {exc}") from None
    if root.tag != "xml":
        raise Refusal("malformed-message", f"the root element must be <xml>, not <{root.tag}>")
    version = root.get("wwm", PROTOCOL_VERSION)
    if version not in SUPPORTED_VERSIONS:
        raise Refusal("unsupported-version",
                      f"protocol version {version!r} is not supported (this server speaks {PROTOCOL_VERSION})")
    children = [child for child in root if child.tag in ("query", "response")]  # others: ignored (11.2)
    if len(children) != 1:
        raise Refusal("malformed-message", "<xml> must hold exactly one <query> or <response> element")
    element = children[0]
    name = (element.get("name") or "").strip()
    if not name:
        raise Refusal("malformed-message", f"<{element.tag}> has no name attribute")
    data: dict[str, Wire] = {}
    refusal: Refusal | None = None
    for item in element:
        if item.tag == "data":
            key = (item.get("name") or "").strip()
            if not key:
                raise Refusal("malformed-message", f'a <data> element in "{name}" has no name attribute')
            if len(item):
                raise Refusal("malformed-message", f'<data name="{key}"> must hold text, not elements')
            value = (item.text or "").strip()
            previous = data.get(key)
            if previous is None:
                data[key] = value
            elif isinstance(previous, list):  # a repeated item: a list
                previous.append(value)
            else:
                data[key] = [str(previous), value]  # (it is text: every XML item is)
        elif item.tag == "refusal" and element.tag == "response":
            code = item.get("code", "")
            try:
                refusal = Refusal(code, (item.text or "").strip() or None)
            except ValueError:
                refusal = Refusal("server-error", f"unknown refusal code {code!r}: {(item.text or '').strip()}")
        # any other element is an extension this server does not know: ignored, as section
        # 11.2 asks ("extend the tag definitions ... without breaking the old definitions")
    if element.tag == "query":
        return Query(name=name, data=data, version=version)
    return Response(name=name, data=data, refusal=refusal, version=version)


def encode(message: Message) -> bytes:
    tag = "query" if isinstance(message, Query) else "response"
    lines = ["<xml>", f"<{tag} name={quoteattr(message.name)}>"]
    for key, value in message.data.items():
        values = value if isinstance(value, list) else [value]
        for one in values:
            lines.append(f"<data name={quoteattr(key)}>{escape(_text(one), _CR)}</data>")
    if isinstance(message, Response) and message.refusal is not None:
        lines.append(f"<refusal code={quoteattr(message.refusal.code)}>{escape(message.refusal.text)}</refusal>")
    lines += [f"</{tag}>", "</xml>", ""]
    return "\n".join(lines).encode()


def _text(value: Wire) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)
