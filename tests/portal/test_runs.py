"""The portal's run service over real servers on loopback and real HTTP: a society's run in
the portal's process, recorded in the run store; viewers following it by server-sent events
(aiohttp clients in their own threads, as separate browsers would be); its end by the owner's
secret, also after a restart; a portal killed mid-run; a mind server that dies mid-run.

Run as a script (``python test_runs.py DB WORLD MIND``) it is the portal process the kill
test starts and kills."""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import os
import secrets
import signal
import socket
import statistics
import subprocess
import sys
import threading
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import aiohttp
import pytest
import uvicorn
from portal_sites import GRID, SEEKER, sse_messages, world_step
from starlette.applications import Starlette

from wwm.client.remote import RemoteWorld
from wwm.portal.live import Subscription
from wwm.portal.runs import EndRefused, RunService
from wwm.server.process import ServerProcess, free_port
from wwm.store import RunStore

SRC = Path(__file__).resolve().parents[2] / "src"


@pytest.fixture
def db(tmp_path: Path) -> str:
    return f"sqlite:///{tmp_path / 'portal.db'}"


def society(world: Any, mind: Any, **run: Any) -> dict[str, Any]:
    return {"name": "food seeker in the grid", "world": {"url": world.url, "args": {"size": 8}},
            "mind": {"url": mind.url}, "run": {"timeout": 2.0, **run}}


@contextlib.asynccontextmanager
async def serving(service: RunService) -> AsyncIterator[str]:
    """The service's routes on a real uvicorn server in this event loop (the portal process)."""
    port = free_port()
    server = uvicorn.Server(uvicorn.Config(Starlette(routes=service.routes()), host="127.0.0.1", port=port,
                                           log_level="warning", lifespan="off", timeout_graceful_shutdown=1))
    task = asyncio.create_task(server.serve())
    while not server.started:
        await asyncio.sleep(0.01)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        await task


class Viewer:
    """A browser following ``url`` by SSE, in a thread with its own event loop: every message
    with the time it arrived. ``stall`` seconds without reading after connecting."""

    def __init__(self, url: str, stall: float = 0.0) -> None:
        self.url, self.stall = url, stall
        self.messages: list[tuple[str, dict[str, Any], float]] = []
        self.connected = threading.Event()
        self.status: int | None = None
        self.error: BaseException | None = None
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self) -> None:
        try:
            asyncio.run(self._follow())
        except BaseException as exc:  # noqa: BLE001 - reported by the test
            self.error = exc
        finally:
            self.connected.set()

    async def _follow(self) -> None:
        async with aiohttp.ClientSession() as session, session.get(self.url) as reply:
            self.status = reply.status
            self.connected.set()
            if reply.status != 200:
                self.messages.append(("http", {"text": await reply.text()}, time.time()))
                return
            if self.stall:
                await asyncio.sleep(self.stall)
            async for event, message in sse_messages(reply):
                self.messages.append((event, message, time.time()))
                if event == "end":
                    return

    async def done(self, timeout: float = 60.0) -> Viewer:
        await asyncio.to_thread(self.thread.join, timeout)
        assert not self.thread.is_alive(), "the viewer did not get the end of the run"
        assert self.error is None, self.error
        return self

    def of(self, kind: str) -> list[dict[str, Any]]:
        return [m for k, m, _ in self.messages if k == kind]

    def every_step(self) -> list[int]:
        """The step indices this viewer saw: the record's, then the pushed ones."""
        record = self.of("record")[0]
        return [s["step"] for s in record["steps"]] + [m["step"] for m in self.of("step")]


async def until(condition: Any, timeout: float = 30.0, what: str = "the condition") -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        await asyncio.sleep(0.005)


def steps_so_far(service: RunService, run_id: int) -> int:
    running = service._runs.get(run_id)
    return running.recorder.steps if running else 10**9


def check_record(store: RunStore, run_id: int, status: str) -> Any:
    run = store.get_run(run_id)
    assert run.status == status, (run.status, run.events)
    assert [s.index for s in run.steps] == list(range(run.step_count)), "steps 0..k, none missing"
    return run


# ---- a run, recorded and watched -------------------------------------------------------------
@pytest.mark.slow
async def test_a_run_is_recorded_and_viewers_who_join_at_different_moments_see_every_step(world, mind, db):
    n = 3000
    async with RunService(db) as service, serving(service) as base:
        started = await service.start(society(world, mind), steps=n, owner="anonymous:1")
        url = f"{base}/live/{started.run_id}"
        await until(lambda: steps_so_far(service, started.run_id) >= 200, what="200 steps")
        first = Viewer(url)
        await until(lambda: steps_so_far(service, started.run_id) >= 1500, what="1500 steps")
        second = Viewer(url)
        assert await service.wait(started.run_id) == "completed"
        await first.done()
        await second.done()

        run = check_record(service.store, started.run_id, "completed")
        assert run.step_count == n and run.world_score is not None
        assert run.settings["steps"] == n and run.society["name"] == "food seeker in the grid"
        delays = []
        for viewer in (first, second):
            record = viewer.of("record")[0]
            assert record["run"]["status"] == "running" and record["first_step"] == 0
            assert len(record["steps"]) > 0, "joined mid-run: the earlier steps come from the record"
            assert viewer.of("step"), "and the later ones are pushed"
            assert viewer.every_step() == list(range(n)), "every step once, in order"
            assert not viewer.of("gap")
            end = viewer.of("end")[0]
            assert end == {"status": "completed", "steps": n, "total_score": run.total_score,
                           "world_score": run.world_score, "mind_score": run.mind_score,
                           "says": f"Finished: {n:,} steps, score {run.total_score:g}"}
            last = viewer.of("step")[-1]
            assert last["total"] == pytest.approx(run.total_score)
            delays += [(arrived - m["at"]) * 1000 for k, m, arrived in viewer.messages if k == "step"]
        assert len(record["steps"]) > len(first.of("record")[0]["steps"])  # the second joined later
        delays.sort()
        print(f"\nstep-to-viewer delay over {len(delays)} pushed steps, 2 viewers: "
              f"p50 {statistics.median(delays):.2f} ms, p99 {delays[int(len(delays) * 0.99)]:.2f} ms, "
              f"max {delays[-1]:.2f} ms")


@pytest.mark.slow
async def test_a_finished_run_shows_its_record_and_end_and_an_unknown_one_is_404(world, mind, db):
    async with RunService(db) as service, serving(service) as base:
        started = await service.start(society(world, mind), steps=20, owner="u")
        await service.wait(started.run_id)
        viewer = await Viewer(f"{base}/live/{started.run_id}").done()
        assert [k for k, _, _ in viewer.messages] == ["record", "end"]
        assert [s["step"] for s in viewer.of("record")[0]["steps"]] == list(range(20))
        assert viewer.of("end")[0]["status"] == "completed"
        missing = await Viewer(f"{base}/live/999").done()
        assert missing.status == 404 and missing.of("http")[0]["text"] == "there is no run 999"


@pytest.mark.slow
async def test_a_viewer_that_stops_reading_does_not_hold_up_the_run(world, mind, db):
    async with RunService(db) as service, serving(service) as base:
        alone = await service.start(society(world, mind), steps=2000, owner="u")
        t0 = time.monotonic()
        await service.wait(alone.run_id)
        print(f"\nno viewer: {(time.monotonic() - t0) / 2:.2f} ms a step", end="")
        started = await service.start(society(world, mind), steps=12000, owner="u")
        # a browser tab left in the background: connected, reading nothing, a small buffer
        stalled = socket.socket()
        stalled.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 2048)
        stalled.connect(("127.0.0.1", int(base.rsplit(":", 1)[1])))
        stalled.sendall(f"GET /live/{started.run_id} HTTP/1.1\r\nHost: x\r\n\r\n".encode())
        await until(lambda: service.hub.viewers(started.run_id) == 1, what="the viewer")
        t0 = time.monotonic()
        (sub,) = service.hub._channels[started.run_id].subscribers
        assert await service.wait(started.run_id) == "completed"
        print(f"; with a viewer that never reads: {(time.monotonic() - t0) / 12:.2f} ms a step over 12000 "
              f"steps (its queue dropped the oldest {sub.dropped_total} messages)")
        check_record(service.store, started.run_id, "completed")
        stalled.close()


def test_a_slow_viewer_loses_the_oldest_messages_never_the_end():
    async def scenario() -> None:
        sub = Subscription(size=3)
        for i in range(10):
            sub.put("step", {"step": i})
        sub.finish({"status": "completed"})
        got = []
        while (item := await sub.next()) is not None:
            got.append(item)
        assert got == [("gap", {"dropped": 7}), ("step", {"step": 7}), ("step", {"step": 8}),
                       ("step", {"step": 9}), ("end", {"status": "completed"})]
        assert sub.dropped_total == 7

    asyncio.run(scenario())


# ---- ending a run ----------------------------------------------------------------------------
@pytest.mark.slow
async def test_the_owner_ends_a_run_with_its_secret_once_and_nobody_else_can(world, mind, db):
    async with RunService(db) as service, serving(service) as base:
        started = await service.start(society(world, mind), steps=None, owner="anonymous:7")
        await until(lambda: steps_so_far(service, started.run_id) >= 50, what="50 steps")
        viewer = Viewer(f"{base}/live/{started.run_id}")
        await asyncio.to_thread(viewer.connected.wait, 10)

        for wrong in ("", "not-the-secret", secrets.token_urlsafe(32), started.end_secret[:-1]):
            assert not service.check_end_secret(started.run_id, wrong)
            with pytest.raises(EndRefused) as refused:
                await service.end(started.run_id, wrong)
            assert refused.value.code == "wrong-secret"
            assert refused.value.reason == (f"that is not the secret that ends run {started.run_id}; only the "
                                            "person who started it has it (the link given at its start)")
        assert service.is_running_here(started.run_id), "a wrong secret leaves the run going"

        assert service.check_end_secret(started.run_id, started.end_secret)
        ended = await service.end(started.run_id, started.end_secret)
        assert ended.status == "ended by its owner" and ended.steps >= 50
        run = check_record(service.store, started.run_id, "ended by its owner")
        assert run.step_count == ended.steps and run.world_score is not None  # End run went to the world
        assert run.events[-1].kind == "ended-by-owner"

        await viewer.done()
        assert viewer.of("end")[0]["status"] == "ended by its owner"
        assert viewer.every_step() == list(range(ended.steps))
        assert viewer.of("event")[-1]["kind"] == "ended-by-owner"

        with pytest.raises(EndRefused) as reused:
            await service.end(started.run_id, started.end_secret)
        assert reused.value.code == "already-ended"
        assert reused.value.reason.startswith(f"run {started.run_id} was already ended by its owner (20")
        assert reused.value.reason.endswith("UTC); a secret ends a run once")
        with pytest.raises(EndRefused, match="^there is no run 4242$"):
            await service.end(4242, started.end_secret)
        assert service.owner_of(started.run_id) == "anonymous:7"
        assert service.runs_of("anonymous:7") == [started.run_id]


@pytest.mark.slow
async def test_a_finished_run_cannot_be_ended(world, mind, db):
    async with RunService(db) as service:
        started = await service.start(society(world, mind), steps=10, owner="u")
        await service.wait(started.run_id)
        with pytest.raises(EndRefused) as refused:
            await service.end(started.run_id, started.end_secret)
        assert refused.value.code == "already-finished"
        assert refused.value.reason == (f"run {started.run_id} has already finished (completed) after 10 steps; "
                                        "there is nothing to end")


@pytest.mark.slow
async def test_the_secret_keeps_working_in_a_new_service_on_the_same_database(world, mind, db):
    async with RunService(db) as first:
        started = await first.start(society(world, mind), steps=None, owner="u")
        await until(lambda: steps_so_far(first, started.run_id) >= 20, what="20 steps")
        # The portal process again, started anew on the same database (the first still runs
        # the run, as another worker would): the secret is checked from the database, and the
        # end request reaches the process executing the run through it.
        async with RunService(db) as second:
            assert second.recovered == [], "a run whose process lives is not touched"
            assert second.check_end_secret(started.run_id, started.end_secret)
            assert not second.check_end_secret(started.run_id, secrets.token_urlsafe(32))
            ended = await second.end(started.run_id, started.end_secret)
            assert ended.status == "ended by its owner" and ended.steps >= 20
        assert not first.is_running_here(started.run_id)
        check_record(first.store, started.run_id, "ended by its owner")
    async with RunService(db) as third:
        assert third.check_end_secret(started.run_id, started.end_secret)
        with pytest.raises(EndRefused) as reused:
            await third.end(started.run_id, started.end_secret)
        assert reused.value.code == "already-ended"


@pytest.mark.slow
async def test_a_viewer_of_a_run_executed_by_another_process_follows_the_store(world, mind, db):
    async with RunService(db) as worker, RunService(db) as front, serving(front) as base:
        started = await worker.start(society(world, mind), steps=1500, owner="u")
        await until(lambda: steps_so_far(worker, started.run_id) >= 100, what="100 steps")
        assert not front.hub.is_live(started.run_id)
        viewer = Viewer(f"{base}/live/{started.run_id}")
        assert await worker.wait(started.run_id) == "completed"
        await viewer.done()
        assert viewer.of("record")[0]["run"]["status"] == "running"
        assert viewer.of("step"), "steps arrive from the store as they are written"
        assert viewer.every_step() == list(range(1500))
        assert viewer.of("end")[0]["status"] == "completed"


# ---- a portal that stops mid-run: its runs resume --------------------------------------------
def check_world_counted_every_step(run: Any, since: int = 0) -> None:
    """Every recorded step from ``since`` on moved the world's own counter by one: nothing the
    world did is missing from the record, nothing recorded is a step it did not do."""
    for step in run.steps[since:]:
        assert world_step(step.new_state) == world_step(step.state) + 1, step
    for before, after in zip(run.steps[since:], run.steps[since + 1:], strict=False):
        assert world_step(after.state) == world_step(before.new_state), (before, after)


@pytest.mark.slow
async def test_a_service_closed_gracefully_suspends_its_run_and_the_next_one_resumes_it(world, mind, db):
    first = RunService(db)
    started = await first.start(society(world, mind), steps=100_000, owner="u")
    await until(lambda: steps_so_far(first, started.run_id) >= 300, what="300 steps")
    await first.close()                      # SIGTERM's path: the run is suspended, not ended
    with RunStore(db) as reader:
        run = reader.get_run(started.run_id)
        k = run.step_count - 1
        assert k >= 299 and run.status == f"suspended at step {k}" and run.finished_at is None
        assert run.events[-1].kind == "suspended" and "no End run was sent" in run.events[-1].text
        assert run.world_score is None, "End run was not sent: the world still has the run"
        assert [s.index for s in run.steps] == list(range(k + 1))
        resume = reader.resume_of(started.run_id)
    # The world still has the run, exactly where step k left it (stopped between steps).
    assert resume is not None and resume["clean"] and resume["steps"] == 100_000
    async with RemoteWorld(world.url) as probe:
        probe.reattach(resume["world"])
        assert await probe.get_state() == run.steps[-1].new_state
        assert world_step(await probe.get_state()) == k + 1
        assert await probe.get_current_score() == pytest.approx(sum(s.score or 0.0 for s in run.steps))

    t0 = time.monotonic()
    async with RunService(db) as second, serving(second) as base:
        assert second.recovered == [(started.run_id, "resuming")]
        await until(lambda: steps_so_far(second, started.run_id) > k + 1, what="the first step after resuming")
        print(f"\nfrom a new service to its first resumed step: {(time.monotonic() - t0) * 1000:.0f} ms", end="")
        viewer = Viewer(f"{base}/live/{started.run_id}")
        await until(lambda: steps_so_far(second, started.run_id) > k + 300, what="300 more steps")
        assert second.check_end_secret(started.run_id, started.end_secret), "the secret still ends it"
        ended = await second.end(started.run_id, started.end_secret)
        assert ended.status == "ended by its owner" and ended.steps > k + 300
        await viewer.done()
        run = check_record(second.store, started.run_id, "ended by its owner")
        kinds = [(e.step, e.kind) for e in run.events]
        assert (k + 1, "suspended") in kinds and (k + 1, "resumed") in kinds
        assert "step-maybe-lost" not in [kind for _, kind in kinds], "a graceful stop leaves no step in doubt"
        check_world_counted_every_step(run)  # no gap: the world's counter goes on from k + 1
        assert world_step(run.steps[k + 1].state) == k + 1
        assert viewer.of("step"), "the new service pushes the resumed steps to its viewers"
        assert viewer.every_step() == list(range(run.step_count))
        assert viewer.of("end")[0]["status"] == "ended by its owner"


@pytest.mark.slow
async def test_a_service_made_outside_the_event_loop_resumes_at_activate_or_leaves_the_run_suspended(
        world, mind, db):
    first = RunService(db)
    started = await first.start(society(world, mind), steps=None, owner="u")
    await until(lambda: steps_so_far(first, started.run_id) >= 20, what="20 steps")
    await first.close()
    idle = await asyncio.to_thread(RunService, db)   # as make_app does: no loop, so nothing driven yet
    assert idle.recovered == [(started.run_id, "resuming")] and not idle.is_running_here(started.run_id)
    await idle.close()                               # never activated: the run is left for the next
    with RunStore(db) as reader:
        run = reader.get_run(started.run_id, max_steps=0)
        assert run.status == f"suspended at step {run.step_count - 1}"
    again = await asyncio.to_thread(RunService, db)
    try:
        again.activate()                             # the portal's lifespan
        await until(lambda: steps_so_far(again, started.run_id) > run.step_count + 20, what="20 resumed steps")
        assert (await again.end(started.run_id, started.end_secret)).status == "ended by its owner"
        check_record(again.store, started.run_id, "ended by its owner")
    finally:
        await again.close()


@pytest.mark.slow
async def test_close_with_end_runs_ends_them_and_nothing_is_resumed(world, mind, db):
    first = RunService(db)
    started = await first.start(society(world, mind), steps=None, owner="u")
    await until(lambda: steps_so_far(first, started.run_id) >= 50, what="50 steps")
    await first.close(end_runs=True)
    async with RunService(db) as second:
        assert second.recovered == []
        run = second.store.get_run(started.run_id)
        k = run.step_count - 1
        check_record(second.store, started.run_id, f"interrupted at step {k}")
        assert run.world_score is not None, "End run went to the world"


@pytest.mark.slow
async def test_a_suspended_run_whose_server_forgot_it_is_interrupted_at_step_k_saying_why(world, mind, db):
    with ServerProcess(GRID) as forgetful, ServerProcess(SEEKER) as doomed:
        first = RunService(db)
        forgotten = await first.start(society(forgetful, mind), steps=None, owner="u")
        down = await first.start(society(world, doomed, start_wait=0.5), steps=None, owner="u")
        await until(lambda: min(steps_so_far(first, r.run_id) for r in (forgotten, down)) >= 30, what="30 steps")
        await first.close()
        forgetful.restart()                  # a server restarted (or its idle time-out): the run is gone
        doomed.kill()                        # a server down
        async with RunService(db) as second:
            assert sorted(second.recovered) == [(forgotten.run_id, "resuming"), (down.run_id, "resuming")]
            for started in (forgotten, down):
                status = await asyncio.wait_for(second.wait(started.run_id), 30)
                run = check_record(second.store, started.run_id, status)
                assert status == f"interrupted at step {run.step_count - 1}"
                assert run.events[-1].kind == "interrupted"
            gone = second.store.get_run(forgotten.run_id).events[-1].text
            assert gone.startswith("the run could not be resumed: the world server no longer has the run: "), gone
            assert "is in progress on this server" in gone, gone
            away = second.store.get_run(down.run_id).events[-1].text
            assert away.startswith("the run could not be resumed: the mind server does not answer ("), away
            assert away.endswith("waited 0.5 s: start_wait)"), away
            with pytest.raises(EndRefused) as refused:
                await second.end(forgotten.run_id, forgotten.end_secret)
            assert refused.value.code == "already-finished"


async def _portal(db: str, world_url: str, mind_url: str) -> None:
    service = RunService(db)
    started = await service.start({"world": {"url": world_url}, "mind": {"url": mind_url}},
                                  steps=None, owner="u")
    print(started.run_id, started.end_secret, flush=True)
    await asyncio.Event().wait()


@pytest.mark.slow
async def test_a_portal_killed_mid_run_is_resumed_saying_a_step_may_be_lost_and_its_secret_ends_it(world, mind, db):
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(SRC), os.environ.get("PYTHONPATH")]))}
    child = subprocess.Popen([sys.executable, __file__, db, world.url, mind.url], stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True, env=env)
    try:
        line = await asyncio.to_thread(child.stdout.readline)
        assert line, child.stderr.read()
        run_id, secret = int(line.split()[0]), line.split()[1]
        with RunStore(db) as reader:
            await until(lambda: reader.get_run(run_id, max_steps=0).step_count >= 200, what="200 steps")
            assert reader.get_run(run_id, max_steps=0).status == "running"
    finally:
        child.send_signal(signal.SIGKILL)
        child.wait(10)
    assert child.returncode == -signal.SIGKILL
    with RunStore(db) as reader:
        k = reader.get_run(run_id, max_steps=0).step_count - 1   # the last step the dead process committed
    assert k >= 199

    t0 = time.monotonic()
    async with RunService(db) as service, serving(service) as base:
        assert service.recovered == [(run_id, "resuming")]
        await until(lambda: steps_so_far(service, run_id) > k + 1, what="the first resumed step")
        print(f"\nafter kill -9, from a new service to its first resumed step: "
              f"{(time.monotonic() - t0) * 1000:.0f} ms", end="")
        await until(lambda: steps_so_far(service, run_id) > k + 100, what="100 more steps")
        viewer = Viewer(f"{base}/live/{run_id}")
        ended = await service.end(run_id, secret)
        assert ended.status == "ended by its owner"
        await viewer.done()
        run = check_record(service.store, run_id, "ended by its owner")
        lost = [e for e in run.events if e.kind == "step-maybe-lost"]
        assert len(lost) == 1 and lost[0].step == k + 1
        assert lost[0].text.startswith(f"step {k + 1} may have been executed but not recorded: the portal process "
                                       "stopped without suspending the run")
        check_world_counted_every_step(run, since=k + 1)   # the world's counter goes on from where it was
        check_world_counted_every_step(dataclasses.replace(run, steps=run.steps[:k + 1]))
        ahead = world_step(run.steps[k + 1].state) - (k + 1)  # steps the dead process made and never committed
        assert ahead >= 0
        assert ("so probably it was not" in lost[0].text) == (ahead == 0), (ahead, lost[0].text)
        print(f"; the world was {ahead} steps ahead of the record", end="")
        assert viewer.every_step() == list(range(run.step_count))


# ---- servers that fail -----------------------------------------------------------------------
@pytest.mark.slow
async def test_a_mind_server_that_dies_mid_run_ends_it_and_the_viewers_are_told(world, db):
    with ServerProcess(SEEKER) as doomed:
        async with RunService(db) as service, serving(service) as base:
            started = await service.start(society(world, doomed, timeout=1.0, mind_wait=1.0), steps=None, owner="u")
            await until(lambda: steps_so_far(service, started.run_id) >= 50, what="50 steps")
            viewer = Viewer(f"{base}/live/{started.run_id}")
            await asyncio.to_thread(viewer.connected.wait, 10)
            doomed.kill()
            status = await asyncio.wait_for(service.wait(started.run_id), 30)
            assert status == "mind lost"
            run = check_record(service.store, started.run_id, "mind lost")
            await viewer.done()
            end = viewer.of("end")[0]
            assert end["status"] == "mind lost" and end["steps"] == run.step_count
            kinds = [e["kind"] for e in viewer.of("event")]
            assert "mind-down" in kinds and "run-ended" in kinds
            ended = next(e for e in viewer.of("event") if e["kind"] == "run-ended")
            assert ended["text"].startswith("the mind has not answered for 1 s")
            assert viewer.every_step() == list(range(run.step_count))


@pytest.mark.slow
async def test_a_run_that_cannot_start_says_why(world, db):
    nowhere = f"http://127.0.0.1:{free_port()}/"
    async with RunService(db) as service:
        started = await service.start({"world": {"url": world.url}, "mind": {"url": world.url}}, steps=5, owner="u")
        assert await service.wait(started.run_id) == "could not start"
        run = service.store.get_run(started.run_id)
        assert run.events[-1].kind == "run-ended"
        assert run.events[-1].text == (f"{world.url} is a World server; the society's mind needs a Mind server")
        started = await service.start({"world": {"url": world.url}, "mind": {"url": nowhere},
                                       "run": {"start_wait": 0}}, steps=5, owner="u")
        assert await service.wait(started.run_id) == "could not start"
        assert service.store.get_run(started.run_id).events[-1].text.startswith(f"nothing is listening at {nowhere}")


if __name__ == "__main__":  # the portal process of the kill test
    asyncio.run(_portal(*sys.argv[1:4]))


async def test_a_run_suspended_before_its_first_step_resumes_on_the_servers_runs(probe_world, db):
    """Suspended after New run but before its first step was recorded, a run is carried on under
    the servers' runs of its resume record, as from any later step (it used to send New run again:
    a fresh run on the servers, the first one left to its idle time-out)."""
    from probes import probe_server

    society = {"name": "a slow mind", "world": {"url": probe_world.url}, "mind": {"url": ""},
               "run": {"timeout": 5.0}}
    with probe_server("SlowMind", args={"delay": 1.0}) as slow:
        society["mind"]["url"] = slow.url
        first = RunService(db, suspend_wait=0.1)
        started = await first.start(society, steps=3, owner="u")
        await until(lambda: first.store.resume_of(started.run_id) is not None, what="New run answered")
        await first.close()                  # while the first Get action waits (longer than suspend_wait)
        with RunStore(db) as reader:
            run = reader.get_run(started.run_id)
            resume = reader.resume_of(started.run_id)
        assert run.step_count == 0 and run.status.startswith("suspended"), (run.status, run.events)
        assert resume is not None
        async with RemoteWorld(probe_world.url) as probe:   # the world's run moves on meanwhile
            probe.reattach(resume["world"])
            await probe.execute_action("+5")
        async with RunService(db) as second:
            assert second.recovered == [(started.run_id, "resuming")]
            await until(lambda: second.store.get_run(started.run_id, max_steps=0).status != "running"
                        and started.run_id not in second._runs, what="the resumed run's end")
            run = check_record(second.store, started.run_id, "completed")
    assert [(s.state, s.new_state) for s in run.steps] == [("n=5", "n=6"), ("n=6", "n=7"), ("n=7", "n=8")]
