"""The Action Selection server's arguments in one place: each one's type, one-sentence
description, range and place on the compose form (the ``Annotated`` types the constructor is
written with, which the server publishes as the card's JSON Schema), and :class:`ASConfig`,
the arguments checked once (ranges and the rules that join several) and kept, parsed.

Ranges are published as JSON Schema keys (``minimum``, ``exclusiveMinimum``, ...) and
enforced here, by the constructor, from the same declaration: a bad value is refused with a
sentence naming the argument (``bad-parameters`` on the wire, a ValueError in Python), the
same text whether the server is started with it (``--arg``) or a run gives it. ``method``
publishes the registry's methods, each with its sentence (``x-choices``), read when the card
is made, so a plugin's method is listed too. ``x-advanced`` marks what a newcomer may skip.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Annotated, Any

from pydantic import Field
from pydantic.fields import FieldInfo

from ..client.members import member_entries
from ..protocol.interfaces import Mind
from .methods import METHODS, Method, method_class, method_sentence

log = logging.getLogger("wwm.selection")

# the values of ``candidates`` and ``start``, with what each does (published as x-choices)
CANDIDATES = {"suggested": "The actions the minds suggest this step are the candidates.",
              "shared": "The shared suite given in 'actions' is the candidates, whatever the minds suggest."}
STARTS = {"random": "A random mind leads a negotiation.", "first": "The first mind leads a negotiation."}


def _field(description: str, *, advanced: bool = False, choices: Mapping[str, str] | None = None,
           **bounds: float) -> FieldInfo:
    """A Field with its description, JSON Schema bounds (``minimum``, ``exclusiveMinimum``,
    ``maximum``, ``exclusiveMaximum``), choices and ``x-advanced`` in ``json_schema_extra``
    (published, and checked by :func:`check_bounds`, not by pydantic: see the docstring)."""
    extra: dict[str, Any] = dict(bounds)
    if choices is not None:
        extra["enum"] = list(choices)
        extra["x-choices"] = dict(choices)
    if advanced:
        extra["x-advanced"] = True
    field: FieldInfo = Field(description=description, json_schema_extra=extra)
    return field


def _method_choices(schema: dict[str, Any]) -> None:
    """The registry's methods, each with its sentence, read when the schema is made."""
    choices: dict[str, str] = {}
    for name in METHODS:
        try:
            choices[name] = method_sentence(METHODS[name])
        except Exception as exc:  # a plugin that cannot be loaded is left out, not the card
            log.warning("method %s left out of the card: %s", name, exc)
    schema["enum"] = list(choices)
    schema["x-choices"] = choices


MindsArg = Annotated[
    Sequence[str | Mapping[str, Any] | Mind] | str | None,
    Field(description="The Mind servers in the society: their URLs (http://, ws:// or tcp://), or "
                      "members with the arguments sent in their own New run.")]
MethodArg = Annotated[str, Field(
    description="How the society decides whose action is taken each step.",
    json_schema_extra=_method_choices)]
TimeoutArg = Annotated[float, _field("Seconds to wait for the minds' answers each round; a late mind "
                                     "is left out of that round.", exclusiveMinimum=0)]
ViewsArg = Annotated[str | list[str], _field(
    "One sub-space of the state per mind, separated by ';' (e.g. 'i,f;n;p'), '*' for all of it.",
    advanced=True)]
WeightsArg = Annotated[str | list[float], _field(
    "One weight per mind, comma-separated, for the weighted vote of method 'damn'.")]
StrengthsArg = Annotated[str | list[float], _field(
    "One strength per mind, comma-separated, sent to each mind as 'Change mind strength'.", advanced=True)]
CandidatesArg = Annotated[str, _field("Which actions the society chooses among.", choices=CANDIDATES)]
ActionsArg = Annotated[str | list[str], _field(
    "The shared suite of actions, comma-separated (used when candidates is 'shared').")]
QTemperatureArg = Annotated[float, _field(
    "Starting temperature of Hierarchical Q's exploration (higher explores more).", advanced=True, minimum=0)]
RunLengthArg = Annotated[float, _field(
    "Steps over which Hierarchical Q's temperature declines to nothing.", advanced=True, exclusiveMinimum=0)]
WTemperatureArg = Annotated[float, _field(
    "Temperature of the stochastic W methods (higher picks more at random).", advanced=True, minimum=0)]
GammaArg = Annotated[float, _field(
    "Discount of future score in what the society learns (0 counts only the next step).", advanced=True,
    minimum=0, exclusiveMaximum=1)]
PeriodArg = Annotated[int, _field("Steps each mind leads in turn, for method 'rotation'.", advanced=True,
                                  minimum=1)]
StartArg = Annotated[str, _field("Which mind leads a negotiation first.", advanced=True, choices=STARTS)]
RememberArg = Annotated[bool, _field("Remember the winner of each state and ask it alone the next time.",
                                     advanced=True)]
MaxDepthArg = Annotated[int, _field("The most Mind URLs followed in a chain when a mind names another.",
                                    advanced=True, minimum=0)]
StrengthArg = Annotated[float, _field("Multiplies the W this society presents to a society above it.",
                                      advanced=True, exclusiveMinimum=0)]
MinMembersArg = Annotated[int | None, _field(
    "Start with the minds that answer if at least this many do, and keep trying the others; "
    "empty: every mind must start.", advanced=True, minimum=1)]
RetryArg = Annotated[float, _field("Seconds between tries of a mind that did not start.", advanced=True,
                                   exclusiveMinimum=0)]
TimeoutShareArg = Annotated[float, _field(
    "The share of this time-out a mind that takes a time-out is given, so time-outs shrink down a chain.",
    advanced=True, exclusiveMinimum=0, exclusiveMaximum=1)]
WRunLengthArg = Annotated[float | None, _field(
    "Steps over which the W-temperature declines to nothing; empty: it stays.", advanced=True,
    exclusiveMinimum=0)]
KeepArg = Annotated[bool, _field("Keep what the society learns for each client (off: every run learns "
                                 "from scratch).", advanced=True)]
SeedArg = Annotated[int | None, _field("Seed of the society's own random choices, to repeat a run.",
                                       advanced=True)]

_RANGES = {"timeout": TimeoutArg, "q_temperature": QTemperatureArg, "w_temperature": WTemperatureArg,
           "run_length": RunLengthArg, "gamma": GammaArg, "period": PeriodArg, "max_depth": MaxDepthArg,
           "strength": StrengthArg, "retry": RetryArg, "timeout_share": TimeoutShareArg,
           "w_run_length": WRunLengthArg}


def _bounds(annotated: Any) -> dict[str, float]:
    """The JSON Schema bounds declared on one of the types above."""
    for meta in getattr(annotated, "__metadata__", ()):
        extra = getattr(meta, "json_schema_extra", None)
        if isinstance(extra, dict):
            return {k: float(v) for k, v in extra.items()
                    if k in ("minimum", "exclusiveMinimum", "maximum", "exclusiveMaximum")
                    and isinstance(v, int | float)}
    return {}


_UNITS = {"retry": "seconds", "w_run_length": "steps"}  # said in the sentence refusing a value


def _range_text(bounds: Mapping[str, float], unit: str | None = None) -> str:
    """``{"exclusiveMinimum": 0}`` as "positive" (or "a positive number of seconds"),
    ``{"minimum": 0, "exclusiveMaximum": 1}`` as "in [0, 1)", and so on."""
    low = bounds.get("minimum", bounds.get("exclusiveMinimum"))
    high = bounds.get("maximum", bounds.get("exclusiveMaximum"))
    if high is None:
        if low == 0 and "exclusiveMinimum" in bounds:
            return f"a positive number of {unit}" if unit else "positive"
        if low == 0:
            return "0 or more"
        return f"{'more than' if 'exclusiveMinimum' in bounds else 'at least'} {low:g}"
    if low is None:
        return f"{'less than' if 'exclusiveMaximum' in bounds else 'at most'} {high:g}"
    if "exclusiveMinimum" in bounds and "exclusiveMaximum" in bounds:
        return f"between {low:g} and {high:g}"
    opening = "(" if "exclusiveMinimum" in bounds else "["
    closing = ")" if "exclusiveMaximum" in bounds else "]"
    return f"in {opening}{low:g}, {high:g}{closing}"


def check_bounds(name: str, value: float | None) -> None:
    """A ValueError naming ``name`` if ``value`` is outside the range its type declares."""
    bounds = _bounds(_RANGES[name])
    if value is None or not bounds:
        return
    ok = ((bounds.get("minimum") is None or value >= bounds["minimum"])
          and (bounds.get("exclusiveMinimum") is None or value > bounds["exclusiveMinimum"])
          and (bounds.get("maximum") is None or value <= bounds["maximum"])
          and (bounds.get("exclusiveMaximum") is None or value < bounds["exclusiveMaximum"]))
    if not ok:
        raise ValueError(f"{name} must be {_range_text(bounds, _UNITS.get(name))}, got {value:g}")


def split(value: str | Sequence[Any] | None, sep: str = ",") -> list[Any]:
    """A comma-separated text (or a list) as a list; empty text: an empty list."""
    if value is None:
        return []
    if isinstance(value, str):
        return [p.strip() for p in value.split(sep)] if value.strip() else []
    return list(value)


def numbers(value: str | Sequence[Any] | None, what: str, n: int) -> list[float]:
    """One number per mind, or none."""
    items = split(value)
    if not items:
        return []
    try:
        out = [float(v) for v in items]
    except (TypeError, ValueError):
        raise ValueError(f"{what} must be numbers separated by commas, got {value!r}") from None
    if len(out) != n:
        raise ValueError(f"{what} gives {len(out)} numbers for {n} minds")
    return out


@dataclass(frozen=True)
class ASConfig:
    """The arguments of one Action Selection server, checked and parsed: ``entries`` are
    the members as written (URLs, ``{url, args}``, Mind objects), one ``views`` entry, weight
    and strength per member (or none)."""

    method: type[Method]
    entries: list[Any]
    views: list[str]
    weights: list[float]
    strengths: list[float]
    timeout: float
    candidates: str
    actions: tuple[str, ...]
    q_temperature: float
    run_length: float
    w_temperature: float
    gamma: float
    period: int
    start: str
    remember: bool
    max_depth: int
    strength: float
    min_members: int | None
    retry: float
    timeout_share: float
    w_run_length: float | None
    keep: bool
    seed: int | None

    @classmethod
    def check(cls, minds: Sequence[str | Mapping[str, Any] | Mind] | str | None, method: str, timeout: float,
              views: str | list[str], weights: str | list[float], strengths: str | list[float],
              candidates: str, actions: str | list[str], q_temperature: float, run_length: float,
              w_temperature: float, gamma: float, period: int, start: str, remember: bool, max_depth: int,
              strength: float, min_members: int | None, retry: float, timeout_share: float,
              w_run_length: float | None, keep: bool, seed: int | None) -> ASConfig:
        """The arguments checked, or a ValueError naming the first one wrong (an unknown
        method: its UnknownName, listing the methods there are)."""
        chosen = method_class(method)
        for name, value in (("timeout", timeout), ("strength", strength), ("max_depth", max_depth),
                            ("q_temperature", q_temperature), ("w_temperature", w_temperature),
                            ("run_length", run_length), ("period", period), ("gamma", gamma),
                            ("retry", retry), ("timeout_share", timeout_share), ("w_run_length", w_run_length)):
            check_bounds(name, value)
        if candidates not in CANDIDATES:
            raise ValueError(f"candidates must be one of {', '.join(map(repr, CANDIDATES))}, got {candidates!r}")
        if start not in STARTS:
            raise ValueError(f"start must be one of {', '.join(map(repr, STARTS))}, got {start!r}")
        shared = tuple(a for a in split(actions) if a)
        if candidates == "shared" and not shared:
            raise ValueError("candidates='shared' needs the shared suite in 'actions'")
        # one text: URLs separated by white space or commas (or a JSON list of members)
        entries: list[Any] = [minds] if isinstance(minds, Mind) else member_entries(minds)
        view_list = split(views, ";") if isinstance(views, str) else list(views)
        if view_list and len(view_list) != len(entries):
            raise ValueError(f"views gives {len(view_list)} sub-spaces for {len(entries)} minds")
        weight_list = numbers(weights, "weights", len(entries))
        strength_list = numbers(strengths, "strengths", len(entries))
        if any(s <= 0 for s in strength_list):
            raise ValueError("strengths must be positive")
        if min_members is not None and not 1 <= min_members <= len(entries):
            raise ValueError(f"min_members must be between 1 and the number of minds ({len(entries)}), "
                             f"got {min_members}")
        if chosen.name == "w-learning-subspaces" and not view_list:
            raise ValueError("w-learning-subspaces needs 'views': one sub-space per mind")
        if chosen.name == "w-learning-full" and any(v.strip() not in ("", "*") for v in view_list):
            raise ValueError("w-learning-full shows every mind all of x: give no 'views'")
        return cls(chosen, entries, view_list, weight_list, strength_list, timeout, candidates, shared,
                   q_temperature, run_length, w_temperature, gamma, period, start, remember, max_depth,
                   strength, min_members, retry, timeout_share, w_run_length, keep, seed)


__all__ = ["ASConfig", "CANDIDATES", "STARTS", "check_bounds", "numbers", "split"]
