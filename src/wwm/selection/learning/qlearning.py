"""A Q-learning mind (Mind_L, 9.2.1) that is also a W-learning competitor (Mind_i, 9.2.2).

It learns Q(x,a) from its own reward (a named goal read from x and y, or the World's score),
explores by a Boltzmann temperature kept by the server and declining over a declared run
length, or sent by the client with each step (7.3.1). In a society it presents W: learnt by
W-learning from its losses when it is not obeyed ([PhD] 6; only the losers update unless
``update_winner``), or W = Q (static, 10.7). Its "strength" c multiplies every Q and W it
reports without changing its policy (10.10). What it learns is kept per client (7.3).

Its W-temperature (7.3.2, 9.2.2) is to the competition what the Q-temperature is to its
choice of action: how much it explores rather than bids what it knows. The W it puts forward
in "Get suggested action with values" is its learnt W plus T_W times a centred Gumbel draw, so
when every mind of a collection bids at one temperature T_W, a plain "highest W" picks mind k
with probability e^{W_k/T_W} / SUM_j e^{W_j/T_W}, the stochastic highest W of [PhD] 6.5, and
each mind gets to lose (and so learn W) in states it would otherwise always win. T_W = 0 bids
the learnt W exactly. The temperature is kept by the server, declining to 0 over the proposed
length of the W learning run, or sent with each step (7.3.1); "Reset W-Temperature" (the
collection changed) starts the schedule again and re-learns W from scratch (7.3.2).
"""

from __future__ import annotations

import math
import random
from typing import Any, ClassVar

from ...kit.wrappers import parse_keys, project
from ...protocol.errors import Refusal
from ...protocol.interfaces import CompetingMind, LearningMind
from ...protocol.results import RunStarted, Suggestion, Values
from .knowledge import KnowledgeStore
from .rewards import items
from .rewards import reward as find_reward
from .tables import QTable, Temperature, TemperatureQueries, WTable, boltzmann_choice

DEFAULT_ACTIONS = "0,1,2,3,4,5,6,7,8"
EULER_GAMMA = 0.5772156649015329  # the mean of a standard Gumbel draw


def parse_actions(actions: str | list[str]) -> list[str]:
    parts = actions.split(",") if isinstance(actions, str) else list(actions)
    out = [p.strip() for p in parts if p.strip()]
    if not out:
        raise ValueError("actions must name at least one action, e.g. actions='0,1,2'")
    if len(set(out)) != len(out):
        raise ValueError("an action is named twice in actions")
    return out


def step_number(value: Any, name: str) -> float | None:
    """A per-step argument (text on the XML wire) as a number, or a refusal naming it."""
    if value is None:
        return None
    try:
        number = float(value)
    except (TypeError, ValueError):
        raise Refusal("bad-parameters", f'"{name}" should be a number, got {str(value)[:20]!r}') from None
    if not math.isfinite(number):  # "nan" made the next Boltzmann choice fail (HTTP 500)
        raise Refusal("bad-parameters", f'"{name}" should be a finite number, got {str(value)[:20]!r}')
    if number < 0:
        raise Refusal("bad-parameters", f'"{name}" cannot be negative')
    return number


def explored(temperature: float, rng: random.Random) -> float:
    """What a W-temperature adds to a bid: T times a Gumbel draw centred on 0 (its mean,
    Euler's gamma, taken off, so the bid is the learnt W on average). The highest of W_i + T G_i
    is mind k with probability e^{W_k/T} / SUM_j e^{W_j/T} (the Gumbel-max identity)."""
    if temperature <= 0:
        return 0.0
    return temperature * (-math.log(-math.log(1.0 - rng.random())) - EULER_GAMMA)


class QLearningMind(TemperatureQueries, LearningMind, CompetingMind):
    """Q-learning and W-learning by lookup table, with the reward named by ``reward``.

    Arguments: ``reward`` (a goal of :mod:`wwm.selection.learning.rewards`, or "score"), ``r``
    (its size; default the goal's own), ``actions`` (comma-separated), ``gamma``,
    ``q_temperature`` (start of the declining schedule; default r/2) over ``run_length``
    steps, ``w_temperature`` (start of the W-temperature's schedule; default 0, bids exact)
    over ``w_run_length`` steps (9.2.2 "Proposed length of W learning run"; default
    ``run_length``), ``learn`` (false: frozen), ``strength`` c > 0, ``w`` ("learned" or "q"),
    ``w_initial`` (W of unseen states; negative for the strict variant), ``update_winner``,
    ``view`` (the keys of x this mind reads; default all), ``pretrained`` (start from the
    knowledge learnt with this client URL), ``seed``."""

    title: ClassVar[str] = "Q-learning / W-learning mind"
    state_format: ClassVar[str] = ("key=value items (a table row per distinct state, or per "
                                   "distinct sub-space given by 'view')")
    action_format: ClassVar[str] = "one of the actions given by the 'actions' argument"

    def __init__(self, reward: str = "score", r: float | None = None,
                 actions: str | list[str] = DEFAULT_ACTIONS, gamma: float = 0.9,
                 q_temperature: float | None = None, run_length: float = 10_000.0,
                 learn: bool = True, strength: float = 1.0, w: str = "learned",
                 w_initial: float = 0.0, update_winner: bool = False, w_temperature: float = 0.0,
                 w_run_length: float | None = None, view: str = "", pretrained: str | None = None,
                 seed: int | None = None, save_every: int = 1000) -> None:
        self.goal = find_reward(reward)
        self.r = self.goal.size if r is None else float(r)
        self.actions = parse_actions(actions)
        if not 0.0 <= gamma < 1.0:
            raise ValueError("gamma must be in [0, 1)")
        if strength <= 0:
            raise ValueError("strength must be positive (scaling only works if c > 0, [PhD] App. D)")
        if w not in ("learned", "q"):
            raise ValueError("w must be 'learned' (W-learning) or 'q' (W = Q)")
        self.keys = parse_keys(view) if view else None
        self.table = QTable(self.actions, gamma)
        self.wtable = WTable(w_initial)
        start = abs(self.r) / 2 if q_temperature is None else q_temperature
        self.temperature = Temperature(start, run_length)
        self.learn = learn
        self.strength = strength
        self.w_mode = w
        self.update_winner = update_winner
        if w_run_length is not None and w_run_length <= 0:
            raise ValueError("w_run_length (the proposed length of the W learning run) must be a "
                             "positive number of steps")
        if w_temperature < 0:
            raise ValueError("w_temperature cannot be negative")
        # 9.2.2: the W-temperature declines to 0 over the W learning run (7.3.1)
        self.w_schedule = Temperature(w_temperature, run_length if w_run_length is None else w_run_length)
        self.pretrained = pretrained
        self.rng = random.Random(seed)
        self.save_every = save_every
        self.store = KnowledgeStore()
        self.client: str | None = None
        self.x: str | None = None      # the state of this step (as received)
        self.a: int | None = None      # the action this mind suggested in it
        self.total = 0.0               # the mind's own points this run
        self.updates = 0

    # ---- identity and knowledge -----------------------------------------------------------
    @property
    def identity(self) -> str:
        view = ",".join(self.keys) if self.keys else "*"
        return (f"{type(self).__module__}.{type(self).__qualname__}|{self.goal.name}|{self.r:g}|"
                f"{','.join(self.actions)}|{self.table.gamma:g}|{view}")

    def knowledge(self) -> dict[str, Any]:
        return {"q": self.table.to_json(), "w": self.wtable.to_json()}

    def load(self, data: dict[str, Any]) -> None:
        table = QTable.from_json(data["q"])
        if table.actions != self.actions:
            raise Refusal("bad-parameters", "the saved knowledge is for other actions")
        self.table = table
        self.wtable = WTable.from_json(data["w"])

    def save(self) -> None:
        if self.learn:
            self.store.save(self.identity, self.client, self.knowledge())

    async def new_run(self, client_url: str | None = None, world_display_url: str | None = None,
                      world_run_id: str | None = None,
                      other_client_url: str | None = None) -> RunStarted | None:
        await super().new_run(client_url, world_display_url, world_run_id)
        self.client = client_url
        data = self.store.recall(self.identity, client_url, other_client_url or self.pretrained,
                                 detail=f" (for goal {self.goal.name!r}, these actions and this view)")
        if data is not None:
            self.load(data)
        return None

    # ---- acting ---------------------------------------------------------------------------
    def key(self, state: str) -> str:
        return project(state, self.keys) if self.keys else state.strip()

    def _choose(self, state: str, q_temperature: Any) -> int:
        sent = step_number(q_temperature, "Q-temperature")
        t = self.temperature.tick() if sent is None else sent
        return boltzmann_choice(self.table.row(self.key(state)), t, self.rng)

    def w_value(self, key: str) -> float:
        if self.w_mode == "q":
            return self.table.max(key)
        return self.wtable.value(key)

    async def get_action(self, state: str, q_temperature: Any = None, **step: Any) -> Suggestion:
        a = self._choose(state, q_temperature)
        self.x, self.a = state, a
        return Suggestion(self.actions[a], q=self.strength * self.table.value(self.key(state), a))

    async def get_suggestion(self, state: str, q_temperature: Any = None,
                             w_temperature: Any = None, **step: Any) -> Suggestion:
        sent = step_number(w_temperature, "W-temperature")  # refused before anything moves
        a = self._choose(state, q_temperature)
        self.x, self.a = state, a
        key = self.key(state)
        t = self.w_schedule.tick() if sent is None else sent
        return Suggestion(self.actions[a], q=self.strength * self.table.value(key, a),
                          w=self.strength * self.w_value(key) + explored(t, self.rng))

    async def get_values(self, state: str, action: str, **step: Any) -> Values:
        """What ``action`` is worth to this mind, exact: a W-temperature shapes only the bid
        it puts forward ("Get suggested action with values"), not a measurement of an action."""
        if action not in self.actions:
            return Values()  # an action this mind does not understand
        key = self.key(state)
        q = self.table.value(key, self.actions.index(action))
        return Values(q=self.strength * q, w=self.strength * (self.table.max(key) - q))

    # ---- learning -------------------------------------------------------------------------
    def _learn(self, y: str, score: float | None, executed: int | None,
               lost: bool) -> tuple[float, float | None]:
        """Q from the executed action (if known); W from the loss (if it lost). Returns the
        mind's reward and its sampled loss d = Q(x,a_i) - (r + gamma max_b Q(y,b)), a_i the
        action it suggested, or its best one if it was not asked (Hierarchical Q-learning,
        Collective W-learning). The loss is reported even by a frozen mind: Collective
        W-learning's AS learns from it (10.13)."""
        x = self.x
        r = self.goal(items(x), items(y), score, self.r) if x is not None else 0.0
        self.total += r
        d = None
        if x is not None:
            kx, ky = self.key(x), self.key(y)
            own = self.table.value(kx, self.a) if self.a is not None else self.table.max(kx)
            d = loss = own - (r + self.table.gamma * self.table.max(ky))
            if self.learn:
                if self.a is not None and (lost or self.update_winner):
                    self.wtable.update(kx, loss)
                if executed is not None:
                    self.table.update(kx, executed, r, ky)
                self.updates += 1
                if self.save_every and self.updates % self.save_every == 0:
                    self.save()
        self.x, self.a = y, None
        return r, d

    async def inform(self, state: str, score: float | None = None) -> float | None:
        r, _ = self._learn(state, score, self.a, lost=False)
        return self.strength * r

    async def inform_winner(self, state: str, obeyed: bool | None = None,
                            payment: float | None = None, winner_url: str | None = None,
                            action: str | None = None, score: float | None = None) -> Values:
        own = self.actions[self.a] if self.a is not None else None
        if obeyed or (action is not None and action == own):
            executed, lost = self.a, False
        else:
            executed = self.actions.index(action) if action in self.actions else None
            lost = obeyed is False or (obeyed is None and self.a is not None)
        r, d = self._learn(state, score, executed, lost)
        return Values(q=self.strength * r, w=None if d is None else self.strength * d)

    # ---- Mind_i: strength and W-temperature -----------------------------------------------
    async def get_strength(self) -> float | None:
        return self.strength

    async def change_strength(self, strength: float) -> None:
        if strength <= 0:
            raise Refusal("bad-parameters", "mind strength must be positive ([PhD] App. D: c > 0)")
        self.strength = strength

    def __setstate__(self, state: dict[str, Any]) -> None:
        # A run a --state server saved before the W-temperature took effect kept a bare
        # ``w_temperature``: it goes on with that value, declining over the mind's run length.
        if "w_schedule" not in state:
            old = max(0.0, float(state.pop("w_temperature", 0.0) or 0.0))
            state["w_schedule"] = Temperature(old, state["temperature"].run_length)
        self.__dict__.update(state)

    async def get_w_temperature(self) -> float | None:
        """The W-temperature the next bid will use (if none is sent with it)."""
        return self.w_schedule.current

    async def reset_w_temperature(self, run_length: float | None = None) -> None:
        """Collection changed (7.3.2): the W-temperature starts its schedule again (over
        ``run_length`` steps if given) and W is re-learnt from scratch (its learning rates
        start again at 1, so the first loss seen in a state replaces the old W)."""
        try:
            self.w_schedule.reset(run_length)
        except ValueError as exc:
            raise Refusal("bad-parameters", str(exc)) from None
        self.wtable.forget_counts()

    async def send_w_temperature(self, w_temperature: float, run_length: float | None = None) -> None:
        """From now on this W-temperature, declining to 0 over ``run_length`` steps (or the
        length in force). A positive one also re-learns W from scratch (7.3.2: "re-learn its
        W-values from scratch, i.e. increase the W-Temperature"); 0 only stops exploring."""
        if w_temperature < 0:
            raise Refusal("bad-parameters", "a W-temperature cannot be negative")
        try:
            self.w_schedule.reset(run_length, start=w_temperature)
        except ValueError as exc:
            raise Refusal("bad-parameters", str(exc)) from None
        if w_temperature > 0:
            self.wtable.forget_counts()

    # ---- scores and the end of the run ----------------------------------------------------
    async def get_current_score(self, score: float | None = None) -> float | None:
        return self.total

    async def reset_score(self) -> None:
        self.total = 0.0

    async def end_run(self, score: float | None = None) -> float | None:
        self.save()
        return self.total
