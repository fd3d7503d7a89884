"""Compose, link, listings and Top 10 over real HTTP (uvicorn on loopback) with real ``wwm
serve`` servers: a three-level combination (an AS over a mind and a Mind_M that calls a second
AS over M4 and M5, the seed's 3.5 example) composed through the form's buttons with arguments
at every level; its page, its society.yaml parsed back into the same document; Edit saving a
new combination derived from it; no route changing a saved one; hostile Markdown rendered
inert; bad input a clear message with nothing stored; Top 10s per number of steps from the
World's own scores; ``/me`` and a server's page; and ``wwm run <combination URL>`` as a
subprocess."""

from __future__ import annotations

import html
import json
import os
import re
import subprocess
import sys
from collections.abc import AsyncIterator, Iterator
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import aiohttp
import pytest
import yaml
from portal_sites import csrf_of, served

from wwm.client.society import parse
from wwm.portal.app import make_app
from wwm.portal.combinations import MAX_EXPLANATION, render_markdown
from wwm.portal.models import Combination, ImmutableError
from wwm.portal.runs import RunService
from wwm.portal.store import PortalStore
from wwm.server.process import ServerProcess
from wwm.store import RunStore

pytestmark = pytest.mark.slow
SRC = Path(__file__).resolve().parents[2] / "src"
AS, REGION = "wwm.selection.mind_as:ActionSelectionMind", "wwm.kit.region:RegionMind"


@pytest.fixture(scope="module")
def society_servers() -> Iterator[dict[str, ServerProcess]]:
    """Two Mind_AS servers and a region Mind_M, each a real ``wwm serve`` process."""
    servers = {"as": ServerProcess(AS), "as2": ServerProcess(AS), "region": ServerProcess(REGION)}
    for server in servers.values():
        server.start()
    try:
        yield servers
    finally:
        for server in servers.values():
            server.stop()


@pytest.fixture
def store(tmp_path: Path) -> Iterator[PortalStore]:
    store = PortalStore(f"sqlite:///{tmp_path / 'portal.db'}")
    yield store
    store.close()


@pytest.fixture
def run_store(tmp_path: Path, store: PortalStore) -> Iterator[RunStore]:
    store = RunStore(f"sqlite:///{tmp_path / 'portal.db'}")   # the portal's runs: in its own database
    yield store
    store.close()


@pytest.fixture
def portal(store: PortalStore, run_store: RunStore) -> Iterator[str]:
    with served(make_app(store, check_every=0, runs=RunService(store=run_store))) as url:
        yield url


class Browser:
    """An HTTP client with a cookie jar, like one browser; it fills in forms as a person would."""

    def __init__(self, base: str) -> None:
        self.base = base.rstrip("/")
        self.session = aiohttp.ClientSession(cookie_jar=aiohttp.CookieJar(unsafe=True))

    async def get(self, path: str, **kw: Any) -> tuple[int, str]:
        async with self.session.get(self.base + path, **kw) as reply:
            return reply.status, await reply.text()

    async def post(self, path: str, data: Any) -> tuple[int, str, str]:
        async with self.session.post(self.base + path, data=data) as reply:
            return reply.status, await reply.text(), str(reply.url)

    async def press(self, page: str, action: str, **changes: str) -> tuple[int, str, str]:
        """Change fields of the compose form shown on ``page`` and press the button ``action``."""
        fields = compose_fields(page)
        for name in changes:
            assert name in fields, f"the form has no field {name}: {sorted(fields)}"
        fields.update(changes)
        return await self.post("/compose", [*fields.items(), ("action", action)])

    async def close(self) -> None:
        await self.session.close()


@pytest.fixture
async def browser(portal: str) -> AsyncIterator[Browser]:
    b = Browser(portal)
    yield b
    await b.close()


class _Fields(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.fields: dict[str, str] = {}
        self.select: str | None = None
        self.textarea: str | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        name = a.get("name")
        if tag == "input" and a.get("type", "text") in ("text", "hidden", "number") and name:
            self.fields[name] = a.get("value") or ""
        elif tag == "input" and a.get("type") == "checkbox" and name and "checked" in a:
            self.fields[name] = a.get("value") or "on"             # over its hidden "false"
        elif tag == "select" and name:
            self.select = name
        elif tag == "option" and self.select:
            if self.select not in self.fields or "selected" in a:
                self.fields[self.select] = a.get("value") or ""
        elif tag == "textarea" and name:
            self.textarea, self.fields[name] = name, ""

    def handle_endtag(self, tag: str) -> None:
        if tag == "select":
            self.select = None
        elif tag == "textarea":
            self.textarea = None

    def handle_data(self, data: str) -> None:
        if self.textarea:
            self.fields[self.textarea] += data


def compose_fields(page: str) -> dict[str, str]:
    """The fields of the compose form as a browser would send them."""
    start = page.index('<form method="post" action="/compose"')
    parser = _Fields()
    parser.feed(page[start:page.index("</form>", start)])
    return parser.fields


def message(page: str) -> str:
    found = re.search(r'<p class="message" role="alert">(.*?)</p>', page, re.S)
    assert found, "the page shows no message"
    return html.unescape(found.group(1))


def register(store: PortalStore, *servers: ServerProcess) -> list[str]:
    """Register servers with the cards they publish (the portal's registering is tested in
    test_portal_web); their ids as the form gives them."""
    import urllib.request

    ids = []
    for server in servers:
        with urllib.request.urlopen(urllib.request.Request(server.url, headers={"Accept": "application/json"})) as r:
            card = json.loads(r.read())
        ids.append(str(store.add_server(server.url, card).id))
    return ids


async def compose_three_levels(browser: Browser, store: PortalStore, wwm_servers, society_servers,
                               explanation: str = "Plain *text*.") -> tuple[int, str, str]:
    world, random, seeker = wwm_servers["world"], wwm_servers["random"], wwm_servers["seeker"]
    as1, as2, region = society_servers["as"], society_servers["as2"], society_servers["region"]
    ids = dict(zip(("world", "random", "seeker", "as", "as2", "region"),
                   register(store, world, random, seeker, as1, as2, region), strict=True))
    _, page = await browser.get("/compose")
    assert "Not complete yet: The World: choose a server" in page
    _, page, _ = await browser.press(page, "update", **{"world.server": ids["world"], "mind.server": ids["as"]})
    assert 'name="world.args.size"' in page and 'name="mind.args.method"' in page       # from the schemas
    assert 'value="add:mind"' in page and 'name="mind.args.minds"' not in page          # members, not a field
    _, page, _ = await browser.press(page, "add:mind")
    _, page, _ = await browser.press(page, "add:mind")
    _, page, _ = await browser.press(page, "update", **{"mind.members.0.server": ids["random"],
                                                         "mind.members.1.server": ids["region"]})
    assert 'name="mind.members.0.args.seed"' in page and 'name="mind.members.1.args.region"' in page
    _, page, _ = await browser.press(page, "add:mind.members.1")
    _, page, _ = await browser.press(page, "update", **{"mind.members.1.members.0.server": ids["as2"]})
    _, page, _ = await browser.press(page, "add:mind.members.1.members.0")
    _, page, _ = await browser.press(page, "add:mind.members.1.members.0")
    _, page, _ = await browser.press(page, "add:mind.members.1.members.0")      # one too many: removed below
    _, page, _ = await browser.press(page, "remove:mind.members.1.members.0.members.2")
    assert 'name="mind.members.1.members.0.members.2.server"' not in page
    _, page, _ = await browser.press(page, "update", **{
        "mind.members.1.members.0.members.0.server": ids["seeker"],
        "mind.members.1.members.0.members.1.server": ids["random"]})
    return await browser.press(page, "save", **{
        "world.args.size": "6", "world.args.seed": "3",
        "mind.args.method": "w=q", "mind.args.timeout": "1.5",
        "mind.members.0.args.seed": "7",
        "mind.members.1.args.region": "x<3", "mind.members.1.args.timeout": "4",
        "mind.members.1.members.0.args.method": "static-w",
        "mind.members.1.members.0.args.strengths": "2,0.5",                  # strong M4, weak M5
        "mind.members.1.members.0.members.1.args.seed": "11",
        "title": "Region switch over an AS <b>bold</b>", "steps": "40", "explanation": explanation})


def three_level_document(wwm_servers, society_servers) -> dict[str, Any]:  # type: ignore[no-untyped-def]
    w, r, s = wwm_servers["world"].url, wwm_servers["random"].url, wwm_servers["seeker"].url
    as1, as2, region = (society_servers[k].url for k in ("as", "as2", "region"))
    return {
        "name": "Region switch over an AS <b>bold</b>",
        "world": {"url": w, "args": {"size": 6, "seed": 3}},
        "mind": {"url": as1, "args": {"method": "w=q", "timeout": 1.5, "minds": [
            {"url": r, "args": {"seed": 7}},
            {"url": region, "args": {"region": "x<3", "timeout": 4.0, "minds": [
                {"url": as2, "args": {"method": "static-w", "strengths": "2,0.5", "minds": [
                    {"url": s}, {"url": r, "args": {"seed": 11}}]}}]}}]}},
        "run": {"steps": 40},
    }


async def test_compose_three_levels_through_the_form_link_download_and_derive(browser, store, wwm_servers,
                                                                              society_servers):
    status, page, url = await compose_three_levels(browser, store, wwm_servers, society_servers)
    assert status == 200 and url.endswith("/combination/1"), message(page) if 'role="alert"' in page else url
    saved = store.combination(1)
    expected = three_level_document(wwm_servers, society_servers)
    assert saved.document == expected
    assert saved.world_url == wwm_servers["world"].url
    # the page: title escaped, the tree with every level's arguments, the command, Start run
    assert "Region switch over an AS &lt;b&gt;bold&lt;/b&gt;" in page and "<b>bold" not in page
    tree = page[page.index('<ul class="tree">'):page.index("<h2>Run it</h2>")]
    for name in ("GridWorld", "Action Selection server (Mind_AS)", "RegionMind", "FoodSeeker", "RandomMind"):
        assert name in tree
    for arg, value in (("Size", "6"), ("Method", "w=q"), ("Seed", "7"), ("Region", "x&lt;3"),
                       ("Method", "static-w"), ("Strengths", "2,0.5"), ("Seed", "11")):   # named in words
        assert f"<tr><th>{arg}</th><td>{value}</td></tr>" in tree, (arg, value)
    assert tree.count('<ul class="members">') == 3                                  # three levels of members
    assert '<form method="post" action="/combination/1/runs" class="start-run">' in page
    assert f'name="csrf" value="{csrf_of(page)}"' in page
    assert f"wwm run {browser.base}/combination/1/society.yaml" in page
    # the document to download, parsed by the society model into the same document
    status, text = await browser.get("/combination/1/society.yaml")
    assert status == 200 and yaml.safe_load(text) == expected
    assert parse(yaml.safe_load(text)) == parse(expected)
    status, same = await browser.get("/combination/1", headers={"Accept": "application/yaml"})
    assert status == 200 and same == text                                            # what wwm run asks for
    # the seed's address redirects to the canonical one
    async with browser.session.get(browser.base + "/user/1/combination/1", allow_redirects=False) as reply:
        assert reply.status == 308 and reply.headers["location"] == "/combination/1"
    status, _ = await browser.get("/user/99/combination/1")
    assert status == 404
    # Edit: the form prefilled, saving a NEW combination derived from it; the first unchanged
    _, form = await browser.get("/compose?from=1")
    fields = compose_fields(form)
    assert fields["derived_from"] == "1" and fields["mind.members.1.members.0.args.strengths"] == "2,0.5"
    assert fields["mind.members.1.members.0.members.1.args.seed"] == "11"
    status, page, url = await browser.press(form, "save", **{"world.args.size": "9",
                                                            "title": "Bigger grid"})
    assert status == 200 and url.endswith("/combination/2")
    assert store.combination(1).document == expected
    derived = store.combination(2)
    assert derived.derived_from == 1 and derived.document["world"]["args"]["size"] == 9
    assert derived.document["mind"] == expected["mind"]
    assert 'Derived from <a href="/combination/1" class="derived-from">' in page
    _, first = await browser.get("/combination/1")
    assert '<ul class="derived-by"><li><a href="/combination/2">Bigger grid</a>' in first
    # immutable: no route changes a saved combination, and the store refuses to
    for method in ("POST", "PUT", "PATCH", "DELETE"):
        async with browser.session.request(method, browser.base + "/combination/1",
                                           data={"title": "changed", "csrf": csrf_of(first)}) as reply:
            assert reply.status in (404, 405), method
    assert store.combination(1).document == expected and store.combination(1).title == saved.title
    with pytest.raises(ImmutableError), store._session() as s:
        row = s.get(Combination, 1)
        assert row is not None
        row.title = "changed"
    # listings: by World, the World's page, /me
    _, listing = await browser.get("/combinations")
    assert 'href="/combination/1"' in listing and 'href="/combination/2"' in listing and "GridWorld" in listing
    _, world_page = await browser.get("/world/" + str(store.server_by_url(wwm_servers["world"].url).id))
    assert "Bigger grid" in world_page and "No finished run with a World" in world_page
    _, me = await browser.get("/me")
    assert me.count('<li data-combination="') == 2


async def test_markdown_is_rendered_and_hostile_markdown_is_inert(browser, store, wwm_servers):
    hostile = ("# Title\n\nSome **bold**, a [good link](https://example.org/) and\n\n"
               "<script>window.pwned=1</script>\n\n<img src=x onerror=\"window.pwned=2\">\n\n"
               "[click](javascript:window.pwned=3) [data](data:text/html;base64,PHNjcmlwdD4=) "
               "<a href=\"javascript:window.pwned=4\" onclick=\"window.pwned=5\">raw</a>\n\n"
               "<div style=\"x\" onmouseover=\"window.pwned=6\">div</div>")
    rendered = str(render_markdown(hostile))
    assert "<h1>Title</h1>" in rendered and "<strong>bold</strong>" in rendered
    assert '<a href="https://example.org/" rel="nofollow noopener noreferrer">good link</a>' in rendered
    for bad in ("<script", "<img", "onerror=", "onclick=", "onmouseover=", "javascript:", "data:text",
                "<div", "style="):
        assert bad not in _tags(rendered), bad
    world, seeker = register(store, wwm_servers["world"], wwm_servers["seeker"])
    _, page = await browser.get("/compose")
    status, page, url = await browser.press(page, "save", **{
        "world.server": world, "mind.server": seeker, "title": "<script>window.pwned=7</script>",
        "explanation": hostile})
    assert status == 200 and url.endswith("/combination/1")
    assert page.count("<script") == 1                                   # the portal's own, from /static
    for bad in ("onerror=", "onclick=", "onmouseover=", 'href="javascript:', 'href="data:'):
        assert bad not in _tags(page), bad
    assert "&lt;script&gt;window.pwned=7&lt;/script&gt;" in page        # the title, as text


def _tags(markup: str) -> str:
    """The markup's tags only (what a browser would act on), text between them left out."""
    return " ".join(re.findall(r"<[^>]*>", markup))


async def test_bad_input_is_a_clear_message_and_nothing_is_stored(browser, portal, store, wwm_servers):
    world, seeker = register(store, wwm_servers["world"], wwm_servers["seeker"])
    _, me = await browser.get("/me")           # an identity first (made by a POST: a GET makes none),
    await browser.post("/me/recovery", {"csrf": csrf_of(me)})   # its making renews the CSRF token
    _, form = await browser.get("/compose")
    token = csrf_of(form)
    good = {"csrf": token, "world.server": world, "mind.server": seeker, "title": "ok", "action": "save"}
    cases = [
        ({"mind.bogus": "1"}, "the form has a field this portal does not know"),
        ({"world.members.0.server": seeker, "world.server": world}, None),          # a World's members: dropped
        ({"mind.server": "999"}, "The Mind: there is no server '999' on this portal"),
        ({"mind.server": "abc"}, "The Mind: there is no server 'abc' on this portal"),
        ({"mind.server": world}, "The Mind: GridWorld is a world, not a mind"),
        ({"world.server": ""}, "The World: choose a server"),
        ({"world.args.size": "big"}, "The World: “Size” must be a whole number, not 'big'"),
        ({"world.args.chase": "nan"}, "“Chase” must be a number"),
        ({"title": "  "}, "give the combination a title"),
        ({"title": "x" * 201}, "the title is 201 characters; at most 200"),
        ({"steps": "0"}, "steps is a whole number from 1 to"),
        ({"steps": "ten"}, "steps is a whole number from 1 to"),
        ({"derived_from": "77"}, "there is no combination 77 to derive from"),
        ({"derived_from": "x"}, "is not a number"),
        ({"explanation": "y" * (MAX_EXPLANATION + 5000)}, "the explanation is 25 000 characters; at most 20 000"),
        ({"action": "add:mind.members.4"}, "that button names no part of the form"),
        ({"action": "explode"}, "a button this portal does not know"),
        ({"mind.members.99.server": seeker}, "at most 12 members"),
    ]
    for change, words in cases:
        status, page, _ = await browser.post("/compose", {**good, **change})
        if words is None:
            assert status == 200, page            # saved, without the member a World cannot have
            continue
        assert status == 400 and words in message(page), (change, message(page))
    assert [c.id for c in store.recent_combinations()] == [1]
    assert store.combination(1).document["world"] == {"url": wwm_servers["world"].url}
    status, page, _ = await browser.post("/compose", {**good, "explanation": "z" * 1_000_000})
    assert status == 413 and "Form too large" in page
    status, page, _ = await browser.post("/compose", {k: v for k, v in good.items() if k != "csrf"})
    assert status == 403
    assert len(store.recent_combinations()) == 1
    # a form field keeps what was typed when refused (escaped)
    status, page, _ = await browser.post("/compose", {**good, "world.args.size": '"><script>x</script>'})
    assert status == 400 and 'value="&#34;&gt;&lt;script&gt;x&lt;/script&gt;"' in page
    # a combination whose servers are no longer registered is still shown
    author = store.new_user().user
    gone = store.save_combination(author_id=author.id, title="Of servers gone", world_url="http://gone.invalid/",
                                  document={"world": {"url": "http://gone.invalid/"},
                                            "mind": {"url": "http://gone.invalid:81/", "args": {"seed": 1}}})
    status, page = await browser.get(f"/combination/{gone.id}")
    assert status == 200 and "no longer registered" in page and "http://gone.invalid:81/" in page
    status, page = await browser.get(f"/compose?from={gone.id}")
    assert status == 200 and "Not registered any more, choose another: http://gone.invalid/" in page
    for path in ("/combination/999", "/combination/999/society.yaml", "/world/999", "/compose?from=999",
                 f"/world/{seeker}"):
        status, page = await browser.get(path)
        assert status == 404, path
    assert "is a mind, not a World" in page


async def test_top_10_by_the_worlds_score_per_number_of_steps(browser, store, run_store, wwm_servers):
    world_id, seeker_id = register(store, wwm_servers["world"], wwm_servers["seeker"])
    world, seeker = wwm_servers["world"].url, wwm_servers["seeker"].url
    me = store.new_user().user
    doc = {"world": {"url": world, "args": {"size": 5}}, "mind": {"url": seeker}}

    def combination(title: str) -> int:
        return store.save_combination(author_id=me.id, title=title, document=doc, world_url=world).id

    def recorded(cid: int, steps_asked: int | None, *, status: str = "completed", steps: int | None = None,
                 world_score: float | None, total: float = 0.0) -> None:
        """A portal run of ``cid`` as the run loop records it: the World's score from End run,
        ``total`` the client's sum of step rewards."""
        run_id = run_store.start_run(mind_url=seeker, world_url=world, society=doc)
        run_store.finish_run(run_id, status, total, steps if steps is not None else steps_asked,
                             world_score=world_score)
        portal_run = store.new_run(cid, me.id, steps_asked)
        store.set_run(portal_run.id, run_store_id=run_id, status=status)

    a, b, c = combination("A"), combination("B"), combination("C")
    recorded(a, 10, world_score=5.0)
    recorded(a, 10, world_score=2.0)                        # A at its best run only
    recorded(b, 10, world_score=8.0)
    recorded(c, 10, world_score=1.0)
    recorded(c, 20, world_score=50.0)                       # another list
    client = combination("Client says 999")
    recorded(client, 10, world_score=None, total=999.0)     # no World score: a client's sum never ranks
    cut = combination("Cut short")
    recorded(cut, 10, status="ended by its owner", steps=3, world_score=100.0)
    until = combination("Until ended")
    recorded(until, None, status="ended by its owner", steps=30, world_score=70.0)
    outsider = run_store.start_run(mind_url=seeker, world_url=world, society=doc)   # a wwm run, not the portal's
    run_store.finish_run(outsider, "completed", 1e9, 10, world_score=1e9)
    many = [combination(f"M{i}") for i in range(12)]
    for i, cid in enumerate(many):
        recorded(cid, 30, world_score=float(i))
    # one real run through the run service: the World's own score, recorded by the run loop
    real = combination("Really run")
    async with RunService(store=run_store) as service:
        started = await service.start(doc, steps=5, owner=f"user:{me.id}")
        assert await service.wait(started.run_id) == "completed"
    portal_run = store.new_run(real, me.id, 5)
    store.set_run(portal_run.id, run_store_id=started.run_id, status="completed")
    real_score = run_store.get_run(started.run_id, max_steps=0).world_score
    assert real_score is not None

    _, page = await browser.get(f"/world/{world_id}")
    boards = dict(re.findall(r'<section class="top" data-steps="(\d+)">(.*?)</section>', page, re.S))
    assert list(boards) == ["5", "10", "20", "30"]
    assert "Top 10 over 10 steps" in boards["10"]

    def order(board: str) -> list[tuple[int, str]]:
        return [(int(cid), score) for cid, score in
                re.findall(r'<li data-combination="(\d+)">.*?<strong class="score">([^<]*)</strong>', board)]

    assert order(boards["10"]) == [(b, "8"), (a, "5"), (c, "1")]
    assert order(boards["20"]) == [(c, "50")]
    assert order(boards["30"]) == [(many[i], str(i)) for i in range(11, 1, -1)]   # ten, best first
    assert order(boards["5"]) == [(real, f"{real_score:g}")]
    assert "999" not in page.split("<h2>Recent runs</h2>")[0] and "1e+09" not in page
    # the combination's page: its runs with the World's scores; the server's page: each best
    _, page = await browser.get(f"/combination/{a}")
    assert page.count('<tr data-run="') == 2 and "Best score: <strong>5</strong> over 10 steps" in page
    _, page = await browser.get(f"/servers/{seeker_id}")
    assert f'<a href="/combination/{b}">B</a>' in page and '<td class="num"><span class="score">8</span></td>' in page
    # nothing here takes a score from a client
    for path in (f"/world/{world_id}", f"/combination/{a}"):
        status, _, _ = await browser.post(path, {"score": "1000", "world_score": "1000"})
        assert status in (404, 405)


def test_wwm_run_runs_a_combination_from_its_link(tmp_path, store, portal, wwm_servers):
    """``wwm run <combination URL>`` (12.2.2): the page's link and its society.yaml, fetched
    and run locally; a URL that is a web page refused clearly. (A document with arguments
    under a remote Mind_AS needs nested arguments travelling through New run: another
    branch; here one level.)"""
    world, seeker = wwm_servers["world"].url, wwm_servers["seeker"].url
    me = store.new_user().user
    doc = {"name": "seeker from the portal", "world": {"url": world, "args": {"size": 5}},
           "mind": {"url": seeker}, "run": {"steps": 4, "timeout": 2.0}}
    cid = store.save_combination(author_id=me.id, title="From the portal", document=doc, world_url=world).id
    env = {**os.environ, "PYTHONPATH": str(SRC)}
    for url in (f"{portal}combination/{cid}", f"{portal}combination/{cid}/society.yaml"):
        done = subprocess.run([sys.executable, "-m", "wwm.cli.main", "run", url, "--json", "--no-record"],
                              capture_output=True, text=True, timeout=120, env=env)
        assert done.returncode == 0, done.stderr
        outcome = json.loads(done.stdout)
        assert outcome["society"] == "seeker from the portal" and outcome["steps"] == 4
    for url, words in ((f"{portal}servers", "is a web page, not a society document"),
                       (f"{portal}combination/999", "HTTP 404"),
                       ("http://127.0.0.1:9/x.yaml", "cannot fetch")):
        done = subprocess.run([sys.executable, "-m", "wwm.cli.main", "run", url, "--no-record"],
                              capture_output=True, text=True, timeout=60, env=env)
        assert done.returncode == 2 and words in done.stderr, (url, done.stderr)
