"""The seed's own words (section 11.2 and the spellings of section 9): an element or JSON
member a server does not know is ignored, not refused; query and item names are matched in
any case and as the seed spells them; "Get values for this action" on an action the mind
cannot value is refused; the card says what a server understands. In process for the codecs
and the vocabulary, and over real servers of every role (World, Mind, Mind_AS, World_W)
through ``wwm check``'s own checks."""

from __future__ import annotations

import asyncio
from contextlib import ExitStack

import pytest

from wwm.client.conformance import check_server
from wwm.client.remote import RemoteMind
from wwm.protocol import jsoncodec, queries, xmlcodec
from wwm.protocol.errors import Refusal
from wwm.protocol.messages import Query
from wwm.server.process import ServerProcess


def test_an_element_the_codec_does_not_know_is_ignored():
    message = xmlcodec.decode(b'<xml><note/><query name="Get action"><data name="mind run ID"> 7 </data>'
                              b'<extension name="later"><deep>x</deep></extension>'
                              b'<data name="state">s</data></query><signature/></xml>')
    assert isinstance(message, Query) and message.data == {"mind run ID": "7", "state": "s"}
    with pytest.raises(Refusal, match="exactly one <query> or <response>"):
        xmlcodec.decode(b'<xml><extension/></xml>')                  # still a query, or nothing
    message = jsoncodec.decode(b'{"query": "Get state", "data": {"world run ID": "7"}, "extension": [1]}')
    assert isinstance(message, Query) and message.data == {"world run ID": "7"}


@pytest.mark.parametrize(("role", "asked", "meant"), [
    ("mind", "get q-temperature", "Get Q-Temperature"),
    ("mind", "GET  MIND STRENGTH", "Get mind strength"),
    ("mind", "add mind to collection", "Add mind"),
    ("world", "execute ACTION", "Execute action"),
])
def test_query_names_are_matched_without_regard_to_case(role, asked, meant):
    assert queries.lookup(role, asked).name == meant


@pytest.mark.parametrize(("query", "given", "read"), [
    ("Send explicit Q-Temperature", {"Mind Run ID": "7", "Q-Temperature": "0.5",
                                     "Proposed length of next Q learning run": "9"},
     {"mind run ID": "7", "Q-temperature": "0.5", "run length": "9"}),
    ("Change mind strength", {"mind run ID": "7", "mind strength": "2"}, {"mind run ID": "7", "strength": "2"}),
    ("Send explicit W-Temperature", {"mind run ID": "7", "w-temperature": "1",
                                     "Proposed length of next W learning run": "5"},
     {"mind run ID": "7", "W-temperature": "1", "run length": "5"}),
    ("Add mind", {"mind run ID": "7", "Mind server URL": "http://m/"}, {"mind run ID": "7", "mind URL": "http://m/"}),
    ("Take me to state", {"mind run ID": "7", "STATE": "x", "destination state c": "c", "Q-Temperature": "0"},
     {"mind run ID": "7", "state": "x", "destination": "c", "Q-temperature": "0"}),
])
def test_items_are_read_as_the_seed_spells_them(query, given, read):
    assert queries.canonical_items(queries.lookup("mind", query), given) == read


def test_one_item_given_twice_is_refused_by_name():
    with pytest.raises(Refusal, match='the item "state" is given twice'):
        queries.canonical_items(queries.lookup("mind", "Get action"), {"state": "x", "State": "y"})


@pytest.fixture(scope="module")
def servers():
    with ExitStack() as stack:
        grid = stack.enter_context(ServerProcess("grid"))
        member = stack.enter_context(ServerProcess("random"))
        yield {"World": (grid, "north"), "Mind": (stack.enter_context(ServerProcess("q-learning")), None),
               "Mind_AS": (stack.enter_context(ServerProcess("action-selection", {"minds": member.url})), None),
               "World_W": (stack.enter_context(ServerProcess("subspace", {"world": grid.url, "keep": "x,y"})),
                           "north")}


SEED_CHECKS = ("an element it does not know is ignored (11.2)", "a JSON member it does not know is ignored",
               "query and item names in any case")


@pytest.mark.slow
@pytest.mark.parametrize("role", ["World", "Mind", "Mind_AS", "World_W"])
@pytest.mark.parametrize("encoding", ["json", "xml"])
def test_every_role_understands_the_seed_s_words(servers, role, encoding):
    server, action = servers[role]
    assert server.card()["understands"]["ignored"].startswith("any other element")
    checks = {c.name: c for c in asyncio.run(check_server(server.url, state="size=8 x=1 y=1 fd=1 hd=1",
                                                          action=action, encoding=encoding))}
    failed = [f"{c.name}: {c.detail}" for c in checks.values() if not c.passed]
    assert failed == []
    assert set(SEED_CHECKS) <= set(checks)
    if role.startswith("Mind"):                                  # both are Mind_i (and Mind_L)
        assert "Get values for an action it cannot value is refused" in checks
        assert "refused: bad-parameters" in checks["Get values for an action it cannot value is refused"].detail


@pytest.mark.slow
def test_the_seed_s_q_temperature_reaches_the_mind(servers):
    server, _ = servers["Mind"]

    async def go() -> float | None:
        mind = RemoteMind(server.url, encoding="xml")
        await mind.new_run()
        await mind.transport.exchange(Query("Send explicit Q-Temperature", {
            "mind run ID": mind.run_id, "Q-Temperature": "0.125", "Proposed length of next Q learning run": "10"}))
        got = await mind.get_q_temperature()
        await mind.end_run()
        await mind.aclose()
        return got

    assert asyncio.run(go()) == pytest.approx(0.125, abs=0.01)


@pytest.mark.parametrize(("query", "data", "value"), [
    ("Get Q-Temperature", {"Q-Temperature": "0.25"}, 0.25),
    ("Get W-Temperature", {"w-temperature": "2"}, 2.0),
    ("Get mind strength", {"mind strength": "3"}, 3.0),
    ("Get mind strength", {"strength": "4"}, 4.0),
])
def test_a_client_reads_the_seed_s_spelling_of_an_answer(query, data, value):
    assert queries.decode_result(queries.lookup("mind", query), data) == value
