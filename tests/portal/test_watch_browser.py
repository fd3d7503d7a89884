"""Watching a run in Debian's chromium (Playwright), with real ``wwm serve`` servers (issue 26
item 3): a visitor starts a paced run (until ended) with the combination page's own form (its
pace select); a third party opens the run's page while it goes on and sees the World drawn at
once (no reload), the drawing change (its SVG compared between two moments, not timed), the
plain status and the chart follow the steps; when its starter ends it, the third party's page
says so and shows the "see its whole record" note. A finished run's record page links are readable (not
white on white). No script error, nothing refused under the Content-Security-Policy."""

from __future__ import annotations

from pathlib import Path

import pytest
from portal_sites import card_of, served

from wwm.portal.app import make_app
from wwm.portal.store import PortalStore

pytestmark = [pytest.mark.slow, pytest.mark.browser]

DRAWING = "() => document.querySelector('#world-svg svg.grid')?.outerHTML || ''"
CHANGED = "(before) => { const s = document.querySelector('#world-svg svg.grid'); return s && s.outerHTML !== before; }"
SAYS = "(start) => document.getElementById('run-says').textContent.startsWith(start)"
POINTS = "(n) => (document.querySelector('#score-chart polyline')?.getAttribute('points') || '').split(' ').length >= n"


async def test_a_third_party_watches_a_paced_run_drawn_and_moving_until_it_ends(tmp_path: Path, wwm_servers, chromium):
    store = PortalStore(f"sqlite:///{tmp_path / 'portal.db'}")
    failures: list[str] = []
    try:
        author = store.new_user().user
        world, mind = wwm_servers["world"].url, wwm_servers["seeker"].url
        registered = store.add_server(world, card_of(world))
        cid = store.save_combination(author_id=author.id, title="Watch me", world_url=world, document={
            "world": {"url": world, "args": {"size": 8}}, "mind": {"url": mind}, "run": {"timeout": 5.0}}).id
        with served(make_app(store, check_every=0)) as portal:
            browser = chromium
            starter, third = [await (await browser.new_context()).new_page() for _ in range(2)]
            for page in (starter, third):
                page.set_default_timeout(20000)
                page.on("pageerror", lambda e: failures.append(f"page error: {e}"))
                page.on("console", lambda m: m.type == "error" and failures.append(f"console: {m.text}"))

            await starter.goto(f"{portal}combination/{cid}")
            await starter.fill("form.start-run input[name=steps]", "until ended")   # ended below
            await starter.select_option("form.start-run select[name=pace]", "5")
            async with starter.expect_navigation():
                await starter.click("form.start-run button")
            run_page = starter.url
            assert "/run/" in run_page
            await starter.wait_for_function(                # the World's page, linked without a reload
                "(w) => { const a = document.getElementById('world-link');"
                " return a && !a.hidden && a.href.startsWith(w + 'display/'); }", arg=world.rstrip("/") + "/")

            await third.goto(run_page)                      # a third party, while it goes on
            assert await third.locator(f'a[href="/world/{registered.id}"]').count() >= 1
            await third.wait_for_function(DRAWING + " !== ''")
            before = await third.evaluate(DRAWING)
            assert 'class="agent"' in before
            says = await third.locator("#run-says").inner_text()
            assert says.startswith("Running"), says
            await third.wait_for_function(CHANGED, arg=before)   # the World moved, redrawn
            after = await third.evaluate(DRAWING)
            assert after != before and 'class="agent"' in after
            await third.wait_for_function(SAYS, arg="Running — step ")
            await third.wait_for_function(POINTS, arg=5)        # the chart follows the steps
            mid = await third.locator("#run-says").inner_text()
            assert mid.endswith(" (until ended)"), mid

            async with starter.expect_navigation():       # its starter ends it; the third is told
                await starter.click("form.end-run button")
            await third.wait_for_function(SAYS, arg="Stopped by its owner after ")
            note = third.locator("#live-note")
            assert "has ended" in await note.inner_text()
            assert await note.locator("a", has_text="See its whole record").count() == 1
            assert await third.locator("#run-status").inner_text() == "ended by its owner"

            # a flat-out run of more than a page of record: its page links can be read
            await starter.goto(f"{portal}combination/{cid}")
            await starter.fill("form.start-run input[name=steps]", "130")
            async with starter.expect_navigation():
                await starter.click("form.start-run button")    # flat out: the form's default pace
            await starter.wait_for_function(SAYS, arg="Finished: 130 steps")
            await starter.reload()
            link = starter.locator("nav.pages a[rel=next]")
            assert await link.count() == 1
            colour = await link.evaluate("(a) => getComputedStyle(a).color")
            background = await starter.evaluate("() => getComputedStyle(document.body).backgroundColor")
            assert colour not in ("rgb(255, 255, 255)", background), colour
    finally:
        store.close()
    assert failures == []
