"""wwm: the World-Wide-Mind in Python.

AI minds and worlds run as servers; anyone composes other people's minds into a society,
runs it in other people's worlds, and measures how intelligent the result is.
"""

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

_keep_old_module_names()

__version__ = "0.1.0"

__all__ = [
    "CompetingMind", "FeudalMind", "LearningMind", "Mind", "Outcome", "Refusal", "RunStarted",
    "SelectionMind", "Suggestion", "Values", "World", "connect",
]


def connect(url: str, **args):  # noqa: ANN201 - the client layer defines the return types
    """A remote World or Mind at ``url`` with the same async interface as a local object."""
    from .client.remote import connect as _connect

    return _connect(url, **args)
