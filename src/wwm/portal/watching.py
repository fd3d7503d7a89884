"""What a portal run's page tells a person watching it (issue 26 item 3): the run's status in
plain words, and the score chart, drawn on the server so it is there before any script runs.

``static/run.js`` says the running status the same way ("Running — step 40 of 200") and
extends the chart the server drew; a finished run's words come with the stream's ``end``
message (:func:`wwm.portal.live.end_message`), made here.
"""

from __future__ import annotations

import math
from typing import Any

CHART_W, CHART_H, CHART_PAD = 600, 200, 30      # the chart's viewBox, as run.js draws it
CHART_POINTS = 600                              # at most this many points are drawn


def _score(total: float | None) -> str:
    return f"{total:g}" if total is not None and math.isfinite(total) else "none"


def _steps(n: int) -> str:
    return f"{n:,} step{'' if n == 1 else 's'}"


def running_words(steps: int, asked: int | None) -> str:
    """The status of a run in progress: "Running — step 40 of 200" (the count of steps made)."""
    if not steps:
        return "Running — starting"
    return f"Running — step {steps:,} of {asked:,}" if asked else f"Running — step {steps:,} (until ended)"


def status_words(status: str, steps: int, total: float | None, *, asked: int | None = None,
                 reason: str = "") -> str:
    """A run's status said to a person: "Finished: 200 steps, score 22", "Stopped: the mind
    stopped answering after 57 steps", ... ``steps``: the steps recorded; ``reason``: the
    text of the event that ended it, if any (said after a colon where it helps)."""
    done = f"{_steps(steps)}, score {_score(total)}"
    why = f" ({reason})" if reason else ""
    if status == "running":
        return running_words(steps, asked)
    if status == "completed":
        return f"Finished: {done}"
    if status == "ended by world":
        return f"Finished: the World ended the run after {done}"
    if status == "ended by its owner":
        return f"Stopped by its owner after {done}"
    if status == "mind lost":
        return f"Stopped: the mind stopped answering after {_steps(steps)}{why}"
    if status == "mind failed":
        return f"Stopped: the mind kept failing after {_steps(steps)}{why}"
    if status == "world lost":
        return f"Stopped: the World stopped answering after {_steps(steps)}{why}"
    if status == "could not start":
        return f"Did not start{': ' + reason if reason else ''}"
    if status.startswith("interrupted"):
        return f"Stopped: the portal was interrupted after {_steps(steps)}{why}"
    if status.startswith("suspended"):
        return f"Paused after {_steps(steps)}: the portal stopped, and the run carries on when it is back"
    return f"{status[:1].upper()}{status[1:]}: {done}"


def degraded_words(text: str) -> str:
    """The status line's words for a ``degraded`` event of the run's record (a society that
    lost a member it could not reopen): "degraded: member X lost at step k", the reason left
    to the record's events."""
    return "degraded: " + text.split(" (", 1)[0]


def score_chart(points: list[tuple[int, float]]) -> dict[str, Any]:
    """The chart of the total score by step, in the viewBox run.js draws in: the polyline's
    points and the axis labels (at most :data:`CHART_POINTS` points: evenly thinned, the
    last one kept). Empty ``points``: no line, and a label saying so."""
    if len(points) > CHART_POINTS:
        stride = len(points) / CHART_POINTS
        points = [points[int(i * stride)] for i in range(CHART_POINTS - 1)] + [points[-1]]
    chart: dict[str, Any] = {"w": CHART_W, "h": CHART_H, "pad": CHART_PAD, "points": "", "labels": [],
                             "caption": "Total score by step: no step yet."}
    if not points:
        return chart
    lo = min(0.0, *(y for _, y in points))
    hi = max(0.0, *(y for _, y in points))
    if hi == lo:
        hi = lo + 1
    first, last = points[0][0], max(points[-1][0], points[0][0] + 1)

    def sx(x: float) -> float:
        return CHART_PAD + (x - first) / (last - first) * (CHART_W - CHART_PAD - 5)

    def sy(y: float) -> float:
        return CHART_H - CHART_PAD - (y - lo) / (hi - lo) * (CHART_H - CHART_PAD - 5)

    chart["points"] = " ".join(f"{sx(x):.1f},{sy(y):.1f}" for x, y in points)
    chart["labels"] = [
        {"x": CHART_PAD - 3, "y": f"{sy(hi) + 4:.1f}", "text": f"{hi:g}", "anchor": "end"},
        {"x": CHART_PAD - 3, "y": f"{sy(lo):.1f}", "text": f"{lo:g}", "anchor": "end"},
        {"x": CHART_PAD, "y": CHART_H - CHART_PAD + 14, "text": str(first), "anchor": "start"},
        {"x": CHART_W - 5, "y": CHART_H - CHART_PAD + 14, "text": str(last), "anchor": "end"},
    ]
    chart["caption"] = f"Total score by step: {points[-1][1]:g} at step {points[-1][0]}."
    return chart


def totals(scores: list[tuple[int, float | None]]) -> list[tuple[int, float]]:
    """(step, total score so far) from (step, score) pairs."""
    total, out = 0.0, []
    for step, score in scores:
        total += score or 0.0
        out.append((step, total))
    return out
