"""One match: the bodies and the ball, their physics, stamina, and the referee, one 100 ms
cycle per :meth:`Match.step` (numpy arrays over all players; seeded, so a match with the same
commands is the same match).

A cycle, as in the soccer server: each player's command of the cycle is applied (a turn turns
at once, a dash and a kick give accelerations, a move places the body where the play mode
allows it), then everything moves (``v += a``, capped; noise; ``p += v``; ``v *= decay``), the
ball bounces off bodies, stamina is paid and recovered, and the referee looks at the result.
Players are indexed ``side * players + unum - 1`` (side 0 left, 1 right).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .commands import Command
from .params import (
    CENTRE_CIRCLE,
    GOAL_AREA_WIDTH,
    GOAL_WIDTH,
    PITCH_LENGTH,
    PITCH_WIDTH,
    VIEW_WIDTHS,
    Params,
    formation,
)

SIDES = ("l", "r")
HALF_L, HALF_W = PITCH_LENGTH / 2, PITCH_WIDTH / 2
SET_PIECES = ("kick_off", "kick_in", "corner_kick", "goal_kick", "free_kick")
MOVE_MODES = ("before_kick_off", "goal_l", "goal_r", "half_time", "kick_off_l", "kick_off_r")


def _wrap(deg: np.ndarray | float) -> Any:
    """An angle in (-180, 180]."""
    return -((-np.asarray(deg) + 180.0) % 360.0 - 180.0)


@dataclass
class Counts:
    dash: int = 0
    turn: int = 0
    kick: int = 0
    move: int = 0
    change_view: int = 0
    tackle: int = 0


@dataclass
class Event:
    time: int
    text: str  # what the referee says, e.g. "kick_off_l", "goal_l_1"


@dataclass
class Match:
    params: Params
    teams: list[str | None] = field(default_factory=lambda: [None, None])

    def __post_init__(self) -> None:
        p, n = self.params, 2 * self.params.players
        self.rng = np.random.default_rng(p.seed)
        self.pos = np.zeros((n, 2))
        self.vel = np.zeros((n, 2))
        self.acc = np.zeros((n, 2))
        self.body = np.zeros(n)
        self.stamina = np.full(n, p.stamina_max)
        self.effort = np.ones(n)
        self.recovery = np.ones(n)
        self.capacity = np.full(n, p.stamina_capacity)  # stamina each may still recover
        self.tackling = np.zeros(n, dtype=int)           # cycles a tackler still stands still
        self.joined = np.zeros(n, dtype=bool)
        self.view = ["normal"] * n
        self.counts = [Counts() for _ in range(n)]
        self.ball = np.zeros(2)
        self.ball_vel = np.zeros(2)
        self.pending: dict[int, Command] = {}
        self.time = 0          # the match clock: cycles played since the kick off
        self.steps = 0         # cycles stepped, the clock stopped or not
        self.mode = "before_kick_off"
        self.mode_since = 0    # steps at the last change of play mode
        self.score = [0, 0]
        self.last_touch: int | None = None  # the side that touched the ball last
        self.second_half = False
        self.events: list[Event] = []
        self.frames: list[dict[str, Any]] = []
        self.finished = False
        self.frames.append(self.frame())

    # ---- players ------------------------------------------------------------------------
    def index(self, side: int, unum: int) -> int:
        return side * self.params.players + unum - 1

    def side_unum(self, i: int) -> tuple[int, int]:
        side, k = divmod(i, self.params.players)
        return side, k + 1

    def free_unum(self, side: int, goalie: bool) -> int | None:
        """The number a new player of ``side`` gets (1 for a goalie when free), or None when full."""
        free = [u for u in range(1, self.params.players + 1) if not self.joined[self.index(side, u)]]
        if not free:
            return None
        if goalie and 1 in free:
            return 1
        outfield = [u for u in free if u != 1]
        return outfield[0] if outfield else free[0]

    def add_player(self, side: int, unum: int) -> int:
        i = self.index(side, unum)
        self.joined[i] = True
        self._place(i)
        return i

    def remove_player(self, i: int) -> None:
        self.joined[i] = False
        self.pending.pop(i, None)

    @property
    def full(self) -> bool:
        return bool(self.joined.all())

    def _to_field(self, side: int, x: float, y: float) -> tuple[float, float]:
        """A side's own coordinates (its goal on the left) as the field's."""
        return (x, y) if side == 0 else (-x, -y)

    def _place(self, i: int) -> None:
        side, unum = self.side_unum(i)
        self.pos[i] = self._to_field(side, *formation(self.params.players, unum))
        self.vel[i] = 0.0
        self.body[i] = 0.0 if side == 0 else 180.0

    # ---- commands -----------------------------------------------------------------------
    def command(self, i: int, command: Command) -> None:
        """A player's command for this cycle: the first body command counts (the soccer
        server's one per cycle); change_view applies at once."""
        if command.name == "change_view":
            self.view[i] = str(command.args[0])
            self.counts[i].change_view += 1
        elif command.name in ("dash", "turn", "kick", "move", "catch", "tackle"):
            self.pending.setdefault(i, command)

    def _may_kick(self, side: int) -> bool:
        if self.mode == "play_on":
            return True
        kind, _, who = self.mode.rpartition("_")
        return kind in SET_PIECES and who == SIDES[side]

    def _apply(self) -> bool:
        """Apply this cycle's commands; True when the ball was kicked."""
        p = self.params
        kicked = False
        ball_acc = np.zeros(2)
        for i, c in sorted(self.pending.items()):
            side, _ = self.side_unum(i)
            if self.tackling[i] > 0 and c.name != "move":  # a tackler stands still
                continue
            if c.name == "turn":
                moment = float(np.clip(float(c.args[0]), -180, 180))
                speed = float(np.hypot(*self.vel[i]))
                self.body[i] = float(_wrap(self.body[i] + moment / (1.0 + p.inertia_moment * speed)))
                self.counts[i].turn += 1
            elif c.name == "dash":
                power = float(np.clip(float(c.args[0]), -100, 100))
                direction = self._dash_direction(float(c.args[1])) if len(c.args) > 1 else 0.0
                cost = power if power >= 0 else -2.0 * power
                if cost > self.stamina[i]:  # as much as the stamina left pays for
                    power *= self.stamina[i] / cost
                    cost = float(self.stamina[i])
                self.stamina[i] -= cost
                rad = math.radians(self.body[i] + direction)
                a = (self.effort[i] * power * self._dash_rate(direction) * p.dash_power_rate
                     * np.array([math.cos(rad), math.sin(rad)]))
                norm = float(np.hypot(*a))
                if norm > p.player_accel_max:
                    a *= p.player_accel_max / norm
                self.acc[i] += a
                self.counts[i].dash += 1
            elif c.name == "kick":
                if not self._may_kick(side):
                    continue
                rel = self.ball - self.pos[i]
                gap = float(np.hypot(*rel)) - p.player_size - p.ball_size
                if gap > p.kickable_margin:
                    continue
                power = float(np.clip(float(c.args[0]), 0, 100))
                direction = float(np.clip(float(c.args[1]), -180, 180))
                off = abs(float(_wrap(math.degrees(math.atan2(rel[1], rel[0])) - self.body[i])))
                rate = p.kick_power_rate * (1 - 0.25 * off / 180 - 0.25 * max(gap, 0.0) / p.kickable_margin)
                rad = math.radians(self.body[i] + direction)
                ball_acc += power * rate * np.array([math.cos(rad), math.sin(rad)])
                self.last_touch = side
                self.counts[i].kick += 1
                kicked = True
            elif c.name == "tackle":
                self.tackling[i] = p.tackle_cycles
                self.counts[i].tackle += 1
                if self._may_kick(side) and self._tackled(i, float(c.args[0])):
                    rad = math.radians(self.body[i] + float(np.clip(float(c.args[0]), -180, 180)))
                    ball_acc += p.max_tackle_power * p.tackle_power_rate * np.array([math.cos(rad), math.sin(rad)])
                    self.last_touch = side
                    kicked = True
            elif c.name == "move" and self.mode in MOVE_MODES:
                x = float(np.clip(float(c.args[0]), -HALF_L, 0.0))
                y = float(np.clip(float(c.args[1]), -HALF_W, HALF_W))
                self.pos[i] = self._to_field(side, x, y)
                self.vel[i] = 0.0
                self.counts[i].move += 1
        self.pending.clear()
        norm = float(np.hypot(*ball_acc))
        if norm > p.ball_accel_max:
            ball_acc *= p.ball_accel_max / norm
        self.ball_vel += ball_acc
        return kicked

    def _dash_direction(self, direction: float) -> float:
        """A dash's direction, relative to the body, kept in range and rounded to the step."""
        p = self.params
        direction = float(np.clip(direction, p.min_dash_angle, p.max_dash_angle))
        return round(direction / p.dash_angle_step) * p.dash_angle_step if p.dash_angle_step > 0 else direction

    def _dash_rate(self, direction: float) -> float:
        """The share of a dash's power a direction gets: 1 straight ahead, side_dash_rate at
        90°, back_dash_rate at 180°, in straight lines between."""
        p, off = self.params, abs(direction)
        if off <= 90:
            return p.side_dash_rate + (1 - p.side_dash_rate) * (1 - off / 90)
        return p.back_dash_rate - (p.back_dash_rate - p.side_dash_rate) * (1 - (off - 90) / 90)

    def _tackled(self, i: int, angle: float) -> bool:
        """Whether player ``i``'s tackle reaches the ball: within reach ahead (or just behind)
        and aside, failing with chance (x/dist)^e + (y/width)^e."""
        p = self.params
        rel = self.ball - self.pos[i]
        rad = math.radians(self.body[i])
        x = float(rel[0] * math.cos(rad) + rel[1] * math.sin(rad))    # ahead of the body
        y = float(-rel[0] * math.sin(rad) + rel[1] * math.cos(rad))   # to its side
        if not -p.tackle_back_dist <= x <= p.tackle_dist or abs(y) > p.tackle_width:
            return False
        reach = p.tackle_dist if x >= 0 else max(p.tackle_back_dist, 1e-9)
        fail = (abs(x) / reach) ** p.tackle_exponent + (abs(y) / p.tackle_width) ** p.tackle_exponent
        return bool(fail < 1.0 and self.rng.random() >= fail)

    # ---- physics ------------------------------------------------------------------------
    def _move(self) -> None:
        p = self.params
        on = self.joined
        v = self.vel[on] + self.acc[on]
        speed = np.hypot(v[:, 0], v[:, 1])
        over = speed > p.player_speed_max
        v[over] *= (p.player_speed_max / speed[over])[:, None]
        speed = np.minimum(speed, p.player_speed_max)
        v += self.rng.uniform(-1, 1, v.shape) * (p.player_rand * speed)[:, None]
        self.pos[on] += v
        self.pos[on, 0] = np.clip(self.pos[on, 0], -HALF_L - 5, HALF_L + 5)
        self.pos[on, 1] = np.clip(self.pos[on, 1], -HALF_W - 5, HALF_W + 5)
        self.vel[on] = v * p.player_decay
        self.acc[:] = 0.0
        self._collide()
        bv = self.ball_vel
        bs = float(np.hypot(*bv))
        if bs > p.ball_speed_max:
            bv *= p.ball_speed_max / bs
            bs = p.ball_speed_max
        bv += self.rng.uniform(-1, 1, 2) * p.ball_rand * bs
        self.ball += bv
        self.ball_vel = bv * p.ball_decay
        # the ball bounces off a body it ends up inside
        reach = p.player_size + p.ball_size
        rel = self.ball - self.pos[on]
        dist = np.hypot(rel[:, 0], rel[:, 1])
        inside = np.flatnonzero(dist < reach)
        if inside.size and self.mode == "play_on":
            k = int(inside[np.argmin(dist[inside])])
            d = float(dist[k]) or 1e-6
            self.ball = self.pos[on][k] + rel[k] / d * reach
            self.ball_vel *= -0.1

    def _collide(self) -> None:
        """Bodies closer than two player sizes are pushed apart along the line between them,
        each half the overlap, and their speeds turned to -0.1 of what they were."""
        idx = np.flatnonzero(self.joined)
        if idx.size < 2:
            return
        pos = self.pos[idx]
        rel = pos[:, None, :] - pos[None, :, :]
        dist = np.hypot(rel[..., 0], rel[..., 1])
        reach = 2 * self.params.player_size
        a, b = np.nonzero(np.triu(dist < reach, 1))
        for i, j in zip(a.tolist(), b.tolist(), strict=True):
            d = float(dist[i, j])
            push = rel[i, j] / d if d > 1e-9 else np.array([1.0, 0.0])
            gap = (reach - d) / 2
            self.pos[idx[i]] += push * gap
            self.pos[idx[j]] -= push * gap
            self.vel[idx[i]] *= -0.1
            self.vel[idx[j]] *= -0.1

    def _stamina(self) -> None:
        p = self.params
        low = self.stamina <= p.recover_dec_thr * p.stamina_max
        self.recovery = np.where(low, np.maximum(p.recover_min, self.recovery - p.recover_dec), self.recovery)
        tired = self.stamina <= p.effort_dec_thr * p.stamina_max
        fresh = self.stamina >= p.effort_inc_thr * p.stamina_max
        self.effort = np.where(tired, np.maximum(p.effort_min, self.effort - p.effort_dec), self.effort)
        self.effort = np.where(fresh, np.minimum(1.0, self.effort + p.effort_inc), self.effort)
        gained = np.minimum(self.recovery * p.stamina_inc_max, p.stamina_max - self.stamina)
        if p.stamina_capacity >= 0:  # (negative: no limit) recovery draws on what capacity is left
            gained = np.minimum(gained, self.capacity)
            self.capacity = self.capacity - gained
        self.stamina = self.stamina + gained
        self.tackling = np.maximum(0, self.tackling - 1)

    # ---- the referee --------------------------------------------------------------------
    def _say(self, mode: str, said: str | None = None) -> None:
        self.mode, self.mode_since = mode, self.steps
        self.events.append(Event(self.time, said or mode))

    def _set_piece(self, mode: str, x: float, y: float) -> None:
        self.ball[:] = (x, y)
        self.ball_vel[:] = 0.0
        self._say(mode)

    def _kick_off(self, side: int) -> None:
        for i in np.flatnonzero(self.joined):
            self._place(int(i))
        self._set_piece(f"kick_off_{SIDES[side]}", 0.0, 0.0)

    def start(self) -> None:
        """Every place is taken: the left side kicks off."""
        if self.mode == "before_kick_off":
            self._kick_off(0)

    def _keep_away(self) -> None:
        """At a set piece the other side keeps its distance; at a kick off each side its half."""
        kind, _, who = self.mode.rpartition("_")
        if kind not in SET_PIECES:
            return
        taker = SIDES.index(who)
        for i in np.flatnonzero(self.joined):
            side, _ = self.side_unum(int(i))
            if kind == "kick_off":
                sign = -1 if side == 0 else 1
                if self.pos[i, 0] * sign < 0:
                    self.pos[i, 0] = 0.0
            if side != taker:
                rel = self.pos[i] - self.ball
                d = float(np.hypot(*rel))
                if d < CENTRE_CIRCLE:
                    out = rel / d if d > 1e-9 else np.array([-1.0 if side == 0 else 1.0, 0.0])
                    self.pos[i] = self.ball + out * (CENTRE_CIRCLE + 0.01)

    def _ball_out(self) -> None:
        bx, by = float(self.ball[0]), float(self.ball[1])
        if abs(bx) > HALF_L + self.params.ball_size:
            if abs(by) < GOAL_WIDTH / 2:
                scorer = 1 if bx < 0 else 0
                self.score[scorer] += 1
                self.ball_vel[:] = 0.0
                self._say(f"goal_{SIDES[scorer]}", f"goal_{SIDES[scorer]}_{self.score[scorer]}")
                return
            defender = 0 if bx < 0 else 1
            sx = -1.0 if bx < 0 else 1.0
            sy = 1.0 if by > 0 else -1.0
            if self.last_touch == defender:
                self._set_piece(f"corner_kick_{SIDES[1 - defender]}", sx * (HALF_L - 1), sy * (HALF_W - 1))
            else:
                self._set_piece(f"goal_kick_{SIDES[defender]}", sx * (HALF_L - 5.5), sy * GOAL_AREA_WIDTH / 2)
        elif abs(by) > HALF_W + self.params.ball_size:
            taker = 1 - self.last_touch if self.last_touch is not None else 0
            self._set_piece(f"kick_in_{SIDES[taker]}", float(np.clip(bx, -HALF_L, HALF_L)),
                            HALF_W if by > 0 else -HALF_W)

    def _referee(self, kicked: bool) -> None:
        p = self.params
        waited = self.steps - self.mode_since
        kind = self.mode.rpartition("_")[0]
        if kind in SET_PIECES and kicked:
            self._say("play_on")
        elif kind in SET_PIECES and waited >= p.drop_ball_cycles:
            self._say("drop_ball")
            self._say("play_on")
        if self.mode == "play_on":
            self._ball_out()
        elif self.mode in ("goal_l", "goal_r") and waited >= p.goal_pause_cycles:
            self._kick_off(1 if self.mode == "goal_l" else 0)
        elif self.mode == "half_time" and waited >= p.goal_pause_cycles:
            self._kick_off(1)
        self._keep_away()
        if self.time >= 2 * p.half_cycles and self.mode != "time_over":
            self._say("time_over")
            self.finished = True
        elif self.time >= p.half_cycles and not self.second_half:
            self.second_half = True
            for i in np.flatnonzero(self.joined):
                self._place(int(i))
            self.ball[:] = 0.0
            self.ball_vel[:] = 0.0
            self._say("half_time")

    # ---- one cycle ----------------------------------------------------------------------
    def step(self) -> None:
        if self.finished:
            return
        kicked = self._apply()
        self._move()
        self._stamina()
        self.steps += 1
        if self.mode not in ("before_kick_off", "half_time", "time_over"):
            self.time += 1
        waiting = self.mode == "before_kick_off" and self.frames[-1]["m"] == "before_kick_off"
        self._referee(kicked)
        if waiting and self.mode == "before_kick_off":
            self.frames[-1] = self.frame()  # the wait for players is one frame of the recording
        else:
            self.frames.append(self.frame())

    def frame(self) -> dict[str, Any]:
        """What the view draws of this cycle (and what a recording keeps of it)."""
        players = [[SIDES[s], u, round(float(self.pos[i, 0]), 2), round(float(self.pos[i, 1]), 2),
                    round(float(self.body[i]), 1), round(float(self.stamina[i] / self.params.stamina_max), 3)]
                   for i in np.flatnonzero(self.joined) for s, u in [self.side_unum(int(i))]]
        return {"t": self.time, "m": self.mode, "s": list(self.score),
                "b": [round(float(self.ball[0]), 2), round(float(self.ball[1]), 2)], "p": players}

    def view_of(self, i: int) -> tuple[float, int]:
        return VIEW_WIDTHS[self.view[i]]
