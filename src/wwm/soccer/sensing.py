"""What a player senses, as the soccer server tells it: ``(see ...)`` (the objects in its view
cone, or within ``visible_distance`` behind it, with quantised distances whose error grows with
distance), ``(sense_body ...)`` (its own stamina, speed, view mode, command counts) and
``(hear TIME referee PLAYMODE)``; each also as a JSON-ready dict for the WWM state.
"""

from __future__ import annotations

import math
from dataclasses import fields
from typing import Any

import numpy as np

from .match import SIDES, Match, _wrap
from .params import FLAGS, Params

_FLAG_NAMES = list(FLAGS)
_FLAG_XY = np.array([FLAGS[n] for n in _FLAG_NAMES])
_EPS = 1e-10


def quantise(d: np.ndarray, step: float) -> np.ndarray:
    """The soccer server's distance noise: the log of the distance rounded to ``step``, then
    the distance to 0.1 m; so the error grows with the distance (about ±step/2 of it)."""
    return np.rint(np.exp(np.rint(np.log(d + _EPS) / step) * step) / 0.1) * 0.1


def see(match: Match, i: int) -> list[dict[str, Any]]:
    """The objects player ``i`` sees now, nearest first within each kind: flags and goals,
    then the ball, then players. Each ``{"name", "dist", "dir"}``, ``dir`` in whole degrees
    relative to the body, positive clockwise (to the right)."""
    p = match.params
    angle, _ = match.view_of(i)
    me, body = match.pos[i], match.body[i]
    out: list[dict[str, Any]] = []

    def visible(rel: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        d = np.hypot(rel[:, 0], rel[:, 1])
        direction = _wrap(np.degrees(np.arctan2(rel[:, 1], rel[:, 0])) - body)
        shown = (np.abs(direction) <= angle / 2) | (d <= p.visible_distance)
        return shown, d, direction

    shown, d, direction = visible(_FLAG_XY - me)
    at = np.flatnonzero(shown)
    dists = np.round(quantise(d[at], p.quantize_step_l), 1).tolist()
    dirs = np.rint(direction[at]).astype(int).tolist()
    out += [{"name": _FLAG_NAMES[k], "dist": dist, "dir": dr} for k, dist, dr in zip(at.tolist(), dists, dirs,
                                                                                      strict=True)]
    shown, d, direction = visible((match.ball - me)[None, :])
    if shown[0]:
        out.append({"name": "b", "dist": round(float(quantise(d, p.quantize_step)[0]), 1),
                    "dir": int(np.rint(direction[0]))})
    others = np.array([k for k in np.flatnonzero(match.joined) if k != i], dtype=int)
    if others.size:
        shown, d, direction = visible(match.pos[others] - me)
        qd = quantise(d, p.quantize_step)
        for j in np.flatnonzero(shown):
            side, unum = match.side_unum(int(others[j]))
            name = "p"
            if d[j] <= p.team_far_length:
                name += f' "{match.teams[side] or SIDES[side]}"'
                if d[j] <= p.unum_far_length:
                    name += f" {unum}"
                    if unum == 1:
                        name += " goalie"
            out.append({"name": name, "dist": round(float(qd[j]), 1), "dir": int(np.rint(direction[j]))})
    return out


def see_text(time: int, objects: list[dict[str, Any]]) -> str:
    return f"(see {time} " + " ".join(f"(({o['name']}) {o['dist']:g} {o['dir']})" for o in objects) + ")"


def sense_body(match: Match, i: int) -> dict[str, Any]:
    """Player ``i``'s own state: stamina, effort, recovery, speed (amount, and direction
    relative to the body), view mode and how many of each command it has had executed."""
    v = match.vel[i]
    speed = float(np.hypot(*v))
    direction = float(_wrap(math.degrees(math.atan2(v[1], v[0])) - match.body[i])) if speed > 1e-6 else 0.0
    c = match.counts[i]
    return {"view_mode": ["high", match.view[i]],
            "stamina": [round(float(match.stamina[i]), 1), round(float(match.effort[i]), 4),
                        round(float(match.recovery[i]), 4)],
            "capacity": round(float(match.capacity[i]), 1),
            "speed": [round(speed, 2), round(direction)], "head_angle": 0,
            "kick": c.kick, "dash": c.dash, "turn": c.turn, "move": c.move, "change_view": c.change_view,
            "tackle": {"expires": int(match.tackling[i]), "count": c.tackle}}


def sense_body_text(time: int, body: dict[str, Any], version: float = 13.0) -> str:
    """The soccer server's ``sense_body`` for a client of protocol ``version``: stamina as
    ``(stamina S E)`` before 13 and ``(stamina S E CAPACITY)`` from 13; the tackle's state
    from 8 (the fields of the other versions' layouts this world does not model are left out)."""
    s, e, _ = body["stamina"]
    stamina = f"{s:g} {e:g}" + (f" {body['capacity']:g}" if version >= 13 else "")
    amount, direction = body["speed"]
    tackle = body["tackle"]
    tackled = f" (tackle (expires {tackle['expires']}) (count {tackle['count']}))" if version >= 8 else ""
    return (f"(sense_body {time} (view_mode high {body['view_mode'][1]}) (stamina {stamina}) "
            f"(speed {amount:g} {direction}) (head_angle 0) (kick {body['kick']}) (dash {body['dash']}) "
            f"(turn {body['turn']}) (say 0) (turn_neck 0) (catch 0) (move {body['move']}) "
            f"(change_view {body['change_view']}){tackled})")


def server_param_text(params: Params) -> str:
    """``(server_param (name value)...)``, the protocol-8 form, of this world's settings that
    the soccer server also has (their names are its own)."""
    skip = {"players", "half_cycles", "seed", "drop_ball_cycles", "goal_pause_cycles"}
    pairs = [(f.name, getattr(params, f.name)) for f in fields(params) if f.name not in skip]
    pairs += [("half_time", params.half_cycles), ("drop_ball_time", params.drop_ball_cycles)]
    return "(server_param " + "".join(f"({name} {_value(value)})" for name, value in pairs) + ")"


def player_param_text() -> str:
    """``(player_param ...)``: one player type (every player is of the default type here)."""
    return "(player_param (player_types 1)(subs_max 0)(pt_max 0)(allow_mult_default_type 1))"


def player_type_text(params: Params) -> str:
    """``(player_type (id 0)...)``: the default type, from this world's settings."""
    values = {"id": 0, "player_speed_max": params.player_speed_max, "stamina_inc_max": params.stamina_inc_max,
              "player_decay": params.player_decay, "inertia_moment": params.inertia_moment,
              "dash_power_rate": params.dash_power_rate, "player_size": params.player_size,
              "kickable_margin": params.kickable_margin, "kick_rand": 0.0, "extra_stamina": 0.0,
              "effort_max": 1.0, "effort_min": params.effort_min}
    return "(player_type " + "".join(f"({name} {_value(value)})" for name, value in values.items()) + ")"


def _value(value: object) -> str:
    return f"{value:g}" if isinstance(value, float) else str(value)


def hear_text(time: int, said: str) -> str:
    return f"(hear {time} referee {said})"
