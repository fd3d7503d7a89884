"""What the portal's figures under load (benchmarks/portal.py) rest on, each checked on a real
server on loopback: the static files come from memory with their validators, a combination's
page reads its data in one trip to a worker thread, and the live fan-out encodes a step once
for all of a run's viewers and sends a viewer what it has queued in one write."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from importlib import resources
from pathlib import Path
from typing import Any

import aiohttp
import pytest
from portal_sites import served

from wwm.portal import app as portal_app
from wwm.portal import live
from wwm.portal.app import PackageFiles, make_app
from wwm.portal.live import LiveHub, Subscription
from wwm.portal.store import PortalStore


@pytest.fixture
def store(tmp_path: Path) -> Iterator[PortalStore]:
    made = PortalStore(f"sqlite:///{tmp_path / 'portal.db'}")
    yield made
    made.close()


async def test_static_files_are_answered_from_memory_with_their_validators(store, monkeypatch):
    looked_up: list[str] = []
    lookup = PackageFiles.lookup_path

    def counted(self: PackageFiles, path: str) -> Any:
        looked_up.append(path)
        return lookup(self, path)

    monkeypatch.setattr(PackageFiles, "lookup_path", counted)
    on_disk = (resources.files("wwm.portal") / "static" / "run.js").read_bytes()
    with served(make_app(store, check_every=0)) as base:
        async with aiohttp.ClientSession() as session:
            answers = []
            for _ in range(3):
                async with session.get(base + "static/run.js") as reply:
                    answers.append((reply.status, await reply.read(), reply.headers.copy()))
            assert [(status, body) for status, body, _ in answers] == [(200, on_disk)] * 3
            assert looked_up == ["run.js"]          # the file once; then from memory
            headers = answers[-1][2]
            assert headers["Content-Type"].startswith("text/javascript")
            assert headers["Content-Length"] == str(len(on_disk)) and "Accept-Ranges" not in headers
            assert headers["ETag"] == answers[0][2]["ETag"] and "Last-Modified" in headers
            assert "Content-Security-Policy" in headers      # the portal's headers as on every answer
            async with session.get(base + "static/run.js", headers={"If-None-Match": headers["ETag"]}) as reply:
                assert reply.status == 304 and await reply.read() == b""
            async with session.head(base + "static/run.js") as reply:
                assert reply.status == 200 and reply.headers["Content-Length"] == str(len(on_disk))
            for missing in ("static/nothing.js", "static/../app.py"):
                async with session.get(base + missing) as reply:
                    assert reply.status == 404, missing


async def test_a_combination_page_reads_in_one_trip_to_a_worker_thread(store, monkeypatch):
    author = store.new_user().user
    saved = store.save_combination(author_id=author.id, title="one trip", world_url="http://127.0.0.1:1/",
                                   explanation="*why*", document={"world": {"url": "http://127.0.0.1:1/"},
                                                                  "mind": {"url": "http://127.0.0.1:2/"}})
    trips: list[str] = []
    db = portal_app.Portal.db

    async def counted(self: Any, fn: Any, *args: Any, **kwargs: Any) -> Any:
        trips.append(getattr(fn, "__name__", repr(fn)))
        return await db(self, fn, *args, **kwargs)

    monkeypatch.setattr(portal_app.Portal, "db", counted)
    with served(make_app(store, check_every=0)) as base:
        async with aiohttp.ClientSession() as session, session.get(f"{base}combination/{saved.id}") as reply:
            page = await reply.text()
    assert reply.status == 200 and "one trip" in page and "<em>why</em>" in page
    assert trips == ["combination", "_read"]   # the combination (it may be YAML), then the rest


async def test_a_step_is_encoded_once_for_every_viewer_and_queued_steps_go_in_one_write(monkeypatch):
    encoded: list[Any] = []
    dumps = live.json.dumps

    def counted(value: Any, **kwargs: Any) -> str:
        encoded.append(value)
        return dumps(value, **kwargs)

    monkeypatch.setattr(live.json, "dumps", counted)
    hub = LiveHub(flush_every=0.05)
    hub.open(1)
    subs = [hub.subscribe(1) for _ in range(3)]
    assert all(isinstance(s, Subscription) for s in subs)
    for i in range(5):
        hub.publish_step(1, {"step": i, "at": 0.0})
    await asyncio.sleep(0.1)                          # one wake-up for the five steps
    frames = []
    for sub in subs:
        assert sub is not None
        batch = await sub.batch()
        assert batch == [("step", {"step": i, "at": 0.0}) for i in range(5)]
        frames.append("".join(live._frame(kind, message, n) for n, (kind, message) in enumerate(batch)))
    assert len(encoded) == 5                          # once a step, not once a step and viewer
    assert frames[0] == frames[1] == frames[2]
    assert frames[0].startswith('id: 0\r\nevent: step\r\ndata: {"step": 0, "at": 0.0}\r\n\r\nid: 1\r\n')
    hub.finish(1, {"status": "completed"})
    assert [await s.batch() for s in subs if s is not None] == [[("end", {"status": "completed"})]] * 3
    assert [await s.batch() for s in subs if s is not None] == [[]] * 3


async def test_a_slow_run_is_sent_each_step_at_once():
    hub = LiveHub(flush_every=0.5)
    hub.open(1)
    sub = hub.subscribe(1)
    assert sub is not None
    hub.publish_step(1, {"step": 0})
    assert await asyncio.wait_for(sub.batch(), 0.1) == [("step", {"step": 0})]   # no wait for the first
    waiting = asyncio.create_task(sub.batch())
    await asyncio.sleep(0)
    hub.publish_step(1, {"step": 1})                 # within flush_every of the last wake-up: waits
    await asyncio.sleep(0.2)
    assert not waiting.done()
    assert await asyncio.wait_for(waiting, 1.0) == [("step", {"step": 1})]
