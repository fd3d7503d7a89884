"""An AS server over real processes on loopback: minds reached over HTTP, WebSocket and TCP in
one run; bad mind URLs and the AS's own URL (by any of its names) refused by name; the run
display page showing each mind's last answer and the winner."""

from __future__ import annotations

import json
import os
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from wwm import Refusal
from wwm.client.remote import RemoteMind, RemoteWorld
from wwm.client.runner import RunSettings, run
from wwm.protocol.messages import Query
from wwm.server.process import ServerProcess, free_port

pytestmark = pytest.mark.slow

HERE = Path(__file__).resolve().parent
PATH = [str(HERE), str(HERE.parent), os.environ.get("PYTHONPATH")]
ENV = {"PYTHONPATH": os.pathsep.join(p for p in PATH if p)}
AS = "wwm.selection.mind_as:ActionSelectionMind"


class Servers:
    """The processes these tests share, started at once."""

    def __init__(self) -> None:
        self.loop_port = free_port()
        self.low = ServerProcess("society_minds:TableMind", args={"q": "+1:1,+2:0"}, env=ENV)
        self.mid = ServerProcess("society_minds:TableMind", args={"q": "+2:2,+1:0"}, env=ENV)
        self.high = ServerProcess("society_minds:TableMind", args={"q": "+3:3,+1:0"}, env=ENV,
                                  extra=["--tcp-port", "0"])
        self.world = ServerProcess("probes:ProbeWorld", env=ENV)
        self.as_ = ServerProcess(AS, env=ENV, extra=["--tcp-port", "0"])
        loop_url = f"http://127.0.0.1:{self.loop_port}/"  # an AS served with itself as a mind
        self.loop = ServerProcess(AS, port=self.loop_port, env=ENV, args={"minds": f"{self.low.url},{loop_url}"})
        self.all = [self.low, self.mid, self.high, self.world, self.as_, self.loop]

    @property
    def tcp_port(self) -> int:
        return self.high.tcp_port  # any free port, named in the server's card

    @property
    def as_tcp_port(self) -> int:
        return self.as_.tcp_port

    def ws(self, p: ServerProcess) -> str:
        return p.url.replace("http://", "ws://") + "ws"


@pytest.fixture(scope="module")
def servers():
    s = Servers()
    try:
        with ThreadPoolExecutor(len(s.all)) as pool:
            list(pool.map(lambda p: p.start(), s.all))
        yield s
    finally:
        for p in s.all:
            p.stop()


def get(url: str) -> bytes:
    with urllib.request.urlopen(url, timeout=5) as reply:
        return reply.read()


def card(url: str) -> dict:
    return json.loads(get(url + "?format=json"))


async def refused(as_url: str, *urls: str, **items) -> Refusal:
    """The refusal of a New run (sent as the raw query) with these mind URLs (none: the
    server's defaults)."""
    society = RemoteMind(as_url)
    try:
        with pytest.raises(Refusal) as info:
            await society.transport.exchange(Query("New run", {**({"mind URL": list(urls)} if urls else {}), **items}))
        return info.value
    finally:
        await society.aclose()


async def test_minds_over_http_websocket_and_tcp_in_one_run(servers):
    s = servers
    minds = [s.low.url, s.ws(s.mid), f"tcp://127.0.0.1:{s.tcp_port}"]
    society = RemoteMind(s.as_.url, minds=minds, method="w=q")
    views: list[dict] = []

    def on_step(step, result):
        if step.index == 3:  # mid-run: the AS's display page, each mind's last answer
            views.append(json.loads(get(society.display_url + ".json")))

    result = await run(society, RemoteWorld(s.world.url), RunSettings(steps=6, keepalive=None, timeout=10),
                       on_step=on_step)
    await society.aclose()
    assert result.status == "completed"
    assert [step.action for step in result.steps] == ["+3"] * 6   # the TCP mind bids highest
    rows = {r["mind"]: r for r in views[0]["details"]["minds"]}
    assert [rows[u]["suggested"] for u in minds] == ["+1", "+2", "+3"]
    assert [rows[u]["Q"] for u in minds] == [1.0, 2.0, 3.0]
    assert [rows[u]["won"] for u in minds] == [False, False, True]
    # each mind server was queried by the AS, over the binding its URL names
    assert {link["url"] for link in card(s.as_.url)["credit_trail"]["calls"]} >= set(minds)
    for p in (s.low, s.mid, s.high):
        assert s.as_.url in {link["url"] for link in card(p.url)["credit_trail"]["called_by"]}


async def test_mind_urls_of_other_schemes_or_no_url_are_refused_by_name(servers):
    s = servers
    for bad, text in [("ftp://x", "'ftp://x' is not the URL of a Mind server"),
                      ("not a url", "'not a url' is not the URL of a Mind server"),
                      ("tcp://127.0.0.1", "looks like tcp://host:port")]:
        refusal = await refused(s.as_.url, s.low.url, bad)
        assert refusal.code == "mind-url-invalid" and text in refusal.text
    refusal = await refused(s.as_.url, s.ws(s.world))    # a World over WebSocket is no mind
    assert refusal.code == "mind-url-invalid" and "a world server, not a Mind server" in refusal.text
    society = RemoteMind(s.as_.url, minds=[s.low.url])
    await society.new_run("http://client.example/")
    for bad in ("ftp://x", "not a url"):
        with pytest.raises(Refusal) as info:
            await society.add_mind(bad)
        assert info.value.code == "mind-url-invalid" and bad in info.value.text
    await society.add_mind(f"tcp://127.0.0.1:{s.tcp_port}")   # a good one still joins
    assert (await society.get_action("x")).action == "+3"
    await society.end_run()
    await society.aclose()


async def test_an_as_cannot_be_its_own_member_by_any_of_its_urls(servers):
    s = servers
    port = s.as_.port
    for own in (s.as_.url, s.as_.url.rstrip("/"), f"HTTP://127.0.0.1:{port}", s.ws(s.as_),
                f"http://localhost:{port}/", f"tcp://127.0.0.1:{s.as_tcp_port}"):
        refusal = await refused(s.as_.url, s.low.url, own, timeout=2)
        assert refusal.code == "mind-url-invalid", own
        assert "cannot be its own member" in refusal.text and own.rstrip("/") in refusal.text, own
    society = RemoteMind(s.as_.url, minds=[s.low.url])
    await society.new_run("http://client.example/")
    for own in (s.as_.url, f"tcp://127.0.0.1:{s.as_tcp_port}"):
        with pytest.raises(Refusal) as info:
            await society.add_mind(own)
        assert info.value.code == "mind-url-invalid" and "cannot be its own member" in info.value.text
    assert (await society.get_action("x")).action == "+1"   # the run goes on, as it was
    await society.end_run()
    await society.aclose()
    # served with itself among its default minds: every New run is refused, none recurses
    refusal = await refused(s.loop.url)
    assert refusal.code == "mind-url-invalid" and "cannot be its own member" in refusal.text
    assert card(s.loop.url)["runs_in_progress"] == 0


async def test_the_run_display_shows_each_minds_last_answer_and_the_winner(servers):
    s = servers
    society = RemoteMind(s.as_.url, minds=[s.low.url, s.mid.url], method="w=q")
    started = await society.new_run("http://client.example/")
    display = started.display_url or society.display_url
    for _ in range(3):
        assert (await society.get_action("n=0")).action == "+2"
        await society.inform("n=2", 2.0)
    view = json.loads(get(display + ".json"))
    rows = {r["mind"]: r for r in view["details"]["minds"]}
    assert set(rows) == {s.low.url, s.mid.url}
    assert rows[s.low.url]["suggested"] == "+1" and rows[s.low.url]["won"] is False
    assert rows[s.mid.url]["suggested"] == "+2" and rows[s.mid.url]["won"] is True
    assert rows[s.mid.url]["Q"] == 2.0 and rows[s.mid.url]["answers"] >= 3
    assert view["details"]["decision"]["winner"] == s.mid.url and view["action"] == "+2"
    page = get(display).decode()
    assert s.low.url in page and s.mid.url in page
    winner_row = next(r for r in page.split("<tr>") if f"<td>{s.mid.url}</td>" in r)
    loser_row = next(r for r in page.split("<tr>") if f"<td>{s.low.url}</td>" in r)
    assert "<td>+2</td>" in winner_row and "✓" in winner_row
    assert "<td>+1</td>" in loser_row and "✓" not in loser_row
    await society.end_run()
    await society.aclose()
    # a mind server's own display has no such table
    mind = RemoteMind(s.low.url)
    await mind.new_run()
    assert "details" not in json.loads(get(mind.display_url + ".json"))
    await mind.end_run()
    await mind.aclose()
