"""The persistent bindings answer the usual query straight from its JSON (``Dispatcher.
answer_payload``); every query, usual or not, gets the same answer as the general way gives
it over HTTP: the same state, the same refusal code and text. Each message below goes over
TCP and over HTTP to one server, to two runs that start alike."""

from __future__ import annotations

import asyncio
import json
import struct

import aiohttp
import pytest
from probes import probe_server

pytestmark = pytest.mark.slow

HEADER = struct.Struct(">I")
RUN = "<run>"  # stands for the run ID of the binding's own run

MESSAGES = [
    {"wwm": "1.0", "query": "Execute action", "data": {"world run ID": RUN, "action": "+2"}},
    {"query": "Execute action", "data": {"world run ID": RUN, "action": "+1"}},            # no version
    {"wwm": "1", "query": "Get state", "data": {"world run ID": RUN}},
    {"wwm": "1.0", "query": "Get state", "data": {"world run ID": f" {RUN} "}},            # spaced run ID
    {"wwm": "1.0", "query": "Execute action", "data": {"world run ID": RUN}},              # item missing
    {"wwm": "1.0", "query": "Execute action", "data": {"world run ID": RUN, "action": 5}},  # not text
    {"wwm": "1.0", "query": "Execute action", "data": {"world run ID": RUN, "action": None}},
    {"wwm": "1.0", "query": "Execute action", "data": {"world run ID": RUN, "action": ["+1"]}},
    {"wwm": "1.0", "query": "Execute action", "data": {"world run ID": RUN, "action": "x"}},  # the world fails
    {"wwm": "1.0", "query": "Execute action", "data": {"world run ID": RUN, "action": "+1", "colour": "red"}},
    {"wwm": "1.0", "query": "Execute action", "data": {"world run ID": RUN, "action": "+1",
                                                       "client URL": "http://127.0.0.1:9/"}},
    {"wwm": "1.0", "query": "Execute action", "data": {"world run ID": RUN, "action": "+1", "client URL": 7}},
    {"wwm": "1.0", "query": "Execute action", "data": {"world run ID": "no-such-run", "action": "+1"}},
    {"wwm": "1.0", "query": "Execute action", "data": {"world run ID": 12, "action": "+1"}},
    {"wwm": "1.0", "query": "Execute action", "data": {"action": "+1"}},                   # no run ID
    {"wwm": "1.0", "query": "Execute action", "data": {"world run ID": RUN, "action": {"a": 1}}},
    {"wwm": "1.0", "query": "Execute action", "data": [RUN]},
    {"wwm": ["1.0"], "query": "Get state", "data": {"world run ID": RUN}},
    {"wwm": "9", "query": "Get state", "data": {"world run ID": RUN}},
    {"wwm": "1.0", "query": "Get state", "data": {"world run ID": RUN}, "extra": 1},
    {"wwm": "1.0", "query": " Get state ", "data": {"world run ID": RUN}},
    {"wwm": "1.0", "query": ["Get state"], "data": {"world run ID": RUN}},
    {"wwm": "1.0", "query": "Get action", "data": {"world run ID": RUN, "state": "s"}},   # a mind's query
    {"wwm": "1.0", "query": "Get display URL", "data": {"world run ID": RUN}},
    {"wwm": "1.0", "query": "No operation", "data": {"world run ID": RUN}},
    {"wwm": "1.0", "query": "Get current score", "data": {"world run ID": RUN}},
    {"wwm": "1.0", "response": "Get state", "data": {"world run ID": RUN}},
    {"wwm": "1.0", "query": "End run", "data": {"world run ID": RUN}},
    {"wwm": "1.0", "query": "Get state", "data": {"world run ID": RUN}},                    # after its end
]


def with_run(message: dict, run_id: str) -> bytes:
    return json.dumps(message).replace(RUN, run_id).encode()


def comparable(answer: bytes, run_id: str, base: str) -> dict:
    """The answer with this run's ID and display URL written as the placeholder."""
    doc = json.loads(answer.decode().replace(run_id, RUN))
    url = doc.get("data", {}).get("world display URL")
    if isinstance(url, str) and url.startswith(base):
        doc["data"]["world display URL"] = "<display>"
    return doc


async def test_tcp_answers_every_message_as_http_does():
    with probe_server("ProbeWorld", extra=["--tcp-port", "0"]) as server:
        reader, writer = await asyncio.open_connection("127.0.0.1", server.tcp_port)

        async def over_tcp(body: bytes) -> bytes:
            writer.write(HEADER.pack(len(body)) + body)
            (length,) = HEADER.unpack(await reader.readexactly(4))
            return await asyncio.wait_for(reader.readexactly(length), 5)

        async with aiohttp.ClientSession() as session:
            async def over_http(body: bytes) -> bytes:
                async with session.post(server.url, data=body, headers={"Content-Type": "application/json"}) as r:
                    return await r.read()

            start = json.dumps({"wwm": "1.0", "query": "New run"}).encode()
            tcp_run = json.loads(await over_tcp(start))["data"]["world run ID"]
            http_run = json.loads(await over_http(start))["data"]["world run ID"]
            for message in MESSAGES:
                by_tcp = comparable(await over_tcp(with_run(message, tcp_run)), tcp_run, server.url)
                by_http = comparable(await over_http(with_run(message, http_run)), http_run, server.url)
                assert by_tcp == by_http, message
            async with session.get(server.url + "trail") as reply:
                trail = await reply.json()
        writer.close()
    # the credit trail counted each caller on both ways in: once over TCP, once over HTTP
    # (a number given as a caller's URL is not a URL: answered, never listed)
    assert [(c["url"], c["queries"]) for c in trail["called_by"]] == [("http://127.0.0.1:9/", 2)]
