"""StoreRecorder behind the client's real run loop (local objects, in process): the record
holds exactly the steps and events the Runner saw, a "Cannot suggest action" step, a
time-out with its requery, the End run scores, and the result knows its record ID."""

from __future__ import annotations

import dataclasses

from store_inhabitants import Counter, Echo

from wwm.client.runner import Runner, RunSettings
from wwm.store import RunStore, StepRecord, StoreRecorder


async def test_the_record_is_what_the_run_loop_saw(store_url: str) -> None:
    settings = RunSettings(steps=50, timeout=0.2, keepalive=None)
    with RunStore(store_url) as store:
        recorder = StoreRecorder(store, mind_url="local:Echo", world_url="local:Counter",
                                 society={"name": "recorder test"}, settings=settings)
        mind = Echo(stuck=(2,), slow_at=(4,), slow=0.5)
        result = await Runner(mind, Counter(last=6), settings, recorder=recorder).run()
        run = store.get_run(result.record_id)

    assert result.status == "ended by world" and run.status == "ended by world"
    assert run.steps == [StepRecord(**dataclasses.asdict(s)) for s in result.steps]
    assert [(e.step, e.kind, e.text) for e in run.events] == [(e.step, e.kind, e.text) for e in result.events]
    kinds = [e.kind for e in run.events]
    assert "timeout" in kinds and "abort-requery" in kinds
    stuck = [s for s in run.steps if s.action is None]
    assert len(stuck) == 1 and stuck[0].note == "stuck at 2" and stuck[0].state == stuck[0].new_state
    assert run.step_count == len(result.steps) == 7  # six actions and the one it could not suggest
    assert run.total_score == result.total_score == sum(i % 3 for i in range(6))
    assert run.world_score == result.world_score == result.total_score
    assert run.settings["timeout"] == 0.2 and run.name == "recorder test"


async def test_an_interrupted_run_is_recorded_as_interrupted(tmp_path) -> None:
    import asyncio

    settings = RunSettings(steps=None, keepalive=None)
    with RunStore(f"sqlite:///{tmp_path / 'runs.db'}") as store:
        recorder = StoreRecorder(store, mind_url="m", world_url="w", settings=settings)
        task = asyncio.ensure_future(Runner(Echo(), Counter(pause=0.001), settings, recorder=recorder).run())
        await asyncio.sleep(0.3)
        task.cancel()
        try:
            await task
        except asyncio.CancelledError:
            pass
        (run,) = store.list_runs()
        assert run.status == "interrupted" and run.step_count > 10
        assert run.id == recorder.run_id
