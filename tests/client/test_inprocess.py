"""The in-process binding (wwm.client.inprocess): a society run, wwm check and a plain connect
all work against server apps hosted in this process, with no socket, through the same codecs
as HTTP; an Action Selection society scores the same in process as over real servers."""

from __future__ import annotations

import asyncio
import contextlib
import socket

import pytest

import wwm
from wwm import Mind, Refusal, Suggestion
from wwm.client import sync as wsync
from wwm.client.conformance import check_server
from wwm.client.inprocess import InProcessTransport, host, hosted
from wwm.client.remote import RemoteMind, RemoteWorld
from wwm.client.session import run_society
from wwm.client.society import parse
from wwm.server import make_app
from wwm.server.process import ServerProcess, start_all
from wwm.targets import load_target

SOCIETY = {"grid": "wwm.kit.grid:GridWorld", "as": "wwm.selection.mind_as:ActionSelectionMind",
           "food": "wwm.kit.grid_minds:FoodSeeker", "hazard": "wwm.kit.grid_minds:HazardAvoider",
           "random": "wwm.kit.random_mind:RandomMind"}


def as_society(urls: dict[str, str], method: str) -> dict:
    """AS over three minds (one of them random, seeded) in a seeded grid world."""
    return {"name": "AS over three minds",
            "world": {"url": urls["grid"], "args": {"size": 8, "seed": 3, "steps": 80}},
            "mind": {"url": urls["as"], "args": {
                "method": method, "seed": 0, "timeout": 10,
                "minds": [urls["food"], urls["hazard"], {"url": urls["random"], "args": {"seed": 1}}]}},
            "run": {"steps": 80, "timeout": 20}}


@contextlib.asynccontextmanager
async def hosted_society(prefix: str = "t"):
    urls = {name: f"http://{name}.{prefix}.inprocess.test/" for name in SOCIETY}
    async with contextlib.AsyncExitStack() as stack:
        for name, target in SOCIETY.items():
            await stack.enter_async_context(host(make_app(load_target(target), url=urls[name])))
        yield urls


@pytest.mark.slow
async def test_an_action_selection_society_scores_the_same_in_process_as_over_http():
    methods = ("max-collective-happiness", "most-popular")  # (most-popular draws on the AS's seed)
    with contextlib.ExitStack() as stack:
        procs = start_all([ServerProcess(target) for target in SOCIETY.values()])
        for proc in procs:
            stack.callback(proc.stop)
        http_urls = {name: proc.url for name, proc in zip(SOCIETY, procs, strict=True)}
        over_http = [await run_society(parse(as_society(http_urls, m))) for m in methods]
    async with hosted_society() as urls:
        in_process = [await run_society(parse(as_society(urls, m))) for m in methods]
    for a, b in zip(over_http, in_process, strict=True):
        assert a.status == b.status == "ended by world"
        assert [s.action for s in a.steps] == [s.action for s in b.steps]
        assert a.step_scores == b.step_scores
        assert a.total_score == b.total_score
    # the two methods decided differently somewhere, so the comparison says something
    assert [s.action for s in in_process[0].steps] != [s.action for s in in_process[1].steps]


async def test_a_society_runs_in_process_without_a_socket(monkeypatch):
    async with hosted_society("nosocket") as urls:
        def no_socket(*args, **kwargs):
            raise AssertionError("a socket was opened")

        monkeypatch.setattr(socket, "socket", no_socket)
        monkeypatch.setattr(asyncio.get_running_loop(), "create_connection", no_socket)
        result = await run_society(parse(as_society(urls, "max-collective-happiness")))
    assert result.status == "ended by world" and len(result.steps) == 80
    # the AS followed its members' URLs in process, and said so in their trails
    assert result.world_display_url.startswith(urls["grid"] + "display/")


async def test_wwm_check_passes_a_world_and_a_mind_in_process():
    async with hosted_society("check") as urls:
        world = await check_server(urls["grid"], action="north")
        mind = await check_server(urls["random"])
    for checks in (world, mind):
        failed = [(c.name, c.detail) for c in checks if not c.passed]
        assert not failed
        assert "malformed XML is refused" in {c.name for c in checks}
    assert any(c.name == "two queries written together are answered in order" for c in mind)


async def test_connect_reaches_an_app_by_its_url_or_directly_in_both_encodings():
    app = make_app(load_target(SOCIETY["grid"]), url="http://grid.direct.inprocess.test/")
    world = wwm.connect(app.url, app=app, size=5, seed=2)  # not hosted: reached directly
    assert isinstance(world, RemoteWorld) and isinstance(world.transport, InProcessTransport)
    await world.new_run()
    assert "size=5" in await world.get_state()
    assert hosted(app.url) is None
    with pytest.raises(ValueError, match="nothing is hosted at"):
        wwm.connect(app.url, role="world", transport="inprocess")
    async with host(app):
        for encoding in ("json", "xml"):
            world = wwm.connect(app.url, role="world", encoding=encoding, transport="inprocess", size=4)
            await world.new_run()
            assert "size=4" in await world.get_state()
            outcome = await world.execute_action("north")
            assert isinstance(outcome.state, str)
            with pytest.raises(Refusal) as refused:  # a refusal crosses as over HTTP
                await world.query("execute_action")
            assert refused.value.code == "bad-parameters"
            await world.end_run()
        with pytest.raises(ValueError, match="already hosted"):
            async with host(app):
                pass
    assert hosted(app.url) is None


class Stuck(Mind):
    """A mind whose Get action never returns; it says when its work was cancelled."""

    cancelled: asyncio.Event | None = None

    async def get_action(self, state: str, **step) -> Suggestion:
        try:
            await asyncio.Event().wait()
        except asyncio.CancelledError:
            assert Stuck.cancelled is not None
            Stuck.cancelled.set()
            raise
        raise AssertionError("unreachable")


async def test_a_query_that_times_out_stops_the_servers_work():
    Stuck.cancelled = asyncio.Event()
    app = make_app(Stuck, url="http://stuck.inprocess.test/")
    async with host(app):
        mind = RemoteMind(app.url, timeout=0.2)
        await mind.new_run()
        with pytest.raises(Refusal) as refused:
            await mind.get_action("x")
        assert refused.value.code == "timeout"
        await asyncio.wait_for(Stuck.cancelled.wait(), 10)


async def test_the_synchronous_facade_reaches_an_app_hosted_on_another_loop():
    app = make_app(load_target(SOCIETY["grid"]), url="http://grid.sync.inprocess.test/")
    async with host(app):
        def use() -> str:
            world = wsync.connect(app.url, size=6)  # its own loop, in the facade's thread
            world.new_run()
            state = world.get_state()
            world.end_run()
            return state

        assert "size=6" in await asyncio.to_thread(use)
