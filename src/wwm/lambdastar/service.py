"""The Λ* test as a service: give it to minds anywhere on the network and get Υ back.

    result = await administer_test(["http://host:8101/", "http://other:8102/"], episodes=100)
    result.upsilon, result.stderr, result.bands, result.agents, result.profile, result.failures

The minds sit the test together (one collective) in a Λ* world held by the service, or in
a Λ* world server at ``world`` (``wwm serve wwm.lambdastar.world:LambdaStarWorld``). Bad
settings raise ``ValueError`` naming the setting, before any mind is contacted; a world
server that cannot be reached or refuses raises ``Refusal``; a mind that fails does not
raise: it is listed in ``failures`` (see :mod:`.remote`).

The test runs in a process of its own (``apart=True``, the default): its world, its clients
of the minds and its event loop, so the caller's event loop (a portal's pages) stays free.
Generating a large battery holds the CPU for seconds (4,000 episodes of 1,000 iterations:
1.6 s; 10,000: 8 s): in the portal's event loop its home page waited 1.3-1.8 s, and 5.1 s,
at the start of such a test; with the test in a thread of the portal's process, or in a
process, at most 8 ms (numpy lets go of the GIL often enough). A process was chosen over a
thread for the rest: a battery is the test's memory, not the portal's (10,000 episodes of
10,000 iterations, which a challenge may ask for, would take about 7 GB); a cancelled test is
stopped for sure; the test has a core of its own; and while minds play, pages answered faster
(median 2.0 ms against 4.3 in a thread, with eight minds). It costs about 0.5 s per test (a
new Python importing numpy and the clients): ``python -c``, since a fork of the portal's
threaded process would not be safe and multiprocessing's spawn and forkserver run the
caller's main script again in the child. Progress and the result come back over a pipe read
by the caller's event loop; cancelling the call stops the process (SIGTERM: its sitting is
cancelled as it would be in the caller's loop; SIGKILL if it has not ended within 5 s).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import pickle
import signal
import sys
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np

from .battery import bands as k_bands
from .episodes import generate
from .harness import KBand, MeanOfEpisodes
from .profiles import PROFILES
from .remote import MindFailure, Progress, administer
from .torus import Grid, grid_arg, grid_shape
from .world import LambdaStarWorld


@dataclass(slots=True)
class MindsResult(MeanOfEpisodes):
    """What a collective of minds scored. ``upsilon`` (Υ, Definition 3) and ``stderr`` come
    from :class:`MeanOfEpisodes`; ``scores`` holds one Definition-2 score per episode."""

    minds: list[str]
    profile: str
    grid: int | str          # the side of a square, else "ROWSxCOLUMNS"
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


async def administer_test(minds: Sequence[str], *, grid: Grid | str = 10, episodes: int = 100,
                          iterations: int = 100, profile: str = "paper", seed: int = 0,
                          observation_range: int = 1, coordination: bool = False,
                          oracle_hints: bool = False, bins: int = 4, world: str | None = None,
                          timeout: float = 30.0, mind_args: dict[str, Any] | None = None,
                          progress: Progress | None = None, apart: bool = True) -> MindsResult:
    """Give the Λ* test to the minds at ``minds`` (URLs; several sit it as one collective)
    and return their :class:`MindsResult`. ``timeout``: seconds each query to a mind may
    take. ``progress(done, total)`` is called as episodes finish. ``oracle_hints`` shows
    Good's path in the state (for the expert baseline). ``world``: the URL of a Λ* world
    server to use instead of one held by the service (it must be set up for these settings).
    ``apart``: in a process of its own (see the module); False: in the caller's event loop.
    ``grid``: a side (a square), (rows, columns) or "ROWSxCOLUMNS"."""
    settings: dict[str, Any] = dict(grid=grid, iterations=iterations, episodes=episodes, agents=len(minds),
                    profile=profile, seed=seed, observation_range=observation_range,
                    coordination=coordination, oracle_hints=oracle_hints)
    check(minds, settings, bins=bins, timeout=timeout)
    grid = settings["grid"] = grid_arg(grid)  # on the wire: the side of a square, else "ROWSxCOLUMNS"
    if apart:
        return await _apart(list(minds), dict(
            grid=grid, episodes=episodes, iterations=iterations, profile=profile, seed=seed,
            observation_range=observation_range, coordination=coordination, oracle_hints=oracle_hints,
            bins=bins, world=world, timeout=timeout, mind_args=mind_args), progress)
    place: str | LambdaStarWorld = world if world is not None else LambdaStarWorld(**settings)
    got = await administer(place, list(minds), world_args=settings, mind_args=mind_args,
                           timeout=timeout, progress=progress)
    complexity = (place.episodes.complexity if isinstance(place, LambdaStarWorld)
                  else generate(grid_shape(grid), iterations, episodes, profile, seed).complexity)
    complexity = complexity[:len(got.scores)]
    cuts = k_bands(int(complexity.min()), int(complexity.max()), bins) if len(complexity) else []
    out = []
    for lo, hi in cuts:
        sel = got.scores[(complexity >= lo) & (complexity <= hi)]
        out.append(KBand(lo, hi, len(sel), float(sel.mean()) if len(sel) else float("nan"),
                         float(sel.std(ddof=1) / np.sqrt(len(sel))) if len(sel) > 1 else float("nan")))
    return MindsResult(list(minds), profile, grid, iterations, seed, observation_range, coordination,
                       got.scores, got.per_mind, complexity, out, got.failures)


# -- the test in a process of its own ------------------------------------------------------------

STOP_WAIT = 5.0     # seconds a stopped test's process has to end its sitting before SIGKILL
CHILD = "import sys; from wwm.lambdastar.service import _sitting; _sitting(int(sys.argv[1]))"


async def _apart(minds: list[str], kwargs: dict[str, Any], progress: Progress | None) -> MindsResult:
    """:func:`administer_test` with ``kwargs`` in a process of its own (see :func:`_sitting`)."""
    loop = asyncio.get_running_loop()
    read, write = os.pipe()
    try:
        process = await asyncio.create_subprocess_exec(
            sys.executable, "-c", CHILD, str(write), stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.DEVNULL, pass_fds=(write,))
    except BaseException:
        os.close(read)
        raise
    finally:
        os.close(write)
    finished = False
    transport: asyncio.BaseTransport | None = None
    try:
        reader = asyncio.StreamReader()
        transport, _ = await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader),
                                                    os.fdopen(read, "rb", buffering=0))
        assert process.stdin is not None
        process.stdin.write(pickle.dumps((minds, kwargs)))
        await process.stdin.drain()
        process.stdin.close()
        while True:
            try:
                size = int.from_bytes(await reader.readexactly(8), "big")
                kind, *data = pickle.loads(await reader.readexactly(size))
            except asyncio.IncompleteReadError:
                await process.wait()
                raise RuntimeError("the Λ* test's process ended without a result "
                                   f"(exit code {process.returncode})") from None
            if kind == "progress":
                if progress is not None:
                    progress(*data)
            elif kind == "error":
                raise data[0]
            else:
                finished = True
                result: MindsResult = data[0]
                return result
    finally:
        if transport is not None:
            transport.close()
        else:
            os.close(read)
        await _stop(process, at_once=not finished)


async def _stop(process: asyncio.subprocess.Process, *, at_once: bool) -> None:
    """End the test's process: one that sent its result ends by itself; else (cancelled,
    failed) SIGTERM, and SIGKILL if it has not ended within ``STOP_WAIT`` seconds."""
    if process.returncode is not None:
        return
    if at_once:
        with contextlib.suppress(ProcessLookupError):
            process.terminate()
    try:
        await asyncio.wait_for(asyncio.shield(process.wait()), STOP_WAIT)
    except TimeoutError:
        with contextlib.suppress(ProcessLookupError):
            process.kill()
        await asyncio.shield(process.wait())


def _sitting(fd: int) -> None:
    """The test's process (``python -c CHILD FD``): the minds and settings, pickled, on stdin;
    the sitting in an event loop of its own; on the pipe ``fd``, each message a pickle after
    its length (8 bytes): ("progress", done, total) as episodes finish, then ("result",
    MindsResult) or ("error", the exception). SIGTERM cancels the sitting; Ctrl-C is the
    caller's to handle (it stops this process); a caller that died is noticed at the next
    episode (its end of the pipe is closed)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    out = os.fdopen(fd, "wb")
    minds, kwargs = pickle.load(sys.stdin.buffer)

    def send(*message: Any) -> None:
        data = pickle.dumps(message)
        out.write(len(data).to_bytes(8, "big") + data)
        out.flush()

    async def sit() -> MindsResult:
        current = asyncio.current_task()
        assert current is not None
        asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, current.cancel)
        return await administer_test(minds, **kwargs, progress=lambda done, total: send("progress", done, total),
                                     apart=False)

    try:
        result = asyncio.run(sit())
    except (asyncio.CancelledError, BrokenPipeError):
        return
    except Exception as exc:
        try:
            send("error", exc)
        except Exception:           # an exception that does not pickle: its text
            send("error", RuntimeError(f"{type(exc).__name__}: {exc}"))
        return
    send("result", result)


def check(minds: Sequence[str], settings: dict[str, Any], *, bins: int = 4, timeout: float = 30.0) -> None:
    """Refuse, naming the setting, what no test can be run with."""
    if isinstance(minds, str) or not minds:
        raise ValueError("minds: give a list of at least one mind URL")
    bad = [m for m in minds if not isinstance(m, str) or "://" not in m]
    if bad:
        raise ValueError(f"minds: {bad[0]!r} is not a URL (e.g. http://127.0.0.1:8101/)")
    try:
        rows, cols = grid_shape(settings["grid"])
    except ValueError as exc:
        raise ValueError(f"grid: {exc}") from None
    for name in ("iterations", "episodes", "observation_range", "seed"):
        value = settings[name]
        if isinstance(value, bool) or not isinstance(value, int):
            raise ValueError(f"{name} must be a whole number (got {value!r})")
    if settings["iterations"] < 1 or settings["episodes"] < 1:
        raise ValueError("episodes and iterations must be at least 1")
    if settings["seed"] < 0:
        raise ValueError(f"seed must be 0 or more (got {settings['seed']})")
    k = settings["observation_range"]
    if k < 1 or 2 * k + 1 > min(rows, cols):
        raise ValueError(f"observation_range {k} does not fit a {rows}x{cols} "
                         f"grid (need 1 <= k and 2k+1 <= the grid side)")
    if len(minds) > rows * cols:
        raise ValueError(f"{len(minds)} minds do not fit on a {rows}x{cols} grid")
    if settings["profile"] not in PROFILES:
        raise ValueError(f"profile must be one of {', '.join(PROFILES)} (got {settings['profile']!r})")
    if bins < 1:
        raise ValueError(f"bins must be at least 1 (got {bins})")
    if not timeout > 0:
        raise ValueError(f"timeout must be more than 0 seconds (got {timeout})")
