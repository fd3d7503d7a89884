"""The plain TCP binding on the wire, as a client in another language would drive it:
length-prefixed frames, answers in order, bad frames refused by name, and the server serving
other clients throughout."""

from __future__ import annotations

import asyncio
import json
import struct

import pytest
from probes import probe_server

pytestmark = pytest.mark.slow

HEADER = struct.Struct(">I")


@pytest.fixture(scope="module")
def tcp_world():
    with probe_server("ProbeWorld", extra=["--tcp-port", "0"]) as server:
        yield server.tcp_port


def frame(doc: dict | bytes) -> bytes:
    body = doc if isinstance(doc, bytes) else json.dumps(doc).encode()
    return HEADER.pack(len(body)) + body


async def read_frame(reader: asyncio.StreamReader) -> dict:
    """One answer; an XML one (the answer to an XML question) as {"refusal": {code, text}}."""
    (length,) = HEADER.unpack(await reader.readexactly(4))
    body = await reader.readexactly(length)
    if body.startswith(b"<"):
        from wwm.protocol import xmlcodec

        refusal = xmlcodec.decode(body).refusal
        return {"refusal": {"code": refusal.code, "text": refusal.text, "xml": True}}
    return json.loads(body)


async def new_run(reader, writer) -> str:
    writer.write(frame({"wwm": "1.0", "query": "New run"}))
    return (await read_frame(reader))["data"]["world run ID"]


def execute(run_id: str, action: str) -> dict:
    return {"wwm": "1.0", "query": "Execute action", "data": {"world run ID": run_id, "action": action}}


async def test_pipelined_frames_are_answered_in_order(tcp_world):
    reader, writer = await asyncio.open_connection("127.0.0.1", tcp_world)
    run_id = await new_run(reader, writer)
    writer.write(b"".join(frame(execute(run_id, f"+{k}")) for k in range(1, 11)))  # one write, ten queries
    states = [(await read_frame(reader))["data"]["state"] for _ in range(10)]
    assert states == [f"n={sum(range(1, k + 1))}" for k in range(1, 11)]
    writer.close()


@pytest.mark.parametrize("body, code", [(b"not a message", "unsupported-encoding"),
                                        (b"{broken json", "malformed-message"),
                                        (b"<xml><query name='Get state'>", "malformed-message"),
                                        (b"", "malformed-message")])
async def test_a_bad_frame_is_refused_by_name_and_the_connection_goes_on(tcp_world, body, code):
    reader, writer = await asyncio.open_connection("127.0.0.1", tcp_world)
    run_id = await new_run(reader, writer)
    writer.write(frame(body))
    refused = await asyncio.wait_for(read_frame(reader), 3)
    assert refused["refusal"]["code"] == code and refused["refusal"]["text"]
    assert refused["refusal"].get("xml", False) == body.startswith(b"<")  # answered in kind
    writer.write(frame(execute(run_id, "+2")))
    assert (await read_frame(reader))["data"]["state"] == "n=2"
    writer.close()


@pytest.mark.parametrize("head", [HEADER.pack(2**31), b"GET / HTTP/1.1\r\n\r\n"])
async def test_an_oversized_frame_is_refused_and_the_server_serves_others(tcp_world, head):
    other_reader, other_writer = await asyncio.open_connection("127.0.0.1", tcp_world)
    run_id = await new_run(other_reader, other_writer)
    reader, writer = await asyncio.open_connection("127.0.0.1", tcp_world)
    writer.write(head)  # a length far over the limit (plain HTTP reads as one too)
    refused = await asyncio.wait_for(read_frame(reader), 3)
    assert refused["refusal"]["code"] == "too-large" and "bytes" in refused["refusal"]["text"]
    assert await asyncio.wait_for(reader.read(), 3) == b""  # then the connection is closed
    other_writer.write(frame(execute(run_id, "+5")))
    assert (await read_frame(other_reader))["data"]["state"] == "n=5"
    other_writer.close()


async def test_a_client_that_vanishes_mid_frame_leaves_the_server_serving(tcp_world):
    for _ in range(20):
        _, writer = await asyncio.open_connection("127.0.0.1", tcp_world)
        writer.write(HEADER.pack(100) + b"{\"wwm\": ")  # half a frame, then gone
        writer.close()
    reader, writer = await asyncio.open_connection("127.0.0.1", tcp_world)
    run_id = await new_run(reader, writer)
    writer.write(frame(execute(run_id, "+1")))
    assert (await asyncio.wait_for(read_frame(reader), 3))["data"]["state"] == "n=1"
    writer.close()
