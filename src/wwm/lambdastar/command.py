"""``wwm lambdastar``: run the Λ* dynamic intelligence test on built-in agents (serially or
over Ray), or on minds anywhere on the network (``--mind URL [URL ...]``), and print Υ with
its standard error and the score per band of pattern complexity; save CSV, JSON and plots.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..paths import results
from .terminal import check_out, progress_bar, whole_numbers

if TYPE_CHECKING:
    from rich.console import Console

    from .remote import MindFailure
    from .sweep import JobResult
    from .torus import Grid


def _k_range(text: str) -> tuple[int, int]:
    lo, sep, hi = text.partition(":")
    try:
        pair = (int(lo), int(hi))
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected LOW:HIGH (e.g. 2:20), got {text!r}") from None
    if not sep or pair[0] > pair[1] or pair[0] < 1:
        raise argparse.ArgumentTypeError(f"expected 1 <= LOW <= HIGH, got {text!r}")
    return pair


def _grids(text: str) -> list[Grid]:
    """``10``, ``7,10,12`` or ``5x10,10``: each a square's side or ROWSxCOLUMNS."""
    from .torus import grid_value

    try:
        grids = [grid_value(part.strip()) for part in text.split(",") if part.strip()]
    except ValueError as exc:
        raise argparse.ArgumentTypeError(f"{exc}; several are comma-separated") from None
    if not grids:
        raise argparse.ArgumentTypeError("expected at least one grid, e.g. 10 or 5x10")
    return grids


class _Noted(argparse.Action):
    """Stores the value and notes that the option was given on the command line, so options
    that do not apply (to remote minds, or without them) are refused by name."""

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace,
                 values: object, option_string: str | None = None) -> None:
        setattr(namespace, self.dest, values)
        namespace.given = {*getattr(namespace, "given", ()), option_string}


class _NotedFlag(_Noted):
    # kwargs: whatever else argparse passes an action (help, metavar, ...), handed on as is
    def __init__(self, option_strings: Sequence[str], dest: str, default: bool = False,
                 **kwargs: Any) -> None:
        super().__init__(option_strings, dest, nargs=0, default=default, **kwargs)

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace,
                 values: object, option_string: str | None = None) -> None:
        super().__call__(parser, namespace, True, option_string)  # a flag stores True


# options built-in agents use and remote minds do not, and why
NOT_FOR_MINDS = {
    "--agents": "the minds are the agents (one body per URL)",
    "--sizes": "the minds are the agents (one body per URL)",
    "--engine": "remote minds play through the world, not an engine",
    "--backend": "remote minds play through the world, not an engine",
    "--ray-address": "remote minds play through the world, not an engine",
    "--replays": "a remote mind trains by its own rules",
    "--gamma": "a remote mind chooses its own marks",
    "--k-range": "remote minds sit Λ* with blindly sampled patterns",
    "--environment": "remote minds sit Λ*",
    "--drift": "remote minds sit Λ*",
}
ONLY_FOR_MINDS = ("--world", "--oracle-hints", "--timeout")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    def a(*names: str, **kwargs: Any) -> None:  # kwargs: add_argument's, of many types
        kwargs.setdefault("action", _NotedFlag if kwargs.pop("flag", False) else _Noted)
        parser.add_argument(*names, **kwargs)
    parser.set_defaults(given=set(), experiment=None)
    from .experiments import add_parsers

    add_parsers(parser.add_subparsers(dest="experiment", metavar="EXPERIMENT",
                                      help="or run one of the experiments (each has --help)"))
    a("--agents", default="random,local,oracle",
      help="comma-separated agent types: random, local, oracle, qlearning, sarsa, stigmergy, woc, "
           "bidding, dictator, imitative, shared-q, shared-sarsa, or mixed collectives "
           "TYPE:COUNT+TYPE:COUNT such as local:2+random:1 (their size is their count; "
           "default: %(default)s)")
    a("--sizes", type=whole_numbers, default=[1], help="numbers of agents per test, e.g. 1,2,4 (default: 1)")
    a("--episodes", "-w", type=int, default=1000, help="episodes ω (default: %(default)s)")
    a("--iterations", "-t", type=int, default=100,
      help="iterations ϑ per episode (default: %(default)s)")
    a("--grid", type=_grids, default=[10],
      help="grid(s): a side (square) or ROWSxCOLUMNS, e.g. 10, 7,10,12 or 5x10 (default: 10)")
    a("--range", dest="observation_range", type=int, default=1, help="observation range k (default: 1)")
    a("--profile", choices=("paper", "original"), default="paper",
      help="paper definitions, or the authors' code's behaviour (default: %(default)s)")
    a("--seed", type=whole_numbers, default=[0], help="seed(s); the same seed gives the same numbers")
    a("--engine", choices=("vector", "plain"), default="vector", help="default: %(default)s")
    a("--backend", choices=("serial", "ray"), default="serial", help="default: %(default)s")
    a("--ray-address", default=None, help="address of a running Ray cluster (default: a local one)")
    a("--k-range", type=_k_range, default=None,
      help="build the battery with K spread evenly over LOW:HIGH (Definition 3), beyond 23 too; "
           "default: blind sampling, K <= 23 under the paper profile (section 5.1), no limit "
           "under the original")
    a("--bins", type=int, default=4, help="bands of K in the breakdown (default: %(default)s)")
    a("--coordination", flag=True,
      help="Good pays only when two or more agents are next to it")
    a("--environment", choices=("lambdastar", "landscape"), default="lambdastar",
      help="Λ*, or the fitness-landscape environment of section 6.2")
    a("--drift", type=int, default=0,
      help="landscape: iterations between moves of its peaks (0: static)")
    a("--gamma", type=float, default=0.5, help="stigmergy fake-reward factor γ (paper profile)")
    a("--replays", type=int, default=None,
      help="learners' training sessions per episode before the scored run (default: the profile's: "
           "paper 1, as Algorithm 1; original 100, as the authors' code)")
    a("--mind", nargs="+", metavar="URL", default=None,
      help="test the mind(s) at these URLs through the protocol, comma- or space-separated "
           "(several: one collective)")
    a("--world", default=None, metavar="URL",
      help="with --mind: a Λ* world server already running (default: one in this process)")
    a("--oracle-hints", flag=True, help="with --mind: the world shows Good's path ahead")
    a("--timeout", type=float, default=None,
      help="with --mind: seconds a mind may take to answer (default: 30)")
    a("--out", type=Path, default=results("lambdastar-results"),
      help="folder for CSV, JSON and plots (default: lambdastar-results in wwm's data folder, "
           "$XDG_DATA_HOME/wwm or ~/.local/share/wwm)")
    a("--no-plots", flag=True, help="skip the plots")
    a("--json", flag=True, help="also print the results as JSON on stdout (the table goes to stderr)")


def run(args: argparse.Namespace) -> int:
    import sys

    from rich.console import Console

    from ..commands import fail, interrupted
    from ..protocol.errors import Refusal

    if args.experiment is not None:
        from .experiments import run as run_experiment

        return run_experiment(args)

    # with --json, stdout carries the JSON alone; tables and progress go to stderr
    console = Console(stderr=args.json)
    failures: list[MindFailure] = []
    try:
        _check_common(args)
        _check_applies(args)
        check_out(args.out)  # before the run, without creating anything yet
    except ValueError as exc:
        return fail("lambdastar", exc, 2)
    try:
        results = _remote(args, console, failures) if args.mind else _local(args, console)
    except KeyboardInterrupt:
        return interrupted("lambdastar", f"nothing saved in {args.out}")
    except (ValueError, RuntimeError, OSError) as exc:
        return fail("lambdastar", exc, 2)
    except Refusal as refusal:
        return fail("lambdastar", f"a server refused: {refusal.code}: {refusal.text}", 1)
    if not results:
        return fail("lambdastar", "no mind could sit the test: " + "; ".join(map(str, failures)), 1)
    from . import report

    console.print(report.table(results, title=_title(args)))
    try:
        args.out.mkdir(parents=True, exist_ok=True)
        saved = [report.write_csv(results, args.out / "results.csv"),
                 report.write_json(results, args.out / "results.json")]
        if not args.no_plots:
            saved += report.plots(results, args.out)
    except OSError as exc:
        return fail("lambdastar", f"cannot write the results into {args.out}: {exc.strerror or exc}", 1)
    console.print("saved: " + ", ".join(str(p) for p in saved), soft_wrap=True)
    if args.json:
        sys.stdout.write(report.as_json(results) + "\n")
    for failure in failures:
        Console(stderr=True).print(f"[red]{failure}[/]; its body stayed put from then on",
                                   soft_wrap=True, markup=True, highlight=False)
    return 1 if failures else 0




def _check_common(args: argparse.Namespace) -> None:
    """Settings every test needs, checked before anything runs."""
    if args.episodes < 1 or args.iterations < 1:
        raise ValueError("--episodes and --iterations must be at least 1")
    if min(args.seed) < 0:
        raise ValueError(f"--seed must be 0 or more (got {min(args.seed)})")
    if args.bins < 1:
        raise ValueError(f"--bins must be at least 1 (got {args.bins})")
    if args.replays is not None and args.replays < 0:
        raise ValueError(f"--replays must be 0 or more (got {args.replays})")
    if not 0.0 < args.gamma < 1.0:
        raise ValueError(f"--gamma (the stigmergy fake-reward factor) must be between 0 and 1, "
                         f"exclusive (got {args.gamma:g})")


def _mind_urls(args: argparse.Namespace) -> list[str]:
    return [u.strip() for arg in args.mind for u in arg.split(",") if u.strip()]


def _check_applies(args: argparse.Namespace) -> None:
    """Options given that the chosen kind of test does not use are refused by name."""
    given: set[str] = getattr(args, "given", set())
    if args.mind is not None:
        if not _mind_urls(args):
            raise ValueError("--mind names no URL")
        unused = [o for o in NOT_FOR_MINDS if o in given]
        if args.environment == "landscape" and "--environment" not in unused:
            unused.append("--environment")
        if unused:
            reasons = "; ".join(dict.fromkeys(NOT_FOR_MINDS[o] for o in unused))
            raise ValueError(f"{', '.join(unused)} {'does' if len(unused) == 1 else 'do'} not apply "
                             f"to remote minds (--mind): {reasons}")
        if len(args.grid) != 1 or len(args.seed) != 1:
            raise ValueError("--mind tests one grid size and one seed at a time")
        if args.timeout is not None and not args.timeout > 0:
            raise ValueError(f"--timeout must be more than 0 seconds (got {args.timeout:g})")
    else:
        unused = [o for o in ONLY_FOR_MINDS if o in given]
        if unused:
            raise ValueError(f"{', '.join(unused)} {'applies' if len(unused) == 1 else 'apply'} "
                             f"only with --mind (minds on the network)")


def _title(args: argparse.Namespace) -> str:
    env = "fitness landscape" if args.environment == "landscape" else "Λ*"
    return (f"{env}, ω={args.episodes}, ϑ={args.iterations}, "
            f"k={args.observation_range}"
            + (", coordination" if args.coordination else ""))




def _local(args: argparse.Namespace, console: Console) -> list[JobResult]:
    from itertools import product

    from . import sweep
    from .agents import TEAMS
    from .agents.mixed import is_mix, mix_key, mix_size, parse_mix
    from .profiles import profile

    agents = [x.strip() for x in args.agents.split(",") if x.strip()]
    mixes = {x: parse_mix(x, lambda a: a in TEAMS) for x in agents if is_mix(x)}
    unknown = [x for x in agents if x not in TEAMS and x not in mixes]
    if unknown:
        raise ValueError(f"unknown agent type(s) {', '.join(unknown)} (choose from {', '.join(TEAMS)})")
    if not agents:
        raise ValueError(f"--agents names no agent type (choose from {', '.join(TEAMS)})")
    if min(args.sizes) < 1:
        raise ValueError("--sizes must be at least 1")
    if args.environment == "landscape" and args.k_range:
        raise ValueError("--k-range applies to Λ* patterns, not to the fitness landscape")
    common = dict(episodes=args.episodes, iterations=args.iterations, profile=args.profile,
                  observation_range=args.observation_range, coordination=args.coordination,
                  environment=args.environment, k_range=args.k_range, bins=args.bins,
                  gamma=args.gamma, drift=args.drift,
                  replays=profile(args.profile).replays if args.replays is None else args.replays)
    jobs = []
    for grid, seed, agent in product(args.grid, args.seed, agents):
        if agent in mixes:  # a mix has its own size, and plays on the plain engine
            parts = mixes[agent]
            jobs.append(sweep.Job(agent=mix_key(parts), size=mix_size(parts), grid=grid, seed=seed,
                                  engine="plain", **common))
        else:
            jobs += sweep.jobs([agent], args.sizes, [grid], [seed], engine=args.engine, **common)
    with progress_bar(console, args.quiet) as progress:
        task = progress.add_task(f"{len(jobs)} test(s), {args.backend}", total=len(jobs) * args.episodes)
        return sweep.run(jobs, backend=args.backend, address=args.ray_address,
                         progress=lambda k: progress.advance(task, k))


def _remote(args: argparse.Namespace, console: Console, failures: list[MindFailure]) -> list[JobResult]:
    import asyncio

    from .service import administer_test
    from .sweep import Job, JobResult
    from .torus import grid_shape, torus

    urls = _mind_urls(args)
    grid, seed = args.grid[0], args.seed[0]
    if args.world is None:
        console.print("Λ* world in this process (its state and action formats: "
                      "wwm serve wwm.lambdastar.world:LambdaStarWorld, then its page)")
    with progress_bar(console, args.quiet) as progress:
        task = progress.add_task(f"{len(urls)} mind(s)", total=args.episodes)
        # the settings go with every body's New run, so a --world server set up for
        # another test refuses (naming its settings) instead of playing a different one
        result = asyncio.run(administer_test(
            urls, grid=grid, episodes=args.episodes, iterations=args.iterations,
            profile=args.profile, seed=seed, observation_range=args.observation_range,
            coordination=args.coordination, oracle_hints=args.oracle_hints, bins=args.bins,
            world=args.world, timeout=args.timeout or 30.0,
            progress=lambda done, total: progress.update(task, completed=done)))
    failures.extend(result.failures)
    if not result.episodes:  # every mind failed before the test started
        return []
    job = Job(agent="mind@" + " ".join(urls), size=len(urls), grid=grid, seed=seed,
              episodes=args.episodes, iterations=args.iterations, profile=args.profile,
              observation_range=args.observation_range, coordination=args.coordination, engine="remote")
    bands = [{"k_min": b.k_min, "k_max": b.k_max, "episodes": b.episodes, "score": b.score,
              "stderr": b.stderr} for b in result.bands]
    return [JobResult(job, result.upsilon, result.stderr, result.scores.tolist(),
                      result.complexity.tolist(), torus(*grid_shape(grid)).entropy(), bands)]
