"""Sweeps: many tests (agent types × group sizes × grid sizes × seeds) run serially or
spread over a Ray cluster. Each job is a pure function of its parameters, so a Ray sweep
returns exactly what a serial one does.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field, replace
from functools import lru_cache
from itertools import product
from typing import TYPE_CHECKING, Any

import numpy as np

from .agents.mixed import is_mix
from .battery import BatterySpec, build
from .episodes import EpisodeSet
from .harness import Scores, Setting
from .harness import play as play_plain
from .phases import phase
from .torus import Grid

if TYPE_CHECKING:
    from .landscape import LandscapeSet


@dataclass(frozen=True, slots=True)
class Job:
    agent: str
    size: int = 1
    grid: Grid = 10                    # its side (a square) or (rows, columns)
    seed: int = 0
    episodes: int = 1000
    iterations: int = 100
    profile: str = "paper"
    observation_range: int = 1
    coordination: bool = False
    engine: str = "vector"             # "vector" or "plain"
    environment: str = "lambdastar"    # or "landscape"
    k_range: tuple[int, int] | None = None
    bins: int = 4
    gamma: float = 0.5
    replays: int | None = None         # None: the profile's (paper 1, original 100)
    drift: int = 0                     # landscape: iterations between moves (0: static)

    @property
    def setting(self) -> Setting:
        return Setting(self.agent, self.size, self.observation_range, self.coordination,
                       self.gamma, self.replays)


@dataclass(slots=True)
class JobResult:
    job: Job
    upsilon: float
    stderr: float
    scores: list[float]
    complexity: list[int]
    entropy: float
    bands: list[dict[str, Any]] = field(default_factory=list)
    coverage: list[float] | None = None
    """per agent: the mean share of the grid's cells it stood on in an episode (section 6.1's
    coverage); None where it was not measured (minds on the network)."""
    team_coverage: float | None = None
    """the mean share of the cells any member of the team stood on in an episode."""

    def as_dict(self) -> dict[str, Any]:
        return {"job": asdict(self.job), "upsilon": self.upsilon, "stderr": self.stderr,
                "entropy": self.entropy, "bands": self.bands, "coverage": self.coverage,
                "team_coverage": self.team_coverage, "scores": self.scores,
                "complexity": self.complexity}


def jobs(agents: Sequence[str], sizes: Sequence[int] = (1,), grids: Sequence[Grid] = (10,),
         seeds: Sequence[int] = (0,), **common: Any) -> list[Job]:  # common: Job's other fields
    """The cross product, in a fixed order."""
    return [Job(agent=a, size=n, grid=g, seed=s, **common)
            for g, s, a, n in product(grids, seeds, agents, sizes)]


@lru_cache(maxsize=8)
def _battery(job: Job) -> EpisodeSet | LandscapeSet:
    if job.environment == "landscape":
        from .landscape import generate_landscapes
        return generate_landscapes(job.grid, job.iterations, job.episodes, seed=job.seed,
                                   drift=job.drift)
    spec = BatterySpec(job.grid, job.iterations, job.episodes, job.profile, job.seed,
                       job.k_range, job.bins)
    return build(spec)


def battery_of(job: Job) -> EpisodeSet | LandscapeSet:
    """The episodes a job plays (shared by every job with the same battery parameters)."""
    key = replace(job, agent="", size=1, engine="", coordination=False, gamma=0.0, replays=0,
                  observation_range=1)
    with phase("battery"):
        return _battery(key)


def run_job(job: Job, progress: Callable[[int], None] | None = None) -> JobResult:
    """Play one test and summarise it."""
    episodes = battery_of(job)
    # a mixed collective plays on the plain engine (the vectorised one has pure teams only)
    use_vector = job.engine == "vector" and job.environment == "lambdastar" and not is_mix(job.agent)
    if job.engine not in ("vector", "plain"):
        raise ValueError(f"unknown engine {job.engine!r} (choose 'vector' or 'plain')")
    with phase("agents"):
        if use_vector:
            from .vector import play as play_vector
            assert isinstance(episodes, EpisodeSet)  # (the "lambdastar" environment's battery)
            scores: Scores = play_vector(job.setting, episodes, progress=progress)
        else:
            scores = play_plain(job.setting, episodes, progress=progress)
    with phase("scoring"):
        from .battery import bands
        cuts = (bands(*job.k_range, job.bins) if job.k_range else
                bands(int(scores.complexity.min()), int(scores.complexity.max()), job.bins))
        coverage = team = None
        if scores.coverage is not None and scores.team_coverage is not None:
            coverage = scores.coverage.mean(axis=0).tolist()
            team = float(scores.team_coverage.mean())
        return JobResult(job, scores.upsilon, scores.stderr, scores.scores.tolist(),
                         scores.complexity.tolist(), float(episodes.entropy),
                         [asdict(b) for b in scores.by_complexity(cuts)], coverage, team)


def run(all_jobs: Sequence[Job], backend: str = "serial",
        progress: Callable[[int], None] | None = None, address: str | None = None) -> list[JobResult]:
    """Run every job; ``backend`` is "serial" or "ray" (``address`` of a running cluster,
    or None for a local one). Results come back in job order either way."""
    if backend == "serial":
        out = []
        for job in all_jobs:
            out.append(run_job(job, progress=progress))
        return out
    if backend == "ray":
        return _run_ray(all_jobs, progress, address)
    raise ValueError(f"unknown backend {backend!r} (choose 'serial' or 'ray')")


def _probe(address: str, timeout: float = 3.0) -> None:
    """Fail at once, naming the address, if nothing listens at a HOST:PORT Ray address
    (``ray.init`` would otherwise retry for minutes)."""
    import socket

    host, sep, port = address.removeprefix("ray://").rpartition(":")
    if not sep or not port.isdigit():
        return  # "auto", "local" and the like: Ray resolves them itself
    try:
        socket.create_connection((host or "127.0.0.1", int(port)), timeout=timeout).close()
    except OSError as exc:
        raise RuntimeError(f"no Ray cluster answers at {address} "
                           f"({exc.strerror or type(exc).__name__})") from None


def _run_ray(all_jobs: Sequence[Job], progress: Callable[[int], None] | None,
             address: str | None) -> list[JobResult]:
    if address:
        _probe(address)
    try:
        import ray
    except ImportError:
        raise RuntimeError("the Ray backend needs ray: pip install 'world-wide-mind[ray]'") from None
    if not ray.is_initialized():
        if address:
            ray.init(address=address, log_to_driver=False)
        else:
            ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    remote = ray.remote(run_job)
    pending = {remote.remote(job): i for i, job in enumerate(all_jobs)}
    results: dict[int, JobResult] = {}
    waiting = list(pending)
    while waiting:
        done, waiting = ray.wait(waiting, num_returns=1)
        for ref in done:
            i = pending[ref]
            results[i] = ray.get(ref)
            if progress is not None:
                progress(all_jobs[i].episodes)
    return [results[i] for i in range(len(all_jobs))]


def same_results(a: Sequence[JobResult], b: Sequence[JobResult]) -> bool:
    return len(a) == len(b) and all(x.job == y.job and np.array_equal(x.scores, y.scores)
                                    for x, y in zip(a, b, strict=True))
