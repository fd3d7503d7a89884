"""The Λ* test as a service on the portal: anyone enters one or more mind URLs; the portal
administers the test itself through the protocol, and ranks the random, local-search and
oracle minds (served as real processes) in the expected order, with standard errors, Υ per
band of complexity and the number of agents; a mind that hangs gets a clear entry."""

from __future__ import annotations

import asyncio
import re
import time
from pathlib import Path

import pytest
from portal_sites import HANG, Visitor, served

from wwm.portal.app import make_app
from wwm.portal.runs import RunService
from wwm.portal.store import PortalStore
from wwm.server.process import ServerProcess
from wwm.store import RunStore

pytestmark = pytest.mark.slow
MINDS = "wwm.lambdastar.minds"


@pytest.fixture(scope="module")
def minds():
    servers = {"random": ServerProcess(f"{MINDS}:RandomMind"), "local": ServerProcess(f"{MINDS}:LocalSearchMind"),
               "oracle": ServerProcess(f"{MINDS}:OracleMind"), "hang": ServerProcess(HANG)}
    for s in servers.values():
        s.start()
    try:
        yield {name: s.url for name, s in servers.items()}
    finally:
        for s in servers.values():
            s.stop()


async def test_the_portal_ranks_random_local_search_and_oracle_minds_with_standard_errors(minds, tmp_path: Path):
    db = f"sqlite:///{tmp_path / 'portal.db'}"
    store, run_store = PortalStore(db), RunStore(db)
    try:
        with served(make_app(store, check_every=0, runs=RunService(store=run_store))) as url:
            visitor = Visitor(url)
            try:
                status, html, where = await visitor.post("/challenges", "/challenges", {
                    "title": "Λ* open", "kind": "lambdastar", "steps": "24", "seeds": "0, 1", "timeout": "1",
                    "grid": "7", "iterations": "20", "profile": "paper", "oracle_hints": "on"})
                assert status == 200 and re.search(r"/challenge/\d+\?done=challenge-opened$", where), html
                page = where.removeprefix(url.rstrip("/")).split("?")[0]
                entered = {"random": minds["random"], "local": minds["local"], "oracle": minds["oracle"],
                           "local pair": f"{minds['local']}\n{minds['local']}", "hang": minds["hang"]}
                for text in entered.values():
                    status, html, _ = await visitor.post(page, page + "/entries", {"minds": text})
                    assert status == 200, html
                status, html, _ = await visitor.post(page, page + "/entries", {"minds": "not a url"})
                assert status == 400 and "not a URL" in html
                challenge = store.challenges()[0]
                deadline = time.monotonic() + 120
                while any(e.status in ("queued", "running") for e in store.entries(challenge.id)):
                    assert time.monotonic() < deadline, [e.status for e in store.entries(challenge.id)]
                    await asyncio.sleep(0.2)
                entries = store.entries(challenge.id)
                by = dict(zip(entered, entries, strict=True))
                for name in ("random", "local", "oracle", "local pair"):
                    e = by[name]
                    assert e.status == "scored", (name, e.status, e.detail)
                    assert e.error is not None and e.error > 0                 # a standard error
                    assert e.detail["episodes"] == 48 and e.detail["agents"] == len(e.minds)
                    assert e.detail["bands"] and sum(b["episodes"] for b in e.detail["bands"]) == 48
                    assert [v.seed for v in store.evaluations(e.id)] == [0, 1]
                assert by["oracle"].score > by["local"].score > by["random"].score
                assert abs(by["random"].score) < 0.15                          # random: about 0 (paper profile)
                assert by["hang"].status == "failed: timed out", by["hang"].detail
                # the page: ranks in that order, the failed entry marked below them
                status, html = await visitor.get(page)
                assert status == 200
                rows = re.findall(r'<tr id="entry-(\d+)" data-entry="\d+" data-status="([^"]*)">\s*'
                                  r'<td class="rank">([^<]*)</td>', html)
                ranked = [int(eid) for eid, _, rank in rows if rank != "–"]
                assert ranked[0] in (by["oracle"].id, by["local pair"].id)
                assert ranked.index(by["oracle"].id) < ranked.index(by["local"].id) < ranked.index(by["random"].id)
                assert rows[-1][0] == str(by["hang"].id) and rows[-1][2] == "–"
                assert "Υ by complexity K" in html and "did not answer" in html
            finally:
                await visitor.session.close()
    finally:
        run_store.close()
        store.close()
