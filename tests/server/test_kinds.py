"""World kinds (own copy, shared, exclusive), asynchronous worlds, the description card and
page, display pages, and the credit trail, over real servers, or hosted in this process where
a socket is not the point (the answers are the HTTP ones)."""

from __future__ import annotations

import asyncio
import contextlib
import json
import urllib.request
from collections.abc import AsyncIterator
from typing import Any
from urllib.parse import urlsplit

import pytest
from probes import probe_server

from wwm import Refusal
from wwm.client import RemoteMind, RemoteWorld
from wwm.client.inprocess import host, hosted, request
from wwm.server import make_app
from wwm.targets import load_target


@contextlib.asynccontextmanager
async def hosted_probe(name: str, args: dict[str, Any] | None = None) -> AsyncIterator[str]:
    """The probe class ``name`` served in this process; yields its URL."""
    url = f"http://{name.lower()}.kinds.inprocess.test/"
    async with host(make_app(load_target(f"probes:{name}"), url=url, defaults=args)):
        yield url


async def aget(url: str, accept: str = "text/html") -> tuple[int, str]:
    """GET ``url`` of a server hosted in this process."""
    parts = urlsplit(url)
    app = hosted(f"{parts.scheme}://{parts.netloc}/")
    assert app is not None
    reply = await request(app, "GET", parts.path or "/", query=parts.query, headers=[("accept", accept)])
    return reply.status, reply.body.decode()


def get(url: str, accept: str = "text/html") -> tuple[int, str]:
    request = urllib.request.Request(url, headers={"Accept": accept})
    try:
        with urllib.request.urlopen(request, timeout=5) as reply:
            return reply.status, reply.read().decode()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read().decode()


async def test_own_copy_runs_are_separate(probe_world):
    a, b = RemoteWorld(probe_world.url), RemoteWorld(probe_world.url)
    await a.new_run()
    await b.new_run()
    await a.execute_action("+5")
    assert await a.get_state() == "n=5" and await b.get_state() == "n=0"
    assert a.run_id != b.run_id
    for w in (a, b):
        await w.end_run()
        await w.aclose()


async def test_shared_world_gives_each_client_a_body_and_a_view():
    async with hosted_probe("SharedCounter") as url:
        a, b = RemoteWorld(url), RemoteWorld(url)
        await a.new_run()
        await b.new_run()
        await a.execute_action("3")
        await b.execute_action("4")
        assert await a.get_state() == "me=3 all=7"   # own body, sees the shared world
        assert await b.get_state() == "me=4 all=7"
        card = json.loads((await aget(url, "application/json"))[1])
        assert card["sharing"] == "shared" and card["runs_in_progress"] == 2
        for w in (a, b):
            await w.end_run()
            await w.aclose()


async def test_exclusive_world_takes_one_client_and_frees_a_vanished_one():
    with probe_server("Robot") as server:
        first, second = RemoteWorld(server.url), RemoteWorld(server.url)
        await first.new_run()
        with pytest.raises(Refusal) as refused:
            await second.new_run()
        assert refused.value.code == "in-use"
        await first.end_run()                    # stop: marked free for another client
        await second.new_run()
        await second.execute_action("go")
        # second vanishes without End run; after its lease (1 s) a third client gets in
        third = RemoteWorld(server.url)
        with pytest.raises(Refusal):
            await third.new_run()
        await asyncio.sleep(1.3)
        await third.new_run()
        with pytest.raises(Refusal) as gone:
            await second.get_state()
        assert gone.value.code == "run-ended" and "lease lapsed" in gone.value.text
        assert await third.get_state() == "moves=1"   # one robot: the world persists
        await third.end_run()
        for w in (first, second, third):
            await w.aclose()


async def test_asynchronous_world_advances_without_queries():
    with probe_server("Clock") as server:
        async with RemoteWorld(server.url) as world:
            await world.new_run()
            t0 = int((await world.get_state()).split("=")[1])
            await asyncio.sleep(0.5)
            t1 = int((await world.get_state()).split("=")[1])
            assert t1 - t0 >= 5      # ticks every 0.02 s, whether or not we ask
            await world.end_run()


async def test_description_card_and_page(probe_world):
    status, text = get(probe_world.url, "application/json")
    card = json.loads(text)
    assert status == 200 and card["role"] == "world" and card["query_sets"] == ["World"]
    assert "Execute action" in card["queries"] and card["state_format"] == "n=<integer>"
    assert card["arguments"]["properties"]["start"]["type"] == "integer"
    assert card["sharing"] == "own" and card["clock"] == "synchronous"
    status, page = get(probe_world.url)
    assert status == 200 and "<h1>ProbeWorld</h1>" in page and "n=&lt;integer&gt;" in page


async def test_display_page_follows_the_run_and_goes_away(probe_world):
    async with RemoteWorld(probe_world.url) as world:
        started = await world.new_run()
        await world.execute_action("+4")
        status, text = get(started.display_url + ".json", "application/json")
        view = json.loads(text)
        assert status == 200 and view["state"] == "n=4" and view["action"] == "+4" and view["score"] == 4.0
        assert world.run_id not in started.display_url           # the run ID stays secret
        status, page = get(started.display_url)
        assert status == 200 and "n=4" in page
        await world.end_run()
        assert get(started.display_url)[0] == 404


async def test_credit_trail_links_callers_and_callees():
    async with hosted_probe("ProbeMind") as inner, hosted_probe("Relay", args={"mind": inner}) as relay:
        async with RemoteMind(relay, client_url="urn:wwm:client:alice") as mind:
            await mind.new_run()
            assert (await mind.get_action("hello")).action == "echo:hello"
            await mind.end_run()
        relay_trail = json.loads((await aget(relay + "trail", "application/json"))[1])
        inner_trail = json.loads((await aget(inner + "trail", "application/json"))[1])
        assert [link["url"] for link in relay_trail["called_by"]] == ["urn:wwm:client:alice"]
        assert [link["url"] for link in relay_trail["calls"]] == [inner]
        assert [link["url"] for link in inner_trail["called_by"]] == [relay]
        assert relay_trail["calls"][0]["queries"] == 3           # New run, Get action, End run
        page = (await aget(relay))[1]
        assert inner in page and "urn:wwm:client:alice" in page


async def test_server_defaults_hold_unless_the_run_overrides_them():
    async with hosted_probe("ProbeWorld", args={"start": 40, "label": "x"}) as url, RemoteWorld(url) as plain, \
            RemoteWorld(url, label="y") as other, RemoteWorld(url, start=7) as own:
        for world in (plain, other, own):
            await world.new_run()
        assert await plain.get_state() == "n=40"
        assert await other.get_state() == "n=40"     # another argument leaves --arg start alone
        assert await own.get_state() == "n=7"        # the run's own argument wins
        for world in (plain, other, own):
            await world.end_run()


async def test_remote_objects_pickle_as_url_and_run(probe_world):
    import pickle

    async with RemoteWorld(probe_world.url, start=3, encoding="xml") as world:
        await world.new_run()
        copy = pickle.loads(pickle.dumps(world))
        assert copy.run_id == world.run_id and copy.args == {"start": 3}
        await copy.execute_action("+1")
        assert await world.get_state() == "n=4"          # the same run on the server
        await copy.aclose()
        await world.end_run()


async def test_a_body_dropped_for_idleness_leaves_its_shared_world():
    """A shared world keeps no place for a client that went quiet: when the server drops its
    run, the body ends as on End run (here the one robot of a shared Tileworld, which would
    otherwise refuse the next client ``busy`` until the game's time ran out)."""
    from wwm.protocol.messages import Query
    from wwm.server import make_app
    from wwm.tileworld.shared_world import SharedTileworld

    app = make_app(SharedTileworld, url="http://127.0.0.1:1/", idle_seconds=0.05,
                   defaults={"robots": 1, "time": 600, "seed": 1})
    runs = app.dispatcher.runs
    try:
        first = await app.dispatcher.answer(Query("New run"))
        assert first.refusal is None
        second = await app.dispatcher.answer(Query("New run"))
        assert second.refusal is not None and second.refusal.code == "busy"   # the one robot is taken
        await asyncio.sleep(0.1)
        assert runs.expire_idle() == 1
        await asyncio.sleep(0.05)                                            # its End run, in the loop
        third = await app.dispatcher.answer(Query("New run"))
        assert third.refusal is None                                         # the place is free again
    finally:
        runs.close()
