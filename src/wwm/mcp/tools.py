"""The MCP tools of one WWM server: one per query its card lists, named as the query in
snake case (``Execute action`` -> ``execute_action``), its input the query's items (snake
case too) from the query tables, plus ``run_id`` (the run to query; by default the last run
``new_run`` started through this bridge). ``new_run`` takes the server's own New run
arguments, as its card declares them. A query whose table row takes an open-ended set of
further items takes them as ``items``, keyed by their wire names."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from ..protocol import queries as Q

_KIND: dict[Q.Kind, dict[str, Any]] = {
    Q.Kind.TEXT: {"type": "string"}, Q.Kind.ID: {"type": "string"}, Q.Kind.URL: {"type": "string"},
    Q.Kind.NUMBER: {"type": "number"}, Q.Kind.BOOLEAN: {"type": "boolean"},
    Q.Kind.URLS: {"type": "array", "items": {"type": "string"}}}
RUN_ID = "run_id"
ITEMS = "items"


@dataclass(frozen=True, slots=True)
class QueryTool:
    """One query of one server as a tool: its name, description and input schema."""

    name: str
    spec: Q.QuerySpec
    description: str
    input_schema: dict[str, Any]


def tools_of(card: dict[str, Any]) -> list[QueryTool]:
    """The tools of the server whose JSON card this is (its role, queries and arguments)."""
    role = card.get("role")
    if role not in ("world", "mind"):
        raise ValueError(f"{card.get('url', 'the server')} is not a World or Mind server (its card says role {role!r})")
    out = []
    for name in card.get("queries", []):
        spec = Q.lookup(role, name)
        out.append(QueryTool(Q.snake(spec.name), spec, _describe(spec, card), _input_schema(spec, card)))
    return out


def _describe(spec: Q.QuerySpec, card: dict[str, Any]) -> str:
    text = f'"{spec.name}" ({spec.query_set} query of section 9) to {card.get("name", "the server")}.'
    if spec.doc:
        text += " " + spec.doc
    if spec.method == "new_run":
        text += " Returns the run ID that later tools use (by default, the last run started)."
        if card.get("role") == "world":
            text += f" State format: {card.get('state_format', 'opaque text')}. " \
                    f"Action format: {card.get('action_format', 'opaque text')}."
    return text


def _input_schema(spec: Q.QuerySpec, card: dict[str, Any]) -> dict[str, Any]:
    props: dict[str, Any] = {}
    required: list[str] = []
    extra_defs = None
    if spec.method != "new_run":
        props[RUN_ID] = {"type": "string", "description": "the run to query (default: the last run started)"}
    for item in spec.arguments:
        props[Q.snake(item.wire)] = {**_KIND[item.kind], "description": f'the item "{item.wire}"'}
        if not item.optional:
            required.append(Q.snake(item.wire))
    if spec.method == "new_run":
        arguments = card.get("arguments") or {}
        for name, argument in (arguments.get("properties") or {}).items():
            props.setdefault(name, {k: v for k, v in argument.items() if k != "title"})
        required += [r for r in arguments.get("required", []) if r not in required]
        extra_defs = arguments.get("$defs")  # what the arguments' "$ref"s name, at the same place
    elif spec.open_arguments:
        props[ITEMS] = {"type": "object", "description": "further items of the query, by their wire names"}
    schema: dict[str, Any] = {"type": "object", "properties": props}
    if spec.method == "new_run" and extra_defs:
        schema["$defs"] = extra_defs
    if required:
        schema["required"] = required
    return schema


def query_data(tool: QueryTool, arguments: dict[str, Any], run_id: str | None) -> dict[str, Q.Wire]:
    """The data items of the query a call of ``tool`` with ``arguments`` sends."""
    spec = tool.spec
    wire_of = {Q.snake(item.wire): item.wire for item in spec.arguments}
    data: dict[str, Q.Wire] = {}
    args = dict(arguments)
    if spec.method != "new_run":
        run = args.pop(RUN_ID, None) or run_id
        if not run:
            raise ValueError("no run: call new_run first (or give run_id)")
        data[spec.run_id_field] = str(run)
    extra = args.pop(ITEMS, None) if spec.method != "new_run" else None
    for key, value in args.items():
        if value is not None:
            data[wire_of.get(key, key)] = _wire(value)
    if isinstance(extra, dict):
        data.update({str(k): _wire(v) for k, v in extra.items() if v is not None})
    return data


def _wire(value: Any) -> Q.Wire:
    if value is None or isinstance(value, (str, bool, int, float)):
        return value
    if isinstance(value, list):
        return [v if isinstance(v, str) else json.dumps(v) for v in value]
    return json.dumps(value)
