"""Portal runs executed on the workers of a Ray cluster (issue 14, item 8: runs beyond one
machine)::

    service = RunService("postgresql://wwm@db.example/wwm", executor=RayExecutor("ray-head:6379"))
    started = await service.start(document, steps=500, owner="user:42")   # as before

**What executes where.** :meth:`RunService.start` records the run and its end secret in the
portal's process, as it always does, then :meth:`RayExecutor.submit` creates one Ray *actor*
(:class:`RunWorker`, an async actor: the run loop is asyncio) for the run, on any node with a
free ``num_cpus``. The actor opens the same database, *adopts* the run in the store (the run's
row gets the worker's host and PID, and the worker's store writes its steps and heartbeat from
then on), and drives it with a :class:`RunService` of its own. An actor rather than a task: the
run is one long-lived process of its own, whose death is the run's loss and nothing else's, that
the portal can ask to stop, and that Ray never retries (``max_restarts=0``: a restarted actor
would start the run anew with a New run, not carry it on).

**Ending.** The end secret is checked and the end request written in the database by whichever
portal process gets the request; the worker's service looks for end requests of its runs every
``poll`` seconds and stops the run ("ended by its owner", steps intact), exactly as between two
portal processes. Nothing goes through Ray for it, so it works from a restarted portal too.

**Watching.** The portal's hub has no channel for a run executed elsewhere, so viewers follow
it through the store (:mod:`.live`), every ``poll`` seconds.

**A portal that stops or restarts does not lose its Ray runs.** A worker's service keeps the
run's resume record (the World's and the Mind's URLs, bindings and run IDs, in the run's row),
as the portal's in-process runs do (:mod:`.runs`). So:

- A portal that closes (Ctrl-C, SIGTERM: :meth:`RunService.close`) asks each worker to
  *suspend* its run (:meth:`RunWorker.stop`): it stops at its next step boundary, End run is not
  sent, the run is left "suspended at step k" and the worker goes. ``close(end_runs=True)``
  (``wwm portal --end-runs-on-exit``) ends them instead: End run, "interrupted at step k".
- The next portal on the database (:meth:`RunService.recover`, at its start and every ``sweep``
  seconds) takes each suspended run over and hands it to a new worker (``submit(...,
  resuming=...)``), which adopts it, re-attaches to the servers' runs (no New run), asks the
  World for its state and carries the run on from step k + 1: same run ID, same end secret,
  steps 0..k as they were, viewers following it through the store as before.
- A portal killed outright takes its workers with it (the actors belong to the process that
  made them; Ray kills them when it dies). Their runs' writer is then dead, and the next
  portal's sweep resumes them the same way, with a ``step-maybe-lost`` event: the worker may
  have sent step k + 1's Execute action without recording it. Nothing is ever sent again.

Why suspend and resume rather than detached actors that outlive the portal: one way of carrying
a run on, the one the in-process runs have (same resume record, same guarantees on what the
World saw), whatever the cluster (a local Ray of the portal's own process dies with it); no
actor left holding a CPU when no portal comes back; a run is never driven by a worker no portal
follows. What it costs: a run waits while no portal is up (an hour on default servers, their
idle time-out), as an in-process run does.

**A worker lost mid-run while its portal runs** (killed, its process or node gone) is found by
the executor at once (Ray fails the portal's call that waits for the run) and the run marked
"interrupted at step k" with steps 0..k as the worker committed them (a worker commits every
0.25 s, so at most the last moment's steps are lost), or "ended by its owner" if the end had been
asked for. It is not resumed on another worker: a run that killed its worker (its memory, a
crash) would kill the next one, and Ray does not retry it either (``max_restarts=0``). The
portal's own sweep leaves the runs its executor follows alone; another portal process's sweep
that finds the dead worker first (the store sees a dead writer: its PID gone from that host, or
no heartbeat for 30 s) resumes the run instead, and the executor then leaves it to that one.

**The database password never travels as an argument.** An actor's arguments pass through
Ray's control store and can show up in its dashboard and logs, so a worker is given the
store's URL *without* its password and takes the password from its own environment, as libpq
does for any PostgreSQL client: ``PGPASSWORD``, or a password file (``PGPASSFILE``, else
``~/.pgpass``) on the worker's node. Start each node with it (``PGPASSWORD=... ray start
...``, or a ``~/.pgpass`` for the user Ray runs as). A local cluster the executor starts
itself (no ``address``, Ray not yet initialised) inherits this process's environment, and the
executor puts the password there as ``PGPASSWORD`` while it starts the cluster, so nothing is
needed on one machine. Ray's ``runtime_env`` (``env_vars``) is no better than an argument: it
is kept and shown with the job and its actors too. A worker that cannot log in leaves the run
"could not start", saying where it takes the password from.

**The store must be reachable from every worker.** PostgreSQL for a real cluster. An SQLite
file is refused unless this machine is the cluster's only node, and then the actors are pinned
to this node, so a node that joins later never gets a run it could not record; an in-memory
SQLite database is always refused. ``worker_db`` gives the URL workers use when it differs from
the portal's (another host name for the same database; its password is not sent either).

**Ray is optional** (``pip install 'world-wide-mind[ray]'``): importing :mod:`wwm.portal` never imports
it; making a :class:`RayExecutor` without it raises one :class:`RuntimeError` that says so.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import re
import time
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from sqlalchemy.engine import URL

from ..store import RunStore, StoreError
from ..store.engine import resolve_url, shown
from ..store.store import HOST
from .fetching import Policy, society_guard
from .runs import COULD_NOT_START, RunService

log = logging.getLogger(__name__)

RAY_MISSING = "runs on Ray workers need Ray, an optional part of wwm: pip install 'world-wide-mind[ray]'"


def import_ray() -> Any:
    """The ``ray`` module, or the one error that says how to install it."""
    try:
        import ray
    except ImportError:
        raise RuntimeError(RAY_MISSING) from None
    return ray


# ---- the store, across processes ----------------------------------------------------------
# RunStore has a process open a run it started; a Ray run is started (recorded) by the portal
# and written by a worker, so the worker takes the run over (adopt_run) and the portal lets it
# go (release_run).

def adopt(store: RunStore, run_id: int) -> None:
    """Make this process the writer of ``run_id``, a "running" run another process recorded:
    its row names this host and PID (so a reader finds it dead when this process is), and
    this process's store takes its steps and beats its heartbeat."""
    if not store.adopt_run(run_id):
        raise StoreError(f"run {run_id} is not running any more; there is nothing to execute")


def release(store: RunStore, run_id: int) -> None:
    """Stop writing ``run_id`` from this process (no heartbeat, not finished on close): its
    writer is now another process."""
    store.release_run(run_id)


def check_store(url: URL, nodes: list[dict[str, Any]], here: str) -> None:
    """Refuse a store that Ray workers could not all reach: an in-memory SQLite database, or
    an SQLite file when the cluster (``ray.nodes()``) has alive nodes other than ``here``."""
    if url.get_backend_name() != "sqlite":
        return
    if url.database in (None, "", ":memory:"):
        raise StoreError("runs on Ray workers cannot use an in-memory SQLite run store: a worker is "
                         "another process and would not see it; use PostgreSQL (postgresql://user@host/dbname)")
    others = sorted(str(n.get("NodeManagerAddress", n.get("NodeID"))) for n in nodes
                    if n.get("Alive") and n.get("NodeID") != here)
    if others:
        raise StoreError(f"runs on Ray workers write their steps from the workers' machines, and the run "
                         f"store {shown(url)} is a file on this machine, but the Ray cluster has "
                         f"{len(others)} other node{'s' if len(others) > 1 else ''} ({', '.join(others)}); "
                         "use PostgreSQL (postgresql://user@host/dbname) for runs beyond one machine (an "
                         "SQLite file works only with a cluster of this machine alone)")


# ---- the worker: one Ray actor per run ----------------------------------------------------
class RunWorker:
    """One portal run in a Ray worker process (made a Ray actor by :class:`RayExecutor`).
    ``db``: the run store's URL, never with a password (see the module's docstring)."""

    def __init__(self, db: str, poll: float, policy: Policy | None = None) -> None:
        self.db, self.poll, self.policy = db, poll, policy
        self.service: RunService | None = None
        self.run_id: int | None = None

    async def begin(self, run_id: int, document: dict[str, Any], steps: int | None,
                    resuming: str | None = None) -> tuple[str, int]:
        """Adopt ``run_id`` and start driving it (carry it on from its last recorded step,
        ``resuming``); this worker's (host, PID)."""
        # sweep, takes_over: never; looking for other processes' dead runs is the portals' job.
        # Resumable: the run's resume record is kept, and a portal that closes suspends it.
        try:
            self.service = await asyncio.to_thread(RunService, self.db, poll=self.poll, sweep=float("inf"),
                                                   takes_over=False)
        except StoreError as exc:
            raise StoreError(f"{exc}{_password_hint(self.db)}") from None
        if self.policy is not None:   # the portal's address policy, checked here before every connection
            self.service.guard = society_guard(self.policy)
        await asyncio.to_thread(adopt, self.service.store, run_id)
        try:
            await self.service.execute(run_id, document, steps, resuming=resuming)
        except BaseException:
            release(self.service.store, run_id)  # the portal marks it "could not start"
            raise
        self.run_id = run_id
        return HOST, os.getpid()

    async def finish(self) -> str:
        """Wait for the run to end (or to be suspended), write the rest of its record; its status."""
        assert self.service is not None and self.run_id is not None
        status = await self.service.wait(self.run_id)
        await self.service.close()
        return status

    async def stop(self, end_runs: bool = False) -> None:
        """Stop the run as a portal that closes stops its own: suspended at its next step
        boundary ("suspended at step k", for the next portal to resume), or, ``end_runs``,
        ended ("interrupted at step k", End run sent)."""
        if self.service is not None:
            await self.service.close(end_runs=end_runs)


def _password_hint(db: str) -> str:
    """What to tell when a worker cannot open a PostgreSQL store given without a password."""
    url = resolve_url(db)
    if url.get_backend_name() != "postgresql" or url.password is not None:
        return ""
    return ("; a Ray worker is never sent the database password: it takes it from its own environment, "
            "as libpq does (PGPASSWORD, or PGPASSFILE or ~/.pgpass on the worker's node)")


def worker_url(url: URL) -> str:
    """The store URL given to the workers: ``url`` without its password (an actor's arguments
    can show up in Ray's dashboard and logs); the workers take the password from their own
    environment (PGPASSWORD, PGPASSFILE or ~/.pgpass, which libpq reads)."""
    return url._replace(password=None).render_as_string(hide_password=False)


@dataclass
class _Remote:
    actor: Any
    follower: asyncio.Task[None] | None = None
    where: tuple[str, int] | None = None   # the worker's host and PID, once it adopted the run


class RayExecutor:
    """Executes a :class:`RunService`'s runs on a Ray cluster (see the module's docstring).

    ``address``: the cluster (``"ray-head:6379"``, ``"auto"``); None: the cluster this process
    is already connected to, else a new local one. ``num_cpus``: what each run reserves on its
    node. ``start_timeout``: a run no worker has taken within it ends "could not start".
    ``worker_db``: the database URL the workers use (None: the service's own)."""

    def __init__(self, address: str | None = None, *, num_cpus: float = 1.0, start_timeout: float = 120.0,
                 worker_db: str | None = None) -> None:
        self._ray = import_ray()
        self.address, self.num_cpus, self.start_timeout, self.worker_db = address, num_cpus, start_timeout, worker_db
        self.service: RunService | None = None
        self._runs: dict[int, _Remote] = {}
        self._options: dict[str, Any] = {}
        self._actor_class: Any = None
        self._shutdown = False
        self._closing: bool | None = None   # closing: whether its runs are ended (else suspended)

    # ---- joining a service, and the cluster ------------------------------------------------
    def bind(self, service: RunService) -> None:
        if self.service is not None:
            raise RuntimeError("a RayExecutor executes the runs of one RunService")
        ray = self._ray
        url = service.store.url
        if not ray.is_initialized():
            if self.address:
                ray.init(address=self.address, log_to_driver=False)
            else:
                # A local cluster of this process: its workers inherit this environment, so
                # they get the password as PGPASSWORD (never as an actor's argument).
                password = (resolve_url(self.worker_db) if self.worker_db else url).password
                with _environment(PGPASSWORD=None if password is None else str(password)):
                    ray.init(include_dashboard=False, log_to_driver=False)
            self._shutdown = True
        here = ray.get_runtime_context().get_node_id()
        check_store(url if self.worker_db is None else resolve_url(self.worker_db), ray.nodes(), here)
        self._options = {"num_cpus": self.num_cpus, "max_restarts": 0, "max_task_retries": 0}
        if url.get_backend_name() == "sqlite" and self.worker_db is None:
            from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

            # the file is on this node: a node that joins the cluster later gets no run
            self._options["scheduling_strategy"] = NodeAffinitySchedulingStrategy(node_id=here, soft=False)
        self._actor_class = ray.remote(RunWorker)
        self.service = service

    # ---- runs ------------------------------------------------------------------------------
    def submit(self, run_id: int, document: dict[str, Any], steps: int | None, *,
               resuming: str | None = None) -> None:
        assert self.service is not None, "bind first"
        db = worker_url(resolve_url(self.worker_db) if self.worker_db else self.service.store.url)
        actor = self._actor_class.options(**self._options).remote(db, self.service.poll, self.service.policy)
        remote = _Remote(actor)
        self._runs[run_id] = remote
        begin = actor.begin.remote(run_id, document, steps, resuming)
        remote.follower = asyncio.create_task(self._follow(run_id, remote, begin, resuming is not None),
                                              name=f"wwm-ray-run-{run_id}")

    async def _follow(self, run_id: int, remote: _Remote, begin: Any, resuming: bool) -> None:
        """Wait for the worker to take the run, then for it to finish it; mark the run if the
        worker could not take it or was lost."""
        ray, service = self._ray, self.service
        assert service is not None
        try:
            try:
                host, pid = await asyncio.wait_for(_awaitable(begin), self.start_timeout)
            except TimeoutError:
                self._kill(remote)
                why = (f"no Ray worker took the run within {self.start_timeout:g} s "
                       f"(does a node of the cluster have {self.num_cpus:g} CPU free?)")
                await asyncio.to_thread(self._could_not_start, run_id, why, resuming)
                return
            except ray.exceptions.RayError as exc:
                self._kill(remote)
                why = f"the Ray worker could not take the run: {_cause(exc)}"
                await asyncio.to_thread(self._could_not_start, run_id, why, resuming)
                return
            remote.where = (host, pid)
            release(service.store, run_id)  # the worker writes it now
            if self._closing is not None:   # the portal closed while the worker took the run
                with contextlib.suppress(Exception):
                    remote.actor.stop.remote(self._closing)
            try:
                await _awaitable(remote.actor.finish.remote())
            except ray.exceptions.RayActorError as exc:
                log.warning("portal run %s: its Ray worker was lost: %s", run_id, _cause(exc))
                # Ray may say so before the process has stopped writing: count its steps once it has
                await asyncio.to_thread(_wait_until_gone, host, pid)
                await asyncio.to_thread(service.mark_lost, run_id,
                                        f"the Ray worker running it (pid {pid} on {host}) was lost",
                                        resumable=True, writer=(host, pid))
            except ray.exceptions.RayError as exc:
                log.warning("portal run %s: its Ray worker failed: %s", run_id, _cause(exc))
                await asyncio.to_thread(service.mark_lost, run_id, f"the Ray worker running it failed: {_cause(exc)}",
                                        resumable=True, writer=(host, pid))
        finally:
            self._runs.pop(run_id, None)
            self._kill(remote)

    def _could_not_start(self, run_id: int, why: str, resuming: bool) -> None:
        """No worker took the run: a new run "could not start"; a run being resumed is left
        "interrupted at step k", its steps as they were."""
        assert self.service is not None
        release(self.service.store, run_id)
        if resuming:
            self.service._mark(run_id, None, "interrupted", f"the run could not be resumed: {why}")
        else:
            self.service._mark(run_id, COULD_NOT_START, "run-ended", why)

    def _kill(self, remote: _Remote) -> None:
        with contextlib.suppress(Exception):
            self._ray.kill(remote.actor, no_restart=True)

    def has(self, run_id: int) -> bool:
        return run_id in self._runs

    def where(self, run_id: int) -> tuple[str, int] | None:
        """The host and PID of the worker executing ``run_id`` (None: not taken yet, or done)."""
        remote = self._runs.get(run_id)
        return None if remote is None else remote.where

    async def wait(self, run_id: int) -> None:
        remote = self._runs.get(run_id)
        if remote is not None and remote.follower is not None:
            await asyncio.wait([remote.follower])

    async def close(self, timeout: float = 30.0, *, end_runs: bool = False) -> None:
        """Ask every worker to stop its run as the portal's own runs stop: suspended ("suspended
        at step k", the servers keep their runs, the next portal resumes it) or, ``end_runs``,
        ended ("interrupted at step k"); wait ``timeout`` seconds at most, then let the workers
        go; a run still not stopped is marked from here. Disconnects from Ray if this executor
        connected."""
        self._closing = end_runs
        running = list(self._runs.items())
        for _, remote in running:
            if remote.where is not None:  # a worker still taking its run is asked once it has
                with contextlib.suppress(Exception):
                    remote.actor.stop.remote(end_runs)
        followers = [r.follower for _, r in running if r.follower is not None]
        if followers:
            await asyncio.wait(followers, timeout=timeout)
        for run_id, remote in running:
            if remote.follower is not None and not remote.follower.done():
                remote.follower.cancel()
                self._kill(remote)
                assert self.service is not None
                release(self.service.store, run_id)
                await asyncio.to_thread(self.service.mark_lost, run_id, "the portal stopped before the run ended",
                                        resumable=True)
        if self._shutdown:
            self._ray.shutdown()


@contextlib.contextmanager
def _environment(**values: str | None) -> Iterator[None]:
    """This process's environment with ``values`` set (None: left as it is), restored after."""
    saved = {name: os.environ.get(name) for name in values}
    for name, value in values.items():
        if value is not None:
            os.environ[name] = value
    try:
        yield
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


def _awaitable(ref: Any) -> Any:
    """A Ray ObjectRef as an asyncio future (``asyncio.wait_for`` wants one)."""
    return asyncio.wrap_future(ref.future())


def _cause(exc: BaseException) -> str:
    """The last line of a Ray error (the worker's own exception), without the exception's
    qualified name when it is one of wwm's errors, whose text says it all."""
    text = str(exc).strip()
    last = text.splitlines()[-1] if text else type(exc).__name__
    return re.sub(r"^wwm(\.\w+)+Error: ", "", last)


def _wait_until_gone(host: str, pid: int, timeout: float = 10.0) -> bool:
    """Wait until process ``pid`` of this host has stopped (gone, or a zombie: it writes nothing
    more); True once it has. A worker on another host cannot be watched from here: False at once
    (its steps are counted when Ray reports it lost, and any it writes later are not counted)."""
    if host != HOST:
        return False
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            with open(f"/proc/{pid}/stat") as stat:
                if stat.read().rsplit(")", 1)[1].split()[0] in ("Z", "X"):
                    return True
        except (FileNotFoundError, ProcessLookupError, IndexError):
            return True
        except OSError:  # no /proc here: ask the process table
            try:
                os.kill(pid, 0)
            except ProcessLookupError:
                return True
            except PermissionError:
                pass
        time.sleep(0.02)
    return False
