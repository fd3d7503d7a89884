"""Administering Λ* to minds on the network: the test runs in a shared Λ* World (a server at
a URL, or one in this process); each mind URL gets a body there, and one client loop per
body asks its mind for an action on each state and executes it in the world. Several URLs
sit the test together as one collective.

The loops run side by side, not in lockstep, because an iteration can have two turns per
body: a mark (answered once every body has marked or moved) and then a move.

A mind that cannot be reached, times out, errors, cannot suggest an action or answers one
the world refuses is not a crash: it gets a :class:`MindFailure` record, it is asked nothing
more, and its body stays where it is for the rest of the test (the others play on).
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np

from ..client.remote import RemoteMind, RemoteWorld, connect_mind, connect_world
from ..protocol.errors import Refusal
from ..protocol.results import Outcome
from .harness import MeanOfEpisodes
from .world import LambdaStarWorld

STAY = "5"
Progress = Callable[[int, int], None]
"""Called with (episodes done, episodes in all) as the test goes."""


@dataclass(frozen=True, slots=True)
class MindFailure:
    """Why and when a mind dropped out. ``episode`` and ``iteration`` count from 1; both are
    None when the mind failed before the test started."""

    mind: int
    url: str
    episode: int | None
    iteration: int | None
    reason: str

    def __str__(self) -> str:
        when = ("before the test started" if self.episode is None else
                f"in episode {self.episode}, iteration {self.iteration}")
        return f"mind {self.mind} ({self.url}) failed {when}: {self.reason}"

    def as_dict(self) -> dict[str, Any]:
        return {"mind": self.mind, "url": self.url, "episode": self.episode,
                "iteration": self.iteration, "reason": self.reason}


@dataclass(slots=True)
class RemoteScores(MeanOfEpisodes):
    minds: list[str]
    scores: np.ndarray     # per episode: mean over the minds of mean reward per iteration
    per_mind: np.ndarray   # [episodes, minds]
    failures: list[MindFailure]


class _Body(Protocol):
    async def get_state(self) -> str: ...

    async def execute_action(self, action: str) -> Outcome: ...

    async def end_run(self) -> float | None: ...


async def administer(world: str | LambdaStarWorld, mind_urls: Sequence[str], *,
                     mind_args: dict[str, Any] | None = None, world_args: dict[str, Any] | None = None,
                     timeout: float = 60.0, progress: Progress | None = None) -> RemoteScores:
    """Give the test served at ``world`` (a URL, or a world object in this process) to the
    minds at ``mind_urls`` (one body each). ``world_args`` (grid, episodes, ...) go with each
    body's New run: a shared world set up for a different test refuses them, naming its own
    settings. ``timeout`` bounds every query to a mind."""
    if not mind_urls:
        raise ValueError("name at least one mind URL")
    remote_bodies: list[RemoteWorld] = []
    minds: list[RemoteMind] = [connect_mind(url, timeout=timeout, **(mind_args or {})) for url in mind_urls]
    try:
        bodies: list[_Body]
        if isinstance(world, str):
            # a move is answered once every body has moved: slow minds (up to ``timeout`` each,
            # a mark and a move per iteration) delay it
            remote_bodies = [connect_world(world, timeout=4 * timeout + 30, **(world_args or {}))
                             for _ in mind_urls]
            for w in remote_bodies:
                await w.new_run()
            bodies, run_ids = list(remote_bodies), [w.run_id for w in remote_bodies]
        else:
            bodies = [await world.join(**(world_args or {})) for _ in mind_urls]
            run_ids = [None] * len(bodies)
        sitting = _Sitting(list(mind_urls), minds, bodies, progress)
        await sitting.start(run_ids)
        if sitting.alive.any():
            await sitting.play()
        await sitting.finish()
    finally:
        for x in (*minds, *remote_bodies):
            await x.aclose()
    return sitting.scores()


class _Sitting:
    """One sitting of the test: the bodies, their minds, and what each body earned."""

    def __init__(self, urls: list[str], minds: list[RemoteMind], bodies: list[_Body],
                 progress: Progress | None) -> None:
        self.urls, self.minds, self.bodies = urls, minds, bodies
        self.alive = np.ones(len(minds), dtype=bool)
        self.failures: list[MindFailure] = []
        self.totals: dict[int, np.ndarray] = {}
        self.iterations = 1
        self.episodes = 0
        self.progress = progress

    def fail(self, j: int, reason: str, doc: dict[str, Any] | None = None) -> None:
        self.alive[j] = False
        self.failures.append(MindFailure(j + 1, self.urls[j], doc.get("episode") if doc else None,
                                         doc.get("iteration") if doc else None, reason))

    async def start(self, run_ids: list[str | None]) -> None:
        async def begin(j: int) -> None:
            try:
                await self.minds[j].new_run(world_run_id=run_ids[j])
            except Refusal as refusal:
                self.fail(j, refusal.text or refusal.code)
        await asyncio.gather(*(begin(j) for j in range(len(self.minds))))

    async def play(self) -> None:
        tasks = [asyncio.create_task(self._sit(j)) for j in range(len(self.bodies))]
        try:
            done, pending = await asyncio.wait(tasks, return_when=asyncio.FIRST_EXCEPTION)
        except asyncio.CancelledError:  # the caller gave up: no body plays on behind its back
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
            raise
        for task in pending:  # a body's world failed: the others cannot go on
            task.cancel()
        await asyncio.gather(*pending, return_exceptions=True)
        for task in done:
            task.result()  # re-raise the world's failure, if any

    async def _sit(self, j: int) -> None:
        body = self.bodies[j]
        state = await body.get_state()
        doc = json.loads(state)
        self.iterations, self.episodes = int(doc["iterations"]), int(doc["episodes"])
        while not doc.get("finished"):
            action = await self._ask(j, state, doc)
            try:
                outcome = await body.execute_action(action)
            except Refusal as refusal:
                if refusal.code != "bad-parameters" or not self.alive[j]:
                    raise
                self.fail(j, f"answered {action!r}, which the world refused: {refusal.text}", doc)
                outcome = await body.execute_action(STAY)
            if outcome.score is not None:  # a move (a mark earns nothing)
                row = self.totals.setdefault(int(doc["episode"]), np.zeros(len(self.bodies)))
                row[j] += outcome.score
            if self.alive[j]:
                try:
                    await self.minds[j].inform(outcome.state, outcome.score)
                except Refusal as refusal:
                    self.fail(j, f"inform: {refusal.text or refusal.code}", doc)
            state = outcome.state
            before, doc = doc, json.loads(state)
            if j == 0 and self.progress is not None and (
                    doc.get("finished") or doc["episode"] != before["episode"]):
                self.progress(int(before["episode"]), self.episodes)

    async def _ask(self, j: int, state: str, doc: dict[str, Any]) -> str:
        if not self.alive[j]:
            return STAY
        try:
            suggestion = await self.minds[j].get_action(state)
        except Refusal as refusal:
            self.fail(j, refusal.text or refusal.code, doc)
            return STAY
        if suggestion.action is None:
            self.fail(j, f"could not suggest an action: {suggestion.reason or 'no reason given'}", doc)
            return STAY
        return suggestion.action

    async def finish(self) -> None:
        async def close(j: int) -> None:
            if self.alive[j]:
                try:
                    await self.minds[j].end_run()
                except Refusal:
                    pass  # its scores are in; a mind that cannot end its run changes nothing
            await self.bodies[j].end_run()
        await asyncio.gather(*(close(j) for j in range(len(self.bodies))))

    def scores(self) -> RemoteScores:
        totals = (np.array([self.totals[e] for e in sorted(self.totals)]) if self.totals
                  else np.zeros((0, len(self.bodies))))
        # Definition 2 as the engines compute it: the group's total over agents x iterations
        scores = totals.sum(axis=1) / (len(self.bodies) * self.iterations)
        return RemoteScores(list(self.urls), scores, totals / self.iterations, self.failures)
