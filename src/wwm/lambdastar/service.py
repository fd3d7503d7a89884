"""The Λ* test as a service: give it to minds anywhere on the network and get Υ back.

    result = await administer_test(["http://host:8101/", "http://other:8102/"], episodes=100)
    result.upsilon, result.stderr, result.bands, result.agents, result.profile, result.failures

The minds sit the test together (one collective) in a Λ* world held in this process, or in
a Λ* world server at ``world`` (``wwm serve wwm.lambdastar.world:LambdaStarWorld``). Bad
settings raise ``ValueError`` naming the setting, before any mind is contacted; a world
server that cannot be reached or refuses raises ``Refusal``; a mind that fails does not
raise: it is listed in ``failures`` (see :mod:`.remote`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np

from .battery import bands as k_bands
from .episodes import generate
from .harness import KBand, MeanOfEpisodes
from .profiles import PROFILES
from .remote import MindFailure, Progress, administer
from .world import LambdaStarWorld


@dataclass(slots=True)
class MindsResult(MeanOfEpisodes):
    """What a collective of minds scored. ``upsilon`` (Υ, Definition 3) and ``stderr`` come
    from :class:`MeanOfEpisodes`; ``scores`` holds one Definition-2 score per episode."""

    minds: list[str]
    profile: str
    grid: int
    iterations: int
    seed: int
    observation_range: int
    coordination: bool
    scores: np.ndarray       # [ω]: mean over the minds of their mean reward per iteration
    per_mind: np.ndarray     # [ω, minds]
    complexity: np.ndarray   # [ω]: K(μ) of each episode
    bands: list[KBand]       # Υ per band of K
    failures: list[MindFailure] = field(default_factory=list)

    @property
    def agents(self) -> int:
        """How many minds sat the test (failed ones included: their bodies stayed put)."""
        return len(self.minds)

    @property
    def episodes(self) -> int:
        return len(self.scores)

    @property
    def complete(self) -> bool:
        """True when no mind failed."""
        return not self.failures

    def as_dict(self) -> dict[str, Any]:
        """Plain JSON-ready values (an undefined figure is None)."""
        def number(x: float) -> float | None:
            return None if not np.isfinite(x) else float(x)
        return {"minds": self.minds, "agents": self.agents, "profile": self.profile,
                "grid": self.grid, "iterations": self.iterations, "episodes": self.episodes,
                "seed": self.seed, "observation_range": self.observation_range,
                "coordination": self.coordination,
                "upsilon": number(self.upsilon) if self.episodes else None,
                "stderr": number(self.stderr) if self.episodes else None,
                "bands": [{**asdict(b), "score": number(b.score), "stderr": number(b.stderr)}
                          for b in self.bands],
                "per_mind": [number(float(x)) for x in self.per_mind.mean(axis=0)]
                if self.episodes else [None] * self.agents,
                "failures": [f.as_dict() for f in self.failures]}


async def administer_test(minds: Sequence[str], *, grid: int = 10, episodes: int = 100,
                          iterations: int = 100, profile: str = "paper", seed: int = 0,
                          observation_range: int = 1, coordination: bool = False,
                          oracle_hints: bool = False, bins: int = 4, world: str | None = None,
                          timeout: float = 30.0, mind_args: dict[str, Any] | None = None,
                          progress: Progress | None = None) -> MindsResult:
    """Give the Λ* test to the minds at ``minds`` (URLs; several sit it as one collective)
    and return their :class:`MindsResult`. ``timeout``: seconds each query to a mind may
    take. ``progress(done, total)`` is called as episodes finish. ``oracle_hints`` shows
    Good's path in the state (for the expert baseline). ``world``: the URL of a Λ* world
    server to use instead of one in this process (it must be set up for these settings)."""
    settings: dict[str, Any] = dict(grid=grid, iterations=iterations, episodes=episodes, agents=len(minds),
                    profile=profile, seed=seed, observation_range=observation_range,
                    coordination=coordination, oracle_hints=oracle_hints)
    check(minds, settings, bins=bins, timeout=timeout)
    place: str | LambdaStarWorld = world if world is not None else LambdaStarWorld(**settings)
    got = await administer(place, list(minds), world_args=settings, mind_args=mind_args,
                           timeout=timeout, progress=progress)
    complexity = (place.episodes.complexity if isinstance(place, LambdaStarWorld)
                  else generate(grid, iterations, episodes, profile, seed).complexity)
    complexity = complexity[:len(got.scores)]
    cuts = k_bands(int(complexity.min()), int(complexity.max()), bins) if len(complexity) else []
    out = []
    for lo, hi in cuts:
        sel = got.scores[(complexity >= lo) & (complexity <= hi)]
        out.append(KBand(lo, hi, len(sel), float(sel.mean()) if len(sel) else float("nan"),
                         float(sel.std(ddof=1) / np.sqrt(len(sel))) if len(sel) > 1 else float("nan")))
    return MindsResult(list(minds), profile, grid, iterations, seed, observation_range, coordination,
                       got.scores, got.per_mind, complexity, out, got.failures)


def check(minds: Sequence[str], settings: dict[str, Any], *, bins: int = 4, timeout: float = 30.0) -> None:
    """Refuse, naming the setting, what no test can be run with."""
    if isinstance(minds, str) or not minds:
        raise ValueError("minds: give a list of at least one mind URL")
    bad = [m for m in minds if not isinstance(m, str) or "://" not in m]
    if bad:
        raise ValueError(f"minds: {bad[0]!r} is not a URL (e.g. http://127.0.0.1:8101/)")
    for name in ("grid", "iterations", "episodes", "observation_range", "seed"):
        value = settings[name]
        if isinstance(value, bool) or not isinstance(value, int):
            raise ValueError(f"{name} must be a whole number (got {value!r})")
    if settings["grid"] < 3:
        raise ValueError(f"grid must be at least 3 (got {settings['grid']})")
    if settings["iterations"] < 1 or settings["episodes"] < 1:
        raise ValueError("episodes and iterations must be at least 1")
    if settings["seed"] < 0:
        raise ValueError(f"seed must be 0 or more (got {settings['seed']})")
    k = settings["observation_range"]
    if k < 1 or 2 * k + 1 > settings["grid"]:
        raise ValueError(f"observation_range {k} does not fit a {settings['grid']}x{settings['grid']} "
                         f"grid (need 1 <= k and 2k+1 <= the grid side)")
    if len(minds) > settings["grid"] ** 2:
        raise ValueError(f"{len(minds)} minds do not fit on a {settings['grid']}x{settings['grid']} grid")
    if settings["profile"] not in PROFILES:
        raise ValueError(f"profile must be one of {', '.join(PROFILES)} (got {settings['profile']!r})")
    if bins < 1:
        raise ValueError(f"bins must be at least 1 (got {bins})")
    if not timeout > 0:
        raise ValueError(f"timeout must be more than 0 seconds (got {timeout})")
