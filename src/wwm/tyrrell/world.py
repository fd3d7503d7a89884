"""Tyrrell's world served as a World (section 9.1): one animal's life per run, a new seeded
copy for each client. ``wwm serve wwm.tyrrell:TyrrellWorld --arg seed=3``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar

from ..protocol.errors import Refusal
from ..protocol.interfaces import World
from ..protocol.results import Outcome, RunStarted
from .engine import TyrrellEngine
from .rules import ACTIONS, COVER, SWAMP, WATER, Rules, parse_action
from .state import SCALARS, VECTORS, format_state

if TYPE_CHECKING:
    import numpy as np

# the display page's looks of the kinds the grid World does not have (wwm.server.drawing)
LOOKS = {"cover": ["block", "#bbf7d0"], "swamp": ["block", "#a8a29e"], "water": ["block", "#93c5fd"],
         "prey": ["dot", "#92400e"], "mate": ["disc", "#db2777"], "animal": ["dot", "#7c3aed"]}

_VECTOR_SPACE = {"type": "Box", "low": 0.0, "high": 100.0, "shape": [9]}


class TyrrellWorld(World):
    """A simulated animal in a 2-D world of conflicting sub-problems (after Tyrrell 1993):
    food of three nutrients, water, temperature, cleanliness, felines and hawks, vigilance,
    swamp, irrelevant animals, a den, night and day, cover, getting lost, courtship and
    mating. The score is genetic fitness: one point per mating; death ends the run.

    Arguments: ``seed``; ``lifetime`` (steps of a life, default 3000); ``size`` of the grid
    (default 25); ``felines`` and ``hawks`` (how many predators of each kind)."""

    seed_section: ClassVar[str] = "12.3, 5.4 (Tyrrell 1993)"

    title: ClassVar[str] = "Tyrrell's world"
    state_format: ClassVar[str] = (
        "w2mind's key:value; pairs. Counts step, fitness, alive (1/0). Scalars in [0,1] unless "
        "said: " + ", ".join(SCALARS) + " (distanceFromDen in cells, perceived). Direction vectors, "
        "nine numbers joined by commas, index 0 = own cell, 1 N, 2 NE, 3 E, 4 SE, 5 S, 6 SW, 7 W, "
        "8 NW, each the summed nearness 1/(1+d) of what lies that way, with noise: "
        + ", ".join(VECTORS) + ". Example: fruitPerceptionStimulus:0,0,0.25,0,0,0,0,0,0.14;")
    action_format: ClassVar[str] = (
        "one action name or its index 0-24: " + ", ".join(f"{i} {a}" for i, a in enumerate(ACTIONS)))
    # machine-readable (the JSON form of wwm.gym.spaces)
    state_space: ClassVar[dict[str, Any]] = {"type": "Dict", "form": "key:value;", "spaces": {
        # counts as Boxes: a Discrete of a million values is a million inputs to a policy network
        "step": {"type": "Box", "shape": [1], "low": 0, "high": 10**6},
        "fitness": {"type": "Box", "shape": [1], "low": 0, "high": 10**4},
        "alive": {"type": "Discrete", "n": 2},
        **{k: {"type": "Box", "low": 0.0, "high": 1.0 if k != "distanceFromDen" else 300.0, "shape": [1]}
           for k in SCALARS},
        **{k: _VECTOR_SPACE for k in VECTORS}}}
    action_space: ClassVar[dict[str, Any]] = {"type": "Discrete", "n": len(ACTIONS), "labels": list(ACTIONS)}

    def __init__(self, seed: int = 0, lifetime: int = 3000, size: int = 25, felines: int = 2,
                 hawks: int = 1) -> None:
        self.engine = TyrrellEngine(Rules(size=size, lifetime=lifetime, felines=felines, hawks=hawks), seed)

    async def new_run(self, client_url: str | None = None) -> RunStarted | None:
        self.client_url = client_url
        return None

    async def get_state(self) -> str:
        return format_state(self.engine)

    async def execute_action(self, action: str) -> Outcome:
        e = self.engine
        if not e.alive:
            raise Refusal("run-ended", f"the animal died of {e.cause} at step {e.step_count}; start a new run")
        try:
            matings = e.step(parse_action(action))
        except ValueError as exc:
            raise Refusal("bad-parameters", f"Execute action: {exc}") from None
        return Outcome(format_state(e), float(matings), finished=not e.alive)

    async def reset(self) -> None:
        self.engine.reset()
        self._score = 0.0

    async def reset_score(self) -> None:
        self._score = 0.0

    async def get_current_score(self) -> float | None:
        return float(self.engine.fitness)

    def display_grid(self) -> dict[str, Any]:
        """The run's picture on its display page (drawn by :mod:`wwm.server.drawing`)."""
        e = self.engine

        def cells(a: np.ndarray) -> list[list[int]]:
            return [[int(x), int(y)] for x, y in a]

        def ready(kind: str) -> list[list[int]]:
            return [[int(x), int(y)] for (x, y), t in zip(e.food[kind], e.food_ready[kind], strict=True)
                    if t <= e.step_count]

        marks = {
            "wall": [],  # nothing walls the world in: terrain follows
            "cover": cells(e.terrain[COVER]), "swamp": cells(e.terrain[SWAMP]), "water": cells(e.terrain[WATER]),
            "nest": [list(e.den)],
            "food": ready("fruit") + ready("cereal"), "prey": ready("prey"),
            "mate": cells(e.mates), "animal": cells(e.animals),
            "predator": cells(e.felines) + ([] if e.is_night else cells(e.hawks)),
            "agent": [list(e.pos)] if e.alive else [],
        }
        fate = "alive" if e.alive else f"died of {e.cause}"
        return {"columns": e.rules.size, "rows": e.rules.size, "y_up": False,
                "marks": {k: v for k, v in marks.items() if v}, "looks": LOOKS,
                "caption": f"step {e.step_count} · {'night' if e.is_night else 'day'} · matings {e.fitness} · {fate}"}
