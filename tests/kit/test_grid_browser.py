"""The grid World's pages in Debian's chromium (Playwright): a run's display page draws the
grid as SVG with the agent in its cell and follows the run live; no page asks for anything
the server does not have (no 404 in the console, the favicon included)."""

from __future__ import annotations

import pytest

from wwm.client import RemoteWorld
from wwm.server.process import ServerProcess

pytestmark = [pytest.mark.slow, pytest.mark.browser]
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]


def body(state: str) -> tuple[int, int]:
    items = dict(part.split("=", 1) for part in state.split())
    return int(items["x"]), int(items["y"])


async def agent_cell(page, size: int) -> tuple[int, int]:
    """The cell the agent is drawn in, read from where it is on the screen (north up)."""
    grid = await page.locator("svg.grid").bounding_box()
    agent = await page.locator("svg.grid .agent").bounding_box()
    assert grid and agent
    column = int((agent["x"] + agent["width"] / 2 - grid["x"]) // (grid["width"] / size))
    row = int((agent["y"] + agent["height"] / 2 - grid["y"]) // (grid["height"] / size))
    return column, size - 1 - row


async def test_the_display_page_draws_the_grid_and_no_request_fails():
    from playwright.async_api import async_playwright

    failures: list[str] = []
    with ServerProcess("wwm.kit.grid:GridWorld", args={"size": 10, "seed": 3}) as server:
        async with RemoteWorld(server.url) as world, async_playwright() as p:
            started = await world.new_run()
            await world.execute_action("east")
            browser = await p.chromium.launch(executable_path="/usr/bin/chromium", args=CHROMIUM_ARGS)
            try:
                page = await browser.new_page()
                page.set_default_timeout(5000)
                page.on("response", lambda r: r.status >= 400 and failures.append(f"{r.status} {r.url}"))
                page.on("console", lambda m: m.type == "error" and failures.append(f"console: {m.text}"))
                page.on("pageerror", lambda e: failures.append(f"page error: {e}"))

                await page.goto(server.url)                              # the description page
                assert await page.locator('tr[data-argument="size"] td:nth-child(3)').inner_text() == "10"

                await page.goto(started.display_url)                     # the run's display page
                grid = page.locator("svg.grid")
                assert await grid.get_attribute("data-columns") == "10"
                assert await grid.get_attribute("data-rows") == "10"
                assert await page.locator("svg.grid .agent").count() == 1
                assert await agent_cell(page, 10) == body(await world.get_state())
                box = await grid.bounding_box()
                assert box and box["width"] > 200 and box["height"] > 200   # drawn, not a speck

                # the page follows the run: walk the agent and see it move in the picture
                for _ in range(3):
                    await world.execute_action("north")
                where = body(await world.get_state())
                await page.wait_for_function(
                    "([x, y]) => { const a = document.querySelector('svg.grid .agent');"
                    " return a && a.dataset.x === x && a.dataset.y === y; }", arg=[str(c) for c in where])
                assert await agent_cell(page, 10) == where
                assert "step 4 ·" in await page.locator("#picture").inner_text()
                await page.wait_for_timeout(200)  # late requests (the icon) report in
            finally:
                await browser.close()
            await world.end_run()
    assert failures == []
