"""Machine-readable descriptions of a server's bindings, generated from the query tables that
generate the schemas (:mod:`.schemas`), so they cannot drift from the code either:

- :func:`openapi`: OpenAPI 3.1 of the HTTP binding. Every query is POSTed to the one URL, so
  the query endpoint is one operation whose body is one of the server's query messages (told
  apart by ``query``), answered by the matching response message or, with the HTTP status of
  its code, a refusal; the GET routes (card, credit trail, icon, display pages, these
  descriptions) are operations of their own.
- :func:`asyncapi`: AsyncAPI 3.0 of the persistent bindings (WebSocket ``/ws`` and, where
  offered, plain TCP), which carry the same messages, one query answered by one response.

Both describe one server: its role and the query sets it answers. Every server serves its own
at ``/openapi.json`` and ``/asyncapi.json``. ``python -m wwm.protocol.openapi DIR`` writes the
descriptions of a server of each role answering every query set of its role
(``wwm-world.openapi.json``, ``wwm-mind.openapi.json``, and the ``.asyncapi.json`` of each);
the copies in ``schemas/`` are checked against these by the tests.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from . import xmlcodec
from .errors import CODES
from .messages import Query
from .queries import PROTOCOL_VERSION, QUERIES, QUERY_SETS, Kind, QuerySpec, Returns, snake
from .schemas import RETURN_ITEMS, load_extensions, query_data_schema

_VERSION = {"type": "string", "enum": [PROTOCOL_VERSION, "1"]}
_ANY_VALUE = {"anyOf": [{"type": "string"}, {"type": "number"}, {"type": "boolean"},
                        {"type": "array", "items": {"type": "string"}}, {"type": "null"}]}
# the JSON type of each item a response may carry (RETURN_ITEMS names them per shape)
_RETURN_TYPES: dict[str, dict[str, Any]] = {
    "state": {"type": "string"}, "action": {"type": "string"}, "mind URL": {"type": "string"},
    "cannot suggest action": {"type": "string"}, "run finished": {"type": "boolean"},
    "ready": {"type": "boolean"},
    **{name: {"type": "number"} for name in
       ("score", "Q", "W", "Q-temperature", "W-temperature", "strength")},
}
_CLIENT_URL = {"anyOf": [{"type": "null"}, {"type": "string", "pattern": r"^\s*$"},
                         {"type": "string", "pattern": r"^\s*(https?://|wss?://|urn:|mailto:)"}]}
_XML_FORM = ("A query message in the XML of section 11.2.1 (schemas/wwm-protocol.xsd), as the examples show: "
             "<xml><query name=\"QUERY\"><data name=\"ITEM\">text</data>...</query></xml>, one <data> "
             "element per item (repeated for a list); numbers and true/false as their text.")
_DESCRIPTIONS_PATHS = {"/openapi.json": "This server's HTTP binding, described in OpenAPI 3.1.",
                       "/asyncapi.json": "This server's WebSocket and TCP bindings, described in AsyncAPI 3.0."}


def specs_of(role: str, query_sets: Iterable[str] | None = None) -> list[QuerySpec]:
    """The queries a server of ``role`` answers (every query set of the role when None)."""
    load_extensions()
    sets = set(query_sets) if query_sets is not None else {s for s, r in QUERY_SETS.items() if r == role}
    return [s for s in QUERIES.values() if s.role == role and s.query_set in sets]


def query_message(spec: QuerySpec, name: str | None = None) -> dict[str, Any]:
    """The JSON Schema of one query message (its data items from the query's table row), sent
    by ``name`` (its wire name unless one of its aliases)."""
    name = name or spec.name
    data = query_data_schema(spec)
    # the caller's URL may be null (not given); New run checks it is a URL (client-url-invalid)
    client = _CLIENT_URL if spec.method == "new_run" else {"type": ["string", "null"]}
    data = {**data, "properties": {**data["properties"], "client URL": client}}
    if spec.method != "new_run":  # the server refuses any other query without its run ID
        data["required"] = [spec.run_id_field, *data["required"]]
    return {"type": "object", "title": name, "description": _describe(spec),
            "properties": {"wwm": _VERSION, "query": {"const": name}, "data": data},
            "required": ["query", "data"] if data["required"] else ["query"],
            "additionalProperties": False}


def response_message(spec: QuerySpec, name: str | None = None) -> dict[str, Any]:
    """The JSON Schema of the answer to one query when it is not refused (named as asked)."""
    asked = name or spec.name
    items: dict[str, Any] = {}
    for name in RETURN_ITEMS[spec.returns]:
        wire = name.replace("<role>", spec.role)
        items[wire] = _RETURN_TYPES.get(wire, {"type": "string"})
    required = [f"{spec.role} run ID"] if spec.returns is Returns.RUN else []
    data: dict[str, Any] = {"type": "object", "properties": items, "required": required,
                            "additionalProperties": _ANY_VALUE}
    return {"type": "object", "title": f"{asked} (answer)",
            "properties": {"wwm": _VERSION, "response": {"const": asked}, "data": data},
            "required": ["wwm", "response", "data"] if required else ["wwm", "response"],
            "additionalProperties": False}


def refusal_message(codes: Iterable[str] | None = None) -> dict[str, Any]:
    """The JSON Schema of a refused query's answer, with a code among ``codes`` (all if None)."""
    allowed = sorted(CODES if codes is None else codes)
    return {"type": "object", "title": "Refusal",
            "properties": {"wwm": _VERSION, "response": {"type": "string"},
                           "refusal": {"type": "object", "required": ["code", "text"],
                                       "additionalProperties": False,
                                       "properties": {"code": {"type": "string", "enum": allowed},
                                                      "text": {"type": "string"}}}},
            "required": ["wwm", "response", "refusal"], "additionalProperties": False}


def _describe(spec: QuerySpec) -> str:
    text = f"{spec.query_set} query (answered by {spec.method})."
    if spec.doc:
        text += " " + spec.doc
    if spec.open_arguments:
        text += " Takes an open-ended set of further arguments."
    if spec.refusals:
        text += " May be refused with: " + ", ".join(spec.refusals) + "."
    return text


def _json(schema: dict[str, Any], description: str, *, xml: bool = False) -> dict[str, Any]:
    content: dict[str, Any] = {"application/json": {"schema": schema}}
    if xml:  # a query sent in XML is answered in XML
        content["application/xml"] = {"schema": _XML_SCHEMA}
    return {"description": description, "content": content}


# The XML form (section 11.2.1) is a document, described as one: OpenAPI's XML object cannot
# say "an element with an attribute and text" (<data name="ITEM">text</data>, each item of a
# query), so a schema of objects would describe XML the server cannot read. The form is named
# by the XSD and shown by an example of each query, written by the XML codec itself.
_XML_SCHEMA: dict[str, Any] = {"type": "string", "contentMediaType": "application/xml",
                               "description": "A message in the XML of section 11.2.1 "
                                              "(schemas/wwm-protocol.xsd)."}
_SAMPLES = {Kind.TEXT: "x", Kind.ID: "RUN-ID", Kind.URL: "http://example.com/", Kind.NUMBER: 1,
            Kind.BOOLEAN: True, Kind.URLS: ["http://example.com/"]}


def xml_examples(specs: Iterable[QuerySpec]) -> dict[str, Any]:
    """An example of each query in the XML form (its required items with sample values; a run
    ID the sample ``RUN-ID``), as OpenAPI's ``examples`` of the ``application/xml`` body."""
    examples: dict[str, Any] = {}
    for spec in specs:
        data: dict[str, Any] = {} if spec.method == "new_run" else {spec.run_id_field: "RUN-ID"}
        data.update({f.wire: _SAMPLES[f.kind] for f in spec.arguments if not f.optional})
        examples[snake(spec.name)] = {"summary": spec.name,
                                      "value": xmlcodec.encode(Query(spec.name, data)).decode()}
    return examples


def _refusals_by_status() -> dict[int, list[str]]:
    out: dict[int, list[str]] = {}
    for code in CODES.values():  # timeout and unreachable too: a server relays those of its own servers
        out.setdefault(code.http_status, []).append(code.code)
    return out


def with_arguments(message: dict[str, Any], arguments: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """A New run message whose open-ended items are a server's own ``arguments`` (the JSON
    Schema of its card's ``arguments``), and the definitions they refer to, renamed for
    ``components/schemas``."""
    text = json.dumps(arguments).replace('"#/$defs/', '"#/components/schemas/arguments_')
    args = json.loads(text)
    defs = {f"arguments_{name}": schema for name, schema in args.pop("$defs", {}).items()}
    data = message["properties"]["data"]
    merged = {**data, "properties": {**data["properties"], **args.get("properties", {})},
              "required": [*data["required"], *args.get("required", [])]}
    if "additionalProperties" in args:
        merged["additionalProperties"] = args["additionalProperties"]
    return {**message, "properties": {**message["properties"], "data": merged},
            "required": ["query", "data"] if merged["required"] else ["query"]}, defs


def openapi(role: str, query_sets: Iterable[str] | None = None, *, url: str | None = None,
            title: str | None = None, arguments: dict[str, Any] | None = None) -> dict[str, Any]:
    """OpenAPI 3.1 of the HTTP binding of a ``role`` server answering ``query_sets``; with
    ``arguments`` (the JSON Schema of the server's New run arguments, as in its card), New run
    is described with exactly those."""
    specs = specs_of(role, query_sets)
    components = {snake(f"{s.name} query"): query_message(s) for s in specs}
    if arguments and "new_run_query" in components and arguments.get("properties") is not None:
        components["new_run_query"], defs = with_arguments(components["new_run_query"], arguments)
        components |= defs
    components |= {snake(f"{s.name} answer"): response_message(s) for s in specs}
    # the seed's own spelling of a query (an alias): a message of its own, answered as asked
    aliases = [(s, alias) for s in specs for alias in s.aliases]
    components |= {snake(f"{alias} query"): query_message(s, alias) for s, alias in aliases}
    components |= {snake(f"{alias} answer"): response_message(s, alias) for s, alias in aliases}
    components["refusal"] = refusal_message()
    names = [*((s.name, s.name) for s in specs), *((alias, alias) for _, alias in aliases)]
    refs = {name: "#/components/schemas/" + snake(f"{key} query") for name, key in names}
    answers = [{"$ref": "#/components/schemas/" + snake(f"{key} answer")} for _, key in names]
    query_body = {"oneOf": [{"$ref": ref} for ref in refs.values()],
                  "discriminator": {"propertyName": "query", "mapping": refs}}
    responses: dict[str, Any] = {"200": _json({"oneOf": answers}, "The query's answer.", xml=True)}
    for status, codes in sorted(_refusals_by_status().items()):
        meanings = "; ".join(f"{c}: {CODES[c].meaning}" for c in codes)
        responses[str(status)] = _json(refusal_message(codes), f"Refused. {meanings}", xml=True)
    post = {
        "operationId": "query",
        "summary": "Send a query (section 9); the answer comes back in the same encoding.",
        "description": ("The query's name is in the body. Queries of this server: "
                        + ", ".join(s.name + "".join(f' (or "{a}")' for a in s.aliases) for s in specs)
                        + ". The same messages are accepted in the XML encoding (section 11.2.1, "
                          "Content-Type application/xml, schemas/wwm-protocol.xsd) and answered in it."),
        "requestBody": {"required": True,
                        "content": {"application/json": {"schema": query_body},
                                    # the same message in XML: a document of its own form
                                    "application/xml": {"schema": {**_XML_SCHEMA, "description": _XML_FORM},
                                                        "examples": xml_examples(specs)}}},
        "responses": responses,
    }
    json_object = {"type": "object"}
    paths: dict[str, Any] = {
        "/": {
            "post": post,
            "get": {"operationId": "describe", "summary": "The server's card (JSON) or page (HTML).",
                    "parameters": [{"name": "format", "in": "query", "required": False,
                                    "schema": {"type": "string"}}],
                    "responses": {"200": {"description": "The card or the page.",
                                          "content": {"application/json": {"schema": json_object},
                                                      "text/html": {"schema": {"type": "string"}}}}}},
        },
        "/trail": {"get": {"operationId": "trail", "summary": "The server's credit trail (section 7.2).",
                           "responses": {"200": _json(json_object, "The credit trail.")}}},
        "/favicon.ico": {"get": {"operationId": "icon", "summary": "The server's icon.",
                                 "responses": {"200": {"description": "An SVG image.",
                                                       "content": {"image/svg+xml": {"schema": {"type": "string"}}}}}}},
        "/display/{token}": {"get": {
            "operationId": "display", "summary": ("A run's display page (its display URL); `.json` for programs, "
                                                  "`.png` for the frame a run draws (a Gymnasium World's)."),
            "parameters": [{"name": "token", "in": "path", "required": True, "schema": {"type": "string"}}],
            "responses": {status: {"description": text,
                                   "content": {"application/json": {"schema": json_object},
                                               "text/html": {"schema": {"type": "string"}},
                                               **({"image/png": {"schema": {"type": "string",
                                                                            "contentMediaType": "image/png"}}}
                                                  if status == "200" else {})}}
                          for status, text in (("200", "The run's display."),
                                               ("404", "No run is on display under this token."))}}},
    }
    for path, text in _DESCRIPTIONS_PATHS.items():
        paths[path] = {"get": {"operationId": snake(path), "summary": text,
                               "responses": {"200": _json(json_object, text)}}}
    doc: dict[str, Any] = {
        "openapi": "3.1.0",
        "info": {"title": title or f"World-Wide-Mind {role} server",
                 "version": PROTOCOL_VERSION,
                 "description": f"The HTTP binding of the World-Wide-Mind protocol {PROTOCOL_VERSION} "
                                "(docs/protocol.md), as this server answers it."},
        "paths": paths,
        "components": {"schemas": components},
    }
    if url:
        doc["servers"] = [{"url": url.rstrip("/") or "/"}]
    return doc


def asyncapi(role: str, query_sets: Iterable[str] | None = None, *,
             bindings: dict[str, str] | None = None, title: str | None = None) -> dict[str, Any]:
    """AsyncAPI 3.0 of the persistent bindings (``bindings``: name -> URL, as in the card)."""
    specs = specs_of(role, query_sets)
    schemas = {snake(f"{s.name} query"): query_message(s) for s in specs}
    schemas |= {snake(f"{s.name} answer"): response_message(s) for s in specs}
    schemas |= {snake(f"{a} query"): query_message(s, a) for s in specs for a in s.aliases}
    schemas |= {snake(f"{a} answer"): response_message(s, a) for s in specs for a in s.aliases}
    schemas["refusal"] = refusal_message()
    messages = {name: {"name": schema["title"], "contentType": "application/json",
                       "payload": {"$ref": f"#/components/schemas/{name}"}}
                for name, schema in schemas.items()}
    servers: dict[str, Any] = {}
    for name, address in (bindings or {}).items():
        if name in ("websocket", "tcp"):
            scheme, _, rest = address.partition("://")
            host, _, path = rest.partition("/")
            servers[name] = {"host": host, "protocol": "ws" if scheme == "ws" else scheme,
                             **({"pathname": "/" + path} if path else {})}
    channel_messages = {name: {"$ref": f"#/components/messages/{name}"} for name in messages}
    queries = [name for name in messages if name.endswith("_query")]
    answers = [name for name in messages if not name.endswith("_query")]
    doc: dict[str, Any] = {
        "asyncapi": "3.0.0",
        "info": {"title": title or f"World-Wide-Mind {role} server, persistent bindings",
                 "version": PROTOCOL_VERSION,
                 "description": "Each WebSocket message (or 4-byte big-endian length-framed TCP frame) "
                                "is one query in JSON or XML, answered in order by one response in "
                                "the same encoding."},
        "channels": {"queries": {"address": "/ws", "messages": channel_messages}},
        "operations": {
            "query": {"action": "receive", "channel": {"$ref": "#/channels/queries"},
                      "messages": [{"$ref": f"#/channels/queries/messages/{n}"} for n in queries],
                      "reply": {"channel": {"$ref": "#/channels/queries"},
                                "messages": [{"$ref": f"#/channels/queries/messages/{n}"} for n in answers]}},
        },
        "components": {"schemas": schemas, "messages": messages},
    }
    if servers:
        doc["servers"] = servers
    return doc


def write(folder: str | Path) -> list[Path]:
    """Write the descriptions of a World and of a Mind server answering every query set."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    for role in ("world", "mind"):
        for kind, doc in (("openapi", openapi(role)), ("asyncapi", asyncapi(role))):
            path = folder / f"wwm-{role}.{kind}.json"
            path.write_text(json.dumps(doc, indent=2, ensure_ascii=False) + "\n")
            paths.append(path)
    return paths


if __name__ == "__main__":
    for written in write(sys.argv[1] if len(sys.argv) > 1 else "schemas"):
        print(written)
