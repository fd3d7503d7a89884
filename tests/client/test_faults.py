"""Faults over real server processes: a mind server killed in the middle of a run, a world
server killed and restarted in the middle of an own-copy run."""

from __future__ import annotations

import threading

import pytest
from probes import probe_server

from wwm.client import RemoteMind, RemoteWorld
from wwm.client.runner import Runner, RunSettings
from wwm.store import RunStore, StoreRecorder

pytestmark = pytest.mark.slow


def later(seconds: float, action) -> threading.Timer:
    timer = threading.Timer(seconds, action)
    timer.start()
    return timer


def assert_record_matches(store: RunStore, result) -> None:
    """The database holds exactly what the client saw: every step, every event, the end."""
    record = store.get_run(result.record_id)
    assert record.status == result.status and record.step_count == len(result.steps)
    assert [(s.index, s.state, s.action, s.new_state) for s in record.steps] == \
        [(s.index, s.state, s.action, s.new_state) for s in result.steps]
    assert [(e.kind, e.text) for e in record.events] == [(e.kind, e.text) for e in result.events]


@pytest.mark.parametrize("policy", ["requery", "ignore-late"])
async def test_mind_killed_and_restarted_mid_run(policy, tmp_path):
    with probe_server("ProbeWorld") as world_server, probe_server("ProbeMind", state=True) as mind_server:
        world, mind = RemoteWorld(world_server.url), RemoteMind(mind_server.url, timeout=0.5)
        restarted = threading.Event()

        def on_step(step, result):
            if step.index == 20 and not restarted.is_set():
                mind_server.kill()
                later(1.0, lambda: (mind_server.start(), restarted.set()))

        settings = RunSettings(steps=40, timeout=0.5, policy=policy, retry_pause=0.05, mind_wait=20, keepalive=None)
        store = RunStore(f"sqlite:///{tmp_path / 'runs.db'}")
        recorder = StoreRecorder(store, mind_url=mind.url, world_url=world.url)
        result = await Runner(mind, world, settings, recorder=recorder, on_step=on_step).run()
        assert_record_matches(store, result)
        store.close()
        assert result.status == "completed" and restarted.is_set()
        assert [s.index for s in result.steps] == list(range(40))
        assert [s.state for s in result.steps] == [f"n={i}" for i in range(40)]   # no step lost or doubled
        assert any(e.kind in ("mind-down", "timeout") for e in result.events)
        assert result.world_score == 40.0
        await world.aclose()
        await mind.aclose()


async def test_mind_killed_for_good_ends_the_run_as_mind_lost(tmp_path):
    with probe_server("ProbeWorld") as world_server, probe_server("ProbeMind") as mind_server:
        world, mind = RemoteWorld(world_server.url), RemoteMind(mind_server.url, timeout=0.3)

        def on_step(step, result):
            if step.index == 10:
                mind_server.kill()

        settings = RunSettings(steps=50, timeout=0.3, retry_pause=0.05, mind_wait=1.0, keepalive=None)
        store = RunStore(f"sqlite:///{tmp_path / 'runs.db'}")
        recorder = StoreRecorder(store, mind_url=mind.url, world_url=world.url)
        result = await Runner(mind, world, settings, recorder=recorder, on_step=on_step).run()
        assert_record_matches(store, result)
        store.close()
        assert result.status == "mind lost"
        # Killed as step 10 is recorded; by then a pipelining client (Inform and the next Get
        # action in one round trip) already holds the mind's action for step 11.
        assert mind.pipelines
        assert len(result.steps) == 12 and result.world_score == 12.0   # the world's account agrees
        await world.aclose()
        await mind.aclose()


async def test_world_killed_and_restarted_resumes_the_run_where_it_was():
    with probe_server("ProbeWorld", state=True) as world_server, probe_server("ProbeMind") as mind_server:
        world, mind = RemoteWorld(world_server.url, timeout=0.5), RemoteMind(mind_server.url)
        run_ids = []

        def on_step(step, result):
            if step.index == 15:
                run_ids.append(world.run_id)
                world_server.kill()
                later(1.0, world_server.start)

        settings = RunSettings(steps=30, timeout=0.5, retry_pause=0.05, world_wait=20, keepalive=None)
        result = await Runner(mind, world, settings, on_step=on_step).run()
        assert result.status == "completed"
        assert world.run_id is None and run_ids  # the same run ID carried on, then End run
        assert [s.state for s in result.steps] == [f"n={i}" for i in range(30)]  # resumed at step 16
        assert "world-down" in [e.kind for e in result.events] and "world-back" in [e.kind for e in result.events]
        assert result.world_score == 30.0
        await world.aclose()
        await mind.aclose()
