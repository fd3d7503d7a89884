"""``wwm broken-links``: serve copies of the Ant World minds, kill the servers one by one
during each run, and print (and plot) the society's score against the fraction lost, over
several seeds and one or more Action Selection methods (section 6.5)."""

from __future__ import annotations

import argparse


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--methods", default="w=q",
                        help="comma-separated Action Selection methods (default w=q)")
    parser.add_argument("--seeds", type=int, default=3, help="how many seeds (default 3)")
    parser.add_argument("--copies", type=int, default=3,
                        help="copies of each of the three minds, each its own server (default 3)")
    parser.add_argument("--segment", type=int, default=100,
                        help="steps between two servers killed (default 100)")
    parser.add_argument("--timeout", type=float, default=1.0,
                        help="the Action Selection server's time-out per round, seconds (default 1)")
    parser.add_argument("--plot", metavar="PNG", help="save the score against the fraction lost here")
    parser.add_argument("--scores", metavar="FILE", help="save every score as JSON here")


def run(args: argparse.Namespace) -> int:
    import json

    from rich.console import Console
    from rich.progress import Progress
    from rich.table import Table

    from ..commands import fail, interrupted
    from .broken_links import experiment, plot
    from .command import _check_output
    from .compare import mean_sd, parse_methods

    console = Console()
    try:
        methods = parse_methods(args.methods)
        if args.seeds < 1 or args.copies < 1 or args.segment < 1:
            raise ValueError("--seeds, --copies and --segment must be at least 1")
        if args.timeout <= 0:
            raise ValueError("--timeout must be positive")
        _check_output("--plot", args.plot)
        _check_output("--scores", args.scores)
    except ValueError as exc:
        return fail("broken-links", exc, 2)
    seeds = list(range(args.seeds))
    try:
        with Progress(console=console, transient=True, disable=args.quiet) as bar:
            task = bar.add_task(f"starting {3 * args.copies} mind servers", total=1 + len(methods) * len(seeds))
            result = experiment(methods, seeds, args.copies, args.segment, args.timeout,
                                progress=lambda text: bar.update(task, advance=1, description=text))
    except KeyboardInterrupt:
        return interrupted("broken-links", "no scores saved")
    except RuntimeError as exc:
        return fail("broken-links", exc)
    table = Table(title=f"Broken links: {result.servers} mind servers ({args.copies} copies of 3 minds), "
                        f"one killed every {args.segment} steps, {args.seeds} seed(s)")
    table.add_column("servers lost", justify="right")
    for method in result.parts:
        table.add_column(f"{method}: score", justify="right")
        table.add_column("all alive", justify="right")
        table.add_column("acted", justify="right")
    summaries = {m: (result.rows(m), result.rows(m, intact=True)) for m in result.parts}
    for k in range(result.servers + 1):
        cells = [f"{k}/{result.servers}"]
        for method in result.parts:
            broken, intact = summaries[method]
            cells += [mean_sd(broken[k][1], broken[k][2]), mean_sd(intact[k][1], intact[k][2]),
                      f"{broken[k][3]:.2f}"]
        table.add_row(*cells)
    console.print("score per part of the run, mean ± sd over the seeds; 'all alive': the same part of the "
                  "same run with no server killed; 'acted': the share of steps with an action", soft_wrap=True)
    console.print(table)
    if args.plot:
        console.print(f"plot saved to {plot(result, args.plot)}", soft_wrap=True)
    if args.scores:
        with open(args.scores, "w") as out:
            json.dump(result.as_dict(), out, indent=2)
        console.print(f"scores saved to {args.scores}", soft_wrap=True)
    return 0
