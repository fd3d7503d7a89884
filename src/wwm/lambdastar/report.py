"""Reports of a Λ* test: the table printed at the terminal (Υ, its standard error and the
score per band of K), the CSV and JSON files, and the plots: score against K, score against
the number of agents, and isolated agents against their collective form.
"""

from __future__ import annotations

import csv
import json
import math
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from .agents import TEAMS
from .sweep import JobResult
from .torus import grid_text

if TYPE_CHECKING:
    from matplotlib.figure import Figure
    from rich.table import Table


def table(results: Sequence[JobResult], title: str = "Λ* test") -> Table:
    """A rich Table: one row per test, one column per band of K. Settings shared by every
    row (grid, seed, profile) go in the title, so the table fits in 80 columns; a cell too
    wide for the terminal wraps rather than being cut."""
    from rich.table import Table

    settings = {"grid": lambda r: grid_text(r.job.grid), "seed": lambda r: str(r.job.seed),
                "profile": lambda r: r.job.profile, "K(μ) in": _k_span}
    varying = [name for name, get in settings.items() if len({get(r) for r in results}) > 1]
    shared = [f"{name} {settings[name](results[0])}" for name in settings if name not in varying and results]
    t = Table(title=", ".join([title, *shared]),
              caption="visited: the share of the cells an agent stood on in an episode (its team's)")
    for name in ("agent", "n", *varying, "Υ ± s.e.", "visited"):
        t.add_column(name, justify="left" if name in ("agent", "profile") else "right", overflow="fold")
    band_names = _band_names(results)
    for name in band_names:
        t.add_column(f"K {name}", justify="right", overflow="fold")
    for r in results:
        bands = {f"{b['k_min']}-{b['k_max']}": b for b in r.bands}
        cells = [f"{bands[n]['score']:+.3f}" if n in bands and bands[n]["episodes"] else ""
                 for n in band_names]
        t.add_row(r.job.agent, str(r.job.size), *[settings[name](r) for name in varying],
                  f"{r.upsilon:+.4f} ± {r.stderr:.4f}", _visited(r), *cells)
    return t


def _visited(r: JobResult) -> str:
    """The mean share of the cells an agent stood on in an episode; the team's after it."""
    if r.coverage is None:
        return "-"
    agent = sum(r.coverage) / len(r.coverage)
    team = r.team_coverage if len(r.coverage) > 1 else None
    return f"{agent:.0%}" + ("" if team is None else f" ({team:.0%})")


def _k_span(r: JobResult) -> str:
    """The range of pattern complexity the test's episodes cover."""
    return f"[{min(r.complexity)}, {max(r.complexity)}]" if r.complexity else "-"


def _band_names(results: Sequence[JobResult]) -> list[str]:
    names: list[str] = []
    for r in results:
        for b in r.bands:
            name = f"{b['k_min']}-{b['k_max']}"
            if name not in names:
                names.append(name)
    return names


def write_csv(results: Sequence[JobResult], path: Path) -> Path:
    names = _band_names(results)
    with open(path, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["agent", "size", "grid", "profile", "environment", "seed", "episodes",
                    "iterations", "observation_range", "coordination", "engine", "entropy_bits",
                    "upsilon", "stderr", "coverage", "team_coverage", *[f"K {n}" for n in names]])
        for r in results:
            j = r.job
            bands = {f"{b['k_min']}-{b['k_max']}": b["score"] for b in r.bands}
            w.writerow([j.agent, j.size, grid_text(j.grid), j.profile, j.environment, j.seed, j.episodes,
                        j.iterations, j.observation_range, j.coordination, j.engine,
                        f"{r.entropy:.4f}", f"{r.upsilon:.6f}", f"{r.stderr:.6f}",
                        "" if r.coverage is None else f"{sum(r.coverage) / len(r.coverage):.6f}",
                        "" if r.team_coverage is None else f"{r.team_coverage:.6f}",
                        *[f"{bands[n]:.6f}" if n in bands else "" for n in names]])
    return path


def as_json(results: Sequence[JobResult]) -> str:
    """Strict JSON: an undefined figure (the standard error of one episode) is null."""
    return json.dumps(_finite([r.as_dict() for r in results]), indent=1, allow_nan=False)


def write_json(results: Sequence[JobResult], path: Path) -> Path:
    path.write_text(as_json(results))
    return path


def _finite(value: object) -> object:
    """The JSON-bound value with every NaN or infinity (at any depth) made None."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_finite(v) for v in value]
    return value


def plots(results: Sequence[JobResult], out: Path) -> list[Path]:
    """Save the plots that fit the results (PNG, matplotlib Agg); returns their paths."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    saved = []
    # score against K, one line per (agent, size)
    fig, ax = plt.subplots(figsize=(9, 4.5))
    for r in results:
        xs = [(b["k_min"] + b["k_max"]) / 2 for b in r.bands if b["episodes"]]
        ys = [b["score"] for b in r.bands if b["episodes"]]
        ax.plot(xs, ys, marker="o", label=f"{r.job.agent} ×{r.job.size}")
    ax.set_xlabel("pattern complexity K(μ) (LZ, band middle)")
    ax.set_ylabel("score Υ")
    ax.set_title("Λ* score against pattern complexity")
    ax.axhline(0, color="grey", lw=0.5)
    ax.legend(fontsize=7, ncol=1 + len(results) // 16, loc="upper left", bbox_to_anchor=(1.01, 1))
    saved.append(_save(fig, out / "score_vs_complexity.png"))
    plt.close(fig)
    # score against number of agents
    sizes = sorted({r.job.size for r in results})
    if len(sizes) > 1:
        fig, ax = plt.subplots(figsize=(7, 4.5))
        for agent in dict.fromkeys(r.job.agent for r in results):
            rows = sorted((r.job.size, r.upsilon, r.stderr) for r in results if r.job.agent == agent)
            ax.errorbar([s for s, _, _ in rows], [u for _, u, _ in rows],
                        yerr=[e for _, _, e in rows], marker="o", capsize=3, label=agent)
        ax.set_xscale("log", base=2)
        ax.set_xticks(sizes, [str(s) for s in sizes])
        ax.set_xlabel("number of agents")
        ax.set_ylabel("score Υ")
        ax.set_title("Λ* score against group size")
        ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1))
        saved.append(_save(fig, out / "score_vs_agents.png"))
        plt.close(fig)
    # isolated against collective: each collective next to its isolated form
    pairs = []
    for r in results:
        base = TEAMS[r.job.agent].isolated_form if r.job.agent in TEAMS else None
        match = [x for x in results if x.job.agent == base and x.job.size == r.job.size]
        if base and match:
            pairs.append((r, match[0]))
    if pairs:
        fig, ax = plt.subplots(figsize=(max(7.0, 1.2 * len(pairs)), 4.5))
        labels = [f"{i.job.agent} / {c.job.agent}\n×{c.job.size}" for c, i in pairs]
        xs = list(range(len(pairs)))
        ax.bar([x - 0.2 for x in xs], [i.upsilon for _, i in pairs], 0.4, label="isolated",
               yerr=[i.stderr for _, i in pairs])
        ax.bar([x + 0.2 for x in xs], [c.upsilon for c, _ in pairs], 0.4, label="collective",
               yerr=[c.stderr for c, _ in pairs])
        ax.set_xticks(list(xs), labels, fontsize=7, rotation=20, ha="right")
        ax.set_ylabel("score Υ")
        ax.set_title("isolated agents against their collective")
        ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1))
        saved.append(_save(fig, out / "isolated_vs_collective.png"))
        plt.close(fig)
    return saved


def _save(fig: Figure, path: Path) -> Path:
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    return path
