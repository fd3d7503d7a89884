"""A match's recording (its settings, teams, final score and one frame a cycle: the clock,
play mode, score, ball and every player's place, facing and stamina), read back for the
browser's replay, and drawn as a picture of the field (PNG)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .params import FLAGS, GOAL_WIDTH, PENALTY_LENGTH, PENALTY_WIDTH, PITCH_LENGTH, PITCH_WIDTH

if TYPE_CHECKING:
    from .match import Match

RECORDING_FORMAT = "wwm-soccer-recording/1"


class RecordingError(ValueError):
    """A file that is not a soccer recording, named."""


def recording(match: Match, number: int) -> dict[str, Any]:
    return {"format": RECORDING_FORMAT, "match": number, "params": match.params.to_dict(),
            "teams": list(match.teams), "score": list(match.score), "finished": match.finished,
            "events": [[e.time, e.text] for e in match.events], "frames": match.frames}


def load(path: str | Path) -> dict[str, Any]:
    try:
        data = json.loads(Path(path).read_text())
    except OSError as exc:
        raise RecordingError(f"cannot read {path}: {exc.strerror or exc}") from None
    except ValueError as exc:
        raise RecordingError(f"cannot read {path}: {exc}") from None
    if not isinstance(data, dict) or data.get("format") != RECORDING_FORMAT:
        raise RecordingError(f"{path} is not a soccer recording (format {RECORDING_FORMAT!r})")
    if not isinstance(data.get("frames"), list) or not data["frames"]:
        raise RecordingError(f"{path} has no frames")
    return data


def picture(data: dict[str, Any], path: str | Path, cycle: int | None = None, trail: int = 60) -> Path:
    """The field at ``cycle`` (the last frame by default), with the ball's path over the
    ``trail`` cycles before it, as a PNG."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.patches import Circle, Rectangle

    frames = data["frames"]
    k = len(frames) - 1 if cycle is None else min(range(len(frames)), key=lambda j: abs(frames[j]["t"] - cycle))
    f = frames[k]
    fig, ax = plt.subplots(figsize=(9, 6.2))
    hl, hw = PITCH_LENGTH / 2, PITCH_WIDTH / 2
    ax.add_patch(Rectangle((-hl - 6, -hw - 6), PITCH_LENGTH + 12, PITCH_WIDTH + 12, color="#2f7d32"))
    line: dict[str, Any] = {"fill": False, "ec": "white", "lw": 1.2}
    ax.add_patch(Rectangle((-hl, -hw), PITCH_LENGTH, PITCH_WIDTH, **line))
    ax.plot([0, 0], [-hw, hw], color="white", lw=1.2)
    ax.add_patch(Circle((0, 0), 9.15, **line))
    for sign in (-1, 1):
        x = sign * hl
        ax.add_patch(Rectangle((min(x, x - sign * PENALTY_LENGTH), -PENALTY_WIDTH / 2), PENALTY_LENGTH, PENALTY_WIDTH,
                               **line))
        ax.add_patch(Rectangle((x if sign > 0 else x - 2, -GOAL_WIDTH / 2), 2, GOAL_WIDTH, color="#e5e7eb"))
    xs, ys = zip(*FLAGS.values(), strict=True)
    ax.scatter(xs, ys, s=6, color="#fde047", zorder=2)
    path_frames = frames[max(0, k - trail):k + 1]
    ax.plot([g["b"][0] for g in path_frames], [g["b"][1] for g in path_frames], color="white", lw=1, alpha=0.6)
    teams = data.get("teams") or ["l", "r"]
    for side, colour in (("l", "#facc15"), ("r", "#ef4444")):
        ps = [p for p in f["p"] if p[0] == side]
        ax.scatter([p[2] for p in ps], [p[3] for p in ps], s=90, color=colour, ec="black", zorder=3,
                   label=f"{teams[0 if side == 'l' else 1]} ({side})")
        for p in ps:
            ax.annotate(str(p[1]), (p[2], p[3]), ha="center", va="center", fontsize=7, zorder=4)
            import math

            ax.plot([p[2], p[2] + 1.8 * math.cos(math.radians(p[4]))],
                    [p[3], p[3] + 1.8 * math.sin(math.radians(p[4]))], color="black", lw=1, zorder=3)
    ax.scatter([f["b"][0]], [f["b"][1]], s=30, color="white", ec="black", zorder=5, label="ball")
    ax.set_xlim(-hl - 6, hl + 6)
    ax.set_ylim(hw + 6, -hw - 6)  # y down, as the soccer server's
    ax.set_aspect("equal")
    ax.axis("off")
    ax.legend(loc="upper center", ncol=3, bbox_to_anchor=(0.5, 0.0), frameon=False)
    ax.set_title(f"{teams[0]} {f['s'][0]} : {f['s'][1]} {teams[1]}   ·   cycle {f['t']}   ·   {f['m']}")
    out = Path(path)
    out.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(out, dpi=90, bbox_inches="tight")
    plt.close(fig)
    return out
