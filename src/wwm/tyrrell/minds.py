"""One mind per sub-problem of Tyrrell's world, each a Mind_i (section 9.2.2) that any Action
Selection method of section 10 can combine: it reads the state (:mod:`.state`), feels a drive
in [0, 1] (how urgent its goal is now) and gives every one of the 25 actions a Q-like
preference, drive x how well the action serves the goal. Its suggestion is the action it
prefers, with Q = that preference and W = Q (static W, 10.7) or, with ``w="learned"``, a W
learnt from the losses it reports when not obeyed (W-learning with a fixed Q, 10.9). "Get
values for this action" answers Q(x, a) and W = Q(x, a_i) - Q(x, a), its loss.

These are hand-coded, not learnt: Tyrrell's own sub-systems were hand-designed too, so the
comparison is of how methods combine preferences, not of how minds learn them.
"""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np

from ..protocol.errors import Refusal
from ..protocol.interfaces import CompetingMind
from ..protocol.results import Suggestion, Values
from .rules import (
    ACTIONS,
    CLEAN,
    COURT,
    DRINK,
    EAT,
    FOODS,
    FREEZE,
    LOOK,
    MATE,
    REST,
    RUN,
    SLEEP,
    WALK,
    parse_action,
)
from .state import View, parse_state

N = len(ACTIONS)
NUTRIENT = {"fat": 0, "carbohydrate": 1, "protein": 2}


def toward(vec: tuple[float, ...] | np.ndarray, value: float, run: float = 0.6) -> np.ndarray:
    """Preferences for heading where ``vec`` is strongest: ``value`` for the walk that way,
    half for the walks beside it, ``run`` times those for running (``run`` > 1: haste)."""
    q = np.zeros(N)
    v = np.asarray(vec[1:], dtype=float)
    if v.max() <= 0:
        return q
    weights = v / v.max()
    for d in range(8):
        w = max(weights[d], 0.5 * weights[(d - 1) % 8], 0.5 * weights[(d + 1) % 8])
        hurry = run > 1 and v[d] < 0.45        # no running past a target one cell away
        q[WALK + d] = value * w / run if hurry else value * w
        q[RUN + d] = value * w if hurry else value * w * min(run, 1 / run)
    return q


ANGLES = np.arange(8) * np.pi / 4        # sector d+1's bearing, clockwise from north


def away(vec: tuple[float, ...] | np.ndarray, value: float, run: float = 1.0) -> np.ndarray:
    """Preferences for heading away from what ``vec`` shows (its nearness-weighted bearing):
    ``value`` straight away, less the closer a heading is to the danger; with ``run`` > 1
    running is preferred, walking gets ``1/run`` of it."""
    v = np.asarray(vec[1:], dtype=float)
    q = np.zeros(N)
    if v.max() <= 0:
        return q
    bearing = np.arctan2(np.sum(v * np.sin(ANGLES)), np.sum(v * np.cos(ANGLES)))
    weight = (1 - np.cos(ANGLES - bearing)) / 2            # 1 straight away, 0 towards it
    q[RUN:RUN + 8] = value * weight * (1 if run > 1 else run)
    q[WALK:WALK + 8] = value * weight / max(run, 1.0)
    return q


class GoalMind(CompetingMind):
    """The base of the sub-problem minds: :meth:`preferences` gives Q over the 25 actions."""

    title: ClassVar[str] = "Tyrrell world goal mind"
    goal: str = ""
    state_format: ClassVar[str] = "Tyrrell's world's: key:value; pairs (see the world's card)"
    action_format: ClassVar[str] = ("one of the world's 25 action names: move-N .. run-NW, rest, freeze, look, sleep, "
                                    "eat, drink, clean, court, mate")

    def __init__(self, w: str = "q", w_rate: float = 0.2) -> None:
        if w not in ("q", "learned"):
            raise ValueError(f"w must be 'q' (W = Q, static) or 'learned' (W-learning), not {w!r}")
        if not 0 < w_rate <= 1:
            raise ValueError("w_rate must be in (0, 1]")
        self.w_mode, self.w_rate = w, w_rate
        self.w_table: dict[tuple[int, int], float] = {}
        self._cache: tuple[str, np.ndarray] | None = None
        self._last: tuple[np.ndarray, tuple[int, int]] | None = None

    def drive(self, x: View) -> float:
        raise NotImplementedError

    def preferences(self, x: View, drive: float) -> np.ndarray:
        raise NotImplementedError

    def qs(self, state: str) -> np.ndarray:
        if self._cache is None or self._cache[0] != state:
            try:
                x = parse_state(state)
            except ValueError as exc:
                raise Refusal("bad-parameters", f"{type(self).__name__}: {exc}") from None
            drive = float(np.clip(self.drive(x), 0.0, 1.0))
            alive = x.scalars.get("alive", 1.0) > 0
            q = self.preferences(x, drive) if drive > 0 and alive else np.zeros(N)
            self._cache = (state, np.round(np.clip(q, 0.0, None), 4))
        return self._cache[1]

    def _best(self, q: np.ndarray) -> int:
        return int(np.argmax(q)) if q.max() > 0 else REST

    async def get_action(self, state: str, **step: Any) -> Suggestion:
        q = self.qs(state)
        a = self._best(q)
        return Suggestion(ACTIONS[a], q=float(q[a]))

    async def get_suggestion(self, state: str, **step: Any) -> Suggestion:
        q = self.qs(state)
        a = self._best(q)
        if self.w_mode == "q":
            return Suggestion(ACTIONS[a], q=float(q[a]), w=float(q[a]))
        key = (int(round(q[a] * 4)), a)      # W over a coarse sub-space: urgency x preferred action
        self._last = (q, key)
        return Suggestion(ACTIONS[a], q=float(q[a]), w=self.w_table.get(key, 0.0))

    async def get_values(self, state: str, action: str, **step: Any) -> Values:
        try:
            a = parse_action(action)
        except ValueError:
            return Values()
        q = self.qs(state)
        return Values(q=float(q[a]), w=float(q.max() - q[a]))

    async def inform_winner(self, state: str, obeyed: bool | None = None, payment: float | None = None,
                            winner_url: str | None = None, action: str | None = None,
                            score: float | None = None) -> Values:
        """W-learning (10.9, strict: the leader does not learn): when not obeyed, W moves
        towards the loss Q(x, a_i) - Q(x, a_k) the executed action a_k cost this mind."""
        if self._last is None or action is None:
            return Values()
        q, key = self._last
        self._last = None
        try:
            k = parse_action(action)
        except ValueError:
            return Values()
        loss = float(q.max() - q[k])
        if obeyed is not True:
            old = self.w_table.get(key, 0.0)
            self.w_table[key] = old + self.w_rate * (loss - old)
        return Values(q=float(q[k]), w=loss)


def _consume(q: np.ndarray, act: int, drive: float) -> np.ndarray:
    q[act] = drive
    return q


class NutrientMind(GoalMind):
    """Eat to make good a shortage of one nutrient (``fat``, ``carbohydrate`` or ``protein``),
    heading for the foods that hold it, weighted by how much they hold."""

    def __init__(self, nutrient: str = "fat", w: str = "q", w_rate: float = 0.2) -> None:
        super().__init__(w, w_rate)
        if nutrient not in NUTRIENT:
            raise ValueError(f"nutrient must be one of {', '.join(NUTRIENT)}, not {nutrient!r}")
        self.nutrient = nutrient
        self.goal = f"eat ({nutrient})"

    def drive(self, x: View) -> float:
        s = x[f"perceived{self.nutrient.capitalize()}Shortage"]
        return s * s * 1.6

    def preferences(self, x: View, drive: float) -> np.ndarray:
        k = NUTRIENT[self.nutrient]
        smell = np.sum([np.asarray(x.vector(food)) * gives[k] for food, gives in FOODS.items()], axis=0)
        q = toward(smell, drive * 0.9)
        if smell[0] > 0:
            _consume(q, EAT, drive)
        return q


class DrinkMind(GoalMind):
    """Drink: go to water and drink when thirsty, harder the drier the animal is."""

    goal = "drink"

    def drive(self, x: View) -> float:
        s = x["perceivedWaterShortage"]
        return s * s * 1.8

    def preferences(self, x: View, drive: float) -> np.ndarray:
        q = toward(x.vector("water"), drive * 0.9)
        if x["onWater"]:
            _consume(q, DRINK, drive)
        return q


class TemperatureMind(GoalMind):
    """Keep the body near 0.5: to shade (cover or water) when hot, to the den when cold."""

    goal = "keep warm or cool"

    def drive(self, x: View) -> float:
        return (abs(x["perceivedTemperature"] - 0.5) - 0.1) * 4

    def preferences(self, x: View, drive: float) -> np.ndarray:
        hot = x["perceivedTemperature"] > 0.5
        if hot and (x["onCover"] or x["onWater"] or x["inDen"]) or not hot and x["inDen"]:
            return _consume(np.zeros(N), REST, drive)
        if hot:
            shade = np.asarray(x.vector("cover")) + np.asarray(x.vector("water"))
            return toward(shade, drive * 0.9) if shade[1:].max() > 0 else toward(x.vector("den"), drive * 0.9)
        return toward(x.vector("den"), drive * 0.9)


class CleanMind(GoalMind):
    """Keep clean: groom when dirty, sooner the dirtier the animal is."""

    goal = "clean"

    def drive(self, x: View) -> float:
        return x["perceivedDirtiness"] - 0.2

    def preferences(self, x: View, drive: float) -> np.ndarray:
        return _consume(np.zeros(N), CLEAN, drive)


class FelineMind(GoalMind):
    """Flee a feline (predator1): run away from it, and freeze if hidden in cover."""

    goal = "flee felines"

    def drive(self, x: View) -> float:
        return 0.0 if x["inDen"] else float(np.sum(x.vector("predator1"))) * 4

    def preferences(self, x: View, drive: float) -> np.ndarray:
        cats = np.asarray(x.vector("predator1"))
        q: np.ndarray = away(cats, drive, run=1.5)
        den = toward(x.vector("den"), drive, run=1.5)
        q = np.maximum(q, 0.9 * np.minimum(q, den) + 0.1 * den)   # away, and homewards if it can
        if x["onCover"]:
            q[FREEZE] = 0.7 * drive
        return q


class HawkMind(GoalMind):
    """Flee a hawk (predator2): keep still under cover, else dash for the nearest cover."""

    goal = "flee hawks"

    def drive(self, x: View) -> float:
        return float(np.sum(x.vector("predator2"))) * 4

    def preferences(self, x: View, drive: float) -> np.ndarray:
        if x["onCover"] or x["inDen"]:
            return _consume(np.zeros(N), FREEZE, drive)
        shelter = np.asarray(x.vector("cover")) + np.asarray(x.vector("den"))
        return toward(shelter, drive, run=1.5) if shelter[1:].max() > 0 else away(x.vector("predator2"), drive, run=1.5)


class VigilanceMind(GoalMind):
    """Look around now and then (predators are noticed far more often while alert)."""

    goal = "vigilance"

    def drive(self, x: View) -> float:
        return 0.0 if x["alert"] or x["inDen"] else 0.12 + 0.15 * x["nightProximity"]

    def preferences(self, x: View, drive: float) -> np.ndarray:
        return _consume(np.zeros(N), LOOK, drive)


class HazardMind(GoalMind):
    """Keep out of the swamp and out of the way of the large irrelevant animals."""

    goal = "avoid hazards"

    def drive(self, x: View) -> float:
        near = np.asarray(x.vector("swamp"))[1:] + 2 * np.asarray(x.vector("irrelevantAnimal"))[1:]
        return min(1.0, float(near.max())) * 0.3

    def preferences(self, x: View, drive: float) -> np.ndarray:
        danger = np.asarray(x.vector("swamp")) + 2 * np.asarray(x.vector("irrelevantAnimal"))
        q = np.zeros(N)
        worst = danger[1:].max()
        for d in range(8):
            q[WALK + d] = drive * (1 - danger[1 + d] / worst)
            q[RUN + d] = 0.5 * q[WALK + d]
        q[REST] = q[FREEZE] = q[LOOK] = drive * (1 - danger[0] / worst) * 0.8
        return q


class SleepMind(GoalMind):
    """Sleep in the den at night (and when worn out); head home as night comes."""

    goal = "sleep in the den"

    def drive(self, x: View) -> float:
        return x["nightProximity"] ** 4 + 0.6 * max(0.0, x["perceivedFatigue"] - 0.6)

    def preferences(self, x: View, drive: float) -> np.ndarray:
        if x["inDen"]:
            return _consume(np.zeros(N), SLEEP, drive)
        return toward(x.vector("den"), drive * 0.9, run=1.2 if x["night"] else 0.6)


class MateMind(GoalMind):
    """Court a mate that is near, mate with one courted enough, seek one otherwise (by day)."""

    goal = "court and mate"

    def drive(self, x: View) -> float:
        return 0.0 if x["night"] else 0.45 * (1 - x["perceivedHealthShortage"])

    def preferences(self, x: View, drive: float) -> np.ndarray:
        mate = np.asarray(x.vector("mate"))
        if x["mateCourted"]:
            return _consume(np.zeros(N), MATE, drive * 1.5)
        if mate.max() >= 0.4:           # a mate within reach (1/(1+1) = 0.5 less the noise)
            return _consume(np.zeros(N), COURT, drive)
        return toward(mate, drive * 0.8)


class HomeMind(GoalMind):
    """Do not get lost: come back towards the den when far from it."""

    goal = "stay near home"

    def drive(self, x: View) -> float:
        return (x["distanceFromDen"] - 6) / 10

    def preferences(self, x: View, drive: float) -> np.ndarray:
        return toward(x.vector("den"), drive)


class CoverMind(GoalMind):
    """Stay close to cover, where hawks cannot strike (a weak, standing preference)."""

    goal = "stay close to cover"

    def drive(self, x: View) -> float:
        near = float(np.asarray(x.vector("cover")).max())
        return 0.0 if x["onCover"] or x["inDen"] or near >= 0.5 else 0.1

    def preferences(self, x: View, drive: float) -> np.ndarray:
        return toward(x.vector("cover"), drive)


# the society: name -> (class, constructor arguments); one server each in a served society
GOALS: dict[str, tuple[type[GoalMind], dict[str, Any]]] = {
    "fat": (NutrientMind, {"nutrient": "fat"}),
    "carbohydrate": (NutrientMind, {"nutrient": "carbohydrate"}),
    "protein": (NutrientMind, {"nutrient": "protein"}),
    "water": (DrinkMind, {}),
    "temperature": (TemperatureMind, {}),
    "clean": (CleanMind, {}),
    "feline": (FelineMind, {}),
    "hawk": (HawkMind, {}),
    "vigilance": (VigilanceMind, {}),
    "hazard": (HazardMind, {}),
    "sleep": (SleepMind, {}),
    "mate": (MateMind, {}),
    "home": (HomeMind, {}),
    "cover": (CoverMind, {}),
}


def society(w: str = "q") -> list[GoalMind]:
    """One fresh mind per goal, in the order of :data:`GOALS`."""
    return [cls(**args, w=w) for cls, args in GOALS.values()]
