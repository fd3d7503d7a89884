"""Compose in Debian's chromium (Playwright): a visitor picks a World and a Mind_AS with the
form (the compose script redraws it in place when a server is chosen), adds a member mind, gives
arguments at both levels, saves; a third party opens the permanent link in a second browser
context and sees the same tree. No request fails and no script of the visitor's text runs."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from portal_sites import served
from test_combinations import AS, register

from wwm.portal.app import make_app
from wwm.portal.store import PortalStore
from wwm.server.process import ServerProcess

pytestmark = [pytest.mark.slow, pytest.mark.browser]
POSTED = "() => !!document.querySelector('#composer') && !document.querySelector('#composer[aria-busy]')"


async def test_compose_through_the_form_and_open_the_link_in_another_context(tmp_path: Path, wwm_servers, chromium):
    store = PortalStore(f"sqlite:///{tmp_path / 'portal.db'}")
    failures: list[str] = []
    try:
        with ServerProcess(AS) as selection, served(make_app(store, check_every=0)) as portal:
            world, seeker, as_id = register(store, wwm_servers["world"], wwm_servers["seeker"], selection)
            browser = chromium
            author = await browser.new_context()
            page = await author.new_page()
            page.set_default_timeout(10000)
            page.on("response", lambda r: r.status >= 400 and failures.append(f"{r.status} {r.url}"))
            page.on("pageerror", lambda e: failures.append(f"page error: {e}"))
            await page.goto(portal + "compose")

            async def redrawn(act: Any) -> None:             # the script posts the form, swaps it in
                async with page.expect_response(lambda r: r.request.method == "POST"):
                    await act
                await page.wait_for_function(POSTED)

            await redrawn(page.select_option("select[name='world.server']", world))
            await page.fill("input[name='world.args.size']", "6")
            await redrawn(page.select_option("select[name='mind.server']", as_id))
            await page.select_option("select[name='mind.args.method']", "w=q")
            await redrawn(page.click("button[value='add:mind']"))
            assert await page.input_value("input[name='world.args.size']") == "6"   # kept
            await redrawn(page.select_option("select[name='mind.members.0.server']", seeker))
            await page.fill("input[name=title]", "Seeker under an AS <script>window.pwned=1</script>")
            await page.fill("textarea[name=explanation]",
                            "Why: *because*. <img src=x onerror=\"window.pwned=2\">")
            await redrawn(page.click("button[value=update]"))
            assert "minds:" in await page.locator("pre.preview").text_content()
            async with page.expect_navigation():
                await page.click("button.save")
            link = page.url
            assert link.endswith("/combination/1")
            saved = store.combination(1).document
            assert saved["world"]["args"] == {"size": 6}
            assert saved["mind"]["args"] == {"method": "w=q", "minds": [{"url": wwm_servers["seeker"].url}]}

            third = await (await browser.new_context()).new_page()  # a third party, no cookie shared
            third.on("response", lambda r: r.status >= 400 and failures.append(f"{r.status} {r.url}"))
            third.on("pageerror", lambda e: failures.append(f"page error: {e}"))
            await third.goto(link)
            title = await third.locator("h1.combination-title").inner_text()
            assert title == "Seeker under an AS <script>window.pwned=1</script>"       # text, not markup
            assert await third.locator(".explanation em").inner_text() == "because"
            assert await third.locator(".explanation img, main script").count() == 0
            tree = await third.locator("ul.tree").inner_text()
            for words in ("GridWorld", "Size", "Action Selection server", "w=q", "member 1", "FoodSeeker"):
                assert words in tree
            assert await third.locator("form.start-run button").inner_text() == "Start run"
            assert "wwm run " in await third.locator("pre.command").inner_text()
            await third.wait_for_timeout(200)
            assert await third.evaluate("window.pwned") is None
            assert await page.evaluate("window.pwned") is None
    finally:
        store.close()
    assert failures == []
