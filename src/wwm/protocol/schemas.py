"""The protocol published as schemas, generated from the vocabulary table so they cannot
drift from the code: JSON Schema for the JSON encoding and XML Schema for the XML one.
``python -m wwm.protocol.schemas DIR`` writes ``wwm-protocol.schema.json`` and
``wwm-protocol.xsd``; the copies in ``schemas/`` are checked against these by the tests.
"""

from __future__ import annotations

import importlib
import json
import sys
from pathlib import Path
from typing import Any
from xml.sax.saxutils import quoteattr

from .errors import CODES
from .queries import PROTOCOL_VERSION, QUERIES, Kind, QuerySpec, Returns
from .sequence import LARGEST, SEQUENCE, numbered

# Extension query sets that ship with wwm and register themselves on import.
EXTENSIONS = ("wwm.acl.envelope",)


def load_extensions() -> None:
    """Register every shipped extension query set, so what is published is the whole set."""
    for module in EXTENSIONS:
        importlib.import_module(module)

_VALUE = {"anyOf": [{"type": "string"}, {"type": "number"}, {"type": "boolean"},
                    {"type": "array", "items": {"type": "string"}}, {"type": "null"}]}
_KIND_SCHEMA = {
    Kind.TEXT: {"type": "string"},
    Kind.ID: {"type": "string"},
    Kind.URL: {"type": "string"},
    Kind.NUMBER: {"anyOf": [{"type": "number"},
                            {"type": "string", "pattern": r"^\s*[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?\s*$"}]},
    Kind.BOOLEAN: {"anyOf": [{"type": "boolean"},
                             {"type": "string", "enum": ["true", "false", "yes", "no", "1", "0"]}]},
    Kind.URLS: {"anyOf": [{"type": "string"}, {"type": "array", "items": {"type": "string"}}]},
}

RETURN_ITEMS: dict[Returns, list[str]] = {
    Returns.CONFIRM: [],
    Returns.RUN: ["<role> run ID", "<role> display URL"],
    Returns.STATE: ["state"],
    Returns.OUTCOME: ["state", "score", "run finished"],
    Returns.SCORE: ["score"],
    Returns.DISPLAY_URL: ["<role> display URL"],
    Returns.READY: ["ready"],
    Returns.SUGGESTION: ["action", "mind URL", "Q", "W", "cannot suggest action"],
    Returns.VALUES: ["Q", "W"],
    Returns.Q: ["Q"],
    Returns.Q_TEMPERATURE: ["Q-temperature"],
    Returns.W_TEMPERATURE: ["W-temperature"],
    Returns.STRENGTH: ["strength"],
}


def _names() -> list[str]:
    load_extensions()
    return sorted({name for s in QUERIES.values() for name in s.names})


def query_data_schema(spec: QuerySpec) -> dict[str, Any]:
    """The JSON Schema of a query's ``data``: its items from the query's table row."""
    props: dict[str, Any] = {"client URL": {"type": "string"}}
    required: list[str] = []
    if spec.method != "new_run":
        props[spec.run_id_field] = {"type": "string"}
    if numbered(spec.method):  # (wwm.protocol.sequence)
        props[SEQUENCE] = {"type": "integer", "minimum": 0, "maximum": LARGEST}
    for item in spec.arguments:
        props[item.wire] = _KIND_SCHEMA[item.kind]
        if not item.optional:
            required.append(item.wire)
    data: dict[str, Any] = {"type": "object", "properties": props, "required": required}
    if not spec.open_arguments:
        data["additionalProperties"] = False
    else:
        data["additionalProperties"] = _VALUE
    return data


def json_schema() -> dict[str, Any]:
    """JSON Schema (2020-12) of a message. A query's items are checked per query name; a
    query sent to a World and one sent to a Mind share a name only where the tables do."""
    load_extensions()
    rules = []
    by_name: dict[str, list[QuerySpec]] = {}
    for spec in QUERIES.values():
        for name in spec.names:  # an alias is checked as the query it names
            by_name.setdefault(name, []).append(spec)
    for name, specs in sorted(by_name.items()):
        variants = [query_data_schema(s) for s in specs]
        data = variants[0] if len(variants) == 1 else {"anyOf": variants}
        rules.append({"if": {"required": ["query"], "properties": {"query": {"const": name}}},
                      "then": {"properties": {"data": data}}})
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": f"urn:wwm:protocol:{PROTOCOL_VERSION}:json",
        "title": f"World-Wide-Mind protocol {PROTOCOL_VERSION}, JSON encoding",
        "type": "object",
        "properties": {
            "wwm": {"type": "string", "enum": [PROTOCOL_VERSION, "1"]},
            "query": {"type": "string", "enum": _names()},
            "response": {"type": "string"},
            "data": {"type": "object", "additionalProperties": _VALUE},
            "refusal": {"type": "object", "required": ["code"], "additionalProperties": False,
                        "properties": {"code": {"type": "string", "enum": sorted(CODES)},
                                       "text": {"type": "string"}}},
        },
        "additionalProperties": False,
        "oneOf": [{"required": ["query"], "not": {"anyOf": [{"required": ["response"]}, {"required": ["refusal"]}]}},
                  {"required": ["response"], "not": {"required": ["query"]}}],
        "allOf": rules,
    }


def xml_schema() -> str:
    """XML Schema of a message: ``<xml>`` holding one ``<query>`` (named from the tables) or
    one ``<response>`` with ``<data name="...">`` items and at most one ``<refusal>``."""
    names = "\n".join(f"      <xs:enumeration value={quoteattr(n)}/>" for n in _names())
    codes = "\n".join(f"      <xs:enumeration value={quoteattr(c)}/>" for c in sorted(CODES))
    return f"""<?xml version="1.0" encoding="UTF-8"?>
<!-- World-Wide-Mind protocol {PROTOCOL_VERSION}, XML encoding (section 11.2.1). Generated by
     wwm.protocol.schemas from the query tables; do not edit by hand. -->
<xs:schema xmlns:xs="http://www.w3.org/2001/XMLSchema" elementFormDefault="qualified">
  <xs:element name="xml">
    <xs:complexType>
      <xs:choice>
        <xs:element name="query" type="Query"/>
        <xs:element name="response" type="Response"/>
      </xs:choice>
      <xs:attribute name="wwm" type="xs:string" use="optional"/>
    </xs:complexType>
  </xs:element>
  <xs:complexType name="Data">
    <xs:simpleContent>
      <xs:extension base="xs:string">
        <xs:attribute name="name" type="xs:string" use="required"/>
      </xs:extension>
    </xs:simpleContent>
  </xs:complexType>
  <xs:complexType name="Query">
    <xs:sequence>
      <xs:element name="data" type="Data" minOccurs="0" maxOccurs="unbounded"/>
    </xs:sequence>
    <xs:attribute name="name" type="QueryName" use="required"/>
  </xs:complexType>
  <xs:complexType name="Response">
    <xs:sequence>
      <xs:element name="data" type="Data" minOccurs="0" maxOccurs="unbounded"/>
      <xs:element name="refusal" type="Refusal" minOccurs="0" maxOccurs="1"/>
    </xs:sequence>
    <xs:attribute name="name" type="xs:string" use="required"/>
  </xs:complexType>
  <xs:complexType name="Refusal">
    <xs:simpleContent>
      <xs:extension base="xs:string">
        <xs:attribute name="code" type="RefusalCode" use="required"/>
      </xs:extension>
    </xs:simpleContent>
  </xs:complexType>
  <xs:simpleType name="QueryName">
    <xs:restriction base="xs:string">
{names}
    </xs:restriction>
  </xs:simpleType>
  <xs:simpleType name="RefusalCode">
    <xs:restriction base="xs:string">
{codes}
    </xs:restriction>
  </xs:simpleType>
</xs:schema>
"""


def write(folder: str | Path) -> list[Path]:
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    json_path = folder / "wwm-protocol.schema.json"
    xsd_path = folder / "wwm-protocol.xsd"
    json_path.write_text(json.dumps(json_schema(), indent=2, ensure_ascii=False) + "\n")
    xsd_path.write_text(xml_schema())
    return [json_path, xsd_path]


if __name__ == "__main__":
    for path in write(sys.argv[1] if len(sys.argv) > 1 else "schemas"):
        print(path)
