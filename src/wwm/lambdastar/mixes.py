"""The mixed-collectives experiment: each heterogeneous collective beside the pure collectives
of its types at the same size, on the same episodes, and the score its members would make if
each scored as in its own pure collective (the mix's parts weighted by their counts).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from .agents import TEAMS
from .agents.mixed import Part, mix_key, mix_size, parse_mix
from .sweep import Job, JobResult


def parse(key: str) -> list[Part]:
    return parse_mix(key, lambda agent: agent in TEAMS)


def mixed_jobs(mixes: Sequence[str], **common: Any) -> list[Job]:  # common: Job's other fields
    """For each mix: the mix itself (plain engine), then every pure collective of its types at
    the mix's size (vectorised engine; both engines give the same numbers). No job twice."""
    jobs: dict[tuple[str, int], Job] = {}
    for key in mixes:
        parts = parse(key)
        n = mix_size(parts)
        name = mix_key(parts)
        jobs.setdefault((name, n), Job(agent=name, size=n, engine="plain", **common))
        for p in parts:
            jobs.setdefault((p.agent, n), Job(agent=p.agent, size=n, engine="vector", **common))
    return list(jobs.values())


def weighted_parts(mix: JobResult, results: Sequence[JobResult]) -> tuple[float, list[float]]:
    """Υ and the score per band of K that the mix would make if each member scored as its
    type does in the pure collective of the mix's size: Σ count/n · Υ(type × n)."""
    parts = parse(mix.job.agent)
    n = mix_size(parts)
    pure = {r.job.agent: r for r in results if r.job.size == n and r.job.agent in TEAMS}
    missing = [p.agent for p in parts if p.agent not in pure]
    if missing:
        raise ValueError(f"no pure collective of {', '.join(missing)} ×{n} beside the mix {mix.job.agent}")
    upsilon = sum(p.count / n * pure[p.agent].upsilon for p in parts)
    bands = [sum(p.count / n * pure[p.agent].bands[b]["score"] for p in parts)
             for b in range(len(mix.bands))]
    return upsilon, bands


def plot(results: Sequence[JobResult], out: Path) -> Path:
    """``mixed_vs_pure.png``: score against pattern complexity, one panel per mix, the mix
    (solid), its pure collectives (dashed) and the weighted parts (dotted)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    mixes = [r for r in results if r.job.agent not in TEAMS]
    fig, axes = plt.subplots(1, len(mixes), figsize=(5.2 * len(mixes), 4.2), squeeze=False, sharey=True)
    for ax, mix in zip(axes[0], mixes, strict=True):
        def xs(r: JobResult) -> list[float]:
            return [(b["k_min"] + b["k_max"]) / 2 for b in r.bands if b["episodes"]]

        def ys(r: JobResult) -> list[float]:
            return [b["score"] for b in r.bands if b["episodes"]]

        n = mix.job.size
        for part in parse(mix.job.agent):
            pure = next(r for r in results if r.job.agent == part.agent and r.job.size == n)
            ax.plot(xs(pure), ys(pure), ls="--", marker="o", label=f"{part.agent} ×{n} (pure)")
        _, weighted = weighted_parts(mix, results)
        ax.plot(xs(mix), [w for w, b in zip(weighted, mix.bands, strict=True) if b["episodes"]],
                ls=":", color="grey", label="members as in their pure collectives")
        ax.plot(xs(mix), ys(mix), lw=2.5, marker="s", color="black", label=f"{mix.job.agent} (mix)")
        ax.set_title(f"{mix.job.agent}, Υ = {mix.upsilon:+.3f}", fontsize=9)
        ax.set_xlabel("pattern complexity K(μ) (LZ, band middle)")
        ax.axhline(0, color="grey", lw=0.5)
        ax.legend(fontsize=7)
    axes[0][0].set_ylabel("score Υ")
    fig.suptitle("Λ*: heterogeneous collectives against the pure ones")
    fig.tight_layout()
    path = out / "mixed_vs_pure.png"
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path
