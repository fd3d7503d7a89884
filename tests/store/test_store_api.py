"""The RunStore contract on both backends (an SQLite file and a real PostgreSQL server):
every field round-trips, finishing counts and totals, listing, the flush window, odd text,
and clear errors for misuse."""

from __future__ import annotations

import dataclasses
import time

import pytest
from pydantic import BaseModel

from wwm.store import RunStore, StepRecord, StoreError, UnknownRun


def step(i: int, **changes) -> StepRecord:
    base = StepRecord(i, f"state {i}", f"action {i}", f"state {i + 1}", score=i * 0.5,
                      mind_q=-float(i), seconds_get_state=0.001 * i, seconds_get_action=0.002,
                      seconds_execute=0.003, seconds_inform=0.004, note=f"note {i}" if i % 2 else None)
    return dataclasses.replace(base, **changes)


def test_a_run_round_trips_every_field(store_url: str) -> None:
    with RunStore(store_url) as store:
        run_id = store.start_run(mind_url="http://127.0.0.1:1/mind", world_url="http://127.0.0.1:2/",
                                 society={"name": "pair", "mind": {"args": {"n": [1, 2]}}},
                                 settings={"steps": 5, "timeout": 2.5, "policy": "requery"})
        steps = [step(i) for i in range(5)] + [step(5, action=None, score=None, mind_q=None)]
        for s in steps:
            store.record_step(run_id, s)
        store.record_event(run_id, 2, "timeout", "the mind did not answer")
        store.record_event(run_id, 3, "world-down", "Execute action failed")
        store.finish_run(run_id, "ended by world", 7.5, 6, world_score=7.5, mind_score=1.25)

        run = store.get_run(run_id)
    assert run.steps == steps
    assert [(e.step, e.kind, e.text) for e in run.events] == [
        (2, "timeout", "the mind did not answer"), (3, "world-down", "Execute action failed")]
    assert run.events[0].at is not None and run.events[0].at <= run.finished_at
    assert (run.status, run.step_count, run.total_score) == ("ended by world", 6, 7.5)
    assert (run.world_score, run.mind_score) == (7.5, 1.25)
    assert run.name == "pair"
    assert run.society == {"name": "pair", "mind": {"args": {"n": [1, 2]}}}
    assert run.settings == {"steps": 5, "timeout": 2.5, "policy": "requery"}
    assert run.mind_url == "http://127.0.0.1:1/mind" and run.world_url == "http://127.0.0.1:2/"
    assert run.started_at <= run.finished_at and 0 <= run.seconds < 30


def test_finish_counts_steps_and_sums_scores_when_not_told(store_url: str) -> None:
    with RunStore(store_url) as store:
        run_id = store.start_run(mind_url="m", world_url="w")
        for i in range(10):
            store.record_step(run_id, step(i))
        store.finish_run(run_id, "completed")
        run = store.get_run(run_id, max_steps=3, from_step=4)
    assert run.step_count == 10 and run.total_score == sum(i * 0.5 for i in range(10))
    assert [s.index for s in run.steps] == [4, 5, 6]


def test_list_is_newest_first_with_limit_and_status(store_url: str) -> None:
    with RunStore(store_url) as store:
        ids = []
        for k, status in enumerate(["completed", "mind lost", "completed", None]):
            ids.append(store.start_run(mind_url=f"m{k}", world_url="w", name=f"run {k}"))
            store.record_step(ids[-1], step(0))
            if status:
                store.finish_run(ids[-1], status)
        store.flush()
        listed = store.list_runs()
        assert [r.id for r in listed] == ids[::-1]
        assert [r.status for r in listed] == ["running", "completed", "mind lost", "completed"]
        assert listed[0].step_count == 1 and listed[0].finished_at is None and listed[0].seconds is None
        assert [r.id for r in store.list_runs(limit=2)] == ids[:1:-1]
        assert [r.id for r in store.list_runs(status="completed")] == [ids[2], ids[0]]
        assert [r.id for r in store.list_runs(status="running")] == [ids[3]]
        with pytest.raises(StoreError, match="limit must be at least 1"):
            store.list_runs(limit=0)
    # closing the store finished the open run as interrupted
    with RunStore(store_url) as again:
        assert again.list_runs(limit=1)[0].status == "interrupted"


def test_steps_reach_the_database_within_the_flush_window(store_url: str) -> None:
    """No flush, no finish: another store (another connection) sees the steps ~0.25 s later
    (waited for up to 1.5 s, for a busy machine)."""
    with RunStore(store_url) as writer, RunStore(store_url) as reader:
        run_id = writer.start_run(mind_url="m", world_url="w")
        for i in range(3):
            writer.record_step(run_id, step(i))
        writer.record_event(run_id, 1, "retry", "again")
        deadline = time.monotonic() + 1.5
        while time.monotonic() < deadline and reader.get_run(run_id).step_count < 3:
            time.sleep(0.02)
        run = reader.get_run(run_id)
        assert [s.index for s in run.steps] == [0, 1, 2] and len(run.events) == 1
        assert run.status == "running"  # its writer is this very process, alive
        writer.finish_run(run_id, "completed")
        assert reader.get_run(run_id).status == "completed"


def test_a_full_batch_is_written_without_waiting_for_the_timer(store_url: str) -> None:
    # the timer is an hour away, so two full batches seen within the minute the test allows
    # (a loaded machine's SQLite may take seconds) were written because they were full
    with RunStore(store_url, batch=50, interval=3600.0) as writer, RunStore(store_url) as reader:
        run_id = writer.start_run(mind_url="m", world_url="w")
        for i in range(120):
            writer.record_step(run_id, step(i))
        deadline = time.monotonic() + 60
        while reader.get_run(run_id, max_steps=0).step_count < 100 and time.monotonic() < deadline:
            time.sleep(0.02)
        assert reader.get_run(run_id, max_steps=0).step_count >= 100


ODD = ["", "plain", "ünïcödé ✓ 漢字 🙂", "<xml a='1'>&amp;</xml>", "line\nbreak\ttab", "x" * 1_000_000]


def test_odd_text_and_numbers_round_trip_nul_and_nan_as_documented(store_url: str) -> None:
    with RunStore(store_url) as store:
        run_id = store.start_run(mind_url="m", world_url="w", name="ödd 🙂")
        for i, text in enumerate(ODD):
            store.record_step(run_id, StepRecord(i, text, text, text[::-1], [None, float("inf"), float("nan")][i % 3]))
        store.record_step(run_id, StepRecord(len(ODD), "a\x00b", "\ud800", "c"))
        store.record_event(run_id, 0, "note", "nul\x00here")
        store.finish_run(run_id, "completed", float("nan"))
        run = store.get_run(run_id)
    assert [s.state for s in run.steps[:-1]] == ODD
    assert [s.new_state for s in run.steps[:-1]] == [t[::-1] for t in ODD]
    assert [s.score for s in run.steps[:3]] == [None, float("inf"), None]  # NaN is stored as None
    assert run.steps[-1].state == "a\ufffdb" and run.steps[-1].action == "\\ud800"
    assert run.events[0].text == "nul\ufffdhere"
    assert run.name == "ödd 🙂" and run.total_score is None


def test_documents_from_models_and_dataclasses(store_url: str) -> None:
    class Spec(BaseModel):
        name: str
        steps: int | None = None

    @dataclasses.dataclass
    class Settings:
        timeout: float = 1.5
        odd: tuple[int, ...] = (1, 2)
        nan: float = float("nan")

    with RunStore(store_url) as store:
        run_id = store.start_run(mind_url="m", world_url="w", society=Spec(name="from a model"),
                                 settings=Settings())
        store.finish_run(run_id, "completed")
        run = store.get_run(run_id)
    assert run.society == {"name": "from a model", "steps": None} and run.name == "from a model"
    assert run.settings == {"timeout": 1.5, "odd": [1, 2], "nan": "nan"}
    assert run.step_count == 0 and run.total_score is None and run.steps == []


def test_misuse_gets_clear_errors(store_url: str) -> None:
    with RunStore(store_url) as store:
        with pytest.raises(UnknownRun, match="there is no run 999"):
            store.get_run(999)
        with pytest.raises(UnknownRun, match="there is no run 999"):
            store.step_scores(999)
        with pytest.raises(StoreError, match="run 999 is not open"):
            store.record_step(999, step(0))
        run_id = store.start_run(mind_url="m", world_url="w")
        with pytest.raises(StoreError, match="event kind is 1 to 60"):
            store.record_event(run_id, 0, "k" * 61, "too long a kind")
        with pytest.raises(StoreError, match="not 'running'"):
            store.finish_run(run_id, "running")
        with pytest.raises(StoreError, match=f"cannot finish run {run_id}: could not convert string to float: 'high'"):
            store.finish_run(run_id, "completed", "high")
        with pytest.raises(StoreError, match="must be mappings"):
            store.start_run(mind_url="m", world_url="w", society=["not", "a", "mapping"])
        store.finish_run(run_id, "completed")
        with pytest.raises(StoreError, match=f"run {run_id} is not open"):
            store.record_step(run_id, step(1))
        with pytest.raises(StoreError, match=f"run {run_id} is not open"):
            store.finish_run(run_id, "completed")


def test_steps_that_cannot_be_stored_are_refused_at_once_with_the_reason(store_url: str) -> None:
    with RunStore(store_url) as store:
        run_id = store.start_run(mind_url="m", world_url="w")
        with pytest.raises(StoreError, match=r"cannot record step 'three' of run \d+: invalid literal"):
            store.record_step(run_id, step(0, index="three"))
        with pytest.raises(StoreError, match="cannot record step 1 of run .*could not convert string to float: 'lots'"):
            store.record_step(run_id, step(1, score="lots"))
        with pytest.raises(StoreError, match="step index 4294967296 is out of range"):
            store.record_step(run_id, step(2, index=2**32))
        with pytest.raises(StoreError, match="cannot record step '\\?' of run .*has no attribute 'index'"):
            store.record_step(run_id, object())
        with pytest.raises(StoreError, match="cannot record event 'timeout' of run .*int"):
            store.record_event(run_id, "soon", "timeout", "text")
        store.record_step(run_id, step(0))
        store.finish_run(run_id, "completed")
        assert [s.index for s in store.get_run(run_id).steps] == [0]


def test_rows_the_database_refuses_do_not_block_the_rest(store_url: str) -> None:
    """Someone deletes a run while it is being recorded: its rows are refused (foreign key),
    dropped and counted; the other run's rows behind them are all written."""
    from sqlalchemy import delete

    from wwm.store import schema

    with RunStore(store_url) as store:
        doomed = store.start_run(mind_url="m", world_url="w")
        kept = store.start_run(mind_url="m", world_url="w")
        with store.engine.begin() as conn:
            conn.execute(delete(schema.runs).where(schema.runs.c.id == doomed))
        for i in range(20):
            store.record_step(doomed, step(i))
            store.record_step(kept, step(i))
        store.record_event(doomed, 3, "timeout", "lost with its run")
        store.finish_run(kept, "completed")
        assert store.dropped == 21 and store.write_error is None
        assert [s.index for s in store.get_run(kept).steps] == list(range(20))
        store._open.discard(doomed)  # its row is gone: nothing to finish


def test_step_scores_in_order(store_url: str) -> None:
    with RunStore(store_url) as store:
        run_id = store.start_run(mind_url="m", world_url="w")
        for i in range(4):
            store.record_step(run_id, step(i, score=None if i == 2 else float(i)))
        store.finish_run(run_id, "completed")
        assert store.step_scores(run_id) == [(0, 0.0), (1, 1.0), (2, None), (3, 3.0)]


def test_a_run_suspended_in_one_store_is_adopted_by_another_with_its_resume_record(store_url: str) -> None:
    with RunStore(store_url) as first:
        run_id = first.start_run(mind_url="http://m/", world_url="http://w/")
        assert first.resume_of(run_id) is None
        first.set_resume(run_id, {"world": {"run_id": "w-1"}, "mind": {"run_id": "m-1"}, "steps": 9})
        for i in range(3):
            first.record_step(run_id, step(i))
        first.suspend_run(run_id, "suspended at step 2", {"world": {"run_id": "w-1"}, "clean": True})
        with pytest.raises(StoreError, match="is not open in this store"):
            first.record_step(run_id, step(3))
    with RunStore(store_url) as second:           # the first closed: the run is left as it was
        run = second.get_run(run_id)
        assert (run.status, run.step_count, run.finished_at) == ("suspended at step 2", 3, None)
        assert second.resume_of(run_id) == {"world": {"run_id": "w-1"}, "clean": True}
        assert not second.adopt_run(run_id, status="running"), "only a run left with the status named"
        assert second.adopt_run(run_id, status="suspended at step 2")
        assert not second.adopt_run(run_id, status="suspended at step 2"), "one adopter wins"
        second.record_step(run_id, step(3))
        assert second.get_run(run_id, max_steps=0).status == "running"
    with RunStore(store_url) as third:            # the second closed with it open: "interrupted"
        run = third.get_run(run_id)
    assert run.status == "interrupted" and [s.index for s in run.steps] == [0, 1, 2, 3]


def test_a_database_made_before_the_resume_column_gets_it_when_opened(store_url: str) -> None:
    from sqlalchemy import text

    with RunStore(store_url) as store:
        with store.engine.begin() as conn:
            conn.execute(text("ALTER TABLE wwm_runs DROP COLUMN resume"))
        older = store.start_run(mind_url="http://m/", world_url="http://w/")
        store.finish_run(older, "completed")
    with RunStore(store_url) as store:
        assert store.get_run(older).status == "completed" and store.resume_of(older) is None
        store.set_resume(older, {"steps": 1})
        assert store.resume_of(older) == {"steps": 1}

def test_readers_do_not_wait_for_the_writer(store_url: str) -> None:
    """A page reading a run is never queued behind the step writer's batch: only an in-memory
    database (one shared connection) serialises readers with the writer."""
    import threading

    with RunStore(store_url) as store:
        run_id = store.start_run(mind_url="m", world_url="w")
        store.record_step(run_id, step(0))
        store.flush()
        held, release = threading.Event(), threading.Event()

        def writer_mid_batch() -> None:   # the writer thread holds the lock while it writes
            with store._lock:
                held.set()
                release.wait(10)

        thread = threading.Thread(target=writer_mid_batch)
        thread.start()
        try:
            held.wait(5)
            got: list[object] = []
            reader = threading.Thread(target=lambda: got.append((store.get_run(run_id).step_count,
                                                                 len(store.list_runs()),
                                                                 store.step_scores(run_id))))
            reader.start()
            reader.join(5)
            assert got == [(1, 1, [(0, 0.0)])], "a reader waited for the writer's lock"
            with store.reading() as conn:
                assert conn.exec_driver_sql("SELECT 1").scalar() == 1
        finally:
            release.set()
            thread.join()


def test_states_running_unfinished_and_closing_a_run_left_behind(store_url: str) -> None:
    """The API a client that shows and takes over runs uses (the portal: issue 26, item 8),
    so it never queries the tables: many runs' states in one call, with live statuses; the
    runs being written now; the runs left unfinished; and finishing one, once."""
    with RunStore(store_url) as store, RunStore(store_url) as other:
        done = store.start_run(mind_url="m", world_url="w", society={"name": "done"})
        for i in range(3):
            store.record_step(done, step(i))
        store.finish_run(done, "completed", world_score=4.5)
        live = store.start_run(mind_url="m", world_url="w")
        store.record_step(live, step(0))
        store.record_step(live, step(1))
        store.flush()
        left = store.start_run(mind_url="m", world_url="w", society={"name": "left"})
        store.record_step(left, step(0))
        store.suspend_run(left, "suspended at step 0", {"world": "run 1"})
        states = other.states([done, live, left, 999])
        assert sorted(states) == [done, live, left]
        assert (states[done].status, states[done].steps, states[done].world_score) == ("completed", 3, 4.5)
        assert states[done].finished_at is not None
        assert (states[live].status, states[live].steps, states[live].total_score) == ("running", 2, 0.5)
        assert states[left].status == "suspended at step 0" and states[left].finished_at is None
        assert other.states([]) == {}
        assert other.running() == [live]
        assert [u.id for u in other.unfinished()] == [live]
        found = {u.id: u for u in other.unfinished(like="suspended %")}
        assert sorted(found) == [live, left]
        assert found[left].resume == {"world": "run 1"} and found[left].society == {"name": "left"}

        assert other.close_left(left, lambda n: f"interrupted at step {n - 1}", "interrupted", "gone",
                                current="suspended at step 0") == "interrupted at step 0"
        assert other.close_left(left, "again", "interrupted", "gone", current="suspended at step 0") is None
        closed = other.get_run(left)
        assert (closed.status, closed.step_count) == ("interrupted at step 0", 1)
        assert [(e.kind, e.text) for e in closed.events] == [("interrupted", "gone")]
        assert other.close_left(live, "x", "k", "t", writer=("elsewhere", 1)) is None   # not its writer
        assert other.states([live])[live].status == "running"
