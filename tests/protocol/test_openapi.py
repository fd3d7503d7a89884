"""The OpenAPI 3.1 and AsyncAPI 3.0 descriptions are generated from the query tables: valid
OpenAPI (openapi-spec-validator), one request message per query of the role, every refusal
code a server sends under its HTTP status, and the messages the codecs write valid against
them."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest
from openapi_spec_validator import validate

from wwm.protocol import jsoncodec, openapi
from wwm.protocol.errors import CODES, Refusal
from wwm.protocol.messages import Query, Response
from wwm.protocol.queries import QUERIES


def _body(doc):
    return doc["paths"]["/"]["post"]["requestBody"]["content"]["application/json"]["schema"]


def _codes(response):
    return response["content"]["application/json"]["schema"]["properties"]["refusal"]["properties"]["code"]["enum"]


ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("role", ["world", "mind"])
def test_checked_in_descriptions_are_current(role):
    for kind, doc in (("openapi", openapi.openapi(role)), ("asyncapi", openapi.asyncapi(role))):
        assert json.loads((ROOT / f"schemas/wwm-{role}.{kind}.json").read_text()) == doc, \
            f"schemas/wwm-{role}.{kind}.json is out of date: python -m wwm.protocol.openapi schemas"


@pytest.mark.parametrize("role", ["world", "mind"])
def test_description_is_valid_openapi_with_every_query_of_the_role(role):
    doc = openapi.openapi(role, url="http://127.0.0.1:8101/")
    validate(doc)
    body = _body(doc)
    # every query by its name and by the seed's own spelling where it differs (an alias)
    assert sorted(body["discriminator"]["mapping"]) == sorted(n for s in QUERIES.values() if s.role == role
                                                              for n in s.names)
    responses = doc["paths"]["/"]["post"]["responses"]
    documented = {code for status, r in responses.items() if status != "200" for code in _codes(r)}
    assert documented == set(CODES)
    for status, r in responses.items():
        if status != "200":
            for code in _codes(r):
                assert CODES[code].http_status == int(status)


def test_a_server_describes_only_its_query_sets_and_its_own_new_run_arguments():
    arguments = {"type": "object", "additionalProperties": False,
                 "properties": {"size": {"type": "integer"}, "kind": {"$ref": "#/$defs/Kind"}},
                 "$defs": {"Kind": {"enum": ["a", "b"]}}}
    doc = openapi.openapi("mind", {"Mind"}, arguments=arguments)
    validate(doc)
    mapping = _body(doc)["discriminator"]["mapping"]
    assert "Get action" in mapping and "Add mind" not in mapping and "Get mind strength" not in mapping
    new_run = doc["components"]["schemas"]["new_run_query"]["properties"]["data"]
    assert new_run["additionalProperties"] is False
    assert new_run["properties"]["kind"] == {"$ref": "#/components/schemas/arguments_Kind"}
    assert doc["components"]["schemas"]["arguments_Kind"] == {"enum": ["a", "b"]}


def _validator(doc, name):
    schema = {**doc["components"]["schemas"][name], "$defs": {}}
    text = json.dumps(schema).replace("#/components/schemas/", "#/$defs/")
    resolved = json.loads(text)
    resolved["$defs"] = doc["components"]["schemas"]
    return jsonschema.Draft202012Validator(resolved)


MESSAGES = [
    ("get_action_query", Query("Get action", {"mind run ID": "abc", "state": "x", "Q-temperature": 0.5})),
    ("get_action_answer", Response("Get action", {"action": "north", "Q": 2})),
    ("get_action_answer", Response("Get action", {"cannot suggest action": "waiting"})),
    ("new_run_answer", Response("New run", {"mind run ID": "r1", "mind display URL": "http://h/display/t"})),
    ("refusal", Response.refused("Get state", Refusal("unknown-run", "no such run"))),
]


@pytest.mark.parametrize(("name", "message"), MESSAGES, ids=[m[0] for m in MESSAGES])
def test_codec_messages_are_valid_against_the_description(name, message):
    doc = openapi.openapi("mind")
    validator = _validator(doc, name)
    validator.validate(json.loads(jsoncodec.encode(message)))


def test_a_message_against_its_description_is_refused_where_it_breaks_it():
    doc = openapi.openapi("world")
    with pytest.raises(jsonschema.ValidationError, match="action"):  # Execute action needs its action
        _validator(doc, "execute_action_query").validate({"query": "Execute action", "data": {"world run ID": "r"}})
    with pytest.raises(jsonschema.ValidationError):  # a refusal code no server sends
        _validator(doc, "refusal").validate({"wwm": "1.0", "response": "x", "refusal": {"code": "nope", "text": ""}})


def test_asyncapi_carries_the_same_messages_on_the_persistent_bindings():
    doc = openapi.asyncapi("world", bindings={"websocket": "ws://127.0.0.1:8101/ws", "tcp": "tcp://127.0.0.1:9101"})
    assert doc["asyncapi"] == "3.0.0"
    assert doc["servers"] == {"websocket": {"host": "127.0.0.1:8101", "protocol": "ws", "pathname": "/ws"},
                              "tcp": {"host": "127.0.0.1:9101", "protocol": "tcp"}}
    queries = {m["name"] for n, m in doc["components"]["messages"].items() if n.endswith("_query")}
    assert queries == {s.name for s in QUERIES.values() if s.role == "world"}
    for schema in doc["components"]["schemas"].values():
        jsonschema.Draft202012Validator.check_schema(schema)


def _refs(node):
    if isinstance(node, dict):
        for key, value in node.items():
            if key == "$ref":
                yield value
            else:
                yield from _refs(value)
    elif isinstance(node, list):
        for value in node:
            yield from _refs(value)


def _resolve(doc, ref):
    """What a local reference points at, following references to references."""
    node = doc
    for part in ref.removeprefix("#/").split("/"):
        node = node[part.replace("~1", "/").replace("~0", "~")]
    return _resolve(doc, node["$ref"]) if "$ref" in node else node


@pytest.mark.parametrize("role", ["world", "mind"])
def test_every_reference_of_the_asyncapi_description_resolves(role):
    doc = openapi.asyncapi(role)
    refs = set(_refs(doc))
    assert refs
    for ref in refs:
        assert isinstance(_resolve(doc, ref), dict), ref
    sent = {_resolve(doc, m["$ref"])["name"] for m in doc["operations"]["query"]["messages"]}
    replies = {_resolve(doc, m["$ref"])["name"] for m in doc["operations"]["query"]["reply"]["messages"]}
    assert sent == {n for s in QUERIES.values() if s.role == role for n in s.names}  # (aliases too)
    assert replies == {f"{name} (answer)" for name in sent} | {"Refusal"}
