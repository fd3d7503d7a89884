"""The portal's look, in Debian's chromium over real ``wwm serve`` servers: every page a demo
portal has (each route of the app: servers, Worlds, combinations, compose, runs, challenges,
searches, identity, a refused end link, Not found) at 390 px and at 1280 px has no critical or
serious axe-core violation, no sideways scroll, and its navigation in reach (the Menu opens by
keyboard on a phone). And it leads somewhere: from the home page a visitor starts a featured
combination in one click; a third party finds a run in progress from the home page in two
clicks; a challenge's run links open the run's page (they said "Not found"); registering a
server confirms it; a permanent link has a Copy button that copies it.

``WWM_SCREENSHOTS=docs/img`` writes the screenshots of the README there (else into tmp)."""

from __future__ import annotations

import asyncio
import json
import os
import re
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from page_checks import DESK, PHONE, page_problems
from portal_sites import Visitor, card_of, served

from wwm.portal.app import make_app
from wwm.portal.store import PortalStore

pytestmark = [pytest.mark.slow, pytest.mark.browser]

# Every page of the demo portal, by name: (path pattern, whose template it is). The paths are
# filled in from the portal the fixture makes (its IDs).
PAGES: dict[str, str] = {
    "home": "/", "servers": "/servers", "worlds": "/servers?role=world", "minds": "/servers?role=mind",
    "server-world": "/servers/{world}", "server-mind": "/servers/{mind}", "world": "/world/{world}",
    "combinations": "/combinations", "combination": "/combination/{combination}",
    "user-combination": "/user/{author}/combination/{combination}",
    "compose": "/compose", "compose-world": "/compose?world={world}",
    "run": "/run/{run}", "run-live": "/run/{live_run}", "end-refused": "/run/{run}/end/not-the-secret",
    "challenges": "/challenges", "challenge": "/challenge/{challenge}",
    "searches": "/searches", "search": "/search/{search}",
    "me": "/me", "signin": "/signin", "signup": "/signup", "recover": "/recover/{recovery}",
    "not-found": "/servers/999999",
}


@dataclass
class Demo:
    url: str
    store: PortalStore
    ids: dict[str, Any] = field(default_factory=dict)

    def path(self, name: str) -> str:
        return PAGES[name].format(**self.ids)


def shots_dir(tmp: Path) -> Path:
    where = Path(os.environ.get("WWM_SCREENSHOTS") or tmp)
    where.mkdir(parents=True, exist_ok=True)
    return where


async def _prepare(demo: Demo) -> None:
    """Through the portal's own forms: a run to its end, a run that goes on (until ended), a
    challenge opened and entered, judged."""
    visitor = Visitor(demo.url)
    try:
        ids = demo.ids
        status, _, where = await visitor.post("/", f"/combination/{ids['combination']}/runs", {"steps": "5"})
        assert status == 200, where
        ids["run"] = int(where.rstrip("/").rsplit("/", 1)[1])
        status, _, where = await visitor.post("/", f"/combination/{ids['other']}/runs",
                                              {"steps": "until ended"})
        ids["live_run"] = int(where.rstrip("/").rsplit("/", 1)[1])
        status, _, where = await visitor.post("/challenges", "/challenges", {
            "title": "Food cup", "kind": "society", "world": str(ids["world"]), "steps": "5", "seeds": "0",
            "deadline": "", "timeout": "2"})
        assert status == 200 and where.endswith("?done=challenge-opened"), where
        ids["challenge"] = int(re.search(r"/challenge/(\d+)", where).group(1))  # type: ignore[union-attr]
        status, _, _ = await visitor.post(f"/challenge/{ids['challenge']}", f"/challenge/{ids['challenge']}/entries",
                                          {"combination": str(ids["combination"])})
        assert status == 200
        deadline = time.monotonic() + 60
        while any(e.status in ("queued", "running") for e in demo.store.entries(ids["challenge"])):
            assert time.monotonic() < deadline, "the entry was never judged"
            await asyncio.sleep(0.2)
    finally:
        await visitor.session.close()


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory, wwm_servers) -> Iterator[Demo]:
    """A portal like ``wwm portal --demo``'s: the servers registered, two featured combinations,
    runs, a challenge, a search and a visitor with a recovery link."""
    store = PortalStore(f"sqlite:///{tmp_path_factory.mktemp('look') / 'portal.db'}")
    try:
        ids: dict[str, Any] = {}
        for name in ("world", "seeker", "random"):
            url = wwm_servers[name].url
            ids["mind" if name == "seeker" else name] = store.add_server(url, card_of(url)).id
        author = store.new_user().user.id
        world, seeker, rand = (wwm_servers[n].url for n in ("world", "seeker", "random"))
        ids["author"] = author
        ids["combination"] = store.save_combination(
            author_id=author, title="Demo: a food seeker in the grid world", world_url=world,
            explanation="A mind that walks to the nearest food.",
            document={"world": {"url": world, "args": {"size": 8}}, "mind": {"url": seeker},
                      "run": {"timeout": 2.0}}).id
        ids["other"] = store.save_combination(
            author_id=author, title="Demo: a random walker in the grid world", world_url=world,
            document={"world": {"url": world, "args": {"size": 8}}, "mind": {"url": rand}, "run": {"timeout": 2.0}}).id
        store.set_setting("demo", json.dumps({"ports": {}, "author": author}))
        search = store.open_search(study="food-seeker-search", sampler="tpe", space={}, author_id=author,
                                   start_id=ids["combination"])
        store.record_trial(search.id, 0, state="complete", combination_id=ids["combination"], score=3.0)
        ids["search"] = search.id
        ids["recovery"] = store.new_recovery(author)
        # the World's card as the checker would read it after runs: its credit trail names a
        # server registered here (the seeker) and one that is not
        card = card_of(world) | {"credit_trail": {"url": world, "calls": [{"url": seeker, "queries": 3}],
                                                  "called_by": [{"url": "http://203.0.113.9:8000/", "queries": 2}]}}
        store.record_check(ids["world"], up=True, latency_ms=1.0, card=card)
        with served(make_app(store, check_every=0)) as url:
            made = Demo(url.rstrip("/"), store, ids)
            asyncio.run(_prepare(made))
            yield made
    finally:
        store.close()


@pytest.mark.parametrize("name", list(PAGES))
async def test_every_page_is_accessible_on_a_phone_and_a_desk(demo: Demo, name: str, chromium):
    problems: list[str] = []
    browser = chromium
    page = await browser.new_page()
    page.set_default_timeout(10000)
    page.on("pageerror", lambda e: problems.append(f"script error: {e}"))
    for width in (PHONE, DESK):
        problems += await page_problems(page, demo.url + demo.path(name), width=width)
    assert problems == [], f"{name} ({demo.path(name)}):\n" + "\n".join(problems)


async def test_home_leads_somewhere_and_start_run_is_one_click(demo: Demo, tmp_path: Path, chromium):
    """Featured combinations start in one click; a run in progress is two clicks from home for
    a third party; each World's Top 10 is one click away. Screenshots of the home page."""
    shots = shots_dir(tmp_path)
    failures: list[str] = []
    browser = chromium
    for width, height, suffix in ((DESK, 900, "desk"), (PHONE, 844, "phone")):
        page = await browser.new_page(viewport={"width": width, "height": height})
        await page.goto(demo.url + "/")
        await page.screenshot(path=str(shots / f"portal-home-{suffix}.png"), full_page=True)
        await page.close()

    third = await (await browser.new_context()).new_page()
    third.set_default_timeout(15000)
    third.on("pageerror", lambda e: failures.append(f"script error: {e}"))
    await third.goto(demo.url + "/")
    live = third.locator("ul.live-runs a[href^='/run/']")
    assert await live.count() >= 1
    async with third.expect_navigation():
        await live.first.click()                                     # click 2
    assert re.search(r"/user/\d+/combination/\d+/run/\d+$", third.url), third.url
    assert "Not found" not in await third.title()

    await third.goto(demo.url + "/")
    top10 = third.locator(f"ul.worlds a[href='/world/{demo.ids['world']}']")
    async with third.expect_navigation():
        await top10.click()
    assert await third.locator("h1.world-name").inner_text() == "GridWorld"

    await third.goto(demo.url + "/")
    card = third.locator(f"li.card[data-combination='{demo.ids['combination']}']")
    async with third.expect_navigation():
        await card.locator("form.start-run button").click()          # one click: a run
    assert re.search(r"/run/\d+$", third.url) and "?" not in third.url, third.url
    started = int(third.url.rsplit("/", 1)[1])
    assert demo.store.run(started).combination_id == demo.ids["combination"]
    await third.goto(demo.url + "/")
    for path, text in (("/compose", "Compose your own"), ("/servers#register", "Register your server")):
        assert await third.locator(f"section.hero a[href='{path}']").inner_text() == text
    assert failures == []


async def test_no_dead_ends_links_flash_and_copy(demo: Demo, wwm_servers, odd_sites, tmp_path: Path, chromium):
    """A challenge's run link opens its run; every run named on the World, You and server pages
    is a link that opens; registering confirms (a fixed message, never the query's text); the
    Copy button copies the permanent link; a server's credit trail links the servers it calls."""
    shots = shots_dir(tmp_path)
    ids = demo.ids
    browser = chromium
    context = await browser.new_context(viewport={"width": DESK, "height": 900})
    await context.grant_permissions(["clipboard-read", "clipboard-write"], origin=demo.url)
    page = await context.new_page()
    page.set_default_timeout(15000)
    # a challenge's run: its page, not "Not found"
    await page.goto(demo.url + f"/challenge/{ids['challenge']}")
    seed = page.locator("td.runs a")
    assert await seed.count() == 1
    async with page.expect_navigation():
        await seed.click()
    assert "Not found" not in await page.title() and re.search(r"/run/\d+$", page.url), page.url
    # every run named on these pages is a link that opens a run's page
    for path in (f"/world/{ids['world']}", f"/servers/{ids['mind']}", f"/challenge/{ids['challenge']}"):
        await page.goto(demo.url + path)
        hrefs = await page.locator("main a[href^='/run/']").evaluate_all(
            "as => as.map(a => a.getAttribute('href'))")
        assert hrefs, f"no run linked on {path}"
        for href in set(hrefs):
            reply = await page.request.get(demo.url + href)
            assert reply.status == 200 and "Not found" not in await reply.text(), (path, href)
    await page.goto(demo.url + f"/world/{ids['world']}")
    runs_column = await page.locator("table.runs tbody tr td:first-child").all_inner_texts()
    assert runs_column and all(re.fullmatch(r"Run \d+", t) for t in runs_column)
    await page.screenshot(path=str(shots / "portal-world-desk.png"), full_page=True)
    # the flash: a fixed message for a known code, nothing for any other text
    await page.goto(demo.url + "/servers")
    await page.fill("input[name=url]", wwm_servers["world"].url)
    async with page.expect_navigation():
        await page.click("form.register button[type=submit]")
    assert page.url.endswith(f"/servers/{ids['world']}?done=known")
    assert "registered already" in await page.locator("p.notice.success").inner_text()
    await page.goto(demo.url + "/servers")
    await page.fill("input[name=url]", odd_sites.url("/hostile"))
    async with page.expect_navigation():
        await page.click("form.register button[type=submit]")
    assert re.search(r"/servers/\d+\?done=registered$", page.url), page.url
    assert "is registered" in await page.locator("p.notice.success").inner_text()
    await page.goto(demo.url + "/?done=<script>alert(1)</script>")
    assert await page.locator("p.notice").count() == 0
    # Copy link: shown by the script, copies the absolute permanent link
    await page.goto(demo.url + f"/servers/{ids['world']}")
    button = page.locator("button.copy-link")
    assert await button.is_visible()
    await button.click()
    await page.locator(".copied").wait_for()
    copied = await page.evaluate("navigator.clipboard.readText()")
    assert copied == f"{demo.url}/servers/{ids['world']}"
    await page.screenshot(path=str(shots / "portal-server-desk.png"), full_page=True)
    # the credit trail: a server registered here is a link to its page, another is named
    calls = page.locator("ul.calls a")
    assert await calls.count() == 1 and await calls.get_attribute("href") == f"/servers/{ids['mind']}"
    assert await calls.inner_text() == "FoodSeeker"
    assert await page.locator("ul.called-by a").count() == 0
    assert "203.0.113.9:8000/ (not registered here)" not in await page.locator("ul.called-by").inner_text()
    assert "(2 queries)" in await page.locator("ul.called-by").inner_text()
    phone = await browser.new_page(viewport={"width": PHONE, "height": 844})
    for path, shot in ((f"/world/{ids['world']}", "portal-world-phone.png"),
                       (f"/challenge/{ids['challenge']}", "portal-challenge-phone.png")):
        await phone.goto(demo.url + path)
        await phone.screenshot(path=str(shots / shot), full_page=True)
    await phone.goto(demo.url + "/")
    await phone.locator("details.site-menu > summary").click()
    await phone.screenshot(path=str(shots / "portal-menu-phone.png"))
