"""T-World's three percept forms: every percept of real games reads back the same from XML
(Python's own XML parser) and from the Prolog fact; an agent chooses its form at connect time
through the real proxy; a WWM run chooses it at New run and the built-in Mind reads it."""

from __future__ import annotations

import asyncio
import json
from xml.etree import ElementTree as ET

import pytest
from websockets.asyncio.client import connect as ws_connect

from wwm.tileworld import percepts
from wwm.tileworld.actions import parse_action
from wwm.tileworld.agents import make_agent
from wwm.tileworld.config import Config
from wwm.tileworld.engine import Engine
from wwm.tileworld.forms import FormError, check_form, decode, encode, split_magic
from wwm.tileworld.proxy import CONNECTED, WORLD_CLOSED, Proxy


def _without_nulls(value):
    if isinstance(value, dict):
        return {k: _without_nulls(v) for k, v in value.items() if v is not None}
    if isinstance(value, list):
        return [_without_nulls(v) for v in value]
    return value


def _messages_of_a_game(config: Config, steps: int = 25):
    engine = Engine(config)
    players = [make_agent("reactive", seed=i) for i in range(config.agents)]
    for _ in range(steps):
        engine.step({i: p.act(percepts.full(engine, i)) for i, p in enumerate(players)})
        yield {"header": "percept", "data": percepts.full(engine, 0)}
    engine.act(0, parse_action("team_message:it's <b>&\"ok\"\nsecond line"))
    yield {"header": "end", "data": percepts.full(engine, 0),
           "messages": [{"from": 0, "to": 1, "team": True, "step": 3, "time": 1.5, "text": "42"}]}


@pytest.mark.parametrize("config", [Config(seed=1, agents=2, battery=True),
                                    Config(seed=3, partial=True, radius=2, noise=True),
                                    Config(seed=4, dynamic=2, multiplier=True)], ids=["battery", "partial", "dynamic"])
def test_every_percept_of_a_game_reads_back_the_same_from_xml_and_prolog(config):
    for message in _messages_of_a_game(config):
        xml, prolog = encode(message, "xml"), encode(message, "prolog")
        assert xml.count("\n") == prolog.count("\n") == 1 and xml.endswith("\n")  # one line each
        assert decode(xml) == _without_nulls(message)  # XML leaves null members out
        assert decode(prolog) == message
        root = ET.fromstring(xml.encode())  # Python's own parser, the tw_msg.xsd layout
        assert root.tag == "tw_msg" and root.find("header").text == message["header"]
        env = root.find("data/environment")
        assert int(env.find("time").get("value")) == message["data"]["environment"]["time"]
        assert [[c.get("value") for c in row] for row in env.find("grid")] == \
            [[str(c) for c in row] for row in message["data"]["environment"]["grid"]]
        me = root.find("data/agent")
        assert int(me.find("location").get("row")) == message["data"]["agent"]["location"]["row"]
        assert prolog.startswith(f"tw_msg(header({message['header']}), data(environment(grid([[")


def test_texts_and_bad_forms():
    for data in ("null", "it's a 'message'\nwith \\ two lines", "on"):
        for form in ("json", "xml", "prolog"):
            assert decode(encode({"header": "message", "data": data}, form)) == {"header": "message", "data": data}
    assert encode({"header": "error", "data": "x"}, "prolog") == "tw_msg(header(error), data('x')).\n"
    assert split_magic("robot-1:xml") == ("robot-1", "xml") and split_magic("a:b") == ("a:b", "json")
    assert split_magic("bot:PROLOG") == ("bot", "prolog") and split_magic(":xml") == (":xml", "json")
    with pytest.raises(FormError, match="choose json, xml or prolog"):
        check_form("yaml")
    bomb = '<?xml version="1.0"?><!DOCTYPE t [<!ENTITY a "aaaa">]><tw_msg><header>&a;</header></tw_msg>'
    for bad in ("hello", "<tw_msg><data/>", "tw_msg(header(x), data(", "<other/>", "tw_msg(header(x), data(1))", bomb):
        with pytest.raises(FormError, match="T-World message|tw_msg|header|DTD"):
            decode(bad)


async def test_an_agent_chooses_its_form_at_connect_time_through_the_proxy():
    proxy = await Proxy(port=0).start()
    try:
        streams = {}
        for name, form in (("xml-bot", "xml"), ("pl-bot", "prolog"), ("js-bot", None)):
            reader, writer = await asyncio.open_connection("127.0.0.1", proxy.port)
            writer.write(f"CONNECT:{name}{':' + form if form else ''}\n".encode())
            await writer.drain()
            streams[name] = (reader, writer)
        worlds = {}
        for name in streams:
            worlds[name] = await ws_connect(f"ws://127.0.0.1:{proxy.port}/")
            await worlds[name].send(f"CONNECT:{name}")  # the world side never names a form
            assert await asyncio.wait_for(worlds[name].recv(), 5) == CONNECTED
        percept = percepts.percept(Engine(Config(seed=2)), 0, "start")
        lines = {}
        for name, ws in worlds.items():
            await ws.send(percept)
            lines[name] = (await asyncio.wait_for(streams[name][0].readline(), 5)).decode()
        assert lines["js-bot"] == percept
        assert ET.fromstring(lines["xml-bot"].encode()).find("header").text == "start"
        assert lines["pl-bot"].startswith("tw_msg(header(start), data(environment(grid(")
        assert decode(lines["xml-bot"]) == _without_nulls(json.loads(percept))
        assert decode(lines["pl-bot"]) == json.loads(percept)
        streams["pl-bot"][1].write(b"north\n")  # actions stay action strings
        await streams["pl-bot"][1].drain()
        assert await asyncio.wait_for(worlds["pl-bot"].recv(), 5) == "north\n"
        await worlds["pl-bot"].close()  # the world goes: the agent is told in its own form
        closed = (await asyncio.wait_for(streams["pl-bot"][0].readline(), 5)).decode()
        assert closed == f"tw_msg(header(error), data('{WORLD_CLOSED}')).\n"
        for _, writer in streams.values():
            writer.close()
        for ws in worlds.values():
            await ws.close()
    finally:
        await proxy.close()
