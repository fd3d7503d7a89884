"""One real-time Tileworld shared by several WWM clients, each driving its own robot.

A shared, asynchronous World: the server's clock advances it with wall-clock time (× ``speed``)
once every robot has a client; each "New run" (with its own ``form``: json, xml or prolog,
the form of that client's states) joins a :class:`RobotBody` (robots in join
order, teams from ``teams``, e.g. ``"0,1;2,3"``); an action waits out the robot's previous move
cost (350 ms, 1000 ms for a bad move or a filled hole, T-World's) and is applied at once.
A game that ends between a client's actions answers its next action with the final state,
finished; an action from a client already given the "end" state is refused (``run-ended``).
"""

from __future__ import annotations

import asyncio
import json
import math
from typing import Any, ClassVar

from ..protocol.errors import Refusal
from ..protocol.interfaces import World
from ..protocol.results import Outcome
from .actions import ActionError, parse_action
from .config import Config, ConfigError
from .engine import Engine
from .forms import FormError, StateForm, check_state_form
from .inbox import MESSAGES_FORMAT, Inbox, state
from .live import COST_SECONDS
from .numeric import MOVES, STATE_SPACE
from .picture import tileworld_grid


class SharedTileworld(World):
    """One real-time Tileworld shared by several clients, each driving its own robot (the
    server keeps one instance; each New run joins a robot body)."""

    seed_section: ClassVar[str] = "T-World (Burdisso et al.); 4.4 (time)"

    sharing = "shared"
    clock = "asynchronous"
    tick_seconds: ClassVar[float] = 0.05
    state_format: ClassVar[str] = ("T-World percept JSON (or XML, Prolog: form) for this client's robot, "
                                   '{"header", "data", "messages": [...]}; ' + MESSAGES_FORMAT)
    action_format: ClassVar[str] = "a T-World action string (north, south, east, west, none, restore, messages)"
    # machine-readable (the JSON form of wwm.gym.spaces): the numeric form (New run form=numbers)
    # and the moves
    state_space: ClassVar[dict[str, Any]] = STATE_SPACE
    action_space: ClassVar[dict[str, Any]] = {"type": "Discrete", "n": len(MOVES), "labels": list(MOVES)}

    def __init__(self, robots: int = 2, teams: str = "", rows: int = 9, columns: int = 10, seed: int = 0,
                 time: float = 60.0, speed: float = 1.0, battery: bool = False, config: str = "",
                 form: str = "json") -> None:
        settings: dict[str, Any] = {"rows": rows, "columns": columns, "seed": seed, "agents": robots,
                                    "battery": battery, "end": {"neutral": {"time": time}}}
        try:
            if teams.strip():
                groups = [[int(m) for m in g.split(",") if m.strip()] for g in teams.split(";") if g.strip()]
                settings["teams"] = [{"name": f"team {i}", "members": g} for i, g in enumerate(groups)]
            if config:
                settings.update(json.loads(config))
            self.config = Config.from_dict(settings)
            check_state_form(form)
        except (ConfigError, ValueError) as exc:
            raise Refusal("bad-parameters", f"shared Tileworld: {exc}") from None
        if not (math.isfinite(speed) and speed > 0):
            raise Refusal("bad-parameters", f"speed must be a positive number, got {speed}")
        self.speed = speed
        self.engine = Engine(self.config)
        self.bodies: list[RobotBody] = []
        self.games = 1    # games this server has started (a new one when the last is over)

    @property
    def started(self) -> bool:
        return len(self.bodies) == self.config.agents

    async def join(self, client_url: str | None = None, form: str = "json", **args: Any) -> World:
        if self.started and (self.engine.finished or all(b.ended for b in self.bodies)):
            # the game is over (or every client has ended its run): a new game for new clients,
            # from the same settings, without a restart; the old bodies keep their own game
            self.engine, self.bodies = Engine(self.config), []
            self.games += 1
        if self.started:
            raise Refusal("busy", f"all {self.config.agents} robots of this Tileworld have clients")
        try:
            chosen = check_state_form(form)
        except FormError as exc:
            raise Refusal("bad-parameters", f"shared Tileworld: {exc}") from None
        body = RobotBody(self, len(self.bodies), chosen)
        body.client_url = client_url
        self.bodies.append(body)
        return body

    async def advance(self, seconds: float) -> None:
        if self.started and not self.engine.finished:
            self.engine.advance(seconds * self.speed)


class RobotBody(World):
    """One client's robot in a :class:`SharedTileworld`."""

    state_format: ClassVar[str] = SharedTileworld.state_format
    action_format: ClassVar[str] = SharedTileworld.action_format

    def __init__(self, world: SharedTileworld, robot: int, form: StateForm = "json") -> None:
        self.world, self.robot, self.form = world, robot, form
        self.engine = world.engine   # this body's game (the world starts another when it is over)
        self.ended = False           # End run received
        self.header = "start"
        self.busy_until = 0.0  # world time when the previous move is over
        self.inbox = Inbox(robot)
        self.told_over = False       # this client has been given its game's "end" state

    async def get_state(self) -> str:
        engine = self.engine
        if engine.finished:
            self.told_over = True
        return state(engine, self.robot, "end" if engine.finished else self.header, self.inbox, self.form)

    async def execute_action(self, action: str) -> Outcome:
        engine = self.engine
        try:
            parsed = parse_action(action)
        except ActionError as exc:
            raise Refusal("bad-parameters", f"Execute action: {exc}") from None
        if engine.finished:
            # The game's clock runs on its own: it may end between a client's actions. The
            # first action after that is answered as one that waited past the end (the final
            # state, finished); only a client already given the "end" state is refused.
            if self.told_over:
                raise Refusal("run-ended", f"the shared Tileworld is over at {engine.time:.0f} s")
            return Outcome(await self.get_state(), score=0.0, finished=True)
        self.inbox.acted()
        while not (self.world.started and engine.time >= self.busy_until) and not engine.finished:
            await asyncio.sleep(self.world.tick_seconds)  # waiting for the others, or for the last move
        if engine.finished:  # the run ended while this action waited its turn
            return Outcome(await self.get_state(), score=0.0, finished=True)
        team = engine.teams[engine.agents[self.robot].team]
        before = team.score
        result = engine.act(self.robot, parsed)
        if result.kind in ("good_move", "bad_move"):
            self.busy_until = engine.time + COST_SECONDS["filled_hole" if result.filled else result.kind]
            self.header = "ready_for_next_action"
        elif not parsed.is_message:
            self.header = "percept"
        return Outcome(await self.get_state(), score=float(team.score - before), finished=engine.finished)

    async def get_current_score(self) -> float | None:
        engine = self.engine
        return float(engine.teams[engine.agents[self.robot].team].score)

    async def end_run(self) -> float | None:
        self.ended = True
        return await self.get_current_score()

    def display_grid(self) -> dict[str, Any]:
        """The run's picture on its display page (drawn by :mod:`wwm.server.drawing`): this
        body's game, its robot the ``agent``."""
        return tileworld_grid(self.engine, self.robot)
