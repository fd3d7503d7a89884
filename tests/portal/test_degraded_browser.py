"""A society degraded while a person watches: the run page's status line says "degraded:
member X lost at step k" as soon as the record says so, without a reload (static/run.js, from
the run's live events), and keeps saying it once the run has ended. Debian's chromium; the run
is written by this process into the portal's database (the page follows it through the store,
as it follows a run executed by another process)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from portal_sites import served

from wwm.portal.app import make_app
from wwm.portal.store import PortalStore
from wwm.protocol.records import RunResult, Step
from wwm.store import RunStore, StoreRecorder

pytestmark = [pytest.mark.slow, pytest.mark.browser]
LOST = "http://127.0.0.1:9/third"
SAYS = f"degraded: member {LOST} lost at step 2"


def step(i: int, note: str | None = None) -> Step:
    return Step(i, "x", None if note else "a", "y", 1.0, None, 0.0, 0.0, 0.0, 0.0, note)


async def test_the_status_line_says_degraded_live_and_after_the_end(tmp_path: Path, chromium: Any) -> None:
    url = f"sqlite:///{tmp_path / 'portal.db'}"
    store = PortalStore(url)
    runs = RunStore(url)
    try:
        recorder = StoreRecorder(runs, mind_url="http://127.0.0.1:9/as", world_url="local:Cycle")
        recorder.on_start(RunResult(status="running"))
        for i in range(2):
            recorder.on_step(step(i))
        runs.flush()
        assert recorder.run_id is not None
        me = store.new_user().user
        cid = store.save_combination(author_id=me.id, title="Three minds", world_url="local:Cycle",
                                     document={"world": {"url": "local:Cycle"}, "mind": {"url": "http://a/"}}).id
        rid = store.new_run(cid, me.id, None).id
        store.link_run(rid, recorder.run_id)
        with served(make_app(store, check_every=0)) as base:
            page = await chromium.new_page()
            page.set_default_timeout(20000)
            await page.goto(f"{base}run/{rid}")
            await page.wait_for_selector("#live[data-connected='yes']", state="attached")
            assert await page.locator("#run-degraded .badge").count() == 0

            recorder.on_step(step(2, f"{SAYS} (unreachable: connection refused)"))   # the AS's answer
            runs.flush()
            await page.wait_for_function("says => document.querySelector('#run-degraded').innerText.includes(says)",
                                         arg=SAYS)
            assert await page.locator("#run-degraded .badge").all_inner_texts() == [SAYS]
            assert (await page.locator("#status-degraded").inner_text()).strip() == f"({SAYS})"
            assert "connection refused" in await page.locator("#events").inner_text()

            recorder.on_finish(RunResult(status="ended by its owner", steps=[]))
            await page.wait_for_selector("#run-says.says-over")
            assert await page.locator("#run-degraded .badge").all_inner_texts() == [SAYS]
            await page.reload()
            assert await page.locator("#run-degraded .badge").all_inner_texts() == [SAYS]
    finally:
        runs.close()
        store.close()
