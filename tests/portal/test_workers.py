"""Portal runs executed on the workers of a real local Ray cluster (``ray.init(num_cpus=2)``),
over real World and Mind servers on loopback, recording into a throw-away PostgreSQL (as a
deployment beyond one machine would) or an SQLite file (one machine only): a run completes
with every step and a viewer (SSE over real HTTP, served by the portal's process) sees them
all; the owner's secret ends a run executing on a worker; a portal that stops suspends its
Ray runs and the next one carries them on, on new workers; a portal killed mid-run takes its
workers with it and the next one resumes their runs; a worker killed mid-run leaves its run
"interrupted at step k" and the portal goes on; the database password reaches the workers by
their environment, never as an actor's argument."""

from __future__ import annotations

import asyncio
import os
import secrets
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from portal_sites import world_step
from test_runs import Viewer, check_record, check_world_counted_every_step, serving, society, until

from wwm.portal.runs import RunService
from wwm.portal.workers import RayExecutor
from wwm.store import RunStore, StoreError
from wwm.store.engine import resolve_url

SRC = Path(__file__).resolve().parents[2] / "src"


PASSWORD = secrets.token_urlsafe(12)   # the database password of the password test's role


@pytest.fixture(scope="module")
def cluster():
    """One local Ray cluster for the module; its workers import this tree's wwm and have the
    password test's database password in their environment, as ``PGPASSWORD=... ray start``
    gives it to the workers of a node (this process has it only while starting the cluster)."""
    ray = pytest.importorskip("ray")
    os.environ["PYTHONPATH"] = os.pathsep.join(filter(None, [str(SRC), os.environ.get("PYTHONPATH")]))
    before = os.environ.get("PGPASSWORD")
    os.environ["PGPASSWORD"] = PASSWORD
    try:
        ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    finally:
        if before is None:
            del os.environ["PGPASSWORD"]
        else:
            os.environ["PGPASSWORD"] = before
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


# ---- a portal that stops or restarts: its Ray runs carry on -----------------------------------
@pytest.mark.slow
async def test_a_portal_restarted_mid_run_carries_its_ray_runs_on_with_their_ids_secrets_and_viewers(
        cluster, postgres, world, mind):
    db, n = postgres.new_schema(), 1500
    first = on_ray(db)
    # the endless run first: the finite one is then stopped soon after its 50th step, long before
    # its last, however long the endless one's worker took to start (under load: seconds)
    endless = await first.start(society(world, mind), steps=None, owner="u")
    before = [await taken(first, endless.run_id)]
    await until(lambda: recorded(first, endless.run_id) >= 50, what="50 steps of the endless run")
    finite = await first.start(society(world, mind), steps=n, owner="u")
    before.append(await taken(first, finite.run_id))
    await until(lambda: recorded(first, finite.run_id) >= 50, what="50 steps of the finite run")
    await first.close()                   # `wwm portal` at Ctrl-C or SIGTERM: its runs are suspended
    left = {}
    with RunStore(db) as reader:
        for started in (finite, endless):
            run = reader.get_run(started.run_id)
            k = left[started.run_id] = run.step_count - 1
            assert k >= 49 and run.status == f"suspended at step {k}" and run.finished_at is None
            assert started is endless or k < n - 1, "the finite run stopped before its last step"
            assert run.events[-1].kind == "suspended" and run.world_score is None, "no End run was sent"
            assert [s.index for s in run.steps] == list(range(k + 1))

    t0 = time.monotonic()
    async with on_ray(db) as second, serving(second) as base:
        assert sorted(second.recovered) == sorted([(finite.run_id, "resuming"), (endless.run_id, "resuming")])
        viewer = Viewer(f"{base}/live/{finite.run_id}")
        _, pid = await taken(second, endless.run_id)
        print(f"\nfrom a new portal to a Ray worker taking its run: {(time.monotonic() - t0) * 1000:.0f} ms", end="")
        assert pid != os.getpid() and not second.is_running_here(finite.run_id)
        assert await asyncio.wait_for(second.wait(finite.run_id), 60) == "completed"
        await viewer.done()
        run = check_record(second.store, finite.run_id, "completed")   # same run ID, steps 0..n-1 once each
        k = left[finite.run_id]
        assert run.step_count == n and run.pid not in (os.getpid(), *(p for _, p in before)), "a new worker"
        kinds = [(e.step, e.kind) for e in run.events]
        assert (k + 1, "suspended") in kinds and (k + 1, "resumed") in kinds
        assert "step-maybe-lost" not in [kind for _, kind in kinds], "a graceful stop leaves no step in doubt"
        check_world_counted_every_step(run)             # the world's own counter went on from k + 1
        assert world_step(run.steps[-1].new_state) == n, "the world made exactly the recorded steps"
        assert run.world_score == pytest.approx(run.total_score), "End run went to the world's own run"
        assert viewer.every_step() == list(range(n)) and viewer.of("end")[0]["status"] == "completed"

        k = left[endless.run_id]
        await until(lambda: recorded(second, endless.run_id) > k + 20, what="20 resumed steps")
        ended = await second.end(endless.run_id, endless.end_secret)   # the secret given by the first portal
        assert ended.status == "ended by its owner" and ended.steps > k + 20
        await second.wait(endless.run_id)
        run = check_record(second.store, endless.run_id, "ended by its owner")
        check_world_counted_every_step(run)
        assert run.world_score is not None, "End run went to the world"


@pytest.mark.slow
async def test_a_portal_that_closes_ending_its_runs_stops_its_ray_runs_at_step_k(cluster, postgres, world, mind):
    service = on_ray(postgres.new_schema())
    started = await service.start(society(world, mind), steps=None, owner="u")
    await taken(service, started.run_id)
    await until(lambda: recorded(service, started.run_id) >= 50, what="50 steps")
    store = RunStore(service.store.url.render_as_string(hide_password=False))
    await service.close(end_runs=True)    # wwm portal --end-runs-on-exit
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


@pytest.mark.slow
async def test_a_suspended_ray_run_no_worker_takes_again_is_interrupted_at_step_k_saying_why(
        cluster, postgres, world, mind):
    db = postgres.new_schema()
    async with on_ray(db) as first:
        started = await first.start(society(world, mind), steps=None, owner="u")
        await taken(first, started.run_id)
        await until(lambda: recorded(first, started.run_id) >= 20, what="20 steps")
    # the next portal's runs each ask for more CPUs than the cluster has: Ray never schedules it
    async with on_ray(db, num_cpus=3, start_timeout=2) as second:
        assert second.recovered == [(started.run_id, "resuming")]
        status = await asyncio.wait_for(second.wait(started.run_id), 30)
        run = check_record(second.store, started.run_id, status)
        assert run.step_count >= 20 and status == f"interrupted at step {run.step_count - 1}"
        assert run.events[-1].text == ("the run could not be resumed: no Ray worker took the run within 2 s "
                                       "(does a node of the cluster have 3 CPU free?)")
        assert second.recover() == []


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
    service = RunService(db, poll=0.2, executor=RayExecutor(address))
    started = await service.start({"world": {"url": world_url}, "mind": {"url": mind_url}}, steps=None, owner="u")
    _, pid = await taken(service, started.run_id)
    print(started.run_id, started.end_secret, pid, flush=True)
    await asyncio.Event().wait()


@pytest.mark.slow
async def test_a_portal_killed_mid_run_loses_its_ray_worker_and_the_next_portal_resumes_the_run(
        cluster, postgres, world, mind):
    """Ray ends the actors of a portal process that dies; no executor is left to see it, so the
    run store's dead-writer detection and the next portal's sweep find the run, which it
    carries on (on a worker of its own) from the last step the worker committed, saying that
    the step after it may have been executed and not recorded."""
    db = postgres.new_schema()
    address = cluster.get_runtime_context().gcs_address
    child = subprocess.Popen([sys.executable, __file__, db, world.url, mind.url, address], stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True)
    try:
        line = await asyncio.to_thread(child.stdout.readline)  # type: ignore[union-attr]
        assert line, child.stderr.read()  # type: ignore[union-attr]
        run_id, secret, pid = int(line.split()[0]), line.split()[1], int(line.split()[2])
        async with RunService(db, poll=0.2, sweep=0.2, executor=RayExecutor()) as service:
            await until(lambda: recorded(service, run_id) >= 200, what="200 steps")
            assert service.store.get_run(run_id, max_steps=0).status == "running"
            child.send_signal(signal.SIGKILL)
            child.wait(10)
            t0 = time.monotonic()
            _, again = await taken(service, run_id)
            print(f"\nthe portal's worker (pid {pid}) was gone and its run resumed on a worker (pid {again}) of the "
                  f"next portal {(time.monotonic() - t0) * 1000:.0f} ms after the portal was killed", end="")
            assert again != pid
            await until(lambda: len([e for e in service.store.get_run(run_id, max_steps=0).events
                                     if e.kind == "resumed"]) == 1, what="the resumed event")
            k = next(e.step for e in service.store.get_run(run_id, max_steps=0).events if e.kind == "resumed") - 1
            await until(lambda: recorded(service, run_id) > k + 50, what="50 resumed steps")
            ended = await service.end(run_id, secret)
            assert ended.status == "ended by its owner"
            run = check_record(service.store, run_id, "ended by its owner")
            assert k >= 199 and run.pid == again
            lost = [e for e in run.events if e.kind == "step-maybe-lost"]
            assert len(lost) == 1 and lost[0].step == k + 1
            check_world_counted_every_step(run, since=k + 1)   # the world went on from where it was
            assert world_step(run.steps[k + 1].state) >= k + 1, "nothing recorded that the world did not do"
    finally:
        if child.poll() is None:
            child.kill()
            child.wait(10)


# ---- the database password -------------------------------------------------------------------
def password_role(postgres: Any, role: str, password: str) -> Any:
    """A role of the throw-away PostgreSQL that must give ``password`` (SCRAM over TCP), owning a
    schema of its own: the URL of that schema, with the password."""
    import psycopg

    hba = Path(postgres.data) / "pg_hba.conf"
    line = f"host all {role} 127.0.0.1/32 scram-sha-256\n"
    if line not in hba.read_text():
        hba.write_text(line + hba.read_text())
    schema = f"{role}_runs"
    with psycopg.connect(f"host=127.0.0.1 port={postgres.port} user=postgres dbname=postgres",
                         autocommit=True) as conn:
        conn.execute(f"CREATE ROLE {role} LOGIN PASSWORD '{password}'")
        conn.execute(f"CREATE SCHEMA {schema} AUTHORIZATION {role}")
        conn.execute("SELECT pg_reload_conf()")
    with pytest.raises(psycopg.OperationalError):   # the password is needed
        psycopg.connect(f"host=127.0.0.1 port={postgres.port} user={role} dbname=postgres").close()
    return resolve_url(postgres.url()).set(username=role, password=password,
                                           query={"options": f"-csearch_path={schema}"})


def constructed_with(actor: Any) -> tuple[str, str | None]:
    """What a RunWorker actor was given as its store URL, and the password of the URL its store
    opened, read in the actor's own process."""
    import ray

    return ray.get(actor.__ray_call__.remote(lambda worker: (worker.db, worker.service.store.url.password)))


@pytest.mark.slow
async def test_the_database_password_reaches_the_workers_by_their_environment_never_as_an_argument(
        cluster, postgres, world, mind):
    url = password_role(postgres, "wwm_secret", PASSWORD)   # the workers' nodes have it as PGPASSWORD
    async with RunService(url.render_as_string(hide_password=False), poll=0.2,
                          executor=RayExecutor()) as service:
        started = await service.start(society(world, mind), steps=None, owner="u")
        await taken(service, started.run_id)
        await until(lambda: recorded(service, started.run_id) >= 50, what="50 steps")
        db, password = constructed_with(service.executor._runs[started.run_id].actor)  # type: ignore[union-attr]
        assert PASSWORD not in db and password is None, (db, password)
        assert db == url._replace(password=None).render_as_string(hide_password=False)
        assert (await service.end(started.run_id, started.end_secret)).status == "ended by its owner"
        run = check_record(service.store, started.run_id, "ended by its owner")
        assert run.step_count >= 50 and run.pid != os.getpid(), "the worker recorded the steps"

    # A password the workers' environment does not have: the run could not start, saying where
    # a worker takes it from.
    other = password_role(postgres, "wwm_other", secrets.token_urlsafe(12))
    async with RunService(other.render_as_string(hide_password=False), poll=0.2,
                          executor=RayExecutor()) as service:
        started = await service.start(society(world, mind), steps=10, owner="u")
        assert await asyncio.wait_for(service.wait(started.run_id), 60) == "could not start"
        why = service.store.get_run(started.run_id).events[-1].text
        assert why.startswith("the Ray worker could not take the run: cannot open the run store at "
                              f"postgresql+psycopg://wwm_other@127.0.0.1:{postgres.port}/postgres"), why
        assert "password authentication failed" in why and "PGPASSWORD" in why, why
        assert str(other.password) not in why


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
    assert done.stdout == "runs on Ray workers need Ray, an optional part of wwm: pip install 'world-wide-mind[ray]'\n"
    imported = subprocess.run([sys.executable, "-c", "import sys, wwm.portal.runs, wwm.portal.live; "
                               "print('ray' in sys.modules)"], capture_output=True, text=True, timeout=60,
                              env={**os.environ, "PYTHONPATH": str(SRC)}, check=True)
    assert imported.stdout == "False\n"


if __name__ == "__main__":  # the portal process of the portal kill test
    asyncio.run(_portal(*sys.argv[1:5]))
