"""Pressing Enter in a field of the compose form, without JavaScript, does what the form is
for: it saves the combination (the form's first submit button is a copy of "Save the
combination", invisible and out of the tab order), not the first of the many tool buttons
("Show its arguments", "Move up", ...), which used to come first in the form and so answered
Enter. Debian's chromium with JavaScript off, a real World and Mind."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from portal_sites import served
from test_combinations import register

from wwm.portal.app import make_app
from wwm.portal.store import PortalStore

pytestmark = [pytest.mark.slow, pytest.mark.browser]


async def test_enter_in_a_field_saves_the_combination_without_javascript(tmp_path: Path, wwm_servers: Any,
                                                                         chromium: Any) -> None:
    store = PortalStore(f"sqlite:///{tmp_path / 'portal.db'}")
    try:
        with served(make_app(store, check_every=0)) as base:
            world, seeker = register(store, wwm_servers["world"], wwm_servers["seeker"])
            context = await chromium.new_context(java_script_enabled=False)
            page = await context.new_page()
            page.set_default_timeout(15000)
            await page.goto(base + "compose")
            for path, server in (("world", world), ("mind", seeker)):
                await page.locator(f"#at-{path}-server").select_option(server)
                async with page.expect_navigation():
                    await page.get_by_role("button", name=f"Show its arguments (the {path})", exact=True).click()
            title = page.get_by_label("Title", exact=True)
            await title.fill("Saved by Enter")
            async with page.expect_navigation():
                await title.press("Enter")
            assert re.search(r"/combination/\d+", page.url), f"Enter did not save: {page.url}"
            assert [c.title for c in store.recent_combinations()] == ["Saved by Enter"]
            # the copy is not in the tab order, and a screen reader does not announce it twice
            default = page.locator("#compose-form button.compose-default")
            assert await default.count() == 0, "the saved combination's page has no compose form"
            await page.goto(base + "compose")
            default = page.locator("#compose-form button.compose-default")
            hidden = (await default.get_attribute("tabindex"), await default.get_attribute("aria-hidden"))
            assert hidden == ("-1", "true")
            await context.close()
    finally:
        store.close()
