"""Choosing the encoding of a message: by Content-Type, else by its first byte (so the XML of
section 11.2.1 sent by ``curl -d`` with a form content type is still read as XML).
The answer goes back in the encoding the question came in.
"""

from __future__ import annotations

from typing import Protocol

from . import jsoncodec, xmlcodec
from .errors import Refusal
from .messages import Message

XML_TYPES = ("application/xml", "text/xml")
JSON_TYPES = ("application/json",)


class Codec(Protocol):
    """What a codec module offers (:mod:`.jsoncodec`, :mod:`.xmlcodec`)."""

    CONTENT_TYPE: str

    def decode(self, body: bytes | str) -> Message: ...

    def encode(self, message: Message) -> bytes: ...


def codec(name: str) -> Codec:
    """The codec called ``name``: "json" or "xml"."""
    if name not in ("json", "xml"):
        raise ValueError(f"encoding must be 'json' or 'xml', not {name!r}")
    return jsoncodec if name == "json" else xmlcodec


def choose(content_type: str | None, body: bytes) -> Codec:
    """The codec module for a received body."""
    ctype = (content_type or "").split(";", 1)[0].strip().lower()
    if ctype in XML_TYPES or ctype.endswith("+xml"):
        return xmlcodec
    if ctype in JSON_TYPES or ctype.endswith("+json"):
        return jsoncodec
    first = body.lstrip()[:1]
    if first == b"<":
        return xmlcodec
    if first in (b"{", b"["):
        return jsoncodec
    if not body.strip():
        raise Refusal("malformed-message", "the message is empty")
    raise Refusal("unsupported-encoding",
                  f"cannot tell the encoding of a {ctype or 'untyped'} body: send XML or JSON")
