"""``wwm lambdastar mixed | commons | pluralistic``: the experiments of the paper's sections
5.2 (heterogeneous collectives) and 6.3 (the tragedy of the commons, pluralistic ignorance),
each with rich progress, seeds, a table, CSV/JSON and a PNG plot in ``--out``.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING

from .terminal import check_out, progress_bar, whole_numbers

if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

    from rich.console import RenderableType
    from rich.progress import Progress
    from rich.table import Table

    from .sweep import JobResult

    # an experiment: its options and progress bar -> (the table, the files saved, the JSON)
    Runner = Callable[[argparse.Namespace, Progress], tuple[RenderableType, list[Path], str]]

EXPERIMENTS = {
    "mixed": "heterogeneous collectives (e.g. local:2+random:1) beside the pure ones",
    "commons": "the tragedy of the commons: greedy against restrained harvesters of a shared resource",
    "pluralistic": "pluralistic ignorance: the norm most privately reject, public actions against shared signals",
}


def _floats(text: str) -> list[float]:
    try:
        values = [float(x) for x in text.split(",") if x.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected comma-separated numbers, got {text!r}") from None
    if not values:
        raise argparse.ArgumentTypeError("expected at least one number")
    return values


def add_parsers(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """One subcommand per experiment, each with its own options."""
    for name, text in EXPERIMENTS.items():
        p = sub.add_parser(name, help=text, description=text)
        if name == "mixed":
            p.add_argument("mixes", nargs="+", metavar="MIX",
                           help="mixed collectives, each TYPE:COUNT+TYPE:COUNT, e.g. local:2+random:1")
            p.add_argument("--episodes", "-w", type=int, default=200, help="episodes ω (default: %(default)s)")
            p.add_argument("--iterations", "-t", type=int, default=50, help="iterations ϑ (default: %(default)s)")
            p.add_argument("--grid", type=int, default=10, help="grid side (default: %(default)s)")
            p.add_argument("--profile", choices=("paper", "original"), default="paper")
            p.add_argument("--bins", type=int, default=4, help="bands of K (default: %(default)s)")
            p.add_argument("--replays", type=int, default=20,
                           help="learners' training replays per episode (default: %(default)s)")
            p.add_argument("--gamma", type=float, default=0.5, help="stigmergy fake-reward factor γ")
        elif name == "commons":
            p.add_argument("--agents", type=whole_numbers, default=[1, 2, 4, 8, 16, 32, 64],
                           help="numbers of harvesters to sweep (default: 1,2,4,8,16,32,64)")
            p.add_argument("--policies", default="greedy,restrained,one-greedy",
                           help="harvest policies: greedy, restrained, one-greedy (agent 1 greedy among "
                                "restrained ones) (default: %(default)s)")
            p.add_argument("--greed", type=float, default=1.0,
                           help="share of a cell's stock a greedy harvester takes (default: 1)")
            p.add_argument("--growth", type=float, default=0.2,
                           help="logistic regrowth rate per iteration (default: %(default)s)")
            p.add_argument("--episodes", "-w", type=int, default=20, help="episodes (default: %(default)s)")
            p.add_argument("--iterations", "-t", type=int, default=200, help="iterations (default: %(default)s)")
            p.add_argument("--grid", type=int, default=10, help="grid side (default: %(default)s)")
        else:
            p.add_argument("--reject", type=_floats, default=[0.55, 0.6, 0.65, 0.7, 0.75, 0.8, 0.85, 0.9],
                           help="shares of agents who privately reject the norm (default: 0.55,...,0.9)")
            p.add_argument("--agents", type=int, default=25, help="agents in the group (default: %(default)s)")
            p.add_argument("--rounds", type=int, default=3,
                           help="rounds in which every agent acts again (default: %(default)s)")
            p.add_argument("--episodes", "-w", type=int, default=400,
                           help="groups per share (default: %(default)s)")
            p.add_argument("--range", dest="observation_range", type=int, default=None,
                           help="members sit on a Λ* torus and see only those within this range "
                                "(default: everyone sees everyone)")
        p.add_argument("--seed", type=whole_numbers, default=[0], help="seed(s); the same seed gives the same numbers")
        p.add_argument("--out", type=Path, default=Path(f"lambdastar-{name}"),
                       help="folder for the CSV, JSON and plot (default: %(default)s)")
        p.add_argument("--no-plots", action="store_true", help="skip the plot")
        p.add_argument("--json", action="store_true",
                       help="also print the results as JSON on stdout (the table goes to stderr)")


def run(args: argparse.Namespace) -> int:
    from rich.console import Console

    from ..commands import fail, interrupted

    name = args.experiment
    command = f"lambdastar {name}"
    before = sorted(getattr(args, "given", ()))
    if before:
        return fail(command, f"{', '.join(before)} {'is an option' if len(before) == 1 else 'are options'} "
                             f"of the Λ* test; give {name}'s options after its name "
                             f"(wwm lambdastar {name} --help)", 2)
    console = Console(stderr=args.json)
    try:
        if args.episodes < 1 or getattr(args, "iterations", 1) < 1:
            raise ValueError("--episodes and --iterations must be at least 1")
        if min(args.seed) < 0:
            raise ValueError(f"--seed must be 0 or more (got {min(args.seed)})")
        check_out(args.out)
        runner: Runner = {"mixed": _mixed, "commons": _commons, "pluralistic": _pluralistic}[name]
        with progress_bar(console, args.quiet) as progress:
            table, saved, as_json = runner(args, progress)
    except KeyboardInterrupt:
        return interrupted(command, f"nothing saved in {args.out}")
    except (ValueError, OSError) as exc:
        return fail(command, exc, 2)
    console.print(table)
    console.print("saved: " + ", ".join(str(p) for p in saved), soft_wrap=True)
    if args.json:
        import sys

        sys.stdout.write(as_json + "\n")
    return 0


def _mixed(args: argparse.Namespace, progress: Progress) -> tuple[RenderableType, list[Path], str]:
    from rich.console import Group

    from . import mixes, report, sweep

    if args.bins < 1:
        raise ValueError(f"--bins must be at least 1 (got {args.bins})")
    if args.replays < 0:
        raise ValueError(f"--replays must be 0 or more (got {args.replays})")
    if not 0.0 < args.gamma < 1.0:
        raise ValueError(f"--gamma must be between 0 and 1, exclusive (got {args.gamma:g})")
    jobs = [job for seed in args.seed for job in mixes.mixed_jobs(
        args.mixes, grid=args.grid, seed=seed, episodes=args.episodes, iterations=args.iterations,
        profile=args.profile, bins=args.bins, gamma=args.gamma, replays=args.replays)]
    task = progress.add_task(f"{len(jobs)} test(s)", total=len(jobs) * args.episodes)
    results = sweep.run(jobs, progress=lambda k: progress.advance(task, k))
    args.out.mkdir(parents=True, exist_ok=True)
    saved = [report.write_csv(results, args.out / "results.csv"),
             report.write_json(results, args.out / "results.json")]
    if not args.no_plots:
        saved.append(mixes.plot([r for r in results if r.job.seed == args.seed[0]], args.out))
    title = f"Λ* mixed collectives, ω={args.episodes}, ϑ={args.iterations}"
    return Group(report.table(results, title=title), _mix_table(results)), saved, report.as_json(results)


def _mix_table(results: list[JobResult]) -> Table:
    """Each mix beside what its members would score as in their pure collectives."""
    from rich.table import Table

    from . import mixes
    from .agents import TEAMS

    t = Table(title="each mix against its parts (Σ count/n · Υ(type × n))")
    for column in ("mix", "seed", "Υ mix", "Υ weighted parts", "pure collectives"):
        t.add_column(column, justify="left" if column in ("mix", "pure collectives") else "right")
    for mix in (r for r in results if r.job.agent not in TEAMS):
        same = [r for r in results if r.job.seed == mix.job.seed]
        weighted, _ = mixes.weighted_parts(mix, same)
        score = {r.job.agent: r.upsilon for r in same if r.job.size == mix.job.size}
        pure = ", ".join(f"{p.agent} {score[p.agent]:+.3f}" for p in mixes.parse(mix.job.agent))
        t.add_row(mix.job.agent, str(mix.job.seed), f"{mix.upsilon:+.4f}", f"{weighted:+.4f}", pure)
    return t


def _commons(args: argparse.Namespace, progress: Progress) -> tuple[RenderableType, list[Path], str]:
    from . import commons

    policies = [x.strip() for x in args.policies.split(",") if x.strip()]
    if min(args.agents) < 1:
        raise ValueError(f"--agents must be at least 1 (got {min(args.agents)})")
    rules = commons.Rules(grid=args.grid, iterations=args.iterations, growth=args.growth, greed=args.greed)
    task = progress.add_task("commons", total=len(args.seed) * len(policies) * len(args.agents) * args.episodes)
    results = commons.sweep(policies, args.agents, rules, args.episodes, args.seed,
                            progress=lambda k: progress.advance(task, k))
    rows = [r.as_dict() for r in results]
    saved = _save(args, rows, ["policy", "agents", "seed", "episodes", "total", "total_stderr", "per_agent",
                               "greedy_agent", "restrained_agent", "final_stock"])
    if not args.no_plots:
        saved.append(commons.plot(results, args.out))
    return commons.table(results), saved, _json(rows)


def _pluralistic(args: argparse.Namespace, progress: Progress) -> tuple[RenderableType, list[Path], str]:
    from . import pluralistic

    task = progress.add_task("groups", total=len(args.seed) * len(args.reject) * 2 * args.episodes)
    results = pluralistic.sweep(args.reject, args.agents, args.rounds, args.episodes, args.seed,
                                progress=lambda k: progress.advance(task, k),
                                observation_range=args.observation_range)
    rows = [r.as_dict() for r in results]
    saved = _save(args, rows, list(rows[0]))
    if not args.no_plots:
        saved.append(pluralistic.plot(results, args.out))
    return pluralistic.table(results), saved, _json(rows)


def _json(rows: list[dict[str, Any]]) -> str:
    import json

    from .report import _finite

    return json.dumps(_finite(rows), indent=1, allow_nan=False)


def _save(args: argparse.Namespace, rows: list[dict[str, Any]], columns: list[str]) -> list[Path]:
    """results.csv (the columns named) and results.json (everything) in --out."""
    import csv

    args.out.mkdir(parents=True, exist_ok=True)
    with open(args.out / "results.csv", "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(columns)
        for row in rows:
            w.writerow(["" if row[c] is None else row[c] for c in columns])
    (args.out / "results.json").write_text(_json(rows))
    return [args.out / "results.csv", args.out / "results.json"]
