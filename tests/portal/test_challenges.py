"""A competition end to end: a World on the portal hosts a challenge (fixed steps, seeds and a
deadline); three entries, one of them a mind that hangs; the portal runs each entry itself,
ranks them by the World's scores, marks the hanging one with its reason, and keeps every
evaluation (each a portal run of its own). Entries after the deadline are refused."""

from __future__ import annotations

import asyncio
import re
import time
from pathlib import Path

import pytest
from portal_sites import HANG, Visitor, card_of, run_status, served

from wwm.portal.app import make_app
from wwm.portal.runs import RunService
from wwm.portal.store import PortalStore
from wwm.server.process import ServerProcess
from wwm.store import RunStore

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def hanging() -> ServerProcess:
    with ServerProcess(HANG) as server:
        yield server


async def test_a_competition_ranks_entries_by_the_portals_own_runs_and_marks_a_hanging_one(
        signal_bed, hanging, tmp_path: Path):
    db = f"sqlite:///{tmp_path / 'portal.db'}"
    store, run_store = PortalStore(db), RunStore(db)
    world = store.add_server(signal_bed["world"], card_of(signal_bed["world"]))
    me = store.new_user().user

    def society(title: str, mind: dict) -> int:
        doc = {"world": {"url": signal_bed["world"]}, "mind": mind}
        return store.save_combination(author_id=me.id, title=title, document=doc, world_url=signal_bed["world"]).id

    both = society("both specialists", {"url": signal_bed["as"], "args": {
        "method": "w=q", "seed": 0, "minds": [{"url": signal_bed["ab"]}, {"url": signal_bed["cd"]}]}})
    half = society("one specialist", {"url": signal_bed["ab"]})
    hangs = society("a mind that hangs", {"url": hanging.url})
    try:
        with served(make_app(store, check_every=0, runs=RunService(store=run_store))) as url:
            visitor = Visitor(url)
            try:
                status, _, where = await visitor.post("/challenges", "/challenges", {
                    "title": "Signal cup", "kind": "society", "world": str(world.id), "steps": "20",
                    "seeds": "0, 1", "deadline": "", "timeout": "1"})
                assert status == 200 and re.search(r"/challenge/\d+\?done=challenge-opened$", where), where
                page = where.removeprefix(url.rstrip("/")).split("?")[0]
                for cid in (hangs, half, both):
                    status, _, _ = await visitor.post(page, page + "/entries", {"combination": str(cid)})
                    assert status == 200
                challenge = store.challenges()[0]
                deadline = time.monotonic() + 90
                while any(e.status in ("queued", "running") for e in store.entries(challenge.id)):
                    assert time.monotonic() < deadline, [e.status for e in store.entries(challenge.id)]
                    await asyncio.sleep(0.2)
                entries = {e.combination_id: e for e in store.entries(challenge.id)}
                # the portal's own runs, one per seed, scored by the World
                for cid in (both, half):
                    e = entries[cid]
                    assert e.status == "scored", (e.status, e.detail)
                    evaluations = store.evaluations(e.id)
                    assert [v.seed for v in evaluations] == [0, 1]
                    for v in evaluations:
                        run = run_store.get_run(v.run_store_id, max_steps=0)
                        assert run.world_score == v.score and run.step_count == 20
                    assert e.score == pytest.approx(sum(v.score for v in evaluations) / 2)
                assert entries[both].score == 20.0 and entries[half].score < 20.0
                marked = entries[hangs]
                assert marked.status == "failed: mind lost", marked.status
                assert "no answer to Get action within the 1 s time-out" in marked.detail["reason"]
                assert [v.status for v in store.evaluations(marked.id)] == ["mind lost"]
                # the ranking as the page shows it
                status, html = await visitor.get(page)
                assert status == 200, html
                rows = re.findall(r'<tr id="entry-(\d+)" data-entry="\d+" data-status="([^"]*)">\s*'
                                  r'<td class="rank">([^<]*)</td>', html)
                assert [(int(eid), rank) for eid, _, rank in rows] == [
                    (entries[both].id, "1"), (entries[half].id, "2"), (entries[hangs].id, "–")]
                assert "no answer to Get action" in html
                # its run, to watch: the portal run made for it (the run store's ID is not a page's)
                lost = store.evaluations(marked.id)[0].run_store_id
                (watch,) = [r for r in store.runs_of(hangs) if r.run_store_id == lost]
                assert f'href="/run/{watch.id}"' in html and run_status(store, watch.id) == "mind lost"
                status, run_page = await visitor.get(f"/run/{watch.id}")
                assert status == 200 and "Not found" not in run_page, run_page[:500]

                # a challenge past its deadline takes no more entries
                status, _, where = await visitor.post("/challenges", "/challenges", {
                    "title": "Closed cup", "kind": "society", "world": str(world.id), "steps": "5",
                    "seeds": "0", "deadline": "2020-01-01 00:00", "timeout": "1"})
                closed = where.removeprefix(url.rstrip("/")).split("?")[0]
                status, html, _ = await visitor.post("/me", closed + "/entries", {"combination": str(both)})  # a token
                assert status == 403 and "closed at its deadline" in html
                # bad forms are named
                status, html, _ = await visitor.post("/challenges", "/challenges", {
                    "title": "x", "kind": "society", "world": str(world.id), "steps": "5", "seeds": "a, b",
                    "timeout": "1"})
                assert status == 400 and "seeds are whole numbers" in html
            finally:
                await visitor.session.close()
    finally:
        run_store.close()
        store.close()
