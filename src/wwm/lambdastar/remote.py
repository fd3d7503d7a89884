"""Administering Λ* to minds on the network: the test runs in a shared Λ* World server;
each mind URL gets a body there, and a client loop asks the mind for an action on each
state and executes it in the world. Several URLs sit the test together as one collective.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from ..client.remote import connect_mind, connect_world
from ..protocol.errors import Refusal
from .harness import MeanOfEpisodes


@dataclass(slots=True)
class RemoteScores(MeanOfEpisodes):
    minds: list[str]
    scores: np.ndarray     # per episode: mean over the minds of mean reward per iteration
    per_mind: np.ndarray   # [episodes, minds]


async def administer(world_url: str, mind_urls: Sequence[str], *, mind_args: dict | None = None,
                     world_args: dict | None = None, timeout: float = 60.0,
                     progress: Callable[[int], None] | None = None) -> RemoteScores:
    """Give the test served at ``world_url`` to the minds at ``mind_urls`` (one body each).
    ``world_args`` (grid, episodes, ...) go with each body's New run: a shared world set up
    for a different test refuses them, naming its own settings."""
    if not mind_urls:
        raise ValueError("name at least one mind URL")
    worlds = [connect_world(world_url, timeout=timeout, **(world_args or {})) for _ in mind_urls]
    minds = [connect_mind(url, timeout=timeout, **(mind_args or {})) for url in mind_urls]
    try:
        for w in worlds:
            await w.new_run()
        for m, w in zip(minds, worlds, strict=True):
            await m.new_run(world_run_id=w.run_id)
        states = await asyncio.gather(*(w.get_state() for w in worlds))
        docs = [json.loads(s) for s in states]
        totals: dict[int, np.ndarray] = {}
        iterations = docs[0]["iterations"]
        while not docs[0].get("finished"):
            episode = docs[0]["episode"]
            suggestions = await asyncio.gather(*(m.get_action(s) for m, s in zip(minds, states, strict=True)))
            actions: list[str] = []
            for url, s in zip(mind_urls, suggestions, strict=True):
                if s.action is None:
                    raise Refusal("server-error",
                                  f"the mind at {url} could not suggest an action: {s.reason}")
                actions.append(s.action)
            outcomes = await asyncio.gather(*(w.execute_action(action)
                                              for w, action in zip(worlds, actions, strict=True)))
            await asyncio.gather(*(m.inform(o.state, o.score) for m, o in zip(minds, outcomes, strict=True)))
            row = totals.setdefault(episode, np.zeros(len(minds)))
            row += [o.score or 0.0 for o in outcomes]
            states = [o.state for o in outcomes]
            docs = [json.loads(s) for s in states]
            if progress is not None and (docs[0].get("finished") or docs[0]["episode"] != episode):
                progress(1)
        for m in minds:
            await m.end_run()
        for w in worlds:
            await w.end_run()
    finally:
        for x in (*minds, *worlds):
            await x.aclose()
    per_mind = np.array([totals[e] for e in sorted(totals)]) / iterations
    return RemoteScores(list(mind_urls), per_mind.mean(axis=1), per_mind)
