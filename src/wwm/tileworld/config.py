"""The settings of a Tileworld run: grid, knobs, batteries, teams, end conditions and γ.

Defaults are T-World's (see ``shared/reference/tileworld.md`` §1); :meth:`Config.from_dict`
reads the same settings from JSON and names any field that is wrong.
"""

from __future__ import annotations

import math
import random
from dataclasses import asdict, dataclass, field, fields
from typing import Any, Literal

STATIC, SEMIDYNAMIC, DYNAMIC = 0, 1, 2
END_KEYS = ("time", "agents_location", "filled_holes", "filled_cells", "score", "good_moves",
            "bad_moves", "battery_used", "battery_recharge", "battery_restore")
NEUTRAL, SUCCESS, FAILURE = 1, 2, 3


MAX_RANGE_VALUES = 1000


class ConfigError(ValueError):
    """A setting that cannot be used, with the name of the setting in the message."""


@dataclass(frozen=True)
class Range:
    """A discrete distribution over the integers ``low..high`` (T-World's range knob).

    ``prob`` gives per-mille weights for each value (summing to 1000); empty means uniform.
    """

    low: int
    high: int
    prob: tuple[int, ...] = ()

    def __post_init__(self) -> None:
        if self.high < self.low:
            raise ConfigError(f"range [{self.low}, {self.high}] is empty")
        if self.high - self.low >= MAX_RANGE_VALUES:  # every percept lists one probability per value
            raise ConfigError(f"range [{self.low}, {self.high}] has more than {MAX_RANGE_VALUES} values")
        if self.prob and (len(self.prob) != self.high - self.low + 1 or sum(self.prob) != 1000
                          or min(self.prob) < 0):
            raise ConfigError(f"range [{self.low}, {self.high}] needs {self.high - self.low + 1} "
                              f"per-mille weights summing to 1000, got {list(self.prob)}")

    def draw(self, rng: random.Random) -> int:
        if not self.prob:
            return rng.randint(self.low, self.high)
        return rng.choices(range(self.low, self.high + 1), weights=self.prob)[0]

    def as_json(self) -> dict[str, Any]:
        n = self.high - self.low + 1
        probs = [p / 1000 for p in self.prob] if self.prob else [round(1 / n, 3)] * n
        return {"range": [self.low, self.high], "prob": probs}

    @classmethod
    def parse(cls, name: str, value: Any) -> Range:
        if isinstance(value, Range):
            return value
        if isinstance(value, int) and not isinstance(value, bool):
            return cls(value, value)
        if isinstance(value, dict):
            prob = value.get("prob", ())
            value = value.get("range")
        else:
            prob = ()
        if (isinstance(value, (list, tuple)) and len(value) == 2
                and all(isinstance(v, int) and not isinstance(v, bool) for v in value)):
            try:
                return cls(value[0], value[1], tuple(int(p) for p in prob))
            except (ConfigError, TypeError, ValueError) as exc:
                raise ConfigError(f"{name}: {exc}") from None
        raise ConfigError(f"{name} must be an integer or a [low, high] pair, got {value!r}")


@dataclass(frozen=True)
class Team:
    """A team: its members' agent ids; the first member is the leader who holds the shared
    score and battery."""

    name: str
    members: tuple[int, ...]
    color: str = "#3b82f6"


@dataclass(frozen=True)
class StochasticModel:
    """Per-mille outcome of a move: intended, veer left, veer right, backward, refuse."""

    intended: int = 1000
    left: int = 0
    right: int = 0
    backward: int = 0
    refuses: int = 0

    def __post_init__(self) -> None:
        if sum(asdict(self).values()) != 1000 or min(asdict(self).values()) < 0:
            raise ConfigError(f"model_of_action weights must be >= 0 and sum to 1000, got {asdict(self)}")


@dataclass(frozen=True)
class Config:
    """Everything that defines a run. One seed and one config give one world, always."""

    rows: int = 9
    columns: int = 10
    dynamic: int = DYNAMIC
    holes_size: Range = Range(1, 3)
    num_holes: Range = Range(2, 3)
    num_obstacles: Range = Range(1, 2)
    difficulty: Range = Range(0, 0)
    scores_variability: float = 0.0
    dynamism: Range = Range(6, 13)
    hostility: Range = Range(1, 13)
    hard_bounds: bool = True
    async_tiles: bool = False
    dynamism_tiles: Range = Range(6, 13)
    partial_rewards: bool = True
    multiplier: bool = False
    multiplier_timeout: float = 6.0
    battery: bool = False
    agents: int = 1
    teams: tuple[Team, ...] = ()
    chargers: int | None = None
    initial_state: tuple[tuple[str | int, ...], ...] | None = None
    end: dict[str, dict[str, Any]] = field(default_factory=lambda: {"neutral": {"time": 300}})
    model_of_action: StochasticModel = StochasticModel()
    easy: bool = False  # the simplified Tileworld: no tiles, walking onto a hole cell fills it
    partial: bool = False
    radius: int = 2
    noise: bool = False
    noise_prob: float = 0.3
    gamma: float = 0.35
    seed: int = 0

    def __post_init__(self) -> None:
        if not (1 <= self.rows <= 100 and 1 <= self.columns <= 100):
            raise ConfigError(f"rows and columns must be between 1 and 100, got {self.rows}x{self.columns}")
        if self.dynamic not in (STATIC, SEMIDYNAMIC, DYNAMIC):
            raise ConfigError(f"dynamic must be 0 (static), 1 (semidynamic) or 2 (dynamic), got {self.dynamic}")
        if not 0.0 <= self.scores_variability <= 1.0:
            raise ConfigError(f"scores_variability must be in [0, 1], got {self.scores_variability}")
        if not (math.isfinite(self.gamma) and self.gamma > 0):
            raise ConfigError(f"gamma (world seconds per agent step) must be positive, got {self.gamma}")
        if not 0 <= self.radius <= MAX_RADIUS or not 0.0 <= self.noise_prob <= 1.0:
            raise ConfigError(f"radius must be in 0..{MAX_RADIUS} and noise_prob in [0, 1], "
                              f"got {self.radius} and {self.noise_prob}")
        if not (math.isfinite(self.multiplier_timeout) and self.multiplier_timeout >= 0):
            raise ConfigError(f"multiplier_timeout must be a number of seconds >= 0, got {self.multiplier_timeout}")
        for name in _RANGES:
            if getattr(self, name).low < 0:
                raise ConfigError(f"{name} must not go below 0, got {getattr(self, name).low}")
        if self.holes_size.low < 1:
            raise ConfigError("holes_size must be at least 1 cell")
        if not 1 <= self.agents <= self.rows * self.columns:
            raise ConfigError(f"agents must be between 1 and the {self.rows * self.columns} cells of the grid, "
                              f"got {self.agents}")
        members = sorted(m for t in self.team_list for m in t.members)
        if members != list(range(self.agents)):
            raise ConfigError(f"teams must put each of the {self.agents} agents (ids 0..{self.agents - 1}) "
                              f"in exactly one team, got members {members}")
        for group, conditions in self.end.items():
            if group not in ("neutral", "success", "failure"):
                raise ConfigError(f"end groups are neutral, success and failure, not {group!r}")
            for key in conditions:
                if key not in END_KEYS:
                    raise ConfigError(f"unknown end condition {key!r} in {group}: use {', '.join(END_KEYS)}")
                _check_end_value(group, key, conditions[key])
        if self.initial_state is not None and (
                len(self.initial_state) != self.rows or any(len(r) != self.columns for r in self.initial_state)):
            raise ConfigError(f"initial_state must be {self.rows} rows of {self.columns} cells")

    @property
    def team_list(self) -> tuple[Team, ...]:
        """The teams; by default every agent competes alone."""
        if self.teams:
            return self.teams
        return tuple(Team(f"team {i}", (i,), _COLORS[i % len(_COLORS)]) for i in range(self.agents))

    @property
    def charger_count(self) -> int:
        if not self.battery:
            return 0
        if self.chargers is not None:
            return self.chargers
        return max(len(t.members) for t in self.team_list) if len(self.team_list) > 1 else 1

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict that :meth:`from_dict` reads back to an equal config."""
        out: dict[str, Any] = {}
        for f in fields(self):
            value = getattr(self, f.name)
            if isinstance(value, Range):
                value = {"range": [value.low, value.high], "prob": list(value.prob)}
            elif f.name == "teams":
                value = [{"name": t.name, "members": list(t.members), "color": t.color} for t in value]
            elif f.name == "model_of_action":
                value = asdict(value)
            elif f.name == "initial_state" and value is not None:
                value = [list(r) for r in value]
            out[f.name] = value
        return out

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Config:
        """Read settings (JSON names, hyphens or spaces allowed) with clear errors."""
        if not isinstance(data, dict):
            raise ConfigError(f"a Tileworld config is a JSON object, got {type(data).__name__}")
        known = {f.name: f for f in fields(cls)}
        kwargs: dict[str, Any] = {}
        for raw_key, value in data.items():
            key = str(raw_key).replace("-", "_").replace(" ", "_")
            if key not in known:
                raise ConfigError(f"unknown setting {raw_key!r}; known: {', '.join(known)}")
            kwargs[key] = _coerce(key, value, known[key].default)
        try:
            return cls(**kwargs)
        except TypeError as exc:
            raise ConfigError(str(exc)) from None


_RANGES = ("holes_size", "num_holes", "num_obstacles", "difficulty", "dynamism", "hostility", "dynamism_tiles")
MAX_RADIUS = 100


def _check_end_value(group: str, key: str, value: Any) -> None:
    """An end condition's value: a finite number, or for agents_location a list of cells."""
    if key == "agents_location":
        cells = value if isinstance(value, (list, tuple)) else None
        if cells is None or not all(
                (isinstance(c, dict) and isinstance(c.get("row"), int) and isinstance(c.get("column"), int))
                or (isinstance(c, (list, tuple)) and len(c) == 2 and all(isinstance(v, int) for v in c))
                for c in cells):
            raise ConfigError(f"end condition agents_location in {group} must be a list of "
                              f'{{"row": r, "column": c}} cells, got {value!r}')
    elif isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise ConfigError(f"end condition {key} in {group} must be a finite number, got {value!r}")


def _coerce(key: str, value: Any, default: Any) -> Any:
    if isinstance(default, Range):
        return Range.parse(key, value)
    if key == "teams":
        try:
            return tuple(Team(str(t["name"]), tuple(int(m) for m in t["members"]),
                              str(t.get("color", _COLORS[i % len(_COLORS)]))) for i, t in enumerate(value))
        except (KeyError, TypeError, ValueError):
            raise ConfigError("teams must be a list of {name, members: [agent ids]}") from None
    if key == "model_of_action":
        if not isinstance(value, dict):
            raise ConfigError("model_of_action must be an object of per-mille weights")
        try:
            return StochasticModel(**{k: int(v) for k, v in value.items()})
        except TypeError as exc:
            raise ConfigError(f"model_of_action: {exc}") from None
    if key == "initial_state":
        if value is None:
            return None
        if not isinstance(value, list) or not all(isinstance(r, list) for r in value):
            raise ConfigError("initial_state must be a list of rows of cell codes")
        return tuple(tuple(c for c in r) for r in value)
    if key == "end":
        if not isinstance(value, dict) or not all(isinstance(v, dict) for v in value.values()):
            raise ConfigError("end must map neutral/success/failure to {condition: value}")
        return {g: {k: v for k, v in c.items() if v is not None} for g, c in value.items()}
    if key == "chargers" and value is None:
        return None
    expected = type(default)
    if expected is bool:
        if isinstance(value, bool):
            return value
        if str(value).lower() in ("true", "1", "yes", "on"):
            return True
        if str(value).lower() in ("false", "0", "no", "off"):
            return False
        raise ConfigError(f"{key} must be true or false, got {value!r}")
    if expected in (int, float) or default is None:
        try:
            number = float(value)
        except (TypeError, ValueError):
            raise ConfigError(f"{key} must be a number, got {value!r}") from None
        if not math.isfinite(number):
            raise ConfigError(f"{key} must be a finite number, got {value!r}")
        if expected is int or default is None:
            if number != int(number):
                raise ConfigError(f"{key} must be a whole number, got {value!r}")
            return int(number)
        return number
    return value


_COLORS = ("#2563eb", "#dc2626", "#16a34a", "#d97706", "#7c3aed", "#0891b2", "#db2777", "#4b5563")

Mode = Literal["discrete", "realtime"]
