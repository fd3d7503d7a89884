"""A server's arguments, read from the class's ``__init__`` signature.

``__init__(self, size: int = 5, seed: int = 0)`` becomes a pydantic model, so the open-ended
arguments of "New run" (text on the XML wire) are converted to the annotated types, a wrong
type or an unknown name is refused as ``bad-parameters`` with a text naming the argument, and
the server's description publishes the arguments as JSON Schema.
"""

from __future__ import annotations

import inspect
import typing
from typing import Any

from pydantic import BaseModel, ConfigDict, ValidationError, create_model

from ..protocol.errors import Refusal
from ..protocol.queries import snake


class Arguments:
    def __init__(self, cls: type) -> None:
        self.cls = cls
        signature = inspect.signature(cls.__init__)
        try:
            hints = typing.get_type_hints(cls.__init__)
        except Exception:  # unresolvable annotations: fall back to Any
            hints = {}
        fields: dict[str, Any] = {}
        self.open = False
        for name, param in list(signature.parameters.items())[1:]:
            if param.kind is param.VAR_KEYWORD:
                self.open = True
                continue
            if param.kind is param.VAR_POSITIONAL:
                continue
            annotation = hints.get(name, Any)
            default = ... if param.default is param.empty else param.default
            fields[name] = (annotation, default)
        config = ConfigDict(extra="allow" if self.open else "forbid", arbitrary_types_allowed=True)
        self.model: type[BaseModel] = create_model(f"{cls.__name__}Arguments", __config__=config, **fields)
        self.names = list(fields)

    def build(self, raw: dict[str, Any]) -> dict[str, Any]:
        """Validated constructor keyword arguments from wire items (names snake-cased)."""
        values: dict[str, Any] = {}
        for key, value in raw.items():
            values[snake(key)] = value  # later items win: a run's own arguments over defaults
        try:
            model = self.model.model_validate(values)
        except ValidationError as exc:
            raise Refusal("bad-parameters", self.explain(exc)) from None
        out = {name: getattr(model, name) for name in self.names}
        if self.open and model.model_extra:
            out.update(model.model_extra)
        return out

    def explain(self, exc: ValidationError) -> str:
        parts = []
        for error in exc.errors():
            where = ".".join(str(p) for p in error["loc"]) or "arguments"
            if error["type"] == "extra_forbidden":
                takes = ", ".join(self.names) or "no arguments"
                parts.append(f"unknown argument {where!r} ({self.cls.__name__} takes: {takes})")
            elif error["type"] == "missing":
                parts.append(f"missing argument {where!r}")
            else:
                parts.append(f"argument {where!r}: {error['msg']} (got {error.get('input')!r:.40})")
        return "; ".join(parts)

    def schema(self) -> dict[str, Any]:
        try:
            return self.model.model_json_schema()
        except Exception:
            return {"type": "object"}
