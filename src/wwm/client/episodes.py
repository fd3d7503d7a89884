"""Episodes over seeds: one society run N times for each of several seeds, the learning curve
a researcher compares minds by, with the mean and standard error over seeds.

Each seed is one replicate with a client URL of its own, so a learning mind's knowledge (kept
per client, section 7.3) carries from one episode to the next within a seed and never across
seeds or across invocations. A World whose card declares a ``seed`` argument gets its own seed
for each episode of each replicate, so every episode is a new layout and every replicate a
different sequence of them; the same seeds give the same episodes again."""

from __future__ import annotations

import dataclasses
import math
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from ..protocol.errors import Refusal
from ..protocol.records import RunResult
from ..store import RunStore
from .cards import fetch_card
from .identity import default_client_url
from .runner import RunSettings
from .session import run_society
from .society import Society

SEED_STRIDE = 100_000  # episode e of seed s gives the World the seed s * SEED_STRIDE + e


@dataclass
class Curve:
    """Each seed's total score per episode, in order: ``scores[i][e]`` is seed ``seeds[i]``'s
    episode ``e`` (from 0)."""

    seeds: list[int]
    episodes: int
    scores: list[list[float]] = field(default_factory=list)
    statuses: list[str] = field(default_factory=list)  # each run's status, in the order run

    def mean(self) -> list[float]:
        """The mean over seeds of each episode's score."""
        return [sum(column) / len(column) for column in zip(*self.scores, strict=True)]

    def stderr(self) -> list[float]:
        """The standard error over seeds of each episode's score (0 with one seed)."""
        return [standard_error(list(column)) for column in zip(*self.scores, strict=True)]

    def over(self, first: int, last: int) -> tuple[float, float]:
        """Mean and standard error over seeds of each seed's mean score in episodes
        ``first``..``last - 1``: a replicate is the unit, its episodes are not independent."""
        per_seed = [sum(row[first:last]) / max(1, len(row[first:last])) for row in self.scores]
        return sum(per_seed) / len(per_seed), standard_error(per_seed)


def standard_error(values: Sequence[float]) -> float:
    if len(values) < 2:
        return 0.0
    mean = sum(values) / len(values)
    return math.sqrt(sum((v - mean) ** 2 for v in values) / (len(values) - 1) / len(values))


async def takes_seed(spec_url: str | None, timeout: float) -> bool:
    """Whether the World at this URL declares a ``seed`` argument on its card."""
    if spec_url is None:
        return False
    try:
        card = await fetch_card(spec_url, timeout=timeout)
    except Refusal:
        return False
    properties = (card.get("arguments") or {}).get("properties") or {}
    return "seed" in properties


async def run_episodes(society: Society, settings: RunSettings, *, episodes: int, seeds: Sequence[int],
                       store: RunStore | None = None,
                       on_episode: Callable[[int, int, RunResult], None] | None = None) -> Curve:
    """Run ``society`` ``episodes`` times for each seed; ``on_episode(seed, episode, result)``
    hears of each run as it ends."""
    if episodes < 1 or not seeds:
        raise ValueError("give at least one episode and one seed")
    seeded = await takes_seed(society.world.url, settings.timeout)
    base = f"{settings.client_url or default_client_url()}:episodes-{uuid.uuid4().hex[:8]}"
    curve = Curve(list(seeds), episodes)
    for seed in seeds:
        replicate = dataclasses.replace(settings, client_url=f"{base}:seed-{seed}")
        row: list[float] = []
        for episode in range(episodes):
            run = society.model_copy(deep=True)
            if seeded:
                run.world.args = {**run.world.args, "seed": seed * SEED_STRIDE + episode}
            run.name = f"{society.name} (seed {seed}, episode {episode + 1})"
            result = await run_society(run, settings=replicate, store=store)
            row.append(result.total_score)
            curve.statuses.append(result.status)
            if on_episode is not None:
                on_episode(seed, episode, result)
        curve.scores.append(row)
    return curve
