"""A World or Mind class's arguments, read from its ``__init__`` signature: what a server
checks each New run against and publishes, and what a society builds a local object with.

``__init__(self, size: int = 5, seed: int = 0)`` becomes a pydantic model, so the open-ended
arguments of "New run" (text on the XML wire) are converted to the annotated types, a wrong
type or an unknown name is refused as ``bad-parameters`` with a text naming the argument, and
the server's description publishes the arguments as JSON Schema. :meth:`Arguments.in_force`
says which values a run gets on a server started with defaults, and where each was set (the
one source of what the description page and card show). A constructor with a
``wire_items`` parameter receives the items that match none of its other parameters in one
dict under their exact wire names (see :data:`wwm.protocol.queries.WIRE_ITEMS`).

:func:`build_at_start` makes one throwaway instance with a server's defaults, so a value the
constructor itself rejects stops ``wwm serve`` at start rather than at the first New run.
"""

from __future__ import annotations

import inspect
import logging
import typing
from typing import Any

from pydantic import BaseModel, ConfigDict, TypeAdapter, ValidationError, create_model
from pydantic_core import to_jsonable_python

from .errors import Refusal
from .queries import WIRE_ITEMS, snake

log = logging.getLogger("wwm.server")


class Arguments:
    def __init__(self, cls: type) -> None:
        self.cls = cls
        init = cls.__init__  # type: ignore[misc]  # the class's own constructor is what it is built with
        signature = inspect.signature(init)
        try:
            # with Annotated[..., Field(...)] kept: descriptions, ranges, x-choices reach the schema
            hints = typing.get_type_hints(init, include_extras=True)
        except Exception:  # unresolvable annotations: fall back to Any
            hints = {}
        fields: dict[str, Any] = {}
        self.open = False
        self.wire_items = False  # the constructor takes the unmatched items by wire name
        for name, param in list(signature.parameters.items())[1:]:
            if param.kind is param.VAR_KEYWORD:
                self.open = True
                continue
            if param.kind is param.VAR_POSITIONAL:
                continue
            if name == WIRE_ITEMS:
                self.wire_items = True
                continue
            annotation = hints.get(name, Any)
            default = ... if param.default is param.empty else param.default
            fields[name] = (annotation, default)
        extra: typing.Literal["allow", "forbid"] = "allow" if self.open and not self.wire_items else "forbid"
        # no NaN or infinity in a float argument (pydantic takes "nan" and "inf" by default)
        config = ConfigDict(extra=extra, arbitrary_types_allowed=True, allow_inf_nan=False)
        self.model: type[BaseModel] = create_model(f"{cls.__name__}Arguments", __config__=config, **fields)
        self.names = list(fields)
        self.required = [name for name, (_, default) in fields.items() if default is ...]

    def build(self, raw: dict[str, Any]) -> dict[str, Any]:
        """Validated constructor keyword arguments from wire items (names snake-cased, except
        those a ``wire_items`` parameter takes)."""
        out = self._validate(raw, partial=False)
        assert out is not None
        return out

    def build_if_complete(self, raw: dict[str, Any]) -> dict[str, Any] | None:
        """As :meth:`build`, but a missing required argument is no error (each run may give
        it): the answer is then None. A wrong value is still refused."""
        return self._validate(raw, partial=True)

    def _split(self, raw: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
        """Wire items as (snake-cased arguments, items a ``wire_items`` parameter takes)."""
        values: dict[str, Any] = {}
        wire: dict[str, Any] = {}
        for key, value in raw.items():
            name = snake(key)
            if self.wire_items and name not in self.names:
                wire[key] = value
            else:
                values[name] = value  # later items win: a run's own arguments over defaults
        return values, wire

    def _validate(self, raw: dict[str, Any], *, partial: bool) -> dict[str, Any] | None:
        values, wire = self._split(raw)
        try:
            model = self.model.model_validate(values)
        except ValidationError as exc:
            errors = [e for e in exc.errors() if not (partial and e["type"] == "missing")]
            if errors:
                raise Refusal("bad-parameters", self.explain(errors)) from None
            return None
        out = {name: getattr(model, name) for name in self.names}
        if self.open and model.model_extra:
            out.update(model.model_extra)
        if self.wire_items:
            out[WIRE_ITEMS] = wire
        return out

    def explain(self, errors: list[Any]) -> str:
        """One text naming each argument pydantic refused and why."""
        parts = []
        for error in errors:
            where = ".".join(str(p) for p in error["loc"]) or "arguments"
            if error["type"] == "extra_forbidden":
                takes = ", ".join(self.names) or "no arguments"
                parts.append(f"unknown argument {where!r} ({self.cls.__name__} takes: {takes})")
            elif error["type"] == "missing":
                parts.append(f"missing argument {where!r}")
            else:
                parts.append(f"argument {where!r}: {error['msg']} (got {error.get('input')!r:.40})")
        return "; ".join(parts)

    def in_force(self, start: dict[str, Any]) -> dict[str, dict[str, Any]]:
        """What a New run that gives no items of its own gets on a server started with the
        defaults ``start`` (its ``--arg`` values): for each argument, its ``value`` (as JSON)
        and where it was ``set``: ``"start"`` (a start-up default; ``class_default`` is the
        class's own, if it has one), ``"class"`` (the class's default) or ``"run"`` (required
        and not given at start: each New run gives it, so there is no value). Start-up items
        the signature does not name (taken by ``**kwargs`` or ``wire_items``) follow, as given.
        """
        values, wire = self._split(start)
        out: dict[str, dict[str, Any]] = {}
        for name in self.names:
            field = self.model.model_fields[name]
            default = None if field.is_required() else _json(field.get_default(call_default_factory=True))
            if name in values:
                value = self._convert(name, field.rebuild_annotation(), values[name])   # with its range
                out[name] = {"value": _json(value), "set": "start"}
                if not field.is_required():
                    out[name]["class_default"] = default
            elif field.is_required():
                out[name] = {"set": "run"}
            else:
                out[name] = {"value": default, "set": "class"}
        for key, value in {**{k: v for k, v in values.items() if k not in self.names}, **wire}.items():
            out[key] = {"value": _json(value), "set": "start"}
        return out

    def _convert(self, name: str, annotation: Any, value: Any) -> Any:
        """One argument's value converted to its annotated type, as a run would get it."""
        try:
            return TypeAdapter(annotation, config=_ONE_VALUE).validate_python(value)
        except ValidationError as exc:
            raise Refusal("bad-parameters", self.explain(
                [{**e, "loc": (name, *e["loc"])} for e in exc.errors()])) from None

    def schema(self, in_force: dict[str, dict[str, Any]] | None = None) -> dict[str, Any]:
        """The arguments as JSON Schema. Given :meth:`in_force`, it describes New run on this
        server: an argument set at start has that value as its ``default`` and is no longer
        ``required`` of a run."""
        try:
            schema = self.model.model_json_schema()
        except Exception:
            return {"type": "object"}
        props = schema.get("properties", {})
        for name, setting in (in_force or {}).items():
            if setting["set"] == "start" and name in props:
                props[name]["default"] = setting["value"]
                if name in schema.get("required", []):
                    schema["required"].remove(name)
        if "required" in schema and not schema["required"]:
            del schema["required"]
        return schema


_ONE_VALUE = ConfigDict(arbitrary_types_allowed=True, allow_inf_nan=False)


def _json(value: Any) -> Any:
    """A value as JSON shows it (what JSON cannot hold, as its repr)."""
    return to_jsonable_python(value, fallback=repr)


def build_at_start(cls: type, raw: dict[str, Any]) -> None:
    """Build one throwaway instance of ``cls`` with a server's defaults ``raw`` (its ``--arg``
    values), and refuse as ``bad-parameters`` values the constructor rejects (TypeError,
    ValueError or a Refusal), naming them and the constructor's reason.

    When this is safe: only for an own-copy class (a Mind, or a World whose ``sharing`` is
    "own"), which the server builds afresh for every run anyway, and only if the class leaves
    ``build_at_start`` true and the defaults give every required argument. A shared or
    exclusive world is never built here: its one instance is the world itself (an arena, a
    robot), and a second one could double what building it does. A class whose constructor
    does more than check and store (opens files or connections, registers itself somewhere)
    sets ``build_at_start = False``.

    What is refused: values that break a New run carrying no items of its own, which would
    work without them. When the class cannot be built from its own defaults either (each run
    must give more, like a region and its minds), there is nothing to judge and the server
    starts. Any other exception is only logged: the first New run reports it, as before.
    """
    if not raw or getattr(cls, "sharing", "own") != "own" or not getattr(cls, "build_at_start", True):
        return
    arguments = Arguments(cls)
    args = arguments.build_if_complete(raw)
    if args is None:  # a required argument left for each run to give
        return
    try:
        cls(**args)
        return
    except (TypeError, ValueError, Refusal) as exc:
        reason = _reason(exc)
    except Exception as exc:
        log.warning("%s could not be built at start with %s: %s", cls.__name__, raw, _reason(exc))
        return
    optional = [key for key in raw if snake(key) not in arguments.required]
    if not _builds(cls, arguments, {k: v for k, v in raw.items() if k not in optional}):
        return  # not even without them: each run must give more
    blamed = [key for key in optional if _builds(cls, arguments, {k: v for k, v in raw.items() if k != key})]
    named = blamed or optional  # no one value to blame: name them all
    shown = ", ".join(f"{key}={raw[key]}" for key in named)
    raise Refusal("bad-parameters", f"{shown}: {cls.__name__} rejects {'it' if len(named) == 1 else 'them'}: {reason}")


def _builds(cls: type, arguments: Arguments, raw: dict[str, Any]) -> bool:
    """Whether ``cls`` builds with these defaults (False when one it needs is missing)."""
    try:
        args = arguments.build_if_complete(raw)
        if args is None:
            return False
        cls(**args)
    except Exception:
        return False
    return True


def _reason(exc: BaseException) -> str:
    text = exc.text if isinstance(exc, Refusal) else str(exc) or type(exc).__name__
    return " ".join(text.split())  # one line
