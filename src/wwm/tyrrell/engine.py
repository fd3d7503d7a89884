"""The rules of Tyrrell's world with no I/O: :class:`TyrrellEngine` steps one animal through
its life, and :meth:`TyrrellEngine.perceive` gives what the animal perceives as numbers.

One step: the action is carried out (a walk or run, or a stationary act), the animal's
internal variables move (nutrients and water burnt, dirt and fatigue gained, body temperature
drawn to the ambient one, harm from extremes), then the other animals move and the predators
attack. Death (a predator, starvation of any nutrient, thirst, or health run out) or old age
ends the life; fitness is the number of matings. Every number is in :class:`~.rules.Rules`.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field

import numpy as np

from .perception import stimuli, stimulus
from .rules import (
    CLEAN,
    COURT,
    COVER,
    DRINK,
    EAT,
    FOODS,
    FREEZE,
    LOOK,
    MATE,
    OPEN,
    REST,
    RUN,
    SLEEP,
    STEPS,
    SWAMP,
    WATER,
    Rules,
)

Cell = tuple[int, int]
NUTRIENTS = ("fat", "carbohydrate", "protein", "water")


@dataclass
class Percept:
    """The animal's perception after a step: noisy scalars and 9-element direction vectors,
    under the names of the state format (:mod:`.state`)."""

    scalars: dict[str, float]
    vectors: dict[str, np.ndarray]


@dataclass
class TyrrellEngine:
    rules: Rules = field(default_factory=Rules)
    seed: int = 0

    def __post_init__(self) -> None:
        self.reset()

    # ---- set up ----------------------------------------------------------------------------
    def reset(self) -> None:
        """The world as at birth (same seed, same world)."""
        r = self.rules
        world_seed, sense_seed = np.random.SeedSequence(self.seed).spawn(2)
        self.rng = np.random.default_rng(world_seed)
        self.sense = np.random.default_rng(sense_seed)   # perception noise: its own stream
        n = r.size
        self.ground = np.full((n, n), OPEN, dtype=np.int8)   # ground[y, x]
        self.den: Cell = (n // 2, n // 2)
        cells = [(x, y) for y in range(n) for x in range(n) if max(abs(x - self.den[0]), abs(y - self.den[1])) > 1]
        order = self.rng.permutation(len(cells))
        picked = iter(order)
        self._place(cells, picked, COVER, r.cover_cells, clumped=True)
        self._place(cells, picked, SWAMP, r.swamp_cells, clumped=True)
        self._place(cells, picked, WATER, r.water_cells, clumped=True)
        self.terrain = {kind: np.argwhere(kind == self.ground.T) for kind in (COVER, SWAMP, WATER)}
        self.pos: Cell = self.den
        self.levels = np.full(4, 0.7)       # fat, carbohydrate, protein, water (1 = full)
        self.temperature = 0.5               # body temperature, 0.5 ideal
        self.dirt = 0.0
        self.health = 1.0
        self.fatigue = 0.0
        self.alert = 0
        self.asleep = self.frozen = False
        self.step_count = 0
        self.fitness = 0
        self.alive = True
        self.cause = ""
        self.events: list[str] = []
        # things: positions as (k, 2) int arrays; food also the step from which it is there
        self.food = {"fruit": self._cells_of(COVER, r.fruits), "cereal": self._cells_of(OPEN, r.cereals),
                     "prey": self._cells_of(OPEN, r.preys)}
        self.food_ready = {k: np.zeros(len(v), dtype=np.int64) for k, v in self.food.items()}
        self.felines = self._cells_of(OPEN, r.felines, far=r.size // 3)
        self.hawks = self._cells_of(OPEN, r.hawks, far=r.size // 3)
        self.animals = self._cells_of(OPEN, r.irrelevant, far=3)
        self.mates = self._cells_of(OPEN, r.mates, far=3)
        self.noticed = {"felines": np.zeros(r.felines, dtype=bool), "hawks": np.zeros(r.hawks, dtype=bool)}
        self.courted = np.zeros(r.mates, dtype=np.int64)
        self.mate_ready = np.zeros(r.mates, dtype=np.int64)
        self._percept: Percept | None = None

    def _place(self, cells: list[Cell], picked: Iterator[int], kind: int, count: int, clumped: bool) -> None:
        """``count`` cells of terrain ``kind``, in a few clumps grown from random seeds."""
        n = self.rules.size
        placed = 0
        while placed < count:
            x, y = cells[next(picked)]
            for _ in range(count - placed if not clumped else min(count - placed, 6)):
                if self.ground[y, x] == OPEN and max(abs(x - self.den[0]), abs(y - self.den[1])) > 1:
                    self.ground[y, x] = kind
                    placed += 1
                dx, dy = STEPS[1 + int(self.rng.integers(8))]
                x, y = min(max(x + dx, 0), n - 1), min(max(y + dy, 0), n - 1)

    def _cells_of(self, kind: int, count: int, far: int = 0) -> np.ndarray:
        out = np.zeros((count, 2), dtype=np.int64)
        for i in range(count):
            out[i] = self._free(kind, far)
        return out

    def _free(self, kind: int, far: int = 0) -> Cell:
        """A random cell of terrain ``kind`` more than ``far`` cells from the animal."""
        for _ in range(1000):
            x, y = (int(v) for v in self.rng.integers(self.rules.size, size=2))
            if self.ground[y, x] == kind and self.distance((x, y), self.pos) > far and (x, y) != self.den:
                return x, y
        ys, xs = np.nonzero(self.ground == kind)
        i = int(self.rng.integers(len(xs)))
        return int(xs[i]), int(ys[i])

    # ---- geometry and time -----------------------------------------------------------------
    @staticmethod
    def distance(a: Cell, b: Cell) -> int:
        return max(abs(a[0] - b[0]), abs(a[1] - b[1]))

    def clamp(self, x: int, y: int) -> Cell:
        n = self.rules.size - 1
        return min(max(x, 0), n), min(max(y, 0), n)

    @property
    def phase(self) -> int:
        return self.step_count % self.rules.day

    @property
    def is_night(self) -> bool:
        return self.phase >= self.rules.day - self.rules.night

    @property
    def night_proximity(self) -> float:
        """0 at dawn, rising to 1 at dusk; 1 all night."""
        daylight = self.rules.day - self.rules.night
        return 1.0 if self.is_night else self.phase / daylight

    @property
    def in_den(self) -> bool:
        return self.pos == self.den

    def terrain_at(self, cell: Cell) -> int:
        return int(self.ground[cell[1], cell[0]])

    # ---- one step --------------------------------------------------------------------------
    def step(self, action: int) -> int:
        """Carry out one action; return the matings it brought (0 or 1)."""
        if not self.alive:
            raise ValueError(f"the animal is dead ({self.cause}); start a new run")
        self.events = []
        before = self.fitness
        self.asleep, self.frozen = action == SLEEP, action == FREEZE
        self._act(action)
        self._body(action)
        if self.alive:
            self._others()
        self.step_count += 1
        if self.alive and self.step_count >= self.rules.lifetime:
            self._die("old age")
        self._percept = None
        return self.fitness - before

    def _act(self, action: int) -> None:
        r = self.rules
        if action < RUN + 8:
            dx, dy = STEPS[1 + action % 8]
            for _ in range(2 if action >= RUN else 1):
                cell = self.clamp(self.pos[0] + dx, self.pos[1] + dy)
                if cell != self.pos and self.terrain_at(cell) == SWAMP:
                    self.health -= r.swamp_harm
                    self.dirt = min(1.0, self.dirt + 0.1)
                    self.events.append("waded into swamp")
                self.pos = cell
        elif action == LOOK:
            self.alert = r.alert_steps
        elif action == EAT:
            self._eat()
        elif action == DRINK and self.terrain_at(self.pos) == WATER:
            self.levels[3] = min(1.0, self.levels[3] + 0.3)
            self.events.append("drank")
        elif action == CLEAN:
            self.dirt = max(0.0, self.dirt - 0.25)
        elif action == COURT and not self.is_night:
            near = self._mates_within(1, willing=False)
            if len(near):
                self.courted[near[0]] += 1
                self.events.append("courted")
        elif action == MATE and not self.is_night:
            near = [m for m in self._mates_within(1, willing=False) if self.courted[m] >= r.courtship]
            if near and self.rng.random() < self.health * (1 - 0.5 * self.dirt):
                m = near[0]
                self.fitness += 1
                self.courted[m] = 0
                self.mate_ready[m] = self.step_count + r.refractory
                self.levels = np.maximum(self.levels - 0.03, 0.0)
                self.events.append("mated")

    def _eat(self) -> None:
        for kind, cells in self.food.items():
            here = np.nonzero((cells[:, 0] == self.pos[0]) & (cells[:, 1] == self.pos[1])
                              & (self.food_ready[kind] <= self.step_count))[0]
            if len(here) == 0:
                continue
            i = int(here[0])
            self.levels = np.minimum(self.levels + np.array(FOODS[kind]), 1.0)
            self.events.append(f"ate {kind}")
            # the item is gone; another grows (or arrives) elsewhere after ``regrow`` steps
            terrain = COVER if kind == "fruit" else OPEN
            cells[i] = self._free(terrain, far=3)
            self.food_ready[kind][i] = self.step_count + self.rules.regrow

    def _body(self, action: int) -> None:
        r = self.rules
        cost = r.run_cost if RUN <= action < RUN + 8 else r.rest_cost if action in (REST, SLEEP, FREEZE) else 1.0
        self.levels = self.levels - np.array(r.burn) * cost
        self.dirt = min(1.0, self.dirt + r.dirt_rate)
        if action == SLEEP:
            self.fatigue = max(0.0, self.fatigue - (0.03 if self.in_den else 0.015))
            self.health = min(1.0, self.health + (0.004 if self.in_den else 0.001))
        else:
            self.fatigue = min(1.0, self.fatigue + r.fatigue_rate)
        self.alert = max(0, self.alert - 1)
        terrain = self.terrain_at(self.pos)
        if self.in_den:
            ambient = 0.5
        elif self.is_night:
            ambient = 0.2 if terrain == COVER else 0.1
        else:
            ambient = 0.6 if terrain in (COVER, WATER) else 0.85
        heat = 0.01 if RUN <= action < RUN + 8 else 0.0
        self.temperature += 0.02 * (ambient - self.temperature) + heat
        if abs(self.temperature - 0.5) > 0.25:
            self.health -= 0.004
            self.events.append("too hot" if self.temperature > 0.5 else "too cold")
        if self.dirt > 0.7:
            self.health -= 0.002
        if self.fatigue >= 1.0:
            self.health -= 0.004
        if self.levels.min() > 0.3 and action in (REST, SLEEP):
            self.health = min(1.0, self.health + 0.002)
        if self.levels.min() <= 0:
            k = int(np.argmin(self.levels))
            self._die("thirst" if k == 3 else f"starvation ({NUTRIENTS[k]})")
        elif self.health <= 0:
            self._die("injuries")

    def _die(self, cause: str) -> None:
        self.alive = False
        self.cause = cause
        self.events.append(f"died: {cause}")

    def _walk(self, cells: np.ndarray, moving: float, reach: int = 1) -> None:
        """Each of ``cells`` takes a random step (up to ``reach`` cells) with probability ``moving``."""
        for i in range(len(cells)):
            if self.rng.random() < moving:
                dx, dy = STEPS[1 + int(self.rng.integers(8))]
                k = 1 + int(self.rng.integers(reach))
                cells[i] = self.clamp(int(cells[i, 0]) + k * dx, int(cells[i, 1]) + k * dy)

    def _towards(self, cell: np.ndarray, target: Cell, sign: int = 1) -> None:
        cell[0] = min(max(cell[0] + sign * np.sign(target[0] - cell[0]), 0), self.rules.size - 1)
        cell[1] = min(max(cell[1] + sign * np.sign(target[1] - cell[1]), 0), self.rules.size - 1)

    def _mates_within(self, reach: int, willing: bool = True) -> list[int]:
        if self.is_night:
            return []
        d = np.maximum(np.abs(self.mates[:, 0] - self.pos[0]), np.abs(self.mates[:, 1] - self.pos[1]))
        ok = (d <= reach) & (self.mate_ready <= self.step_count)
        if willing:
            ok &= self.courted >= self.rules.courtship
        return [int(i) for i in np.argsort(d, kind="stable") if ok[i]]

    def _others(self) -> None:
        r = self.rules
        prey = self.food["prey"]
        for i in range(len(prey)):
            if self.distance(tuple(prey[i]), self.pos) <= 2 and self.rng.random() < 0.5:
                self._towards(prey[i], self.pos, sign=-1)   # prey runs from the animal
            elif self.rng.random() < 0.3:
                self._walk(prey[i:i + 1], 1.0)
        self._walk(self.animals, 0.5)
        for a in self.animals:
            if (int(a[0]), int(a[1])) == self.pos and not self.in_den:
                self.health -= r.trample_harm
                self.events.append("trampled")
        if not self.is_night:
            for i in range(len(self.mates)):
                if self.courted[i] and self.rng.random() < 0.7:
                    if self.distance(tuple(self.mates[i]), self.pos) > 1:
                        self._towards(self.mates[i], self.pos)   # a courted mate follows
                elif self.rng.random() < 0.3:
                    self._walk(self.mates[i:i + 1], 1.0)
        self._felines()
        if self.alive and not self.is_night:
            self._hawks()
        if self.alive and self.health <= 0:
            self._die("injuries")

    def _felines(self) -> None:
        r = self.rules
        sight = r.feline_sight * (2 if self.is_night else 1)
        if self.terrain_at(self.pos) == COVER:
            sight //= 2
        if self.frozen or self.asleep:
            sight //= 2
        for i, cat in enumerate(self.felines):
            if not self.in_den and self.distance(tuple(cat), self.pos) <= sight:
                self._towards(cat, self.pos)    # it stalks one cell a step, and pounces from two
                if self.distance(tuple(cat), self.pos) == 1 and self.rng.random() < 0.5:
                    self._towards(cat, self.pos)
            else:
                self._walk(self.felines[i:i + 1], 0.7)
            if (int(cat[0]), int(cat[1])) == self.den:
                cat[:] = self._free(OPEN, far=r.size // 3)
            if (int(cat[0]), int(cat[1])) == self.pos:
                self._attacked("a feline", min(1.0, r.feline_kill * (1.5 if self.asleep else 1.0)), 0.3)
                cat[:] = self._free(OPEN, far=r.size // 3)   # fed or foiled, it goes away
                if not self.alive:
                    return

    def _hawks(self) -> None:
        r = self.rules
        hidden = self.in_den or self.terrain_at(self.pos) == COVER
        sight = r.hawk_sight // (2 if self.frozen else 1)
        for i, hawk in enumerate(self.hawks):
            if not hidden and self.distance(tuple(hawk), self.pos) <= sight:
                self._towards(hawk, self.pos)   # it circles in: one cell a step
            else:
                self._walk(self.hawks[i:i + 1], 1.0, reach=2)
            if (int(hawk[0]), int(hawk[1])) == self.pos and not hidden:
                self._attacked("a hawk", r.hawk_kill, 0.25)
                hawk[:] = self._free(OPEN, far=r.size // 3)
                if not self.alive:
                    return

    def _attacked(self, by: str, kill: float, wound: float) -> None:
        if self.rng.random() < kill:
            self._die(f"killed by {by}")
        else:
            self.health -= wound
            self.events.append(f"wounded by {by}")

    # ---- perception ------------------------------------------------------------------------
    def perceive(self) -> Percept:
        """The animal's noisy perception now (the same until the next step)."""
        if self._percept is None:
            self._percept = self._perceive()
        return self._percept

    def _perceive(self) -> Percept:
        r, rng = self.rules, self.sense
        vision = r.night_vision if self.is_night else r.vision
        if self.asleep:
            vision = 0
        noise = r.noise * (2.0 if self.fatigue > 0.8 else 1.0)

        def ready(kind: str) -> np.ndarray:
            return (self.food_ready[kind] <= self.step_count).astype(float)

        # a predator in sight is noticed with some chance each step (more while alert), and
        # once noticed is followed until it is out of sight
        detect = r.detect_alert if self.alert else r.detect_idle
        for name, cells, reach in (("felines", self.felines, vision), ("hawks", self.hawks, vision + 3)):
            near = np.maximum(np.abs(cells[:, 0] - self.pos[0]), np.abs(cells[:, 1] - self.pos[1])) <= reach
            if name == "hawks" and self.is_night:
                near[:] = False
            self.noticed[name] = near & (self.noticed[name] | (rng.random(len(cells)) < detect))
        cats = self.noticed["felines"].astype(float)
        hawks = self.noticed["hawks"].astype(float)
        mates = (self.mate_ready <= self.step_count).astype(float) * (0.0 if self.is_night else 1.0)
        groups = [  # kind: (cells, radius, weights)
            ("fruit", self.food["fruit"], vision, ready("fruit")),
            ("cereal", self.food["cereal"], vision, ready("cereal")),
            ("prey", self.food["prey"], vision, ready("prey")),
            ("water", self.terrain[WATER], vision, None),
            ("cover", self.terrain[COVER], vision, None),
            ("swamp", self.terrain[SWAMP], max(vision, 1), None),
            ("predator1", self.felines, vision, cats),
            ("predator2", self.hawks, vision + 3, hawks),  # a hawk is seen from afar
            ("irrelevantAnimal", self.animals, vision, None),
            ("mate", self.mates, vision, mates),
        ]
        sizes = [len(g[1]) for g in groups]
        table = stimuli(self.pos, np.concatenate([g[1] for g in groups]),
                        np.repeat(np.arange(len(groups)), sizes),
                        np.repeat([g[2] for g in groups], sizes),
                        np.concatenate([np.ones(n) if g[3] is None else g[3]
                                        for g, n in zip(groups, sizes, strict=True)]),
                        len(groups))
        table = np.round(np.maximum(table * (1 + rng.normal(0, noise, table.shape)), 0.0), 3)
        vectors = {f"{g[0]}PerceptionStimulus": table[i] for i, g in enumerate(groups)}
        # the den is remembered, not seen: exact within the home range, ever fuzzier beyond
        d = self.distance(self.pos, self.den)
        den = stimulus(self.pos, np.array([self.den]), 10 ** 6)
        lost = max(0.0, (d - r.home_range) / r.home_range)
        if lost and rng.random() < min(1.0, lost):
            den = np.roll(den[1:], int(rng.choice([-1, 1]))).tolist()
            den = np.array([0.0, *den])
        vectors["denPerceptionStimulus"] = np.round(np.maximum(den * (1 + rng.normal(0, noise, 9)), 0.0), 3)
        courted = [i for i in self._mates_within(1) if self.courted[i] >= r.courtship]
        inner = np.clip(np.array([1 - self.levels[0], 1 - self.levels[1], 1 - self.levels[2], 1 - self.levels[3],
                                  self.temperature, self.dirt, 1 - self.health, self.fatigue])
                        + rng.normal(0, 0.02, 8), 0.0, 1.0)
        scalars = dict(zip(("perceivedFatShortage", "perceivedCarbohydrateShortage", "perceivedProteinShortage",
                            "perceivedWaterShortage", "perceivedTemperature", "perceivedDirtiness",
                            "perceivedHealthShortage", "perceivedFatigue"), inner.tolist(), strict=True))
        scalars |= {
            "nightProximity": round(self.night_proximity, 3),
            "night": float(self.is_night),
            "distanceFromDen": round(max(0.0, d * (1 + rng.normal(0, 0.1 * lost))), 2),
            "inDen": float(self.in_den),
            "onCover": float(self.terrain_at(self.pos) == COVER),
            "onWater": float(self.terrain_at(self.pos) == WATER),
            "alert": float(self.alert > 0),
            "mateCourted": float(bool(courted)),
        }
        return Percept({k: round(v, 3) for k, v in scalars.items()}, vectors)
