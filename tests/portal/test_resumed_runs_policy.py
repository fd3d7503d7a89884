"""Runs resumed on another process's workers are held to the ``--public`` address policy
before they reconnect (issue 26, item 6): a run taken over after a restart is checked by the
portal before it is handed to its executor (a Ray worker), and the worker checks it again
itself before re-attaching (its own address resolution). Refused, the run ends "interrupted at
step k" saying why, and nothing connects. Ray itself is not needed: the executor is a fake
that records what it was handed, and the worker is :class:`RunWorker` driven in this process."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from wwm.portal.fetching import Policy, society_guard
from wwm.portal.runs import RunService
from wwm.portal.runsecrets import record_secret
from wwm.portal.store import migrate
from wwm.portal.workers import RunWorker
from wwm.protocol.records import Step
from wwm.store import RunStore

DOC = {"world": {"url": "http://127.0.0.1:9/world"}, "mind": {"url": "http://127.0.0.1:9/mind"}}
RESUME = {"world": {"url": "http://127.0.0.1:9/world", "run_id": "w1"},
          "mind": {"url": "http://127.0.0.1:9/mind", "run_id": "m1"}, "steps": 10, "clean": True}
PUBLIC = Policy(public=True)


class RecordingExecutor:
    """An executor that runs nothing: it keeps what it was handed."""

    def __init__(self) -> None:
        self.submitted: list[tuple[int, str | None]] = []

    def bind(self, service: Any) -> None:
        pass

    def submit(self, run_id: int, document: dict[str, Any], steps: int | None, *,
               resuming: str | None = None) -> None:
        self.submitted.append((run_id, resuming))

    def has(self, run_id: int) -> bool:
        return False

    async def wait(self, run_id: int) -> None:
        pass

    async def close(self, *, end_runs: bool = False) -> None:
        pass


def left_behind(url: str, *, suspended: bool) -> int:
    """A portal run with one step and a resume record: "suspended at step 0" by a portal that
    closed, or "running" and let go (as a portal that took it over hands it to a worker)."""
    with RunStore(url) as store:
        migrate(store.engine)
        run_id = store.start_run(mind_url=DOC["mind"]["url"], world_url=DOC["world"]["url"], society=DOC)
        store.record_step(run_id, Step(0, "x", "a", "y", 1.0, None, 0.0, 0.0, 0.0, 0.0))
        with store.writing() as conn:
            record_secret(conn, run_id, "the secret", "user:1")
        if suspended:
            store.suspend_run(run_id, "suspended at step 0", RESUME)
        else:
            store.set_resume(run_id, RESUME)
            store.flush()
            store.release_run(run_id)       # its writer is the worker from now on
    return run_id


async def test_a_run_taken_over_is_checked_before_its_worker_is_handed_it(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'portal.db'}"
    run_id = left_behind(url, suspended=True)
    executor = RecordingExecutor()
    # made outside the loop, as the portal's app makes it: it takes the run over, not yet resumed
    service = await asyncio.to_thread(RunService, url, executor=executor)   # type: ignore[arg-type]
    try:
        assert service.recovered == [(run_id, "resuming")]
        service.guard, service.policy = society_guard(PUBLIC), PUBLIC
        service.activate()
        handing = [t for t in asyncio.all_tasks() if t.get_name() == f"wwm-portal-resume-{run_id}"]
        await asyncio.gather(*handing)
        assert executor.submitted == [], "a worker was handed a run that reconnects to a loopback address"
        record = await asyncio.to_thread(service.store.get_run, run_id)
        assert record.status == "interrupted at step 0" and [s.index for s in record.steps] == [0]
        assert "could not be resumed" in record.events[-1].text and "loopback" in record.events[-1].text
    finally:
        await service.close()


async def test_the_worker_checks_the_policy_itself_before_reattaching(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'portal.db'}"
    run_id = left_behind(url, suspended=False)
    worker = RunWorker(url, 0.05, PUBLIC)
    await worker.begin(run_id, DOC, 10, resuming="suspended at step 0")
    status = await worker.finish()
    assert status == "interrupted at step 0"
    with RunStore(url) as store:
        record = store.get_run(run_id)
    assert [s.index for s in record.steps] == [0]
    assert [e.kind for e in record.events][-1] == "interrupted" and "loopback" in record.events[-1].text
