"""Which encoding a remote object speaks after reading a server's card (its "encodings", as
content types): the one in use while the card lists it, else one the card lists; a binding that
negotiates no encoding per query (WebSocket) keeps its own. (The first-answer rule, over a real
XML-only server, is exercised in tests/examples/test_cgi_mind.py.)"""

from __future__ import annotations

import pytest

from wwm.client.remote import RemoteMind, RemoteWorld


@pytest.mark.parametrize(("start", "listed", "spoken"), [
    ("json", ["application/xml", "application/json"], "json"),
    ("xml", ["application/xml", "application/json"], "xml"),
    ("json", ["application/xml"], "xml"),
    ("json", ["text/xml; charset=utf-8"], "xml"),
    ("xml", ["application/json"], "json"),
    ("json", ["application/cbor"], "json"),   # nothing this client knows: keep trying its own
    ("json", None, "json"),
])
def test_the_card_says_which_encoding_to_speak(start, listed, spoken):
    mind = RemoteMind("http://127.0.0.1:9/")
    mind.transport.speak(start)  # as a first answer would have it
    card = {"role": "mind"} if listed is None else {"role": "mind", "encodings": listed}
    assert mind.speak_as(card) == spoken
    assert mind.encoding == spoken
    assert f"application/{spoken}" == mind.transport.codec.CONTENT_TYPE
    assert mind.attachment()["encoding"] == spoken


def test_an_encoding_the_caller_chose_is_kept():
    mind = RemoteMind("http://127.0.0.1:9/", encoding="json")
    assert mind.transport.settled  # no first answer will change it either
    assert mind.speak_as({"encodings": ["application/xml"]}) == "json"
    assert not RemoteMind("http://127.0.0.1:9/").transport.settled


def test_a_society_document_chooses_an_encoding_only_when_it_names_one():
    from wwm.client.society import build_mind, parse

    world = {"url": "http://127.0.0.1:9/"}
    chosen = parse({"world": world, "mind": {"url": "http://127.0.0.1:8/", "encoding": "json"}})
    free = parse({"world": world, "mind": {"url": "http://127.0.0.1:8/"}})
    assert build_mind(chosen.mind).transport.settled
    assert not build_mind(free.mind).transport.settled


def test_a_websocket_binding_keeps_its_encoding():
    world = RemoteWorld("ws://127.0.0.1:9/ws", transport="ws")
    assert world.speak_as({"encodings": ["application/xml"]}) == "json"
