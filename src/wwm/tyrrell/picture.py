"""A picture of Tyrrell's world from a real run: the terrain, the den, food, the other
animals, and the path the animal took, drawn by matplotlib (``wwm tyrrell picture``)."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from ..client.runner import RunSettings, run
from ..selection.mind_as import ActionSelectionMind
from .minds import society
from .world import TyrrellWorld


async def trace(method: str, seed: int, steps: int
                ) -> tuple[TyrrellWorld, list[tuple[int, int]], dict[str, list[list[int]]]]:
    """Run the society under ``method`` for up to ``steps``; the world at the end, the cells
    the animal stood on, and where the world's things were at the start."""
    world = TyrrellWorld(seed=seed, lifetime=max(steps, 1))
    e = world.engine
    start = {"felines": e.felines.tolist(), "hawks": e.hawks.tolist(), "mates": e.mates.tolist(),
             "animals": e.animals.tolist(), "fruit": e.food["fruit"].tolist(), "cereal": e.food["cereal"].tolist(),
             "prey": e.food["prey"].tolist()}
    path = [e.pos]
    mind = ActionSelectionMind(society(), method=method, seed=seed)
    await run(mind, world, RunSettings(steps=steps, keepalive=None), on_step=lambda *_: path.append(e.pos))
    return world, path, start


def draw(world: TyrrellWorld, path: list[tuple[int, int]], start: dict[str, list[list[int]]], out: str | Path,
         title: str = "") -> Path:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np
    from matplotlib.colors import ListedColormap

    e = world.engine
    n = e.rules.size
    fig, ax = plt.subplots(figsize=(7.2, 7.2))
    colours = ListedColormap(["#f5f0e1", "#86b86b", "#8c7b5a", "#7fb2e5"])  # open, cover, swamp, water
    # terrain codes (rules.OPEN, COVER, SWAMP, WATER) index the colours
    ax.imshow(e.ground, cmap=colours, vmin=0, vmax=3, origin="upper", extent=(-0.5, n - 0.5, n - 0.5, -0.5))

    def dots(cells: list[list[int]], **kw: Any) -> None:  # kw: matplotlib's scatter options
        if len(cells):
            a = np.asarray(cells)
            ax.scatter(a[:, 0], a[:, 1], **kw)
    dots(start["fruit"], marker="o", s=40, c="#e11d48", label="fruit (on cover)")
    dots(start["cereal"], marker="s", s=30, c="#eab308", label="cereal")
    dots(start["prey"], marker="^", s=40, c="#a16207", label="prey")
    dots(start["mates"], marker="P", s=70, c="#db2777", label="mates")
    dots(start["animals"], marker="X", s=70, c="#57534e", label="irrelevant animals")
    dots(start["felines"], marker="D", s=60, c="#dc2626", label="felines (predator1)")
    dots(start["hawks"], marker="v", s=70, c="#7c3aed", label="hawks (predator2)")
    p = np.asarray(path)
    ax.plot(p[:, 0], p[:, 1], "-", color="#1d4ed8", lw=1.0, alpha=0.6, label="the animal's path")
    ax.scatter([e.den[0]], [e.den[1]], marker="*", s=260, c="#f59e0b", edgecolors="black", zorder=5, label="den")
    ax.scatter([p[-1, 0]], [p[-1, 1]], marker="o", s=90, c="#1d4ed8", edgecolors="white", zorder=6,
               label="the animal at the end")
    fate = "alive" if e.alive else e.cause
    ax.set_title(title or f"Tyrrell's world, seed {e.seed}: {e.step_count} steps, {e.fitness} matings, {fate}")
    from matplotlib.patches import Patch
    handles, _ = ax.get_legend_handles_labels()
    handles += [Patch(color=c, label=t) for c, t in (("#86b86b", "cover"), ("#8c7b5a", "swamp"), ("#7fb2e5", "water"))]
    ax.legend(handles=handles, loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize=8, frameon=False)
    ax.set_xlim(-0.5, n - 0.5)
    ax.set_ylim(n - 0.5, -0.5)
    ax.set_xticks([])
    ax.set_yticks([])
    fig.tight_layout()
    out = Path(out)
    fig.savefig(out, dpi=110, bbox_inches="tight")
    plt.close(fig)
    return out


def picture(out: str | Path, method: str = "negotiated-w", seed: int = 0, steps: int = 600) -> Path:
    world, path, start = asyncio.run(trace(method, seed, steps))
    return draw(world, path, start, out)
