"""A person starts a search from a combination's page: the portal runs ``wwm search
--from-combination`` on its own database, and the search's trials appear on its page, each a
combination derived from the one it started from. Only people with an account may start one."""

from __future__ import annotations

import asyncio
import re
import time
from pathlib import Path

import pytest
from portal_sites import Visitor, card_of, served

from wwm.portal.app import make_app
from wwm.portal.runs import RunService
from wwm.portal.store import PortalStore
from wwm.store import RunStore

pytestmark = pytest.mark.slow


async def test_a_person_searches_from_a_combination_and_sees_the_trials(signal_bed, tmp_path: Path):
    db = f"sqlite:///{tmp_path / 'portal.db'}"
    store, run_store = PortalStore(db), RunStore(db)
    store.add_server(signal_bed["world"], card_of(signal_bed["world"]))
    author = store.new_user().user
    doc = {"world": {"url": signal_bed["world"]},
           "mind": {"url": signal_bed["as"], "args": {"method": "random", "seed": 0, "minds": [
               {"url": signal_bed["ab"]}, {"url": signal_bed["cd"]}, {"url": signal_bed["s1"]}]}},
           "run": {"steps": 10}}
    start = store.save_combination(author_id=author.id, title="three minds at random", document=doc,
                                   world_url=signal_bed["world"]).id
    try:
        with served(make_app(store, check_every=0, runs=RunService(store=run_store))) as url:
            visitor = Visitor(url)
            try:
                page = f"/combination/{start}"
                _, html = await visitor.get(page)
                assert f'action="/combination/{start}/search"' in html
                status, html, _ = await visitor.post(page, page + "/search", {"trials": "6", "sampler": "random"})
                assert status == 403 and "takes an account" in html
                status, _, _ = await visitor.post("/signup", "/signup",
                                                  {"username": "ada", "password": "correct horse"})
                assert status == 200
                status, html, where = await visitor.post(page, page + "/search", {"trials": "6", "sampler": "random"})
                assert status == 200 and where.endswith("/searches"), html
                deadline = time.monotonic() + 120
                while not (store.searches() and len(store.search_trials(store.searches()[0].id)) == 6):
                    assert time.monotonic() < deadline, "the search did not record its six trials"
                    await asyncio.sleep(0.3)
                search = store.searches()[0]
                assert search.start_id == start and "ada" in search.study
                status, html = await visitor.get(f"/search/{search.id}")
                assert status == 200
                rows = re.findall(r'<tr data-trial="(\d+)" data-state="([a-z]+)">', html)
                assert [int(n) for n, _ in rows] == list(range(6))
                made = [t.combination_id for t in store.search_trials(search.id) if t.combination_id]
                assert made and all(store.combination(c).derived_from == start for c in made)
                assert f'href="/combination/{start}" class="started-from"' in html
                _, html = await visitor.get("/searches")
                assert f'href="/search/{search.id}"' in html
                _, html = await visitor.get(page)                  # the start's page lists what was derived
                assert all(f'href="/combination/{c}"' in html for c in made)
            finally:
                await visitor.session.close()
    finally:
        run_store.close()
        store.close()
