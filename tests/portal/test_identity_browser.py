"""Identity that never loses work (issue 26, item 5), in Debian's chromium: an anonymous visitor
is never shown "Sign out"; starting a run makes their identity and the next page shows its
recovery link, once; "You" offers a new identity or an account, and leaving an identity that
has work takes a second, informed click (with its recovery link shown), after which the link
brings the work back. A GET never makes a user."""

from __future__ import annotations

from pathlib import Path

import pytest
from portal_sites import served
from sqlalchemy import func, select

from wwm.portal.app import make_app
from wwm.portal.models import User
from wwm.portal.store import PortalStore

pytestmark = [pytest.mark.slow, pytest.mark.browser]


def users(store: PortalStore) -> int:
    with store._session() as s:
        return int(s.scalar(select(func.count()).select_from(User)) or 0)


async def test_an_anonymous_visitor_cannot_lose_their_work_in_one_click(tmp_path: Path, wwm_servers, chromium):
    store = PortalStore(f"sqlite:///{tmp_path / 'portal.db'}")
    world, seeker = wwm_servers["world"].url, wwm_servers["seeker"].url
    author = store.new_user().user
    doc = {"name": "seeker", "world": {"url": world, "args": {"size": 5}}, "mind": {"url": seeker},
           "run": {"steps": 3, "timeout": 5.0}}
    cid = store.save_combination(author_id=author.id, title="Seeker", document=doc, world_url=world).id
    failures: list[str] = []
    try:
        with served(make_app(store, check_every=0)) as portal:
            browser = chromium
            page = await browser.new_page()
            page.set_default_timeout(15000)
            page.on("pageerror", lambda e: failures.append(f"page error: {e}"))
            signout = page.locator("nav.site-nav.wide form[action='/signout']")   # (the Menu repeats the nav)

            for path in ("", "me", "servers", f"combination/{cid}"):       # GETs make no user
                await page.goto(portal + path)
                assert await signout.count() == 0
            assert users(store) == 1                                      # the author only
            await page.goto(portal + "me")
            assert "no identity on this portal yet" in await page.locator("p.no-identity").inner_text()

            # starting a run makes the identity; the next page shows its recovery link, once
            await page.goto(portal + f"combination/{cid}")
            await page.fill("form.start-run input[name=steps]", "3")
            async with page.expect_navigation():
                await page.click("form.start-run button[type=submit]")
            notice = page.locator("section.recovery-notice")
            assert await notice.count() == 1
            link = await notice.locator("input.recovery").input_value()
            assert link.startswith(portal + "recover/")
            assert await signout.count() == 0                            # still anonymous
            await page.reload()
            assert await notice.count() == 0                             # shown once
            assert users(store) == 2

            # "You": the run is there; "Start a new identity" warns and keeps everything
            await page.goto(portal + "me")
            assert await page.locator("table.my-runs tbody tr").count() == 1
            assert await page.locator("a[href='/signup']").first.is_visible()
            async with page.expect_navigation():
                await page.click("form.leave button[type=submit]")
            assert "Before you leave this identity" in await page.locator("p.message").inner_text()
            assert await page.locator("table.my-runs tbody tr").count() == 1    # nothing lost
            fresh_link = await page.locator("input#recovery").input_value()
            assert fresh_link.startswith(portal + "recover/") and fresh_link != link
            await page.goto(portal + "me")                                  # changed their mind
            assert await page.locator("table.my-runs tbody tr").count() == 1

            # the second, informed click leaves it; the link brings the work back
            async with page.expect_navigation():
                await page.click("form.leave button[type=submit]")
            fresh_link = await page.locator("input#recovery").input_value()
            async with page.expect_navigation():
                await page.click("form.leave button[type=submit]")          # "I have kept the link"
            assert await page.locator("p.no-identity").count() == 1
            await page.goto(fresh_link)
            async with page.expect_navigation():
                await page.click("main form button[type=submit]")           # "Continue as that visitor"
            assert await page.locator("table.my-runs tbody tr").count() == 1
            assert await signout.count() == 0

            # an account is shown "Sign out" (it can sign in again), and "You" says so
            await page.goto(portal + "signup")
            await page.fill("input[name=username]", "alice")
            await page.fill("input[name=password]", "correct horse battery")
            async with page.expect_navigation():
                await page.click("main form button[type=submit]")
            assert await page.locator("strong.username").inner_text() == "alice"
            assert await page.locator("table.my-runs tbody tr").count() == 1   # the work came along
            assert await signout.count() == 1
    finally:
        store.close()
    assert failures == []
