"""Portal runs executed on the workers of a real local Ray cluster (``ray.init(num_cpus=2)``),
over real World and Mind servers on loopback, recording into a throw-away PostgreSQL (as a
deployment beyond one machine would) or an SQLite file (one machine only): a run completes
with every step and a viewer (SSE over real HTTP, served by the portal's process) sees them
all; the owner's secret ends a run executing on a worker; a worker killed mid-run leaves its
run "interrupted at step k" and the portal goes on."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from test_runs import Viewer, check_record, serving, society, until

from wwm.portal.runs import RunService
from wwm.store import RunStore, StoreError
from wwm.store.engine import resolve_url

SRC = Path(__file__).resolve().parents[2] / "src"


@pytest.fixture(scope="module")
def cluster():
    """One local Ray cluster for the module; its workers import this tree's wwm."""
    ray = pytest.importorskip("ray")
    os.environ["PYTHONPATH"] = os.pathsep.join(filter(None, [str(SRC), os.environ.get("PYTHONPATH")]))
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    try:
        yield ray
    finally:
        ray.shutdown()


@pytest.fixture(scope="module")
def postgres():
    from wwm.store.pgtemp import TempPostgres

    try:
        pg = TempPostgres().__enter__()
    except RuntimeError as exc:
        pytest.skip(f"no PostgreSQL server binaries here: {exc}")
    try:
        yield pg
    finally:
        pg.__exit__(None, None, None)


def on_ray(db: str, **options: Any) -> RunService:
    from wwm.portal.workers import RayExecutor

    return RunService(db, poll=0.2, executor=RayExecutor(**options))


def recorded(service: RunService, run_id: int) -> int:
    return service.store.get_run(run_id, max_steps=0).step_count


async def taken(service: RunService, run_id: int) -> tuple[str, int]:
    """The (host, PID) of the Ray worker executing the run, once it has taken it."""
    executor: Any = service.executor
    await until(lambda: executor.where(run_id) is not None, timeout=60, what="a Ray worker to take the run")
    return executor.where(run_id)


# ---- a run on a worker, watched from the portal ----------------------------------------------
@pytest.mark.slow
async def test_a_run_on_a_ray_worker_completes_and_a_viewer_of_the_portal_sees_every_step(cluster, postgres,
                                                                                          world, mind):
    n = 1500
    async with on_ray(postgres.new_schema()) as service, serving(service) as base:
        t0 = time.monotonic()
        started = await service.start(society(world, mind), steps=n, owner="anonymous:1")
        print(f"\nstart returned in {(time.monotonic() - t0) * 1000:.0f} ms", end="")
        host, pid = await taken(service, started.run_id)
        print(f"; a worker took it after {(time.monotonic() - t0) * 1000:.0f} ms", end="")
        assert pid != os.getpid() and not service.is_running_here(started.run_id)
        await until(lambda: recorded(service, started.run_id) >= 100, what="100 steps")
        viewer = Viewer(f"{base}/live/{started.run_id}")
        assert await service.wait(started.run_id) == "completed"
        print(f"; {n} steps in {time.monotonic() - t0:.1f} s")
        await viewer.done()

        run = check_record(service.store, started.run_id, "completed")
        assert run.step_count == n and run.world_score is not None and run.total_score is not None
        assert (run.host, run.pid) == (host, pid), "the worker wrote the run"
        assert viewer.of("record")[0]["run"]["status"] == "running"
        assert viewer.of("step"), "the later steps come from the store as the worker writes them"
        assert viewer.every_step() == list(range(n)), "every step once, in order"
        end = viewer.of("end")[0]
        assert end["status"] == "completed" and end["steps"] == n
        assert end["world_score"] == run.world_score
        assert not service.executor.has(started.run_id)  # type: ignore[union-attr]


@pytest.mark.slow
async def test_the_owner_ends_a_run_on_a_ray_worker_with_its_secret(cluster, postgres, world, mind):
    async with on_ray(postgres.new_schema()) as service, serving(service) as base:
        started = await service.start(society(world, mind), steps=None, owner="u")
        await taken(service, started.run_id)
        await until(lambda: recorded(service, started.run_id) >= 50, what="50 steps")
        viewer = Viewer(f"{base}/live/{started.run_id}")
        await asyncio.to_thread(viewer.connected.wait, 10)
        ended = await service.end(started.run_id, started.end_secret)
        assert ended.status == "ended by its owner" and ended.steps >= 50
        run = check_record(service.store, started.run_id, "ended by its owner")
        assert run.step_count == ended.steps and run.world_score is not None  # End run went to the world
        assert run.events[-1].kind == "ended-by-owner"
        await service.wait(started.run_id)
        await viewer.done()
        assert viewer.of("end")[0]["status"] == "ended by its owner"
        assert viewer.every_step() == list(range(ended.steps))


@pytest.mark.slow
async def test_a_portal_that_closes_stops_its_ray_runs_at_step_k(cluster, postgres, world, mind):
    async with on_ray(postgres.new_schema()) as service:
        started = await service.start(society(world, mind), steps=None, owner="u")
        await taken(service, started.run_id)
        await until(lambda: recorded(service, started.run_id) >= 50, what="50 steps")
        store = RunStore(service.store.url.render_as_string(hide_password=False))
    run = store.get_run(started.run_id)  # the service's store is closed: read with another
    check_record(store, started.run_id, f"interrupted at step {run.step_count - 1}")
    assert run.step_count >= 50 and run.world_score is not None  # the worker ended it properly
    assert run.events[-1].text == "the portal stopped before the run ended"
    store.close()


@pytest.mark.slow
async def test_a_run_no_ray_worker_takes_could_not_start_and_says_why(cluster, postgres, world, mind):
    # each run asks for more CPUs than the cluster has: Ray never schedules it
    async with on_ray(postgres.new_schema(), num_cpus=3, start_timeout=2) as service:
        started = await service.start(society(world, mind), steps=10, owner="u")
        await asyncio.sleep(0.5)
        assert service.store.get_run(started.run_id, max_steps=0).status == "running", "held by the portal"
        assert await service.wait(started.run_id) == "could not start"
        run = service.store.get_run(started.run_id)
        assert run.step_count == 0 and run.events[-1].kind == "run-ended"
        assert run.events[-1].text == ("no Ray worker took the run within 2 s (does a node of the cluster "
                                       "have 3 CPU free?)")
        assert service.recover() == []


# ---- a worker lost mid-run -------------------------------------------------------------------
@pytest.mark.slow
@pytest.mark.parametrize("kill", ["kill -9", "ray.kill"])
async def test_a_ray_worker_killed_mid_run_leaves_it_interrupted_at_step_k_and_the_portal_goes_on(
        cluster, postgres, world, mind, kill):
    async with on_ray(postgres.new_schema()) as service, serving(service) as base:
        started = await service.start(society(world, mind), steps=None, owner="u")
        _, pid = await taken(service, started.run_id)
        await until(lambda: recorded(service, started.run_id) >= 200, what="200 steps")
        viewer = Viewer(f"{base}/live/{started.run_id}")
        await asyncio.to_thread(viewer.connected.wait, 10)
        if kill == "kill -9":  # the worker process executing the run, as a lost machine
            os.kill(pid, signal.SIGKILL)
        else:                  # an operator, or Ray itself, ending the actor
            cluster.kill(service.executor._runs[started.run_id].actor)  # type: ignore[union-attr]
        t0 = time.monotonic()
        status = await asyncio.wait_for(service.wait(started.run_id), 60)
        print(f"\n{kill}: the lost worker's run was marked {(time.monotonic() - t0) * 1000:.0f} ms after")

        run = service.store.get_run(started.run_id)
        k = run.step_count - 1
        assert k >= 199 and status == f"interrupted at step {k}"
        run = check_record(service.store, started.run_id, f"interrupted at step {k}")
        assert run.events[-1].kind == "interrupted"
        assert run.events[-1].text.startswith(f"the Ray worker running it (pid {pid} on ")
        await viewer.done()
        assert viewer.of("end")[0]["status"] == f"interrupted at step {k}"
        assert viewer.every_step() == list(range(k + 1))
        assert service.recover() == [], "marked once"

        again = await service.start(society(world, mind), steps=30, owner="u")
        assert await service.wait(again.run_id) == "completed"
        check_record(service.store, again.run_id, "completed")


async def _portal(db: str, world_url: str, mind_url: str, address: str) -> None:
    """A portal process on the test's Ray cluster (the kill test's): one run, until killed."""
    from wwm.portal.workers import RayExecutor

    service = RunService(db, poll=0.2, executor=RayExecutor(address))
    started = await service.start({"world": {"url": world_url}, "mind": {"url": mind_url}}, steps=None, owner="u")
    _, pid = await taken(service, started.run_id)
    print(started.run_id, started.end_secret, pid, flush=True)
    await asyncio.Event().wait()


@pytest.mark.slow
async def test_a_portal_killed_mid_run_loses_its_ray_worker_and_the_next_portal_marks_the_run(
        cluster, postgres, world, mind):
    """Ray ends the actors of a portal process that dies; no executor is left to see it, so the
    run store's dead-writer detection and the next portal's sweep mark the run."""
    db = postgres.new_schema()
    address = cluster.get_runtime_context().gcs_address
    child = subprocess.Popen([sys.executable, __file__, db, world.url, mind.url, address], stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True)
    try:
        line = await asyncio.to_thread(child.stdout.readline)  # type: ignore[union-attr]
        assert line, child.stderr.read()  # type: ignore[union-attr]
        run_id, secret, pid = int(line.split()[0]), line.split()[1], int(line.split()[2])
        async with RunService(db, poll=0.2, sweep=0.2) as service:
            await until(lambda: recorded(service, run_id) >= 200, what="200 steps")
            assert service.store.get_run(run_id, max_steps=0).status == "running"
            child.send_signal(signal.SIGKILL)
            child.wait(10)
            t0 = time.monotonic()
            await until(lambda: service.store.get_run(run_id, max_steps=0).status.startswith("interrupted at"),
                        timeout=60, what="the run to be marked")
            print(f"\nthe portal's worker (pid {pid}) was gone and its run marked by the sweep "
                  f"{(time.monotonic() - t0) * 1000:.0f} ms after the portal was killed")
            run = service.store.get_run(run_id)
            k = run.step_count - 1
            check_record(service.store, run_id, f"interrupted at step {k}")
            assert k >= 199 and run.events[-1].kind == "interrupted"
            assert service.check_end_secret(run_id, secret)
    finally:
        if child.poll() is None:
            child.kill()
            child.wait(10)


# ---- the store workers can reach; Ray optional -------------------------------------------------
@pytest.mark.slow
async def test_an_sqlite_file_works_when_the_cluster_is_this_machine_alone(cluster, world, mind, tmp_path):
    async with on_ray(f"sqlite:///{tmp_path / 'portal.db'}") as service:
        started = await service.start(society(world, mind), steps=40, owner="u")
        assert await service.wait(started.run_id) == "completed"
        check_record(service.store, started.run_id, "completed")


def test_an_sqlite_file_is_refused_when_workers_may_be_on_other_machines(tmp_path):
    from wwm.portal.workers import check_store

    url = resolve_url(f"sqlite:///{tmp_path / 'portal.db'}")
    here = {"NodeID": "aa", "Alive": True, "NodeManagerAddress": "10.0.0.1"}
    check_store(url, [here, {"NodeID": "bb", "Alive": False, "NodeManagerAddress": "10.0.0.2"}], "aa")
    with pytest.raises(StoreError) as refused:
        check_store(url, [here, {"NodeID": "cc", "Alive": True, "NodeManagerAddress": "10.0.0.3"}], "aa")
    assert str(refused.value) == (
        f"runs on Ray workers write their steps from the workers' machines, and the run store sqlite:///"
        f"{tmp_path / 'portal.db'} is a file on this machine, but the Ray cluster has 1 other node (10.0.0.3); "
        "use PostgreSQL (postgresql://user@host/dbname) for runs beyond one machine (an SQLite file works only "
        "with a cluster of this machine alone)")
    with pytest.raises(StoreError, match="cannot use an in-memory SQLite run store"):
        check_store(resolve_url("sqlite://"), [here], "aa")
    check_store(resolve_url("postgresql://u@db/wwm"), [here, {"NodeID": "cc", "Alive": True}], "aa")


def test_ray_is_optional_and_says_how_to_install_it():
    code = ("import sys; sys.modules['ray'] = None\n"  # as if Ray were not installed
            "import wwm.portal, wwm.portal.runs, wwm.portal.workers\n"
            "from wwm.portal.workers import RayExecutor\n"
            "try:\n    RayExecutor()\nexcept RuntimeError as exc:\n    print(exc)\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60,
                          env={**os.environ, "PYTHONPATH": str(SRC)}, check=True)
    assert done.stdout == "runs on Ray workers need Ray, an optional part of wwm: pip install 'wwm[ray]'\n"
    imported = subprocess.run([sys.executable, "-c", "import sys, wwm.portal.runs, wwm.portal.live; "
                               "print('ray' in sys.modules)"], capture_output=True, text=True, timeout=60,
                              env={**os.environ, "PYTHONPATH": str(SRC)}, check=True)
    assert imported.stdout == "False\n"


if __name__ == "__main__":  # the portal process of the portal kill test
    asyncio.run(_portal(*sys.argv[1:5]))
