"""Every number of Tyrrell's world in one place: the :class:`Rules` an engine runs by, and the
25 actions. Tyrrell (1993) gives the sub-problems and their conflicts, not these numbers: each
one is a project decision, listed in the package README with its reason.

Directions follow w2mind's ``w2m.TyrrellWorld``: index 0 is the animal's own cell, 1 N, 2 NE,
3 E, 4 SE, 5 S, 6 SW, 7 W, 8 NW. North is up (y grows southwards).
"""

from __future__ import annotations

from dataclasses import dataclass, fields

# direction index -> (dx, dy); 0 is "here"
STEPS: tuple[tuple[int, int], ...] = (
    (0, 0), (0, -1), (1, -1), (1, 0), (1, 1), (0, 1), (-1, 1), (-1, 0), (-1, -1))
COMPASS: tuple[str, ...] = ("N", "NE", "E", "SE", "S", "SW", "W", "NW")

# the action suite: 8 walks, 8 runs (two cells), then the stationary actions
ACTIONS: tuple[str, ...] = (
    *(f"move-{c}" for c in COMPASS), *(f"run-{c}" for c in COMPASS),
    "rest", "freeze", "look", "sleep", "eat", "drink", "clean", "court", "mate")
INDEX: dict[str, int] = {name: i for i, name in enumerate(ACTIONS)}
WALK, RUN = 0, 8                     # action index of move-N and run-N
REST, FREEZE, LOOK, SLEEP, EAT, DRINK, CLEAN, COURT, MATE = range(16, 25)

# terrain codes of the ground array
OPEN, COVER, SWAMP, WATER = 0, 1, 2, 3
TERRAIN: tuple[str, ...] = ("open", "cover", "swamp", "water")

# what each food gives: (fat, carbohydrate, protein, water)
FOODS: dict[str, tuple[float, float, float, float]] = {
    "fruit": (0.0, 0.30, 0.0, 0.05),
    "cereal": (0.25, 0.10, 0.0, 0.0),
    "prey": (0.10, 0.0, 0.35, 0.0),
}


@dataclass(frozen=True)
class Rules:
    """The world's parameters (all project decisions; README "Rules" says why each)."""

    size: int = 25               # the grid is size x size cells, bounded
    lifetime: int = 3000         # steps before the animal dies of old age
    day: int = 200               # steps per day and night
    night: int = 60              # the last ``night`` steps of each day are night
    vision: int = 7              # how far the animal sees by day (Chebyshev cells)
    night_vision: int = 2        # ... and by night
    home_range: int = 8          # beyond it the den's direction is remembered ever worse
    cover_cells: int = 60
    swamp_cells: int = 25
    water_cells: int = 8
    fruits: int = 6              # fruit hangs on cover cells
    cereals: int = 6             # cereal grows on open cells
    preys: int = 4               # small animals to catch
    regrow: int = 60             # steps before eaten fruit or cereal grows again elsewhere
    felines: int = 2             # predator1: hunts on the ground, day and night
    hawks: int = 1               # predator2: hunts from the air by day
    irrelevant: int = 3          # large animals that trample what is in their way
    mates: int = 3
    # internal variables
    burn: tuple[float, float, float, float] = (0.0010, 0.0018, 0.0012, 0.0025)  # fat carb protein water per step
    run_cost: float = 2.0        # running burns this many times as much
    rest_cost: float = 0.6       # resting and sleeping burn this fraction
    dirt_rate: float = 0.0015
    fatigue_rate: float = 1 / 400
    # dangers
    feline_sight: int = 4        # by day; doubled at night (cats hunt by night)
    feline_kill: float = 0.25    # a cat's attack kills with this probability (else wounds 0.3)
    hawk_sight: int = 6
    hawk_kill: float = 0.15
    alert_steps: int = 8         # looking around keeps the animal alert this long
    detect_alert: float = 0.95   # chance to notice a predator in sight while alert
    detect_idle: float = 0.45    # ... while not
    noise: float = 0.15          # sd of the multiplicative noise on every external stimulus
    swamp_harm: float = 0.06
    trample_harm: float = 0.15
    # reproduction
    courtship: int = 3           # courting steps before a mate is willing
    refractory: int = 250        # steps a mate will not mate again

    def __post_init__(self) -> None:
        for f in fields(self):
            value = getattr(self, f.name)
            numbers = value if isinstance(value, tuple) else (value,)
            if any(v < 0 for v in numbers):
                raise ValueError(f"{f.name} cannot be negative, got {value}")
        if not 8 <= self.size <= 200:
            raise ValueError(f"size must be between 8 and 200, got {self.size}")
        if self.lifetime < 1:
            raise ValueError("lifetime must be at least 1 step")
        if not 0 <= self.night < self.day:
            raise ValueError(f"night ({self.night}) must be shorter than the day ({self.day})")
        terrain = self.cover_cells + self.swamp_cells + self.water_cells
        if terrain + self.cereals + 2 > self.size * self.size // 2:
            raise ValueError(f"{terrain} terrain cells and {self.cereals} cereals do not fit on a "
                             f"{self.size}x{self.size} grid (at most half of it)")
        if self.cover_cells < self.fruits:
            raise ValueError("fruit hangs on cover cells: need at least as many cover cells as fruits")
        for name in ("feline_kill", "hawk_kill", "detect_alert", "detect_idle"):
            if getattr(self, name) > 1:
                raise ValueError(f"{name} is a probability, got {getattr(self, name)}")


def parse_action(text: str) -> int:
    """An action by its name (``move-N``, ``eat``, ...) or its index 0-24, as w2mind's worlds
    take a number; a ValueError naming the choices for anything else."""
    word = text.strip().lower()
    if word.isdigit() and int(word) < len(ACTIONS):
        return int(word)
    for name, i in INDEX.items():
        if name.lower() == word:
            return i
    raise ValueError(f"unknown action {text.strip()[:30]!r}: give 0-{len(ACTIONS) - 1} or one of "
                     f"{', '.join(ACTIONS)}")
