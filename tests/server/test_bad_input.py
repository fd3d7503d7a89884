"""Bad input gets its refusal code and a text, quickly, and the same server keeps serving
another client's run meanwhile."""

from __future__ import annotations

import asyncio
import json
import time

import aiohttp
import pytest

from wwm import Refusal
from wwm.client import RemoteMind, RemoteWorld

BOMB = b"""<?xml version="1.0"?>
<!DOCTYPE lolz [
 <!ENTITY lol "lol">
 <!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">
 <!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">
 <!ENTITY lol9 "&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;">
]>
<xml><query name="Get state"><data name="world run ID">&lol9;</data></query></xml>"""

EXTERNAL = b"""<?xml version="1.0"?><!DOCTYPE x [<!ENTITY e SYSTEM "file:///etc/passwd">]>
<xml><query name="Get state"><data name="world run ID">&e;</data></query></xml>"""


def xml_query(name: str, **data: str) -> bytes:
    items = "".join(f'<data name="{k}">{v}</data>' for k, v in data.items())
    return f'<xml><query name="{name}">{items}</query></xml>'.encode()


CASES = [
    # (label, body, content type, expected code, expected words in the text)
    ("malformed XML", b"<xml><query name='Get state'>", "application/xml", "malformed-message", "not well-formed"),
    ("wrong root", b"<html/>", "application/xml", "malformed-message", "root element"),
    ("malformed JSON", b'{"query": "Get state", ', "application/json", "malformed-message", "not valid JSON"),
    ("JSON not an object", b"[1, 2]", "application/json", "malformed-message", "JSON object"),
    ("entity bomb", BOMB, "application/xml", "forbidden-xml", "forbidden"),
    ("external entity", EXTERNAL, "application/xml", "forbidden-xml", "forbidden"),
    ("10 MB body", b"<xml>" + b" " * (10 * 1024 * 1024) + b"</xml>", "application/xml", "too-large", "at most"),
    ("unknown run ID", xml_query("Get state", **{"world run ID": "no-such-run"}), "application/xml",
     "unknown-run", "no-such-run"),
    ("unknown query", xml_query("Make coffee"), "application/xml", "unknown-query", "Make coffee"),
    ("mind query to a world", xml_query("Get action", state="x"), "application/xml", "unknown-query", "mind query"),
    ("wrong type in New run", xml_query("New run", start="five"), "application/xml", "bad-parameters", "start"),
    ("unknown argument", xml_query("New run", colour="red"), "application/xml", "bad-parameters", "colour"),
    ("bad client URL", xml_query("New run", **{"client URL": "not a url"}), "application/xml",
     "client-url-invalid", "not a URL"),
    ("unsupported version", b'<xml wwm="9"><query name="Get state"/></xml>', "application/xml",
     "unsupported-version", "9"),
    ("unreadable encoding", b"hello", "text/plain", "unsupported-encoding", "XML or JSON"),
    ("empty body", b"", "application/octet-stream", "malformed-message", "empty"),
]


async def post(session: aiohttp.ClientSession, url: str, body: bytes, ctype: str) -> tuple[int, str, bytes]:
    async with session.post(url, data=body, headers={"Content-Type": ctype}) as reply:
        return reply.status, reply.headers.get("Content-Type", ""), await reply.read()


def refusal_of(ctype: str, payload: bytes) -> tuple[str, str]:
    if "json" in ctype:
        doc = json.loads(payload)
        return doc["refusal"]["code"], doc["refusal"]["text"]
    from xml.etree import ElementTree

    element = ElementTree.fromstring(payload).find("response/refusal")
    return element.get("code"), element.text


@pytest.mark.parametrize("label,body,ctype,code,words", CASES, ids=[c[0] for c in CASES])
async def test_refusal(probe_world, label, body, ctype, code, words):
    async with aiohttp.ClientSession() as session:
        started = time.monotonic()
        status, reply_type, payload = await post(session, probe_world.url, body, ctype)
        elapsed = time.monotonic() - started
    got_code, text = refusal_of(reply_type, payload)
    assert got_code == code, text
    assert words.lower() in text.lower()
    assert status >= 400
    assert elapsed < 3.0, f"{label} took {elapsed:.2f} s"


async def test_server_keeps_serving_another_run_through_bad_input(probe_world):
    """A well-behaved client's run goes on, step after step, while another client sends every
    kind of bad input to the same server; its state stays exactly as it should."""
    good = RemoteWorld(probe_world.url, start=0)
    await good.new_run()
    stop = asyncio.Event()
    steps = 0

    async def well_behaved() -> None:
        nonlocal steps
        while not stop.is_set():
            outcome = await good.execute_action("+1")
            steps += 1
            assert outcome.state == f"n={steps}"

    async def attacker() -> None:
        async with aiohttp.ClientSession() as session:
            for _ in range(3):
                for _label, body, ctype, code, _words in CASES:
                    status, reply_type, payload = await post(session, probe_world.url, body, ctype)
                    assert refusal_of(reply_type, payload)[0] == code
        stop.set()

    before = steps
    await asyncio.gather(well_behaved(), attacker())
    assert steps > before + 10
    assert await good.get_state() == f"n={steps}"
    await good.end_run()
    await good.aclose()


async def test_object_failure_is_a_refusal_and_the_run_survives(probe_world):
    async with RemoteWorld(probe_world.url, start=0) as world:
        await world.new_run()
        from wwm import Refusal

        with pytest.raises(Refusal) as refused:
            await world.execute_action("+not-a-number")  # int() fails inside the world
        assert refused.value.code == "server-error" and "ValueError" in refused.value.text
        assert (await world.execute_action("+2")).state == "n=2"  # same run, still going
        await world.end_run()


async def test_too_large_is_refused_in_the_declared_encoding(probe_world):
    async with aiohttp.ClientSession() as session:
        too_large = b"<xml>" + b" " * (2 << 20) + b"</xml>"
        status, reply_type, payload = await post(session, probe_world.url, too_large, "text/xml")
    assert status == 413 and "xml" in reply_type
    assert refusal_of(reply_type, payload)[0] == "too-large"


@pytest.mark.parametrize("encoding", ["xml", "json"])
@pytest.mark.parametrize("bad", ["garbage", "ftp://files.example/run", "http://", "/relative/path"])
async def test_a_world_display_url_that_is_not_a_url_is_refused(probe_mind, encoding, bad):
    async with RemoteMind(probe_mind.url, encoding=encoding) as mind:
        with pytest.raises(Refusal) as refused:
            await mind.new_run(world_display_url=bad)
        assert refused.value.code == "world-display-url-invalid"
        assert bad in refused.value.text and "world display URL" in refused.value.text
        started = await mind.new_run(world_display_url=" ws://w.example:9/run/7 ")  # the server goes on
        assert started.display_url == "urn:probe:none:ws://w.example:9/run/7"
        await mind.end_run()
