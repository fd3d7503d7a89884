"""The plots of ``wwm tworld batch``: effectiveness ε against γ (one line per agent and
dynamism), and ε and score against dynamism (one line per agent and γ), the kind of figure
Kinny and Georgeff drew of bold and cautious agents as the world changes faster."""

from __future__ import annotations

from pathlib import Path

from .batch import Point


def _use_agg() -> None:
    """Draw off-screen (no display needed): before pyplot is first imported."""
    import matplotlib

    matplotlib.use("Agg")


def against_gamma(points: list[Point], path: Path, title: str) -> None:
    """ε against γ (log), one line per (agent, dynamism), with the standard deviations."""
    _use_agg()
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 4.5))
    for agent, dyn in dict.fromkeys((p.agent, p.dynamism) for p in points):
        pts = sorted((p for p in points if p.agent == agent and p.dynamism == dyn), key=lambda p: p.gamma)
        ax.errorbar([p.gamma for p in pts], [p.effectiveness for p in pts], yerr=[p.effectiveness_sd for p in pts],
                    marker="o", capsize=3, label=f"{agent}, dynamism {dyn}-{2 * dyn} s")
    ax.set_xscale("log")
    ax.set_xlabel("γ: world seconds per agent step (log)")
    ax.set_ylabel("effectiveness ε")
    ax.set_ylim(0, 1.05)
    ax.set_title(title)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def against_dynamism(points: list[Point], path: Path, title: str) -> None:
    """ε (left) and mean score (right) against dynamism d, one line per (agent, γ); the
    x axis runs from slow worlds (holes live long) to fast ones (holes come and go quickly)."""
    _use_agg()
    import matplotlib.pyplot as plt

    fig, (eff, score) = plt.subplots(1, 2, figsize=(10, 4.2))
    for agent, gamma in dict.fromkeys((p.agent, p.gamma) for p in points):
        pts = sorted((p for p in points if p.agent == agent and p.gamma == gamma), key=lambda p: p.dynamism)
        label = agent if len({p.gamma for p in points}) == 1 else f"{agent}, γ {gamma:g}"
        xs = [p.dynamism for p in pts]
        line = eff.errorbar(xs, [p.effectiveness for p in pts], yerr=[p.effectiveness_sd for p in pts],
                            marker="o", capsize=3, label=label)
        score.plot(xs, [p.score for p in pts], marker="o", color=line[0].get_color(), label=label)
    ticks = sorted({p.dynamism for p in points})
    for ax in (eff, score):
        ax.set_xscale("log", base=2)
        ax.set_xticks(ticks, [str(t) for t in ticks])
        ax.minorticks_off()
        ax.invert_xaxis()  # the world changes faster to the right, as in Kinny and Georgeff's plots
        ax.set_xlabel("dynamism d (s, log): faster world →")
        ax.grid(alpha=0.3)
    eff.set_ylabel("effectiveness ε")
    eff.set_ylim(0, 1.05)
    score.set_ylabel("mean score")
    eff.legend(fontsize=8)
    fig.suptitle(f"{title}\nholes recur every d+2..2d+2 s and live as long")
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
