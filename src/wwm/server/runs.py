"""The runs a server has in progress, each under a secret run ID only its client knows.

How a "New run" gets its object depends on the world's kind (section 4): own copy (a new
object per run), shared (one object; each run is a body from ``join``), or exclusive (one
object, one client at a time, freed when its client has been silent for ``lease_seconds``).
Asynchronous worlds get a clock task that advances them with wall-clock time (4.4, 11.5).
Runs silent for longer than ``idle_seconds`` are dropped so a vanished client leaks nothing.

Fair shares: each client URL has at most ``per_client`` runs in progress, and each network
address ``per_address`` (a client URL is the client's own word; its address is not); a New
run past either ends that client's (or address's) run least recently queried (found among its
own runs, never by a scan of the table), so one client filling its share never refuses
another's New run. A restart with ``--state`` takes back at most half the
table (the runs saved last, each client's share at most), so it never starts full.
"""

from __future__ import annotations

import asyncio
import logging
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ..protocol import limits
from ..protocol.errors import Refusal
from ..protocol.interfaces import Mind, ServedClass, World
from .once import Answers
from .snapshots import SnapshotFile

log = logging.getLogger("wwm.server")


ENDED_KEPT = 10_000  # ended run IDs remembered, to answer a query for one run-ended


def mint_id() -> str:
    """An unguessable run ID (128 bits)."""
    return secrets.token_urlsafe(16)


@dataclass(slots=True)
class Run:
    run_id: str
    obj: World | Mind
    client_url: str | None
    display_token: str
    started: float = field(default_factory=time.time)
    last_seen: float = field(default_factory=time.monotonic)
    queries: int = 0
    last_state: str | None = None
    last_action: str | None = None
    score: float | None = None
    display_url: str | None = None
    clock: asyncio.Task[None] | None = None
    answers: Answers | None = None  # the last numbered queries' answers (wwm.server.once)
    owners: tuple[str, ...] = ()  # whose shares it counts in (its client URL, its address)


class RunTable:
    def __init__(self, cls: ServedClass, *, max_runs: int = 10_000, idle_seconds: float = 3600.0,
                 snapshots: SnapshotFile | None = None, id_prefix: str = "",
                 per_client: int = limits.RUNS_PER_CLIENT, per_address: int = limits.RUNS_PER_ADDRESS) -> None:
        self.cls = cls
        self.id_prefix = id_prefix  # what every run ID minted here starts with (wwm.server.workers)
        self.per_client = per_client
        self.per_address = per_address
        self.of_client: dict[str, dict[str, Run]] = {}  # each owner's runs, by run ID
        self._swept = -1e9  # when the table was last swept for idle runs (at most once a second when full)
        self.world_cls = cls if issubclass(cls, World) else None  # kinds and clocks are a World's
        self.sharing: str = self.world_cls.sharing if self.world_cls else "own"
        self.asynchronous = self.world_cls is not None and self.world_cls.clock == "asynchronous"
        self.max_runs = max_runs
        self.idle_seconds = idle_seconds
        self.snapshots = snapshots
        self.runs: dict[str, Run] = {}
        self.by_token: dict[str, Run] = {}
        self.shared: World | None = None  # the one instance of a shared or exclusive world
        self._leaving: set[asyncio.Task[None]] = set()  # End run of bodies dropped for idleness
        self.shared_clock: asyncio.Task[None] | None = None
        self.holder: str | None = None   # run ID holding an exclusive world
        self.ended = 0
        # the last ENDED_KEPT runs ended, by ID, with why: a query for one is answered
        # run-ended, not unknown-run (oldest forgotten first; IDs are ours, so 22 characters)
        self.ended_ids: dict[str, str] = {}

    def restore(self) -> int:
        """Take back the runs saved before a restart (call inside the event loop)."""
        if self.snapshots is None:
            return 0
        restored = self.snapshots.load_runs()
        taken = 0
        for run_id, client_url, token, obj, answers in reversed(restored):  # (the last saved first)
            mine = self.of_client.get(client_url) if client_url else None
            if taken >= self.max_runs // 2 or (mine is not None and len(mine) >= self.per_client):
                log.warning("run %s not taken back: past the share a restart takes back", run_id)
                self.snapshots.drop(run_id)
                continue
            run = Run(run_id, obj, client_url, token, answers=Answers.loads(answers),
                      owners=(client_url,) if client_url else ())
            self._add(run)
            self._start_clock(obj, run=run)
            taken += 1
        return taken

    # ---- creating and ending runs ---------------------------------------------------------
    async def create(self, build: Callable[..., World | Mind], client_url: str | None,
                     join_args: dict[str, Any], address: str | None = None) -> Run:
        """A new run: ``build()`` makes a fresh object (own copy, or the single instance)."""
        # its shares: its client URL's, its address's (a client URL is the client's own word)
        owners = tuple(key for key in (client_url, f"address {address}" if address else None) if key)
        for owner in owners:
            mine = self.of_client.get(owner)
            share = self.per_client if owner is client_url else self.per_address
            if mine is not None and len(mine) >= share:  # its own share full: its least used gives way
                oldest = min(mine.values(), key=_last_seen)
                log.info("run %s gives way to a New run of the same %s (%d runs each at most)",
                         oldest.run_id, "client" if owner is client_url else "address", share)
                self._drop(oldest, f"it gave way to a New run of the same "
                                   f"{'client' if owner is client_url else 'address'}, which may have "
                                   f"{share} runs at once")
        if len(self.runs) >= self.max_runs:
            now = time.monotonic()
            if now - self._swept >= 1.0:  # (a sweep scans the table: at most once a second)
                self._swept = now
                self.expire_idle()
            if len(self.runs) >= self.max_runs:
                raise Refusal("busy", f"this server already has {len(self.runs)} runs in progress")
        obj: World | Mind
        if self.sharing == "own":
            obj = build()
        elif self.sharing == "shared":
            if self.shared is None:
                self.shared = _world(build(shared=True))
                self._start_clock(self.shared)
            obj = await self.shared.join(client_url=client_url, **join_args)
        elif self.sharing == "exclusive":
            self._free_if_lease_lapsed()
            if self.holder is not None:
                raise Refusal("in-use", "this world takes one client at a time and another client "
                              f"holds it (free after {self._lease_seconds:g} s without a query)")
            if self.shared is None:
                self.shared = _world(build())
                self._start_clock(self.shared)
            obj = self.shared
        else:
            raise Refusal("server-error", f"unknown world kind {self.sharing!r}")
        run = Run(self.id_prefix + mint_id(), obj, client_url, self.id_prefix + secrets.token_urlsafe(9),
                  owners=owners)
        if self.sharing == "exclusive":
            self.holder = run.run_id
        self._add(run)
        if self.sharing == "own":
            self._start_clock(obj, run=run)
        return run

    def _add(self, run: Run) -> None:
        self.runs[run.run_id] = run
        self.by_token[run.display_token] = run
        for owner in run.owners:
            self.of_client.setdefault(owner, {})[run.run_id] = run

    def end(self, run_id: str, why: str = "ended by End run") -> None:
        run = self.runs.pop(run_id, None)
        if run is None:
            return
        ended = self.ended_ids
        ended[run_id] = why
        if len(ended) > ENDED_KEPT:
            del ended[next(iter(ended))]
        self.by_token.pop(run.display_token, None)
        for owner in run.owners:
            mine = self.of_client.get(owner)
            if mine is not None:
                mine.pop(run_id, None)
                if not mine:
                    del self.of_client[owner]
        if run.clock is not None:
            run.clock.cancel()
        if self.holder == run_id:
            self.holder = None
        if self.snapshots is not None:
            self.snapshots.drop(run_id)
        self.ended += 1

    def get(self, run_id: str) -> Run:
        run = self.runs.get(run_id)
        if run is None:
            why = self.ended_ids.get(run_id)
            if why is not None:
                raise Refusal("run-ended", f"the run {limits.quote(run_id)} has ended ({why}); start a new run")
            raise Refusal("unknown-run", f"no run with ID {limits.quote(run_id)} is in progress on this server"
                          if run_id else "the query carries no run ID")
        self.seen(run)
        return run

    @staticmethod
    def seen(run: Run) -> None:
        """A query for ``run`` arrived: count it, and keep it from lapsing."""
        run.last_seen = time.monotonic()
        run.queries += 1

    def save(self, run: Run) -> None:
        if self.snapshots is not None and self.sharing == "own":
            try:
                self.snapshots.save(run.run_id, run.client_url, run.display_token, run.obj,
                                    None if run.answers is None else run.answers.dumps())
            except Exception as exc:  # an unpicklable object: serve on, without resume
                log.warning("cannot snapshot run of %s: %s", self.cls.__name__, exc)

    # ---- time -----------------------------------------------------------------------------
    @property
    def _lease_seconds(self) -> float:
        return self.world_cls.lease_seconds if self.world_cls else 0.0

    def _free_if_lease_lapsed(self) -> None:
        if self.holder is None:
            return
        run = self.runs.get(self.holder)
        if run is None or time.monotonic() - run.last_seen > self._lease_seconds:
            log.info("exclusive lease of %s lapsed; freeing it", self.cls.__name__)
            self.end(self.holder, f"its lease lapsed after {self._lease_seconds:g} s without a query")

    def expire_idle(self) -> int:
        now = time.monotonic()
        stale = [r for r in self.runs.values() if now - r.last_seen > self.idle_seconds]
        for run in stale:
            self._drop(run, f"dropped after {self.idle_seconds:g} s without a query")
        self._free_if_lease_lapsed()
        return len(stale)

    def _drop(self, run: Run, why: str) -> None:
        """End a run its client did not end (a body of a shared world leaves its world)."""
        self.end(run.run_id, why)
        if self.sharing == "shared":
            self._leave(run)

    def _leave(self, run: Run) -> None:
        """A body of a shared world whose client went quiet leaves as on End run, so the world
        keeps no place for it (a player a soccer match waits for, a robot that blocks the next
        game)."""
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:  # (called outside the server's loop: nothing to tell)
            return

        async def leave() -> None:
            try:
                await run.obj.end_run()
            except Exception:  # the body's own End run failing must not stop the sweep
                log.warning("ending idle run %s of the shared world failed", run.run_id, exc_info=True)

        task = loop.create_task(leave())
        self._leaving.add(task)
        task.add_done_callback(self._leaving.discard)

    def _start_clock(self, obj: World | Mind, run: Run | None = None) -> None:
        if not self.asynchronous or self.world_cls is None or not isinstance(obj, World):
            return
        task = asyncio.get_running_loop().create_task(_tick(obj, self.world_cls.tick_seconds))
        if run is not None:
            run.clock = task
        else:
            self.shared_clock = task

    def close(self) -> None:
        for run in self.runs.values():
            if run.clock is not None:
                run.clock.cancel()
        if self.shared_clock is not None:
            self.shared_clock.cancel()


def _last_seen(run: Run) -> float:
    return run.last_seen


def _world(obj: World | Mind) -> World:
    """The one instance of a shared or exclusive world (only a World class has those kinds)."""
    if not isinstance(obj, World):
        raise Refusal("server-error", f"{type(obj).__name__} is shared or exclusive but not a World")
    return obj


async def _tick(obj: World, seconds: float) -> None:
    """Advance an asynchronous world with wall-clock time, whether or not a client asks."""
    last = time.monotonic()
    while True:
        await asyncio.sleep(seconds)
        now = time.monotonic()
        try:
            await obj.advance(now - last)
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("advance() failed in %s", type(obj).__name__)
        last = now
