"""The PostgreSQL server stops in the middle of a run and comes back: the run loop keeps
recording (nothing blocks), the store says why it cannot write, and once the server is back
every step queued meanwhile is written, none lost, none doubled. Down at the end of a run,
the client still gets its result, and the record is completed when the server is back."""

from __future__ import annotations

import asyncio
import time
from datetime import UTC, datetime, timedelta

import pytest

from wwm.store import RunStore, StepRecord


def wait_for(condition, seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True


@pytest.mark.slow
def test_postgresql_restart_mid_run_loses_nothing(postgres) -> None:
    url = postgres.new_schema()
    with RunStore(url) as store:
        run_id = store.start_run(mind_url="m", world_url="w")
        for i in range(100):
            store.record_step(run_id, StepRecord(i, f"x{i}", "a", f"x{i + 1}", 1.0))
        store.flush()

        postgres.stop_server("fast")
        try:
            started = time.perf_counter()
            for i in range(100, 300):
                store.record_step(run_id, StepRecord(i, f"x{i}", "a", f"x{i + 1}", 1.0))
            assert time.perf_counter() - started < 0.1, "recording must not wait for the database"
            assert wait_for(lambda: store.write_error is not None, 5)
            shown = url.split("?")[0].replace("postgresql", "postgresql+psycopg")
            assert store.write_error.startswith(f"cannot write to {shown}")
            assert store.pending >= 200
        finally:
            postgres.start_server()

        for i in range(300, 400):
            store.record_step(run_id, StepRecord(i, f"x{i}", "a", f"x{i + 1}", 1.0))
        assert wait_for(lambda: store.pending == 0 and store.write_error is None, 15)
        store.finish_run(run_id, "completed")
        run = store.get_run(run_id)
    assert [s.index for s in run.steps] == list(range(400))
    assert [s.state for s in run.steps] == [f"x{i}" for i in range(400)]
    assert run.total_score == 400.0


@pytest.mark.slow
async def test_database_down_at_the_end_of_a_run_keeps_the_result(postgres) -> None:
    from store_inhabitants import Counter, Echo

    from wwm.client.runner import Runner, RunSettings
    from wwm.store import StoreRecorder

    url = postgres.new_schema()
    store = RunStore(url)
    settings = RunSettings(steps=30, keepalive=None)
    recorder = StoreRecorder(store, mind_url="m", world_url="w", settings=settings)

    class StopTheDatabase:
        def __call__(self, step, result) -> None:
            if step.index == 20:
                postgres.stop_server("fast")

    try:
        result = await Runner(Echo(), Counter(), settings, recorder=recorder, on_step=StopTheDatabase()).run()
        assert result.status == "completed" and len(result.steps) == 30
        assert recorder.error.startswith(f"run {recorder.run_id} is not fully recorded: cannot write steps")
        await asyncio.sleep(0.6)
    finally:
        postgres.start_server()
    store.close()  # tries again, now that the server is back
    with RunStore(url) as reader:
        run = reader.get_run(recorder.run_id)
    assert (run.status, run.step_count, run.total_score) == ("completed", 30, result.total_score)
    assert [s.index for s in run.steps] == list(range(30))
    assert run.finished_at < datetime.now(UTC) - timedelta(seconds=0.5)  # when it ended, not now
