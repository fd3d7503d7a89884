"""The queries of section 9 sent by the seed's own names ("Add mind to collection", "Reset
Q-Temperature / World has changed", ...) to served minds (hosted in this process: the bodies
and answers are the HTTP ones, no socket), as a client written from the paper sends them, in
XML and in JSON: each is answered as the query it names, under the name it was sent by; and
to a program behind ``serve-exec`` that knows only those names (a real process)."""

from __future__ import annotations

import asyncio
import contextlib
import json
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from xml.etree import ElementTree

import pytest
from probes import PROBE_ENV

from wwm.client import RemoteMind
from wwm.client.cards import fetch_card
from wwm.client.inprocess import host, hosted, request
from wwm.protocol import queries as Q
from wwm.server import make_app
from wwm.server.process import ServerProcess
from wwm.targets import load_target

AS_URL, FEUDAL_URL, PROBE_URL = ("http://as.seed.inprocess.test/", "http://feudal.seed.inprocess.test/",
                                 "http://probe.seed.inprocess.test/")


@contextlib.asynccontextmanager
async def served() -> AsyncIterator[None]:
    """An AS, a feudal mind and the probe mind, hosted in this process."""
    async with contextlib.AsyncExitStack() as stack:
        for url, target, defaults in ((AS_URL, "wwm.selection.mind_as:ActionSelectionMind", None),
                                      (FEUDAL_URL, "wwm.selection.learning.feudal:FeudalQMind", {"actions": "a,b"}),
                                      (PROBE_URL, "probes:ProbeMind", None)):
            await stack.enter_async_context(host(make_app(load_target(target), url=url, defaults=defaults)))
        yield


async def ask(url: str, encoding: str, name: str, **data: str | list[str]) -> dict[str, str | list[str]]:
    """POST one query as a paper-written client would, in ``encoding``; the answer's items
    (checked to name the query as it was sent and to refuse nothing)."""
    app = hosted(url)
    assert app is not None
    if encoding == "json":
        body = json.dumps({"query": name, "data": data}).encode()
        reply = await request(app, "POST", body=body, headers=[("content-type", "application/json")], timeout=20)
        doc = json.loads(reply.body)
        assert reply.status == 200 and doc["response"] == name and "refusal" not in doc, doc
        return doc.get("data", {})
    items = "".join(f'<data name="{k}"> {v} </data>\n' for k, vs in data.items()
                    for v in (vs if isinstance(vs, list) else [vs]))
    body = f'<xml>\n<query name="{name}">\n{items}</query>\n</xml>\n'.encode()
    reply = await request(app, "POST", body=body, headers=[("content-type", "application/xml")], timeout=20)
    assert reply.status == 200 and reply.content_type is not None and "xml" in reply.content_type
    response = ElementTree.fromstring(reply.body).find("response")
    assert response is not None and response.get("name") == name
    assert response.find("refusal") is None, ElementTree.tostring(response)
    return {d.get("name", ""): (d.text or "").strip() for d in response.findall("data")}


@pytest.mark.parametrize("encoding", ["xml", "json"])
async def test_action_selection_answers_the_seed_names(encoding):
    async with served():
        url = AS_URL
        run = (await ask(url, encoding, "New run", **{"mind URL": [PROBE_URL]}))["mind run ID"]
        rid = {"mind run ID": run}
        assert (await ask(url, encoding, "Get action", state="n=1", **rid))["action"] == "+1"
        await ask(url, encoding, "Remove mind from collection", **{"mind URL": PROBE_URL}, **rid)
        assert "cannot suggest action" in await ask(url, encoding, "Get action", state="n=1", **rid)  # no minds left
        await ask(url, encoding, "Add mind to collection", **{"mind URL": PROBE_URL}, **rid)
        assert (await ask(url, encoding, "Get action", state="n=1", **rid))["action"] == "+1"      # back again
        await ask(url, encoding, "Send explicit W-Temperature", **{"W-temperature": "0.7"}, **rid)
        assert float((await ask(url, encoding, "Get W-Temperature", **rid))["W-temperature"]) == 0.7
        await ask(url, encoding, "Reset W-Temperature / Collection has changed", **rid)
        assert float((await ask(url, encoding, "Get W-Temperature", **rid))["W-temperature"]) == 0.1  # its start
        await ask(url, encoding, "End run", **rid)


@pytest.mark.parametrize("encoding", ["xml", "json"])
async def test_learning_and_feudal_mind_answer_the_seed_names(encoding):
    async with served():
        url = FEUDAL_URL
        rid = {"mind run ID": (await ask(url, encoding, "New run"))["mind run ID"]}
        await ask(url, encoding, "Send explicit Q-Temperature", **{"Q-temperature": "0.05"}, **rid)
        assert float((await ask(url, encoding, "Get Q-Temperature", **rid))["Q-temperature"]) == 0.05
        await ask(url, encoding, "Reset Q-Temperature / World has changed", **rid)
        assert float((await ask(url, encoding, "Get Q-Temperature", **rid))["Q-temperature"]) == 0.05  # the start set
        values = await ask(url, encoding, "How good/bad is this action", state="s", destination="c", action="a", **rid)
        assert float(values["Q"]) == 0.0 and float(values["W"]) == 0.0
        unknown = await ask(url, encoding, "How good/bad is this action", state="s", destination="c", action="z", **rid)
        assert unknown == {}
        await ask(url, encoding, "End run", **rid)


async def test_cards_list_the_seed_names():
    async with served():
        aliases = (await fetch_card(AS_URL))["query_aliases"]
        assert aliases["Add mind to collection"] == "Add mind"
        assert aliases["Remove mind from collection"] == "Remove mind"
        assert aliases["Reset W-Temperature / Collection has changed"] == "Reset W-Temperature"
        feudal = (await fetch_card(FEUDAL_URL))["query_aliases"]
        assert feudal["How good/bad is this action"] == "How good is this action"


def test_every_section_9_name_of_the_seed_is_a_query():
    seed = {"world": ["New run", "Get display URL", "No operation", "Get state", "Execute action", "Reset",
                      "Reset score", "Get current score", "End run"],
            "mind": ["New run", "Get display URL", "No operation", "Ready to suggest action?", "Get action",
                     "Inform it about state", "Reset score", "Get current score", "End run",
                     "Get Q-Temperature", "Reset Q-Temperature / World has changed",
                     "Send explicit Q-Temperature", "Get mind strength", "Change mind strength",
                     "Get W-Temperature", "Reset W-Temperature / Collection has changed",
                     "Send explicit W-Temperature", "Get suggested action with values",
                     "Get values for this action", "Inform it about winner", "Take me to state",
                     "How good/bad is this action", "Add mind to collection", "Remove mind from collection"]}
    for role, names in seed.items():
        for name in names:
            assert Q.lookup(role, name) is not None


def test_the_client_asks_a_seed_written_server_by_the_seeds_names(tmp_path):
    # a program that knows only the seed's names, behind serve-exec: the client's "Add mind"
    # reaches it by way of the server's remote mind, is refused (unknown-query), and is asked
    # again as "Add mind to collection"; the next one goes by the seed's name at once
    program = Path(__file__).with_name("seed_named_mind.py")
    command = [sys.executable, "-m", "wwm.cli.main", "serve-exec", "--port", "0", "--query-sets", "Mind_AS",
               "--state-dir", str(tmp_path), "--", sys.executable, str(program)]
    with ServerProcess("", command=command, port=0, env=PROBE_ENV) as server:
        async def go() -> None:
            async with RemoteMind(server.url) as mind:
                await mind.new_run()
                await mind.add_mind("http://a.example/")
                await mind.add_mind("http://b.example/")
                await mind.remove_mind("http://a.example/")
                assert (await mind.get_action("x")).action == "1"
                await mind.end_run()

        asyncio.run(go())
    assert (tmp_path / "collection.txt").read_text() == "http://b.example/"
