"""Any generated query message, valid or not, as the XML of section 11.2.1, for the fuzzers
(tests/server/fuzz_hooks.py's schemathesis serializer, tests/server/test_wire_fuzz.py): a
message the JSON codec would carry becomes the same items in XML, and one of a shape XML
cannot carry (data not an object, an item holding an object) still becomes a document, so
the server's reading of it is fuzzed too. Written here, not with wwm's own codec, which would
refuse to write a wrong message."""

from __future__ import annotations

import json
from typing import Any
from xml.sax.saxutils import escape, quoteattr


def _text(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return ""
    if isinstance(value, (dict, list)):
        return json.dumps(value)
    return str(value)


def _items(data: Any) -> list[str]:
    if not isinstance(data, dict):  # not an object: its text, where the items would be
        return [escape(_text(data))]
    out = []
    for name, value in data.items():
        for one in value if isinstance(value, list) and value else [value]:  # a list: repeated items
            out.append(f"<data name={quoteattr(str(name))}>{escape(_text(one))}</data>")
    return out


def to_xml(message: Any) -> bytes:
    """``message`` (a query's JSON form, or anything a fuzzer made of it) as an XML document."""
    if not isinstance(message, dict):
        return f"<xml>{escape(_text(message))}</xml>".encode()
    name = message.get("query")
    head = "<query" + ("" if name is None else f" name={quoteattr(_text(name))}")
    version = message.get("wwm")
    root = "<xml" + ("" if version is None else f" wwm={quoteattr(_text(version))}") + ">"
    items = _items(message.get("data", {}))
    return (root + head + ">" + "".join(items) + "</query></xml>").encode("utf-8", "surrogatepass")
