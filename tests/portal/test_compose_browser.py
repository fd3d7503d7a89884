"""Composing a society in Debian's chromium (Playwright) without typing a parameter name, with
JavaScript on and with it off: choose a World and an Action Selection server (real ``wwm
serve`` processes; the AS's schema lists its methods with a sentence each and gives its
temperature a range), choose a method from the list, set a value in range by its label in
words, add three members, remove one, move one up, save, and start a run that completes.

With JavaScript every change happens in place (no page load, the keyboard focus on the part
changed, the tree beside the form redrawn on every change, a value typed included); without it
every button posts the form and the page comes back at the part changed (its #anchor)."""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
from compose_servers import TESTS_ON_PATH, TUNED
from portal_sites import served
from test_combinations import register

from wwm.portal.app import make_app
from wwm.portal.runs import RunService
from wwm.portal.store import PortalStore
from wwm.server.process import ServerProcess
from wwm.store import RunStore

pytestmark = [pytest.mark.slow, pytest.mark.browser]
POSTED = "() => !!document.querySelector('#composer') && !document.querySelector('#composer[aria-busy]')"


async def changed(page: Any, js: bool, act: Callable[[], Awaitable[Any]], anchor: str | None = None) -> None:
    """Do ``act`` and wait for the form to come back: in place (the script's post answered
    and swapped in), or as a new page at ``anchor``."""
    if js:
        async with page.expect_response(lambda r: r.request.method == "POST" and r.url.endswith("/compose")):
            await act()
        await page.wait_for_function(POSTED)
    else:
        async with page.expect_navigation():
            await act()
        if anchor is not None:
            assert page.url.endswith("#" + anchor), page.url


async def choose_server(page: Any, js: bool, path: str, server_id: str) -> None:
    anchor = "at-" + path.replace(".", "-")
    select = page.locator(f"#{anchor}-server")
    if js:                                        # choosing redraws the form
        await changed(page, js, lambda: select.select_option(server_id))
        assert await page.evaluate("document.activeElement.id") == f"{anchor}-server"   # focus kept
    else:
        await select.select_option(server_id)
        await changed(page, js, lambda: page.get_by_role("button", name=f"Show its arguments ({label(path)})",
                                                         exact=True).click(), anchor)


def label(path: str) -> str:
    """How the form names the part at ``path`` (its buttons' names end with it)."""
    if path in ("world", "mind"):
        return f"the {path}"
    return f"member {int(path.rpartition('.')[2]) + 1}"


async def no_serious_axe_violation(page: Any) -> None:
    """axe-core over the form and the tree (the page's navigation is another module's):
    nothing critical or serious."""
    from axe_playwright_python.async_playwright import Axe

    found = (await Axe().run(page, context="#composer")).response["violations"]
    bad = [(v["id"], [n["target"] for n in v["nodes"]][:3]) for v in found if v["impact"] in ("critical", "serious")]
    assert bad == [], bad


async def tree_order(page: Any) -> list[str]:
    return [t.strip() for t in await page.locator("#society-tree ul.members > li > .tree-item .tree-server")
            .all_inner_texts()]


async def compose_and_run(browser: Any, base: str, ids: dict[str, str], js: bool, store: PortalStore,
                          run_store: RunStore) -> None:
    context = await browser.new_context(java_script_enabled=js)
    page = await context.new_page()
    page.set_default_timeout(15000)
    failures: list[str] = []
    page.on("response", lambda r: r.status >= 400 and failures.append(f"{r.status} {r.url}"))
    page.on("pageerror", lambda e: failures.append(f"page error: {e}"))
    loads: list[str] = []
    page.on("framenavigated", lambda f: f == page.main_frame and loads.append(f.url))
    await page.goto(base + "compose")
    assert await page.evaluate("document.querySelector('#composer').className") == ("composer js" if js else "composer")
    await choose_server(page, js, "world", ids["world"])
    await choose_server(page, js, "mind", ids["as"])
    # a method chosen from the list, by the words shown; a value in range, by its label
    method = page.get_by_label("Method", exact=True)
    options = await method.locator("option").all_inner_texts()
    assert any(o.startswith("hierarchical-q: It learns which member to obey") for o in options), options
    await method.select_option("hierarchical-q")
    temperature = page.get_by_label("Q temperature", exact=True)
    assert await temperature.get_attribute("type") == "number"
    assert (await temperature.get_attribute("min"), await temperature.get_attribute("max")) == ("0.0", "5.0")
    await temperature.fill("0.5")
    if js:                                         # the tree follows a value changed, with no button
        await temperature.press("Tab")
        await page.wait_for_function("() => document.querySelector('#society-tree').innerText.includes('0.5')")
        assert "How freely it explores" in await page.locator("#at-mind-arg-q_temperature-help").inner_text()
    # three members, in place, each chosen from the list
    add = page.get_by_role("button", name="Add a member", exact=True)
    for i in range(3):
        await changed(page, js, add.click, f"at-mind-members-{i}")
        if js:
            assert await page.evaluate("document.activeElement.id") == f"at-mind-members-{i}-server"
    for i, server in enumerate(("seeker", "random", "seeker")):
        await choose_server(page, js, f"mind.members.{i}", ids[server])
    assert await tree_order(page) == ["FoodSeeker", "RandomMind", "FoodSeeker"]
    # remove member 3, move member 2 up: by keyboard where the script runs
    remove = page.get_by_role("button", name="Remove member 3", exact=True)
    await changed(page, js, remove.click, "at-mind-members")
    assert await page.locator("#at-mind-members-2").count() == 0
    up = page.get_by_role("button", name="Move up member 2", exact=True)
    if js:
        await up.focus()
        await changed(page, js, lambda: page.keyboard.press("Enter"))
        assert await page.evaluate("document.activeElement.closest('fieldset').id") == "at-mind-members-0"
        await page.wait_for_function(   # said to a screen reader (a polite live region)
            "() => document.getElementById('compose-announce').textContent === 'Moved up: now member 1.'")
    else:
        await changed(page, js, up.click, "at-mind-members-0")
    assert await tree_order(page) == ["RandomMind", "FoodSeeker"]
    assert await page.get_by_label("Method", exact=True).input_value() == "hierarchical-q"     # kept
    assert await page.get_by_label("Q temperature", exact=True).input_value() == "0.5"
    assert "Complete: it can be saved." in await page.locator("#society-state").inner_text()
    await page.locator("#society-yaml summary").click()                     # for experts
    assert "method: hierarchical-q" in await page.locator("#society-yaml pre").inner_text()
    if js:                                         # (axe runs as a script: not where scripts are off)
        await no_serious_axe_violation(page)
        assert loads == [base + "compose"], loads                          # never left the page
    title = f"Composed {'with' if js else 'without'} script"
    await page.get_by_label("Title").fill(title)
    async with page.expect_navigation():
        await page.get_by_role("button", name="Save the combination").click()
    assert "/combination/" in page.url
    cid = int(page.url.rstrip("/").rpartition("/")[2])
    saved = store.combination(cid)
    assert saved.title == title
    assert saved.document["mind"]["args"] == {
        "method": "hierarchical-q", "q_temperature": 0.5,
        "minds": [{"url": ids["random_url"]}, {"url": ids["seeker_url"]}]}
    assert "RandomMind" in await page.locator("ul.tree").inner_text()
    # start a run: it completes
    await page.fill("form.start-run input[name=steps]", "5")
    async with page.expect_navigation():
        await page.click("form.start-run button")
    assert "/run/" in page.url
    deadline = time.monotonic() + 90
    status = None
    while time.monotonic() < deadline:
        runs = store.runs_of(cid)
        if runs and runs[0].run_store_id is not None:
            status = run_store.get_run(runs[0].run_store_id, max_steps=0).status
            if status not in ("running", "starting"):
                break
        await page.wait_for_timeout(200)
    assert status == "completed", status
    await context.close()
    assert failures == [], failures


@pytest.mark.parametrize("js", [True, False], ids=["with-script", "without-script"])
async def test_compose_without_typing_a_parameter_name(tmp_path: Path, wwm_servers, js: bool, chromium):

    store = PortalStore(f"sqlite:///{tmp_path / 'portal.db'}")
    run_store = RunStore(f"sqlite:///{tmp_path / 'portal.db'}")
    try:
        with ServerProcess(TUNED, env=TESTS_ON_PATH) as tuned, \
                served(make_app(store, check_every=0, runs=RunService(store=run_store))) as base:
            world, seeker, random, as_id = register(store, wwm_servers["world"], wwm_servers["seeker"],
                                                    wwm_servers["random"], tuned)
            ids = {"world": world, "seeker": seeker, "random": random, "as": as_id,
                   "seeker_url": wwm_servers["seeker"].url, "random_url": wwm_servers["random"].url}
            browser = chromium
            await compose_and_run(browser, base, ids, js, store, run_store)
    finally:
        run_store.close()
        store.close()
