"""The portal's whole journey (issue 14), in Debian's chromium, against a ``wwm portal`` process
and real ``wwm serve`` servers, as three people would walk it:

- the author registers the servers by URL, browses them, composes an AS over two minds, one of
  them a Mind_M that calls a second AS over two more (the seed's 3.5 example: "strong M4, weak
  M5") in its region and a third mind elsewhere, each with its own arguments, and saves it;
- a third party opens the permanent link in a browser of their own; the author starts the run;
  both watch the steps arrive (pushed, no reload); the third party has no way to end it;
- the portal process is stopped and started again; the run carries on;
- whoever holds the secret link (a third browser) ends it, once;
- a second run of the same combination for a fixed number of steps puts it in its World's
  Top 10.

Every page visited is screenshotted (``WWM_SCREENSHOTS=docs/img`` writes them where the README
shows them; otherwise into the test's temporary folder). No request fails, no script error,
and no script from anyone's text runs."""

from __future__ import annotations

import os
import signal
from pathlib import Path
from typing import Any

import pytest
from test_combinations import AS, REGION
from test_run_pages import start_portal

from wwm.server.process import ServerProcess

pytestmark = [pytest.mark.slow, pytest.mark.browser]
LEARNER = "wwm.selection.learning.qlearning:QLearningMind"   # a Mind_i: it takes a strength
GRID_MOVES = "north,south,east,west,stay"
AT_LEAST = "(n) => Number(document.getElementById('live-step').textContent) >= n"
STATUS_IS = "(s) => document.getElementById('run-status').textContent === s"


async def step_of(page: Any) -> int:
    text = (await page.locator("#live-step").inner_text()).strip()
    return int(text) if text.isdigit() else -1


async def until_step(page: Any, n: int, timeout: float = 20000) -> None:
    """Wait for the page to show step ``n`` (pushed to it); fail with what the page says instead."""
    try:
        await page.wait_for_function(AT_LEAST, arg=n, timeout=timeout)
    except Exception:
        said = " / ".join([await page.locator("section.run").inner_text(), await page.locator("#events").inner_text()])
        raise AssertionError(f"step {n} never came; the page says: {said}") from None


async def set_field(page: Any, name: str, value: str) -> None:
    """Fill in one of the compose form's fields, a text box or a list, as a person would (an
    advanced one after opening its "Advanced")."""
    field = page.locator(f"input:not([type=hidden])[name='{name}'], select[name='{name}'], textarea[name='{name}']")
    if not await field.is_visible():
        await field.locator("xpath=ancestor::details[1]/summary").click()
    if await field.evaluate("e => e.tagName") == "SELECT":
        await field.select_option(value)
    else:
        await field.fill(value)


POSTED = "() => !!document.querySelector('#composer') && !document.querySelector('#composer[aria-busy]')"


async def redrawn(page: Any, act: Any) -> None:
    """Wait for the compose script to post the form and swap the answer in (no page load)."""
    async with page.expect_response(lambda r: r.request.method == "POST" and r.url.endswith("/compose")):
        await act
    await page.wait_for_function(POSTED)


async def pick(page: Any, name: str, server_id: str) -> None:
    """Choose a server in the compose form: the compose script redraws the form for it in place."""
    await redrawn(page, page.select_option(f"select[name='{name}']", server_id))


async def press(page: Any, selector: str) -> None:
    async with page.expect_navigation():
        await page.click(selector)


def stop(portal: Any) -> None:
    portal.send_signal(signal.SIGTERM)
    portal.wait(timeout=30)


async def test_register_compose_link_run_watch_restart_end_and_top_10(tmp_path: Path, wwm_servers, chromium):
    shots = Path(os.environ.get("WWM_SCREENSHOTS") or tmp_path)
    shots.mkdir(parents=True, exist_ok=True)
    db = f"sqlite:///{tmp_path / 'portal.db'}"
    failures: list[str] = []
    as1, as2, region, learner = (ServerProcess(AS), ServerProcess(AS), ServerProcess(REGION),
                                 ServerProcess(LEARNER))
    started = (as1, as2, region, learner)
    servers = {"world": wwm_servers["world"], "random": wwm_servers["random"], "seeker": wwm_servers["seeker"],
               "as": as1, "as2": as2, "region": region, "learner": learner}
    portal, base = None, ""
    try:
        for server in started:
            server.start()
        portal, base = start_portal(db)
        port = base.rsplit(":", 1)[1]
        browser = chromium
        contexts = [await browser.new_context(viewport={"width": 1200, "height": 900}) for _ in range(3)]
        author, third, holder = [await c.new_page() for c in contexts]
        for page in (author, third, holder):
            page.set_default_timeout(20000)
            page.on("pageerror", lambda e: failures.append(f"page error: {e}"))
            page.on("response", lambda r: r.status >= 400 and "/end/" not in r.url
                    and failures.append(f"{r.status} {r.url}"))

        async def shot(page: Any, name: str) -> None:
            await page.screenshot(path=str(shots / f"portal-{name}.png"), full_page=True)

        # -- register the servers by URL, and browse them ----------------------------------
        ids: dict[str, str] = {}
        await author.goto(base + "/servers")
        for name, server in servers.items():
            await author.fill("form.register input[name=url]", server.url)
            await press(author, "form.register button")
            assert "/servers/" in author.url, await author.content()
            ids[name] = author.url.split("?")[0].rstrip("/").rsplit("/", 1)[1]  # after ?done=registered
            await author.goto(base + "/servers")
        assert len(set(ids.values())) == len(servers)
        await shot(author, "servers")
        await author.goto(base + "/servers?role=mind&q=Action")
        listed = await author.locator("table.servers").inner_text()
        assert "Action Selection" in listed and "GridWorld" not in listed
        await author.goto(base + f"/servers/{ids['region']}")
        await shot(author, "server")

        # -- compose: World + AS1 over [random, Mind_M -> AS2 over [seeker, random]] -------
        await author.goto(base + "/compose")
        await pick(author, "world.server", ids["world"])
        await pick(author, "mind.server", ids["as"])
        await redrawn(author, author.click("button[value='add:mind']"))
        await redrawn(author, author.click("button[value='add:mind']"))
        await pick(author, "mind.members.0.server", ids["random"])
        await pick(author, "mind.members.1.server", ids["region"])
        await redrawn(author, author.click("button[value='add:mind.members.1']"))
        await redrawn(author, author.click("button[value='add:mind.members.1']"))  # in the region, elsewhere
        await pick(author, "mind.members.1.members.0.server", ids["as2"])
        await pick(author, "mind.members.1.members.1.server", ids["seeker"])
        await redrawn(author, author.click("button[value='add:mind.members.1.members.0']"))
        await redrawn(author, author.click("button[value='add:mind.members.1.members.0']"))
        await pick(author, "mind.members.1.members.0.members.0.server", ids["learner"])   # M4
        await pick(author, "mind.members.1.members.0.members.1.server", ids["learner"])   # M5
        for name, value in {"world.args.size": "6", "world.args.seed": "3",
                            "mind.args.method": "w=q", "mind.members.0.args.seed": "7",
                            "mind.members.1.args.region": "x<3",
                            "mind.members.1.members.0.args.method": "static-w",
                            "mind.members.1.members.0.args.strengths": "2,0.5",   # strong M4, weak M5
                            "mind.members.1.members.0.members.0.args.seed": "4",
                            "mind.members.1.members.0.members.1.args.seed": "5",
                            "mind.members.1.members.0.members.0.args.actions": GRID_MOVES,
                            "mind.members.1.members.0.members.1.args.actions": GRID_MOVES,
                            "title": "Region switch <script>window.pwned=1</script>",
                            "steps": "30"}.items():
            await set_field(author, name, value)
        await author.fill("textarea[name=explanation]",
                          "Food first, *then* wander. <img src=x onerror=\"window.pwned=2\">")
        await redrawn(author, author.click("button[value=update]"))
        assert "strengths: 2,0.5" in await author.locator("pre.preview").text_content()
        await shot(author, "compose")
        await press(author, "button.save")
        link = author.url
        assert link.endswith("/combination/1"), await author.content()
        await shot(author, "combination")

        # -- a third party opens the link; the author starts the run; both watch -----------
        await third.goto(link)
        tree = await third.locator("ul.tree").inner_text()
        for words in ("GridWorld", "w=q", "x<3", "static-w", "2,0.5", "Q-learning", "FoodSeeker"):
            assert words in tree, words
        await author.fill("form.start-run input[name=steps]", "until ended")
        await press(author, "form.start-run button")
        run_page = author.url
        assert "/run/" in run_page
        end_url = await author.locator("#end-url").input_value()
        assert "/end/" in end_url
        assert await author.locator("form.end-run").count() == 1, await author.content()
        await third.goto(run_page)
        assert await third.locator("form.end-run").count() == 0      # no way to end it ...
        assert await third.locator("#end-url").count() == 0          # ... nor to learn how
        for page in (author, third):
            await until_step(page, 5)
        seen = [await step_of(author), await step_of(third)]
        for page, step in zip((author, third), seen, strict=True):
            await until_step(page, step + 10)                          # pushed: no reload
        await shot(third, "run")

        # -- the portal stops and starts again, on the same port and database --------------
        stop(portal)
        portal, base = start_portal(db, "--port", port)
        before = await step_of(author)
        await third.goto(run_page)
        await third.wait_for_function(STATUS_IS, arg="running")
        await until_step(third, before + 10)                              # it carries on
        assert await third.locator("form.end-run").count() == 0

        # -- whoever holds the secret link ends it, once ----------------------------------
        await holder.goto(end_url)
        await shot(holder, "end")
        await press(holder, "form.end-run button")
        assert "ended by its owner" in await holder.locator("#ended").inner_text()
        await third.wait_for_function(STATUS_IS, arg="ended by its owner")
        reply = await holder.goto(end_url)
        assert reply is not None and reply.status == 410

        # -- a run of the stated 30 steps puts the combination in its World's Top 10 --------
        await author.goto(link)
        await press(author, "form.start-run button")
        await author.wait_for_function(STATUS_IS, arg="completed", timeout=60000)
        await author.goto(base + f"/world/{ids['world']}")
        board = author.locator("section.top[data-steps='30'] ol.top10 li")
        assert await board.count() == 1
        assert "Region switch <script>" in await board.first.inner_text()
        await shot(author, "top10")
        await author.goto(base + "/")
        await shot(author, "home")
        for page in (author, third, holder):
            assert await page.evaluate("window.pwned") is None
    finally:
        if portal is not None and portal.poll() is None:
            stop(portal)
        for server in started:
            server.stop()
    assert failures == []
