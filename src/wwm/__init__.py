"""wwm: the World-Wide-Mind in Python.

AI minds and worlds run as servers; anyone composes other people's minds into a society,
runs it in other people's worlds, and measures how intelligent the result is.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Literal, overload

from ._moved import install as _keep_old_module_names
from .protocol.errors import Refusal
from .protocol.interfaces import (
    CompetingMind,
    FeudalMind,
    LearningMind,
    Mind,
    SelectionMind,
    World,
)
from .protocol.results import Outcome, RunStarted, Suggestion, Values

if TYPE_CHECKING:
    from .client.remote import RemoteMind, RemoteWorld

_keep_old_module_names()

__version__ = "0.1.0"

__all__ = [
    "CompetingMind", "FeudalMind", "LearningMind", "Mind", "Outcome", "Refusal", "RunStarted",
    "SelectionMind", "Suggestion", "Values", "World", "connect",
]


@overload
def connect(url: str, *, role: Literal["world"], **args: Any) -> RemoteWorld: ...
@overload
def connect(url: str, *, role: Literal["mind"], **args: Any) -> RemoteMind: ...
@overload
def connect(url: str, *, role: str | None = None, **args: Any) -> RemoteWorld | RemoteMind: ...


def connect(url: str, *, role: str | None = None, **args: Any) -> RemoteWorld | RemoteMind:
    """A remote World or Mind at ``url`` with the same async interface as a local object
    (:func:`wwm.client.remote.connect`: ``role=``, ``transport=``, ``app=`` for a server app
    in this process, and the New run arguments)."""
    from .client.remote import connect as _connect

    return _connect(url, role=role, **args)
