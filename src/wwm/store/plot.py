"""A picture of one recorded run: the score of each step as bars and the running total as a
line, saved as PNG (matplotlib, Agg backend, no display needed)."""

from __future__ import annotations

from pathlib import Path

from .engine import StoreError
from .records import RunSummary

MAX_BARS = 1000


def plot_scores(run: RunSummary, scores: list[tuple[int, float | None]], path: str | Path) -> Path:
    """Save the score-per-step plot of ``run`` to ``path`` (a .png) and return the path."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    path = Path(path)
    if not path.parent.is_dir():
        raise StoreError(f"cannot save the plot: no such directory {str(path.parent)!r}")
    import numpy as np

    steps = np.array([i for i, _ in scores], dtype=float)
    values = np.array([s or 0.0 for _, s in scores], dtype=float)
    running = np.cumsum(values)
    total = float(running[-1]) if len(running) else 0.0
    bars, label, k = values, "score per step", 1
    if len(values) > MAX_BARS:  # one bar per bin of k steps: their mean score per step
        k = -(-len(values) // MAX_BARS)
        padded = np.concatenate([values, np.full(-len(values) % k, np.nan)])
        bars = np.nanmean(padded.reshape(-1, k), axis=1)
        label = f"mean score per step (bins of {k})"
    edges = (steps[0] if len(steps) else 0.0) - 0.5 + k * np.arange(len(bars) + 1)
    fig, ax = plt.subplots(figsize=(9, 4.5), dpi=100)
    try:
        ax.stairs(bars, edges, fill=True, color="#4C72B0", alpha=0.6, label=label)  # one artist: fast
        ax.set_xlabel("step")
        ax.set_ylabel("score per step")
        ax.axhline(0, color="black", linewidth=0.6)
        twin = ax.twinx()
        twin.plot(steps, running, color="#C44E52", linewidth=1.8, label="total so far")
        twin.set_ylabel("total score")
        ax.set_title(f"Run {run.id}: {run.name or 'unnamed'} ({run.status}, {len(steps)} steps, "
                     f"total {total:g})")
        handles, labels = ax.get_legend_handles_labels()
        twin_handles, twin_labels = twin.get_legend_handles_labels()
        ax.legend(handles + twin_handles, labels + twin_labels, loc="upper left")
        if not len(steps):
            ax.text(0.5, 0.5, "no steps recorded", transform=ax.transAxes, ha="center")
        fig.tight_layout()
        try:
            fig.savefig(path, format="png")
        except OSError as exc:
            raise StoreError(f"cannot save the plot to {str(path)!r}: {exc.strerror or exc}") from None
    finally:
        plt.close(fig)
    return path
