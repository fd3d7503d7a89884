"""Watching a portal run (issue 26 item 3), without a browser: the status in plain words, the
score chart drawn on the server, the World's drawing fetched once per run for any number of
viewers (on a clock the test controls), and over real HTTP with real ``wwm serve`` servers a
paced run whose page shows the World's drawing at load and whose stream pushes new drawings,
the plain status, and links to the World's and servers' portal pages; a bad pace refused."""

from __future__ import annotations

import asyncio
import html
import re
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import aiohttp
import pytest
from portal_sites import card_of, csrf_of, served, sse_messages

from wwm.portal.app import make_app
from wwm.portal.fetching import Fetched, FetchFailed, Policy
from wwm.portal.pictures import Pictures
from wwm.portal.store import PortalStore
from wwm.portal.watching import running_words, score_chart, status_words, totals
from wwm.server.process import ServerProcess

GRID = {"columns": 3, "rows": 2, "y_up": False, "marks": {"agent": [[1, 1]], "food": [[0, 0]]},
        "caption": "step 1"}


def test_the_status_is_said_in_plain_words() -> None:
    assert running_words(40, 200) == "Running — step 40 of 200"
    assert running_words(1500, None) == "Running — step 1,500 (until ended)"
    assert status_words("completed", 200, 22.0) == "Finished: 200 steps, score 22"
    assert status_words("mind lost", 57, 3.0) == "Stopped: the mind stopped answering after 57 steps"
    assert status_words("ended by its owner", 1, 0.5) == "Stopped by its owner after 1 step, score 0.5"
    assert status_words("could not start", 0, None, reason="nothing listens") == "Did not start: nothing listens"
    assert status_words("interrupted at step 4", 5, 1.0).startswith("Stopped: the portal was interrupted after 5")
    assert status_words("running", 40, 2.0, asked=200) == "Running — step 40 of 200"


def test_the_chart_is_drawn_on_the_server_thinned_to_its_width() -> None:
    empty = score_chart([])
    assert empty["points"] == "" and "no step yet" in empty["caption"]
    chart = score_chart(totals([(i, 1.0) for i in range(2000)]))
    points = chart["points"].split()
    assert len(points) == 600 and points[-1] == "595.0,5.0"      # the last step at the top right
    assert chart["caption"] == "Total score by step: 2000 at step 1999."
    assert [label["text"] for label in chart["labels"]] == ["2000", "0", "0", "1999"]


class FakeWorld:
    """A World's display JSON: ``grids`` in turn (the last repeated), or a status."""

    def __init__(self, *grids: Any) -> None:
        self.grids, self.asked, self.status = list(grids), 0, 200

    async def fetch(self, url: str, policy: Policy) -> Fetched:
        self.asked += 1
        assert url == "http://world.test/display/tok.json"
        await asyncio.sleep(0.01)
        if self.status == 599:
            raise FetchFailed("nothing answers")
        grid = self.grids[min(self.asked - 1, len(self.grids) - 1)]
        import json
        return Fetched(url, self.status, "application/json", json.dumps({"grid": grid}).encode(), 1.0)


async def test_viewers_share_one_fetch_per_interval_and_a_new_version_only_when_the_drawing_changes() -> None:
    now = [0.0]
    moved = {**GRID, "marks": {"agent": [[2, 1]], "food": [[0, 0]]}, "caption": "step 2"}
    world = FakeWorld(GRID, GRID, moved)
    pictures = Pictures(Policy(), every=0.25, clock=lambda: now[0], fetcher=world.fetch)
    url = "http://world.test/display/tok"
    seen = await asyncio.gather(*(pictures.latest(7, url) for _ in range(50)))   # 50 viewers at once
    assert world.asked == 1 and {p.version for p in seen if p} == {1} and len(seen) == 50
    first = seen[0]
    assert first is not None and first.caption == "step 1" and ET.fromstring(first.svg).get("data-columns") == "3"
    assert {k["kind"] for k in first.legend} == {"agent", "food"}
    assert await pictures.latest(7, url) is first and world.asked == 1          # within the interval
    now[0] += 0.3
    assert await pictures.latest(7, url) is first and world.asked == 2          # the same drawing: same version
    now[0] += 0.3
    second = await pictures.latest(7, url)
    assert second is not None and second.version == 2 and 'data-x="2"' in second.svg
    world.status = 404                                                         # the run ended at the World
    now[0] += 0.3
    assert await pictures.latest(7, url) is second
    now[0] += 10
    assert await pictures.latest(7, url) is second and world.asked == 4 and pictures.known(7) is second


@pytest.mark.parametrize("grid", [{"error": "display_grid() failed"}, {"columns": 0, "rows": 2}, "not a grid",
                                  {"columns": 10**9, "rows": 1}, {"columns": 2, "rows": "x"},
                                  {"columns": 2, "rows": 2, "marks": {"food": [[0, 0]] * 20_001}},
                                  {"columns": 2, "rows": 2, "marks": {"x": [[0, 0]]}, "looks": {"x": ["star", "red"]}}])
async def test_a_drawing_that_cannot_be_drawn_leaves_no_picture(grid: Any) -> None:
    pictures = Pictures(Policy(), fetcher=FakeWorld(grid).fetch, clock=lambda: 0.0)
    assert await pictures.latest(1, "http://world.test/display/tok") is None


# ---- over real HTTP ------------------------------------------------------------------------
@pytest.fixture
def store(tmp_path: Path) -> Iterator[PortalStore]:
    store = PortalStore(f"sqlite:///{tmp_path / 'portal.db'}")
    yield store
    store.close()


def text_of(page: str, element_id: str) -> str:
    found = re.search(rf'id="{element_id}"[^>]*>(.*?)</', page, re.S)
    assert found, f"no #{element_id} on the page"
    return html.unescape(found.group(1))


async def test_a_paced_run_is_drawn_at_load_and_redrawn_live_and_says_how_it_goes(
        store: PortalStore, world: ServerProcess, mind: ServerProcess) -> None:
    author = store.new_user().user
    registered = store.add_server(world.url, card_of(world.url))
    registered_mind = store.add_server(mind.url, card_of(mind.url))
    cid = store.save_combination(author_id=author.id, title="Watched", world_url=world.url, document={
        "world": {"url": world.url, "args": {"size": 6}}, "mind": {"url": mind.url}, "run": {"timeout": 5.0}}).id
    with served(make_app(store, check_every=0)) as portal:
        async with aiohttp.ClientSession(cookie_jar=aiohttp.CookieJar(unsafe=True)) as browser:
            async with browser.get(portal + "me") as reply:
                csrf = csrf_of(await reply.text())
            async with browser.post(portal + f"combination/{cid}/runs", allow_redirects=False,
                                    data={"csrf": csrf, "steps": "12", "pace": "fast"}) as reply:
                assert reply.status == 400 and "the pace must be a number of steps per second" in await reply.text()
            async with browser.post(portal + f"combination/{cid}/runs", allow_redirects=False,
                                    data={"csrf": csrf, "steps": "12", "pace": "8"}) as reply:
                assert reply.status == 303
                path = reply.headers["location"]
            rid = path.rsplit("/", 1)[1]
            messages: list[tuple[str, dict[str, Any]]] = []
            async with browser.get(portal + f"run/{rid}/live") as reply:
                async for event, message in sse_messages(reply):
                    messages.append((event, message))
                    if event == "end":
                        break
            async with browser.get(portal + path.lstrip("/")) as reply:
                page = await reply.text()
    kinds = [k for k, _ in messages]
    pictures = [m for k, m in messages if k == "picture"]
    assert len(pictures) >= 2, kinds                                          # drawn, then redrawn
    assert [p["version"] for p in pictures] == sorted({p["version"] for p in pictures})
    assert len({p["svg"] for p in pictures}) == len(pictures)                 # each one a new drawing
    assert all(ET.fromstring(p["svg"]).get("class") == "grid" for p in pictures)
    end = messages[-1][1]
    assert end["status"] == "completed" and end["says"] == f"Finished: 12 steps, score {end['total_score']:g}"
    assert text_of(page, "run-says") == end["says"] and text_of(page, "live-step") == "12"
    assert 'id="world-svg"><svg class="grid"' in page                         # the last drawing, no script needed
    assert f'href="/world/{registered.id}"' in page and f'href="/servers/{registered_mind.id}"' in page
    assert "The World&#39;s own page of this run" in page or "The World's own page of this run" in page
    assert re.search(r'<polyline class="line" points="[^"]+"', page)          # the chart, drawn by the server
