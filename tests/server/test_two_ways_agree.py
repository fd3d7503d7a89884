"""The server's two ways of answering agree on any message (issue 30, item 2): the short way of
the persistent bindings (``Dispatcher.answer_payload``, which answers the usual query straight
from its JSON) and the general way (``answer_in_general``, what HTTP gives) answer every
sequence of messages hypothesis makes alike: the same data, the same refusal code and text,
the same state after. In process: two dispatchers of one World, each with a run started alike."""

from __future__ import annotations

import asyncio
import json
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from probes import ProbeWorld

from wwm.protocol.context import current_server
from wwm.server import make_app

RUN = "<run>"  # stands for the run ID of each dispatcher's own run
NAMES = ["Execute action", "Get state", "Get current score", "No operation", "Reset", "Reset score",
         "Get display URL", "End run", "Get action", " Get state ", "Make coffee", "execute action"]
ITEMS = ["world run ID", "action", "client URL", "colour", "access token", "state"]

scalars = st.one_of(st.none(), st.booleans(), st.integers(-5, 5), st.floats(allow_nan=False, width=32),
                    st.sampled_from(["+1", "+2", "-3", " +1 ", "x", "", "1e2", RUN, f" {RUN} ", "no-such-run",
                                     "http://127.0.0.1:9/", "urn:wwm:client:a", "not a url"]),
                    st.text(max_size=6).filter(lambda t: "hang" not in t))
values = st.one_of(scalars, st.lists(scalars, max_size=2), st.dictionaries(st.sampled_from(["a", "b"]), scalars,
                                                                           max_size=1))
data = st.one_of(st.dictionaries(st.sampled_from(ITEMS), values, max_size=4),
                 st.fixed_dictionaries({"world run ID": st.just(RUN), "action": st.sampled_from(["+1", "+2", "x"])},
                                       optional={"client URL": values, "colour": values}),
                 values)
documents = st.fixed_dictionaries(
    {"query": st.one_of(st.sampled_from(NAMES), values)},
    optional={"wwm": st.sampled_from(["1.0", "1", "9", 1, ["1.0"], None]), "data": data, "extra": scalars,
              "response": st.sampled_from(["Get state"])})


@st.composite
def usual(draw: st.DrawFn) -> dict[str, Any]:
    """The usual query of a run, now and then with an item it does not declare or a client URL."""
    name = draw(st.sampled_from(["Execute action", "Get state", "Get current score", "No operation", "Reset score"]))
    items: dict[str, Any] = {"world run ID": draw(st.sampled_from([RUN, RUN, f" {RUN} "]))}
    if name == "Execute action":
        items["action"] = draw(st.sampled_from(["+1", "+2", "+3", "x", " +1"]))
    items.update(draw(st.dictionaries(st.sampled_from(["client URL", "colour"]), values, max_size=1)))
    return {"query": name, "data": items, **draw(st.sampled_from([{}, {"wwm": "1.0"}, {"wwm": "1"}]))}


def encoded(doc: dict[str, Any]) -> bytes:
    return json.dumps(doc).encode()


messages = st.one_of(usual().map(encoded), usual().map(encoded), documents.map(encoded),
                     st.sampled_from([b"", b"{", b"[]", b"null", b"{}", b"<xml/>", b'{"query": "Get state"'])
                     .map(bytes))


def comparable(answer: bytes, run_id: str) -> Any:
    """The answer with this run's ID and display token written as placeholders."""
    text = answer.decode()
    try:
        doc = json.loads(text.replace(run_id, RUN))
    except ValueError:
        return text
    found = doc.get("data", {}).get("world display URL") if isinstance(doc, dict) else None
    if isinstance(found, str):
        doc["data"]["world display URL"] = "<display>"
    return doc


SHORT = make_app(ProbeWorld, url="http://short.test/").dispatcher
GENERAL = make_app(ProbeWorld, url="http://general.test/").dispatcher


async def both_ways(sequence: list[bytes]) -> None:
    short, general = SHORT, GENERAL  # (a fresh run on each, every time)
    start = b'{"wwm": "1.0", "query": "New run"}'
    short_run = json.loads(await short.answer_in_general(start))["data"]["world run ID"]
    general_run = json.loads(await general.answer_in_general(start))["data"]["world run ID"]
    current_server.set(short.trail)  # (as each binding sets it for its connection)
    for raw in sequence:
        by_short = comparable(await short.answer_payload(raw.replace(RUN.encode(), short_run.encode())), short_run)
        by_general = comparable(await general.answer_in_general(raw.replace(RUN.encode(), general_run.encode())),
                                general_run)
        assert by_short == by_general, raw
    states = [await d.answer_in_general(json.dumps({"query": "Get state", "data": {"world run ID": r}}).encode())
              for d, r in ((short, short_run), (general, general_run))]
    assert comparable(states[0], short_run) == comparable(states[1], general_run)
    for d, run_id in ((short, short_run), (general, general_run)):
        d.runs.end(run_id)


@settings(max_examples=200, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(messages, min_size=1, max_size=8))
def test_the_short_way_and_the_general_way_answer_any_messages_alike(sequence):
    asyncio.run(both_ways(sequence))


def test_the_short_way_is_taken_for_the_usual_query():
    """The property above compares something: the usual query does go the short way."""
    async def go() -> None:
        d = make_app(ProbeWorld, url="http://short.test/").dispatcher
        run = json.loads(await d.answer_in_general(b'{"query": "New run"}'))["data"]["world run ID"]
        usual = json.dumps({"wwm": "1.0", "query": "Execute action", "data": {"world run ID": run, "action": "+2"}})
        answer = d.answer_at_once(usual.encode())
        assert isinstance(answer, bytes) and json.loads(answer)["data"] == {"state": "n=2", "score": 2}
        assert d.answer_at_once(usual.replace('"+2"', "2").encode()) is None  # not text: the general way
        d.runs.close()

    asyncio.run(go())
