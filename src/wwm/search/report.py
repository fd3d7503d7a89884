"""What a search found, for people: a table of the best trials, the winning society as a
document, and two plots (score by trial with the best so far; which parameters mattered)."""

from __future__ import annotations

import math
import statistics
import warnings
from pathlib import Path
from typing import Any

import optuna
from optuna.trial import FrozenTrial, TrialState
from rich.table import Table

from .space import Space

OVER_BUDGET = "over_budget"  # a trial asked past the budget in a race between workers, never run


def trials_of(study: optuna.Study) -> list[FrozenTrial]:
    """The study's trials, but those dropped at once for being asked past the budget."""
    return [t for t in study.get_trials(deepcopy=False) if not t.user_attrs.get(OVER_BUDGET)]


def score_of(trial: FrozenTrial) -> float | None:
    return trial.values[0] if trial.values else None


def ranked(study: optuna.Study) -> list[FrozenTrial]:
    """Completed trials, best score first (fewer servers, then the earlier trial, break ties)."""
    done = study.get_trials(deepcopy=False, states=(TrialState.COMPLETE,))
    return sorted(done, key=lambda t: (-(score_of(t) or -math.inf), t.user_attrs.get("servers", 0), t.number))


def best_table(study: optuna.Study, space: Space, top: int = 10) -> Table:
    counts = {state: 0 for state in ("COMPLETE", "PRUNED", "FAIL", "RUNNING")}
    for t in trials_of(study):
        counts[t.state.name] = counts.get(t.state.name, 0) + 1
    seeds = len(space.seeds)
    table = Table(title=f"{space.name}: the best of {sum(counts.values())} trials "
                        f"({counts['COMPLETE']} complete, {counts['PRUNED']} pruned, {counts['FAIL']} failed); "
                        f"score over {space.base.run.steps} steps, mean of {seeds} seed{'s' * (seeds > 1)}")
    for column in ("trial", "score", "sd", "servers", "method", "members"):
        table.add_column(column, justify="right" if column in ("trial", "score", "sd", "servers") else "left",
                         overflow="fold")
    for t in ranked(study)[:top]:
        scores = t.user_attrs.get("scores") or []
        sd = statistics.stdev(scores) if len(scores) > 1 else 0.0
        members = t.user_attrs.get("members") or []
        strengths = [t.params.get(f"strength.{m}") for m in members]
        shown = ", ".join(f"{m} ×{s:.2g}" if s is not None else m for m, s in zip(members, strengths, strict=True))
        table.add_row(str(t.number), f"{score_of(t):.1f}", f"{sd:.1f}", str(t.user_attrs.get("servers", "")),
                      str(t.params.get("method", space.methods[0])), shown)
    return table


def as_dict(study: optuna.Study, space: Space) -> dict[str, Any]:
    """Every trial, for ``--json`` and for scripts."""
    trials = []
    for t in trials_of(study):
        trials.append({"number": t.number, "state": t.state.name.lower(), "values": t.values,
                       "params": t.params, "members": t.user_attrs.get("members"),
                       "scores": t.user_attrs.get("scores"), "servers": t.user_attrs.get("servers"),
                       "reason": t.user_attrs.get("reason"), "society": t.user_attrs.get("society")})
    best = ranked(study)
    return {"study": study.study_name, "space": space.name, "trials": trials,
            "best": best[0].user_attrs.get("society") if best else None}


def best_so_far(study: optuna.Study) -> list[float]:
    """After each trial (in trial order), the best score any completed trial had reached."""
    out: list[float] = []
    best = -math.inf
    for t in sorted(trials_of(study), key=lambda t: t.number):
        if t.state == TrialState.COMPLETE and (s := score_of(t)) is not None:
            best = max(best, s)
        out.append(best)
    return out


def plot_history(study: optuna.Study, path: str | Path, title: str = "") -> Path:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    trials = sorted(trials_of(study), key=lambda t: t.number)
    fig, ax = plt.subplots(figsize=(8, 4.5))
    done = [(t.number, t.values[0]) for t in trials if t.state == TrialState.COMPLETE and t.values]
    pruned = [(t.number, max(t.intermediate_values.values())) for t in trials
              if t.state == TrialState.PRUNED and t.intermediate_values]
    failed = [t.number for t in trials if t.state == TrialState.FAIL]
    if done:
        ax.scatter([n for n, _ in done], [s for _, s in done], s=14, color="#5b8bd0", label="complete")
    if pruned:
        ax.scatter([n for n, _ in pruned], [s for _, s in pruned], s=14, marker="x", color="#bbbbbb",
                   label="pruned (score when stopped)")
    best = best_so_far(study)
    ax.step(range(len(best)), [b if math.isfinite(b) else float("nan") for b in best], where="post",
            color="#d0625b", label="best so far")
    for n in failed:
        ax.axvline(n, color="#f0c0c0", lw=0.8)
    ax.set_xlabel("trial" + (" (red lines: failed)" if failed else ""))
    ax.set_ylabel("score (mean over seeds)")
    ax.set_title(title or f"search {study.study_name}")
    ax.legend(loc="lower right")
    fig.tight_layout()
    path = Path(path)
    fig.savefig(path)
    plt.close(fig)
    return path


def importances(study: optuna.Study) -> dict[str, float]:
    """Which parameters the score depended on (Optuna's default evaluator, PED-ANOVA)."""
    if len(study.get_trials(deepcopy=False, states=(TrialState.COMPLETE,))) < 2:
        return {}
    try:
        with warnings.catch_warnings():   # PED-ANOVA looks for what makes a target low: give it -score
            warnings.simplefilter("ignore", UserWarning)
            return dict(optuna.importance.get_param_importances(study, target=lambda t: -t.values[0]))
    except (RuntimeError, ValueError):  # too few distinct values to tell
        return {}


def plot_importances(study: optuna.Study, path: str | Path) -> Path | None:
    values = importances(study)
    if not values:
        return None
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    names = list(values)[:15][::-1]
    fig, ax = plt.subplots(figsize=(8, 0.3 * len(names) + 1.5))
    ax.barh(names, [values[n] for n in names], color="#5b8bd0")
    ax.set_xlabel("importance for the score (PED-ANOVA)")
    ax.set_title(f"what mattered in search {study.study_name}")
    fig.tight_layout()
    path = Path(path)
    fig.savefig(path)
    plt.close(fig)
    return path
