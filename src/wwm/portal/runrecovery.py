"""Recovery of portal runs after a restart (issue 26, item 8): the runs no process drives any
more are taken over and carried on where they stopped, or marked interrupted, saying why.

**A portal that stops mid-run: its runs resume.** A run's state is the servers', under the
run IDs the World and the top Mind gave at New run; the client holds only those and the step
count. So the service keeps, in the run's row (the store's ``resume`` column, never in its
public events: a run ID is the key to the run on its server), the World's and the Mind's URLs,
bindings and run IDs and the steps asked, once New run has answered. Then:

- ``close()`` (Ctrl-C, SIGTERM: the portal's lifespan) *suspends* its runs: each stops at its
  next step boundary (cancelled after ``suspend_wait`` seconds if a query hangs), End run is
  *not* sent, and the run is left ``"suspended at step k"``. ``close(end_runs=True)`` (``wwm
  portal --end-runs-on-exit``) ends them instead, as before: End run, "interrupted at step k".
- A new service on the database (its constructor, and every ``sweep`` seconds) takes over each
  suspended run and each run whose writer died (the store knows: its process is gone from this
  host, or its heartbeat is older than 30 s), adopting it in the store (one process wins), and
  carries it on: the recorded run IDs re-attached (no New run), Get state first, then the run
  loop from step k + 1 to the steps asked, with the same run ID in the store, the same end
  secret, viewers as for any run (``recovered`` lists them as ``(run ID, "resuming")``).
- After a process that died (kill -9) the Execute action of step k + 1 may have been sent and
  not recorded (and a buffered moment of steps may not have been written): the resumed run
  says so in a ``step-maybe-lost`` event, comparing the World's state with the one step k left.
  Nothing is ever sent again.
- A server that no longer knows the run (``unknown-run``: its idle time-out passed, it
  restarted without snapshots) or does not answer within the run's ``start_wait`` leaves the
  run ``"interrupted at step k"``, with steps 0..k as recorded and the reason in its
  ``interrupted`` event. So does a run without a resume record (one that never got its run
  IDs), as before.

**How long a run can wait.** Servers drop a run silent for ``idle_seconds`` (``wwm serve
--idle-timeout``, 3600 s by default; swept every 30 s); an exclusive world frees itself for
another client after ``lease_seconds`` (30 s by default) without a query. A suspended run
resumes if the portal is back within that: an hour, on default servers. Only runs started by
a portal (with a secret) are taken over; ``wwm run``'s runs are left to ``wwm runs``.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
from typing import Any

from ..client.remote import RemoteMind, RemoteWorld
from ..client.runner import RunSettings
from ..client.society import Society, SocietyError, parse
from ..protocol.errors import Refusal
from ..protocol.records import Event
from ..store import RunStore, StoreError
from .pacing import pace_of
from .runhost import Claimed, RunHost
from .runrecorder import ENDED_BY_OWNER, SUSPENDED, PortalRecorder, interrupted_at
from .runsecrets import portal_run_ids


class CannotResume(Exception):
    """A suspended or orphaned run cannot be carried on; the text says why."""


def recover(service: RunHost) -> list[tuple[int, str]]:
    """Take over every portal run no process is driving: a run a closing service left
    "suspended at step k", and a run whose writing process is dead. With what resuming
    needs on record (the servers' run IDs) and a resumable service, the run is adopted
    here, to be carried on from step k + 1 (``(run ID, "resuming")``;
    :meth:`RunService.activate` drives it); otherwise it is marked "interrupted at step k"
    (steps 0..k stay as recorded), or "ended by its owner" if its end was asked for.
    Returns the (run ID, what was done) pairs. A service that is not resumable leaves runs that could be
    resumed to one that is; one that does not take over runs (a Ray worker's) does nothing."""
    if not service.takes_over:
        return []
    left_behind = service.store.unfinished(like=f"{SUSPENDED} %")
    portal_runs = portal_run_ids(service.store, [u.id for u in left_behind])
    candidates = [u for u in left_behind if u.id in portal_runs]
    done = []
    for row in candidates:
        run_id = row.id
        if run_id in service._runs or any(c.run_id == run_id for c in service._claimed):
            continue
        if service.executor is not None and service.executor.has(run_id):
            continue  # on one of this service's workers: a lost worker is the executor's to mark
        left = row.status
        if left == "running":
            try:
                if service.store.get_run(run_id, max_steps=0).status != "interrupted":
                    continue  # alive in another process
            except StoreError:
                continue
            left = "interrupted"
        resume = row.resume
        secret = service._secret_row(run_id)
        asked_end = secret is not None and secret["end_requested_at"] is not None
        if resume is not None and not service.resumable:
            continue
        if resume is not None and not asked_end and not service._closed:
            if service.store.adopt_run(run_id, status=row.status, host=row.host, pid=row.pid):
                service._claimed.append(Claimed(run_id, row.society, resume, left))
                done.append((run_id, "resuming"))
            continue
        why = ("the process running it stopped before the run ended" if left == "interrupted"
               else "the portal that suspended it stopped")
        marked = service.mark_lost(run_id, why, current=row.status, resumable=resume is not None)
        if marked is not None:
            done.append((run_id, marked))
    return done


def mark_lost(service: RunHost, run_id: int,
              why: str = "the process running it stopped before the run ended", *,
              current: str = "running", resumable: bool = False,
              writer: tuple[str, int] | None = None) -> str | None:
    """Finish a portal run whose executing process is gone, with the steps it recorded:
    "interrupted at step k", or "ended by its owner" if the end was asked for; None if
    the run was finished meanwhile (by its process, or by another sweep). ``current``:
    the status it is left with ("running", or "suspended at step k"); ``writer``: the
    (host, PID) that wrote it, when known: a run another process adopted since (a sweep
    that resumes it) is left alone."""
    row = service._secret_row(run_id)
    if row is not None and row["end_requested_at"] is not None:
        return mark(service.store, run_id, ENDED_BY_OWNER, "ended-by-owner",
                    "the run was ended by its owner after its process had stopped", current=current,
                    writer=writer)
    cannot = ("" if resumable else "; it cannot be resumed: the servers' run IDs were not recorded "
              "(it never got to its first step)")
    return mark(service.store, run_id, None, "interrupted", f"{why}{cannot}", current=current, writer=writer)


def mark(store: RunStore, run_id: int, status: str | None, kind: str, text: str, *,
         current: str = "running", writer: tuple[str, int] | None = None) -> str | None:
    """Finish a run nobody is writing any more, with its recorded steps; None if another
    process did it first (or, with ``writer``, adopted it since)."""
    return store.close_left(run_id, status or interrupted_at, kind, text, current=current, writer=writer)


def resume_claimed(service: RunHost) -> None:
    """Drive the runs :func:`recover` took over, each from the step after its last one:
    here, or on the service's executor (a Ray worker, which re-attaches to the servers'
    runs as this process would)."""
    claimed, service._claimed = service._claimed, []
    for claim in claimed:
        try:
            society = parse(claim.society, source="the society document")
            steps = claim.resume.get("steps")
            settings = dataclasses.replace(society.settings(),
                                           steps=steps if isinstance(steps, int) and steps > 0 else None)
            run = service.store.get_run(claim.run_id, max_steps=0)
        except (SocietyError, StoreError) as exc:
            with contextlib.suppress(StoreError):
                service.store.finish_run(claim.run_id, "interrupted")
            mark_after(service.store, claim.run_id, f"the run could not be resumed: {exc}")
            continue
        if service.executor is not None:   # checked here before a worker reconnects (and again there)
            asyncio.get_running_loop().create_task(_submit_checked(service, claim, society, settings.steps),
                                                   name=f"wwm-portal-resume-{claim.run_id}")
        else:
            service._launch(claim.run_id, society, settings, claimed=claim,
                            counted=(run.step_count, run.total_score or 0.0), pace=pace_of(claim.resume))


async def _submit_checked(service: RunHost, claim: Claimed, society: Society, steps: int | None) -> None:
    """Hand a run taken over to the executor once the service's guard (the ``--public``
    address policy) allows every server it reconnects to; else it ends "interrupted at step k",
    saying why, and no worker reconnects."""
    assert service.executor is not None
    if service.guard is not None:
        try:
            await service.guard(society)
        except Exception as exc:  # noqa: BLE001 - the guard's refusal, said in the run's record
            await asyncio.to_thread(_refuse, service.store, claim.run_id, f"the run could not be resumed: {exc}")
            return
    service.executor.submit(claim.run_id, claim.society, steps, resuming=claim.left)


def _refuse(store: RunStore, run_id: int, text: str) -> None:
    with contextlib.suppress(StoreError):
        store.finish_run(run_id, "interrupted")
    mark_after(store, run_id, text)


def mark_after(store: RunStore, run_id: int, text: str) -> None:
    """A run finished as "interrupted" by this store: its step in the status, and why."""
    store.close_left(run_id, interrupted_at, "interrupted", text, current="interrupted")


async def reattach(store: RunStore, claim: Claimed, mind: Any, world: Any, settings: RunSettings,
                   recorder: PortalRecorder) -> None:
    """Re-attach ``mind`` and ``world`` to the servers' runs the claimed run had (no New
    run), check that both still know them (Get state first), and say in events how the
    run was left and where it carries on. Raises :class:`CannotResume`."""
    run_id, k = claim.run_id, recorder.steps
    if not (isinstance(mind, RemoteMind) and isinstance(world, RemoteWorld)):
        raise CannotResume("a World or a Mind made in the portal's process kept the run's state, "
                           "and that process is gone")
    try:
        world.reattach(claim.resume["world"])
        mind.reattach(claim.resume["mind"])
    except (KeyError, TypeError, ValueError) as exc:
        raise CannotResume(f"the record of the servers' runs is incomplete ({exc})") from None
    await asyncio.to_thread(store.set_resume, run_id, {**claim.resume, "clean": False})
    state = await still_there(world, mind, settings)
    if claim.left == "interrupted" or not claim.resume.get("clean"):
        last = await asyncio.to_thread(store.get_run, run_id, from_step=max(0, k - 1), max_steps=1)
        how = ("the portal process stopped without suspending the run (killed, or its machine lost)"
               if claim.left == "interrupted" else "the portal stopped the run in the middle of a step")
        text = f"step {k} may have been executed but not recorded: {how}"
        if last.steps:
            text += ("; the world's state now is the one step {0} left, so probably it was not"
                     if last.steps[-1].new_state == state else
                     "; the world's state now is not the one step {0} left: steps after {0} were "
                     "executed and not recorded").format(k - 1)
        recorder.on_event(Event(k, "step-maybe-lost", text))
    recorder.on_event(Event(k, "resumed", f"the portal took the run up again at step {k}: the World's and the "
                                          "Mind's runs re-attached (no New run), the world asked for its state"))


async def still_there(world: RemoteWorld, mind: RemoteMind, settings: RunSettings) -> str:
    """The World's state under the re-attached run (Get state), after checking that the
    Mind still knows its run (No operation). A server that refuses the run (``unknown-run``:
    its idle time-out passed, it restarted) or stays down for ``start_wait`` seconds raises
    :class:`CannotResume`."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + settings.start_wait
    pause = settings.retry_pause
    for who, call in (("world", world.get_state), ("mind", mind.no_operation)):
        while True:
            try:
                async with asyncio.timeout(settings.timeout):
                    answer = await call()
                break
            except (TimeoutError, Refusal) as exc:
                down = not isinstance(exc, Refusal) or exc.code in ("unreachable", "timeout")
                if not down:
                    raise CannotResume(f"the {who} server no longer has the run: {exc}") from None
                if loop.time() >= deadline:
                    what = str(exc) if isinstance(exc, Refusal) else f"no answer within {settings.timeout:g} s"
                    raise CannotResume(f"the {who} server does not answer ({what}; waited "
                                       f"{settings.start_wait:g} s: start_wait)") from None
                await asyncio.sleep(pause)
                pause = min(pause * 2, 2.0)
        if who == "world":
            state = answer
    return str(state)


async def end_runs(servers: list[Any], timeout: float) -> None:
    """End run to re-attached servers (an owner's end before the resumed loop began)."""
    for server in servers:
        with contextlib.suppress(Exception):
            async with asyncio.timeout(timeout):
                await server.end_run()
