"""The published schemas and protocol document match the code, and the messages the codecs
write are valid against them."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest
from lxml import etree

from wwm.protocol import docs, jsoncodec, schemas, xmlcodec
from wwm.protocol.errors import Refusal
from wwm.protocol.messages import Query, Response

ROOT = Path(__file__).resolve().parents[2]


def test_checked_in_schemas_are_current():
    assert json.loads((ROOT / "schemas/wwm-protocol.schema.json").read_text()) == schemas.json_schema()
    assert (ROOT / "schemas/wwm-protocol.xsd").read_text() == schemas.xml_schema()


def test_checked_in_protocol_document_is_current():
    assert (ROOT / "docs/protocol.md").read_text() == docs.render()


MESSAGES = [
    Query("New run", {"client URL": "urn:x", "size": 5}),
    Query("Get action", {"mind run ID": "abc", "state": "x <&> y", "Q-temperature": 0.5}),
    Query("New run", {"mind URL": ["http://a/", "http://b/"], "method": "W=Q"}),
    Query("Inform it about winner", {"mind run ID": "r", "obeyed": False, "state": "y", "score": 1.5}),
    Response("Get action", {"action": "north", "Q": 2}),
    Response("Get action", {"cannot suggest action": "waiting"}),
    Response.refused("Get state", Refusal("unknown-run", "no such run")),
]


@pytest.mark.parametrize("message", MESSAGES, ids=lambda m: m.name)
def test_encoded_messages_are_valid(message):
    validator = jsonschema.Draft202012Validator(schemas.json_schema())
    assert not list(validator.iter_errors(json.loads(jsoncodec.encode(message))))
    xsd = etree.XMLSchema(etree.fromstring(schemas.xml_schema().encode()))
    assert xsd.validate(etree.fromstring(xmlcodec.encode(message))), xsd.error_log


def test_json_schema_rejects_what_the_server_refuses():
    validator = jsonschema.Draft202012Validator(schemas.json_schema())
    bad = [
        {"query": "Get action", "data": {"mind run ID": "1"}},                  # missing state
        {"query": "Make coffee"},                                               # unknown query
        {"query": "Get state", "data": {"world run ID": "1", "x": "1"}},        # not open-ended
        {"response": "Get state", "refusal": {"code": "no-such-code"}},         # unknown code
        {"query": "Get state", "response": "Get state"},                        # both
    ]
    for doc in bad:
        assert list(validator.iter_errors(doc)), doc


def test_codecs_round_trip_every_query_name():
    from wwm.protocol.queries import QUERIES

    for spec in QUERIES.values():
        q = Query(spec.name, {"client URL": "urn:c", "items": ["a", "b"]})
        for codec in (xmlcodec, jsoncodec):
            back = codec.decode(codec.encode(q))
            assert back.name == spec.name and back.data == q.data


def test_xml_keeps_carriage_returns_inside_values():
    q = Query("Get action", {"mind run ID": "r", "state": "line one\r\nline two\rthree"})
    assert xmlcodec.decode(xmlcodec.encode(q)).data == q.data
