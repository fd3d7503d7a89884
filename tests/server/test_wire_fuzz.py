"""The WebSocket and TCP bindings fuzzed from the query tables: hypothesis (derandomized,
bounded examples) writes messages from the JSON Schema of each query of the server's role
(:func:`wwm.protocol.openapi.query_message`, the same tables as ``/openapi.json``), some
valid, some with an item replaced by any JSON value, some not a message at all; each is
sent in JSON or in XML (:mod:`xml_bodies`), half of them in a live run, over ``/ws`` or the
length-prefixed TCP frames of a real ``wwm serve`` process of each role. No server error, no
hang (every frame answered within seconds, in order, the connection still open), every
refusal a documented code, an XML question answered in XML; the server alive at the end.
(The HTTP binding: test_fuzz.py.)"""

from __future__ import annotations

import asyncio
import contextlib
import json
import re
import struct
from collections import Counter
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from websockets.asyncio.client import connect
from xml_bodies import to_xml

from wwm.protocol import jsoncodec, xmlcodec
from wwm.protocol.errors import CODES
from wwm.protocol.messages import Response
from wwm.protocol.openapi import query_message, specs_of
from wwm.server.process import ServerProcess

pytestmark = pytest.mark.slow

SERVERS = {"world": "grid", "mind": "q-learning", "mind_as": "action-selection"}
ROLE_OF = {"world": "world", "mind": "mind", "mind_as": "mind"}
HEADER = struct.Struct(">I")
ANSWER_WITHIN = 10.0  # seconds: a frame not answered by then is a hang
JSON_VALUES = st.recursive(st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=20),
                           lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner,
                                                                                        max_size=3),
                           max_leaves=6)


def from_schema(schema: dict[str, Any]) -> st.SearchStrategy[Any]:
    """Values of the JSON Schema subset the query tables generate (const, enum, anyOf, type,
    pattern, items, properties, required, additionalProperties)."""
    if "const" in schema:
        return st.just(schema["const"])
    if "enum" in schema:
        return st.sampled_from(schema["enum"])
    if "anyOf" in schema or "oneOf" in schema:
        return st.one_of([from_schema(s) for s in schema.get("anyOf", schema.get("oneOf"))])
    kind = schema.get("type")
    if isinstance(kind, list):
        return st.one_of([from_schema({**schema, "type": k}) for k in kind])
    if kind == "string":
        return st.from_regex(re.compile(schema["pattern"]), fullmatch=False) if "pattern" in schema \
            else st.text(max_size=30)
    if kind == "number":
        return st.integers(-1000, 1000) | st.floats(-1e6, 1e6, allow_nan=False)
    if kind == "integer":
        return st.integers(-1000, 1000)
    if kind == "boolean":
        return st.booleans()
    if kind == "null":
        return st.none()
    if kind == "array":
        return st.lists(from_schema(schema.get("items", {})), max_size=3)
    if kind == "object":
        properties = schema.get("properties", {})
        required = set(schema.get("required", []))
        fixed = st.fixed_dictionaries({k: from_schema(v) for k, v in properties.items() if k in required},
                                      optional={k: from_schema(v) for k, v in properties.items() if k not in required})
        extra = schema.get("additionalProperties")
        if isinstance(extra, dict):
            more = st.dictionaries(st.text(min_size=1, max_size=10), from_schema(extra), max_size=2)
            return st.builds(lambda a, b: {**b, **a}, fixed, more)
        return fixed
    return JSON_VALUES


def messages(role: str) -> st.SearchStrategy[Any]:
    """A message for a server of ``role``: valid, with one item spoilt, or anything at all."""
    valid = st.one_of([from_schema(query_message(spec)) for spec in specs_of(role)])

    def spoil(message: dict[str, Any], draw_value: Any, which: int) -> dict[str, Any]:
        data = message.get("data")
        if isinstance(data, dict) and data:
            key = sorted(data)[which % len(data)]
            return {**message, "data": {**data, key: draw_value}}
        return {**message, "data": draw_value}

    spoilt = st.builds(spoil, valid, JSON_VALUES, st.integers(0, 20))
    return st.one_of(valid, valid, spoilt, JSON_VALUES)


def frames(role: str) -> st.SearchStrategy[list[tuple[Any, str, bool]]]:
    """Frames to send on one connection: (message, "json" | "xml" | "bytes", in a live run?)."""
    message = st.tuples(messages(role), st.sampled_from(["json", "xml"]), st.booleans())
    noise = st.tuples(st.binary(max_size=40), st.just("bytes"), st.just(False))
    one = st.integers(0, 5).flatmap(lambda k: noise if k == 0 else message)  # a sixth of them noise
    return st.lists(one, min_size=1, max_size=6)


def body(message: Any, encoding: str, run_field: str, run_id: str | None, live: bool) -> bytes:
    if encoding == "bytes":
        return bytes(message)
    if live and run_id and isinstance(message, dict) and message.get("query") != "New run" \
            and isinstance(message.get("data", {}), dict):  # sent in the live run
        message = {**message, "data": {**message.get("data", {}), run_field: run_id}}
    return to_xml(message) if encoding == "xml" else json.dumps(message).encode()


def checked(answer: bytes, encoding: str) -> Response:
    """The answer read, checked: a response or a documented refusal, never server-error; an
    XML question is answered in XML."""
    if encoding == "xml":
        assert answer.startswith(b"<"), answer[:200]
    message = (xmlcodec if answer.startswith(b"<") else jsoncodec).decode(answer)
    assert isinstance(message, Response), answer[:200]
    if message.refusal is not None:
        assert message.refusal.code in CODES, message.refusal
        assert message.refusal.code != "server-error", message.refusal
    return message


class Wire:
    """One connection to a server over ``binding``: send a frame, read its answer."""

    def __init__(self, server: ServerProcess, binding: str) -> None:
        self.server, self.binding = server, binding
        self._stack = contextlib.AsyncExitStack()

    async def __aenter__(self) -> Wire:
        if self.binding == "ws":
            self.ws = await self._stack.enter_async_context(
                connect(self.server.url.replace("http://", "ws://") + "ws", max_size=None))
        else:
            host, port = self.server.card()["bindings"]["tcp"].removeprefix("tcp://").rsplit(":", 1)
            self.reader, self.writer = await asyncio.open_connection(host, int(port))
        return self

    async def __aexit__(self, *exc: object) -> None:
        if self.binding == "tcp":
            self.writer.close()
        await self._stack.aclose()

    async def ask(self, payload: bytes, as_bytes: bool) -> bytes:
        if self.binding == "ws":
            text_ok = not as_bytes
            try:
                outgoing: str | bytes = payload.decode() if text_ok else payload
            except UnicodeDecodeError:
                outgoing = payload
            await self.ws.send(outgoing)
            answer = await asyncio.wait_for(self.ws.recv(), ANSWER_WITHIN)
            return answer.encode() if isinstance(answer, str) else answer
        self.writer.write(HEADER.pack(len(payload)) + payload)
        (length,) = HEADER.unpack(await asyncio.wait_for(self.reader.readexactly(4), ANSWER_WITHIN))
        return await asyncio.wait_for(self.reader.readexactly(length), ANSWER_WITHIN)


async def exchange(server: ServerProcess, role: str, binding: str, sent: list[tuple[Any, str, bool]],
                   seen: Counter[tuple[str, str | None, str]], start: dict[str, Any]) -> None:
    """Send the frames on one connection (after New run with ``start``, for the live run),
    each answer checked and counted in ``seen`` as (query, refusal code, the question's
    encoding)."""
    run_field = f"{ROLE_OF[role]} run ID"
    async with Wire(server, binding) as wire:
        mine: Counter[tuple[str, str | None, str]] = Counter()
        started = checked(await wire.ask(json.dumps({"query": "New run", "data": start}).encode(), False), "json")
        assert started.refusal is None, started.refusal
        run_id = started.data.get(run_field) if started.refusal is None else None
        for message, encoding, live in sent:
            answer = checked(await wire.ask(body(message, encoding, run_field, run_id, live), encoding == "bytes"),
                             encoding if encoding != "bytes" else "json")
            mine[(answer.name, answer.refusal.code if answer.refusal else None, encoding)] += 1
        # the connection still answers, in order (and the live run is still there)
        last = checked(await wire.ask(json.dumps({"query": "No operation", "data": {run_field: run_id}}).encode(),
                                      False), "json")
        assert last.name == "No operation"
        ended = any(name == "End run" and code is None for name, code, _ in mine)  # (ours: no other is known)
        assert run_id is None or last.refusal is None or ended, last.refusal
    seen.update(mine)


@pytest.fixture(scope="module")
def servers():
    with contextlib.ExitStack() as stack:
        yield {role: stack.enter_context(ServerProcess(target, extra=["--tcp-port", "0"]))
               for role, target in SERVERS.items()}


@pytest.mark.parametrize("binding", ["ws", "tcp"])
@pytest.mark.parametrize("role", list(SERVERS))
def test_fuzzed_frames_are_answered_as_documented(servers, role, binding):
    server = servers[role]
    seen: Counter[tuple[str, str | None, str]] = Counter()
    start = {"mind URL": [servers["mind"].url]} if role == "mind_as" else {}  # an AS needs a mind

    @settings(max_examples=30, derandomize=True, deadline=None, database=None,
              suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
    @given(frames(ROLE_OF[role]))
    def fuzz(sent: list[tuple[Any, str, bool]]) -> None:
        asyncio.run(exchange(server, role, binding, sent, seen, start))

    fuzz()
    assert server.alive
    # past the front door, in both encodings: queries other than New run answered, not refused
    for encoding in ("json", "xml"):
        assert sum(n for (name, code, enc), n in seen.items() if enc == encoding and code is None
                   and name != "New run") > 0, (encoding, seen)


async def test_an_oversized_tcp_frame_is_refused_and_the_connection_closed(servers):
    """The one frame after which the TCP binding closes the connection, as documented."""
    async with Wire(servers["world"], "tcp") as wire:
        wire.writer.write(HEADER.pack(2 << 20) + b"{}")
        (length,) = HEADER.unpack(await asyncio.wait_for(wire.reader.readexactly(4), ANSWER_WITHIN))
        refusal = checked(await wire.reader.readexactly(length), "json").refusal
        assert refusal is not None and refusal.code == "too-large"
        assert await asyncio.wait_for(wire.reader.read(), ANSWER_WITHIN) == b""  # closed
    assert servers["world"].alive
