"""``wwm tyrrell``: the Action Selection benchmark of Tyrrell's world, and a picture of a life.

    wwm tyrrell compare --seeds 5 --plot tyrrell.png
    wwm tyrrell compare --methods w=q,mwu,negotiated-w,mch --seeds 3 --lifetime 1000 --json
    wwm tyrrell picture world.png --method negotiated-w --seed 1 --steps 600
"""

from __future__ import annotations

import argparse
from collections import Counter
from pathlib import Path

from ..commands import whole_number


def add_arguments(parser: argparse.ArgumentParser) -> None:
    sub = parser.add_subparsers(dest="action", required=True, metavar="{compare,picture}")
    c = sub.add_parser("compare", help="every AS method over the same seeds: fitness and lifespan, table and plot")
    c.add_argument("--methods", default="all", help="comma-separated AS method names, or 'all' (default)")
    c.add_argument("--seeds", type=whole_number, default=5, help="how many lives per method (default 5)")
    c.add_argument("--lifetime", type=whole_number, default=3000, help="steps before death of old age (default 3000)")
    c.add_argument("--candidates", choices=["suggested", "shared"], default="suggested",
                   help="AS_m methods value the suggested actions (default) or all 25 (shared)")
    c.add_argument("--weights", default="", metavar="GOAL=W,...",
                   help="DAMN's vote per goal mind, e.g. mate=5,feline=3 (others 1; goals: fat, carbohydrate, "
                        "protein, water, temperature, clean, feline, hawk, vigilance, hazard, sleep, mate, home, "
                        "cover)")
    c.add_argument("--plot", metavar="PNG", help="save bar charts of fitness and lifespan here")
    c.add_argument("--scores", metavar="FILE", help="save every life's result as JSON here")
    c.add_argument("--json", action="store_true", help="print the results as JSON on stdout (the table goes to stderr)")
    p = sub.add_parser("picture", help="draw the world and the path of one life as a PNG")
    p.add_argument("out", metavar="PNG", help="the file to write")
    p.add_argument("--method", default="negotiated-w", help="the AS method (default negotiated-w)")
    p.add_argument("--seed", type=int, default=0, help="the world's seed (default 0)")
    p.add_argument("--steps", type=whole_number, default=600, help="steps to run at most (default 600)")


def _check_output(option: str, path: str | None) -> None:
    if not path:
        return
    target = Path(path)
    if target.is_dir():
        raise ValueError(f"{option} {path} is a folder; give a file name")
    if not (target.parent if str(target.parent) else Path(".")).is_dir():
        raise ValueError(f"{option} {path}: the folder {target.parent} does not exist")


def run(args: argparse.Namespace) -> int:
    from ..commands import fail
    try:
        if args.action == "picture":
            return _picture(args)
        return _compare(args)
    except ValueError as exc:
        return fail("tyrrell", exc, 2)


def _picture(args: argparse.Namespace) -> int:
    from ..selection.methods import method_class
    from .picture import picture

    _check_output("PNG", args.out)
    method = method_class(args.method).name
    print(f"picture saved to {picture(args.out, method, args.seed, args.steps)}")
    return 0


def _compare(args: argparse.Namespace) -> int:
    import json

    from rich.console import Console
    from rich.progress import Progress
    from rich.table import Table

    from ..commands import interrupted
    from ..selection.compare import mean_sd
    from ..selection.methods import method_class
    from .compare import default_methods, parse_weights, plot, run_compare

    console = Console(stderr=args.json)
    methods = default_methods() if args.methods.strip() in ("", "all") else \
        list(dict.fromkeys(method_class(m.strip()).name for m in args.methods.split(",") if m.strip()))
    if not methods:
        raise ValueError(f"no method named in {args.methods!r}; give method names or 'all'")
    weights = parse_weights(args.weights) if args.weights else None
    _check_output("--plot", args.plot)
    _check_output("--scores", args.scores)
    seeds = list(range(args.seeds))
    try:
        with Progress(console=console, transient=True, disable=args.quiet) as bar:
            task = bar.add_task("lives", total=len(seeds) * len(methods))
            result = run_compare(methods, seeds, args.lifetime, args.candidates,
                                 progress=lambda text: bar.update(task, advance=1, description=text), weights=weights)
    except KeyboardInterrupt:
        return interrupted("tyrrell", "no scores saved")
    table = Table(title=f"Tyrrell's world: {len(seeds)} lives per method, old age at {args.lifetime} steps, "
                        f"{args.candidates} candidates{', DAMN weights ' + args.weights if weights else ''}")
    for column in ("method", "fitness (matings)", "lifespan (steps)", "commonest end"):
        table.add_column(column, justify="left" if column in ("method", "commonest end") else "right",
                         overflow="fold")
    for method, fit, fit_sd, span, span_sd in result.rows():
        cause, times = Counter(result.causes[method]).most_common(1)[0]
        table.add_row(method, mean_sd(fit, fit_sd), mean_sd(span, span_sd), f"{cause} ({times}/{len(seeds)})")
    console.print(table)
    if args.plot:
        console.print(f"plot saved to {plot(result, args.plot)}", soft_wrap=True)
    if args.scores:
        Path(args.scores).write_text(json.dumps(result.as_dict(), indent=2))
        console.print(f"scores saved to {args.scores}", soft_wrap=True)
    if args.json:
        print(json.dumps(result.as_dict(), indent=2))
    return 0
