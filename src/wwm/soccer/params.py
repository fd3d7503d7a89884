"""The soccer world's settings: the field's geometry, its flags, and the physical parameters,
named and valued as the RoboCup Soccer Server's (its manual's defaults); see ``docs/soccer.md``.

Coordinates are the soccer server's: metres, the centre spot at (0, 0), x towards the right
goal, y *downwards* (towards the bottom touchline), angles in degrees clockwise from +x.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, fields
from typing import Any

PITCH_LENGTH, PITCH_WIDTH = 105.0, 68.0
GOAL_WIDTH = 14.02
PENALTY_LENGTH, PENALTY_WIDTH = 16.5, 40.32
GOAL_AREA_LENGTH, GOAL_AREA_WIDTH = 5.5, 18.32
CENTRE_CIRCLE = 9.15  # also the distance opponents keep at a set piece


class ParamError(ValueError):
    """A setting out of its range, named."""


@dataclass(frozen=True, slots=True)
class Params:
    """One match's settings. ``players`` a side (1-11), ``half_cycles`` cycles a half."""

    players: int = 11
    half_cycles: int = 3000
    seed: int = 0
    # bodies
    player_size: float = 0.3
    player_decay: float = 0.4
    player_rand: float = 0.1
    player_speed_max: float = 1.05
    player_accel_max: float = 1.0
    dash_power_rate: float = 0.006
    inertia_moment: float = 5.0
    kickable_margin: float = 0.7
    kick_power_rate: float = 0.027
    # the ball
    ball_size: float = 0.085
    ball_decay: float = 0.94
    ball_rand: float = 0.05
    ball_speed_max: float = 3.0
    ball_accel_max: float = 2.7
    # stamina
    stamina_max: float = 8000.0
    stamina_inc_max: float = 45.0
    recover_dec_thr: float = 0.3
    recover_dec: float = 0.002
    recover_min: float = 0.5
    effort_dec_thr: float = 0.3
    effort_dec: float = 0.005
    effort_inc_thr: float = 0.6
    effort_inc: float = 0.01
    effort_min: float = 0.6
    stamina_capacity: float = 130600.0  # stamina a player may recover in a match (soccer server 13 on)
    # dashing sideways and back (server 13 on): the direction, in steps of dash_angle_step, and
    # the share of the power it gets (1 forward, side_dash_rate at 90°, back_dash_rate at 180°)
    min_dash_angle: float = -180.0
    max_dash_angle: float = 180.0
    dash_angle_step: float = 45.0
    side_dash_rate: float = 0.4
    back_dash_rate: float = 0.6
    # tackling: the ball within tackle_dist ahead (tackle_back_dist behind) and tackle_width
    # aside; it fails with chance (x/dist)^e + (y/width)^e; the tackler then stands still
    tackle_dist: float = 2.0
    tackle_back_dist: float = 0.0
    tackle_width: float = 1.25
    tackle_exponent: float = 6.0
    tackle_cycles: int = 10
    tackle_power_rate: float = 0.027
    max_tackle_power: float = 100.0
    # sensing
    visible_distance: float = 3.0
    quantize_step: float = 0.1     # movable objects
    quantize_step_l: float = 0.01  # landmarks (flags, goals)
    unum_far_length: float = 20.0
    team_far_length: float = 40.0
    # the referee
    drop_ball_cycles: int = 200    # a set piece nobody takes: the ball is dropped
    goal_pause_cycles: int = 20    # cycles from a goal to the next kick off

    def __post_init__(self) -> None:
        if not 1 <= self.players <= 11:
            raise ParamError(f"players (a side) must be between 1 and 11, got {self.players}")
        if not 1 <= self.half_cycles <= 1_000_000:
            raise ParamError(f"half_cycles must be between 1 and 1000000, got {self.half_cycles}")
        for f in fields(self):
            value = getattr(self, f.name)
            signed = f.name in ("min_dash_angle", "stamina_capacity")  # (a negative capacity: no limit)
            if isinstance(value, float) and not (math.isfinite(value) and (value >= 0 or signed)):
                raise ParamError(f"{f.name} must be a finite number >= 0, got {value}")
        if not -180 <= self.min_dash_angle <= self.max_dash_angle <= 180:
            raise ParamError("min_dash_angle and max_dash_angle must be in [-180, 180], the first not above the second")
        if not 0 < self.player_decay < 1 or not 0 < self.ball_decay < 1:
            raise ParamError("player_decay and ball_decay must be between 0 and 1")

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Params:
        known = {f.name: f for f in fields(cls)}
        unknown = sorted(set(data) - set(known))
        if unknown:
            raise ParamError(f"unknown soccer setting(s) {', '.join(unknown)}; known: {', '.join(known)}")
        try:
            values: dict[str, Any] = {k: (int(v) if known[k].type == "int" else float(v)) for k, v in data.items()}
        except (TypeError, ValueError) as exc:
            raise ParamError(f"a soccer setting is not a number: {exc}") from None
        return cls(**values)


# view widths: (visible angle in degrees, a see every N cycles), the soccer server's
# narrow / normal / wide at 75 / 150 / 300 ms a see, rounded to whole 100 ms cycles
VIEW_WIDTHS: dict[str, tuple[float, int]] = {"narrow": (45.0, 1), "normal": (90.0, 2), "wide": (180.0, 3)}


def _flags() -> dict[str, tuple[float, float]]:
    """The field's landmarks by their soccer-server names (``f c``, ``f l t``, ``f t l 50``,
    ``g r`` ...): the centre, the corners, the penalty areas, the goal posts, the goals and
    the boundary flags every 10 m, 5 m outside the lines."""
    half_l, half_w = PITCH_LENGTH / 2, PITCH_WIDTH / 2
    out: dict[str, tuple[float, float]] = {
        "g l": (-half_l, 0.0), "g r": (half_l, 0.0),
        "f c": (0.0, 0.0), "f c t": (0.0, -half_w), "f c b": (0.0, half_w),
        "f l t": (-half_l, -half_w), "f l b": (-half_l, half_w),
        "f r t": (half_l, -half_w), "f r b": (half_l, half_w),
    }
    for side, sign in (("l", -1.0), ("r", 1.0)):
        px = sign * (half_l - PENALTY_LENGTH)
        out[f"f p {side} t"] = (px, -PENALTY_WIDTH / 2)
        out[f"f p {side} c"] = (px, 0.0)
        out[f"f p {side} b"] = (px, PENALTY_WIDTH / 2)
        out[f"f g {side} t"] = (sign * half_l, -GOAL_WIDTH / 2)
        out[f"f g {side} b"] = (sign * half_l, GOAL_WIDTH / 2)
    for edge, y in (("t", -half_w - 5), ("b", half_w + 5)):
        out[f"f {edge} 0"] = (0.0, y)
        for d in (10, 20, 30, 40, 50):
            out[f"f {edge} l {d}"] = (-float(d), y)
            out[f"f {edge} r {d}"] = (float(d), y)
    for edge, x in (("l", -half_l - 5), ("r", half_l + 5)):
        out[f"f {edge} 0"] = (x, 0.0)
        for d in (10, 20, 30):
            out[f"f {edge} t {d}"] = (x, -float(d))
            out[f"f {edge} b {d}"] = (x, float(d))
    return out


#: every landmark a player may see, by its soccer-server name
FLAGS: dict[str, tuple[float, float]] = _flags()


def formation(players: int, unum: int) -> tuple[float, float]:
    """Where player ``unum`` (1 the goalie) of a side of ``players`` stands at a kick off, in
    its own side's coordinates (its own goal on the left, x < 0)."""
    if unum == 1:
        return (-50.0, 0.0)
    outfield = players - 1
    i = unum - 2
    lines = 3 if outfield >= 6 else (2 if outfield >= 3 else 1)
    per = math.ceil(outfield / lines)
    line, k = divmod(i, per)
    in_line = min(per, outfield - line * per)
    x = -36.0 + 30.0 * (line + 0.5) / lines if lines > 1 else -12.0
    y = (k + 0.5) * PITCH_WIDTH * 0.8 / in_line - PITCH_WIDTH * 0.4
    return (round(x, 2), round(y, 2))
