"""The state text of Tyrrell's world, in w2mind's ``w2m.TyrrellWorld`` form: ``key:value;``
pairs, a scalar as one number and a direction vector as nine numbers joined by commas (index
0 the animal's own cell, 1 N, 2 NE, 3 E, 4 SE, 5 S, 6 SW, 7 W, 8 NW), e.g.::

    step:12;fitness:0;alive:1;perceivedFatShortage:0.31;...;nightProximity:0.06;...;
    fruitPerceptionStimulus:0,0,0.25,0,0,0,0,0,0.14;...

:func:`format_state` writes it and :func:`parse_state` reads it back (what a Python mind
uses); :data:`SCALARS` and :data:`VECTORS` name every key in order.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from .engine import TyrrellEngine

COUNTS = ("step", "fitness", "alive")
SCALARS: tuple[str, ...] = (
    "perceivedFatShortage", "perceivedCarbohydrateShortage", "perceivedProteinShortage",
    "perceivedWaterShortage", "perceivedTemperature", "perceivedDirtiness", "perceivedHealthShortage",
    "perceivedFatigue", "nightProximity", "night", "distanceFromDen", "inDen", "onCover", "onWater",
    "alert", "mateCourted")
VECTORS: tuple[str, ...] = tuple(f"{k}PerceptionStimulus" for k in (
    "fruit", "cereal", "prey", "water", "cover", "swamp", "predator1", "predator2",
    "irrelevantAnimal", "mate", "den"))


def _number(x: float) -> str:
    return f"{x:g}"   # values are rounded to 3 decimals already


def format_state(engine: TyrrellEngine) -> str:
    p = engine.perceive()
    parts = [f"step:{engine.step_count}", f"fitness:{engine.fitness}", f"alive:{int(engine.alive)}"]
    parts += [f"{k}:{_number(p.scalars[k])}" for k in SCALARS]
    parts += [f"{k}:{','.join(map(_number, p.vectors[k].tolist()))}" for k in VECTORS]
    return ";".join(parts) + ";"


@dataclass(frozen=True)
class View:
    """A state read back: scalars by name, vectors as 9-tuples."""

    scalars: dict[str, float]
    vectors: dict[str, tuple[float, ...]]

    def __getitem__(self, key: str) -> float:
        return self.scalars[key]

    def vector(self, kind: str) -> tuple[float, ...]:
        """``kind`` without the suffix: ``fruit``, ``predator1``, ``den`` ..."""
        return self.vectors[f"{kind}PerceptionStimulus"]


@lru_cache(maxsize=8)
def parse_state(text: str) -> View:
    """A state text back as a :class:`View`; a ValueError naming the first bad pair. Cached:
    the minds of one society in one process read the same state once."""
    scalars: dict[str, float] = {}
    vectors: dict[str, tuple[float, ...]] = {}
    for pair in filter(None, (p.strip() for p in text.split(";"))):
        key, sep, value = pair.partition(":")
        try:
            if not sep:
                raise ValueError
            if "," in value:
                numbers = tuple(float(v) for v in value.split(","))
                if len(numbers) != 9:
                    raise ValueError
                vectors[key] = numbers
            else:
                scalars[key] = float(value)
        except ValueError:
            raise ValueError(f"not a Tyrrell world state: bad pair {pair[:40]!r} (want key:number "
                             "or key:nine,comma,separated,numbers)") from None
    missing = [k for k in (*SCALARS, *VECTORS) if k not in scalars and k not in vectors]
    if missing:
        raise ValueError(f"not a Tyrrell world state: missing {', '.join(missing[:3])}"
                         f"{' ...' if len(missing) > 3 else ''}")
    return View(scalars, vectors)
