"""``wwm run --episodes N --seeds 1,2,3``: a society run N times per seed (wwm.client.episodes),
shown as progress, then as mean ± standard error over seeds (all episodes, the first and the
last tenth) and a learning-curve plot with its CSV, for any mind in any world."""

from __future__ import annotations

import argparse
import re
from pathlib import Path
from typing import TYPE_CHECKING

from ..paths import results

if TYPE_CHECKING:
    from rich.console import Console

    from ..client.episodes import Curve
    from ..client.runner import RunSettings
    from ..client.society import Society


def seed_list(text: str) -> list[int]:
    """``1,2,3`` or ``1-5`` (or both, comma-separated) as a list of seeds."""
    seeds: list[int] = []
    for part in text.split(","):
        part = part.strip()
        span = re.fullmatch(r"(\d+)-(\d+)", part)
        if span and int(span[1]) <= int(span[2]):
            seeds += range(int(span[1]), int(span[2]) + 1)
        elif part.isdigit():
            seeds.append(int(part))
        else:
            raise argparse.ArgumentTypeError(f"seeds are whole numbers like 1,2,3 or 1-5, not {part!r}")
    if len(set(seeds)) != len(seeds):
        raise argparse.ArgumentTypeError("a seed is given twice")
    return seeds


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--episodes", type=int, metavar="N",
                        help="run the society N times per seed and show the learning curve, mean ± s.e. over seeds")
    parser.add_argument("--seeds", type=seed_list, default=None, metavar="LIST",
                        help="with --episodes: the seeds, one replicate each (default 1,2,3), e.g. 1-5")
    parser.add_argument("--plot", type=Path, metavar="FILE.png",
                        help="with --episodes: where the learning curve goes (default: episodes/ in wwm's "
                             "data folder, ~/.local/share/wwm); its CSV beside it")


async def episodes(society: Society, settings: RunSettings, args: argparse.Namespace) -> Curve:
    """Run the episodes with a progress bar, print the summary, save the plot and the CSV."""
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    from ..client.episodes import run_episodes
    from ..protocol.records import RunResult
    from ..store import RunStore

    seeds = args.seeds or [1, 2, 3]
    console = Console()
    store = None if args.no_record else RunStore(args.db)
    progress = Progress(TextColumn("[bold]episodes"), BarColumn(bar_width=30), MofNCompleteColumn(),
                        TextColumn("{task.fields[last]}"), TimeElapsedColumn(), console=console,
                        disable=args.quiet)
    task = progress.add_task("episodes", total=args.episodes * len(seeds), last="")

    def on_episode(seed: int, episode: int, result: RunResult) -> None:
        progress.update(task, advance=1, last=f"seed {seed} episode {episode + 1}: {result.total_score:g}")

    try:
        with progress:
            curve = await run_episodes(society, settings, episodes=args.episodes, seeds=seeds, store=store,
                                       on_episode=on_episode)
    finally:
        if store is not None:
            store.close()
    plot = args.plot or results("episodes") / f"{_slug(society.name)}.png"
    saved = save(curve, plot, society.name)
    show(console, curve, society.name, saved)
    return curve


def show(console: Console, curve: Curve, name: str, saved: list[Path]) -> None:
    from rich.table import Table

    n = curve.episodes
    tenth = max(1, n // 10)
    table = Table(title=f"{name}: {n} episodes × {len(curve.seeds)} seeds", title_justify="left")
    table.add_column("episodes")
    table.add_column("mean score ± s.e. over seeds", justify="right")
    for label, first, last in (("all", 0, n), (f"first {tenth}", 0, tenth), (f"last {tenth}", n - tenth, n)):
        mean, error = curve.over(first, last)
        table.add_row(label, f"{mean:.2f} ± {error:.2f}")
    console.print(table)
    stopped = [s for s in curve.statuses if s not in ("completed", "ended by world")]
    if stopped:
        why = ", ".join(sorted(set(stopped)))
        console.print(f"{len(stopped)} of {len(curve.statuses)} runs did not complete: {why}")
    console.print("saved: " + ", ".join(str(p) for p in saved), soft_wrap=True)


def save(curve: Curve, plot: Path, name: str) -> list[Path]:
    """The learning curve (mean over seeds, a band of ± one standard error, each seed faint)
    as ``plot``, and every score as a CSV beside it."""
    import csv

    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    plot.parent.mkdir(parents=True, exist_ok=True)
    table = plot.with_suffix(".csv")
    with table.open("w", newline="") as out:
        writer = csv.writer(out)
        writer.writerow(["seed", "episode", "total_score"])
        for seed, row in zip(curve.seeds, curve.scores, strict=True):
            writer.writerows([seed, e + 1, score] for e, score in enumerate(row))
    x = list(range(1, curve.episodes + 1))
    mean, error = curve.mean(), curve.stderr()
    figure, axes = plt.subplots(figsize=(7, 4), layout="constrained")
    for row in curve.scores:
        axes.plot(x, row, color="0.8", linewidth=0.8)
    axes.fill_between(x, [m - e for m, e in zip(mean, error, strict=True)],
                      [m + e for m, e in zip(mean, error, strict=True)], alpha=0.3, label="± 1 s.e.")
    axes.plot(x, mean, linewidth=2, label=f"mean of {len(curve.seeds)} seeds")
    axes.set(xlabel="episode", ylabel="total score", title=name)
    axes.legend()
    figure.savefig(plot, dpi=120)
    plt.close(figure)
    return [plot, table]


def _slug(name: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-") or "episodes"
