"""Driving portal runs (issue 26, item 8): each run is a task of the service's event loop,
and a watcher stops the runs their owners ended elsewhere and sweeps for runs left behind.

:func:`launch` makes a run's recorder and task; :func:`drive` is that task: it checks the
servers (the portal's address policy first, then that they answer), re-attaches a resumed run
to its servers' runs, and runs the project's run loop (:class:`wwm.client.runner.Runner`, with
its time-outs and recovery policies; paced for watching if asked) to the run's end, whatever it
is.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable
from typing import Any

from ..client.runner import Runner, RunSettings
from ..client.session import check_servers
from ..client.society import Society
from ..protocol.errors import Refusal
from ..protocol.records import Event, RunResult
from ..store import StoreError
from .pacing import PacedRunner
from .runhost import Claimed, RunHost, Running
from .runrecorder import COULD_NOT_START, PortalRecorder
from .runrecovery import CannotResume, end_runs, reattach
from .runsecrets import end_requests

log = logging.getLogger("wwm.portal.runs")


def launch(service: RunHost, run_id: int, society: Society, settings: RunSettings,
           finished: Callable[[str], None] | None = None, claimed: Claimed | None = None,
           counted: tuple[int, float] = (0, 0.0), pace: float | None = None) -> None:
    """Drive ``run_id`` as a task of the running loop (a resumed one if ``claimed``, from
    the ``counted`` steps and total it recorded), its recorder publishing to the service's hub."""
    service.hub.open(run_id)
    if finished is None and service.on_finish is not None:
        on_finish = service.on_finish
        finished = lambda status: on_finish(run_id, status)  # noqa: E731
    recorder = PortalRecorder(service.store, service.hub, run_id, society, finished, steps=counted[0],
                              total=counted[1], resume=claimed.resume if claimed is not None else None,
                              resumable=service.resumable)
    recorder.steps_asked, recorder.pace = settings.steps, pace
    task = asyncio.create_task(drive(service, run_id, society, settings, recorder, claimed),
                               name=f"wwm-portal-run-{run_id}")
    service._runs[run_id] = Running(task, recorder)
    ensure_watcher(service)


async def drive(service: RunHost, run_id: int, society: Society, settings: RunSettings,
                recorder: PortalRecorder, claimed: Claimed | None = None) -> None:
    """A run's task: from the servers' checks to its end, recorded whatever it is."""
    servers: list[Any] = []
    result = RunResult(status="running", record_id=run_id)
    try:
        if service.guard is not None:
            try:
                await service.guard(society)
            except Exception as exc:
                if claimed is not None:
                    raise CannotResume(str(exc)) from None
                raise
        if claimed is None:
            await check_servers(society, wait=settings.start_wait, timeout=settings.timeout)
        mind, world = society.build()
        servers = [mind, world]
        recorder.servers = (mind, world)
        if claimed is not None:
            await reattach(service.store, claimed, mind, world, settings, recorder)
        if recorder.suspending:  # the service closes meanwhile: left as it was
            recorder.on_finish(RunResult(status="suspended", record_id=run_id))
            return
        attached = claimed is not None
        runner = recorder.runner = (
            Runner(mind, world, settings, recorder=recorder, first_step=recorder.steps, attached=attached)
            if recorder.pace is None else
            PacedRunner(mind, world, settings, recorder=recorder, first_step=recorder.steps, attached=attached,
                        pace=recorder.pace, clock=service.pace_clock, sleep=service.pace_sleep))
        result = await runner.run()
    except CannotResume as exc:
        recorder.interrupted_because = f"the run could not be resumed: {exc}"
        recorder.on_finish(RunResult(status="interrupted", record_id=run_id))
    except asyncio.CancelledError:
        if not recorder.finished:  # ended before the first step (a slow New run), or while re-attaching
            if claimed is not None and recorder.by_owner:
                await end_runs(servers, settings.timeout)
            recorder.on_finish(RunResult(status="interrupted", record_id=run_id))
    except Exception as exc:  # noqa: BLE001 - whatever it was, the run ends saying so
        if not recorder.finished:
            text = exc.text if isinstance(exc, Refusal) else str(exc)
            recorder.on_event(Event(0, "run-ended", text or type(exc).__name__))
            result.status = COULD_NOT_START
            recorder.on_finish(result)
        else:
            log.warning("portal run %s: %s", run_id, exc)
    finally:
        with contextlib.suppress(asyncio.CancelledError):   # cancelled meanwhile: the writes go on alone
            await recorder.settle()     # the run's database writes (its end), made in a worker thread
        for server in servers:
            close = getattr(server, "aclose", None)
            if close is not None:
                with contextlib.suppress(Exception):
                    await close()
        service._runs.pop(run_id, None)


def ensure_watcher(service: RunHost) -> None:
    """A watcher on the running loop. A service made in one loop and served from another
    (an app built inside a test's loop, served by uvicorn in a thread) hands its watcher
    over to the loop that serves it; the old one is cancelled in its own loop."""
    loop = asyncio.get_running_loop()
    if service._watcher is not None and not service._watcher.done() and service._watcher.get_loop() is not loop:
        cancel_elsewhere(service._watcher)
        service._watcher = None
    if service._watcher is None or service._watcher.done():
        service._watcher = asyncio.create_task(watch(service), name="wwm-portal-run-watcher")


async def watch(service: RunHost) -> None:
    """Every ``poll`` seconds, stop the runs whose end was asked in the database; every
    ``sweep`` seconds, take over the runs no process drives (:meth:`RunService.recover`)."""
    loop = asyncio.get_running_loop()
    swept = loop.time()
    while True:
        await asyncio.sleep(service.poll)
        try:
            if service._runs:
                ids = list(service._runs)
                asked = await asyncio.to_thread(end_requests, service.store, ids)
                for run_id in asked:
                    running = service._runs.get(run_id)
                    if running is not None and not running.recorder.by_owner:
                        running.recorder.by_owner = True
                        running.task.cancel()
            if loop.time() - swept >= service.sweep:
                swept = loop.time()
                await asyncio.to_thread(service.recover)
                service._resume_claimed()
        except (StoreError, OSError) as exc:
            log.warning("portal run watcher: %s", exc)
        except Exception as exc:  # noqa: BLE001 - a database error: try again next round
            log.warning("portal run watcher: %s", exc)


def cancel_elsewhere(task: asyncio.Task[None]) -> None:
    """Cancel ``task`` from outside its loop (thread-safe); nothing if that loop is closed."""
    with contextlib.suppress(RuntimeError):
        task.get_loop().call_soon_threadsafe(task.cancel)

