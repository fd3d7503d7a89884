"""The three architectures of sections 10.2-10.3.1 against their naive baselines, over seeds,
as a table and a plot (``docs/img/architectures.png``). The minds are the same classes the
servers serve, run in process here so the figure takes a second; the tests run them as
separate servers (``tests/selection/test_architectures.py``).

Run: ``python -m wwm.selection.architectures --seeds 10 --plot docs/img/architectures.png``.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
from collections.abc import Callable
from pathlib import Path

from ..client.runner import RunSettings, run
from ..kit.grid import GridWorld
from ..kit.random_mind import RandomMind
from ..protocol.interfaces import Mind, World
from .keydoor import ACTIONS, Explore, FetchKey, KeyDoorWorld, OpenDoor, ReachGoal
from .maes import MaesNetwork
from .serial import SerialMind
from .subsumption import SubsumptionLayer

GRID_STEPS = 200

Row = tuple[str, str, list[float]]  # (panel, society, one figure per seed)


def _stack(top: str, seed: int) -> Mind:
    mind: Mind = SubsumptionLayer("wander", seed=seed)
    for name in ("avoid", "seek")[: ("wander", "avoid", "seek").index(top)]:
        mind = SubsumptionLayer(name, below=mind)
    return mind


def _chain(seed: int) -> list[Mind]:
    return [Explore(seed=seed), ReachGoal(), OpenDoor(), FetchKey()]


SOCIETIES: dict[str, dict[str, Callable[[int], Mind]]] = {
    "Subsumption: grid World score, 200 steps\n(higher is better)": {
        "random mind": lambda s: RandomMind(seed=s),
        "wander (bottom layer alone)": lambda s: _stack("wander", s),
        "wander < avoid": lambda s: _stack("avoid", s),
        "wander < avoid < seek": lambda s: _stack("seek", s),
    },
    "Key and door: steps to the goal\n(lower is better; 100: not reached)": {
        "random mind": lambda s: RandomMind(actions=",".join(ACTIONS), seed=s),
        "Maes, no spreading (ready mind at random)": lambda s: MaesNetwork(
            _chain(s), goal="at_goal", spreading=False, seed=s),
        "Maes spreading activation": lambda s: MaesNetwork(_chain(s), goal="at_goal", seed=s),
        "serial (Ready to suggest action?)": lambda s: SerialMind([FetchKey(), OpenDoor(), ReachGoal()]),
    },
}


async def measure(seeds: list[int]) -> list[Row]:
    rows: list[Row] = []
    for panel, societies in SOCIETIES.items():
        grid = panel.startswith("Subsumption")
        for name, make in societies.items():
            figures = []
            for seed in seeds:
                world: World = GridWorld(seed=seed) if grid else KeyDoorWorld(seed=seed)
                result = await run(make(seed), world, RunSettings(steps=GRID_STEPS if grid else None, keepalive=None))
                figures.append(result.total_score if grid else float(len(result.steps)))
            rows.append((panel, name, figures))
    return rows


def table(rows: list[Row]) -> str:
    lines, panel = [], ""
    for p, name, figures in rows:
        if p != panel:
            title = p.replace("\n", " ")
            lines += ["", title, "-" * len(title)]
            panel = p
        sd = statistics.stdev(figures) if len(figures) > 1 else 0.0
        lines.append(f"{name:<45} {statistics.mean(figures):8.1f} ± {sd:5.1f}")
    return "\n".join(lines).strip()


def plot(rows: list[Row], path: str | Path, seeds: int) -> Path:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    panels = list(dict.fromkeys(p for p, _, _ in rows))
    fig, axes = plt.subplots(1, len(panels), figsize=(13, 3.4))
    for ax, panel in zip(axes, panels, strict=True):
        mine = [r for r in rows if r[0] == panel][::-1]
        ax.barh([r[1] for r in mine], [statistics.mean(r[2]) for r in mine],
                xerr=[statistics.stdev(r[2]) if len(r[2]) > 1 else 0.0 for r in mine],
                color=["#5b8bd0"] * (len(mine) - 1) + ["#bbbbbb"], capsize=3)  # grey: the random mind
        ax.set_title(panel, fontsize=9)
        ax.axvline(0, color="black", linewidth=0.6)
    fig.suptitle(f"Architectures from the queries alone (mean ± sd over {seeds} seeds)", fontsize=11)
    fig.tight_layout()
    path = Path(path)
    fig.savefig(path, dpi=90)
    plt.close(fig)
    return path


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--seeds", type=int, default=10, help="seeds 0..N-1 (default 10)")
    parser.add_argument("--plot", type=Path, help="write the figure here (PNG)")
    args = parser.parse_args(argv)
    if args.seeds < 1:
        parser.error("--seeds must be at least 1")
    rows = asyncio.run(measure(list(range(args.seeds))))
    print(table(rows))
    if args.plot:
        print(f"plot: {plot(rows, args.plot, args.seeds)}")


if __name__ == "__main__":
    main()
