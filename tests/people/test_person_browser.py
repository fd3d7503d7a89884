"""A person at the page, in Debian's chromium (Playwright types as the person), over real
``wwm serve`` processes: the person acts as the mind for ten steps of a grid World run (an
action not allowed refused by name on the page), and a question nobody answers turns into
"Cannot suggest action". The page is screenshotted (``WWM_SCREENSHOTS=docs/img`` writes it
where docs/people.md shows it; otherwise into the test's temporary folder)."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

import pytest

from wwm.client.remote import RemoteMind, RemoteWorld
from wwm.client.runner import RunSettings, run
from wwm.server.process import ServerProcess, free_port

pytestmark = [pytest.mark.slow, pytest.mark.browser]
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]
ACTIONS = "north,south,east,west,stay"


def toward_food(state: str) -> str:
    """What the person decides on seeing the grid's state: a step toward the nearest food."""
    items = dict(part.split("=", 1) for part in state.split())
    x, y = int(items["x"]), int(items["y"])
    foods = [tuple(map(int, cell.split(","))) for cell in items.get("food", "").split(";") if cell]
    if not foods:
        return "stay"
    fx, fy = min(foods, key=lambda f: abs(f[0] - x) + abs(f[1] - y))
    if fx != x:
        return "east" if fx > x else "west"
    if fy != y:
        return "north" if fy > y else "south"
    return "stay"


def shots_folder(tmp_path: Path) -> Path:
    folder = Path(os.environ.get("WWM_SCREENSHOTS") or tmp_path)
    folder.mkdir(parents=True, exist_ok=True)
    return folder


async def test_a_person_in_chromium_is_the_mind_of_a_grid_run(tmp_path):
    from playwright.async_api import async_playwright

    failures: list[str] = []
    with ServerProcess("wwm.kit.grid:GridWorld", args={"size": 6, "seed": 4}) as grid, \
            ServerProcess("wwm.people:PersonMind", args={"actions": ACTIONS, "timeout": 20, "title": "Ann"}) as person:
        desk = person.url + "pages/"                # the person's page is one of the server's own
        async with async_playwright() as p:
            browser = await p.chromium.launch(executable_path="/usr/bin/chromium", args=CHROMIUM_ARGS)
            try:
                page = await browser.new_page(viewport={"width": 900, "height": 820})
                page.set_default_timeout(15000)
                page.on("pageerror", lambda e: failures.append(f"page error: {e}"))
                page.on("console", lambda m: m.type == "error" and "400" not in m.text
                        and failures.append(f"console: {m.text}"))
                await page.goto(desk)                       # open before any run: the page waits
                assert await page.locator("#none").is_visible()

                mind, world = RemoteMind(person.url), RemoteWorld(grid.url)
                running = asyncio.ensure_future(run(mind, world, RunSettings(steps=10, timeout=30)))
                seen, typed = [], []
                for step in range(10):
                    form = page.locator("section.seat:not(.ended) form.question:not(.sent)")
                    await form.wait_for()
                    number = await form.get_attribute("data-number")
                    state = await form.locator("pre.shown").inner_text()
                    seen.append(state)
                    action = toward_food(state)
                    if step == 0:                           # a slip of the finger, refused by name
                        await form.locator("input[name=action]").fill("up")
                        await form.locator("input[name=action]").press("Enter")
                        await page.locator("form.question .error").filter(has_text="not an allowed action").wait_for()
                        assert await page.locator("form.question .error").inner_text() == (
                            "'up' is not an allowed action: the allowed actions are north, south, east, west, stay")
                        countdown = await form.locator(".countdown").inner_text()
                        assert countdown.endswith(" s left") and 0 < int(countdown.split()[0]) <= 20
                    if step == 2:
                        await page.screenshot(path=str(shots_folder(tmp_path) / "people-mind.png"))
                    if step == 1:                           # the buttons of the allowed actions work too
                        await form.locator(f"button.action[data-action='{action}']").click()
                    else:
                        await form.locator("input[name=action]").fill(action)
                        await form.locator("input[name=action]").press("Enter")
                    typed.append(action)
                    await page.wait_for_function(  # sent (or already gone: the next question comes)
                        "n => !document.querySelector(`form.question[data-number='${n}']:not(.sent)`)", arg=number)
                result = await running
                assert result.status == "completed" and len(result.steps) == 10
                assert [s.state for s in result.steps] == seen           # the page showed the world's states
                assert [s.action for s in result.steps] == typed         # and the world got what was typed
                assert result.total_score is not None
                await page.locator("section.seat.ended").wait_for()

                # nobody answers: the run goes on with "Cannot suggest action"
                mind = RemoteMind(person.url, run_args={"timeout": 1.0})
                running = asyncio.ensure_future(run(mind, RemoteWorld(grid.url), RunSettings(steps=1, timeout=30)))
                await page.locator("section.seat:not(.ended) form.question").wait_for()
                await page.locator("section.seat:not(.ended) .countdown.low").wait_for()
                idle = await running
                assert [s.action for s in idle.steps] == [None]
                assert idle.steps[0].note == "nobody answered at the person's page within 1 s"
                await page.locator("section.seat ol.history li", has_text="nobody answered within 1 s").wait_for()
            finally:
                await browser.close()
    assert failures == []


async def test_a_person_in_chromium_is_the_world_talking_with_mgonz_and_with_eliza(tmp_path):
    """The Eliza test of 10.1.1 with a person on the world side: the person types the opening
    line, reads each reply on the page and types the next line (a score that is no number
    is refused by name), and ends the run from the page."""
    from playwright.async_api import async_playwright

    from wwm.kit.eliza import ElizaMind
    from wwm.kit.mgonz import MGonzMind

    failures: list[str] = []
    page_port = free_port()
    lines = ["I think my exams went badly.", "Why are you so rude to me?",
             "My sister says <img src=x onerror=alert(1)> I worry too much."]   # shown as text, never run
    with ServerProcess("wwm.kit.mgonz:MGonzMind") as mgonz, ServerProcess("wwm.kit.eliza:ElizaMind") as eliza, \
            ServerProcess("wwm.people:PersonWorld", args={"timeout": 20, "page_port": page_port,
                                                          "title": "Bob"}) as person:
        async with async_playwright() as p:
            browser = await p.chromium.launch(executable_path="/usr/bin/chromium", args=CHROMIUM_ARGS)
            try:
                page = await browser.new_page(viewport={"width": 900, "height": 900})
                page.set_default_timeout(15000)
                page.on("pageerror", lambda e: failures.append(f"page error: {e}"))
                for name, server, local in (("mgonz", mgonz, MGonzMind()), ("eliza", eliza, ElizaMind())):
                    world = RemoteWorld(person.url)
                    running = asyncio.ensure_future(run(RemoteMind(server.url), world,
                                                        RunSettings(steps=None, timeout=30)))
                    started = await asyncio.wait_for(_seat_url(world), 15)
                    await page.goto(started)                  # the run's display URL: this seat alone
                    replies = []
                    for turn, line in enumerate(lines):
                        form = page.locator("form.question:not(.sent)")
                        await form.wait_for()
                        number = await form.get_attribute("data-number")
                        assert await form.get_attribute("data-kind") == ("opening" if turn == 0 else "outcome")
                        await form.locator("textarea[name=state]").fill(line)
                        if turn:
                            replies.append(await form.locator("pre.shown").inner_text())
                            if turn == 1 and name == "mgonz":
                                await form.locator("input[name=score]").fill("lots")
                                await form.locator("button.send").click()
                                await form.locator(".error").filter(has_text="must be a number").wait_for()
                                await page.screenshot(path=str(shots_folder(tmp_path) / "people-world.png"))
                            await form.locator("input[name=score]").fill("1")
                            if turn == len(lines) - 1:
                                await form.locator("input[name=finished]").check()
                        await form.locator("button.send").click()
                        await page.wait_for_function(
                            "n => !document.querySelector(`form.question[data-number='${n}']:not(.sent)`)", arg=number)
                    result = await running
                    assert result.status == "ended by world" and len(result.steps) == 2   # the person ended it
                    assert [s.state for s in result.steps] == lines[:2]           # what the person typed
                    assert [s.action for s in result.steps] == replies            # what the page showed
                    assert replies == [(await local.get_action(line)).action for line in lines[:2]]
                    assert [s.score for s in result.steps] == [1.0, 1.0] and result.steps[-1].new_state == lines[2]
                    await page.locator("section.seat.ended").wait_for()
                    assert await page.locator("ol.history li", has_text=lines[2]).count() == 1
                    assert await page.locator("img").count() == 0
            finally:
                await browser.close()
    assert failures == []


async def _seat_url(world: RemoteWorld) -> str:
    """The display URL New run returned for the run the client just started: its seat's page."""
    while world.run_id is None or world.display_url is None:
        await asyncio.sleep(0.02)
    return world.display_url
