"""A query or a response as it travels: a name, named data items, and for a refused query
the refusal. The codecs (:mod:`.xmlcodec`, :mod:`.jsoncodec`) turn these into bytes and back;
:mod:`.queries` turns the data items into Python arguments and return values.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .errors import Refusal
from .queries import PROTOCOL_VERSION, Wire


@dataclass(slots=True)
class Query:
    name: str
    data: dict[str, Wire] = field(default_factory=dict)
    version: str = PROTOCOL_VERSION


@dataclass(slots=True)
class Response:
    name: str
    data: dict[str, Wire] = field(default_factory=dict)
    refusal: Refusal | None = None
    version: str = PROTOCOL_VERSION

    @classmethod
    def refused(cls, name: str, refusal: Refusal) -> Response:
        return cls(name=name, refusal=refusal)


Message = Query | Response
