"""The compose form's fields, read from a registered server's argument schema (its card's
``arguments``, JSON Schema made by pydantic from the class's ``__init__``), and the values typed
into them converted and checked as the document holds them.

What a schema may carry for a person (see :mod:`wwm.server.arguments`): ``description`` (one
sentence, the field's help), ``minimum``/``maximum`` (or exclusive), ``default``, ``enum`` (a
``Literal``) and two extension keys, ``x-choices`` (``{value: "what this choice does"}``) and
``x-advanced`` (shown under "Advanced"). A schema without them still gives a plain field,
labelled with the argument's name in words.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from .prose import plain
from .store import PortalError

if TYPE_CHECKING:
    from .models import Server

MEMBERS = "minds"                                  # the argument that takes member minds
ARG_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,60}")
MAX_FIELDS = 60
MAX_CHOICES = 60
MAX_HELP = 300


class DraftError(PortalError):
    """The compose form cannot become a document; the text says what to fix."""


@dataclass(frozen=True)
class Choice:
    value: str             # as the form sends it
    text: str              # one sentence of what it does ("" if the schema says none)
    raw: str | int | float = ""     # as the document holds it (a number enum's value a number)


@dataclass(frozen=True)
class ArgField:
    """One argument of a server, as the form shows and reads it."""

    name: str
    kind: str              # "integer", "number", "boolean", "list", "choice", "text"
    item: str              # a list's items: "number" or "text"
    default: str           # as shown ("" when none)
    help: str              # the schema's description, first paragraph, plain text
    label: str = ""
    choices: tuple[Choice, ...] = ()
    minimum: float | None = None
    maximum: float | None = None
    above: float | None = None           # exclusive minimum
    below: float | None = None           # exclusive maximum
    advanced: bool = False
    required: bool = False

    @property
    def step(self) -> str:
        return "1" if self.kind == "integer" else "any"

    @property
    def range_text(self) -> str:
        """The range in words ("from 0 to 1", "at least 1", "more than 0"), or ""."""
        low = (f"{_num(self.minimum)}", True) if self.minimum is not None else (
            (f"{_num(self.above)}", False) if self.above is not None else None)
        high = (f"{_num(self.maximum)}", True) if self.maximum is not None else (
            (f"{_num(self.below)}", False) if self.below is not None else None)
        if low and high and low[1] and high[1]:
            return f"from {low[0]} to {high[0]}"
        words = []
        if low:
            words.append(("at least " if low[1] else "more than ") + low[0])
        if high:
            words.append(("at most " if high[1] else "less than ") + high[0])
        return " and ".join(words)

    def in_range(self, value: float) -> bool:
        return not ((self.minimum is not None and value < self.minimum)
                    or (self.maximum is not None and value > self.maximum)
                    or (self.above is not None and value <= self.above)
                    or (self.below is not None and value >= self.below))

    def choice(self, value: str) -> Choice | None:
        return next((c for c in self.choices if c.value == value), None)


def _num(value: float | None) -> str:
    return "" if value is None else f"{value:g}"


def humanise(name: str) -> str:
    """An argument's name in words: ``q_temperature`` is "Q temperature", ``maxSteps`` "Max steps"."""
    spaced = re.sub(r"(?<=[a-z0-9])(?=[A-Z])", " ", name).replace("_", " ").replace("-", " ")
    words = spaced.split()
    if not words:
        return name
    first = words[0] if words[0].isupper() and len(words[0]) > 1 else words[0].capitalize()
    return " ".join([first, *(w if w.isupper() and len(w) > 1 else w.lower() for w in words[1:])])


def _types(spec: dict[str, Any]) -> list[str]:
    found = [spec["type"]] if isinstance(spec.get("type"), str) else []
    for option in spec.get("anyOf") or []:
        if isinstance(option, dict) and isinstance(option.get("type"), str):
            found.append(option["type"])
    return found


def _merged(spec: dict[str, Any]) -> dict[str, Any]:
    """The spec with what an ``anyOf`` option (``Optional[Annotated[...]]``) says of the
    value folded in: its enum and range."""
    out = dict(spec)
    for option in spec.get("anyOf") or []:
        if isinstance(option, dict) and option.get("type") != "null":
            for key in ("enum", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "x-choices"):
                if key in option and key not in out:
                    out[key] = option[key]
    return out


def _number(value: object) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        return None
    return float(value)


def _choices(spec: dict[str, Any]) -> tuple[Choice, ...]:
    """An enum's values in its order, each with its sentence from ``x-choices``; or the
    ``x-choices`` alone when there is no enum."""
    said = spec.get("x-choices")
    said = said if isinstance(said, dict) else {}
    enum = spec.get("enum")
    values = [v for v in enum if isinstance(v, str | int | float) and not isinstance(v, bool)] \
        if isinstance(enum, list) else [k for k in said if isinstance(k, str)]
    return tuple(Choice(str(v)[:200], plain(said.get(str(v)))[:MAX_HELP], v) for v in values[:MAX_CHOICES])


def field_of(name: str, spec: dict[str, Any], required: bool = False) -> ArgField:
    """One property of an argument schema as a field of the form."""
    spec = _merged(spec)
    types = _types(spec)
    choices = _choices(spec)
    if choices:
        kind = "choice"
    elif "string" in types or not types:
        kind = "text"
    elif types[0] == "array" or "array" in types and "null" in types:
        kind = "list"
    else:
        kind = types[0] if types[0] in ("integer", "number", "boolean") else "text"
    items = spec.get("items") if isinstance(spec.get("items"), dict) else {}
    item = "number" if isinstance(items, dict) and items.get("type") in ("number", "integer") else "text"
    default = spec.get("default")
    shown = "" if default is None else (json.dumps(default) if not isinstance(default, str) else default)
    title = spec.get("title")
    automatic = name.title().replace("_", " ")        # pydantic's own title says nothing more than the name
    label = str(title)[:80] if isinstance(title, str) and title and title != automatic else humanise(name)
    return ArgField(name, kind, item, shown[:200], plain(spec.get("description"))[:MAX_HELP], label, choices,
                    _number(spec.get("minimum")), _number(spec.get("maximum")),
                    _number(spec.get("exclusiveMinimum")), _number(spec.get("exclusiveMaximum")),
                    spec.get("x-advanced") is True, required)


def _properties(server: Server | None) -> tuple[dict[str, Any], list[str]]:
    card = server.card if server is not None and isinstance(server.card, dict) else {}
    schema = card.get("arguments")
    properties = schema.get("properties") if isinstance(schema, dict) else None
    required = schema.get("required") if isinstance(schema, dict) else None
    return (properties if isinstance(properties, dict) else {},
            [r for r in required if isinstance(r, str)] if isinstance(required, list) else [])


def arg_fields(server: Server | None) -> list[ArgField]:
    """The arguments a server's card publishes, as fields of the form (``minds`` aside: that
    is the member list): those that matter first, the advanced after, each group in the
    schema's order."""
    properties, required = _properties(server)
    out = []
    for name, spec in properties.items():
        if not isinstance(name, str) or name == MEMBERS or not ARG_NAME.fullmatch(name):
            continue
        out.append(field_of(name, spec if isinstance(spec, dict) else {}, name in required))
    out = out[:MAX_FIELDS]
    return [f for f in out if not f.advanced] + [f for f in out if f.advanced]


def takes_members(server: Server | None) -> bool:
    properties, _ = _properties(server)
    return server is not None and server.role == "mind" and MEMBERS in properties


def convert(arg: ArgField, text: str, where: str) -> Any:
    """A typed value as the document holds it, or :class:`DraftError` naming the argument in
    words (its label) and what it takes."""
    text = text.strip()
    named = f"{where}: “{arg.label or humanise(arg.name)}”"
    if arg.kind == "choice":
        chosen = arg.choice(text)
        if chosen is None:
            listed = ", ".join(c.value for c in arg.choices[:12])
            raise DraftError(f"{named} is one of {listed}; not {text[:40]!r}")
        return chosen.raw
    if arg.kind in ("integer", "number"):
        try:
            value: float = int(text) if arg.kind == "integer" else float(text)
            if not math.isfinite(value):
                raise ValueError
        except ValueError:
            what = "a whole number" if arg.kind == "integer" else "a number"
            raise DraftError(f"{named} must be {what}, not {text[:40]!r}") from None
        if not arg.in_range(value):
            raise DraftError(f"{named} must be {arg.range_text}; {text[:40]} is out of range")
        return value
    if arg.kind == "boolean":
        if text.lower() in ("true", "yes", "1", "on"):
            return True
        if text.lower() in ("false", "no", "0", "off"):
            return False
        raise DraftError(f"{named} is true or false, not {text[:40]!r}")
    if arg.kind == "list":
        items = [p.strip() for p in text.split(",") if p.strip()]
        if arg.item == "number":
            try:
                return [float(p) for p in items]
            except ValueError:
                raise DraftError(f"{named} is numbers separated by commas, not {text[:40]!r}") from None
        return items
    return text


def is_default(arg: ArgField, value: Any) -> bool:
    """Whether a converted value is the one the server takes anyway (a checkbox always
    sends a value: left as it was drawn, it stays out of the document)."""
    if arg.kind != "boolean" or not arg.default:
        return False
    return bool(arg.default == json.dumps(value))


def shown_value(value: Any) -> str:
    """A document's argument value as the form shows it (the inverse of :func:`convert`)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, list) and all(isinstance(v, str | int | float) for v in value):
        return ", ".join(str(v) for v in value)
    if isinstance(value, str | int | float):
        return str(value)
    return json.dumps(value)
