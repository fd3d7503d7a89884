"""The portal in Debian's chromium (Playwright): a visitor registers a real server and a hostile
one through the form and sees them listed; no script from the hostile card runs on any page
(the list, its page), and no request the pages make fails (style, script, icon)."""

from __future__ import annotations

from pathlib import Path

import pytest
from portal_sites import served

from wwm.portal.app import make_app
from wwm.portal.store import PortalStore

pytestmark = [pytest.mark.slow, pytest.mark.browser]


async def test_register_through_the_form_and_no_hostile_script_runs(tmp_path: Path, wwm_servers, odd_sites, chromium):
    store = PortalStore(f"sqlite:///{tmp_path / 'portal.db'}")
    failures: list[str] = []
    try:
        with served(make_app(store, check_every=0)) as portal:
            browser = chromium
            page = await browser.new_page()
            page.set_default_timeout(10000)
            page.on("response", lambda r: r.status >= 400 and failures.append(f"{r.status} {r.url}"))
            page.on("pageerror", lambda e: failures.append(f"page error: {e}"))
            dialogs: list[str] = []
            page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))

            await page.goto(portal + "servers")
            assert await page.locator("p.none").inner_text() == "No server is registered yet."
            for url in (wwm_servers["world"].url, odd_sites.url("/hostile")):
                await page.goto(portal + "servers")
                await page.fill("input[name=url]", url)
                async with page.expect_navigation():
                    await page.click("form.register button[type=submit]")
                assert url in await page.locator("p.role").inner_text()
                assert await page.evaluate("window.pwned") is None

            hostile = await page.locator("h1.server-name").inner_text()
            assert hostile.startswith("Evil <script>window.pwned=1</script>")   # text, not markup
            assert await page.locator("main script, main img").count() == 0
            assert await page.locator("ul.calls a, ul.called-by a").count() == 0

            await page.goto(portal + "servers")
            names = await page.locator("table.servers tbody td:first-child a").all_inner_texts()
            assert names[1] == "GridWorld" and names[0].startswith("Evil <script>")
            await page.select_option("select[name=role]", "world")       # the page's own script
            await page.wait_for_url("**/servers?*role=world*")
            assert await page.locator("table.servers tbody td:first-child a").all_inner_texts() == ["GridWorld"]
            await page.wait_for_timeout(300)                            # late handlers would fire
            assert await page.evaluate("window.pwned") is None and dialogs == []
            styled = await page.evaluate("getComputedStyle(document.querySelector('header')).backgroundColor")
            assert styled == "rgb(29, 53, 87)"                           # the style was loaded
    finally:
        store.close()
    assert failures == []
