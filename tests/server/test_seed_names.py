"""The queries of section 9 sent by the seed's own names ("Add mind to collection", "Reset
Q-Temperature / World has changed", ...) to real served minds, as a client written from the
paper sends them, in XML and in JSON: each is answered as the query it names, under the name
it was sent by."""

from __future__ import annotations

import asyncio
import json
import sys
import urllib.request
from pathlib import Path
from xml.etree import ElementTree

import pytest
from probes import PROBE_ENV

from wwm.client import RemoteMind
from wwm.protocol import queries as Q
from wwm.server.process import ServerProcess, json_card


@pytest.fixture(scope="module")
def action_selection(probe_mind):
    with ServerProcess("wwm.selection.mind_as:ActionSelectionMind", env=PROBE_ENV) as server:
        yield server


@pytest.fixture(scope="module")
def feudal():
    with ServerProcess("wwm.selection.learning.feudal:FeudalQMind", args={"actions": "a,b"}) as server:
        yield server


def ask(url: str, encoding: str, name: str, **data: str | list[str]) -> dict[str, str | list[str]]:
    """POST one query as a paper-written client would, in ``encoding``; the answer's items
    (checked to name the query as it was sent and to refuse nothing)."""
    if encoding == "json":
        body = json.dumps({"query": name, "data": data}).encode()
        with urllib.request.urlopen(urllib.request.Request(url, body, {"Content-Type": "application/json"}),
                                    timeout=20) as reply:
            doc = json.loads(reply.read())
        assert doc["response"] == name and "refusal" not in doc, doc
        return doc.get("data", {})
    items = "".join(f'<data name="{k}"> {v} </data>\n' for k, vs in data.items()
                    for v in (vs if isinstance(vs, list) else [vs]))
    body = f'<xml>\n<query name="{name}">\n{items}</query>\n</xml>\n'.encode()
    with urllib.request.urlopen(urllib.request.Request(url, body, {"Content-Type": "application/xml"}),
                                timeout=20) as reply:
        response = ElementTree.fromstring(reply.read()).find("response")
    assert response is not None and response.get("name") == name
    assert response.find("refusal") is None, ElementTree.tostring(response)
    return {d.get("name", ""): (d.text or "").strip() for d in response.findall("data")}


@pytest.mark.parametrize("encoding", ["xml", "json"])
def test_action_selection_answers_the_seed_names(action_selection, probe_mind, encoding):
    url = action_selection.url
    run = ask(url, encoding, "New run", **{"mind URL": [probe_mind.url]})["mind run ID"]
    rid = {"mind run ID": run}
    assert ask(url, encoding, "Get action", state="n=1", **rid)["action"] == "+1"
    ask(url, encoding, "Remove mind from collection", **{"mind URL": probe_mind.url}, **rid)
    assert "cannot suggest action" in ask(url, encoding, "Get action", state="n=1", **rid)  # no minds left
    ask(url, encoding, "Add mind to collection", **{"mind URL": probe_mind.url}, **rid)
    assert ask(url, encoding, "Get action", state="n=1", **rid)["action"] == "+1"      # back again
    ask(url, encoding, "Send explicit W-Temperature", **{"W-temperature": "0.7"}, **rid)
    assert float(ask(url, encoding, "Get W-Temperature", **rid)["W-temperature"]) == 0.7
    ask(url, encoding, "Reset W-Temperature / Collection has changed", **rid)
    assert float(ask(url, encoding, "Get W-Temperature", **rid)["W-temperature"]) == 0.1  # its start
    ask(url, encoding, "End run", **rid)


@pytest.mark.parametrize("encoding", ["xml", "json"])
def test_learning_and_feudal_mind_answer_the_seed_names(feudal, encoding):
    url = feudal.url
    rid = {"mind run ID": ask(url, encoding, "New run")["mind run ID"]}
    ask(url, encoding, "Send explicit Q-Temperature", **{"Q-temperature": "0.05"}, **rid)
    assert float(ask(url, encoding, "Get Q-Temperature", **rid)["Q-temperature"]) == 0.05
    ask(url, encoding, "Reset Q-Temperature / World has changed", **rid)
    assert float(ask(url, encoding, "Get Q-Temperature", **rid)["Q-temperature"]) == 0.05  # the start set
    values = ask(url, encoding, "How good/bad is this action", state="s", destination="c", action="a", **rid)
    assert float(values["Q"]) == 0.0 and float(values["W"]) == 0.0
    assert ask(url, encoding, "How good/bad is this action", state="s", destination="c", action="z", **rid) == {}
    ask(url, encoding, "End run", **rid)


def test_cards_list_the_seed_names(action_selection, feudal):
    aliases = json_card(action_selection.url)["query_aliases"]
    assert aliases["Add mind to collection"] == "Add mind"
    assert aliases["Remove mind from collection"] == "Remove mind"
    assert aliases["Reset W-Temperature / Collection has changed"] == "Reset W-Temperature"
    assert json_card(feudal.url)["query_aliases"]["How good/bad is this action"] == "How good is this action"


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
