"""The soccer world on the WWM network: one shared match (section 4.1.2), one body per client.

Each "New run" (with ``team=NAME``, and ``goalie=true`` for number 1) joins a player: the
first team name to come plays on the left, the second on the right. Players arriving over
UDP with the soccer server's ``(init ...)`` (:mod:`.udp`) take places in the same match. The
left side kicks off once every place is taken. The server's clock runs a cycle every
``cycle_ms`` of wall-clock time; with ``synch=true`` a cycle also ends as soon as every player
has sent its command for it (the soccer server's synchronous mode), so a match runs as fast as
its players think. After the final whistle (or once every player has left) the next client
starts a new match; the finished one is kept as a recording (and saved under ``record``).
"""

from __future__ import annotations

import asyncio
import json
import time as clock
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

from ..protocol.errors import Refusal
from ..protocol.interfaces import World
from ..protocol.results import Outcome
from .commands import Command, CommandError, check_team, parse
from .match import SIDES, Match
from .params import GOAL_WIDTH, PITCH_LENGTH, PITCH_WIDTH, ParamError, Params
from .recording import recording
from .sensing import hear_text, see, see_text, sense_body, sense_body_text

STATE_FORMAT = (
    "JSON for this client's player: {\"time\": cycle, \"side\": \"l\"|\"r\", \"unum\": 1-11, \"team\", "
    "\"playmode\" (before_kick_off, kick_off_l, play_on, kick_in_r, corner_kick_l, goal_kick_r, goal_l, "
    "half_time, time_over, ...), \"score\": {\"l\", \"r\"}, \"see\": {\"time\", \"age\": cycles since it was seen, "
    "\"objects\": [{\"name\": "
    "\"b\"|\"g r\"|\"f c t\"|'p \"team\" 3'|..., \"dist\": metres, quantised, \"dir\": degrees relative to the body, "
    "clockwise}]} (the view cone; refreshed every 1, 2 or 3 cycles for a narrow, normal or wide view), "
    "\"sense_body\": {\"stamina\": [stamina, effort, recovery], \"speed\": [amount, dir], \"view_mode\", "
    "command counts}, \"hear\": [referee messages since the last state], \"text\": the same as the soccer "
    "server's (see ...), (sense_body ...), (hear ...) lines}. Field: 105 x 68 m, x towards the right goal, "
    "y down; flags and goals at their soccer-server places (docs/soccer.md)."
)
ACTION_FORMAT = (
    "the soccer server's commands, one body command a cycle: (dash POWER -100..100), (turn MOMENT -180..180), "
    "(kick POWER 0..100 DIRECTION), (move X Y) (own half, own coordinates, before a kick off), "
    "(change_view narrow|normal|wide), (done) or empty for nothing; e.g. \"(turn 30)\" or \"(dash 80)\""
)


@dataclass
class Seat:
    """A player's place in a match, whoever drives it (a WWM client or a UDP client)."""

    match: Match
    index: int
    side: int
    unum: int
    team: str
    acted: bool = False     # has sent its command for this cycle
    ended: bool = False
    seen: dict[str, Any] = field(default_factory=lambda: {"time": 0, "steps": 0, "objects": []})
    heard: int = 0          # referee events already told
    told_score: int = 0     # goal difference at the last outcome

    @property
    def difference(self) -> int:
        s = self.match.score
        return s[self.side] - s[1 - self.side]


class SoccerWorld(World):
    """A soccer world in the spirit of Noda's Soccer Server: two teams on a continuous field,
    ball physics, stamina, noisy and limited sensing and a referee; every player a client.

    New run takes ``team`` (the first team to come plays on the left), ``goalie`` and
    ``view``; the run's score is its team's goal difference. Served by ``wwm soccer serve``,
    the same match also takes players speaking the soccer server's text protocol on the UDP
    port named among this card's bindings, and is drawn live at ``/soccer``. Rules and
    protocols: docs/soccer.md."""

    title: ClassVar[str] = "Soccer"
    sharing = "shared"
    clock = "asynchronous"
    tick_seconds: ClassVar[float] = 0.005
    state_format: ClassVar[str] = STATE_FORMAT
    action_format: ClassVar[str] = ACTION_FORMAT

    def __init__(self, players: int = 11, half: int = 3000, seed: int = 0, cycle_ms: float = 100.0,
                 synch: bool = False, record: str = "", config: str = "", team: str = "", goalie: bool = False,
                 view: str = "normal") -> None:
        try:
            try:
                extra = json.loads(config) if config else {}
            except ValueError as exc:
                raise ParamError(f"config is not JSON: {exc}") from None
            if not isinstance(extra, dict):
                raise ParamError("config must be a JSON object of soccer settings")
            self.params = Params.from_dict({"players": players, "half_cycles": half, "seed": seed, **extra})
        except (ParamError, ValueError) as exc:
            raise Refusal("bad-parameters", f"soccer: {exc}") from None
        if not 1 <= cycle_ms <= 10_000:
            raise Refusal("bad-parameters", f"soccer: cycle_ms must be between 1 and 10000, got {cycle_ms:g}")
        self.cycle_seconds = cycle_ms / 1000.0
        self.synch = synch
        self.record = Path(record) if record else None
        self.matches = 1
        self.match = Match(self.params)
        self.seats: list[Seat] = []
        self.finished: list[dict[str, Any]] = []  # recordings of the finished matches, the last few
        self.listeners: list[Callable[[SoccerWorld], None]] = []  # told after every cycle
        self.since = 0.0   # wall-clock seconds since the last cycle
        self._tick = asyncio.Event()
        self.cycles_run = 0
        self.started_at = clock.monotonic()

    # ---- places --------------------------------------------------------------------------
    def take_seat(self, team: str, goalie: bool = False) -> Seat:
        """A place in the current match for a player of ``team`` (a new match when the last
        is over or every player has left)."""
        if self.seats and (self.match.finished or all(s.ended for s in self.seats)):
            self._archive()
            settings = {**self.params.to_dict(), "seed": self.params.seed + self.matches}  # each match its own
            self.match, self.seats = Match(Params(**settings)), []
            self.matches += 1
        try:
            team = check_team(team or "wwm")
        except CommandError as exc:
            raise Refusal("bad-parameters", f"soccer: {exc}") from None
        m = self.match
        if team in m.teams:
            side = m.teams.index(team)
        elif None in m.teams:
            side = m.teams.index(None)
            m.teams[side] = team
        else:
            raise Refusal("busy", f"this match is between {m.teams[0]} and {m.teams[1]}; {team!r} cannot join")
        unum = m.free_unum(side, goalie)
        if unum is None:
            raise Refusal("busy", f"team {team} ({SIDES[side]}) already has all its {self.params.players} players")
        seat = Seat(m, m.add_player(side, unum), side, unum, team)
        self.seats.append(seat)
        if m.full:
            m.start()
        return seat

    def leave(self, seat: Seat) -> None:
        seat.ended = True
        if not seat.match.finished and seat.match.mode == "before_kick_off":
            seat.match.remove_player(seat.index)  # the place is free again
            if seat.match is self.match:
                self.seats.remove(seat)
                if not any(s.side == seat.side for s in self.seats):
                    seat.match.teams[seat.side] = None

    async def join(self, client_url: str | None = None, team: str = "", goalie: bool = False,
                   view: str = "normal", **args: Any) -> World:
        try:
            views = parse(f"(change_view {view})") if view != "normal" else []
        except CommandError as exc:
            raise Refusal("bad-parameters", f"soccer: view: {exc}") from None
        seat = self.take_seat(team, goalie)
        for c in views:
            seat.match.command(seat.index, c)
        body = PlayerBody(self, seat)
        body.client_url = client_url
        return body

    # ---- commands and cycles -------------------------------------------------------------
    def submit(self, seat: Seat, commands: list[Command]) -> None:
        if seat.match is not self.match or seat.ended:
            return
        for c in commands:
            seat.match.command(seat.index, c)
        seat.acted = True
        if self.synch and all(s.acted or s.ended for s in self.seats):
            self.cycle()

    def cycle(self) -> None:
        """One cycle of the current match, then the players and the view are told."""
        m = self.match
        m.step()
        self.since = 0.0
        self.cycles_run += 1
        for s in self.seats:
            s.acted = False
            every = m.view_of(s.index)[1]
            if (m.steps + s.unum) % every == 0 or m.steps <= 1:
                s.seen = {"time": m.time, "steps": m.steps, "objects": see(m, s.index)}
        for listener in list(self.listeners):
            listener(self)
        tick, self._tick = self._tick, asyncio.Event()
        tick.set()
        if m.finished:
            self._archive()

    async def advance(self, seconds: float) -> None:
        if self.match.finished or not self.seats:
            return
        self.since += seconds
        if self.since >= self.cycle_seconds:
            behind = min(self.since - self.cycle_seconds, self.cycle_seconds)  # late ticks are made up once
            self.cycle()
            self.since = behind

    async def wait_cycle(self) -> None:
        """Wait for the next cycle of whichever match is on."""
        await self._tick.wait()

    async def next_cycle(self, match: Match, steps: int) -> None:
        """Wait until ``match`` has stepped past ``steps`` (or is over)."""
        while match.steps <= steps and not match.finished and match is self.match:
            await self._tick.wait()

    def _archive(self) -> None:
        m = self.match
        if getattr(m, "archived", False):
            return
        m.archived = True  # type: ignore[attr-defined]
        data = recording(m, self.matches)
        self.finished = [*self.finished[-4:], data]
        if self.record is not None:
            self.record.mkdir(parents=True, exist_ok=True)
            (self.record / f"match-{self.matches}.json").write_text(json.dumps(data, separators=(",", ":")))

    # ---- what a player is told -----------------------------------------------------------
    def state_of(self, seat: Seat) -> dict[str, Any]:
        m = seat.match
        heard = [e.text for e in m.events[seat.heard:]]
        seat.heard = len(m.events)
        body = sense_body(m, seat.index)
        text = [see_text(seat.seen["time"], seat.seen["objects"]), sense_body_text(m.time, body),
                *(hear_text(m.time, h) for h in heard)]
        return {"time": m.time, "side": SIDES[seat.side], "unum": seat.unum, "team": seat.team,
                "playmode": m.mode, "score": {"l": m.score[0], "r": m.score[1]},
                "see": {"time": seat.seen["time"], "age": m.steps - seat.seen["steps"],
                        "objects": seat.seen["objects"]},
                "sense_body": body, "hear": heard, "text": text}


class PlayerBody(World):
    """One client's player in a :class:`SoccerWorld`."""

    state_format: ClassVar[str] = STATE_FORMAT
    action_format: ClassVar[str] = ACTION_FORMAT

    def __init__(self, world: SoccerWorld, seat: Seat) -> None:
        self.world, self.seat = world, seat

    async def get_state(self) -> str:
        return json.dumps(self.world.state_of(self.seat))

    async def execute_action(self, action: str) -> Outcome:
        seat, match = self.seat, self.seat.match
        try:
            commands = parse(action)
        except CommandError as exc:
            raise Refusal("bad-parameters", f"Execute action: {exc}") from None
        if match.finished:
            raise Refusal("run-ended", f"the match is over ({match.score[0]}:{match.score[1]})")
        steps = match.steps
        self.world.submit(seat, commands)
        await self.world.next_cycle(match, steps)
        difference = seat.difference
        score, seat.told_score = difference - seat.told_score, difference
        return Outcome(await self.get_state(), score=float(score), finished=match.finished)

    async def get_current_score(self) -> float | None:
        return float(self.seat.difference)

    async def end_run(self) -> float | None:
        self.world.leave(self.seat)
        return float(self.seat.difference)

    def display_details(self) -> dict[str, Any]:
        m = self.seat.match
        return {"team": self.seat.team, "side": SIDES[self.seat.side], "unum": self.seat.unum,
                "score": f"{m.teams[0]} {m.score[0]} : {m.score[1]} {m.teams[1]}", "playmode": m.mode,
                "time": m.time}

    def display_grid(self) -> dict[str, Any]:
        """The run's picture on its display page (drawn by :mod:`wwm.server.drawing`): the
        field in cells of 3 m (y down, as the soccer server counts it), both goals, every
        player (this client's the ``agent``) and the ball."""
        m, me, metres = self.seat.match, self.seat.index, 3.0
        columns, rows = round(PITCH_LENGTH / metres), round(PITCH_WIDTH / metres)

        def cell(x: float, y: float) -> list[int]:
            return [min(columns - 1, max(0, int((x + PITCH_LENGTH / 2) // metres))),
                    min(rows - 1, max(0, int((y + PITCH_WIDTH / 2) // metres)))]

        posts = range(cell(0, -GOAL_WIDTH / 2)[1], cell(0, GOAL_WIDTH / 2)[1] + 1)
        marks: dict[str, list[list[int]]] = {"goal": [[x, y] for x in (0, columns - 1) for y in posts],
                                             "left-team": [], "right-team": [], "agent": []}
        for i in range(len(m.joined)):
            if m.joined[i]:
                kind = "agent" if i == me else ("left-team", "right-team")[m.side_unum(i)[0]]
                marks[kind].append(cell(float(m.pos[i, 0]), float(m.pos[i, 1])))
        marks["ball"] = [cell(float(m.ball[0]), float(m.ball[1]))]
        return {"columns": columns, "rows": rows, "y_up": False,
                "marks": {k: v for k, v in marks.items() if v},
                "looks": {"goal": ["block", "#e5e7eb"], "left-team": ["disc", "#ca8a04"],
                          "right-team": ["disc", "#dc2626"], "ball": ["dot", "#111827"]},
                "caption": f"{m.teams[0] or 'left'} {m.score[0]} : {m.score[1]} {m.teams[1] or 'right'} · "
                           f"time {m.time} · {m.mode.replace('_', ' ')}"}
