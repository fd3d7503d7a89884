"""``wwm compare``: run one society under each Action Selection method in one world, over
several seeds, and print a table (and save a plot) of the scores with their spread."""

from __future__ import annotations

import argparse


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--world", default="ant", choices=["ant", "house"],
                        help="the Ant World or the House Robot (default: ant)")
    parser.add_argument("--methods", default="all",
                        help="comma-separated method names, or 'all' (default)")
    parser.add_argument("--seeds", type=int, default=3, help="how many seeds (default 3)")
    parser.add_argument("--steps", type=int, default=2000, help="steps per run (default 2000)")
    parser.add_argument("--train", type=int, default=10000,
                        help="steps each goal mind learns alone first (default 10000)")
    parser.add_argument("--temperature", type=float, default=0.02,
                        help="the goal minds' Q-temperature in the society runs (default 0.02)")
    parser.add_argument("--strengths", default="",
                        help="one mind strength per goal mind, comma-separated (section 10.10)")
    parser.add_argument("--plot", metavar="PNG", help="save a bar chart of the scores here")
    parser.add_argument("--scores", metavar="FILE", help="save every score as JSON here")
    parser.add_argument("--json", action="store_true",
                        help="print every score as JSON on stdout (the table goes to stderr)")


def _check_output(option: str, path: str | None) -> None:
    """Refuse before the long run, not after it, a file that could not be written."""
    if not path:
        return
    import os
    from pathlib import Path

    target = Path(path)
    folder = target.parent if str(target.parent) else Path(".")
    if target.is_dir():
        raise ValueError(f"{option} {path} is a folder; give a file name")
    if not folder.is_dir():
        raise ValueError(f"{option} {path}: the folder {folder} does not exist")
    if not os.access(folder, os.W_OK):
        raise ValueError(f"{option} {path}: the folder {folder} is not writable")


def run(args: argparse.Namespace) -> int:
    import json

    from rich.console import Console
    from rich.progress import Progress
    from rich.table import Table

    from ..commands import fail, interrupted
    from .compare import check_strengths, mean_sd, parse_methods, plot, run_compare

    console = Console(stderr=args.json)  # with --json, stdout carries the JSON alone
    try:
        methods = parse_methods(args.methods)
        if args.seeds < 1:
            raise ValueError("--seeds must be at least 1")
        if args.steps < 1 or args.train < 0:
            raise ValueError("--steps must be at least 1 and --train at least 0")
        if args.temperature < 0:
            raise ValueError("--temperature cannot be negative")
        check_strengths(args.world, args.strengths)
        _check_output("--plot", args.plot)
        _check_output("--scores", args.scores)
    except ValueError as exc:
        text = str(exc)
        return fail("compare", "--" + text if text.startswith("strengths") else text, 2)
    seeds = list(range(args.seeds))
    try:
        with Progress(console=console, transient=True, disable=args.quiet) as bar:
            task = bar.add_task("comparing", total=len(seeds) * (len(methods) + 1))
            result = run_compare(args.world, methods, seeds, args.steps, args.train,
                                 progress=lambda text: bar.update(task, advance=1, description=text),
                                 temperature=args.temperature, strengths=args.strengths)
    except KeyboardInterrupt:
        return interrupted("compare", "no scores saved")
    table = Table(title=f"{args.world} world: {args.steps} steps, {args.seeds} seed(s), childhood {args.train} steps")
    for column in ("method", "mean ± sd", "min", "max"):
        table.add_column(column, justify="left" if column == "method" else "right", overflow="fold")
    for method, mean, sd, low, high in result.rows():
        table.add_row(method, mean_sd(mean, sd), f"{low:.1f}", f"{high:.1f}")
    console.print(table)
    if args.plot:
        console.print(f"plot saved to {plot(result, args.plot)}", soft_wrap=True)
    if args.scores:
        with open(args.scores, "w") as out:
            json.dump(result.as_dict(), out, indent=2)
        console.print(f"scores saved to {args.scores}", soft_wrap=True)
    if args.json:
        print(json.dumps(result.as_dict(), indent=2))
    return 0
