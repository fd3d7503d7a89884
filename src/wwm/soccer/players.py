"""Simple soccer players that decide from what they sense, nothing more: where am I (from two
or more seen flags), where is the ball, and a rule. ``chaser`` runs at the ball and kicks it
at the opponents' goal; ``keeper`` keeps its place in the formation and goes for the ball only
when it comes near; ``goalie`` stands between the ball and its own goal and clears it.

:func:`decide` maps one WWM state (the dict of :mod:`.world`'s state format) to one command.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from .params import FLAGS, PITCH_LENGTH, formation

ROLES = ("chaser", "keeper", "goalie")
KICKABLE = 0.3 + 0.085 + 0.7 - 0.05  # player size + ball size + kickable margin, a little inside
TIRED = 2000.0  # stamina under which a player spares itself


@dataclass(frozen=True, slots=True)
class Pose:
    x: float
    y: float
    body: float  # degrees, the field's (clockwise from +x, y down)


def localise(objects: list[dict[str, Any]]) -> Pose | None:
    """The player's place and facing from the flags it sees: for the nearest flags, each pair
    gives the facing (the angle between them on the field against in view), then each flag
    the place; averaged. None with fewer than two flags in sight."""
    flags = sorted((o for o in objects if o["name"] in FLAGS), key=lambda o: o["dist"])[:4]
    if len(flags) < 2:
        return None
    seen = [(o["dist"] * math.cos(math.radians(o["dir"])), o["dist"] * math.sin(math.radians(o["dir"])))
            for o in flags]
    where = [FLAGS[o["name"]] for o in flags]
    sx = sy = 0.0
    for a in range(len(flags)):
        for b in range(a + 1, len(flags)):
            dx, dy = where[b][0] - where[a][0], where[b][1] - where[a][1]
            ex, ey = seen[b][0] - seen[a][0], seen[b][1] - seen[a][1]
            if math.hypot(dx, dy) < 1 or math.hypot(ex, ey) < 1:
                continue
            t = math.atan2(dy, dx) - math.atan2(ey, ex)
            sx, sy = sx + math.cos(t), sy + math.sin(t)
    if sx == sy == 0.0:
        return None
    body = math.atan2(sy, sx)
    c, s = math.cos(body), math.sin(body)
    xs = [w[0] - (c * r[0] - s * r[1]) for w, r in zip(where, seen, strict=True)]
    ys = [w[1] - (s * r[0] + c * r[1]) for w, r in zip(where, seen, strict=True)]
    return Pose(sum(xs) / len(xs), sum(ys) / len(ys), math.degrees(body))


def _rel(pose: Pose, x: float, y: float) -> tuple[float, float]:
    """Distance and direction (relative to the body) of a place on the field."""
    d = math.hypot(x - pose.x, y - pose.y)
    a = math.degrees(math.atan2(y - pose.y, x - pose.x)) - pose.body
    return d, (a + 180) % 360 - 180


def _turn(direction: float, speed: float) -> str:
    """The moment that turns the body by ``direction`` at this speed (inertia)."""
    return f"(turn {max(-180.0, min(180.0, direction * (1 + 5 * speed))):.0f})"


def _go(direction: float, speed: float, power: float = 80, stamina: float = 8000.0) -> str:
    """Turn towards ``direction``, or run there once facing it; a tired player (under a
    quarter of its stamina) runs no harder than its stamina recovers (45 a cycle)."""
    if abs(direction) > 12:
        return _turn(direction, speed)
    return f"(dash {min(power, 40.0) if stamina < TIRED else power:g})"


def _home(state: dict[str, Any], role: str, ball_y: float | None) -> tuple[float, float]:
    """Where a goalie or keeper belongs, in the field's coordinates: the goalie on its goal
    line, towards the ball's side; a keeper at its place in an 11-a-side formation."""
    sign = 1 if state["side"] == "l" else -1
    if role == "goalie":
        return sign * -(PITCH_LENGTH / 2 - 2), max(-6.0, min(6.0, (ball_y or 0.0) * 0.3))
    hx, hy = formation(11, max(2, int(state["unum"])))
    return sign * hx, sign * hy


def decide(state: dict[str, Any], role: str = "chaser") -> str:
    """One command for one state (see the module's text)."""
    mode, side = state["playmode"], state["side"]
    if mode in ("before_kick_off", "half_time", "time_over") or mode.startswith("goal_l") or mode.startswith("goal_r"):
        return "(done)"
    narrow = "" if state["sense_body"]["view_mode"][1] == "narrow" else "(change_view narrow)"
    fresh = state["see"].get("age", 0) == 0
    objects = state["see"]["objects"]
    speed = float(state["sense_body"]["speed"][0])
    stamina = float(state["sense_body"]["stamina"][0])
    ball = next((o for o in objects if o["name"] == "b"), None)
    pose = localise(objects)
    theirs = PITCH_LENGTH / 2 if side == "l" else -PITCH_LENGTH / 2
    ours_to_kick = mode == "play_on" or mode.endswith("_" + side)
    if ball is not None and ball["dist"] <= KICKABLE and ours_to_kick:
        if pose is not None:
            _, goal_dir = _rel(pose, theirs, 0.0)
            return f"(kick 100 {goal_dir:.0f})"
        goal = next((o for o in objects if o["name"] == ("g r" if side == "l" else "g l")), None)
        return f"(kick 100 {goal['dir'] if goal else 0})"
    if not fresh:
        return narrow or "(done)"
    if role == "chaser" or pose is None:
        if ball is None:
            return narrow + _turn(40, speed)
        return _go(ball["dir"], speed, 100 if ball["dist"] > 3 else 60, stamina)
    if ball is None:  # back to its place, and look for the ball there
        home_x, home_y = _home(state, role, None)
        d, direction = _rel(pose, home_x, home_y)
        return narrow + (_turn(40, speed) if d < 1.5 else _go(direction, speed, 60, stamina))
    bx = pose.x + ball["dist"] * math.cos(math.radians(pose.body + ball["dir"]))
    by = pose.y + ball["dist"] * math.sin(math.radians(pose.body + ball["dir"]))
    home_x, home_y = _home(state, role, by)
    if role == "goalie":
        near = ball["dist"] < 12 and abs(bx - home_x) < 18
    else:
        near = math.hypot(bx - home_x, by - home_y) < 15
    if near:
        return _go(ball["dir"], speed, 100, stamina)
    d, direction = _rel(pose, home_x, home_y)
    if d < 1.5:
        return _turn(ball["dir"], speed) if abs(ball["dir"]) > 30 else "(done)"
    return _go(direction, speed, 60 if d > 5 else 30, stamina)
