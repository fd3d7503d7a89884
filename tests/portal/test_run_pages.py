"""The portal's run pages over real HTTP (uvicorn on loopback) with real ``wwm serve`` servers:
start a combination's run from the form, watch it from two visitors (server-sent events), a
third party with no End control and refused with a guessed link, the secret URL ending it once
from a third visitor, the finished run's whole record a page at a time; a mind server down
between saving and running; bad forms refused with nothing stored; and ``wwm portal`` killed
stopped mid-run (SIGTERM: the run is suspended; SIGKILL) and started again: nothing lost, the
run resumed from the step after its last, or "interrupted at step k" when a server forgot it."""

from __future__ import annotations

import asyncio
import html
import re
import signal
import socket
import time
import urllib.parse
import urllib.request
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import aiohttp
import pytest
from portal_sites import csrf_of, run_status, served, sse_messages, start_portal, world_step
from sqlalchemy import func, select
from sqlalchemy.orm import Session

from wwm.portal.app import make_app
from wwm.portal.models import PortalRun, RunSecret
from wwm.portal.store import PortalStore
from wwm.server.process import ServerProcess
from wwm.store import RunStore

pytestmark = pytest.mark.slow


@pytest.fixture
def db(tmp_path: Path) -> str:
    return f"sqlite:///{tmp_path / 'portal.db'}"


@pytest.fixture
def store(db: str) -> Iterator[PortalStore]:
    store = PortalStore(db)
    yield store
    store.close()


@pytest.fixture
def portal(store: PortalStore) -> Iterator[str]:
    with served(make_app(store, check_every=0)) as url:
        yield url.rstrip("/")


class Visitor:
    """One browser: its own cookie jar (loopback cookies kept), no redirect followed unless asked."""

    def __init__(self, base: str) -> None:
        self.base = base
        self.session = aiohttp.ClientSession(cookie_jar=aiohttp.CookieJar(unsafe=True))

    async def get(self, path: str, *, follow: bool = True) -> tuple[int, str, Any]:
        async with self.session.get(self.base + path, allow_redirects=follow) as reply:
            return reply.status, await reply.text(), reply

    async def csrf(self) -> str:
        _, page, _ = await self.get("/me")
        return csrf_of(page)

    async def post(self, path: str, data: dict[str, str] | None = None, *, csrf: bool = True,
                   follow: bool = False) -> tuple[int, str, Any]:
        data = dict(data or {})
        if csrf:
            data["csrf"] = await self.csrf()
        async with self.session.post(self.base + path, data=data, allow_redirects=follow) as reply:
            return reply.status, await reply.text(), reply

    async def start(self, cid: int, **form: str) -> str:
        """Start a run of combination ``cid``; the run page's path."""
        status, _, reply = await self.post(f"/combination/{cid}/runs", form)
        assert status == 303, (status, _)
        return str(reply.headers["location"])

    async def close(self) -> None:
        await self.session.close()


@pytest.fixture
async def visitors(portal: str) -> AsyncIterator[list[Visitor]]:
    made = [Visitor(portal) for _ in range(3)]
    yield made
    for v in made:
        await v.close()


class Follower:
    """A viewer of a run's live events, as a browser's EventSource: every message, as it comes."""

    def __init__(self, visitor: Visitor, path: str) -> None:
        self.messages: list[tuple[str, dict[str, Any]]] = []
        self.task = asyncio.create_task(self._follow(visitor, path))

    async def _follow(self, visitor: Visitor, path: str) -> None:
        async with visitor.session.get(visitor.base + path) as reply:
            assert reply.status == 200 and reply.headers["content-type"].startswith("text/event-stream")
            async for event, message in sse_messages(reply):
                self.messages.append((event, message))
                if event == "end":
                    return

    def last_step(self) -> int:
        steps = [m["step"] for k, m in self.messages if k == "step"]
        record = [m for k, m in self.messages if k == "record"]
        if record and record[0]["steps"]:
            steps.insert(0, record[0]["steps"][-1]["step"])
        return max(steps, default=-1)


async def until(condition: Any, timeout: float = 30.0, what: str = "the condition") -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        await asyncio.sleep(0.02)


def combination(store: PortalStore, world: str, mind: str, title: str = "Seeking food") -> tuple[int, int]:
    author = store.new_user().user
    saved = store.save_combination(author_id=author.id, title=title, world_url=world, document={
        "name": title, "world": {"url": world, "args": {"size": 8}}, "mind": {"url": mind},
        "run": {"timeout": 2.0}})
    return author.id, saved.id


def text_of(page: str, element_id: str) -> str:
    found = re.search(rf'id="{element_id}"[^>]*>(.*?)</', page, re.S)
    assert found, f"no #{element_id} on the page"
    return html.unescape(found.group(1))


def count(store: PortalStore, model: type) -> int:
    with Session(store.engine) as s:
        return int(s.scalar(select(func.count()).select_from(model)) or 0)


async def test_start_watch_from_two_visitors_end_by_the_secret_url_once(store, portal, visitors, wwm_servers):
    starter, third, holder = visitors
    _, cid = combination(store, wwm_servers["world"].url, wwm_servers["seeker"].url)
    path = await starter.start(cid, steps="until ended")
    assert re.fullmatch(rf"/user/\d+/combination/{cid}/run/\d+", path), path
    rid = int(path.rsplit("/", 1)[1])

    status, page, _ = await starter.get(path)
    assert status == 200 and 'id="live"' in page and "End run</button>" in page
    end_url = html.unescape(re.search(r'id="end-url" readonly value="([^"]+)"', page).group(1))  # type: ignore[union-attr]
    assert re.fullmatch(rf"http://127\.0\.0\.1:\d+/run/{rid}/end/[\w-]{{40,}}", end_url), end_url
    secret = end_url.rsplit("/", 1)[1]
    _, again, _ = await starter.get(path)
    assert 'id="end-url"' not in again and "End run</button>" in again      # shown once; the button stays
    _, theirs, _ = await third.get(path)
    assert "End run</button>" not in theirs and secret not in theirs and 'id="end-url"' not in theirs
    with Session(store.engine) as s:
        stored = s.get(RunSecret, store.run(rid).run_store_id)
        assert stored is not None and secret not in repr(stored.__dict__) and len(stored.secret_sha256) == 64

    watchers = [Follower(starter, f"/run/{rid}/live"), Follower(third, f"/run/{rid}/live")]
    await until(lambda: all(w.last_step() >= 120 for w in watchers), what="both viewers at step 120")
    seen = [w.last_step() for w in watchers]
    await until(lambda: all(w.last_step() > s + 5 for w, s in zip(watchers, seen, strict=True)),
                what="the step counters to advance in both")

    guessed = secret[:-4] + ("aaaa" if not secret.endswith("aaaa") else "bbbb")
    status, page, _ = await third.get(f"/run/{rid}/end/{guessed}")
    assert status == 403 and "cannot end run" in page and "only the person who started it" in page
    assert (await third.post(f"/run/{rid}/end/{guessed}"))[0] == 403
    assert (await third.post(f"/run/{rid}/end"))[0] == 403                    # no cookie, no secret
    assert (await third.post(f"/run/{rid}/end/{secret}", csrf=False))[0] == 403  # a form from elsewhere
    assert run_status(store, rid) == "running"

    status, page, _ = await holder.get(f"/run/{rid}/end/{secret}")          # a third browser, the bookmark
    assert status == 200 and "End the run</button>" in page
    status, page, _ = await holder.post(f"/run/{rid}/end/{secret}")
    assert status == 200 and "is ended" in page and "ended by its owner" in page, page
    for w in watchers:
        await asyncio.wait_for(w.task, 30)
        assert [m["status"] for k, m in w.messages if k == "end"] == ["ended by its owner"]
    status, page, _ = await holder.get(f"/run/{rid}/end/{secret}")          # reused
    assert status == 410 and "already ended" in page
    assert (await holder.post(f"/run/{rid}/end/{secret}"))[0] == 410
    assert (await starter.post(f"/run/{rid}/end"))[0] == 410                 # the button's cookie too

    assert run_status(store, rid) == "ended by its owner"
    status, page, _ = await third.get(path)                                  # the whole record, by pages
    assert "End run</button>" not in page and text_of(page, "run-status") == "ended by its owner"
    rows = re.findall(r"<tr><td>(\d+)</td>", page)
    assert rows == [str(i) for i in range(100)] and "Page 1 of" in page
    _, second, _ = await third.get(path + "?page=2")
    assert re.findall(r"<tr><td>(\d+)</td>", second)[0] == "100"
    assert "The world's display of this run" in page or "display of this run" in page
    assert html.escape(wwm_servers["seeker"].url) in page


async def test_a_fixed_number_of_steps_and_the_world_display_link(store, portal, visitors, wwm_servers):
    starter = visitors[0]
    _, cid = combination(store, wwm_servers["world"].url, wwm_servers["random"].url)
    path = await starter.start(cid, steps="30")
    rid = int(path.rsplit("/", 1)[1])
    follower = Follower(visitors[1], f"/run/{rid}/live")
    await asyncio.wait_for(follower.task, 30)
    assert [m for k, m in follower.messages if k == "end"][0]["steps"] == 30
    await until(lambda: run_status(store, rid) == "completed", what="the portal run's status")
    status, page, _ = await starter.get(path)
    assert status == 200 and text_of(page, "run-status") == "completed" and "End run</button>" not in page
    assert len(re.findall(r"<tr><td>(\d+)</td>", page)) == 30 and "Page 1 of" not in page
    display = re.search(r"The world's display of this run: <a href=\"([^\"]+)\"", page)
    assert display and display.group(1).startswith(wwm_servers["world"].url.rstrip("/"))


async def test_a_mind_server_down_between_saving_and_running_could_not_start(store, portal, visitors, wwm_servers):
    with ServerProcess("wwm.kit.random_mind:RandomMind") as doomed:
        _, cid = combination(store, wwm_servers["world"].url, doomed.url, title="doomed")
    path = await visitors[0].start(cid)                                      # the server is gone now
    rid = int(path.rsplit("/", 1)[1])
    await until(lambda: run_status(store, rid) != "running" and run_status(store, rid) != "starting",
                what="the run's end")
    status, page, _ = await visitors[0].get(path)
    assert status == 200 and text_of(page, "run-status") == "could not start"
    assert text_of(page, "run-reason"), "it says why"
    assert "End run</button>" not in page and "No step was recorded" in page
    run = store.run(rid)
    assert run_status(store, rid) == "could not start" and run.run_store_id is not None
    with RunStore(store.url.render_as_string(hide_password=False)) as runs:
        record = runs.get_run(run.run_store_id)
        assert record.status == "could not start" and record.steps == []


async def test_bad_forms_are_refused_and_nothing_is_stored(store, portal, visitors, wwm_servers):
    _, cid = combination(store, wwm_servers["world"].url, wwm_servers["seeker"].url)
    v = visitors[0]
    for steps in ("0", "-3", "many", "1" * 30):
        status, page, _ = await v.post(f"/combination/{cid}/runs", {"steps": steps})
        assert status == 400 and "steps must be a whole number" in html.unescape(page)
    status, page, _ = await v.post(f"/combination/{cid}/runs", {"steps": "5"}, csrf=False)
    assert status == 403 and "security token" in page
    status, page, _ = await v.post("/combination/999/runs", {"steps": "5"})
    assert status == 404
    bad = store.save_combination(author_id=store.new_user().user.id, title="no mind", world_url="http://w.test/",
                                 document={"world": {"url": "http://w.test/"}})
    status, page, _ = await v.post(f"/combination/{bad.id}/runs", {"steps": "5"})
    assert status == 400 and "not started" in page
    assert count(store, PortalRun) == 0 and count(store, RunSecret) == 0
    assert (await v.get("/run/999"))[0] == 404
    assert (await v.get("/run/999/end/whatever"))[0] == 404


# ---- kill -9 of the portal process ---------------------------------------------------------------
def record_of(db: str, store: PortalStore, rid: int) -> Any:
    with RunStore(db) as runs:
        return runs.get_run(store.run(rid).run_store_id)


def steps_of_run(db: str, store: PortalStore, rid: int) -> int:
    with RunStore(db) as runs:
        return runs.get_run(store.run(rid).run_store_id, max_steps=0).step_count



async def start_until_ended(v: Visitor, cid: int) -> tuple[str, int, str]:
    """A run of ``cid`` until ended; its page's path, its portal ID and its end secret."""
    path = await v.start(cid, steps="until ended")
    _, page, _ = await v.get(path)
    secret = re.search(r'id="end-url" readonly value="[^"]+/end/([^"]+)"', page).group(1)  # type: ignore[union-attr]
    return path, int(path.rsplit("/", 1)[1]), secret


async def end_by_secret_url(base: str, rid: int, secret: str) -> None:
    """A third browser (the bookmark): the secret URL ends the run."""
    holder = Visitor(base)
    try:
        status, page, _ = await holder.get(f"/run/{rid}/end/{secret}")
        assert status == 200 and "End the run</button>" in page, page
        status, page, _ = await holder.post(f"/run/{rid}/end/{secret}")
        assert status == 200 and "ended by its owner" in page, page
    finally:
        await holder.close()


async def test_a_portal_stopped_with_sigterm_suspends_its_run_and_resumes_it_when_started_again(db, wwm_servers):
    store = PortalStore(db)
    try:
        _, cid = combination(store, wwm_servers["world"].url, wwm_servers["seeker"].url)
        child, base = start_portal(db)
        v = Visitor(base)
        try:
            path, rid, secret = await start_until_ended(v, cid)
            await until(lambda: steps_of_run(db, store, rid) >= 100, what="100 recorded steps")
            watcher = Follower(v, f"/run/{rid}/live")
            await until(lambda: watcher.last_step() >= 100, what="the viewer at step 100")
            child.send_signal(signal.SIGTERM)                              # a graceful stop
            await asyncio.to_thread(child.wait, 30)
            assert child.returncode == 0
            # (uvicorn closes the streams as it stops; a browser's EventSource reconnects)
            await asyncio.wait([watcher.task], timeout=10)
        finally:
            await v.close()
        record = record_of(db, store, rid)
        k = record.step_count - 1
        assert record.status == f"suspended at step {k}" and record.events[-1].kind == "suspended"
        assert run_status(store, rid) == f"suspended at step {k}", "the portal run is not over"

        t0 = time.monotonic()
        child, base = start_portal(db)                                     # the portal again
        try:
            await until(lambda: steps_of_run(db, store, rid) > k + 1, what="a resumed step")
            print(f"\nportal restarted (SIGTERM): {time.monotonic() - t0:.2f} s from starting the process to "
                  "its first resumed step recorded", end="")
            v = Visitor(base)
            try:
                status, page, _ = await v.get(path)
                assert status == 200 and text_of(page, "run-status") == "running" and 'id="live"' in page
                follower = Follower(v, f"/run/{rid}/live")
                await until(lambda: follower.last_step() > k + 50, what="the run advancing on the page's stream")
                # (on a loaded machine the record sent at connection may already hold those steps)
                await until(lambda: any(kind == "step" for kind, _ in follower.messages),
                            what="steps pushed by the new process")
                await end_by_secret_url(base, rid, secret)
                await asyncio.wait_for(follower.task, 30)
                assert [m["status"] for kind, m in follower.messages if kind == "end"] == ["ended by its owner"]
                await until(lambda: run_status(store, rid) == "ended by its owner", what="the portal run's end")
                status, page, _ = await v.get(path)
                assert text_of(page, "run-status") == "ended by its owner"
            finally:
                await v.close()
            record = record_of(db, store, rid)
            assert [s.index for s in record.steps] == list(range(record.step_count)) and record.step_count > k + 50
            assert all(world_step(s.new_state) == s.index + 1 for s in record.steps), "the world's counter, no gap"
            kinds = [e.kind for e in record.events]
            assert "resumed" in kinds and "step-maybe-lost" not in kinds
        finally:
            child.send_signal(signal.SIGTERM)
            child.wait(20)
    finally:
        store.close()


async def test_wwm_portal_end_runs_on_exit_ends_them_at_sigterm_and_nothing_is_resumed(db, wwm_servers):
    store = PortalStore(db)
    try:
        _, cid = combination(store, wwm_servers["world"].url, wwm_servers["seeker"].url)
        child, base = start_portal(db, "--end-runs-on-exit")
        v = Visitor(base)
        try:
            path, rid, _ = await start_until_ended(v, cid)
            await until(lambda: steps_of_run(db, store, rid) >= 30, what="30 recorded steps")
        finally:
            await v.close()
            child.send_signal(signal.SIGTERM)
            await asyncio.to_thread(child.wait, 30)
        record = record_of(db, store, rid)
        assert record.status == f"interrupted at step {record.step_count - 1}"
        assert record.world_score is not None, "End run went to the world"
        child, base = start_portal(db)
        try:
            v = Visitor(base)
            try:
                status, page, _ = await v.get(path)
                assert text_of(page, "run-status") == record.status
                assert steps_of_run(db, store, rid) == record.step_count
            finally:
                await v.close()
        finally:
            child.send_signal(signal.SIGTERM)
            child.wait(20)
    finally:
        store.close()


async def test_a_portal_killed_mid_run_keeps_everything_and_the_run_is_resumed(db, wwm_servers):
    store = PortalStore(db)
    try:
        uid, cid = combination(store, wwm_servers["world"].url, wwm_servers["seeker"].url)
        child, base = start_portal(db)
        try:
            v = Visitor(base)
            try:
                done = await v.start(cid, steps="5")                     # a finished run
                done_id = int(done.rsplit("/", 1)[1])
                await until(lambda: run_status(store, done_id) == "completed", what="the short run")
                path, rid, secret = await start_until_ended(v, cid)
                await until(lambda: steps_of_run(db, store, rid) >= 50, what="50 recorded steps")
            finally:
                await v.close()
        finally:
            child.send_signal(signal.SIGKILL)
            child.wait(10)
        assert run_status(store, rid) == "interrupted"                   # its writer is gone
        k = steps_of_run(db, store, rid) - 1
        child, base = start_portal(db)                                  # the portal again
        try:
            v = Visitor(base)
            try:
                status, page, _ = await v.get(path)
                assert status == 200 and text_of(page, "run-status") == "running"
                await until(lambda: steps_of_run(db, store, rid) > k + 50, what="the resumed run advancing")
                record = record_of(db, store, rid)
                assert [s.index for s in record.steps] == list(range(record.step_count))
                lost = [e for e in record.events if e.kind == "step-maybe-lost"]
                assert len(lost) == 1 and lost[0].text.startswith(f"step {k + 1} may have been executed but not "
                                                                  "recorded"), record.events
                await end_by_secret_url(base, rid, secret)
                await until(lambda: run_status(store, rid) == "ended by its owner", what="the portal run's end")
                assert store.user(uid) and store.combination(cid).title == "Seeking food"
                assert run_status(store, done_id) == "completed"
                status, page, _ = await v.get(done)
                assert text_of(page, "run-status") == "completed" and len(re.findall(r"<tr><td>", page)) == 5
            finally:
                await v.close()
        finally:
            child.send_signal(signal.SIGTERM)
            child.wait(10)
    finally:
        store.close()


async def test_a_portal_killed_while_a_server_forgets_the_run_shows_it_interrupted_at_step_k_with_why(db, wwm_servers):
    store = PortalStore(db)
    forgetful = ServerProcess("wwm.kit.grid:GridWorld").start()
    try:
        _, cid = combination(store, forgetful.url, wwm_servers["seeker"].url)
        child, base = start_portal(db)
        try:
            v = Visitor(base)
            try:
                path, rid, secret = await start_until_ended(v, cid)
                await until(lambda: steps_of_run(db, store, rid) >= 50, what="50 recorded steps")
            finally:
                await v.close()
        finally:
            child.send_signal(signal.SIGKILL)
            child.wait(10)
        forgetful.restart()                                             # the world server forgot the run
        k = steps_of_run(db, store, rid) - 1
        child, base = start_portal(db)
        try:
            v = Visitor(base)
            try:
                await until(lambda: run_status(store, rid) != "running", what="the run marked")
                status, page, _ = await v.get(path)
                assert status == 200 and text_of(page, "run-status") == f"interrupted at step {k}"
                assert text_of(page, "run-reason").startswith("the run could not be resumed: the world server no "
                                                              "longer has the run")
                rows = re.findall(r"<tr><td>(\d+)</td>", page)
                assert rows == [str(i) for i in range(min(k + 1, 100))]  # steps 0..k, the first page
                assert [s.index for s in record_of(db, store, rid).steps] == list(range(k + 1))
                status, page, _ = await v.get(f"/run/{rid}/end/{secret}")  # the secret is known; nothing to end
                assert status == 410 and "already finished" in page
            finally:
                await v.close()
        finally:
            child.send_signal(signal.SIGTERM)
            child.wait(10)
    finally:
        forgetful.stop()
        store.close()


async def test_wwm_portal_demo_starts_registers_and_saves_the_demo_ready_to_run(db):
    child, base = start_portal(db, "--demo")
    try:
        printed = "".join(child.printed)  # type: ignore[attr-defined]
        assert printed.count("demo combination") == 3, printed
        store = PortalStore(db)
        try:
            servers = store.servers()
            assert sorted(s.role for s in servers) == ["mind"] * 4 + ["world"]
            assert all(s.up for s in servers)
            mind_m = [c for c in (store.combination(i) for i in (1, 2, 3)) if "Mind_M" in c.title]
            assert len(mind_m) == 1 and len(mind_m[0].document["mind"]["args"]["minds"]) == 2
            v = Visitor(base)
            try:
                path = await v.start(mind_m[0].id, steps="20")
                rid = int(path.rsplit("/", 1)[1])
                await until(lambda: run_status(store, rid) not in ("starting", "running"), what="the demo run")
                assert run_status(store, rid) == "completed"
                status, page, _ = await v.get(path)
                assert status == 200 and len(re.findall(r"<tr><td>", page)) == 20
            finally:
                await v.close()
        finally:
            store.close()
        urls = [s.url for s in servers]
    finally:
        child.send_signal(signal.SIGTERM)
        child.wait(20)
    for url in urls:                                   # the demo's servers stop with the portal
        with pytest.raises(OSError):
            urllib.request.urlopen(url, timeout=2)

    # Started again on the same database, the demo comes back on the same ports: its servers
    # and combinations (links, runs) stay good, and nothing is registered or saved twice ...
    child, base = start_portal(db, "--demo")
    try:
        assert "".join(child.printed).count("demo combination") == 3  # type: ignore[attr-defined]
        assert re.findall(r"demo combination (\d+)", "".join(child.printed)) == ["1", "2", "3"]  # type: ignore[attr-defined]
        store = PortalStore(db)
        try:
            assert sorted(s.url for s in store.servers()) == sorted(urls)
            assert len(store.recent_combinations()) == 3
            v = Visitor(base)
            try:
                path = await v.start(mind_m[0].id, steps="5")   # the first start's combination runs
                rid = int(path.rsplit("/", 1)[1])
                await until(lambda: run_status(store, rid) not in ("starting", "running"), what="a run, restarted")
                assert run_status(store, rid) == "completed"
            finally:
                await v.close()
        finally:
            store.close()
    finally:
        child.send_signal(signal.SIGTERM)
        child.wait(20)

    # ... and a port something else took meanwhile moves its server: its societies are saved anew
    taken = urllib.parse.urlsplit(mind_m[0].document["world"]["url"]).port
    with socket.socket() as squatter:
        squatter.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # (the last demo's connections linger)
        squatter.bind(("127.0.0.1", taken))
        squatter.listen()
        child, base = start_portal(db, "--demo")
        try:
            assert re.findall(r"demo combination (\d+)", "".join(child.printed)) == ["4", "5", "6"]  # type: ignore[attr-defined]
            store = PortalStore(db)
            try:
                moved = [s for s in store.servers() if s.url not in urls]
                assert len(moved) == 1 and moved[0].role == "world" and moved[0].up is not False
                assert all(store.combination(i).world_url == moved[0].url for i in (4, 5, 6))
            finally:
                store.close()
        finally:
            child.send_signal(signal.SIGTERM)
            child.wait(20)
