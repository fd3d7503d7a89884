"""The Tileworld on the WWM network: a World whose state is T-World's percept JSON and whose
action is a T-World action string, and a Mind that plays it with a built-in agent.

``form`` (json, xml or prolog; or numbers, :mod:`.numeric`, the form the card's
``state_space`` declares for learners) is the form of the states, chosen at New run; the
Mind reads T-World's three. The client drives robot 0 in the discrete core (one "Execute action" = one agent step, the
world then advances γ seconds); built-in ``opponents`` drive any other robots. Serve with
``wwm serve wwm.tileworld.wwm_world:TileworldWorld --arg gamma=0.5``.
"""

from __future__ import annotations

import json
from typing import Any, ClassVar

from ..protocol.errors import Refusal
from ..protocol.interfaces import Mind, World
from ..protocol.results import Outcome, Suggestion
from . import percepts
from .actions import Action, ActionError, parse_action
from .agents import make_agent
from .config import Config, ConfigError, Team
from .engine import Engine
from .forms import FormError, check_state_form, decode
from .inbox import MESSAGES_FORMAT, Inbox, state
from .numeric import MOVES, STATE_SPACE
from .picture import tileworld_grid


class TileworldWorld(World):
    """T-World's Tileworld, one seeded copy per client."""

    seed_section: ClassVar[str] = "T-World (Burdisso et al.)"

    sharing = "own"
    state_format: ClassVar[str] = ('T-World percept JSON (XML or Prolog with form=xml|prolog): '
                                   '{"header": "start"|"percept"|"ready_for_next_action"|"end", '
                                   '"data": {"environment", "agent", "builtin_knowledge"}, "messages": [...]}; '
                                   + MESSAGES_FORMAT)
    action_format: ClassVar[str] = ("a T-World action string: north | south | east | west (or 2 3 1 0) | none | "
                                    "restore | team_message:<text> | message:<id>:<text>")
    # machine-readable (the JSON form of wwm.gym.spaces): the numeric form (New run form=numbers)
    # and the moves
    state_space: ClassVar[dict[str, Any]] = STATE_SPACE
    action_space: ClassVar[dict[str, Any]] = {"type": "Discrete", "n": len(MOVES), "labels": list(MOVES)}

    def __init__(self, rows: int = 9, columns: int = 10, seed: int = 0, gamma: float = 0.35, time: float = 300.0,
                 dynamic: int = 2, battery: bool = False, partial_rewards: bool = True, multiplier: bool = False,
                 hard_bounds: bool = True, opponents: str = "", config: str = "", form: str = "json") -> None:
        names = [n.strip() for n in opponents.split(",") if n.strip()]
        settings = {"rows": rows, "columns": columns, "seed": seed, "gamma": gamma, "dynamic": dynamic,
                    "battery": battery, "partial_rewards": partial_rewards, "multiplier": multiplier,
                    "hard_bounds": hard_bounds, "agents": 1 + len(names), "end": {"neutral": {"time": time}}}
        try:
            if config:
                settings.update(_settings(config))
            self.config = Config.from_dict(settings)
            self.opponents = {i + 1: make_agent(n, seed=seed + i + 1) for i, n in enumerate(names)}
            if self.config.agents != 1 + len(self.opponents):
                raise ConfigError(f"agents is 1 + the number of opponents ({1 + len(self.opponents)}): the client "
                                  "drives robot 0 and opponents=NAME,... drive the others")
            self.engine = Engine(self.config)
            self.form = check_state_form(form)
        except (ConfigError, ValueError) as exc:
            raise Refusal("bad-parameters", f"Tileworld: {exc}") from None
        self.header = "start"
        self.inbox = Inbox(0)

    async def get_state(self) -> str:
        return state(self.engine, 0, "end" if self.engine.finished else self.header, self.inbox, self.form)

    async def execute_action(self, action: str) -> Outcome:
        if self.engine.finished:
            raise Refusal("run-ended", f"the Tileworld run is over at {self.engine.time:.0f} s (result "
                                       f"{self.engine.result})")
        try:
            parsed = parse_action(action)
        except ActionError as exc:
            raise Refusal("bad-parameters", f"Execute action: {exc}") from None
        self.inbox.acted()
        before = self.engine.teams[0].score
        if parsed.is_message:
            self.engine.act(0, parsed)
        else:
            moves: dict[int, str | Action] = {0: parsed, **{i: a.act(percepts.full(self.engine, i))
                                                             for i, a in self.opponents.items()}}
            result = self.engine.step(moves)[0]
            self.header = "ready_for_next_action" if result.kind in ("good_move", "bad_move") else "percept"
        self._score = float(self.engine.teams[0].score)
        return Outcome(await self.get_state(), score=self._score - before, finished=self.engine.finished)

    async def reset(self) -> None:
        self.engine = Engine(self.config)
        self.header = "start"
        self.inbox = Inbox(0)
        self._score = 0.0

    async def reset_score(self) -> None:
        self.engine.teams[0].score = 0
        self._score = 0.0

    def display_grid(self) -> dict[str, Any]:
        """The run's picture on its display page (drawn by :mod:`wwm.server.drawing`)."""
        return tileworld_grid(self.engine, 0)


def _settings(config: str) -> dict[str, Any]:
    """The ``config`` argument: a JSON object of Tileworld settings."""
    try:
        settings = json.loads(config)
    except ValueError as exc:
        raise ConfigError(f"config is not JSON: {exc}") from None
    if not isinstance(settings, dict):
        raise ConfigError(f"config must be a JSON object of settings, got {type(settings).__name__}")
    return settings


class TileworldMind(Mind):
    """A built-in Tileworld agent (``agent=reactive`` or ``deliberative``) as a Mind server; it
    reads states in any of T-World's three forms (JSON, XML, Prolog)."""

    state_format: ClassVar[str] = TileworldWorld.state_format
    action_format: ClassVar[str] = TileworldWorld.action_format

    def __init__(self, agent: str = "reactive", seed: int = 0) -> None:
        try:
            self.agent = make_agent(agent, seed=seed)
        except ValueError as exc:
            raise Refusal("bad-parameters", str(exc)) from None

    async def get_action(self, state: str) -> Suggestion:
        try:
            message = decode(state)
            data = message["data"]
            if message["header"] == "end":
                return Suggestion.cannot("the run is over")
            return Suggestion(self.agent.act(data))
        except (FormError, ValueError, KeyError, TypeError) as exc:
            raise Refusal("bad-parameters", f"not a T-World percept: {exc!s:.80}") from None


__all__ = ["Team", "TileworldMind", "TileworldWorld"]
