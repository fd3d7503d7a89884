"""A run's page in Debian's chromium (Playwright), with real ``wwm serve`` servers: a visitor
starts a run with the start form, two browser contexts watch the step counter advance (pushed
by server-sent events, drawn by the package's script: no reload), the third party has no End
control, the secret URL ends the run from a third context, both pages learn of the end, and the
used URL is refused. No script error, no request refused under the Content-Security-Policy."""

from __future__ import annotations

from pathlib import Path

import pytest
from portal_sites import served

from wwm.portal.app import make_app
from wwm.portal.store import PortalStore

pytestmark = [pytest.mark.slow, pytest.mark.browser]

# The combination page (compose/combination pages) carries the real start form; this is the same
# form, built in the page, posting the visitor's CSRF token to the same route.
START_FORM = """([cid, steps]) => {
  const form = document.createElement("form");
  form.method = "post"; form.action = `/combination/${cid}/runs`;
  for (const [name, value] of [["csrf", document.querySelector("input[name=csrf]").value], ["steps", steps]]) {
    const input = document.createElement("input");
    input.type = "hidden"; input.name = name; input.value = value; form.appendChild(input);
  }
  document.body.appendChild(form); form.submit();
}"""

AT_LEAST = "(n) => Number(document.getElementById('live-step').textContent) >= n"


async def step_of(page) -> int:
    text = await page.locator("#live-step").inner_text()
    return int(text) if text.strip().isdigit() else -1


async def test_start_watch_in_two_contexts_end_by_the_secret_url_in_a_third(tmp_path: Path, wwm_servers, chromium):
    store = PortalStore(f"sqlite:///{tmp_path / 'portal.db'}")
    failures: list[str] = []
    try:
        author = store.new_user().user
        world, mind = wwm_servers["world"].url, wwm_servers["seeker"].url
        cid = store.save_combination(author_id=author.id, title="Seeking food", world_url=world, document={
            "world": {"url": world, "args": {"size": 8}}, "mind": {"url": mind}, "run": {"timeout": 2.0}}).id
        with served(make_app(store, check_every=0)) as portal:
            browser = chromium
            contexts = [await browser.new_context() for _ in range(3)]
            starter, third, holder = [await c.new_page() for c in contexts]
            for page in (starter, third, holder):
                page.set_default_timeout(15000)
                page.on("pageerror", lambda e: failures.append(f"page error: {e}"))
                page.on("console", lambda m: m.type == "error" and "410" not in m.text
                        and failures.append(f"console: {m.text}"))

            await starter.goto(portal + "me")
            async with starter.expect_navigation():
                await starter.evaluate(START_FORM, [cid, "until ended"])
            assert "/combination/" in starter.url and "/run/" in starter.url
            run_page = starter.url
            end_url = await starter.locator("#end-url").input_value()
            assert "/end/" in end_url
            assert await starter.locator("form.end-run button").is_visible()

            await third.goto(run_page)
            assert await third.locator("form.end-run").count() == 0
            assert await third.locator("#end-url").count() == 0

            for page in (starter, third):
                await page.wait_for_function(AT_LEAST, arg=20)
            first = [await step_of(starter), await step_of(third)]
            for page, seen in zip((starter, third), first, strict=True):
                await page.wait_for_function(AT_LEAST, arg=seen + 10)
                points = await page.locator("#score-chart polyline").get_attribute("points")
                assert points and len(points.split()) > 10             # the chart follows the steps
                assert await page.locator("#recent tbody tr").count() > 0

            await starter.wait_for_function(AT_LEAST, arg=100)    # a record of more than one page
            await holder.goto(end_url)
            assert "End run" in await holder.locator("h1").inner_text()
            async with holder.expect_navigation():
                await holder.click("form.end-run button")
            assert "ended by its owner" in await holder.locator("#ended").inner_text()

            for page in (starter, third):                          # told by the stream, no reload
                await page.wait_for_function(
                    "(s) => document.getElementById('run-status').textContent === s", arg="ended by its owner")
                assert await page.locator("form.end-run").count() == 0
            reply = await holder.goto(end_url)
            assert reply is not None and reply.status == 410
            assert "already ended" in await holder.locator("#refused").inner_text()
            await third.reload()                                  # the whole record now
            assert await third.locator("#record tbody tr").count() == 100
            assert await third.locator("nav.pages a[rel=next]").count() == 1
    finally:
        store.close()
    assert failures == []
