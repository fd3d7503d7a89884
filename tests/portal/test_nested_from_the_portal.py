"""Arguments three levels deep reach each server through the protocol when the run is started
from the portal, as they do from Python and from ``wwm run`` (tests/client/test_nested_society.py):
the same society, saved as a combination and started with the portal's Start run form, each
probe server writing down what its New run brought it."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

import pytest
from test_run_pages import Visitor, text_of

from wwm.portal.app import make_app
from wwm.portal.store import PortalStore

CLIENT_TESTS = Path(__file__).resolve().parents[1] / "client"
sys.path.insert(0, str(CLIENT_TESTS))
from portal_sites import served  # noqa: E402
from test_nested_society import Servers, assert_each_got_its_own, document  # noqa: E402

pytestmark = pytest.mark.slow


async def test_from_the_portal_each_server_receives_exactly_its_own_arguments_three_levels_deep(tmp_path):
    store = PortalStore(f"sqlite:///{tmp_path / 'portal.db'}")
    try:
        with Servers(tmp_path) as servers, served(make_app(store, check_every=0)) as base:
            author = store.new_user().user
            doc = document(servers.url)
            cid = store.save_combination(author_id=author.id, title=doc["name"], document=doc,
                                         world_url=servers.url["W"]).id
            visitor = Visitor(base.rstrip("/"))
            try:
                path = await visitor.start(cid, steps="6")
                for _ in range(300):                                   # 30 s at most
                    _, page, _ = await visitor.get(path)
                    if text_of(page, "run-status") != "running":
                        break
                    await asyncio.sleep(0.1)
                assert text_of(page, "run-status") == "completed", page
            finally:
                await visitor.close()
            assert_each_got_its_own(servers)
    finally:
        store.close()
