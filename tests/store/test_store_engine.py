"""Where the store lives: an explicit URL, else $WWM_DATABASE_URL, else the SQLite file under
$XDG_DATA_HOME (or ~/.local/share); ``postgresql://`` means psycopg 3; an unreachable server
or a missing driver is one clear sentence, quickly, and never shows the password."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from wwm.store import RunStore, StepRecord, StoreError, default_path, resolve_url


def test_default_is_an_sqlite_file_under_xdg_data_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("WWM_DATABASE_URL", raising=False)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    assert default_path() == tmp_path / "data" / "wwm" / "runs.db"
    with RunStore() as store:
        run_id = store.start_run(mind_url="m", world_url="w")
        store.finish_run(run_id, "completed")
    assert (tmp_path / "data" / "wwm" / "runs.db").stat().st_size > 0

    monkeypatch.delenv("XDG_DATA_HOME")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert default_path() == tmp_path / "home" / ".local" / "share" / "wwm" / "runs.db"


def test_environment_variable_then_explicit_url(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("WWM_DATABASE_URL", f"sqlite:///{tmp_path / 'env.db'}")
    assert resolve_url().database == str(tmp_path / "env.db")
    assert resolve_url(f"sqlite:///{tmp_path / 'given.db'}").database == str(tmp_path / "given.db")
    assert resolve_url("postgresql://u@h/db").drivername == "postgresql+psycopg"
    assert resolve_url("postgresql+psycopg://u@h/db").drivername == "postgresql+psycopg"


def test_in_memory_sqlite_works_across_the_writer_thread() -> None:
    with RunStore("sqlite://") as store:
        run_id = store.start_run(mind_url="m", world_url="w")
        for i in range(50):
            store.record_step(run_id, StepRecord(i, "x", "a", "y", 1.0))
        time.sleep(0.4)  # written by the writer thread, on the one shared connection
        assert store.get_run(run_id).step_count == 50
        store.finish_run(run_id, "completed")
        assert store.list_runs()[0].total_score == 50.0


def test_unreachable_postgresql_is_a_quick_clear_error() -> None:
    started = time.monotonic()
    with pytest.raises(StoreError) as caught:
        RunStore("postgresql://me:hunter2@127.0.0.1:1/runs")
    text = str(caught.value)
    assert text.startswith("cannot open the run store at postgresql+psycopg://me:***@127.0.0.1:1/runs: ")
    assert "hunter2" not in text and "refused" in text.lower()
    assert time.monotonic() - started < 5


def test_an_existing_schema_is_reused_not_recreated(store_url: str) -> None:
    with RunStore(store_url) as first:
        run_id = first.start_run(mind_url="m", world_url="w")
        first.finish_run(run_id, "completed")
    with RunStore(store_url) as second:
        assert [r.id for r in second.list_runs()] == [run_id]
        assert second.start_run(mind_url="m", world_url="w") == run_id + 1



def test_many_opening_a_new_database_at_once_all_succeed(store_url: str) -> None:
    """Six stores (own engines, own connections) create the tables of one new database at the
    same moment. Without care most of them die on "already exists" (measured: 3 to 5 of 6)."""
    import threading

    barrier, failures = threading.Barrier(6), []

    def open_and_record() -> None:
        barrier.wait()
        try:
            with RunStore(store_url) as store:
                store.finish_run(store.start_run(mind_url="m", world_url="w"), "completed")
        except Exception as exc:  # noqa: BLE001 - collected and shown by the assertion
            failures.append(exc)

    threads = [threading.Thread(target=open_and_record) for _ in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert failures == []
    with RunStore(store_url) as store:
        assert len(store.list_runs()) == 6


def test_a_database_from_a_newer_wwm_is_refused_not_misread(store_url: str) -> None:
    from sqlalchemy import update

    from wwm.store import schema

    with RunStore(store_url) as store, store.engine.begin() as conn:
        conn.execute(update(schema.meta).where(schema.meta.c.key == "schema version")
                     .values(value=str(schema.VERSION + 1)))
    with pytest.raises(StoreError, match=f"was made by a newer wwm .*version {schema.VERSION + 1}; "
                                         f"this wwm knows version {schema.VERSION}"):
        RunStore(store_url)
